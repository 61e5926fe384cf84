#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# bench_maxusers_predict_logged.sh: does the design's prediction of the
# MaxUsers loop closed on the logged RIS agree with the simulation, over
# identification seeds?
#   bench/bench_maxusers_predict_logged.sh [QCTL] [SEEDS]
# For seeds 2 .. SEEDS+1 (default 10): PRBS +-50 around MaxUsers 375, hold
# 4, 20 h; `sysid --fall auto --sensor-at 325 --sensor-curve` (plant, the
# logged sensor's ARX model, its affine map near 325 and its completion-log
# curve); `design` predicts the steps 325 -> 250 and 250 -> 325 at K_I = 0.4
# and 20 (MaxUsers in [0, 1000], no anti-windup), given r_m of the affine
# map, once with the Wiener sensor (dynamics, then the curve) and once with
# the affine sensor model (--sensor-linear); `sim maxusers --sensor logged
# --sensor-model` measures them with the same seed, 8 replications. The
# agreement criterion is bench_maxusers_predict.sh's. Also: the fitted
# curve scale S against the truth throughput x interval = 600.
# Exits 1 when the Wilson 95% lower bound of the Wiener prediction's
# agreement rate at a gain (4 comparisons a seed) is below 0.8.
set -eu
QCTL=${1:-build/qctl}
N=${2:-10}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/maxusers_predict_lib.sh"
pred() { # gain from to [--sensor-linear] -> settling|overshoot
    "$QCTL" design --model "$T/m.json" --law integral --gains "$1" --reference "$3" --from "$2" \
        --u-min 0 --u-max 1000 --antiwindup none ${4:-} |
        awk -v k="$1" '/^prediction through the sensor/{f=1; next} f && $1 == k {print $3 "|" $4; exit}'
}
w04=0 w20=0 l04=0 l20=0 smin=1e9 smax=0
seed=2
while [ "$seed" -le $((N + 1)) ]; do
    "$QCTL" sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 4 \
        --duration 72000 --seed "$seed" --series "$T/id.csv" --quiet >/dev/null
    "$QCTL" sysid --csv "$T/id.csv" --columns time,maxusers,ris --skip 30 --orders 1..1 \
        --delays 0..0 --fall auto --sensor-csv "$T/id.csv" --sensor-columns time,ris,ris_logged \
        --sensor-at 325 --sensor-curve -o "$T/m.json" >"$T/s.txt"
    sc=$(sed -n 's/^ *S = \([0-9.]*\) (.*/\1/p' "$T/s.txt" | head -1)
    eval "$(awk -v f="$sc" -v a="$smin" -v b="$smax" 'BEGIN {printf "smin=%s smax=%s\n", (f < a ? f : a), (f > b ? f : b)}')"
    for k in 0.4 20; do
        m=$(meas "$k" "$seed" --sensor logged --sensor-model "$T/m.json")
        for how in wiener linear; do
            lin=""
            [ $how = linear ] && lin=--sensor-linear
            p1=$(pred "$k" 325 250 $lin)
            p2=$(pred "$k" 250 325 $lin)
            IFS='|'
            # shellcheck disable=SC2086
            set -- $p1 $p2 $m
            unset IFS
            ag=$(($(agree s "$1" "$5") + $(agree % "$2" "$7") + $(agree s "$3" "$6") + $(agree % "$4" "$8")))
            echo "  seed $seed K_I $k $how: predicted $1 s / $2, $3 s / $4; measured $5 s / $7, $6 s / $8: $ag/4 agree"
            case $how$k in
            wiener0.4) w04=$((w04 + ag)) ;;
            wiener20) w20=$((w20 + ag)) ;;
            linear0.4) l04=$((l04 + ag)) ;;
            linear20) l20=$((l20 + ag)) ;;
            esac
        done
    done
    seed=$((seed + 1))
done
n=$((4 * N))
echo "maxusers logged-RIS loop prediction, $N identification seeds: curve scale S $smin .. $smax (truth 600)"
echo "  Wiener sensor, agree (settling and overshoot, both steps): K_I 0.4 $w04/$n, $(wilson $w04 $n); K_I 20 $w20/$n, $(wilson $w20 $n)"
echo "  affine sensor model: K_I 0.4 $l04/$n, $(wilson $l04 $n); K_I 20 $l20/$n, $(wilson $l20 $n)"
fail=0
for a in $w04 $w20; do
    awk -v l="$(lower "$a" "$n")" 'BEGIN {exit !(l < 0.8)}' && fail=1
done
exit $fail
