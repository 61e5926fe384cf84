# --check of a good sweep prints its flags as JSON (they load back with
# --config), runs nothing and writes nothing, not even the journal.
cmd: sweep $DATA/../sweep/small.json --set reps=1 -j 1 --results $TMP/r --check
exit: 0
stdout: "file":
stdout: "jobs": 1
sh: test ! -e $TMP/r.journal && test ! -e $TMP/r.csv
sh: $QCTL sweep $DATA/../sweep/small.json --set reps=1 -j 1 --results $TMP/r --check > $TMP/c.json && $QCTL sweep --config $TMP/c.json --set 'params.load=[0.5]' --quiet && grep -c '^[12],0.5,' $TMP/r.csv | grep -qx 2
