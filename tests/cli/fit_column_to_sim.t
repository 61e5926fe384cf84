# The bridge: the spec printed by fit --column --spec is taken as it is by
# sim queue --service; an M/G/1 whose offered load is the fitted mean
# times the arrival rate (0.0084 x 80 = 0.67).
cmd: fit --column $DATA/../../examples/latency/latency.csv:3 --spec
stdout: lnmix:0.70
sh: "$QCTL" sim queue --arrival exp:80 --service "$(cat $TMP/stdout)" --customers 20000 --quiet --json > $TMP/q.json && "$JCHECK" $TMP/q.json model.load within 0.66 0.68
