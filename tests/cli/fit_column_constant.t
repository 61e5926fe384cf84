# fit --column on a constant column (every value 0.25): the deterministic
# law det:0.25, not an exponential of that mean (which would put a third
# of its mass below 0.1 and claim values ten times the mean).
cmd: fit --column $DATA/dist_constant.csv:latency_s --json
json: values eq 5
json: constant true
json: best str det
json: spec str det:0.25
json: candidates.0.family str det
