# The logged RIS reads at most threads / mean service x interval / 2 = 4 /
# 0.4 x 60 / 2 = 300: a reference of 325 on it is flagged, in the JSON and
# on stderr, and run anyway: the loop raises MaxUsers until it no longer
# binds (the demand hold then keeps it) and the true RIS ends far above.
cmd: sim maxusers --sensor logged --ki 0.4 --reference 325 --duration 14400 --json
json: run.logged_ris_bound within 299.999 300.001
json: steps.0.reachable false
json: steps.0.reference_measured eq 325
json: steps.0.steady_state_error gt 0.3
json: summary.fraction_held gt 0.5
stderr: cannot read more than 300
