/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fleet.c: the proxy's fleet rules on synthetic event sequences:
 * delay-JSQ choices against a literal reading of the rule (pool.h), the
 * idle timer and min-on, PARKING waiting for its in-flight requests, the
 * setup and state-time bookkeeping, and the configuration checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "live/fleet.h"

static qc__fleet_params djsq(unsigned T, double idle_off, unsigned min_on, unsigned init)
{
    return (qc__fleet_params){.route = QC_FLEET_DJSQ,
                              .threshold = T,
                              .idle_off = idle_off,
                              .min_on = min_on,
                              .initially_on = init};
}

/* The rule as docs/pool.md states it, written independently: candidates
 * in order, first match wins. */
static int rule(const qc__fleet *f)
{
    unsigned best = f->n, bq = 0;
    for (unsigned i = 0; i < f->n; i++) { /* shortest non-empty queue, ON first on ties */
        const qc__fleet_backend *b = &f->b[i];
        unsigned q = b->inflight + b->waiting;
        if (q == 0 || (b->state != QC_FLEET_ON && b->state != QC_FLEET_SETUP))
            continue;
        if (best == f->n || q < bq ||
            (q == bq && b->state == QC_FLEET_ON && f->b[best].state != QC_FLEET_ON)) {
            best = i;
            bq = q;
        }
    }
    if (best < f->n && bq + 1 <= f->cfg.threshold)
        return (int)best;
    double last = -INFINITY;
    int idle = -1;
    for (unsigned i = 0; i < f->n; i++) /* the idle ON backend idle last */
        if (f->b[i].state == QC_FLEET_ON && f->b[i].inflight == 0 && f->b[i].waiting == 0 &&
            f->b[i].idle_since > last) {
            last = f->b[i].idle_since;
            idle = (int)i;
        }
    if (idle >= 0)
        return idle;
    for (unsigned i = 0; i < f->n; i++) /* a SETUP backend nobody waits for */
        if (f->b[i].state == QC_FLEET_SETUP && f->b[i].waiting == 0)
            return (int)i;
    unsigned up = f->n - qc__fleet_count(f, QC_FLEET_OFF);
    for (unsigned i = 0; i < f->n && up < f->cfg.max_on; i++)
        if (f->b[i].state == QC_FLEET_OFF)
            return (int)i;
    return best < f->n ? (int)best : -1;
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Random arrivals, completions, setups and idle parks on 6 backends: at
 * every arrival the fleet's choice is the rule's. */
static void test_djsq_rule(void **state)
{
    (void)state;
    for (unsigned T = 1; T <= 4; T++) {
        qc__fleet f;
        qc__fleet_params c = djsq(T, 0.5, 1, 2);
        c.max_on = 5;
        qc__fleet_init(&f, &c, 6, 0);
        uint64_t seed = 42 + T;
        double now = 0;
        unsigned arrivals = 0;
        for (int step = 0; step < 20000; step++) {
            now += 0.001 * (double)(lcg(&seed) % 100);
            unsigned i = (unsigned)(lcg(&seed) % f.n);
            qc__fleet_backend *b = &f.b[i];
            switch (lcg(&seed) % 4) {
            case 0: { /* an arrival */
                int want = rule(&f);
                int unparked;
                int got = qc__fleet_route(&f, now, &unparked);
                assert_int_equal(got, want);
                if (got < 0)
                    break;
                arrivals++;
                if (f.b[got].state == QC_FLEET_SETUP)
                    qc__fleet_wait(&f, (unsigned)got);
                else
                    qc__fleet_sent(&f, (unsigned)got);
                break;
            }
            case 1:
            case 2: /* a completion */
                if (b->inflight)
                    qc__fleet_done(&f, i, 1, now);
                break;
            default: /* a setup ends (waiters sent), or the idle timer */
                if (b->state == QC_FLEET_SETUP) {
                    qc__fleet_ready(&f, i, now);
                    while (b->waiting) {
                        qc__fleet_unwait(&f, i, now);
                        qc__fleet_sent(&f, i);
                    }
                } else {
                    unsigned park[QC_FLEET_MAX], np, unp[QC_FLEET_MAX], nu;
                    qc__fleet_tick(&f, now, park, &np, unp, &nu);
                    for (unsigned k = 0; k < np; k++)
                        qc__fleet_off(&f, park[k], now);
                }
            }
            assert_true(qc__fleet_count(&f, QC_FLEET_ON) + qc__fleet_count(&f, QC_FLEET_SETUP) >=
                        1);
            assert_true(f.n - qc__fleet_count(&f, QC_FLEET_OFF) <= 5);
            for (unsigned k = 0; k < f.n; k++) {
                if (f.b[k].state == QC_FLEET_OFF)
                    assert_int_equal(f.b[k].inflight + f.b[k].waiting, 0);
                if (f.b[k].state == QC_FLEET_SETUP)
                    assert_int_equal(f.b[k].inflight, 0);
            }
        }
        assert_true(arrivals > 4000);
        uint64_t unparks = 0;
        for (unsigned k = 0; k < f.n; k++)
            unparks += f.b[k].unparks;
        assert_true(unparks > 10); /* the sequence did exercise unparking */
    }
}

/* T = 2 by hand: the second request joins the first, the third goes to
 * the idle backend, the fifth unparks the OFF one and waits there. */
static void test_djsq_hand(void **state)
{
    (void)state;
    qc__fleet f;
    qc__fleet_params c = djsq(2, INFINITY, 1, 2);
    qc__fleet_init(&f, &c, 3, 0);
    int up;
    f.b[0].idle_since = 0.2; /* idle last: first choice */
    assert_int_equal(qc__fleet_route(&f, 1, &up), 0);
    qc__fleet_sent(&f, 0);
    assert_int_equal(qc__fleet_route(&f, 1, &up), 0); /* 1 + 1 <= T */
    qc__fleet_sent(&f, 0);
    assert_int_equal(qc__fleet_route(&f, 1, &up), 1); /* 2 + 1 > T: the idle one */
    qc__fleet_sent(&f, 1);
    assert_int_equal(qc__fleet_route(&f, 1, &up), 1);
    qc__fleet_sent(&f, 1);
    assert_int_equal(up, 0);
    assert_int_equal(qc__fleet_route(&f, 2, &up), 2); /* all at T: unpark */
    assert_int_equal(up, 1);
    assert_int_equal(f.b[2].state, QC_FLEET_SETUP);
    qc__fleet_wait(&f, 2);
    assert_int_equal(qc__fleet_route(&f, 2, &up), 2); /* joins the waiting one (1 < T) */
    assert_int_equal(up, 0);
    qc__fleet_wait(&f, 2);
    /* everything at T, nothing OFF: plain JSQ, ON before SETUP */
    assert_int_equal(qc__fleet_route(&f, 2, &up), 0);
    qc__fleet_ready(&f, 2, 2.5);
    assert_int_equal(f.setups, 1);
    assert_float_equal(f.setup_sum, 0.5, 1e-12);
    for (unsigned k = 0; k < QC_FLEET_SETUP_BUCKETS; k++) /* cumulative: le 0.5 and up */
        assert_int_equal(f.setup_bucket[k], qc__fleet_setup_le[k] >= 0.5);
    assert_int_equal(f.b[2].unparks, 1);
}

/* The idle timer parks only after idle_off, never below min_on, and a
 * PARKING backend goes OFF only when its last request is answered. */
static void test_idle_park(void **state)
{
    (void)state;
    qc__fleet f;
    qc__fleet_params c = djsq(1, 1.0, 1, 3);
    qc__fleet_init(&f, &c, 3, 0);
    unsigned park[QC_FLEET_MAX], np, unp[QC_FLEET_MAX], nu;
    qc__fleet_sent(&f, 1);
    qc__fleet_tick(&f, 0.9, park, &np, unp, &nu);
    assert_int_equal(np, 0);
    qc__fleet_tick(&f, 1.0, park, &np, unp, &nu);
    assert_int_equal(np, 2); /* 0 and 2 idle 1 s; 1 is busy */
    assert_int_equal(park[0], 0);
    assert_int_equal(park[1], 2);
    assert_int_equal(f.b[0].state, QC_FLEET_PARKING);
    qc__fleet_off(&f, 0, 1.2);
    qc__fleet_off(&f, 2, 1.2);
    assert_int_equal(qc__fleet_done(&f, 1, 1, 1.5), 0);
    qc__fleet_tick(&f, 10, park, &np, unp, &nu);
    assert_int_equal(np, 0); /* 1 is the last: min_on */
    assert_int_equal(f.b[1].state, QC_FLEET_ON);

    /* PARKING with requests in flight waits for them */
    qc__fleet_params c2 = djsq(1, 1.0, 1, 2);
    qc__fleet_init(&f, &c2, 2, 0);
    qc__fleet_sent(&f, 0);
    qc__fleet_sent(&f, 0);
    assert_int_equal(qc__fleet_park(&f, 0, 1), 0);
    int up;
    assert_int_equal(qc__fleet_route(&f, 1, &up), 1); /* not to a PARKING one */
    assert_int_equal(qc__fleet_done(&f, 0, 1, 2), 0);
    assert_int_equal(qc__fleet_done(&f, 0, 0, 3), 1); /* now: park it */
    assert_int_equal(f.b[0].answered, 1);
    assert_int_equal(f.b[0].failed, 1);
    qc__fleet_off(&f, 0, 3.5);
    double t[QC_FLEET_NSTATES];
    qc__fleet_times(&f, 0, 5, t);
    assert_float_equal(t[QC_FLEET_ON], 1, 1e-12);
    assert_float_equal(t[QC_FLEET_PARKING], 2.5, 1e-12);
    assert_float_equal(t[QC_FLEET_OFF], 1.5, 1e-12);
}

/* min_on is restored by the tick after a failed unpark, but not within
 * the second after it; requests routed while all is failing get -1. */
static void test_min_on(void **state)
{
    (void)state;
    qc__fleet f;
    qc__fleet_params c = djsq(1, 1.0, 1, 1);
    c.max_on = 1;
    qc__fleet_init(&f, &c, 2, 0);
    int up;
    qc__fleet_sent(&f, 0);
    assert_int_equal(qc__fleet_route(&f, 0, &up), 0); /* max_on: no unpark, plain JSQ */
    assert_int_equal(up, 0);
    qc__fleet_done(&f, 0, 1, 0.1);
    assert_int_equal(qc__fleet_park(&f, 0, 0.2), 1);
    qc__fleet_off(&f, 0, 0.2);
    unsigned park[QC_FLEET_MAX], np, unp[QC_FLEET_MAX], nu;
    qc__fleet_tick(&f, 0.3, park, &np, unp, &nu);
    assert_int_equal(nu, 1);
    assert_int_equal(unp[0], 0);
    qc__fleet_unpark_failed(&f, 0, 0.4);
    qc__fleet_tick(&f, 1.0, park, &np, unp, &nu);
    assert_int_equal(nu, 1);
    assert_int_equal(unp[0], 1); /* 0 is avoided for a second */
    qc__fleet_unpark_failed(&f, 1, 1.1);
    qc__fleet_tick(&f, 1.2, park, &np, unp, &nu);
    assert_int_equal(nu, 0);
    assert_int_equal(f.b[0].unpark_failures + f.b[1].unpark_failures, 2);
    assert_int_equal(qc__fleet_route(&f, 1.3, &up), 0); /* down, but the only choice */
    assert_int_equal(up, 1);
}

static void test_jsq(void **state)
{
    (void)state;
    qc__fleet f;
    qc__fleet_params c = {.route = QC_FLEET_JSQ, .idle_off = 1, .min_on = 1};
    qc__fleet_init(&f, &c, 3, 0);
    assert_int_equal(qc__fleet_count(&f, QC_FLEET_ON), 3);
    int up, seen[3] = {0};
    for (int k = 0; k < 3; k++) {
        int i = qc__fleet_route(&f, 0, &up);
        seen[i]++;
        qc__fleet_sent(&f, (unsigned)i);
    }
    assert_int_equal(seen[0] + seen[1] + seen[2], 3);
    assert_true(seen[0] == 1 && seen[1] == 1 && seen[2] == 1);
    qc__fleet_connect_failed(&f, 0, 0);
    qc__fleet_done(&f, 0, 0, 0);
    assert_int_not_equal(qc__fleet_route(&f, 0.5, &up), 0); /* avoided although emptiest */
    unsigned park[QC_FLEET_MAX], np, unp[QC_FLEET_MAX], nu;
    qc__fleet_tick(&f, 100, park, &np, unp, &nu);
    assert_int_equal(np, 0); /* jsq never parks */
}

static void test_check(void **state)
{
    (void)state;
    qc_err err = {0};
    qc__fleet_params c = djsq(2, 1, 1, 1);
    assert_int_equal(qc__fleet_check(&c, 3, &err), 0);
    c.threshold = 0;
    assert_int_equal(qc__fleet_check(&c, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "threshold"));
    c = djsq(2, 1, 4, 0);
    assert_int_equal(qc__fleet_check(&c, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "min-on"));
    c = djsq(2, 1, 2, 1);
    assert_int_equal(qc__fleet_check(&c, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "initially-on"));
    c = djsq(2, 0, 1, 1);
    assert_int_equal(qc__fleet_check(&c, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "idle-off"));
    c = (qc__fleet_params){.route = QC_FLEET_JSQ, .idle_off = 1, .min_on = 1, .initially_on = 1};
    assert_int_equal(qc__fleet_check(&c, 3, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "djsq"));
    assert_string_equal(qc__fleet_state_name(QC_FLEET_PARKING), "parking");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_djsq_rule), cmocka_unit_test(test_djsq_hand),
        cmocka_unit_test(test_idle_park), cmocka_unit_test(test_min_on),
        cmocka_unit_test(test_jsq),       cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
