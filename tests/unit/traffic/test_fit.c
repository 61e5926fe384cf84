/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fit.c: maximum-likelihood fits: parameter recovery within the
 * reported intervals, coverage of those intervals, model selection, the
 * goodness-of-fit statistics, and bad input.
 *
 * Tolerances and why:
 *  - Recovery: each family is fitted to 4000 of its own samples (fixed
 *    seed) and every parameter's 99.9% interval must hold the truth. For
 *    correct estimators and intervals each check fails with probability
 *    0.001, so the ~30 checks all pass with probability ~0.97 for an
 *    arbitrary seed (and, the seed being fixed, always).
 *  - Coverage: 200 replications of n = 400; the number of 95% intervals
 *    that cover is Binomial(200, 0.95) (mean 190, sd 3.1) when the
 *    intervals are right; accepted in [178, 199] (about 4 sd below, and
 *    not all 200, which would show intervals far too wide).
 *  - Selection by BIC with n = 3000: a wrong family loses by tens of
 *    units of BIC at this n (measured margins are 40 to 10^4); a nested
 *    family (exp inside gamma and Weibull) loses the extra parameter's
 *    log(3000) = 8 units unless its likelihood ratio chi-square(1)
 *    exceeds 8, probability 0.005. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "qctl/fit.h"
#include "qctl/trace.h"
#include "qctl/rng_gsl.h"

#define SEED UINT64_C(20240611)

static int cmp_dbl(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double *draw(qc_fit_family f, const double *p, size_t n, uint64_t stream)
{
    qc_fit_dist m;
    qc_err err = {0};
    assert_int_equal(qc_fit_dist_set(&m, f, p, qc_fit_nstored(f), &err), 0);
    qc_rng r;
    qc_rng_init(&r, SEED, stream);
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < n; i++)
        x[i] = qc_fit_sample(&m, &r);
    qc_fit_dist_free(&m);
    return x;
}

typedef struct fcase {
    qc_fit_family f;
    double p[QC_FIT_MAXPAR];
} fcase;

