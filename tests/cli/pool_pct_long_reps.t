# sim pool over replications long enough for the p99 (3 x 80000
# customers: about 2400 kept beyond it): its interval is kept.
cmd: sim pool --servers 2 --arrival exp:1 --customers 80000 --reps 3 --seed 1 --quiet --json
json: metrics.response_time_p99.ci_low gt 0
json: metrics.response_time_p99.half_width gt 0
