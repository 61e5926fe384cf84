# Pareto shape 1: the mean service time is infinite. Without a capacity:
# refused (exit 2); with one: infinite means and not a steady state.
cmd: sim queue --arrival exp:0.5 --service pareto:1,0.5 --capacity 20 --customers 20000 --reps 3 --quiet
exit: 1
stdout: infinite mean
stdout: TRANSIENT
sh: "$QCTL" sim queue --arrival exp:0.5 --service pareto:1,0.5 --quiet 2>"$TMP/e"; [ $? -eq 2 ] && grep -q 'infinite mean' "$TMP/e"
