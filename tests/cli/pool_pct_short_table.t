# the same in the table: words, never [nan, nan]
cmd: sim pool --servers 2 --arrival exp:1 --customers 3000 --reps 3 --seed 1 --quiet
stdout: response time p99                 44.43   no interval: run too short
