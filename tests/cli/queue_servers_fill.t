# 64 servers at load 0.97 over 5 x 256 customers: each replication lasts
# about 6 mean service times, so the servers were still filling up; it
# measured 3.4e13 a second where 4.4e13 arrive (property harness). Where
# no relaxation time is known the mean service time bounds it below.
cmd: sim queue --arrival exp:44443685137396.383 --service gamma:4.0634754419951751,3.4538114031261183e-13 --servers 64 --capacity 113 --customers 256 --reps 5 --seed 364857
exit: 1
stdout: at least the mean service time
