/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_proxysim.c: `qctl sim proxy` (qc_psim_run) against exact answers
 * computed here, independently of the library's own closed forms.
 *
 * Where theory gives the answer, the simulated proxy must reproduce it:
 *   no limiter, one backend of c workers, Poisson arrivals, exponential
 *   service: M/M/c, the mean response time by Erlang's C formula (summed
 *   here term by term) and the mean wait at the backend;
 *   no limiter, one deterministic worker: M/D/1, Pollaczek-Khinchine;
 *   a fixed limit L equal to the workers, a FIFO waiting room of K places
 *   and deadlines too long to matter: M/M/L/(L+K), whose refused fraction
 *   (PASTA) is the blocking probability of the birth-death chain solved
 *   here, and whose admitted mean latency is E[N] / (lambda (1 - P_K));
 *   closed-loop users with exponential think time in front of one
 *   exponential worker, no limiter: the machine-repairman model
 *   M/M/1//N, throughput mu (1 - p0);
 *   the proxy's default limiter, and AIMD, at half load in front of 4
 *   exponential workers: still M/M/4 (nothing refused, nothing waits);
 *   a service seed: the live backend's own draws, through Lindley's
 *   recursion run here on them;
 *   a transit t (the answer's way back to the proxy, its slot held, its
 *   worker free): a saturated fixed limit c on c workers of det:S serves
 *   c / (S + t) a second, where without a limiter the backend's queue
 *   keeps the workers busy and serves c / S; at no load every answer
 *   takes S + t.
 * Each check runs replications with a fixed seed and asserts that the
 * exact value lies in the run's interval at level 1 - 0.01/12 (Bonferroni
 * over the 12 checks of this file, so the family holds with probability
 * 0.99 whatever the seed) and that the interval is narrow (the first
 * assertion would mean nothing otherwise).
 *
 * Beyond the closed forms: deadlines are honoured (no admitted request
 * waits past its deadline), every arrival is answered once (goodput plus
 * refusals equal the arrivals), the result does not depend on the number
 * of threads, and bad parameters are refused with the field named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/proxysim.h"
#include "qctl/rng.h"

#define LEVEL (1 - 0.01 / 12)

typedef struct scen {
    qc_psim_params p;
    qc_arrivals arr;
    qc_dist svc, think;
} scen;

static void scen_open(scen *s, const char *arrival, const char *service)
{
    memset(s, 0, sizeof *s);
    qc_psim_params_init(&s->p);
    qc_err err = {0};
    assert_int_equal(qc_arrivals_parse(&s->arr, arrival, &err), 0);
    assert_int_equal(qc_dist_parse(&s->svc, service, &err), 0);
    s->p.service = &s->svc;
    s->p.nclasses = 1;
    s->p.cls[0].name = "all";
    s->p.cls[0].arrival = &s->arr;
    s->p.level = LEVEL;
    s->p.jobs = 2;
}

/* The proxy's limiter a fixed limit of `limit` (--limiter fixed --limit). */
static void scen_fixed(scen *s, unsigned limit)
{
    s->p.limiter.algo = QC_LIMITER_FIXED;
    s->p.limiter.initial_limit = limit;
    s->p.limiter.min_limit = 1;
    s->p.limiter.max_limit = 1000;
}

static void scen_free(scen *s)
{
    qc_arrivals_free(&s->arr);
    qc_dist_free(&s->svc);
    qc_dist_free(&s->think);
}

