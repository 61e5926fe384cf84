#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# run.sh: runs every benchmark of a build directory (default build/).
set -eu
build=${1:-build}
"$build/bench/bench_mm1" "${QC_BENCH_CUSTOMERS:-10000000}"
# coverage of the 95% intervals: about 3 minutes on one core
"$build/bench/bench_coverage" "${QC_BENCH_COVERAGE_EXPERIMENTS:-100}"
"$build/bench/bench_mdp"
"$build/bench/bench_traffic" "${QC_BENCH_TRAFFIC_PACKETS:-10000000}"
"$(dirname "$0")/bench_live.sh" "$build/qctl"
"$(dirname "$0")/bench_sweep.sh" "$build/qctl"
"$(dirname "$0")/bench_maxusers.sh" "$build/qctl"
"$(dirname "$0")/bench_maxusers_predict.sh" "$build/qctl"
