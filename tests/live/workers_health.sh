#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# workers_health.sh: with --workers 2 a backend's passive health is one
# state for the proxy: a backend that refuses connections is taken out
# after --max-fails 4 failures in a row counted over both workers, not 4
# per worker. 40 requests one after another (a new connection each, which
# the kernel spreads over both workers' sockets) to a live backend and a
# dead one: the requests sent to the dead one (each retried on the live
# one or answered 502: /metrics' qctl_retries_total + 502s, added over the
# workers) are at most 4 + 1 (a worker follows the other's verdict at its
# next control tick, 0.1 s; one failure may come first), where a health
# state per worker lets each send 4 (8); and every request is answered
# 2xx or 502 (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend be --service det:0 --workers 4
free_port DEAD
start_proxy --backend 127.0.0.1:$be_PORT --backend 127.0.0.1:$DEAD --workers 2 \
    --interval 0.1 --max-fails 4 --health-interval 30
ok=0 bad=0 i=0
while [ $i -lt 40 ]; do
    code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PROXY_PORT/x$i")
    case $code in
    2??) ok=$((ok + 1)) ;;
    502) ;;
    *) bad=$((bad + 1)) ;;
    esac
    i=$((i + 1))
done
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics.txt" || fail "/metrics"
kill -TERM "$PROXY_PID"
wait "$PROXY_PID" || fail "the proxy exited $?"
retries=$(awk '/^qctl_retries_total / { print $2 }' "$TMP/metrics.txt")
e502=$(awk '/^qctl_errors_total\{kind="502"\}/ { print $2 }' "$TMP/metrics.txt")
[ -n "$retries" ] && [ -n "$e502" ] || fail "no qctl_retries_total or 502 count in /metrics"
sent_dead=$((retries + e502))
echo "40 requests: $ok 2xx; to the dead backend: $sent_dead ($retries retried, $e502 answered 502)"
[ "$bad" -eq 0 ] || fail "$bad requests answered neither 2xx nor 502"
# at least one (the test is not vacuous); fewer than 4 happens when the
# routing itself keeps away from a backend whose connects fail (2 seen
# once in CI), the claim is the upper bound
[ "$sent_dead" -ge 1 ] || fail "no request reached the dead backend: nothing tested"
[ "$sent_dead" -le 5 ] || fail "$sent_dead requests sent to the dead backend: health kept per worker"
echo ok
