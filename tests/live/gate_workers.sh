#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_workers.sh: qctl gate --workers 2 and 4 share one limit and one
# waiting room: 80 sessions opened 10 ms apart, each holding 0.3 s once
# echoed (about 30 wanted at once), through --limit 8 with 16 waiting
# places of 0.5 s: the echo backend (tcp_echo.py, independent of qctl)
# never holds more than 8 sessions at once and reaches 8 or nearly, some
# sessions are refused or expire, and every session is counted once
# (127.0.0.1, < 60 s on a loaded host).
set -u
. "$(dirname "$0")/gate_lib.sh"
for n in 2 4; do
    start_echo e$n
    start_gate g$n --backend 127.0.0.1:$(eval echo \$e${n}_PORT) --limit 8 --queue 16 \
        --queue-timeout 0.5 --workers $n
    port=$(eval echo \$g${n}_PORT)
    admin=$(eval echo \$g${n}_ADMIN)
    workers=$(curl -s --max-time 3 "http://127.0.0.1:$admin/status" | sed -n 's/.*"workers": *\([0-9]*\).*/\1/p')
    [ "$workers" = "$n" ] || fail "$n workers: /status says $workers workers"
    out=$(client sessions $port 80 0.3)
    ok=$(echo "$out" | awk '{ print $2 }')
    closed=$(echo "$out" | awk '{ print $4 }')
    max=$(cat "$TMP/e$n.max")
    admitted=$(metric $admin 'qctl_gate_sessions_total{outcome="admitted"}')
    refused=$(metric $admin 'qctl_gate_sessions_total{outcome="refused"}')
    expired=$(metric $admin 'qctl_gate_sessions_total{outcome="expired"}')
    accepted=$(metric $admin 'qctl_gate_sessions_total{outcome="accepted"}')
    echo "$n workers: $ok echoed, $closed closed by the gate (refused $refused, expired $expired);" \
        "admitted $admitted of $accepted; the backend held at most $max at once"
    [ "$max" -le 8 ] || fail "$n workers: the backend held $max sessions at once, over the limit 8"
    [ "$max" -ge 6 ] || fail "$n workers: at most $max at once: the overload never filled the limit"
    [ "$ok" -gt 0 ] && [ "$closed" -gt 0 ] || fail "$n workers: not an overload: $out"
    [ "$accepted" = 80 ] || fail "$n workers: accepted $accepted, not 80"
    [ $((admitted + refused + expired)) -eq 80 ] ||
        fail "$n workers: admitted $admitted + refused $refused + expired $expired != 80"
    [ "$ok" -eq "$admitted" ] || fail "$n workers: $ok echoed but $admitted admitted"
    kill -TERM "$(eval echo \$g${n}_PID)"
    wait "$(eval echo \$g${n}_PID)" || fail "$n workers: the gate exited $?"
done
echo ok
