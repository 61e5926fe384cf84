# --policy aimd: the AIMD limiter (the object the live limiter runs) gates
# every request to the simulated server: some are shed, none of the
# admitted classes is rejected, and --policy all lists it last.
cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --policy aimd --reps 2 --time 20000 --json --quiet
json: policy str aimd
json: classes.0.shed.value gt 0
json: classes.0.admitted eq 2
sh: $QCTL sim admission --scenario $DATA/../../examples/admission/admissible.json --policy all --reps 1 --time 20000 --json --quiet > $TMP/all.json && $JCHECK $TMP/all.json policies.6.policy str aimd
