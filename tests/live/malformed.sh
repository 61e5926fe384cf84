#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# malformed.sh: hostile HTTP against qctl proxy and qctl backend: a bad
# request line, a huge head, bad chunking, garbage pipelined after a good
# request, a head that never ends: 400 (431 for the head) or a closed connection, and both
# still serve a good request afterwards (no crash, no hang).
set -u
. "$(dirname "$0")/lib.sh"
command -v bash >/dev/null || { echo "skip: no bash for /dev/tcp"; exit 77; }
start_backend b --service det:0.001 --workers 2
start_proxy --backend 127.0.0.1:$b_PORT --header-timeout 0.3
# raw PORT DATA: send DATA (printf %b escapes), print what comes back (<= 2 s)
raw() {
    timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 || exit 1; printf "%b" "$1" >&3; cat <&3' "$1" "$2"
    return 0
}
big=$(head -c 9000 /dev/zero | tr '\0' 'a')
for port in $PROXY_PORT $b_PORT; do
    raw $port 'GARBAGE\r\n\r\n' | grep -q '^HTTP/1.1 400' || fail "bad request line on $port"
    # the server may close (reset) before the client has sent it all
    out=$(raw $port 'GET / HTTP/1.1\r\nX: '"$big"'\r\n\r\n')
    [ -z "$out" ] || echo "$out" | grep -Eq '^HTTP/1.1 (400|431)' || fail "huge head on $port"
    raw $port 'POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n' |
        grep -q '^HTTP/1.1 400' || fail "bad chunking on $port"
    raw $port 'GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab' |
        grep -q '^HTTP/1.1 400' || fail "conflicting lengths on $port"
    out=$(raw $port 'GET / HTTP/1.1\r\nHost: a\r\n\r\nBLAH BLAH\r\n\r\n')
    echo "$out" | grep -q '^HTTP/1.1 200' || fail "good request before garbage on $port"
    echo "$out" | grep -q '^HTTP/1.1 400' || fail "pipelined garbage on $port"
    raw $port 'GET / HTTP/1.1\r\nHost: a\r\n' >"$TMP/slow" # never ends
    raw $port 'GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' | grep -q '^HTTP/1.1 200' ||
        fail "no answer after the hostile requests on $port"
done
kill -0 "$PROXY_PID" && kill -0 "$b_PID" || fail "a server died"
echo ok
