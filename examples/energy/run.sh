#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: reproduces the energy experiments of `qctl sim pool` (docs/pool.md)
# and writes their data, plots and tables (results.md) into an output
# directory; it changes no tracked file.
#
#   examples/energy/run.sh [QCTL] [OUTDIR]
#       QCTL defaults to build/qctl, OUTDIR to build/examples/energy
#
# The results kept in the repository (results/ and the tables of
# README.md) were made with this script; compare a rerun's results.md with
# them (diff OUTDIR/results.md against README.md's results section).
#
# 1. Cost, mean response time and power against load, K = 10, every policy.
# 2. Stability: delay-JSQ at loads 0.95 and 0.98 beside JSQ with all on.
# 3. Two servers in heavy traffic: delay-JSQ's setup cost goes to 0 while
#    its holding cost approaches JSQ's.
# 4. A daily demand curve: the number of servers on follows the demand.
#
# Everything runs with fixed seeds, so a rerun reproduces the tables. Plots
# need gnuplot; without it they are skipped with a notice. The whole script
# takes about a minute on one core.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
QCTL=${1:-$root/build/qctl}
[ -x "$QCTL" ] || { echo "run.sh: no qctl at $QCTL (build it, or pass its path)" >&2; exit 2; }
out=${2:-$root/build/examples/energy}
js=$out/json # the summaries of every run
mkdir -p "$out" "$js"

# Common model: service exp:1 (one job per second on average), setup
# exp:0.1 (10 s on average), servers 240 W busy, 180 W idle, 240 W in setup,
# 0 W off, holding cost 1 per job per second, price 0.1 per watt-second: a
# busy server costs 24 per second, as much as 24 waiting jobs.
common="--service exp:1 --setup-time exp:0.1 --price 0.1 --holding 1 --quiet --json"

# get FILE METRIC [FIELD]: a field (default value) of a metric in a summary.
get() {
    awk -v m="\"$2\": {" -v f="\"${3:-value}\":" '
        index($0, m) { on = 1; next }
        on && index($0, f) { v = $2; sub(/,$/, "", v); print v; exit }
        on && /}/ { on = 0 }' "$1"
}
# fmt X DIGITS: a number rounded for a table (null stays null).
fmt() { [ "$1" = null ] && echo "n/a" || printf "%.${2}f" "$1"; }
# ci X HALF DIGITS: "X ± HALF", or n/a.
ci() { [ "$1" = null ] && echo "n/a" || echo "$(fmt "$1" "$3") ± $(fmt "$2" "$3")"; }

plot() { # plot NAME SCRIPT
    if command -v gnuplot >/dev/null 2>&1; then
        printf '%s\n' "set terminal svg size 800,500 dynamic enhanced font 'sans,12'" \
            "set output '$out/$1.svg'" "set grid" "set key opaque box" "$2" \
            "set terminal pngcairo size 800,500 enhanced font 'sans,11'" \
            "set output '$out/$1.png'" "replot" >"$out/$1.gp"
        gnuplot "$out/$1.gp" 2>/dev/null || echo "run.sh: gnuplot failed on $1" >&2
    fi
}
command -v gnuplot >/dev/null 2>&1 || echo "run.sh: gnuplot not found; plots skipped" >&2

# ---- 1. against load -------------------------------------------------------
policies="jsq jsq-off random central djsq:2 djsq:4 djsq:8"
echo "run.sh: 1/4 cost, response and power against load (K = 10)" >&2
for pol in $policies; do
    name=$(echo "$pol" | tr ':' 'T')
    : >"$out/load_$name.dat"
    for rho in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9; do
        lam=$(awk -v r="$rho" 'BEGIN { print 10 * r }')
        case $pol in
        djsq:*) flags="--policy djsq --threshold ${pol#djsq:}" ;;
        *) flags="--policy $pol" ;;
        esac
        j="$js/load_${name}_$rho.json"
        "$QCTL" sim pool --servers 10 $flags --arrival "exp:$lam" --customers 50000 \
            --reps 10 --seed 11 $common >"$j"
        echo "$rho $(get "$j" average_cost) $(get "$j" average_cost half_width)" \
            "$(get "$j" response_time) $(get "$j" response_time half_width)" \
            "$(get "$j" mean_power_watts) $(get "$j" mean_power_watts half_width)" \
            "$(get "$j" switch_ons_per_hour) $(get "$j" servers_on)" >>"$out/load_$name.dat"
    done
