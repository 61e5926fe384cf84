# Issue 34: the default run of M/M/1 at 0.9 (10^5 customers, about 290
# relaxation times) supports its intervals: printed, exit 0.
cmd: sim queue --arrival exp:0.9 --service exp:1 --quiet --json
json: run.interval_support.supported true
json: metrics.response_time covers 10
