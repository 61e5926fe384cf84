# The same as a table: "infinite" and the reason in words, no nan.
cmd: sim queue --arrival exp:0.3 --service pareto:1.5,0.5 --customers 50000 --reps 5 --quiet
stdout: infinite   no mean exists
stdout: infinite second moment
sh: ! grep -qi nan "$TMP/stdout"
