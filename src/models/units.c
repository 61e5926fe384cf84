/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.c: the warm-up cut and the intervals over chunks (see units.h). */
#include "units.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int qc__units_init(qc__units *u, int one_run, int mser, size_t nchunks, size_t nmetrics,
                   size_t nci, int tested)
{
    memset(u, 0, sizeof *u);
    u->one_run = one_run;
    u->mser = mser;
    u->nchunks = nchunks;
    u->ncand = nchunks / 2 + 1;
    u->nmetrics = nmetrics;
    u->nci = nci;
    u->tested = tested;
    u->independent = 1;
    u->vn_stat = NAN;
    size_t ncol = nchunks > QC__UNITS_BMAX ? nchunks : QC__UNITS_BMAX;
    u->col = malloc((ncol + 1) * sizeof *u->col);
    u->brows = calloc(QC__UNITS_BMAX * nmetrics, sizeof *u->brows);
    if (!u->col || !u->brows) {
        qc__units_free(u);
        return QC_ENOMEM;
    }
    return 0;
}

static int grow(qc__units *u)
{
    if (u->reps < u->cap)
        return 0;
    unsigned cap = u->cap ? 2 * u->cap : 16;
    int *k0s = realloc(u->k0s, (size_t)cap * sizeof *k0s);
    if (k0s == NULL)
        return QC_ENOMEM;
    u->k0s = k0s;
    /* scratch: a series of nchunks, or one value per replication */
    size_t ncol = u->nchunks > QC__UNITS_BMAX ? u->nchunks : QC__UNITS_BMAX;
    if (cap > ncol)
        ncol = cap;
    double *col = realloc(u->col, (ncol + 1) * sizeof *col);
    if (col == NULL)
        return QC_ENOMEM;
    u->col = col;
    double *rows = realloc(u->rows, (size_t)cap * u->ncand * u->nmetrics * sizeof *rows);
    if (rows == NULL)
        return QC_ENOMEM;
    u->rows = rows;
    double *num = realloc(u->num, (size_t)cap * u->nchunks * sizeof *num);
    if (num == NULL)
        return QC_ENOMEM;
    u->num = num;
    double *den = realloc(u->den, (size_t)cap * u->nchunks * sizeof *den);
    if (den == NULL)
        return QC_ENOMEM;
    u->den = den;
    u->cap = cap;
    return 0;
}

static double *row(const qc__units *u, unsigned rep, size_t k)
{
    return &u->rows[((size_t)rep * u->ncand + k) * u->nmetrics];
}

/* MSER over z[0..m): the smallest minimizer d of M2(z[d..m)) / (m - d)^2
 * over d <= m/2. */
static size_t mser(const double *z, size_t m)
{
    if (m < 4)
        return 0;
    qc_welford suf;
    qc_welford_init(&suf);
    size_t best = 0;
    double best_val = INFINITY;
    for (size_t d = m; d-- > 0;) {
        qc_welford_add(&suf, z[d]);
        if (d > m / 2)
            continue;
        double k = (double)(m - d);
        double v = suf.m2 / (k * k);
        /* walking d down, "<=" keeps the smallest d among ties */
        if (v <= best_val) {
            best_val = v;
            best = d;
        }
    }
    return best;
}

/* The cut on the mean series of replications [0, reps) except `skip`
 * (reps: none skipped). */
static int cut_of(qc__units *u, unsigned reps, unsigned skip)
{
    if (!u->mser)
        return 0;
    if (reps == 0 || (reps == 1 && skip == 0))
        return 1;
    double *z = u->col;
    for (size_t k = 0; k < u->nchunks; k++) {
        double a = 0, b = 0;
        for (unsigned r = 0; r < reps; r++) {
            if (r == skip)
                continue;
            a += u->num[(size_t)r * u->nchunks + k];
            b += u->den[(size_t)r * u->nchunks + k];
        }
        if (!(b > 0) || !isfinite(a))
            return 1; /* a chunk with nothing in it: no series to cut on */
        z[k] = a / b;
    }
    /* At least the first chunk: it holds the empty start, whose effect
     * on a measure MSER does not look at (the throughput, through the
     * number in system at the window's start) can still be many of its
     * standard errors when that measure is nearly deterministic. */
    size_t d = mser(z, u->nchunks);
    return d > 0 ? (int)d : 1;
}

