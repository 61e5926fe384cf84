# Property (ii), inadmissible: the region conditions fail; silver is rejected
# in every replication and gold keeps its bound.
cmd: sim admission --scenario $DATA/../../examples/admission/inadmissible.json --reps 4 --time 400000 --json
json: admissibility.margin lt 0
json: classes.1.rejected eq 4
json: classes.0.admitted_delay.ci_high lt 2
json: classes.1.admitted_delay null
