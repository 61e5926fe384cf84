/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/removable.h: the M/M/1 queue with a removable server and finitely
 * many service rates: its average-cost MDP, exact performance of any
 * policy, simple policies to compare against, and a simulation of one
 * server under a policy table.
 *
 * The model (docs/energy-mdp.md has the full equations). Jobs arrive at
 * rate lambda. The server is OFF, SETUP or ON. State (n, status), n jobs
 * in system, 0 <= n <= N (arrivals finding N jobs are lost: the
 * truncation). Decisions are taken at every event and act at once:
 *   OFF, n jobs:  stay off, or switch on (pay switch_cost, start the setup);
 *   SETUP:      no decision; setup ends at rate alpha (then ON);
 *   ON, n jobs:   serve at rate mu_i (n >= 1), idle, or switch off.
 * Costs are those of qctl/energy.h: h n + the power cost rate of the
 * status (power[i], idle_power, setup_power or off_power), plus
 * switch_cost per switch-on. The criterion is the long-run average cost.
 *
 * Uniformization with L = lambda + mu_max + alpha turns it into a
 * discrete-time MDP on 3 (N + 1) states (index 3 n + status); every row
 * keeps a self-loop of probability >= min(mu_max, alpha)/L, so every
 * policy's chain is aperiodic. A decision to switch takes effect within
 * the step it is taken in: "switch on" at (n, OFF) has the row of
 * (n, SETUP) and its cost plus switch_cost; "switch off" at (n, ON) the
 * row of (n, OFF) staying off. Lumping each such (state, action) with the
 * status it switches to gives back the continuous-time chain, so gain
 * times L is the average cost per unit time.
 *
 * Truncation. N starts from the level where the M/M/1 queue at the
 * fastest rate has tail mass tail_tol (and at least 16) and doubles until,
 * under the optimal policy, both the mass at n = N (the fraction of time
 * arrivals are lost) and the estimated mass beyond N, that mass times
 * rho/(1 - rho) with rho = lambda / (the policy's rate at N), are below
 * tail_tol, or the state budget is spent (tail_ok = 0 then).
 *
 * Ownership: a policy owns its two arrays (qc_removable_policy_init /
 * _free); a result owns its policy (qc_removable_result_free). The
 * library never prints. Errors: 0 or a negative QC_E* code with a
 * message naming the parameter (QC_EUNSTABLE when lambda >= the fastest
 * rate: no policy keeps the queue stable). */
#ifndef QCTL_REMOVABLE_H
#define QCTL_REMOVABLE_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/energy.h"
#include "qctl/error.h"
#include "qctl/mdp.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* on_action values besides a rate index 0 .. nrates-1 */
#define QC_REMOVABLE_IDLE (-1) /* stay on without serving */
#define QC_REMOVABLE_OFF (-2)  /* switch off */

/* Status numbers inside a state index 3 n + status (as qc_server_state). */
#define QC_REMOVABLE_PHASES 3

/* A stationary policy on levels 0..nmax. */
typedef struct qc_removable_policy {
    size_t nmax;              /* N */
    unsigned char *switch_on; /* [N+1]: off with n jobs: 1 = switch on */
    int *on_action;           /* [N+1]: on with n jobs: rate index, IDLE or OFF */
    double timer;             /* > 0: DelayedOff: on and empty, the server
                                 idles and switches off at this rate (an
                                 exponential timer, mean 1/timer);
                                 on_action[0] must then be IDLE */
} qc_removable_policy;

/* Room for levels 0..nmax, all zero; 0 or QC_ENOMEM (err set; p zeroed).
 * Released by qc_removable_policy_free (safe on a zeroed policy). */
int qc_removable_policy_init(qc_removable_policy *p, size_t nmax, qc_err *err);
void qc_removable_policy_free(qc_removable_policy *p);

/* QC_EINVAL when a policy is not usable: an action out of range, a rate
 * at n = 0, switching off at an n where the off decision switches
 * straight back on (an instant loop), a timer without idling at n = 0. */
int qc_removable_policy_check(const qc_removable_policy *p, const qc_energy_cost *c,
                              qc_err *err);

/* Simple policies on levels 0..p->nmax (p allocated). All serve at the
 * fastest rate whenever on with jobs.
 *   always_on:   switch on whenever off, never off, idle when empty;
 *   npolicy(k):  switch on when n >= k, off as soon as the queue empties
 *                (k = 1: switch off when idle);
 *   delayed_off: switch on at the first job, idle when empty and switch
 *                off at rate theta (exponential approximation of the
 *                DelayedOff timer of fixed length 1/theta). */
void qc_removable_policy_always_on(qc_removable_policy *p, const qc_energy_cost *c);
void qc_removable_policy_npolicy(qc_removable_policy *p, const qc_energy_cost *c, size_t k);
void qc_removable_policy_delayed_off(qc_removable_policy *p, const qc_energy_cost *c,
                                     double theta);

/* Checks lambda and the cost model: qc_energy_check, lambda > 0,
 * lambda < fastest rate (QC_EUNSTABLE), holding > 0 (with no cost on
 * waiting, staying off forever is optimal and there is no steady state). */
int qc_removable_check(double lambda, const qc_energy_cost *c, qc_err *err);

/* The uniformization constant L = lambda + mu_max + alpha. */
double qc_removable_unif(double lambda, const qc_energy_cost *c);

/* Exact long-run performance of a policy on its truncation. */
typedef struct qc_removable_perf {
    qc_energy_report e;      /* mean jobs, response (Little), power, ... */
    double switch_on_rate;   /* switch-ons per unit time */
    double throughput;       /* jobs served per unit time */
    double blocking;         /* mass at n = N: fraction of arrivals lost */
    double tail_mass;        /* estimated mass beyond N (see above) */
    double holding_cost;     /* h E[N] */
    double power_cost;       /* = e.mean_power */
    double switching_cost;   /* switch_cost * switch_on_rate */
    double frac_off, frac_idle, frac_serving; /* with e.frac_setup: 1 */
} qc_removable_perf;

/* Builds the chain of `pol` on levels 0..pol->nmax (uniformized with
 * L + timer), solves its stationary distribution exactly (banded GTH)
 * and fills out. Errors: QC_EINVAL for an incoherent policy (switching
 * off at n where the off decision switches straight back on, or a timer
 * without idling at n = 0). */
int qc_removable_evaluate(double lambda, const qc_energy_cost *c,
                          const qc_removable_policy *pol, qc_removable_perf *out,
                          qc_err *err);

/* Structure of a policy over levels 0..upto (see docs/energy-mdp.md):
 *   work_conserving: for every 1 <= n <= upto, on_action[n] is a rate;
 *   threshold:       switch_on[n] = 1 exactly for n >= threshold_n;
 *   monotone_rate:   over the n in 1..upto where the server serves, the
 *                    rate index never decreases. */
typedef struct qc_removable_structure {
    int work_conserving;
    int threshold;
    long threshold_n;      /* first n that switches on; -1 if none */
    int monotone_rate;
    int off_when_idle;     /* on_action[0] == OFF */
    long violation[3];     /* first n breaking each of the three, or -1 */
    size_t upto;
    long boundary;         /* qc_removable_solve: first n whose decision
                              changes when N is doubled (blocking at N
                              makes serving less urgent near N); the
                              checks stop below it. -1: none changed; -2:
                              not compared (2N over the state budget) */
} qc_removable_structure;

void qc_removable_structure_check(const qc_removable_policy *p, size_t upto,
                                  qc_removable_structure *st);

typedef enum qc_removable_method {
    QC_REMOVABLE_RVI = 1,
    QC_REMOVABLE_PI = 2,
    QC_REMOVABLE_BOTH = 3
} qc_removable_method;
const char *qc_removable_method_name(qc_removable_method v);
int qc_removable_method_parse(const char *s, qc_removable_method *v, qc_err *err);

typedef struct qc_removable_params {
    double lambda;
    qc_energy_cost cost;
    double tol;          /* relative: RVI span and agreement, times the
                            always-on gain (default 1e-9; raised to the
                            rounding floor for very large N) */
    double tail_tol;     /* truncation target (default 1e-8) */
    size_t max_states;   /* budget of 3 (N + 1) states (default 3000000) */
    size_t levels;       /* > 0: use N = levels, no search (benchmarks) */
    qc_removable_method method; /* default BOTH */
    qc_mdp_sweep sweep;  /* RVI sweep (default Gauss-Seidel) */
    size_t max_iter;     /* RVI sweeps (default 200000): value iteration
                            needs sweeps growing like N (like N^2 near
                            saturation), so it is bounded; a run that hits
                            the bound still reports valid gain bounds */
    int baselines;       /* evaluate the simple policies (default 1) */
    void (*progress)(void *ctx, double fraction); /* value iteration's, or NULL */
    void *progress_ctx;
} qc_removable_params;

void qc_removable_params_init(qc_removable_params *p);

typedef enum qc_removable_baseline_kind {
    QC_RB_ALWAYS_ON = 0,
    QC_RB_OFF_IDLE,
    QC_RB_NPOLICY,
    QC_RB_DELAYED_OFF,
    QC_RB_COUNT
} qc_removable_baseline_kind;
const char *qc_removable_baseline_kind_name(qc_removable_baseline_kind v);
int qc_removable_baseline_kind_parse(const char *s, qc_removable_baseline_kind *v, qc_err *err);

typedef struct qc_removable_baseline {
    const char *name;       /* "always on", "switch off when idle", ... */
    const char *param_name; /* "rate", "N", "theta" */
    double param;
    qc_removable_perf perf;
} qc_removable_baseline;

typedef struct qc_removable_result {
    size_t nmax;            /* truncation N */
    size_t states, pairs, transitions;
    size_t rounds;          /* truncations tried */
    int tail_ok;            /* the tail target was met */
    double unif;            /* L */
    double tol_abs;         /* span tolerance used, per unit time: tol
                               times the always-on cost, raised when
                               needed to the rounding floor of the
                               relative values, 64 eps max |h| */
    int tol_floored;        /* 1 when it was raised so */
    double gain;            /* average cost of the reported policy (PI's
                               when PI ran), per unit time */
    double gain_pi;         /* NAN when PI did not run */
    size_t pi_iterations;
    double gain_lo, gain_hi;/* RVI bounds per unit time (NAN if not run) */
    size_t rvi_iterations;
    int rvi_converged;
    double rvi_tau;
    size_t policy_diffs;    /* states where RVI and PI choose differently */
    size_t policy_ties;     /* of those, near-ties (|Q difference| under
                               PI's values <= 10 tol_abs / L) */
    int policies_agree;     /* BOTH: RVI converged, diffs == ties and the
                               PI gain lies in the RVI bounds */
    int bounds_contain_pi;  /* BOTH: the PI gain lies in the RVI bounds
                               (true bounds even when RVI hit max_iter) */
    qc_removable_policy policy;
    qc_removable_perf perf; /* exact performance of the policy */
    qc_removable_structure structure;
    qc_removable_baseline baseline[QC_RB_COUNT];
    int have_baselines;
} qc_removable_result;

/* Solves the MDP (searching the truncation), evaluates the optimal policy
 * and, if asked, the simple ones. The structure is checked on the levels
 * below the truncation's boundary layer: the MDP is solved again (policy
 * iteration) with 2N levels and the checks stop at the first n whose
 * decision differs. On error the result holds nothing to free. */
int qc_removable_solve(const qc_removable_params *p, qc_removable_result *r, qc_err *err);
void qc_removable_result_free(qc_removable_result *r);

/* Fills a full MDP (all actions) on levels 0..nmax into m, which must
 * have room: 3 (N+1) states, (nrates + 5)(N+1) pairs, 3 transitions per
 * pair. Action order per state: OFF: stay off, switch on; SETUP: wait;
 * ON: rates slowest first, idle, off (n = 0: idle, off). Labels: OFF 0/1,
 * SETUP 0, ON the on_action code. Exposed for benchmarks and tests. */
int qc_removable_build(qc_mdp *m, double lambda, const qc_energy_cost *c, size_t nmax,
                       qc_err *err);
/* Converts an MDP policy of that model into a policy table. */
void qc_removable_policy_from_mdp(const qc_mdp *m, const unsigned *mdp_policy,
                                  qc_removable_policy *p);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
