/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_admission.c: the admission controller and the baseline limiters on
 * hand-written sequences (direction and size of each documented move),
 * then the closed loop's claimed properties at small scale with fixed
 * seeds:
 *
 *   (ii) an admissible candidate is admitted; an inadmissible one is
 *        rejected while the admitted class keeps its bound. Admissibility
 *        is checked independently: the achievable-region conditions
 *        (qc_mc_region_admissible, exact for exponential classes) and, for
 *        the admissible set, a static witness: fixed priorities under
 *        which a plain simulation (no controller) meets both bounds;
 *   (i)  with a gentle slow start (large alpha) the admitted class's mean
 *        delay stays below its bound while a candidate enters; with a
 *        harsh one (alpha = 2) it does not, which shows the test can fail;
 *   and time to admit grows with alpha; best effort keeps its throughput.
 *
 * The run-level checks are t-intervals over replications at 95%; the
 * seeds are fixed, so each assertion is a fixed fact of the code, chosen
 * with margin (the figures are printed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/admission.h"
#include "qctl/limiters.h"
#include "qctl/multiclass.h"

#define NEAR(a, b) (fabs((a) - (double)(b)) <= 1e-12 * (1 + fabs((double)(b))))

static qc_adm make(double bound, double eps, double alpha, int admitted)
{
    qc_adm c;
    qc_adm_params p;
    qc_adm_params_init(&p, bound, eps, alpha, admitted);
    assert_int_equal(qc_adm_init(&c, &p, NULL), 0);
    return c;
}

static qc_adm_act step(qc_adm *c, double d, double n)
{
    qc_adm_act a;
    qc_adm_sense in = {d, n, NULL, 0};
    assert_int_equal(qc_adm_step(c, &in, &a), 0);
    return a;
}

/* ---- the tracking law ---------------------------------------------------------- */

static void test_tracking_law(void **state)
{
    (void)state;
    /* D = 2, eps 0.1: T = 1.8; g 0.3, m 20, p0 0.1 */
    qc_adm c = make(2, 0.1, 20, 1);
    qc_adm_act a = step(&c, 2.7, 20); /* x = 0.5: up by exp(0.15) */
    assert_true(NEAR(a.priority, 0.1 * exp(0.15)));
    assert_int_equal(a.event, QC_ADM_EV_TRACK);
    assert_true(NEAR(a.target, 1.8));
    double p = a.priority;
    a = step(&c, 0.9, 20); /* x = -0.5: down by exp(-0.15) */
    assert_true(NEAR(a.priority, p * exp(-0.15)));
    p = a.priority;
    a = step(&c, 1.8, 37); /* on target: no move whatever the count */
    assert_true(NEAR(a.priority, p));
    a = step(&c, 2.7, 40); /* twice the completions: twice the step */
    assert_true(NEAR(a.priority, p * exp(0.3)));
    p = a.priority;
    a = step(&c, 10, 20); /* x = 8.2/1.8: x_sat = 2 applied, the rest carried */
    assert_true(NEAR(a.priority, p * exp(0.6)));
    p = a.priority;
    assert_true(NEAR(c.carry, 8.2 / 1.8 - 2));
    a = step(&c, 1.8, 20); /* on target, but the carry is still applied */
    assert_true(NEAR(a.priority, p * exp(0.6)));
    while (c.carry > 0)
        a = step(&c, 1.8, 20);
    /* in all, exactly the error of the late sample: exp(0.3 * 8.2 / 1.8) */
    assert_true(fabs(log(a.priority / (p / exp(0.6))) - 0.3 * 8.2 / 1.8) < 1e-9);
    for (int k = 0; k < 200; k++)
        a = step(&c, 0, 20); /* clipped at p_min */
    assert_true(NEAR(a.priority, 1e-3));
    for (int k = 0; k < 200; k++)
        a = step(&c, 1e9, 20); /* and at p_max */
    assert_true(NEAR(a.priority, 1e6));
    assert_int_equal(a.state, QC_ADM_ADMITTED);
}

/* ---- slow start, back-off, rejection ---------------------------------------------- */

static void test_slow_start_and_backoff(void **state)
{
    (void)state;
    /* alpha 10: x1.1 per sample from 0.01; delay fixed at 5 > T = 1.8 */
    qc_adm c = make(2, 0.1, 10, 0);
    double p = 0.01;
    qc_adm_act a;
    int k = 0;
    while (p < 1) {
        a = step(&c, 5, 20);
        p *= 1.1;
        assert_int_equal(a.event, QC_ADM_EV_GROW);
        assert_true(NEAR(a.priority, p));
        k++;
    }
    assert_int_equal(k, 49); /* 0.01 * 1.1^49 = 1.067 */
    /* armed: the epoch starts here (s_ref = 5); ten growth samples later
     * the delay has not improved by 5%: back off to half, and congestion
     * avoidance adds ssthresh / alpha per sample */
    a = step(&c, 5, 20); /* epoch starts, grows */
    p *= 1.1;
    assert_true(NEAR(a.priority, p));
    for (int i = 0; i < 9; i++) {
        a = step(&c, 5, 20);
        p *= 1.1;
        assert_int_equal(a.event, QC_ADM_EV_GROW);
    }
    a = step(&c, 5, 20);
    assert_int_equal(a.event, QC_ADM_EV_BACKOFF);
    p *= 0.5;
    assert_true(NEAR(a.priority, p));
    double ss = p;
    a = step(&c, 5, 20);
    assert_int_equal(a.event, QC_ADM_EV_GROW);
    assert_true(NEAR(a.priority, p + ss / 10));
    p += ss / 10;
    /* a delay that rose by more than theta = 50% over the epoch's start
     * backs off at once */
    for (int i = 0; i < 6; i++)
        a = step(&c, 30, 20); /* s climbs from 5 toward 30 */
    assert_int_equal(c.backoffs, 2);
    /* more back-offs: the fourth rejects (F = 3), priority to p_min */
    int rejected = 0;
    for (int i = 0; i < 400 && !rejected; i++) {
        a = step(&c, 30, 20);
        rejected = a.event == QC_ADM_EV_REJECT;
    }
    assert_true(rejected);
    assert_int_equal(a.state, QC_ADM_REJECTED);
    assert_true(NEAR(a.priority, 1e-3));
    a = step(&c, 0.1, 20); /* rejected for good */
    assert_int_equal(a.state, QC_ADM_REJECTED);
    assert_int_equal(a.event, QC_ADM_EV_NONE);
    assert_true(NEAR(a.priority, 1e-3));
}

/* A delay that keeps improving is never a stall: no back-off. */
static void test_improving_no_backoff(void **state)
{
    (void)state;
    qc_adm c = make(2, 0.1, 10, 0);
    double d = 50;
    for (int i = 0; i < 200; i++) {
        qc_adm_act a = step(&c, d, 20);
        assert_true(a.event == QC_ADM_EV_GROW);
        d *= 0.99; /* 10% better per epoch of 10 samples */
        if (d < 3)
            break;
    }
    assert_int_equal(c.backoffs, 0);
}

/* No error is lost: one busy cycle of late jobs (delay 10 T) is balanced
 * by 18 early samples (0.5 T), and the completion-weighted mean delay of
 * the whole sequence is T; the priority must end where it began. The
 * same sequence under a clipped error (x_sat, carry dropped) would end
 * 18 x 0.15 - 0.6 lower. */
static void test_tracking_unbiased(void **state)
{
    (void)state;
    qc_adm c = make(2, 0.1, 20, 1);
    double T = 1.8, p0 = qc_adm_priority(&c);
    step(&c, 10 * T, 20);
    for (int i = 0; i < 18; i++)
        step(&c, 0.5 * T, 20);
    assert_true(fabs(c.carry) < 1e-9);
    assert_true(fabs(log(qc_adm_priority(&c) / p0)) < 1e-9);
    /* sample size does not matter: one sample of 100 jobs at 1.1 T moves
     * p as five of 20 */
    qc_adm a = make(2, 0.1, 20, 1), b = make(2, 0.1, 20, 1);
    step(&a, 1.1 * T, 100);
    for (int i = 0; i < 5; i++)
        step(&b, 1.1 * T, 20);
    assert_true(NEAR(qc_adm_priority(&a), qc_adm_priority(&b)));
}

static qc_adm_act step_peer(qc_adm *c, double d, double n, double w)
{
    qc_adm_act a;
    qc_adm_sense in = {d, n, &w, 1};
    assert_int_equal(qc_adm_step(c, &in, &a), 0);
    return a;
}

/* Probation: at s <= (1 - max(eps, 0.05)) D the priority freezes; S = 20
 * samples settle, and the first look comes after K = 80 more. */
static void test_probation(void **state)
{
    (void)state;
    /* delays steady at 1.9 <= D = 2 (se 0), the admitted weight steady:
     * admitted at the first look, sample 1 + 19 + 80 */
    qc_adm c = make(2, 0.1, 10, 0);
    qc_adm_act a = step_peer(&c, 1.0, 20, 0.5); /* s = 1 <= 1.8 */
    assert_int_equal(a.event, QC_ADM_EV_HOLD);
    double p = a.priority;
    assert_true(NEAR(p, 0.01));
    for (int i = 1; i < 99; i++) {
        a = step_peer(&c, i < 20 ? 3.0 : 1.9, 20, 0.5);
        assert_int_equal(a.event, QC_ADM_EV_HOLD);
        assert_true(NEAR(a.priority, p));
    }
    a = step_peer(&c, 1.9, 20, 0.5);
    assert_int_equal(a.event, QC_ADM_EV_ADMIT);
    assert_int_equal(a.state, QC_ADM_ADMITTED);
    assert_true(NEAR(c.test_mean, 1.9));

    /* the same delays while the admitted weight still climbs (x2 over the
     * window, more than eta = 25%): not admitted at any look, the window
     * starts over */
    qc_adm e = make(2, 0.1, 10, 0);
    step_peer(&e, 1.0, 20, 0.5);
    double w = 0.5;
    for (int i = 1; i < 400; i++) {
        w *= i < 20 ? 1 : pow(2, 1.0 / 80);
        a = step_peer(&e, 1.9, 20, w);
        assert_int_equal(a.event, QC_ADM_EV_HOLD);
    }
    assert_true(e.test_rise > log(1.25));
    /* ... and falling as much is no better */
    qc_adm f = make(2, 0.1, 10, 0);
    step_peer(&f, 1.0, 20, 0.5);
    w = 0.5;
    for (int i = 1; i < 400; i++) {
        w /= i < 20 ? 1 : pow(2, 1.0 / 80);
        a = step_peer(&f, 1.9, 20, w);
        assert_int_equal(a.state, QC_ADM_CANDIDATE);
    }

    /* delays with mean 1.9 that swing slowly (1.5 rising to 2.3 over each
     * 80 samples): the batch means differ, se > (2 - 1.9) / z, so no look
     * admits; at the last look (320) the test fails and it grows */
    qc_adm g = make(2, 0.1, 10, 0);
    step_peer(&g, 1.0, 20, 0.5);
    int admitted = 0, failed = 0;
    for (int i = 1; i < 20 + 320 && !admitted && !failed; i++) {
        int j = i < 20 ? 0 : (i - 20) % 80;
        double d = i < 20 ? 1.9 : 1.5 + 0.8 * j / 79.0;
        a = step_peer(&g, d, 20, 0.5);
        admitted = a.event == QC_ADM_EV_ADMIT;
        failed = a.event == QC_ADM_EV_RETRY;
    }
    assert_false(admitted);
    assert_true(failed);
    assert_true(g.test_se > 0);

    /* a failed test (2.1 > D, se 0): the candidate grows for an epoch of
     * ceil(alpha) = 10 samples before it may freeze again */
    qc_adm d = make(2, 0.1, 10, 0);
    step_peer(&d, 1.0, 20, 0.5);
    for (int i = 1; i < 100; i++)
        a = step_peer(&d, 2.1, 20, 0.5);
    assert_int_equal(a.event, QC_ADM_EV_RETRY);
    assert_true(NEAR(a.priority, 0.011));
    for (int i = 0; i < 9; i++) {
        a = step_peer(&d, 1.0, 20, 0.5); /* s falls below T, still grows */
        assert_int_equal(a.event, QC_ADM_EV_GROW);
    }
    a = step_peer(&d, 1.0, 20, 0.5);
    assert_int_equal(a.event, QC_ADM_EV_HOLD);

    /* an admitted weight at the ceiling W = 1e6 (p_max) rejects at once */
    qc_adm r = make(2, 0.1, 10, 0);
    a = step_peer(&r, 5, 20, 0.5);
    assert_int_equal(a.event, QC_ADM_EV_GROW);
    a = step_peer(&r, 5, 20, 1e6);
    assert_int_equal(a.event, QC_ADM_EV_REJECT);
    assert_true(NEAR(a.priority, 1e-3));
}

/* A fixed pseudo-random standard normal (sum of 12 uniforms from an LCG),
 * so the sequences below are the same on every run. */
static double lcg_normal(uint64_t *x)
{
    double s = 0;
    for (int i = 0; i < 12; i++) {
        *x = *x * 6364136223846793005u + 1442695040888963407u;
        s += (double)(*x >> 11) / 9007199254740992.0;
    }
    return s - 6;
}

/* Runs a candidate (D = 2, eps 0.1, alpha 10) from a first sample of 1.0
 * (it freezes at once) through S + 80 samples of delay d_i and admitted
 * weight w_i: 1 if admitted at the first look. */
static int first_look_admits(qc_adm *c, const double *d, const double *w)
{
    qc_adm_act a = step_peer(c, 1.0, 20, w[0]);
    for (int i = 1; i < 100; i++)
        a = step_peer(c, d[i], 20, w[i]);
    return a.event == QC_ADM_EV_ADMIT;
}

/* The evidence rules that go beyond a single batch-means interval. */
static void test_probation_evidence(void **state)
{
    (void)state;
    double d[100], w[100];
    uint64_t x = 12345;

    /* An admitted weight that wanders about a level (log w with sd 1 per
     * sample, no trend) is read as steady: its fitted rise is within
     * what the batch means' residuals allow; the rule that compared the
     * raw rise with log(1.25) would not have admitted here. */
    for (int i = 0; i < 100; i++) {
        d[i] = 1.9;
        w[i] = 0.5 * exp(lcg_normal(&x));
    }
    qc_adm a = make(2, 0.1, 10, 0);
    assert_true(first_look_admits(&a, d, w));
    assert_true(fabs(a.test_rise) > log(1.25));
    assert_true(fabs(a.test_rise) - a.z_rise * a.test_rise_se <= log(1.25));

    /* The same kind of noise (sd 0.3) on a weight that doubles over the
     * window: the climb is shown, not admitted. */
    for (int i = 0; i < 100; i++)
        w[i] = 0.5 * exp(0.3 * lcg_normal(&x) + (i < 20 ? 0 : log(2) * (i - 20) / 79.0));
    qc_adm b = make(2, 0.1, 10, 0);
    assert_false(first_look_admits(&b, d, w));
    assert_true(b.test_rise - b.z_rise * b.test_rise_se > log(1.25));

    /* A window with a small spread is not trusted by a class that has
     * shown a large one before (the heavy-tail floor). History: a window
     * whose delays swing between 0.5 and 4 in long runs fails at its last
     * look; then, after the epoch of growth it owes, a window of delays
     * 1.9 +- 0.02 comes. A fresh controller admits that window at its
     * first look; the one with the history does not, and its se is at
     * least mu sqrt(q / N). */
    for (int i = 0; i < 100; i++) {
        d[i] = 1.9 + (i % 2 ? 0.02 : -0.02);
        w[i] = 0.5;
    }
    qc_adm fresh = make(2, 0.1, 10, 0);
    assert_true(first_look_admits(&fresh, d, w));
    qc_adm h = make(2, 0.1, 10, 0);
    qc_adm_act ev = step_peer(&h, 1.0, 20, 0.5);
    int failed = 0;
    for (int i = 1; i < 2000 && !failed; i++) {
        ev = step_peer(&h, ((i / 40) % 2) ? 4.0 : 0.5, 20, 0.5);
        failed = ev.event == QC_ADM_EV_RETRY;
    }
    assert_true(failed);
    assert_int_equal(h.q_n, 1);
    for (int i = 0; i < 200 && h.frozen == 0; i++)
        step_peer(&h, 1.0, 20, 0.5);
    assert_true(h.frozen);
    int admitted = 0;
    for (int i = 0; i < 99 && !admitted; i++)
        admitted = step_peer(&h, d[i + 1], 20, 0.5).event == QC_ADM_EV_ADMIT;
    assert_false(admitted);
    assert_true(h.test_se >= h.test_mean * sqrt(h.q_sum / h.q_n / (80 * 20)) * (1 - 1e-12));
    assert_true(h.test_se > fresh.test_se);
}

static void test_bad_params(void **state)
{
    (void)state;
    qc_adm c;
    qc_adm_params p;
    qc_err err = {0};
    qc_adm_params_init(&p, 2, -0.1, 20, 0);
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "epsilon"));
    assert_non_null(strstr(err.msg, "negative"));
    qc_adm_params_init(&p, 2, 1, 20, 0);
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    qc_adm_params_init(&p, 2, 0.1, 0, 0);
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "alpha"));
    qc_adm_params_init(&p, 2, 0.1, -3, 0);
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    qc_adm_params_init(&p, 0, 0.1, 20, 0);
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "bound"));
    qc_adm_params_init(&p, 2, 0.1, 20, 0);
    p.window_max = QC_ADM_WINDOW_MAX + 1;
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "window_max"));
    qc_adm_params_init(&p, 2, 0.1, 20, 0);
    p.confidence = 1;
    assert_int_equal(qc_adm_init(&c, &p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "confidence"));
    /* a lost sample holds the priority */
    qc_adm d = make(2, 0.1, 20, 1);
    qc_adm_act a;
    assert_int_equal(qc_adm_step(&d, &(qc_adm_sense){NAN, 20, NULL, 0}, &a), QC_EINVAL);
    assert_int_equal(qc_adm_step(&d, &(qc_adm_sense){1, 0, NULL, 0}, &a), QC_EINVAL);
    assert_true(NEAR(a.priority, 0.1));
}

