/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_limiter_reload.c: qc_limiter_reconfigure, the limiter's half of a
 * configuration reload: a fixed limit moves to the new value; a moving
 * controller keeps the limit it reached (its state) when only its range
 * or reference changes, and restarts at that limit when a gain changes;
 * the requests in flight stay counted across; what cannot change in
 * place (the algorithm, the classes, bad values) is refused with nothing
 * changed. The expected values are the ones the controller reached
 * before the reload, read back from the same limiter. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "qctl/limiter.h"

static void test_fixed(void **state)
{
    (void)state;
    qc_limiter_params p;
    qc_limiter_params_init(&p, QC_LIMITER_FIXED);
    p.initial_limit = 10;
    qc_limiter *l = qc_limiter_alloc(&p, 0, NULL);
    assert_non_null(l);
    qc_limiter_token tok[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(qc_limiter_acquire(l, 0, &tok[i]), QC_LIMITER_ADMIT);
    p.initial_limit = 14;
    int changed = -1;
    assert_int_equal(qc_limiter_reconfigure(l, &p, 1, &changed, NULL), 0);
    assert_int_equal(changed, 1);
    assert_int_equal(qc_limiter_limit(l), 14);
    /* the same again: nothing differs */
    assert_int_equal(qc_limiter_reconfigure(l, &p, 1, &changed, NULL), 0);
    assert_int_equal(changed, 0);
    /* the requests admitted before are still counted and given back */
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.inflight, 3);
    for (int i = 0; i < 3; i++)
        qc_limiter_release(l, &tok[i], 0.01, QC_LIMITER_OK);
    qc_limiter_get_stats(l, &st);
    assert_int_equal(st.inflight, 0);
    /* a limit below what is in flight now: the gate follows */
    p.initial_limit = 2;
    assert_int_equal(qc_limiter_reconfigure(l, &p, 2, NULL, NULL), 0);
    assert_int_equal(qc_limiter_limit(l), 2);
    qc_limiter_free(l);
}

/* Drives a MaxUsers limiter up from 10: 20 intervals of 0.1 s, each with
 * 40 completions of 0.1 s (y = 40 in the server, above any reference),
 * then back down with light load so it sits strictly inside its range. */
static double drive(qc_limiter *l, double *now)
{
    for (int k = 0; k < 20; k++) {
        for (int i = 0; i < 40; i++)
            qc_limiter_record(l, 0, 0.1, 40, QC_LIMITER_OK);
        *now += 0.1;
        qc_limiter_tick(l, *now);
    }
    return qc_limiter_limit_real(l);
}

static void test_maxusers_state_kept(void **state)
{
    (void)state;
    qc_limiter_params p;
    qc_limiter_params_init(&p, QC_LIMITER_MAXUSERS);
    p.reference = 30;
    p.ki = 0.05;
    qc_limiter *l = qc_limiter_alloc(&p, 0, NULL);
    assert_non_null(l);
    double now = 0, u = drive(l, &now);
    assert_true(u != 10); /* the controller moved: there is state to keep */
    /* the reference only: the limit reached stays, the reference is new */
    p.reference = 25;
    int changed = 0;
    assert_int_equal(qc_limiter_reconfigure(l, &p, now, &changed, NULL), 0);
    assert_int_equal(changed, 1);
    assert_true(qc_limiter_limit_real(l) == u);
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    assert_true(st.reference == 25);
    /* a gain: the controller restarts where it is (bumpless) */
    p.ki = 0.1;
    assert_int_equal(qc_limiter_reconfigure(l, &p, now, NULL, NULL), 0);
    assert_true(qc_limiter_limit_real(l) == u);
    /* a ceiling under the limit: clamped to it */
    double top = floor(u) - 1;
    if (top > p.min_limit) {
        p.max_limit = top;
        assert_int_equal(qc_limiter_reconfigure(l, &p, now, NULL, NULL), 0);
        assert_true(qc_limiter_limit_real(l) == top);
    }
    qc_limiter_free(l);
}

static void test_refused(void **state)
{
    (void)state;
    qc_limiter_params p;
    qc_limiter_params_init(&p, QC_LIMITER_AIMD);
    p.initial_limit = 30;
    qc_limiter *l = qc_limiter_alloc(&p, 0, NULL);
    assert_non_null(l);
    qc_limiter_params q = p;
    q.algo = QC_LIMITER_FIXED;
    qc_err err = {0};
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, NULL, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "aimd to fixed"));
    q = p;
    q.classes = 2;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, NULL, &err), QC_EINVAL);
    q = p;
    q.min_limit = 50; /* above the ceiling's initial value: check_config's ERANGE */
    q.max_limit = 40;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, NULL, &err), QC_ERANGE);
    q = p;
    q.aimd_backoff = 1.5;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, NULL, &err), QC_ERANGE);
    assert_int_equal(qc_limiter_limit(l), 30); /* nothing changed */
    /* AIMD's backoff: taken, the limit kept */
    q = p;
    q.aimd_backoff = 0.5;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, NULL, &err), 0);
    assert_int_equal(qc_limiter_limit(l), 30);
    qc_limiter_free(l);
}

static void test_admission_bounds(void **state)
{
    (void)state;
    qc_limiter_params p;
    qc_limiter_params_init(&p, QC_LIMITER_ADMISSION);
    p.classes = 2;
    p.bound[0] = 0.2;
    qc_limiter *l = qc_limiter_alloc(&p, 0, NULL);
    assert_non_null(l);
    qc_limiter_params q = p;
    q.bound[0] = 0.4;
    int changed = 0;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0, &changed, NULL), 0);
    assert_int_equal(changed, 1);
    qc_limiter_tick(l, 0.1); /* a bound is taken at the next tick */
    qc_limiter_stats st;
    qc_limiter_get_stats(l, &st);
    assert_true(st.class_bound[0] == 0.4);
    /* making the best-effort class bounded would change its state: refused */
    q.bound[1] = 0.3;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0.1, NULL, NULL), QC_EINVAL);
    q.bound[1] = 0;
    q.adm_epsilon = 0.2;
    assert_int_equal(qc_limiter_reconfigure(l, &q, 0.1, NULL, NULL), QC_EINVAL);
    qc_limiter_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_maxusers_state_kept),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_admission_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
