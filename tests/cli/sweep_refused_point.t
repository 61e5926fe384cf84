# A point whose command line the experiment's own --check refuses stops
# the sweep before any run, naming the file and the point (exit 2): no
# journal, no results. --check says the same.
cmd: sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[1,0]' --set 'params.load=[0.5]' -j 2 --results $TMP/r
exit: 2
stderr: small.json: point 1 (servers=0 load=0.5): sim queue: servers: 0 is not in [1, 1000000]
sh: test ! -e $TMP/r.journal && test ! -e $TMP/r.csv
sh: $QCTL sweep $DATA/../sweep/small.json --set reps=1 --set 'params.servers=[1,0]' --set 'params.load=[0.5]' --results $TMP/r --check 2>&1 >/dev/null | grep -q 'point 1 (servers=0 load=0.5): sim queue: servers: 0 is not'
sh: test ! -e $TMP/r.journal
