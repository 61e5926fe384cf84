/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit.c: maximum-likelihood fitting of distribution families, goodness of
 * fit and confidence intervals.
 *
 * Everything works on qc_fit_data: the distinct values v_i, sorted, with
 * counts c_i, n = sum c_i. A weighted sum over the m distinct values is
 * the same as the plain sum over the n values, so each estimator below is
 * the textbook one written with weights:
 *   exp        r = n / sum c x
 *   lognormal  mu = sum c log x / n,  sigma^2 = sum c (log x - mu)^2 / n
 *   gamma      log k - psi(k) = s := log mean - mean log   (s > 0 by
 *              Jensen unless all values are equal), scale = mean / k;
 *              Minka's generalized Newton step on 1/k, from his closed
 *              approximation, converges in 3-5 steps
 *   weibull    h(k) = sum c z^k log z / sum c z^k - 1/k - mean log z = 0
 *              with z = x / max x (so z^k <= 1 never overflows); h is
 *              increasing, and a bracketed secant/bisection finds its root;
 *              scale = max x (sum c z^k / n)^{1/k}
 *   pareto     xm = min x,  alpha = n / sum c log(x / xm)
 *   gpd        over exceedances y = x - u: the profile log-likelihood in
 *              tau = xi / sigma, xi(tau) = mean log(1 + tau y),
 *              l(tau) = -n log(xi / tau) - n (1 + xi), maximized over a
 *              grid and refined by golden section; tau -> 0 is the
 *              exponential tail (xi = 0). Points with xi <= -1, where the
 *              likelihood is unbounded, are excluded.
 *   mixtures   EM (Dempster, Laird, Rubin 1977): responsibilities
 *              r_ij = w_j f_j(x_i) / sum_l w_l f_l(x_i) in logs (log-sum-
 *              exp), then weighted closed-form M-steps; the log-likelihood
 *              never decreases, and iteration stops when its relative
 *              change is below em_tol.
 *
 * The rounding floor on lognormal components: data recorded on a grid of
 * step delta (whole bytes, microsecond timestamps) have atoms, and a
 * continuous component centred on an atom with sigma -> 0 has an unbounded
 * likelihood. Treating each value as the interval of width delta around
 * it gives the component at least the spread of a uniform on that
 * interval, delta / sqrt(12) on the x scale, i.e. delta / (sqrt(12) e^mu)
 * on the log scale. delta is estimated as the smallest difference between
 * distinct values, which for continuous data is negligible. The floor
 * is the density's: for whole numbers (packet sizes), whose fits are
 * ranked by the binned likelihood, a lognormal mixture is then carried to
 * the binned maximum without it (binned_em: EM for grouped data, an atom
 * being a component whose bin holds all its mass), from every start and
 * from starts on the most frequent values.
 *
 * GSL is called only where it cannot reach its error handler (which
 * aborts): digamma and trigamma of positive arguments, normal CDF and
 * quantile, log-gamma. Chi-square quantiles go through qc_dist's gamma
 * quantile (bisection on a CDF that is safe for every shape), and the
 * small matrices of the score information are inverted here. */
#include "qctl/fit.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

#include "core/gsl_quiet.h"
#include "qctl/rng_gsl.h"
#include "traffic/fit_given.h"
#include "traffic/par.h"
#include "traffic/sort.h"
#include "core/names.h"

/* GSL's special functions with its error handler off (core/gsl_quiet.h):
 * an argument out of their domain gives NaN, which the fits check,
 * instead of aborting the host. */
#define QSF(name)                                                                                  \
    static double q##name(double x)                                                                \
    {                                                                                              \
        gsl_error_handler_t *h = qc__gsl_quiet();                                                  \
        double r = gsl_##name(x);                                                                  \
        qc__gsl_restore(h);                                                                        \
        return r;                                                                                  \
    }
QSF(sf_lngamma)
QSF(sf_psi)
QSF(sf_psi_1)
#undef QSF

#define LOG_SQRT_2PI 0.91893853320467274178
#define QC_SQRT2 1.41421356237309504880
#define EULER_GAMMA 0.57721566490153286061
#define PI_SQ_6 1.64493406684822643647

/* ------------------------------------------------------------------ */
/* Names                                                              */
/* ------------------------------------------------------------------ */

static const char *const family_names[QC_FIT_NFAMILIES] = {
    "exp", "gamma", "lognormal", "weibull", "pareto", "lnmix2",
    "lnmix3", "expmix2", "expmix3", "gpd", "empirical"};
QC__NAMES(qc_fit_family, qc_fit_family_name, qc_fit_family_parse, family_names)

static const char *const criterion_names[] = {"bic", "aic"};
QC__NAMES(qc_fit_criterion, qc_fit_criterion_name, qc_fit_criterion_parse, criterion_names)

static const int nstored[QC_FIT_NFAMILIES] = {1, 2, 2, 2, 2, 6, 9, 4, 6, 4, 0};
static const int nfree[QC_FIT_NFAMILIES] = {1, 2, 2, 2, 2, 5, 8, 3, 5, 2, 0};

int qc_fit_npar(qc_fit_family f)
{
    return (unsigned)f < QC_FIT_NFAMILIES ? nfree[f] : 0;
}

int qc_fit_nstored(qc_fit_family f)
{
    return (unsigned)f < QC_FIT_NFAMILIES ? nstored[f] : 0;
}

static int mix_k(qc_fit_family f)
{
    return f == QC_FIT_LNMIX3 || f == QC_FIT_EXPMIX3 ? 3 : f == QC_FIT_LNMIX2 || f == QC_FIT_EXPMIX2 ? 2 : 1;
}

static int is_lnmix(qc_fit_family f)
{
    return f == QC_FIT_LNMIX2 || f == QC_FIT_LNMIX3;
}

static int is_expmix(qc_fit_family f)
{
    return f == QC_FIT_EXPMIX2 || f == QC_FIT_EXPMIX3;
}

const char *qc_fit_param_name(qc_fit_family f, int i)
{
    static const char *const one[][4] = {
        {"rate"}, {"shape", "scale"}, {"mu", "sigma"}, {"shape", "scale"},
        {"alpha", "xm"}};
    static const char *const lnm[] = {"w1", "w2", "w3", "mu1", "mu2", "mu3",
                                      "sigma1", "sigma2", "sigma3"};
    static const char *const exm[] = {"w1", "w2", "w3", "rate1", "rate2", "rate3"};
    static const char *const gpd[] = {"xi", "sigma", "u", "p_u"};
    if (i < 0 || i >= qc_fit_nstored(f))
        return "?";
    const int k = mix_k(f);
    if (f <= QC_FIT_PARETO)
        return one[f][i];
    if (is_lnmix(f))
        return lnm[(i / k) * 3 + i % k];
    if (is_expmix(f))
        return exm[(i / k) * 3 + i % k];
    if (f == QC_FIT_GPD)
        return gpd[i];
    return "?";
}

/* ------------------------------------------------------------------ */
/* Data                                                               */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void qc_fit_data_free(qc_fit_data *d)
{
    free(d->v);
    free(d->c);
    memset(d, 0, sizeof *d);
}

int qc_fit_data_init(qc_fit_data *d, const double *x, size_t n, qc_err *err)
{
    memset(d, 0, sizeof *d);
    if (n == 0)
        return qc_err_set(err, QC_EEMPTY, "no values to fit");
    double *s = malloc(n * sizeof *s);
    if (s == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory (%zu values)", n);
    for (size_t i = 0; i < n; i++) {
        if (!(x[i] >= 0) || !isfinite(x[i])) {
            free(s);
            return qc_err_set(err, QC_EINVAL, "value %zu is %g: values must be finite and >= 0",
                              i + 1, x[i]);
        }
        s[i] = x[i];
    }
    size_t up = 1; /* already sorted (a caller's sorted copy): no sort */
    while (up < n && s[up - 1] <= s[up])
        up++;
    if (up < n)
        qc__sort_doubles(s, n);
    size_t z = 0;
    while (z < n && s[z] == 0)
        z++;
    if (z == n) {
        free(s);
        return qc_err_set(err, QC_EEMPTY, "all %zu values are 0", n);
    }
    const double floor0 = s[z] / 2;
    for (size_t i = 0; i < z; i++)
        s[i] = floor0;
    d->raised = z;
    /* Merge ties in place: v over s, counts beside. */
    double *c = malloc(n * sizeof *c);
    if (c == NULL) {
        free(s);
        return qc_err_set(err, QC_ENOMEM, "out of memory (%zu values)", n);
    }
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && s[j] == s[i])
            j++;
        s[m] = s[i];
        c[m++] = (double)(j - i);
        i = j;
    }
    /* Means, variance and the grid on the exact values (two passes:
     * stable for large means), before any binning. */
    double sum = 0, sl = 0;
    int integer = 1;
    for (size_t i = 0; i < m; i++) {
        sum += c[i] * s[i];
        sl += c[i] * log(s[i]);
        integer &= s[i] == floor(s[i]);
    }
    d->n = (double)n;
    d->mean = sum / d->n;
    d->mean_log = sl / d->n;
    double ss = 0, step = INFINITY;
    for (size_t i = 0; i < m; i++) {
        ss += c[i] * (s[i] - d->mean) * (s[i] - d->mean);
        if (i > 0 && s[i] - s[i - 1] < step)
            step = s[i] - s[i - 1];
    }
    d->var = ss / d->n;
    d->step = isfinite(step) ? step : 0;
    d->integer = integer && z == 0;
    if (!d->integer && m > QC_FIT_BIN_MIN) {
        /* Log-scale bins (see the essay): each run of values within a
         * factor 1 + QC_FIT_BIN_WIDTH of its first becomes one value, the
         * count-weighted mean of the run (so the sum is kept). */
        size_t b = 0;
        for (size_t i = 0; i < m;) {
            const double top = s[i] * (1 + QC_FIT_BIN_WIDTH);
            double cs = 0, sx = 0;
            size_t j = i;
            for (; j < m && s[j] <= top; j++) {
                cs += c[j];
                sx += c[j] * s[j];
            }
            const double rep = sx / cs;
            s[b] = rep < s[i] ? s[i] : rep > s[j - 1] ? s[j - 1] : rep;
            c[b++] = cs;
            i = j;
        }
        m = b;
        d->binned = QC_FIT_BIN_WIDTH;
    }
    double *v2 = realloc(s, m * sizeof *v2), *c2 = realloc(c, m * sizeof *c2);
    d->v = v2 ? v2 : s;
    d->c = c2 ? c2 : c;
    d->m = m;
    return 0;
}

/* ------------------------------------------------------------------ */
/* Distributions                                                      */
/* ------------------------------------------------------------------ */

void qc_fit_dist_free(qc_fit_dist *m)
{
    qc_dist_free(&m->d);
    memset(m, 0, sizeof *m);
}

static int bad_param(qc_err *err, qc_fit_family f, int i, double v)
{
    return qc_err_set(err, QC_ERANGE, "%s: parameter %s = %.17g is out of range",
                      qc_fit_family_name(f), qc_fit_param_name(f, i), v);
}