done
lines() { # lines COLUMN: a plot line per policy
    s=""
    for pol in $policies; do
        name=$(echo "$pol" | tr ':' 'T')
        title=$(echo "$pol" | sed 's/djsq:/delay-JSQ T=/')
        s="$s${s:+, }'$out/load_$name.dat' using 1:$1 with linespoints title '$title'"
    done
    echo "$s"
}
plot cost_vs_load "set key top left
set xlabel 'load rho = lambda / (K mu)'; set ylabel 'average cost per second'
plot $(lines 2)"
plot response_vs_load "set key top left; set logscale y
set xlabel 'load rho = lambda / (K mu)'; set ylabel 'mean response time (s)'
plot $(lines 4)"
plot power_vs_load "set key top left
set xlabel 'load rho = lambda / (K mu)'; set ylabel 'mean power (W)'
plot $(lines 6)"

# ---- 2. stability -------------------------------------------------------------
echo "run.sh: 2/4 stability at loads 0.95 and 0.98 (K = 10)" >&2
for rho in 0.95 0.98; do
    lam=$(awk -v r="$rho" 'BEGIN { print 10 * r }')
    for pol in jsq djsq; do
        "$QCTL" sim pool --servers 10 --policy $pol --threshold 4 --arrival "exp:$lam" \
            --customers 300000 --reps 10 --seed 12 $common >"$js/stable_${pol}_$rho.json"
    done
done

# ---- 3. two servers in heavy traffic ---------------------------------------------
echo "run.sh: 3/4 two servers in heavy traffic" >&2
: >"$out/heavy.dat"
for rho in 0.7 0.8 0.9 0.95 0.98 0.99; do
    lam=$(awk -v r="$rho" 'BEGIN { print 2 * r }')
    n=$(awk -v r="$rho" 'BEGIN { n = 2000 / (1 - r) / (1 - r); if (n < 200000) n = 200000; if (n > 1000000) n = 1000000; printf "%.0f", n }')
    for pol in jsq djsq; do
        "$QCTL" sim pool --servers 2 --policy $pol --threshold 4 --arrival "exp:$lam" \
            --customers "$n" --reps 10 --seed 13 $common >"$js/heavy_${pol}_$rho.json"
    done
    d="$js/heavy_djsq_$rho.json" q="$js/heavy_jsq_$rho.json"
    echo "$rho $(get "$d" setup_cost) $(get "$d" setup_cost half_width)" \
        "$(get "$d" holding_cost) $(get "$d" holding_cost half_width)" \
        "$(get "$q" holding_cost) $(get "$q" holding_cost half_width)" \
        "$(get "$d" frac_setup) $(get "$d" switch_ons_per_hour) $n" >>"$out/heavy.dat"
done
plot heavy_traffic "set key top left; set logscale y
set xlabel 'load rho = lambda / (2 mu)'; set ylabel 'cost per second'
set y2label 'holding cost ratio delay-JSQ / JSQ'; set y2tics; set ytics nomirror
plot '$out/heavy.dat' using 1:2 with linespoints title 'delay-JSQ setup cost', \
     '' using 1:4 with linespoints title 'delay-JSQ holding cost', \
     '' using 1:6 with linespoints title 'JSQ (all on) holding cost', \
     '' using 1:(\$4/\$6) axes x1y2 with linespoints dt 2 title 'holding ratio (right)'"

# ---- 4. a daily demand curve ---------------------------------------------------------
echo "run.sh: 4/4 servers on under a daily demand curve (K = 10, two days)" >&2
for pol in djsq jsq-off central jsq; do
    "$QCTL" sim pool --servers 10 --policy $pol --threshold 4 --arrival "curve:$here/daily.csv" \
        --time 172800 --reps 3 --seed 14 --series "$out/daily_$pol.csv" --series-dt 600 \
        $common >"$js/daily_$pol.json"
done
plot daily "set datafile separator ','; set key top left
set xlabel 'time (h)'; set ylabel 'servers'; set xtics 6
plot '$out/daily_djsq.csv' using (\$1/3600):6 every ::1 with lines lw 2 lc rgb '#2ca02c' title 'demand lambda(t) E[S]', \
     '' using (\$1/3600):3 every ::1 with lines lc rgb '#1f77b4' title 'servers on, delay-JSQ T=4', \
     '$out/daily_central.csv' using (\$1/3600):3 every ::1 with lines lc rgb '#d62728' title 'servers on, central', \
     '$out/daily_djsq.csv' using (\$1/3600):4 every ::1 with lines lc rgb '#ff7f0e' title 'servers in setup, delay-JSQ'"

