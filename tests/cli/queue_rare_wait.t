# M/M/10 at load 0.16: one customer in 130,000 waits (exact mean wait
# 8.7e-08). A mean wait from the one or two who waited, or none, had an
# interval that held the exact value in 1 of 8 seeds; now withheld, said.
cmd: sim queue --arrival exp:16.66979794028677 --service exp:10.370183422902121 --servers 10 --customers 5000 --reps 10 --seed 2
stdout: waiting time
stdout: waited (<50)
