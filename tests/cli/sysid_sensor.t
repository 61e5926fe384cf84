# The sensor model (true y in, measured y out) with a direct term: the
# data were made with ym(k+1) = 0.3 ym(k) + 0.5 y(k+1) + 0.1 y(k) + noise.
cmd: sysid --csv $DATA/arx_first_order.csv --sensor-csv $DATA/arx_sensor.csv --json
json: sensor.delay eq -1
json: sensor.na eq 1
json: sensor.nb eq 2
json: sensor.a.0 within 0.26 0.34
json: sensor.b.0 within 0.48 0.52
json: sensor.b.1 within 0.07 0.14
json: sensor.source.input str "true output y"
