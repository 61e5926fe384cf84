#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_maxusers_predict.sh: does the design's prediction of the MaxUsers
# loop agree with the simulation, over identification seeds?
#   bench/bench_maxusers_predict.sh [QCTL] [SEEDS]
# For seeds 2 .. SEEDS+1 (default 10; seed 1 is the example's): PRBS +-50
# around MaxUsers 375, hold 4, 20 h, `sysid --fall auto` (first order);
# `design` predicts the steps 325 -> 250 and 250 -> 325 at K_I = 0.1, 1, 5
# (MaxUsers in [0, 1000], no anti-windup); `sim maxusers` measures them
# with the same seed, 8 replications. A predicted settling time or
# overshoot agrees when it lies within the measured 95% interval widened by
# the larger of one sample (60 s) or 5 points of the step, and 15% of the
# measured value; "never" agrees only with a loop that does not settle in
# every replication (docs/maxusers.md). Also: the identified fall rate
# against the truth 1 - exp(-60/1200) = 0.0488.
# Exits 1 when the Wilson 95% lower bound of the agreement rate of a gain
# (4 comparisons a seed) is below 0.8.
set -eu
QCTL=${1:-build/qctl}
N=${2:-10}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/maxusers_predict_lib.sh"
pred() { # gain from to -> settling|overshoot
    "$QCTL" design --model "$T/m.json" --no-sensor --gains "$1" --reference "$3" --from "$2" \
        --u-min 0 --u-max 1000 --antiwindup none |
        awk -v k="$1" '/^prediction:/{f=1; next} f && $1 == k {print $3 "|" $4; exit}'
}
a01=0 a1=0 a5=0 fmin=1 fmax=0
seed=2
while [ "$seed" -le $((N + 1)) ]; do
    "$QCTL" sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 4 \
        --duration 72000 --seed "$seed" --series "$T/id.csv" --quiet >/dev/null
    "$QCTL" sysid --csv "$T/id.csv" --columns time,maxusers,ris --skip 30 --orders 1..1 \
        --delays 0..0 --fall auto -o "$T/m.json" >"$T/s.txt"
    f=$(sed -n 's/^ *input in effect: falls at most \([0-9.e-]*\) .*/\1/p' "$T/s.txt")
    eval "$(awk -v f="$f" -v a="$fmin" -v b="$fmax" 'BEGIN {printf "fmin=%s fmax=%s\n", (f < a ? f : a), (f > b ? f : b)}')"
    for k in 0.1 1 5; do
        p1=$(pred "$k" 325 250)
        p2=$(pred "$k" 250 325)
        m=$(meas "$k" "$seed")
        IFS='|'
        # shellcheck disable=SC2086
        set -- $p1 $p2 $m
        unset IFS
        ag=$(($(agree s "$1" "$5") + $(agree % "$2" "$7") + $(agree s "$3" "$6") + $(agree % "$4" "$8")))
        echo "  seed $seed K_I $k: predicted $1 s / $2, $3 s / $4; measured $5 s / $7, $6 s / $8: $ag/4 agree"
        case $k in
        0.1) a01=$((a01 + ag)) ;;
        1) a1=$((a1 + ag)) ;;
        5) a5=$((a5 + ag)) ;;
        esac
    done
    seed=$((seed + 1))
done
n=$((4 * N))
echo "maxusers prediction, $N identification seeds: fall rate $fmin .. $fmax (truth 0.0488)"
echo "  agree (settling and overshoot, both steps): K_I 0.1 $a01/$n, $(wilson $a01 $n); K_I 1 $a1/$n, $(wilson $a1 $n); K_I 5 $a5/$n, $(wilson $a5 $n)"
fail=0
for a in $a01 $a1 $a5; do
    awk -v l="$(lower "$a" "$n")" 'BEGIN {exit !(l < 0.8)}' && fail=1
done
exit $fail
