cmd: sim pool --servers 4 --arrival curve:$(printf '0,1\n10,2\n# a comment\n5,3\n' > $TMP/c.csv && echo $TMP/c.csv)
exit: 2
stderr: c.csv:4: times must increase strictly
