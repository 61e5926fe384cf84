/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_multiclass.c: the multi-class priority server against exact answers.
 *
 * Exact answers used:
 *   - a truncated two-class Markov chain ({0..80}^2, arrivals beyond lost
 *     with probability below 1e-8), solved numerically here (Gauss-
 *     Seidel sweeps on the global balance equations), for DPS by class and
 *     DPS by job with exponential classes: independent of the simulator
 *     and of the library's formulas;
 *   - the Fayolle-Mitrani-Iasnogorodski linear system for DPS by job
 *     (qc_mc_dps_exp_delays), itself checked against the chain;
 *   - processor sharing: equal weights by job give E[S] / (1 - rho) to
 *     every class when the service rates are equal; by class, symmetric
 *     classes get the same, and in any case the rate-weighted mean delay
 *     is E[S] / (1 - rho) (the total number present is that of M/M/1);
 *   - non-preemptive weighted: Kleinrock's conservation law
 *     sum_k rho_k W_k = rho W_0 / (1 - rho), W_0 = sum_k lambda_k E[S_k^2]/2,
 *     for any weights and requirement laws; with a weight ratio of 1e6 it
 *     is head-of-line priority (Cobham): W_1 = W_0 / (1 - rho_1),
 *     W_2 = W_0 / ((1 - rho_1)(1 - rho));
 *   - the gate at L = 1 makes M/M/1/1: blocking lambda / (lambda + mu);
 *   - busy cycles of M/M/1 start at rate lambda (1 - rho).
 *
 * Statistical checks follow test_queue.c: every simulated figure is a
 * t-interval over independent replications taken at the simultaneous level
 * 1 - 0.01 / MAX_CHECKS (Bonferroni, so the whole file fails a correct
 * simulator with probability below 1%), the exact value must lie in it,
 * and its half-width must be below the stated fraction of the value, so
 * that covering means something. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/dist.h"
#include "qctl/multiclass.h"
#include "qctl/stats.h"

#define MAX_CHECKS 60
#define FAMILY_LEVEL (1.0 - 0.01 / MAX_CHECKS)
#define REPS 20
#define SEED 20261207

static int checks_made;

/* ---- the exact two-class chain ------------------------------------------ */

/* Mean delays of two exponential classes under DPS (by class or by job)
 * with weights w, from the chain on {0..N}^2 (arrivals that would exceed N
 * are lost; N is chosen so that this loss is negligible). */
static void chain_delays(int per_job, const double lam[2], const double mu[2],
                         const double w[2], int N, double T[2])
{
    int S = N + 1;
    double *pi = malloc((size_t)S * S * sizeof *pi);
    assert_non_null(pi);
    for (int s = 0; s < S * S; s++)
        pi[s] = 1.0 / (S * S);
#define IDX(i, j) ((i) * S + (j))
    /* d1, d2: departure rates of classes 1 and 2 in state (i, j) */
#define D1(i, j)                                                                      \
    ((i) == 0 ? 0.0                                                                   \
              : mu[0] * (per_job ? (i) * w[0] / ((i) * w[0] + (j) * w[1])               \
                                 : w[0] / (w[0] + ((j) > 0 ? w[1] : 0.0))))
#define D2(i, j)                                                                      \
    ((j) == 0 ? 0.0                                                                   \
              : mu[1] * (per_job ? (j) * w[1] / ((i) * w[0] + (j) * w[1])               \
                                 : w[1] / (w[1] + ((i) > 0 ? w[0] : 0.0))))
    for (int sweep = 0; sweep < 100000; sweep++) {
        double change = 0, total = 0;
        for (int i = 0; i <= N; i++) {
            for (int j = 0; j <= N; j++) {
                double out = (i < N ? lam[0] : 0) + (j < N ? lam[1] : 0) + D1(i, j) + D2(i, j);
                double in = 0;
                if (i > 0)
                    in += pi[IDX(i - 1, j)] * lam[0];
                if (j > 0)
                    in += pi[IDX(i, j - 1)] * lam[1];
                if (i < N)
                    in += pi[IDX(i + 1, j)] * D1(i + 1, j);
                if (j < N)
                    in += pi[IDX(i, j + 1)] * D2(i, j + 1);
                double v = in / out;
                double d = fabs(v - pi[IDX(i, j)]);
                if (d > change)
                    change = d;
                pi[IDX(i, j)] = v;
                total += v;
            }
        }
        for (int s = 0; s < S * S; s++)
            pi[s] /= total;
        if (sweep > 10 && change / total < 1e-13)
            break;
    }
    double n1 = 0, n2 = 0, lost1 = 0, lost2 = 0;
    for (int i = 0; i <= N; i++)
        for (int j = 0; j <= N; j++) {
            n1 += i * pi[IDX(i, j)];
            n2 += j * pi[IDX(i, j)];
            if (i == N)
                lost1 += pi[IDX(i, j)];
            if (j == N)
                lost2 += pi[IDX(i, j)];
        }
    assert_true(lost1 < 1e-8 && lost2 < 1e-8);
    T[0] = n1 / (lam[0] * (1 - lost1));
    T[1] = n2 / (lam[1] * (1 - lost2));
    free(pi);
#undef IDX
#undef D1
#undef D2
}

