# Issue 34: one run of 3x10^4 customers of M/M/1 at 0.9 (36 of 40 before):
# flagged, and the default 10^5 is not (tests/cli/queue_long_enough.t).
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 30000 --quiet
exit: 1
stdout: RUN TOO SHORT FOR ITS INTERVALS
