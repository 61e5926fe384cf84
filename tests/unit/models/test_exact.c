/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_exact.c: the closed forms of qctl/exact.h against values found
 * another way: Erlang C by its textbook sum, M/M/c/K by solving the
 * generator's balance equations with LU, the M/M/c response-time tail by
 * numerical convolution, D/M/1's sigma against the published value, and
 * Pollaczek-Khinchine by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>

#include "qctl/exact.h"

static void near(double got, double want, double rel, const char *what)
{
    printf("  %-40s %.10g (want %.10g)\n", what, got, want);
    if (!(fabs(got - want) <= rel * fabs(want))) {
        fail_msg("%s: %.12g, want %.12g", what, got, want);
    }
}

/* Erlang C as in the textbooks: a^c/c! c/(c-a) / (sum_{k<c} a^k/k! + that) */
static double erlang_c_sum(unsigned c, double a)
{
    double term = 1, sum = 0;
    for (unsigned k = 0; k < c; k++) {
        sum += term;
        term *= a / (k + 1);
    }
    double top = term * c / (c - a);
    return top / (sum + top);
}

static void test_erlang_c(void **state)
{
    (void)state;
    const unsigned cs[] = {1, 2, 3, 4, 10, 50};
    const double rhos[] = {0.3, 0.8, 0.9, 0.99};
    for (size_t i = 0; i < 6; i++)
        for (size_t j = 0; j < 4; j++) {
            double a = rhos[j] * cs[i];
            char name[64];
            snprintf(name, sizeof name, "Erlang C c=%u a=%g", cs[i], a);
            near(qc_erlang_c(cs[i], a), erlang_c_sum(cs[i], a), 1e-10, name);
        }
    assert_true(isnan(qc_erlang_c(2, 2.0)));
}

/* M/M/c/K: pi Q = 0, sum pi = 1 by LU on the (K+1)-state generator with
 * one balance equation replaced by the normalization. */
