#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# head.sh: a response to HEAD has no body, whatever Content-Length or
# Transfer-Encoding its head announces (RFC 9110 9.3.2). qctl backend
# answers HEAD with the head alone, and qctl proxy forwards it and ends
# the response at its head, so the next request on the same connections
# (client and backend) is answered at once instead of waiting for a body
# that never comes (which would end in a 504 after --backend-timeout).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || { echo "skip: curl not found (scripts/deps.sh --test)"; exit 77; }
start_backend small --service det:0 --workers 2
start_backend big --service det:0 --workers 2 --body 100000
start_backend ch --service det:0 --workers 2 --body 5000 --chunked
for b in small big ch; do
    eval "port=\$${b}_PORT"
    start_proxy --backend 127.0.0.1:$port --limiter fixed --limit 4 --backend-timeout 3
    # HEAD then GET then HEAD on one client connection (curl reuses it)
    out=$(curl -s --max-time 10 -o /dev/null -w '%{http_code} %{size_download} %{num_connects}\n' \
        -I "http://127.0.0.1:$PROXY_PORT/" --next -s -o /dev/null \
        -w '%{http_code} %{size_download} %{num_connects}\n' "http://127.0.0.1:$PROXY_PORT/" \
        --next -s -I -o /dev/null -w '%{http_code} %{size_download} %{num_connects}\n' \
        "http://127.0.0.1:$PROXY_PORT/")
    echo "$b: $out" | tr '\n' ' '; echo
    set -- $out
    [ "$1" = 200 ] && [ "$4" = 200 ] && [ "$7" = 200 ] || fail "$b: statuses $1 $4 $7"
    [ "$2" = 0 ] && [ "$8" = 0 ] || fail "$b: a HEAD answer carried a body ($2, $8 bytes)"
    case $b in
    small) want=3 ;; big) want=100000 ;; ch) want=5000 ;;
    esac
    [ "$5" = "$want" ] || fail "$b: GET after HEAD got $5 bytes, not $want"
    [ "$6" = 0 ] && [ "$9" = 0 ] || fail "$b: the client connection was not kept alive"
    kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status"
done
exit 0
