# qctl control refuses a bad actuator before it opens anything (exit 2,
# the flag named).
cmd: control --actuator "nginx:/run/x" --setting 3
exit: 2
stderr: --actuator: 'nginx:/run/x' is not haproxy-maxconn
