# A trace of arrivals at times 0, 1, ..., 999 with deterministic service 0.5:
# every response time is exactly 0.5 and the server is busy half the time.
cmd: sim queue --arrival trace:$DATA/trace_unit.txt --service det:0.5 --customers 900 --warmup 0 --json
json: metrics.response_time.value within 0.4999999 0.5000001
json: metrics.response_time_p99.value within 0.495 0.505
json: metrics.utilization.value within 0.499 0.501
json: model.arrival_canonical str 'trace:<1000 arrivals>'
