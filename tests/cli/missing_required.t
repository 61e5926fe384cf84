cmd: sim queue --service exp:2
exit: 2
stderr: --arrival is required
