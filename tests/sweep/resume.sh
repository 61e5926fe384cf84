#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# resume.sh QCTL: a sweep killed with SIGKILL mid-way resumes from its
# journal: the rerun runs exactly the points left (reps children each),
# the journal then holds every point exactly once, and the CSV and JSON
# equal those of an uninterrupted sweep.
set -u
qctl=$1
here=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
records() { n=$(grep -c '"point"' "$1" 2>/dev/null); echo "${n:-0}"; }
# 16 points, each run long enough (~0.05 s) to catch the sweep mid-way.
set -- --set 'params.load={"from":0.5,"to":0.85,"step":0.05}' --set args.customers=40000
"$qctl" sweep "$here/small.json" "$@" -j 1 --results whole --quiet || fail "whole sweep"
total=16
tries=0
while :; do
    rm -f cut.*
    "$qctl" sweep "$here/small.json" "$@" -j 1 --results cut --quiet &
    pid=$!
    # Wait (bounded) until a few points are journaled, then kill -9.
    i=0
    while [ "$(records cut.journal)" -lt 3 ] && [ $i -lt 400 ]; do
        sleep 0.01
        i=$((i + 1))
    done
    kill -9 $pid 2>/dev/null
    wait $pid 2>/dev/null
    done1=$(records cut.journal)
    [ "$done1" -lt "$total" ] && break
    tries=$((tries + 1))
    [ $tries -lt 5 ] || fail "the sweep always finished before it could be killed"
done
[ "$done1" -ge 1 ] || fail "nothing journaled before the kill"
[ -e cut.csv ] && fail "a killed sweep left cut.csv"
left=$((total - done1))
"$qctl" sweep "$here/small.json" "$@" -j 2 --results cut 2>resume.err || { cat resume.err; fail "resume exited $?"; }
grep -q "$total points, $done1 from the journal, $((left * 2)) runs now, 0 failed" resume.err ||
    { cat resume.err; fail "resume did not run exactly the $left points left"; }
[ "$(grep -c '"point"' cut.journal)" -eq "$total" ] || fail "journal does not hold $total records"
[ "$(grep -o '"point":[0-9]*' cut.journal | sort -u | wc -l)" -eq "$total" ] ||
    fail "a point is in the journal twice"
cmp whole.csv cut.csv || fail "resumed CSV differs from the uninterrupted one"
cmp whole.json cut.json || fail "resumed JSON differs from the uninterrupted one"
# A third run finds everything done: no run at all, same outputs.
"$qctl" sweep "$here/small.json" "$@" --results cut 2>again.err || fail "rerun exited $?"
grep -q "$total from the journal, 0 runs now" again.err || { cat again.err; fail "rerun ran points"; }
cmp whole.csv cut.csv || fail "CSV changed on a rerun"
# A changed definition is refused (exit 2), and --fresh starts over.
"$qctl" sweep "$here/small.json" "$@" --set reps=3 --results cut 2>changed.err
[ $? -eq 2 ] || fail "a changed definition was not refused with exit 2"
grep -q "different sweep definition" changed.err || fail "no clear message: $(cat changed.err)"
"$qctl" sweep "$here/small.json" "$@" --set 'params.servers=[1]' --fresh --results cut 2>fresh.err ||
    fail "--fresh exited $?"
grep -q "8 points, 0 from the journal, 16 runs now" fresh.err || { cat fresh.err; fail "--fresh"; }
exit 0
