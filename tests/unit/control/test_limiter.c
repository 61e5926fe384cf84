/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_limiter.c: the embeddable limiter: the gate under contention from
 * several threads (in flight never above the limit, counts balance), and
 * each algorithm's tick on a hand-written latency sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "qctl/limiter.h"

#define THREADS 6
#define ROUNDS 20000

typedef struct shared {
    qc_limiter *l;
    atomic_uint occupancy; /* requests between acquire and release */
    atomic_uint max_occupancy;
    atomic_ullong attempts, admitted;
    atomic_int stop_ticking;
} shared;

static void *hammer(void *arg)
{
    shared *s = arg;
    for (int i = 0; i < ROUNDS; i++) {
        qc_limiter_token tok;
        atomic_fetch_add(&s->attempts, 1);
        if (qc_limiter_acquire(s->l, (unsigned)i % 3, &tok) != QC_LIMITER_ADMIT)
            continue;
        atomic_fetch_add(&s->admitted, 1);
        unsigned n = atomic_fetch_add(&s->occupancy, 1) + 1;
        unsigned m = atomic_load(&s->max_occupancy);
        while (m < n && !atomic_compare_exchange_weak(&s->max_occupancy, &m, n))
            ;
        for (volatile int spin = 0; spin < 50; spin++)
            ;
        atomic_fetch_sub(&s->occupancy, 1);
        qc_limiter_release(s->l, &tok, 1e-4 * (1 + i % 7),
                           i % 97 == 0 ? QC_LIMITER_DROPPED : QC_LIMITER_OK);
    }
    return NULL;
}

static void run_threads(shared *s)
{
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, hammer, s), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
}

static void check_balance(shared *s)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(s->l, &st);
    assert_int_equal(st.inflight, 0);
    assert_int_equal(st.admitted + st.refused, (uint64_t)THREADS * ROUNDS);
    assert_int_equal(st.admitted, atomic_load(&s->admitted));
    assert_int_equal(st.completed, st.admitted);
    assert_true(st.admitted > 0);
    assert_int_equal(st.class_admitted[0] + st.class_admitted[1] + st.class_admitted[2],
                     st.admitted);
}

/* A fixed limit of 3 against 6 threads: the gate must hold exactly. */
static void test_threads_fixed(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_FIXED);
    cfg.initial_limit = 3;
    cfg.classes = 3;
    shared s = {0};
    assert_non_null(s.l = qc_limiter_alloc(&cfg, 0, NULL));
    run_threads(&s);
    assert_true(atomic_load(&s.max_occupancy) <= 3);
    assert_true(atomic_load(&s.max_occupancy) >= 1);
    check_balance(&s);
    qc_limiter_free(s.l);
}

static void *ticker(void *arg)
{
    shared *s = arg;
    double t = 0;
    while (!atomic_load(&s->stop_ticking)) {
        t += 0.01;
        qc_limiter_tick(s->l, t);
    }
    return NULL;
}

/* AIMD moving its limit while the threads run, never above max_limit;
 * the counts still balance. */
static void test_threads_ticking(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_AIMD);
    cfg.initial_limit = 2;
    cfg.max_limit = 4;
    cfg.classes = 3;
    shared s = {0};
    assert_non_null(s.l = qc_limiter_alloc(&cfg, 0, NULL));
    pthread_t tk;
    assert_int_equal(pthread_create(&tk, NULL, ticker, &s), 0);
    run_threads(&s);
    atomic_store(&s.stop_ticking, 1);
    pthread_join(tk, NULL);
    assert_true(atomic_load(&s.max_occupancy) <= 4);
    check_balance(&s);
    qc_limiter_free(s.l);
}

static void complete(qc_limiter *l, int n, double latency, int outcome)
{
    qc_limiter_token tok[64];
    for (int i = 0; i < n; i++)
        assert_int_equal(qc_limiter_acquire(l, 0, &tok[i]), QC_LIMITER_ADMIT);
    for (int i = 0; i < n; i++)
        qc_limiter_release(l, &tok[i], latency, outcome);
}

