# K = 1, switch off when idle, exponential setup of rate 0.1: M/M/1 with
# setup, E[T] = 1/(mu - lambda) + 1/alpha = 1/(1 - 0.5) + 10 = 12, and the
# fraction of time in setup (1/alpha) / (1/lambda + 1/alpha + (1 + lambda/alpha)/(mu - lambda)) = 10/24.
cmd: sim pool --servers 1 --policy djsq --arrival exp:0.5 --setup-time exp:0.1 --customers 100000 --reps 10 --confidence 0.99 --json
no-stderr:
json: metrics.response_time covers 12
json: metrics.response_time.half_width lt 0.3
json: metrics.frac_setup covers 0.4166667
json: metrics.mean_jobs covers 6
json: model.load within 0.4999999 0.5000001
json: model.policy str djsq
json: model.threshold eq 4
json: run.ci_method str replications
json: run.warmup.method str mser
json: energy_report.average_cost gt 0
json: metrics.demand_correlation.value null
