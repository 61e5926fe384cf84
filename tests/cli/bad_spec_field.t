cmd: sim queue --arrival exp:-1 --service exp:1
exit: 2
stderr: --arrival
stderr: RATE
