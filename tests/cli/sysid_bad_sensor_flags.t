# The sensor map's flags need a sensor file; --input-lag is bounded.
cmd: sysid --csv $DATA/arx_first_order.csv --sensor-at 250
exit: 2
stderr: needs a sensor file
