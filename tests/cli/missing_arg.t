cmd: sim queue --arrival exp:1 --service
exit: 2
stderr: option