int qc_fit_dist_set(qc_fit_dist *m, qc_fit_family f, const double *p, int np, qc_err *err)
{
    memset(m, 0, sizeof *m);
    if ((unsigned)f >= QC_FIT_NFAMILIES || f == QC_FIT_EMPIRICAL)
        return qc_err_set(err, QC_EINVAL, "family %d cannot be set from parameters", (int)f);
    if (np != nstored[f])
        return qc_err_set(err, QC_EINVAL, "%s takes %d parameters, got %d", family_names[f],
                          nstored[f], np);
    for (int i = 0; i < np; i++)
        if (!isfinite(p[i]))
            return bad_param(err, f, i, p[i]);
    const int k = mix_k(f);
    m->family = f;
    m->k = k;
    memcpy(m->p, p, (size_t)np * sizeof *p);
    switch (f) {
    case QC_FIT_EXP:
    case QC_FIT_GAMMA:
    case QC_FIT_WEIBULL:
    case QC_FIT_PARETO:
        for (int i = 0; i < np; i++)
            if (!(p[i] > 0))
                return bad_param(err, f, i, p[i]);
        break;
    case QC_FIT_LOGNORMAL:
        if (!(p[1] > 0))
            return bad_param(err, f, 1, p[1]);
        break;
    case QC_FIT_LNMIX2:
    case QC_FIT_LNMIX3:
    case QC_FIT_EXPMIX2:
    case QC_FIT_EXPMIX3: {
        double sw = 0;
        for (int j = 0; j < k; j++) {
            if (!(p[j] >= 0 && p[j] <= 1))
                return bad_param(err, f, j, p[j]);
            sw += p[j];
        }
        if (fabs(sw - 1) > 1e-6)
            return qc_err_set(err, QC_ERANGE, "%s: weights sum to %.17g, not 1",
                              family_names[f], sw);
        for (int j = 0; j < k; j++)
            m->p[j] = p[j] / sw;
        const int first_pos = is_lnmix(f) ? 2 * k : k;
        for (int i = first_pos; i < np; i++)
            if (!(p[i] > 0))
                return bad_param(err, f, i, p[i]);
        break;
    }
    case QC_FIT_GPD:
        if (!(p[1] > 0))
            return bad_param(err, f, 1, p[1]);
        if (!(p[2] >= 0))
            return bad_param(err, f, 2, p[2]);
        if (!(p[3] > 0 && p[3] <= 1))
            return bad_param(err, f, 3, p[3]);
        break;
    default:
        break;
    }
    /* The qc_dist view, where dist.h has the family: the parameters as
     * stored (gpd: the tail above u given X > u, P(X > u) staying in
     * m->p[3]), mixtures regrouped by component. */
    static const qc_dist_kind kind[QC_FIT_NFAMILIES] = {
        [QC_FIT_EXP] = QC_DIST_EXP,         [QC_FIT_GAMMA] = QC_DIST_GAMMA,
        [QC_FIT_LOGNORMAL] = QC_DIST_LOGNORMAL, [QC_FIT_WEIBULL] = QC_DIST_WEIBULL,
        [QC_FIT_PARETO] = QC_DIST_PARETO,   [QC_FIT_LNMIX2] = QC_DIST_LNMIX,
        [QC_FIT_LNMIX3] = QC_DIST_LNMIX,    [QC_FIT_EXPMIX2] = QC_DIST_EXPMIX,
        [QC_FIT_EXPMIX3] = QC_DIST_EXPMIX,  [QC_FIT_GPD] = QC_DIST_GPD};
    qc_dist *d = &m->d;
    d->kind = kind[f];
    if (is_lnmix(f)) { /* w, mu, sigma */
        for (int j = 0; j < k; j++) {
            d->p[3 * j] = m->p[j];
            d->p[3 * j + 1] = m->p[k + j];
            d->p[3 * j + 2] = m->p[2 * k + j];
        }
    } else if (is_expmix(f)) { /* w, rate */
        for (int j = 0; j < k; j++) {
            d->p[2 * j] = m->p[j];
            d->p[2 * j + 1] = m->p[k + j];
        }
    } else {
        memcpy(d->p, p, (size_t)(f == QC_FIT_GPD ? 3 : np) * sizeof *p);
    }
    return 0;
}

int qc_fit_dist_empirical(qc_fit_dist *m, const double *x, size_t n, qc_err *err)
{
    memset(m, 0, sizeof *m);
    m->family = QC_FIT_EMPIRICAL;
    m->k = 1;
    return qc_dist_empirical(&m->d, x, n, err);
}

/* log f_j for the lognormal component j of a mixture at y = log x (the
 * density of log X; the density of X divides by x). */
static double lnorm_logpdf_y(double y, double mu, double s)
{
    const double z = (y - mu) / s;
    return -log(s) - LOG_SQRT_2PI - 0.5 * z * z;
}

static double gpd_logpdf(const double *p, double x)
{
    const double xi = p[0], s = p[1], y = x - p[2];
    if (y < 0)
        return -INFINITY;
    if (fabs(xi) < 1e-12)
        return -log(s) - y / s;
    const double a = 1 + xi * y / s;
    if (!(a > 0))
        return -INFINITY;
    return -log(s) - (1 / xi + 1) * log(a);
}

/* log f(x) for every family with a density. */
static double logpdf(const qc_fit_dist *m, double x)
{
    const double *p = m->p;
    const int k = m->k;
    switch (m->family) {
    case QC_FIT_EXP:
        return x < 0 ? -INFINITY : log(p[0]) - p[0] * x;
    case QC_FIT_GAMMA:
        if (!(x > 0))
            return -INFINITY;
        return (p[0] - 1) * log(x) - x / p[1] - qsf_lngamma(p[0]) - p[0] * log(p[1]);
    case QC_FIT_LOGNORMAL:
        if (!(x > 0))
            return -INFINITY;
        return lnorm_logpdf_y(log(x), p[0], p[1]) - log(x);
    case QC_FIT_WEIBULL: {
        if (!(x > 0))
            return -INFINITY;
        const double lz = log(x) - log(p[1]);
        return log(p[0]) - log(p[1]) + (p[0] - 1) * lz - exp(p[0] * lz);
    }
    case QC_FIT_PARETO:
        if (x < p[1])
            return -INFINITY;
        return log(p[0]) + p[0] * log(p[1]) - (p[0] + 1) * log(x);
    case QC_FIT_LNMIX2:
    case QC_FIT_LNMIX3: {
        if (!(x > 0))
            return -INFINITY;
        const double y = log(x);
        double lp[3], mx = -INFINITY;
        for (int j = 0; j < k; j++) {
            lp[j] = p[j] > 0 ? log(p[j]) + lnorm_logpdf_y(y, p[k + j], p[2 * k + j]) : -INFINITY;
            if (lp[j] > mx)
                mx = lp[j];
        }
        double s = 0;
        for (int j = 0; j < k; j++)
            s += exp(lp[j] - mx);
        return mx + log(s) - y;
    }
    case QC_FIT_EXPMIX2:
    case QC_FIT_EXPMIX3: {
        if (x < 0)
            return -INFINITY;
        double lp[3], mx = -INFINITY;
        for (int j = 0; j < k; j++) {
            lp[j] = p[j] > 0 ? log(p[j]) + log(p[k + j]) - p[k + j] * x : -INFINITY;
            if (lp[j] > mx)
                mx = lp[j];
        }
        double s = 0;
        for (int j = 0; j < k; j++)
            s += exp(lp[j] - mx);
        return mx + log(s);
    }
    case QC_FIT_GPD:
        return gpd_logpdf(p, x);
    default:
        return NAN;
    }
}

double qc_fit_pdf(const qc_fit_dist *m, double x)
{
    if (m->family == QC_FIT_EMPIRICAL)
        return NAN;
    return exp(logpdf(m, x));
}

/* Every family's CDF, quantile, mean and sampler are those of its qc_dist
 * (dist.c): one implementation of each distribution in the library. */
double qc_fit_cdf(const qc_fit_dist *m, double x)
{
    return m->d.kind != QC_DIST_NONE && !isnan(x) ? qc_dist_cdf(&m->d, x) : NAN;
}

double qc_fit_quantile(const qc_fit_dist *m, double q)
{
    return m->d.kind != QC_DIST_NONE ? qc_dist_quantile(&m->d, q) : NAN;
}

double qc_fit_mean(const qc_fit_dist *m)
{
    return m->d.kind != QC_DIST_NONE ? qc_dist_mean(&m->d) : NAN;
}

double qc_fit_sample(const qc_fit_dist *m, qc_rng *r)
{
    return m->d.kind != QC_DIST_NONE ? qc_dist_sample(&m->d, r) : NAN;
}

/* ------------------------------------------------------------------ */
/* Helpers for intervals                                              */
/* ------------------------------------------------------------------ */

/* The q-quantile of chi-square with nu degrees of freedom, through
 * qc_dist's gamma(nu / 2, 2) (safe for every nu). */
static double chisq_quantile(double q, double nu)
{
    qc_dist g = {QC_DIST_GAMMA, {nu / 2, 2.0, 0, 0}, NULL, 0};
    return qc_dist_quantile(&g, q);
}

static double z_of(double level)
{
    return gsl_cdf_ugaussian_Pinv(0.5 + level / 2);
}

static void wald(qc_fit_result *r, int i, double z, int positive)
{
    const double t = r->dist.p[i], se = r->se[i];
    if (!isfinite(se)) {
        r->lo[i] = r->hi[i] = NAN;
        return;
    }
    if (positive && t > 0) {
        r->lo[i] = t * exp(-z * se / t);
        r->hi[i] = t * exp(z * se / t);
    } else {
        r->lo[i] = t - z * se;
        r->hi[i] = t + z * se;
    }
}

static void no_ci(qc_fit_result *r)
{
    for (int i = 0; i < QC_FIT_MAXPAR; i++)
        r->se[i] = r->lo[i] = r->hi[i] = NAN;
}

/* Inverts the symmetric p x p matrix a in place (Gauss-Jordan, partial
 * pivoting); -1 when it is singular to working precision. */
