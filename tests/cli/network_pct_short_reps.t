# sim network over replications: the tandem's p99 rests on too few kept
# response times beyond it (5 x 20000 customers) and its interval is
# withheld with a reason; its p50 keeps one.
cmd: sim network "$(cd $DATA/../../examples/network && pwd)/tandem.json" --customers 20000 --reps 5 --quiet --json
json: end_to_end.all.response_time_p99.ci_low null
json: end_to_end.all.response_time_p99.reason exists
json: end_to_end.all.response_time_p50.ci_low gt 0
