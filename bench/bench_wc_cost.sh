#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_wc_cost.sh: what the admission front costs a proxied request,
# counted rather than timed (a busy host does not change a count): the
# proxy's instructions per request under callgrind (user space with the C
# library, counters zeroed after a 1 s warm-up) with each limiter against
# `--limiter none`, one worker, in front of a backend that answers at
# once, wrk -t1 -cC for D seconds; and the front's own share, the
# instructions inclusive of qc_front_* and qc_limiter_* entry points
# (callgrind_annotate). On a fast backend the limiter's per-request cost
# is the only thing that can make a limiter slower than none.
#   bench/bench_wc_cost.sh [QCTL]    (CONNS="32 256" D=3 LIMS=...)
# Needs valgrind, callgrind_control, callgrind_annotate and wrk (else a
# notice and exit 0). 127.0.0.1 only.
set -u
Q=${1:-build/qctl}
D=${D:-3}
CONNS=${CONNS:-"32 256"}
LIMS=${LIMS:-"none default aimd envoy fixed"}
# shellcheck disable=SC2034 # lib.sh's messages name the bench
BENCH=bench_wc_cost
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_needs valgrind callgrind_control callgrind_annotate wrk python3
bench_start
echo "bench_wc_cost: host load $(cut -d' ' -f1-3 /proc/loadavg); wrk -t1 -cC -d${D}s, backend det:0, one worker"
echo "| conns | limiter | instructions/request | vs none | of which the front (qc_front_*, qc_limiter_*) | 503 |"
echo "| --- | --- | --- | --- | --- | --- |"
for c in $CONNS; do
    base=""
    for l in $LIMS; do
        la=""
        [ "$l" = default ] || la="--limiter $l"
        p=$(port)
        # shellcheck disable=SC2086
        callgrind_run "$T/cg.out" "$T/w.txt" "$c" "$D" "$p" "$Q" proxy --listen 127.0.0.1:"$p" \
            --backend 127.0.0.1:"$BP" --workers 1 $la
        f=$CG_FILE
        n=$(awk '/requests in/ { print $1 }' "$T/w.txt")
        bad=$(awk '/Non-2xx/ { print $NF }' "$T/w.txt")
        ir=$(cg_total "$f")
        fr=$(callgrind_annotate --inclusive=yes "$f" 2>/dev/null |
            awk '/qc_front_(arrive_n|done|tick|expire|carry)|qc__pcore_(arrive|done|tick|expire|carry)/ && $1 ~ /[0-9]/ {
                     gsub(",", "", $1); if ($0 ~ /qc__pcore/) p += $1; else q += $1 }
                 END { print (p > q ? p : q) + 0 }')
        per=$(awk -v a="$ir" -v r="$n" 'BEGIN { printf "%.0f", r ? a / r : 0 }')
        frp=$(awk -v a="$fr" -v r="$n" 'BEGIN { printf "%.0f", r ? a / r : 0 }')
        [ -n "$base" ] || base=$per
        printf '| %s | %s | %s | %s | %s | %s |\n' "$c" "$l" "$per" \
            "$(awk -v a="$per" -v b="$base" 'BEGIN { printf "%.3f", a / b }')" "$frp" "${bad:-0}"
    done
done
