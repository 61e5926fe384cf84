# --input-lag is a whole number of rows in 0..100.
cmd: sysid --csv $DATA/arx_first_order.csv --input-lag 101
exit: 2
stderr: --input-lag: 101 is not in 0..100
