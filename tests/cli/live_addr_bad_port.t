# A port beyond 65535 on the backend's --listen: exit 2 naming the flag.
cmd: backend --listen '[::1]:65536'
exit: 2
stderr: --listen: '[::1]:65536': bad port (0..65535)
