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
wilson() { # successes trials -> "p [lo, hi]"
    awk -v x="$1" -v n="$2" 'BEGIN {
        z = 1.96; p = x / n; d = 1 + z * z / n
        c = (p + z * z / (2 * n)) / d; h = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
        printf "%.3f [%.3f, %.3f]", p, c - h, c + h }'
}
lower() { wilson "$1" "$2" | sed 's/.*\[\([0-9.]*\),.*/\1/'; }
agree() { # kind (s or %), predicted, measured -> 1 or 0
    awk -v kind="$1" -v p="$2" -v m="$3" 'BEGIN {
        if (p ~ /never|\// || m ~ /never|settles in/) { print ((p ~ /never|\//) == (m ~ /never|settles in/)) ? 1 : 0; exit }
        gsub(/%/, "", p); gsub(/%/, "", m)
        n = split(m, x, " "); mv = x[1] + 0; h = n >= 3 ? x[3] + 0 : 0
        tol = kind == "s" ? 60 : 5
        if (0.15 * mv > tol) tol = 0.15 * mv
        d = p - mv; if (d < 0) d = -d
        print d <= h + tol ? 1 : 0
    }'
}
pred() { # gain from to -> settling|overshoot
    "$QCTL" design --model "$T/m.json" --no-sensor --gains "$1" --reference "$3" --from "$2" \
        --u-min 0 --u-max 1000 --antiwindup none |
        awk -v k="$1" '/^prediction:/{f=1; next} f && $1 == k {print $3 "|" $4; exit}'
}
meas() { # gain seed -> s1|s2|o1|o2
    "$QCTL" sim maxusers --ki "$1" --antiwindup none --maxusers 375 --warmup 7200 \
        --reference 250@0,325@10800 --duration 21600 --seed "$2" --reps 8 --quiet |
        awk '/step to/ {
                n++
                if ($0 ~ /never settles/) s[n] = "never"
                else if (match($0, /settles in [0-9]+ of [0-9]+/)) s[n] = substr($0, RSTART, RLENGTH)
                else { match($0, /settling [^s]*s/); s[n] = substr($0, RSTART + 9, RLENGTH - 11) }
                if (match($0, /overshoot [0-9.]+( \+- [0-9.]+)?%/)) o[n] = substr($0, RSTART + 10, RLENGTH - 10)
                else o[n] = "no step"
             }
             END { print s[1] "|" s[2] "|" o[1] "|" o[2] }'
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
