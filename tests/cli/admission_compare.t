# --policy all: every policy on the same random numbers, one table (JSON here).
cmd: sim admission --scenario $DATA/../../examples/admission/inadmissible.json --policy all --reps 2 --time 40000 --json
json: policies.0.policy str autonomic
json: policies.2.policy str utilization
json: policies.5.policy str envoy
json: policies.2.classes.1.admitted eq 2
json: policies.3.summary.best_effort_throughput exists
sh: $QCTL sim admission --scenario $DATA/../../examples/admission/inadmissible.json --policy all --reps 2 --time 40000 | grep -q gradient2
