/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_ctlloop.c: the control loop of `qctl control` (qctl/ctlloop.h) on
 * hand-written samples: the integral kind is qc_mu_ctl step for step; a
 * missing sample and a refused apply hold (the second back on the value
 * applied); the open kind switches between its two levels only, every
 * `hold` intervals for steps; parking starts, sets up, drains and stops
 * servers as its rule says, and its server-seconds are the integral
 * computed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "qctl/ctlloop.h"

static void test_integral_is_mu_ctl(void **st)
{
    (void)st;
    qc_ctlloop_params p;
    qc_ctlloop_params_init(&p);
    p.kind = QC_CTLLOOP_INTEGRAL;
    p.ki = 0.5;
    p.u_min = 1;
    p.u_max = 50;
    p.u_init = 10;
    p.nref = 1;
    p.ref[0] = (qc_sched_point){0, 20};
    qc_ctlloop L;
    qc_err err = {0};
    assert_int_equal(qc_ctlloop_init(&L, &p, &err), 0);
    qc_mu_ctl mu;
    qc_pi_params pp = {0, 0.5, 1, 50, 10, QC_AW_CONDITIONAL, 1};
    qc_mu_ctl_init(&mu, &pp, &err);
    double ys[] = {5, 8, 14, 30, 25, 19, 21};
    for (int k = 0; k < 7; k++) {
        qc_ctlloop_sense in = {k, 1, ys[k], NAN, NULL, NAN};
        qc_ctlloop_act a;
        qc_ctlloop_step(&L, &in, &a);
        qc_mu_ctl_sense ms = {20, ys[k], NAN};
        qc_mu_ctl_act ma;
        qc_mu_ctl_step(&mu, &ms, &ma);
        assert_true(fabs(a.u - ma.u) < 1e-12);
        assert_true(a.r == 20);
        qc_ctlloop_applied(&L, a.u);
    }
    /* a missing sample: held, counted */
    double u = L.u;
    qc_ctlloop_sense in = {7, 0, NAN, NAN, NULL, NAN};
    qc_ctlloop_act a;
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.held && a.u == u && L.held_missing == 1);
    /* a refused apply: back on the value applied, and the integrator with it */
    in = (qc_ctlloop_sense){8, 1, 0, NAN, NULL, NAN};
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.u == u + 10);
    qc_ctlloop_refused(&L);
    assert_true(L.u == u && L.held_refused == 1);
    in = (qc_ctlloop_sense){9, 1, 20, NAN, NULL, NAN};
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.u == u); /* no error: stays where it was applied */
    /* control_from: u_init until then */
    p.control_from = 5;
    qc_ctlloop_init(&L, &p, &err);
    in = (qc_ctlloop_sense){4.9, 1, 0, NAN, NULL, NAN};
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.u == 10);
    in.t = 5;
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.u == 20);
    /* bad parameters named */
    p.nref = 0;
    assert_true(qc_ctlloop_init(&L, &p, &err) < 0);
    assert_non_null(strstr(err.msg, "reference"));
}

static void test_open(void **st)
{
    (void)st;
    qc_ctlloop_params p;
    qc_ctlloop_params_init(&p);
    p.kind = QC_CTLLOOP_OPEN;
    p.levels[0] = 4;
    p.levels[1] = 12;
    p.hold = 2;
    p.steps = 1;
    qc_ctlloop L;
    qc_err err = {0};
    assert_int_equal(qc_ctlloop_init(&L, &p, &err), 0);
    double want[] = {4, 4, 12, 12, 4, 4, 12};
    for (int k = 0; k < 7; k++) {
        qc_ctlloop_sense in = {k, 0, NAN, NAN, NULL, NAN};
        qc_ctlloop_act a;
        qc_ctlloop_step(&L, &in, &a);
        assert_true(a.u == want[k]);
    }
    /* a refused apply does not move the excitation off its sequence */
    qc_ctlloop_applied(&L, 4);
    qc_ctlloop_refused(&L);
    assert_true(L.held_refused == 1);
    /* a static setting refused is asked for again, never replaced */
    {
        qc_ctlloop_params ps;
        qc_ctlloop_params_init(&ps);
        ps.u_init = 7;
        qc_ctlloop S;
        assert_int_equal(qc_ctlloop_init(&S, &ps, &err), 0);
        qc_ctlloop_applied(&S, 3);
        qc_ctlloop_refused(&S);
        qc_ctlloop_sense in = {0, 0, NAN, NAN, NULL, NAN};
        qc_ctlloop_act a;
        qc_ctlloop_step(&S, &in, &a);
        assert_true(a.u == 7);
    }
    /* PRBS: only the two levels, switching at multiples of hold, both seen */
    p.steps = 0;
    p.hold = 3;
    qc_ctlloop_init(&L, &p, &err);
    int seen[2] = {0, 0};
    double prev = 4;
    for (int k = 0; k < 300; k++) {
        qc_ctlloop_sense in = {k, 1, 1, NAN, NULL, NAN};
        qc_ctlloop_act a;
        qc_ctlloop_step(&L, &in, &a);
        assert_true(a.u == 4 || a.u == 12);
        if (a.u != prev)
            assert_int_equal(k % 3, 0);
        seen[a.u == 12]++;
        prev = a.u;
    }
    assert_true(seen[0] > 90 && seen[1] > 90);
}

