#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# demo.sh: the main demonstration: an M/M/1 queue at load 0.9 simulated by
# qctl and checked against the closed form E[T] = 1/(mu - lambda) = 10
# (qctl prints the closed forms in its "exact" column),
# then the same load through processor sharing, an M/D/1 (Pollaczek-Khinchine)
# and an M/M/2/10 with blocking; plots go to out/demo when gnuplot is there.
set -eu
qctl=${1:-build/qctl}
out=${QC_DEMO_OUT:-out/demo}
mkdir -p "$out"

echo "== M/M/1 at load 0.9: theory E[T] = 1/(1 - 0.9) = 10, p95 = ln(20)/0.1 = 29.96"
"$qctl" sim queue --arrival exp:0.9 --service exp:1 --customers 1000000 --reps 10 \
    --seed 1 --plot "$out/mm1" --output "$out/mm1.json" --report "$out/report"
echo
echo "== M/D/1 at load 0.9: theory E[T] = 1 + 0.9/(2*0.1) = 5.5"
"$qctl" sim queue --arrival exp:0.9 --service det:1 --customers 500000 --reps 10 --seed 1 \
    | grep -E "^(metric|response time  )"
echo
echo "== M/M/1-PS at load 0.9: theory E[T] = 10 (insensitive to the service law)"
"$qctl" sim queue --arrival exp:0.9 --service hyperexp:0.5,0.6,0.5,3 --discipline ps \
    --customers 500000 --reps 10 --seed 1 | grep -E "^(metric|response time  )"
echo
echo "== M/M/2/10 at offered load 0.95: blocking from the M/M/c/K formula is 0.0737, mean number 4.766"
"$qctl" sim queue --arrival exp:1.9 --service exp:1 --servers 2 --capacity 10 \
    --customers 500000 --reps 10 --seed 1 | grep -E "^(metric|blocking)"
echo
echo "Intervals are at 95%: about one in twenty misses the exact value by chance"
echo "(make bench measures how often they cover it: README, docs/output-analysis.md)."
echo "Plots and the JSON summary are in $out/; the M/M/1 run's page is $out/report/index.html"
