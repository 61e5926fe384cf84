#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fast_backend.sh [PROXY FLAGS...]: a controller is invisible in front of
# a backend that is not overloaded. 256 kept-alive closed-loop clients
# (`qctl load --users 256`, no think time) for 3 s through the proxy (its
# defaults, or the flags given) to a backend that answers at once
# (`qctl backend --service det:0`): under 0.1% refused (registered with
# --limiter aimd: cli/live_fast_backend_aimd; see docs/live.md for the
# defaults). Before the
# work-conserving verdict on the requests let in at the gate (qctl/front.h)
# the defaults refused 84 to 97% of them here (the MaxUsers limit at its
# floor of 10, the 128-place room full). Then 32 clients: none refused
# (127.0.0.1, < 15 s).
set -u
. "$(dirname "$0")/lib.sh"
start_backend b --service det:0 --workers 65536
start_proxy --backend 127.0.0.1:$b_PORT "$@"
for users in 256 32; do
    "$QCTL" load --target 127.0.0.1:$PROXY_PORT --users "$users" --duration 3 --timeout 5 \
        --json >"$TMP/load$users.json" || fail "load with $users users failed"
    conserved "$TMP/load$users.json"
    sent=$(num "$TMP/load$users.json" sent) r=$(num "$TMP/load$users.json" refused_503)
    echo "$users users: $sent sent, $r refused"
    [ "$sent" -gt 1000 ] || fail "$users users sent only $sent requests in 3 s"
    # under 0.1%: 1000 r < sent
    [ $((1000 * r)) -lt "$sent" ] || fail "$users users: $r of $sent refused (0.1% at most)"
done
echo ok
