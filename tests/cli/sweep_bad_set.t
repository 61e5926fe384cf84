# --set takes PATH=JSON; a bare word is not JSON.
cmd: sweep $DATA/../sweep/small.json --set reps=two --results $TMP/r
exit: 2
stderr: --set reps: 'two' is not JSON
