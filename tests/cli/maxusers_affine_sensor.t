# Affine sensor compensation: identify the logged sensor near the
# reference (sysid --sensor-at 250, PRBS around MaxUsers 300), close the
# loop on the logged RIS with r_m = offset + gain r: the true RIS is within
# 2% of 250 (mean over 3 replications of the segment's second half). A pure
# gain would put it far off.
cmd: sim maxusers --controller open --maxusers 300 --excite prbs --amplitude 50 --hold 3 --duration 72000 --seed 5 --series $TMP/id.csv --quiet
sh: grep -q '^# ris_logged_bound=222.419' $TMP/id.csv
sh: $QCTL sysid --csv $TMP/id.csv --columns time,maxusers,ris --skip 30 --orders 1..1 --delays 0..0 --sensor-csv $TMP/id.csv --sensor-columns time,ris,ris_logged --sensor-at 250 -o $TMP/m.json >/dev/null
sh: $JCHECK $TMP/m.json sensor.max within 222.41 222.43 && $JCHECK $TMP/m.json sensor.affine.at eq 250
sh: $QCTL sim maxusers --ki 0.4 --sensor logged --sensor-model $TMP/m.json --maxusers 300 --warmup 7200 --reference 250 --duration 21600 --seed 9 --reps 3 --json >$TMP/cl.json
sh: $JCHECK $TMP/cl.json steps.0.steady_state_error within -0.02 0.02 && $JCHECK $TMP/cl.json steps.0.reachable true && $JCHECK $TMP/cl.json run.reps eq 3
