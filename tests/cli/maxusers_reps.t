# Replications: intervals for the step metrics and the saturation; a loop
# that never settles says so (null settling, a count of 0) and prints no nan.
cmd: sim maxusers --ki 5 --antiwindup none --reference 325@0,250@7200 --duration 14400 --reps 3 --json
json: run.reps eq 3
json: steps.1.settled_reps eq 0
json: steps.1.settling_time null
json: summary.fraction_saturated_ci.n eq 3
json: summary.fraction_saturated gt 0.5
sh: $QCTL sim maxusers --ki 5 --antiwindup none --reference 325@0,250@7200 --duration 14400 --reps 3 | grep -q 'never settles'
sh: ! $QCTL sim maxusers --ki 5 --antiwindup none --reference 325@0,250@7200 --duration 14400 --reps 3 --series $TMP/s.csv | grep -qi nan
sh: ! grep -qi nan $TMP/s.csv
