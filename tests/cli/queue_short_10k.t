# Issue 34: one run of 10^4 customers of M/M/1 at 0.9 covered 32 of 40
# without a word; now flagged (27 relaxation times where 200 are needed).
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 10000 --quiet
exit: 1
stdout: RUN TOO SHORT FOR ITS INTERVALS
