# Issue 30's overload: gold (bound 0.05) 250/s and silver (bound 0.3)
# 350/s on 4 workers of det:0.01 (capacity 400/s) under the admission
# limiter: the table has both classes, goodput is the capacity, and each
# class loses requests (the proxy measured 33% each live).
cmd: sim proxy --workers 4 --service det:0.01 --limiter admission --class gold=0.05 --class silver=0.3 --class-arrival gold=exp:250 --class-arrival silver=exp:350 --time 20 --reps 4
stdout: class gold
stdout: class silver
stdout: limit (mean)
sh: $QCTL sim proxy --workers 4 --service det:0.01 --limiter admission --class gold=0.05 --class silver=0.3 --class-arrival gold=exp:250 --class-arrival silver=exp:350 --time 20 --reps 4 --json --quiet >$TMP/o.json && $JCHECK $TMP/o.json metrics.goodput.value within 390 401 && $JCHECK $TMP/o.json classes.0.name str gold && $JCHECK $TMP/o.json classes.0.refused.value gt 0.1 && $JCHECK $TMP/o.json classes.1.refused.value gt 0.1
