/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_front.c: the admission front (qctl/front.h) event by event: each
 * rule (the gate of the limit, no overtaking, the waiting room's places,
 * deadlines, CoDel's standing test and LIFO, SFQ between the classes, the
 * sampler's cadence, cancel, drain) on small hand-made cases whose right
 * decisions are worked out in the comments, and several threads sharing
 * one front (the limit never exceeded, every request decided once). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/front.h"

#define CAP 2048 /* >= qc_front_max_decisions of the default room (1024 places) */

static qc_front *make(qc_limiter_algo algo, double limit, unsigned queue,
                      qc_front_discipline disc, unsigned classes)
{
    qc_front_params p;
    qc_front_params_init(&p, algo);
    p.limiter.initial_limit = limit;
    p.limiter.min_limit = 1;
    p.queue = queue;
    p.discipline = disc;
    p.classes = classes;
    p.codel.target = 0.01; /* fixed: 10 ms, interval 100 ms */
    /* CoDel as such: judging whether the room is overloaded is
     * test_work_conserving's and test_fixed_overload's */
    p.work_conserving = 0;
    qc_err err = {0};
    qc_front *f = qc_front_alloc(&p, 0, &err);
    assert_non_null(f);
    return f;
}

/* Limit 2, FIFO, 2 places: 1 and 2 in, 3 and 4 wait, 5 refused (full);
 * 1 done at 0.5: 3 in (waited 0.3); 4's deadline (1 s after 0.3) refuses
 * it at 1.3, not at 1.29. */
static void test_fifo_limit_room(void **state)
{
    (void)state;
    qc_front *f = make(QC_LIMITER_FIXED, 2, 2, QC_FRONT_FIFO, 1);
    qc_front_decision d, out[CAP];
    qc_front_token tok[6];
    assert_int_equal(qc_front_arrive(f, 0.1, 0, 1, &d), QC_FRONT_ADMIT);
    tok[1] = d.tok;
    assert_int_equal(qc_front_arrive(f, 0.1, 0, 2, &d), QC_FRONT_ADMIT);
    tok[2] = d.tok;
    assert_int_equal(qc_front_arrive(f, 0.2, 0, 3, &d), QC_FRONT_WAIT);
    assert_true(fabs(d.deadline - 1.2) < 1e-12);
    assert_int_equal(qc_front_arrive(f, 0.3, 0, 4, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_arrive(f, 0.4, 0, 5, &d), QC_FRONT_REFUSE);
    assert_int_equal(d.reason, QC_FRONT_FULL);
    assert_int_equal(qc_front_done(f, 0.5, &tok[1], NAN, QC_FRONT_OK, out, CAP), 1);
    assert_int_equal(out[0].act, QC_FRONT_ADMIT);
    assert_int_equal(out[0].id, 3);
    assert_true(fabs(out[0].waited - 0.3) < 1e-12);
    tok[3] = out[0].tok;
    /* a token given back twice frees one slot */
    assert_int_equal(qc_front_done(f, 0.6, &tok[1], NAN, QC_FRONT_OK, out, CAP), 0);
    assert_true(fabs(qc_front_next_deadline(f) - 1.3) < 1e-12);
    assert_int_equal(qc_front_expire(f, 1.29, out, CAP), 0);
    assert_int_equal(qc_front_expire(f, 1.3, out, CAP), 1);
    assert_int_equal(out[0].id, 4);
    assert_int_equal(out[0].act, QC_FRONT_REFUSE);
    assert_int_equal(out[0].reason, QC_FRONT_DEADLINE);
    assert_true(isinf(qc_front_next_deadline(f)));
    qc_front_stats st;
    qc_front_get_stats(f, &st);
    assert_int_equal(st.inflight, 2);
    assert_int_equal(st.waiting, 0);
    assert_int_equal(st.class_admitted[0], 3);
    assert_int_equal(st.class_refused[0], 2);
    assert_int_equal(st.refused_by[QC_FRONT_FULL], 1);
    assert_int_equal(st.refused_by[QC_FRONT_DEADLINE], 1);
    /* an array shorter than the most decisions is refused */
    assert_int_equal(qc_front_tick(f, 2, out, 2), QC_EINVAL);
    qc_front_free(f);
}

/* No overtaking: with a request waiting, a newcomer waits even if a slot
 * frees in between (the slot goes to the one waiting, by the pump). */
static void test_no_overtaking_cancel(void **state)
{
    (void)state;
    qc_front *f = make(QC_LIMITER_FIXED, 1, 4, QC_FRONT_FIFO, 1);
    qc_front_decision d, out[CAP];
    assert_int_equal(qc_front_arrive(f, 0, 0, 1, &d), QC_FRONT_ADMIT);
    qc_front_token t1 = d.tok;
    assert_int_equal(qc_front_arrive(f, 0.01, 0, 2, &d), QC_FRONT_WAIT);
    qc_front_handle h2 = d.handle;
    assert_int_equal(qc_front_arrive(f, 0.02, 0, 3, &d), QC_FRONT_WAIT);
    /* 2 leaves: 3 gets the slot when 1 is done */
    assert_int_equal(qc_front_cancel(f, h2), 0);
    assert_int_equal(qc_front_cancel(f, h2), QC_EEMPTY);
    assert_int_equal(qc_front_done(f, 0.05, &t1, 0.05, QC_FRONT_OK, out, CAP), 1);
    assert_int_equal(out[0].id, 3);
    assert_int_equal(out[0].act, QC_FRONT_ADMIT);
    /* a stale handle of a reused place is not the request now there */
    assert_int_equal(qc_front_arrive(f, 0.06, 0, 4, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_cancel(f, h2), QC_EEMPTY);
    assert_int_equal(qc_front_drain(f, 0.07, out, CAP), 1);
    assert_int_equal(out[0].id, 4);
    assert_int_equal(out[0].reason, QC_FRONT_DRAINING);
    assert_int_equal(qc_front_arrive(f, 0.08, 0, 5, &d), QC_FRONT_REFUSE);
    assert_int_equal(d.reason, QC_FRONT_DRAINING);
    qc_front_free(f);
}

/* Without a limiter every request goes in at once. */
static void test_no_control(void **state)
{
    (void)state;
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_FIXED);
    p.control = 0;
    p.limiter.initial_limit = 1;
    qc_front *f = qc_front_alloc(&p, 0, NULL);
    assert_non_null(f);
    qc_front_decision d;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(qc_front_arrive(f, i * 1e-4, 0, (uint64_t)i, &d), QC_FRONT_ADMIT);
    qc_front_stats st;
    qc_front_get_stats(f, &st);
    assert_int_equal(st.inflight, 1000);
    assert_int_equal(st.limit, UINT32_MAX);
    qc_front_free(f);
}

/* The plant's own limit (the TCP gate's): no limiter, a cap of 1, then 0
 * (nobody in, the one in stays), then 3 (the two waiting go in at once,
 * oldest first); the queue bound lowered to 1 refuses the next beyond it,
 * and cannot rise above the places allocated. */
static void test_cap(void **state)
{
    (void)state;
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_FIXED);
    p.control = 0;
    p.queue = 4;
    p.discipline = QC_FRONT_FIFO;
    qc_front *f = qc_front_alloc(&p, 0, NULL);
    assert_non_null(f);
    qc_front_decision d, out[CAP];
    assert_int_equal(qc_front_set_cap(f, 0, 1, out, CAP), 0);
    assert_int_equal(qc_front_arrive(f, 0.1, 0, 1, &d), QC_FRONT_ADMIT);
    qc_front_token t1 = d.tok;
    assert_int_equal(qc_front_arrive(f, 0.2, 0, 2, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_set_cap(f, 0.3, 0, out, CAP), 0);
    assert_int_equal(qc_front_done(f, 0.4, &t1, NAN, QC_FRONT_OK, out, CAP), 0);
    assert_int_equal(qc_front_arrive(f, 0.5, 0, 3, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_set_cap(f, 0.6, 3, out, CAP), 2);
    assert_int_equal(out[0].id, 2);
    assert_int_equal(out[1].id, 3);
    assert_int_equal(out[0].act, QC_FRONT_ADMIT);
    assert_true(fabs(out[0].waited - 0.4) < 1e-12);
    assert_int_equal(qc_front_arrive(f, 0.7, 0, 4, &d), QC_FRONT_ADMIT);
    assert_int_equal(qc_front_arrive(f, 0.8, 0, 5, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_set_queue(f, 1, NULL), 0);
    assert_int_equal(qc_front_arrive(f, 0.9, 0, 6, &d), QC_FRONT_REFUSE);
    assert_int_equal(d.reason, QC_FRONT_FULL);
    qc_err err = {0};
    assert_int_equal(qc_front_set_queue(f, 5, &err), QC_ERANGE);
    assert_int_equal(qc_front_set_cap(f, 1, 3, out, 2), QC_EINVAL);
    qc_front_free(f);
}

/* CoDel, target 10 ms, interval 100 ms, limit 1: requests wait behind a
 * long request. At 0.05 the oldest waited 50 ms > target: LIFO (the
 * newest goes first, yet nothing is refused). At 0.2 the head has waited
 * 200 ms > 110 ms: the queue stands, those past the target are refused
 * (STANDING), and a newcomer's deadline is the target. */
static void test_codel(void **state)
{
    (void)state;
    qc_front *f = make(QC_LIMITER_FIXED, 1, 16, QC_FRONT_CODEL, 1);
    qc_front_decision d, out[CAP];
    assert_int_equal(qc_front_arrive(f, 0, 0, 0, &d), QC_FRONT_ADMIT);
    qc_front_token t = d.tok;
    for (int i = 1; i <= 3; i++)
        assert_int_equal(qc_front_arrive(f, 0.001 * i, 0, (uint64_t)i, &d), QC_FRONT_WAIT);
    assert_int_equal(qc_front_done(f, 0.05, &t, 0.05, QC_FRONT_OK, out, CAP), 1);
    assert_int_equal(out[0].id, 3); /* LIFO */
    t = out[0].tok;
    assert_int_equal(qc_front_done(f, 0.2, &t, 0.15, QC_FRONT_OK, out, CAP), 2);
    /* 1 and 2 refused by the standing queue; nothing waits then */
    assert_int_equal(out[0].reason, QC_FRONT_STANDING);
    assert_int_equal(out[1].reason, QC_FRONT_STANDING);
    assert_int_equal(out[0].id + out[1].id, 3);
    qc_front_stats st;
    qc_front_get_stats(f, &st);
    assert_int_equal(st.standing, 1);
    qc_front_free(f);
}

/* SFQ between two classes of equal weight: the slot alternates. */
static void test_sfq(void **state)
{
    (void)state;
    qc_front *f = make(QC_LIMITER_FIXED, 1, 16, QC_FRONT_FIFO, 2);
    qc_front_decision d, out[CAP];
    assert_int_equal(qc_front_arrive(f, 0, 0, 100, &d), QC_FRONT_ADMIT);
    qc_front_token t = d.tok;
    for (int i = 0; i < 4; i++)
        assert_int_equal(qc_front_arrive(f, 0.001 * (i + 1), 0, (uint64_t)i, &d), QC_FRONT_WAIT);
    for (int i = 0; i < 4; i++)
        assert_int_equal(qc_front_arrive(f, 0.01 + 0.001 * i, 1, (uint64_t)(10 + i), &d),
                         QC_FRONT_WAIT);
    unsigned seq[8];
    for (int j = 0; j < 8; j++) {
        int n = qc_front_done(f, 0.1 + j * 0.01, &t, 0.01, QC_FRONT_OK, out, CAP);
        assert_int_equal(n, 1);
        seq[j] = out[0].cls;
        t = out[0].tok;
    }
    unsigned ones = 0;
    for (int j = 0; j < 8; j++) {
        ones += seq[j];
        if (j > 0)
            assert_int_not_equal(seq[j], seq[j - 1]);
    }
    assert_int_equal(ones, 4);
    qc_front_free(f);
}

/* The sampler's cadence: AIMD steps per completion with sample_every = 1
 * (the limit rises by one per completion that found half the limit in
 * flight), and only at ticks with 0. */
static void test_sampler(void **state)
{
    (void)state;
    qc_lim_sampler s;
    qc_lim_sampler_init(&s, 3, 32);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_completion(&s), 1);
    assert_int_equal(qc_lim_sampler_tick(&s, 1), 0);
    qc_lim_sampler_init(&s, 0, 0);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 1);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 1); /* none: every interval still */
    /* at least 3 completions: the window spans intervals until then, or
     * until a failure, or QC_LIM_SAMPLER_TICKS intervals */
    qc_lim_sampler_init(&s, 0, 3);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 0);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 0);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 1);
    assert_int_equal(qc_lim_sampler_completion(&s), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 1), 1); /* a failure closes it */
    for (int i = 1; i < QC_LIM_SAMPLER_TICKS; i++)
        assert_int_equal(qc_lim_sampler_tick(&s, 0), 0);
    assert_int_equal(qc_lim_sampler_tick(&s, 0), 1); /* none came: the longest window */

    for (unsigned every = 0; every <= 1; every++) {
        qc_front_params p;
        qc_front_params_init(&p, QC_LIMITER_AIMD);
        p.limiter.initial_limit = 4;
        p.sample_every = every;
        p.sample_least = 0; /* every interval */
        qc_front *f = qc_front_alloc(&p, 0, NULL);
        assert_non_null(f);
        qc_front_decision d[4], out[CAP];
        for (int i = 0; i < 4; i++)
            assert_int_equal(qc_front_arrive(f, 0, 0, (uint64_t)i, &d[i]), QC_FRONT_ADMIT);
        for (int i = 0; i < 4; i++)
            qc_front_done(f, 0.01 * (i + 1), &d[i].tok, 0.01, QC_FRONT_OK, out, CAP);
        qc_front_stats st;
        qc_front_get_stats(f, &st);
        /* per completion: the samples' in-flight at admission are 1, 2, 3
         * and 4, against limits 4, 4, 5, 6: 2 < 4 (stays), 4 >= 4 (5),
         * 6 >= 5 (6), 8 >= 6 (7); per interval nothing before the tick,
         * then one sample of peak 4: 8 >= 4 (5) */
        if (every == 1)
            assert_int_equal(st.limit, 7);
        else
            assert_int_equal(st.limit, 4);
        qc_front_tick(f, 0.1, out, CAP);
        qc_front_get_stats(f, &st);
        assert_int_equal(st.limit, every == 1 ? 7 : 5);
        qc_front_free(f);
    }
}

