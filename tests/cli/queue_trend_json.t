# Load 1.5 with a buffer of 25000 that fills after about 75000 of the
# 100000 arrivals: the buffer is reached, but three quarters of the window
# is the filling ramp. The trend test says so (run.trend), the table is
# marked transient with the evidence, and the exit status is 1.
cmd: sim queue --arrival exp:1.5 --service exp:1 --capacity 25000 --customers 100000 --reps 10 --seed 3 --quiet --json
exit: 1
json: run.trend.detected true
json: run.trend.degrees_of_freedom eq 9
json: run.trend.relative_change gt 0.2
json: run.trend.p_value lt 0.001
json: run.transient exists
