# --report: the page with the summary and the network's diagram (drawn
# by gnuplot, needed here).
needs: gnuplot
cmd: sim network "$DATA/../../examples/network/three_tier_maxusers.json" --customers 2000 --reps 2 --quiet --report $TMP/rep
file: $TMP/rep/index.html
file: $TMP/rep/network.svg
sh: grep -q 'network' $TMP/rep/index.html
