# Offered load 2 with a buffer of 1e9 that the run never fills: no steady
# state; the table says so with the evidence and the exit status is 1.
cmd: sim queue --arrival exp:2 --service exp:1 --capacity 1000000000 --customers 50000 --quiet
exit: 1
stdout: TRANSIENT, NOT A STEADY STATE
stdout: never filled the buffer of K = 1000000000
stderr: no steady state
