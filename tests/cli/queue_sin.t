# A sinusoidal Poisson rate: same mean load, longer delays than constant
# Poisson (M/M/1 at 0.5 has E[T] = 2); MSER cuts nothing (not stationary).
cmd: sim queue --arrival sin:0.5,0.4,1000 --service exp:1 --time 100000 --reps 5 --json
json: metrics.response_time.ci_low gt 2.5
json: run.warmup.customers_cut eq 0
json: model.load within 0.4999 0.5001
