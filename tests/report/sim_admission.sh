#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sim admission --report: one plot per delay-bounded class and the
# weights; with --policy all, tables only (no plot is promised).
. "$(dirname "$0")/lib.sh"
scen="$DATA/../../examples/admission/admissible.json"
run_qctl sim admission --scenario "$scen" --reps 2 --time 20000 --report "$TMP/r" --quiet
check_report "$TMP/r" 3
run_qctl sim admission --scenario "$scen" --reps 2 --time 20000 --policy all \
    --report "$TMP/all" --quiet
grep -q '<h2>Figures</h2>' "$TMP/all/index.html" && fail "plots section for --policy all"
check_report "$TMP/all" 0
echo ok
