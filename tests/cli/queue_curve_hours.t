# Issue 34: a daily curve whose times are hours (rates per hour, mean
# 1800 an hour = 0.5 a second). --curve-unit h reads it so; with no run
# length the run covers whole days (three of them here, at least the
# default 10^5 customers), and the header states the load offered over
# the measured window: 0.5 x E[S] = 0.5 x 0.625 = 0.3125, which the
# utilization's interval holds.
cmd: sim queue --arrival curve:$DATA/curve_day_hours.csv --curve-unit h --service exp:1.6 --json
json: model.whole_periods true
json: model.load ge 0.31249
json: model.load le 0.31251
json: model.load_over_window ge 0.3124
json: model.load_over_window le 0.3126
json: run.time eq 259200
json: metrics.utilization covers 0.3125