/* Work-conserving: AIMD at 2 with 6 requests waiting. Four requests
 * alone (1 in flight: half the gate) measure L0 = 1 ms. The request let
 * in at the gate (the second in flight, with the gate at 2) comes back in
 * 1 ms against L0 = 1 ms: the backends are fast, so the tick (AIMD:
 * 2 + 1 = 3) is followed by the rule's doubling of the gate it found (2 x
 * 2 = 4, under the demand of 2 in flight + 5 waiting): 2 more go in. The
 * same with it back in 60 ms (the backend's queue stands) leaves it to
 * AIMD (3, one more in). Only the requests let in at the gate count: the
 * first one (let in with 1 in flight) is fast in both cases. */
static void test_work_conserving(void **state)
{
    (void)state;
    for (int slow = 0; slow <= 1; slow++) {
        qc_front_params p;
        qc_front_params_init(&p, QC_LIMITER_AIMD);
        p.limiter.initial_limit = 2;
        p.discipline = QC_FRONT_FIFO;
        p.sample_least = 0; /* the rule on one window: one per interval */
        qc_front *f = qc_front_alloc(&p, 0, NULL);
        assert_non_null(f);
        qc_front_decision d, out[CAP];
        qc_front_token t[2];
        /* L0 first: 4 requests alone, each back at the no-load latency */
        for (int i = 0; i < 4; i++) {
            assert_int_equal(qc_front_arrive(f, 0, 0, (uint64_t)(100 + i), &d), QC_FRONT_ADMIT);
            assert_int_equal(qc_front_done(f, 0, &d.tok, 0.001, QC_FRONT_OK, out, CAP), 0);
        }
        assert_true(fabs(qc_front_noload(f) - 0.001) < 1e-12);
        for (int i = 0; i < 2; i++) {
            assert_int_equal(qc_front_arrive(f, 0, 0, (uint64_t)i, &d), QC_FRONT_ADMIT);
            t[i] = d.tok;
        }
        /* the first (in with 1 in flight) completes at its no-load latency */
        int n = qc_front_done(f, 0.001, &t[0], 0.001, QC_FRONT_OK, out, CAP);
        assert_int_equal(n, 0);
        assert_int_equal(qc_front_arrive(f, 0.001, 0, 2, &d), QC_FRONT_ADMIT);
        t[0] = d.tok;
        for (int i = 3; i < 9; i++)
            assert_int_equal(qc_front_arrive(f, 0.002, 0, (uint64_t)i, &d), QC_FRONT_WAIT);
        n = qc_front_done(f, 0.05, &t[1], slow ? 0.06 : 0.001, QC_FRONT_OK, out, CAP);
        assert_int_equal(n, 1); /* the slot it freed */
        n = qc_front_tick(f, 0.1, out, CAP);
        qc_front_stats st;
        qc_front_get_stats(f, &st);
        if (!slow) {
            assert_int_equal(st.limit, 4);
            assert_int_equal(n, 2);
        } else {
            assert_int_equal(st.limit, 3);
            assert_int_equal(n, 1);
        }
        qc_front_free(f);
    }
}

