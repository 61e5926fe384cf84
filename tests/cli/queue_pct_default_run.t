# One run of 10^5 customers at M/M/1 0.9 (the defaults): its p99 has
# about 900 values beyond it, too few for an interval that covers (it
# covered 44 of 100 seeds): no interval, said in words; the p95 interval
# (5000 beyond) is given and holds the exact 29.96 here.
cmd: sim queue --arrival exp:0.9 --service exp:1 --seed 1 --json
json: metrics.response_time_p99.ci_low null
json: metrics.response_time_p99.reason exists
json: metrics.response_time_p95 covers 29.957
