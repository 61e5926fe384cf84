/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_copula.c: Kendall's tau and Spearman's rho against direct
 * formulas, and the empirical Markov copula: a Gaussian-copula sample
 * with a set tau keeps that tau in what the copula generates, and the
 * lag-1 dependence of an autoregressive sequence is kept up to the grid.
 *
 * Tolerances. The sample tau of n independent pairs has variance
 * 2(2n + 5) / (9n(n - 1)) ~ 4/(9n) under independence (sd 0.0105 at
 * n = 4000), and less under dependence (for the Gaussian copula it
 * shrinks as |tau| grows), so 0.0105 bounds its sd here. Generated pairs
 * are resampled stored states, so their tau estimates the stored sample's
 * tau with an error of the same kind at N = 20000 draws (sd <= 0.0047).
 * |tau_gen - tau| < 0.05 is beyond 4 standard
 * deviations of both errors combined; an independent generator (the
 * check's control) gives tau near 0, ten times the tolerance away. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>

#include "qctl/copula.h"
#include "qctl/rng_gsl.h"

#define SEED UINT64_C(424242)
#define PI 3.14159265358979323846

/* tau-b by its definition, O(n^2). */
static double tau_naive(const double *x, const double *y, size_t n)
{
    double c = 0, d = 0, tx = 0, ty = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const double a = (x[i] - x[j]) * (y[i] - y[j]);
            if (a > 0)
                c++;
            else if (a < 0)
                d++;
            else {
                if (x[i] == x[j] && y[i] != y[j])
                    tx++;
                if (y[i] == y[j] && x[i] != x[j])
                    ty++;
            }
        }
    return (c - d) / sqrt((c + d + tx) * (c + d + ty));
}

static void test_kendall_exact(void **state)
{
    (void)state;
    qc_rng r;
    qc_rng_init(&r, SEED, 1);
    const size_t n = 400;
    double x[400], y[400];
    for (size_t i = 0; i < n; i++) {
        x[i] = floor(10 * qc_rng_u01(&r)); /* many ties */
        y[i] = floor(8 * qc_rng_u01(&r)) + (x[i] > 5 ? 3 : 0);
    }
    double tau;
    qc_err err = {0};
    assert_int_equal(qc_copula_kendall(x, y, n, &tau, &err), 0);
    assert_true(fabs(tau - tau_naive(x, y, n)) < 1e-12);
    for (size_t i = 0; i < n; i++) {
        x[i] = qc_rng_u01(&r);
        y[i] = -x[i] * x[i];
    }
    assert_int_equal(qc_copula_kendall(x, y, n, &tau, &err), 0);
    assert_true(fabs(tau + 1) < 1e-15);
    double rho;
    assert_int_equal(qc_copula_spearman(x, y, n, &rho, &err), 0);
    assert_true(fabs(rho + 1) < 1e-12);
    for (size_t i = 0; i < n; i++)
        y[i] = 7;
    assert_int_equal(qc_copula_kendall(x, y, n, &tau, &err), 0);
    assert_true(isnan(tau));
}

static void test_spearman_small(void **state)
{
    (void)state;
    /* Without ties rho = 1 - 6 sum d^2 / (n (n^2 - 1)). */
    const double x[] = {1, 2, 3, 4, 5, 6}, y[] = {2, 1, 4, 3, 6, 5};
    double rho;
    assert_int_equal(qc_copula_spearman(x, y, 6, &rho, NULL), 0);
    assert_true(fabs(rho - (1 - 6.0 * 6 / (6 * 35))) < 1e-15);
    double u[6];
    assert_int_equal(qc_copula_pseudo(y, 6, u, NULL), 0);
    assert_true(fabs(u[0] - 1.5 / 6) < 1e-15 && fabs(u[5] - 4.5 / 6) < 1e-15);
}

/* n pairs of a Gaussian copula with Kendall tau `tau`, mapped to an
 * exponential and a lognormal marginal (the copula does not care). */
static void gaussian_pairs(double tau, size_t n, uint64_t stream, double *a, double *b)
{
    const double rho = sin(PI * tau / 2);
    qc_rng r;
    qc_rng_init(&r, SEED, stream);
    for (size_t i = 0; i < n; i++) {
        const double z1 = gsl_ran_gaussian_ziggurat(qc_rng_gsl(&r), 1);
        const double z2 = rho * z1 + sqrt(1 - rho * rho) * gsl_ran_gaussian_ziggurat(qc_rng_gsl(&r), 1);
        a[i] = -log(1 - gsl_cdf_ugaussian_P(z1) * (1 - 1e-16)) / 3;
        b[i] = exp(1 + 0.8 * z2);
    }
}

