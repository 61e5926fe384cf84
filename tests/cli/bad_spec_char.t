cmd: sim queue --arrival exp:1 --service erlang:2,1x
exit: 2
stderr: --service
stderr: column
