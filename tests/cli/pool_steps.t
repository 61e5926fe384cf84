# A rate schedule drives sim pool too: the run ends (it once looped on a
# zero correlation bin) and reports the schedule's long-run rate.
cmd: sim pool --arrival steps:0:0.5,100:1.5,200:0.5 --servers 2 --customers 2000 --reps 2 --quiet --json
json: model.arrival_canonical str steps:0:0.5,100:1.5,200:0.5
json: model.mean_arrival_rate eq 0.5
