# MaxUsers on the front of a three-tier service (qc_mu_ctl, the step
# object of sim maxusers): with a reference of 0.5 s it holds the mean
# response behind the front near 0.5 s (the uncontrolled network, 150
# users, has 2 s by MVA); with a reference no load reaches, the limit rises
# to the population and the controller is invisible: the end-to-end
# response is MVA's 2 s of the uncontrolled network.
cmd: sim network "$DATA/../../examples/network/three_tier_maxusers.json" --customers 40000 --reps 4 --quiet --json
json: run.response_behind_front within 0.40 0.65
json: run.maxusers_mean_limit within 3 40
sh: "$QCTL" sim network "$DATA/../../examples/network/three_tier_maxusers.json" --maxusers-reference 100 --customers 40000 --reps 4 --quiet --json | "$JCHECK" /dev/stdin end_to_end.users.response_time.value within 1.85 2.15
sh: "$QCTL" sim network "$DATA/../../examples/network/three_tier.json" --analytic --json | "$JCHECK" /dev/stdin end_to_end.users.response_time.exact within 1.99 2.01
sh: "$QCTL" sim network "$DATA/../../examples/network/three_tier.json" --maxusers-reference 1 --analytic 2>$TMP/e; [ $? -eq 2 ] && grep -q 'no control.maxusers' $TMP/e