static void run_ok(scen *s, qc_psim_result *r)
{
    qc_err err = {0};
    int rc = qc_psim_run(&s->p, r, &err);
    if (rc != 0)
        fprintf(stderr, "qc_psim_run: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

/* exact in c's interval widened by tol (the histogram's own error for a
 * percentile, 0 for a mean), and the interval narrower than frac of it. */
static void inside(const char *what, const qc_ci *c, double exact, double tol, double frac)
{
    printf("  %-28s exact %.6g  sim %.6g [%.6g, %.6g]\n", what, exact, c->mean, c->lo, c->hi);
    assert_true(c->n >= 2);
    assert_true(exact >= c->lo - tol * exact && exact <= c->hi + tol * exact);
    assert_true(c->half < frac * exact);
}

/* ---- M/M/c and M/D/1 through a proxy without a limiter ------------------- */

static double erlang_c(unsigned c, double a)
{
    double term = 1, sum = 1; /* a^k / k!, k = 0 */
    for (unsigned k = 1; k < c; k++) {
        term *= a / k;
        sum += term;
    }
    double last = term * a / c / (1 - a / c);
    return last / (sum + last);
}

static void test_mmc_no_limiter(void **state)
{
    (void)state;
    const double lam = 300, mu = 100;
    const unsigned c = 4;
    scen s;
    scen_open(&s, "exp:300", "exp:100");
    s.p.control = 0;
    s.p.workers = c;
    s.p.horizon = 200;
    s.p.warmup = 5;
    s.p.reps = 20;
    qc_psim_result r;
    run_ok(&s, &r);
    double C = erlang_c(c, lam / mu);
    double wq = C / (c * mu - lam);
    inside("M/M/4 mean response", &r.all[QC_PSIM_LATENCY], wq + 1 / mu, 0, 0.02);
    inside("offered = goodput", &r.all[QC_PSIM_GOODPUT], lam, 0, 0.01);
    /* no limiter: nothing waits at the proxy, nothing is refused */
    assert_true(r.all[QC_PSIM_REFUSED].mean == 0 && r.all[QC_PSIM_REFUSED].hi == 0);
    assert_true(r.all[QC_PSIM_WAIT].mean == 0);
    inside("workers busy", &r.utilization, lam / (c * mu), 0, 0.01);
    qc_psim_result_free(&r);
    scen_free(&s);
}

static void test_md1_no_limiter(void **state)
{
    (void)state;
    const double lam = 70, d = 0.01, rho = lam * d;
    scen s;
    scen_open(&s, "exp:70", "det:0.01");
    s.p.control = 0;
    s.p.horizon = 300;
    s.p.reps = 20;
    qc_psim_result r;
    run_ok(&s, &r);
    double w = lam * d * d / (2 * (1 - rho)); /* P-K: lambda E[S^2] / (2 (1 - rho)) */
    inside("M/D/1 mean response", &r.all[QC_PSIM_LATENCY], w + d, 0, 0.02);
    qc_psim_result_free(&r);
    scen_free(&s);
}

/* ---- a fixed limit and a FIFO room: M/M/L/(L+K) ------------------------------ */

static void test_fixed_limit_is_mmck(void **state)
{
    (void)state;
    const double lam = 250, mu = 100;
    const unsigned L = 2, K = 3, N = L + K;
    scen s;
    scen_open(&s, "exp:250", "exp:100");
    scen_fixed(&s, L);
    s.p.workers = L; /* the limit is the servers: the proxy's room is the queue */
    s.p.queue = K;
    s.p.queue_timeout = 1e6; /* deadlines never reached */
    s.p.discipline = QC_PSIM_FIFO;
    s.p.horizon = 200;
    s.p.reps = 20;
    qc_psim_result r;
    run_ok(&s, &r);
    /* the birth-death chain on 0..N: rate lam up, mu min(n, L) down */
    double pi[16], sum = 0, mean_n = 0;
    pi[0] = 1;
    for (unsigned n = 1; n <= N; n++)
        pi[n] = pi[n - 1] * lam / (mu * (n < L ? n : L));
    for (unsigned n = 0; n <= N; n++)
        sum += pi[n];
    for (unsigned n = 0; n <= N; n++)
        mean_n += n * pi[n] / sum;
    double pb = pi[N] / sum;
    inside("M/M/2/5 refused (blocking)", &r.all[QC_PSIM_REFUSED], pb, 0, 0.05);
    inside("  all for want of room", &r.all[QC_PSIM_REFUSED_FULL], pb, 0, 0.05);
    inside("admitted mean latency", &r.all[QC_PSIM_LATENCY], mean_n / (lam * (1 - pb)), 0, 0.03);
    inside("goodput", &r.all[QC_PSIM_GOODPUT], lam * (1 - pb), 0, 0.02);
    assert_true(r.limit.mean == L);
    qc_psim_result_free(&r);
    scen_free(&s);
}

/* ---- closed loop: the machine-repairman model M/M/1//N ----------------------- */

static void test_closed_loop_repairman(void **state)
{
    (void)state;
    const unsigned N = 10;
    const double z = 0.05, mu = 100, lam = 1 / z;
    scen s;
    memset(&s, 0, sizeof s);
    qc_psim_params_init(&s.p);
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&s.svc, "exp:100", &err), 0);
    assert_int_equal(qc_dist_parse(&s.think, "exp:20", &err), 0);
    s.p.service = &s.svc;
    s.p.nclasses = 1;
    s.p.cls[0].name = "users";
    s.p.cls[0].users = N;
    s.p.cls[0].think = &s.think;
    s.p.control = 0;
    s.p.level = LEVEL;
    s.p.horizon = 200;
    s.p.reps = 20;
    s.p.jobs = 2;
    qc_psim_result r;
    run_ok(&s, &r);
    /* p_n proportional to N! / (N - n)! (lam / mu)^n */
    double p[16], sum = 0;
    p[0] = 1;
    for (unsigned n = 1; n <= N; n++)
        p[n] = p[n - 1] * (N - n + 1) * lam / mu;
    for (unsigned n = 0; n <= N; n++)
        sum += p[n];
    double x = mu * (1 - p[0] / sum);
    inside("M/M/1//10 throughput", &r.all[QC_PSIM_GOODPUT], x, 0, 0.02);
    inside("  response (N/X - Z)", &r.all[QC_PSIM_LATENCY], N / x - z, 0, 0.03);
    qc_psim_result_free(&r);
    scen_free(&s);
}

