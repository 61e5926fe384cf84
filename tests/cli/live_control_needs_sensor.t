# qctl control: the integral controller needs a sensor (exit 2).
cmd: control --actuator "cmd:true" --controller integral --reference 3
exit: 2
stderr: --sensor: the integral controller needs a sensor
