#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_control.sh: the limit set by the controllers on a real plant, 8
# clients holding sessions open on an echo backend, the sensor the
# sessions connected. Integral control (r = 3, K_I = 0.5, from 1): before
# the clients come the demand hold keeps the limit at 1 (no wind-up toward
# --max-limit); then the error is 3 - min(u, 8), u goes 1, 2, 2.5, 3 and
# stays, and the backend never sees more than 3 at once. Open loop, PRBS
# on the levels 2 and 5: the applied limit takes only those values, both,
# and the sessions connected fill it while it is 5. A reference schedule
# (3@0,5@0.4) is the reference of the rows; --control-from holds the first
# limit, then closes the loop (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/gate_lib.sh"
start_echo e
start_gate g --backend 127.0.0.1:$e_PORT --controller integral --reference 3 --ki 0.5 --limit 1 \
    --min-limit 1 --max-limit 10 --interval 0.1 --queue 20 --drain-timeout 0 --series "$TMP/i.csv"
sleep 0.3
client sessions $g_PORT 8 30 >/dev/null &
c=$!
wait_connected $g_ADMIN 3
sleep 0.6
[ "$(metric $g_ADMIN qctl_gate_limit)" = 3 ] || fail "integral: limit $(metric $g_ADMIN qctl_gate_limit), not 3"
[ "$(metric $g_ADMIN 'qctl_gate_sessions{state="connected"}')" = 3 ] || fail "integral: not 3 connected"
kill "$g_PID"; wait "$g_PID"
kill $c 2>/dev/null; wait $c 2>/dev/null
[ "$(cat "$TMP/e.max")" = 3 ] || fail "integral: the backend saw $(cat "$TMP/e.max") at once, not 3"
column "$TMP/i.csv" limit | awk '$1 > 3 { exit 1 }' || fail "integral went over 3"
awk -F, '/^#/ || /^time/ { next } $5 == 0 && $3 != 1 { exit 1 } $5 == 0 { h = $14 } END { exit h < 1 }' \
    "$TMP/i.csv" || fail "integral: no demand hold before the clients came"
# a reference schedule: 3, then 5 from 0.4 s (the series' reference column)
start_gate r --backend 127.0.0.1:$e_PORT --controller integral --reference 3@0,5@0.4 --ki 0.5 \
    --interval 0.1 --duration 1 --series "$TMP/r.csv"
wait "$r_PID" || fail "gate --duration: exit status $?"
refs=$(column "$TMP/r.csv" reference | uniq | tr '\n' ' ')
[ "$refs" = "3 5 " ] || fail "reference schedule 3@0,5@0.4: the series has '$refs'"
# --control-from 0.5: the first limit 4 held for 0.5 s, then the loop
# closed (the sessions connected, 4, above the reference 3: it falls)
start_gate h --backend 127.0.0.1:$e_PORT --controller integral --reference 3 --ki 0.5 --limit 4 \
    --control-from 0.5 --min-limit 1 --max-limit 10 --interval 0.1 --queue 20 --drain-timeout 0 \
    --series "$TMP/h.csv"
client sessions $h_PORT 8 30 >/dev/null &
c=$!
wait_connected $h_ADMIN 3 -ge
sleep 1
kill "$h_PID"; wait "$h_PID"
kill $c 2>/dev/null; wait $c 2>/dev/null
awk -F, '/^#/ || /^time/ { next } $1 < 0.45 && $3 != 4 { exit 1 } { u = $3 } END { exit !(u < 4) }' \
    "$TMP/h.csv" || fail "--control-from 0.5: the limit not 4 until 0.5 s, or never lowered after"
start_echo e2
start_gate o --backend 127.0.0.1:$e2_PORT --controller open --excite prbs --excite-levels 2,5 \
    --hold 2 --seed 7 --interval 0.1 --queue 20 --drain-timeout 0 --series "$TMP/o.csv"
client sessions $o_PORT 8 30 >/dev/null &
c=$!
wait_connected $o_ADMIN 2 -ge
sleep 2
kill "$o_PID"; wait "$o_PID"
kill $c 2>/dev/null; wait $c 2>/dev/null
# open loop after --control-from 0.5: the limit 3 until then, then the
# levels only
start_gate p --backend 127.0.0.1:$e2_PORT --controller open --excite steps --excite-levels 2,5 \
    --hold 1 --limit 3 --control-from 0.5 --interval 0.1 --duration 1 --series "$TMP/p.csv"
wait "$p_PID" || fail "gate open --control-from: exit status $?"
awk -F, '/^#/ || /^time/ { next } ($1 < 0.45 && $3 != 3) || ($1 > 0.55 && $3 != 2 && $3 != 5) { exit 1 }
    $1 > 0.55 { n++ } END { exit n < 1 }' "$TMP/p.csv" ||
    fail "open --control-from 0.5: the limit not 3 before 0.5 s, or not 2 or 5 after"
levels=$(column "$TMP/o.csv" gate | sort -u | tr '\n' ' ')
[ "$levels" = "2 5 " ] || fail "open loop: levels '$levels', not '2 5 '"
[ "$(cat "$TMP/e2.max")" -le 5 ] || fail "open loop: the backend saw $(cat "$TMP/e2.max") at once"
[ "$(cat "$TMP/e2.max")" = 5 ] || fail "open loop: the limit 5 was never filled"
echo ok
