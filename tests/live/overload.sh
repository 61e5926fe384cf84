#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# overload.sh: 3x overload through qctl proxy with the MaxUsers controller:
# every request is a backend answer or a 503 (none lost), some of each;
# the proxy's own counters agree with the load generator's (its
# refusals by reason add up to its refusals); then the
# same load without control: all answered, none refused.
set -u
. "$(dirname "$0")/lib.sh"
start_backend b --service det:0.01 --workers 2      # capacity 200/s
start_proxy --backend 127.0.0.1:$b_PORT --limiter maxusers --reference 2 \
    --queue 16 --queue-timeout 0.2 --interval 0.05
"$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 600 --requests 1200 \
    --connections 256 --timeout 10 --json >"$TMP/ctl.json" || fail "load failed"
conserved "$TMP/ctl.json"
[ "$(num "$TMP/ctl.json" ok)" -gt 100 ] || fail "too few answered"
[ "$(num "$TMP/ctl.json" refused_503)" -gt 100 ] || fail "overload was not refused"
# curl is optional: without it the cross-check is skipped
curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" >"$TMP/metrics" 2>/dev/null || : >"$TMP/metrics"
adm=$(sed -n 's/^qctl_admitted_total{class="best-effort"} //p' "$TMP/metrics")
ref=$(sed -n 's/^qctl_refused_total{class="best-effort"} //p' "$TMP/metrics")
if [ -n "$adm" ]; then
    [ "$adm" -eq "$(num "$TMP/ctl.json" ok)" ] || fail "proxy admitted $adm"
    [ "$ref" -eq "$(num "$TMP/ctl.json" refused_503)" ] || fail "proxy refused $ref"
    # the refusals by reason add up to them, every one the front's
    # (full, deadline or standing: a backend was always there)
    grep -q '^# TYPE qctl_refused_reason_total counter$' "$TMP/metrics" ||
        fail "no qctl_refused_reason_total counter"
    why=$(awk '/^qctl_refused_reason_total\{/ { s += $2 } END { print s + 0 }' "$TMP/metrics")
    front=$(awk '/^qctl_refused_reason_total\{reason="(full|deadline|standing)"\}/ { s += $2 }
                 END { print s + 0 }' "$TMP/metrics")
    [ "$why" -eq "$ref" ] || fail "refusals by reason add up to $why, not $ref"
    [ "$front" -eq "$ref" ] && [ "$front" -gt 0 ] ||
        fail "refusals by the front's reasons: $front of $ref"
fi
kill -TERM "$PROXY_PID"; wait "$PROXY_PID" || fail "proxy exit status $?"
start_proxy --backend 127.0.0.1:$b_PORT --limiter none
"$QCTL" load --max-errors 1 --target 127.0.0.1:$PROXY_PORT --rate 300 --requests 300 \
    --connections 256 --timeout 10 --json >"$TMP/none.json" || fail "load failed"
conserved "$TMP/none.json"
[ "$(num "$TMP/none.json" refused_503)" -eq 0 ] || fail "refused without control"
echo ok
