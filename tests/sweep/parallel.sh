#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# parallel.sh QCTL: the same sweep gives byte-identical CSV and JSON with
# -j 1 and -j 2, each point journaled once, and a point's row does not
# depend on the grid around it.
set -u
qctl=$1
here=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
"$qctl" sweep "$here/small.json" -j 1 --results j1 --quiet || fail "-j 1 exited $?"
"$qctl" sweep "$here/small.json" -j 2 --results j2 --quiet || fail "-j 2 exited $?"
[ "$(wc -l <j1.csv)" -eq 9 ] || fail "j1.csv has $(wc -l <j1.csv) lines, expected 9"
cmp j1.csv j2.csv || fail "CSV differs between -j 1 and -j 2"
cmp j1.json j2.json || fail "JSON differs between -j 1 and -j 2"
# Every point exactly once in the journal (header + 8 records).
[ "$(grep -c '"point"' j2.journal)" -eq 8 ] || fail "journal does not hold 8 records"
[ "$(grep -o '"point":[0-9]*' j2.journal | sort -u | wc -l)" -eq 8 ] || fail "a point twice"
# A point's seed depends on its values only: the point servers=1 load=0.7
# alone, and within a larger grid listed in another order, gives the same
# row (with one replication: the run's own value and interval).
"$qctl" sweep "$here/small.json" --set reps=1 --set 'params.servers=[1]' \
    --set 'params.load=[0.7]' --results one --quiet -j 1 || fail "one-point sweep"
line=$(sed -n 2p one.csv)
[ -n "$line" ] || fail "one.csv has no row"
# The same grid with a larger list: the shared point keeps its values.
"$qctl" sweep "$here/small.json" --set reps=1 --set 'params.servers=[3,1]' \
    --set 'params.load=[0.7,0.6]' --results four --quiet -j 2 || fail "four-point sweep"
grep -qxF "$line" four.csv || fail "point servers=1 load=0.7 changed with the grid: $line"
exit 0
