# The text report.
cmd: design --model $DATA/arx_model.json --settling 20 --overshoot 0.1
stdout: stable for 0 < K_I < 6.08511
stdout: loop measured through the sensor
stdout: integral: K_I =
stdout: PI: K_I =
stdout: root locus (K_P = 0)
no-stderr:
