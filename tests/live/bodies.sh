#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bodies.sh: request bodies and the proxy's bounds. A body over --max-body
# gets 413 (by Content-Length before it is read, and chunked); an
# "Expect: 100-continue" gets its 100 Continue, then the answer; a client
# beyond --max-connections gets 503; and 40 clients that send 8 MB bodies
# at once leave the proxy's peak resident memory under 72 MB with
# --max-memory 32 MiB, where buffering them all would take over 320 MB
# (bodies are streamed to the backend: each holds at most its read-ahead
# and the backend link's write queue; those beyond the limit and the
# queue get 503) (127.0.0.1, < 20 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:0.001 --workers 8
start_proxy --backend 127.0.0.1:$b_PORT --max-body 1000 --max-connections 4
U="http://127.0.0.1:$PROXY_PORT"
head -c 2000 /dev/zero >"$TMP/2k"
head -c 500 /dev/zero >"$TMP/500"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --data-binary @"$TMP/2k" "$U/")
[ "$code" = 413 ] || fail "a 2000-byte body over --max-body 1000: $code, not 413"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -H 'Transfer-Encoding: chunked' \
    --data-binary @"$TMP/2k" "$U/")
[ "$code" = 413 ] || fail "a chunked 2000-byte body: $code, not 413"
curl -sv --max-time 5 -H 'Expect: 100-continue' --data-binary @"$TMP/500" "$U/" \
    >"$TMP/cont.out" 2>"$TMP/cont.log" || fail "Expect: 100-continue: no answer"
grep -q '^< HTTP/1.1 100 Continue' "$TMP/cont.log" || fail "no 100 Continue"
grep -q '^< HTTP/1.1 200' "$TMP/cont.log" || fail "no 200 after the 100 Continue"
# --max-connections 4: four idle connections held, the fifth gets 503
i=0
while [ $i -lt 4 ]; do
    timeout 10 bash -c 'exec 3<>/dev/tcp/127.0.0.1/$0; sleep 8' "$PROXY_PORT" &
    holders="${holders:-} $!"
    i=$((i + 1))
done
i=0
while [ $i -lt 100 ]; do
    curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics" | grep -q '^qctl_connections 4' && break
    sleep 0.05
    i=$((i + 1))
done
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$U/")
[ "$code" = 503 ] || fail "a fifth connection over --max-connections 4: $code, not 503"
for p in $holders; do kill "$p" 2>/dev/null; done
kill "$PROXY_PID"; wait "$PROXY_PID"

rss_bound=73728 # kB
case ${ASAN_OPTIONS:-} in ?*) rss_bound=98304 ;; esac
# under AddressSanitizer freed blocks wait in a quarantine (256 MB by
# default) before they are reused: keep it small so RSS means the same
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
export ASAN_OPTIONS
start_proxy --backend 127.0.0.1:$b_PORT --max-body 16777216 --max-memory 33554432
head -c 8000000 /dev/zero >"$TMP/8m"
i=0
pids=""
while [ $i -lt 40 ]; do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 15 --data-binary @"$TMP/8m" \
        "http://127.0.0.1:$PROXY_PORT/" >"$TMP/big.$i" 2>/dev/null &
    pids="$pids $!"
    i=$((i + 1))
done
for p in $pids; do wait "$p"; done
hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$PROXY_PID"/status)
ok=$(cat "$TMP"/big.* | grep -c '^200')
busy=$(cat "$TMP"/big.* | grep -c '^503')
echo "40 clients x 8 MB: $ok answered 200, $busy refused 503, peak RSS $hwm kB"
kill -0 "$PROXY_PID" || fail "the proxy died"
# The bodies are written to the backend from the buffers --max-memory
# counts (no copy) and given back to the system when freed: the ordinary
# build peaks at 39 MB (32 MB of bodies at a time). AddressSanitizer's
# shadow memory and redzones add their own share to the resident size
# (55 to 63 MB there): its bound is 96 MB, still far under the 320 MB of
# the bodies
[ "$hwm" -lt "$rss_bound" ] || fail "peak RSS $hwm kB >= $rss_bound kB"
[ "$ok" -ge 1 ] || fail "no body carried"
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 --data-binary @"$TMP/8m" "http://127.0.0.1:$PROXY_PORT/")
[ "$code" = 200 ] || fail "an 8 MB body after the rush: $code, not 200"
echo ok