/* A fixed limit of 2 in front of a backend that answers each request in
 * 20 ms (100/s), a request arriving every 10 ms (a/10 ms of them) for 3 s,
 * ticks every 100 ms, CoDel's target 10 ms. Work-conserving judgement on
 * (the default): with as many arrivals as completions (a closed loop the
 * limit holds, 6 waiting about 60 ms each, past the target) CoDel
 * never judges and nothing is refused; at 2x (twice the completions) the
 * overload is confirmed and the standing queue refuses. */
static int fixed_run(unsigned per_step, uint64_t *standing)
{
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_FIXED);
    p.limiter.initial_limit = 2;
    p.queue = 512;
    p.codel.target = 0.01;
    qc_front *f = qc_front_alloc(&p, 0, NULL);
    assert_non_null(f);
    qc_front_decision d, out[CAP];
    qc_front_token fl[8];
    unsigned nfl = 0;
    uint64_t id = 0, refused = 0;
    *standing = 0;
    /* 8 at start: 2 in, 6 waiting */
    for (; id < 8; id++)
        if (qc_front_arrive(f, 0, 0, id, &d) == QC_FRONT_ADMIT)
            fl[nfl++] = d.tok;
    assert_int_equal(nfl, 2);
    for (int k = 1; k <= 300; k++) {
        double now = 0.01 * k;
        int n = 0;
        if (k % 2 == 0) { /* the older of the two completes every 20 ms */
            qc_front_token t = fl[0];
            fl[0] = fl[1];
            nfl--;
            n = qc_front_done(f, now, &t, 0.02, QC_FRONT_OK, out, CAP);
        }
        for (int i = 0; i < n; i++)
            if (out[i].act == QC_FRONT_ADMIT) {
                assert_true(nfl < 2);
                fl[nfl++] = out[i].tok;
            } else if (out[i].act == QC_FRONT_REFUSE) {
                refused++;
                *standing += out[i].reason == QC_FRONT_STANDING;
            }
        for (unsigned a = 0; a < per_step; a++)
            if (k % 2 == 0 || per_step > 1) {
                int act = qc_front_arrive(f, now, 0, id++, &d);
                if (act == QC_FRONT_ADMIT)
                    fl[nfl++] = d.tok;
                refused += act == QC_FRONT_REFUSE;
            }
        if (k % 10 == 0) {
            n = qc_front_tick(f, now, out, CAP);
            for (int i = 0; i < n; i++)
                if (out[i].act == QC_FRONT_ADMIT)
                    fl[nfl++] = out[i].tok;
                else if (out[i].act == QC_FRONT_REFUSE) {
                    refused++;
                    *standing += out[i].reason == QC_FRONT_STANDING;
                }
        }
        /* keep two in flight when something waits (a refused one freed none) */
        assert_true(nfl <= 2);
    }
    qc_front_free(f);
    return (int)refused;
}