# ---- results section of README.md -------------------------------------------------------
res=$out/results.md
{
    echo "Measured by \`run.sh\` with $("$QCTL" --version). Each figure is the mean over"
    echo "replications with its 95% confidence half-width (±)."
    echo
    echo "### 1. Against load, K = 10 (10 replications of 50 000 jobs each)"
    echo
    for what in "average cost per second:2:2" "mean response time (s):4:3" "mean power (W):6:0"; do
        label=${what%%:*} rest=${what#*:} col=${rest%%:*} dig=${rest#*:}
        echo "$label:"
        echo
        printf "| load |"
        for pol in $policies; do printf " %s |" "$(echo "$pol" | sed 's/djsq:/delay-JSQ T=/')"; done
        echo
        printf "|---|"
        for pol in $policies; do printf -- "---|"; done
        echo
        for rho in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9; do
            printf "| %s |" "$rho"
            for pol in $policies; do
                name=$(echo "$pol" | tr ':' 'T')
                awk -v r="$rho" -v c="$col" -v d="$dig" '$1 == r {
                    printf " %.*f ± %.*f |", d, $c, d, $(c + 1) }' "$out/load_$name.dat"
            done
            echo
        done
        echo
    done
    echo "### 2. Stability, K = 10 (10 replications of 300 000 jobs)"
    echo
    echo "| load | policy | mean jobs | throughput (λ) | servers on | mean response (s) |"
    echo "|---|---|---|---|---|---|"
    for rho in 0.95 0.98; do
        for pol in jsq djsq; do
            j="$js/stable_${pol}_$rho.json"
            echo "| $rho | $(echo $pol | sed 's/djsq/delay-JSQ T=4/') |" \
                "$(fmt "$(get "$j" mean_jobs)" 2) ± $(fmt "$(get "$j" mean_jobs half_width)" 2) |" \
                "$(fmt "$(get "$j" throughput)" 3) ($(awk -v r="$rho" 'BEGIN { print 10 * r }')) |" \
                "$(fmt "$(get "$j" servers_on)" 2) |" \
                "$(fmt "$(get "$j" response_time)" 3) ± $(fmt "$(get "$j" response_time half_width)" 3) |"
        done
    done
    echo
    echo "### 3. Two servers in heavy traffic (delay-JSQ T = 4 against JSQ with both on)"
    echo
    echo "| load | jobs per replication | delay-JSQ setup cost | fraction in setup | switch-ons per hour | delay-JSQ holding cost | JSQ holding cost | ratio |"
    echo "|---|---|---|---|---|---|---|---|"
    awk '{ printf "| %s | %d | %.4f ± %.4f | %.5f | %.1f | %.3f ± %.3f | %.3f ± %.3f | %.3f |\n",
        $1, $10, $2, $3, $8, $9, $4, $5, $6, $7, $4 / $6 }' "$out/heavy.dat"
    echo
    echo "### 4. Daily demand curve, K = 10, two days (3 replications)"
    echo
    echo "| policy | corr(servers on, λ(t)) | mean servers on | mean servers in setup | switch-ons per hour | mean power (W) | average cost | mean response (s) |"
    echo "|---|---|---|---|---|---|---|---|"
    for pol in djsq jsq-off central jsq; do
        j="$js/daily_$pol.json"
        echo "| $(echo $pol | sed 's/^djsq$/delay-JSQ T=4/') |" \
            "$(ci "$(get "$j" demand_correlation)" "$(get "$j" demand_correlation half_width)" 4) |" \
            "$(fmt "$(get "$j" servers_on)" 2) |" \
            "$(fmt "$(get "$j" servers_setup)" 2) |" \
            "$(fmt "$(get "$j" switch_ons_per_hour)" 0) |" \
            "$(fmt "$(get "$j" mean_power_watts)" 0) |" \
            "$(fmt "$(get "$j" average_cost)" 2) ± $(fmt "$(get "$j" average_cost half_width)" 2) |" \
            "$(fmt "$(get "$j" response_time)" 3) ± $(fmt "$(get "$j" response_time half_width)" 3) |"
    done
} >"$res"

echo "run.sh: done; tables in $res, data and plots in $out" >&2
