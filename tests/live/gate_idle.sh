#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gate_idle.sh: silent clients cannot hold the gate's places.
#  - 10 clients connect and say nothing at a limit of 5 (--idle-timeout
#    2): the 5 in are closed after 2 s idle, the 5 waiting get in and are
#    closed 2 s later (as the clients see it: none before 2 s, all by 6
#    s), and 5 sessions that talk, started behind them, are all served
#    (within 8 s: two idle timeouts and a margin for a loaded machine).
#  - The same with --idle-timeout 0 (no bound, as before the flag): the
#    talking sessions wait out their 2 s deadline and are closed unserved
#    (the case the bound is for, and the proof that this test can fail).
#  - --max-session and --max-bytes close a session past its time or bytes.
#  - /healthz, /readyz (503 once a connect to the backend fails) and the
#    gate's /metrics through promtool when installed.
set -u
. "$(dirname "$0")/gate_lib.sh"
start_echo e
now() { date +%s.%N; }

# wait_accepted ADMINPORT N: wait (10 s at most) for N sessions accepted
wait_accepted() {
    wa_i=0
    while [ "$(metric $1 'qctl_gate_sessions_total{outcome="accepted"}')" -lt "$2" ] && [ $wa_i -lt 200 ]; do
        sleep 0.05; wa_i=$((wa_i + 1))
    done
    [ "$(metric $1 'qctl_gate_sessions_total{outcome="accepted"}')" -ge "$2" ] || fail "never $2 sessions accepted"
}
start_gate g --backend 127.0.0.1:$e_PORT --limit 5 --queue 20 --queue-timeout 15 --idle-timeout 2 --interval 0.1
client silent $g_PORT 10 12 >"$TMP/silent.out" &
sp=$!
wait_accepted $g_ADMIN 10
t0=$(now)
out=$(client sessions $g_PORT 5 0.1)
t1=$(now)
[ "$out" = "ok 5 closed 0" ] || fail "behind 10 silent clients at --idle-timeout 1: $out"
took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
echo "5 sessions behind 10 silent clients (limit 5, --idle-timeout 2): served in $took s"
awk -v t="$took" 'BEGIN { exit !(t < 8) }' || fail "served only after $took s (want < 8 s: two idle timeouts)"
wait $sp
read -r _ closed _ first _ last <"$TMP/silent.out"
echo "the 10 silent clients: $closed closed by the gate, after $first s to $last s"
[ "$closed" = 10 ] || fail "$closed of the 10 silent clients closed by the gate in 12 s"
# the 5 in at once are closed after 2 s idle; the 5 that waited for their
# places, 2 s after they got them: at 4 s
awk -v f="$first" -v l="$last" 'BEGIN { exit !(f >= 1.95 && l < 6) }' ||
    fail "silent clients closed after $first to $last s (want none before 2 s, all by 6 s)"
cut=$(metric $g_ADMIN 'qctl_gate_sessions_cut_total{bound="idle"}')
[ "$cut" -ge 10 ] || fail "$cut silent sessions cut by the idle timeout, want 10"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$g_ADMIN/healthz")" = 200 ] || fail "/healthz not 200"
[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$g_ADMIN/readyz")" = 200 ] || fail "/readyz not 200"
if command -v promtool >/dev/null 2>&1; then
    curl -s "http://127.0.0.1:$g_ADMIN/metrics" >"$TMP/gate.metrics"
    promtool check metrics <"$TMP/gate.metrics" >"$TMP/promtool.out" 2>&1 ||
        fail "promtool check metrics on the gate: $(cat "$TMP/promtool.out")"
    for m in process_cpu_seconds_total process_resident_memory_bytes process_open_fds process_max_fds \
        process_start_time_seconds process_virtual_memory_bytes; do
        grep -q "^$m " "$TMP/gate.metrics" || fail "no $m in the gate's /metrics"
    done
else
    echo "promtool not found: the gate's /metrics not checked by it"
fi
# the Grafana dashboard of examples/live draws metrics the gate has
curl -s "http://127.0.0.1:$g_ADMIN/metrics" >"$TMP/gate.metrics"
dash=$(dirname "$0")/../../examples/live/grafana-dashboard.json
for m in $(grep -o 'qctl_gate_[a-z_]*' "$dash" | sort -u); do
    grep -q "^$m[ {]" "$TMP/gate.metrics" || fail "the dashboard draws $m, which the gate's /metrics lacks"
done
kill "$g_PID"
wait "$g_PID" 2>/dev/null

# no idle bound: the silent clients keep the places, the others are dropped
start_gate h --backend 127.0.0.1:$e_PORT --limit 5 --queue 20 --queue-timeout 2 --idle-timeout 0 --interval 0.1
client silent $h_PORT 5 20 >"$TMP/silent0.out" & # long enough for a loaded host to start the next client
sp=$!
wait_connected $h_ADMIN 5
out=$(client sessions $h_PORT 5 0.1)
[ "$out" = "ok 0 closed 5" ] || fail "without an idle bound, 5 silent clients should hold every place: $out"
wait $sp
read -r _ closed _ <"$TMP/silent0.out"
[ "$closed" = 0 ] || fail "--idle-timeout 0: $closed silent clients closed"
kill "$h_PID"
wait "$h_PID" 2>/dev/null

# the per-session budget: time and bytes
start_gate k --backend 127.0.0.1:$e_PORT --limit 5 --max-session 0.5 --max-bytes 200000 --interval 0.1
client sessions $k_PORT 2 1.5 >/dev/null
[ "$(metric $k_ADMIN 'qctl_gate_sessions_cut_total{bound="time"}')" -ge 2 ] || fail "--max-session 0.5 cut no 1.5 s session"
got=$(client halfclose $k_PORT 1000000 2>/dev/null) # reset by the gate: no count printed
[ "${got:-0}" != 1000000 ] || fail "--max-bytes 200000: a 1 MB echo went through whole"
[ "$(metric $k_ADMIN 'qctl_gate_sessions_cut_total{bound="bytes"}')" -ge 1 ] || fail "--max-bytes: no session counted as cut"
# the backend gone: the next connect fails and /readyz says so
kill "$e_PID"
wait "$e_PID" 2>/dev/null
client sessions $k_PORT 1 0 >/dev/null
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$k_ADMIN/readyz")
[ "$code" = 503 ] || fail "/readyz with the backend gone: $code, not 503"
echo ok
