#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# gen_interrupt.sh QCTL SRC: a gen stopped by SIGINT or SIGTERM mid-write
# leaves neither its output nor its temporary file (OUT.tmp-PID).
set -u
QCTL=$1
SRC=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$QCTL" fit "$SRC/tests/data/captures/web.pcap" --activity web --out "$TMP" --quiet >/dev/null ||
    { echo "FAIL: fit"; exit 1; }
mkdir "$TMP/out"
for sig in INT TERM; do
    # about 8 GB if left to run: stopped after it has started writing
    "$QCTL" gen --model "$TMP/web.json" --users web=2000 --duration 600 --output "$TMP/out/o.csv" \
        --force >/dev/null 2>"$TMP/err" &
    pid=$!
    i=0
    while [ -z "$(ls -A "$TMP/out")" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    [ -n "$(ls -A "$TMP/out")" ] || { echo "FAIL: gen wrote nothing in 10 s"; kill -9 $pid; exit 1; }
    sleep 0.3
    kill -$sig $pid
    wait $pid
    rc=$?
    left=$(ls -A "$TMP/out")
    if [ -n "$left" ]; then
        echo "FAIL: SIG$sig left $left"
        exit 1
    fi
    echo "ok: SIG$sig (exit $rc) left nothing"
done
