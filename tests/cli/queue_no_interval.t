# A metric seen in one replication only has no interval: said in words in
# the table, null in JSON, never nan.
cmd: sim queue --arrival exp:0.01 --service exp:1 --time 300 --reps 2 --seed 3 --quiet
stdout: no interval from 1 value
sh: ! grep -qi nan "$TMP/stdout"
sh: "$QCTL" sim queue --arrival exp:0.01 --service exp:1 --time 300 --reps 2 --seed 3 --quiet --json | "$JCHECK" /dev/stdin metrics.response_time.half_width null
