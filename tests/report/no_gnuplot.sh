#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Without gnuplot on PATH the report is still written: the tables, and a
# visible note in place of each plot; a one-line notice on stderr.
. "$(dirname "$0")/lib.sh"
mkdir "$TMP/nobin"
PATH="$TMP/nobin" "$QCTL" sim queue --arrival exp:0.5 --service exp:1 --customers 5000 \
    --report "$TMP/r" --quiet >"$TMP/out" 2>"$TMP/err" || fail "qctl exited $?"
grep -q 'gnuplot not found' "$TMP/err" || fail "no notice on stderr"
[ "$(grep -c '<p class="missing">' "$TMP/r/index.html")" -eq 3 ] || fail "not 3 notes"
grep -q '<svg' "$TMP/r/index.html" && fail "an SVG without gnuplot"
grep -q '<th>response time (s)</th>' "$TMP/r/index.html" || fail "no metrics table"
NO_GNUPLOT=1 check_report "$TMP/r" 3
echo ok
