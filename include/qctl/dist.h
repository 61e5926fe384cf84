/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/dist.h: probability distributions named by a text spec.
 *
 * Every command that takes a time or a size takes it as a spec:
 *
 *   exp:RATE              exponential, mean 1/RATE
 *   det:VALUE             deterministic
 *   uniform:A,B           uniform on [A, B]
 *   erlang:K,RATE         sum of K exponentials of RATE (mean K/RATE)
 *   hyperexp:P1,R1,P2,R2  exp:R1 with probability P1, else exp:R2 (P1+P2=1)
 *   gamma:SHAPE,SCALE     mean SHAPE*SCALE
 *   lognormal:MU,SIGMA    log of it is normal(MU, SIGMA)
 *   weibull:SHAPE,SCALE   F(x) = 1 - exp(-(x/SCALE)^SHAPE)
 *   pareto:ALPHA,XM       F(x) = 1 - (XM/x)^ALPHA for x >= XM
 *   bpareto:ALPHA,L,H     Pareto truncated to [L, H]
 *   lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2[,W3,MU3,SIGMA3]
 *                         mixture of 2 or 3 lognormals, weights summing to 1
 *   expmix:W1,R1,W2,R2[,W3,R3]
 *                         mixture of 2 or 3 exponentials (hyperexponential)
 *   gpd:XI,SIGMA,U        generalized Pareto above U: for y = x - U >= 0,
 *                         P(X - U > y) = (1 + XI y / SIGMA)^(-1/XI)
 *                         (exp(-y / SIGMA) for XI = 0)
 *   empirical:FILE[,COL]  the samples in FILE, one per line or CSV column COL
 *                         (1-based number or header name); drawn uniformly
 *                         from the samples (the empirical distribution)
 *
 * Each distribution knows its mean, variance and CDF. Sampling is a switch
 * on the kind, with the exponential inlined (it is the hot path of most
 * simulations); the others draw through GSL's variates on the qc_rng.
 *
 * Ownership: qc_dist_parse fills a caller-owned qc_dist; an empirical one
 * holds its samples, released by qc_dist_free (safe on a zeroed qc_dist and
 * on one whose parse failed). Errors: 0 or a negative QC_E* code with a
 * message naming the field or character that is wrong. */
#ifndef QCTL_DIST_H
#define QCTL_DIST_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/error.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_dist_kind {
    QC_DIST_NONE = 0,
    QC_DIST_EXP,
    QC_DIST_DET,
    QC_DIST_UNIFORM,
    QC_DIST_ERLANG,
    QC_DIST_HYPEREXP,
    QC_DIST_GAMMA,
    QC_DIST_LOGNORMAL,
    QC_DIST_WEIBULL,
    QC_DIST_PARETO,
    QC_DIST_BPARETO,
    QC_DIST_EMPIRICAL,
    QC_DIST_LNMIX,
    QC_DIST_EXPMIX,
    QC_DIST_GPD
} qc_dist_kind;
const char *qc_dist_kind_name(qc_dist_kind v);
int qc_dist_kind_parse(const char *s, qc_dist_kind *v, qc_err *err);

#define QC_DIST_MAXPAR 9

typedef struct qc_dist {
    qc_dist_kind kind;
    double p[QC_DIST_MAXPAR]; /* parameters in spec order (erlang: p[0] = K;
                                 mixtures: weight, then the component's
                                 parameters, component by component; a
                                 two-component one has zeros after them) */
    double *samples; /* empirical: sorted ascending, n of them */
    size_t n;
} qc_dist;

/* Parses spec into d. On error d is left zeroed (nothing to free) and the
 * message says which field or character is wrong, e.g.
 *   "exp:-1": field 1 (RATE) must be > 0
 *   "gama:1,2": unknown distribution "gama" at column 1
 * An empirical file that cannot be read or holds a bad number reports
 * FILE:LINE. */
int qc_dist_parse(qc_dist *d, const char *spec, qc_err *err);

/* Builds an empirical distribution from n samples (copied). */
int qc_dist_empirical(qc_dist *d, const double *x, size_t n, qc_err *err);

/* Releases what d holds and zeroes it. */
void qc_dist_free(qc_dist *d);

/* Room that qc_dist_format needs for any distribution. */
#define QC_DIST_FORMAT_MAX 320

/* Writes the canonical spec of d (empirical: "empirical:<n> samples"),
 * each number in the shortest form that reads back exactly. Returns 0,
 * QC_ERANGE if size is too small (buf then holds a truncated string), or
 * QC_EINVAL for an empty qc_dist. */
int qc_dist_format(const qc_dist *d, char *buf, size_t size);

/* Mean; INFINITY where it does not exist (pareto with ALPHA <= 1). */
double qc_dist_mean(const qc_dist *d);
/* Variance; INFINITY where it does not exist (pareto with ALPHA <= 2). */
double qc_dist_var(const qc_dist *d);
/* P(X <= x). */
double qc_dist_cdf(const qc_dist *d, double x);
/* Smallest x with P(X <= x) >= q, for q in (0, 1); q = 0 and q = 1 give
 * the ends of the support, q outside [0, 1] gives NAN. */
double qc_dist_quantile(const qc_dist *d, double q);

/* Out-of-line sampler for every kind; prefer qc_dist_sample. */
double qc__dist_sample_slow(const qc_dist *d, qc_rng *r);

/* One sample from d using stream r. */
static inline double qc_dist_sample(const qc_dist *d, qc_rng *r)
{
    if (d->kind == QC_DIST_EXP)
        return qc_rng_exp(r, d->p[0]);
    if (d->kind == QC_DIST_DET)
        return d->p[0];
    return qc__dist_sample_slow(d, r);
}

/* A buffered sampler: draws QC_SAMPLER_BATCH values of d from r at a time
 * and hands them out one by one. The sequence is exactly that of calling
 * qc_dist_sample repeatedly on r; only the moment of drawing changes. A
 * simulation's event chain then does not wait on each log(): the batch
 * loop has independent iterations the processor overlaps. The sampler
 * keeps pointers to d and r, which must outlive it and not move. */
#define QC_SAMPLER_BATCH 64

typedef struct qc_sampler {
    const qc_dist *d;
    qc_rng *r;
    unsigned i;
    double buf[QC_SAMPLER_BATCH];
} qc_sampler;

static inline void qc_sampler_init(qc_sampler *s, const qc_dist *d, qc_rng *r)
{
    s->d = d;
    s->r = r;
    s->i = QC_SAMPLER_BATCH;
}

/* Draws the next QC_SAMPLER_BATCH values (out of line: once in 64
 * draws, while the draw below is inlined into every caller). */
void qc__sampler_refill(qc_sampler *s);

/* The next value of the sequence. */
QC_HOT double qc_sampler_next(qc_sampler *s)
{
    if (s->i == QC_SAMPLER_BATCH)
        qc__sampler_refill(s);
    return s->buf[s->i++];
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
