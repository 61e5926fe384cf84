/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_limiter_admission.c: the ADMISSION limiter on a synthetic plant fed
 * only through acquire, release and tick, as the proxy feeds it.
 *
 * The plant is the proxy's situation in miniature: one server (the gate
 * is 1, so the queue forms in front of it), a FIFO per class, dequeued by
 * start-time fair queueing on the weights the limiter publishes (the
 * class with the least pass starts next and is charged its mean service
 * time over its weight, as the proxy does), Poisson arrivals and
 * exponential service of mean 1 s, a tick every 10 s (ten service times,
 * the proxy's 0.1 s interval over a 10 ms backend). The delay given to
 * release is queue + service, from the plant's clock. Three classes:
 * gold (admitted, D = 3), a candidate silver arriving at t = 20000, and
 * best effort; load 0.7 or 0.8.
 *
 * Admissible case (gold D 3, silver rate 0.2 D 4): the achievable-region
 * conditions of docs/admission.md hold (qctl sim admission --discipline
 * weighted says so); silver must be admitted, and gold's mean delay per
 * job afterwards must be near its target T = (1 - eps) D = 2.7 s: within
 * 3 standard errors (batch means over 20 batches of the 80000 s window)
 * plus 5% of T, the bias the finite tracking gain and the interval-cut
 * samples leave (the model's own runs, qctl sim admission, end 2 to 5%
 * above T; this plant ends 1 to 3% above over seeds 1 to 12).
 *
 * Inadmissible case (silver rate 0.3, D 2.0): even with absolute priority
 * silver's mean delay is 1 + W0/(1 - 0.3) = 2.14 s > D (W0 = sum of
 * lambda E[S^2]/2 = 0.8), so no priority meets its bound; it must be
 * rejected (12 seeds of 12 are), and from then on its requests are
 * refused. Gold, left with best effort (load 0.5), is then faster than its
 * target even at the lowest priority: its delay there is the
 * non-preemptive priority queue's 1 + W0'/((1 - 0.3)(1 - 0.5)) = 2.4286 s
 * (W0' = 0.5), so it must sink to p_min and see that delay, within 3
 * standard errors plus 5%. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/limiter.h"
#include "qctl/rng.h"

#define NCLS 3
#define QCAP 65536
#define BATCHES 20

typedef struct plant {
    qc_limiter *l;
    qc_rng rng[NCLS], svc;
    double rate[NCLS], start[NCLS];
    double q[NCLS][QCAP]; /* arrival times */
    unsigned qh[NCLS], qn[NCLS];
    double pass[NCLS], vt, est[NCLS];
    int busy, busy_cls;
    double busy_arrival, busy_start, t_dep;
    qc_limiter_token tok;
    uint64_t refused[NCLS], rejected[NCLS], served[NCLS];
    /* gold's delays in [m0, m1), in batches */
    double m0, m1, bsum[BATCHES], bn[BATCHES];
} plant;

/* Starts the head request of class k (its slot already acquired). */
static void dispatch(plant *p, int k, double now)
{
    double arr = p->q[k][p->qh[k]];
    p->qh[k] = (p->qh[k] + 1) % QCAP;
    p->qn[k]--;
    p->vt = p->pass[k];
    p->pass[k] += p->est[k] / qc_limiter_weight(p->l, (unsigned)k);
    p->busy = 1;
    p->busy_cls = k;
    p->busy_arrival = arr;
    p->busy_start = now;
    p->t_dep = now + qc_rng_exp(&p->svc, 1.0);
}

static void start_next(plant *p, double now)
{
    int best = -1;
    for (int k = 0; k < NCLS; k++)
        if (p->qn[k] && qc_limiter_weight(p->l, (unsigned)k) > 0 &&
            (best < 0 || p->pass[k] < p->pass[best]))
            best = k;
    if (best >= 0 && qc_limiter_acquire(p->l, (unsigned)best, &p->tok) == QC_LIMITER_ADMIT)
        dispatch(p, best, now);
}

/* As the proxy: ask at arrival; rejected is refused at once, refused
 * (no slot) waits, admitted starts now (nothing can be waiting then). */
static void arrive(plant *p, int k, double now)
{
    qc_limiter_token t;
    int rc = qc_limiter_acquire(p->l, (unsigned)k, &t);
    if (rc == QC_LIMITER_REJECTED) {
        p->rejected[k]++;
        return;
    }
    assert_true(p->qn[k] < QCAP);
    if (p->qn[k] == 0 && p->pass[k] < p->vt)
        p->pass[k] = p->vt; /* newly backlogged: no credit for the idle time */
    p->q[k][(p->qh[k] + p->qn[k]) % QCAP] = now;
    p->qn[k]++;
    if (rc == QC_LIMITER_ADMIT) {
        assert_false(p->busy);
        assert_int_equal(p->qn[k], 1);
        p->tok = t;
        dispatch(p, k, now);
    }
}

static void depart(plant *p, double now)
{
    int k = p->busy_cls;
    double delay = now - p->busy_arrival;
    p->est[k] += 0.1 * ((now - p->busy_start) - p->est[k]);
    p->busy = 0;
    p->served[k]++;
    if (k == 0 && now >= p->m0 && now < p->m1) {
        int b = (int)((now - p->m0) / (p->m1 - p->m0) * BATCHES);
        p->bsum[b] += delay;
        p->bn[b]++;
    }
    qc_limiter_release(p->l, &p->tok, delay, QC_LIMITER_OK);
    start_next(p, now);
}

/* Drops the queued requests of a class that was just rejected (the proxy
 * answers them 503). */
static void shed_rejected(plant *p)
{
    for (int k = 0; k < NCLS; k++)
        if (p->qn[k] && qc_limiter_weight(p->l, (unsigned)k) == 0) {
            p->rejected[k] += p->qn[k];
            p->qn[k] = 0;
        }
}

typedef struct outcome {
    int state;       /* silver's final state */
    double decided;  /* when it left candidacy (NAN: never) */
    double mean, se; /* gold's mean delay per job after it, and its SE */
    uint64_t silver_rejected;
    double gold_weight; /* at the end */
} outcome;

static void run(double silver_rate, double silver_bound, uint64_t seed, outcome *out)
{
    plant *p = calloc(1, sizeof *p);
    assert_non_null(p);
    qc_limiter_params c;
    qc_limiter_params_init(&c, QC_LIMITER_ADMISSION);
    c.initial_limit = 1;
    c.classes = NCLS;
    c.bound[0] = 3.0;
    c.bound[1] = silver_bound;
    c.bound[2] = 0; /* best effort */
    c.adm_candidates = 1u << 1;
    assert_non_null(p->l = qc_limiter_alloc(&c, 0, NULL));
    const double rate[NCLS] = {0.2, silver_rate, 0.3}, start[NCLS] = {0, 20000, 0};
    for (int k = 0; k < NCLS; k++) {
        qc_rng_init(&p->rng[k], seed, (uint64_t)k + 1);
        p->est[k] = 1;
    }
    qc_rng_init(&p->svc, seed, 99);
    double next[NCLS];
    for (int k = 0; k < NCLS; k++)
        next[k] = start[k] + qc_rng_exp(&p->rng[k], rate[k]);
    double t_tick = 10, now = 0, horizon = 300000, decided = NAN;
    p->m0 = p->m1 = INFINITY;
    while (now < horizon) {
        int ev = -1; /* 0..2 arrival, 3 departure, 4 tick */
        double t = t_tick;
        ev = 4;
        for (int k = 0; k < NCLS; k++)
            if (next[k] < t) {
                t = next[k];
                ev = k;
            }
        if (p->busy && p->t_dep < t) {
            t = p->t_dep;
            ev = 3;
        }
        now = t;
        if (ev < NCLS) {
            arrive(p, ev, now);
            next[ev] = now + qc_rng_exp(&p->rng[ev], rate[ev]);
        } else if (ev == 3) {
            depart(p, now);
        } else {
            assert_int_equal(qc_limiter_tick(p->l, now), 0);
            shed_rejected(p);
            if (!p->busy)
                start_next(p, now);
            t_tick += 10;
            qc_limiter_stats st;
            qc_limiter_get_stats(p->l, &st);
            if (isnan(decided) && st.class_state[1] != 0) {
                decided = now;
                /* let the admitted settle, then measure for 80000 s */
                p->m0 = now + 20000;
                p->m1 = p->m0 + 80000;
                horizon = p->m1;
            }
        }
    }
    qc_limiter_stats st;
    qc_limiter_get_stats(p->l, &st);
    out->state = st.class_state[1];
    out->decided = decided;
    assert_int_equal(st.class_state[0], 1); /* gold stays admitted */
    assert_int_equal(st.class_state[2], -1);
    assert_true(st.busy_cycles > 1000);
    double sum = 0, n = 0, bm[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        assert_true(p->bn[b] > 50);
        bm[b] = p->bsum[b] / p->bn[b];
        sum += p->bsum[b];
        n += p->bn[b];
    }
    out->mean = n > 0 ? sum / n : NAN;
    double v = 0, mb = 0;
    for (int b = 0; b < BATCHES; b++)
        mb += bm[b] / BATCHES;
    for (int b = 0; b < BATCHES; b++)
        v += (bm[b] - mb) * (bm[b] - mb) / (BATCHES - 1);
    out->se = sqrt(v / BATCHES);
    out->silver_rejected = p->rejected[1];
    out->gold_weight = qc_limiter_weight(p->l, 0);
    print_message("silver %s at t %.0f; gold mean delay %.3f +- %.3f (se), target 2.7; served "
                  "%llu/%llu/%llu\n",
                  out->state == 1 ? "admitted" : out->state == 2 ? "rejected" : "undecided",
                  decided, out->mean, out->se, (unsigned long long)p->served[0],
                  (unsigned long long)p->served[1], (unsigned long long)p->served[2]);
    qc_limiter_free(p->l);
    free(p);
}

static void check_gold(const outcome *o, double expect)
{
    assert_true(fabs(o->mean - expect) <= 3 * o->se + 0.05 * expect);
    assert_true(o->mean < 3.0);
}

static void test_admissible_admitted(void **state)
{
    (void)state;
    outcome o;
    run(0.2, 4.0, 7, &o);
    assert_int_equal(o.state, QC_ADM_ADMITTED);
    assert_int_equal(o.silver_rejected, 0);
    check_gold(&o, 0.9 * 3.0);
}

static void test_inadmissible_rejected(void **state)
{
    (void)state;
    outcome o;
    run(0.3, 2.0, 7, &o);
    assert_int_equal(o.state, QC_ADM_REJECTED);
    assert_true(o.silver_rejected > 1000); /* refused from then on */
    assert_true(o.gold_weight < 0.05);
    check_gold(&o, 1 + 0.5 / (0.7 * 0.5));
}

/* Busy cycles: a cycle that ends hands its completions to the next tick;
 * fewer than m are carried over; a bound change applies at the tick. */
static void test_cycles_and_bound(void **state)
{
    (void)state;
    qc_limiter_params c;
    qc_limiter_params_init(&c, QC_LIMITER_ADMISSION);
    c.initial_limit = 4;
    c.classes = 2;
    c.bound[0] = 1.0;
    c.adm_min_completions = 5;
    qc_limiter *l;
    assert_non_null(l = qc_limiter_alloc(&c, 0, NULL));
    assert_true(fabs(qc_limiter_weight(l, 0) - 0.1) < 1e-12); /* admitted p_init */
    assert_true(fabs(qc_limiter_weight(l, 1) - 0.9) < 1e-12); /* best effort: the rest */
    qc_limiter_token t[4];
    for (int i = 0; i < 3; i++)
        assert_int_equal(qc_limiter_acquire(l, 0, &t[i]), QC_LIMITER_ADMIT);
    for (int i = 0; i < 3; i++)
        qc_limiter_release(l, &t[i], 2.0, QC_LIMITER_OK); /* delay 2 > T */
    assert_int_equal(qc_limiter_tick(l, 1), 0);
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.busy_cycles, 1);
    assert_int_equal(st.class_samples[0], 0); /* 3 < m: carried */
    assert_true(fabs(qc_limiter_weight(l, 0) - 0.1) < 1e-12);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(qc_limiter_acquire(l, 0, &t[0]), QC_LIMITER_ADMIT);
        qc_limiter_release(l, &t[0], 2.0, QC_LIMITER_OK);
    }
    assert_int_equal(qc_limiter_tick(l, 2), 0);
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.class_samples[0], 1);
    assert_true(fabs(st.class_delay[0] - 2.0) < 1e-6);
    assert_true(qc_limiter_weight(l, 0) > 0.1); /* too slow: priority up */
    /* sustained load: a cycle busy through a whole interval is cut */
    assert_int_equal(qc_limiter_acquire(l, 0, &t[3]), QC_LIMITER_ADMIT);
    assert_int_equal(qc_limiter_tick(l, 3), 0); /* busy at this tick */
    for (int i = 0; i < 5; i++) {
        assert_int_equal(qc_limiter_acquire(l, 0, &t[0]), QC_LIMITER_ADMIT);
        qc_limiter_release(l, &t[0], 0.5, QC_LIMITER_OK);
    }
    assert_int_equal(qc_limiter_tick(l, 4), 0); /* still busy, no cycle ended */
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.class_samples[0], 2);
    assert_true(fabs(st.class_delay[0] - 0.5) < 1e-6);
    qc_limiter_release(l, &t[3], 0.5, QC_LIMITER_IGNORE);
    /* run-time bound: refused for best effort and bad values, applied at
     * the next tick */
    qc_err err = {0};
    assert_int_equal(qc_limiter_set_bound(l, 1, 2.0, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "best effort"));
    assert_int_equal(qc_limiter_set_bound(l, 0, -1, &err), QC_EINVAL);
    assert_int_equal(qc_limiter_set_bound(l, 5, 1, &err), QC_ERANGE);
    assert_int_equal(qc_limiter_set_bound(l, 0, 2.5, &err), 0);
    qc_limiter_get_stats(l, &st);
    assert_true(fabs(st.class_bound[0] - 1.0) < 1e-12);
    assert_int_equal(qc_limiter_tick(l, 5), 0);
    qc_limiter_get_stats(l, &st);
    assert_true(fabs(st.class_bound[0] - 2.5) < 1e-12);
    qc_limiter_free(l);
    /* another algorithm has no bounds */
    qc_limiter_params_init(&c, QC_LIMITER_FIXED);
    assert_non_null(l = qc_limiter_alloc(&c, 0, NULL));
    assert_int_equal(qc_limiter_set_bound(l, 0, 1, &err), QC_EINVAL);
    assert_true(qc_limiter_weight(l, 0) == 1);
    qc_limiter_free(l);
    /* configuration errors name the field */
    qc_limiter_params_init(&c, QC_LIMITER_ADMISSION);
    c.classes = 2;
    c.bound[0] = 1;
    c.adm_epsilon = 1.5;
    assert_null(l = qc_limiter_alloc(&c, 0, &err));
    assert_int_equal(err.code, QC_EINVAL);
    assert_non_null(strstr(err.msg, "epsilon"));
    c.adm_epsilon = 0.1;
    c.bound[1] = -2;
    assert_null(l = qc_limiter_alloc(&c, 0, &err));
    assert_int_equal(err.code, QC_ERANGE);
    assert_non_null(strstr(err.msg, "bound[1]"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cycles_and_bound),
        cmocka_unit_test(test_admissible_admitted),
        cmocka_unit_test(test_inadmissible_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
