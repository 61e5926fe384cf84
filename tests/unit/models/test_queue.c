/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_queue.c: the G/G/c/K simulator against queueing theory.
 *
 * Each check runs replications with a fixed seed and asserts two things:
 * the exact value lies inside the simulation's confidence interval, and
 * that interval is narrow (its half-width below a stated fraction of the
 * exact value), so the first assertion means something. Percentiles
 * carry the histogram's own error (at most 0.78% of the value, see
 * qctl/hist.h), which is added to the half-width for them.
 *
 * Confidence: the file makes up to MAX_CHECKS such checks. Were each made
 * at 99%, a correct simulator would fail one of them for a good share of
 * seeds, and a seed that happens to pass would prove little. So the
 * intervals are simultaneous: each is taken at level 1 - 0.01/MAX_CHECKS
 * (Bonferroni), and the whole family holds with probability at least 99%
 * whatever the seed. Each such interval contains the plain 99% one.
 * test_ci_coverage then checks the plain 99% intervals directly: over many
 * independent experiments they must cover the exact value at their nominal
 * rate. 
 *
 * Closed forms (mu = 1 throughout unless said):
 *   M/M/1      E[T] = 1/(mu - lambda), E[N] = rho/(1 - rho), T ~ Exp(mu - lambda)
 *   M/M/c      Erlang C: P(wait) = C(c, a), E[Wq] = C/(c mu - lambda)
 *   M/M/1/K    p_n = (1 - rho) rho^n / (1 - rho^(K+1)); blocking p_K
 *   M/G/1      Pollaczek-Khinchine: E[Wq] = lambda E[S^2] / (2 (1 - rho))
 *   M/G/1-PS   E[T] = E[S] / (1 - rho) (insensitive to the law of S)
 *   M/M/c-PS   same number in system as M/M/c (the total rate min(n, c)) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/dist.h"
#include "qctl/queue.h"
#include "qctl/rng.h"

#define HIST_REL 0.0079
#define MAX_CHECKS 100
#define FAMILY_LEVEL (1.0 - 0.01 / MAX_CHECKS)
#define REPS 30

static int checks_made;

typedef struct scenario {
    const char *arrival, *service;
    unsigned c;
    uint64_t K;
    qc_discipline disc;
    uint64_t customers;
    unsigned reps;
} scenario;

static void run_scenario(const scenario *s, qc_queue_result *res)
{
    qc_dist a = {0}, b = {0};
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&a, s->arrival, &err), 0);
    assert_int_equal(qc_dist_parse(&b, s->service, &err), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.servers = s->c;
    p.capacity = s->K;
    p.discipline = s->disc;
    p.customers = s->customers;
    p.reps = s->reps;
    p.seed = 20261129;
    p.level = FAMILY_LEVEL;
    int rc = qc_queue_run(&p, res, &err);
    if (rc != 0)
        fail_msg("qc_queue_run: %s", err.msg);
    qc_dist_free(&a);
    qc_dist_free(&b);
}

/* exact inside the 99% CI, and the CI half-width <= maxrel * exact. */
static void expect(const qc_queue_result *r, int m, double exact, double maxrel, const char *what)
{
    const qc_ci *ci = &r->metric[m];
    double slack = (m >= QC_QM_P50) ? HIST_REL * exact : 0.0;
    checks_made++;
    assert_true(checks_made <= MAX_CHECKS);
    printf("  %-28s %-22s exact %-10.6g sim %-10.6g +- %-9.3g (%.2f%%)\n", what,
           qc_queue_metric_name(m), exact, ci->mean, ci->half, 100 * ci->half / exact);
    if (!(fabs(ci->mean - exact) <= ci->half + slack))
        fail_msg("%s: %s exact %g outside simultaneous 99%% CI %g +- %g", what, qc_queue_metric_name(m), exact,
                 ci->mean, ci->half);
    if (!(ci->half <= maxrel * exact))
        fail_msg("%s: %s CI half-width %g exceeds %g%% of %g", what, qc_queue_metric_name(m),
                 ci->half, 100 * maxrel, exact);
}

