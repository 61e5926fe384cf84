#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# forwarded.sh: the forwarding headers, as a backend that echoes the
# request's header lines sees them (echo_backend.py; 127.0.0.1, < 5 s):
#  - off (the default): the request's own X-Forwarded-For, Forwarded and
#    X-Request-Id pass untouched and none is added;
#  - --x-forwarded-for: the client's value kept, 127.0.0.1 appended; two
#    header lines joined in order; none sent: 127.0.0.1 alone;
#  - --x-forwarded-proto: "http", replacing the client's "https";
#  - --forwarded: the client's elements kept, for=127.0.0.1;proto=http
#    appended (RFC 7239);
#  - --request-id: a plain id kept; a missing one, or one with a space, a
#    quote or 129 characters, replaced by 32 hex digits, a new one per
#    request; each flag alone adds only its own header.
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: no curl"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
rm -f "$TMP/echo.port"
python3 "$(dirname "$0")/echo_backend.py" "$TMP/echo.port" 2>"$TMP/echo.pyerr" &
PIDS="$PIDS $!"
wait_file "$TMP/echo.port"
EP=$(cat "$TMP/echo.port")
get() { curl -s --max-time 5 "$@" "http://127.0.0.1:$PROXY_PORT/echo"; }
hdr() { grep -i "^$1:" | tr -d '\r' | sed 's/^[^:]*: *//'; } # NAME: its values, one a line

start_proxy --backend 127.0.0.1:$EP
out=$(get -H 'X-Forwarded-For: 10.0.0.1' -H 'Forwarded: for=10.0.0.1' -H 'X-Request-Id: abc')
[ "$(echo "$out" | hdr X-Forwarded-For)" = 10.0.0.1 ] || fail "off: X-Forwarded-For changed: $out"
[ "$(echo "$out" | hdr Forwarded)" = for=10.0.0.1 ] || fail "off: Forwarded changed: $out"
[ "$(echo "$out" | hdr X-Request-Id)" = abc ] || fail "off: X-Request-Id changed: $out"
[ -z "$(get | hdr X-Forwarded-Proto)" ] || fail "off: X-Forwarded-Proto added"
kill "$PROXY_PID"; wait "$PROXY_PID"

start_proxy --backend 127.0.0.1:$EP --x-forwarded-for
out=$(get -H 'X-Forwarded-For: 10.0.0.1')
[ "$(echo "$out" | hdr X-Forwarded-For)" = "10.0.0.1, 127.0.0.1" ] || fail "xff appended: $out"
out=$(get -H 'X-Forwarded-For: 10.0.0.1' -H 'X-Forwarded-For: 10.0.0.2, 10.0.0.3')
[ "$(echo "$out" | hdr X-Forwarded-For)" = "10.0.0.1, 10.0.0.2, 10.0.0.3, 127.0.0.1" ] ||
    fail "xff of two lines: $out"
out=$(get)
[ "$(echo "$out" | hdr X-Forwarded-For)" = 127.0.0.1 ] || fail "xff alone: $out"
[ -z "$(echo "$out" | hdr Forwarded)$(echo "$out" | hdr X-Request-Id)$(echo "$out" | hdr X-Forwarded-Proto)" ] ||
    fail "--x-forwarded-for added another header: $out"
kill "$PROXY_PID"; wait "$PROXY_PID"

start_proxy --backend 127.0.0.1:$EP --x-forwarded-proto --forwarded
out=$(get -H 'X-Forwarded-Proto: https' -H 'Forwarded: for=192.0.2.60;proto=https;by=203.0.113.43')
[ "$(echo "$out" | hdr X-Forwarded-Proto)" = http ] || fail "xfp: $out"
[ "$(echo "$out" | hdr Forwarded)" = "for=192.0.2.60;proto=https;by=203.0.113.43, for=127.0.0.1;proto=http" ] ||
    fail "Forwarded appended: $out"
[ "$(get | hdr Forwarded)" = "for=127.0.0.1;proto=http" ] || fail "Forwarded alone"
kill "$PROXY_PID"; wait "$PROXY_PID"

start_proxy --backend 127.0.0.1:$EP --request-id
[ "$(get -H 'X-Request-Id: req-1.a_B' | hdr X-Request-Id)" = req-1.a_B ] || fail "a plain id not kept"
a=$(get | hdr X-Request-Id) b=$(get | hdr X-Request-Id)
echo "$a" | grep -Eq '^[0-9a-f]{32}$' || fail "a generated id: '$a'"
[ "$a" != "$b" ] || fail "two requests got the same id $a"
long=$(printf 'x%.0s' $(seq 129))
for bad in 'a b' 'a"b' "$long"; do
    v=$(get -H "X-Request-Id: $bad" | hdr X-Request-Id)
    echo "$v" | grep -Eq '^[0-9a-f]{32}$' || fail "id '$bad' sent on as '$v'"
done
[ "$(get -H "X-Request-Id: $(printf 'y%.0s' $(seq 128))" | hdr X-Request-Id | wc -c)" -eq 129 ] ||
    fail "an id of 128 characters was not kept"
kill "$PROXY_PID"; wait "$PROXY_PID" || fail "the proxy exited $?"
echo ok
