# A run that fails (here: too short for its intervals, which only the run
# finds) makes its point an error row (the first line of its stderr); the
# other points still run and the sweep exits 1.
cmd: sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[2,1]' --set 'params.load=[0.95]' --set args.allow-short=false -j 2 --results $TMP/r
exit: 1
stderr: 2 points, 0 from the journal, 2 runs now, 1 failed
stderr: point 1 (servers=1 load=0.95) failed:
sh: grep -q '^2,0.95,[0-9]' $TMP/r.csv
sh: grep -q '^1,0.95,,,,,,,,,,1,' $TMP/r.csv
sh: $QCTL sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[2,1]' --set 'params.load=[0.95]' --set args.allow-short=false --results $TMP/r 2>&1 | grep -q '1 from the journal, 1 runs now'
