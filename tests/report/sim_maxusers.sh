#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sim maxusers --report: the step response (RIS against the reference) and
# MaxUsers over time, and the step metrics as one table.
. "$(dirname "$0")/lib.sh"
run_qctl sim maxusers --duration 3600 --report "$TMP/r" --quiet
check_report "$TMP/r" 2
grep -q '(ris\.svg, \.png' "$TMP/r/index.html" || fail "no RIS plot"
grep -q '<th[^>]*>t start (s)</th>' "$TMP/r/index.html" && grep -q 'settling time' "$TMP/r/index.html" ||
    fail "no step table"
echo ok
