#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_drain.sh: SIGTERM ends qctl gate's drain at --drain-timeout whatever
# the control interval (3600 s), with a session connected that does not
# end, on one worker and on two; with no session the gate stops at once;
# --check refuses what the start refuses, with the same message
# (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/gate_lib.sh"
ms_now() { date +%s%3N; }
start_echo e
for workers in 1 2; do
    start_gate g --backend 127.0.0.1:$e_PORT --interval 3600 --drain-timeout 0.5 \
        --workers $workers --limit 4
    client sessions $g_PORT 1 20 >/dev/null 2>&1 &
    cpid=$!
    wait_connected $g_ADMIN 1
    t0=$(ms_now)
    kill -TERM "$g_PID"
    wait "$g_PID"
    st=$?
    ms=$(($(ms_now) - t0))
    kill "$cpid" 2>/dev/null
    [ "$st" -eq 0 ] || fail "--workers $workers: the drain exited $st"
    [ "$ms" -ge 450 ] || fail "--workers $workers: stopped after $ms ms, before the 0.5 s deadline"
    [ "$ms" -lt 3000 ] || fail "--workers $workers: drain deadline 0.5 s took $ms ms"
    echo "--workers $workers: stopped $ms ms after SIGTERM with a session connected"
done
# nothing connected: the drain ends at once
start_gate g --backend 127.0.0.1:$e_PORT --interval 3600 --drain-timeout 30 --workers 2 \
    --limit 4
t0=$(ms_now)
kill -TERM "$g_PID"
wait "$g_PID"
st=$?
ms=$(($(ms_now) - t0))
[ "$st" -eq 0 ] || fail "an idle drain exited $st"
[ "$ms" -lt 3000 ] || fail "an idle drain took $ms ms (--drain-timeout 30)"
echo "idle: stopped $ms ms after SIGTERM"
# --check and the start refuse alike (same message, same status)
"$QCTL" gate --backend 127.0.0.1:$e_PORT --listen 127.0.0.1:0 --reference 5 --check \
    >/dev/null 2>"$TMP/check.err"
c=$?
"$QCTL" gate --backend 127.0.0.1:$e_PORT --listen 127.0.0.1:0 --reference 5 \
    >/dev/null 2>"$TMP/start.err"
s=$?
[ "$c" -eq 2 ] && [ "$s" -eq 2 ] || fail "--reference without a controller: --check $c, start $s (2 wanted)"
cmp -s "$TMP/check.err" "$TMP/start.err" || fail "--check said '$(cat "$TMP/check.err")', the start '$(cat "$TMP/start.err")'"
echo ok
