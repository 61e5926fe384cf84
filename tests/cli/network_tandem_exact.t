# sim network: a tandem of M/M/1, M/M/1 and M/M/1-PS at arrival rate 1
# (Jackson: E[T] = 1 + 2 + 0.5), the exact value beside each estimate.
cmd: sim network "$(cd $DATA/../../examples/network && pwd)/tandem.json" --customers 20000 --reps 5 --quiet --json
json: end_to_end.x.response_time.exact within 3.4999999 3.5000001
json: stations.b.x.number.exact within 1.9999999 2.0000001
sh: "$QCTL" sim network "$DATA/../../examples/network/tandem.json" --analytic | grep -q "exact: open product form"
