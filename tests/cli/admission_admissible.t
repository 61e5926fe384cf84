# Property (ii), admissible: the region conditions hold and silver is admitted
# in every replication; gold stays within its bound.
cmd: sim admission --scenario $DATA/../../examples/admission/admissible.json --reps 4 --time 300000 --json
no-stderr:
json: admissibility.margin gt 0
json: classes.1.name str silver
json: classes.1.admitted eq 4
json: classes.0.admitted_delay.ci_high lt 2
json: classes.1.admitted_delay.ci_high lt 2.5
json: summary.best_effort_throughput covers 0.3
