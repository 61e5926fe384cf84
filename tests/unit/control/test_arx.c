/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_arx.c: ARX identification against known systems, order selection,
 * validation figures, CSV and model-JSON input with their errors.
 *
 * Data are simulated from a known ARX system driven by white Gaussian
 * input (persistently exciting of every order) with white Gaussian
 * equation noise of standard deviation sigma_e, after a burn-in so the
 * output is stationary. Every statistical check uses a fixed seed, but
 * its threshold comes from the sampling distribution, so a correct
 * implementation passes it for almost any seed:
 *
 *  - a coefficient lies within 4 of the fit's own standard errors of the
 *    truth (two-sided probability 6e-5 under normality);
 *  - those standard errors match theory, sigma_e^2 (X'X)^-1 computed here
 *    from the same regressors with the true sigma_e: their ratio is
 *    sigma^_e / sigma_e, whose relative standard deviation is
 *    1/sqrt(2 (N - p)), under 2% for N > 1250; the check allows 8%;
 *  - over R independent replications, nominal 95% intervals (+-1.96 se)
 *    cover the truth in a fraction within 4 binomial standard deviations
 *    of 0.95 (least squares with a lagged output is biased by O(1/N):
 *    here about 2e-4, 0.04 se, too small to move the coverage);
 *  - order selection is judged as a rate over replications too, since
 *    AIC over-fits with a known probability (a redundant parameter pair
 *    survives when the chi-square(2) drop exceeds 4: e^-2 = 13.5%). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/rng.h"
#include "qctl/rng_gsl.h"

#define SEED UINT64_C(20261129)
#define BURN 200

#define assert_close(a, b, tol) check_close((a), (b), (tol), #a, __FILE__, __LINE__)

static void check_close(double a, double b, double tol, const char *what, const char *file,
                        int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("%s = %.17g, expected %.17g within %g\n", what, a, b, tol);
        _fail(file, line);
    }
}

typedef struct truth {
    unsigned na, nb;
    int d;
    double a[3], b[3];
    double sigma_e;
} truth;

/* n samples of the system t driven by N(0, 1) input, offsets 0. */
static void simulate(const truth *t, qc_rng *r, size_t n, double *u, double *y)
{
    gsl_rng *g = qc_rng_gsl(r);
    const size_t m = n + BURN;
    double *uu = calloc(m, sizeof *uu), *yy = calloc(m, sizeof *yy);
    assert_non_null(uu);
    assert_non_null(yy);
    for (size_t k = 0; k < m; k++)
        uu[k] = gsl_ran_gaussian(g, 1.0);
    for (size_t k = 0; k + 1 < m; k++) {
        double v = t->sigma_e * gsl_ran_gaussian(g, 1.0);
        for (unsigned i = 1; i <= t->na; i++)
            if (k + 1 >= i)
                v += t->a[i - 1] * yy[k + 1 - i];
        for (unsigned j = 1; j <= t->nb; j++) {
            const long idx = (long)k + 1 - t->d - (long)j;
            if (idx >= 0)
                v += t->b[j - 1] * uu[idx];
        }
        yy[k + 1] = v;
    }
    memcpy(u, uu + BURN, n * sizeof *u);
    memcpy(y, yy + BURN, n * sizeof *y);
    free(uu);
    free(yy);
}

static void options_exact(qc_arx_params *o, unsigned na, unsigned nb, int d)
{
    qc_arx_params_init(o);
    o->na_min = o->na_max = na;
    o->nb_min = o->nb_max = nb;
    o->tied = 0;
    o->d_min = o->d_max = d;
    o->demean = 0; /* the data are offsets already: regressors as simulated */
    o->holdout = 0;
}

static void fit_ok(const double *u, const double *y, size_t n, const qc_arx_params *o,
                   qc_arx_result *res)
{
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(n, &err);
    assert_non_null(w);
    const int rc = qc_arx_fit(w, u, y, n, o, res, &err);
    if (rc != 0)
        print_error("qc_arx_fit: %d: %s\n", rc, err.msg);
    assert_int_equal(rc, 0);
    qc_arx_free(w);
}

/* sigma^2 (X'X)^-1 from the regressors the fit used (rows and order of
 * res), with the true sigma: the standard errors theory gives. */
