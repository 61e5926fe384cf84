#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# MaxUsers feedback control, reproduced end to end in one command:
#   1. identify a first-order ARX model of the simulated mail server around
#      MaxUsers = 375 from a PRBS experiment (and the logged-RIS sensor);
#   2. design: stable K_I range and predicted poles for K_I = 0.1, 1, 5;
#   3. run the loop with each gain (true RIS): a low gain tracks without
#      oscillation, a high gain saturates MaxUsers and oscillates; a gain
#      beyond the stable range never settles;
#   4. close the loop on the logged RIS: without the sensor model the true
#      queue misses the reference; designing with the sensor model (reference
#      mapped through it, gain designed for the loop that includes it)
#      recovers the response.
# Writes results/results.md (the table) and plots under results/.
# usage: examples/maxusers/run.sh [path/to/qctl]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
Q=${1:-$here/../../build/qctl}
out=${OUT:-$here/results}
mkdir -p "$out"
seed=1
ref="250@0,325@10800"
dur=21600
warm=7200

echo "1. identification (PRBS +-50 around MaxUsers 375, 20 h simulated)"
"$Q" sim maxusers --controller open --maxusers 375 --excite prbs --amplitude 50 --hold 2 \
    --duration 72000 --seed $seed --series "$out/ident.csv" --quiet >/dev/null
"$Q" sysid --csv "$out/ident.csv" --columns time,maxusers,ris --skip 30 --orders 1..1 \
    --delays 0..0 --sensor-csv "$out/ident.csv" --sensor-columns time,ris,ris_logged \
    -o "$out/model.json" --plot "$out/sysid" >"$out/sysid.txt"
"$Q" sysid --csv "$out/ident.csv" --columns time,maxusers,ris --skip 30 >"$out/sysid_aic.txt"
sed -n '/chosen: na = 1/,/validation/p' "$out/sysid.txt" | head -6

echo "2. design"
"$Q" design --model "$out/model.json" --gains 0.1,1,5 --settling 10 --plot "$out/design" \
    >"$out/design.txt"
hi=$(awk '/^loop on the plant output/{f=1} f && /stable for 0 < K_I </{print $7; exit}' "$out/design.txt")
hi_s=$(awk '/^loop measured through the sensor/{f=1} f && /stable for 0 < K_I </{print $7; exit}' "$out/design.txt")
ki_plant=$(awk '/^loop on the plant output/{f=1} f && /^  integral: K_I =/{print $4; exit}' "$out/design.txt")
ki_sensor=$(awk '/^loop measured through the sensor/{f=1} f && /^  integral: K_I =/{print $4; exit}' "$out/design.txt")
unstable=$(awk -v h="$hi" 'BEGIN{printf "%.3g", 1.5 * h}')
echo "   stable for 0 < K_I < $hi (plant loop), < $hi_s (through the sensor)"

# predicted row of the root locus for gain $1 in the plant loop
pred() {
    "$Q" design --model "$out/model.json" --gains "$1" --no-sensor --law integral |
        awk -v k="$1" '/root locus/{f=1; next} f && $1 == k {print $2, $4, $5, $8, $9, $10; exit}'
}
# measured: settling and overshoot of both steps, and saturation
meas() {
    "$Q" sim maxusers "$@" --maxusers 375 --warmup $warm --reference "$ref" --duration $dur \
        --seed $seed --quiet |
        awk '/step to/ {for (i = 1; i <= NF; i++) {if ($i == "settling") s = s " " $(i+1); if ($i == "overshoot") o = o " " $(i+1)}}
             /saturated/ {sat = $2}
             END {print s " |" o " | " sat}'
}

echo "3. closed loop on the true RIS"
{
    echo "# MaxUsers control: predicted and measured"
    echo
    echo "Identified (first order, offsets): $(sed -n 's/^    y(k+1) = /y(k+1) = /p' "$out/sysid.txt" | head -1);"
    echo "stable for 0 < K_I < $hi. After 2 h at MaxUsers 375 (RIS about 325) the loop closes with"
    echo "reference 250, then 325 at t = 10800 s; interval 60 s; settling = 5-sample moving"
    echo "average of true RIS within 10% of the reference; overshoot on the same average;"
    echo "no anti-windup. A gain of 1.5 times the stable bound is added."
    echo
    echo "| K_I | predicted max abs(pole) | predicted settling (samples) | predicted overshoot | poles | measured settling (s), steps 1, 2 | measured overshoot (%), steps 1, 2 | MaxUsers saturated |"
    echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$out/results.md"
for k in 0.1 1 5 "$unstable"; do
    p=$(pred "$k")
    m=$(meas --ki "$k" --antiwindup none --plot "$out/ki_$k")
    set -- $p
    mod=$1 ks=$2 mp=$3
    shift 3
    poles="$*"
    sett=$(echo "$m" | cut -d'|' -f1)
    over=$(echo "$m" | cut -d'|' -f2)
    sat=$(echo "$m" | cut -d'|' -f3)
    echo "   K_I = $k: predicted |p| $mod, k_s $ks; measured settling$sett s, overshoot$over %, saturated$sat"
    echo "| $k | $mod | $ks | $mp | $poles | $sett | $over | $sat |" >>"$out/results.md"
done

echo "4. closed loop on the logged RIS"
{
    echo
    echo "## Measuring through the log"
    echo
    echo "Logged RIS misses RPCs still in the server (sensor DC gain $(sed -n 's/.*sensor: ARX.*DC gain \([0-9.e+-]*\).*/\1/p' "$out/design.txt"))."
    echo
    echo "| loop | K_I | measured settling (s), steps 1, 2 | overshoot (%), steps 1, 2 | true RIS, mean of the last hour (reference 325) |"
    echo "| --- | --- | --- | --- | --- |"
} >>"$out/results.md"
last_hour() {
    awk -F, 'NR > 1 && $1 > 18000 {s += $4; n++} END {printf "%.1f", s / n}' "$1"
}
for case in "true sensor, plant design|--ki $ki_plant" \
            "logged sensor, plant design, no sensor model|--ki $ki_plant --sensor logged" \
            "logged sensor, designed with the sensor model|--ki $ki_sensor --sensor logged --sensor-model $out/model.json"; do
    name=${case%%|*}
    args=${case#*|}
    tag=$(echo "$name" | tr ' ,' '__')
    # shellcheck disable=SC2086
    m=$(meas $args --series "$out/$tag.csv" --plot "$out/$tag")
    echo "   $name: $m"
    ki=$(echo "$args" | awk '{print $2}')
    echo "| $name | $ki | $(echo "$m" | cut -d'|' -f1) | $(echo "$m" | cut -d'|' -f2) | $(last_hour "$out/$tag.csv") |" >>"$out/results.md"
done
echo
echo "Table: $out/results.md; plots under $out/"