static void test_fixed_overload(void **state)
{
    (void)state;
    uint64_t standing;
    /* one arrival per completion (every 20 ms): as many as answered */
    assert_int_equal(fixed_run(1, &standing), 0);
    assert_int_equal(standing, 0);
    /* two every 10 ms (200/s against 100/s answered): confirmed, shed */
    assert_true(fixed_run(2, &standing) > 0);
    assert_true(standing > 0);
}

/* A request waiting for a backend's setup waits its class's deadline
 * from its arrival (2 s here; best effort 1 s), then none. */
static void test_setup_wait(void **state)
{
    (void)state;
    qc_front *f = make(QC_LIMITER_FIXED, 1, 4, QC_FRONT_FIFO, 2);
    qc_err err = {0};
    assert_int_equal(qc_front_set_deadline(f, 0, 2, &err), 0);
    assert_true(fabs(qc_front_setup_wait(f, 0, 0.2, 0.5) - 1.7) < 1e-12);
    assert_true(fabs(qc_front_setup_wait(f, 1, 0.2, 0.5) - 0.7) < 1e-12);
    assert_true(qc_front_setup_wait(f, 0, 0.2, 2.2) == 0);
    assert_true(qc_front_setup_wait(f, 1, 0.2, 1.3) == 0);
    qc_front_free(f);
}

