cmd: sim queue --arrival exp:1 --service exp:2 --frobnicate
exit: 2
stderr: unknown option '--frobnicate' (see