static void test_mm1_fcfs(void **state)
{
    (void)state;
    static const struct { double rho; uint64_t n; double tol; } cases[] = {
        {0.3, 120000, 0.012}, {0.5, 180000, 0.015}, {0.8, 300000, 0.03}, {0.95, 600000, 0.07}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char arr[64], name[64];
        double rho = cases[i].rho;
        snprintf(arr, sizeof arr, "exp:%g", rho);
        snprintf(name, sizeof name, "M/M/1 rho=%g", rho);
        scenario s = {arr, "exp:1", 1, 0, QC_FCFS, cases[i].n, REPS};
        qc_queue_result r;
        run_scenario(&s, &r);
        double tol = cases[i].tol;
        expect(&r, QC_QM_RESPONSE, 1 / (1 - rho), tol, name);
        expect(&r, QC_QM_WAIT, rho / (1 - rho), 2 * tol / rho, name);
        expect(&r, QC_QM_NUMBER, rho / (1 - rho), 1.5 * tol, name);
        expect(&r, QC_QM_UTILIZATION, rho, 0.01, name);
        expect(&r, QC_QM_THROUGHPUT, rho, 0.01, name);
        expect(&r, QC_QM_P50, log(2.0) / (1 - rho), tol, name);
        /* tail percentiles rest on fewer samples: wider bounds */
        expect(&r, QC_QM_P95, log(20.0) / (1 - rho), 1.5 * tol, name);
        /* percentile intervals over 10 groups of the 30 replications
         * (9 degrees of freedom at the family level) are the widest */
        expect(&r, QC_QM_P99, log(100.0) / (1 - rho), 3 * tol, name);
        assert_true(r.metric[QC_QM_BLOCKING].mean == 0.0);
        qc_queue_result_free(&r);
    }
}

