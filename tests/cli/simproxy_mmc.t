# sim proxy without a limiter in front of one backend of 4 exponential
# workers is M/M/4: lambda 300, mu 100, mean response by Erlang C
# 0.01509434 s; nothing waits at the proxy, nothing is refused.
cmd: sim proxy --limiter none --workers 4 --service exp:100 --arrival exp:300 --time 100 --reps 20 --confidence 0.99 --json --quiet
json: metrics.latency covers 0.01509434
json: metrics.refused.value eq 0
json: metrics.wait.value eq 0
json: metrics.goodput covers 300
json: limit null
json: model.load within 0.7499 0.7501
