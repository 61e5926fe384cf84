#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_queue.sh [QCTL]: the proxy's queue discipline at 3x overload.
# A backend of 8 workers and a 0.1 s service (capacity 80/s) behind
# `qctl proxy` with its defaults; 240 requests/s (Poisson) for 10 s from
# `qctl load`; once with --queue-discipline fifo and once with codel (the
# default). Prints, per discipline, the answers counted by the load
# generator, the 200s and 503s, goodput (200s per second) and the admitted
# (200) latency p50 and p99. Loopback only, about 30 s.
set -u
QCTL=${1:-build/qctl}
TMP=$(mktemp -d)
trap 'kill $B $P 2>/dev/null; rm -rf "$TMP"' EXIT
"$QCTL" backend --listen 127.0.0.1:0 --port-file "$TMP/b.port" --service det:0.1 --workers 8 &
B=$!
while [ ! -s "$TMP/b.port" ]; do sleep 0.05; done
num() { sed -n "s/^ *\"$2\": \([0-9.e+-]*\),*\$/\1/p" "$1" | head -n 1; }
printf '%-6s %6s %6s %6s %9s %8s %8s\n' disc sent ok 503 goodput ok_p50 ok_p99
for d in fifo codel; do
    rm -f "$TMP/p.port"
    "$QCTL" proxy --listen 127.0.0.1:0 --port-file "$TMP/p.port" \
        --backend 127.0.0.1:$(cat "$TMP/b.port") --queue-discipline $d 2>/dev/null &
    P=$!
    while [ ! -s "$TMP/p.port" ]; do sleep 0.05; done
    "$QCTL" load --target 127.0.0.1:$(cat "$TMP/p.port") --rate 240 --duration 10 \
        --connections 1024 --timeout 15 --seed 7 --json >"$TMP/$d.json"
    kill $P; wait $P 2>/dev/null
    ok=$(num "$TMP/$d.json" ok)
    el=$(num "$TMP/$d.json" elapsed)
    printf '%-6s %6s %6s %6s %9.1f %8.3f %8.3f\n' $d "$(num "$TMP/$d.json" sent)" "$ok" \
        "$(num "$TMP/$d.json" refused_503)" "$(echo "$ok / $el" | bc -l)" \
        "$(num "$TMP/$d.json" ok_p50)" "$(num "$TMP/$d.json" ok_p99)"
done
