#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: runs every benchmark of a build directory (default build/).
set -eu
build=${1:-build}
"$build/bench/bench_mm1" "${QC_BENCH_CUSTOMERS:-10000000}"
# coverage of the 95% intervals: about 2 minutes of CPU (one core); then
# the two heavy-tailed cases (lognormal M/G/1, M/H2/1-PS, both SCV 4, 10
# replications of 1e5) over 400 experiments, about 1.5 more: 100 cannot
# tell a coverage of 0.94 from the 0.93 target (docs/output-analysis.md)
"$build/bench/bench_coverage" "${QC_BENCH_COVERAGE_EXPERIMENTS:-100}"
"$build/bench/bench_coverage" "${QC_BENCH_COVERAGE_HEAVY:-400}" "10 x 1e5"
# sim network's general event loop against the recursions (docs/benchmarks.md)
"$build/bench/bench_network" "${QC_BENCH_NETWORK_CUSTOMERS:-2000000}"
# the same three ratios by instruction count (callgrind), which load does not move
"$(dirname "$0")/bench_network_instr.sh" "$build" "${QC_BENCH_NETWORK_INSTR_CUSTOMERS:-100000}"
# sim network's coverage over 100 seeds against exact values computed
# independently (docs/networks.md), and one station beside sim queue
# (1000 seeds: a metric of exact 95% coverage reads below 0.93 with
# probability 0.002, against 0.13 at 100; about 25 CPU minutes)
python3 "$(dirname "$0")/../tests/network/net_check.py" "$build/qctl" --seeds "${QC_BENCH_NETWORK_SEEDS:-1000}" --min 0.93 || true
python3 "$(dirname "$0")/../tests/network/net_check.py" "$build/qctl" --vs-queue --seeds 100 --min 0.93 || true
"$build/bench/bench_mdp"
"$build/bench/bench_traffic" "${QC_BENCH_TRAFFIC_PACKETS:-10000000}"
"$(dirname "$0")/bench_fit.sh" "$build/qctl"
"$(dirname "$0")/bench_live.sh" "$build/qctl"
# a proxied request's instructions and system calls, qctl against nginx
"$(dirname "$0")/bench_live_cost.sh" "$build/qctl"
"$(dirname "$0")/bench_sweep.sh" "$build/qctl"
"$(dirname "$0")/bench_jobs.sh" "$build/qctl" "${QC_BENCH_JOBS_CUSTOMERS:-1000000}"
"$(dirname "$0")/bench_maxusers.sh" "$build/qctl"
"$(dirname "$0")/bench_maxusers_predict.sh" "$build/qctl"
# the lognormal size mixtures against an independent maximiser of the
# binned likelihood (GSL Nelder-Mead) from 200 random starts on every
# capture in tests/data/captures: about 4 minutes of one core
QC_BINNED_STARTS="${QC_BENCH_BINNED_STARTS:-200}" "$build/tests/test_fit_binned"
# the property harness (tests/properties/): 10,000 random cases over every
# model's whole parameter range, a fresh seed each time (printed, with each
# failure's command); QC_BENCH_PROPS_SEED repeats a sample
PYTHONPATH="$build/python" /usr/bin/python3 "$(dirname "$0")/../tests/properties/props.py" \
    "$build/qctl" --cases "${QC_BENCH_PROPS_CASES:-10000}" --jobs "${QC_BENCH_PROPS_JOBS:-2}" \
    ${QC_BENCH_PROPS_SEED:+--seed "$QC_BENCH_PROPS_SEED"}
"$(dirname "$0")/bench_twin.sh" "$build/qctl"

# the admission front is work-conserving: each limiter against --limiter
# none in front of backends that are not overloaded (needs wrk and curl)
"$(dirname "$0")/bench_wc.sh" "$build/qctl"
