# Issue 30's overload: gold (bound 0.05) 250/s and silver (bound 0.3)
# 350/s on 4 workers of det:0.01 (capacity 400/s) under the admission
# limiter with the limit at the backend's parallelism (4): the table has
# both classes, goodput is the capacity, every class's admitted mean delay
# is below its bound (claim (i)), no admitted request waited longer than
# its class's target (p99 within the bound) and the looser class, silver,
# takes the larger share of the refusals.
cmd: sim proxy --workers 4 --service det:0.01 --limiter admission --limit 4 --class gold=0.05 --class silver=0.3 --class-arrival gold=exp:250 --class-arrival silver=exp:350 --time 20 --reps 4
stdout: class gold
stdout: class silver
stdout: limit (mean)
sh: $QCTL sim proxy --workers 4 --service det:0.01 --limiter admission --limit 4 --class gold=0.05 --class silver=0.3 --class-arrival gold=exp:250 --class-arrival silver=exp:350 --time 20 --reps 4 --json --quiet >$TMP/o.json && $JCHECK $TMP/o.json metrics.goodput.value within 390 401 && $JCHECK $TMP/o.json classes.0.name str gold && $JCHECK $TMP/o.json classes.0.latency.ci_high lt 0.045 && $JCHECK $TMP/o.json classes.1.latency.ci_high lt 0.27 && $JCHECK $TMP/o.json classes.0.latency_p99.value le 0.05 && $JCHECK $TMP/o.json classes.1.latency_p99.value le 0.3 && $JCHECK $TMP/o.json classes.0.refused.ci_high lt 0.25 && $JCHECK $TMP/o.json classes.1.refused.ci_low gt 0.35
