/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/mdp.h: finite Markov decision processes under the average-cost
 * criterion: relative value iteration and policy iteration on sparse
 * transitions.
 *
 * The model. States s = 0..S-1; in state s, actions a = 0..A(s)-1, each
 * with a cost per step c(s,a) and a row of transition probabilities
 * P(s'|s,a), stored sparse (CSR: per (state, action) pair a list of
 * (next state, probability)). A continuous-time model enters here after
 * uniformization: with a constant L at least every total outgoing rate,
 * P(s'|s,a) = q(s'|s,a)/L for s' != s, the rest a self-loop, and
 * c(s,a) = (cost rate)/L + (lump costs). The gain per step times L is the
 * average cost per unit time.
 *
 * The average-cost optimality equation, for a unichain (or communicating)
 * model:
 *     g + h(s) = min_a [ c(s,a) + sum_s' P(s'|s,a) h(s') ],  h(ref) = 0.
 *
 * Relative value iteration (qc_mdp_rvi) iterates T v = min_a [c + P v]
 * and renormalizes v(ref) = 0. For ANY vector v (Odoni's bounds)
 *     min_s (Tv - v)(s) <= g* <= max_s (Tv - v)(s),
 * so it stops when the span of Tv - v is below tol and reports both
 * bounds. Value iteration needs aperiodic chains; the aperiodicity
 * transform P_tau = tau I + (1 - tau) P (same costs) keeps the gain and
 * the optimal policies and divides h by (1 - tau); the results are given
 * back on the original scale. With opts.tau < 0 (the default) tau = 0 when
 * every (state, action) has a self-loop (then every policy's chain is
 * aperiodic, as after uniformization with a margin), else tau = 0.5.
 *
 * Sweeps: QC_MDP_JACOBI computes T v from the old v, the textbook form.
 * QC_MDP_GAUSS_SEIDEL updates v in place in state order, with state 0
 * first and its equation solved with the old values, which fixes the gain
 * estimate g_k = (T v)(0) - v(0) for the sweep:
 *     v(s) <- min_a [c + (1-tau) P v + tau v(s)] - g_k,  s = 1..S-1.
 * Its fixed point is the optimality equation with h(0) = 0. In a queue
 * ordered by level, states low in the order are the ones the others drain
 * into, so one in-place sweep carries their values all the way up, where
 * a Jacobi sweep moves them one level. Either way the stopping test and
 * the reported bounds are the Jacobi ones, computed from the current v.
 *
 * Policy iteration (qc_mdp_pi) alternates exact evaluation of a policy d
 * and improvement d(s) <- argmin_a c(s,a) + sum P h (the current action
 * kept unless another is better by more than a relative 1e-12, so it
 * cannot cycle on rounding), until no state changes. In a communicating
 * model an improved policy can have two closed classes; it is then kept
 * on its class of least gain, the other states led into it (Puterman,
 * section 9.5). Evaluation solves
 * the Poisson equation through the renewal cycles at a reference state r
 * in the policy's recurrent class:
 *     u(s) = E_s[cost until the chain reaches r],  w(s) = E_s[steps until r]
 * both solve (I - P_k) x = b on the chain killed at r, a nonsingular
 * M-matrix whenever r is reachable from every state; then
 *     g = (c(r) + sum P(s'|r) u(s')) / (1 + sum P(s'|r) w(s')),
 *     h = u - g w   (so h(r) = 0 and the Poisson equation holds everywhere).
 * Two solvers: a banded direct elimination when the state order keeps
 * transitions within a small bandwidth b (time S b^2, memory S (2b+1)),
 * done in the subtraction-free form of Grassmann, Taksar and Heyman (each
 * pivot is a sum of probabilities, never 1 minus one), exact to rounding;
 * and symmetric Gauss-Seidel sweeps with a relative tolerance for the
 * rest. A queue of 10^5 states ordered by level has b of a few states.
 *
 * Stationary distributions (qc_mdp_stationary) of a policy's chain come
 * from its recurrent class (found with Tarjan's algorithm; transient
 * states get 0; two closed classes are an error) by the same banded GTH
 * elimination, or by power iteration on the tau-mixed chain.
 *
 * Ownership: qc_mdp_alloc returns a model freed by qc_mdp_free;
 * qc_mdp_ws_alloc a workspace freed by qc_mdp_ws_free (both accept NULL).
 * Solvers allocate nothing: all their scratch lives in the workspace, and
 * the caller owns the value, policy and distribution arrays (length S).
 * Errors: 0 or a negative QC_E* code with a message. */
#ifndef QCTL_MDP_H
#define QCTL_MDP_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_mdp qc_mdp;
typedef struct qc_mdp_ws qc_mdp_ws;

/* ---- building a model --------------------------------------------------
 *
 * Allocate with the number of states and room for max_pairs (state,
 * action) pairs and max_trans transitions, then add actions state by state
 * in increasing order, each followed by its transitions:
 *
 *     for s in 0..S-1:
 *         for each action:  qc_mdp_add_action(m, s, label, cost);
 *             for each s':  qc_mdp_add_trans(m, s', p);
 *     qc_mdp_finish(m, &err);
 *
 * Adding never fails silently: the first error is kept and returned by
 * qc_mdp_finish (and by every later add), so a builder loop may check only
 * the result of finish. finish checks that every state has an action and
 * every row sums to 1 within 1e-9. The label is the caller's name for an
 * action (the solvers ignore it). Probabilities of 0 are dropped;
 * repeated next states add up. */
/* NULL with err set: QC_EINVAL for no states (or 2^32 - 1 or more) or
 * fewer pairs than states, QC_ENOMEM. */
qc_mdp *qc_mdp_alloc(size_t nstates, size_t max_pairs, size_t max_trans, qc_err *err);
void qc_mdp_free(qc_mdp *m);

/* Starts building again (same capacities) with nstates states. */
int qc_mdp_reset(qc_mdp *m, size_t nstates);

int qc_mdp_add_action(qc_mdp *m, size_t state, int label, double cost);
int qc_mdp_add_trans(qc_mdp *m, size_t next, double prob);
int qc_mdp_finish(qc_mdp *m, qc_err *err);

size_t qc_mdp_nstates(const qc_mdp *m);
size_t qc_mdp_npairs(const qc_mdp *m);
size_t qc_mdp_ntrans(const qc_mdp *m);
/* Number of actions of state s. */
unsigned qc_mdp_nactions(const qc_mdp *m, size_t s);
int qc_mdp_label(const qc_mdp *m, size_t s, unsigned a);
double qc_mdp_cost(const qc_mdp *m, size_t s, unsigned a);
/* Largest |s' - s| over all transitions (after finish). */
size_t qc_mdp_bandwidth(const qc_mdp *m);

/* c(s,a) + sum_s' P(s'|s,a) v(s'). */
double qc_mdp_q(const qc_mdp *m, const double *v, size_t s, unsigned a);

/* Calls fn(ctx, next, prob) for each transition of (s, a). */
void qc_mdp_foreach_trans(const qc_mdp *m, size_t s, unsigned a,
                          void (*fn)(void *ctx, size_t next, double prob), void *ctx);

/* ---- solving ------------------------------------------------------------ */

typedef enum qc_mdp_sweep { QC_MDP_JACOBI = 0, QC_MDP_GAUSS_SEIDEL = 1 } qc_mdp_sweep;
const char *qc_mdp_sweep_name(qc_mdp_sweep v);
int qc_mdp_sweep_parse(const char *s, qc_mdp_sweep *v, qc_err *err);

typedef enum qc_mdp_eval {
    QC_MDP_EVAL_AUTO = 0,      /* banded direct when it fits, else iterative */
    QC_MDP_EVAL_DIRECT = 1,    /* banded direct (QC_ENOTSUP if no band room) */
    QC_MDP_EVAL_ITERATIVE = 2  /* symmetric Gauss-Seidel */
} qc_mdp_eval;
const char *qc_mdp_eval_name(qc_mdp_eval v);
int qc_mdp_eval_parse(const char *s, qc_mdp_eval *v, qc_err *err);

typedef struct qc_mdp_params {
    double tol;        /* RVI: stop when span(Tv - v) < tol (per step) */
    double tau;        /* aperiodicity transform; < 0: automatic */
    size_t max_iter;   /* RVI sweeps, PI improvement steps */
    qc_mdp_sweep sweep;
    qc_mdp_eval eval;
    double eval_tol;   /* iterative evaluation: relative change per sweep */
    size_t eval_max;   /* iterative evaluation: most sweeps */
    size_t ref;        /* RVI (Jacobi): v(ref) = 0. PI: preferred r */
    double omega;      /* Gauss-Seidel relaxation (1: none) */
    /* RVI: called now and then with the fraction done, from how far the
     * span has fallen towards tol on a log scale (or the sweeps used of
     * max_iter, if larger); NULL: none */
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
} qc_mdp_params;

/* tol 1e-9, tau automatic, max_iter 10^6, Gauss-Seidel, automatic
 * evaluation, eval_tol 1e-13, eval_max 10^6, ref 0, omega 1.
 *
 * omega over-relaxes the Gauss-Seidel sweep, v(s) += omega (new - v(s));
 * the fixed point and the (Jacobi) stopping test are unchanged, so a run
 * that stops is as correct as with omega = 1; 1 < omega < 2 may shorten
 * the run and may also keep it from converging. */
void qc_mdp_params_init(qc_mdp_params *o);

typedef struct qc_mdp_result {
    double gain;       /* per step: PI exact; RVI (lo + hi) / 2 */
    double gain_lo;    /* RVI: min(Tv - v); PI: gain */
    double gain_hi;    /* RVI: max(Tv - v); PI: gain */
    size_t iterations; /* RVI: sweeps (bound checks included); PI: steps */
    size_t eval_sweeps;/* PI with iterative evaluation: all inner sweeps */
    double tau;        /* the transform used */
    int converged;     /* 1 when the stopping rule was met */
} qc_mdp_result;

/* A workspace for m and for any model with no more states, pairs,
 * transitions and bandwidth. Band storage (for direct evaluation and the
 * stationary distribution) is reserved when S (2b+1) <= band_limit
 * doubles (0: a default of 2^24). NULL with err set: QC_EINVAL for a
 * model not finished, QC_ENOMEM. */
qc_mdp_ws *qc_mdp_ws_alloc(const qc_mdp *m, size_t band_limit, qc_err *err);
/* The same from sizes: for any model with at most nstates states,
 * ntrans transitions and bandwidth band. */
qc_mdp_ws *qc_mdp_ws_alloc_for(size_t nstates, size_t ntrans, size_t band, size_t band_limit,
                               qc_err *err);
void qc_mdp_ws_free(qc_mdp_ws *w);

/* Relative value iteration. v holds the starting values on entry (zeros
 * for a cold start) and the relative values h (h(ref) = 0; for
 * Gauss-Seidel ref is state 0) on return; policy receives the greedy
 * policy of the last Tv (lowest action among those within a relative
 * 1e-12 of the minimum). Returns QC_ERANGE (with the bounds filled in)
 * when max_iter sweeps did not meet tol. */
int qc_mdp_rvi(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, double *v,
               unsigned *policy, qc_mdp_result *res, qc_err *err);

/* Policy iteration from the policy given in `policy` (pass zeros to
 * start from the first actions). On return policy is optimal and h its
 * relative values. The model must be communicating: when the start or an
 * improved policy has two closed classes, the policy is kept on its
 * closed class of least gain and every other state is given an action
 * leading into it (Puterman, section 9.5); QC_EINVAL when some state
 * cannot reach it under any action. QC_ERANGE when max_iter steps did
 * not settle. */
int qc_mdp_pi(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, unsigned *policy,
              double *h, qc_mdp_result *res, qc_err *err);

/* Gain per step and relative values of one (unichain) policy. h(r) = 0
 * for r = o->ref if it is recurrent, else the first state of the
 * recurrent class. h may be NULL. */
int qc_mdp_evaluate(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o,
                    const unsigned *policy, double *gain, double *h, qc_err *err);

/* Stationary distribution of the policy's chain into pi (sums to 1;
 * transient states 0). QC_EINVAL when the chain has two closed classes. */
int qc_mdp_stationary(const qc_mdp *m, qc_mdp_ws *w, const unsigned *policy, double *pi,
                      qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
