# --plot draws measured vs predicted output (and the sensor's) with gnuplot.
cmd: sysid --csv $DATA/arx_first_order.csv --sensor-csv $DATA/arx_sensor.csv --plot $TMP/p
sh: command -v gnuplot >/dev/null || exit 77; [ -s $TMP/p/sysid_fit.svg ] && [ -s $TMP/p/sensor_fit.png ] && head -1 $TMP/p/sysid_fit.csv | grep -q '^time,u,measured,one_step,simulated$'
