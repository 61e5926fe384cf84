#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# failures.sh: a backend killed mid-run (the proxy answers 502 for what it
# cannot carry: still every request answered once), then a SIGTERM drain
# under load (the proxy exits promptly and cleanly, no request hangs).
set -u
. "$(dirname "$0")/lib.sh"
start_backend b1 --service det:0.005 --workers 4
start_backend b2 --service det:0.005 --workers 4
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$b2_PORT \
    --limiter aimd --limit 8 --queue 64 --interval 0.05 --backend-timeout 2
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --max-errors 1 --rate 400 --requests 800 \
    --connections 64 --timeout 10 --json >"$TMP/kill.json" &
LOAD=$!
sleep 0.6
kill -KILL "$b2_PID"
wait "$LOAD" || fail "load failed"
ALLOW_OTHER=1 conserved "$TMP/kill.json"
[ "$(num "$TMP/kill.json" ok)" -gt 200 ] || fail "too few answered"

"$QCTL" load --target 127.0.0.1:$PROXY_PORT --max-errors 1 --rate 300 --requests 600 \
    --connections 64 --timeout 5 --json >"$TMP/drain.json" &
LOAD=$!
sleep 0.7
kill -TERM "$PROXY_PID"
i=0
while kill -0 "$PROXY_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$PROXY_PID" 2>/dev/null && fail "proxy still running 5 s after SIGTERM"
wait "$PROXY_PID" || fail "proxy exit status after drain"
wait "$LOAD" || fail "load failed"
[ "$(num "$TMP/drain.json" timeouts)" -eq 0 ] || fail "requests left hanging by the drain"
[ "$(num "$TMP/drain.json" ok)" -gt 0 ] || fail "nothing answered before the drain"
sent=$(num "$TMP/drain.json" sent) ans=$(num "$TMP/drain.json" answered)
err=$(num "$TMP/drain.json" errors)
[ $((ans + err)) -eq "$sent" ] || fail "drain: sent $sent != answered $ans + refused connections $err"
echo ok
