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
# the power cost (watts times the price) per s, and the power in watts,
# one row each (the same number at a price of 1, two quantities); the
# demand correlation (not measured: no time-varying input) said in words,
# not an empty row; the energy report, a copy of the estimates, said so
h="$TMP/r/index.html"
[ "$(grep -c '<tr><th>mean power (W)</th><td' "$h")" = 1 ] || fail "mean power (W) is not one row"
[ "$(grep -c '<tr><th>power cost (per s)</th><td' "$h")" = 1 ] ||
    fail "power cost (per s) is not one row"
grep -q '<tr><th>energy cost (per job)</th><td' "$h" || fail "no energy cost (per job) row"
grep -q 'energy per job (J)' "$h" && fail "a cost per job shown in joules"
grep -q 'demand correlation</th>' "$h" && fail "an empty demand correlation row"
grep -q 'Not measured in this run: demand correlation' "$h" || fail "demand correlation not said in words"
grep -q 'The values of estimates shown above, without their intervals' "$h" ||
    fail "the energy report repeats the estimates"
# a long run's servers plot is drawn from at most 500 points (plus the header)
run_qctl sim pool --servers 4 --arrival exp:2 --time 125000 --reps 1 --plot "$TMP/p" --quiet
[ "$(wc -l <"$TMP/p/pool_series.csv")" -le 501 ] || fail "the long series is drawn point by point"
echo ok
