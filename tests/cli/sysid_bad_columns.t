# A column name missing from the header.
cmd: sysid --csv $DATA/arx_first_order.csv --columns t,u,y
exit: 2
stderr: arx_first_order.csv:2:1: no column named "t" in the header (see --columns)
