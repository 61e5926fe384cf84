cmd: sim pool --servers 3 --arrival exp:1 --threshold 0
exit: 2
stderr: --threshold: T = 0; it must be >= 1
