#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# design --report: root locus and step responses of the plant loop and of
# the loop through the sensor; the page does not change from run to run.
. "$(dirname "$0")/lib.sh"
run_qctl design --model "$DATA/arx_model.json" --settling 20 --gains 0.1,1,5 --report "$TMP/r"
check_report "$TMP/r" 4
grep -q '(root_locus\.svg, \.png' "$TMP/r/index.html" || fail "no root locus"
# the same run again gives the same page (but for the directory's name)
run_qctl design --model "$DATA/arx_model.json" --settling 20 --gains 0.1,1,5 --report "$TMP/r2"
sed "s|$TMP/r2|DIR|g" "$TMP/r2/index.html" >"$TMP/p2"
sed "s|$TMP/r|DIR|g" "$TMP/r/index.html" | cmp -s - "$TMP/p2" || fail "the page differs between two runs"
echo ok
