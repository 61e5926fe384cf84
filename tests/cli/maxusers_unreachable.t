# The logged RIS of N RPCs in the server is f(N) = N - (N^2/X D)(1 -
# exp(-X D/N)), X D = 4 / 0.4 x 60 = 600, increasing toward 300; the most
# RIS the plant holds is 1000 x 1200 / 1800 - X Z = 616.7 (the users who
# want a session, less those thinking), so the log reads at most
# f(616.7) = 222.42 (the simulation's maximum is checked in test_maxusers).
# A reference of 260 on it, below X D / 2 = 300 but above 222.42, is
# flagged, in the JSON and on stderr, and run anyway: the loop raises
# MaxUsers until it no longer binds (the demand hold then keeps it) and the
# true RIS ends far above.
cmd: sim maxusers --sensor logged --ki 0.4 --reference 260 --duration 14400 --json
json: run.logged_ris_bound within 222.41 222.43
json: steps.0.reachable false
json: steps.0.reference_measured eq 260
json: steps.0.steady_state_error gt 0.3
json: summary.fraction_held gt 0.5
stderr: cannot read more than 222.42
