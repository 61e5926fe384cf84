cmd: sim pool --servers 0 --arrival exp:1
exit: 2
stderr: --servers: K = 0
