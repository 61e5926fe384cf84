#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# fit --report (the page joins the plots already drawn there), gen
# --validate --report (validation plots) and gen --report (tables only).
. "$(dirname "$0")/lib.sh"
cap="$DATA/captures/gaming.pcap"
run_qctl fit "$cap" --activity gaming --out "$TMP/m" --report "$TMP/fit"
# the fit page stays under 100 KB: the candidates' parameters are in fit.json
check_report "$TMP/fit" 6 100000
grep -q '<p class="story">gaming ([0-9]* packets.*packet sizes are best fitted by [a-z0-9]* (mean [0-9.]* bytes)' \
    "$TMP/fit/index.html" || fail "no best family per activity in the story"
run_qctl gen --validate "$cap" --seed 3 --report "$TMP/val"
check_report "$TMP/val" 3
run_qctl gen --model "$TMP/m/gaming.json" --users gaming=2 --duration 2 \
    --output "$TMP/g.pcap" --report "$TMP/gen"
check_report "$TMP/gen" 0
grep -q '<th>activity</th><th>users</th>' "$TMP/gen/index.html" || fail "no activity table"
echo ok
