#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_limit.sh: qctl gate holds the sessions connected to the backend at
# the limit: 8 sessions through --limit 3 all served, the echo backend never
# sees more than 3 at once and sees 3; beyond the limit with --queue 0 a
# session is refused (closed at once); with --queue 1 one waits and expires
# at --queue-timeout while the next is refused; the series and /metrics
# count them, the series giving time 0 on the wall clock (127.0.0.1,
# < 10 s).
set -u
. "$(dirname "$0")/gate_lib.sh"
start_echo e
before=$(date +%s.%N)
start_gate g --backend 127.0.0.1:$e_PORT --limit 3 --queue 10 --interval 0.1 --series "$TMP/s.csv"
out=$(client sessions $g_PORT 8 0.4)
[ "$out" = "ok 8 closed 0" ] || fail "8 sessions through limit 3 with a queue: $out"
after=$(date +%s.%N)
# the series gives time 0 on the wall clock, after the gate was started
# and before its clients were done
t0=$(sed -n 's/^# t0_epoch=\([0-9.]*\) .*/\1/p' "$TMP/s.csv")
[ -n "$t0" ] || fail "series: no t0_epoch line: $(head -n 3 "$TMP/s.csv")"
awk -v a="$before" -v t="$t0" -v b="$after" 'BEGIN { exit !(a <= t && t <= b) }' ||
    fail "series: t0_epoch $t0 not within [$before, $after]"
[ "$(cat "$TMP/e.max")" = 3 ] || fail "the backend saw $(cat "$TMP/e.max") at once, not 3"
[ "$(metric $g_ADMIN 'qctl_gate_sessions_total{outcome="admitted"}')" = 8 ] || fail "admitted != 8"
[ "$(metric $g_ADMIN 'qctl_gate_sessions_total{outcome="done"}')" = 8 ] || fail "done != 8"
peak=$(column "$TMP/s.csv" peak | sort -n | tail -n 1)
[ "$peak" = 3 ] || fail "series: peak $peak, not 3"
column "$TMP/s.csv" gate | grep -qv '^3$' && fail "series: the static limit moved"
waited=$(column "$TMP/s.csv" waiting | sort -n | tail -n 1)
[ "$waited" -ge 1 ] || fail "series: nobody waited"
# the built-in sensor: the sessions connected at the tick
[ "$(column "$TMP/s.csv" sensor | sort -n | tail -n 1)" -le 3 ] || fail "sensor over the limit"
kill "$g_PID"; wait "$g_PID" || fail "gate exit status $? after SIGTERM"

# refusal: --queue 0
start_echo e2
start_gate r --backend 127.0.0.1:$e2_PORT --limit 2 --queue 0
out=$(client sessions $r_PORT 5 0.8)
[ "$out" = "ok 2 closed 3" ] || fail "limit 2, no queue, 5 sessions: $out"
[ "$(metric $r_ADMIN 'qctl_gate_sessions_total{outcome="refused"}')" = 3 ] || fail "refused != 3"
[ "$(cat "$TMP/e2.max")" = 2 ] || fail "the backend saw $(cat "$TMP/e2.max") at once, not 2"

# waiting with a deadline: one waits 0.3 s and expires, the next is refused
start_gate w --backend 127.0.0.1:$e2_PORT --limit 1 --queue 1 --queue-timeout 0.3
out=$(client sessions $w_PORT 3 1.0)
[ "$out" = "ok 1 closed 2" ] || fail "limit 1, queue 1, 3 sessions: $out"
[ "$(metric $w_ADMIN 'qctl_gate_sessions_total{outcome="expired"}')" = 1 ] || fail "expired != 1"
[ "$(metric $w_ADMIN 'qctl_gate_sessions_total{outcome="refused"}')" = 1 ] || fail "refused != 1"
echo ok
