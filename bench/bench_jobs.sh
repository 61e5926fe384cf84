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
# With taskset, also -j 1 pinned to each of the first two cores: on a
# virtual machine they need not run at the same speed, and then -j 2
# cannot reach twice the faster one. The best -j 2 can do is the two
# cores' rates added, 1 / (1/t0 + 1/t1); printed with -j 2's efficiency
# against it.
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
pinned() { # pinned CPU ROUND: -j 1 on core CPU, its wall time appended to $TMP/pCPU
    t0=$(now)
    taskset -c "$1" "$QCTL" sim queue --arrival exp:0.9 --service exp:1 --customers "$CUST" \
        --reps 10 --seed 1 --json --quiet -j 1 >/dev/null
    t1=$(now)
    echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }' >>"$TMP/p$1"
}
cores=$(getconf _NPROCESSORS_ONLN)
if command -v taskset >/dev/null 2>&1 && [ "$cores" -ge 2 ]; then
    r=1
    while [ $r -le "$ROUNDS" ]; do
        pinned 0 $r
        pinned 1 $r
        r=$((r + 1))
    done
fi
m1=$(median "$TMP/t1")
m2=$(median "$TMP/t2")
echo "== replications on threads: sim queue M/M/1 at 0.9, 10 x $CUST customers, $ROUNDS rounds"
echo "   -j 1 wall s: $(tr '\n' ' ' <"$TMP/t1")  median $m1"
echo "   -j 2 wall s: $(tr '\n' ' ' <"$TMP/t2")  median $m2"
echo "$m1 $m2" | awk '{ printf "   speed-up -j 2 / -j 1: %.2fx (target >= 1.8 on 2 idle cores)\n", $1 / $2 }'
if [ -s "$TMP/p0" ] && [ -s "$TMP/p1" ]; then
    p0=$(median "$TMP/p0")
    p1=$(median "$TMP/p1")
    echo "$p0 $p1 $m2" | awk '{
        best = 1 / (1 / $1 + 1 / $2)
        printf "   -j 1 pinned to core 0: %.3f s, to core 1: %.3f s (speed ratio %.2f)\n", $1, $2, ($1 > $2 ? $1 / $2 : $2 / $1)
        printf "   best -j 2 on these cores, 1/(1/t0 + 1/t1): %.3f s; -j 2: %.3f s, efficiency %.2f\n", best, $3, best / $3
        f = $1 < $2 ? $1 : $2
        printf "   -j 2 against the faster core alone: %.2fx (at most %.2fx on these cores)\n", f / $3, f / best
    }'
fi
echo "   cores online: $cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "   identical output (-j 1, -j 2, every round): $same"
[ "$same" = yes ]