/* ---- simulation helpers --------------------------------------------------- */

typedef struct sim_out {
    double T[REPS][QC_MC_MAX_CLASSES]; /* mean delay per rep and class */
    double W[REPS][QC_MC_MAX_CLASSES]; /* mean wait (delay - requirement) */
    double shed[REPS][QC_MC_MAX_CLASSES];
    double cycles[REPS];               /* measurement cycles per unit time */
} sim_out;

/* Runs `reps` replications of [0, warm + H] with fixed priorities; the
 * estimates use departures after warm. */
static void run_fixed(qc_mc_discipline d, unsigned K, const char *const *arr,
                      const char *const *svc, const double *w, double limit, double warm,
                      double H, unsigned min_completions, sim_out *o)
{
    qc_dist a[QC_MC_MAX_CLASSES], s[QC_MC_MAX_CLASSES];
    qc_mc_class cls[QC_MC_MAX_CLASSES];
    memset(cls, 0, sizeof cls);
    for (unsigned k = 0; k < K; k++) {
        qc_err err = {0};
        assert_int_equal(qc_dist_parse(&a[k], arr[k], &err), 0);
        assert_int_equal(qc_dist_parse(&s[k], svc[k], &err), 0);
        cls[k] = (qc_mc_class){"c", &a[k], &s[k], 0.0, w[k], 0};
    }
    for (unsigned r = 0; r < REPS; r++) {
        qc_mc_params p;
        qc_mc_params_init(&p);
        p.nclass = K;
        p.cls = cls;
        p.discipline = d;
        p.seed = SEED;
        p.rep = r;
        p.min_completions = min_completions;
        qc_err err = {0};
        qc_mc *m = qc_mc_alloc(&p, &err);
        if (m == NULL)
            fail_msg("qc_mc_alloc: %s", err.msg);
        qc_mc_set_limit(m, limit);
        qc_mc_report rep;
        assert_int_equal(qc_mc_advance(m, warm, 0, &rep), 0);
        qc_mc_totals t0[QC_MC_MAX_CLASSES];
        for (unsigned k = 0; k < K; k++)
            t0[k] = *qc_mc_totals_of(m, k);
        uint64_t ncyc = 0;
        for (;;) {
            assert_int_equal(qc_mc_advance(m, warm + H, QC_MC_EV_CYCLE, &rep), 0);
            if (rep.what & QC_MC_EV_TIME)
                break;
            ncyc++;
        }
        o->cycles[r] = (double)ncyc / H;
        for (unsigned k = 0; k < K; k++) {
            const qc_mc_totals *t = qc_mc_totals_of(m, k);
            double n = (double)(t->completions - t0[k].completions);
            o->T[r][k] = (t->delay_sum - t0[k].delay_sum) / n;
            o->W[r][k] = (t->delay_sum - t0[k].delay_sum - (t->work - t0[k].work)) / n;
            o->shed[r][k] = (double)(t->shed - t0[k].shed) / (double)(t->arrivals - t0[k].arrivals);
        }
        qc_mc_free(m);
    }
    for (unsigned k = 0; k < K; k++) {
        qc_dist_free(&a[k]);
        qc_dist_free(&s[k]);
    }
}

/* exact inside the simultaneous CI of x[0..REPS-1], half-width <= maxrel. */
static void expect_ci(const double *x, double exact, double maxrel, const char *what)
{
    qc_ci ci;
    assert_int_equal(qc_ci_t(x, REPS, FAMILY_LEVEL, &ci, NULL), 0);
    checks_made++;
    assert_true(checks_made <= MAX_CHECKS);
    printf("  %-46s exact %-10.6g sim %-10.6g +- %-9.3g (%.2f%%)\n", what, exact, ci.mean,
           ci.half, 100 * ci.half / fabs(exact));
    if (!(fabs(ci.mean - exact) <= ci.half))
        fail_msg("%s: exact %g outside the simultaneous CI %g +- %g", what, exact, ci.mean,
                 ci.half);
    if (!(ci.half <= maxrel * fabs(exact)))
        fail_msg("%s: half-width %g exceeds %g%% of %g", what, ci.half, 100 * maxrel, exact);
}

