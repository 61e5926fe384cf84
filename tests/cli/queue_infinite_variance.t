# Pareto service with shape 1.5: E[S^2] is infinite, so the FCFS mean wait
# is infinite; reported as such, never as an interval; percentile
# intervals stay above the least response time (XM = 0.5).
cmd: sim queue --arrival exp:0.3 --service pareto:1.5,0.5 --customers 50000 --reps 5 --quiet --json
json: metrics.response_time.value null
json: metrics.response_time.infinite exists
json: metrics.waiting_time.ci_low null
json: metrics.response_time.exact_infinite exists
json: metrics.response_time_p99.ci_low ge 0.5
json: metrics.response_time_p50.ci_low ge 0.5
json: metrics.utilization covers 0.45
sh: ! grep -qi nan "$TMP/stdout"