int qc__units_cut_last(qc__units *u)
{
    unsigned before = u->reps - 1;
    return before == 0 ? cut_of(u, 1, 1) : cut_of(u, before, before);
}


/* The integrated autocorrelation time (in chunks) of the tested series
 * z = num/den over chunks [k0 of each replication, nchunks), replications
 * [0, reps): Geyer's initial positive sequence on the autocovariances
 * pooled over the replications, each series about its own mean. Chunks
 * with nothing in them are left out of the series. NAN when no series
 * has two values or none has spread. *kept: mean chunks kept. */
static double tau_of(qc__units *u, unsigned reps, const int *k0s, int k0, double *kept)
{
    size_t nc = u->nchunks;
    double *z = u->col; /* room for nchunks */
    /* lag sums: up to nchunks/2 lags */
    double c[QC__UNITS_MAXLAG + 1];
    size_t maxlag = nc / 2 < QC__UNITS_MAXLAG ? nc / 2 : QC__UNITS_MAXLAG;
    memset(c, 0, sizeof c);
    double npts = 0, nkept = 0;
    for (unsigned r = 0; r < reps; r++) {
        size_t from = (size_t)(k0s ? k0s[r] : k0), n = 0;
        for (size_t k = from; k < nc; k++) {
            double a = u->num[(size_t)r * nc + k], b = u->den[(size_t)r * nc + k];
            if (b > 0 && isfinite(a))
                z[n++] = a / b;
        }
        nkept += (double)(nc - from);
        if (n < 2)
            continue;
        double m = 0;
        for (size_t i = 0; i < n; i++)
            m += z[i];
        m /= (double)n;
        for (size_t i = 0; i < n; i++)
            z[i] -= m;
        for (size_t l = 0; l <= maxlag && l < n; l++) {
            double sl = 0;
            for (size_t i = 0; i + l < n; i++)
                sl += z[i] * z[i + l];
            c[l] += sl;
        }
        npts += (double)n;
    }
    *kept = reps ? nkept / reps : 0;
    if (!(npts > 0) || !(c[0] > 0))
        return NAN;
    /* the biased estimator (divided by all the points): positive definite,
     * and what Geyer's sequence is stated for */
    for (size_t l = 0; l <= maxlag; l++)
        c[l] /= npts;
    /* Gamma_m = c(2m) + c(2m+1): positive and decreasing for a reversible
     * chain; summed while positive, each kept no larger than the one
     * before (the initial monotone sequence) */
    double sum = 0, prev = INFINITY;
    for (size_t m = 0; 2 * m + 1 <= maxlag; m++) {
        double g = c[2 * m] + c[2 * m + 1];
        if (!(g > 0))
            break;
        if (g > prev)
            g = prev;
        sum += g;
        prev = g;
    }
    double tau = (2 * sum - c[0]) / c[0];
    return tau < 1 ? 1 : tau;
}

/* One run: the batches of chunks [k0, nchunks) by Fishman's rule. */
static void choose_batches(qc__units *u, int k0, qc__summarize_fn f, void *ctx)
{
    int kept = (int)u->nchunks - k0;
    for (int b = QC__UNITS_BMAX; b >= QC__UNITS_BMIN; b /= 2) {
        int m = kept / b;
        if (m < 1)
            continue;
        int first = (int)u->nchunks - m * b;
        for (int i = 0; i < b; i++)
            f(ctx, first + i * m, first + (i + 1) * m, &u->brows[(size_t)i * u->nmetrics]);
        for (int i = 0; i < b; i++)
            u->col[i] = u->brows[(size_t)i * u->nmetrics + (size_t)u->tested];
        u->nbatches = (size_t)b;
        u->vn_stat = qc_von_neumann(u->col, (size_t)b);
        /* a series without spread or without values cannot be tested:
         * nothing says the batches are dependent */
        u->independent = !(u->vn_stat > gsl_cdf_ugaussian_Qinv(0.10));
        if (u->independent)
            return;
    }
}

