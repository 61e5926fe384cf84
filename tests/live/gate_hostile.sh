#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_hostile.sh: the HTTP proxy's hostile-client cases against qctl gate:
# a burst of 300 connections dropped at once (half reset, some after
# garbage); a half-closed session gets its whole echo and the end of
# stream; a client that sends 4 s without reading is slowed by backpressure
# (the gate's memory stays bounded) and others are still served; SIGTERM
# with sessions open: no new session, the open ones finish, exit 0; a
# drain deadline cuts a session that does not end (127.0.0.1, < 15 s).
set -u
. "$(dirname "$0")/gate_lib.sh"
# under AddressSanitizer freed blocks wait in a quarantine (256 MB by
# default) before they are reused: keep it small so RSS means the same
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
export ASAN_OPTIONS
start_echo e
start_gate g --backend 127.0.0.1:$e_PORT --limit 20 --queue 400 --interval 0.1 --buffer 65536
n=$(client burst $g_PORT 300)
[ "$n" -ge 250 ] || fail "only $n of 300 connections made"
out=$(client sessions $g_PORT 5 0.1)
[ "$out" = "ok 5 closed 0" ] || fail "after the burst: $out"
wait_connected $g_ADMIN 0
# half-close: 1 MB sent then the write side shut; all of it comes back, then the end
[ "$(client halfclose $g_PORT 1000000)" = 1000000 ] || fail "half-closed session lost bytes"
# a client that never reads: bounded memory, and the gate serves others meanwhile
client noread $g_PORT 4 >"$TMP/noread.out" &
nr=$!
sleep 2
out=$(client sessions $g_PORT 3 0.1)
[ "$out" = "ok 3 closed 0" ] || fail "with a non-reading client: $out"
rss=$(awk '/^VmRSS/ { print $2 }' /proc/"$g_PID"/status)
sleep 1
rss2=$(awk '/^VmRSS/ { print $2 }' /proc/"$g_PID"/status)
wait $nr
sent=$(cat "$TMP/noread.out")
[ "$rss2" -lt 60000 ] || fail "gate RSS $rss2 kB with a non-reading client"
[ $((rss2 - rss)) -lt 5000 ] || fail "gate RSS grows: $rss -> $rss2 kB"
[ "$sent" -lt 100000000 ] || fail "the non-reading client could send $sent bytes: no backpressure"
kill -0 "$g_PID" || fail "gate died"
# SIGTERM with 2 sessions open: they finish, a new one is not taken, exit 0
client sessions $g_PORT 2 1.5 >"$TMP/held.out" &
held=$!
wait_connected $g_ADMIN 2
kill -TERM "$g_PID"
sleep 0.2
python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $g_PORT), timeout=1)" 2>/dev/null &&
    fail "a new session was taken while draining"
wait $held
[ "$(cat "$TMP/held.out")" = "ok 2 closed 0" ] || fail "sessions open at SIGTERM: $(cat "$TMP/held.out")"
wait "$g_PID" || fail "gate exit status $? after the drain"
# a session that does not end is cut at --drain-timeout
start_gate d --backend 127.0.0.1:$e_PORT --limit 2 --drain-timeout 0.5
client sessions $d_PORT 1 20 >/dev/null &
wait_connected $d_ADMIN 1
t0=$(date +%s%N)
kill -TERM "$d_PID"
wait "$d_PID" || fail "gate exit status $? after the drain deadline"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -lt 3000 ] || fail "drain deadline 0.5 s took $ms ms"
echo ok