static const fcase cases[] = {
    {QC_FIT_EXP, {2.0}},
    {QC_FIT_GAMMA, {2.5, 0.4}},
    {QC_FIT_GAMMA, {0.5, 3.0}},
    {QC_FIT_LOGNORMAL, {1.0, 0.7}},
    {QC_FIT_WEIBULL, {0.6, 3.0}},
    {QC_FIT_WEIBULL, {2.0, 1.5}},
    {QC_FIT_PARETO, {1.8, 2.0}},
    {QC_FIT_LNMIX2, {0.3, 0.7, 3.5, 7.2, 0.3, 0.2}},
    {QC_FIT_LNMIX3, {0.2, 0.5, 0.3, 3.6, 5.5, 7.2, 0.2, 0.3, 0.1}},
    {QC_FIT_EXPMIX2, {0.6, 0.4, 20.0, 0.5}},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void check_covered(const qc_fit_result *r, const double *truth, const char *fam)
{
    for (int i = 0; i < qc_fit_nstored(r->dist.family); i++) {
        if (!(r->lo[i] <= truth[i] && truth[i] <= r->hi[i])) {
            print_error("%s: %s = %.6g, interval [%.6g, %.6g] misses the true %.6g\n", fam,
                        qc_fit_param_name(r->dist.family, i), r->dist.p[i], r->lo[i], r->hi[i],
                        truth[i]);
            fail();
        }
    }
}

static void test_recovery(void **state)
{
    (void)state;
    qc_fit_params o;
    qc_fit_params_init(&o);
    o.level = 0.999;
    for (size_t k = 0; k < NCASES; k++) {
        const fcase *c = &cases[k];
        const size_t n = 4000;
        double *x = draw(c->f, c->p, n, k);
        qc_fit_data d;
        qc_err err = {0};
        assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
        qc_fit_result r;
        assert_int_equal(qc_fit_one(&d, c->f, &o, &r, &err), 0);
        assert_true(r.ok);
        assert_true(r.converged);
        check_covered(&r, c->p, qc_fit_family_name(c->f));
        assert_true(isfinite(r.loglik) && isfinite(r.bic) && isfinite(r.aic));
        /* A correct model fits its own data: KS below the 0.001 critical
         * value 1.95 / sqrt(n) (conservative with estimated parameters). */
        assert_true(r.ks < 1.95 / sqrt((double)n));
        qc_fit_result_free(&r);
        qc_fit_data_free(&d);
        free(x);
    }
}

/* The generalized Pareto tail: exceedances over u of a spliced sample
 * (uniform body below u, GPD above) recover xi and sigma. */
static void test_gpd(void **state)
{
    (void)state;
    const double xi[] = {0.3, -0.2, 0.0}, sigma = 2.0, u = 10.0;
    for (int k = 0; k < 3; k++) {
        const size_t n = 20000;
        qc_fit_dist g;
        qc_err err = {0};
        const double p[4] = {xi[k], sigma, u, 0.25};
        assert_int_equal(qc_fit_dist_set(&g, QC_FIT_GPD, p, 4, &err), 0);
        qc_rng r;
        qc_rng_init(&r, SEED, 100 + (uint64_t)k);
        double *x = malloc(n * sizeof *x);
        for (size_t i = 0; i < n; i++)
            x[i] = qc_rng_u01(&r) < 0.75 ? u * qc_rng_u01(&r) : qc_fit_sample(&g, &r);
        qc_fit_data d;
        assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
        qc_fit_params o;
        qc_fit_params_init(&o);
        o.level = 0.999;
        o.gpd_quantile = 0.76; /* above u (P(X > u) = 0.25): only tail values */
        qc_fit_result res;
        assert_int_equal(qc_fit_one(&d, QC_FIT_GPD, &o, &res, &err), 0);
        assert_true(res.ok);
        /* Exceedances over u' > u of a GPD(xi, sigma) at u are
         * GPD(xi, sigma + xi (u' - u)): the truth at the fitted threshold. */
        assert_true(res.dist.p[2] > u);
        const double truth[2] = {xi[k], sigma + xi[k] * (res.dist.p[2] - u)};
        for (int i = 0; i < 2; i++)
            if (!(res.lo[i] <= truth[i] && truth[i] <= res.hi[i])) {
                print_error("gpd xi=%g: %s = %g, interval [%g, %g]\n", xi[k],
                            qc_fit_param_name(QC_FIT_GPD, i), res.dist.p[i], res.lo[i], res.hi[i]);
                fail();
            }
        qc_fit_result_free(&res);
        qc_fit_data_free(&d);
        qc_fit_dist_free(&g);
        free(x);
    }
}

static void test_coverage(void **state)
{
    (void)state;
    static const fcase cov[] = {
        {QC_FIT_EXP, {2.0}},
        {QC_FIT_GAMMA, {2.5, 0.4}},
        {QC_FIT_LOGNORMAL, {1.0, 0.7}},
        {QC_FIT_WEIBULL, {0.6, 3.0}},
        {QC_FIT_PARETO, {1.8, 2.0}},
        {QC_FIT_LNMIX2, {0.4, 0.6, 2.0, 5.0, 0.4, 0.5}},
    };
    qc_fit_params o;
    qc_fit_params_init(&o);
    const int R = 200;
    for (size_t k = 0; k < sizeof cov / sizeof cov[0]; k++) {
        const int np = qc_fit_nstored(cov[k].f);
        int covered[QC_FIT_MAXPAR] = {0};
        for (int rep = 0; rep < R; rep++) {
            const size_t n = 400;
            double *x = draw(cov[k].f, cov[k].p, n, 1000 * (k + 1) + (uint64_t)rep);
            qc_fit_data d;
            qc_err err = {0};
            assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
            qc_fit_result r;
            assert_int_equal(qc_fit_one(&d, cov[k].f, &o, &r, &err), 0);
            assert_true(r.ok);
            for (int i = 0; i < np; i++)
                covered[i] += r.lo[i] <= cov[k].p[i] && cov[k].p[i] <= r.hi[i];
            qc_fit_result_free(&r);
            qc_fit_data_free(&d);
            free(x);
        }
        for (int i = 0; i < np; i++) {
            if (cov[k].f == QC_FIT_LNMIX2 && i == 1)
                continue; /* w2 = 1 - w1: the same interval event as w1 */
            if (covered[i] < 178 || covered[i] > 199) {
                print_error("%s %s: %d of %d 95%% intervals cover\n",
                            qc_fit_family_name(cov[k].f), qc_fit_param_name(cov[k].f, i),
                            covered[i], R);
                fail();
            }
        }
    }
}

static void test_selection(void **state)
{
    (void)state;
    qc_fit_params o;
    qc_fit_params_init(&o);
    for (size_t k = 0; k < NCASES; k++) {
        const size_t n = 3000;
        double *x = draw(cases[k].f, cases[k].p, n, 500 + k);
        qc_fit_data d;
        qc_err err = {0};
        assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
        qc_fit_result r[QC_FIT_NFAMILIES];
        qc_fit_family order[QC_FIT_NFAMILIES];
        size_t nr = 0;
        assert_int_equal(qc_fit_all(&d, 0, &o, r, order, &nr, &err), 0);
        assert_true(nr >= 5);
        if (order[0] != cases[k].f) {
            print_error("samples of %s: BIC picked %s (%.1f vs %.1f)\n",
                        qc_fit_family_name(cases[k].f), qc_fit_family_name(order[0]),
                        r[order[0]].bic, r[cases[k].f].bic);
            fail();
        }
        /* The ranking is sorted by BIC. */
        for (size_t i = 1; i < nr; i++)
            assert_true(r[order[i - 1]].bic <= r[order[i]].bic);
        for (int f = 0; f < QC_FIT_NFAMILIES; f++)
            qc_fit_result_free(&r[f]);
        qc_fit_data_free(&d);
        free(x);
    }
}

/* Whole-number data with a heavy atom at the minimum (pure ACKs) and a
 * second mode: the binned likelihood keeps Pareto (xm on the atom) from
 * winning, and a mixture is chosen. */
static void test_binned_atoms(void **state)
{
    (void)state;
    const size_t n = 3000;
    double *x = malloc(n * sizeof *x);
    qc_rng r;
    qc_rng_init(&r, SEED, 77);
    for (size_t i = 0; i < n; i++)
        x[i] = qc_rng_u01(&r) < 0.5 ? 52 : round(exp(7.0 + 0.3 * gsl_ran_gaussian_ziggurat(qc_rng_gsl(&r), 1)));
    qc_fit_data d;
    qc_err err = {0};
    assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
    assert_true(d.integer);
    qc_fit_params o;
    qc_fit_params_init(&o);
    qc_fit_result res[QC_FIT_NFAMILIES];
    qc_fit_family order[QC_FIT_NFAMILIES];
    size_t nr;
    assert_int_equal(qc_fit_all(&d, 0, &o, res, order, &nr, &err), 0);
    assert_true(order[0] == QC_FIT_LNMIX2 || order[0] == QC_FIT_LNMIX3);
    assert_true(res[QC_FIT_PARETO].bic > res[order[0]].bic + 100);
    /* Binned log-likelihoods are log-probabilities: <= 0. */
    for (size_t i = 0; i < nr; i++)
        assert_true(res[order[i]].loglik <= 0);
    for (int f = 0; f < QC_FIT_NFAMILIES; f++)
        qc_fit_result_free(&res[f]);
    qc_fit_data_free(&d);
    free(x);
}

/* KS and AD with ties against the textbook formulas on expanded data. */
static void test_gof(void **state)
{
    (void)state;
    const double x[] = {0.1, 0.5, 0.5, 0.5, 1, 1.5, 2, 2, 3, 7};
    const size_t n = sizeof x / sizeof x[0];
    qc_fit_data d;
    qc_err err = {0};
    assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
    assert_int_equal((int)d.m, 7);
    qc_fit_dist m;
    const double p[1] = {0.6};
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_EXP, p, 1, &err), 0);
    double ks, ad;
    qc_fit_gof(&d, &m, &ks, &ad);
    double dmax = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        const double f = 1 - exp(-0.6 * x[i]);
        /* the largest of |i/n - F|, |(i+1)/n - F| over the sorted sample
         * is the KS statistic also with ties (F_n's jumps at a tie add up) */
        dmax = fmax(dmax, fmax(fabs((double)(i + 1) / n - f), fabs(f - (double)i / n)));
        const double g = 1 - exp(-0.6 * x[n - 1 - i]);
        s += (2.0 * (double)i + 1) * (log(f) + log(1 - g));
    }
    const double ad_ref = -(double)n - s / (double)n;
    assert_true(fabs(ks - dmax) < 1e-12);
    assert_true(fabs(ad - ad_ref) < 1e-9 * fabs(ad_ref));
    qc_fit_dist_free(&m);
    qc_fit_data_free(&d);
}

