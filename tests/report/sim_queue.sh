#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sim queue --report: N(t), the response-time histogram and its tail, all
# laid out by Chromium; the metrics as rows of value, interval and exact value.
. "$(dirname "$0")/lib.sh"
run_qctl sim queue --arrival exp:0.8 --service exp:1 --customers 20000 --reps 2 --seed 3 \
    --report "$TMP/r" --quiet
check_report "$TMP/r" 3
# the estimate, its interval and the exact value each in a column of its own
grep -q '<th>estimate of</th><th>value</th><th>95% confidence interval</th><th>exact</th>' \
    "$TMP/r/index.html" || fail "no estimates table with an exact column"
grep -q '<th>response time (s)</th><td class="num">[0-9.e+-]*</td><td class="num">\[[0-9.e+-]*, [0-9.e+-]*\]</td><td class="num">5</td>' \
    "$TMP/r/index.html" || fail "no response-time row with its interval and exact value 5"
# details are collapsed as the page says: the inputs in <details>
grep -q '<details><summary>model</summary>' "$TMP/r/index.html" || fail "inputs not collapsed"
grep -q 'collapsed and open with a click' "$TMP/r/index.html" || fail "the page does not say so"
grep -q '<pre class="cmd">qctl sim queue --arrival exp:0.8' "$TMP/r/index.html" ||
    fail "command line not shown"
# the story: the estimate with its interval beside the closed form, and
# whether steady state was reached
grep -q '<p class="story">Mean response time [0-9.]* s (95% CI [0-9.]* to [0-9.]* s) against [0-9.]* s for M/M/1' \
    "$TMP/r/index.html" || fail "no response time against M/M/1 in the story"
grep -q 'Steady state was' "$TMP/r/index.html" || fail "the story does not say whether steady state was reached"
echo ok