/* ---- what holds whatever the theory ------------------------------------- */

/* 1.5x overload of one deterministic worker behind a limit of 1 and a FIFO
 * room with a 50 ms deadline: no admitted request waits past its deadline
 * (latency <= deadline + service, up to the histogram's 0.78%), every
 * arrival is answered once, and the worker never idles while requests
 * wait (the front is work-conserving). */
static void test_deadline_and_conservation(void **state)
{
    (void)state;
    scen s;
    scen_open(&s, "exp:150", "det:0.01");
    s.p.limiter.algo = QC_LIMITER_FIXED;
    s.p.limiter.initial_limit = 1;
    s.p.discipline = QC_PSIM_FIFO;
    s.p.queue_timeout = 0.05;
    s.p.horizon = 60;
    s.p.reps = 4;
    s.p.level = 0.95;
    qc_psim_result r;
    run_ok(&s, &r);
    double p99 = r.all[QC_PSIM_P99].mean, top = (0.05 + 0.01) * 1.008;
    printf("  p99 %.4g s (deadline + service %.4g)\n", p99, 0.06);
    assert_true(p99 <= top);
    assert_true(qc_hist_quantile(r.latency_hist, 0.99999) <= top);
    assert_true(r.all[QC_PSIM_REFUSED_DEADLINE].mean > 0.2);
    /* answered once: goodput + refusals = arrivals, within the requests
     * left unanswered at the end of each window (a few) */
    double off = r.all[QC_PSIM_OFFERED].mean, good = r.all[QC_PSIM_GOODPUT].mean;
    double refused = r.all[QC_PSIM_REFUSED].mean;
    printf("  offered %.4g/s, goodput %.4g/s, refused %.4g\n", off, good, refused);
    assert_true(fabs(good - off * (1 - refused)) < 0.01 * off);
    assert_true(r.utilization.mean > 0.99);
    assert_true(fabs(good - 100) < 1.5);
    qc_psim_result_free(&r);
    scen_free(&s);
}