static void test_ks2(void **state)
{
    (void)state;
    const size_t n = 2000;
    const double pe[1] = {1.0}, pe2[1] = {0.5};
    double *a = draw(QC_FIT_EXP, pe, n, 900), *b = draw(QC_FIT_EXP, pe, n, 901),
           *c = draw(QC_FIT_EXP, pe2, n, 902);
    double dd, p;
    qc_err err = {0};
    assert_int_equal(qc_fit_ks2(a, n, a, n, &dd, &p, &err), 0);
    assert_true(dd == 0 && p == 1);
    assert_int_equal(qc_fit_ks2(a, n, b, n, &dd, &p, &err), 0);
    assert_true(p > 0.001); /* same law: p below 0.001 with probability 0.001 */
    assert_int_equal(qc_fit_ks2(a, n, c, n, &dd, &p, &err), 0);
    assert_true(dd > 0.15 && p < 1e-10); /* means 1 vs 2: D about 0.25 */
    assert_int_equal(qc_fit_ks2(a, 0, c, n, &dd, &p, &err), QC_EEMPTY);
    free(a);
    free(b);
    free(c);
}

static void test_bad_input(void **state)
{
    (void)state;
    qc_fit_data d;
    qc_err err = {0};
    const double neg[] = {1, -2, 3};
    assert_int_equal(qc_fit_data_init(&d, neg, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "value 2"));
    const double nan_[] = {1, NAN};
    assert_int_equal(qc_fit_data_init(&d, nan_, 2, &err), QC_EINVAL);
    assert_int_equal(qc_fit_data_init(&d, neg, 0, &err), QC_EEMPTY);
    const double zeros[] = {0, 0, 0};
    assert_int_equal(qc_fit_data_init(&d, zeros, 3, &err), QC_EEMPTY);
    /* Zeros are raised to half the smallest positive value. */
    const double z[] = {0, 0, 2, 4};
    assert_int_equal(qc_fit_data_init(&d, z, 4, &err), 0);
    assert_true(d.raised == 2 && d.v[0] == 1.0);
    qc_fit_data_free(&d);
    /* All equal: the families with a spread say why they cannot fit. */
    const double eq[] = {3, 3, 3, 3, 3, 3};
    assert_int_equal(qc_fit_data_init(&d, eq, 6, &err), 0);
    qc_fit_params o;
    qc_fit_params_init(&o);
    qc_fit_result r;
    assert_int_equal(qc_fit_one(&d, QC_FIT_GAMMA, &o, &r, &err), 0);
    assert_false(r.ok);
    assert_non_null(strstr(r.why, "equal"));
    qc_fit_result_free(&r);
    assert_int_equal(qc_fit_one(&d, QC_FIT_EXP, &o, &r, &err), 0);
    assert_true(r.ok && fabs(r.dist.p[0] - 1.0 / 3) < 1e-15);
    qc_fit_result_free(&r);
    o.level = 1.5;
    assert_int_equal(qc_fit_one(&d, QC_FIT_EXP, &o, &r, &err), QC_EINVAL);
    qc_fit_data_free(&d);
    /* Parameters are checked. */
    qc_fit_dist m;
    const double bad[2] = {-1, 2};
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_GAMMA, bad, 2, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "shape"));
    const double w[6] = {0.5, 0.6, 1, 2, 1, 1};
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_LNMIX2, w, 6, &err), QC_ERANGE);
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_EXP, bad, 2, &err), QC_EINVAL);
    qc_fit_family f;
    assert_int_equal(qc_fit_family_parse("lnmix3", &f, NULL), 0);
    assert_int_equal(f, QC_FIT_LNMIX3);
    assert_int_equal(qc_fit_family_parse("normal", &f, NULL), QC_EINVAL);
}

