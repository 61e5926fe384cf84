#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# upload.sh: qctl proxy streams request bodies to the backend as they
# arrive, with backpressure. A 64 MiB body (Content-Length) sent at full
# speed to a backend that reads it at 32 MB/s arrives whole (the backend's
# length and SHA-256 are the file's) while the proxy's peak resident
# memory grows by far less than the body (reading the client stops while
# the backend's write queue is full); a chunked 8 MiB body arrives whole
# too; two bodies on one kept-alive connection each reach the backend;
# a body the backend answers early is not read as a next request (the
# connection closes). Memory is the growth of VmHWM over its value once
# the proxy is up, with AddressSanitizer's quarantine kept small
# (127.0.0.1, < 20 s).
set -u
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1:thread_local_quarantine_size_kb=64"
export ASAN_OPTIONS
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: curl not found (scripts/deps.sh --test)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
sink() { # NAME RATE: the sink backend of sink_backend.py, its port in NAME_PORT
    rm -f "$TMP/$1.port"
    python3 "$(dirname "$0")/sink_backend.py" "$TMP/$1.port" "$2" 2>"$TMP/$1.err" &
    PIDS="$PIDS $!"
    wait_file "$TMP/$1.port"
    eval "$1_PORT=$(cat "$TMP/$1.port")"
}
sink slow 33554432
sink fast 0
hwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$PROXY_PID/status"; }
head -c 67108864 /dev/urandom >"$TMP/64m"
want="67108864 $(sha256sum <"$TMP/64m" | cut -d' ' -f1)"

start_proxy --backend 127.0.0.1:$slow_PORT --limiter fixed --limit 4 --max-body 134217728
base=$(hwm)
got=$(curl -s --max-time 15 --data-binary @"$TMP/64m" "http://127.0.0.1:$PROXY_PORT/up") ||
    fail "curl through the proxy"
[ "$got" = "$want" ] || fail "the backend read '$got', not '$want'"
peak=$(($(hwm) - base))
echo "proxy peak RSS growth for a 64 MiB body to a 32 MB/s reader: $peak kB"
[ "$peak" -lt 16384 ] || fail "proxy peak RSS grew $peak kB: the body was buffered"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

start_proxy --backend 127.0.0.1:$fast_PORT --limiter fixed --limit 4 --max-body 134217728
head -c 8388608 "$TMP/64m" >"$TMP/8m"
want8="8388608 $(sha256sum <"$TMP/8m" | cut -d' ' -f1)"
got=$(curl -s --max-time 10 -H 'Transfer-Encoding: chunked' --data-binary @"$TMP/8m" \
    "http://127.0.0.1:$PROXY_PORT/up") || fail "chunked upload"
[ "$got" = "$want8" ] || fail "chunked: the backend read '$got', not '$want8'"
# two bodies on one kept-alive connection
got=$(curl -s --max-time 10 --data-binary @"$TMP/8m" "http://127.0.0.1:$PROXY_PORT/a" \
    --next --data-binary @"$TMP/8m" "http://127.0.0.1:$PROXY_PORT/b") || fail "two uploads"
[ "$got" = "$(printf '%s\n%s' "$want8" "$want8")" ] || fail "two uploads: '$got'"
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics"
grep -q '^qctl_answered_total{class="best-effort"} 3$' "$TMP/metrics" || fail "answered count"
grep -q '^qctl_errors_total{kind="502"} 0$' "$TMP/metrics" || fail "502s"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"

# a backend that answers before reading the body (qctl backend ignores
# bodies it is not sent whole?) : the proxy must not keep that link, nor
# read the rest of the body as a request
start_backend early --service det:0 --workers 2
start_proxy --backend 127.0.0.1:$early_PORT --limiter fixed --limit 4 --max-body 134217728
code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 --data-binary @"$TMP/8m" \
    "http://127.0.0.1:$PROXY_PORT/") || :
code2=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$PROXY_PORT/")
[ "$code2" = 200 ] || fail "a request after an upload: $code2"
grep -q '^qctl_errors_total{kind="400"} 0$' "$TMP/metrics" || fail "a body read as a request"
echo "upload to qctl backend: $code, then $code2"
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"
echo ok
