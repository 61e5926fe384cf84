# JSQ with every server on: M/M/1 for K = 1; power 240 W busy, 180 W idle:
# mean power 240 rho + 180 (1 - rho) = 228 W at rho = 0.8; no switch-ons.
cmd: sim pool --servers 1 --policy jsq --arrival exp:0.8 --customers 100000 --reps 10 --price 0.5 --confidence 0.99 --json
json: metrics.response_time covers 5
json: metrics.mean_power_watts covers 228
json: metrics.mean_power covers 114
json: metrics.switch_ons_per_hour.value eq 0
json: metrics.servers_on.value eq 1
json: model.idle_timer null
json: cost.price eq 0.5
