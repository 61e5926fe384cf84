# Asking for more customers than the trace holds is an error, not a hang.
cmd: sim queue --arrival trace:$DATA/trace_unit.txt --service det:0.5 --customers 5000
exit: 2
stderr: trace has 1000 arrivals