static void column(const sim_out *o, unsigned k, int wait, double *x)
{
    for (unsigned r = 0; r < REPS; r++)
        x[r] = wait ? o->W[r][k] : o->T[r][k];
}

/* ---- tests ------------------------------------------------------------------- */

static const double LAM[2] = {0.4, 0.6}, MU[2] = {1.0, 2.0}; /* rho = 0.4 + 0.3 */
static const char *const ARR2[2] = {"exp:0.4", "exp:0.6"};
static const char *const SVC2[2] = {"exp:1", "exp:2"};

/* The library's DPS-by-job formula against the chain: deterministic. */
static void test_fmi_matches_chain(void **state)
{
    (void)state;
    static const double ws[][2] = {{1, 1}, {1, 4}, {5, 1}, {1, 50}};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        double Tc[2], Tf[2];
        chain_delays(1, LAM, MU, ws[i], 80, Tc);
        assert_int_equal(qc_mc_dps_exp_delays(2, LAM, MU, ws[i], Tf, NULL), 0);
        printf("  w = (%g, %g): chain (%.8f, %.8f) formula (%.8f, %.8f)\n", ws[i][0], ws[i][1],
               Tc[0], Tc[1], Tf[0], Tf[1]);
        for (int k = 0; k < 2; k++)
            assert_true(fabs(Tc[k] - Tf[k]) <= 1e-7 * Tf[k]);
    }
    /* equal weights, equal rates: processor sharing, 1 / (mu - lambda) */
    static const double l3[3] = {0.2, 0.3, 0.1}, m3[3] = {1, 1, 1}, w3[3] = {2, 2, 2};
    double T3[3];
    assert_int_equal(qc_mc_dps_exp_delays(3, l3, m3, w3, T3, NULL), 0);
    for (int k = 0; k < 3; k++)
        assert_true(fabs(T3[k] - 1 / (1 - 0.6)) < 1e-12);
    static const double l2[2] = {0.7, 0.5};
    double Tx[2];
    assert_int_equal(qc_mc_dps_exp_delays(2, l2, m3, w3, Tx, NULL), QC_EUNSTABLE);
}

/* DPS by class, the default discipline, against the chain. */
static void test_dps_class_vs_chain(void **state)
{
    (void)state;
    static const double ws[][2] = {{4, 1}, {1, 4}, {1, 1}};
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        double Tc[2], x[REPS];
        chain_delays(0, LAM, MU, ws[i], 80, Tc);
        sim_out *o = calloc(1, sizeof *o);
        run_fixed(QC_MC_DPS, 2, ARR2, SVC2, ws[i], INFINITY, 1000, 150000, 20, o);
        for (unsigned k = 0; k < 2; k++) {
            char name[96];
            snprintf(name, sizeof name, "DPS by class w=(%g,%g) class %u delay", ws[i][0],
                     ws[i][1], k + 1);
            column(o, k, 0, x);
            expect_ci(x, Tc[k], 0.03, name);
        }
        free(o);
    }
}

/* DPS by job against the formula (and so the chain). */
static void test_dps_job_vs_exact(void **state)
{
    (void)state;
    static const double w[2] = {1, 3};
    double T[2], x[REPS];
    assert_int_equal(qc_mc_dps_exp_delays(2, LAM, MU, w, T, NULL), 0);
    sim_out *o = calloc(1, sizeof *o);
    run_fixed(QC_MC_DPS_JOB, 2, ARR2, SVC2, w, INFINITY, 1000, 150000, 20, o);
    for (unsigned k = 0; k < 2; k++) {
        char name[96];
        snprintf(name, sizeof name, "DPS by job w=(1,3) class %u delay", k + 1);
        column(o, k, 0, x);
        expect_ci(x, T[k], 0.03, name);
    }
    free(o);
}