static double limit_of(qc_limiter *l)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    return st.limit;
}

/* MaxUsers: y = sum of latencies / interval, limit += K_I (r - y). */
static void test_tick_maxusers(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_MAXUSERS);
    cfg.initial_limit = 20;
    cfg.reference = 10;
    cfg.ki = 0.5;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
    complete(l, 5, 0.2, QC_LIMITER_OK); /* y = 1.0 / 0.1 = 10: e = 0 */
    assert_int_equal(qc_limiter_tick(l, 0.1), 0);
    assert_float_equal(limit_of(l), 20, 1e-9);
    complete(l, 10, 0.3, QC_LIMITER_OK); /* y = 30: e = -20 */
    assert_int_equal(qc_limiter_tick(l, 0.2), 0);
    assert_float_equal(limit_of(l), 10, 1e-6);
    assert_int_equal(qc_limiter_limit(l), 10);
    /* idle (y = 0, e = 10) but nobody reached the limit: held */
    assert_int_equal(qc_limiter_tick(l, 0.3), 0);
    assert_float_equal(limit_of(l), 10, 1e-6);
    /* the limit was reached (10 in flight) and y = 0.5: e = 9.5 */
    complete(l, 10, 0.005, QC_LIMITER_OK);
    assert_int_equal(qc_limiter_tick(l, 0.4), 0);
    assert_float_equal(limit_of(l), 14.75, 1e-6);
    qc_limiter_token hold[15];
    for (int i = 0; i < 14; i++)
        assert_int_equal(qc_limiter_acquire(l, 0, &hold[i]), QC_LIMITER_ADMIT);
    assert_int_equal(qc_limiter_acquire(l, 0, &hold[14]), QC_LIMITER_REFUSE);
    /* 0 admits, every refusal is negative: `if (acquire(...))` refuses */
    assert_int_equal(QC_LIMITER_ADMIT, 0);
    assert_true(QC_LIMITER_REFUSE < 0 && QC_LIMITER_REJECTED < 0);
    assert_int_not_equal(QC_LIMITER_REFUSE, QC_LIMITER_REJECTED);
    assert_string_equal(qc_strerror(QC_LIMITER_REFUSE), "refused: no free slot");
    qc_limiter_observe(l, 5); /* the server's own queue, limit binding: e = 5 */
    assert_int_equal(qc_limiter_tick(l, 0.5), 0);
    assert_float_equal(limit_of(l), 17.25, 1e-6);
    assert_int_equal(qc_limiter_limit(l), 17);
    for (int i = 0; i < 14; i++)
        qc_limiter_release(l, &hold[i], 0, QC_LIMITER_IGNORE);
    qc_limiter_set_reference(l, 1);
    for (int k = 0; k < 20; k++) { /* anti-windup: held at min_limit */
        qc_limiter_observe(l, 100);
        qc_limiter_tick(l, 0.6 + k);
    }
    assert_float_equal(limit_of(l), 1, 1e-9);
    assert_int_equal(qc_limiter_tick(l, 0.1), QC_EINVAL); /* clock backwards */
    qc_limiter_free(l);
}

/* One MaxUsers controller: the same hand-written measurements through the
 * sim path (qc_mu_ctl_step, as qc_mu_run calls it with the plant's
 * connected peak) and the live path (the MAXUSERS limiter: the peak is
 * what was in flight at once, y what the server observed) give the same
 * limits, bit for bit, hold included. */
