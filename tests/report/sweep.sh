#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sweep --report: one plot per metric (against load, a line per server
# count) laid out by Chromium; the points table with interval cells.
. "$(dirname "$0")/lib.sh"
cd "$TMP" || fail "no $TMP"
run_qctl sweep "$DATA/../sweep/small.json" --set reps=1 --set args.customers=1000 \
    --set 'params.servers=[1]' -j 2 --results "$TMP/res" --report "$TMP/r" --quiet
check_report "$TMP/r" 3
grep -q '<td class="num">[0-9.e+-]* \[[0-9.e+-]*, [0-9.e+-]*\]</td>' "$TMP/r/index.html" ||
    fail "no interval cell in the points table"
grep -q 'qctl sweep ' "$TMP/r/index.html" || fail "command line not shown"
echo ok
