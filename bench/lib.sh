# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck shell=bash disable=SC2034 # BP, CG_FILE: for the bench that sources this
# bench/lib.sh: what the counted-cost benches (bench_wc_cost.sh,
# bench_live_cost.sh) share; sourced by bash after BENCH (the bench's
# name, for its messages) and Q (the qctl binary) are set.
#   bench_needs TOOL...      a missing tool: a notice, exit 0
#   bench_start              T (a scratch directory), PIDS (killed at
#                            exit), and a qctl backend answering at once
#                            (det:0) on 127.0.0.1:$BP
#   waitport PORT            until something listens on PORT (30 s)
#   port                     a free port (the kernel's choice, released)
#   callgrind_run OUT WRK C D PORT CMD...
#                            CMD under callgrind, warmed by wrk -cC for
#                            1 s, its counters zeroed, loaded by wrk -cC
#                            for D s (wrk's output in WRK), dumped and
#                            stopped; CG_FILE: the dump
#   cg_total FILE            the instructions a callgrind dump counted

bench_needs() {
    for t in "$@"; do
        command -v "$t" >/dev/null || { echo "$BENCH: needs $t: skipped"; exit 0; }
    done
}

waitport() {
    for _ in $(seq 300); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.1
    done
    echo "$BENCH: nothing listens on $1 after 30 s" >&2
    exit 1
}

port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

bench_start() {
    T=$(mktemp -d)
    PIDS=""
    trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$T"' EXIT
    "$Q" backend --listen 127.0.0.1:0 --port-file "$T/b.port" --service det:0 --workers 65536 &
    PIDS="$PIDS $!"
    for _ in $(seq 300); do [ -s "$T/b.port" ] && break; sleep 0.1; done
    BP=$(cat "$T/b.port")
}

callgrind_run() {
    local out=$1 w=$2 c=$3 d=$4 p=$5 v f
    shift 5
    rm -f "$out" "$out".*
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" 2>/dev/null &
    v=$!
    waitport "$p"
    wrk -t1 -c"$c" -d1s "http://127.0.0.1:$p/" >/dev/null 2>&1
    callgrind_control -z $v >/dev/null 2>&1
    wrk -t1 -c"$c" -d"${d}s" "http://127.0.0.1:$p/" >"$w" 2>&1
    callgrind_control -d $v >/dev/null 2>&1
    kill $v
    wait $v 2>/dev/null
    f=$(ls -t "$out".* 2>/dev/null | head -1)
    CG_FILE=${f:-$out}
}

cg_total() {
    awk '/^(summary|totals):/ { print $2; exit }' "$1"
}
