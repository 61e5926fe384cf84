#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# retry.sh: idempotent requests are sent again, not answered 502, when
# their backend fails them before any answer. (1) One of two backends is
# killed under load: the requests it held and the connects it refuses go
# to the other, it is taken out of rotation, and every request is answered
# 200 (the load generator counts each one). (2) A backend that closes its
# idle kept-alive connections after 5 ms: a request written on a link the
# backend has just closed is sent again on a new one; again every request
# gets its 200 (127.0.0.1, < 15 s).
set -u
. "$(dirname "$0")/lib.sh"
metric() { # NAME: a counter of the proxy's /metrics
    curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics" | sed -n "s/^$1 //p" | head -n 1
}
command -v curl >/dev/null || exit 77
start_backend b1 --service det:0.005 --workers 4
start_backend b2 --service det:0.005 --workers 4
# one worker: a backend's rotation state is each worker's own, and the
# admin port shows the first worker's, which may not have seen the kill's
# failures (the connections are spread over the workers by the kernel)
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$b2_PORT \
    --limiter aimd --limit 8 --queue 64 --interval 0.05 --backend-timeout 2 --workers 1
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 400 --requests 1200 \
    --connections 64 --timeout 10 --json >"$TMP/kill.json" &
LOAD=$!
sleep 0.8
kill -KILL "$b2_PID"
wait "$LOAD" || fail "load failed"
conserved "$TMP/kill.json"
[ "$(num "$TMP/kill.json" ok)" -eq "$(num "$TMP/kill.json" sent)" ] || fail "not every request got 200"
[ "$(num "$TMP/kill.json" sent)" -eq 1200 ] || fail "not every request was sent"
r=$(metric qctl_retries_total)
[ -n "$r" ] && [ "$r" -gt 0 ] || fail "no retry counted after the kill ($r)"
curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics" |
    grep -q "^qctl_backend_out{backend=\"127.0.0.1:$b2_PORT\"} 1" || fail "the killed backend is still in rotation"
e=$(metric 'qctl_errors_total{kind="502"}')
[ "$e" = 0 ] || fail "the proxy counted $e 502s"
echo "kill: sent 1200, ok $(num "$TMP/kill.json" ok), retries $r"

kill "$PROXY_PID"; wait "$PROXY_PID"
start_backend b3 --service det:0.001 --workers 8 --keepalive-timeout 0.005
start_proxy --backend 127.0.0.1:$b3_PORT --limiter fixed --limit 64 --backend-timeout 2
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 300 --requests 1500 \
    --connections 16 --timeout 10 --json >"$TMP/ka.json" || fail "load failed"
conserved "$TMP/ka.json"
[ "$(num "$TMP/ka.json" ok)" -eq 1500 ] || fail "not every request got 200"
e=$(metric 'qctl_errors_total{kind="502"}')
[ "$e" = 0 ] || fail "the proxy counted $e 502s"
echo "keep-alive close: sent 1500, ok $(num "$TMP/ka.json" ok), retries $(metric qctl_retries_total)"
echo ok
