# The foundation's acceptance run: M/M/1 at 0.9, 10 reps of 10^6 customers;
# E[T] = 1/(1 - 0.9) = 10 must lie in the reported confidence interval.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 1000000 --reps 10 --seed 1 --json
no-stderr:
json: metrics.response_time covers 10
json: metrics.response_time.half_width lt 0.4
json: metrics.utilization covers 0.9
json: metrics.number_in_system covers 9
json: metrics.blocking_probability.value eq 0
json: model.load within 0.8999999 0.9000001
json: run.ci_method str replications
json: run.warmup.method str mser
json: run.measured_customers gt 9000000
