# Issue 34: the time-scale check of sim queue guards sim pool too.
cmd: sim pool --servers 2 --arrival exp:1e-9 --service exp:1000 --quiet
exit: 2
stderr: time scale: the run spans about
