#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# From a latency log to a queueing model in two commands: `qctl fit
# --column` fits the log's latencies and prints the best model as a
# distribution spec, which `qctl sim queue --service` takes as it is.
# The queue (Poisson arrivals at 80/s, one server, FCFS) is an M/G/1, so
# the simulated mean response time is checked against the
# Pollaczek-Khinchine formula  T = E[S] + lambda E[S^2] / (2 (1 - rho)),
# with the moments of the fitted spec and of the model the log was drawn
# from (make_log.py), and against a simulation that replays the log's own
# values (empirical:). A few seconds; no other tools needed.
# usage: examples/latency/run.sh [path/to/qctl]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
Q=${1:-$here/../../build/qctl}
log=$here/latency.csv
lambda=80

# 1. Fit: the ranking, then the best model as a spec.
"$Q" fit --column "$log:latency_s"
spec=$("$Q" fit --column "$log:latency_s" --spec)
echo
echo "service spec: $spec"

# 2. Simulate with it, and with the log's values themselves.
rt() { "$Q" sim queue --arrival exp:$lambda --service "$1" --customers 400000 --reps 5 \
         --quiet | awk '/^response time  /{print $3, $4, $5}'; }
fitted=$(rt "$spec")
empirical=$(rt "empirical:$log,latency_s")

# 3. Pollaczek-Khinchine from a lognormal mixture spec's moments.
pk() {
    echo "$1" | awk -F'[:,]' -v l=$lambda '{
        m1 = 0; m2 = 0
        for (i = 2; i + 2 <= NF; i += 3) {
            w = $i; mu = $(i + 1); s = $(i + 2)
            m1 += w * exp(mu + s * s / 2); m2 += w * exp(2 * mu + 2 * s * s)
        }
        rho = l * m1
        printf "%.6g (rho %.4f)", m1 + l * m2 / (2 * (1 - rho)), rho
    }'
}
truth="lnmix:0.7,$(awk 'BEGIN{printf "%.17g", log(0.002)}'),0.3,0.3,$(awk 'BEGIN{printf "%.17g", log(0.02)}'),0.5"
echo
echo "mean response time (s) of M/G/1 at $lambda requests/s:"
echo "  simulated, fitted spec:             $fitted"
echo "  simulated, the log's own values:    $empirical"
echo "  Pollaczek-Khinchine, fitted spec:   $(pk "$spec")"
echo "  Pollaczek-Khinchine, true model:    $(pk "$truth")"
