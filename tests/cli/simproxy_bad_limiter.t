cmd: sim proxy --arrival exp:10 --limiter vegs
exit: 2
stderr: --limiter:
