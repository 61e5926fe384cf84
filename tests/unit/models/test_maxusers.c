/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_maxusers.c: the MaxUsers plant against operational laws, its
 * sensors, and closed-loop tracking.
 *
 * In the default configuration (T = 4 threads, mean service 0.4 s, mean
 * think Z = 5 s) and MaxUsers = 375, about 667 users want to be connected,
 * so the limit binds and the server is saturated: its throughput is
 * X = T / E[S] = 10 RPC/s. Little's law on the thinking users gives
 * (connected - RIS) = (X + C) Z, where C is the rate of sessions started
 * (every think ends in an RPC or, once a session is over, in a
 * disconnection, and disconnections balance connections); on the server,
 * RIS = X R. Each holds in
 * expectation over a long run; replications give t-intervals that must
 * contain the exact values (99% each, three checks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/arx.h"
#include "qctl/controller.h"
#include "qctl/design.h"
#include "qctl/maxusers.h"
#include "qctl/stats.h"

typedef struct plant_dists {
    qc_dist think, service, session, off, retry;
} plant_dists;

static void dists(plant_dists *d)
{
    memset(d, 0, sizeof *d);
    assert_int_equal(qc_dist_parse(&d->think, "exp:0.2", NULL), 0);
    assert_int_equal(qc_dist_parse(&d->service, "exp:2.5", NULL), 0);
    assert_int_equal(qc_dist_parse(&d->session, "exp:0.0008333", NULL), 0);
    assert_int_equal(qc_dist_parse(&d->off, "exp:0.0016667", NULL), 0);
    assert_int_equal(qc_dist_parse(&d->retry, "det:30", NULL), 0);
}

static void dists_free(plant_dists *d)
{
    qc_dist_free(&d->think);
    qc_dist_free(&d->service);
    qc_dist_free(&d->session);
    qc_dist_free(&d->off);
    qc_dist_free(&d->retry);
}

static void plant_params(qc_maxusers_params *p, const plant_dists *d)
{
    qc_maxusers_params_init(p);
    p->think = &d->think;
    p->service = &d->service;
    p->session = &d->session;
    p->off = &d->off;
    p->retry = &d->retry;
}

static void test_operational_laws(void **state)
{
    (void)state;
    enum { REPS = 8, N = 240, SKIP = 60 };
    plant_dists d;
    dists(&d);
    double thr[REPS], think_ratio[REPS], little[REPS];
    for (int rep = 0; rep < REPS; rep++) {
        qc_maxusers_params p;
        plant_params(&p, &d);
        p.rep = (uint32_t)rep;
        p.maxusers_init = 375;
        qc_maxusers *m = qc_maxusers_alloc(&p, NULL);
        assert_non_null(m);
        double x = 0, ris = 0, conn = 0, rsum = 0, cps = 0;
        uint64_t done = 0;
        for (int k = 0; k < N; k++) {
            qc_maxusers_sample s;
            assert_int_equal(qc_maxusers_step(m, 375, &s), 0);
            /* the log misses what is still in the server: never more */
            assert_true(s.ris_logged <= s.ris + 1e-9);
            assert_true(s.connected <= 375);
            if (k < SKIP)
                continue;
            x += s.throughput;
            ris += s.ris;
            conn += s.connected;
            cps += (double)s.connects / p.interval;
            rsum += s.response * (double)s.completed;
            done += s.completed;
        }
        x /= N - SKIP;
        ris /= N - SKIP;
        conn /= N - SKIP;
        cps /= N - SKIP;
        thr[rep] = x;
        think_ratio[rep] = (conn - ris) / (x + cps); /* Z by Little's law */
        little[rep] = ris / (x * rsum / (double)done);
        qc_maxusers_free(m);
    }
    qc_ci ci;
    assert_int_equal(qc_ci_t(thr, REPS, 0.99, &ci, NULL), 0);
    printf("  throughput %.4f +- %.4f (exact 10)\n", ci.mean, ci.half);
    assert_true(ci.lo <= 10 && 10 <= ci.hi && ci.half < 0.1);
    assert_int_equal(qc_ci_t(think_ratio, REPS, 0.99, &ci, NULL), 0);
    printf("  (connected - RIS)/(X + C) %.4f +- %.4f (exact Z = 5)\n", ci.mean, ci.half);
    /* connected is sampled at instants, RIS averaged over intervals: both
     * unbiased for their time averages, so the ratio's CI must hold 5 */
    assert_true(ci.lo <= 5 && 5 <= ci.hi && ci.half < 0.25);
    assert_int_equal(qc_ci_t(little, REPS, 0.99, &ci, NULL), 0);
    printf("  RIS / (X R) %.5f +- %.5f (exact 1)\n", ci.mean, ci.half);
    assert_true(ci.lo <= 1 && 1 <= ci.hi && ci.half < 0.02);
    dists_free(&d);
}

/* The logged sensor's closed form and its reach. f(N) by hand at two
 * points, its limit X Delta / 2, then against simulation: at MaxUsers 375
 * and at MaxUsers' limit (1000, where the users who want a session, 667,
 * bind), the mean logged RIS over 4 replications of 3 h lies within 2% of
 * f at the mean true RIS, and at the limit within 2% of the bound, which
 * is well below the X Delta / 2 = 300 the log could read with an endless
 * queue (measured when written: 176.3 against 176.4, 223.2 against 222.4). */
static void test_logged_reach(void **state)
{
    (void)state;
    plant_dists d;
    dists(&d);
    qc_maxusers_params p;
    plant_params(&p, &d);
    /* X Delta = 4 / 0.4 x 60 = 600 */
    assert_true(fabs(qc_mu_logged_at(&p, 325) - (325 - 325.0 * 325 / 600 * (1 - exp(-600 / 325.0)))) < 1e-9);
    assert_true(fabs(qc_mu_logged_at(&p, 1e7) - 300) < 0.01);
    assert_true(qc_mu_logged_at(&p, 300) < qc_mu_logged_at(&p, 301));
    const double bound = qc_mu_logged_bound(&p);
    /* N_max = 1000 x 1200 / 1800 - 10 x 5 = 616.67 */
    const double nmax = 1000 * 1200.0 / 1800 - 50, xx = 600 / nmax;
    printf("  bound %.2f (X Delta / 2 = 300)\n", bound);
    assert_true(fabs(bound - nmax * (1 - (1 - exp(-xx)) / xx)) < 0.05);
    p.discipline = QC_FCFS;
    assert_true(fabs(qc_mu_logged_at(&p, 300) - (300 - 300.0 * 300 / 1200)) < 1e-9);
    assert_true(fabs(qc_mu_logged_at(&p, 900) - 300) < 1e-9);
    p.discipline = QC_PS;
    const double mus[2] = {375, 1000};
    for (int i = 0; i < 2; i++) {
        double ris = 0, logged = 0;
        int n = 0;
        for (uint32_t rep = 0; rep < 4; rep++) {
            plant_params(&p, &d);
            p.rep = rep;
            p.seed = 11;
            p.maxusers_init = mus[i];
            qc_maxusers *m = qc_maxusers_alloc(&p, NULL);
            assert_non_null(m);
            for (int k = 0; k < 200; k++) {
                qc_maxusers_sample s;
                assert_int_equal(qc_maxusers_step(m, mus[i], &s), 0);
                if (k < 20)
                    continue;
                ris += s.ris;
                logged += s.ris_logged;
                n++;
            }
            qc_maxusers_free(m);
        }
        ris /= n;
        logged /= n;
        const double f = qc_mu_logged_at(&p, ris);
        printf("  MaxUsers %g: RIS %.1f, logged %.1f, closed form %.1f\n", mus[i], ris, logged, f);
        assert_true(fabs(logged - f) < 0.02 * f);
        if (mus[i] == 1000)
            assert_true(fabs(logged - bound) < 0.02 * bound);
    }
    dists_free(&d);
}

static void test_reproducible_and_limits(void **state)
{
    (void)state;
    plant_dists d;
    dists(&d);
    qc_maxusers_params p;
    plant_params(&p, &d);
    p.population = 300;
    qc_maxusers *a = qc_maxusers_alloc(&p, NULL), *b = qc_maxusers_alloc(&p, NULL);
    for (int k = 0; k < 30; k++) {
        qc_maxusers_sample sa, sb;
        double u = k < 10 ? 1e9 : k < 20 ? -5 : 120; /* saturated to [0, 300] */
        assert_int_equal(qc_maxusers_step(a, u, &sa), 0);
        assert_int_equal(qc_maxusers_step(b, u, &sb), 0);
        assert_memory_equal(&sa, &sb, sizeof sa);
        assert_true(sa.maxusers == (k < 10 ? 300 : k < 20 ? 0 : 120));
        if (k >= 10 && k < 20)
            assert_true(sa.connected <= (k == 10 ? 300 : sb.connected)); /* no new ones */
    }
    qc_maxusers_free(a);
    qc_maxusers_free(b);
    qc_err err = {0};
    p.population = 0;
    assert_null(qc_maxusers_alloc(&p, &err));
    assert_int_equal(err.code, QC_EINVAL);
    p.population = 10;
    p.think = NULL;
    assert_null(qc_maxusers_alloc(&p, &err));
    assert_non_null(strstr(err.msg, "think"));
    dists_free(&d);
}

/* Closed loop with a low gain: a reference step is tracked with
 * steady-state error under 5% and no saturation. */
static void test_low_gain_tracks(void **state)
{
    (void)state;
    plant_dists d;
    dists(&d);
    qc_mu_run_params rp;
    memset(&rp, 0, sizeof rp);
    plant_params(&rp.plant, &d);
    qc_sched_point ref[2] = {{0, 325}, {7200, 250}};
    rp.closed_loop = 1;
    rp.pi = (qc_pi_params){0, 0.1, 0, 1000, 375, QC_AW_CONDITIONAL, 1};
    rp.ref = ref;
    rp.nref = 2;
    rp.duration = 14400;
    qc_mu_run_result r;
    assert_int_equal(qc_mu_run(&rp, &r, NULL), 0);
    assert_int_equal(r.nsteps, 2);
    for (size_t i = 0; i < r.nsteps; i++) {
        printf("  K_I 0.1 step to %g: settling %g s, overshoot %.1f%%, sse %+.2f%%\n", r.steps[i].r,
               r.steps[i].settling, r.steps[i].overshoot, 100 * r.steps[i].sse);
        assert_true(fabs(r.steps[i].sse) < 0.05);
        assert_false(isnan(r.steps[i].settling));
    }
    assert_true(r.frac_saturated == 0);
    qc_mu_run_result_free(&r);
    dists_free(&d);
}

/* The whole method on the simulated server: identify a first-order model
 * from a PRBS experiment, compute the stable K_I range, then close the
 * loop. A gain at 1.5 times the upper bound never settles on either step;
 * a gain at 1% of it tracks both steps with steady-state error under 5%. */
static void test_identified_stable_range(void **state)
{
    (void)state;
    plant_dists d;
    dists(&d);
    qc_mu_run_params rp;
    memset(&rp, 0, sizeof rp);
    plant_params(&rp.plant, &d);
    qc_sched_point mu = {0, 375};
    rp.input = &mu;
    rp.ninput = 1;
    rp.excite = QC_EXCITE_PRBS;
    rp.excite_amp = 50;
    rp.excite_hold = 3;
    rp.duration = 48000;
    qc_mu_run_result r;
    assert_int_equal(qc_mu_run(&rp, &r, NULL), 0);
    enum { SKIP = 30 };
    size_t n = r.n - SKIP;
    double u[800], y[800];
    assert_true(n <= 800);
    /* instant k: u(k) is samples[k].maxusers, y(k) is samples[k-1].ris */
    for (size_t k = 0; k < n; k++) {
        u[k] = r.samples[SKIP + k].maxusers;
        y[k] = r.samples[SKIP + k - 1].ris;
    }
    qc_mu_run_result_free(&r);
    qc_arx_params o;
    qc_arx_params_init(&o);
    o.na_min = o.na_max = o.nb_min = o.nb_max = 1;
    o.d_min = o.d_max = 0;
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(n, &err);
    qc_arx_result fit;
    assert_int_equal(qc_arx_fit(w, u, y, n, &o, &fit, &err), 0);
    qc_arx_free(w);
    printf("  identified: a = %.4f, b = %.4f, R^2 = %.3f\n", fit.model.a[0], fit.model.b[0], fit.r2);
    /* a first-order fit of the saturated server: stable, static gain
     * within 15% of the plant's (1: RIS = MaxUsers - X Z while it binds) */
    assert_true(fit.model.a[0] > 0 && fit.model.a[0] < 1 && fit.model.b[0] > 0);
    assert_true(fabs(qc_arx_dc_gain(&fit.model) - 1) < 0.15);
    assert_true(fit.r2 >= 0.75);
    qc_design_ws *dw = qc_design_alloc(&fit.model, NULL, &err);
    assert_non_null(dw);
    qc_design_range range;
    assert_int_equal(qc_design_stable_range(dw, 0, &range, &err), 0);
    qc_design_free(dw);
    double analytic = 2 * (1 + fit.model.a[0]) / fit.model.b[0];
    printf("  stable for 0 < K_I < %.4f (analytic 2(1+a)/b = %.4f)\n", range.hi, analytic);
    assert_true(fabs(range.hi - analytic) < 1e-3 * analytic);

    qc_sched_point ref[2] = {{0, 250}, {10800, 325}};
    memset(&rp, 0, sizeof rp);
    plant_params(&rp.plant, &d);
    rp.closed_loop = 1;
    rp.ref = ref;
    rp.nref = 2;
    rp.duration = 21600;
    rp.warmup = 7200;
    rp.pi = (qc_pi_params){0, 1.5 * range.hi, 0, 1000, 375, QC_AW_NONE, 1};
    assert_int_equal(qc_mu_run(&rp, &r, NULL), 0);
    for (size_t i = 0; i < r.nsteps; i++)
        assert_true(isnan(r.steps[i].settling));
    printf("  K_I = %.3g: saturated %.0f%% of intervals, never settles\n", 1.5 * range.hi,
           100 * r.frac_saturated);
    qc_mu_run_result_free(&r);
    rp.pi.ki = 0.01 * range.hi;
    assert_int_equal(qc_mu_run(&rp, &r, NULL), 0);
    for (size_t i = 0; i < r.nsteps; i++) {
        printf("  K_I = %.3g step to %g: settling %g s, sse %+.2f%%\n", rp.pi.ki, r.steps[i].r,
               r.steps[i].settling, 100 * r.steps[i].sse);
        assert_false(isnan(r.steps[i].settling));
        assert_true(fabs(r.steps[i].sse) < 0.05);
    }
    qc_mu_run_result_free(&r);
    dists_free(&d);
}

/* The demand hold is right for this plant: a reference above what the
 * users' demand allows (700; at most about 667 users want to be connected,
 * RIS about 617) for 2 h, then 325. Without the hold (peak unknown: plain
 * PI law) MaxUsers winds up to its limit 1000 and must come back through
 * the range where it does not bind before RIS moves; with the hold it
 * stops near the demand and the step to 325 settles sooner, in every
 * replication (common random numbers: the users are the same). */
static void test_hold_recovers(void **state)
{
    (void)state;
    enum { REPS = 3, WARM = 120, UP = 120, DOWN = 240 };
    plant_dists d;
    dists(&d);
    for (int rep = 0; rep < REPS; rep++) {
        double settle[2], u_at_step[2];
        for (int hold = 0; hold < 2; hold++) {
            qc_maxusers_params p;
            plant_params(&p, &d);
            p.rep = (uint32_t)rep;
            p.maxusers_init = 375;
            qc_maxusers *m = qc_maxusers_alloc(&p, NULL);
            assert_non_null(m);
            qc_mu_ctl c;
            qc_pi_params pp = {0, 0.1, 0, 1000, 375, QC_AW_CONDITIONAL, 1};
            assert_int_equal(qc_mu_ctl_init(&c, &pp, NULL), 0);
            qc_maxusers_sample s;
            for (int k = 0; k < WARM; k++)
                assert_int_equal(qc_maxusers_step(m, 375, &s), 0);
            double u = 375, ma[5] = {0};
            int last_out = 0;
            for (int k = 0; k < UP + DOWN; k++) {
                assert_int_equal(qc_maxusers_step(m, u, &s), 0);
                double r = k < UP ? 700 : 325;
                qc_mu_ctl_sense in = {r, s.ris, hold ? s.connected_peak : NAN};
                qc_mu_ctl_act a;
                qc_mu_ctl_step(&c, &in, &a);
                u = a.u;
                if (k == UP - 1)
                    u_at_step[hold] = u;
                if (k >= UP) {
                    ma[k % 5] = s.ris;
                    double avg = (ma[0] + ma[1] + ma[2] + ma[3] + ma[4]) / 5;
                    if (k < UP + 4 || fabs(avg - 325) > 32.5)
                        last_out = k;
                }
            }
            assert_true(last_out + 5 < UP + DOWN); /* settled in both cases */
            settle[hold] = 60.0 * (last_out - UP + 2);
            qc_maxusers_free(m);
        }
        printf("  rep %d: MaxUsers at the step %.0f without the hold, %.0f with; settling to 325 "
               "%.0f s without, %.0f s with\n",
               rep, u_at_step[0], u_at_step[1], settle[0], settle[1]);
        assert_true(u_at_step[0] == 1000);
        assert_true(u_at_step[1] < 900);
        assert_true(settle[1] < settle[0]);
    }
    dists_free(&d);
}

static void test_schedule_parse(void **state)
{
    (void)state;
    qc_sched_point pts[8];
    size_t n;
    qc_err err = {0};
    assert_int_equal(qc_sched_parse("325", pts, 8, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(qc_sched_parse("325@0,400@3600", pts, 8, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_true(qc_sched_at(pts, n, 3599) == 325 && qc_sched_at(pts, n, 3600) == 400);
    assert_int_equal(qc_sched_parse("325@5", pts, 8, &n, &err), QC_EPARSE);
    assert_int_equal(qc_sched_parse("325@0,400@0", pts, 8, &n, &err), QC_EPARSE);
    assert_int_equal(qc_sched_parse("325@0,", pts, 8, &n, &err), QC_EPARSE);
    assert_int_equal(qc_sched_parse("3x5", pts, 8, &n, &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "column 2"));
    assert_int_equal(qc_sched_parse("", pts, 8, &n, &err), QC_EPARSE);
}

/* The defaults are the command's (sim maxusers: 14400 s, band 0.1, true
 * sensor of gain 1, controller up to the population) and need only a
 * schedule: without one the check refuses the run, naming what is
 * missing; with MaxUsers 375 for 600 s it runs 10 intervals. */
static void test_run_params_init(void **state)
{
    (void)state;
    qc_mu_run_params p;
    memset(&p, 0xff, sizeof p);
    qc_mu_run_params_init(&p);
    assert_true(p.duration == 14400 && p.band == 0.1 && p.sensor_gain == 1 && p.warmup == 0);
    assert_int_equal(p.plant.population, 1000);
    assert_true(p.pi.u_max == 1000 && p.pi.u_init == 1000 && p.pi.ki == 0.1);
    assert_int_equal(p.closed_loop, 0);
    assert_null(p.cancel);
    qc_err err = {0};
    assert_int_equal(qc_mu_run_params_check(&p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "no MaxUsers schedule"));
    plant_dists d;
    dists(&d);
    plant_params(&p.plant, &d);
    qc_sched_point mu = {0, 375};
    p.input = &mu;
    p.ninput = 1;
    p.duration = 600;
    assert_int_equal(qc_mu_run_params_check(&p, &err), 0);
    qc_mu_run_result r;
    assert_int_equal(qc_mu_run(&p, &r, &err), 0);
    assert_int_equal(r.n, 10);
    qc_mu_run_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_operational_laws),
        cmocka_unit_test(test_logged_reach),
        cmocka_unit_test(test_reproducible_and_limits),
        cmocka_unit_test(test_low_gain_tracks),
        cmocka_unit_test(test_identified_stable_range),
        cmocka_unit_test(test_hold_recovers),
        cmocka_unit_test(test_schedule_parse),
        cmocka_unit_test(test_run_params_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
