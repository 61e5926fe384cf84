/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_controller.c: the PI / integral step object on hand-written
 * measurement sequences: the law, saturation and both anti-windup modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "qctl/controller.h"

static qc_pi make(double kp, double ki, qc_antiwindup aw)
{
    qc_pi c;
    qc_pi_params p = {kp, ki, 0, 100, 50, aw, 1.0};
    assert_int_equal(qc_pi_init(&c, &p, NULL), 0);
    return c;
}

/* Inside the limits: u(k) = u(k-1) + K_I e(k) exactly (integral), and the
 * velocity form u(k) = u(k-1) + (K_P + K_I) e(k) - K_P e(k-1) (PI). */
static void test_law(void **state)
{
    (void)state;
    qc_pi c = make(0, 0.5, QC_AW_NONE);
    static const double y[] = {40, 42, 45, 49, 50, 51, 50};
    double u = 50;
    for (size_t k = 0; k < sizeof y / sizeof *y; k++) {
        qc_pi_act a;
        assert_int_equal(qc_pi_step(&c, &(qc_pi_sense){48, y[k]}, &a), 0);
        u += 0.5 * (48 - y[k]);
        assert_true(fabs(a.u - u) < 1e-12);
        assert_int_equal(a.saturated, 0);
    }
    qc_pi d = make(0.3, 0.2, QC_AW_NONE);
    double up = 50, eprev = 0;
    for (size_t k = 0; k < sizeof y / sizeof *y; k++) {
        qc_pi_act a;
        double e = 48 - y[k];
        qc_pi_step(&d, &(qc_pi_sense){48, y[k]}, &a);
        double want = k == 0 ? 50 + 0.3 * e + 0.2 * e : up + 0.5 * e - 0.3 * eprev;
        assert_true(fabs(a.u - want) < 1e-12);
        up = a.u;
        eprev = e;
    }
}

/* A long positive error drives u to u_max. Without anti-windup the
 * integrator runs far past 100 and, when the error turns negative, u stays
 * at the limit for many samples; with either anti-windup mode it leaves
 * the limit on the first negative error. */
static int samples_stuck(qc_antiwindup aw)
{
    qc_pi c = make(0, 1.0, aw);
    qc_pi_act a;
    for (int k = 0; k < 20; k++) /* e = +20 for 20 samples */
        qc_pi_step(&c, &(qc_pi_sense){60, 40}, &a);
    assert_true(a.u == 100);
    assert_int_equal(a.saturated, 1);
    int stuck = 0;
    for (int k = 0; k < 50; k++) { /* then e = -5 */
        qc_pi_step(&c, &(qc_pi_sense){60, 65}, &a);
        if (a.u < 100)
            break;
        stuck++;
    }
    return stuck;
}

static void test_antiwindup(void **state)
{
    (void)state;
    /* none: integrator at 50 + 20*20 = 450; back to 100 takes 350/5 = 70
     * samples of e = -5, more than the 50 we wait */
    assert_int_equal(samples_stuck(QC_AW_NONE), 50);
    assert_int_equal(samples_stuck(QC_AW_CONDITIONAL), 0);
    assert_int_equal(samples_stuck(QC_AW_BACKCALC), 0);

    /* back-calculation with k_aw = 1 keeps I at the limit: first step down
     * from 100 by exactly K_I * 5 */
    qc_pi c = make(0, 1.0, QC_AW_BACKCALC);
    qc_pi_act a;
    for (int k = 0; k < 5; k++)
        qc_pi_step(&c, &(qc_pi_sense){60, 40}, &a);
    qc_pi_step(&c, &(qc_pi_sense){60, 65}, &a);
    assert_true(fabs(a.u - 95) < 1e-12);

    /* the lower limit too */
    qc_pi d = make(0, 1.0, QC_AW_CONDITIONAL);
    for (int k = 0; k < 10; k++)
        qc_pi_step(&d, &(qc_pi_sense){10, 40}, &a);
    assert_true(a.u == 0);
    assert_int_equal(a.saturated, -1);
    qc_pi_step(&d, &(qc_pi_sense){10, 8}, &a);
    assert_true(fabs(a.u - 2) < 1e-12);
}

static void test_bad(void **state)
{
    (void)state;
    qc_pi c;
    qc_err err = {0};
    qc_pi_params p = {0, 1, 10, 5, 7, QC_AW_NONE, 1};
    assert_int_equal(qc_pi_init(&c, &p, &err), QC_EINVAL);
    p = (qc_pi_params){0, NAN, 0, 5, 1, QC_AW_NONE, 1};
    assert_int_equal(qc_pi_init(&c, &p, &err), QC_EINVAL);
    p = (qc_pi_params){0, 1, 0, 5, 9, QC_AW_NONE, 1};
    assert_int_equal(qc_pi_init(&c, &p, &err), QC_ERANGE);
    p = (qc_pi_params){0, 1, 0, 5, 1, QC_AW_BACKCALC, 0};
    assert_int_equal(qc_pi_init(&c, &p, &err), QC_ERANGE);
    /* a lost sample holds the actuation */
    c = make(0, 1, QC_AW_NONE);
    qc_pi_act a;
    qc_pi_step(&c, &(qc_pi_sense){60, 55}, &a);
    double held = a.u;
    assert_int_equal(qc_pi_step(&c, &(qc_pi_sense){60, NAN}, &a), QC_EINVAL);
    assert_true(a.u == held);
}

