# Flag errors name the flag; --csv is required.
cmd: sysid --csv $DATA/arx_first_order.csv --orders 1..9
exit: 2
stderr: --orders: '1..9' must be A..B with 1 <= A <= B <= 5
sh: $QCTL sysid 2>&1 | grep -q -- '--csv: a data file is required'; [ $? -eq 0 ]
sh: $QCTL sysid --csv $DATA/arx_first_order.csv --holdout 0.95 2>&1 | grep -q -- '--holdout'
sh: $QCTL sysid --csv $DATA/arx_first_order.csv --demean --operating-point 1,2 2>&1 | grep -q 'exclude'
sh: $QCTL sysid --help | grep -q -- '--sensor-csv'