static void theory_se(const qc_arx_result *res, const double *u, const double *y, double sigma,
                      double *se)
{
    const qc_arx_model *m = &res->model;
    const size_t p = m->na + m->nb;
    gsl_matrix *xtx = gsl_matrix_calloc(p, p);
    double x[QC_ARX_MAX_PARAMS];
    for (size_t r = 0; r < res->rows; r++) {
        const size_t k = res->first_row + r;
        for (unsigned i = 1; i <= m->na; i++)
            x[i - 1] = y[k + 1 - i];
        for (unsigned j = 1; j <= m->nb; j++)
            x[m->na + j - 1] = u[(size_t)((long)k + 1 - m->delay - (long)j)];
        for (size_t i = 0; i < p; i++)
            for (size_t j = 0; j < p; j++)
                *gsl_matrix_ptr(xtx, i, j) += x[i] * x[j];
    }
    assert_int_equal(gsl_linalg_cholesky_decomp1(xtx), 0);
    assert_int_equal(gsl_linalg_cholesky_invert(xtx), 0);
    for (size_t i = 0; i < p; i++)
        se[i] = sigma * sqrt(gsl_matrix_get(xtx, i, i));
    gsl_matrix_free(xtx);
}

/* Coefficients within 4 se of the truth; se within 8% of theory. */
static void check_recovery(const truth *t, size_t n, uint64_t stream)
{
    qc_rng r;
    qc_rng_init(&r, SEED, stream);
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y);
    assert_non_null(u);
    assert_non_null(y);
    simulate(t, &r, n, u, y);
    qc_arx_params o;
    options_exact(&o, t->na, t->nb, t->d);
    qc_arx_result res;
    fit_ok(u, y, n, &o, &res);
    double se_th[QC_ARX_MAX_PARAMS];
    theory_se(&res, u, y, t->sigma_e, se_th);
    printf("  truth na=%u nb=%u d=%d sigma_e=%g, N=%zu rows:\n", t->na, t->nb, t->d, t->sigma_e,
           res.rows);
    for (unsigned i = 0; i < t->na + t->nb; i++) {
        const int isa = i < t->na;
        const unsigned j = isa ? i : i - t->na;
        const double est = isa ? res.model.a[j] : res.model.b[j];
        const double se = isa ? res.se_a[j] : res.se_b[j];
        const double tru = isa ? t->a[j] : t->b[j];
        printf("    %s%u = %.5f +- %.5f (truth %.3f, %+.2f se; theory se %.5f, ratio %.3f)\n",
               isa ? "a" : "b", j + 1, est, se, tru, (est - tru) / se, se_th[i], se / se_th[i]);
        assert_close(est, tru, 4 * se);
        assert_close(se / se_th[i], 1.0, 0.08);
    }
    /* residual variance estimates sigma_e^2: relative sd sqrt(2/(N-p)) */
    assert_close(res.sigma2 / (t->sigma_e * t->sigma_e), 1.0,
                 4 * sqrt(2.0 / (double)(res.rows - t->na - t->nb)));
    free(u);
    free(y);
}

static void test_first_order_recovery(void **state)
{
    (void)state;
    const truth t = {1, 1, 0, {0.43}, {0.47}, 0.1};
    check_recovery(&t, 2000, 1);
    /* a noisier case: se scale with sigma_e, the 4-se check still holds */
    const truth t2 = {1, 1, 0, {0.43}, {0.47}, 1.0};
    check_recovery(&t2, 2000, 2);
}

static void test_second_order_recovery(void **state)
{
    (void)state;
    /* poles of z^2 - 1.2 z + 0.5: 0.6 +- 0.374i, modulus 0.707 */
    const truth t = {2, 2, 0, {1.2, -0.5}, {0.3, 0.2}, 0.1};
    check_recovery(&t, 3000, 3);
    /* with an input delay of one sample */
    const truth t2 = {2, 1, 1, {0.5, 0.2}, {0.8}, 0.2};
    check_recovery(&t2, 3000, 4);
}

/* The rate-limited input by hand, then a Hammerstein plant with a known
 * fall rate: PRBS MaxUsers-like levels 325 / 425 held 4 samples, the
 * input in effect falling at most F = 0.05 of itself per sample, then
 * y(k+1) = 0.3 y(k) + 0.7 ueff(k) + e, sigma_e = 5. qc_arx_fit_fall must
 * find F within 0.005 (its grid step is 1e-4; at this noise the
 * criterion's minimum is sharp: ueff off by 0.005 a sample leaves
 * residuals of several units after a fall) and a, b within 4 se; the plain fit of u averages
 * the two speeds into a slower, worse model. */