int qc__units_add(qc__units *u, const double *num, const double *den, qc__summarize_fn f,
                  void *ctx)
{
    if (grow(u) != 0)
        return QC_ENOMEM;
    unsigned r = u->reps;
    memcpy(&u->num[(size_t)r * u->nchunks], num, u->nchunks * sizeof *num);
    memcpy(&u->den[(size_t)r * u->nchunks], den, u->nchunks * sizeof *den);
    u->reps++;
    if (u->one_run) {
        u->k0 = cut_of(u, u->reps, u->reps);
        choose_batches(u, u->k0, f, ctx);
        return 0;
    }
    for (size_t k = u->ncand; k-- > 0;)
        f(ctx, (int)k, (int)u->nchunks, row(u, r, k));
    return 0;
}

void qc__units_set(qc__units *u, unsigned rep, size_t m, double v)
{
    if (u->one_run) {
        for (size_t i = 0; i < QC__UNITS_BMAX; i++)
            u->brows[i * u->nmetrics + m] = v;
        return;
    }
    for (size_t k = 0; k < u->ncand; k++)
        row(u, rep, k)[m] = v;
}

void qc__units_finish(qc__units *u, double level, qc_ci *out)
{
    size_t n;
    if (!u->one_run) {
        /* each replication's cut from the others' mean series: a cut that
         * cannot see the replication's own excursions cannot select on
         * them (one chosen on all of them removed early highs and biased
         * heavy-tailed cases low) */
        for (unsigned r = 0; r < u->reps; r++)
            u->k0s[r] = cut_of(u, u->reps, r);
        u->k0 = cut_of(u, u->reps, u->reps);
        n = u->reps;
    } else {
        n = u->nbatches;
    }
    for (size_t m = 0; m < u->nci; m++) {
        size_t nv = 0;
        for (size_t i = 0; i < n; i++) {
            double v = u->one_run ? u->brows[i * u->nmetrics + m]
                                  : row(u, (unsigned)i, (size_t)u->k0s[i])[m];
            if (isfinite(v))
                u->col[nv++] = v;
        }
        /* A metric undefined in some units (no customer in a batch, say)
         * rests on the units where it is defined. */
        if (nv == 0 || qc_ci_t(u->col, nv, level, &out[m], NULL) != 0)
            out[m] = (qc_ci){NAN, NAN, NAN, NAN, level, nv};
    }
}

/* Ordinary least squares of y on 0..n-1: slope, its standard error (NAN
 * when n < 3) and the mean of y. */
static void ols(const double *y, size_t n, double *slope, double *se, double *mean)
{
    double xm = ((double)n - 1) / 2, ym = 0;
    for (size_t i = 0; i < n; i++)
        ym += y[i];
    ym /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += ((double)i - xm) * ((double)i - xm);
        sxy += ((double)i - xm) * (y[i] - ym);
    }
    *mean = ym;
    *slope = sxx > 0 ? sxy / sxx : NAN;
    *se = NAN;
    if (n < 3 || !(sxx > 0))
        return;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double e = y[i] - ym - *slope * ((double)i - xm);
        sse += e * e;
    }
    *se = sqrt(sse / ((double)n - 2) / sxx);
}

