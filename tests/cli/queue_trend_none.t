# A stationary M/M/1 at 0.9: the trend is tested and not found; the run
# is not transient and exits 0.
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 20000 --reps 10 --seed 5 --quiet --json
exit: 0
json: run.trend.detected false
json: run.transient null
