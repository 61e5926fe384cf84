#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Autonomic admission control, reproduced in one command (about a minute):
#   0. admissibility of the three scenarios by the achievable-region
#      conditions (independent of the controller);
#   1. property (i): sweep epsilon and alpha on the contested scenario, where
#      the candidate gets in only if the admitted class yields its slack;
#      the admitted class's delay through the candidate's arrival;
#   2. property (ii): the admissible candidate is admitted, the inadmissible
#      one rejected while the admitted class keeps its bound;
#   3. time to admit versus alpha; best-effort throughput kept;
#   4. one comparison table per scenario: autonomic, static priorities,
#      utilization test, Gradient2, Vegas, Envoy, on the same random numbers;
#   5. the weighted (non-preemptive) discipline against DPS;
#   6. plots of each class's delay, bound and priority over busy cycles.
# Writes results.md and plots under OUT (default build/examples/admission,
# not a tracked file; the run kept in the repository, results/, was made
# with this script: OUT=examples/admission/results updates it). Needs jq;
# gnuplot for the plots.
# usage: examples/admission/run.sh [path/to/qctl]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
Q=${1:-$here/../../build/qctl}
out=${OUT:-$here/../../build/examples/admission}
command -v jq >/dev/null || { echo "run.sh: needs jq" >&2; exit 2; }
mkdir -p "$out"
md="$out/results.md"
seed=1

sim() { "$Q" sim admission --seed $seed --quiet "$@"; }
# value [lo, hi] of a confidence-interval object, 3 decimals
ci='if . == null then "-" else "\(.value*1000|round/1000) [\(.ci_low*1000|round/1000), \(.ci_high*1000|round/1000)]" end'

{
echo "# Autonomic admission control: results"
echo
echo "Produced by \`examples/admission/run.sh\` (seed $seed). Intervals are 95% t-intervals"
echo "over independent replications. Scenarios: \`admissible.json\`, \`contested.json\`,"
echo "\`inadmissible.json\` (gold admitted from 0, silver a candidate from t = 20000, best"
echo "effort \"web\"; all exponential, mean service 1). Rules and arguments: docs/admission.md."
echo
echo "## 0. Admissibility (achievable region, exact for exponential classes)"
echo
echo "| scenario | eps | bounds admissible | targets (1-eps)D admissible | margin |"
echo "|---|---|---|---|---|"
} >"$md"

echo "0. admissibility"
for s in admissible contested inadmissible; do
    sim --scenario "$here/$s.json" --reps 2 --time 30000 --json |
        jq -r --arg s "$s" '"| \($s) | \(.run.epsilon) | \(.admissibility.bounds) | \(.admissibility.targets) | \(.admissibility.margin*1000|round/1000) |"' >>"$md"
done

echo "1. property (i): epsilon x alpha on contested.json"
{
echo
echo "## 1. Property (i): the admitted class through the candidate's arrival"
echo
echo "contested.json, 10 replications of 200000. *gold while admitted*: gold's mean delay over"
echo "its bound (per job, after the warm-up). *expected worst*: the largest, over windows of"
echo "5000 (of gold; of any admitted class, which is named), of the mean over replications of"
echo "(window delay - D)/D, with its t-interval at that window (chosen as the largest, so the"
echo "interval is optimistic about the maximum); *pathwise worst*: per replication the largest"
echo "window excursion of any admitted class, averaged (it carries the noise of single windows)."
echo
echo "| eps | alpha | gold while admitted / D | gold expected worst | expected worst, any class | pathwise worst | silver admitted |"
echo "|---|---|---|---|---|---|---|"
} >>"$md"
echo "eps,alpha,gold_ratio,gold_worst,gold_lo,gold_hi,exp_worst,exp_lo,exp_hi,exp_class,path_worst,path_lo,path_hi,admitted" >"$out/property_i.csv"
for e in 0.03 0.05 0.08; do
    for a in 2 5 10 20 50; do
        j=$(sim --scenario "$here/contested.json" --epsilon $e --alpha $a --reps 10 --json)
        echo "$j" | jq -r --arg e $e --arg a $a "
            \"| \(\$e) | \(\$a) | \((.classes[0].admitted_delay.value / .classes[0].bound)*1000|round/1000)
            | \(.classes[0].expected_worst_excursion | $ci)
            | \(.summary.expected_worst_excursion | $ci) (\(.summary.expected_worst_excursion.class))
            | \(.summary.worst_excursion | $ci) | \(.classes[1].admitted)/\(.run.reps) |\"" | tr -d '\n' | tr -s ' ' >>"$md"
        echo >>"$md"
        echo "$j" | jq -r --arg e $e --arg a $a '
            [$e, $a, (.classes[0].admitted_delay.value / .classes[0].bound),
             .classes[0].expected_worst_excursion.value, .classes[0].expected_worst_excursion.ci_low,
             .classes[0].expected_worst_excursion.ci_high,
             .summary.expected_worst_excursion.value, .summary.expected_worst_excursion.ci_low,
             .summary.expected_worst_excursion.ci_high, .summary.expected_worst_excursion.class,
             .summary.worst_excursion.value, .summary.worst_excursion.ci_low,
             .summary.worst_excursion.ci_high, .classes[1].admitted] | @csv' >>"$out/property_i.csv"
    done
