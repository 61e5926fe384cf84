# Issue 34: M/M/1 at load 0.9, one run of 1000 customers (about two
# relaxation times): no interval is printed, the reason is said in words,
# exit 1.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 1000 --quiet
exit: 1
stdout: RUN TOO SHORT FOR ITS INTERVALS
stdout: none: run too short
stderr: too short for its intervals
sh: ! grep -q '] unreliable' "$TMP/stdout"