static void test_bad_params(void **state)
{
    (void)state;
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_MAXUSERS);
    p.classes = 0;
    qc_err err = {0};
    assert_null(qc_front_alloc(&p, 0, &err));
    assert_int_equal(err.code, QC_ERANGE);
    assert_non_null(strstr(err.msg, "classes"));
    qc_front_params_init(&p, QC_LIMITER_MAXUSERS);
    p.bound[0] = -1;
    assert_null(qc_front_alloc(&p, 0, &err));
    assert_non_null(strstr(err.msg, "bound[0]"));
}

/* ---- several threads on one front --------------------------------------- */

#define THREADS 4
#define PER 20000
#define LIMIT 8

typedef struct shared {
    qc_front *f;
    _Atomic unsigned in; /* admitted and not done, as the callers count */
    _Atomic unsigned worst;
    _Atomic uint64_t admitted, refused, decided;
} shared;

typedef struct worker {
    shared *s;
    unsigned id;
    qc_front_token held[LIMIT * 2];
    unsigned nheld;
} worker;

static double clock_of(unsigned i)
{
    return 1e-6 * i;
}

static void note(shared *s, const qc_front_decision *d, unsigned n, worker *w)
{
    for (unsigned j = 0; j < n; j++) {
        s->decided++;
        if (d[j].act == QC_FRONT_ADMIT) {
            unsigned v = ++s->in;
            unsigned cur = s->worst;
            while (v > cur && !atomic_compare_exchange_weak(&s->worst, &cur, v))
                ;
            s->admitted++;
            w->held[w->nheld++] = d[j].tok;
        } else if (d[j].act == QC_FRONT_REFUSE) {
            s->refused++;
        }
    }
}