static void test_fall_rate(void **state)
{
    (void)state;
    const double u[8] = {10, 5, 2, 20, 0, 0, 30, 29};
    double out[8];
    qc_arx_fall_input(u, 8, 0.1, out);
    const double want[8] = {10, 9, 8.1, 20, 18, 16.2, 30, 29};
    for (int k = 0; k < 8; k++)
        assert_close(out[k], want[k], 1e-12);
    qc_arx_fall_input(u, 8, 0, out);
    for (int k = 0; k < 8; k++)
        assert_close(out[k], u[k], 0);

    const size_t n = 1500;
    const double F = 0.05, a = 0.3, b = 0.7, sig = 5;
    double *uu = malloc(n * sizeof *uu), *ue = malloc(n * sizeof *ue), *y = malloc(n * sizeof *y),
           *buf = malloc(n * sizeof *buf);
    assert_non_null(uu);
    assert_non_null(ue);
    assert_non_null(y);
    assert_non_null(buf);
    qc_rng r;
    qc_rng_init(&r, SEED, 40);
    gsl_rng *g = qc_rng_gsl(&r);
    double lvl = 425;
    for (size_t k = 0; k < n; k++) {
        if (k % 4 == 0)
            lvl = gsl_rng_uniform(g) < 0.5 ? 325 : 425;
        uu[k] = lvl;
    }
    qc_arx_fall_input(uu, n, F, ue);
    y[0] = ue[0];
    for (size_t k = 0; k + 1 < n; k++)
        y[k + 1] = a * y[k] + b * ue[k] + sig * gsl_ran_gaussian(g, 1.0);
    qc_arx_params o;
    options_exact(&o, 1, 1, 0);
    o.demean = 1;
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(n, &err);
    assert_non_null(w);
    qc_arx_result res, plain;
    double f = -1;
    assert_int_equal(qc_arx_fit_fall(w, uu, y, n, &o, 0.5, buf, &f, &res, &err), 0);
    printf("  fall rate %.4f (truth %.2f); a = %.4f +- %.4f, b = %.4f +- %.4f, R^2 %.4f\n", f, F,
           res.model.a[0], res.se_a[0], res.model.b[0], res.se_b[0], res.r2);
    assert_close(f, F, 0.005);
    assert_close(res.model.a[0], a, 4 * res.se_a[0]);
    assert_close(res.model.b[0], b, 4 * res.se_b[0]);
    assert_int_equal(qc_arx_fit(w, uu, y, n, &o, &plain, &err), 0);
    printf("  without the fall rate: a = %.4f, R^2 %.4f\n", plain.model.a[0], plain.r2);
    assert_true(plain.r2 < res.r2);
    assert_true(plain.model.a[0] > a + 4 * res.se_a[0]);
    assert_int_equal(qc_arx_fit_fall(w, uu, y, n, &o, 1.0, buf, &f, &res, &err), QC_EINVAL);
    qc_arx_free(w);
    free(uu);
    free(ue);
    free(y);
    free(buf);
}

/* Nominal 95% intervals cover at close to 95% over replications. */
static void test_interval_coverage(void **state)
{
    (void)state;
    enum { R = 400, N = 1000 };
    const truth t = {1, 1, 0, {0.43}, {0.47}, 0.1};
    double u[N], y[N];
    qc_arx_params o;
    options_exact(&o, 1, 1, 0);
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(N, &err);
    assert_non_null(w);
    int cover_a = 0, cover_b = 0, cover_g = 0;
    double bias_a = 0;
    const double g_true = t.b[0] / (1 - t.a[0]);
    for (int rep = 0; rep < R; rep++) {
        qc_rng r;
        qc_rng_init(&r, SEED, 1000 + (uint64_t)rep);
        simulate(&t, &r, N, u, y);
        qc_arx_result res;
        assert_int_equal(qc_arx_fit(w, u, y, N, &o, &res, &err), 0);
        cover_a += fabs(res.model.a[0] - t.a[0]) <= 1.96 * res.se_a[0];
        cover_b += fabs(res.model.b[0] - t.b[0]) <= 1.96 * res.se_b[0];
        cover_g += fabs(qc_arx_dc_gain(&res.model) - g_true) <= 1.96 * qc_arx_dc_gain_se(&res);
        bias_a += res.model.a[0] - t.a[0];
    }
    qc_arx_free(w);
    printf("  95%% intervals over %d replications of N = %d: a covered %d, b covered %d; "
           "mean error of a %.2e\n",
           R, N, cover_a, cover_b, bias_a / R);
    /* binomial sd sqrt(R 0.95 0.05) = 4.4: 4 sd = 17.4 either side of 380 */
    assert_in_range(cover_a, 380 - 18, 380 + 18);
    assert_in_range(cover_b, 380 - 18, 380 + 18);
    /* the static gain's delta-method interval, same bounds */
    printf("  static gain %.4f: covered %d\n", g_true, cover_g);
    assert_in_range(cover_g, 380 - 18, 380 + 18);
}

/* The affine sensor map: exact on an affine sensor (up to noise), and
 * the tangent of a curved one, against closed forms. */
