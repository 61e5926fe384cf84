# A malformed schedule names the step and the field; the last rate, which
# holds for ever, must be > 0.
cmd: load --target 127.0.0.1:9 --schedule 0:50,10:x --duration 1
exit: 2
stderr: --schedule:
stderr: step 2: RATE 'x' is not a number
sh: $QCTL load --target 127.0.0.1:9 --schedule 0:50,10:0 --duration 1 2>$TMP/e; [ $? -eq 2 ] && grep -q 'step 2: the last RATE must be > 0' $TMP/e
