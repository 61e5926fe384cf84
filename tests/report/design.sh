#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# design --report: root locus and step responses of the plant loop and of
# the loop through the sensor.
. "$(dirname "$0")/lib.sh"
run_qctl design --model "$DATA/arx_model.json" --settling 20 --gains 0.1,1,5 --report "$TMP/r"
check_report "$TMP/r" 4
grep -q '<figcaption>root_locus</figcaption>' "$TMP/r/index.html" || fail "no root locus"
echo ok