/* The MaxUsers controller's demand hold: u and the integrator stay put
 * when the limit did not bind (peak < floor(u)) and the error asks for
 * more; in every other case it is the PI law. */
static void test_mu_hold(void **state)
{
    (void)state;
    qc_mu_ctl c;
    qc_pi_params p = {0, 0.5, 0, 100, 50, QC_AW_CONDITIONAL, 1};
    assert_int_equal(qc_mu_ctl_init(&c, &p, NULL), 0);
    qc_mu_ctl_act a;
    /* binding (peak 50 = floor(50)), e = 10: 55 */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 50, 50}, &a), 0);
    assert_true(a.u == 55 && !a.held);
    /* slack (peak 40 < 55), e = 20: held */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 40, 40}, &a), 0);
    assert_true(a.u == 55 && a.held);
    /* slack but e = -10 asks for less: the law, 50 */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 70, 40}, &a), 0);
    assert_true(a.u == 50 && !a.held);
    /* the integrator did not move while held: binding, e = 4: 52 */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 56, 50}, &a), 0);
    assert_true(a.u == 52 && !a.held);
    /* an unknown peak never holds */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 56, NAN}, &a), 0);
    assert_true(a.u == 54 && !a.held);
    /* a lost measurement keeps u */
    assert_int_equal(qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, NAN, 54}, &a), QC_EINVAL);
    assert_true(a.u == 54 && !a.held);
    /* at u_max the law saturates */
    for (int k = 0; k < 40; k++)
        qc_mu_ctl_step(&c, &(qc_mu_ctl_sense){60, 0, 1000}, &a);
    assert_true(a.u == 100 && a.saturated == 1);
}

/* The knee estimator on a closed-form plant: c workers of no-load latency
 * L0 behind the MaxUsers controller, overloaded. With y in flight the
 * plant completes X = min(y, c) / L0 a second at mean latency
 * max(L0, y / X), and each interval's least latency is min_frac L0; when
 * given, L0 is handed to the estimator before each step (as the admission
 * front does). 300 intervals of 0.1 s; returns the reference in force. */
static double knee_plant(qc_knee *k, double c, double l0, double min_frac, int given,
                         double probe_period)
{
    const double dt = 0.1;
    qc_knee_params kp;
    qc_knee_params_init(&kp);
    kp.probe_period = probe_period;
    assert_int_equal(qc_knee_init(k, &kp, NULL), 0);
    qc_pi_params pp = {0, 0.5, 1, 1000, 20, QC_AW_CONDITIONAL, 1};
    qc_mu_ctl mu;
    assert_int_equal(qc_mu_ctl_init(&mu, &pp, NULL), 0);
    double r = kp.r_init;
    for (int t = 1; t <= 300; t++) {
        double y = floor(mu.u); /* overload: the limit is always full */
        double x = (y < c ? y : c) / l0, mean = y / x > l0 ? y / x : l0;
        qc_knee_sense in = {t * dt, dt, x * dt, mean, min_frac * l0, y, floor(mu.u)};
        if (given)
            qc_knee_set_noload(k, l0);
        qc_knee_act a;
        qc_knee_step(k, &in, &a);
        r = a.r;
        if (a.first && mu.u > r)
            qc_mu_ctl_reset(&mu, r);
        qc_mu_ctl_sense ms = {r, y, y};
        qc_mu_ctl_act ma;
        qc_mu_ctl_step(&mu, &ms, &ma);
    }
    return r;
}

/* Deterministic services (the least latency is L0): the reference must
 * settle at (1 + headroom) c, for two server sizes, and the queue target
 * at L0. */
static void test_knee_plant(void **state)
{
    (void)state;
    const unsigned sizes[] = {4, 16};
    qc_knee_params kp;
    qc_knee_params_init(&kp);
    for (unsigned s = 0; s < 2; s++) {
        double c = sizes[s], l0 = 0.01;
        qc_knee k;
        double r = knee_plant(&k, c, l0, 1, 0, 0);
        assert_float_equal(r, (1 + kp.headroom) * c, 0.05 * c);
        assert_float_equal(qc_knee_queue_target(k.l0, 0.001, INFINITY, 0.05), l0, 1e-12);
    }
    assert_float_equal(qc_knee_queue_target(NAN, 0.001, INFINITY, 0.05), 0.05, 0);
}

