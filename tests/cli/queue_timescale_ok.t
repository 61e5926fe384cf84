# Issue 34: a light load whose time scales differ by 10^4 keeps its
# digits: the exact M/M/1 response time (1/(mu - lambda)) is covered and
# no waiting time is negative.
cmd: sim queue --arrival exp:1e-4 --service exp:1 --customers 200000 --reps 4 --quiet --json
json: metrics.response_time covers 1.0001
json: metrics.waiting_time.ci_low ge 0
