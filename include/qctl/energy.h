/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/energy.h: the cost model shared by the energy MDP and the pool
 * simulations.
 *
 * A server is OFF, SETUP (a setup of random, by default exponential,
 * length after a switch-on) or ON; when ON it serves at one of finitely
 * many rates mu_1 < ... < mu_m, or idles. Costs accrue at rates:
 *
 *   cost rate = h * (jobs in system)                   holding
 *             + power[i]    while ON serving at rate i
 *             + idle_power  while ON and idle
 *             + setup_power  while SETUP
 *             + off_power   while OFF (normally 0)
 *   plus switch_cost at each switch-on.
 *
 * Power may be given in watts with an energy price (cost per joule, i.e.
 * per watt-second); qc_energy_cost_rates converts it to cost per unit time
 * so that the MDP and the simulators always work in cost rates. The
 * average cost is the long-run cost per unit time (the gain of the MDP).
 *
 * Ownership: plain values, nothing to free. */
#ifndef QCTL_ENERGY_H
#define QCTL_ENERGY_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_ENERGY_MAX_RATES 16

typedef enum qc_server_state {
    QC_SERVER_OFF = 0,
    QC_SERVER_SETUP = 1,
    QC_SERVER_ON = 2
} qc_server_state;
const char *qc_server_state_name(qc_server_state v);
int qc_server_state_parse(const char *s, qc_server_state *v, qc_err *err);

typedef struct qc_energy_cost {
    double holding;                      /* h >= 0 per job per unit time */
    size_t nrates;                       /* 1 .. QC_ENERGY_MAX_RATES */
    double rate[QC_ENERGY_MAX_RATES];    /* service rates, increasing, > 0 */
    double power[QC_ENERGY_MAX_RATES];   /* cost rate serving at rate[i] */
    double idle_power;                   /* cost rate on and idle */
    double setup_power;                   /* cost rate during setup */
    double off_power;                    /* cost rate while off */
    double switch_cost;                  /* fixed cost per switch-on */
    double setup_rate;                    /* alpha: mean setup 1/alpha */
} qc_energy_cost;

/* Checks a cost model: rates positive and strictly increasing, costs
 * non-negative and finite, setup_rate > 0. The message names the field. */
int qc_energy_check(const qc_energy_cost *c, qc_err *err);

/* Multiplies every power figure (power[], idle, setup, off) by price, e.g.
 * watts times cost per joule gives cost per second. switch_cost and
 * holding are left alone. */
void qc_energy_scale_power(qc_energy_cost *c, double price);

/* Per-run energy and cost account, filled by the simulators. */
typedef struct qc_energy_report {
    double mean_jobs;          /* time-average number in system */
    double mean_response;      /* mean response time */
    double mean_power;         /* time-average power cost rate */
    double energy_per_job;     /* power cost per completed job */
    double switch_ons_per_hour;/* per 3600 time units */
    double frac_setup;       /* fraction of server-time in setup */
    double average_cost;       /* holding + power + switching, per time */
} qc_energy_report;

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
