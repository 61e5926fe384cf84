#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sweep --report: one plot per metric laid out by Chromium, against load
# (4 values) rather than the first parameter, servers (2 values), a line
# per server count; the points table with interval cells.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || fail "no $TMP"
run_qctl sweep "$DATA/../sweep/small.json" --set reps=1 --set args.customers=1000 \
    -j 2 --results "$TMP/res" --report "$TMP/r" --quiet
check_report "$TMP/r" 3
grep -q '<td class="num">[0-9.e+-]* \[[0-9.e+-]*, [0-9.e+-]*\]</td>' "$TMP/r/index.html" ||
    fail "no interval cell in the points table"
grep -q 'qctl sweep ' "$TMP/r/index.html" || fail "command line not shown"
grep -q "^set xlabel 'load'" "$TMP/r/response.gp" || fail "x axis is not the parameter with most values"
grep -q "title 'servers=2'" "$TMP/r/response.gp" || fail "no line per server count"
# the page says how many replications stand behind each point, and no
# interval of a positive quantity goes below 0 (issue 34: "1.24 s (95% CI
# -2.08 to 4.57 s)")
grep -q '1 replication per point' "$TMP/r/index.html" || fail "replications per point not said"
! grep -q '\[-[0-9]' "$TMP/r/index.html" || fail "an interval cell below 0"
echo ok