static void test_maxusers_same_controller(void **state)
{
    (void)state;
    static const double y[] = {4, 4, 6, 9, 14, 18, 25, 30, 22, 16, 12, 9, 9, 8, 7, 10, 11, 13,
                               12, 10, 3, 2, 2, 5, 8, 40, 40, 1, 1, 12};
    /* 1: the limit was binding (in flight reached floor(limit)); 0: slack */
    static const int binding[] = {1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1,
                                  0, 1, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1};
    const size_t n = sizeof y / sizeof y[0];
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_MAXUSERS);
    cfg.initial_limit = 12;
    cfg.min_limit = 1;
    cfg.max_limit = 40;
    cfg.reference = 10;
    cfg.ki = 0.7;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
    qc_mu_ctl sim;
    qc_pi_params pp = {cfg.kp, cfg.ki, cfg.min_limit, cfg.max_limit, cfg.initial_limit,
                       QC_AW_CONDITIONAL, 1};
    assert_int_equal(qc_mu_ctl_init(&sim, &pp, NULL), 0);
    int held = 0, moved = 0, at_max = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t gate = qc_limiter_limit(l);
        uint32_t peak = binding[k] ? gate : gate / 2;
        qc_limiter_token tok[64];
        for (uint32_t i = 0; i < peak; i++)
            assert_int_equal(qc_limiter_acquire(l, 0, &tok[i]), QC_LIMITER_ADMIT);
        for (uint32_t i = 0; i < peak; i++) /* completions carry the peak */
            qc_limiter_release(l, &tok[i], 0.001, QC_LIMITER_OK);
        qc_limiter_observe(l, y[k]);
        assert_int_equal(qc_limiter_tick(l, 1.0 + (double)k), 0);
        qc_mu_ctl_sense in = {cfg.reference, y[k], (double)peak};
        qc_mu_ctl_act act;
        double before = sim.u;
        assert_int_equal(qc_mu_ctl_step(&sim, &in, &act), 0);
        assert_true(limit_of(l) == act.u); /* identical, not merely close */
        held += act.held;
        moved += act.u != before;
        at_max += act.saturated != 0;
    }
    /* the sequence exercises the hold, the law and a limit */
    assert_true(held >= 3);
    assert_true(moved >= 10);
    assert_true(at_max >= 1);
    qc_limiter_free(l);
}

/* AIMD: +1 while in flight * 2 >= limit, x0.9 on a drop or a timeout. */
static void test_tick_aimd(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_AIMD);
    cfg.initial_limit = 10;
    cfg.aimd_timeout = 1;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
    complete(l, 5, 0.01, QC_LIMITER_OK);
    qc_limiter_tick(l, 1);
    assert_float_equal(limit_of(l), 11, 1e-9);
    complete(l, 2, 0.01, QC_LIMITER_OK); /* 2 * 2 < 11: application-limited */
    qc_limiter_tick(l, 2);
    assert_float_equal(limit_of(l), 11, 1e-9);
    complete(l, 1, 0.01, QC_LIMITER_DROPPED);
    qc_limiter_tick(l, 3);
    assert_float_equal(limit_of(l), 9.9, 1e-9);
    assert_int_equal(qc_limiter_limit(l), 9);
    complete(l, 6, 2.0, QC_LIMITER_OK); /* mean latency above the timeout */
    qc_limiter_tick(l, 4);
    assert_float_equal(limit_of(l), 8.91, 1e-9);
    qc_limiter_tick(l, 5); /* no sample: no change */
    assert_float_equal(limit_of(l), 8.91, 1e-9);
    qc_limiter_free(l);
}

/* Gradient2 (defaults: smoothing 0.2, queue 4, tolerance 1.5). */
static void test_tick_gradient2(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_GRADIENT2);
    cfg.initial_limit = 20;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
    /* first sample: long = rtt, gradient 1, new = 24, 0.8*20 + 0.2*24 */
    complete(l, 10, 0.1, QC_LIMITER_OK);
    qc_limiter_tick(l, 1);
    assert_float_equal(limit_of(l), 20.8, 1e-9);
    /* latency x100: gradient 1.5 * 5.05 / 10 = 0.7575, new = 19.756 */
    complete(l, 12, 10.0, QC_LIMITER_OK);
    qc_limiter_tick(l, 2);
    assert_float_equal(limit_of(l), 0.8 * 20.8 + 0.2 * (20.8 * 0.7575 + 4), 1e-9);
    qc_limiter_free(l);
}