static void test_affine_map(void **state)
{
    (void)state;
    enum { N = 4000 };
    static double y[N], ym[N];
    qc_rng r;
    qc_rng_init(&r, SEED, 77);
    gsl_rng *g = qc_rng_gsl(&r);
    for (size_t i = 0; i < N; i++) {
        y[i] = 200 + 200 * gsl_rng_uniform(g);
        ym[i] = 50 + 0.3 * y[i] + gsl_ran_gaussian(g, 2.0);
    }
    qc_arx_affine a;
    qc_err err = {0};
    assert_int_equal(qc_arx_affine_fit(y, ym, N, 300, 45, 0.3, &a, &err), 0);
    /* about 0.45 N / 2 effective samples: se of the value < 0.15 */
    assert_close(a.offset + a.gain * 300, 140, 0.6);
    assert_close(a.gain, 0.3, 0);
    assert_true(a.points > 500);
    /* the logged-RIS curve in steady state with deterministic response
     * times, ym = y - y^2 / 1200 (X = 10, interval 60): tangent at 250 */
    for (size_t i = 0; i < N; i++)
        ym[i] = y[i] - y[i] * y[i] / 1200;
    assert_int_equal(qc_arx_affine_fit(y, ym, N, 250, 37.5, 1 - 250.0 / 600, &a, &err), 0);
    /* bias: the curvature -1/600 times half the weighted variance of
     * y - 250 within +-37.5 (< 37.5^2 / 6): below 0.2 */
    assert_close(a.offset + a.gain * 250, 250 - 250.0 * 250 / 1200, 0.2);
    /* the data do not reach 100 */
    assert_int_equal(qc_arx_affine_fit(y, ym, N, 100, 20, 0.5, &a, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "do not reach"));
    assert_int_equal(qc_arx_affine_fit(y, ym, N, 300, 0, 0.5, &a, &err), QC_EINVAL);
}

/* The completion-log curve against its closed forms, and its fit: a
 * static sensor (ym(k) = y(k) + noise) with ym = f_600(y) and noise of
 * sd 0.02 y gives back S = 600 and the relative noise. */
static void test_curve(void **state)
{
    (void)state;
    /* f(S) = S e^-1; f(N) ~ S / 2 - S^2 / (6 N) for N >> S; f(N) ~ N - N^2 / S
     * for N << S */
    assert_close(qc_arx_curve_at(600, 600), 600 * exp(-1.0), 1e-9);
    assert_close(qc_arx_curve_at(600, 6e6), 300 - 0.01, 1e-6);
    assert_close(qc_arx_curve_at(600, 30), 30 - 900.0 / 600, 1e-6);
    assert_close(qc_arx_curve_at(600, 0), 0, 0);
    enum { N = 3000 };
    static double y[N], ym[N];
    qc_rng r;
    qc_rng_init(&r, SEED, 78);
    gsl_rng *g = qc_rng_gsl(&r);
    for (size_t i = 0; i < N; i++) {
        y[i] = 250 + 150 * gsl_rng_uniform(g);
        ym[i] = qc_arx_curve_at(600, y[i]) + gsl_ran_gaussian(g, 0.02 * y[i]);
    }
    qc_arx_model m = {0};
    m.na = 0;
    m.nb = 1;
    m.delay = -1;
    m.b[0] = 1;
    m.u0 = 300;
    m.y0 = 300;
    qc_arx_curve c;
    qc_err err = {0};
    assert_int_equal(qc_arx_curve_fit(&m, y, ym, N, &c, &err), 0);
    /* the slope dS of f at N ~ 325 is ~ 0.03 per unit of S: noise sd ~6.5
     * over 3000 samples moves S by well under 1% */
    printf("  curve: S = %.2f, residual cv %.4f\n", c.scale, c.residual_cv);
    assert_close(c.scale, 600, 6);
    assert_close(c.residual_cv, 0.02, 0.001);
    assert_true(c.points == N - 5);
    m.b[0] = -1;
    assert_int_equal(qc_arx_curve_fit(&m, y, ym, N, &c, &err), QC_EINVAL);
    m.b[0] = 1;
    assert_int_equal(qc_arx_curve_fit(&m, y, ym, 12, &c, &err), QC_ERANGE);
}

