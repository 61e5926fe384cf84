# A sinusoidal rate over a fixed time; the number of servers on follows the
# demand (correlation over bins of period/100), and the series is written.
cmd: sim pool --servers 10 --policy djsq --arrival sin:5,4,2000 --time 20000 --reps 4 --series $TMP/s.csv --series-dt 20 --json
json: metrics.demand_correlation.value gt 0.9
json: metrics.demand_correlation.n eq 4
json: run.warmup.time_cut eq 0
json: model.mean_arrival_rate eq 5
file: $TMP/s.csv
sh: head -1 $TMP/s.csv | grep -q '^time,jobs,servers_on,servers_setup,servers_busy,arrival_rate,measured_rate$' && [ $(wc -l < $TMP/s.csv) -ge 1000 ]
