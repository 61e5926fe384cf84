# Arrival times from a trace file (shifted to start at 0): every arrival is
# measured once per replication, and the load is not defined.
cmd: sim pool --servers 2 --arrival trace:$(awk 'BEGIN { srand(3); t = 1000; print "time"; for (i = 0; i < 5000; i++) { t += -log(1 - rand()) / 1.2; printf "%.6f\n", t } }' > $TMP/t.csv && echo $TMP/t.csv) --reps 3 --json
json: run.measured_customers eq 15000
json: model.load null
json: model.arrival_canonical str 'trace:<5000 arrivals>'
json: metrics.throughput.value within 1.0 1.4