/* ---- baselines -------------------------------------------------------------------- */

static void test_static_and_util(void **state)
{
    (void)state;
    qc_lim_static s;
    qc_lim_static_act sa;
    assert_int_equal(qc_lim_static_init(&s, 0.4, NULL), 0);
    assert_int_equal(qc_lim_static_step(&s, &(qc_lim_static_sense){99, 20}, &sa), 0);
    assert_true(sa.priority == 0.4);
    assert_int_equal(qc_lim_static_init(&s, 0, NULL), QC_EINVAL);
    qc_lim_util u;
    qc_lim_util_act ua;
    assert_int_equal(qc_lim_util_init(&u, 0.9, 0.5, NULL), 0);
    qc_lim_util_step(&u, &(qc_lim_util_sense){QC_LIM_JOIN, 0.3}, &ua);
    assert_int_equal(ua.admit, 1);
    assert_true(NEAR(ua.admitted, 0.8));
    qc_lim_util_step(&u, &(qc_lim_util_sense){QC_LIM_JOIN, 0.2}, &ua);
    assert_int_equal(ua.admit, 0); /* 1.0 > 0.9 */
    qc_lim_util_step(&u, &(qc_lim_util_sense){QC_LIM_LEAVE, 0.3}, &ua);
    qc_lim_util_step(&u, &(qc_lim_util_sense){QC_LIM_JOIN, 0.2}, &ua);
    assert_int_equal(ua.admit, 1);
    assert_true(NEAR(ua.admitted, 0.7));
}

