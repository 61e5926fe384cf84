#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_fit.sh: `qctl fit` on a 10^6-packet capture against
# `tcpdump -r FILE -w /dev/null` reading the same file, in one run.
#   bench/bench_fit.sh [QCTL] [PACKETS]
# The capture is made here: a model fitted to tests/data/captures/web.pcap,
# then `qctl gen` of 50 users to PACKETS packets (default 10^6; snaplen 64,
# headers only). Five interleaved rounds of tcpdump then `qctl fit` (all
# families, the default); for each the wall time and, with GNU time, the
# CPU time (user + system) of the whole process. Printed: the medians and
# the ratio fit / tcpdump of the medians (target: at most 5), wall and CPU.
# CPU time is the steadier measure on a shared machine; the wall ratio is
# the one the target names. Skipped (exit 0, with a notice) without tcpdump.
set -eu
QCTL=${1:-build/qctl}
N=${2:-${QC_BENCH_FIT_PACKETS:-1000000}}
ROUNDS=5
here=$(dirname "$0")
if ! command -v tcpdump >/dev/null 2>&1; then
    echo "fit: tcpdump not installed (Debian package tcpdump); comparison skipped"
    exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$QCTL" fit "$here/../tests/data/captures/web.pcap" --out "$T/m" --quiet >/dev/null
"$QCTL" gen --model "$T/m/all.json" --users all=50 --packets "$N" --snaplen 64 \
    --output "$T/big.pcap" --quiet >/dev/null
gnutime=""
if [ -x /usr/bin/time ] && /usr/bin/time -f "%e" -o "$T/probe" true 2>/dev/null; then
    gnutime=/usr/bin/time
fi
# timed NAME COMMAND...: appends "wall cpu" (cpu "-" without GNU time) to $T/NAME
timed() {
    name=$1
    shift
    if [ -n "$gnutime" ]; then
        "$gnutime" -f "%e %U %S" -o "$T/one" "$@" >/dev/null 2>&1
        awk '{ printf "%s %.3f\n", $1, $2 + $3 }' "$T/one" >>"$T/$name"
    else
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1
        echo "$(echo "$(date +%s.%N) - $t0" | bc -l) -" >>"$T/$name"
    fi
}
i=0
while [ $i -lt $ROUNDS ]; do
    timed tcpdump tcpdump -r "$T/big.pcap" -w /dev/null
    timed fit "$QCTL" fit "$T/big.pcap" --quiet
    i=$((i + 1))
done
median() { # FILE COLUMN
    sort -g -k"$2","$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END {
        if (v[1] == "-") print "-"; else print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
tw=$(median "$T/tcpdump" 1)
tc=$(median "$T/tcpdump" 2)
fw=$(median "$T/fit" 1)
fc=$(median "$T/fit" 2)
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
echo "$N $tw $tc $fw $fc $ROUNDS $load" | awk '{
    printf "fit: qctl fit (all families) on a %d-packet capture against tcpdump -r FILE -w /dev/null,\n", $1
    printf "  median of %d interleaved rounds (load average before: %s %s %s)\n", $6, $7, $8, $9
    printf "  tcpdump -r -w /dev/null: %7.3f s wall", $2
    if ($3 != "-") printf ", %7.3f s CPU", $3
    printf "\n  qctl fit:                %7.3f s wall", $4
    if ($5 != "-") printf ", %7.3f s CPU", $5
    printf "\n  fit / tcpdump:           %7.2f x wall", $4 / $2
    if ($5 != "-" && $3 > 0) printf ", %7.2f x CPU", $5 / $3
    printf "  (target: at most 5)\n"
}'
