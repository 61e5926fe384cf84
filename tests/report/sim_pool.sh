#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sim pool --report: servers on against demand over time, the
# response-time tail and (--compare) the policy comparison.
. "$(dirname "$0")/lib.sh"
run_qctl sim pool --servers 5 --policy jsq-off --idle-timer 2 --arrival exp:2 \
    --customers 20000 --reps 3 --compare --report "$TMP/r" --quiet
check_report "$TMP/r" 3
grep -q '(servers\.svg, \.png' "$TMP/r/index.html" || fail "no servers plot"
grep -q '(policy_comparison\.svg, \.png' "$TMP/r/index.html" ||
    fail "no policy comparison plot"
grep -q '<th>policy</th><th>average cost (per s)</th>' "$TMP/r/index.html" || fail "no comparison table"
echo ok
