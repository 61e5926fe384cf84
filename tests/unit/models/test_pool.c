/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_pool.c: the K-server pool and its arrival processes against exact
 * answers.
 *
 * Each numeric check runs replications with a fixed seed and asserts that
 * the exact value lies inside the simulation's confidence interval and
 * that the interval is narrow (half-width below a stated fraction of the
 * exact value), so that the first assertion means something. As in
 * test_queue.c the intervals are simultaneous: each is taken at level
 * 1 - 0.01/MAX_CHECKS (Bonferroni), so the whole family holds with
 * probability at least 99% whatever the seed. Percentiles carry the
 * histogram's error (at most 0.78%), added to the half-width.
 *
 * Exact answers used:
 *   M/M/1 with setup I, off when idle (Welch 1964; Takagi 1991):
 *     E[T] = 1/(mu - lambda) + (2 E[I] + lambda E[I^2]) / (2 (1 + lambda E[I]))
 *   which is 1/(mu - lambda) + 1/alpha for I ~ Exp(alpha). Per cycle
 *   (idle 1/lambda, setup E[I], busy (1 + lambda E[I]) / (mu - lambda)):
 *   P(setup) = E[I] / cycle, switch-ons per unit time = 1 / cycle.
 *   DelayedOff with timer t_w: a busy period starts with a setup only if
 *   the idle time exceeded t_w, probability q = exp(-lambda t_w),
 *   independently of what follows; the setup is then I' = I w.p. q, else
 *   0, and the formula above holds with I' in place of I.
 *   M/M/1 (JSQ with K = 1, always on): E[T] = 1/(mu - lambda), T ~
 *   Exp(mu - lambda), P(busy) = rho.
 *   Central M/M/k/setup: Gandhi, Harchol-Balter and Adan (2010) give
 *   closed forms for M/M/1/setup, M/M/inf/setup and staggered boot-up; for
 *   the M/M/k/setup itself their forms are approximations (the exact
 *   analysis came later, by recursive renewal reward, 2013). So the exact
 *   answer here is computed independently: the CTMC on (i busy servers,
 *   j jobs), setups min(j - i, k - i), truncated at j <= 250 (the mass
 *   left at the edge is printed and asserted negligible), solved by LU
 *   decomposition with GSL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/pool.h"
#include "qctl/rng.h"

#define HIST_REL 0.0079
#define MAX_CHECKS 80
#define FAMILY_LEVEL (1.0 - 0.01 / MAX_CHECKS)
#define SEED 20261201
#define PI 3.14159265358979323846

static int checks_made;

typedef struct setup {
    unsigned K;
    qc_pool_policy policy;
    unsigned T;
    const char *arrival, *service, *setup;
    double timer;
    uint64_t customers;
    double horizon;
    unsigned reps;
} setup;

/* qc_pool_params.route_on for the runs that follow (test_djsq_route_on) */
static int g_route_on;

