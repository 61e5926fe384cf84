# Processor sharing over a fixed time with a fixed warm-up; series to CSV.
cmd: sim queue --arrival exp:0.5 --service det:1 --discipline ps --time 100000 --warmup 500 --reps 5 --series $TMP/n.csv --series-dt 50 --json
json: metrics.response_time covers 2
json: run.warmup.method str fixed
json: run.warmup.time_cut eq 500
json: model.discipline str ps
file: $TMP/n.csv
sh: head -1 $TMP/n.csv | grep -q '^time,mean_number_in_system,number_in_system$' && [ $(wc -l < $TMP/n.csv) -ge 2000 ]
