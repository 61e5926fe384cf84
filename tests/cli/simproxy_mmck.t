# A fixed limit of 2 with 2 workers and a FIFO room of 3 places whose
# deadline is never reached is M/M/2/5: lambda 250, mu 100, blocking
# probability 0.2836534 (the birth-death chain; test_proxysim.c), all of it
# refused for want of room.
cmd: sim proxy --limiter fixed --limit 2 --workers 2 --service exp:100 --queue 3 --queue-discipline fifo --queue-timeout 1000000 --arrival exp:250 --time 100 --reps 20 --confidence 0.99 --json --quiet
json: metrics.refused covers 0.2836534
json: metrics.refused_full covers 0.2836534
json: metrics.refused_deadline.value eq 0
json: limit.value eq 2
