#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# drain_interval.sh: SIGTERM ends the drain at --drain-timeout whatever
# the control interval (20 s, and 1e300 s, which --check accepts), with a
# request held at a slow backend; with nothing in flight the proxy stops
# at once (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:20 --workers 4
ms_now() { date +%s%3N; }
for interval in 20 1e300; do
    start_proxy --backend 127.0.0.1:$b_PORT --interval "$interval" --drain-timeout 0.5
    curl -s --max-time 25 "http://127.0.0.1:$PROXY_PORT/held" >/dev/null &
    i=0
    while [ $i -lt 100 ] && ! curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/status" |
        grep -q '"inflight": *1'; do sleep 0.05; i=$((i + 1)); done
    t0=$(ms_now)
    kill -TERM "$PROXY_PID"
    wait "$PROXY_PID"
    st=$?
    ms=$(($(ms_now) - t0))
    [ "$st" -eq 1 ] || fail "--interval $interval: a drain that cut 1 request exited $st"
    [ "$ms" -ge 450 ] || fail "--interval $interval: stopped after $ms ms, before the 0.5 s deadline"
    [ "$ms" -lt 2000 ] || fail "--interval $interval: drain deadline 0.5 s took $ms ms"
    grep -q 'drain deadline passed: stopping with 1 requests in flight' "$TMP/proxy.err" ||
        fail "--interval $interval: no drain deadline line"
    echo "--interval $interval: stopped $ms ms after SIGTERM"
done
# nothing in flight: the drain ends at once, exit 0
start_proxy --backend 127.0.0.1:$b_PORT --interval 20 --drain-timeout 30
t0=$(ms_now)
kill -TERM "$PROXY_PID"
wait "$PROXY_PID"
st=$?
ms=$(($(ms_now) - t0))
[ "$st" -eq 0 ] || fail "an idle drain exited $st"
[ "$ms" -lt 2000 ] || fail "an idle drain took $ms ms"
echo ok
