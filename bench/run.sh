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
"$build/bench/bench_mdp"
"$build/bench/bench_traffic" "${QC_BENCH_TRAFFIC_PACKETS:-10000000}"
"$(dirname "$0")/bench_fit.sh" "$build/qctl"
"$(dirname "$0")/bench_live.sh" "$build/qctl"
"$(dirname "$0")/bench_sweep.sh" "$build/qctl"
"$(dirname "$0")/bench_jobs.sh" "$build/qctl" "${QC_BENCH_JOBS_CUSTOMERS:-1000000}"
"$(dirname "$0")/bench_maxusers.sh" "$build/qctl"
"$(dirname "$0")/bench_maxusers_predict.sh" "$build/qctl"
"$(dirname "$0")/bench_twin.sh" "$build/qctl"
