# Issue 34: a short run with --allow-short prints its intervals marked
# unreliable and exits 0; the JSON says the run does not support them.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 1000 --quiet --allow-short --json
json: run.interval_support.supported false
json: run.interval_support.allowed_short true
json: metrics.response_time.unreliable true
