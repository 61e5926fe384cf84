# A run that fails makes its point an error row (the first line of its
# stderr); the other points still run and the sweep exits 1.
cmd: sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[1,0]' --set 'params.load=[0.5]' -j 2 --results $TMP/r
exit: 1
stderr: 2 points, 0 from the journal, 2 runs now, 1 failed
stderr: point 1 (servers=0 load=0.5) failed:
sh: grep -q '^1,0.5,[0-9]' $TMP/r.csv
sh: grep -q '^0,0.5,,,,,,,,,,1,' $TMP/r.csv
sh: $QCTL sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[1,0]' --set 'params.load=[0.5]' --results $TMP/r 2>&1 | grep -q '1 from the journal, 1 runs now'