/* Quantile inverts the CDF, and pdf integrates to the CDF, for the
 * families dist.h does not have. */
static void test_mixture_functions(void **state)
{
    (void)state;
    qc_fit_dist m;
    qc_err err = {0};
    const double p[9] = {0.2, 0.5, 0.3, 1, 2, 3, 0.3, 0.5, 0.2};
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_LNMIX3, p, 9, &err), 0);
    for (double q = 0.01; q < 1; q += 0.07) {
        const double x = qc_fit_quantile(&m, q);
        assert_true(fabs(qc_fit_cdf(&m, x) - q) < 1e-12);
    }
    /* Simpson's rule of the pdf over [0.5, 10] against the CDF. */
    const int N = 2000;
    const double a = 0.5, b = 10, h = (b - a) / N;
    double s = qc_fit_pdf(&m, a) + qc_fit_pdf(&m, b);
    for (int i = 1; i < N; i++)
        s += (i % 2 ? 4 : 2) * qc_fit_pdf(&m, a + i * h);
    assert_true(fabs(s * h / 3 - (qc_fit_cdf(&m, b) - qc_fit_cdf(&m, a))) < 1e-7);
    const double mean = 0.2 * exp(1 + 0.045) + 0.5 * exp(2 + 0.125) + 0.3 * exp(3 + 0.02);
    assert_true(fabs(qc_fit_mean(&m) - mean) < 1e-12 * mean);
    qc_fit_dist_free(&m);
    const double e3[6] = {0.5, 0.3, 0.2, 10, 1, 0.1};
    assert_int_equal(qc_fit_dist_set(&m, QC_FIT_EXPMIX3, e3, 6, &err), 0);
    assert_true(fabs(qc_fit_mean(&m) - (0.05 + 0.3 + 2)) < 1e-12);
    const double x = qc_fit_quantile(&m, 0.9);
    assert_true(fabs(qc_fit_cdf(&m, x) - 0.9) < 1e-12);
    qc_fit_dist_free(&m);
}