static qc_lim_act sample(qc_lim_conc *c, double t, double rtt, uint32_t inflight, int dropped)
{
    qc_lim_act a;
    qc_lim_sample s = {t, rtt, t - rtt, inflight, dropped};
    assert_int_equal(qc_lim_conc_step(c, &s, &a), 0);
    return a;
}

/* Gradient2: steady rtt grows the limit by smoothing * queue_size per
 * sample; an rtt well above the long-term one cuts it; the app-limited
 * rule holds it. */
static void test_gradient2(void **state)
{
    (void)state;
    qc_lim_conc c = {.kind = QC_LIM_GRADIENT2};
    qc_lim_gradient2_params p;
    qc_lim_gradient2_params_init(&p);
    assert_int_equal(qc_lim_gradient2_init(&c.u.g2, &p, NULL), 0);
    qc_lim_act a = sample(&c, 1, 1.0, 20, 0);
    assert_true(NEAR(a.limit, 20.8)); /* gradient 1: 20 + 0.2 * 4 */
    a = sample(&c, 2, 1.0, 20, 0);
    assert_true(NEAR(a.limit, 21.6));
    a = sample(&c, 3, 1.0, 5, 0); /* 5 < 21.6 / 2: app limited */
    assert_true(NEAR(a.limit, 21.6));
    for (int i = 0; i < 20; i++)
        a = sample(&c, 4 + i, 1.0, 40, 0);
    double l = a.limit;
    /* long = 1 (EMA of ones); rtt 4: gradient max(0.5, 1.5 / 4) = 0.5:
     * new = 0.8 l + 0.2 (0.5 l + 4) */
    a = sample(&c, 30, 4.0, 40, 0);
    assert_true(fabs(a.limit - (0.8 * l + 0.2 * (0.5 * l + 4))) < 1e-9);
    assert_true(a.limit < l);
    for (int i = 0; i < 2000; i++)
        a = sample(&c, 40 + i, 1.0, 400, 0);
    assert_true(NEAR(a.limit, 200)); /* max */
}

