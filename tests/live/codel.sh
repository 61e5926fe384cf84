#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# codel.sh: at 3x overload (8 workers x 0.1 s = 80/s, 240/s offered) the
# default queue discipline finds the queue standing and sheds what waited
# past --queue-target, so admitted requests do not wait the whole 1 s
# deadline: their p99 stays under 0.9 s (with --queue-discipline fifo it is
# about 1.1 s, the deadline plus a service, see bench/bench_queue.sh). How
# far under depends on how soon the front confirms the overload (it sheds
# nothing before, to stay work-conserving): 0.43 to 0.82 s over 16 runs.
# Every request is still answered once (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:0.1 --workers 8
start_proxy --backend 127.0.0.1:$b_PORT
"$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate 240 --duration 4 --connections 1024 \
    --timeout 10 --seed 3 --json >"$TMP/load.json" || fail "load failed"
conserved "$TMP/load.json"
shed=$(curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics" | sed -n 's/^qctl_queue_shed_total //p')
[ -n "$shed" ] && [ "$shed" -gt 0 ] || fail "the queue was never found standing"
p99=$(sed -n 's/^ *"ok_p99": \([0-9.e+-]*\),*$/\1/p' "$TMP/load.json")
echo "admitted p99 $p99 s, shed $shed"
awk -v p="$p99" 'BEGIN { exit !(p < 0.9) }' || fail "admitted p99 $p99 s >= 0.9 s"
echo ok
