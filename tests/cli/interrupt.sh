#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# interrupt.sh: SIGINT and SIGTERM during long runs (src/cli/interrupt.h).
# Each run would take many minutes; it gets the signal once it has
# installed its handler (read from /proc) and a moment later, and must
# end (bounded: 60 s, then it is killed and the case fails) with status
# 130 (SIGINT) or 143 (SIGTERM), one line saying it was interrupted (with
# the replications finished, where the run counts them), and no output
# file, whole or temporary, left in its directory.
# Needs QCTL, DATA and TMP (run_cli_test.sh).
set -u
fail() { echo "FAIL: $*"; exit 1; }
[ -r /proc/self/status ] || { echo "skip: no /proc"; exit 77; }
W=$TMP/work
mkdir -p "$W"

# start CMD...: runs qctl CMD in the background (pid) from W, and waits
# (at most 10 s) until it catches SIGINT.
start() {
    (cd "$W" && exec "$QCTL" "$@") >"$TMP/out" 2>"$TMP/err" </dev/null &
    pid=$!
    i=0
    while [ $i -lt 1000 ]; do
        m=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
        m=${m#????????}
        [ -n "$m" ] && [ $((0x$m & 2)) -ne 0 ] && return 0
        kill -0 $pid 2>/dev/null || { cat "$TMP/err"; fail "qctl $*: ended before the signal"; }
        sleep 0.01
        i=$((i + 1))
    done
    kill -9 $pid 2>/dev/null
    fail "qctl $1 did not install its SIGINT handler within 10 s"
}

# stop SIG WHAT: sends SIG after a moment, waits at most 60 s for the end;
# st is then the exit status.
stop() {
    sleep 0.5
    kill -"$1" $pid
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 $pid 2>/dev/null; then
        kill -9 $pid
        wait $pid
        fail "$2: still running 60 s after SIG$1"
    fi
    wait $pid
    st=$?
}

# check WHAT STATUS LINE-PATTERN: the status, stderr (one line, matching
# the grep -E pattern) and an empty W.
check() {
    [ "$st" -eq "$2" ] || { cat "$TMP/err"; fail "$1: exit status $st, expected $2"; }
    n=$(wc -l <"$TMP/err")
    [ "$n" -eq 1 ] || { cat "$TMP/err"; fail "$1: $n lines on stderr, expected one"; }
    grep -Eq "$3" "$TMP/err" || { cat "$TMP/err"; fail "$1: stderr is not /$3/"; }
    left=$(ls -A "$W")
    [ -z "$left" ] || fail "$1: left behind: $left"
}

# sim queue, SIGINT inside a replication of 10: none finished
start sim queue --arrival exp:0.9 --service exp:1 --customers 1000000000 --reps 10 -j 1 \
    --json --output q.json --series q.csv --quiet
stop INT "sim queue"
check "sim queue" 130 \
    '^qctl: sim queue: interrupted \(SIGINT\): cancelled after 0 of 10 replications$'

# sim pool, SIGTERM, two workers
start sim pool --arrival exp:3 --service exp:1 --servers 4 --customers 1000000000 --reps 4 \
    -j 2 --output p.json --quiet
stop TERM "sim pool"
check "sim pool" 143 \
    '^qctl: sim pool: interrupted \(SIGTERM\): cancelled after 0 of 4 replications$'

# many short replications: the line says how many were finished
start sim queue --arrival exp:0.5 --service exp:1 --customers 2000 --reps 1000000 -j 1 \
    --output r.json --quiet
stop INT "sim queue --reps"
check "sim queue --reps" 130 \
    '^qctl: sim queue: interrupted \(SIGINT\): cancelled after [0-9]+ of 1000000 replications$'

# sim admission and sim maxusers check the flag too
start sim admission --scenario "$DATA/../../examples/admission/admissible.json" \
    --time 1e7 --reps 3 --output a.json --quiet
stop INT "sim admission"
check "sim admission" 130 '^qctl: sim admission: interrupted \(SIGINT\)'

# gen writes as it generates (no stop flag): the handler ends it at once
# and removes the temporary file
mkdir -p "$TMP/models"
"$QCTL" fit "$DATA/captures/gaming.pcap" --out "$TMP/models" --quiet >/dev/null 2>&1 ||
    fail "fit gaming.pcap"
start gen --model "$TMP/models/all.json" --users all=2000 --duration 300 --output g.csv --quiet
stop INT gen
check gen 130 '^qctl: gen: interrupted \(SIGINT\)$'

# a sweep kills its children, keeps its journal (to resume) and says so
start sweep "$DATA/../sweep/small.json" --set args.customers=1000000000 -j 1 --results sw \
    --quiet
stop INT sweep
rm -f "$W/sw.journal"
check sweep 130 '^qctl: sweep: interrupted \(SIGINT\): 0 of 8 points finished, kept in sw.journal'
exit 0