static int invert(double *a, int p)
{
    double inv[QC_FIT_MAXPAR * QC_FIT_MAXPAR];
    for (int i = 0; i < p * p; i++)
        inv[i] = 0;
    for (int i = 0; i < p; i++)
        inv[i * p + i] = 1;
    double scale = 0;
    for (int i = 0; i < p; i++)
        if (fabs(a[i * p + i]) > scale)
            scale = fabs(a[i * p + i]);
    for (int c = 0; c < p; c++) {
        int best = c;
        for (int r = c + 1; r < p; r++)
            if (fabs(a[r * p + c]) > fabs(a[best * p + c]))
                best = r;
        if (!(fabs(a[best * p + c]) > 1e-13 * scale))
            return -1;
        if (best != c)
            for (int j = 0; j < p; j++) {
                double t = a[c * p + j];
                a[c * p + j] = a[best * p + j];
                a[best * p + j] = t;
                t = inv[c * p + j];
                inv[c * p + j] = inv[best * p + j];
                inv[best * p + j] = t;
            }
        const double d = a[c * p + c];
        for (int j = 0; j < p; j++) {
            a[c * p + j] /= d;
            inv[c * p + j] /= d;
        }
        for (int r = 0; r < p; r++) {
            if (r == c)
                continue;
            const double f = a[r * p + c];
            if (f == 0)
                continue;
            for (int j = 0; j < p; j++) {
                a[r * p + j] -= f * a[c * p + j];
                inv[r * p + j] -= f * inv[c * p + j];
            }
        }
    }
    memcpy(a, inv, (size_t)(p * p) * sizeof *a);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Goodness of fit                                                    */
/* ------------------------------------------------------------------ */

/* KS and AD over distinct values v (counts c, total n) against cdf(m).
 * With ties the rank sums of the AD formula
 *   A^2 = -n - (1/n) sum_i (2i - 1) [log F(x_(i)) + log(1 - F(x_(n+1-i)))]
 * are summed in closed form per distinct value: ranks s+1..s+c contribute
 * (s+c)^2 - s^2 to the first term, and as x_(n+1-i) the same value has
 * i in n-s-c+1..n-s, contributing (n-s)^2 - (n-s-c)^2 to the second. */
static void gof_range(const double *v, const double *c, size_t m, double n,
                      const qc_fit_dist *dist, double *ks, double *ad)
{
    double s = 0, dmax = 0, sum = 0;
    for (size_t i = 0; i < m; i++) {
        double f = qc_fit_cdf(dist, v[i]);
        if (!(f >= 0))
            f = 0;
        const double lo = s / n, hi = (s + c[i]) / n;
        const double a = fabs(hi - f), b = fabs(f - lo);
        if (a > dmax)
            dmax = a;
        if (b > dmax)
            dmax = b;
        const double fc = f < 1e-300 ? 1e-300 : f;
        const double gc = 1 - f < 1e-16 ? 1e-16 : 1 - f;
        const double t1 = (s + c[i]) * (s + c[i]) - s * s;
        const double t2 = (n - s) * (n - s) - (n - s - c[i]) * (n - s - c[i]);
        sum += t1 * log(fc) + t2 * log(gc);
        s += c[i];
    }
    *ks = dmax;
    *ad = -n - sum / n;
}

void qc_fit_gof(const qc_fit_data *d, const qc_fit_dist *m, double *ks, double *ad)
{
    gof_range(d->v, d->c, d->m, d->n, m, ks, ad);
}

/* ------------------------------------------------------------------ */
/* Single families                                                    */
/* ------------------------------------------------------------------ */

/* The log-likelihood. For whole-number data (packet sizes) it is binned:
 * each value x stands for the rounding interval [x - 1/2, x + 1/2], of
 * probability F(x + 1/2) - F(x - 1/2). A density on data with atoms (40-
 * byte ACKs) is otherwise unbounded at a family's boundary: a Pareto with
 * xm on the smallest, most frequent size would "win" any ranking while
 * missing every other mode. The binned value is comparable across
 * families, which is all the ranking needs; where an interval is too
 * narrow relative to x for a CDF difference (x > 1e7) the density is used. */
static double loglik(const qc_fit_data *d, const qc_fit_dist *m)
{
    double ll = 0;
    if (m->family == QC_FIT_GAMMA && !d->integer) {
        /* The hot case for long traces: constants out of the loop. */
        const double k = m->p[0], s = m->p[1];
        const double c0 = -qsf_lngamma(k) - k * log(s);
        for (size_t i = 0; i < d->m; i++)
            ll += d->c[i] * ((k - 1) * log(d->v[i]) - d->v[i] / s + c0);
        return ll;
    }
    for (size_t i = 0; i < d->m; i++) {
        const double x = d->v[i];
        double l;
        if (d->integer && x < 1e7) {
            const double pr = qc_fit_cdf(m, x + 0.5) - qc_fit_cdf(m, x - 0.5);
            l = pr > 0 ? log(pr) : -INFINITY;
            if (!(pr > 1e-12)) /* far in a tail: the density is more accurate */
                l = logpdf(m, x);
        } else {
            l = logpdf(m, x);
        }
        ll += d->c[i] * l;
    }
    return ll;
}

static int set_dist(qc_fit_result *r, qc_fit_family f, const double *p, qc_err *err)
{
    qc_err e = {0};
    if (qc_fit_dist_set(&r->dist, f, p, nstored[f], &e) != 0) {
        r->ok = 0;
        snprintf(r->why, sizeof r->why, "%s", e.msg);
        (void)err;
        return -1;
    }
    return 0;
}

static void fit_exp(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r, qc_err *err)
{
    const double p[1] = {1 / d->mean};
    if (set_dist(r, QC_FIT_EXP, p, err) != 0)
        return;
    /* 2 r sum x ~ chi2(2n), exactly. */
    const double sx = d->mean * d->n, a = (1 - o->level) / 2;
    r->se[0] = p[0] / sqrt(d->n);
    r->lo[0] = chisq_quantile(a, 2 * d->n) / (2 * sx);
    r->hi[0] = chisq_quantile(1 - a, 2 * d->n) / (2 * sx);
    r->ci_method = "exact";
    r->converged = 1;
    r->ok = 1;
}

static void fit_lognormal(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r,
                          qc_err *err)
{
    double ss = 0;
    for (size_t i = 0; i < d->m; i++) {
        const double t = log(d->v[i]) - d->mean_log;
        ss += d->c[i] * t * t;
    }
    const double sigma = sqrt(ss / d->n);
    if (!(sigma > 0)) {
        snprintf(r->why, sizeof r->why, "all values are equal");
        return;
    }
    const double p[2] = {d->mean_log, sigma};
    if (set_dist(r, QC_FIT_LOGNORMAL, p, err) != 0)
        return;
    const double z = z_of(o->level);
    r->se[0] = sigma / sqrt(d->n);
    r->se[1] = sigma / sqrt(2 * d->n);
    wald(r, 0, z, 0);
    wald(r, 1, z, 1);
    r->ci_method = "fisher";
    r->converged = 1;
    r->ok = 1;
}

static void fit_gamma(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r,
                      qc_err *err)
{
    const double s = log(d->mean) - d->mean_log;
    if (!(s > 1e-14)) {
        snprintf(r->why, sizeof r->why, "all values are equal");
        return;
    }
    /* Minka (2002): start and generalized Newton on 1/k. */
    double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
    unsigned it;
    int conv = 0;
    for (it = 1; it <= 100; it++) {
        const double g = log(k) - qsf_psi(k) - s;
        const double gp = 1 / k - qsf_psi_1(k);
        const double inv = 1 / k + g / (k * k * gp);
        const double kn = inv > 0 ? 1 / inv : k * 2;
        const double delta = fabs(kn - k);
        k = kn;
        if (delta <= 1e-12 * k) {
            conv = 1;
            break;
        }
    }
    const double p[2] = {k, d->mean / k};
    if (set_dist(r, QC_FIT_GAMMA, p, err) != 0)
        return;
    /* Inverse Fisher information: Var k = k / (n (k psi1 - 1)),
     * Var scale = scale^2 psi1 / (n (k psi1 - 1)). */
    const double t1 = qsf_psi_1(k), det = k * t1 - 1;
    const double z = z_of(o->level);
    r->se[0] = det > 0 ? sqrt(k / (d->n * det)) : NAN;
    r->se[1] = det > 0 ? p[1] * sqrt(t1 / (d->n * det)) : NAN;
    wald(r, 0, z, 1);
    wald(r, 1, z, 1);
    r->ci_method = "fisher";
    r->iterations = it;
    r->converged = conv;
    r->ok = 1;
}

/* h(k) of the Weibull profile equation, with lz[i] = log(x_i / max). */
static double weibull_h(const qc_fit_data *d, const double *lz, double k, double mean_log_z,
                        double *sz)
{
    double a = 0, b = 0;
    for (size_t i = 0; i < d->m; i++) {
        const double e = d->c[i] * exp(k * lz[i]);
        a += e * lz[i];
        b += e;
    }
    if (sz)
        *sz = b;
    return a / b - 1 / k - mean_log_z;
}

static void fit_weibull(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r,
                        qc_err *err)
{
    if (d->m < 2) {
        snprintf(r->why, sizeof r->why, "all values are equal");
        return;
    }
    const double lmax = log(d->v[d->m - 1]), mlz = d->mean_log - lmax;
    double *lz = malloc(d->m * sizeof *lz);
    if (lz == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    for (size_t i = 0; i < d->m; i++)
        lz[i] = log(d->v[i]) - lmax;
    /* Bracket the root in log k, then bisection with secant steps. */
    double lo = log(1e-3), hi = log(1e3);
    double hlo = weibull_h(d, lz, exp(lo), mlz, NULL), hhi = weibull_h(d, lz, exp(hi), mlz, NULL);
    unsigned it = 0;
    if (!(hlo < 0 && hhi > 0)) {
        snprintf(r->why, sizeof r->why, "shape outside [0.001, 1000]");
        free(lz);
        return;
    }
    double x = 0;
    for (it = 1; it <= 200; it++) {
        x = lo - hlo * (hi - lo) / (hhi - hlo);
        if (!(x > lo && x < hi) || it % 3 == 0)
            x = (lo + hi) / 2; /* every third step halves: guaranteed progress */
        const double hx = weibull_h(d, lz, exp(x), mlz, NULL);
        if (hx < 0) {
            lo = x;
            hlo = hx;
        } else {
            hi = x;
            hhi = hx;
        }
        if (hi - lo < 1e-13)
            break;
    }
    const double k = exp((lo + hi) / 2);
    double sz;
    weibull_h(d, lz, k, mlz, &sz);
    free(lz);
    const double scale = d->v[d->m - 1] * pow(sz / d->n, 1 / k);
    const double p[2] = {k, scale};
    if (set_dist(r, QC_FIT_WEIBULL, p, err) != 0)
        return;
    /* Inverse Fisher information: Var k = 6 k^2 / (pi^2 n),
     * Var scale = 6 ((1-g)^2 + pi^2/6) scale^2 / (pi^2 k^2 n). */
    const double a = (1 - EULER_GAMMA) * (1 - EULER_GAMMA) + PI_SQ_6;
    const double z = z_of(o->level);
    r->se[0] = sqrt(k * k / (PI_SQ_6 * d->n));
    r->se[1] = sqrt(a * scale * scale / (PI_SQ_6 * k * k * d->n));
    wald(r, 0, z, 1);
    wald(r, 1, z, 1);
    r->ci_method = "fisher";
    r->iterations = it;
    r->converged = hi - lo < 1e-10;
    r->ok = 1;
}

static void fit_pareto(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r,
                       qc_err *err)
{
    const double xm = d->v[0];
    const double sl = d->n * (d->mean_log - log(xm));
    if (!(sl > 0) || d->n < 2) {
        snprintf(r->why, sizeof r->why, "all values are equal");
        return;
    }
    const double alpha = d->n / sl;
    const double p[2] = {alpha, xm};
    if (set_dist(r, QC_FIT_PARETO, p, err) != 0)
        return;
    /* 2 n alpha / alpha^ ~ chi2(2(n-1)); min/xm has P(> c) = c^(-n alpha). */
    const double a = (1 - o->level) / 2, nu = 2 * (d->n - 1);
    r->se[0] = alpha / sqrt(d->n);
    r->lo[0] = alpha * chisq_quantile(a, nu) / (2 * d->n);
    r->hi[0] = alpha * chisq_quantile(1 - a, nu) / (2 * d->n);
    r->se[1] = NAN;
    r->lo[1] = xm * pow(1 - o->level, 1 / (d->n * alpha));
    r->hi[1] = xm;
    r->ci_method = "exact";
    r->converged = 1;
    r->ok = 1;
}

/* ---- GPD ------------------------------------------------------------ */

typedef struct exc {
    const double *y; /* exceedances x - u (ascending) */
    const double *c;
    size_t m;
    double n, ymean, ymax;
} exc;

/* Profile log-likelihood at tau; *xi_out receives xi(tau). */
static double gpd_profile(const exc *e, double tau, double *xi_out)
{
    if (tau == 0) {
        *xi_out = 0;
        return -e->n * log(e->ymean) - e->n;
    }
    double s = 0;
    for (size_t i = 0; i < e->m; i++)
        s += e->c[i] * log1p(tau * e->y[i]);
    const double xi = s / e->n;
    *xi_out = xi;
    if (!(xi > -1) || !(xi / tau > 0))
        return -INFINITY;
    return -e->n * log(xi / tau) - e->n * (1 + xi);
}

static void fit_gpd(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *r, qc_err *err)
{
    /* Threshold: the value at rank ceil(q n). */
    const double rank = ceil(o->gpd_quantile * d->n);
    double cum = 0;
    size_t iu = 0;
    while (iu < d->m && cum + d->c[iu] < rank)
        cum += d->c[iu++];
    if (iu >= d->m)
        iu = d->m - 1;
    const double u = d->v[iu];
    const size_t first = iu + 1, m = d->m - first;
    double ne = 0;
    for (size_t i = first; i < d->m; i++)
        ne += d->c[i];
    if (ne < 20 || m < 3) {
        snprintf(r->why, sizeof r->why, "fewer than 20 values above the threshold %g", u);
        return;
    }
    double *y = malloc(m * sizeof *y);
    if (y == NULL) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    double sy = 0;
    for (size_t i = 0; i < m; i++) {
        y[i] = d->v[first + i] - u;
        sy += d->c[first + i] * y[i];
    }
    exc e = {y, d->c + first, m, ne, sy / ne, y[m - 1]};
    /* Grid in s = tau * ymean: negative side towards -ymean/ymax, positive
     * side over decades; then golden section around the best point. */
    enum { NG = 81 };
    double grid[NG], val[NG];
    const double smin = -e.ymean / e.ymax;
    int ng = 0;
    for (int j = 20; j >= 1; j--)
        grid[ng++] = smin * (1 - pow(2, -j / 2.0));
    grid[ng++] = 0;
    for (int j = 0; j < NG - 21; j++)
        grid[ng++] = pow(10, -4 + 8.0 * j / (NG - 22));
    int best = 0;
    double xi;
    for (int j = 0; j < ng; j++) {
        val[j] = gpd_profile(&e, grid[j] / e.ymean, &xi);
        if (val[j] > val[best])
            best = j;
    }
    double a = grid[best > 0 ? best - 1 : 0], b = grid[best < ng - 1 ? best + 1 : ng - 1];
    const double gr = 0.6180339887498949;
    double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
    double f1 = gpd_profile(&e, x1 / e.ymean, &xi), f2 = gpd_profile(&e, x2 / e.ymean, &xi);
    unsigned it = 0;
    for (it = 0; it < 100 && b - a > 1e-10 * (1 + fabs(a) + fabs(b)); it++) {
        if (f1 > f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - gr * (b - a);
            f1 = gpd_profile(&e, x1 / e.ymean, &xi);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + gr * (b - a);
            f2 = gpd_profile(&e, x2 / e.ymean, &xi);
        }
    }
    double sbest = f1 > f2 ? x1 : x2, fbest = f1 > f2 ? f1 : f2;
    if (val[best] > fbest) {
        sbest = grid[best];
        fbest = val[best];
    }
    const double tau = sbest / e.ymean;
    gpd_profile(&e, tau, &xi);
    const double sigma = tau == 0 ? e.ymean : xi / tau;
    free(y);
    if (!isfinite(fbest) || !(sigma > 0)) {
        snprintf(r->why, sizeof r->why, "no maximum of the likelihood found");
        return;
    }
    const double p[4] = {xi, sigma, u, ne / d->n};
    if (set_dist(r, QC_FIT_GPD, p, err) != 0)
        return;
    r->nfit = (size_t)ne;
    r->loglik = fbest;
    no_ci(r);
    if (xi > -0.5) {
        /* Smith (1987): n Cov = (1 + xi) [[1 + xi, -sigma], [-sigma, 2 sigma^2]]. */
        const double z = z_of(o->level);
        r->se[0] = (1 + xi) / sqrt(ne);
        r->se[1] = sigma * sqrt(2 * (1 + xi) / ne);
        wald(r, 0, z, 0);
        wald(r, 1, z, 1);
        r->ci_method = "fisher";
    } else {
        r->ci_method = "none";
    }
    r->iterations = it;
    r->converged = 1;
    r->ok = 1;
    gof_range(d->v + first, d->c + first, m, ne, &r->dist, &r->ks, &r->ad);
}

/* ---- mixtures by EM --------------------------------------------------- */

typedef struct mixw {
    const double *x, *c; /* values and counts */
    size_t m;
    double n;
    const double *y; /* log x for lognormal mixtures (computed once), else x */
    double sg_min;   /* the least lognormal sigma: a bin's width (binned data) */
} mixw;

/* One EM iteration over w (or only the log-likelihood when update is 0);
 * p holds weights, then mu/sigma or rates. Returns the log-likelihood. */
static inline __attribute__((always_inline)) double em_step_body(const mixw *w, int lognormal,
                                                                  int k, double *p, double delta,
                                                                  int update)
{
    double W[3] = {0}, A[3] = {0}, B[3] = {0};
    double lw[3], ls[3];
    for (int j = 0; j < k; j++) {
        lw[j] = p[j] > 0 ? log(p[j]) : -INFINITY;
        ls[j] = lognormal ? log(p[2 * k + j]) : log(p[k + j]);
    }
    double ll = 0;
    for (size_t i = 0; i < w->m; i++) {
        const double x = w->x[i], y = w->y[i];
        double lp[3], mx = -INFINITY;
        for (int j = 0; j < k; j++) {
            if (lognormal) {
                const double zz = (y - p[k + j]) / p[2 * k + j];
                lp[j] = lw[j] - ls[j] - 0.5 * zz * zz;
            } else {
                lp[j] = lw[j] + ls[j] - p[k + j] * x;
            }
            if (lp[j] > mx)
                mx = lp[j];
        }
        double s = 0, e[3];
        for (int j = 0; j < k; j++) /* exp(0) is 1 exactly: no call for the largest */
            s += (e[j] = lp[j] == mx && isfinite(mx) ? 1 : exp(lp[j] - mx));
        ll += w->c[i] * (mx + log(s) - (lognormal ? LOG_SQRT_2PI + y : 0));
        if (!update)
            continue;
        for (int j = 0; j < k; j++) {
            const double rc = w->c[i] * e[j] / s;
            W[j] += rc;
            if (lognormal) {
                const double t = y - p[k + j]; /* about the old mean: stable */
                A[j] += rc * t;
                B[j] += rc * t * t;
            } else {
                A[j] += rc * x;
            }
        }
    }
    if (!update)
        return ll;
    for (int j = 0; j < k; j++) {
        if (!(W[j] > 1e-12 * w->n)) {
            p[j] = 0; /* an empty component: it keeps its place, weight 0 */
            continue;
        }
        p[j] = W[j] / w->n;
        if (lognormal) {
            const double dm = A[j] / W[j];
            const double var = B[j] / W[j] - dm * dm;
            p[k + j] += dm;
            double sg = sqrt(var > 0 ? var : 0);
            double fl = delta > 0 ? delta / (3.4641016151377544 * exp(p[k + j])) : 0;
            if (fl < w->sg_min)
                fl = w->sg_min;
            if (sg < fl)
                sg = fl;
            if (!(sg > 1e-9))
                sg = 1e-9;
            p[2 * k + j] = sg;
        } else {
            p[k + j] = W[j] / A[j];
        }
    }
    return ll;
}

/* em_step_body compiled for each (family, k): the loops over the
 * components unrolled and the family's branch gone from the loop over
 * the values, where EM spends its time (the same operations in the same
 * order: the same bits). */
static double em_step(const mixw *w, int lognormal, int k, double *p, double delta, int update)
{
    if (lognormal)
        return k == 2   ? em_step_body(w, 1, 2, p, delta, update)
               : k == 3 ? em_step_body(w, 1, 3, p, delta, update)
                        : em_step_body(w, 1, k, p, delta, update);
    return k == 2   ? em_step_body(w, 0, 2, p, delta, update)
           : k == 3 ? em_step_body(w, 0, 3, p, delta, update)
                    : em_step_body(w, 0, k, p, delta, update);
}

/* Starting point: k groups of equal total count over the sorted values. */
static void em_init(const mixw *w, int lognormal, int k, double *p)
{
    double target = w->n / k, cum = 0;
    size_t i = 0;
    double tot_y = 0, tot_y2 = 0;
    for (size_t t = 0; t < w->m; t++) {
        const double y = w->y[t];
        tot_y += w->c[t] * y;
        tot_y2 += w->c[t] * y * y;
    }
    const double all_mean = tot_y / w->n;
    double all_sd = sqrt(fmax(tot_y2 / w->n - all_mean * all_mean, 0));
    if (!(all_sd > 0))
        all_sd = 1;
    for (int j = 0; j < k; j++) {
        double s0 = 0, s1 = 0, s2 = 0;
        const double stop = (j + 1) * target;
        while (i < w->m && (cum < stop || j == k - 1)) {
            const double y = w->y[i];
            s0 += w->c[i];
            s1 += w->c[i] * y;
            s2 += w->c[i] * y * y;
            cum += w->c[i];
            i++;
        }
        if (s0 == 0) { /* one heavy tie took the group: reuse the overall */
            s0 = 1;
            s1 = all_mean;
            s2 = all_mean * all_mean + all_sd * all_sd;
        }
        const double mu = s1 / s0;
        double sd = sqrt(fmax(s2 / s0 - mu * mu, 0));
        if (sd < 0.1 * all_sd)
            sd = 0.1 * all_sd;
        p[j] = 1.0 / k;
        if (lognormal) {
            p[k + j] = mu;
            p[2 * k + j] = sd;
        } else {
            p[k + j] = mu > 0 ? 1 / mu : 1 / w->x[w->m - 1];
        }
    }
}

/* Components in order of increasing mean. */
static void sort_components(int lognormal, int k, double *p)
{
    for (int a = 0; a < k; a++)
        for (int b = a + 1; b < k; b++) {
            const double ma = lognormal ? exp(p[k + a] + 0.5 * p[2 * k + a] * p[2 * k + a])
                                        : 1 / p[k + a];
            const double mb = lognormal ? exp(p[k + b] + 0.5 * p[2 * k + b] * p[2 * k + b])
                                        : 1 / p[k + b];
            if (mb < ma) {
                const int np = lognormal ? 3 : 2;
                for (int q = 0; q < np; q++) {
                    const double t = p[q * k + a];
                    p[q * k + a] = p[q * k + b];
                    p[q * k + b] = t;
                }
            }
        }
}

/* Empirical (outer-product-of-scores) information over w, scaled to n
 * values; free parameters: w_1..w_{k-1}, then mu_j, sigma_j or rate_j. */
static int opg_se(const mixw *w, double n, int lognormal, int k, const double *p, double *se)
{
    const int np = (k - 1) + (lognormal ? 2 * k : k);
    double J[QC_FIT_MAXPAR * QC_FIT_MAXPAR] = {0};
    for (size_t i = 0; i < w->m; i++) {
        const double x = w->x[i], y = w->y[i];
        double f[3], fs = 0;
        for (int j = 0; j < k; j++) {
            if (lognormal) {
                const double zz = (y - p[k + j]) / p[2 * k + j];
                f[j] = exp(-0.5 * zz * zz) / p[2 * k + j];
            } else {
                f[j] = p[k + j] * exp(-p[k + j] * x);
            }
            fs += p[j] * f[j];
        }
        if (!(fs > 0))
            continue;
        double s[QC_FIT_MAXPAR];
        int q = 0;
        for (int j = 0; j < k - 1; j++)
            s[q++] = (f[j] - f[k - 1]) / fs;
        for (int j = 0; j < k; j++) {
            const double rr = p[j] * f[j] / fs;
            if (lognormal) {
                const double sg = p[2 * k + j], t = y - p[k + j];
                s[q + j] = rr * t / (sg * sg);
                s[q + k + j] = rr * (t * t / (sg * sg * sg) - 1 / sg);
            } else {
                s[q + j] = rr * (1 / p[k + j] - x);
            }
        }
        for (int a = 0; a < np; a++)
            for (int b = 0; b <= a; b++)
                J[a * np + b] += w->c[i] * s[a] * s[b];
    }
    const double scale = n / w->n;
    for (int a = 0; a < np; a++)
        for (int b = 0; b <= a; b++) {
            J[a * np + b] *= scale;
            J[b * np + a] = J[a * np + b];
        }
    if (invert(J, np) != 0)
        return -1;
    double vw = 0;
    for (int a = 0; a < k - 1; a++) {
        se[a] = sqrt(fmax(J[a * np + a], 0));
        for (int b = 0; b < k - 1; b++)
            vw += J[a * np + b];
    }
    se[k - 1] = sqrt(fmax(vw, 0));
    for (int j = k - 1; j < np; j++)
        se[j + 1] = sqrt(fmax(J[j * np + j], 0));
    return 0;
}

/* A k-means++ start: centres drawn with probability proportional to
 * count times squared distance to the nearest centre chosen (the first by
 * count alone), five Lloyd passes, then each cluster's weight, mean and
 * spread as a component. */

/* A start's component j: lognormal (log-mean mu, log-sd sd) or exponential
 * (rate 1/mu, or 1/max when mu is 0); its weight p[j] is set by the caller. */
static void start_component(const mixw *w, double *p, int k, int j, int lognormal, double mu,
                            double sd)
{
    if (lognormal) {
        p[k + j] = mu;
        p[2 * k + j] = sd;
    } else {
        p[k + j] = mu > 0 ? 1 / mu : 1 / w->x[w->m - 1];
    }
}

/* Scales a start's weights p[0..k) to sum to 1. */
static void start_normalise(double *p, int k)
{
    double ws = 0;
    for (int j = 0; j < k; j++)
        ws += p[j];
    for (int j = 0; j < k; j++)
        p[j] /= ws;
}

static void em_init_kpp(const mixw *w, int lognormal, int k, qc_rng *r, double *p)
{
    double cen[3];
    double all_m = 0, all_s = 0;
    for (size_t i = 0; i < w->m; i++)
        all_m += w->c[i] * w->y[i];
    all_m /= w->n;
    for (size_t i = 0; i < w->m; i++) {
        const double y = w->y[i] - all_m;
        all_s += w->c[i] * y * y;
    }
    all_s = sqrt(all_s / w->n);
    if (!(all_s > 0))
        all_s = 1;
    for (int j = 0; j < k; j++) {
        double tot = 0;
        for (size_t i = 0; i < w->m; i++) {
            const double y = w->y[i];
            double dmin = 1;
            for (int q = 0; q < j; q++)
                dmin = q == 0 ? (y - cen[q]) * (y - cen[q]) : fmin(dmin, (y - cen[q]) * (y - cen[q]));
            tot += w->c[i] * dmin;
        }
        double u = qc_rng_u01(r) * tot, acc = 0;
        size_t pick_i = w->m - 1;
        for (size_t i = 0; i < w->m; i++) {
            const double y = w->y[i];
            double dmin = 1;
            for (int q = 0; q < j; q++)
                dmin = q == 0 ? (y - cen[q]) * (y - cen[q]) : fmin(dmin, (y - cen[q]) * (y - cen[q]));
            acc += w->c[i] * dmin;
            if (acc >= u) {
                pick_i = i;
                break;
            }
        }
        cen[j] = w->y[pick_i];
    }
    double s0[3], s1[3], s2[3];
    for (int pass = 0; pass < 6; pass++) {
        for (int j = 0; j < k; j++)
            s0[j] = s1[j] = s2[j] = 0;
        for (size_t i = 0; i < w->m; i++) {
            const double y = w->y[i];
            int best = 0;
            for (int j = 1; j < k; j++)
                if (fabs(y - cen[j]) < fabs(y - cen[best]))
                    best = j;
            s0[best] += w->c[i];
            s1[best] += w->c[i] * y;
            s2[best] += w->c[i] * y * y;
        }
        for (int j = 0; j < k; j++)
            if (s0[j] > 0)
                cen[j] = s1[j] / s0[j];
    }
    for (int j = 0; j < k; j++) {
        const double mu = s0[j] > 0 ? s1[j] / s0[j] : cen[j];
        double sd = s0[j] > 0 ? sqrt(fmax(s2[j] / s0[j] - mu * mu, 0)) : all_s;
        if (sd < 0.1 * all_s)
            sd = 0.1 * all_s;
        p[j] = (s0[j] > 0 ? s0[j] : 1) / w->n;
        start_component(w, p, k, j, lognormal, mu, sd);
    }
    start_normalise(p, k);
}

/* An atom start: components 0..na-1 sit on na of the most frequent
 * values (drawn with probability proportional to count squared, distinct;
 * or, when r is NULL, the na most frequent), each with the weight of its
 * value and a narrow spread; the other components share the remaining
 * values by k-means++ (quantile groups when r is NULL). Real sizes have
 * sharp modes (ACKs, full segments) that broad starts rarely isolate. */
static void em_init_atoms(const mixw *w, int lognormal, int k, int na, qc_rng *r, double *p)
{
    size_t at[3];
    for (int a = 0; a < na; a++) {
        double tot = 0;
        for (size_t i = 0; i < w->m; i++) {
            int used = 0;
            for (int b = 0; b < a; b++)
                used |= at[b] == i;
            if (!used && w->c[i] >= 2)
                tot += w->c[i] * w->c[i];
        }
        size_t pick_i = 0;
        if (r != NULL) {
            const double u = qc_rng_u01(r) * tot;
            double acc = 0;
            for (size_t i = 0; i < w->m; i++) {
                int used = 0;
                for (int b = 0; b < a; b++)
                    used |= at[b] == i;
                if (used || !(w->c[i] >= 2))
                    continue;
                acc += w->c[i] * w->c[i];
                pick_i = i;
                if (acc >= u)
                    break;
            }
        } else {
            double bc = -1;
            for (size_t i = 0; i < w->m; i++) {
                int used = 0;
                for (int b = 0; b < a; b++)
                    used |= at[b] == i;
                if (!used && w->c[i] > bc) {
                    bc = w->c[i];
                    pick_i = i;
                }
            }
        }
        at[a] = pick_i;
    }
    /* The rest: the values left, as their own data set. */
    double *rc = malloc(w->m * sizeof *rc);
    double rest = 0;
    if (rc == NULL) {
        em_init(w, lognormal, k, p);
        return;
    }
    for (size_t i = 0; i < w->m; i++) {
        int used = 0;
        for (int a = 0; a < na; a++)
            used |= at[a] == i;
        rc[i] = used ? 0 : w->c[i];
        rest += rc[i];
    }
    const int kr = k - na;
    double q[QC_FIT_MAXPAR] = {0};
    mixw rw = {w->x, rc, w->m, rest, w->y, w->sg_min};
    if (rest > 0 && kr > 0) {
        if (r != NULL)
            em_init_kpp(&rw, lognormal, kr, r, q);
        else
            em_init(&rw, lognormal, kr, q);
    }
    free(rc);
    for (int a = 0; a < na; a++) {
        const double x = w->x[at[a]];
        p[a] = w->c[at[a]] / w->n;
        if (lognormal) {
            p[k + a] = log(x);
            p[2 * k + a] = 0.01;
        } else {
            p[k + a] = 1 / x;
        }
    }
    for (int j = 0; j < kr; j++) {
        p[na + j] = (rest > 0 ? q[j] * rest : 1) / w->n;
        if (lognormal) {
            p[k + na + j] = q[kr + j];
            p[2 * k + na + j] = q[2 * kr + j] > 0 ? q[2 * kr + j] : 1;
        } else {
            p[k + na + j] = q[kr + j] > 0 ? q[kr + j] : 1 / w->x[w->m - 1];
        }
    }
    double ws = 0;
    for (int j = 0; j < k; j++)
        ws += p[j];
    for (int j = 0; j < k; j++)
        p[j] /= ws;
}

/* A mode start: a histogram of the (log) values in 40 bins; its local
 * maxima ranked by mass; components 0..k-2 start on the modes ranked
 * off..off+k-2 (mean and mass of the bin and its neighbours, spread one
 * bin), the last on everything else. Real gaps have narrow clusters (a
 * video's frame pacing) that neither quantile groups nor k-means++ isolate. */
#define QC_FIT_HBINS 40
static void em_init_modes(const mixw *w, int lognormal, int k, int off, double *p)
{
    double h[QC_FIT_HBINS] = {0};
    const double y0 = w->y[0];
    const double y1 = w->y[w->m - 1];
    const double bw = (y1 - y0) / QC_FIT_HBINS;
    if (!(bw > 0)) {
        em_init(w, lognormal, k, p);
        return;
    }
    for (size_t i = 0; i < w->m; i++) {
        const double y = w->y[i];
        int b = (int)((y - y0) / bw);
        h[b < 0 ? 0 : b >= QC_FIT_HBINS ? QC_FIT_HBINS - 1 : b] += w->c[i];
    }
    int modes[QC_FIT_HBINS], nm = 0;
    for (int b = 0; b < QC_FIT_HBINS; b++)
        if (h[b] > 0 && (b == 0 || h[b] >= h[b - 1]) && (b == QC_FIT_HBINS - 1 || h[b] > h[b + 1]))
            modes[nm++] = b;
    for (int a = 0; a < nm; a++) /* by mass, largest first */
        for (int b2 = a + 1; b2 < nm; b2++)
            if (h[modes[b2]] > h[modes[a]]) {
                const int t = modes[a];
                modes[a] = modes[b2];
                modes[b2] = t;
            }
    if (nm < k - 1 + off) {
        em_init(w, lognormal, k, p);
        return;
    }
    double s0[3] = {0}, s1[3] = {0}, s2[3] = {0};
    for (size_t i = 0; i < w->m; i++) {
        const double y = w->y[i];
        int b = (int)((y - y0) / bw), j = k - 1;
        b = b < 0 ? 0 : b >= QC_FIT_HBINS ? QC_FIT_HBINS - 1 : b;
        for (int a = 0; a < k - 1; a++)
            if (abs(b - modes[off + a]) <= 1) {
                j = a;
                break;
            }
        s0[j] += w->c[i];
        s1[j] += w->c[i] * y;
        s2[j] += w->c[i] * y * y;
    }
    for (int j = 0; j < k; j++) {
        const double m0 = s0[j] > 0 ? s0[j] : 1;
        const double mu = s0[j] > 0 ? s1[j] / m0 : y0 + bw * (modes[off] + 0.5);
        double sd = sqrt(fmax(s2[j] / m0 - mu * mu, 0));
        if (j < k - 1)
            sd = fmin(fmax(sd, bw / 4), bw);
        else if (!(sd > bw))
            sd = bw;
        p[j] = m0 / w->n;
        start_component(w, p, k, j, lognormal, mu, sd);
    }
    start_normalise(p, k);
}

/* EM from p for at most iters iterations; returns the last
 * log-likelihood (-INFINITY when a step failed), *conv set when the
 * relative change fell below tol. */
static double em_run(const mixw *w, int lognormal, int k, double *p, double delta, unsigned iters,
                     double tol, unsigned *used, int *conv)
{
    double ll = -INFINITY;
    *conv = 0;
    unsigned it;
    for (it = 1; it <= iters; it++) {
        const double lln = em_step(w, lognormal, k, p, delta, 1);
        if (!isfinite(lln)) {
            ll = -INFINITY;
            break;
        }
        if (it > 1 && fabs(lln - ll) <= tol * fabs(lln)) {
            ll = lln;
            *conv = 1;
            break;
        }
        ll = lln;
    }
    if (used)
        *used += it;
    return ll;
}

static int has_empty(int k, const double *p)
{
    for (int j = 0; j < k; j++)
        if (!(p[j] > 0))
            return 1;
    return 0;
}

/* Percentile bootstrap intervals (and standard errors) of a mixture:
 * QC_FIT_BOOT resamples of w, each refitted by EM from the estimate p
 * (components sorted the same way). Used when the information matrix is
 * singular, as it is when a sigma sits at its floor: the bootstrap needs
 * no derivative. Returns 0, or -1 on no memory. */
#define QC_FIT_BOOT 60
/* Resamples of more values than this are drawn as multinomial counts. */
#define QC_FIT_BOOT_DRAWS 100000
static int boot_ci(const mixw *w, int lognormal, int k, const double *p, double delta,
                   double level, uint64_t seed, double *se, double *lo, double *hi)
{
    const int np = lognormal ? 3 * k : 2 * k;
    const size_t m = w->m, nn = (size_t)w->n;
    double *bc = malloc(m * sizeof *bc), *cum = malloc(m * sizeof *cum);
    double *est = malloc((size_t)QC_FIT_BOOT * (size_t)np * sizeof *est);
    if (!bc || !cum || !est) {
        free(bc);
        free(cum);
        free(est);
        return -1;
    }
    double acc = 0;
    for (size_t i = 0; i < m; i++)
        cum[i] = (acc += w->c[i]);
    qc_rng r;
    qc_rng_init(&r, seed, qc_rng_stream(0x600d, QC_STREAM_MISC, 1));
    int nb = 0;
    for (int b = 0; b < QC_FIT_BOOT; b++) {
        memset(bc, 0, m * sizeof *bc);
        if (nn > QC_FIT_BOOT_DRAWS && nn <= UINT_MAX) {
            /* The same multinomial counts by conditional binomials: value
             * i gets Bin(left, c_i / mass left) of the draws not yet
             * placed. O(m) variates instead of O(n): a 10^6-packet size
             * sample (a few thousand distinct values) resamples in
             * microseconds instead of tens of milliseconds. */
            gsl_rng *g = qc_rng_gsl(&r);
            double mass = acc;
            unsigned left = (unsigned)nn;
            for (size_t i = 0; i < m && left > 0; i++) {
                const double pr = i + 1 == m ? 1 : fmin(w->c[i] / mass, 1);
                const unsigned k_i = pr > 0 ? gsl_ran_binomial(g, pr, left) : 0;
                bc[i] = k_i;
                left -= k_i;
                mass -= w->c[i];
            }
        } else {
            for (size_t t = 0; t < nn; t++) {
                const double u = qc_rng_u01(&r) * acc;
                size_t lo_i = 0, hi_i = m - 1;
                while (lo_i < hi_i) {
                    const size_t mid = lo_i + (hi_i - lo_i) / 2;
                    if (cum[mid] > u)
                        hi_i = mid;
                    else
                        lo_i = mid + 1;
                }
                bc[lo_i] += 1;
            }
        }
        mixw bw = {w->x, bc, m, w->n, w->y, w->sg_min};
        double q[QC_FIT_MAXPAR];
        memcpy(q, p, (size_t)np * sizeof *q);
        int conv;
        if (!isfinite(em_run(&bw, lognormal, k, q, delta, 60, 1e-7, NULL, &conv)) ||
            has_empty(k, q))
            continue;
        sort_components(lognormal, k, q);
        memcpy(est + (size_t)nb * (size_t)np, q, (size_t)np * sizeof *q);
        nb++;
    }
    free(bc);
    free(cum);
    if (nb < 10) {
        free(est);
        return -1;
    }
    double *col = malloc((size_t)nb * sizeof *col);
    if (col == NULL) {
        free(est);
        return -1;
    }
    for (int j = 0; j < np; j++) {
        double mu = 0, ss = 0;
        for (int b = 0; b < nb; b++) {
            col[b] = est[(size_t)b * (size_t)np + (size_t)j];
            mu += col[b] / nb;
        }
        for (int b = 0; b < nb; b++)
            ss += (col[b] - mu) * (col[b] - mu);
        se[j] = sqrt(ss / (nb - 1));
        qsort(col, (size_t)nb, sizeof *col, cmp_double);
        const double a = (1 - level) / 2;
        const double ia = a * (nb - 1), ib = (1 - a) * (nb - 1);
        const size_t i0 = (size_t)floor(ia), i1 = (size_t)floor(ib);
        lo[j] = col[i0] + (ia - (double)i0) * (i0 + 1 < (size_t)nb ? col[i0 + 1] - col[i0] : 0);
        hi[j] = col[i1] + (ib - (double)i1) * (i1 + 1 < (size_t)nb ? col[i1 + 1] - col[i1] : 0);
        /* the estimate stays inside its interval */
        lo[j] = fmin(lo[j], p[j]);
        hi[j] = fmax(hi[j], p[j]);
    }
    free(col);
    free(est);
    return 0;
}

/* The starts of a multi-start EM, each from its own stream (start st
 * draws from stream st + 1 of the family), so that they can run in any
 * order on any number of threads: start st writes only p[st], ll[st] and
 * used[st], and the caller picks the best in start order. */
#define QC_FIT_EM_SHORT 40
#define QC_FIT_BINNED_ITERS 2000
#define QC_FIT_BINNED_SHORT 60
#define QC_FIT_ATOM_TOP 6
#define QC_FIT_MAX_STARTS 64
typedef struct start_job {
    const mixw *w;
    const qc_fit_params *o;
    qc_fit_family f;
    int k, lognormal, natoms;
    double delta;
    int starts;
    double p[QC_FIT_MAX_STARTS][QC_FIT_MAXPAR];
    double ll[QC_FIT_MAX_STARTS];
    unsigned used[QC_FIT_MAX_STARTS];
} start_job;

static void run_start(void *ctx, unsigned sti)
{
    start_job *j = ctx;
    const int st = (int)sti;
    const mixw *w = j->w;
    const int k = j->k, lognormal = j->lognormal;
    double *p = j->p[st];
    memset(p, 0, sizeof j->p[st]);
    qc_rng rng;
    qc_rng_init(&rng, j->o->em_seed, qc_rng_stream((uint32_t)j->f, QC_STREAM_MISC, 1 + (uint32_t)st));
    /* Start 0: quantile groups; 1: the k - 1 most frequent values as
     * atoms; 2: the k - 1 largest histogram modes; then in turn
     * k-means++, random atoms (1 to k - 1; when the data have atoms,
     * values seen at least twice) and the next modes. */
    if (st == 0)
        em_init(w, lognormal, k, p);
    else if (st == 1 && lognormal && j->natoms >= k - 1)
        em_init_atoms(w, lognormal, k, k - 1, NULL, p);
    else if (st % 3 == 2)
        em_init_modes(w, lognormal, k, st / 3, p);
    else if (st % 3 == 1 && lognormal && j->natoms >= 1 + (st / 3) % (k - 1))
        em_init_atoms(w, lognormal, k, 1 + (st / 3) % (k - 1), &rng, p);
    else
        em_init_kpp(w, lognormal, k, &rng, p);
    int conv;
    const unsigned short_it = j->starts > 1 ? QC_FIT_EM_SHORT : j->o->em_max_iter;
    j->used[st] = 0;
    j->ll[st] = em_run(w, lognormal, k, p, j->delta, short_it, j->o->em_tol, &j->used[st], &conv);
}

/* The starts' data: each run of w's values within a factor 1 + width
 * (qc_fit_params.em_coarse) of its first merged into one, the run's count-weighted
 * mean of x and of y (EM's sufficient statistics per value), so that the
 * short start phase costs about log(max / min) / width values
 * instead of w->m (10^6 gaps in 10^-3 bins: 8417 values, about a tenth
 * as many merged). A
 * start only has to find the right basin: the two best then run to
 * convergence on w itself. A component is kept at least a merged bin wide
 * (sigma >= width / sqrt(12)), as in the finer binning.
 * Returns the buffer behind *out (NULL, *out = *w: w is small enough, or
 * no memory, which only costs time). */
#define QC_FIT_EM_COARSE_MIN 2000
static double *coarse_starts(const mixw *w, double width, mixw *out)
{
    *out = *w;
    if (w->m <= QC_FIT_EM_COARSE_MIN || !(width > 0))
        return NULL;
    double *buf = malloc(3 * w->m * sizeof *buf);
    if (buf == NULL)
        return NULL;
    double *x = buf, *y = buf + w->m, *c = buf + 2 * w->m;
    size_t b = 0;
    for (size_t i = 0; i < w->m;) {
        const double top = w->x[i] * (1 + width);
        double cs = 0, sx = 0, sy = 0;
        size_t j = i;
        for (; j < w->m && (j == i || w->x[j] <= top); j++) {
            cs += w->c[j];
            sx += w->c[j] * w->x[j];
            sy += w->c[j] * w->y[j];
        }
        i = j;
        if (!(cs > 0))
            continue;
        x[b] = sx / cs;
        y[b] = sy / cs;
        c[b++] = cs;
    }
    out->x = x;
    out->y = w->y == w->x ? x : y;
    out->c = c;
    out->m = b;
    out->sg_min = fmax(w->sg_min, width / 3.4641016151377544);
    return buf;
}

/* ---- the binned likelihood of a lognormal mixture, maximized -------------
 * For whole-number data each value x stands for its bin [x - 1/2, x + 1/2]
 * (y in [log(x - 1/2), log(x + 1/2)] on the log scale), and the ranking
 * compares families by the binned log-likelihood sum c log P(bin). That
 * likelihood is bounded (a bin's probability is at most 1), so it needs no
 * sigma floor: an atom (40-byte ACKs, full segments) is a component whose
 * bin holds all its mass, sigma -> 0. EM on the density keeps the floor
 * (its likelihood is unbounded without one), which leaves each atom's
 * component spilling about 8% of its mass into the neighbouring bins:
 * tens of units of binned log-likelihood on a real capture. So the
 * density EM's result is polished by EM for grouped data (McLachlan and
 * Jones 1988): the E-step takes each component's normal truncated to the
 * bin (its mass P, first and second moments), the M-step the weighted
 * moments; every step raises the binned likelihood. */

/* A standard normal's mass on [a, b] (in logs) and the first two moments of
 * z truncated to it. Tails are differenced on the side where the mass is
 * small (no cancellation); a bin too narrow or too far out for a
 * difference of CDFs is taken at its midpoint (density times width). */
static void bin_moments(double a, double b, double *logp, double *ez, double *ez2)
{
    const double zm = 0.5 * (a + b), w = b - a;
    double P = 0;
    if (w > 1e-5 && fabs(zm) < 37) {
        if (a > 0)
            P = 0.5 * (erfc(a / QC_SQRT2) - erfc(b / QC_SQRT2));
        else if (b < 0)
            P = 0.5 * (erfc(-b / QC_SQRT2) - erfc(-a / QC_SQRT2));
        else
            P = 1 - 0.5 * erfc(b / QC_SQRT2) - 0.5 * erfc(-a / QC_SQRT2);
    }
    if (P > 1e-250) {
        const double pa = exp(-0.5 * a * a - LOG_SQRT_2PI), pb = exp(-0.5 * b * b - LOG_SQRT_2PI);
        *logp = log(P);
        *ez = (pa - pb) / P;
        *ez2 = 1 + (a * pa - b * pb) / P;
        /* the truncated moments stay inside the bin: rounding cannot push
         * them out */
        if (!(*ez >= a && *ez <= b))
            *ez = zm;
        if (!(*ez2 >= *ez * *ez))
            *ez2 = *ez * *ez;
        return;
    }
    *logp = -0.5 * zm * zm - LOG_SQRT_2PI + log(w > 0 ? w : DBL_MIN);
    *ez = zm;
    *ez2 = zm * zm + w * w / 12;
}

/* The least sigma of a binned component: far below any bin's width on the
 * log scale (1 / x for x < 1e7), so that an atom's bin holds its mass to
 * double precision, and far above underflow. */
#define QC_FIT_ATOM_SIGMA 1e-9

/* One EM step on the binned likelihood of a k-lognormal mixture p over the
 * whole-number data w (lo[i], hi[i]: the log ends of value i's bin).
 * Returns the binned log-likelihood at p before the step (-INFINITY when
 * it cannot be computed); p is updated when update is set. */
static double binned_em_step(const mixw *w, const double *lo, const double *hi, int k, double *p,
                             int update)
{
    double W[3] = {0}, A[3] = {0}, B[3] = {0};
    double ll = 0;
    for (size_t i = 0; i < w->m; i++) {
        double lp[3], ez[3], ez2[3], mx = -INFINITY;
        for (int j = 0; j < k; j++) {
            const double mu = p[k + j], sg = p[2 * k + j];
            double lpj;
            bin_moments((lo[i] - mu) / sg, (hi[i] - mu) / sg, &lpj, &ez[j], &ez2[j]);
            lp[j] = p[j] > 0 ? log(p[j]) + lpj : -INFINITY;
            if (lp[j] > mx)
                mx = lp[j];
        }
        if (!isfinite(mx))
            return -INFINITY;
        double sum = 0, e[3];
        for (int j = 0; j < k; j++)
            sum += (e[j] = exp(lp[j] - mx));
        ll += w->c[i] * (mx + log(sum));
        if (!update)
            continue;
        for (int j = 0; j < k; j++) {
            const double rc = w->c[i] * e[j] / sum;
            W[j] += rc;
            A[j] += rc * ez[j];
            B[j] += rc * ez2[j];
        }
    }
    if (!update)
        return ll;
    for (int j = 0; j < k; j++) {
        if (!(W[j] > 1e-12 * w->n)) {
            p[j] = 0;
            continue;
        }
        const double mu = p[k + j], sg = p[2 * k + j];
        const double dz = A[j] / W[j]; /* the mean's move, in old sigmas */
        double var = B[j] / W[j] - dz * dz;
        p[j] = W[j] / w->n;
        p[k + j] = mu + sg * dz;
        const double sgn = sg * sqrt(var > 0 ? var : 0);
        p[2 * k + j] = sgn > QC_FIT_ATOM_SIGMA ? sgn : QC_FIT_ATOM_SIGMA;
    }
    return ll;
}

/* EM on the binned likelihood from p until its relative change is below
 * tol or iters steps; p is kept at the best point seen. Returns the binned
 * log-likelihood at p (-INFINITY when the bins cannot be formed). */
static double binned_em(const mixw *w, int k, double *p, unsigned iters, double tol)
{
    double *lo = malloc(2 * w->m * sizeof *lo);
    if (lo == NULL)
        return -INFINITY;
    double *hi = lo + w->m;
    for (size_t i = 0; i < w->m; i++) {
        lo[i] = log(w->x[i] - 0.5);
        hi[i] = log(w->x[i] + 0.5);
    }
    double best = -INFINITY, q[QC_FIT_MAXPAR];
    memcpy(q, p, sizeof q);
    for (unsigned it = 0; it <= iters; it++) {
        double cur[QC_FIT_MAXPAR];
        memcpy(cur, q, sizeof cur);
        const double ll = binned_em_step(w, lo, hi, k, q, it < iters);
        if (!isfinite(ll))
            break;
        if (ll >= best) {
            const int small = isfinite(best) && ll - best <= tol * fabs(ll);
            best = ll;
            memcpy(p, cur, sizeof cur);
            if (small)
                break;
        }
        if (has_empty(k, q))
            break;
    }
    free(lo);
    return best;
}

/* A binned start: components 0..na-1 are atoms on the values at[0..na)
 * (weight: the value's share, sigma well inside its bin), the other k - na
 * share the remaining values by quantile groups. */
static void binned_atom_start(const mixw *w, int k, int na, const size_t *at, double *p)
{
    double rc[QC_FIT_ATOM_TOP] = {0};
    double rest = w->n;
    for (int a = 0; a < na; a++) {
        rc[a] = w->c[at[a]];
        rest -= rc[a];
    }
    double q[QC_FIT_MAXPAR] = {0};
    const int kr = k - na;
    double *cc = malloc(w->m * sizeof *cc);
    if (cc != NULL && rest > 0) {
        for (size_t i = 0; i < w->m; i++) {
            cc[i] = w->c[i];
            for (int a = 0; a < na; a++)
                if (at[a] == i)
                    cc[i] = 0;
        }
        mixw rw = {w->x, cc, w->m, rest, w->y, w->sg_min};
        em_init(&rw, 1, kr, q);
    } else {
        for (int j = 0; j < kr; j++) {
            q[j] = 1.0 / kr;
            q[kr + j] = w->y[w->m / 2];
            q[2 * kr + j] = 1;
        }
    }
    free(cc);
    for (int a = 0; a < na; a++) {
        p[a] = rc[a] / w->n;
        p[k + a] = w->y[at[a]];
        p[2 * k + a] = 0.1 / w->x[at[a]];
    }
    for (int j = 0; j < kr; j++) {
        p[na + j] = q[j] * (rest > 0 ? rest : 1) / w->n;
        p[k + na + j] = q[kr + j];
        p[2 * k + na + j] = q[2 * kr + j] > 0 ? q[2 * kr + j] : 1;
    }
    start_normalise(p, k);
}

/* The binned starts: every set of k - 1 atoms (and, for three
 * components, every single atom beside two broad components) among the
 * QC_FIT_ATOM_TOP most frequent values seen at least twice, each carried
 * QC_FIT_BINNED_SHORT binned-EM steps; the two best so far are kept in
 * best/bestll. Real sizes have several sharp modes (ACKs, full segments,
 * an application's fixed records) and the binned maximum keeps the ones
 * that pay most; density EM, for which all atoms look alike at its floor,
 * seldom starts on the right pair. */
static void binned_atom_starts(const mixw *w, int k, double best[2][QC_FIT_MAXPAR],
                               double bestll[2])
{
    size_t top[QC_FIT_ATOM_TOP];
    int nt = 0;
    for (int t = 0; t < QC_FIT_ATOM_TOP; t++) { /* the most frequent, in order */
        double bc = 1.5;
        size_t bi = SIZE_MAX;
        for (size_t i = 0; i < w->m; i++) {
            int used = 0;
            for (int u = 0; u < nt; u++)
                used |= top[u] == i;
            if (!used && w->c[i] > bc) {
                bc = w->c[i];
                bi = i;
            }
        }
        if (bi == SIZE_MAX)
            break;
        top[nt++] = bi;
    }
    for (int na = k - 1; na >= 1 && na >= k - 2; na--) {
        int idx[2] = {0, 1};
        for (;;) {
            if (idx[na - 1] >= nt)
                break;
            size_t at[2];
            for (int a = 0; a < na; a++)
                at[a] = top[idx[a]];
            double p[QC_FIT_MAXPAR] = {0};
            binned_atom_start(w, k, na, at, p);
            const double ll = binned_em(w, k, p, QC_FIT_BINNED_SHORT, 1e-10);
            if (isfinite(ll) && !has_empty(k, p)) {
                if (ll > bestll[0]) {
                    memcpy(best[1], best[0], sizeof best[0]);
                    bestll[1] = bestll[0];
                    memcpy(best[0], p, sizeof best[0]);
                    bestll[0] = ll;
                } else if (ll > bestll[1]) {
                    memcpy(best[1], p, sizeof best[1]);
                    bestll[1] = ll;
                }
            }
            /* the next combination of na indices out of nt */
            if (na == 1) {
                idx[0]++;
            } else if (++idx[1] >= nt) {
                idx[0]++;
                idx[1] = idx[0] + 1;
            }
        }
    }
}

/* Multi-start EM (see the essay): every start runs QC_FIT_EM_SHORT
 * iterations (the starts on threads for large data; on coarser bins of
 * large data, coarse_starts), the two best go on to convergence, and the
 * one with the higher log-likelihood wins. */
static void fit_mixture(const qc_fit_data *d, qc_fit_family f, const qc_fit_params *o,
                        qc_fit_result *r, qc_err *err)
{
    const int k = mix_k(f), lognormal = is_lnmix(f);
    if (d->m < (size_t)(2 * k)) {
        snprintf(r->why, sizeof r->why, "fewer than %d distinct values", 2 * k);
        return;
    }
    mixw full = {d->v, d->c, d->m, d->n, d->v, d->binned / 3.4641016151377544}, sub = full;
    double *sx = NULL, *sc = NULL, *fy = NULL, *sy = NULL;
    const char *why = "out of memory"; /* until the fit is done */
    start_job *sj = NULL;
    if (lognormal) {
        /* EM works on log x: taken once here, not in every iteration. */
        if ((fy = malloc(d->m * sizeof *fy)) == NULL)
            goto out;
        for (size_t i = 0; i < d->m; i++)
            fy[i] = log(d->v[i]);
        full.y = sub.y = fy;
    }
    if (d->m > QC_FIT_EM_MAX) {
        /* Evenly spaced order statistics: the value at rank (i + 1/2) n / M. */
        const size_t M = QC_FIT_EM_MAX;
        sx = malloc(M * sizeof *sx);
        sc = malloc(M * sizeof *sc);
        if (sx == NULL || sc == NULL)
            goto out;
        double cum = d->c[0];
        size_t t = 0;
        for (size_t i = 0; i < M; i++) {
            const double rank = (i + 0.5) * d->n / (double)M;
            while (t + 1 < d->m && cum < rank)
                cum += d->c[++t];
            sx[i] = d->v[t];
            sc[i] = 1;
        }
        sub.x = sx;
        sub.c = sc;
        sub.m = M;
        sub.n = (double)M;
        sub.y = sx;
        if (lognormal) {
            if ((sy = malloc(M * sizeof *sy)) == NULL)
                goto out;
            for (size_t i = 0; i < M; i++)
                sy[i] = log(sx[i]);
            sub.y = sy;
        }
    }
    /* The sigma floor: a component is at least as wide as the grid the
     * data are recorded on (1 for whole numbers, the clock's resolution
     * for times when given, else the smallest step between values). */
    const double delta = d->integer ? 1 : o->resolution > 0 ? o->resolution : d->step;
    const int starts = o->em_starts == 0                   ? 1
                       : o->em_starts > QC_FIT_MAX_STARTS ? QC_FIT_MAX_STARTS
                                                          : (int)o->em_starts;
    const int np = lognormal ? 3 * k : 2 * k;
    double best[2][QC_FIT_MAXPAR], bestll[2] = {-INFINITY, -INFINITY};
    unsigned it = 0;
    int natoms = 0; /* values seen twice or more (binned data: not known) */
    for (size_t i = 0; i < sub.m && natoms < 3 && !d->binned; i++)
        natoms += sub.c[i] >= 2;
    if ((sj = malloc(sizeof *sj)) == NULL)
        goto out;
    mixw coarse;
    double *cbuf = starts > 1 ? coarse_starts(&sub, o->em_coarse, &coarse) : NULL;
    *sj = (start_job){.w = cbuf ? &coarse : &sub, .o = o, .f = f, .k = k, .lognormal = lognormal,
                      .natoms = natoms, .delta = delta, .starts = starts};
    const qc__par par = {(unsigned)starts, run_start, sj, NULL};
    qc__par_run(&par, d->n >= 20000 ? qc__par_threads(o->threads, QC_FIT_MAX_STARTS) : 1);
    free(cbuf);
    /* Whole numbers below 1e7 (packet sizes) are ranked by the binned
     * likelihood (loglik computes it on the same bins): each start's
     * density-EM result is carried a few binned-EM steps, so that the
     * finalists are chosen on the likelihood that ranks them, and the two
     * best are run to convergence on it (binned_em). */
    const int binned = lognormal && d->integer && d->v[0] >= 1 && d->v[d->m - 1] < 1e7 &&
                       sub.x == full.x;
    for (int st = 0; st < starts; st++) { /* in start order, as one thread would */
        double ll = sj->ll[st];
        it += sj->used[st];
        if (!isfinite(ll) || has_empty(k, sj->p[st]))
            continue;
        if (binned) {
            ll = binned_em(&full, k, sj->p[st], QC_FIT_BINNED_SHORT, 1e-10);
            if (!isfinite(ll) || has_empty(k, sj->p[st]))
                continue;
        }
        if (ll > bestll[0]) {
            memcpy(best[1], best[0], sizeof best[0]);
            bestll[1] = bestll[0];
            memcpy(best[0], sj->p[st], sizeof best[0]);
            bestll[0] = ll;
        } else if (ll > bestll[1]) {
            memcpy(best[1], sj->p[st], sizeof best[1]);
            bestll[1] = ll;
        }
    }
    if (binned && k <= 3)
        binned_atom_starts(&full, k, best, bestll);
    char lost[80];
    snprintf(lost, sizeof lost, "a component lost all its weight (fewer modes than %d)", k);
    why = lost;
    if (!isfinite(bestll[0]))
        goto out;
    double p[QC_FIT_MAXPAR] = {0};
    double ll_win = -INFINITY;
    int conv = 0;
    for (int c = 0; c < 2; c++) {
        if (!isfinite(bestll[c]))
            continue;
        double q[QC_FIT_MAXPAR];
        memcpy(q, best[c], sizeof q);
        int cv = 1;
        double ll = bestll[c];
        if (binned) {
            /* the binned likelihood to convergence, without the density's
             * floor (see binned_em) */
            ll = binned_em(&full, k, q, QC_FIT_BINNED_ITERS, 1e-10);
            if (!isfinite(ll) || has_empty(k, q))
                continue;
            if (ll > ll_win) {
                ll_win = ll;
                memcpy(p, q, sizeof p);
                conv = 1;
            }
            continue;
        }
        if (starts > 1)
            ll = em_run(&sub, lognormal, k, q, delta, o->em_max_iter, o->em_tol, &it, &cv);
        if (sub.x != full.x) /* polish on all the data */
            for (int s2 = 0; s2 < 2; s2++)
                ll = em_step(&full, lognormal, k, q, delta, 1);
        if (!isfinite(ll) || has_empty(k, q))
            continue;
        if (sub.x != full.x)
            ll = em_step(&full, lognormal, k, q, delta, 0);
        if (ll > ll_win) {
            ll_win = ll;
            memcpy(p, q, sizeof p);
            conv = cv;
        }
    }
    if (!isfinite(ll_win))
        goto out;
    why = NULL;
    sort_components(lognormal, k, p);
    if (set_dist(r, f, p, err) != 0) /* r->why says why */
        goto out;
    no_ci(r);
    double se[QC_FIT_MAXPAR];
    int at_floor = 0;
    if (lognormal)
        for (int j = 0; j < k; j++)
            at_floor |= r->dist.p[2 * k + j] <=
                        1.000001 * fmax(delta / (3.4641016151377544 * exp(r->dist.p[k + j])),
                                        full.sg_min);
    int opg_ok = !at_floor && opg_se(&sub, d->n, lognormal, k, r->dist.p, se) == 0;
    for (int i = 0; opg_ok && i < np; i++)
        opg_ok = isfinite(se[i]) && se[i] > 0;
    const double z = z_of(o->level);
    if (opg_ok) {
        for (int i = 0; i < nstored[f]; i++) {
            r->se[i] = se[i];
            const int positive = lognormal ? i >= 2 * k : i >= k;
            wald(r, i, z, positive);
            if (i < k) { /* weights stay in [0, 1] */
                r->lo[i] = fmax(r->lo[i], 0);
                r->hi[i] = fmin(r->hi[i], 1);
            }
            opg_ok &= isfinite(r->lo[i]) && isfinite(r->hi[i]);
        }
        r->ci_method = "opg";
    }
    if (opg_ok) {
        /* done */
    } else if (boot_ci(&sub, lognormal, k, r->dist.p, delta, o->level, o->em_seed, r->se, r->lo,
                       r->hi) == 0) {
        r->ci_method = "bootstrap";
    } else {
        r->ci_method = "none";
    }
    r->iterations = it;
    r->converged = conv;
    r->ok = 1;
out:
    if (why)
        snprintf(r->why, sizeof r->why, "%s", why);
    free(sj);
    free(sx);
    free(sc);
    free(sy);
    free(fy);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                       */
/* ------------------------------------------------------------------ */

void qc_fit_params_init(qc_fit_params *o)
{
    o->level = 0.95;
    o->gpd_quantile = 0.9;
    o->crit = QC_FIT_BIC;
    o->gof = 1;
    o->em_max_iter = 300;
    o->em_tol = 1e-8;
    o->em_starts = 8;
    o->em_seed = 1;
    o->em_coarse = 1e-2;
    o->resolution = 0;
    o->threads = 0;
}

void qc_fit_result_free(qc_fit_result *r)
{
    qc_fit_dist_free(&r->dist);
}

int qc_fit_one(const qc_fit_data *d, qc_fit_family f, const qc_fit_params *o, qc_fit_result *r,
               qc_err *err)
{
    memset(r, 0, sizeof *r);
    r->dist.family = f;
    r->loglik = r->aic = r->bic = r->ks = r->ad = NAN;
    no_ci(r);
    r->ci_method = "none";
    r->npar = qc_fit_npar(f);
    r->nfit = (size_t)d->n;
    if ((unsigned)f >= QC_FIT_NFAMILIES)
        return qc_err_set(err, QC_EINVAL, "unknown family %d", (int)f);
    if (d->m == 0)
        return qc_err_set(err, QC_EEMPTY, "no data");
    if (!(o->level > 0 && o->level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence level %g is not in (0, 1)", o->level);
    switch (f) {
    case QC_FIT_EXP:
        fit_exp(d, o, r, err);
        break;
    case QC_FIT_GAMMA:
        fit_gamma(d, o, r, err);
        break;
    case QC_FIT_LOGNORMAL:
        fit_lognormal(d, o, r, err);
        break;
    case QC_FIT_WEIBULL:
        fit_weibull(d, o, r, err);
        break;
    case QC_FIT_PARETO:
        fit_pareto(d, o, r, err);
        break;
    case QC_FIT_LNMIX2:
    case QC_FIT_LNMIX3:
    case QC_FIT_EXPMIX2:
    case QC_FIT_EXPMIX3:
        fit_mixture(d, f, o, r, err);
        break;
    case QC_FIT_GPD:
        if (!(o->gpd_quantile > 0 && o->gpd_quantile < 1))
            return qc_err_set(err, QC_EINVAL, "GPD threshold quantile %g is not in (0, 1)",
                              o->gpd_quantile);
        fit_gpd(d, o, r, err);
        return 0; /* its own likelihood and GOF, on exceedances */
    case QC_FIT_EMPIRICAL: {
        /* The distinct values repeated by their counts. */
        double *x = malloc((size_t)d->n * sizeof *x);
        if (x == NULL)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
        size_t t = 0;
        for (size_t i = 0; i < d->m; i++)
            for (double c = 0; c < d->c[i]; c++)
                x[t++] = d->v[i];
        const int rc = qc_fit_dist_empirical(&r->dist, x, t, err);
        free(x);
        if (rc != 0)
            return rc;
        r->ok = 1;
        r->converged = 1;
        r->ks = 0;
        return 0;
    }
    default:
        break;
    }
    if (!r->ok)
        return 0;
    r->loglik = loglik(d, &r->dist);
    r->aic = 2 * r->npar - 2 * r->loglik;
    r->bic = r->npar * log(d->n) - 2 * r->loglik;
    if (o->gof)
        qc_fit_gof(d, &r->dist, &r->ks, &r->ad);
    return 0;
}

int qc_fit_all(const qc_fit_data *d, unsigned families, const qc_fit_params *o, qc_fit_result *r,
               qc_fit_family *order, size_t *nranked, qc_err *err)
{
    return qc__fit_all_given(d, families, o, r, order, nranked, NULL, 0, err);
}

/* Families for the threads of qc_fit_all, the costliest first (EM with
 * its starts and bootstrap; then the incomplete-gamma CDF of the GOF pass)
 * so that the last ones to start are short. */
static const qc_fit_family by_cost[QC_FIT_NFAMILIES] = {
    QC_FIT_LNMIX3, QC_FIT_EXPMIX3, QC_FIT_LNMIX2, QC_FIT_EXPMIX2, QC_FIT_GAMMA, QC_FIT_WEIBULL,
    QC_FIT_GPD,    QC_FIT_LOGNORMAL, QC_FIT_PARETO, QC_FIT_EXP,  QC_FIT_EMPIRICAL};

typedef struct fit_job {
    const qc_fit_data *d;
    const qc_fit_params *o;
    qc_fit_family f[QC_FIT_NFAMILIES]; /* to fit, the costliest first */
    qc_fit_result *r;
    int rc[QC_FIT_NFAMILIES];
    qc_err err[QC_FIT_NFAMILIES];
} fit_job;

static void fit_item(void *ctx, unsigned i)
{
    fit_job *j = ctx;
    const qc_fit_family f = j->f[i];
    j->rc[f] = qc_fit_one(j->d, f, j->o, &j->r[f], &j->err[f]);
}

int qc__fit_all_given(const qc_fit_data *d, unsigned families, const qc_fit_params *o,
                      qc_fit_result *r, qc_fit_family *order, size_t *nranked,
                      qc_fit_result *given, unsigned given_mask, qc_err *err)
{
    if (families == 0)
        families = (1u << QC_FIT_NFAMILIES) - 1;
    *nranked = 0;
    for (int f = 0; f < QC_FIT_NFAMILIES; f++) {
        memset(&r[f], 0, sizeof r[f]);
        r[f].dist.family = (qc_fit_family)f;
        r[f].ci_method = "none";
        snprintf(r[f].why, sizeof r[f].why, "not requested");
    }
    if (given == NULL)
        given_mask = 0;
    given_mask &= families;
    for (int f = 0; f < QC_FIT_NFAMILIES; f++)
        if (given_mask & (1u << f)) {
            /* Fitted before to the same data without the GOF statistics. */
            r[f] = given[f];
            memset(&given[f], 0, sizeof given[f]);
            if (r[f].ok && o->gof)
                qc_fit_gof(d, &r[f].dist, &r[f].ks, &r[f].ad);
        }
    /* The others, each on its own (in threads when the data are large:
     * every family's fit reads only d and o, so the results are the same
     * in any order). */
    fit_job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    job->d = d;
    job->o = o;
    job->r = r;
    const unsigned todo = families & ~given_mask;
    unsigned nf = 0;
    for (int i = 0; i < QC_FIT_NFAMILIES; i++)
        if (todo & (1u << by_cost[i]))
            job->f[nf++] = by_cost[i];
    /* Threads for large data only (a thread costs more than a small fit);
     * by default at most 4, the families that take long. */
    const qc__par par = {nf, fit_item, job, NULL};
    const unsigned nt = o->threads ? o->threads : qc__par_threads(0, 4);
    qc__par_run(&par, d->n >= 20000 ? nt : 1);
    for (int f = 0; f < QC_FIT_NFAMILIES; f++)
        if (job->rc[f] != 0) { /* the first family's error, as fitted in turn */
            const int rc = job->rc[f];
            if (err)
                *err = job->err[f];
            for (int g = 0; g < QC_FIT_NFAMILIES; g++)
                qc_fit_result_free(&r[g]);
            free(job);
            return rc;
        }
    free(job);
    for (int f = 0; f < QC_FIT_NFAMILIES; f++)
        if ((families & (1u << f)) && r[f].ok && f != QC_FIT_GPD && f != QC_FIT_EMPIRICAL &&
            isfinite(r[f].loglik))
            order[(*nranked)++] = (qc_fit_family)f;
    /* Insertion sort by the criterion (a dozen entries). */
    for (size_t i = 1; i < *nranked; i++) {
        const qc_fit_family t = order[i];
        const double vt = o->crit == QC_FIT_AIC ? r[t].aic : r[t].bic;
        size_t j = i;
        while (j > 0 && (o->crit == QC_FIT_AIC ? r[order[j - 1]].aic : r[order[j - 1]].bic) > vt) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = t;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Two-sample KS                                                      */
/* ------------------------------------------------------------------ */

/* Q_KS(l) = 2 sum_{j>=1} (-1)^{j-1} e^{-2 j^2 l^2}. */
static double q_ks(double l)
{
    if (l < 0.2)
        return 1;
    double s = 0;
    for (int j = 1; j <= 100; j++) {
        const double t = exp(-2.0 * j * j * l * l);
        s += (j % 2 ? 2 : -2) * t;
        if (t < 1e-16)
            break;
    }
    return s < 0 ? 0 : s > 1 ? 1 : s;
}

int qc_fit_ks2(const double *x, size_t nx, const double *y, size_t ny, double *d, double *p,
               qc_err *err)
{
    if (nx == 0 || ny == 0)
        return qc_err_set(err, QC_EEMPTY, "two-sample KS needs two non-empty samples");
    double *a = malloc(nx * sizeof *a), *b = malloc(ny * sizeof *b);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    memcpy(a, x, nx * sizeof *a);
    memcpy(b, y, ny * sizeof *b);
    qsort(a, nx, sizeof *a, cmp_double);
    qsort(b, ny, sizeof *b, cmp_double);
    size_t i = 0, j = 0;
    double dm = 0;
    while (i < nx && j < ny) {
        const double v = a[i] < b[j] ? a[i] : b[j];
        while (i < nx && a[i] == v)
            i++;
        while (j < ny && b[j] == v)
            j++;
        const double t = fabs((double)i / (double)nx - (double)j / (double)ny);
        if (t > dm)
            dm = t;
    }
    free(a);
    free(b);
    const double ne = (double)nx * (double)ny / ((double)nx + (double)ny), sn = sqrt(ne);
    *d = dm;
    if (p)
        *p = q_ks((sn + 0.12 + 0.11 / sn) * dm);
    return 0;
}
