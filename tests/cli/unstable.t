# rho >= 1 with no capacity has no steady state: refuse at once.
cmd: sim queue --arrival exp:1.2 --service exp:1 --customers 1000000
exit: 2
stderr: rho
stderr: --capacity
