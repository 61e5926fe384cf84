#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# killed_backend.sh [PROXY FLAGS...]: one of two backends killed at 50% of
# their total load leaves the survivor at its capacity, loaded but not
# overloaded: the proxy queues, it refuses nothing (as nginx and haproxy
# in front of the same two). Two `qctl backend`s of 4 workers at det:0.01
# (400/s each), `qctl load` open loop at 400/s for 6 s over up to 256
# connections, the second backend killed after 1 s: every request answered
# 2xx (the retries carry the ones it failed), none refused, none lost.
# Before the overload was confirmed past the arrivals' noise (qctl/front.h)
# the defaults refused 0.9 to 12% of them here (127.0.0.1, < 15 s).
set -u
. "$(dirname "$0")/lib.sh"
start_backend k1 --workers 4 --service det:0.01
start_backend k2 --workers 4 --service det:0.01
start_proxy --backend 127.0.0.1:$k1_PORT --backend 127.0.0.1:$k2_PORT "$@"
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 400 --duration 6 --connections 256 \
    --seed 5 --timeout 5 --json >"$TMP/load.json" 2>"$TMP/load.err" &
lp=$!
sleep 1
kill "$k2_PID"
wait "$lp" || fail "qctl load failed"
conserved "$TMP/load.json"
sent=$(num "$TMP/load.json" sent) ok=$(num "$TMP/load.json" ok) r=$(num "$TMP/load.json" refused_503)
echo "sent $sent, 2xx $ok, refused $r"
[ "$sent" -gt 1500 ] || fail "only $sent requests sent in 6 s"
[ "$r" -eq 0 ] || fail "$r of $sent refused with the survivor at its capacity"
[ "$ok" -eq "$sent" ] || fail "$ok of $sent answered 2xx"
echo ok