/* The same figures for any number of threads. */
static void test_jobs_invariant(void **state)
{
    (void)state;
    scen s;
    scen_open(&s, "exp:500", "exp:100");
    s.p.workers = 4;
    s.p.horizon = 10;
    s.p.reps = 6;
    s.p.series_dt = 0.5;
    qc_psim_result a, b;
    s.p.jobs = 1;
    run_ok(&s, &a);
    s.p.jobs = 3;
    run_ok(&s, &b);
    for (int m = 0; m < QC_PSIM_NMETRICS; m++) {
        assert_true(a.all[m].mean == b.all[m].mean || (isnan(a.all[m].mean) && isnan(b.all[m].mean)));
        assert_true(a.all[m].half == b.all[m].half || (isnan(a.all[m].half) && isnan(b.all[m].half)));
    }
    assert_true(a.series_len == b.series_len && a.series_len > 10);
    assert_memory_equal(a.series, b.series, a.series_len * sizeof *a.series);
    /* 1.25x overload under the default limiter: something is refused */
    assert_true(a.all[QC_PSIM_REFUSED].mean > 0.05);
    qc_psim_result_free(&a);
    qc_psim_result_free(&b);
    scen_free(&s);
}

/* ---- the proxy's defaults and AIMD at half load: still M/M/4 --------------- */

/* At half the backends' capacity a proxy refuses nothing and adds no wait
 * (work-conserving), whatever its limiter: the twin of `qctl proxy` with
 * its defaults, and with --limiter aimd, in front of 4 exponential
 * workers is M/M/4, the mean response Erlang C's, as bench_twin's 0.5x
 * rows assume. */
static void test_half_load_is_mmc(void **state)
{
    (void)state;
    const double lam = 200, mu = 100;
    const unsigned c = 4;
    const qc_limiter_algo algo[2] = {QC_LIMITER_MAXUSERS, QC_LIMITER_AIMD};
    for (int j = 0; j < 2; j++) {
        scen s;
        scen_open(&s, "exp:200", "exp:100");
        qc_limiter_params_init(&s.p.limiter, algo[j]);
        s.p.workers = c;
        s.p.horizon = 60;
        s.p.reps = 10;
        qc_psim_result r;
        run_ok(&s, &r);
        double C = erlang_c(c, lam / mu);
        inside(j ? "aimd: M/M/4 mean response" : "default: M/M/4 mean response",
               &r.all[QC_PSIM_LATENCY], C / (c * mu - lam) + 1 / mu, 0, 0.03);
        assert_true(r.all[QC_PSIM_REFUSED].mean == 0);
        assert_true(r.all[QC_PSIM_WAIT].mean < 1e-3 / mu);
        qc_psim_result_free(&r);
        scen_free(&s);
    }
}

/* ---- a service seed: the live backend's own draws --------------------------- */

/* With service_seed S every replication serves the sequence `qctl backend
 * --seed S` draws (src/live/backend.c: seed S, stream (0, SERVICE, 0), one
 * draw per service started). Checked against Lindley's recursion run here
 * on that sequence: one worker, no limiter, an arrival every 20 ms, each
 * replication's mean latency exactly the recursion's; without the seed the
 * replications differ. */
static void test_service_seed_is_backends(void **state)
{
    (void)state;
    const uint64_t S = 7;
    const double horizon = 20;
    scen s;
    scen_open(&s, "det:0.02", "exp:60");
    s.p.control = 0;
    s.p.warmup = 0;
    s.p.horizon = horizon;
    s.p.reps = 3;
    s.p.seed = 11;
    s.p.service_seed = S;
    qc_psim_result r;
    run_ok(&s, &r);

    qc_rng rs, ra;
    qc_rng_init(&rs, S, qc_rng_stream(0, QC_STREAM_SERVICE, 0)); /* as backend.c */
    qc_rng_init(&ra, 1, 0);
    qc_arrivals_gen g;
    qc_arrivals_gen_init(&g, &s.arr, &ra);
    double dep = 0, sum = 0;
    unsigned n = 0;
    for (double a = qc_arrivals_next(&g); a < horizon; a = qc_arrivals_next(&g)) {
        double x = qc_dist_sample(&s.svc, &rs);
        dep = (a > dep ? a : dep) + x;
        if (dep < horizon) { /* answered within the run */
            sum += dep - a;
            n++;
        }
    }
    assert_true(n > 900);
    printf("  Lindley on backend --seed 7's draws: mean %.9g, sim %.9g (+-%.3g)\n", sum / n,
           r.all[QC_PSIM_LATENCY].mean, r.all[QC_PSIM_LATENCY].half);
    assert_true(fabs(r.all[QC_PSIM_LATENCY].mean - sum / n) < 1e-9 * (sum / n));
    assert_true(r.all[QC_PSIM_LATENCY].half < 1e-9 * (sum / n));
    qc_psim_result_free(&r);

    s.p.service_seed = 0; /* each replication its own draws */
    run_ok(&s, &r);
    assert_true(r.all[QC_PSIM_LATENCY].half > 1e-3 * (sum / n));
    qc_psim_result_free(&r);

    qc_err err = {0};
    s.p.service_seed = S;
    s.p.backends = 2; /* one backend's sequence */
    assert_int_equal(qc_psim_run(&s.p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "service seed"));
    scen_free(&s);
}

