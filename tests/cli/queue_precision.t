# --precision: M/M/1 at 0.9 run until every mean is within 5%; it says so
# and how many customers it took.
cmd: sim queue --arrival exp:0.9 --service exp:1 --precision 0.05 --quiet --json
sh: grep -q "\"reached\": true" "$TMP/stdout"
json: metrics.response_time.half_width le 0.525
json: run.precision.customers_per_replication ge 200000
sh: "$QCTL" sim queue --arrival exp:0.9 --service exp:1 --precision 0.05 --quiet | grep -q 'precision 5% reached with'