/* Vegas: with f(L) = 1 below 100, a queue estimate of 0 adds 6, one
 * between 3 and 6 holds, one above 6 takes 1 off, a drop takes 1 off. */
static void test_vegas(void **state)
{
    (void)state;
    qc_lim_conc c = {.kind = QC_LIM_VEGAS};
    qc_lim_vegas_params p;
    qc_lim_vegas_params_init(&p);
    p.probe_multiplier = 1000; /* no probe in this test */
    assert_int_equal(qc_lim_vegas_init(&c.u.vegas, &p, NULL), 0);
    qc_lim_act a = sample(&c, 1, 1.0, 20, 0); /* sets rtt_noload */
    assert_true(NEAR(a.limit, 20));
    a = sample(&c, 2, 1.0, 20, 0); /* queue 0 <= f = 1: + 6 f */
    assert_true(NEAR(a.limit, 26));
    a = sample(&c, 3, 1.0 / (1 - 3.5 / 26), 26, 0); /* queue 4: within [3, 6]: hold */
    assert_true(NEAR(a.limit, 26));
    a = sample(&c, 4, 2.0, 26, 0); /* queue 13 > 6: - f */
    assert_true(NEAR(a.limit, 25));
    a = sample(&c, 5, 1.0, 25, 1); /* dropped: - f */
    assert_true(NEAR(a.limit, 24));
    a = sample(&c, 6, 1.0, 5, 0); /* 2 * 5 < 24: hold */
    assert_true(NEAR(a.limit, 24));
    a = sample(&c, 7, 1.0 / (1 - 1.5 / 24), 24, 0); /* queue 2 < 3 f: + f */
    assert_true(NEAR(a.limit, 25));
    a = sample(&c, 8, 0.5, 25, 0); /* a new minimum: only remembered */
    assert_true(NEAR(a.limit, 25));
    assert_true(NEAR(c.u.vegas.rtt_noload, 0.5));
}