/* ---- the transit: the slot held beyond the service --------------------------- */

static void test_transit(void **state)
{
    (void)state;
    const double S = 0.05, t = 0.01;
    const unsigned c = 4;
    qc_dist tr;
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&tr, "det:0.01", &err), 0);
    /* a saturated limit of c: each slot cycles in S + t */
    scen s;
    scen_open(&s, "exp:400", "det:0.05");
    scen_fixed(&s, c);
    s.p.workers = c;
    s.p.queue = 16;
    s.p.discipline = QC_PSIM_FIFO;
    s.p.horizon = 100;
    s.p.reps = 4;
    s.p.transit = &tr;
    qc_psim_result r;
    run_ok(&s, &r);
    double want = c / (S + t);
    printf("  limit c: goodput %.6g, c / (S + t) = %.6g\n", r.all[QC_PSIM_GOODPUT].mean, want);
    assert_true(fabs(r.all[QC_PSIM_GOODPUT].mean - want) < 0.002 * want);
    assert_true(r.all[QC_PSIM_LATENCY].mean >= S + t - 1e-9);
    qc_psim_result_free(&r);
    s.p.transit = NULL; /* the same without: c / S */
    run_ok(&s, &r);
    assert_true(fabs(r.all[QC_PSIM_GOODPUT].mean - c / S) < 0.002 * c / S);
    qc_psim_result_free(&r);
    /* no limiter: the backend's queue starts the next service at once,
     * the transit takes nothing from the workers */
    s.p.control = 0;
    s.p.transit = &tr;
    run_ok(&s, &r);
    printf("  no limiter: goodput %.6g, c / S = %.6g\n", r.all[QC_PSIM_GOODPUT].mean, c / S);
    assert_true(fabs(r.all[QC_PSIM_GOODPUT].mean - c / S) < 0.002 * c / S);
    qc_psim_result_free(&r);
    scen_free(&s);
    /* no load (a worker for every request): every answer takes S + t */
    scen_open(&s, "exp:20", "det:0.05");
    s.p.control = 0;
    s.p.workers = 1000;
    s.p.horizon = 50;
    s.p.reps = 2;
    s.p.transit = &tr;
    run_ok(&s, &r);
    printf("  no load: mean %.9g, S + t = %.9g\n", r.all[QC_PSIM_LATENCY].mean, S + t);
    assert_true(fabs(r.all[QC_PSIM_LATENCY].mean - (S + t)) < 1e-9);
    qc_psim_result_free(&r);
    scen_free(&s);
    qc_dist_free(&tr);
}

/* ---- the default limiter keeps exponential backends busy ------------------- */

/* 4 workers of exp:20 (80/s) offered 3x, 240/s Poisson, for 20 s after 5
 * unmeasured, through the proxy's defaults. */
static void scen_exp3x(scen *s, unsigned reps, uint64_t seed)
{
    scen_open(s, "exp:240", "exp:20");
    s->p.workers = 4;
    s->p.warmup = 5;
    s->p.horizon = 20;
    s->p.reps = reps;
    s->p.seed = seed;
}

/* 4 workers of exp:20 (80/s) offered 240/s, Poisson, through the defaults
 * (MaxUsers, work-conserving): the goodput stays within 10% of the
 * workers' capacity on the service draws where the knee estimator's L0,
 * the least latency seen (a few ms of exponential services of 50 ms),
 * put the knee at X L0 << 4 and the limit at 1 to 3 with the workers
 * mostly idle (59, 60 and 59/s on service seeds 5, 6 and 7). The front
 * now gives the estimator its own L0, the mean time of the requests that
 * met the workers idle. */
