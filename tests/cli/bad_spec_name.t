cmd: sim queue --arrival gama:1,2 --service exp:1
exit: 2
stderr: unknown distribution