static void *work(void *arg)
{
    worker *w = arg;
    shared *s = w->s;
    qc_front_decision d, out[CAP];
    for (unsigned i = 0; i < PER; i++) {
        double now = clock_of(i);
        qc_front_arrive(s->f, now, 0, (uint64_t)w->id << 32 | i, &d);
        if (d.act != QC_FRONT_WAIT)
            note(s, &d, 1, w);
        while (w->nheld > (i & 3)) {
            qc_front_token t = w->held[--w->nheld];
            s->in--;
            int n = qc_front_done(s->f, now, &t, 1e-5, QC_FRONT_OK, out, CAP);
            note(s, out, (unsigned)n, w);
        }
        if ((i & 63) == 0) {
            int n = qc_front_expire(s->f, now, out, CAP);
            note(s, out, (unsigned)n, w);
        }
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_FIXED);
    p.limiter.initial_limit = LIMIT;
    p.queue = 16;
    p.discipline = QC_FRONT_FIFO;
    p.queue_timeout = 1e-4;
    shared s = {0};
    s.f = qc_front_alloc(&p, 0, NULL);
    assert_non_null(s.f);
    pthread_t th[THREADS];
    worker w[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        w[i] = (worker){.s = &s, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (unsigned i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    /* what is still held or waiting: give back, expire */
    qc_front_decision out[CAP];
    for (unsigned i = 0; i < THREADS; i++)
        while (w[i].nheld) {
            qc_front_token t = w[i].held[--w[i].nheld];
            s.in--;
            int n = qc_front_done(s.f, 1, &t, 1e-5, QC_FRONT_OK, out, CAP);
            note(&s, out, (unsigned)n, &w[i]);
        }
    for (int round = 0; round < 100; round++) {
        int n = qc_front_expire(s.f, 10, out, CAP);
        note(&s, out, (unsigned)n, &w[0]);
        while (w[0].nheld) {
            qc_front_token t = w[0].held[--w[0].nheld];
            s.in--;
            n = qc_front_done(s.f, 10, &t, 1e-5, QC_FRONT_OK, out, CAP);
            note(&s, out, (unsigned)n, &w[0]);
        }
    }
    qc_front_stats st;
    qc_front_get_stats(s.f, &st);
    assert_int_equal(st.waiting, 0);
    assert_int_equal(st.inflight, 0);
    assert_true(s.worst <= LIMIT);
    assert_true(s.admitted > 0);
    /* every arrival decided exactly once */
    assert_int_equal(s.decided, (uint64_t)THREADS * PER);
    assert_int_equal(s.admitted + s.refused, (uint64_t)THREADS * PER);
    assert_int_equal(st.class_admitted[0], s.admitted);
    qc_front_free(s.f);
}

/* ADMISSION's waiting room (qctl/front.h, "Bounded classes"): limit 1,
 * 3 places, gold (class 0, D = 0.1 s) and silver (class 1, D = 1 s),
 * eps 0.1, est_init 0.01 s, so W_gold = 0.09 - 0.01 = 0.08 s and W_silver
 * = 0.9 - 0.01 = 0.89 s. At 0: gold 1 in. At 0.01: silver 2 waits
 * (deadline 0.9). At 0.02: gold 3 waits (deadline 0.1). At 0.03: silver
 * 4 waits. At 0.04, the room full (3 places), gold 5 arrives: silver
 * holds 2 places at weight p/1, gold 1 at weight p/0.1 (priorities both
 * 0.1 at start): silver gives up its newest (4, FULL) and 5 waits. At
 * 0.2, 1 is done: gold 3's deadline (0.1) and 5's (0.12) have passed, so
 * both are refused (DEADLINE, oldest first) before the slot goes to
 * silver 2 (waited 0.19); 3 waited 0.18, 0.1 past its deadline: the
 * plant's lag, and nobody was let in late. */
static void test_admission_room(void **state)
{
    (void)state;
    qc_front_params p;
    qc_front_params_init(&p, QC_LIMITER_ADMISSION);
    p.limiter.initial_limit = 1;
    p.limiter.adm_epsilon = 0.1;
    p.queue = 3;
    p.classes = 2;
    p.bound[0] = 0.1;
    p.bound[1] = 1;
    qc_err err = {0};
    qc_front *f = qc_front_alloc(&p, 0, &err);
    assert_non_null(f);
    qc_front_decision out[CAP];
    assert_true(fabs(qc_front_class_deadline(f, 0) - 0.08) < 1e-12);
    assert_true(fabs(qc_front_class_deadline(f, 1) - 0.89) < 1e-12);
    assert_true(fabs(qc_front_queue_target(f) - 0.08) < 1e-12);
    assert_int_equal(qc_front_arrive_n(f, 0, 0, 1, out, CAP), 1);
    assert_int_equal(out[0].act, QC_FRONT_ADMIT);
    qc_front_token t1 = out[0].tok;
    assert_int_equal(qc_front_arrive_n(f, 0.01, 1, 2, out, CAP), 1);
    assert_int_equal(out[0].act, QC_FRONT_WAIT);
    assert_true(fabs(out[0].deadline - 0.9) < 1e-12);
    assert_int_equal(qc_front_arrive_n(f, 0.02, 0, 3, out, CAP), 1);
    assert_int_equal(out[0].act, QC_FRONT_WAIT);
    assert_true(fabs(out[0].deadline - 0.1) < 1e-12);
    assert_int_equal(qc_front_arrive_n(f, 0.03, 1, 4, out, CAP), 1);
    assert_int_equal(out[0].act, QC_FRONT_WAIT);
    assert_int_equal(qc_front_arrive_n(f, 0.04, 0, 5, out, CAP), 2);
    assert_int_equal(out[0].id, 4);
    assert_int_equal(out[0].act, QC_FRONT_REFUSE);
    assert_int_equal(out[0].reason, QC_FRONT_FULL);
    assert_int_equal(out[1].id, 5);
    assert_int_equal(out[1].act, QC_FRONT_WAIT);
    /* the single-decision arrival makes no place: refused */
    qc_front_decision d;
    assert_int_equal(qc_front_arrive(f, 0.05, 0, 6, &d), QC_FRONT_REFUSE);
    assert_int_equal(d.reason, QC_FRONT_FULL);
    int n = qc_front_done(f, 0.2, &t1, 0.01, QC_FRONT_OK, out, CAP);
    assert_int_equal(n, 3);
    assert_int_equal(out[0].id, 3);
    assert_int_equal(out[0].reason, QC_FRONT_DEADLINE);
    assert_int_equal(out[1].id, 5);
    assert_int_equal(out[1].reason, QC_FRONT_DEADLINE);
    assert_int_equal(out[2].id, 2);
    assert_int_equal(out[2].act, QC_FRONT_ADMIT);
    assert_true(fabs(out[2].waited - 0.19) < 1e-12);
    qc_front_stats st;
    qc_front_get_stats(f, &st);
    assert_true(st.class_late[0] == 0 && st.class_late[1] == 0);
    assert_true(fabs(st.class_late_refused[0] - 0.1) < 1e-12); /* 3: 0.2 - 0.1 */
    assert_false(st.standing);
    assert_int_equal(st.class_refused[0], 3); /* 3, 5 and 6 */
    assert_int_equal(st.class_refused[1], 1); /* 4 */
    qc_front_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifo_limit_room), cmocka_unit_test(test_no_overtaking_cancel),
        cmocka_unit_test(test_no_control),      cmocka_unit_test(test_codel),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_sfq),             cmocka_unit_test(test_sampler),
        cmocka_unit_test(test_bad_params),      cmocka_unit_test(test_threads),
        cmocka_unit_test(test_work_conserving), cmocka_unit_test(test_fixed_overload), cmocka_unit_test(test_setup_wait), cmocka_unit_test(test_admission_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
