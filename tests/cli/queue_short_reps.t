# Issue 34: 10 replications of 1000 customers of M/M/1 at 0.9 covered
# the exact mean in 30 of 40 runs; each replication is a few relaxation
# times: flagged, no interval in the JSON, exit 1.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 1000 --reps 10 --quiet --json
exit: 1
json: run.interval_support.supported false
json: metrics.response_time.ci_low null
stderr: each replication measured only
