# A run in customers that covers part of a period: 20000 customers of the
# daily curve in hours cover about 11 of its 24 hours, the quiet morning,
# and the header says the load offered over that window is not the mean.
cmd: sim queue --arrival curve:$DATA/curve_day_hours.csv --curve-unit h --service exp:1.6 --customers 20000 --allow-short
stdout: NOT the mean load
