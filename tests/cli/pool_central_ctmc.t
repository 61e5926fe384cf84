# Central queue, M/M/k/setup (Gandhi, Harchol-Balter, Adan 2010) with k = 4,
# lambda = 1.2, mu = 1, setup Exp(0.1): the exact mean number of jobs from the
# CTMC on (busy servers, jobs) solved in tests/unit/models/test_pool.c is 4.991034, the
# mean number of servers in setup 1.847461.
cmd: sim pool --servers 4 --policy central --arrival exp:1.2 --setup-time exp:0.1 --customers 200000 --reps 10 --confidence 0.99 --json
json: metrics.mean_jobs covers 4.991034
json: metrics.servers_setup covers 1.847461
json: metrics.servers_busy covers 1.2
json: model.threshold null