int qc__units_trend(qc__units *u, qc__trend *t)
{
    memset(t, 0, sizeof *t);
    t->stat = t->p = t->rise = NAN;
    size_t h = u->nchunks / 2, len = u->nchunks - h;
    if (u->reps == 0 || len < 8)
        return -1;
    if (u->reps >= 2) {
        /* each replication's OLS slope over the last half of its window:
         * independent and identically distributed across replications,
         * so their t statistic needs no model of the dependence inside a
         * replication */
        qc_welford w;
        qc_welford_init(&w);
        double level = 0;
        unsigned nlevel = 0;
        double *y = u->col; /* room for nchunks */
        for (unsigned r = 0; r < u->reps; r++) {
            size_t n = 0;
            for (size_t k = h; k < u->nchunks; k++) {
                double a = u->num[(size_t)r * u->nchunks + k];
                double b = u->den[(size_t)r * u->nchunks + k];
                if (!(b > 0) || !isfinite(a))
                    return -1; /* a gap in the series: no slope to compare */
                y[n++] = a / b;
            }
            double b1, se, ym;
            ols(y, n, &b1, &se, &ym);
            if (!isfinite(b1))
                return -1;
            qc_welford_add(&w, b1 * (double)len);
            level += ym;
            nlevel++;
        }
        double sd = sqrt(qc_welford_var(&w));
        level /= nlevel;
        t->df = u->reps - 1;
        t->stat = sd > 0 ? w.mean / (sd / sqrt((double)w.n)) : (w.mean != 0 ? copysign(INFINITY, w.mean) : 0);
        t->rise = level > 0 ? w.mean / level : NAN;
    } else {
        /* one run: QC__UNITS_TREND_BATCHES batch means over the last half,
         * and the OLS slope's t statistic on them */
        const size_t nb = QC__UNITS_TREND_BATCHES, m = len / nb;
        double y[QC__UNITS_TREND_BATCHES];
        for (size_t i = 0; i < nb; i++) {
            double a = 0, b = 0;
            for (size_t k = u->nchunks - (nb - i) * m; k < u->nchunks - (nb - i - 1) * m; k++) {
                a += u->num[k];
                b += u->den[k];
            }
            if (!(b > 0) || !isfinite(a))
                return -1;
            y[i] = a / b;
        }
        double b1, se, ym;
        ols(y, nb, &b1, &se, &ym);
        if (!isfinite(b1) || !isfinite(se))
            return -1;
        t->df = (unsigned)nb - 2;
        t->stat = se > 0 ? b1 / se : (b1 != 0 ? copysign(INFINITY, b1) : 0);
        t->rise = ym > 0 ? b1 * (double)nb / ym : NAN;
    }
    /* one-sided: only a rise is evidence (see units.h) */
    t->p = isnan(t->stat) ? NAN : gsl_cdf_tdist_Q(t->stat, (double)t->df);
    t->detected = t->p < QC__UNITS_TREND_LEVEL && t->rise >= QC__UNITS_TREND_RISE;
    return 0;
}

void qc__units_support(qc__units *u, qc__support *s)
{
    memset(s, 0, sizeof *s);
    s->tau = tau_of(u, u->reps, u->one_run ? NULL : u->k0s, u->k0, &s->kept);
    s->neff = isfinite(s->tau) ? s->kept / s->tau : NAN;
    s->cut_at_limit = u->mser && u->k0 >= (int)u->ncand - 1;
    double need = u->one_run ? QC__UNITS_NEFF_ONE : QC__UNITS_NEFF_REP;
    s->supported = u->reps > 0 && s->neff >= need && !s->cut_at_limit;
}

int qc__units_short(const qc__units *u, const qc__support *s, const char *what,
                    double per_chunk, char *buf, size_t n)
{
    if (s->supported)
        return 0;
    if (s->cut_at_limit)
        snprintf(buf, n, "the warm-up cut went to its limit, half the window (%d of %zu "
                 "chunks): the run may not have reached its steady state", u->k0, u->nchunks);
    else if (!isfinite(s->neff))
        snprintf(buf, n, "%s have no spread to measure a correlation from", what);
    else
        snprintf(buf, n, "%s stay correlated over about %.3g %s, so %s holds only about %.3g "
                 "independent observations (at least %.0f are needed for the interval to "
                 "cover)",
                 what, isfinite(per_chunk) ? s->tau * per_chunk : s->tau,
                 isfinite(per_chunk) ? "customers" : "chunks",
                 u->one_run ? "the run" : "each replication", s->neff,
                 u->one_run ? QC__UNITS_NEFF_ONE : QC__UNITS_NEFF_REP);
    return 1;
}

double qc__units_sum(const qc__units *u, size_t m)
{
    double s = 0;
    if (u->one_run) {
        for (size_t i = 0; i < u->nbatches; i++)
            s += u->brows[i * u->nmetrics + m];
        return s;
    }
    for (unsigned r = 0; r < u->reps; r++)
        s += row(u, r, (size_t)u->k0s[r])[m];
    return s;
}

void qc__units_free(qc__units *u)
{
    free(u->rows);
    free(u->k0s);
    free(u->num);
    free(u->den);
    free(u->brows);
    free(u->col);
    memset(u, 0, sizeof *u);
}
