# fit --column on a column that is not numbers: the file and line named.
cmd: fit --column $DATA/../../examples/latency/latency.csv:path
exit: 2
stderr: latency.csv:2