/* Mixture fits on real captures (tests/data/captures, see the README
 * there) against a 40-start reference: the default multi-start EM (8
 * starts) must come within 1% or 20 units of log-likelihood of the best
 * of 40 k-means++ starts from another seed run to 2000 iterations (one
 * quantile start alone fell short by 900 to 2900 units on these sizes),
 * and every parameter must have a finite interval holding the estimate. */
static void fit_capture_column(const char *cap, const char *what, const double *x, size_t n,
                               double res)
{
    qc_fit_data d;
    assert_int_equal(qc_fit_data_init(&d, x, n, NULL), 0);
    static const qc_fit_family fams[] = {QC_FIT_LNMIX2, QC_FIT_LNMIX3, QC_FIT_EXPMIX2,
                                         QC_FIT_EXPMIX3};
    for (size_t q = 0; q < sizeof fams / sizeof fams[0]; q++) {
        qc_fit_params o, ref;
        qc_fit_params_init(&o);
        o.gof = 0;
        o.resolution = res;
        ref = o;
        ref.em_starts = 40;
        ref.em_seed = 977;
        ref.em_max_iter = 2000;
        qc_fit_result a, b;
        assert_int_equal(qc_fit_one(&d, fams[q], &o, &a, NULL), 0);
        assert_int_equal(qc_fit_one(&d, fams[q], &ref, &b, NULL), 0);
        if (!b.ok) {
            qc_fit_result_free(&a);
            qc_fit_result_free(&b);
            continue;
        }
        assert_true(a.ok);
        const double tol = fmax(20, 0.01 * fabs(b.loglik));
        print_message("%-14s %-5s %-8s loglik %12.2f  reference %12.2f  (%s)\n", cap, what,
                      qc_fit_family_name(fams[q]), a.loglik, b.loglik, a.ci_method);
        assert_true(a.loglik >= b.loglik - tol);
        for (int i = 0; i < qc_fit_nstored(fams[q]); i++) {
            assert_true(isfinite(a.lo[i]) && isfinite(a.hi[i]));
            assert_true(a.lo[i] <= a.dist.p[i] && a.dist.p[i] <= a.hi[i]);
        }
        qc_fit_result_free(&a);
        qc_fit_result_free(&b);
    }
    qc_fit_data_free(&d);
}

