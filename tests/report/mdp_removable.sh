#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# mdp removable --report: the policy map and the costs of the optimal and
# the simple policies; the comparison as one table.
. "$(dirname "$0")/lib.sh"
run_qctl mdp removable --lambda 0.4 --rates 0.5,1,1.5 --power 1,2,4 --idle-power 1 \
    --setup-power 2 --setup-rate 1 --switch-cost 3 --holding 0.1 --report "$TMP/r" --quiet
check_report "$TMP/r" 2
grep -q '(costs\.svg, \.png' "$TMP/r/index.html" || fail "no costs plot"
grep -q '<td>optimal (MDP)</td>' "$TMP/r/index.html" || fail "no comparison table"
grep -q '<p class="story">The optimal average cost is [0-9.]* per s' "$TMP/r/index.html" ||
    fail "no optimal cost in the story"
grep -q 'switches the server on when the queue reaches [0-9]* jobs' "$TMP/r/index.html" ||
    fail "no threshold in the story"
echo ok