/* Equal weights: processor sharing. */
static void test_equal_weights_ps(void **state)
{
    (void)state;
    double x[REPS];
    static const double w[3] = {0.3, 0.3, 0.3};
    /* by job, unequal loads, equal rates: every class E[S]/(1 - rho) */
    static const char *const arr[3] = {"exp:0.1", "exp:0.25", "exp:0.35"};
    static const char *const svc[3] = {"exp:1", "exp:1", "exp:1"};
    sim_out *o = calloc(1, sizeof *o);
    run_fixed(QC_MC_DPS_JOB, 3, arr, svc, w, INFINITY, 1000, 150000, 20, o);
    for (unsigned k = 0; k < 3; k++) {
        char name[96];
        snprintf(name, sizeof name, "PS (DPS by job, equal w) class %u", k + 1);
        column(o, k, 0, x);
        expect_ci(x, 1 / (1 - 0.7), 0.04, name);
    }
    /* by class, symmetric classes: each E[S]/(1 - rho) */
    static const char *const arrs[2] = {"exp:0.35", "exp:0.35"};
    run_fixed(QC_MC_DPS, 2, arrs, svc, w, INFINITY, 1000, 150000, 20, o);
    for (unsigned k = 0; k < 2; k++) {
        char name[96];
        snprintf(name, sizeof name, "DPS by class, equal w, symmetric, class %u", k + 1);
        column(o, k, 0, x);
        expect_ci(x, 1 / (1 - 0.7), 0.04, name);
    }
    /* by class, unequal loads: the rate-weighted mean is that of M/M/1 */
    run_fixed(QC_MC_DPS, 3, arr, svc, w, INFINITY, 1000, 150000, 20, o);
    for (unsigned r = 0; r < REPS; r++)
        x[r] = (0.1 * o->T[r][0] + 0.25 * o->T[r][1] + 0.35 * o->T[r][2]) / 0.7;
    expect_ci(x, 1 / (1 - 0.7), 0.03, "DPS by class, unequal loads, mean");
    free(o);
}

/* Non-preemptive weighted: conservation law and head-of-line priority. */
static void test_weighted(void **state)
{
    (void)state;
    double x[REPS];
    /* exp:1 (E[S^2] = 2) and det:0.5 (E[S^2] = 0.25) */
    static const char *const arr[2] = {"exp:0.3", "exp:0.8"};
    static const char *const svc[2] = {"exp:1", "det:0.5"};
    const double l1 = 0.3, l2 = 0.8, r1 = 0.3, r2 = 0.4, rho = 0.7;
    const double w0 = l1 * 2 / 2 + l2 * 0.25 / 2;
    static const double ws[][2] = {{1, 1}, {1, 5}, {3, 1}};
    sim_out *o = calloc(1, sizeof *o);
    for (size_t i = 0; i < sizeof ws / sizeof *ws; i++) {
        run_fixed(QC_MC_WEIGHTED, 2, arr, svc, ws[i], INFINITY, 1000, 150000, 20, o);
        for (unsigned r = 0; r < REPS; r++)
            x[r] = r1 * o->W[r][0] + r2 * o->W[r][1];
        char name[96];
        snprintf(name, sizeof name, "weighted w=(%g,%g) sum rho_k W_k", ws[i][0], ws[i][1]);
        expect_ci(x, rho * w0 / (1 - rho), 0.03, name);
    }
    static const double strict[2] = {1e6, 1};
    run_fixed(QC_MC_WEIGHTED, 2, arr, svc, strict, INFINITY, 1000, 150000, 20, o);
    column(o, 0, 1, x);
    expect_ci(x, w0 / (1 - r1), 0.03, "weighted w=(1e6,1): Cobham W_1");
    column(o, 1, 1, x);
    expect_ci(x, w0 / ((1 - r1) * (1 - rho)), 0.03, "weighted w=(1e6,1): Cobham W_2");
    free(o);
}

/* The gate at 1 is M/M/1/1; busy cycles of M/M/1 start at lambda P0. */
static void test_gate_and_cycles(void **state)
{
    (void)state;
    double x[REPS];
    static const char *const arr[1] = {"exp:0.6"};
    static const char *const svc[1] = {"exp:1"};
    static const double w[1] = {1};
    sim_out *o = calloc(1, sizeof *o);
    run_fixed(QC_MC_DPS, 1, arr, svc, w, 1.0, 100, 40000, 1, o);
    for (unsigned r = 0; r < REPS; r++)
        x[r] = o->shed[r][0];
    expect_ci(x, 0.6 / 1.6, 0.03, "gate L=1: M/M/1/1 blocking");
    run_fixed(QC_MC_DPS, 1, arr, svc, w, INFINITY, 100, 40000, 1, o);
    for (unsigned r = 0; r < REPS; r++)
        x[r] = o->cycles[r];
    expect_ci(x, 0.6 * 0.4, 0.03, "M/M/1 busy cycles per unit time");
    free(o);
}