static void test_real_captures(void **state)
{
    (void)state;
    static const char *const caps[] = {"netflix", "reddit", "nintendo", "1kxun", "teams"};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        char path[512];
        snprintf(path, sizeof path, "%s/captures/%s.pcap", QC_TEST_DATA, caps[c]);
        qc_trace tr;
        qc_err err = {0};
        assert_int_equal(qc_trace_read(&tr, path, &err), 0);
        double *sz = malloc(tr.n * sizeof *sz), *g = malloc(tr.n * sizeof *g);
        assert_non_null(sz);
        assert_non_null(g);
        size_t ng = 0;
        int64_t res = 0;
        for (size_t i = 0; i < tr.n; i++) {
            sz[i] = tr.pkt[i].size;
            if (i == 0)
                continue;
            int64_t gap = tr.pkt[i].ns - tr.pkt[i - 1].ns;
            if (gap <= 0 || gap > INT64_C(3600000000000))
                continue; /* ties, and the break of a concatenated capture */
            g[ng++] = 1e-9 * (double)gap;
            for (int64_t a = res, b = gap; ; ) { /* res = gcd(res, gap) */
                if (a == 0) {
                    res = b;
                    break;
                }
                const int64_t t = b % a;
                b = a;
                a = t;
            }
        }
        fit_capture_column(caps[c], "size", sz, tr.n, 0);
        fit_capture_column(caps[c], "gap", g, ng, 1e-9 * (double)res);
        free(sz);
        free(g);
        qc_trace_free(&tr);
    }
}

/* Threads change nothing: qc_fit_all on 30000 values (the threaded path,
 * from 20000) with 1 and with 3 threads gives the same results, field by
 * field; and data given already sorted (the fit data skips its radix sort)
 * give the same fit data as the shuffled data. */
static void test_threads_same(void **state)
{
    (void)state;
    const size_t n = 30000;
    const double p[6] = {0.6, 0.4, -1, 1.5, 0.5, 0.3};
    double *x = draw(QC_FIT_LNMIX2, p, n, 77);
    qc_fit_data d, ds;
    qc_err err = {0};
    assert_int_equal(qc_fit_data_init(&d, x, n, &err), 0);
    assert_int_equal(qc_fit_data_init(&ds, d.v, d.m, &err), 0); /* sorted input */
    assert_int_equal(ds.m, d.m);
    for (size_t i = 0; i < d.m; i++)
        assert_true(ds.v[i] == d.v[i] && (i == 0 || d.v[i - 1] < d.v[i]));
    const unsigned fams = (1u << QC_FIT_EXP) | (1u << QC_FIT_GAMMA) | (1u << QC_FIT_LOGNORMAL) |
                          (1u << QC_FIT_LNMIX2) | (1u << QC_FIT_EXPMIX2) | (1u << QC_FIT_GPD);
    qc_fit_result r[2][QC_FIT_NFAMILIES];
    qc_fit_family order[2][QC_FIT_NFAMILIES];
    size_t nr[2];
    for (int t = 0; t < 2; t++) {
        qc_fit_params o;
        qc_fit_params_init(&o);
        o.em_starts = 3;
        o.threads = t ? 3 : 1;
        assert_int_equal(qc_fit_all(&d, fams, &o, r[t], order[t], &nr[t], &err), 0);
    }
    assert_int_equal(nr[0], nr[1]);
    assert_int_equal(nr[0], 5);
    for (size_t i = 0; i < nr[0]; i++)
        assert_int_equal(order[0][i], order[1][i]);
    for (int f = 0; f < QC_FIT_NFAMILIES; f++) {
        assert_int_equal(r[0][f].ok, r[1][f].ok);
        if (!r[0][f].ok)
            continue;
        for (int j = 0; j < qc_fit_nstored((qc_fit_family)f); j++) {
            assert_true(r[0][f].dist.p[j] == r[1][f].dist.p[j]);
            assert_true(r[0][f].lo[j] == r[1][f].lo[j] ||
                        (isnan(r[0][f].lo[j]) && isnan(r[1][f].lo[j])));
        }
        assert_true(r[0][f].loglik == r[1][f].loglik || f == QC_FIT_EMPIRICAL);
        assert_true(r[0][f].ks == r[1][f].ks);
    }
    for (int t = 0; t < 2; t++)
        for (int f = 0; f < QC_FIT_NFAMILIES; f++)
            qc_fit_result_free(&r[t][f]);
    qc_fit_data_free(&d);
    qc_fit_data_free(&ds);
    free(x);
}

