#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_network_instr.sh: bench_network's three ratios by instruction count
# (valgrind --tool=callgrind), which the load of a shared machine does not
# move, where wall-clock ratios move by a factor of 2. Per case, one run
# counts the floor's function alone and one qc_network_run alone (inclusive,
# its whole output analysis), each over three runs of N customers.
# usage: bench_network_instr.sh BUILD_DIR [N]   (N default 100000)
# Exit 0; prints "skipped" when valgrind is missing.
build=${1:?usage: bench_network_instr.sh BUILD_DIR [N]}
n=${2:-100000}
if ! command -v valgrind >/dev/null 2>&1; then
    echo "bench_network_instr: valgrind missing: skipped"
    exit 0
fi
count() { # case function: instructions collected inside function
    valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect="$2" \
        "$build/bench/bench_network" "$n" "$1" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
echo "bench_network by instructions (callgrind), $n customers x 3 runs per side"
printf '%-40s %12s %12s %8s\n' case "floor ins/c" "network ins/c" ratio
worst=0
for c in 1 2 3; do
    case $c in
    1) name="M/M/1/10 at 0.9 vs Lindley with loss" f=floor_mm1k ;;
    2) name="M/M/2 at 0.8 vs Kiefer-Wolfowitz" f=floor_mm2 ;;
    3) name="3 M/M/1 in tandem vs tandem Lindley" f=floor_tandem ;;
    esac
    fl=$(count $c $f)
    nw=$(count $c qc_network_run)
    if [ -z "$fl" ] || [ -z "$nw" ] || [ "$fl" -eq 0 ]; then
        echo "$name: no count (callgrind gave none)"
        worst=1
        continue
    fi
    line=$(awk -v a="$fl" -v b="$nw" -v n="$n" -v name="$name" 'BEGIN {
        r = b / a; printf "%-40s %12.0f %12.0f %8.2f\n", name, a / (3 * n), b / (3 * n), r;
        exit (r > 2) }') || worst=1
    echo "$line"
done
if [ $worst -eq 0 ]; then echo "target: every ratio <= 2 by instructions: met"; else echo "target: every ratio <= 2 by instructions: NOT met"; fi
exit 0
