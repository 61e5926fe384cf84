/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/removable_sim.h: the removable server of qctl/removable.h
 * simulated under a policy table, to check the Markov decision process's
 * figures independently (src/models/removable_sim.c). */
#ifndef QCTL_REMOVABLE_SIM_H
#define QCTL_REMOVABLE_SIM_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/energy.h"
#include "qctl/error.h"
#include "qctl/removable.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* ---- simulation ---------------------------------------------------------
 *
 * A discrete-event simulation of the same server on the qctl kernel: FCFS,
 * Poisson arrivals, exponential services at the rate in force (re-drawn
 * when the rate changes, exact by memorylessness), exponential setups,
 * decisions from the policy table at every event, arrivals lost at
 * n = nmax. Each replication starts empty and off, drops a warm-up time,
 * then measures for `horizon`; figures get Student-t intervals over the
 * replications. The response time is measured per job (not by Little's
 * law), so it checks the chain's E[N] / throughput independently. */
typedef struct qc_removable_sim_params {
    double lambda;
    const qc_energy_cost *cost;
    const qc_removable_policy *policy;
    double horizon;          /* measured time per replication */
    double warmup;           /* time cut first */
    unsigned reps;           /* >= 2 */
    uint64_t seed;
    double level;            /* e.g. 0.99 */
    int timer_deterministic; /* DelayedOff timer of fixed length 1/timer */
} qc_removable_sim_params;

/* Defaults: lambda 1, 10000 s measured after 1000 s of warm-up, 10
 * replications, seed 1, level 0.99, an exponential DelayedOff timer. The
 * cost model and the policy (NULL here) are the caller's. */
void qc_removable_sim_params_init(qc_removable_sim_params *p);

typedef struct qc_removable_sim_result {
    qc_ci mean_jobs, mean_response, mean_power, switch_on_rate, frac_setup,
        average_cost, throughput;
    uint64_t events;
} qc_removable_sim_result;

int qc_removable_simulate(const qc_removable_sim_params *p, qc_removable_sim_result *r,
                          qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
