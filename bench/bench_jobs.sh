#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_jobs.sh [QCTL] [CUSTOMERS] [ROUNDS]: replications on threads.
# `qctl sim queue` (M/M/1 at 0.9, 10 replications of CUSTOMERS, default
# 1e6) with -j 2 against the same command with -j 1, measured in the same
# run: ROUNDS (default 5) interleaved pairs of whole processes, wall time;
# prints each time, the median speed-up (-j 1 time / -j 2 time) against the
# target of 1.8 on 2 idle cores, the cores and the load average (a shared
# machine cannot show the speed-up), and checks that both give the same
# output (the elapsed time aside). Exits 1 when the outputs differ.
set -u
QCTL=${1:-build/qctl}
CUST=${2:-1000000}
ROUNDS=${3:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
now() { date +%s.%N; }
run() { # run J ROUND: one process, its wall time appended to $TMP/tJ
    t0=$(now)
    "$QCTL" sim queue --arrival exp:0.9 --service exp:1 --customers "$CUST" --reps 10 --seed 1 \
        --json --quiet -j "$1" >"$TMP/out$1.$2"
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$TMP/t$1"
    grep -v '"elapsed_seconds"' "$TMP/out$1.$2" >"$TMP/cmp$1.$2"
}
median() { sort -n "$1" | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
same=yes
r=1
while [ $r -le "$ROUNDS" ]; do
    run 1 $r
    run 2 $r
    cmp -s "$TMP/cmp1.$r" "$TMP/cmp2.$r" || same=NO
    cmp -s "$TMP/cmp1.1" "$TMP/cmp1.$r" || same=NO
    r=$((r + 1))
done
m1=$(median "$TMP/t1")
m2=$(median "$TMP/t2")
echo "== replications on threads: sim queue M/M/1 at 0.9, 10 x $CUST customers, $ROUNDS rounds"
echo "   -j 1 wall s: $(tr '\n' ' ' <"$TMP/t1")  median $m1"
echo "   -j 2 wall s: $(tr '\n' ' ' <"$TMP/t2")  median $m2"
echo "$m1 $m2" | awk '{ printf "   speed-up -j 2 / -j 1: %.2fx (target >= 1.8 on 2 idle cores)\n", $1 / $2 }'
echo "   cores online: $(getconf _NPROCESSORS_ONLN); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   identical output (-j 1, -j 2, every round): $same"
[ "$same" = yes ]
