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
for t in valgrind callgrind_control callgrind_annotate wrk python3; do
    command -v $t >/dev/null || { echo "bench_wc_cost: needs $t: skipped"; exit 0; }
done
T=$(mktemp -d)
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
waitport() { for _ in $(seq 300); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
    echo "bench_wc_cost: nothing listens on $1 after 30 s" >&2; exit 1; }
port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
"$Q" backend --listen 127.0.0.1:0 --port-file "$T/b.port" --service det:0 --workers 65536 &
PIDS="$PIDS $!"
for _ in $(seq 300); do [ -s "$T/b.port" ] && break; sleep 0.1; done
BP=$(cat "$T/b.port")
echo "bench_wc_cost: host load $(cut -d' ' -f1-3 /proc/loadavg); wrk -t1 -cC -d${D}s, backend det:0, one worker"
echo "| conns | limiter | instructions/request | vs none | of which the front (qc_front_*, qc_limiter_*) | 503 |"
echo "| --- | --- | --- | --- | --- | --- |"
for c in $CONNS; do
    base=""
    for l in $LIMS; do
        la=""
        [ "$l" = default ] || la="--limiter $l"
        p=$(port)
        rm -f "$T"/cg.*
        # shellcheck disable=SC2086
        valgrind --tool=callgrind --callgrind-out-file="$T/cg.out" "$Q" proxy --listen 127.0.0.1:"$p" \
            --backend 127.0.0.1:"$BP" --workers 1 $la 2>/dev/null &
        v=$!
        waitport "$p"
        wrk -t1 -c"$c" -d1s "http://127.0.0.1:$p/" >/dev/null 2>&1
        callgrind_control -z $v >/dev/null 2>&1
        wrk -t1 -c"$c" -d"${D}s" "http://127.0.0.1:$p/" >"$T/w.txt" 2>&1
        callgrind_control -d $v >/dev/null 2>&1
        kill $v; wait $v 2>/dev/null
        f=$(ls -t "$T"/cg.out.* 2>/dev/null | head -1)
        [ -n "$f" ] || f="$T/cg.out"
        n=$(awk '/requests in/ { print $1 }' "$T/w.txt")
        bad=$(awk '/Non-2xx/ { print $NF }' "$T/w.txt")
        ir=$(awk '/^(summary|totals):/ { print $2; exit }' "$f")
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
