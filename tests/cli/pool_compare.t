# --compare runs every policy on the same input and seed, the run's own
# first: jsq never switches a server off, so all 3 are on all the time.
cmd: sim pool --servers 3 --arrival exp:1 --customers 5000 --reps 2 --compare --json --quiet
json: comparison.0.policy str djsq
json: comparison.1.policy str jsq
json: comparison.2.policy str jsq-off
json: comparison.4.policy str central
json: comparison.1.servers_on.value eq 3
json: comparison.1.switch_ons_per_hour.value eq 0
json: comparison.0.average_cost.value gt 0
json: comparison.4.response_time exists
