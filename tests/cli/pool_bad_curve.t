# A malformed daily curve is reported with FILE:LINE (the file is written by
# the command line itself: line 4 holds a bad rate).
cmd: sim pool --servers 4 --arrival curve:$(printf 'time,rate\n0,1\n10,2\n20,3x\n' > $TMP/c.csv && echo $TMP/c.csv)
exit: 2
stderr: --arrival:
stderr: c.csv:4: field 2 ('3x') is not a number
