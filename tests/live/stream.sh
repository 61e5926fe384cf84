#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# stream.sh: qctl proxy streams responses. A 64 MiB body (Content-Length)
# arrives intact through the proxy (same length and SHA-256 as straight
# from the backend) while the proxy's peak resident memory (VmHWM) stays
# far below the body; a client reading at 32 MB/s a 32 MiB body does not
# make the proxy buffer it (backpressure: the peak stays below half of
# it); a chunked body passes through byte for byte (framing included);
# every response counted answered, no 502/504. Memory is the growth of
# VmHWM over its value once the proxy is up (a sanitizer build starts
# larger), with AddressSanitizer's quarantine of freed blocks kept small
# so that it measures what the proxy holds, not what ASan keeps.
set -u
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
export ASAN_OPTIONS
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: curl not found (scripts/deps.sh --test)"; exit 77; }
start_backend big --service det:0 --workers 4 --body 67108864
start_backend half --service det:0 --workers 4 --body 33554432
start_backend ch --service det:0 --workers 4 --body 8388609 --chunked
start_proxy --backend 127.0.0.1:$big_PORT --limiter fixed --limit 4
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$PROXY_PID/status"; }
base=$(hwm)
curl -s "http://127.0.0.1:$big_PORT/" | sha256sum >"$TMP/direct.sum"
curl -s "http://127.0.0.1:$PROXY_PORT/" -o "$TMP/via" || fail "curl through the proxy"
[ "$(wc -c <"$TMP/via")" -eq 67108864 ] || fail "body of $(wc -c <"$TMP/via") bytes"
sha256sum <"$TMP/via" | cmp -s - "$TMP/direct.sum" || fail "body differs"
rm -f "$TMP/via"
peak=$(($(hwm) - base))
echo "proxy peak RSS growth through 64 MiB: $peak kB"
[ "$peak" -lt 16384 ] || fail "proxy peak RSS grew $peak kB for a 64 MiB body"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

start_proxy --backend 127.0.0.1:$half_PORT --limiter fixed --limit 4
base=$(hwm)
n=$(curl -s --limit-rate 32M "http://127.0.0.1:$PROXY_PORT/" | wc -c)
[ "$n" -eq 33554432 ] || fail "slow reader got $n bytes"
peak=$(($(hwm) - base))
echo "proxy peak RSS growth with a slow reader of 32 MiB: $peak kB"
[ "$peak" -lt 12288 ] || fail "proxy peak RSS grew $peak kB: the slow reader's body was buffered"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

start_proxy --backend 127.0.0.1:$ch_PORT --limiter fixed --limit 4 --backend-timeout 3
curl -s --raw "http://127.0.0.1:$ch_PORT/" | sha256sum >"$TMP/direct.sum"
curl -s --raw "http://127.0.0.1:$PROXY_PORT/" | sha256sum | cmp -s - "$TMP/direct.sum" ||
    fail "chunked body differs"
# two on one kept-alive client connection: both whole
n=$(curl -s "http://127.0.0.1:$PROXY_PORT/a" "http://127.0.0.1:$PROXY_PORT/b" | wc -c)
[ "$n" -eq $((2 * 8388609)) ] || fail "two chunked bodies gave $n bytes"
# the same read slowly: a response may end while its link is paused, and
# the link kept must read the next answer (else a 504 after 3 s)
for i in 1 2 3; do
    n=$(curl -s --limit-rate 64M "http://127.0.0.1:$PROXY_PORT/a" "http://127.0.0.1:$PROXY_PORT/b" | wc -c)
    [ "$n" -eq $((2 * 8388609)) ] || fail "two chunked bodies read slowly gave $n bytes"
done
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics"
grep -q '^qctl_answered_total{class="best-effort"} 9$' "$TMP/metrics" || fail "answered count"
grep -q '^qctl_errors_total{kind="502"} 0$' "$TMP/metrics" || fail "502s"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"
echo ok
