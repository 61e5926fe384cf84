#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sysid --report: measured against predicted output, for the plant and the
# sensor.
. "$(dirname "$0")/lib.sh"
run_qctl sysid --csv "$DATA/arx_first_order.csv" --sensor-csv "$DATA/arx_sensor.csv" \
    --report "$TMP/r"
check_report "$TMP/r" 2
grep -q '(sensor_fit\.svg, \.png' "$TMP/r/index.html" || fail "no sensor plot"
grep -q 'R² [0-9.]* on the estimation samples' "$TMP/r/index.html" || fail "no R² in the story"
echo ok
