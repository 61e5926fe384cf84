cmd: sim queue --arrival exp:1 --service exp:2 --servers 3 --capacity 2
exit: 2
stderr: capacity
