# A malformed schedule names the step and the field.
cmd: load --target 127.0.0.1:9 --schedule 0:50,10:x --duration 1
exit: 2
stderr: --schedule:
stderr: step 2: RATE 'x' is not a number
