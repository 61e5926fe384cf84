#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# workers_limit.sh: `qctl proxy --workers N` (2, then 4) at 3x overload
# with a fixed limit of 8: the requests inside the backend at once, as
# the backend counts them itself (--summary: the most in service at
# once; its 1000 workers never make one wait), never exceed the limit,
# though the proxy's workers each accept their own connections and admit
# on their own threads; the limit is reached (the workers share it, they
# do not each get 8), nothing is lost, and the proxy runs N threads. The
# backend frees a request before the proxy sees its answer, so its count
# is a lower bound of the proxy's own in-flight count at every moment.
set -u
. "$(dirname "$0")/lib.sh"
for n in 2 4; do
    start_backend b --service det:0.02 --workers 1000 --summary "$TMP/b$n.json"
    start_proxy --backend 127.0.0.1:$b_PORT --workers $n --limiter fixed --limit 8 \
        --queue 64 --queue-timeout 0.2
    threads=$(ls "/proc/$PROXY_PID/task" 2>/dev/null | wc -l)
    [ "$threads" -eq 0 ] || [ "$threads" -eq "$n" ] || fail "$n workers: $threads threads"
    # capacity 8 / 0.02 s = 400/s: 1200/s is 3x
    "$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 1200 --requests 2400 \
        --connections 256 --timeout 10 --json >"$TMP/load$n.json" || fail "load failed"
    conserved "$TMP/load$n.json"
    [ "$(num "$TMP/load$n.json" refused_503)" -gt 100 ] || fail "$n workers: overload not refused"
    kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status $?"
    kill -TERM "$b_PID"; wait "$b_PID" || fail "backend exit status $?"
    peak=$(sed -n 's/.*"peak_in_service": \([0-9]*\).*/\1/p' "$TMP/b$n.json")
    served=$(sed -n 's/.*"served": \([0-9]*\).*/\1/p' "$TMP/b$n.json")
    [ -n "$peak" ] || fail "no backend summary"
    echo "workers $n: backend peak in service $peak (limit 8), served $served"
    [ "$peak" -le 8 ] || fail "$n workers: $peak requests in the backend at once, limit 8"
    [ "$peak" -ge 6 ] || fail "$n workers: the limit was never approached ($peak)"
    [ "$served" -eq "$(num "$TMP/load$n.json" ok)" ] || fail "served $served != ok"
done
echo ok
