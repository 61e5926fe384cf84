#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# accesslog_499.sh: a request whose client leaves before its answer gets
# its access-log line, status 499, as nginx logs it (127.0.0.1, < 15 s).
# A 1 s backend behind --limiter fixed --limit 1 and a queue: one client
# leaves after 0.3 s while its request is at the backend, another while
# its request waits for the slot.
#  - combined: both lines say 499 with 0 bytes and match nginx's combined
#    format; when nginx is installed, nginx in front of the same backend
#    logs the same line for the same request (but for the time);
#  - json: status 499, the first "admitted" with its backend and an
#    upstream time, the second "waiting" with no backend.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
start_backend S --service det:1 --workers 16
LOG=$TMP/access.log
leave() { # PORT: two clients that leave after 0.3 s, the second while it waits
    curl -s -o /dev/null -A gone --max-time 0.3 "http://127.0.0.1:$1/gone-admitted" &
    a=$!
    sleep 0.1
    curl -s -o /dev/null -A gone --max-time 0.3 "http://127.0.0.1:$1/gone-waiting" &
    b=$!
    wait $a $b
    sleep 1.2 # the backend's answer to the first comes and is dropped
}
PROXY_ARGS="--backend 127.0.0.1:$S_PORT --limiter fixed --limit 1 --queue 10 --queue-timeout 5 --queue-discipline fifo"
# shellcheck disable=SC2086
start_proxy $PROXY_ARGS --access-log "$LOG"
leave "$PROXY_PORT"
[ "$(wc -l <"$LOG")" -eq 2 ] || fail "$(wc -l <"$LOG") lines for 2 requests: $(cat "$LOG")"
grep -Evq "$ALOG_COMBINED" "$LOG" && fail "a line is not combined: $(grep -Ev "$ALOG_COMBINED" "$LOG")"
grep -q '"GET /gone-admitted HTTP/1.1" 499 0 "-" "gone"$' "$LOG" || fail "admitted: $(cat "$LOG")"
grep -q '"GET /gone-waiting HTTP/1.1" 499 0 "-" "gone"$' "$LOG" || fail "waiting: $(cat "$LOG")"
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" | grep -q '^qctl_access_log_lines_total{result="written"} 2$' ||
    fail "metrics: $(curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" | grep access_log)"
kill "$PROXY_PID"; wait "$PROXY_PID"
if command -v nginx >/dev/null 2>&1; then
    start_nginx_log "$S_PORT"
    curl -s -o /dev/null -A gone --max-time 0.3 "http://127.0.0.1:$NG/gone-admitted"
    sleep 0.3
    tail -n +$((NG_WARM + 1)) "$TMP/ng/access.log" >"$TMP/ng/run.log"
    alog_notime "$TMP/ng/run.log" >"$TMP/n.cmp"
    alog_notime "$LOG" | head -n 1 >"$TMP/q.cmp"
    diff "$TMP/n.cmp" "$TMP/q.cmp" >"$TMP/diff" || fail "nginx's line (<) and qctl's (>) differ: $(cat "$TMP/diff")"
    echo "ok: the same 499 line as nginx's: $(cat "$TMP/n.cmp")"
else
    echo "note: nginx not installed, the lines checked by the regex only"
fi
# shellcheck disable=SC2086
start_proxy $PROXY_ARGS --access-log "$LOG.json" --access-log-format json
leave "$PROXY_PORT"
kill "$PROXY_PID"; wait "$PROXY_PID"
python3 - "$LOG.json" <<'PY' || fail "json lines: $(cat "$LOG.json")"
import json, sys
lines = {l["request"]: l for l in map(json.loads, open(sys.argv[1]))}
assert len(lines) == 2, lines
a, w = lines["GET /gone-admitted HTTP/1.1"], lines["GET /gone-waiting HTTP/1.1"]
assert a["status"] == 499 and a["body_bytes_sent"] == 0 and a["decision"] == "admitted", a
assert a["backend"].startswith("127.0.0.1:") and 0.2 < a["upstream_time"] < 1, a
assert 0.2 < a["request_time"] < 1, a
assert w["status"] == 499 and w["decision"] == "waiting" and w["backend"] is None, w
assert w["upstream_time"] is None and w["queue_wait"] is None, w
PY
echo "ok"
