# The exact column and JSON field: M/M/1 at 0.9 (E[T] = 10, p95 =
# ln(20)/0.1), M/D/1 (Pollaczek-Khinchine 5.5), D/M/1 (GI/M/1).
cmd: sim queue --arrival exp:0.9 --service exp:1 --customers 20000 --reps 10 --quiet --json
json: metrics.response_time.exact eq 10
json: metrics.response_time_p95.exact within 29.957 29.958
json: model.exact_model str M/M/1
sh: "$QCTL" sim queue --arrival exp:0.9 --service det:1 --customers 20000 --reps 5 --quiet | grep -E '^response time  .* 5\.5$'
sh: "$QCTL" sim queue --arrival det:1.25 --service exp:1 --customers 20000 --reps 5 --quiet | grep -q 'GI/M/1 closed form'
sh: "$QCTL" sim queue --arrival uniform:0,2 --service det:1.5 --servers 2 --customers 20000 --reps 5 --quiet --json | "$JCHECK" /dev/stdin metrics.response_time.exact null
