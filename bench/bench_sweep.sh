#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_sweep.sh: qctl sweep's throughput and overhead, in one run.
#   bench/bench_sweep.sh [QCTL] [CUSTOMERS]
# A grid of 24 M/M/c points x 2 replications of `sim queue` (CUSTOMERS
# customers each, default 20000):
#   - points/s with -j 1 and -j 2, and the speed-up ratio;
#   - the same 48 runs started one by one from a shell loop (plain
#     `qctl sim queue ... --json > file`), against `qctl sweep -j 1`: the
#     ratio, and the sweep's overhead per point in ms (spawn, pipes, JSON
#     parsing, journal write with fsync).
# Best of three for each; wall-clock times.
set -eu
QCTL=${1:-build/qctl}
CUST=${2:-20000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/s.json" <<JS
{
  "experiment": "sim queue",
  "args": {"arrival": "exp:{load}", "service": "exp:1", "customers": $CUST},
  "params": {"servers": [1, 2, 4], "load": {"from": 0.45, "to": 0.8, "step": 0.05}},
  "reps": 2,
  "metrics": {"response": "metrics.response_time"}
}
JS
now() { date +%s.%N; }
best() { # COMMAND...: best wall time of three, in seconds
    b=""
    for _ in 1 2 3; do
        t0=$(now)
        "$@"
        t=$(echo "$(now) - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" -eq 1 ]; then b=$t; fi
    done
    echo "$b"
}
sweep() { "$QCTL" sweep "$T/s.json" -j "$1" --fresh --quiet --results "$T/r$1"; }
loop() {
    i=0
    for s in 1 2 4; do
        for l in 0.45 0.5 0.55 0.6 0.65 0.7 0.75 0.8; do
            for r in 1 2; do
                i=$((i + 1))
                "$QCTL" sim queue --arrival "exp:$l" --service exp:1 --customers "$CUST" \
                    --servers $s --seed $i --json >"$T/out$i.json"
            done
        done
    done
}
points=24
runs=48
t1=$(best sweep 1)
t2=$(best sweep 2)
tl=$(best loop)
cmp -s "$T/r1.csv" "$T/r2.csv" || { echo "bench_sweep: -j 1 and -j 2 results differ"; exit 1; }
echo "$t1 $t2 $tl" | awk -v p=$points -v r=$runs -v c="$CUST" '{
    printf "sweep: %d points x 2 reps of sim queue (%d customers), best of 3\n", p, c
    printf "  -j 1: %.2f s, %.1f points/s\n", $1, p / $1
    printf "  -j 2: %.2f s, %.1f points/s, speed-up %.2fx\n", $2, p / $2, $1 / $2
    printf "  shell loop of the same %d runs: %.2f s; sweep -j 1 / loop = %.3f, overhead %.2f ms per point (%.2f ms per run)\n", r, $3, $1 / $3, 1000 * ($1 - $3) / p, 1000 * ($1 - $3) / r
}'