/* Log-scale bins (fit.h): 10^6 values from a three-component lognormal
 * mixture of gaps (no ties: 10^6 distinct values) are binned; every
 * family fitted to the bins is compared with the same family fitted to
 * the exact values (a qc_fit_data built here without bins). Bound: each
 * parameter within 2e-3 relative (the bins move log x by at most 1e-3;
 * measured at most 6e-4) or, where the binned fit reaches the higher
 * likelihood, within one standard error: the exact fit's EM runs on a
 * 20000-value subsample and takes only two steps over all the values, so
 * where the likelihood is flat along a parameter (a wrong family's third
 * component: expmix3 on these data, rate3 603.9 against 610.2, se 7.4)
 * the exact fit is the one short of its maximum; the log-likelihood within 1e-6 relative, KS
 * within 2e-3 absolute (at most a bin's mass); exp and gamma use only n,
 * mean and mean log, kept exact: identical; lognormal within 1e-6. */
static void test_log_bins(void **state)
{
    (void)state;
    const size_t n = 1000000;
    const double p[9] = {0.38, 0.49, 0.13, -12.2, -10.4, -8.2, 0.5, 1.6, 0.22};
    double *x = draw(QC_FIT_LNMIX3, p, n, 91);
    qc_fit_data b, e;
    qc_err err = {0};
    assert_int_equal(qc_fit_data_init(&b, x, n, &err), 0);
    assert_true(b.binned == QC_FIT_BIN_WIDTH);
    assert_true(b.m < 20000);
    /* The exact data: sorted, every value once (no ties in draws). */
    memset(&e, 0, sizeof e);
    qsort(x, n, sizeof *x, cmp_dbl);
    e.v = x;
    e.c = malloc(n * sizeof *e.c);
    assert_non_null(e.c);
    for (size_t i = 0; i < n; i++) {
        assert_true(i == 0 || x[i] > x[i - 1]);
        e.c[i] = 1;
    }
    e.m = n;
    e.n = b.n;
    e.mean = b.mean;
    e.mean_log = b.mean_log;
    e.var = b.var;
    e.step = b.step;
    qc_fit_params o;
    qc_fit_params_init(&o);
    o.resolution = 1e-9;
    for (int f = 0; f < QC_FIT_GPD; f++) {
        qc_fit_result rb, re;
        assert_int_equal(qc_fit_one(&b, (qc_fit_family)f, &o, &rb, &err), 0);
        assert_int_equal(qc_fit_one(&e, (qc_fit_family)f, &o, &re, &err), 0);
        assert_true(rb.ok && re.ok);
        double worst = 0, worst_se = 0;
        for (int j = 0; j < qc_fit_nstored((qc_fit_family)f); j++) {
            const double dp = fabs(rb.dist.p[j] - re.dist.p[j]);
            worst = fmax(worst, dp / fabs(re.dist.p[j]));
            if (re.se[j] > 0 && rb.loglik >= re.loglik) /* see above: within a se */
                worst_se = fmax(worst_se, fmin(dp / fabs(re.dist.p[j]), 2e-3 * dp / re.se[j]));
            else
                worst_se = fmax(worst_se, dp / fabs(re.dist.p[j]));
        }
        print_message("%-9s largest parameter change %.2e (in units of 1 se or 2e-3: %.2e), "
                      "loglik %.2e, KS %.2e\n",
                      qc_fit_family_name((qc_fit_family)f), worst, worst_se / 2e-3,
                      fabs(rb.loglik - re.loglik) / fabs(re.loglik), fabs(rb.ks - re.ks));
        assert_true(worst_se <= 2e-3);
        if (f == QC_FIT_EXP || f == QC_FIT_GAMMA)
            for (int j = 0; j < qc_fit_nstored((qc_fit_family)f); j++)
                assert_true(rb.dist.p[j] == re.dist.p[j]);
        if (f == QC_FIT_LOGNORMAL) /* sigma: a bin adds at most 1e-6 / 12 to var log x */
            assert_true(worst <= 1e-6);
        assert_true(fabs(rb.loglik - re.loglik) <= 1e-6 * fabs(re.loglik));
        assert_true(fabs(rb.ks - re.ks) <= 2e-3);
        qc_fit_result_free(&rb);
        qc_fit_result_free(&re);
    }
    qc_fit_data_free(&b);
    free(e.c);
    free(x);
}