static void test_park(void **st)
{
    (void)st;
    qc_ctlloop_params p;
    qc_ctlloop_params_init(&p);
    p.kind = QC_CTLLOOP_PARK;
    p.servers = 4;
    p.min_on = 1;
    p.threshold = 4;
    p.setup = 2;
    p.idle_wait = 3;
    qc_ctlloop L;
    qc_err err = {0};
    assert_int_equal(qc_ctlloop_init(&L, &p, &err), 0);
    assert_int_equal(L.state[0], QC_PARK_ON);
    assert_int_equal(L.state[1], QC_PARK_OFF);
    double s[4] = {0, 0, 0, 0};
    qc_ctlloop_sense in = {0, 1, 0, NAN, s, 0};
    qc_ctlloop_act a;
    /* t=0: 10 requests (6 at s0, 4 queued): ceil(10/4) = 3 needed: two start */
    s[0] = 6;
    in.queue = 4;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(a.on, 1);
    assert_int_equal(a.starting, 2);
    assert_int_equal(L.state[1], QC_PARK_SETUP);
    assert_int_equal(L.state[2], QC_PARK_SETUP);
    assert_int_equal(L.starts, 2);
    /* t=1: still in setup; nothing more starts (3 on or starting) */
    in.t = 1;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(a.starting, 2);
    /* t=2: setup done: 3 on */
    in.t = 2;
    s[0] = 4, s[1] = 3, s[2] = 3;
    in.queue = 0;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(a.on, 3);
    assert_int_equal(a.starting, 0);
    /* server-seconds: 1 x [0,0] ... 3 servers not off over (0, 2] */
    assert_true(fabs(L.server_seconds - 3 * 2) < 1e-9);
    /* low load (3 requests <= 4 x 2) from t=3: drained at t=6, the least
     * loaded (s2, the last of the least) */
    s[0] = 2, s[1] = 1, s[2] = 0;
    for (int t = 3; t <= 5; t++) {
        in.t = t;
        qc_ctlloop_step(&L, &in, &a);
        assert_int_equal(a.on, 3);
    }
    in.t = 6;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(a.on, 2);
    assert_int_equal(L.state[2], QC_PARK_OFF); /* empty: off at once */
    assert_int_equal(L.stops, 1);
    /* the next one waits idle_wait again; s1 has a request: it drains */
    for (int t = 7; t <= 8; t++) {
        in.t = t;
        qc_ctlloop_step(&L, &in, &a);
        assert_int_equal(a.on, 2);
    }
    s[1] = 1, s[0] = 2;
    in.t = 9;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(L.state[1], QC_PARK_DRAIN);
    assert_int_equal(a.on, 1);
    /* load back: the draining server is put back on first, nothing starts */
    s[0] = 5, s[1] = 1;
    in.t = 10;
    qc_ctlloop_step(&L, &in, &a);
    assert_int_equal(L.state[1], QC_PARK_ON);
    assert_int_equal(L.starts, 2);
    /* a missing sample holds the fleet */
    in.t = 11;
    in.ok = 0;
    qc_ctlloop_step(&L, &in, &a);
    assert_true(a.held);
    assert_int_equal(a.on, 2);
    /* energy: 3 not off over (2, 6], 2 over (6, 11] (s1 draining counts) */
    assert_true(fabs(L.server_seconds - (6 + 3 * 4 + 2 * 5)) < 1e-9);
    p.min_on = 5;
    assert_true(qc_ctlloop_init(&L, &p, &err) < 0);
    assert_non_null(strstr(err.msg, "min_on"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integral_is_mu_ctl),
        cmocka_unit_test(test_open),
        cmocka_unit_test(test_park),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
