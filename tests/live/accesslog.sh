#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# accesslog.sh: `qctl proxy --access-log` (127.0.0.1, < 20 s):
#  - combined: every line matches nginx's combined format (a regex), and
#    when nginx is installed, the same requests through nginx in front of
#    the same backend give the same lines but for the time (address,
#    request line, status, body bytes, referer, user agent, with nginx's
#    escaping of '"');
#  - json: every line is a JSON object; an admitted request says
#    decision "admitted", its class, backend, queue wait and upstream time;
#    requests refused by a full limiter (fixed 1, no queue) say "full"
#    with status 503 and no backend;
#  - logrotate's create: 2000 requests on one connection, the file moved
#    and SIGUSR1 after 1000: the old and new files hold 2000 lines
#    between them, none lost or doubled, the new one the last requests;
#  - copytruncate: the file copied and truncated, 100 requests more: the
#    file holds those 100 lines from its first byte (no hole of NULs).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
start_backend B --service det:0.0005 --workers 16
LOG=$TMP/access.log
requests() { # PORT: the same requests to a proxy
    curl -s -o /dev/null -A 'Mozilla/5.0 (X11) "quoted"' -e 'http://example.com/from?x=1' "http://127.0.0.1:$1/a/b?c=d&e=f"
    curl -s -o /dev/null -A 'plain' "http://127.0.0.1:$1/"
    curl -s -o /dev/null -A 'poster' -d 'body=1' "http://127.0.0.1:$1/form"
    curl -s -o /dev/null -I -A 'header' "http://127.0.0.1:$1/head"
    curl -s -o /dev/null -H 'User-Agent:' -H 'Referer:' "http://127.0.0.1:$1/none"
}
start_proxy --backend 127.0.0.1:$B_PORT --access-log "$LOG"
requests "$PROXY_PORT"
sleep 0.3
[ "$(wc -l <"$LOG")" -eq 5 ] || fail "$(wc -l <"$LOG") lines for 5 requests: $(cat "$LOG")"
grep -Evq "$ALOG_COMBINED" "$LOG" && fail "a line is not combined: $(grep -Ev "$ALOG_COMBINED" "$LOG")"
grep -q '"GET /a/b?c=d&e=f HTTP/1.1" 200 [0-9]* "http://example.com/from?x=1" "Mozilla/5.0 (X11) \\x22quoted\\x22"$' "$LOG" ||
    fail "the first line: $(head -n 1 "$LOG")"
if command -v nginx >/dev/null 2>&1; then
    start_nginx_log "$B_PORT"
    requests "$NG"
    sleep 0.3
    alog_notime "$LOG" >"$TMP/q.cmp"
    tail -n +$((NG_WARM + 1)) "$TMP/ng/access.log" >"$TMP/ng/run.log"
    alog_notime "$TMP/ng/run.log" >"$TMP/n.cmp"
    diff "$TMP/n.cmp" "$TMP/q.cmp" >"$TMP/diff" || fail "nginx's lines (<) and qctl's (>) differ: $(cat "$TMP/diff")"
    echo "ok: the same 5 lines as nginx's own log"
else
    echo "note: nginx not installed, lines checked by the regex only"
fi
kill "$PROXY_PID"; wait "$PROXY_PID"

# json, and the limiter's refusals
start_proxy --backend 127.0.0.1:$B_PORT --access-log "$LOG.json" --access-log-format json \
    --limiter fixed --limit 1 --queue 0 --request-id
curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/one"
kill "$PROXY_PID"; wait "$PROXY_PID"
start_backend S --service det:0.3 --workers 16
start_proxy --backend 127.0.0.1:$S_PORT --access-log "$LOG.json" --access-log-format json \
    --limiter fixed --limit 1 --queue 0 --request-id
CP=""
for i in 1 2 3 4 5 6; do curl -s -o /dev/null "http://127.0.0.1:$PROXY_PORT/p$i" & CP="$CP $!"; done
for p in $CP; do wait "$p"; done
sleep 0.3
kill "$PROXY_PID"; wait "$PROXY_PID"
python3 - "$LOG.json" <<'PY' || fail "json lines: $(cat "$LOG.json")"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 7, len(lines)
adm = [l for l in lines if l["decision"] == "admitted"]
full = [l for l in lines if l["decision"] == "full"]
assert len(adm) >= 2 and len(adm) + len(full) == 7, [l["decision"] for l in lines]
for l in adm:
    assert l["status"] == 200 and l["backend"].startswith("127.0.0.1:"), l
    assert l["class"] == "best-effort" and l["queue_wait"] >= 0 and l["upstream_time"] > 0, l
    assert len(l["request_id"]) == 32, l
for l in full:
    assert l["status"] == 503 and l["backend"] is None and l["upstream_time"] is None, l
assert any(l["upstream_time"] >= 0.3 for l in adm), "the slow backend's 0.3 s not seen"
PY

# logrotate's create: move, SIGUSR1, nothing lost
start_proxy --backend 127.0.0.1:$B_PORT --access-log "$LOG.r"
python3 "$(dirname "$0")/alog_client.py" "$PROXY_PORT" 2000 1000 "$TMP/flag" >"$TMP/r.out" &
C=$!
wait_file "$TMP/flag" 60
mv "$LOG.r" "$LOG.r.1"
kill -USR1 "$PROXY_PID"
sleep 0.2
rm -f "$TMP/flag"
wait "$C"
[ "$(cat "$TMP/r.out")" = "200=2000" ] || fail "the client: $(cat "$TMP/r.out")"
sleep 0.3
a=$(wc -l <"$LOG.r.1") b=$(wc -l <"$LOG.r")
[ $((a + b)) -eq 2000 ] || fail "rotation: $a + $b lines for 2000 requests"
[ "$b" -eq 1000 ] || fail "rotation: the new file has $b lines, not the last 1000"
[ "$(sed -n 's|.*"GET /n/\([0-9]*\) .*|\1|p' "$LOG.r.1" "$LOG.r" | sort -n | uniq | wc -l)" -eq 2000 ] ||
    fail "rotation: a request logged twice or not at all"
head -n 1 "$LOG.r" | grep -q '"GET /n/1000 ' || fail "the new file starts with $(head -n 1 "$LOG.r")"

# copytruncate: the file written again from its start
cp "$LOG.r" "$LOG.r.2"
: >"$LOG.r"
python3 "$(dirname "$0")/alog_client.py" "$PROXY_PORT" 100 >"$TMP/t.out"
sleep 0.3
[ "$(wc -l <"$LOG.r")" -eq 100 ] || fail "copytruncate: $(wc -l <"$LOG.r") lines, not 100"
[ "$(head -c 1 "$LOG.r" | od -An -tx1 | tr -d ' ')" = 31 ] || fail "copytruncate: the file does not start with the first line (a hole?)"
[ "$(stat -c %s "$LOG.r")" -eq "$(wc -c <"$LOG.r")" ] || fail "size"
grep -c . "$LOG.r" | grep -qx 100 || fail "copytruncate: NUL bytes or empty lines"
kill "$PROXY_PID"; wait "$PROXY_PID" || fail "the proxy exited $?"
echo "ok"
