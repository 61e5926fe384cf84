# qctl control: a malformed sensor spec is refused naming the flag (exit 2).
cmd: control --actuator "cmd:true" --setting 1 --sensor "pgbouncer:port=99999:app:cl_active"
exit: 2
stderr: --sensor