/* EM's starts on coarse bins (qc_fit_params.em_coarse, for data of more
 * than 2000 distinct values) against starts on the data themselves: the
 * same optimum, each parameter within a small fraction of its standard
 * error, on the 10^6 binned lognormal-mixture gaps of test_log_bins
 * (8000-odd bins) and on a 3-decade exponential mixture. */
static void test_coarse_starts(void **state)
{
    (void)state;
    const size_t n = 1000000;
    const double pl[9] = {0.38, 0.49, 0.13, -12.2, -10.4, -8.2, 0.5, 1.6, 0.22};
    const double pe[6] = {0.6, 0.3, 0.1, 2e5, 1e4, 300};
    for (int s = 0; s < 2; s++) {
        double *x = s == 0 ? draw(QC_FIT_LNMIX3, pl, n, 91) : draw(QC_FIT_EXPMIX3, pe, n, 92);
        qc_fit_data b;
        qc_err err = {0};
        assert_int_equal(qc_fit_data_init(&b, x, n, &err), 0);
        assert_true(b.m > 2000);
        qc_fit_params o, oe;
        qc_fit_params_init(&o);
        o.resolution = 1e-9;
        oe = o;
        oe.em_coarse = 0;
        for (int f = QC_FIT_LNMIX2; f <= QC_FIT_EXPMIX3; f++) {
            qc_fit_result rc, re;
            assert_int_equal(qc_fit_one(&b, (qc_fit_family)f, &o, &rc, &err), 0);
            assert_int_equal(qc_fit_one(&b, (qc_fit_family)f, &oe, &re, &err), 0);
            assert_true(rc.ok && re.ok);
            double worst_se = 0;
            for (int j = 0; j < qc_fit_nstored((qc_fit_family)f); j++) {
                const double dp = fabs(rc.dist.p[j] - re.dist.p[j]);
                if (re.se[j] > 0)
                    worst_se = fmax(worst_se, dp / re.se[j]);
            }
            const double dll = (re.loglik - rc.loglik) / fabs(re.loglik);
            print_message("%s %-8s on %zu values: largest parameter change %.2e se, loglik "
                          "%+.2e (relative, starts on the data minus coarse)\n",
                          s ? "expmix3 data" : "lnmix3 data", qc_fit_family_name((qc_fit_family)f),
                          b.m, worst_se, dll);
            assert_true(worst_se <= 0.1 || dll <= 1e-7); /* the same optimum, or a better one */
            assert_true(dll <= 1e-7);
            qc_fit_result_free(&rc);
            qc_fit_result_free(&re);
        }
        qc_fit_data_free(&b);
        free(x);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovery),   cmocka_unit_test(test_gpd),
        cmocka_unit_test(test_coverage),   cmocka_unit_test(test_selection),
        cmocka_unit_test(test_binned_atoms), cmocka_unit_test(test_gof),
        cmocka_unit_test(test_ks2),        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_mixture_functions), cmocka_unit_test(test_real_captures),
        cmocka_unit_test(test_threads_same), cmocka_unit_test(test_log_bins),
        cmocka_unit_test(test_coarse_starts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
