# The same curve read as seconds (no --curve-unit): 1800 arrivals a
# second against service at 1.6 a second is refused up front, naming the
# load, rather than run on a clock an hour 3600 times too short.
cmd: sim queue --arrival curve:$DATA/curve_day_hours.csv --service exp:1.6
exit: 2
stderr: offered load