/* Samples: counts >= m, every completion in exactly one sample; a class
 * switched on later has no arrivals before; a stopped class none after;
 * adding a class leaves another's arrivals unchanged. */
static void test_samples_start_stop(void **state)
{
    (void)state;
    qc_dist a0, a1, s0;
    assert_int_equal(qc_dist_parse(&a0, "exp:0.3", NULL), 0);
    assert_int_equal(qc_dist_parse(&a1, "exp:0.3", NULL), 0);
    assert_int_equal(qc_dist_parse(&s0, "exp:1", NULL), 0);
    qc_mc_class cls[3] = {{"a", &a0, &s0, 0, 0.2, 0},
                          {"b", &a1, &s0, 500, 0.2, 0},
                          {"be", &a1, &s0, 0, 0, 1}};
    qc_mc_params p;
    qc_mc_params_init(&p);
    p.nclass = 3;
    p.cls = cls;
    p.min_completions = 7;
    qc_mc *m = qc_mc_alloc(&p, NULL);
    assert_non_null(m);
    /* weights: best effort holds what is left of the unit mass of the
     * classes switched on (a at 0, b at 500) */
    qc_mc_report rep;
    assert_int_equal(qc_mc_advance(m, 1, 0, &rep), 0);
    assert_true(fabs(qc_mc_weight(m, 2) - 0.8) < 1e-12);
    uint64_t sampled[3] = {0};
    int started = 0;
    for (;;) {
        assert_int_equal(qc_mc_advance(m, 5000, QC_MC_EV_CYCLE | QC_MC_EV_START, &rep), 0);
        if (rep.what & QC_MC_EV_START && rep.started == 1) {
            assert_true(rep.t == 500);
            assert_int_equal(qc_mc_totals_of(m, 1)->arrivals, 0);
            assert_true(fabs(qc_mc_weight(m, 2) - 0.6) < 1e-12);
            started = 1;
        }
        if (rep.what & QC_MC_EV_CYCLE)
            for (int k = 0; k < 3; k++)
                if (rep.sample[k].count) {
                    assert_true(rep.sample[k].count >= 7);
                    sampled[k] += rep.sample[k].count;
                }
        if (rep.what & QC_MC_EV_TIME)
            break;
    }
    assert_true(started);
    /* every completion is in one sample, but those not yet reported:
     * fewer than 7 if the server is idle now */
    for (int k = 0; k < 3; k++) {
        uint64_t done = qc_mc_totals_of(m, k)->completions;
        assert_true(sampled[k] <= done);
        assert_true(done - sampled[k] < 7 || qc_mc_present(m, QC_MC_MAX_CLASSES) > 0);
    }
    uint64_t before = qc_mc_totals_of(m, 1)->arrivals;
    assert_int_equal(qc_mc_stop_class(m, 1), 0);
    assert_true(fabs(qc_mc_weight(m, 2) - 0.8) < 1e-12);
    assert_int_equal(qc_mc_advance(m, 8000, 0, &rep), 0);
    assert_int_equal(qc_mc_totals_of(m, 1)->arrivals, before);
    assert_int_equal(qc_mc_present(m, 1), 0);
    uint64_t a_with = qc_mc_totals_of(m, 0)->arrivals;
    qc_mc_free(m);

    /* the same run without class b: class a's arrivals are the same */
    qc_mc_class one[2] = {cls[0], cls[2]};
    p.nclass = 2;
    p.cls = one;
    m = qc_mc_alloc(&p, NULL);
    assert_non_null(m);
    assert_int_equal(qc_mc_advance(m, 8000, 0, &rep), 0);
    assert_int_equal(qc_mc_totals_of(m, 0)->arrivals, a_with);
    /* bad control inputs */
    assert_int_equal(qc_mc_set_priority(m, 1, 0.5), QC_EINVAL); /* best effort */
    assert_int_equal(qc_mc_set_priority(m, 0, 0), QC_EINVAL);
    assert_int_equal(qc_mc_set_priority(m, 0, NAN), QC_EINVAL);
    assert_int_equal(qc_mc_set_priority(m, 7, 1), QC_EINVAL);
    qc_mc_free(m);
    qc_dist_free(&a0);
    qc_dist_free(&a1);
    qc_dist_free(&s0);
}

