# Overloaded M/M/8/28 (load 1.5), 10 x 20000 customers: the utilization is
# 0.99997 and its idle time rests on about 50 idle periods, in bursts; its
# interval covered in 70 of 100 seeds. Now it is withheld below 500
# customers who found a server free, and the count says why; the number in
# system keeps its interval (94 of 100).
cmd: sim queue --arrival exp:12 --service exp:1 --servers 8 --capacity 28 --customers 20000 --reps 10 --seed 3 --json
json: metrics.utilization.ci_low null
json: metrics.utilization.ci_high null
json: metrics.utilization.rare_events lt 500
json: metrics.number_in_system covers 26.0015
