/* SPDX-License-Identifier: GPL-3.0-or-later */
/* stats.c: output analysis: mergeable moments, time averages, t-intervals,
 * batch means, MSER warm-up truncation and lag-1 autocorrelation.
 *
 * The one idea throughout is to never form a difference of two large sums.
 * Moments are carried as (n, mean, M2) and combined with Chan, Golub and
 * LeVeque's pairwise rule
 *     n = na + nb,  delta = mean_b - mean_a,
 *     mean = mean_a + delta * nb / n,
 *     M2 = M2a + M2b + delta^2 * na * nb / n,
 * which is exact algebra and adds only non-negative terms, so a long run
 * whose values sit far from zero (times near 1e9 s, say) keeps its variance
 * to working precision where sum(x^2) - n mean^2 would keep nothing.
 *
 * MSER (White, 1997) needs the spread of every suffix z[d..m-1] for d up to
 * m/2. Walking the series backwards and feeding each value to a Welford
 * accumulator gives each suffix's (n, mean, M2) in O(1), so the whole
 * search is O(m) time and O(1) space, and stays stable for the same reason
 * as above (suffix sums of z and z^2 would cancel).
 *
 * Functions that fail leave their outputs untouched. */
#include "qctl/stats.h"

#include <gsl/gsl_cdf.h>
#include "core/gsl_quiet.h"
#include "core/names.h"
#include <math.h>
#include <string.h>

void qc_welford_merge(qc_welford *dst, const qc_welford *src)
{
    if (src->n == 0)
        return;
    if (dst->n == 0) {
        *dst = *src;
        return;
    }
    const double na = (double)dst->n;
    const double nb = (double)src->n;
    const double n = na + nb;
    const double delta = src->mean - dst->mean;
    dst->mean += delta * (nb / n);
    dst->m2 += src->m2 + delta * delta * (na * (nb / n));
    dst->n += src->n;
}

double qc_welford_var(const qc_welford *w)
{
    if (w->n < 2)
        return NAN;
    return w->m2 / (double)(w->n - 1);
}

double qc_tavg_mean(const qc_tavg *a, double t)
{
    /* Past tlast the path still holds its last value; before tlast the
     * area already counts time after t, which cannot be taken back. */
    if (!(t > a->t0) || t < a->tlast)
        return NAN;
    const double area = a->area + a->value * (t - a->tlast);
    return area / (t - a->t0);
}

static int check_level(double level, qc_err *err)
{
    if (!(level > 0.0 && level < 1.0))
        return qc_err_set(err, QC_EINVAL,
                          "confidence level %g is not strictly between 0 and 1",
                          level);
    return 0;
}

/* The t-interval from the moments of nv independent values. The quantile
 * is taken from the upper tail, Qinv((1 - level)/2), which keeps its
 * accuracy for levels close to 1 where (1 + level)/2 would round to 1. */
static void ci_from_moments(const qc_welford *w, double level, qc_ci *out)
{
    out->mean = w->mean;
    out->level = level;
    out->n = (size_t)w->n;
    if (w->n < 2) {
        out->half = NAN;
        out->lo = NAN;
        out->hi = NAN;
        return;
    }
    const double nu = (double)(w->n - 1);
    gsl_error_handler_t *h = qc__gsl_quiet();
    const double tq = gsl_cdf_tdist_Qinv((1.0 - level) / 2.0, nu);
    qc__gsl_restore(h);
    const double se = sqrt(qc_welford_var(w) / (double)w->n);
    out->half = tq * se;
    out->lo = w->mean - out->half;
    out->hi = w->mean + out->half;
}

/* The one t-interval loop. SKIP (qc_ci_t_finite) leaves non-finite
 * values out, and no values at all give the empty interval (n = 0);
 * otherwise (qc_ci_t) a non-finite value or no value is an error. */
static int ci_t(const double *x, size_t n, double level, int skip, qc_ci *out, qc_err *err)
{
    if (n == 0 && !skip)
        return qc_err_set(err, QC_EINVAL, "t-interval of no values (n = 0)");
    if (x == NULL && n > 0)
        return qc_err_set(err, QC_EINVAL, "t-interval: values are NULL");
    int rc = check_level(level, err);
    if (rc != 0)
        return rc;
    qc_welford w;
    qc_welford_init(&w);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            if (skip)
                continue;
            return qc_err_set(err, QC_EINVAL,
                              "t-interval: value %zu is not finite (%g)", i,
                              x[i]);
        }
        qc_welford_add(&w, x[i]);
    }
    if (w.n == 0) {
        *out = (qc_ci){NAN, NAN, NAN, NAN, level, 0};
        return 0;
    }
    ci_from_moments(&w, level, out);
    return 0;
}

int qc_ci_t(const double *x, size_t n, double level, qc_ci *out, qc_err *err)
{
    return ci_t(x, n, level, 0, out, err);
}

/* "mser": the cut chosen by MSER-5; "auto" and "mser5" are the flags'
 * spellings of the same choice (qctl sim queue/pool --warmup auto). */
static const char *const warmup_names[] = {"mser", "fixed"};

const char *qc_warmup_mode_name(qc_warmup_mode v)
{
    return qc__name_of(warmup_names, sizeof warmup_names / sizeof *warmup_names, (int)v);
}

int qc_warmup_mode_parse(const char *s, qc_warmup_mode *v, qc_err *err)
{
    if (s != NULL && (strcmp(s, "auto") == 0 || strcmp(s, "mser5") == 0)) {
        *v = QC_WARMUP_MSER5;
        return 0;
    }
    int i = 0;
    int rc = qc__name_parse(s, warmup_names, sizeof warmup_names / sizeof *warmup_names, &i, err);
    if (rc == 0)
        *v = (qc_warmup_mode)i;
    return rc;
}

