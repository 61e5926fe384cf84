# fit --column: a latency log's column fitted, the best model printed as a
# spec (a two-lognormal mixture, as the log was drawn from; see
# examples/latency/make_log.py), whose intervals hold the truth.
cmd: fit --column $DATA/../../examples/latency/latency.csv:latency_s --json
json: values eq 3000
json: best str lnmix2
json: candidates.0.family str lnmix2
json: spec exists
json: candidates.0.mean within 0.0080 0.0088