/* The same plant with exponential services: an interval's least latency is
 * a small fraction of the mean no-load latency L0 (here 5%), and n = X
 * min is no knee (under one: never taken for a measure, the reference
 * left at its light-load floor; in the front, where the limit binds and
 * the verdicts move it, the MaxUsers limit settled at 1 to 3 in front of 4
 * workers). Given the plant's mean L0 (qc_knee_set_noload) before each
 * step, as the admission front gives it, the reference settles at (1 +
 * headroom) c, and neither the least latency nor a probe (every 10 s, the
 * default) replaces L0. */
static void test_knee_given_noload(void **state)
{
    (void)state;
    const double c = 4, l0 = 0.05;
    qc_knee_params kp;
    qc_knee_params_init(&kp);
    for (int given = 0; given <= 1; given++) {
        qc_knee k;
        double r = knee_plant(&k, c, l0, 0.05, given, kp.probe_period);
        if (given) {
            assert_float_equal(r, (1 + kp.headroom) * c, 0.05 * c);
            assert_float_equal(k.l0, l0, 0);
        } else { /* X min < 1: never a measure of the knee, the reference not on it */
            print_message("  least latency as L0: reference %g against %g\n", r,
                          (1 + kp.headroom) * c);
            assert_true(fabs(r - (1 + kp.headroom) * c) > 0.5 * c);
        }
    }
    qc_knee k;
    assert_int_equal(qc_knee_init(&k, &kp, NULL), 0);
    qc_knee_set_noload(&k, NAN); /* ignored */
    qc_knee_set_noload(&k, -1);
    assert_int_equal(k.l0_given, 0);
}

/* The light-load floor: one worker of no-load latency L0 at a load rho,
 * its latency L0 / (1 - rho) as in M/M/1 (20% above L0 from rho = 1/6
 * on), under a limit that never fills (peak 2 of 20). Its samples X L0 =
 * rho are lower bounds, not the knee: the reference stays at r_init and
 * the limit is never restarted. With the limit full they are not a
 * measure either (X L0 = rho < 1: a host's stall, not a server's knee);
 * the worker saturated (X = 1 / L0, 10 L0 of latency, the limit full) is:
 * the knee 1, the reference 1.5. */
static void test_knee_light_load(void **state)
{
    (void)state;
    const double l0 = 0.001, dt = 0.1;
    const double loads[] = {0.2, 0.5, 0.9};
    for (unsigned i = 0; i < 3; i++) {
        double rho = loads[i], x = rho / l0, mean = l0 / (1 - rho);
        qc_knee_params kp;
        qc_knee_params_init(&kp);
        qc_knee k;
        assert_int_equal(qc_knee_init(&k, &kp, NULL), 0);
        int firsts = 0;
        qc_knee_act a;
        for (int t = 1; t <= 200; t++) {
            /* the limit full in every 10th interval, with 10 L0 of latency */
            int full = t % 10 == 0;
            qc_knee_sense in = {t * dt, dt, x * dt, full ? 10 * l0 : mean, l0, full ? 20 : 2, 20};
            qc_knee_step(&k, &in, &a);
            firsts += a.first;
            assert_true(a.r >= kp.r_init); /* the floor, probes included */
        }
        assert_int_equal(firsts, 0);
        assert_int_equal(k.found, 0);
        assert_float_equal(k.knee, rho, 1e-9); /* the lower bound, X L0 */
        /* saturated: a measure */
        qc_knee_sense in = {201 * dt, dt, dt / l0, 10 * l0, l0, 20, 20};
        qc_knee_step(&k, &in, &a);
        assert_int_equal(a.first, 1);
        assert_float_equal(a.r, 1 + kp.headroom, 1e-9);
    }
}

/* The defaults are a controller qc_pi_init accepts, with the values the
 * header states: integral control, so a first step from u_init 0 with
 * error 10 moves u by ki x 10 = 1. */
static void test_pi_params_init(void **state)
{
    (void)state;
    qc_pi_params p;
    memset(&p, 0xff, sizeof p);
    qc_pi_params_init(&p);
    assert_true(p.kp == 0 && p.ki == 0.1 && p.u_min == 0 && p.u_max == 1000 && p.u_init == 0);
    assert_int_equal(p.aw, QC_AW_CONDITIONAL);
    assert_true(p.k_aw == 1);
    qc_pi c;
    assert_int_equal(qc_pi_init(&c, &p, NULL), 0);
    qc_pi_act a;
    qc_pi_step(&c, &(qc_pi_sense){.r = 10, .y = 0}, &a);
    assert_true(fabs(a.u - 1) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_law),
        cmocka_unit_test(test_pi_params_init),
        cmocka_unit_test(test_antiwindup),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_mu_hold),
        cmocka_unit_test(test_knee_plant),
        cmocka_unit_test(test_knee_given_noload),
        cmocka_unit_test(test_knee_light_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
