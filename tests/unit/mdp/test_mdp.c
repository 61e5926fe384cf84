/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_mdp.c: the finite average-cost MDP solver against hand-solved
 * models, brute force and each other.
 *
 * Tolerances. Policy evaluation is a direct (banded GTH) solve, exact to
 * rounding: gains of order 1 are checked to 1e-12. Relative value
 * iteration stops when span(Tv - v) <= tol, and for ANY v
 * min(Tv - v) <= g* <= max(Tv - v) (Odoni's bounds), so the exact gain
 * must lie in the reported bounds up to rounding (1e-12 of slack); the
 * bounds are at most tol apart. The iterative (Gauss-Seidel) evaluation
 * stops at a relative change of 1e-13 per sweep; its gain is checked
 * against the direct one to 1e-9, a bound with room for the error left
 * after stopping (the sweeps contract geometrically; 1e-9 is four orders
 * above the stopping threshold times the largest value, about 1e-11). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/mdp.h"
#include "qctl/rng.h"

#define EXACT 1e-12

static qc_mdp *finish_or_fail(qc_mdp *m)
{
    qc_err err = {0};
    if (qc_mdp_finish(m, &err) != 0)
        fail_msg("finish: %s", err.msg);
    return m;
}

/* Machine replacement, two states: 0 good, 1 worn.
 *   good: run, cost 0, stays good w.p. 0.8, wears w.p. 0.2;
 *   worn: keep (cost 4, stays worn) or replace (cost 10, good next step).
 * Keep: worn is absorbing, g = 4. Replace: the chain good -> worn -> good
 * has pi = (1/1.2, 0.2/1.2) = (5/6, 1/6), so g = 10/6 = 5/3 < 4: replace
 * is optimal. Relative values with h(good) = 0:
 *   worn:  h(1) = 10 - g + h(0) = 10 - 5/3 = 25/3;
 *   check good: 0 - g + 0.8 h(0) + 0.2 h(1) = -5/3 + 5/3 = 0.  ok
 *   keep at worn: 4 + h(1) = 37/3 > 10 + h(0) = 10, so replace wins.
 * Under keep, good is transient; with r = worn, h(worn) = 0 and
 * h(good) = E[cost until worn] - g E[steps until worn] = 0 - 4 * 5 = -20. */
static qc_mdp *machine(void)
{
    qc_mdp *m = qc_mdp_alloc(2, 3, 4, NULL);
    assert_non_null(m);
    qc_mdp_add_action(m, 0, 0, 0.0);
    qc_mdp_add_trans(m, 0, 0.8);
    qc_mdp_add_trans(m, 1, 0.2);
    qc_mdp_add_action(m, 1, 0, 4.0); /* keep */
    qc_mdp_add_trans(m, 1, 1.0);
    qc_mdp_add_action(m, 1, 1, 10.0); /* replace */
    qc_mdp_add_trans(m, 0, 1.0);
    return finish_or_fail(m);
}

static void test_machine_replacement(void **state)
{
    (void)state;
    qc_mdp *m = machine();
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    assert_non_null(w);
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    qc_err err = {0};
    qc_mdp_result r;
    unsigned pol[2] = {0, 0};
    double h[2], v[2], pi[2], g;

    assert_int_equal(qc_mdp_pi(m, w, &o, pol, h, &r, &err), 0);
    assert_int_equal(pol[1], 1);
    assert_true(fabs(r.gain - 5.0 / 3) < EXACT);
    assert_true(fabs(h[0]) < EXACT && fabs(h[1] - 25.0 / 3) < EXACT);

    for (int sw = 0; sw < 2; sw++) {
        o.sweep = sw ? QC_MDP_GAUSS_SEIDEL : QC_MDP_JACOBI;
        o.tol = 1e-11;
        v[0] = v[1] = 0;
        assert_int_equal(qc_mdp_rvi(m, w, &o, v, pol, &r, &err), 0);
        assert_true(r.tau == 0.5); /* worn/replace has no self-loop */
        assert_true(r.gain_lo - EXACT <= 5.0 / 3 && 5.0 / 3 <= r.gain_hi + EXACT);
        assert_true(r.gain_hi - r.gain_lo <= o.tol);
        assert_int_equal(pol[1], 1);
        /* v is returned on the original scale: h(worn) = 25/3 */
        assert_true(fabs(v[1] - v[0] - 25.0 / 3) < 1e-8);
    }

    unsigned keep[2] = {0, 0};
    assert_int_equal(qc_mdp_evaluate(m, w, &o, keep, &g, h, &err), 0);
    assert_true(fabs(g - 4) < EXACT);
    assert_true(fabs(h[1]) < EXACT && fabs(h[0] + 20) < 1e-11);
    assert_int_equal(qc_mdp_stationary(m, w, keep, pi, &err), 0);
    assert_true(pi[0] == 0.0 && fabs(pi[1] - 1) < EXACT);
    unsigned rep[2] = {0, 1};
    assert_int_equal(qc_mdp_stationary(m, w, rep, pi, &err), 0);
    assert_true(fabs(pi[0] - 5.0 / 6) < EXACT && fabs(pi[1] - 1.0 / 6) < EXACT);
    qc_mdp_ws_free(w);
    qc_mdp_free(m);
}

/* Three states, deterministic moves (action: next state, cost):
 *   s0: a0 -> s1 cost 2,  a1 -> s0 cost 3
 *   s1: a0 -> s0 cost 2,  a1 -> s2 cost 0
 *   s2: a0 -> s0 cost 6,  a1 -> s2 cost 4
 * The gain of a deterministic model is its least mean cycle cost among
 * the cycles it can settle in: s0 loop 3; s0 <-> s1 (2+2)/2 = 2; s2 loop 4;
 * s0 -> s1 -> s2 -> s0 (2+0+6)/3 = 8/3. So g* = 2 with the cycle
 * s0 <-> s1 and s2 -> s0. With h(s0) = 0: h(s1) = 2 - 2 + 0 = 0,
 * h(s2) = 6 - 2 + 0 = 4; the other actions lose: s0 loop 3 + 0 > 2 + 0,
 * s1 -> s2 0 + 4 > 2 + 0, s2 loop 4 + 4 > 6 + 0. The optimal chain has
 * period 2: value iteration needs the aperiodicity transform (tau chosen
 * automatically as 0.5, some pairs lacking a self-loop); without it the
 * values oscillate and the span never shrinks. */
static qc_mdp *three_state(void)
{
    qc_mdp *m = qc_mdp_alloc(3, 6, 6, NULL);
    assert_non_null(m);
    static const struct { size_t s, to; double cost; } a[6] = {
        {0, 1, 2}, {0, 0, 3}, {1, 0, 2}, {1, 2, 0}, {2, 0, 6}, {2, 2, 4}};
    for (int i = 0; i < 6; i++) {
        qc_mdp_add_action(m, a[i].s, i % 2, a[i].cost);
        qc_mdp_add_trans(m, a[i].to, 1.0);
    }
    return finish_or_fail(m);
}

static void test_three_state_periodic(void **state)
{
    (void)state;
    qc_mdp *m = three_state();
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    qc_err err = {0};
    qc_mdp_result r;
    unsigned pol[3] = {1, 1, 1}; /* start from the worst: all loops */
    double h[3], v[3], pi[3];
    assert_int_equal(qc_mdp_pi(m, w, &o, pol, h, &r, &err), 0);
    assert_true(fabs(r.gain - 2) < EXACT);
    assert_true(pol[0] == 0 && pol[1] == 0 && pol[2] == 0);
    assert_true(fabs(h[0]) < EXACT && fabs(h[1]) < EXACT && fabs(h[2] - 4) < EXACT);
    assert_int_equal(qc_mdp_stationary(m, w, pol, pi, &err), 0);
    assert_true(fabs(pi[0] - 0.5) < EXACT && fabs(pi[1] - 0.5) < EXACT && pi[2] == 0);

    for (int sw = 0; sw < 2; sw++) {
        o.sweep = sw ? QC_MDP_GAUSS_SEIDEL : QC_MDP_JACOBI;
        o.tol = 1e-10;
        memset(v, 0, sizeof v);
        assert_int_equal(qc_mdp_rvi(m, w, &o, v, pol, &r, &err), 0);
        assert_true(r.gain_lo - EXACT <= 2 && 2 <= r.gain_hi + EXACT);
        assert_true(pol[0] == 0 && pol[1] == 0 && pol[2] == 0);
        assert_true(fabs(v[2] - v[0] - 4) < 1e-8);
    }
    /* tau = 0 on a periodic optimal chain: no convergence (reported). */
    o.sweep = QC_MDP_JACOBI;
    o.tau = 0;
    o.max_iter = 2000;
    memset(v, 0, sizeof v);
    assert_int_equal(qc_mdp_rvi(m, w, &o, v, pol, &r, &err), QC_ERANGE);
    assert_false(r.converged);
    assert_true(r.gain_lo <= 2 + EXACT && 2 <= r.gain_hi + EXACT); /* still valid bounds */
    qc_mdp_ws_free(w);
    qc_mdp_free(m);
}

/* A communicating model where an improved policy has two closed classes:
 *   s0: go to s1 (cost 5) or stay (cost 1);  s1: stay (cost 2) or go to
 *   s0 (cost 0).
 * From "s0 -> s1, s1 stays" (g = 2, h = (3, 0)), improvement makes both
 * stay: classes {s0} with gain 1 and {s1} with gain 2. Undoing the change
 * at s0 would stop at g = 2; keeping the class of least gain and leading
 * s1 into it gives the optimum: s0 stays, s1 -> s0, g = 1. */
static void test_communicating_pi(void **state)
{
    (void)state;
    qc_mdp *m = qc_mdp_alloc(2, 4, 4, NULL);
    qc_mdp_add_action(m, 0, 0, 5);
    qc_mdp_add_trans(m, 1, 1);
    qc_mdp_add_action(m, 0, 1, 1);
    qc_mdp_add_trans(m, 0, 1);
    qc_mdp_add_action(m, 1, 0, 2);
    qc_mdp_add_trans(m, 1, 1);
    qc_mdp_add_action(m, 1, 1, 0);
    qc_mdp_add_trans(m, 0, 1);
    finish_or_fail(m);
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    qc_err err = {0};
    qc_mdp_result r;
    unsigned pol[2] = {0, 0};
    double h[2], g;
    assert_int_equal(qc_mdp_pi(m, w, &o, pol, h, &r, &err), 0);
    assert_true(fabs(r.gain - 1) < EXACT);
    assert_true(pol[0] == 1 && pol[1] == 1);
    /* Evaluating a policy with two closed classes is an error. */
    unsigned two[2] = {1, 0};
    assert_int_equal(qc_mdp_evaluate(m, w, &o, two, &g, h, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "not unichain"));
    qc_mdp_ws_free(w);
    qc_mdp_free(m);
}

/* Random models: S in [10, 50] states, 2 to 4 actions each, each action
 * moving to 1 to 5 random states and, with probability at least 0.05, to
 * state 0 (so every policy is unichain), costs uniform on [0, 1). */
static qc_mdp *random_mdp(qc_rng *r, size_t S)
{
    size_t P = 4 * S, T = 6 * P;
    qc_mdp *m = qc_mdp_alloc(S, P, T, NULL);
    assert_non_null(m);
    for (size_t s = 0; s < S; s++) {
        unsigned na = 2 + (unsigned)(qc_rng_u01(r) * 3);
        for (unsigned a = 0; a < na; a++) {
            qc_mdp_add_action(m, s, (int)a, qc_rng_u01(r));
            unsigned k = 1 + (unsigned)(qc_rng_u01(r) * 5);
            double wts[5], tot = 0;
            size_t to[5];
            for (unsigned i = 0; i < k; i++) {
                to[i] = (size_t)(qc_rng_u01(r) * (double)S);
                wts[i] = qc_rng_u01_open(r);
                tot += wts[i];
            }
            double p0 = 0.05 + 0.2 * qc_rng_u01(r);
            qc_mdp_add_trans(m, 0, p0);
            for (unsigned i = 0; i < k; i++)
                qc_mdp_add_trans(m, to[i], (1 - p0) * wts[i] / tot);
        }
    }
    return finish_or_fail(m);
}

/* Counts states where two policies differ by more than a tie: actions
 * whose Q values under h differ by more than tie. */
static size_t real_differences(const qc_mdp *m, const double *h, const unsigned *a,
                               const unsigned *b, double tie)
{
    size_t n = 0;
    for (size_t s = 0; s < qc_mdp_nstates(m); s++)
        if (a[s] != b[s] && fabs(qc_mdp_q(m, h, s, a[s]) - qc_mdp_q(m, h, s, b[s])) > tie)
            n++;
    return n;
}

static void test_random_pi_vs_rvi(void **state)
{
    (void)state;
    qc_rng r;
    qc_rng_init(&r, 20260501, qc_rng_stream(0, QC_STREAM_MISC, 1));
    for (int inst = 0; inst < 20; inst++) {
        size_t S = 10 + (size_t)(qc_rng_u01(&r) * 41);
        qc_mdp *m = random_mdp(&r, S);
        qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
        qc_mdp_ws *wit = qc_mdp_ws_alloc(m, 1, NULL); /* no band room: iterative paths */
        assert_non_null(w);
        assert_non_null(wit);
        qc_mdp_params o;
        qc_mdp_params_init(&o);
        o.tol = 1e-10;
        qc_err err = {0};
        qc_mdp_result rp, rr, ri;
        unsigned *pp = calloc(S, sizeof *pp), *pr = calloc(S, sizeof *pr),
                 *pit = calloc(S, sizeof *pit);
        double *h = calloc(S, sizeof *h), *v = calloc(S, sizeof *v), *hi = calloc(S, sizeof *hi);
        double *pi = calloc(S, sizeof *pi), *pi2 = calloc(S, sizeof *pi2);

        if (qc_mdp_pi(m, w, &o, pp, h, &rp, &err) != 0)
            fail_msg("instance %d: pi: %s", inst, err.msg);
        /* The same with iterative evaluation. */
        o.eval = QC_MDP_EVAL_ITERATIVE;
        if (qc_mdp_pi(m, wit, &o, pit, hi, &ri, &err) != 0)
            fail_msg("instance %d: pi (iterative): %s", inst, err.msg);
        o.eval = QC_MDP_EVAL_AUTO;
        assert_true(fabs(ri.gain - rp.gain) < 1e-9);
        assert_true(ri.eval_sweeps > 0 && rp.eval_sweeps == 0);
        assert_int_equal(real_differences(m, h, pp, pit, 1e-8), 0);

        for (int sw = 0; sw < 3; sw++) {
            o.sweep = sw == 0 ? QC_MDP_JACOBI : QC_MDP_GAUSS_SEIDEL;
            o.omega = sw == 2 ? 1.5 : 1.0;
            memset(v, 0, S * sizeof *v);
            if (qc_mdp_rvi(m, w, &o, v, pr, &rr, &err) != 0)
                fail_msg("instance %d sweep %d: rvi: %s", inst, sw, err.msg);
            if (!(rr.gain_lo - EXACT <= rp.gain && rp.gain <= rr.gain_hi + EXACT))
                fail_msg("instance %d sweep %d: PI gain %.15g outside RVI bounds [%.15g, %.15g]",
                         inst, sw, rp.gain, rr.gain_lo, rr.gain_hi);
            assert_true(rr.gain_hi - rr.gain_lo <= o.tol);
            /* RVI's greedy policy is optimal up to ties: where it differs
             * from PI's, the two Q values under PI's h are within 1e-8
             * (span 1e-10 leaves v within ~1e-10 / (1 - contraction) of
             * h; 1e-8 allows a contraction of 0.99). */
            assert_int_equal(real_differences(m, h, pp, pr, 1e-8), 0);
        }
        o.omega = 1.0;

        /* Stationary distribution: banded GTH against power iteration,
         * and the gain as pi . c. */
        assert_int_equal(qc_mdp_stationary(m, w, pp, pi, &err), 0);
        assert_int_equal(qc_mdp_stationary(m, wit, pp, pi2, &err), 0);
        double gc = 0, tot = 0;
        for (size_t s = 0; s < S; s++) {
            assert_true(fabs(pi[s] - pi2[s]) < 1e-12);
            gc += pi[s] * qc_mdp_cost(m, s, pp[s]);
            tot += pi[s];
        }
        assert_true(fabs(tot - 1) < EXACT);
        assert_true(fabs(gc - rp.gain) < EXACT);
        free(pp);
        free(pr);
        free(pit);
        free(h);
        free(v);
        free(hi);
        free(pi);
        free(pi2);
        qc_mdp_ws_free(w);
        qc_mdp_ws_free(wit);
        qc_mdp_free(m);
    }
}

/* On small random models the PI gain is the least over every
 * deterministic policy, enumerated. */
static void test_brute_force(void **state)
{
    (void)state;
    qc_rng r;
    qc_rng_init(&r, 77, qc_rng_stream(0, QC_STREAM_MISC, 2));
    for (int inst = 0; inst < 5; inst++) {
        size_t S = 6;
        qc_mdp *m = random_mdp(&r, S);
        qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
        qc_mdp_params o;
        qc_mdp_params_init(&o);
        qc_err err = {0};
        qc_mdp_result rp;
        unsigned pp[6] = {0}, pol[6] = {0};
        double h[6], g, best = INFINITY;
        assert_int_equal(qc_mdp_pi(m, w, &o, pp, h, &rp, &err), 0);
        for (;;) {
            assert_int_equal(qc_mdp_evaluate(m, w, &o, pol, &g, NULL, &err), 0);
            if (g < best)
                best = g;
            size_t s = 0;
            while (s < S && ++pol[s] == qc_mdp_nactions(m, s))
                pol[s++] = 0;
            if (s == S)
                break;
        }
        assert_true(fabs(best - rp.gain) < EXACT);
        qc_mdp_ws_free(w);
        qc_mdp_free(m);
    }
}

/* M/M/1/K as a one-action model (uniformized with L = lambda + mu):
 * pi_n = (1 - rho) rho^n / (1 - rho^(K+1)). */
static void test_stationary_birth_death(void **state)
{
    (void)state;
    const size_t K = 200;
    const double lam = 0.9, mu = 1.0, L = lam + mu;
    qc_mdp *m = qc_mdp_alloc(K + 1, K + 1, 3 * (K + 1), NULL);
    for (size_t n = 0; n <= K; n++) {
        qc_mdp_add_action(m, n, 0, (double)n);
        double up = n < K ? lam / L : 0, down = n > 0 ? mu / L : 0;
        if (up > 0)
            qc_mdp_add_trans(m, n + 1, up);
        if (down > 0)
            qc_mdp_add_trans(m, n - 1, down);
        qc_mdp_add_trans(m, n, 1 - up - down);
    }
    finish_or_fail(m);
    assert_int_equal(qc_mdp_bandwidth(m), 1);
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    unsigned *pol = calloc(K + 1, sizeof *pol);
    double *pi = calloc(K + 1, sizeof *pi);
    qc_err err = {0};
    assert_int_equal(qc_mdp_stationary(m, w, pol, pi, &err), 0);
    double rho = lam / mu, norm = (1 - rho) / (1 - pow(rho, (double)K + 1));
    for (size_t n = 0; n <= K; n++) {
        double exact = norm * pow(rho, (double)n);
        assert_true(fabs(pi[n] - exact) <= 1e-12 * exact);
    }
    /* gain per step = E[N] / L */
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    double g, en = 0;
    for (size_t n = 0; n <= K; n++)
        en += (double)n * pi[n];
    assert_int_equal(qc_mdp_evaluate(m, w, &o, pol, &g, NULL, &err), 0);
    assert_true(fabs(g - en) <= 1e-12 * en);
    free(pol);
    free(pi);
    qc_mdp_ws_free(w);
    qc_mdp_free(m);
}

static void test_bad_models(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_mdp *m = qc_mdp_alloc(2, 2, 4, NULL);
    /* a row that does not sum to 1 */
    qc_mdp_add_action(m, 0, 0, 1);
    qc_mdp_add_trans(m, 1, 0.5);
    qc_mdp_add_action(m, 1, 0, 1);
    qc_mdp_add_trans(m, 0, 1);
    assert_int_equal(qc_mdp_finish(m, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "sum"));
    assert_non_null(strstr(err.msg, "state 0"));
    /* next state out of range */
    qc_mdp_reset(m, 2);
    qc_mdp_add_action(m, 0, 0, 1);
    assert_int_equal(qc_mdp_add_trans(m, 5, 1), QC_ERANGE);
    assert_int_equal(qc_mdp_finish(m, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "next state 5"));
    /* a state without actions */
    qc_mdp_reset(m, 2);
    qc_mdp_add_action(m, 0, 0, 1);
    qc_mdp_add_trans(m, 0, 1);
    assert_int_equal(qc_mdp_finish(m, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "state 1 has no action"));
    /* out of order */
    qc_mdp_reset(m, 2);
    assert_int_equal(qc_mdp_add_action(m, 1, 0, 1), QC_EINVAL);
    /* too many pairs */
    qc_mdp_reset(m, 2);
    qc_mdp_add_action(m, 0, 0, 1);
    qc_mdp_add_action(m, 0, 1, 1);
    assert_int_equal(qc_mdp_add_action(m, 1, 0, 1), QC_ERANGE);
    /* a NaN cost */
    qc_mdp_reset(m, 2);
    assert_int_equal(qc_mdp_add_action(m, 0, 0, NAN), QC_EINVAL);
    /* a negative probability */
    qc_mdp_reset(m, 2);
    qc_mdp_add_action(m, 0, 0, 0);
    assert_int_equal(qc_mdp_add_trans(m, 0, -0.1), QC_EINVAL);
    qc_mdp_free(m);

    /* Policies and workspaces. */
    m = machine();
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    unsigned bad[2] = {0, 7};
    double g;
    assert_int_equal(qc_mdp_evaluate(m, w, &o, bad, &g, NULL, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "no action 7"));
    qc_mdp *big = three_state();
    unsigned zero3[3] = {0, 0, 0};
    assert_int_equal(qc_mdp_evaluate(big, w, &o, zero3, &g, NULL, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "workspace too small"));
    o.eval = QC_MDP_EVAL_DIRECT;
    qc_mdp_ws *nob = qc_mdp_ws_alloc(m, 1, NULL);
    unsigned ok[2] = {0, 1};
    assert_int_equal(qc_mdp_evaluate(m, nob, &o, ok, &g, NULL, &err), QC_ENOTSUP);
    qc_mdp_ws_free(nob);
    qc_mdp_ws_free(w);
    qc_mdp_free(big);
    qc_mdp_free(m);
    qc_mdp_ws_free(NULL);
    qc_mdp_free(NULL);
}

/* The constructors' errors: NULL with err set and a message naming what
 * was wrong. */
static void test_alloc_errors(void **state)
{
    (void)state;
    qc_err err = {0};
    assert_null(qc_mdp_alloc(0, 1, 1, &err));
    assert_int_equal(err.code, QC_EINVAL);
    assert_string_equal(err.msg, "MDP: 0 states and 1 pairs (need 1 <= states <= pairs)");
    assert_null(qc_mdp_alloc(3, 2, 4, &err));
    assert_int_equal(err.code, QC_EINVAL);
    qc_mdp *m = qc_mdp_alloc(2, 2, 4, NULL);
    assert_non_null(m);
    err = (qc_err){0};
    assert_null(qc_mdp_ws_alloc(m, 0, &err)); /* not finished */
    assert_int_equal(err.code, QC_EINVAL);
    assert_string_equal(err.msg, "MDP workspace: the model is not finished");
    assert_null(qc_mdp_ws_alloc_for(0, 1, 0, 0, &err));
    assert_int_equal(err.code, QC_EINVAL);
    qc_mdp_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_machine_replacement),
        cmocka_unit_test(test_alloc_errors),
        cmocka_unit_test(test_three_state_periodic),
        cmocka_unit_test(test_communicating_pi),
        cmocka_unit_test(test_random_pi_vs_rvi),
        cmocka_unit_test(test_brute_force),
        cmocka_unit_test(test_stationary_birth_death),
        cmocka_unit_test(test_bad_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
