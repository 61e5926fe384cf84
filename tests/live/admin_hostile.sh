#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# admin_hostile.sh: the admin port against what a hostile client or web
# page can do.
#  - 16 clients pipeline GET / (the live page) without reading, and 16
#    send POSTs with 8 MB bodies: the proxy stays under 32 MB resident
#    (it stops reading the first, answers the second 413 and closes);
#    measured as growth over its resident memory once up, at most 27 MB
#    (an ordinary build starts at about 5 MB; a sanitizer build's shadow
#    memory starts far larger and its quarantine of freed blocks is kept
#    small, so that the growth is what the proxy holds, not what ASan
#    keeps).
#  - A token is made at start, written mode 0600 to --admin-token-out and
#    removed at exit; a POST without it gets 401 and changes nothing.
#  - A cross-site POST as a web page makes it (Origin of another site,
#    text/plain, or Sec-Fetch-Site: cross-site) gets 403 and changes
#    nothing, even with the token; the same POST with the token and no
#    browser mark is taken.
#  - GET /healthz answers 200; GET /readyz 200 with a backend in
#    rotation, 503 once the only backend is out of rotation.
#  - /metrics: HELP and TYPE for every family, the latency a histogram,
#    the process metrics (start time and resident memory checked against
#    the clock and /proc), promtool check metrics when installed.
set -u
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
export ASAN_OPTIONS
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "curl not found"; exit 77; }
start_backend b --service det:5 --workers 2
start_proxy --backend 127.0.0.1:$b_PORT --reference 7
A=http://127.0.0.1:$ADMIN_PORT
auth=$(admin_auth)
mode=$(stat -c %a "$TMP/admin.token")
[ "$mode" = 600 ] || fail "the token file has mode $mode, not 600"
grep -q "admin token in $TMP/admin.token" "$TMP/proxy.err" || fail "the start-up line does not say where the token is"
ref() { curl -s "$A/status" | sed -n 's/^ *"reference": *\([0-9.e+-]*\).*/\1/p'; }
ref_is() { awk -v r="$(ref)" -v w="$1" 'BEGIN { exit !(r + 0 == w + 0 && r != "") }'; }
ref_is 7 || fail "reference $(ref), not 7, at start"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }

# without the token: 401, nothing changed
[ "$(code -X POST "$A/reference?value=3")" = 401 ] || fail "POST without the token: not 401"
# cross-site, as a page's form or fetch would send it: 403 even with the token
[ "$(code -X POST -H 'Origin: http://evil.example' -H 'Content-Type: text/plain' \
    --data x "$A/reference?value=3")" = 403 ] || fail "cross-site text/plain POST: not 403"
[ "$(code -X POST -H "$auth" -H 'Origin: http://evil.example' "$A/reference?value=3")" = 403 ] ||
    fail "POST with another site's Origin (and the token): not 403"
[ "$(code -X POST -H "$auth" -H 'Sec-Fetch-Site: cross-site' "$A/reference?value=3")" = 403 ] ||
    fail "POST with Sec-Fetch-Site: cross-site (and the token): not 403"
[ "$(code -X POST -H "$auth" -H 'Content-Type: application/x-www-form-urlencoded' \
    --data a=b "$A/reference?value=3")" = 403 ] || fail "form POST (and the token): not 403"
