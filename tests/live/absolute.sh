#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# absolute.sh: an absolute-form request target (RFC 9112 3.2.2) reaches
# the backend in origin form, with the target's authority as Host in
# place of the Host the client sent; an origin-form request is carried
# as it came; an absolute target without a host is answered 400.
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 "$(dirname "$0")/echo_backend.py" "$TMP/echo.port" 2>"$TMP/echo.err" &
PIDS="$PIDS $!"
wait_file "$TMP/echo.port"
start_proxy --backend 127.0.0.1:$(cat "$TMP/echo.port")
raw() { # REQUEST: sent as is, the answer printed
    timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "$1" >&3; cat <&3' "$PROXY_PORT" "$1" | tr -d '\r'
}
out=$(raw 'GET http://other.example:8081/echo?x=1 HTTP/1.1\r\nHost: wrong.example\r\nX-A: 1\r\nConnection: close\r\n\r\n')
echo "$out" | grep -q '^X-Echo-Target: /echo?x=1$' || fail "absolute form not carried as /echo?x=1: $out"
echo "$out" | grep -qi '^Host: other.example:8081$' || fail "Host is not the target's authority: $out"
echo "$out" | grep -qi '^Host: wrong.example' && fail "the client's Host was carried too: $out"
[ "$(echo "$out" | grep -ci '^Host:')" -eq 1 ] || fail "not exactly one Host: $out"
echo "$out" | grep -q '^X-A: 1$' || fail "the other fields were not carried: $out"
# no path: the origin form is "/"; a query alone gets its "/"
out=$(raw 'GET HTTP://Other.Example HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
echo "$out" | grep -q '^X-Echo-Target: /$' || fail "http://host carried as: $out"
out=$(raw 'GET http://other.example?q=2 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n')
echo "$out" | grep -q '^X-Echo-Target: /?q=2$' || fail "http://host?q carried as: $out"
# origin form: untouched
out=$(raw 'GET /echo HTTP/1.1\r\nHost: mine.example\r\nConnection: close\r\n\r\n')
echo "$out" | grep -q '^X-Echo-Target: /echo$' || fail "origin form changed: $out"
echo "$out" | grep -qi '^Host: mine.example$' || fail "origin form's Host changed: $out"
# no host in the target: 400
out=$(raw 'GET http:///echo HTTP/1.1\r\nHost: a\r\n\r\n')
echo "$out" | grep -q '^HTTP/1.1 400' || fail "http:///echo not refused: $out"
echo ok
