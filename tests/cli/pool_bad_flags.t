# cost flags are checked, and the run length is one of --customers / --time
cmd: sim pool --servers 2 --arrival exp:1 --busy-power -3
exit: 2
stderr: --busy-power: '-3' must be >= 0
sh: $QCTL sim pool --servers 2 --arrival exp:1 --customers 1000 --time 50 2>&1 >/dev/null | grep -q 'not both'
sh: $QCTL sim pool --servers 2 --arrival exp:1 --idle-timer 1x 2>&1 >/dev/null | grep -q -- "--idle-timer: '1x' is not a number"
sh: $QCTL sim pool --servers 2 --arrival sin:1,2,100 2>&1 >/dev/null | grep -q 'AMP'
sh: $QCTL sim pool --servers 2 --arrival exp:1 --warmup-time exp:-1 2>&1 >/dev/null | grep -q -- '--warmup-time'
sh: $QCTL sim pool --servers 2 2>&1 >/dev/null | grep -q -- '--arrival is required'