static void test_default_exp_overload_keeps_capacity(void **state)
{
    (void)state;
    for (uint64_t seed = 5; seed <= 7; seed++) {
        scen s;
        scen_exp3x(&s, 1, seed);
        s.p.service_seed = seed;
        qc_psim_result r;
        run_ok(&s, &r);
        double g = r.all[QC_PSIM_GOODPUT].mean, cap = s.p.workers / qc_dist_mean(&s.svc);
        printf("  service seed %llu: goodput %.1f/s of %g\n", (unsigned long long)seed, g, cap);
        assert_true(g > 0.9 * cap);
        qc_psim_result_free(&r);
        scen_free(&s);
    }
}

/* The sampler's least window (qctl/front.h): 4 workers of exp:20 (80/s)
 * offered 3x. A window per 0.1 s interval holds about 8 completions, whose
 * mean time at a backend has a standard error of a third: the verdicts
 * against L0 (1 + 0.2) are coin flips and the limit walks above the
 * workers' knee, where requests queue in the backend. A window of 32
 * (the default) holds the limit nearer the knee: admitted p50 and p99
 * lower, for the same goodput. */
static void test_window_least(void **state)
{
    (void)state;
    double p50[2], p99[2], g[2], cap = 0;
    for (int k = 0; k < 2; k++) {
        scen s;
        scen_exp3x(&s, 20, 3);
        s.p.sample_least = k ? 32 : 0;
        cap = s.p.workers / qc_dist_mean(&s.svc);
        qc_psim_result r;
        run_ok(&s, &r);
        p50[k] = r.all[QC_PSIM_P50].mean;
        p99[k] = r.all[QC_PSIM_P99].mean;
        g[k] = r.all[QC_PSIM_GOODPUT].mean;
        printf("  least %2d: goodput %.1f/s, p50 %.1f ms [%.1f, %.1f], p99 %.1f ms\n",
               k ? 32 : 0, g[k], 1e3 * p50[k], 1e3 * r.all[QC_PSIM_P50].lo,
               1e3 * r.all[QC_PSIM_P50].hi, 1e3 * p99[k]);
        qc_psim_result_free(&r);
        scen_free(&s);
    }
    assert_true(p50[1] < 0.85 * p50[0]);
    assert_true(p99[1] < 0.95 * p99[0]);
    assert_true(fabs(g[1] / g[0] - 1) < 0.02);
    assert_true(g[1] > 0.95 * cap);
}

static void test_bad_input(void **state)
{
    (void)state;
    scen s;
    scen_open(&s, "exp:10", "exp:100");
    qc_psim_result r;
    qc_err err = {0};
    s.p.workers = 0;
    assert_int_equal(qc_psim_run(&s.p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "workers"));
    s.p.workers = 1;
    s.p.cls[0].users = 3; /* both open and closed */
    assert_int_equal(qc_psim_run(&s.p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "class all"));
    s.p.cls[0].users = 0;
    s.p.queue_timeout = INFINITY;
    assert_int_equal(qc_psim_run(&s.p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "queue timeout"));
    s.p.queue_timeout = 1;
    s.p.limiter.min_limit = 0; /* the front's own check */
    assert_true(qc_psim_run(&s.p, &r, &err) < 0);
    assert_non_null(strstr(err.msg, "limiter"));
    scen_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mmc_no_limiter),
        cmocka_unit_test(test_md1_no_limiter),
        cmocka_unit_test(test_fixed_limit_is_mmck),
        cmocka_unit_test(test_closed_loop_repairman),
        cmocka_unit_test(test_deadline_and_conservation),
        cmocka_unit_test(test_jobs_invariant),
        cmocka_unit_test(test_half_load_is_mmc),
        cmocka_unit_test(test_service_seed_is_backends),
        cmocka_unit_test(test_transit),
        cmocka_unit_test(test_default_exp_overload_keeps_capacity),
        cmocka_unit_test(test_window_least),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
