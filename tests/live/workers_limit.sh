#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# workers_limit.sh: --workers 2 and 4 share one limiter and one waiting
# room: at 3x overload of a --limit 8 (a backend answering in 0.05 s: 160/s
# served, 480/s offered), the requests in the backend at once, counted by
# a backend independent of qctl (count_backend.py), never exceed 8, and
# every request is answered once, 2xx or 503 (127.0.0.1, < 20 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77
command -v curl >/dev/null || exit 77
for n in 2 4; do
    rm -f "$TMP/count.port" "$TMP/count.sum"
    python3 "$(dirname "$0")/count_backend.py" "$TMP/count.port" "$TMP/count.sum" 0.05 \
        2>"$TMP/count.err" &
    CPID=$!
    PIDS="$PIDS $CPID"
    wait_file "$TMP/count.port"
    start_proxy --backend 127.0.0.1:$(cat "$TMP/count.port") --limiter fixed --limit 8 \
        --workers $n --queue 64 --queue-timeout 0.5
    "$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 480 --duration 3 --connections 512 \
        --timeout 10 --seed $n --json >"$TMP/load.json" || fail "$n workers: load failed"
    conserved "$TMP/load.json"
    ok=$(num "$TMP/load.json" ok)
    refused=$(num "$TMP/load.json" refused_503)
    kill -TERM "$PROXY_PID"
    wait "$PROXY_PID" || fail "$n workers: the proxy exited $?"
    kill -TERM "$CPID"
    wait "$CPID"
    wait_file "$TMP/count.sum"
    max=$(sed -n 's/.*max_inflight \([0-9]*\).*/\1/p' "$TMP/count.sum")
    reqs=$(sed -n 's/^requests \([0-9]*\).*/\1/p' "$TMP/count.sum")
    echo "$n workers: $ok answered 200, $refused refused; the backend saw $reqs, at most $max at once"
    [ "$max" -le 8 ] || fail "$n workers: $max requests in the backend at once, over the limit 8"
    [ "$max" -ge 6 ] || fail "$n workers: at most $max at once: the overload never filled the limit"
    [ "$ok" -gt 0 ] && [ "$refused" -gt 0 ] || fail "$n workers: not an overload ($ok ok, $refused refused)"
    [ "$reqs" -ge "$ok" ] || fail "$n workers: the backend saw $reqs requests, fewer than the $ok answered"
done
echo ok