int qc_ci_t_finite(const double *x, size_t n, double level, qc_ci *out, qc_err *err)
{
    return ci_t(x, n, level, 1, out, err);
}

int qc_batch_means(const double *y, size_t n, size_t nbatch, double level,
                   qc_ci *out, qc_err *err)
{
    if (nbatch < 2)
        return qc_err_set(err, QC_EINVAL,
                          "batch means: %zu batches, at least 2 are needed",
                          nbatch);
    if (n < nbatch)
        return qc_err_set(err, QC_EINVAL,
                          "batch means: %zu values cannot fill %zu batches", n,
                          nbatch);
    if (y == NULL)
        return qc_err_set(err, QC_EINVAL, "batch means: values are NULL");
    int rc = check_level(level, err);
    if (rc != 0)
        return rc;
    /* The leading remainder is dropped: it is the part of a run most
     * likely still affected by the start-up. */
    const size_t b = n / nbatch;
    const size_t first = n % nbatch;
    /* Each batch is summed relative to the first kept value: batches of
     * values near 1e9 then add small numbers, not large ones. */
    const double shift = y[first];
    qc_welford w;
    qc_welford_init(&w);
    for (size_t k = 0; k < nbatch; k++) {
        const double *p = y + first + k * b;
        double s = 0.0;
        for (size_t i = 0; i < b; i++) {
            if (!isfinite(p[i]))
                return qc_err_set(err, QC_EINVAL,
                                  "batch means: value %zu is not finite (%g)",
                                  first + k * b + i, p[i]);
            s += p[i] - shift;
        }
        qc_welford_add(&w, s / (double)b);
    }
    w.mean += shift;
    ci_from_moments(&w, level, out);
    return 0;
}

/* MSER over the m batch means of size b of y (b = 1: y is already the
 * series of batch means). MSER(d) = M2(z[d..m-1]) / (m - d)^2 for
 * d = 0..m/2; the smallest minimizing d is returned. The batch mean is
 * formed as (y0 + ... + y_{b-1}) / b, left to right, so MSER-5 and MSER on
 * batches of 5 formed the same way by a caller agree exactly. */
static int mser_select(const double *y, size_t m, size_t b, const char *what,
                       size_t *best_d, qc_err *err)
{
    const size_t dmax = m / 2;
    qc_welford suf;
    qc_welford_init(&suf);
    size_t best = 0;
    double best_val = INFINITY;
    for (size_t d = m; d-- > 0;) {
        const double *p = y + d * b;
        double s = 0.0;
        for (size_t i = 0; i < b; i++) {
            if (!isfinite(p[i]))
                return qc_err_set(err, QC_EINVAL,
                                  "%s: value %zu is not finite (%g)", what,
                                  d * b + i, p[i]);
            s += p[i];
        }
        qc_welford_add(&suf, s / (double)b); /* exact when b = 1 */
        if (d > dmax)
            continue;
        const double k = (double)(m - d);
        const double v = suf.m2 / (k * k);
        /* Walking d downwards, "<=" keeps the smallest d among ties: the
         * least data is thrown away when dropping more does not help. */
        if (v <= best_val) {
            best_val = v;
            best = d;
        }
    }
    *best_d = best;
    return 0;
}

int qc_mser5(const double *y, size_t n, size_t *cut, qc_err *err)
{
    if (n < 10)
        return qc_err_set(err, QC_EINVAL,
                          "MSER-5: %zu values, at least 10 (two batches of 5) "
                          "are needed",
                          n);
    if (y == NULL)
        return qc_err_set(err, QC_EINVAL, "MSER-5: values are NULL");
    /* The n % 5 trailing values do not fill a batch and are not read. */
    size_t d = 0;
    int rc = mser_select(y, n / 5, 5, "MSER-5", &d, err);
    if (rc != 0)
        return rc;
    *cut = 5 * d;
    return 0;
}

int qc_mser_batches(const double *z, size_t nb, size_t *dropped, qc_err *err)
{
    if (nb < 2)
        return qc_err_set(err, QC_EINVAL,
                          "MSER: %zu batch means, at least 2 are needed", nb);
    if (z == NULL)
        return qc_err_set(err, QC_EINVAL, "MSER: values are NULL");
    return mser_select(z, nb, 1, "MSER", dropped, err);
}

double qc_lag1_autocorr(const double *x, size_t n)
{
    if (n < 3 || x == NULL)
        return NAN;
    qc_welford w;
    qc_welford_init(&w);
    for (size_t i = 0; i < n; i++)
        qc_welford_add(&w, x[i]);
    /* Both sums are about the overall mean, the usual (biased, but always
     * in [-1, 1]) estimator r1 = c1 / c0. */
    double c1 = 0.0;
    for (size_t i = 0; i + 1 < n; i++)
        c1 += (x[i] - w.mean) * (x[i + 1] - w.mean);
    if (!(w.m2 > 0.0))
        return NAN;
    return c1 / w.m2;
}

double qc_von_neumann(const double *x, size_t n)
{
    if (n < 3 || x == NULL)
        return NAN;
    qc_welford w;
    qc_welford_init(&w);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return NAN;
        qc_welford_add(&w, x[i]);
    }
    if (!(w.m2 > 0.0))
        return NAN;
    double d2 = 0.0;
    for (size_t i = 0; i + 1 < n; i++)
        d2 += (x[i] - x[i + 1]) * (x[i] - x[i + 1]);
    const double c = 1.0 - d2 / (2.0 * w.m2);
    const double nn = (double)n;
    return c / sqrt((nn - 2.0) / (nn * nn - 1.0));
}