/* Vegas and Envoy run and stay within [1, max]. */
static void test_tick_vegas_envoy(void **state)
{
    (void)state;
    for (int a = QC_LIMITER_VEGAS; a <= QC_LIMITER_ENVOY; a += 2) {
        qc_limiter_params cfg;
        qc_limiter_params_init(&cfg, (qc_limiter_algo)a);
        cfg.max_limit = 50;
        qc_limiter *l;
        assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
        for (int k = 1; k <= 200; k++) {
            int n = (int)qc_limiter_limit(l) < 8 ? (int)qc_limiter_limit(l) : 8;
            complete(l, n, k < 100 ? 0.01 : 0.05, QC_LIMITER_OK);
            assert_int_equal(qc_limiter_tick(l, 0.1 * k), 0);
            double lim = limit_of(l);
            assert_true(lim >= 1 && lim <= 50);
        }
        qc_limiter_free(l);
    }
}

/* The gate refuses at the limit, classes count apart, release is once. */
static void test_gate(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter_params_init(&cfg, QC_LIMITER_FIXED);
    cfg.initial_limit = 2;
    cfg.classes = 2;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&cfg, 0, NULL));
    qc_limiter_token a, b, c;
    assert_int_equal(qc_limiter_acquire(l, 0, &a), QC_LIMITER_ADMIT);
    assert_int_equal(qc_limiter_acquire(l, 7, &b), QC_LIMITER_ADMIT); /* -> class 1 */
    assert_int_equal(b.cls, 1);
    assert_int_equal(b.inflight, 2);
    assert_int_equal(qc_limiter_acquire(l, 0, &c), QC_LIMITER_REFUSE);
    qc_limiter_release(l, &a, 0.1, QC_LIMITER_OK);
    qc_limiter_release(l, &a, 0.1, QC_LIMITER_OK); /* twice: no-op */
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.inflight, 1);
    assert_int_equal(st.class_admitted[0], 1);
    assert_int_equal(st.class_admitted[1], 1);
    assert_int_equal(st.class_refused[0], 1);
    assert_int_equal(st.completed, 1);
    qc_limiter_release(l, &b, 0.1, QC_LIMITER_IGNORE);
    qc_limiter_free(l);
}

static void test_config_errors(void **state)
{
    (void)state;
    qc_limiter_params cfg;
    qc_limiter *l = (qc_limiter *)&cfg;
    qc_err err = {0};
    qc_limiter_params_init(&cfg, QC_LIMITER_FIXED);
    cfg.max_limit = 0.5;
    assert_null(l = qc_limiter_alloc(&cfg, 0, &err));
    assert_int_equal(err.code, QC_ERANGE);
    assert_null(l);
    assert_non_null(strstr(err.msg, "max_limit"));
    qc_limiter_params_init(&cfg, QC_LIMITER_MAXUSERS);
    cfg.reference = -1;
    assert_null(l = qc_limiter_alloc(&cfg, 0, &err));
    assert_int_equal(err.code, QC_ERANGE);
    assert_non_null(strstr(err.msg, "reference"));
    qc_limiter_algo a;
    assert_int_equal(qc_limiter_algo_parse("gradient2", &a, NULL), 0);
    assert_int_equal(a, QC_LIMITER_GRADIENT2);
    assert_int_equal(qc_limiter_algo_parse("maxusers", &a, NULL), 0);
    assert_int_equal(a, QC_LIMITER_MAXUSERS);
    assert_int_equal(qc_limiter_algo_parse("tcp", &a, &err), QC_EINVAL);
    qc_limiter_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_fixed),  cmocka_unit_test(test_threads_ticking),
        cmocka_unit_test(test_tick_maxusers),  cmocka_unit_test(test_maxusers_same_controller),  cmocka_unit_test(test_tick_aimd),
        cmocka_unit_test(test_tick_gradient2), cmocka_unit_test(test_tick_vegas_envoy),
        cmocka_unit_test(test_gate),           cmocka_unit_test(test_config_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
