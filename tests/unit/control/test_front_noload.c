/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_front_noload.c: the no-load latency L0 of the admission front's
 * work-conserving verdict (qctl/front.h), on a fake clock:
 *   - the estimate: 4 workers of det:0.01 (400/s), Poisson arrivals at 3x
 *     from the start (so the limit binds and no request goes in at half
 *     the knee by itself: the probes measure it): after 5 s, L0 is the
 *     mean of 32 requests or more and within 12% of the service time
 *     (the least is exact there too, so it is the mean's bias that is
 *     bounded: requests that waited inside the backends raise it);
 *   - the verdict on the mean: an AIMD limit of 2 with 6 requests
 *     waiting; four requests alone took 0.2, 1.8, 0.6 and 1.4 s (L0 =
 *     their mean, 1 s); the request let in at the gate takes 1.15 s: the
 *     window is underloaded (within L0 (1 + 0.2)), judged fast, and the
 *     rule doubles the gate (2 -> 4) after AIMD's step; at 1.5 s it is
 *     slow and AIMD's own step (3) stands. With L0 the least ever seen
 *     (0.2 s) the 1.15 s window read slow: the limit stayed at 3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/front.h"

#define CAP 2048
#define OUT 256

typedef struct req {
    double done, sent;
    qc_front_token tok;
} req;

typedef struct plant {
    qc_front *f;
    qc_front_decision dec[CAP];
    unsigned c;           /* workers, FCFS */
    double S;             /* service time */
    double free_at[8];    /* when each worker is next free */
    req out[OUT];         /* in flight at the backend */
    unsigned n;
    uint64_t rng, next_id, admitted;
} plant;

static double expo(plant *P, double rate)
{
    P->rng ^= P->rng << 13;
    P->rng ^= P->rng >> 7;
    P->rng ^= P->rng << 17;
    double u = ((double)(P->rng >> 11) + 0.5) / 9007199254740992.0;
    return -log(u) / rate;
}

/* FCFS in send order: the request starts on the worker free first. */
static void send_req(plant *P, double now, const qc_front_token *tok)
{
    unsigned w = 0;
    for (unsigned i = 1; i < P->c; i++)
        if (P->free_at[i] < P->free_at[w])
            w = i;
    double st = P->free_at[w] > now ? P->free_at[w] : now;
    P->free_at[w] = st + P->S;
    assert_true(P->n < OUT);
    P->out[P->n++] = (req){.done = st + P->S, .sent = now, .tok = *tok};
    P->admitted++;
}

static void apply(plant *P, double now, int n)
{
    assert_true(n >= 0);
    for (int i = 0; i < n; i++)
        if (P->dec[i].act == QC_FRONT_ADMIT)
            send_req(P, now, &P->dec[i].tok);
}

static void run(plant *P, double rate, double t_end)
{
    double t_arr = expo(P, rate), t_tick = 0.1;
    for (;;) {
        unsigned k = 0;
        for (unsigned i = 1; i < P->n; i++)
            if (P->out[i].done < P->out[k].done)
                k = i;
        double t_done = P->n ? P->out[k].done : INFINITY;
        double t_dl = qc_front_next_deadline(P->f);
        double t = fmin(fmin(t_done, t_dl), fmin(t_arr, t_tick));
        if (t > t_end)
            return;
        if (t == t_done) {
            req r = P->out[k];
            P->out[k] = P->out[--P->n];
            apply(P, t, qc_front_done(P->f, t, &r.tok, t - r.sent, QC_FRONT_OK, P->dec, CAP));
        } else if (t == t_dl) {
            apply(P, t, qc_front_expire(P->f, t, P->dec, CAP));
        } else if (t == t_arr) {
            qc_front_decision d;
            qc_front_arrive(P->f, t, 0, P->next_id++, &d);
            P->dec[0] = d;
            apply(P, t, 1);
            t_arr = t + expo(P, rate);
        } else {
            apply(P, t, qc_front_tick(P->f, t, P->dec, CAP));
            t_tick = t + 0.1;
        }
    }
}

static void test_estimate(void **state)
{
    (void)state;
    plant *P = calloc(1, sizeof *P);
    assert_non_null(P);
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_MAXUSERS);
    P->f = qc_front_alloc(&p, 0, NULL);
    assert_non_null(P->f);
    assert_true(qc_front_max_decisions(P->f) <= CAP);
    assert_true(isnan(qc_front_noload(P->f))); /* nothing measured yet */
    P->c = 4;
    P->S = 0.01;
    P->rng = 0x9e3779b97f4a7c15ull;
    run(P, 3 * P->c / P->S, 5);
    qc_front_stats st;
    qc_front_get_stats(P->f, &st);
    double l0 = qc_front_noload(P->f);
    print_message("L0 %.6f s from %llu samples (mean0 %.6f), %llu admitted\n", l0,
                  (unsigned long long)st.n0, st.mean0, (unsigned long long)P->admitted);
    assert_true(st.n0 >= 32);
    assert_true(l0 == st.mean0);
    assert_true(l0 >= P->S - 1e-12);
    assert_true(l0 <= 1.12 * P->S);
    /* the backends kept busy: 90% of their 400/s over the 5 s at least */
    assert_true((double)P->admitted >= 0.9 * 5 * P->c / P->S);
    qc_front_free(P->f);
    free(P);
}

static void test_verdict_mean(void **state)
{
    (void)state;
    const double noload[4] = {0.2, 1.8, 0.6, 1.4};
    for (int slow = 0; slow <= 1; slow++) {
        qc_front_params p;
        qc_front_params_init(&p, QC_LIMITER_AIMD);
        p.limiter.initial_limit = 2;
        p.discipline = QC_FRONT_FIFO;
        p.sample_least = 0; /* the rule on one window: one per interval */
        qc_front *f = qc_front_alloc(&p, 0, NULL);
        assert_non_null(f);
        qc_front_decision d, out[CAP];
        assert_true(qc_front_max_decisions(f) <= CAP);
        /* four alone (1 in flight: half the gate of 2) */
        for (int i = 0; i < 4; i++) {
            assert_int_equal(qc_front_arrive(f, 0, 0, (uint64_t)(100 + i), &d), QC_FRONT_ADMIT);
            assert_int_equal(qc_front_done(f, 0, &d.tok, noload[i], QC_FRONT_OK, out, CAP), 0);
        }
        assert_true(fabs(qc_front_noload(f) - 1.0) < 1e-9);
        qc_front_token t[2];
        for (int i = 0; i < 2; i++) {
            assert_int_equal(qc_front_arrive(f, 0, 0, (uint64_t)i, &d), QC_FRONT_ADMIT);
            t[i] = d.tok;
        }
        for (int i = 3; i < 9; i++)
            assert_int_equal(qc_front_arrive(f, 0.002, 0, (uint64_t)i, &d), QC_FRONT_WAIT);
        /* the first (1 in flight) is no sample of the gate; the second is */
        assert_int_equal(qc_front_done(f, 0.01, &t[0], 1.0, QC_FRONT_OK, out, CAP), 1);
        assert_int_equal(qc_front_done(f, 0.05, &t[1], slow ? 1.5 : 1.15, QC_FRONT_OK, out, CAP),
                         1);
        qc_front_tick(f, 0.1, out, CAP);
        qc_front_stats st;
        qc_front_get_stats(f, &st);
        assert_int_equal(st.limit, slow ? 3 : 4);
        qc_front_free(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_estimate),
        cmocka_unit_test(test_verdict_mean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