static void test_bad_params(void **state)
{
    (void)state;
    qc_dist a, s;
    assert_int_equal(qc_dist_parse(&a, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&s, "exp:2", NULL), 0);
    qc_mc_class c[2] = {{"x", &a, &s, 0, 1, 1}, {"y", &a, &s, 0, 1, 1}};
    qc_mc_params p;
    qc_mc_params_init(&p);
    qc_err err = {0};
    p.cls = c;
    p.nclass = 0;
    assert_null(qc_mc_alloc(&p, &err));
    assert_non_null(strstr(err.msg, "classes"));
    p.nclass = 2;
    assert_null(qc_mc_alloc(&p, &err));
    assert_non_null(strstr(err.msg, "best-effort"));
    c[1].best_effort = 0;
    c[1].priority = -1;
    assert_null(qc_mc_alloc(&p, &err));
    assert_non_null(strstr(err.msg, "priority"));
    c[1].priority = 1;
    c[1].start = -3;
    assert_null(qc_mc_alloc(&p, &err));
    assert_non_null(strstr(err.msg, "start"));
    qc_dist_free(&a);
    qc_dist_free(&s);
}

/* Least delays and the region conditions on hand-checked numbers. */
static void test_region(void **state)
{
    (void)state;
    qc_dist a1, a2, s1, s2, abe;
    assert_int_equal(qc_dist_parse(&a1, "exp:0.3", NULL), 0);
    assert_int_equal(qc_dist_parse(&a2, "exp:0.2", NULL), 0);
    assert_int_equal(qc_dist_parse(&abe, "exp:0.2", NULL), 0);
    assert_int_equal(qc_dist_parse(&s1, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&s2, "det:1", NULL), 0);
    qc_mc_class c[3] = {{"a", &a1, &s1, 0, 1, 0}, {"b", &a2, &s1, 0, 1, 0},
                        {"be", &abe, &s1, 0, 0, 1}};
    /* DPS: class a alone at 0.3: 1 / 0.7 */
    assert_true(fabs(qc_mc_min_delay(QC_MC_DPS, 3, c, 0) - 1 / 0.7) < 1e-12);
    assert_true(fabs(qc_mc_min_delay(QC_MC_DPS_JOB, 3, c, 0) - 1 / 0.7) < 1e-12);
    /* weighted: 1 + R / 0.7, R = (0.3 + 0.2 + 0.2) * 2 / 2 = 0.7 -> 2 */
    assert_true(fabs(qc_mc_min_delay(QC_MC_WEIGHTED, 3, c, 0) - 2.0) < 1e-12);
    int ok;
    double margin;
    unsigned worst;
    /* sets: {a}: 0.3 Da >= 0.3/0.7; {b}: 0.2 Db >= 0.2/0.8; {a,b}: 0.3 Da +
     * 0.2 Db >= 0.5/0.5 = 1. Da = 1.5, Db = 2.5: 0.45 + 0.5 = 0.95 < 1. */
    double bound[3] = {1.5, 2.5, 0};
    assert_int_equal(qc_mc_region_admissible(QC_MC_DPS, 3, c, bound, &ok, &margin, &worst, NULL), 0);
    assert_int_equal(ok, 0);
    assert_int_equal(worst, 3u);
    assert_true(fabs(margin - (0.95 - 1) / 1) < 1e-12);
    bound[1] = 3.0; /* 0.45 + 0.6 = 1.05 */
    assert_int_equal(qc_mc_region_admissible(QC_MC_DPS, 3, c, bound, &ok, &margin, &worst, NULL), 0);
    assert_int_equal(ok, 1);
    assert_true(fabs(margin - 0.05) < 1e-12);
    /* a non-exponential law: not supported for DPS, fine for weighted */
    c[1].service = &s2;
    assert_int_equal(qc_mc_region_admissible(QC_MC_DPS, 3, c, bound, &ok, &margin, &worst, NULL),
                     QC_ENOTSUP);
    assert_int_equal(qc_mc_region_admissible(QC_MC_WEIGHTED, 3, c, bound, &ok, &margin, &worst, NULL), 0);
    qc_dist_free(&a1);
    qc_dist_free(&a2);
    qc_dist_free(&abe);
    qc_dist_free(&s1);
    qc_dist_free(&s2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fmi_matches_chain),
        cmocka_unit_test(test_dps_class_vs_chain),
        cmocka_unit_test(test_dps_job_vs_exact),
        cmocka_unit_test(test_equal_weights_ps),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_gate_and_cycles),
        cmocka_unit_test(test_samples_start_stop),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_region),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