[ "$(code -X POST -H "$auth" -H "Origin: http://nothost:$ADMIN_PORT" "$A/reference?value=3")" = 403 ] ||
    fail "POST with an Origin of another host on the same port: not 403"
ref_is 7 || fail "a refused POST changed the reference to $(ref)"
grep -q '^qctl_admin_refused_total{why="browser"} 5$' <<EOM || fail "browser refusals not counted: $(curl -s "$A/metrics" | grep admin_refused)"
$(curl -s "$A/metrics")
EOM
# the same change with the token, from a program (or the page's own origin)
[ "$(code -X POST -H "$auth" "$A/reference?value=3")" = 200 ] || fail "POST with the token: not 200"
ref_is 3 || fail "the reference is $(ref) after a POST with the token, not 3"
[ "$(code -X POST -H "$auth" -H "Origin: http://127.0.0.1:$ADMIN_PORT" -H 'Sec-Fetch-Site: same-origin' \
    "$A/reference?value=4")" = 200 ] || fail "same-origin POST with the token: not 200"
ref_is 4 || fail "the reference is $(ref), not 4"

# /metrics: every family with HELP and TYPE (checked here, and by promtool
# when installed), latency a histogram in seconds, the process metrics
curl -s "http://127.0.0.1:$PROXY_PORT/x" >/dev/null
curl -s "$A/metrics" >"$TMP/metrics"
awk '/^# HELP / { h[$3] = 1 } /^# TYPE / { t[$3] = $4 }
     /^[a-z]/ { n = $1; sub(/\{.*/, "", n); f = n
                if (!(f in t)) { sub(/_(bucket|sum|count)$/, "", f) }
                if (!(f in t) || !(f in h)) { print "no HELP/TYPE for " n; bad = 1 } }
     END { exit bad }' "$TMP/metrics" || fail "families without HELP or TYPE"
grep -q '^# TYPE qctl_latency_seconds histogram$' "$TMP/metrics" || fail "latency is not a histogram"
grep -q '^qctl_latency_seconds_bucket{class="best-effort",le="+Inf"} 1$' "$TMP/metrics" ||
    fail "the request is not in the latency histogram"
for m in process_cpu_seconds_total process_resident_memory_bytes process_open_fds process_max_fds \
    process_start_time_seconds process_virtual_memory_bytes; do
    grep -q "^$m [0-9]" "$TMP/metrics" || fail "no $m in /metrics"
done
st=$(sed -n 's/^process_start_time_seconds //p' "$TMP/metrics")
awk -v s="$st" -v now="$(date +%s)" 'BEGIN { exit !(s > now - 60 && s <= now + 1) }' ||
    fail "process_start_time_seconds $st is not the last minute"
rss_kb=$(awk '/^VmRSS:/ { print $2 }' /proc/"$PROXY_PID"/status)
rss_m=$(sed -n 's/^process_resident_memory_bytes //p' "$TMP/metrics")
awk -v a="$rss_m" -v b="$rss_kb" 'BEGIN { exit !(a > 0.5 * b * 1024 && a < 2 * b * 1024) }' ||
    fail "process_resident_memory_bytes $rss_m far from VmRSS $rss_kb kB"
# the Grafana dashboard of examples/live draws metrics the proxy has
dash=$(dirname "$0")/../../examples/live/grafana-dashboard.json
for m in $(grep -o '\(qctl\|process\)_[a-z_]*' "$dash" | grep -v '^qctl_gate_' | sort -u); do
    grep -q "^$m[ {]\|^# TYPE $m " "$TMP/metrics" || fail "the dashboard draws $m, which the proxy's /metrics lacks"
done
if command -v promtool >/dev/null 2>&1; then
    promtool check metrics <"$TMP/metrics" >"$TMP/promtool.out" 2>&1 ||
        fail "promtool check metrics: $(cat "$TMP/promtool.out")"
    echo "promtool check metrics: the proxy's /metrics passes"
else
    echo "promtool not found: the proxy's /metrics not checked by it"
fi

# health
[ "$(code "$A/healthz")" = 200 ] || fail "GET /healthz: not 200"
[ "$(code "$A/readyz")" = 200 ] || fail "GET /readyz with a backend: not 200"
curl -s "$A/readyz" | grep -q '1 of 1 backends in rotation' || fail "/readyz: $(curl -s "$A/readyz")"

# 16 clients pipelining GET / without reading, 16 sending 8 MB bodies
rss() { awk '/^VmRSS:/ { print $2 }' /proc/"$PROXY_PID"/status 2>/dev/null; }
i=0
while [ $i -lt 2000 ]; do printf 'GET / HTTP/1.1\r\nHost: a\r\n\r\n'; i=$((i + 1)); done >"$TMP/page.req"
head -c 8000000 /dev/zero >"$TMP/zeros"
pids=""
i=0
while [ $i -lt 16 ]; do
    timeout 6 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; while :; do cat "$1"; done >&3' "$ADMIN_PORT" "$TMP/page.req" 2>/dev/null &
    pids="$pids $!"
    timeout 6 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; while :; do printf "POST /bound HTTP/1.1\r\nHost: a\r\nContent-Length: 8000000\r\n\r\n"; cat "$1"; done >&3' "$ADMIN_PORT" "$TMP/zeros" 2>/dev/null &
    pids="$pids $!"
    i=$((i + 1))
done
base=$(rss)
peak=0
i=0
while [ $i -lt 25 ]; do
    sleep 0.2
    r=$(rss)
    [ -n "$r" ] || fail "the proxy died under hostile admin clients"
    [ "$r" -gt "$peak" ] && peak=$r
    i=$((i + 1))
done
for p in $pids; do kill "$p" 2>/dev/null; done
echo "peak RSS ${peak} kB (${base} kB before) under 16 non-reading pipelining and 16 large-body admin clients"
[ $((peak - base)) -lt 27648 ] || fail "RSS grew by $((peak - base)) kB (27 MB at most)"
[ "$(code "$A/healthz")" = 200 ] || fail "GET /healthz after the hostile clients: not 200"

# the only backend out of rotation: /readyz 503
kill "$b_PID"
i=0
while [ $i -lt 5 ]; do curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/x"; i=$((i + 1)); done
[ "$(code "$A/readyz")" = 503 ] || fail "GET /readyz with its backend out of rotation: not 503 ($(curl -s "$A/readyz"))"
curl -s "$A/readyz" | grep -q 'no backend in rotation' || fail "/readyz does not say why"

# the token file goes with the proxy
kill "$PROXY_PID"
i=0
while kill -0 "$PROXY_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ ! -e "$TMP/admin.token" ] || fail "the token file outlived the proxy"
echo ok
