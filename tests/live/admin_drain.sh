#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# admin_drain.sh: the admin port's token (--admin-token-file: a POST
# without the bearer token or with a wrong one gets 401, with it 200) and
# read-only mode (403); --check refuses a bad token file; the proxy's file
# limit is raised to the hard limit; a drain stops at --drain-timeout with
# a request still at a slow backend, and a second signal stops a drain at
# once (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:20 --workers 4
echo 0123456789abcdef0123 >"$TMP/token"
start_proxy --backend 127.0.0.1:$b_PORT --admin-token-file "$TMP/token" --drain-timeout 0.5
A="http://127.0.0.1:$ADMIN_PORT"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 3 "$@"; }
[ "$(code -X POST "$A/reference?value=5")" = 401 ] || fail "POST without the token: not 401"
[ "$(code -X POST -H 'Authorization: Bearer 0123456789abcdef0124' "$A/reference?value=5")" = 401 ] ||
    fail "POST with a wrong token: not 401"
[ "$(code -X POST -H 'Authorization: Bearer 0123456789abcdef0123' "$A/reference?value=5")" = 200 ] ||
    fail "POST with the token: not 200"
[ "$(code "$A/status")" = 200 ] || fail "GET /status needs no token"
soft=$(awk '/^Max open files/ { print $4 }' /proc/"$PROXY_PID"/limits)
hard=$(awk '/^Max open files/ { print $5 }' /proc/"$PROXY_PID"/limits)
[ "$soft" = "$hard" ] || fail "open files: soft $soft, hard $hard"
echo short >"$TMP/short"
"$QCTL" proxy --backend 127.0.0.1:1 --admin-token-file "$TMP/short" --check >/dev/null 2>"$TMP/check.err"
[ $? -eq 2 ] || fail "--check accepted a 5-character token"
grep -q -- '--admin-token-file' "$TMP/check.err" || fail "--check did not name the flag"
# a request held at the 20 s backend; SIGTERM; the drain stops at 0.5 s
curl -s --max-time 25 "http://127.0.0.1:$PROXY_PORT/held" >/dev/null &
i=0
while [ $i -lt 100 ] && ! curl -s --max-time 2 "$A/status" | grep -q '"inflight": *1'; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$PROXY_PID"
i=0
while kill -0 "$PROXY_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$PROXY_PID" 2>/dev/null && fail "still draining 5 s after SIGTERM with --drain-timeout 0.5"
grep -q 'drain deadline passed: stopping with 1 requests in flight' "$TMP/proxy.err" || fail "no drain deadline line"

start_proxy --backend 127.0.0.1:$b_PORT --admin-read-only
A="http://127.0.0.1:$ADMIN_PORT"
[ "$(code -X POST "$A/reference?value=5")" = 403 ] || fail "read-only: POST not 403"
curl -s --max-time 25 "http://127.0.0.1:$PROXY_PORT/held" >/dev/null &
i=0
while [ $i -lt 100 ] && ! curl -s --max-time 2 "$A/status" | grep -q '"inflight": *1'; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$PROXY_PID"
sleep 0.3
kill -0 "$PROXY_PID" 2>/dev/null || fail "the drain (30 s by default) ended early"
kill -INT "$PROXY_PID"
i=0
while kill -0 "$PROXY_PID" 2>/dev/null && [ $i -lt 60 ]; do sleep 0.05; i=$((i + 1)); done
kill -0 "$PROXY_PID" 2>/dev/null && fail "a second signal did not stop the drain"
grep -q 'drain cut short: stopping' "$TMP/proxy.err" || fail "no second-signal line"
echo ok
