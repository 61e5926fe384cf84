# --analytic: the solution alone, no simulation; a closed chain with a
# multi-server FCFS station (load-dependent MVA), and balanced job bounds
# where there is no exact form (a capacity). By hand: P(j at cpu) ∝ 4/3, 2, 1, 1/4 for j = 0..3, X = 4.5 / 4.58333 = 0.981818.
cmd: sim network "$(printf '{"stations":[{"name":"cpu","servers":2,"service":"exp:1"},{"name":"d","discipline":"is","service":"exp:0.5"}],"classes":[{"name":"u","population":3,"entry":"cpu"}],"routing":{"u":{"cpu":{"d":1}}}}' > $TMP/n.json; echo $TMP/n.json)" --analytic --json
sh: "$QCTL" sim network $TMP/n.json --analytic | grep -q "exact: exact load-dependent MVA"
json: end_to_end.u.throughput.exact within 0.98181 0.98182
sh: printf '{"stations":[{"name":"cpu","capacity":2,"service":"exp:1"},{"name":"d","discipline":"is","service":"exp:0.5"}],"classes":[{"name":"u","population":3,"entry":"cpu"}],"routing":{"u":{"cpu":{"d":1}}}}' > $TMP/b.json; "$QCTL" sim network $TMP/b.json --analytic | grep -q 'balanced job bounds'
