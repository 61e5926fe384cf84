#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# same_output.sh QCTL SRC: every sim command gives the same bytes with
# -j 1, -j 2 and -j 3 (replications on threads are folded into the result
# in replication order), as text and as JSON, series files included; the
# elapsed time is the only line allowed to differ. A --precision run, whose
# rounds add replications, too. A change that made the output depend on
# the thread count (a merge out of order, a stream shared between
# replications) fails here.
set -u
QCTL=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail=0
n=0
bad() { echo "FAIL: $*"; fail=1; }

# run NAME ARGS...: the command with -j 1, 2, 3; outputs compared byte for
# byte after dropping the elapsed time (wall clock); a file written by
# --series/--output into $TMP/NAME.j*.out is compared the same way
check() {
    name=$1
    shift
    for j in 1 2 3; do
        # shellcheck disable=SC2068
        "$QCTL" "$@" --quiet -j $j >"$TMP/$name.$j.raw" 2>"$TMP/$name.$j.err"
        echo "exit $?" >>"$TMP/$name.$j.raw"
        grep -v -e '"elapsed_seconds"' -e '^elapsed' -e 'elapsed_s' "$TMP/$name.$j.raw" >"$TMP/$name.$j"
        [ -f "$TMP/series.csv" ] && mv "$TMP/series.csv" "$TMP/$name.$j.series"
    done
    grep -q "^exit 0" "$TMP/$name.1" || bad "$name: qctl $*: $(cat "$TMP/$name.1.err")"
    for j in 2 3; do
        cmp -s "$TMP/$name.1" "$TMP/$name.$j" || {
            bad "$name: -j $j differs from -j 1"
            diff "$TMP/$name.1" "$TMP/$name.$j" | head -10
        }
        cmp -s "$TMP/$name.1.err" "$TMP/$name.$j.err" || bad "$name: -j $j: stderr differs"
        if [ -f "$TMP/$name.1.series" ]; then
            cmp -s "$TMP/$name.1.series" "$TMP/$name.$j.series" || bad "$name: -j $j: series differs"
        fi
    done
    n=$((n + 1))
}

Q="sim queue --arrival exp:0.9 --service exp:1 --customers 20000 --seed 3 --allow-short"
check queue_text $Q --reps 7
check queue_json $Q --reps 7 --json --series "$TMP/series.csv"
check queue_ps sim queue --arrival erlang:2,1.6 --service lognormal:0,0.8 --servers 2 --discipline ps \
    --capacity 20 --time 5000 --reps 5 --seed 4 --json
check queue_one $Q --reps 1 --json
check queue_precision $Q --reps 2 --precision 0.02 --json
check pool_text sim pool --servers 4 --arrival exp:2.5 --customers 10000 --reps 5 --seed 2
check pool_json sim pool --servers 3 --arrival exp:2 --customers 10000 --reps 5 --seed 2 --json \
    --series "$TMP/series.csv"
check admission_text sim admission --scenario "$SRC/examples/admission/admissible.json" --reps 4 \
    --time 20000 --seed 5
check admission_json sim admission --scenario "$SRC/examples/admission/contested.json" --reps 3 \
    --time 20000 --policy vegas --json --series "$TMP/series.csv"
check maxusers_text sim maxusers --reference 300 --duration 3600 --reps 5 --seed 7
check maxusers_json sim maxusers --reference 300,350@1800 --duration 3600 --reps 4 --seed 7 --allow-short --json \
    --series "$TMP/series.csv"
# a bad -j is refused before any work
"$QCTL" sim queue --arrival exp:0.5 --service exp:1 -j 0 >/dev/null 2>"$TMP/err0"
[ $? -eq 2 ] && grep -q -- "--jobs" "$TMP/err0" || bad "-j 0: not refused naming --jobs"
[ $fail -eq 0 ] && echo "ok: $n commands give the same output with -j 1, 2 and 3"
exit $fail
