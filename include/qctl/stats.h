/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/stats.h: output analysis for simulations.
 *
 * - qc_welford: running mean and variance (Welford's update), mergeable
 *   (Chan et al.'s pairwise formula), stable for long runs.
 * - qc_tavg: the time-weighted average of a piecewise-constant path, such
 *   as the number in system: the integral of the path over the time it was
 *   observed, divided by that time.
 * - qc_mser5: warm-up truncation by MSER-5 (White, 1997): the series is
 *   averaged in batches of 5, and the truncation point d (in batches) that
 *   minimizes the marginal standard error
 *       MSER(d) = sum_{j>d} (Z_j - mean_{>d} Z)^2 / (m - d)^2
 *   over d <= m/2 is chosen.
 * - qc_ci_t: Student-t confidence interval of the mean of independent
 *   values (replications, or batch means of one long run).
 * - qc_batch_means: the same from one correlated series cut into batches.
 *
 * Ownership: all structures are plain values, nothing to free. Functions
 * that read arrays never keep them. */
#ifndef QCTL_STATS_H
#define QCTL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_welford {
    uint64_t n;
    double mean;
    double m2; /* sum of squared deviations from the mean */
} qc_welford;

static inline void qc_welford_init(qc_welford *w)
{
    w->n = 0;
    w->mean = 0.0;
    w->m2 = 0.0;
}

static inline void qc_welford_add(qc_welford *w, double x)
{
    w->n++;
    double d = x - w->mean;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
}

/* dst += src, as if every value of src had been added to dst. */
void qc_welford_merge(qc_welford *dst, const qc_welford *src);
/* Sample variance (n - 1 in the denominator); NAN when n < 2. */
double qc_welford_var(const qc_welford *w);

typedef struct qc_tavg {
    double t0;    /* start of observation */
    double tlast; /* time of the last change */
    double value; /* current value of the path */
    double area;  /* integral of the path over [t0, tlast] */
} qc_tavg;

/* Starts observing at time t with the path at value v. */
static inline void qc_tavg_start(qc_tavg *a, double t, double v)
{
    a->t0 = t;
    a->tlast = t;
    a->value = v;
    a->area = 0.0;
}

/* The path changes to v at time t (t >= tlast). */
static inline void qc_tavg_set(qc_tavg *a, double t, double v)
{
    a->area += a->value * (t - a->tlast);
    a->tlast = t;
    a->value = v;
}

/* Time average over [t0, t]; NAN when t == t0. */
double qc_tavg_mean(const qc_tavg *a, double t);

/* A confidence interval of a mean. */
typedef struct qc_ci {
    double mean;
    double half;  /* half-width; NAN when n < 2 */
    double lo, hi;
    double level; /* e.g. 0.95 */
    size_t n;     /* number of independent values it rests on */
} qc_ci;

/* t-interval of the mean of x[0..n-1] at the given level (0 < level < 1).
 * n == 1 gives half = NAN. Returns QC_EINVAL for n == 0 or a bad level. */
int qc_ci_t(const double *x, size_t n, double level, qc_ci *out, qc_err *err);

/* The warm-up cut of a steady-state run (qc_queue_params,
 * qc_pool_params: one choice, one name): MSER-5 picks it from the data
 * (stationary arrivals; none when the arrivals vary in time), FIXED cuts
 * the given customers (or time) before the window. Names "mser",
 * "fixed"; qc_warmup_mode_parse also takes "auto" and "mser5" for MSER
 * (the flags' spellings). */
typedef enum qc_warmup_mode {
    QC_WARMUP_MSER5 = 0, /* pick the cut from the data */
    QC_WARMUP_FIXED = 1  /* warmup customers (or time) before the window */
} qc_warmup_mode;
const char *qc_warmup_mode_name(qc_warmup_mode v);
int qc_warmup_mode_parse(const char *s, qc_warmup_mode *v, qc_err *err);

/* The t-interval of the finite values among x[0..n-1] (a replication that
 * never settled, say, is NAN and left out): out->n counts them. None
 * finite gives mean, lo, hi and half NAN and n = 0 (still 0 returned: an
 * absent figure is a result, said as null in JSON). QC_EINVAL only for a
 * bad level. */
int qc_ci_t_finite(const double *x, size_t n, double level, qc_ci *out, qc_err *err);

/* Batch means: cuts y[0..n-1] into nbatch equal consecutive batches
 * (dropping the n % nbatch first values) and forms the t-interval of their
 * means. Returns QC_EINVAL if nbatch < 2 or n < nbatch. */
int qc_batch_means(const double *y, size_t n, size_t nbatch, double level,
                   qc_ci *out, qc_err *err);

/* MSER-5 on y[0..n-1]: returns in *cut the number of leading observations
 * to discard (a multiple of 5, at most about n/2). Returns QC_EINVAL when
 * n < 10. */
int qc_mser5(const double *y, size_t n, size_t *cut, qc_err *err);

/* MSER on series that are already batch means (batch size m in units of
 * the caller's choosing): returns the number of leading batches to drop,
 * at most nb/2. Used when a run keeps only batch summaries. */
int qc_mser_batches(const double *z, size_t nb, size_t *dropped, qc_err *err);

/* Lag-1 autocorrelation of x[0..n-1] (NAN when n < 3 or constant). */
double qc_lag1_autocorr(const double *x, size_t n);

/* Von Neumann's ratio test of independence of x[0..n-1] (von Neumann
 * 1941; as used for batch means by Fishman 1978): the statistic
 *     C = 1 - sum_{i<n-1} (x[i] - x[i+1])^2 / (2 sum (x[i] - mean)^2)
 * divided by its standard deviation sqrt((n - 2) / (n^2 - 1)) under
 * independence, approximately standard normal then; a large positive
 * value says the values are positively correlated. NAN when n < 3 or the
 * values are all equal or not finite. */
double qc_von_neumann(const double *x, size_t n);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