/* Envoy: the limit starts pinned at min_concurrency (3) until 50 samples
 * give minRTT; then, per sample window, limit <- floor(l + sqrt(l)) with
 * l = limit * clamp(1.25 minRTT / sampleRTT, 0.5, 2). */
static void test_envoy(void **state)
{
    (void)state;
    qc_lim_conc c = {.kind = QC_LIM_ENVOY};
    qc_lim_envoy_params p;
    qc_lim_envoy_params_init(&p);
    p.jitter = 0;
    assert_int_equal(qc_lim_envoy_init(&c.u.envoy, &p, 0, NULL), 0);
    qc_lim_act a;
    double t = 0;
    for (int i = 0; i < 50; i++) {
        t += 0.001;
        a = sample(&c, t, 0.001, 3, 0);
        assert_true(NEAR(a.limit, 3));
    }
    assert_int_equal(c.u.envoy.in_window, 0);
    assert_true(fabs(c.u.envoy.min_rtt - 0.001) < 0.001 * 0.01); /* histogram: < 1% */
    double expect = 3;
    double t_update = t + 0.1;
    for (int w = 0; w < 4; w++) {
        /* samples at the minimum within this window; the update happens at
         * the first step after the window ends */
        for (int i = 0; i < 5; i++)
            a = sample(&c, t_update - 0.05 + 0.01 * i, c.u.envoy.min_rtt, 3, 0);
        a = sample(&c, t_update + 1e-9, c.u.envoy.min_rtt, 3, 0);
        double l = expect * 1.25;
        expect = floor(l + sqrt(l));
        assert_true(NEAR(a.limit, expect));
        t_update += 0.1;
    }
    /* 3 -> 5 -> 8 -> 13 -> 20 */
    assert_true(NEAR(expect, 20));
    /* a sampleRTT 4x the minimum halves it (gradient clamped at 0.5) */
    for (int i = 0; i < 5; i++)
        a = sample(&c, t_update - 0.05 + 0.01 * i, 4 * c.u.envoy.min_rtt, 20, 0);
    a = sample(&c, t_update + 1e-9, 4 * c.u.envoy.min_rtt, 20, 0);
    assert_true(NEAR(a.limit, floor(10 + sqrt(10.0))));
    assert_true(isfinite(a.next_tick));
    qc_lim_envoy_free(&c.u.envoy);
}

