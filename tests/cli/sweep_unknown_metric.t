# A metric path missing from the experiment's output stops the sweep on the
# first point, naming the metric and the path; no results are written.
cmd: sweep $DATA/../sweep/small.json --set 'metrics.cost="metrics.average_cost"' -j 1 --results $TMP/r
exit: 2
stderr: metric 'cost': path 'metrics.average_cost' is not in the output of 'sim queue --json'
sh: test ! -e $TMP/r.csv
sh: test "$(grep -c '"point"' $TMP/r.journal)" -eq 0
