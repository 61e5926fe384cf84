# Fewer rows than the largest candidate needs: exit 2, says how many.
cmd: sysid --csv $DATA/arx_short.csv
exit: 2
stderr: arx_short.csv: 6 samples are too few
stderr: need at least 18
