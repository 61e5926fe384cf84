# A step of 0 never ends.
cmd: sweep $DATA/../sweep/small.json --set 'params.load={"from":0.5,"to":0.9,"step":0}' --results $TMP/r
exit: 2
stderr: params.load.step: 0
