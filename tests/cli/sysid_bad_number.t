# A non-number in the CSV: FILE:LINE:COLUMN and what is wrong; exit 2.
cmd: sysid --csv $DATA/arx_bad_number.csv
exit: 2
stderr: arx_bad_number.csv:7:6: column 2 ("u"): "3x5" is not a number