static int run_setup(const setup *s, qc_pool_result *res, qc_err *err)
{
    qc_arrivals a = {0};
    qc_dist b = {0}, w = {0};
    assert_int_equal(qc_arrivals_parse(&a, s->arrival, err), 0);
    assert_int_equal(qc_dist_parse(&b, s->service ? s->service : "exp:1", err), 0);
    assert_int_equal(qc_dist_parse(&w, s->setup ? s->setup : "exp:0.1", err), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = s->K;
    p.policy = s->policy;
    p.threshold = s->T ? s->T : QC_POOL_DEFAULT_THRESHOLD;
    p.arrival = &a;
    p.service = &b;
    p.setup = &w;
    p.idle_timer = s->timer;
    p.customers = s->customers;
    p.horizon = s->horizon;
    p.reps = s->reps;
    p.route_on = g_route_on;
    p.seed = SEED;
    p.level = FAMILY_LEVEL;
    int rc = qc_pool_run(&p, res, err);
    qc_arrivals_free(&a);
    qc_dist_free(&b);
    qc_dist_free(&w);
    return rc;
}

static void must_run(const setup *s, qc_pool_result *res)
{
    qc_err err = {0};
    if (run_setup(s, res, &err) != 0)
        fail_msg("qc_pool_run: %s", err.msg);
}

/* exact inside the simultaneous CI, and the half-width <= maxrel * exact. */
static void expect(const qc_pool_result *r, int m, double exact, double maxrel, const char *what)
{
    const qc_ci *ci = &r->metric[m];
    double slack = (m == QC_PM_P50 || m == QC_PM_P95 || m == QC_PM_P99) ? HIST_REL * exact : 0.0;
    checks_made++;
    assert_true(checks_made <= MAX_CHECKS);
    printf("  %-34s %-20s exact %-10.6g sim %-10.6g +- %-9.3g (%.2f%%)\n", what,
           qc_pool_metric_name(m), exact, ci->mean, ci->half, 100 * ci->half / fabs(exact));
    if (!(fabs(ci->mean - exact) <= ci->half + slack))
        fail_msg("%s: %s exact %g outside the simultaneous 99%% CI %g +- %g", what,
                 qc_pool_metric_name(m), exact, ci->mean, ci->half);
    if (!(ci->half <= maxrel * fabs(exact)))
        fail_msg("%s: %s CI half-width %g exceeds %g%% of %g", what, qc_pool_metric_name(m),
                 ci->half, 100 * maxrel, exact);
}

/* ---- M/M/1 with setup: every policy that reduces to it ----------------- */

/* The setup-time formula for I with E[I] = m1, E[I^2] = m2. */
static double mm1_setup_response(double lam, double mu, double m1, double m2)
{
    return 1 / (mu - lam) + (2 * m1 + lam * m2) / (2 * (1 + lam * m1));
}

static void test_mm1_setup_every_policy(void **state)
{
    (void)state;
    const double lam = 0.5, mu = 1, alpha = 0.1;
    const double et = 1 / (mu - lam) + 1 / alpha; /* 12 */
    const double cycle = 1 / lam + 1 / alpha + (1 + lam / alpha) / (mu - lam);
    static const struct { qc_pool_policy pol; unsigned T; const char *name; } cases[] = {
        {QC_POOL_DJSQ, 1, "K=1 djsq T=1"},      {QC_POOL_DJSQ, 4, "K=1 djsq T=4"},
        {QC_POOL_JSQ_OFF, 0, "K=1 jsq-off"},   {QC_POOL_RANDOM, 0, "K=1 random"},
        {QC_POOL_CENTRAL, 0, "K=1 central"}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setup s = {1, cases[i].pol, cases[i].T, "exp:0.5", "exp:1", "exp:0.1", 0, 100000, 0, 20};
        qc_pool_result r;
        must_run(&s, &r);
        expect(&r, QC_PM_RESPONSE, et, 0.02, cases[i].name);
        if (i == 0) {
            expect(&r, QC_PM_JOBS, lam * et, 0.025, cases[i].name);
            expect(&r, QC_PM_FRAC_SETUP, (1 / alpha) / cycle, 0.01, cases[i].name);
            expect(&r, QC_PM_SWITCH_ONS_PER_HOUR, 3600 / cycle, 0.015, cases[i].name);
            expect(&r, QC_PM_SERVERS_BUSY, lam / mu, 0.01, cases[i].name);
            /* power: busy 240 x rho + setup 240 x P(setup), never idle-on */
            expect(&r, QC_PM_POWER, 240 * (lam / mu) + 240 * (1 / alpha) / cycle, 0.01,
                   cases[i].name);
        }
        qc_pool_result_free(&r);
    }
}

static void test_mm1_setup_deterministic_and_delayed_off(void **state)
{
    (void)state;
    const double lam = 0.5, mu = 1, d = 5, alpha = 0.1, tw = 2;
    setup s = {1, QC_POOL_DJSQ, 4, "exp:0.5", "exp:1", "det:5", 0, 100000, 0, 20};
    qc_pool_result r;
    must_run(&s, &r);
    expect(&r, QC_PM_RESPONSE, mm1_setup_response(lam, mu, d, d * d), 0.02, "K=1 setup det:5");
    qc_pool_result_free(&r);

    /* DelayedOff: setups only after idle periods longer than t_w. */
    double q = exp(-lam * tw);
    s.setup = "exp:0.1";
    s.timer = tw;
    must_run(&s, &r);
    expect(&r, QC_PM_RESPONSE, mm1_setup_response(lam, mu, q / alpha, 2 * q / (alpha * alpha)),
           0.02, "K=1 setup exp, timer 2");
    /* switch-ons: once per cycle that had an idle period > t_w; a cycle is
     * idle + setup (w.p. q) + busy period of 1 + lambda I' jobs */
    double cycle = 1 / lam + q / alpha + (1 + lam * q / alpha) / (mu - lam);
    expect(&r, QC_PM_SWITCH_ONS_PER_HOUR, 3600 * q / cycle, 0.02, "K=1 setup exp, timer 2");
    qc_pool_result_free(&r);
}

/* Random routing splits the Poisson stream into K independent ones of rate
 * lambda/K: each server is an M/M/1 with setup, whatever K. */
static void test_random_is_k_mm1_setup(void **state)
{
    (void)state;
    const double lam = 2.5, K = 5, alpha = 0.1, l1 = lam / K;
    const double cycle = 1 / l1 + 1 / alpha + (1 + l1 / alpha) / (1 - l1);
    setup s = {5, QC_POOL_RANDOM, 0, "exp:2.5", "exp:1", "exp:0.1", 0, 200000, 0, 20};
    qc_pool_result r;
    must_run(&s, &r);
    expect(&r, QC_PM_RESPONSE, 1 / (1 - l1) + 1 / alpha, 0.02, "K=5 random");
    expect(&r, QC_PM_FRAC_SETUP, (1 / alpha) / cycle, 0.01, "K=5 random");
    expect(&r, QC_PM_SWITCH_ONS_PER_HOUR, 3600 * K / cycle, 0.01, "K=5 random");
    qc_pool_result_free(&r);
}

/* JSQ with every server always on and K = 1 is M/M/1. */
static void test_jsq_k1_is_mm1(void **state)
{
    (void)state;
    const double lam = 0.7;
    setup s = {1, QC_POOL_JSQ, 0, "exp:0.7", "exp:1", NULL, 0, 200000, 0, 20};
    qc_pool_result r;
    must_run(&s, &r);
    expect(&r, QC_PM_RESPONSE, 1 / (1 - lam), 0.02, "K=1 jsq = M/M/1");
    expect(&r, QC_PM_JOBS, lam / (1 - lam), 0.03, "K=1 jsq = M/M/1");
    expect(&r, QC_PM_P95, log(20.0) / (1 - lam), 0.03, "K=1 jsq = M/M/1");
    expect(&r, QC_PM_POWER, 240 * lam + 180 * (1 - lam), 0.002, "K=1 jsq = M/M/1");
    assert_true(r.metric[QC_PM_SWITCH_ONS_PER_HOUR].mean == 0.0);
    assert_true(r.metric[QC_PM_SERVERS_ON].mean == 1.0);
    qc_pool_result_free(&r);
}

/* ---- central M/M/k/setup against its CTMC ------------------------------- */

typedef struct ctmc_out {
    double jobs, setups, busy, switch_rate, edge_mass;
} ctmc_out;

/* State (i, j): i busy servers (0..k), j >= i jobs (j <= jmax). */
static size_t idx_of(unsigned i, unsigned j, unsigned jmax)
{
    return (size_t)i * (jmax + 1) + j;
}

static unsigned umin(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

static void mmk_setup_ctmc(unsigned k, double lam, double mu, double alpha, unsigned jmax,
                           ctmc_out *out)
{
    size_t n = (size_t)(k + 1) * (jmax + 1);
    /* Unreachable states (j < i) get a self-contained row pi = 0. */
    gsl_matrix *A = gsl_matrix_calloc(n, n); /* A = Q^T, one row replaced */
    gsl_vector *b = gsl_vector_calloc(n), *x = gsl_vector_alloc(n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    assert_non_null(A);
    for (unsigned i = 0; i <= k; i++) {
        for (unsigned j = 0; j <= jmax; j++) {
            size_t s = idx_of(i, j, jmax);
            if (j < i) {
                gsl_matrix_set(A, s, s, 1.0);
                continue;
            }
            double out_rate = 0;
            /* arrival */
            if (j < jmax) {
                size_t t = idx_of(i, j + 1, jmax);
                *gsl_matrix_ptr(A, t, s) += lam;
                out_rate += lam;
            }
            /* service completion: the server takes a waiting job, or turns off */
            if (i > 0) {
                size_t t = j > i ? idx_of(i, j - 1, jmax) : idx_of(i - 1, j - 1, jmax);
                *gsl_matrix_ptr(A, t, s) += i * mu;
                out_rate += i * mu;
            }
            /* a setup completes; that server takes the head of the queue */
            unsigned setups = umin(j - i, k - i);
            if (setups > 0) {
                size_t t = idx_of(i + 1, j, jmax);
                *gsl_matrix_ptr(A, t, s) += setups * alpha;
                out_rate += setups * alpha;
            }
            *gsl_matrix_ptr(A, s, s) -= out_rate;
        }
    }
    /* replace the balance equation of state (0, 0) by normalization */
    for (size_t c = 0; c < n; c++)
        gsl_matrix_set(A, 0, c, 1.0);
    for (unsigned i = 1; i <= k; i++)
        for (unsigned j = 0; j < i; j++)
            gsl_matrix_set(A, 0, idx_of(i, j, jmax), 0.0);
    gsl_vector_set(b, 0, 1.0);
    int sign;
    assert_int_equal(gsl_linalg_LU_decomp(A, perm, &sign), 0);
    assert_int_equal(gsl_linalg_LU_solve(A, perm, b, x), 0);
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i <= k; i++) {
        for (unsigned j = i; j <= jmax; j++) {
            double pi = gsl_vector_get(x, idx_of(i, j, jmax));
            out->jobs += j * pi;
            out->busy += i * pi;
            out->setups += umin(j - i, k - i) * pi;
            /* an arrival starts a setup when a server is left to start */
            if (j < jmax && j - i + 1 <= k - i)
                out->switch_rate += lam * pi;
            if (j == jmax)
                out->edge_mass += pi;
        }
    }
    gsl_permutation_free(perm);
    gsl_vector_free(x);
    gsl_vector_free(b);
    gsl_matrix_free(A);
}

static void test_central_mmk_setup_ctmc(void **state)
{
    (void)state;
    static const struct {
        unsigned k;
        double lam, alpha;
        const char *arr, *wup;
        uint64_t n;
    } cases[] = {{4, 1.2, 0.1, "exp:1.2", "exp:0.1", 100000},
                 {4, 2.8, 0.1, "exp:2.8", "exp:0.1", 300000},
                 {5, 3.0, 1.0, "exp:3", "exp:1", 100000}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const unsigned k = cases[c].k, jmax = 250;
        const double lam = cases[c].lam;
        ctmc_out ex;
        mmk_setup_ctmc(k, lam, 1.0, cases[c].alpha, jmax, &ex);
        printf("  CTMC k=%u lambda=%g alpha=%g: E[N] %.6f, mass at j=%u: %.2g\n", k, lam,
               cases[c].alpha, ex.jobs, jmax, ex.edge_mass);
        /* what the truncation leaves out is far below the CI widths */
        assert_true(ex.edge_mass < 1e-10);
        char name[64];
        snprintf(name, sizeof name, "central k=%u rho=%.2g a=%g", k, lam / k, cases[c].alpha);
        setup s = {k, QC_POOL_CENTRAL, 0, cases[c].arr, "exp:1", cases[c].wup, 0, cases[c].n, 0, 20};
        qc_pool_result r;
        must_run(&s, &r);
        expect(&r, QC_PM_JOBS, ex.jobs, 0.02, name);
        expect(&r, QC_PM_RESPONSE, ex.jobs / lam, 0.02, name); /* Little */
        expect(&r, QC_PM_SERVERS_SETUP, ex.setups, 0.02, name);
        expect(&r, QC_PM_SERVERS_BUSY, ex.busy, 0.01, name);
        expect(&r, QC_PM_SWITCH_ONS_PER_HOUR, 3600 * ex.switch_rate, 0.02, name);
        qc_pool_result_free(&r);
    }
}

/* ---- two per-server queues against their CTMC ------------------------------ */

/* A server of a per-server policy with timer 0 is OFF with no job, or
 * SETUP or ON with q >= 1 jobs (jsq: ON with q >= 0). Code: 0 = OFF (jsq:
 * ON idle), 2q - 1 = SETUP with q, 2q = ON with q. */
enum { QMAX = 50, NCODE = 2 * QMAX + 1 };

static unsigned code_q(unsigned c)
{
    return (c + 1) / 2;
}

static int code_on(unsigned c, int jsq)
{
    return c == 0 ? jsq : c % 2 == 0;
}

/* The rules of docs/pool.md, written apart from pool.c: where a job
 * arriving to state (c0, c1) goes; -1 for both with probability 1/2. */
static int route2(qc_pool_policy pol, unsigned T, const unsigned c[2])
{
    const int jsq = pol == QC_POOL_JSQ;
    unsigned q0 = code_q(c[0]), q1 = code_q(c[1]);
    if (pol == QC_POOL_RANDOM)
        return -1;
    if (pol == QC_POOL_JSQ)
        return q1 < q0 ? 1 : 0;
    /* djsq: the shortest non-empty queue, ON before SETUP, then index */
    int best = -1;
    for (int i = 0; i < 2; i++) {
        unsigned q = code_q(c[i]);
        if (q == 0)
            continue;
        if (best < 0 || q < code_q(c[best]) ||
            (q == code_q(c[best]) && code_on(c[i], jsq) && !code_on(c[best], jsq)))
            best = i;
    }
    if (best >= 0 && code_q(c[best]) + 1 <= T)
        return best;
    for (int i = 0; i < 2; i++)
        if (c[i] == 0)
            return i; /* an OFF server is switched on */
    return best;
}

typedef struct two_out {
    double jobs, setup, on, switch_rate, edge_mass;
} two_out;

static void two_server_ctmc(qc_pool_policy pol, unsigned T, double lam, double mu, double alpha,
                            two_out *out)
{
    const int jsq = pol == QC_POOL_JSQ;
    const size_t n = (size_t)NCODE * NCODE;
    /* transitions, then incoming lists (CSR by destination) */
    size_t cap = 8 * n, m = 0;
    uint32_t *from = malloc(cap * sizeof *from), *to = malloc(cap * sizeof *to);
    double *rate = malloc(cap * sizeof *rate), *outr = calloc(n, sizeof *outr);
    assert_true(from && to && rate && outr);
#define ADD(f, t_, r_)                                                                           \
    do {                                                                                         \
        from[m] = (uint32_t)(f);                                                                 \
        to[m] = (uint32_t)(t_);                                                                  \
        rate[m] = (r_);                                                                          \
        outr[f] += (r_);                                                                         \
        m++;                                                                                     \
    } while (0)
    for (unsigned a = 0; a < NCODE; a++) {
        for (unsigned b = 0; b < NCODE; b++) {
            const unsigned c[2] = {a, b};
            size_t s = (size_t)a * NCODE + b;
            /* arrival */
            int dst = route2(pol, T, c);
            for (int i = 0; i < 2; i++) {
                double pr = dst < 0 ? 0.5 : (dst == i ? 1.0 : 0.0);
                if (pr == 0 || code_q(c[i]) >= QMAX)
                    continue; /* truncation: the arrival is lost */
                unsigned nc[2] = {a, b};
                unsigned q = code_q(c[i]);
                if (jsq)
                    nc[i] = 2 * (q + 1);
                else if (c[i] == 0)
                    nc[i] = 1; /* OFF -> SETUP with 1 */
                else
                    nc[i] = c[i] + 2;
                ADD(s, (size_t)nc[0] * NCODE + nc[1], pr * lam);
            }
            for (int i = 0; i < 2; i++) {
                unsigned q = code_q(c[i]);
                unsigned nc[2] = {a, b};
                if (code_on(c[i], jsq) && q > 0) {
                    nc[i] = q - 1 == 0 ? 0 : 2 * (q - 1); /* off at once when idle */
                    ADD(s, (size_t)nc[0] * NCODE + nc[1], mu);
                } else if (!jsq && c[i] % 2 == 1) {
                    nc[i] = c[i] + 1; /* setup ends */
                    ADD(s, (size_t)nc[0] * NCODE + nc[1], alpha);
                }
            }
        }
    }
#undef ADD
    size_t *head = calloc(n + 1, sizeof *head);
    uint32_t *src = malloc(m * sizeof *src);
    double *srate = malloc(m * sizeof *srate);
    double *pi = malloc(n * sizeof *pi);
    assert_true(head && src && srate && pi);
    for (size_t e = 0; e < m; e++)
        head[to[e] + 1]++;
    for (size_t i = 0; i < n; i++)
        head[i + 1] += head[i];
    size_t *fill = calloc(n, sizeof *fill);
    assert_non_null(fill);
    for (size_t e = 0; e < m; e++) {
        size_t at = head[to[e]] + fill[to[e]]++;
        src[at] = from[e];
        srate[at] = rate[e];
    }
    /* Start uniform on the states reachable from the empty one (a search
     * along the transitions): mass put on the others (odd codes under jsq)
     * would drain out of them only very slowly. */
    size_t *ohead = calloc(n + 1, sizeof *ohead);
    uint32_t *odst = malloc(m * sizeof *odst), *stack = malloc(n * sizeof *stack);
    assert_true(ohead && odst && stack);
    for (size_t e = 0; e < m; e++)
        ohead[from[e] + 1]++;
    for (size_t i = 0; i < n; i++)
        ohead[i + 1] += ohead[i];
    memset(fill, 0, n * sizeof *fill);
    for (size_t e = 0; e < m; e++)
        odst[ohead[from[e]] + fill[from[e]]++] = to[e];
    for (size_t i = 0; i < n; i++)
        pi[i] = 0.0;
    size_t top = 0, nreach = 0;
    pi[0] = 1.0;
    stack[top++] = 0;
    while (top > 0) {
        uint32_t u = stack[--top];
        nreach++;
        for (size_t e = ohead[u]; e < ohead[u + 1]; e++)
            if (pi[odst[e]] == 0.0) {
                pi[odst[e]] = 1.0;
                stack[top++] = odst[e];
            }
    }
    for (size_t i = 0; i < n; i++)
        pi[i] /= (double)nreach;
    free(stack);
    free(odst);
    free(ohead);
    /* Gauss-Seidel on pi Q = 0: pi_s = sum_t pi_t q_ts / q_s, renormalized
     * each sweep, until no probability moves by more than 1e-13. */
    for (int sweep = 0; sweep < 200000; sweep++) {
        double delta = 0, sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (outr[i] == 0)
                continue;
            double in = 0;
            for (size_t e = head[i]; e < head[i + 1]; e++)
                in += pi[src[e]] * srate[e];
            double v = in / outr[i];
            delta = fmax(delta, fabs(v - pi[i]));
            pi[i] = v;
            sum += v;
        }
        for (size_t i = 0; i < n; i++)
            pi[i] /= sum;
        if (delta < 1e-13 && sweep > 10)
            break;
    }
    memset(out, 0, sizeof *out);
    for (unsigned a = 0; a < NCODE; a++) {
        for (unsigned b = 0; b < NCODE; b++) {
            const unsigned c[2] = {a, b};
            double p = pi[(size_t)a * NCODE + b];
            int dst = route2(pol, T, c);
            for (int i = 0; i < 2; i++) {
                out->jobs += code_q(c[i]) * p;
                out->on += code_on(c[i], jsq) ? p : 0;
                out->setup += (!jsq && c[i] % 2 == 1) ? p : 0;
                double pr = dst < 0 ? 0.5 : (dst == i ? 1.0 : 0.0);
                if (!jsq && c[i] == 0)
                    out->switch_rate += lam * pr * p;
                if (code_q(c[i]) == QMAX)
                    out->edge_mass += p;
            }
        }
    }
    free(fill);
    free(pi);
    free(srate);
    free(src);
    free(head);
    free(outr);
    free(rate);
    free(to);
    free(from);
}

static void test_two_servers_ctmc(void **state)
{
    (void)state;
    static const struct { qc_pool_policy pol; unsigned T; double lam; const char *arr; } cases[] = {
        {QC_POOL_DJSQ, 3, 1.0, "exp:1"},
        {QC_POOL_DJSQ, 1, 1.2, "exp:1.2"},
        {QC_POOL_JSQ, 0, 1.4, "exp:1.4"}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        two_out ex;
        two_server_ctmc(cases[c].pol, cases[c].T, cases[c].lam, 1.0, 0.2, &ex);
        char name[64];
        snprintf(name, sizeof name, "K=2 %s T=%u rho=%.2g", qc_pool_policy_name(cases[c].pol),
                 cases[c].T, cases[c].lam / 2);
        printf("  CTMC %s: E[N] %.6f, mass at q=%d: %.2g\n", name, ex.jobs, QMAX, ex.edge_mass);
        assert_true(ex.edge_mass < 1e-10);
        setup s = {2, cases[c].pol, cases[c].T, cases[c].arr, "exp:1", "exp:0.2", 0, 150000, 0, 20};
        qc_pool_result r;
        must_run(&s, &r);
        expect(&r, QC_PM_JOBS, ex.jobs, 0.02, name);
        if (cases[c].pol == QC_POOL_JSQ) {
            assert_true(r.metric[QC_PM_SERVERS_ON].mean == 2.0); /* always on */
        } else {
            expect(&r, QC_PM_SERVERS_ON, ex.on, 0.01, name);
            expect(&r, QC_PM_SERVERS_SETUP, ex.setup, 0.02, name);
            expect(&r, QC_PM_SWITCH_ONS_PER_HOUR, 3600 * ex.switch_rate, 0.02, name);
        }
        qc_pool_result_free(&r);
    }
}

/* ---- relations between policies ------------------------------------------ */

/* delay-JSQ with T = 1 makes exactly the decisions of JSQ with OFF servers
 * counted as empty (docs/pool.md): with the same seed the runs agree to
 * the last bit. */
static void test_djsq_t1_is_jsq_off(void **state)
{
    (void)state;
    static const double timers[] = {0, 1.5};
    for (size_t i = 0; i < 2; i++) {
        setup a = {5, QC_POOL_DJSQ, 1, "exp:3", "exp:1", "exp:0.2", timers[i], 20000, 0, 3};
        setup b = a;
        b.policy = QC_POOL_JSQ_OFF;
        qc_pool_result ra, rb;
        must_run(&a, &ra);
        must_run(&b, &rb);
        assert_memory_equal(ra.metric, rb.metric, sizeof ra.metric);
        assert_int_equal(ra.events, rb.events);
        qc_pool_result_free(&ra);
        qc_pool_result_free(&rb);
    }
    /* and a larger threshold does change them */
    setup a = {5, QC_POOL_DJSQ, 4, "exp:3", "exp:1", "exp:0.2", 0, 20000, 0, 3};
    setup b = a;
    b.policy = QC_POOL_JSQ_OFF;
    qc_pool_result ra, rb;
    must_run(&a, &ra);
    must_run(&b, &rb);
    assert_true(ra.metric[QC_PM_SWITCH_ONS_PER_HOUR].mean <
                rb.metric[QC_PM_SWITCH_ONS_PER_HOUR].mean);
    qc_pool_result_free(&ra);
    qc_pool_result_free(&rb);
}

/* djsq --route-on with T = 1, idle timer 0 and setups of length 0 is an
 * M/M/1 on the first server: a job that finds it busy switches the
 * second one on but joins the first (the only ON queue); the second
 * ends its setup empty and switches off at once. So E[N] = rho / (1 -
 * rho) and E[T] = 1 / (mu - lambda) exactly, where plain djsq, whose
 * job waits at the second server and is served there, has fewer jobs.
 * And with one server route_on changes nothing (the job waits for the
 * setup when no server is ON): bit for bit djsq. */
static void test_djsq_route_on(void **state)
{
    (void)state;
    setup a = {2, QC_POOL_DJSQ, 1, "exp:0.7", "exp:1", "det:0", 0, 100000, 0, 20};
    qc_pool_result ra, rb;
    g_route_on = 1;
    must_run(&a, &ra);
    expect(&ra, QC_PM_JOBS, 0.7 / 0.3, 0.03, "route_on K=2 T=1 setup 0 (M/M/1)");
    expect(&ra, QC_PM_RESPONSE, 1 / 0.3, 0.03, "route_on K=2 T=1 setup 0 (M/M/1)");
    g_route_on = 0;
    must_run(&a, &rb);
    assert_true(rb.metric[QC_PM_JOBS].mean + rb.metric[QC_PM_JOBS].half <
                ra.metric[QC_PM_JOBS].mean - ra.metric[QC_PM_JOBS].half);
    qc_pool_result_free(&ra);
    qc_pool_result_free(&rb);
    setup c = {1, QC_POOL_DJSQ, 2, "exp:0.6", "exp:1", "exp:0.5", 1.0, 20000, 0, 3};
    g_route_on = 1;
    must_run(&c, &ra);
    g_route_on = 0;
    must_run(&c, &rb);
    assert_memory_equal(ra.metric, rb.metric, sizeof ra.metric);
    assert_int_equal(ra.events, rb.events);
    qc_pool_result_free(&ra);
    qc_pool_result_free(&rb);
    /* only with djsq */
    setup e = {2, QC_POOL_JSQ, 0, "exp:1", "exp:1", "exp:1", 0, 1000, 0, 2};
    qc_err err = {0};
    g_route_on = 1;
    assert_int_equal(run_setup(&e, &ra, &err), QC_EINVAL);
    g_route_on = 0;
    assert_non_null(strstr(err.msg, "route-on"));
}

/* Delay-JSQ has JSQ's stability region: at lambda = 0.95 K mu it keeps up
 * (throughput = lambda within its CI) and its mean number of jobs stays
 * within a bounded distance of JSQ's with all servers on: at most K T more
 * (each non-empty queue may hold up to T before another server starts),
 * plus the jobs that wait out setups. */
static void test_djsq_stable_at_095(void **state)
{
    (void)state;
    const unsigned K = 4, T = 4;
    const double lam = 0.95 * K;
    setup s = {K, QC_POOL_JSQ, 0, "exp:3.8", "exp:1", "exp:0.1", 0, 400000, 0, 10};
    qc_pool_result rj, rd;
    must_run(&s, &rj);
    s.policy = QC_POOL_DJSQ;
    s.T = T;
    must_run(&s, &rd);
    const qc_ci *nj = &rj.metric[QC_PM_JOBS], *nd = &rd.metric[QC_PM_JOBS];
    printf("  load 0.95, K=4: mean jobs jsq %.3f +- %.3f, djsq(T=4) %.3f +- %.3f; "
           "servers on djsq %.3f\n",
           nj->mean, nj->half, nd->mean, nd->half, rd.metric[QC_PM_SERVERS_ON].mean);
    expect(&rd, QC_PM_THROUGHPUT, lam, 0.01, "djsq K=4 load 0.95");
    expect(&rj, QC_PM_THROUGHPUT, lam, 0.01, "jsq K=4 load 0.95");
    /* stable: a finite mean known to within a fifth (10 replications at
     * load 0.95 with one warm-up cut for all of them) */
    assert_true(isfinite(nd->mean) && nd->half < 0.2 * nd->mean);
    assert_true(nd->mean < nj->mean + K * T + lam / 0.1);
    qc_pool_result_free(&rj);
    qc_pool_result_free(&rd);
}

/* Under a sinusoidal rate the number of servers ON follows the demand:
 * correlation above 0.9 over bins of period/100 for every policy that
 * switches servers (and undefined for JSQ, which never does). */
static void test_servers_follow_demand(void **state)
{
    (void)state;
    static const qc_pool_policy pols[] = {QC_POOL_DJSQ, QC_POOL_JSQ_OFF, QC_POOL_CENTRAL,
                                          QC_POOL_RANDOM};
    for (size_t i = 0; i < sizeof pols / sizeof *pols; i++) {
        setup s = {10, pols[i], 4, "sin:5,4,2000", "exp:1", "exp:0.1", 0, 0, 20000, 4};
        qc_pool_result r;
        must_run(&s, &r);
        const qc_ci *c = &r.metric[QC_PM_DEMAND_CORR];
        printf("  sin:5,4,2000 K=10 %-8s corr(servers on, lambda) %.4f [%.4f, %.4f]\n",
               qc_pool_policy_name(pols[i]), c->mean, c->lo, c->hi);
        assert_true(c->lo > 0.9);
        qc_pool_result_free(&r);
    }
    setup s = {10, QC_POOL_JSQ, 4, "sin:5,4,2000", "exp:1", "exp:0.1", 0, 0, 20000, 2};
    qc_pool_result r;
    must_run(&s, &r);
    assert_true(isnan(r.metric[QC_PM_DEMAND_CORR].mean));
    qc_pool_result_free(&r);
}

/* Same seed: identical results; the series of replication 1 is filled. */
static void test_reproducible_and_series(void **state)
{
    (void)state;
    qc_arrivals a = {0};
    qc_dist b = {0}, w = {0};
    assert_int_equal(qc_arrivals_parse(&a, "sin:3,2,500", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&w, "det:3", NULL), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = 6;
    p.arrival = &a;
    p.service = &b;
    p.setup = &w;
    p.horizon = 5000;
    p.warmup_mode = QC_WARMUP_FIXED;
    p.warmup = 500;
    p.reps = 3;
    p.series_dt = 10;
    qc_pool_result r1, r2;
    assert_int_equal(qc_pool_run(&p, &r1, NULL), 0);
    assert_int_equal(qc_pool_run(&p, &r2, NULL), 0);
    assert_memory_equal(r1.metric, r2.metric, sizeof r1.metric);
    assert_true(r1.warmup_time == 500.0);
    assert_true(r1.series_len >= 550);
    assert_true(fabs(r1.series[0].t - 10.0) < 1e-12);
    double on_max = 0;
    for (size_t i = 0; i < r1.series_len; i++) {
        const qc_pool_series_point *s = &r1.series[i];
        assert_true(s->on >= 0 && s->on + s->setup <= 6 + 1e-9 && s->busy <= s->on + 1e-9);
        assert_true(fabs(s->rate - (3 + 2 * sin(2 * PI * (s->t - 5) / 500))) < 1e-9);
        if (s->on > on_max)
            on_max = s->on;
    }
    assert_true(on_max > 3);
    qc_pool_result_free(&r1);
    qc_pool_result_free(&r2);
    qc_arrivals_free(&a);
    qc_dist_free(&b);
    qc_dist_free(&w);
}

/* ---- arrival processes ---------------------------------------------------- */

static char *write_temp(const char *text)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/qctl_test_pool_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_true(write(fd, text, n) == (ssize_t)n);
    close(fd);
    return path;
}

/* Counts arrivals in [0, horizon) and in the first half of each period;
 * both must match the integral of lambda within 4 standard deviations of
 * a Poisson count (the chance of a false alarm is 6e-5 per check). */
static void count_check(const char *spec, double horizon, double expect_all,
                        double period, double expect_first_half)
{
    qc_arrivals a = {0};
    qc_err err = {0};
    if (qc_arrivals_parse(&a, spec, &err) != 0)
        fail_msg("%s: %s", spec, err.msg);
    qc_rng r;
    qc_rng_init(&r, SEED, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_arrivals_gen g;
    qc_arrivals_gen_init(&g, &a, &r);
    double n = 0, first = 0, last = 0, t;
    while ((t = qc_arrivals_next(&g)) < horizon) {
        assert_true(t >= last);
        last = t;
        n++;
        if (fmod(t, period) < period / 2)
            first++;
    }
    printf("  %-28s arrivals %.0f (expected %.1f), first halves %.0f (expected %.1f)\n", spec, n,
           expect_all, first, expect_first_half);
    assert_true(fabs(n - expect_all) < 4 * sqrt(expect_all));
    assert_true(fabs(first - expect_first_half) < 4 * sqrt(expect_first_half));
    qc_arrivals_free(&a);
}

static void test_arrival_processes(void **state)
{
    (void)state;
    /* sin:5,4,100 over 200 periods: 5 x 20000 in all; the first half of a
     * period holds 100 (5 x 50 + 4 x 100/pi) = 100 (250 + 127.32) each */
    count_check("sin:5,4,100", 20000, 100000, 100, 200 * (250 + 400 / PI));
    /* a curve: 0 -> 10 over [0, 50], back to 2 at 100: integral 250 + 300
     * per period; first half 250 */
    char spec[128];
    snprintf(spec, sizeof spec, "curve:%s",
             write_temp("# a test curve\ntime,rate\n0,0\n50,10\n100,2\n"));
    count_check(spec, 20000, 200 * 550, 100, 200 * 250);
    qc_arrivals a;
    assert_int_equal(qc_arrivals_parse(&a, spec, NULL), 0);
    assert_true(fabs(qc_arrivals_mean_rate(&a) - 5.5) < 1e-12);
    assert_true(fabs(qc_arrivals_rate_at(&a, 125) - 5) < 1e-12);
    assert_true(fabs(qc_arrivals_rate_at(&a, 175) - 6) < 1e-12);
    qc_arrivals_free(&a);
    unlink(spec + 6);

    /* a trace: times shifted to start at 0, then it ends */
    char tspec[128];
    snprintf(tspec, sizeof tspec, "trace:%s", write_temp("time\n100.5\n101\n101\n103.25\n"));
    assert_int_equal(qc_arrivals_parse(&a, tspec, NULL), 0);
    qc_rng r;
    qc_rng_init(&r, 1, 1);
    qc_arrivals_gen g;
    qc_arrivals_gen_init(&g, &a, &r);
    assert_true(qc_arrivals_next(&g) == 0.0);
    assert_true(qc_arrivals_next(&g) == 0.5);
    assert_true(qc_arrivals_next(&g) == 0.5);
    assert_true(qc_arrivals_next(&g) == 2.75);
    assert_true(isinf(qc_arrivals_next(&g)));
    assert_true(fabs(qc_arrivals_mean_rate(&a) - 3 / 2.75) < 1e-12);
    qc_arrivals_free(&a);
    unlink(tspec + 6);
}

/* A pool fed by a trace replays it: every replication sees the same jobs'
 * arrival times, and every arrival is measured. */
static void test_trace_pool(void **state)
{
    (void)state;
    /* a Poisson trace of rate 0.7 */
    const size_t n = 3000;
    char *text = malloc(n * 32);
    assert_non_null(text);
    qc_rng r;
    qc_rng_init(&r, 7, 7);
    size_t len = 0;
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        t += qc_rng_exp(&r, 0.7);
        len += (size_t)snprintf(text + len, 32, "%.9f\n", t);
    }
    char spec[128];
    snprintf(spec, sizeof spec, "trace:%s", write_temp(text));
    free(text);
    setup s = {2, QC_POOL_DJSQ, 2, spec, "exp:1", "exp:0.5", 0, n, 0, 3};
    qc_pool_result res;
    must_run(&s, &res);
    assert_int_equal(res.measured, 3 * n);
    assert_true(isnan(res.load));
    /* the window closes at the trace's last arrival: time averages exist,
     * and the throughput is near the trace's rate */
    double thr = res.metric[QC_PM_THROUGHPUT].mean;
    printf("  trace of %zu arrivals at rate 0.7: throughput %.4f, mean jobs %.4f\n", n, thr,
           res.metric[QC_PM_JOBS].mean);
    assert_true(thr > 0.6 && thr < 0.8);
    assert_true(isfinite(res.metric[QC_PM_JOBS].mean));
    qc_pool_result_free(&res);
    /* asking for more than the trace holds is an error */
    s.customers = n + 1;
    qc_err err = {0};
    assert_int_equal(run_setup(&s, &res, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "trace holds"));
    unlink(spec + 6);
}

/* Counts arrivals of spec in [lo, hi); the count must be within 4
 * standard deviations of the Poisson mean `expect`. */
static void window_check(const char *spec, double lo, double hi, double expect)
{
    qc_arrivals a;
    qc_err err = {0};
    if (qc_arrivals_parse(&a, spec, &err) != 0)
        fail_msg("%s: %s", spec, err.msg);
    qc_rng r;
    qc_rng_init(&r, SEED, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_arrivals_gen g;
    qc_arrivals_gen_init(&g, &a, &r);
    double n = 0, t, last = 0;
    while ((t = qc_arrivals_next(&g)) < hi) {
        assert_true(t >= last);
        last = t;
        n += t >= lo;
    }
    printf("  %-28s [%g, %g): %.0f arrivals (expected %.1f)\n", spec, lo, hi, n, expect);
    assert_true(fabs(n - expect) <= 4 * sqrt(expect));
    qc_arrivals_free(&a);
}

/* A rate schedule: each step's window holds rate x length arrivals (a
 * Poisson count), and a zero step holds none. */
static void test_arrival_steps(void **state)
{
    (void)state;
    const char *spec = "steps:0:50,100:150,200:0,300:20";
    window_check(spec, 0, 100, 5000);
    window_check(spec, 100, 200, 15000);
    window_check(spec, 200, 300, 0.0);
    window_check(spec, 300, 1300, 20000);
    window_check("steps:0:0,10:7", 0, 1010, 7000);
    qc_arrivals a;
    assert_int_equal(qc_arrivals_parse(&a, spec, NULL), 0);
    assert_int_equal(a.kind, QC_ARRIVALS_STEPS);
    assert_true(qc_arrivals_varies(&a) && a.period == 300);
    assert_true(qc_arrivals_rate_at(&a, 99.9) == 50);
    assert_true(qc_arrivals_rate_at(&a, 100) == 150);
    assert_true(qc_arrivals_rate_at(&a, 250) == 0);
    assert_true(qc_arrivals_rate_at(&a, 1e9) == 20);
    assert_true(qc_arrivals_mean_rate(&a) == 20);
    char buf[128];
    assert_int_equal(qc_arrivals_format(&a, buf, sizeof buf), (int)strlen(spec));
    assert_string_equal(buf, spec);
    char small[10];
    assert_int_equal(qc_arrivals_format(&a, small, sizeof small), (int)strlen(spec));
    assert_string_equal(small, "steps:0:5");
    qc_arrivals_free(&a);

    /* a trace from times in memory: shifted to 0, owned by a */
    double *tm = malloc(3 * sizeof *tm);
    assert_non_null(tm);
    tm[0] = 5, tm[1] = 5.5, tm[2] = 7;
    assert_int_equal(qc_arrivals_from_times(&a, tm, 3, NULL), 0);
    assert_int_equal(a.kind, QC_ARRIVALS_TRACE);
    assert_true(a.t[0] == 0 && a.t[2] == 2 && qc_arrivals_mean_rate(&a) == 1);
    qc_arrivals_free(&a);
    qc_err err = {0};
    tm = malloc(2 * sizeof *tm);
    assert_non_null(tm);
    tm[0] = 1, tm[1] = 0.5;
    assert_int_equal(qc_arrivals_from_times(&a, tm, 2, &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "arrival 2"));
    assert_int_equal(a.kind, QC_ARRIVALS_NONE);
    assert_int_equal(qc_arrivals_from_times(&a, malloc(8), 0, &err), QC_EEMPTY);

}

static void expect_parse_error(const char *file_text, const char *prefix, const char *want)
{
    char spec[128];
    const char *path = write_temp(file_text);
    snprintf(spec, sizeof spec, "%s%s", prefix, path);
    qc_arrivals a;
    qc_err err = {0};
    int rc = qc_arrivals_parse(&a, spec, &err);
    printf("  %-8s -> %s\n", prefix, err.msg);
    assert_true(rc < 0);
    assert_int_equal(a.kind, QC_ARRIVALS_NONE);
    if (strstr(err.msg, want) == NULL || strstr(err.msg, path) == NULL)
        fail_msg("message '%s' lacks '%s' or the file name", err.msg, want);
    unlink(path);
}

static void test_bad_input(void **state)
{
    (void)state;
    qc_pool_result r;
    qc_err err = {0};
    /* unstable under every policy: lambda = K mu */
    setup s = {3, QC_POOL_DJSQ, 2, "exp:3", "exp:1", "exp:0.1", 0, 10000, 0, 2};
    assert_int_equal(run_setup(&s, &r, &err), QC_EUNSTABLE);
    assert_non_null(strstr(err.msg, "K mu"));
    s.arrival = "sin:3.5,0.5,100"; /* mean rate above K mu, though it dips below */
    assert_int_equal(run_setup(&s, &r, &err), QC_EUNSTABLE);
    s.arrival = "exp:2";
    s.T = 0;
    s.policy = QC_POOL_DJSQ;
    qc_arrivals a;
    qc_dist b, w;
    assert_int_equal(qc_arrivals_parse(&a, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&w, "exp:1", NULL), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = 2;
    p.arrival = &a;
    p.service = &b;
    p.setup = &w;
    p.customers = 1000;
    p.threshold = 0;
    assert_int_equal(qc_pool_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "threshold"));
    p.threshold = 1;
    p.servers = 0;
    assert_int_equal(qc_pool_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "servers"));
    p.servers = 2;
    p.idle_timer = -1;
    assert_int_equal(qc_pool_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "idle timer"));
    p.idle_timer = 0;
    p.cost.setup_power = -5;
    assert_int_equal(qc_pool_run(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "setup power"));
    p.cost.setup_power = 1;
    p.horizon = 10; /* both customers and time */
    assert_int_equal(qc_pool_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "both"));
    p.horizon = 0;
    assert_int_equal(qc_pool_run(&p, &r, &err), 0);
    qc_pool_result_free(&r);
    qc_arrivals_free(&a);
    qc_dist_free(&b);
    qc_dist_free(&w);

    /* malformed specs and files: the message names the field or FILE:LINE */
    assert_true(qc_arrivals_parse(&a, "sin:5,6,100", &err) == QC_ERANGE);
    assert_non_null(strstr(err.msg, "AMP"));
    assert_true(qc_arrivals_parse(&a, "sin:5,1", &err) == QC_EPARSE);
    assert_true(qc_arrivals_parse(&a, "sin:5,1,x", &err) == QC_EPARSE);
    assert_non_null(strstr(err.msg, "PERIOD"));
    assert_true(qc_arrivals_parse(&a, "curve:/nonexistent/c.csv", &err) == QC_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/c.csv"));
    expect_parse_error("time,rate\n0,1\n10,2x\n", "curve:", ":3: field 2");
    expect_parse_error("0,1\n\n# c\n10,2\n5,1\n", "curve:", ":5: times must increase");
    expect_parse_error("0,1\n10\n", "curve:", ":2: expected 2 fields");
    expect_parse_error("0,1\n10,-2\n", "curve:", ":2: rate -2 must be >= 0");
    expect_parse_error("5,1\n10,2\n", "curve:", ":1: the curve must start at time 0");
    expect_parse_error("0,1\n", "curve:", "at least 2 points");
    expect_parse_error("1\n2\n1.5\n", "trace:", ":3: times must not decrease");
    expect_parse_error("# nothing\n", "trace:", "no arrival times");
    static const struct {
        const char *spec, *want;
        int rc;
    } steps_bad[] = {
        {"steps:", "steps takes", QC_EPARSE},
        {"steps:0:5,10", "step 2 ('10') is not TIME:RATE", QC_EPARSE},
        {"steps:0:5,x:3", "step 2: TIME 'x' is not a number", QC_EPARSE},
        {"steps:0:5,10:", "step 2: RATE '' is not a number", QC_EPARSE},
        {"steps:0:5,10:3,", "step 3 ('') is not TIME:RATE", QC_EPARSE},
        {"steps:1:5", "step 1: TIME must be 0", QC_ERANGE},
        {"steps:0:5,10:1,10:2", "step 3: TIME 10 must be after step 2's", QC_ERANGE},
        {"steps:0:5,10:-1", "step 2: RATE -1 must be >= 0", QC_ERANGE},
        {"steps:0:0,5:0", "step 2: the last RATE must be > 0", QC_ERANGE},
        {"steps:0:5,10:0", "step 2: the last RATE must be > 0", QC_ERANGE},
    };
    for (size_t i = 0; i < sizeof steps_bad / sizeof steps_bad[0]; i++) {
        int rc = qc_arrivals_parse(&a, steps_bad[i].spec, &err);
        printf("  %-22s -> %s\n", steps_bad[i].spec, err.msg);
        assert_int_equal(rc, steps_bad[i].rc);
        assert_int_equal(a.kind, QC_ARRIVALS_NONE);
        if (strstr(err.msg, steps_bad[i].want) == NULL)
            fail_msg("message '%s' lacks '%s'", err.msg, steps_bad[i].want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm1_setup_every_policy),
        cmocka_unit_test(test_mm1_setup_deterministic_and_delayed_off),
        cmocka_unit_test(test_random_is_k_mm1_setup),
        cmocka_unit_test(test_jsq_k1_is_mm1),
        cmocka_unit_test(test_central_mmk_setup_ctmc),
        cmocka_unit_test(test_two_servers_ctmc),
        cmocka_unit_test(test_djsq_t1_is_jsq_off),
        cmocka_unit_test(test_djsq_route_on),
        cmocka_unit_test(test_djsq_stable_at_095),
        cmocka_unit_test(test_servers_follow_demand),
        cmocka_unit_test(test_reproducible_and_series),
        cmocka_unit_test(test_arrival_processes),
        cmocka_unit_test(test_arrival_steps),
        cmocka_unit_test(test_trace_pool),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
