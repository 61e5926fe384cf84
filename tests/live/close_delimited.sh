#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# close_delimited.sh: an HTTP/1.0 backend that ends each body by closing
# (no Content-Length). A kept-alive HTTP/1.1 client gets each answer whole
# and at once, re-framed as chunked, and its connection carries the next
# request; an HTTP/1.0 client gets the body and the close. A proxy that
# forwarded the body unframed would leave the client waiting for the idle
# timeout (30 s here), far past curl's 5 s bound (127.0.0.1, < 5 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:0.001 --workers 4 --http10
start_backend big --service det:0.001 --workers 2 --http10 --body 3000000
start_proxy --backend 127.0.0.1:$b_PORT --idle-timeout 30
U="http://127.0.0.1:$PROXY_PORT"
# two requests on one kept-alive connection (curl reuses it)
curl -sv --max-time 5 "$U/a" "$U/b" >"$TMP/two.out" 2>"$TMP/two.log" || fail "curl: no whole answers within 5 s"
[ "$(cat "$TMP/two.out")" = "$(printf 'ok\nok')" ] || fail "bodies: $(cat "$TMP/two.out")"
grep -qi '^< Transfer-Encoding: chunked' "$TMP/two.log" || fail "not re-framed as chunked"
grep -q '^< HTTP/1.1 200' "$TMP/two.log" || fail "status line not HTTP/1.1"
grep -qi 'Re-using existing connection\|Reusing existing' "$TMP/two.log" || fail "the connection was not kept"
# HTTP/1.0 client: the body, then the close
curl -s --http1.0 --max-time 5 "$U/c" >"$TMP/ten.out" || fail "HTTP/1.0 client: no answer within 5 s"
[ "$(cat "$TMP/ten.out")" = ok ] || fail "HTTP/1.0 body: $(cat "$TMP/ten.out")"
kill "$PROXY_PID"; wait "$PROXY_PID"
# a 3 MB close-delimited body arrives whole, byte for byte
start_proxy --backend 127.0.0.1:$big_PORT --idle-timeout 30
curl -s --max-time 5 "http://127.0.0.1:$PROXY_PORT/x" "http://127.0.0.1:$PROXY_PORT/y" >"$TMP/big.out" ||
    fail "big bodies not whole within 5 s"
curl -s --max-time 5 "http://127.0.0.1:$big_PORT/x" >"$TMP/direct.out" 2>/dev/null
cat "$TMP/direct.out" "$TMP/direct.out" | cmp -s - "$TMP/big.out" || fail "big bodies differ from the backend's"
[ "$(wc -c <"$TMP/big.out")" -eq 6000000 ] || fail "big bodies: $(wc -c <"$TMP/big.out") bytes"
echo ok
