cmd: sim queue --arrival empirical:$TMP/nope.txt --service exp:2
exit: 2
stderr: nope.txt