/* The chosen (na, nb, d) over independent replications. */
static void selection_rate(const truth *t, qc_arx_criterion crit, int rep0, int R, size_t n,
                           int *exact, int *under)
{
    double *u = malloc(n * sizeof *u), *y = malloc(n * sizeof *y);
    assert_non_null(u);
    assert_non_null(y);
    qc_arx_params o;
    qc_arx_params_init(&o); /* na = nb in 1..3, d in 0..2, 30% held out */
    o.criterion = crit;
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(n, &err);
    assert_non_null(w);
    *exact = *under = 0;
    for (int rep = 0; rep < R; rep++) {
        qc_rng r;
        qc_rng_init(&r, SEED, (uint64_t)(rep0 + rep));
        simulate(t, &r, n, u, y);
        qc_arx_result res;
        assert_int_equal(qc_arx_fit(w, u, y, n, &o, &res, &err), 0);
        const qc_arx_model *m = &res.model;
        *exact += m->na == t->na && m->nb == t->nb && m->delay == t->d;
        /* The chosen structure contains the truth when it has every
         * lag the truth has: na >= na*, first input lag d + 1 <= d* + 1,
         * last input lag d + nb >= d* + nb*. */
        *under += !(m->na >= t->na && m->delay <= t->d &&
                    m->delay + (int)m->nb >= t->d + (int)t->nb);
    }
    qc_arx_free(w);
    free(u);
    free(y);
}

static void test_order_selection(void **state)
{
    (void)state;
    enum { R = 200, N = 500 };
    int exact, under;
    /* First order, AIC over na = nb in 1..3, d in 0..2: (1,1,0) loses
     * only to a model that contains it and whose extra parameters lower
     * N ln(RSS/N) by more than 2 each: P(chi2(2) > 4) = 13.5% for
     * (2,2,0), less for (3,3,0): about 80% exact. The threshold is 4
     * binomial sd (5.7) below 160. A model not containing the truth costs
     * hundreds in AIC here: never chosen. */
    const truth t1 = {1, 1, 0, {0.43}, {0.47}, 0.1};
    selection_rate(&t1, QC_ARX_AIC, 5000, R, N, &exact, &under);
    printf("  first order, AIC: exact %d/%d, not containing the truth %d\n", exact, R, under);
    assert_true(exact >= 160 - 23);
    assert_int_equal(under, 0);
    /* BIC's penalty p ln N (ln 345 = 5.8 a parameter) makes over-fitting
     * rare: P(chi2(2) > 11.7) = 0.3%, so >= 97%. */
    selection_rate(&t1, QC_ARX_BIC, 5000, R, N, &exact, &under);
    printf("  first order, BIC: exact %d/%d, not containing the truth %d\n", exact, R, under);
    assert_true(exact >= 194);
    assert_int_equal(under, 0);

    /* Second order: only (3,3,0) contains (2,2,0): about 85% exact. */
    const truth t2 = {2, 2, 0, {1.2, -0.5}, {0.3, 0.2}, 0.1};
    selection_rate(&t2, QC_ARX_AIC, 6000, R, N, &exact, &under);
    printf("  second order, AIC: exact %d/%d, not containing the truth %d\n", exact, R, under);
    assert_true(exact >= 170 - 20);
    assert_int_equal(under, 0);

    /* Delay 1: (2,2,0), (2,2,1), (3,3,0) and (3,3,1) all contain
     * y(k+1) = a y(k) + b u(k-1), so AIC over-fits more often: about 75%
     * exact, threshold 4 sd (6.1) below 150. */
    const truth t3 = {1, 1, 1, {0.43}, {0.47}, 0.1};
    selection_rate(&t3, QC_ARX_AIC, 7000, R, N, &exact, &under);
    printf("  first order with delay 1, AIC: exact %d/%d, not containing the truth %d\n", exact,
           R, under);
    assert_true(exact >= 150 - 25);
    assert_int_equal(under, 0);
}

/* Validation figures against their theoretical values for a long
 * held-out part: one-step R^2 = 1 - sigma_e^2 / Var y, and the simulation
 * error is the noise filtered by 1/A, variance sigma_e^2 / (1 - a^2). */
static void test_validation_figures(void **state)
{
    (void)state;
    enum { N = 6000 };
    const truth t = {1, 1, 0, {0.43}, {0.47}, 0.1};
    static double u[N], y[N];
    qc_rng r;
    qc_rng_init(&r, SEED, 11);
    simulate(&t, &r, N, u, y);
    qc_arx_params o;
    qc_arx_params_init(&o);
    qc_arx_result res;
    fit_ok(u, y, N, &o, &res);
    const double a = 0.43, b = 0.47, s2 = 0.01;
    const double var_y = (b * b + s2) / (1 - a * a);
    const double r2 = 1 - s2 / var_y;
    const double fit = 100 * (1 - sqrt(s2 / (1 - a * a) / var_y));
    printf("  validation on %zu samples: one-step R^2 %.4f (theory %.4f), simulated fit %.2f%% "
           "(theory %.2f%%)\n",
           res.n_val, res.val_r2, r2, res.val_fit, fit);
    assert_int_equal(res.n_val, 1800);
    /* sampling sd of the R^2 here is about 0.002, of the fit about 0.5% */
    assert_close(res.val_r2, r2, 0.01);
    assert_close(res.val_fit, fit, 2.5);
    assert_close(res.r2, r2, 0.01);
}