static void test_gaussian_tau_preserved(void **state)
{
    (void)state;
    const size_t n = 4000, N = 20000;
    const double taus[] = {0.5, -0.3};
    for (int k = 0; k < 2; k++) {
        double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
        gaussian_pairs(taus[k], n, 10 + (uint64_t)k, a, b);
        double tau_s;
        assert_int_equal(qc_copula_kendall(a, b, n, &tau_s, NULL), 0);
        assert_true(fabs(tau_s - taus[k]) < 0.045); /* 4 x 0.0105 */
        qc_copula c;
        qc_err err = {0};
        assert_int_equal(qc_copula_build(&c, a, b, NULL, n, 0, &err), 0);
        qc_rng r;
        qc_rng_init(&r, SEED, 20 + (uint64_t)k);
        qc_copula_walk w;
        qc_copula_walk_init(&w, &c, &r);
        double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v), *vi = malloc(N * sizeof *vi);
        for (size_t i = 0; i < N; i++) {
            uint8_t mk;
            qc_copula_walk_next(&w, &u[i], &v[i], &mk);
            assert_true(u[i] > 0 && u[i] < 1 && v[i] > 0 && v[i] < 1);
            vi[i] = qc_rng_u01(&r); /* the control: no dependence */
        }
        double tau_g, tau_i;
        assert_int_equal(qc_copula_kendall(u, v, N, &tau_g, NULL), 0);
        assert_int_equal(qc_copula_kendall(u, vi, N, &tau_i, NULL), 0);
        if (!(fabs(tau_g - taus[k]) < 0.05 && fabs(tau_g - tau_s) < 0.03)) {
            print_error("set tau %.2f: sample %.4f, generated %.4f\n", taus[k], tau_s, tau_g);
            fail();
        }
        assert_true(fabs(tau_i) < 0.02); /* the control is far from tau */
        /* Generated marginals are uniform: each quarter of [0,1] holds
         * about N/4 points (binomial sd 61; 5 sd tolerance). */
        size_t q[4] = {0};
        for (size_t i = 0; i < N; i++)
            q[u[i] >= 1 ? 3 : (int)(u[i] * 4)]++;
        for (int j = 0; j < 4; j++)
            assert_true(fabs((double)q[j] - N / 4.0) < 5 * 61.3);
        qc_copula_free(&c);
        free(a);
        free(b);
        free(u);
        free(v);
        free(vi);
    }
}

/* Lag 1: an AR(1) Gaussian sequence x_t = phi x_{t-1} + e_t has lag-1
 * Kendall tau (2/pi) asin(phi). The chain conditions on the cell of the
 * current state only, so it keeps the lag-1 dependence up to the grid
 * (14 x 14 cells at n = 4000); measured loss is a few hundredths. */
static void test_lag1_preserved(void **state)
{
    (void)state;
    const size_t n = 4000, N = 20000;
    const double phi = 0.7, tau_true = 2 / PI * asin(phi);
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    uint8_t *mark = malloc(n);
    qc_rng r;
    qc_rng_init(&r, SEED, 30);
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        s = phi * s + sqrt(1 - phi * phi) * gsl_ran_gaussian_ziggurat(qc_rng_gsl(&r), 1);
        x[i] = exp(s);
        y[i] = qc_rng_u01(&r);
        mark[i] = x[i] > 1;
    }
    double tau_s;
    assert_int_equal(qc_copula_kendall(x, x + 1, n - 1, &tau_s, NULL), 0);
    assert_true(fabs(tau_s - tau_true) < 0.05);
    qc_copula c;
    assert_int_equal(qc_copula_build(&c, x, y, mark, n, 0, NULL), 0);
    assert_int_equal(c.grid, 14);
    qc_copula_walk w;
    qc_copula_walk_init(&w, &c, &r);
    double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
    size_t marks_ok = 0;
    for (size_t i = 0; i < N; i++) {
        uint8_t mk;
        qc_copula_walk_next(&w, &u[i], &v[i], &mk);
        marks_ok += mk == (u[i] > 0.5); /* the mark rides with its state (x > 1 iff above median) */
    }
    double tau_g;
    assert_int_equal(qc_copula_kendall(u, u + 1, N - 1, &tau_g, NULL), 0);
    if (!(tau_g > tau_s - 0.08 && tau_g < tau_s + 0.03)) {
        print_error("lag-1 tau: sample %.4f, generated %.4f\n", tau_s, tau_g);
        fail();
    }
    assert_true(marks_ok > N - N / 100); /* ties at the median aside */
    qc_copula_free(&c);
    free(x);
    free(y);
    free(mark);
    free(u);
    free(v);
}

static void test_bad_input(void **state)
{
    (void)state;
    qc_copula c;
    qc_err err = {0};
    const double a[1] = {1};
    assert_int_equal(qc_copula_build(&c, a, a, NULL, 1, 0, &err), QC_EEMPTY);
    const double pv[4] = {0.5, 0.5, 1.5, 0.2}, nx[4] = {0.1, 0.2, 0.3, 0.4};
    assert_int_equal(qc_copula_from_points(&c, pv, nx, NULL, 2, 0, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "point 2"));
    assert_int_equal(qc_copula_from_points(&c, nx, nx, NULL, 2, 65, &err), QC_ERANGE);
    /* Few points, big grid: empty cells borrow a neighbour's transitions. */
    assert_int_equal(qc_copula_from_points(&c, nx, nx, NULL, 2, 8, &err), 0);
    qc_rng r;
    qc_rng_init(&r, SEED, 40);
    qc_copula_walk w;
    qc_copula_walk_init(&w, &c, &r);
    for (int i = 0; i < 100; i++) {
        double u, v;
        uint8_t mk;
        qc_copula_walk_next(&w, &u, &v, &mk);
        assert_true((u == 0.1 && v == 0.2) || (u == 0.3 && v == 0.4));
    }
    qc_copula_free(&c);
    qc_copula_free(&c); /* safe twice */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kendall_exact),
        cmocka_unit_test(test_spearman_small),
        cmocka_unit_test(test_gaussian_tau_preserved),
        cmocka_unit_test(test_lag1_preserved),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
