# --set cannot descend into a field that is not an object.
cmd: sweep $DATA/../sweep/small.json --set experiment.x=1 --results $TMP/r
exit: 2
stderr: --set experiment.x: 'experiment' is not an object