/* Without noise the coefficients come back to rounding, the smallest
 * exact model wins, and the validation is perfect. */
static void test_noiseless(void **state)
{
    (void)state;
    enum { N = 300 };
    const truth t = {2, 2, 1, {1.2, -0.5}, {0.3, 0.2}, 0.0};
    double u[N], y[N];
    qc_rng r;
    qc_rng_init(&r, SEED, 12);
    simulate(&t, &r, N, u, y);
    for (size_t k = 0; k < N; k++) { /* an operating point to remove */
        u[k] += 375;
        y[k] += 325;
    }
    qc_arx_params o;
    qc_arx_params_init(&o);
    o.demean = 0;
    o.u0 = 375;
    o.y0 = 325;
    qc_arx_result res;
    fit_ok(u, y, N, &o, &res);
    assert_int_equal(res.model.na, 2);
    assert_int_equal(res.model.nb, 2);
    assert_int_equal(res.model.delay, 1);
    assert_close(res.model.a[0], 1.2, 1e-9);
    assert_close(res.model.a[1], -0.5, 1e-9);
    assert_close(res.model.b[0], 0.3, 1e-9);
    assert_close(res.model.b[1], 0.2, 1e-9);
    assert_close(res.val_r2, 1, 1e-9);
    assert_close(res.val_fit, 100, 1e-5);
    assert_close(qc_arx_dc_gain(&res.model), 0.5 / 0.3, 1e-9);
}

/* qc_arx_predict's simulation equals running the state step by step, and
 * one-step predictions equal the data on noiseless data. */
static void test_predict_and_state(void **state)
{
    (void)state;
    enum { N = 60 };
    qc_arx_model m = {0};
    m.na = 2;
    m.nb = 2;
    m.delay = 1;
    m.a[0] = 0.5;
    m.a[1] = 0.2;
    m.b[0] = 1.5;
    m.b[1] = -0.4;
    m.u0 = 10;
    m.y0 = 100;
    double u[N], y[N], one[N], sim[N];
    qc_arx_state s;
    qc_arx_state_init(&s);
    for (size_t k = 0; k < N; k++) {
        u[k] = 10 + sin(0.3 * (double)k) + (k % 7 == 0);
        y[k] = qc_arx_state_output(&m, &s, u[k]);
        qc_arx_state_push(&m, &s, u[k], y[k]);
    }
    qc_arx_predict(&m, u, y, N, 0, one, sim);
    for (size_t k = 0; k < 3; k++)
        assert_true(isnan(one[k])); /* y(t) needs u(t - 3) */
    for (size_t k = 3; k < N; k++) {
        assert_close(one[k], y[k], 1e-9);
        assert_close(sim[k], y[k], 1e-9);
    }
    /* delay -1: the output sees the input of the same instant */
    qc_arx_model f = {0};
    f.na = 1;
    f.nb = 1;
    f.delay = -1;
    f.a[0] = 0.3;
    f.b[0] = 0.5;
    qc_arx_state_init(&s);
    double prev = 0;
    for (int k = 0; k < 10; k++) {
        const double x = k + 1.0;
        const double out = qc_arx_state_output(&f, &s, x);
        assert_close(out, 0.3 * prev + 0.5 * x, 1e-12);
        qc_arx_state_push(&f, &s, x, out);
        prev = out;
    }
}

static void test_too_few_and_rank(void **state)
{
    (void)state;
    double u[20], y[20];
    for (int k = 0; k < 20; k++) {
        u[k] = k % 3;
        y[k] = 0.5 * k;
    }
    qc_arx_params o;
    qc_arx_params_init(&o);
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(20, &err);
    qc_arx_result res;
    /* na = nb = 3, d = 2: 6 parameters, lag 5, 30% held out */
    assert_int_equal(qc_arx_fit(w, u, y, 10, &o, &res, &err), QC_EINVAL);
    printf("  %s\n", err.msg);
    assert_non_null(strstr(err.msg, "too few"));
    assert_non_null(strstr(err.msg, "need at least"));
    /* a constant input and output: nothing to identify */
    for (int k = 0; k < 20; k++)
        u[k] = y[k] = 1;
    options_exact(&o, 1, 1, 0);
    o.demean = 1;
    assert_int_equal(qc_arx_fit(w, u, y, 20, &o, &res, &err), QC_ERANGE);
    printf("  %s\n", err.msg);
    /* non-finite data */
    u[4] = NAN;
    assert_int_equal(qc_arx_fit(w, u, y, 20, &o, &res, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "sample 5"));
    qc_arx_free(w);
    qc_arx_free(NULL);
}