/* ---- the closed loop ------------------------------------------------------------------ */

typedef struct scen {
    qc_dist a[3], s;
    qc_mc_run_class c[3];
} scen;

/* gold admitted (D 2), silver a candidate from 20000 (lambda, D), best
 * effort 0.3; all exp:1 services. */
static void scen_init(scen *x, double lam_silver, double d_silver)
{
    char spec[32];
    assert_int_equal(qc_dist_parse(&x->a[0], "exp:0.2", NULL), 0);
    snprintf(spec, sizeof spec, "exp:%g", lam_silver);
    assert_int_equal(qc_dist_parse(&x->a[1], spec, NULL), 0);
    assert_int_equal(qc_dist_parse(&x->a[2], "exp:0.3", NULL), 0);
    assert_int_equal(qc_dist_parse(&x->s, "exp:1", NULL), 0);
    x->c[0] = (qc_mc_run_class){{"gold", &x->a[0], &x->s, 0, 0.6, 0}, 2.0, 0};
    x->c[1] = (qc_mc_run_class){{"silver", &x->a[1], &x->s, 20000, 0.3, 0}, d_silver, 1};
    x->c[2] = (qc_mc_run_class){{"web", &x->a[2], &x->s, 0, 0, 1}, 0, 0};
}

static void scen_free(scen *x)
{
    for (int k = 0; k < 3; k++)
        qc_dist_free(&x->a[k]);
    qc_dist_free(&x->s);
}

