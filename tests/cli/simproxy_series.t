# --series writes the limit, in flight and waiting of replication 1 every
# control interval; --check prints the configuration without running.
cmd: sim proxy --arrival exp:500 --workers 4 --service exp:100 --time 5 --warmup 1 --reps 2 --series $TMP/s.csv --quiet
file: $TMP/s.csv
sh: head -1 $TMP/s.csv | grep -q '^t,limit,inflight,queue$' && [ "$(wc -l <$TMP/s.csv)" -ge 55 ] && $QCTL sim proxy --arrival exp:500 --limiter aimd --check | grep -q '"limiter": "aimd"'
