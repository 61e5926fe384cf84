# sim pool over replications: fewer than 2000 kept response times beyond
# the p99 (3 x 3000 customers: about 90) and its interval is withheld, as
# in sim queue; the p50 (about 4400 beyond it) keeps its interval.
cmd: sim pool --servers 2 --arrival exp:1 --customers 3000 --reps 3 --seed 1 --quiet --json
json: metrics.response_time_p99.ci_low null
json: metrics.response_time_p99.half_width null
json: metrics.response_time_p99.reason exists
json: metrics.response_time_p50.ci_low gt 0