static double erlang_c(unsigned c, double a)
{
    double term = 1, sum = 1;
    for (unsigned k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / c / (1 - a / c);
    return last / (sum + last);
}

static void test_mmc_erlang_c(void **state)
{
    (void)state;
    static const struct { unsigned c; double lambda; double tol; } cases[] = {
        {2, 1.0, 0.01}, {2, 1.8, 0.04}, {4, 3.6, 0.04}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned c = cases[i].c;
        double lam = cases[i].lambda, a = lam, rho = a / c;
        char arr[64], name[64];
        snprintf(arr, sizeof arr, "exp:%g", lam);
        snprintf(name, sizeof name, "M/M/%u rho=%g", c, rho);
        scenario s = {arr, "exp:1", c, 0, QC_FCFS, 300000, REPS};
        qc_queue_result r;
        run_scenario(&s, &r);
        double wq = erlang_c(c, a) / (c - lam), tol = cases[i].tol;
        expect(&r, QC_QM_RESPONSE, wq + 1, tol, name);
        expect(&r, QC_QM_WAIT, wq, 2 * tol / erlang_c(c, a), name);
        expect(&r, QC_QM_NUMBER, lam * (wq + 1), tol, name);
        expect(&r, QC_QM_UTILIZATION, rho, 0.01, name);
        qc_queue_result_free(&r);
    }
}

static void test_mm1k(void **state)
{
    (void)state;
    static const struct { double rho; uint64_t K; } cases[] = {{0.9, 5}, {0.5, 3}, {1.5, 8}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double rho = cases[i].rho;
        uint64_t K = cases[i].K;
        double norm = 0, mean = 0;
        for (uint64_t n = 0; n <= K; n++) {
            norm += pow(rho, (double)n);
            mean += (double)n * pow(rho, (double)n);
        }
        double pk = pow(rho, (double)K) / norm;
        mean /= norm;
        char arr[64], name[64];
        snprintf(arr, sizeof arr, "exp:%g", rho);
        snprintf(name, sizeof name, "M/M/1/%llu rho=%g", (unsigned long long)K, rho);
        scenario s = {arr, "exp:1", 1, K, QC_FCFS, 180000, REPS};
        qc_queue_result r;
        run_scenario(&s, &r);
        expect(&r, QC_QM_BLOCKING, pk, 0.03, name);
        expect(&r, QC_QM_NUMBER, mean, 0.01, name);
        /* Little's law on admitted customers: E[T] = E[N] / (lambda (1 - p_K)). */
        expect(&r, QC_QM_RESPONSE, mean / (rho * (1 - pk)), 0.015, name);
        expect(&r, QC_QM_THROUGHPUT, rho * (1 - pk), 0.01, name);
        qc_queue_result_free(&r);
    }
}

static void test_mg1_pollaczek_khinchine(void **state)
{
    (void)state;
    /* det:1: E[S^2] = 1. hyperexp:0.5,0.6,0.5,3: E[S] = 0.5/0.6 + 0.5/3 = 1,
     * E[S^2] = 2 (0.5/0.36 + 0.5/9) = 2.8889 (squared CV 1.889). */
    static const struct { const char *svc; double es2; double lambda; double tol; } cases[] = {
        {"det:1", 1.0, 0.5, 0.01},
        {"det:1", 1.0, 0.9, 0.03},
        {"hyperexp:0.5,0.6,0.5,3", 2.0 * (0.5 / 0.36 + 0.5 / 9.0), 0.5, 0.015},
        {"hyperexp:0.5,0.6,0.5,3", 2.0 * (0.5 / 0.36 + 0.5 / 9.0), 0.9, 0.05}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double lam = cases[i].lambda;
        char arr[64], name[64];
        snprintf(arr, sizeof arr, "exp:%g", lam);
        snprintf(name, sizeof name, "M/G/1 %s rho=%g", cases[i].svc, lam);
        scenario s = {arr, cases[i].svc, 1, 0, QC_FCFS, 360000, REPS};
        qc_queue_result r;
        run_scenario(&s, &r);
        double wq = lam * cases[i].es2 / (2 * (1 - lam));
        expect(&r, QC_QM_RESPONSE, wq + 1, cases[i].tol, name);
        expect(&r, QC_QM_WAIT, wq, 2 * cases[i].tol, name);
        expect(&r, QC_QM_NUMBER, lam * (wq + 1), cases[i].tol * 1.5, name);
        qc_queue_result_free(&r);
    }
}

static void test_processor_sharing(void **state)
{
    (void)state;
    static const struct { const char *arr, *svc; unsigned c; double et; double tol; } cases[] = {
        {"exp:0.5", "exp:1", 1, 2.0, 0.015},
        {"exp:0.9", "exp:1", 1, 10.0, 0.05},
        /* insensitivity: hyperexponential service, same mean, same E[T] */
        {"exp:0.7", "hyperexp:0.5,0.6,0.5,3", 1, 1 / 0.3, 0.03},
        {"exp:0.7", "det:1", 1, 1 / 0.3, 0.02},
        /* M/M/2-PS: N as in M/M/2 with a = 1.8 */
        {"exp:1.8", "exp:1", 2, 0, 0.05}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char name[64];
        snprintf(name, sizeof name, "PS c=%u %s %s", cases[i].c, cases[i].arr, cases[i].svc);
        scenario s = {cases[i].arr, cases[i].svc, cases[i].c, 0, QC_PS, 300000, REPS};
        qc_queue_result r;
        run_scenario(&s, &r);
        double et = cases[i].et;
        if (cases[i].c == 2)
            et = erlang_c(2, 1.8) / (2 - 1.8) + 1;
        expect(&r, QC_QM_RESPONSE, et, cases[i].tol, name);
        qc_queue_result_free(&r);
    }
}

/* One long run, CI by batch means, MSER-5 warm-up; and a timed run. */
static void test_batch_means_and_timed_run(void **state)
{
    (void)state;
    scenario s = {"exp:0.8", "exp:1", 1, 0, QC_FCFS, 3000000, 1};
    qc_queue_result r;
    run_scenario(&s, &r);
    assert_string_equal(r.ci_method, "batch-means");
    /* Fishman's rule: 32, 16 or 8 batches, the count the von Neumann
     * test accepted (or 8, said not independent) */
    assert_int_equal(r.metric[QC_QM_RESPONSE].n, r.batches);
    assert_true(r.batches == 32 || r.batches == 16 || r.batches == 8);
    assert_true(r.batches_independent || r.batches == 8);
    expect(&r, QC_QM_RESPONSE, 5.0, 0.06, "M/M/1 rho=0.8 batch means");
    qc_queue_result_free(&r);

    qc_dist a = {0}, b = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:0.8", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.horizon = 100000;
    p.warmup_mode = QC_WARMUP_FIXED;
    p.warmup = 1000;
    p.reps = REPS;
    p.level = FAMILY_LEVEL;
    p.series_dt = 100;
    assert_int_equal(qc_queue_run(&p, &r, NULL), 0);
    expect(&r, QC_QM_NUMBER, 4.0, 0.04, "M/M/1 rho=0.8 timed");
    expect(&r, QC_QM_THROUGHPUT, 0.8, 0.01, "M/M/1 rho=0.8 timed");
    assert_true(r.warmup_time == 1000.0);
    /* series of replication 1: bins of 100 over [0, 101000] at least */
    assert_true(r.series_len >= 1010);
    assert_true(fabs(r.series[9].t - 1000.0) < 1e-9);
    qc_queue_result_free(&r);
    qc_dist_free(&a);
    qc_dist_free(&b);
}

/* FCFS with one server is Lindley's recursion on the same random numbers:
 * the event-driven kernel must reproduce it customer for customer, so the
 * mean response times agree to rounding (the two sum in different order). */
static void test_kernel_equals_lindley(void **state)
{
    (void)state;
    enum { N = 100000 };
    qc_dist a = {0}, b = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:0.9", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "gamma:0.5,2", NULL), 0);
    qc_rng ra, rs;
    qc_rng_init(&ra, 5, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&rs, 5, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
    double w = 0, sum = 0, a1 = qc_dist_sample(&a, &ra);
    (void)a1; /* the first arrival's time: Lindley needs only the gaps */
    for (int i = 0; i < N; i++) {
        double s = qc_dist_sample(&b, &rs);
        sum += w + s;
        w += s - qc_dist_sample(&a, &ra);
        if (w < 0)
            w = 0;
    }
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.customers = N;
    p.warmup_mode = QC_WARMUP_FIXED;
    p.warmup = 0;
    p.seed = 5; /* replication 1 draws from the streams above */
    qc_queue_result r;
    assert_int_equal(qc_queue_run(&p, &r, NULL), 0);
    /* 16 batches of exactly N/16 customers: their mean is the overall mean */
    double kernel = r.metric[QC_QM_RESPONSE].mean, lindley = sum / N;
    printf("  Lindley %.12f kernel %.12f\n", lindley, kernel);
    assert_true(fabs(kernel - lindley) <= 1e-9 * lindley);
    assert_int_equal(r.measured, N);
    qc_queue_result_free(&r);
    qc_dist_free(&a);
    qc_dist_free(&b);
}

/* Same seed: bit-identical estimates; another seed: different ones. */
static void test_reproducible(void **state)
{
    (void)state;
    qc_dist a = {0}, b = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:0.7", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "lognormal:-0.5,1", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.customers = 20000;
    p.reps = 3;
    qc_queue_result r1, r2, r3;
    assert_int_equal(qc_queue_run(&p, &r1, NULL), 0);
    assert_int_equal(qc_queue_run(&p, &r2, NULL), 0);
    p.seed = 2;
    assert_int_equal(qc_queue_run(&p, &r3, NULL), 0);
    assert_memory_equal(r1.metric, r2.metric, sizeof r1.metric);
    assert_true(r1.metric[QC_QM_RESPONSE].mean != r3.metric[QC_QM_RESPONSE].mean);
    assert_int_equal(r1.events, r2.events);
    qc_queue_result_free(&r1);
    qc_queue_result_free(&r2);
    qc_queue_result_free(&r3);
    qc_dist_free(&a);
    qc_dist_free(&b);
}

/* MSER-5 cuts the transient of a queue started empty at high load, and
 * (almost) nothing from a light-load one. */
static void test_mser_warmup(void **state)
{
    (void)state;
    qc_dist a = {0}, b = {0}, c = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:0.95", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&c, "exp:0.2", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.customers = 200000;
    p.reps = 5;
    qc_queue_result r;
    assert_int_equal(qc_queue_run(&p, &r, NULL), 0);
    printf("  MSER-5 cut at rho=0.95: %.0f customers, time %.1f\n", r.warmup_customers, r.warmup_time);
    qc_queue_result_free(&r);
    p.arrival = &c;
    assert_int_equal(qc_queue_run(&p, &r, NULL), 0);
    printf("  MSER-5 cut at rho=0.2:  %.0f customers\n", r.warmup_customers);
    /* At rho = 0.2 the relaxation time is a few service times: the cut,
     * rounded to chunks of 200000/128 = 1563 customers, stays small. */
    assert_true(r.warmup_customers <= 0.1 * 200000);
    qc_queue_result_free(&r);
    qc_dist_free(&a);
    qc_dist_free(&b);
    qc_dist_free(&c);
}

/* The plain 99% intervals cover at their nominal rate: E[T] of M/M/1 at
 * rho = 0.5 over NEXP independent experiments (5 replications each, the
 * seed varied). Coverage must fall in the binomial band 0.99 +- 3.29 sd;
 * intervals built wrongly (normal instead of t quantile, variance of the
 * wrong units, a biased estimator) fall out of it. */
static void test_ci_coverage(void **state)
{
    (void)state;
    enum { NEXP = 400 };
    qc_dist a = {0}, b = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:0.5", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.customers = 10000;
    p.reps = 5;
    p.level = 0.99;
    int covered = 0;
    for (int e = 0; e < NEXP; e++) {
        qc_queue_result r;
        p.seed = 1000 + (uint64_t)e;
        assert_int_equal(qc_queue_run(&p, &r, NULL), 0);
        const qc_ci *ci = &r.metric[QC_QM_RESPONSE];
        covered += ci->lo <= 2.0 && 2.0 <= ci->hi;
        qc_queue_result_free(&r);
    }
    double cov = (double)covered / NEXP, sd = sqrt(0.99 * 0.01 / NEXP);
    printf("  coverage of 99%% CIs over %d experiments: %.4f (band %.4f .. %.4f)\n", NEXP, cov,
           0.99 - 3.29 * sd, 1.0);
    assert_true(cov >= 0.99 - 3.29 * sd);
    qc_dist_free(&a);
    qc_dist_free(&b);
}

static void test_bad_parameters(void **state)
{
    (void)state;
    qc_dist a = {0}, b = {0}, z = {0};
    assert_int_equal(qc_dist_parse(&a, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&b, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&z, "det:0", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &b;
    p.customers = 10000;
    qc_queue_result r;
    qc_err err = {0};
    /* rho = 1 with no capacity: refused, not simulated forever */
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EUNSTABLE);
    assert_non_null(strstr(err.msg, "rho"));
    p.capacity = 10; /* finite capacity makes it well posed */
    assert_int_equal(qc_queue_run(&p, &r, &err), 0);
    qc_queue_result_free(&r);
    p.servers = 20; /* K < c */
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "capacity"));
    p.servers = 0;
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EINVAL);
    p.servers = 2;
    p.capacity = 0;
    p.horizon = 5; /* both customers and time */
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "both"));
    p.horizon = 0;
    p.level = 1.0;
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EINVAL);
    p.level = 0.95;
    p.arrival = &z; /* zero inter-arrival time: infinitely many arrivals */
    p.capacity = 5;
    assert_int_equal(qc_queue_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "inter-arrival"));
    qc_dist_free(&a);
    qc_dist_free(&b);
    qc_dist_free(&z);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm1_fcfs),
        cmocka_unit_test(test_mmc_erlang_c),
        cmocka_unit_test(test_mm1k),
        cmocka_unit_test(test_mg1_pollaczek_khinchine),
        cmocka_unit_test(test_processor_sharing),
        cmocka_unit_test(test_batch_means_and_timed_run),
        cmocka_unit_test(test_kernel_equals_lindley),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_mser_warmup),
        cmocka_unit_test(test_ci_coverage),
        cmocka_unit_test(test_bad_parameters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
