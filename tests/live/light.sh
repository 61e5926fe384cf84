#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# light.sh [PROXY FLAGS...]: a light load is let in whole. One backend
# worker of 5 ms (200/s) behind the proxy (with the flags given: none for
# the defaults), Poisson loads of 20% (40/s, 100 requests) and 50%
# (100/s, 200 requests): every request answered 2xx, the queue never
# found standing, and the adaptive reference not lowered below its floor
# of 10 (no knee is measured: the latency that rises at these loads, L0 /
# (1 - rho) in M/M/1, comes with the limit never full). The backend's
# time is a timer, not CPU, so a loaded host does not overload it (at
# 500/s of a 1 ms worker, a host at load average 28 on 2 cores did, and
# shed requests whatever the settings). Before the light-load floor the
# adaptive settings refused 1 to 2% of a 20% load (cli/live_addr: 1 ms,
# 200/s) (127.0.0.1, < 10 s).
set -u
. "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || exit 77
start_backend b --service det:0.005 --workers 1
start_proxy --backend 127.0.0.1:$b_PORT "$@"
for spec in 40:100 100:200; do
    rate=${spec%:*} n=${spec#*:}
    "$QCTL" load --target 127.0.0.1:$PROXY_PORT --rate "$rate" --requests "$n" --timeout 5 \
        --seed 11 --json >"$TMP/load$rate.json" || fail "load at $rate/s failed"
    conserved "$TMP/load$rate.json"
    ok=$(num "$TMP/load$rate.json" ok)
    [ "$ok" -eq "$n" ] || fail "at $rate/s (load $((rate / 2))%): $ok of $n answered 2xx"
    echo "at $rate/s: $ok of $n answered 2xx"
done
m=$(curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/metrics")
shed=$(echo "$m" | sed -n 's/^qctl_queue_shed_total //p')
[ "$shed" = 0 ] || fail "the queue was found standing: $shed shed"
st=$(curl -s --max-time 2 "http://127.0.0.1:$ADMIN_PORT/status")
ref=$(echo "$st" | sed -n 's/.*"reference": *\([0-9.e+-]*\).*/\1/p')
echo "reference $ref"
case " $* " in
*" --reference 0 "* | "  ")
    awk -v r="$ref" 'BEGIN { exit !(r >= 10) }' || fail "the reference fell to $ref under a light load" ;;
esac
echo ok
