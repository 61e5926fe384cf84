#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# reload.sh: `qctl proxy` reloaded 20 times under at least 2000
# requests/s from a client independent of qctl (wrk, 16 keep-alive
# connections, 127.0.0.1, 12 s): the fixed limit of its --config file is changed
# before each reload, by SIGHUP and POST /reload in turn, and /status
# shows each new limit; wrk sees no socket error (connect
# refused, reset, timeout) and nothing but 2xx (the limit never falls below
# the requests in flight, so nothing waits past its deadline). Then a
# file that does not check (a limit that is not a number), and one that
# resizes the waiting room, are refused with their message (POST /reload's
# 400, the log line, /status's reload_error) and the last limit stays.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
command -v wrk >/dev/null || { echo "skip: no wrk"; exit 77; }
start_backend B --service 'det:0.0005' --workers 64
conf() { # LIMIT [EXTRA JSON]
    printf '{"backend": "127.0.0.1:%s", "limiter": "fixed", "limit": %s, "queue-discipline": "fifo", "queue-timeout": 5%s}\n' \
        "$B_PORT" "$1" "${2:-}" >"$TMP/c.json"
}
limit_now() {
    curl -s "http://127.0.0.1:$ADMIN_PORT/status" | tr -d ' \n' | sed -n 's/.*"limit":\([0-9]*\).*/\1/p'
}
conf 40
start_proxy --config "$TMP/c.json"
AUTH=$(admin_auth)
[ "$(limit_now)" = 40 ] || fail "limit $(limit_now) at start, not 40"
wrk -t 1 -c 16 -d 12s --timeout 5s "http://127.0.0.1:$PROXY_PORT/r" >"$TMP/load.txt" 2>&1 &
LOAD=$!
PIDS="$PIDS $LOAD"
sleep 1
i=1
while [ $i -le 20 ]; do
    want=$((40 + i))
    conf $want
    if [ $((i % 2)) -eq 0 ]; then
        kill -HUP "$PROXY_PID"
    else
        r=$(curl -s -X POST -H "$AUTH" "http://127.0.0.1:$ADMIN_PORT/reload")
        [ "$r" = reloaded ] || fail "POST /reload $i answered: $r"
    fi
    k=0
    while [ "$(limit_now)" != $want ] && [ $k -lt 40 ]; do sleep 0.05; k=$((k + 1)); done
    [ "$(limit_now)" = $want ] || fail "reload $i: /status shows limit $(limit_now), not $want"
    sleep 0.45
    i=$((i + 1))
done
wait "$LOAD" || fail "wrk failed: $(cat "$TMP/load.txt")"
cat "$TMP/load.txt"
# wrk's summary: requests, their rate, and (only when there are any)
# socket errors and answers other than 2xx/3xx
n=$(sed -n 's/^ *\([0-9]*\) requests in .*/\1/p' "$TMP/load.txt")
rate=$(sed -n 's/^Requests\/sec: *\([0-9]*\).*/\1/p' "$TMP/load.txt")
[ -n "$n" ] && [ -n "$rate" ] || fail "no wrk summary"
[ "$rate" -ge 2000 ] || fail "the load ran at $rate requests/s, under 2000: the test says nothing"
! grep -q "Socket errors" "$TMP/load.txt" || fail "socket errors during the reloads"
! grep -q "Non-2xx" "$TMP/load.txt" || fail "answers other than 2xx during the reloads"
# each event line with its time and level
grep -Evq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z (info|warn|error) qctl proxy: ' "$TMP/proxy.err" &&
    fail "a line without time and level: $(cat "$TMP/proxy.err")"
[ "$(grep -c 'info qctl proxy: .*configuration reloaded (fixed limiter' "$TMP/proxy.err")" -eq 20 ] ||
    fail "not 20 reload lines: $(cat "$TMP/proxy.err")"
# a file that does not check: refused with its message, the limit stays
printf '{"backend": "127.0.0.1:%s", "limiter": "fixed", "limit": "many"}\n' "$B_PORT" >"$TMP/c.json"
r=$(curl -s -w ' %{http_code}' -X POST -H "$AUTH" "http://127.0.0.1:$ADMIN_PORT/reload")
case "$r" in *"--limit: 'many' is not a number"*" 400") ;; *) fail "bad file answered: $r" ;; esac
kill -HUP "$PROXY_PID"
sleep 0.3
kill -0 "$PROXY_PID" || fail "a bad file stopped the proxy"
grep -q "error qctl proxy: SIGHUP: the new configuration was refused, the running one stays: --limit: 'many'" \
    "$TMP/proxy.err" || fail "no refusal line: $(cat "$TMP/proxy.err")"
[ "$(limit_now)" = 60 ] || fail "a bad file changed the limit to $(limit_now)"
curl -s "http://127.0.0.1:$ADMIN_PORT/status" | grep -q '"reload_error": "--limit' ||
    fail "/status has no reload_error"
# a change a running proxy cannot take: refused, naming the flag
conf 70 ', "queue": 64'
r=$(curl -s -X POST -H "$AUTH" "http://127.0.0.1:$ADMIN_PORT/reload")
case "$r" in *"--queue cannot change while the proxy runs"*) ;; *) fail "a new waiting room: $r" ;; esac
[ "$(limit_now)" = 60 ] || fail "a refused reload changed the limit to $(limit_now)"
# without the token: 401, nothing read
conf 71
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$ADMIN_PORT/reload")
[ "$code" = 401 ] || fail "POST /reload without the token: $code"
[ "$(limit_now)" = 60 ] || fail "a reload without the token changed the limit"
curl -s "http://127.0.0.1:$PROXY_PORT/" >/dev/null || fail "the proxy does not answer after the refusals"
kill "$PROXY_PID"
wait "$PROXY_PID" || fail "the proxy exited $? after its drain"
echo "ok: 20 reloads under load, refusals kept the running configuration"
