# A range whose step leads away from its end is empty: the field is named.
cmd: sweep $DATA/../sweep/small.json --set 'params.load={"from":0.9,"to":0.5,"step":0.1}' --results $TMP/r
exit: 2
stderr: small.json: params.load: empty range