/* ---- CSV ---------------------------------------------------------------- */

static const char *tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    return t && *t ? t : "/tmp";
}

static const char *write_tmp(const char *name, const char *text, char *path, size_t size)
{
    snprintf(path, size, "%s/qctl_test_arx_%ld_%s", tmpdir(), (long)getpid(), name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_csv_read(void **state)
{
    (void)state;
    char path[512];
    double *c[3];
    size_t n;
    qc_err err = {0};
    /* header names in any order, BOM, CRLF, comments, quotes, blanks */
    write_tmp("ok.csv",
              "\xef\xbb\xbf# comment\r\ny, \"time\" ,u\r\n\r\n1.5, 0, 10\r\n2.5,60,11\r\n"
              "  # another\n3.5 ,120,1e1\n",
              path, sizeof path);
    assert_int_equal(qc_arx_read_csv(path, "time,u,y", 3, QC_ARX_CSV_TIME, c, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_close(c[0][2], 120, 0);
    assert_close(c[1][1], 11, 0);
    assert_close(c[2][0], 1.5, 0);
    for (int i = 0; i < 3; i++)
        free(c[i]);
    /* by number */
    assert_int_equal(qc_arx_read_csv(path, "3,1", 2, 0, c, &n, &err), 0);
    assert_close(c[0][2], 10, 0);
    assert_close(c[1][2], 3.5, 0);
    free(c[0]);
    free(c[1]);
    remove(path);

    /* no header: names fail unless the positional default is allowed */
    write_tmp("nohead.csv", "0,1,2\n1,3,4\n", path, sizeof path);
    assert_int_equal(qc_arx_read_csv(path, "time,u,y", 3, 0, c, &n, &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, ":1:1: no header line"));
    assert_int_equal(qc_arx_read_csv(path, "time,u,y", 3, QC_ARX_CSV_POSITIONAL, c, &n, &err), 0);
    assert_close(c[2][1], 4, 0);
    for (int i = 0; i < 3; i++)
        free(c[i]);
    remove(path);
}

static void expect_csv_error(const char *name, const char *text, const char *select, int code,
                             const char *where, const char *what)
{
    char path[512], want[600];
    double *c[3] = {0};
    size_t n = 0;
    qc_err err = {0};
    write_tmp(name, text, path, sizeof path);
    const int rc = qc_arx_read_csv(path, select, 3, QC_ARX_CSV_TIME, c, &n, &err);
    printf("  %s\n", err.msg);
    assert_int_equal(rc, code);
    snprintf(want, sizeof want, "%s%s", path, where);
    if (strstr(err.msg, want) == NULL || strstr(err.msg, what) == NULL)
        fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", err.msg, want, what);
    remove(path);
}

static void test_csv_errors(void **state)
{
    (void)state;
    /* line 4, the u field starts at column 5 */
    expect_csv_error("bad.csv", "time,u,y\n0,1,2\n60,1,2\n120,1x,2\n", "time,u,y", QC_EPARSE,
                     ":4:6:", "\"1x\" is not a number");
    expect_csv_error("short.csv", "time,u,y\n0,1,2\n60,1\n", "time,u,y", QC_EPARSE, ":3:5:",
                     "2 fields, column 3 (\"y\") is missing");
    expect_csv_error("empty.csv", "time,u,y\n0,,2\n", "time,u,y", QC_EPARSE, ":2:3:",
                     "is empty");
    expect_csv_error("time.csv", "time,u,y\n0,1,2\n60,1,2\n60,1,2\n", "time,u,y", QC_EPARSE,
                     ":4:1:", "not after the previous");
    expect_csv_error("name.csv", "t,u,y\n0,1,2\n", "time,u,y", QC_EPARSE, ":1:1:",
                     "no column named \"time\"");
    expect_csv_error("none.csv", "time,u,y\n# nothing\n", "time,u,y", QC_EEMPTY, ":",
                     "no data rows");
    expect_csv_error("inf.csv", "time,u,y\n0,inf,2\n", "time,u,y", QC_EPARSE, ":2:3:",
                     "not a finite number");
    char path[512];
    double *c[3];
    size_t n;
    qc_err err = {0};
    snprintf(path, sizeof path, "%s/qctl_no_such_file.csv", tmpdir());
    assert_int_equal(qc_arx_read_csv(path, "time,u,y", 3, 0, c, &n, &err), QC_EIO);
    assert_int_equal(qc_arx_read_csv(path, "time,u", 3, 0, c, &n, &err), QC_EINVAL);
    /* the shipped file with a non-number at a known line */
    assert_int_equal(qc_arx_read_csv(QC_TEST_DATA "/arx_bad_number.csv", "time,u,y", 3, 0, c, &n,
                                     &err),
                     QC_EPARSE);
    assert_non_null(strstr(err.msg, "arx_bad_number.csv:7:"));
}

/* ---- JSON --------------------------------------------------------------- */

static void test_json_roundtrip(void **state)
{
    (void)state;
    enum { N = 500 };
    const truth t = {2, 1, 1, {0.5, 0.2}, {0.8}, 0.2};
    double u[N], y[N];
    qc_rng r;
    qc_rng_init(&r, SEED, 13);
    simulate(&t, &r, N, u, y);
    qc_arx_params o;
    options_exact(&o, 2, 1, 1);
    o.dt = 60;
    qc_arx_result res;
    fit_ok(u, y, N, &o, &res);
    json_t *j = qc_arx_result_json(&res);
    qc_arx_model m;
    qc_err err = {0};
    assert_int_equal(qc_arx_model_from_json(j, "", &m, &err), 0);
    assert_int_equal(m.na, 2);
    assert_int_equal(m.nb, 1);
    assert_int_equal(m.delay, 1);
    assert_close(m.a[1], res.model.a[1], 1e-9 * fabs(res.model.a[1]));
    assert_close(m.b[0], res.model.b[0], 1e-9 * fabs(res.model.b[0]));
    assert_close(m.dt, 60, 0);
    assert_true(json_is_array(json_object_get(json_object_get(j, "fit"), "candidates")));
    json_decref(j);
}

static void expect_json_error(const char *text, const char *where, const char *what)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    assert_non_null(v);
    qc_arx_model m;
    qc_err err = {0};
    const int rc = qc_arx_model_from_json(v, where, &m, &err);
    printf("  %s\n", err.msg);
    assert_int_equal(rc, QC_EPARSE);
    if (strstr(err.msg, what) == NULL)
        fail_msg("message \"%s\" lacks \"%s\"", err.msg, what);
    json_decref(v);
}

static void test_json_errors(void **state)
{
    (void)state;
#define OP "\"operating_point\":{\"u\":375,\"y\":325}"
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":1,\"delay\":0,\"a\":[0.43]," OP "}", "",
                      "b: missing field");
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":2,\"delay\":0,\"a\":[0.43],\"b\":[1]," OP
                      "}",
                      "sensor", "sensor.b: expected an array of 2 numbers (nb = 2), got 1");
    expect_json_error("{\"type\":\"arx\",\"na\":\"1\",\"nb\":1,\"delay\":0}", "",
                      "na: expected a whole number, got a string");
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":1,\"delay\":9}", "", "delay: 9 is out of");
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":1,\"delay\":0,\"a\":[\"x\"],\"b\":[1]," OP
                      "}",
                      "", "a.0: expected a number, got a string");
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":1,\"delay\":0,\"a\":[1],\"b\":[1]}", "",
                      "operating_point: missing field");
    expect_json_error("{\"type\":\"arx\",\"na\":1,\"nb\":1,\"delay\":0,\"a\":[1],\"b\":[1],"
                      "\"operating_point\":{\"u\":1}}",
                      "", "operating_point.y: missing field");
    expect_json_error("{\"na\":1}", "", "type: missing field");
    expect_json_error("[1]", "", "expected an object");
#undef OP
    qc_arx_system s;
    qc_err err = {0};
    assert_int_equal(qc_arx_system_read(QC_TEST_DATA "/arx_model_missing_field.json", &s, &err),
                     QC_EPARSE);
    printf("  %s\n", err.msg);
    assert_non_null(strstr(err.msg, "arx_model_missing_field.json: sensor.b: missing field"));
    assert_int_equal(qc_arx_system_read(QC_TEST_DATA "/arx_model.json", &s, &err), 0);
    assert_true(s.has_sensor);
    assert_close(s.plant.a[0], 0.43, 0);
    assert_int_equal(s.sensor.delay, -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_order_recovery),
        cmocka_unit_test(test_second_order_recovery),
        cmocka_unit_test(test_interval_coverage),
        cmocka_unit_test(test_affine_map),
        cmocka_unit_test(test_fall_rate),
        cmocka_unit_test(test_order_selection),
        cmocka_unit_test(test_validation_figures),
        cmocka_unit_test(test_noiseless),
        cmocka_unit_test(test_predict_and_state),
        cmocka_unit_test(test_too_few_and_rank),
        cmocka_unit_test(test_curve),
        cmocka_unit_test(test_csv_read),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_json_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
