# --skip drops a warm-up: 400 rows less 100 leave 300 samples.
cmd: sysid --csv $DATA/arx_first_order.csv --skip 100 --json
json: fit.samples eq 300
json: fit.validation_samples eq 90
sh: $QCTL sysid --csv $DATA/arx_first_order.csv --skip 400 2>&1 | grep -q 'drops all 400 rows'
