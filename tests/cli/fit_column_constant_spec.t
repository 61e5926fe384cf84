# fit --column --spec on a constant column prints the deterministic law,
# a spec that sim queue takes back.
cmd: fit --column $DATA/dist_constant.csv:latency_s --spec
stdout: det:0.25
