#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_maxusers.sh: the MaxUsers identification and sensor compensation
# over many seeds, with binomial (Wilson 95%) intervals.
#   bench/bench_maxusers.sh [QCTL] [SEEDS]
# For seeds 2 .. SEEDS+1 (default 40; seed 1 is the example's):
#   - PRBS +-50 around MaxUsers 375, hold 3, 20 h; sysid first order: the
#     static gain within 15% of the plant's (1) with R^2 >= 0.75, and its
#     95% interval covering 1;
#   - for the first 10 seeds, the loop on the logged RIS given the affine
#     map identified near 325 (sysid --sensor-at 325): the true RIS's
#     steady-state error within 2% of the reference.
# Exits 1 when a claim's Wilson lower bound is below 0.9 (identification)
# or 0.65 (compensation: 10/10 gives 0.72).
set -eu
QCTL=${1:-build/qctl}
N=${2:-40}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
wilson() { # successes trials -> "p [lo, hi]"
    awk -v x="$1" -v n="$2" 'BEGIN {
        z = 1.96; p = x / n; d = 1 + z * z / n
        c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
        printf "%.3f [%.3f, %.3f]", p, c - h, c + h }'
}
lower() { wilson "$1" "$2" | sed 's/.*\[\([0-9.]*\),.*/\1/'; }
ok=0 cover=0 comp=0 ncomp=0 gmin=9 gmax=0 rmin=9 rmax=0 ok_i=0 cov_i=0
seed=2
while [ "$seed" -le $((N + 1)) ]; do
    "$QCTL" sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 3 \
        --duration 72000 --seed "$seed" --series "$T/id.csv" --quiet >/dev/null
    "$QCTL" sysid --csv "$T/id.csv" --columns time,maxusers,ris --skip 30 --orders 1..1 \
        --delays 0..0 --sensor-csv "$T/id.csv" --sensor-columns time,ris,ris_logged \
        --sensor-at 325 -o "$T/m.json" >"$T/s.txt"
    line=$(sed -n '/^ARX identification/,/static (DC) gain/p' "$T/s.txt")
    g=$(echo "$line" | sed -n 's/.*static (DC) gain = \([0-9.e+-]*\) .*/\1/p')
    lo=$(echo "$line" | sed -n 's/.*(95%: \([0-9.e+-]*\) \.\. .*/\1/p')
    hi=$(echo "$line" | sed -n 's/.*(95%: [0-9.e+-]* \.\. \([0-9.e+-]*\)).*/\1/p')
    r2=$(echo "$line" | sed -n 's/.*estimation: R^2 = \([0-9.]*\).*/\1/p')
    eval "$(awk -v g="$g" -v r="$r2" -v lo="$lo" -v hi="$hi" -v a="$gmin" -v b="$gmax" -v c="$rmin" -v d="$rmax" 'BEGIN {
        printf "ok_i=%d cov_i=%d gmin=%s gmax=%s rmin=%s rmax=%s\n",
            (g >= 0.85 && g <= 1.15 && r >= 0.75), (lo <= 1 && 1 <= hi),
            (g < a ? g : a), (g > b ? g : b), (r < c ? r : c), (r > d ? r : d) }')"
    ok=$((ok + ok_i))
    cover=$((cover + cov_i))
    if [ "$ncomp" -lt 10 ]; then
        e=$("$QCTL" sim maxusers --ki 0.4 --sensor logged --sensor-model "$T/m.json" --maxusers 375 \
            --warmup 7200 --reference 325 --duration 21600 --seed "$seed" --json |
            sed -n 's/.*"steady_state_error": \([-0-9.e+]*\).*/\1/p' | head -1)
        comp=$((comp + $(awk -v e="$e" 'BEGIN {print (e >= -0.02 && e <= 0.02)}')))
        ncomp=$((ncomp + 1))
    fi
    seed=$((seed + 1))
done
echo "maxusers identification, $N seeds: static gain in [0.85, 1.15] with R^2 >= 0.75: $ok/$N, $(wilson $ok "$N")"
echo "  gains $gmin .. $gmax, R^2 $rmin .. $rmax; 95% interval covers 1: $cover/$N, $(wilson $cover "$N")"
echo "maxusers affine compensation, $ncomp seeds: true RIS within 2% of 325: $comp/$ncomp, $(wilson $comp $ncomp)"
fail=0
awk -v l="$(lower $ok "$N")" 'BEGIN {exit !(l < 0.9)}' && fail=1
awk -v l="$(lower $comp $ncomp)" 'BEGIN {exit !(l < 0.65)}' && fail=1
exit $fail
