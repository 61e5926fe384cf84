/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/exact.h: closed forms of the open queue, printed beside what a run
 * estimates so that a user sees at once whether the run agrees.
 *
 * Which queue has which (lambda arrival rate, E[S] mean service, c
 * servers, K capacity, rho = lambda E[S] / c):
 *   - Poisson arrivals, exponential service, or any service under
 *     processor sharing (a symmetric queue: its number in system does not
 *     depend on the service distribution beyond its mean): M/M/c/K's
 *     birth-death probabilities, so every mean (K unlimited: Erlang C).
 *     With FCFS, exponential service and no capacity, the response-time
 *     percentiles too: T = S + W with P(W > t) = C e^{-(c mu - lambda) t}.
 *   - Poisson arrivals, any service, one FCFS server, no capacity:
 *     Pollaczek-Khinchine, E[W] = lambda E[S^2] / (2 (1 - rho)); infinite
 *     when E[S^2] is.
 *   - Renewal arrivals whose Laplace transform is known (exponential,
 *     deterministic, Erlang, gamma, hyperexponential, uniform),
 *     exponential service, one FCFS server, no capacity: GI/M/1, the
 *     response time is exponential with rate mu (1 - sigma), sigma the
 *     root in (0, 1) of sigma = A*(mu (1 - sigma)).
 * Everything else has no closed form here (NAN).
 *
 * Ownership: plain values, nothing to free. */
#ifndef QCTL_EXACT_H
#define QCTL_EXACT_H

#include "qctl/api.h"
#include "qctl/dist.h"
#include "qctl/queue.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_queue_exact {
    double value[QC_QM_COUNT]; /* NAN: no closed form; INFINITY: infinite */
    char model[32];            /* e.g. "M/M/c", "M/G/1 (P-K)"; "" if none */
} qc_queue_exact;

/* The closed forms for the queue p describes (p->customers and the like
 * are not read). Returns the number of metrics with a value. */
int qc_queue_exact_values(const qc_queue_params *p, qc_queue_exact *out);

/* Erlang C: probability of waiting in M/M/c with offered load a = lambda /
 * mu < c (NAN otherwise). */
double qc_erlang_c(unsigned c, double a);

/* M/M/c/K (K = 0: unlimited) with lambda, mu: probability of K in system
 * (blocking), mean number in system and the busy servers' mean. Returns 0,
 * or -1 when there is no stationary distribution (K = 0, lambda >= c mu)
 * or K - c is beyond 1e7 with lambda >= c mu. */
int qc_mmck(double lambda, double mu, unsigned c, uint64_t K, double *p_block, double *mean_n,
            double *mean_busy);

/* q-quantile (0 < q < 1) of the FCFS M/M/c response time. NAN if unstable. */
double qc_mmc_response_quantile(double lambda, double mu, unsigned c, double q);

/* GI/M/1: the root sigma in (0, 1) of sigma = A*(mu (1 - sigma)) for the
 * inter-arrival distribution a (NAN when its transform is not known here
 * or mu E[A] <= 1). */
double qc_gm1_sigma(const qc_dist *a, double mu);

/* Laplace-Stieltjes transform E[e^{-s A}] (s >= 0) of the distributions
 * that have one in closed form here; NAN for the others. */
double qc_dist_lst(const qc_dist *a, double s);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