static void run(const scen *x, qc_mc_policy pol, double eps, double alpha, double horizon,
                unsigned reps, qc_mc_run_result *r)
{
    qc_mc_run_params p;
    qc_mc_run_params_init(&p);
    p.nclass = 3;
    p.cls = x->c;
    p.policy = pol;
    p.adm.epsilon = eps;
    p.adm.alpha = alpha;
    p.horizon = horizon;
    p.warmup = 10000;
    p.window = 5000;
    p.reps = reps;
    p.seed = 7;
    qc_err err = {0};
    if (qc_mc_run(&p, r, &err) != 0)
        fail_msg("qc_mc_run: %s", err.msg);
}

static void show(const char *what, const qc_mc_run_result *r)
{
    printf("  %s\n", what);
    static const char *const nm[3] = {"gold", "silver", "web"};
    for (int k = 0; k < 3; k++) {
        const qc_mc_run_class_result *c = &r->cls[k];
        printf("    %-6s delay %.4f [%.4f, %.4f] while admitted %.4f [%.4f, %.4f] "
               "adm %u rej %u und %u admit time %.0f\n",
               nm[k], c->delay.mean, c->delay.lo, c->delay.hi, c->admitted_delay.mean,
               c->admitted_delay.lo, c->admitted_delay.hi, c->admitted, c->rejected,
               c->undecided, c->admit_time.mean);
    }
    printf("    expected worst excursion %.4f [%.4f, %.4f] (class %u at %.0f); per rep %.4f "
           "[%.4f, %.4f]; region %d/%d\n",
           r->worst_mean.mean, r->worst_mean.lo, r->worst_mean.hi, r->worst_mean_class,
           r->worst_mean_t, r->worst.mean, r->worst.lo, r->worst.hi, r->region_bounds,
           r->region_targets);
}

static void test_property_ii(void **state)
{
    (void)state;
    scen x;
    qc_mc_run_result r;
    /* admissible: the region conditions hold; a static witness meets both
     * bounds in a plain simulation; the candidate is admitted */
    scen_init(&x, 0.2, 2.5);
    run(&x, (qc_mc_policy){.admitter = QC_MC_STATIC}, 0.1, 20, 60000, 8, &r);
    show("admissible, static witness (0.6, 0.3)", &r);
    assert_int_equal(r.region_bounds, 1);
    assert_int_equal(r.region_targets, 1);
    assert_true(r.cls[0].delay.hi < 2.0 && r.cls[1].delay.hi < 2.5);
    qc_mc_run_result_free(&r);
    run(&x, (qc_mc_policy){.admitter = QC_MC_AUTONOMIC}, 0.1, 20, 300000, 8, &r);
    show("admissible, autonomic eps 0.1 alpha 20", &r);
    assert_int_equal(r.cls[1].admitted, 8);
    assert_true(r.cls[0].admitted_delay.hi < 2.0);
    assert_true(r.cls[1].admitted_delay.hi < 2.5);
    /* best effort keeps its throughput (the server is stable) */
    assert_true(fabs(r.be_throughput.mean - 0.3) <= r.be_throughput.half + 0.003);
    qc_mc_run_result_free(&r);
    scen_free(&x);

    /* inadmissible: the region conditions fail (so no priorities of any
     * work-conserving discipline can meet both bounds); silver is
     * rejected and gold keeps its bound */
    scen_init(&x, 0.3, 1.7);
    run(&x, (qc_mc_policy){.admitter = QC_MC_AUTONOMIC}, 0.1, 20, 300000, 8, &r);
    show("inadmissible, autonomic eps 0.1 alpha 20", &r);
    assert_int_equal(r.region_bounds, 0);
    assert_int_equal(r.cls[1].admitted, 0); /* undecided is allowed */
    assert_true(r.cls[1].rejected >= 6);
    assert_true(r.cls[0].admitted_delay.hi < 2.0);
    assert_true(r.worst_mean.mean < 0.05);
    qc_mc_run_result_free(&r);
    /* the open-loop utilization test lets it in (U = 0.5 <= 0.9), and
     * gold then misses its bound */
    run(&x, (qc_mc_policy){.admitter = QC_MC_UTILIZATION}, 0.1, 20, 60000, 8, &r);
    show("inadmissible, utilization test", &r);
    assert_int_equal(r.cls[1].admitted, 8);
    assert_true(r.cls[0].admitted_delay.lo > 2.0 || r.cls[1].admitted_delay.lo > 1.7);
    qc_mc_run_result_free(&r);
    scen_free(&x);
}

