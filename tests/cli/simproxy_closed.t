# Closed-loop users: 10 users thinking exp:20 (mean 50 ms) before one
# exponential worker of rate 100, no limiter: M/M/1//10, throughput
# 98.1615/s (the machine-repairman model; test_proxysim.c).
cmd: sim proxy --limiter none --users 10 --think exp:20 --service exp:100 --time 100 --reps 20 --confidence 0.99 --json --quiet
json: metrics.goodput covers 98.1615
json: classes.0.clients str closed
