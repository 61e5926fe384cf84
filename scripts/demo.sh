#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# demo.sh: the main demonstration: an M/M/1 queue at load 0.9 simulated by
# qctl and checked against the closed form E[T] = 1/(mu - lambda) = 10
# (qctl prints the closed forms in its "exact" column),
# then the same load through processor sharing, an M/D/1 (Pollaczek-Khinchine)
# and an M/M/2/10 with blocking, each line with an exact value followed by
# whether its interval holds it; the M/D/1 run is repeated over seeds 1..20
# to show how often a 95% interval misses; plots go to out/demo when
# gnuplot is there.
set -eu
qctl=${1:-build/qctl}
out=${QC_DEMO_OUT:-out/demo}
mkdir -p "$out"

# covers: passes a table through and, after each line with an exact
# value, says whether the interval holds it
covers() {
    awk '{ print }
         /\[/ && $NF ~ /^[0-9.e+-]+$/ {
             line = $0; sub(/.*\[/, "", line); sub(/\].*/, "", line)
             split(line, e, ", "); x = $NF + 0
             if (e[1] + 0 <= x && x <= e[2] + 0) print "   (exact inside the interval)"
             else print "   (exact OUTSIDE the interval: a miss)"
         }'
}

echo "== M/M/1 at load 0.9: theory E[T] = 1/(1 - 0.9) = 10, p95 = ln(20)/0.1 = 29.96"
"$qctl" sim queue --arrival exp:0.9 --service exp:1 --customers 1000000 --reps 10 \
    --seed 1 --plot "$out/mm1" --output "$out/mm1.json" --report "$out/report"
echo
echo "== M/D/1 at load 0.9: theory E[T] = 1 + 0.9/(2*0.1) = 5.5"
"$qctl" sim queue --arrival exp:0.9 --service det:1 --customers 500000 --reps 10 --seed 1 \
    | grep -E "^(metric|response time  )" | covers
echo "   the same run with seeds 1 to 20 (a 95% interval misses about 1 time in 20):"
n=0
for s in $(seq 1 20); do
    "$qctl" sim queue --arrival exp:0.9 --service det:1 --customers 500000 --reps 10 --seed "$s" \
        --quiet | grep -E "^response time  " | covers >"$out/md1_seed.txt"
    grep -q "exact inside" "$out/md1_seed.txt" && n=$((n + 1))
done
awk -v n="$n" 'BEGIN {
    # P(X <= n) for X ~ Binomial(20, 0.95): how often a true 95% interval
    # does this well or worse
    p = 0; c = 1
    for (k = 0; k <= 20; k++) {
        if (k > 0) c = c * (20 - k + 1) / k
        if (k <= n) p += c * 0.95 ^ k * 0.05 ^ (20 - k)
    }
    printf "   the interval held 5.5 in %d of 20 seeds; intervals that cover 95%% of the time\n", n
    printf "   do this well or worse with probability %.2f (make bench: coverage over 100 seeds)\n", p
}'
echo
echo "== M/M/1-PS at load 0.9: theory E[T] = 10 (insensitive to the service law)"
"$qctl" sim queue --arrival exp:0.9 --service hyperexp:0.5,0.6,0.5,3 --discipline ps \
    --customers 500000 --reps 10 --seed 1 | grep -E "^(metric|response time  )" | covers
echo
echo "== M/M/2/10 at offered load 0.95: blocking from the M/M/c/K formula is 0.0737, mean number 4.766"
"$qctl" sim queue --arrival exp:1.9 --service exp:1 --servers 2 --capacity 10 \
    --customers 500000 --reps 10 --seed 1 | grep -E "^(metric|blocking)" | covers
echo
echo "Intervals are at 95%: about one in twenty misses the exact value by chance"
echo "(make bench measures how often they cover it: README, docs/output-analysis.md)."
echo "Plots and the JSON summary are in $out/; the M/M/1 run's page is $out/report/index.html"