static void test_property_i(void **state)
{
    (void)state;
    scen x;
    qc_mc_run_result r;
    /* contested: silver can get in only if gold gives up its slack */
    scen_init(&x, 0.3, 2.3);
    run(&x, (qc_mc_policy){.admitter = QC_MC_AUTONOMIC}, 0.05, 2, 80000, 8, &r);
    show("contested, eps 0.05 alpha 2 (harsh slow start)", &r);
    double harsh = r.worst_mean.mean;
    assert_true(r.worst_mean.lo > 0); /* gold pushed above its bound */
    assert_int_equal(r.worst_mean_class, 0);
    qc_mc_run_result_free(&r);
    run(&x, (qc_mc_policy){.admitter = QC_MC_AUTONOMIC}, 0.05, 20, 200000, 8, &r);
    show("contested, eps 0.05 alpha 20", &r);
    assert_true(r.cls[0].admitted_delay.hi < 2.0);
    assert_true(r.worst_mean.mean < harsh / 2);
    double t20 = r.cls[1].admit_time.mean;
    qc_mc_run_result_free(&r);
    run(&x, (qc_mc_policy){.admitter = QC_MC_AUTONOMIC}, 0.05, 5, 200000, 8, &r);
    show("contested, eps 0.05 alpha 5", &r);
    assert_true(r.cls[1].admit_time.mean < t20); /* gentler is slower */
    qc_mc_run_result_free(&r);
    scen_free(&x);
}

static void test_run_bad_input(void **state)
{
    (void)state;
    scen x;
    scen_init(&x, 0.3, 1.2); /* silver alone needs 1/(1-0.3) = 1.43 */
    qc_mc_run_params p;
    qc_mc_run_params_init(&p);
    p.nclass = 3;
    p.cls = x.c;
    qc_mc_run_result r;
    qc_err err = {0};
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "silver"));
    assert_non_null(strstr(err.msg, "cannot be met by any priority"));
    x.c[1].bound = 0.5; /* below its own service time */
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "service time"));
    x.c[1].bound = 1.5; /* bound fine, target 1.35 not */
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "epsilon"));
    x.c[1].bound = 2.5;
    p.adm.epsilon = -0.1;
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "epsilon"));
    p.adm.epsilon = 0.1;
    p.adm.alpha = 0;
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "alpha"));
    p.adm.alpha = 20;
    /* a limiter goes with the static admitter only */
    p.policy = (qc_mc_policy){QC_MC_AUTONOMIC, 1, QC_LIMITER_AIMD};
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_EINVAL);
    assert_string_equal(err.msg, "policy: admitter autonomic with limiter aimd is none of the "
                                 "policies (a limiter goes with the static admitter: gradient2, "
                                 "vegas, envoy or aimd)");
    p.policy = (qc_mc_policy){QC_MC_STATIC, 1, QC_LIMITER_FIXED};
    assert_int_equal(qc_mc_run_params_check(&p, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "limiter fixed"));
    p.policy = (qc_mc_policy){QC_MC_STATIC, 1, QC_LIMITER_AIMD};
    assert_int_equal(qc_mc_run_params_check(&p, &err), 0);
    p.policy = (qc_mc_policy){.admitter = QC_MC_AUTONOMIC};
    p.nclass = 0;
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "no classes"));
    p.nclass = 1;
    p.cls = &x.c[2]; /* only best effort */
    assert_int_equal(qc_mc_run(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "no delay-bounded class"));
    scen_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tracking_law),
        cmocka_unit_test(test_probation_evidence),
        cmocka_unit_test(test_slow_start_and_backoff),
        cmocka_unit_test(test_improving_no_backoff),
        cmocka_unit_test(test_tracking_unbiased),
        cmocka_unit_test(test_probation),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_static_and_util),
        cmocka_unit_test(test_gradient2),
        cmocka_unit_test(test_vegas),
        cmocka_unit_test(test_envoy),
        cmocka_unit_test(test_property_ii),
        cmocka_unit_test(test_property_i),
        cmocka_unit_test(test_run_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
