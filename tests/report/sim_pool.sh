#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# sim pool --report: servers on against demand over time and the
# response-time tail.
. "$(dirname "$0")/lib.sh"
run_qctl sim pool --servers 5 --policy jsq-off --idle-timer 2 --arrival exp:2 \
    --customers 20000 --reps 3 --report "$TMP/r" --quiet
check_report "$TMP/r" 2
grep -q '<figcaption>servers</figcaption>' "$TMP/r/index.html" || fail "no servers plot"
echo ok
