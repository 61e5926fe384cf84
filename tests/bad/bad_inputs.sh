#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bad_inputs.sh QCTL SRC: runs every case of bad_inputs.tsv and checks that
# qctl refuses it at once: exit 2, a message naming the flag or the file,
# nothing left in the folder it ran in (nor in the inputs), and a peak
# resident memory under 200 MB (GNU time's %M). A case that runs past 20 s
# has not been refused up front and fails. Skips (77) without GNU time.
set -u
QCTL=$1
SRC=$2
DATA=$SRC/tests/data
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time (GNU time) is needed for the memory check"; exit 77; }
command -v timeout >/dev/null 2>&1 || { echo "skip: timeout is needed"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT INT TERM
IN=$TMP/in
mkdir "$IN"
: >"$IN/empty.csv"
: >"$IN/empty.json"
sed 's/"customers"/"custmers"/' "$SRC/tests/sweep/small.json" >"$IN/bad_sweep.json"
"$QCTL" fit "$DATA/captures/web.pcap" --activity web --out "$IN" --quiet >/dev/null ||
    { echo "FAIL: could not fit the traffic model the gen cases need"; exit 1; }
before=$(ls -A "$IN" | wc -l)
export IN DATA SRC
n=0 fail=0
while IFS='	' read -r expect args; do
    case $expect in '#'* | '') continue ;; esac
    n=$((n + 1))
    W=$TMP/w$n
    mkdir "$W"
    (cd "$W" && eval "timeout 20 /usr/bin/time -o '$TMP/mem' -f %M '$QCTL' $args" \
        >"$TMP/out" 2>"$TMP/err")
    rc=$?
    mem=$(tail -n 1 "$TMP/mem" 2>/dev/null)
    why=""
    [ "$rc" -eq 2 ] || why="exit $rc, not 2"
    grep -q -- "$expect" "$TMP/err" || why="$why; stderr does not name '$expect'"
    left=$(ls -A "$W")
    [ -z "$left" ] || why="$why; left behind: $left"
    case $mem in '' | *[!0-9]*) why="$why; no memory figure" ;;
    *) [ "$mem" -lt 204800 ] || why="$why; peak memory $mem kB" ;;
    esac
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL [$n] qctl $args: ${why#; }"
        sed 's/^/    /' "$TMP/err" | head -n 3
    else
        echo "ok   [$n] qctl $args ($mem kB): $(head -n 1 "$TMP/err" | cut -c1-110)"
    fi
    rm -rf "$W"
done <"$SRC/tests/bad/bad_inputs.tsv"
after=$(ls -A "$IN" | wc -l)
[ "$before" -eq "$after" ] || { echo "FAIL: the inputs folder changed ($before -> $after files)"; fail=$((fail + 1)); }
echo "$n cases, $fail failed"
[ "$n" -ge 60 ] || { echo "FAIL: fewer than 60 cases"; exit 1; }
[ "$fail" -eq 0 ]
