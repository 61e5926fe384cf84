# cost flags are checked, and the run length is one of --customers / --time
cmd: sim pool --servers 2 --arrival exp:1 --busy-power -3
exit: 2
stderr: --busy-power: '-3' must be >= 0
sh: $QCTL sim pool --servers 2 --arrival exp:1 --customers 1000 --time 50 2>&1 >/dev/null | grep -q 'not both'
sh: $QCTL sim pool --servers 2 --arrival exp:1 --idle-timer 1x 2>&1 >/dev/null | grep -q -- "--idle-timer: '1x' is not a number"
sh: $QCTL sim pool --servers 2 --arrival sin:1,2,100 2>&1 >/dev/null | grep -q 'AMP'
sh: $QCTL sim pool --servers 2 --arrival exp:1 --setup-time exp:-1 2>&1 >/dev/null | grep -q -- "--setup-time"
sh: $QCTL sim pool --servers 2 2>&1 >/dev/null | grep -q -- '--arrival is required'
# the old names of --setup-time, --warmup and --setup-power still work, with a note
sh: $QCTL sim pool --servers 2 --arrival exp:1 --warmup-time exp:0.5 --transient 100 --warm-power 200 --customers 2000 --reps 2 --json 2>$TMP/dep.err | grep -q '"setup_power_w": 200' && grep -q -- '--warmup-time is deprecated; use --setup-time' $TMP/dep.err && grep -q -- '--transient is deprecated; use --warmup' $TMP/dep.err && grep -q -- '--warm-power is deprecated; use --setup-power' $TMP/dep.err
