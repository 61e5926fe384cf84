#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# pipeline.sh: bursts of pipelined requests in one write, on the admin
# port and on the public port while the proxy answers by itself (at its
# limit with no queue): every request is answered, in order, and the proxy
# lives; a GET that would change state gets 405. Then 16 clients pipeline requests and never read the answers: the
# proxy's resident memory stays bounded (it stops reading them).
set -u
. "$(dirname "$0")/lib.sh"
N=3000
start_backend b --service det:20 --workers 1
start_proxy --backend 127.0.0.1:$b_PORT --limiter fixed --limit 1 --queue 0
# burst FILE PATH: N requests for PATH, the last one closing
burst() {
    i=1
    while [ $i -lt $N ]; do printf 'GET %s HTTP/1.1\r\nHost: a\r\n\r\n' "$2"; i=$((i + 1)); done >"$1"
    printf 'GET %s HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n' "$2" >>"$1"
}
# send PORT FILE OUT: write FILE in one go, read every answer into OUT (<= 20 s)
send() {
    timeout 20 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0 || exit 1; cat "$1" >&3 & cat <&3 >"$2"; wait' \
        "$1" "$2" "$3"
}
burst "$TMP/admin.req" /nope
send "$ADMIN_PORT" "$TMP/admin.req" "$TMP/admin.out"
got=$(grep -c '^HTTP/1.1 404' "$TMP/admin.out")
[ "$got" -eq $N ] || fail "admin port: $got answers of $N"
kill -0 "$PROXY_PID" || fail "the proxy died on the admin burst"
# a change of state by GET is refused with 405 (the handler returns before
# any change); the same change by POST is taken
out=$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "GET /reference?value=0.001 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" >&3; cat <&3' "$ADMIN_PORT")
echo "$out" | grep -q '^HTTP/1.1 405' || fail "GET /reference was not refused with 405: $out"
auth=$(admin_auth)
out=$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "POST /reference?value=5 HTTP/1.1\r\nHost: a\r\n%s\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" "$1" >&3; cat <&3' "$ADMIN_PORT" "$auth")
echo "$out" | grep -q '^HTTP/1.1 200' || fail "POST /reference was not taken: $out"

# one request holds the only slot (the backend takes 20 s), so the proxy
# itself refuses every request of the burst
timeout 25 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "GET /hold HTTP/1.1\r\nHost: a\r\n\r\n" >&3; cat <&3 >/dev/null' \
    "$PROXY_PORT" &
hold=$!
i=0
while [ $i -lt 100 ]; do
    curl_out=$(timeout 2 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; printf "GET /status HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n" >&3; cat <&3' "$ADMIN_PORT")
    echo "$curl_out" | grep -q '"inflight": *1' && break
    sleep 0.05
    i=$((i + 1))
done
burst "$TMP/pub.req" /x
send "$PROXY_PORT" "$TMP/pub.req" "$TMP/pub.out"
got=$(grep -c '^HTTP/1.1 503' "$TMP/pub.out")
[ "$got" -eq $N ] || fail "public port: $got refusals of $N"
kill -0 "$PROXY_PID" || fail "the proxy died on the public burst"
kill "$hold" 2>/dev/null

# 16 clients that send 4 MB of pipelined requests each and read nothing
rss() { awk '/^VmRSS:/ { print $2 }' /proc/"$PROXY_PID"/status 2>/dev/null; }
burst "$TMP/many.req" /nope
i=0
pids=""
while [ $i -lt 16 ]; do
    timeout 6 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; while :; do cat "$1"; done >&3' "$ADMIN_PORT" "$TMP/many.req" 2>/dev/null &
    pids="$pids $!"
    i=$((i + 1))
done
peak=0
i=0
while [ $i -lt 25 ]; do
    sleep 0.2
    r=$(rss)
    [ -n "$r" ] || fail "the proxy died under non-reading clients"
    [ "$r" -gt "$peak" ] && peak=$r
    i=$((i + 1))
done
for p in $pids; do kill "$p" 2>/dev/null; done
echo "peak RSS ${peak} kB under 16 non-reading pipelining clients"
[ "$peak" -lt 65536 ] || fail "RSS $peak kB >= 64 MB"
kill -0 "$PROXY_PID" || fail "the proxy died"
echo ok
