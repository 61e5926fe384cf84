# Overload with a small buffer is a steady state: M/M/1/20 at load 2
# (blocking exact 1/2 + ..., from the M/M/c/K formula, covered).
cmd: sim queue --arrival exp:2 --service exp:1 --capacity 20 --customers 100000 --reps 5 --quiet --json
json: run.transient null
json: metrics.blocking_probability covers 0.5000002384
json: metrics.blocking_probability.exact within 0.50000023 0.50000024
