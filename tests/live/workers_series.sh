#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# workers_series.sh: with --workers 2 the series, /metrics and /status
# count the whole proxy, not its first worker: 400 requests over 64
# connections (which the kernel spreads over both workers' sockets)
# through a 2-worker proxy to a qctl backend; the series' last admitted
# and refused, /metrics' qctl_admitted_total and qctl_refused_total
# (summed over classes) and /status' classes each equal the 2xx and 503
# the client counted (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend be --service det:0.002 --workers 16
start_proxy --backend 127.0.0.1:$be_PORT --workers 2 --interval 0.1 --series "$TMP/series.csv"
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 400 --requests 400 --duration 5 \
    --connections 64 --timeout 5 --seed 3 --json >"$TMP/load.json" || fail "load failed"
conserved "$TMP/load.json"
ok=$(num "$TMP/load.json" ok)
r503=$(num "$TMP/load.json" refused_503)
sent=$(num "$TMP/load.json" sent)
[ "$sent" -eq 400 ] || fail "the client sent $sent requests, not 400"
sleep 0.5 # a few control intervals with nothing in flight: the last row is final
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics.txt" || fail "/metrics"
curl -s "http://127.0.0.1:$ADMIN_PORT/status" >"$TMP/status.json" || fail "/status"
kill -TERM "$PROXY_PID"
wait "$PROXY_PID" || fail "the proxy exited $?"
head -n 1 "$TMP/series.csv" | grep -q '^t,limit,inflight,queue,admitted,refused,' ||
    fail "series header: $(head -n 1 "$TMP/series.csv")"
last=$(tail -n 1 "$TMP/series.csv")
s_adm=$(echo "$last" | cut -d, -f5)
s_ref=$(echo "$last" | cut -d, -f6)
s_in=$(echo "$last" | cut -d, -f3)
m_adm=$(awk '/^qctl_admitted_total/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")
m_ref=$(awk '/^qctl_refused_total/ { s += $NF } END { print s + 0 }' "$TMP/metrics.txt")
j_adm=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(c["admitted"] for c in d["classes"]))' \
    "$TMP/status.json" 2>/dev/null || echo none)
echo "client: $ok 2xx, $r503 503 of $sent; series: admitted $s_adm refused $s_ref" \
    "in flight $s_in; /metrics: admitted $m_adm refused $m_ref; /status: admitted $j_adm"
[ "$ok" -gt 0 ] || fail "no request answered 2xx"
[ "$s_adm" = "$ok" ] || fail "the series admitted $s_adm, the client saw $ok 2xx"
[ "$s_ref" = "$r503" ] || fail "the series refused $s_ref, the client saw $r503 503"
[ "$s_in" = 0 ] || fail "the series' last row has $s_in in flight after the load"
[ "$m_adm" = "$ok" ] || fail "/metrics admitted $m_adm, the client saw $ok 2xx"
[ "$m_ref" = "$r503" ] || fail "/metrics refused $m_ref, the client saw $r503 503"
command -v python3 >/dev/null && { [ "$j_adm" = "$ok" ] || fail "/status admitted $j_adm, the client saw $ok 2xx"; }
echo ok