static void mmck_lu(double lam, double mu, unsigned c, unsigned K, double *pb, double *L,
                    double *busy)
{
    unsigned n = K + 1;
    gsl_matrix *A = gsl_matrix_calloc(n, n);
    gsl_vector *b = gsl_vector_calloc(n), *x = gsl_vector_alloc(n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    /* row j of A: column j of Q (A pi = 0 means pi Q = 0) */
    for (unsigned i = 0; i < n; i++) {
        double up = i < K ? lam : 0, down = (i < c ? i : c) * mu;
        if (i < K)
            gsl_matrix_set(A, i + 1, i, up);
        if (i > 0)
            gsl_matrix_set(A, i - 1, i, down);
        gsl_matrix_set(A, i, i, -(up + down));
    }
    for (unsigned i = 0; i < n; i++)
        gsl_matrix_set(A, 0, i, 1.0);
    gsl_vector_set(b, 0, 1.0);
    int sg;
    gsl_linalg_LU_decomp(A, perm, &sg);
    gsl_linalg_LU_solve(A, perm, b, x);
    *pb = gsl_vector_get(x, K);
    *L = *busy = 0;
    for (unsigned i = 0; i < n; i++) {
        *L += i * gsl_vector_get(x, i);
        *busy += (i < c ? i : c) * gsl_vector_get(x, i);
    }
    gsl_matrix_free(A);
    gsl_vector_free(b);
    gsl_vector_free(x);
    gsl_permutation_free(perm);
}

static void test_mmck(void **state)
{
    (void)state;
    const struct { double lam, mu; unsigned c, K; } cases[] = {
        {3.6, 1, 4, 10}, {0.9, 1, 1, 5}, {2.0, 1, 1, 30}, {5, 1, 4, 4}, {2.4, 1, 3, 200}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double pb, L, busy, pb2, L2, busy2;
        assert_int_equal(qc_mmck(cases[i].lam, cases[i].mu, cases[i].c, cases[i].K, &pb, &L, &busy), 0);
        mmck_lu(cases[i].lam, cases[i].mu, cases[i].c, cases[i].K, &pb2, &L2, &busy2);
        char name[64];
        snprintf(name, sizeof name, "M/M/%u/%u lambda=%g blocking", cases[i].c, cases[i].K, cases[i].lam);
        near(pb, pb2, 1e-8, name);
        snprintf(name, sizeof name, "M/M/%u/%u lambda=%g L", cases[i].c, cases[i].K, cases[i].lam);
        near(L, L2, 1e-8, name);
        near(busy, busy2, 1e-8, "  busy servers");
    }
    /* unlimited: M/M/3 at rho 0.8 (L = Lq + a, Lq = C rho / (1 - rho)) */
    double pb, L, busy;
    assert_int_equal(qc_mmck(2.4, 1, 3, 0, &pb, &L, &busy), 0);
    near(L, erlang_c_sum(3, 2.4) * 0.8 / 0.2 + 2.4, 1e-10, "M/M/3 rho 0.8 L");
    assert_int_equal(qc_mmck(3, 1, 3, 0, &pb, &L, &busy), -1);
}

typedef struct conv { double lam, mu, C, theta, t; } conv;

/* density of T = S + W at s for S; the integrand of P(T > t) =
 * P(S > t) + int_0^t f_S(s) P(W > t - s) ds */
static double conv_f(double s, void *ctx)
{
    conv *c = ctx;
    return c->mu * exp(-c->mu * s) * c->C * exp(-c->theta * (c->t - s));
}

static void test_mmc_quantile(void **state)
{
    (void)state;
    near(qc_mmc_response_quantile(0.9, 1, 1, 0.99), -log(0.01) / 0.1, 1e-9, "M/M/1 0.9 p99");
    near(qc_mmc_response_quantile(0.9, 1, 1, 0.5), log(2) / 0.1, 1e-9, "M/M/1 0.9 p50");
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    const struct { double lam; unsigned c; } cases[] = {{2.4, 3}, {3.6, 4}, {1.0, 2}};
    const double qs[] = {0.5, 0.95, 0.99};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            double x = qc_mmc_response_quantile(cases[i].lam, 1, cases[i].c, qs[j]);
            conv cv = {cases[i].lam, 1, erlang_c_sum(cases[i].c, cases[i].lam),
                       cases[i].c - cases[i].lam, x};
            gsl_function f = {conv_f, &cv};
            double r, e;
            gsl_integration_qags(&f, 0, x, 0, 1e-12, 1000, w, &r, &e);
            char name[64];
            snprintf(name, sizeof name, "M/M/%u lambda=%g P(T > q%g)", cases[i].c,
                     cases[i].lam, qs[j]);
            near(exp(-x) + r, 1 - qs[j], 1e-8, name);
        }
    gsl_integration_workspace_free(w);
}

static void test_gm1(void **state)
{
    (void)state;
    qc_dist d = {0};
    /* D/M/1 at rho = 0.5: sigma = 0.2032 (Gross and Harris, Fundamentals
     * of Queueing Theory, D/M/1 example) */
    assert_int_equal(qc_dist_parse(&d, "det:2", NULL), 0);
    double s = qc_gm1_sigma(&d, 1);
    near(s, 0.2032, 2e-4, "D/M/1 rho 0.5 sigma");
    near(exp(-2 * (1 - s)), s, 1e-12, "  its fixed point");
    /* Poisson arrivals: sigma = rho */
    assert_int_equal(qc_dist_parse(&d, "exp:0.8", NULL), 0);
    near(qc_gm1_sigma(&d, 1), 0.8, 1e-10, "M/M/1 sigma");
    /* E2/M/1: sigma solves sigma = (2 lam / (2 lam + mu (1 - sigma)))^2 */
    assert_int_equal(qc_dist_parse(&d, "erlang:2,1.6", NULL), 0);
    s = qc_gm1_sigma(&d, 1);
    near(pow(1.6 / (1.6 + 1 - s), 2), s, 1e-12, "E2/M/1 fixed point");
    assert_true(s > 0 && s < 0.8);
    assert_int_equal(qc_dist_parse(&d, "det:0.5", NULL), 0);
    assert_true(isnan(qc_gm1_sigma(&d, 1)));
}

