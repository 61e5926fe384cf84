# M/M/1/5 at rho = 0.9: blocking (1-rho) rho^5 / (1 - rho^6) = 0.126023
cmd: sim queue --arrival exp:0.9 --service exp:1 --capacity 5 --customers 200000 --reps 10 --json --confidence 0.99
json: metrics.blocking_probability covers 0.126023
json: metrics.blocking_probability.half_width lt 0.003
json: model.capacity eq 5
