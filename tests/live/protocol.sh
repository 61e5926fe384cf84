#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# protocol.sh: requests the proxy answers itself as RFC 9112 and nginx do
# (a bare-LF request 400 at once, HTTP/1.1 without Host or with two 400,
# CONNECT 405, OPTIONS * 400, a transfer coding other than chunked 501,
# HTTP/2.0 505, a head over 8 KiB 431, a request line over 8 KiB 414);
# hop-by-hop headers (Connection and those it names, Keep-Alive, TE,
# Upgrade, Proxy-*) not forwarded; a backend response with 100 header
# fields carried, one with 200 answered 502 with a line saying why
# (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || exit 77
command -v curl >/dev/null || exit 77
rm -f "$TMP/echo.port"
python3 "$(dirname "$0")/echo_backend.py" "$TMP/echo.port" 2>"$TMP/echo.err" &
PIDS="$PIDS $!"
wait_file "$TMP/echo.port"
ECHO_PORT=$(cat "$TMP/echo.port")
start_proxy --backend 127.0.0.1:$ECHO_PORT
# raw FILE: the first line the proxy answers to FILE's bytes (<= 3 s)
raw() {
    timeout 3 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; cat "$1" >&3; head -n 1 <&3' "$PROXY_PORT" "$1" | tr -d '\r'
}
expect() { # STATUS NAME BYTES
    printf "$3" >"$TMP/req"
    got=$(raw "$TMP/req")
    case "$got" in "HTTP/1.1 $1 "*) ;; *) fail "$2: '$got', not $1" ;; esac
}
expect 400 "bare LF" 'GET / HTTP/1.1\nHost: a\n\n'
expect 400 "no Host" 'GET / HTTP/1.1\r\n\r\n'
expect 400 "two Hosts" 'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n'
expect 405 "CONNECT" 'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n'
expect 400 "OPTIONS *" 'OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n'
expect 501 "gzip coding" 'POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n'
expect 505 "HTTP/2.0" 'GET / HTTP/2.0\r\nHost: a\r\n\r\n'
long=$(head -c 9000 /dev/zero | tr '\0' a)
expect 431 "9000-byte header" "GET / HTTP/1.1\r\nHost: a\r\nX: $long\r\n\r\n"
expect 414 "9000-byte target" "GET /$long HTTP/1.1\r\nHost: a\r\n\r\n"
expect 200 "HTTP/1.0 without Host" 'GET /echo HTTP/1.0\r\n\r\n'
# hop-by-hop headers stay at the proxy
curl -s --max-time 3 -H 'Connection: keep-alive, X-Secret' -H 'X-Secret: 1' -H 'Keep-Alive: 5' \
    -H 'TE: trailers' -H 'Upgrade: websocket' -H 'Proxy-Authorization: x' -H 'X-Kept: yes' \
    "http://127.0.0.1:$PROXY_PORT/echo" >"$TMP/echo.out" || fail "echo: no answer"
grep -qi '^X-Kept: yes' "$TMP/echo.out" || fail "an end-to-end header was dropped: $(cat "$TMP/echo.out")"
for h in X-Secret Keep-Alive TE Upgrade Proxy-Authorization; do
    grep -qi "^$h:" "$TMP/echo.out" && fail "hop-by-hop $h forwarded"
done
grep -qi '^Connection:.*X-Secret' "$TMP/echo.out" && fail "the client's Connection forwarded"
# 100 header fields in a response: carried; 200: 502 and a line saying why
n=$(curl -s -D - --max-time 3 "http://127.0.0.1:$PROXY_PORT/headers/100" | grep -c '^X-H')
[ "$n" -eq 100 ] || fail "a response with 100 extra header fields: $n carried"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 3 "http://127.0.0.1:$PROXY_PORT/headers/200")
[ "$code" = 502 ] || fail "a response with 200 header fields: $code, not 502"
grep -q 'malformed response head (too many header fields)' "$TMP/proxy.err" || fail "no line saying why"
kill -0 "$PROXY_PID" || fail "the proxy died"
echo ok