static void exact_of(const char *arr, const char *svc, unsigned c, uint64_t K, qc_discipline disc,
                     qc_queue_exact *e)
{
    qc_dist a = {0}, s = {0};
    assert_int_equal(qc_dist_parse(&a, arr, NULL), 0);
    assert_int_equal(qc_dist_parse(&s, svc, NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &s;
    p.servers = c;
    p.capacity = K;
    p.discipline = disc;
    qc_queue_exact_values(&p, e);
    qc_dist_free(&a);
    qc_dist_free(&s);
}

static void test_queue_exact(void **state)
{
    (void)state;
    qc_queue_exact e;
    exact_of("exp:0.9", "det:1", 1, 0, QC_FCFS, &e);
    near(e.value[QC_QM_RESPONSE], 5.5, 1e-12, "M/D/1 0.9 E[T]");
    assert_true(isnan(e.value[QC_QM_P99]));
    /* lognormal with mean 1, SCV 4: E[S^2] = 5, E[T] = 1 + 0.7 5 / 0.6 */
    exact_of("exp:0.7", "lognormal:-0.8047189562170501,1.2686362411795196", 1, 0, QC_FCFS, &e);
    near(e.value[QC_QM_RESPONSE], 1 + 0.7 * 5 / 0.6, 1e-9, "M/G/1 lognormal E[T]");
    /* PS: E[S] / (1 - rho), whatever the distribution */
    exact_of("exp:0.7", "hyperexp:0.8872983346,1.7745966692,0.1127016654,0.2254033308", 1, 0,
             QC_PS, &e);
    near(e.value[QC_QM_RESPONSE], 1 / 0.3, 1e-9, "M/H2/1-PS E[T]");
    assert_true(isnan(e.value[QC_QM_P50]));
    /* infinite second moment: infinite mean wait */
    exact_of("exp:0.3", "pareto:1.5,0.5", 1, 0, QC_FCFS, &e);
    assert_true(isinf(e.value[QC_QM_WAIT]) && isinf(e.value[QC_QM_RESPONSE]));
    near(e.value[QC_QM_UTILIZATION], 0.45, 1e-12, "M/Pareto/1 utilization");
    /* D/M/1 at 0.8: E[T] = 1 / (mu (1 - sigma)) */
    exact_of("det:1.25", "exp:1", 1, 0, QC_FCFS, &e);
    qc_dist d = {0};
    assert_int_equal(qc_dist_parse(&d, "det:1.25", NULL), 0);
    near(e.value[QC_QM_RESPONSE], 1 / (1 - qc_gm1_sigma(&d, 1)), 1e-12, "D/M/1 0.8 E[T]");
    near(e.value[QC_QM_P99], log(100) / (1 - qc_gm1_sigma(&d, 1)), 1e-12, "D/M/1 0.8 p99");
    /* M/M/4/10 at 0.9: Little's law ties the means */
    exact_of("exp:3.6", "exp:1", 4, 10, QC_FCFS, &e);
    double pb, L, busy;
    mmck_lu(3.6, 1, 4, 10, &pb, &L, &busy);
    near(e.value[QC_QM_BLOCKING], pb, 1e-8, "M/M/4/10 blocking");
    near(e.value[QC_QM_RESPONSE], L / (3.6 * (1 - pb)), 1e-8, "M/M/4/10 E[T]");
    near(e.value[QC_QM_UTILIZATION], 3.6 * (1 - pb) / 4, 1e-8, "M/M/4/10 utilization");
    /* no closed form: G/G/2 */
    exact_of("uniform:0,2", "det:1.5", 2, 0, QC_FCFS, &e);
    assert_true(isnan(e.value[QC_QM_RESPONSE]) && e.model[0] == '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_erlang_c),     cmocka_unit_test(test_mmck),
        cmocka_unit_test(test_mmc_quantile), cmocka_unit_test(test_gm1),
        cmocka_unit_test(test_queue_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
