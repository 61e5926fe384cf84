# --report DIR: the results table and one plot per metric against the
# numeric parameter with the most values (load: 4, not servers: 2), one
# line per value of the others.
cmd: sweep $DATA/../sweep/small.json --set reps=1 --set args.customers=1000 --results $TMP/r --report $TMP/rep --quiet
file: $TMP/rep/index.html
file: $TMP/r.csv
file: $TMP/r.json
sh: grep -q "xlabel 'load'" $TMP/rep/response.gp && grep -q "title 'servers=2'" $TMP/rep/response.gp
sh: grep -q 'load' $TMP/rep/index.html
sh: command -v gnuplot >/dev/null || exit 77; grep -q '<svg' $TMP/rep/index.html
