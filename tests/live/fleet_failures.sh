#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fleet_failures.sh: qctl proxy's fleet when switching on goes wrong. An
# unpark command that fails and one that hangs past --cmd-timeout leave
# the backend off, are reported, and the requests that waited for it go
# to the backend that is on; a setup longer than the requests' deadline
# answers them 503. Every request is answered once.
set -u
. "$(dirname "$0")/lib.sh"
free_port P2 || fail "no free port" # see lib.sh
start_backend b1 --service det:0.01 --workers 8
FLEET="--limiter none --route djsq --djsq-threshold 1 --initially-on 1 --interval 0.05"
mnum() { awk -v s="$2" 'index($0, s) == 1 { t += $NF } END { printf "%d\n", t }' "$1"; }
metrics() { curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/$1.txt" || fail "no /metrics"; }

# 1. the command fails at once
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$P2 $FLEET --unpark-cmd "exit 3"
"$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 200 --requests 200 --connections 64 \
    --timeout 10 --json >"$TMP/fail.json" || fail "load failed"
conserved "$TMP/fail.json"
metrics fail
[ "$(mnum "$TMP/fail.txt" 'qctl_fleet_failures_total{kind="unpark"}')" -ge 1 ] ||
    fail "the failed unpark was not counted"
grep -q "unpark 127.0.0.1:$P2 failed: command exited with status 3" "$TMP/proxy.err" ||
    fail "the failed unpark was not reported"
[ "$(num "$TMP/fail.json" ok)" -eq "$(mnum "$TMP/fail.txt" qctl_backend_answered_total)" ] ||
    fail "answers do not add up"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

# 2. the command hangs: killed after --cmd-timeout
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$P2 $FLEET --unpark-cmd "sleep 5" \
    --cmd-timeout 0.3 --queue-timeout 3
"$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 200 --requests 100 --connections 64 \
    --timeout 10 --json >"$TMP/hang.json" || fail "load failed"
conserved "$TMP/hang.json"
grep -q "unpark 127.0.0.1:$P2 failed: command timed out after 0.3 s" "$TMP/proxy.err" ||
    fail "the hung unpark was not reported"
metrics hang
grep -q '^qctl_backends{state="off"} 1$' "$TMP/hang.txt" || fail "the hung backend is not off"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

# 3. a setup (2 s) longer than the deadline (0.3 s): 503 for who waits
stop_unparked() { [ -f "$TMP/pid2" ] && kill "$(cat "$TMP/pid2")" 2>/dev/null; }
trap 'stop_unparked; cleanup' EXIT
start_proxy --backend 127.0.0.1:$b1_PORT --backend 127.0.0.1:$P2 $FLEET --queue-timeout 0.3 \
    --health /health --health-interval 0.05 \
    --unpark-cmd "'$QCTL' backend --listen {backend} --setup det:2 2>>'$TMP/b2.err' & echo \$! >'$TMP/pid2'"
"$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 300 --requests 150 --connections 64 \
    --timeout 10 --json >"$TMP/slow.json" || fail "load failed"
conserved "$TMP/slow.json"
metrics slow
wr=$(mnum "$TMP/slow.txt" qctl_setup_refused_total)
[ "$wr" -ge 1 ] || fail "nobody waited past the deadline"
[ "$(num "$TMP/slow.json" refused_503)" -eq "$wr" ] || fail "503s are not the setup refusals"
[ "$(num "$TMP/slow.json" ok)" -eq "$(mnum "$TMP/slow.txt" qctl_backend_answered_total)" ] ||
    fail "answers do not add up"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"
echo ok