done

echo "2. property (ii)"
{
echo
echo "## 2. Property (ii): admissible admitted, inadmissible rejected"
echo
echo "20 replications, epsilon 0.1, alpha 20."
echo
echo "| scenario | silver admitted / rejected / undecided | gold delay while admitted (D = 2) | silver delay while admitted | expected worst excursion | best-effort throughput (offered 0.3) |"
echo "|---|---|---|---|---|---|"
} >>"$md"
for s in admissible inadmissible; do
    sim --scenario "$here/$s.json" --reps 20 --json |
        jq -r "\"| $s | \(.classes[1].admitted) / \(.classes[1].rejected) / \(.classes[1].undecided)
            | \(.classes[0].admitted_delay | $ci) | \(.classes[1].admitted_delay | $ci)
            | \(.summary.expected_worst_excursion | $ci) | \(.summary.best_effort_throughput | $ci) |\"" |
        tr -d '\n' | tr -s ' ' >>"$md"
    echo >>"$md"
done

echo "3. time to admit versus alpha"
{
echo
echo "## 3. Time to admit versus alpha (admissible.json, 10 replications of 250000)"
echo
echo "| alpha | time to admit | admitted | gold while admitted | best-effort throughput |"
echo "|---|---|---|---|---|"
} >>"$md"
echo "alpha,admit_time,lo,hi" >"$out/admit_time.csv"
for a in 5 10 20 50 100; do
    j=$(sim --scenario "$here/admissible.json" --alpha $a --reps 10 --time 250000 --json)
    echo "$j" | jq -r "\"| $a | \(.classes[1].admit_time | $ci) | \(.classes[1].admitted)/10
        | \(.classes[0].admitted_delay | $ci) | \(.summary.best_effort_throughput | $ci) |\"" |
        tr -d '\n' | tr -s ' ' >>"$md"
    echo >>"$md"
    echo "$j" | jq -r --arg a $a '[$a, .classes[1].admit_time.value, .classes[1].admit_time.ci_low, .classes[1].admit_time.ci_high] | @csv' >>"$out/admit_time.csv"
done

echo "4. comparison across policies"
{
echo
echo "## 4. Comparison across policies (same random numbers; 10 replications)"
echo
echo "Static and utilization use the scenario's priorities (gold 0.6, silver 0.3: a vector"
echo "that meets both bounds in admissible.json). The limiters gate every request with one"
echo "concurrency limit (Netflix Gradient2 and Vegas rules, Envoy's gradient controller)."
} >>"$md"
for s in admissible contested inadmissible; do
    { echo; echo "### $s"; echo; echo '```'; } >>"$md"
    sim --scenario "$here/$s.json" --reps 10 --policy all | tail -n +3 >>"$md"
    echo '```' >>"$md"
done

echo "5. weighted (non-preemptive) discipline"
{
echo
echo "## 5. DPS against the non-preemptive weighted discipline (weighted.json, 10 replications)"
echo
echo "| discipline | admissible (region) | silver admitted | gold while admitted | silver while admitted | time to admit |"
echo "|---|---|---|---|---|---|"
} >>"$md"
for d in dps weighted; do
    sim --scenario "$here/weighted.json" --discipline $d --reps 10 --json |
        jq -r "\"| $d | \(.admissibility.bounds) | \(.classes[1].admitted)/10 | \(.classes[0].admitted_delay | $ci)
            | \(.classes[1].admitted_delay | $ci) | \(.classes[1].admit_time | $ci) |\"" | tr -d '\n' | tr -s ' ' >>"$md"
    echo >>"$md"
done

echo "6. plots"
for s in admissible contested inadmissible; do
    sim --scenario "$here/$s.json" --reps 1 --plot "$out/$s" >/dev/null
done
if command -v gnuplot >/dev/null; then
    gnuplot <<EOF
set terminal svg size 800,480
set output '$out/property_i.svg'
set datafile separator ','
set key top right
set logscale x
set xlabel 'alpha'
set ylabel 'gold: expected worst excursion (delay - D)/D'
set title 'contested.json: the admitted class through a candidate''s arrival'
plot for [e in "0.03 0.05 0.08"] '$out/property_i.csv' using (\$1 == e+0 ? \$2 : 1/0):4:5:6 every ::1 with yerrorlines title 'eps '.e, 0 with lines lc rgb 'black' dt 2 notitle
set output '$out/admit_time.svg'
unset logscale
set xlabel 'alpha'
set ylabel 'time to admit'
set title 'admissible.json: time from the candidate''s start to its admission'
plot '$out/admit_time.csv' every ::1 using 1:2:3:4 with yerrorlines notitle
EOF
fi
{
echo
echo "## 6. Plots"
echo
echo "Per scenario, \`<scenario>/class_<name>.svg\`: the class's delay samples over busy cycles,"
echo "its bound and target, and its priority (replication 1); \`<scenario>/weights.svg\`: every"
echo "class's weight in the discipline. \`property_i.svg\`, \`admit_time.svg\`: sections 1 and 3."
} >>"$md"
echo "wrote $md"
