/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_removable.c: the removable-server MDP: exact chain against closed
 * forms, against the simulation, and the optimal policy's structure.
 *
 * Closed forms (M/M/1, rho = lambda / mu, exponential setup of rate a,
 * switch on at the first job, off as soon as the queue empties):
 *   E[T] = 1/(mu - lambda) + 1/a          (mean response: M/M/1 plus the
 *                                          mean setup, exact for
 *                                          exponential setups)
 *   the server is busy a fraction rho of the time; each cycle is an idle
 *   (off) period of mean 1/lambda, a setup of mean 1/a and a busy
 *   period, so off and setup split the rest 1/lambda : 1/a:
 *   P(setup) = (1 - rho) lambda / (lambda + a)
 *   switch-ons per unit time = P(off) lambda = (1 - rho) a lambda / (lambda + a)
 * Always on at rate mu: E[N] = rho / (1 - rho), mean power
 * rho P + (1 - rho) P_idle.
 * The chain is exact up to the truncation (mass rho^N beyond N, below
 * 1e-30 for the N used) and rounding: the checks use a relative 1e-9,
 * well within the 1e-6 asked for E[T].
 *
 * The simulation check: 20 replications, t-intervals. Mean jobs and mean
 * power are checked at 99% each; five more figures (response time,
 * switch-ons, setup, cost, throughput) as a family at 99% (each at
 * 1 - 0.01/5, Bonferroni). The half-widths must also be small (stated
 * per check), so that covering means something. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/removable.h"
#include "qctl/removable_sim.h"

#define REL 1e-9

static void near(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("%s: got %.15g, want %.15g (relative error %.3g > %.3g)", what, got, want,
                 fabs(got - want) / fabs(want), rel);
}

static qc_energy_cost cost3(double idle, double setup_power, double setup_rate, double K,
                            double h)
{
    qc_energy_cost c;
    memset(&c, 0, sizeof c);
    c.nrates = 3;
    c.rate[0] = 0.5, c.rate[1] = 1.0, c.rate[2] = 1.5;
    c.power[0] = 1, c.power[1] = 2, c.power[2] = 4;
    c.idle_power = idle;
    c.setup_power = setup_power;
    c.setup_rate = setup_rate;
    c.switch_cost = K;
    c.holding = h;
    return c;
}

static void test_setup_closed_forms(void **state)
{
    (void)state;
    static const struct { double lam, mu, a; } cases[] = {
        {0.6, 1.0, 0.5}, {0.9, 1.0, 2.0}, {0.3, 1.5, 0.1}, {0.95, 2.0, 0.05}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        double lam = cases[i].lam, mu = cases[i].mu, a = cases[i].a, rho = lam / mu;
        qc_energy_cost c;
        memset(&c, 0, sizeof c);
        c.nrates = 2; /* a slower rate the policy does not use */
        c.rate[0] = 0.25 * mu, c.rate[1] = mu;
        c.power[0] = 1, c.power[1] = 3;
        c.idle_power = 0.5, c.setup_power = 2, c.setup_rate = a, c.holding = 1;
        qc_removable_policy p;
        assert_int_equal(qc_removable_policy_init(&p, 1500, NULL), 0);
        qc_removable_perf pf;
        qc_err err = {0};
        char what[96];

        qc_removable_policy_npolicy(&p, &c, 1);
        if (qc_removable_evaluate(lam, &c, &p, &pf, &err) != 0)
            fail_msg("evaluate: %s", err.msg);
        snprintf(what, sizeof what, "lambda %g mu %g alpha %g: E[T]", lam, mu, a);
        near(pf.e.mean_response, 1 / (mu - lam) + 1 / a, REL, what);
        printf("  %-40s chain %.12f closed form %.12f\n", what, pf.e.mean_response,
               1 / (mu - lam) + 1 / a);
        near(pf.e.mean_jobs, lam * (1 / (mu - lam) + 1 / a), REL, "E[N] (Little)");
        near(pf.e.frac_setup, (1 - rho) * lam / (lam + a), REL, "P(setup)");
        near(pf.switch_on_rate, (1 - rho) * a * lam / (lam + a), REL, "switch-on rate");
        near(pf.throughput, lam, REL, "throughput");
        near(pf.frac_serving, rho, REL, "P(serving)");
        assert_true(pf.blocking < 1e-30);

        qc_removable_policy_always_on(&p, &c);
        assert_int_equal(qc_removable_evaluate(lam, &c, &p, &pf, &err), 0);
        near(pf.e.mean_jobs, rho / (1 - rho), REL, "always on: E[N]");
        near(pf.e.mean_power, rho * 3 + (1 - rho) * 0.5, REL, "always on: power");
        near(pf.e.average_cost, rho / (1 - rho) + rho * 3 + (1 - rho) * 0.5, REL,
             "always on: cost");
        assert_true(pf.switch_on_rate == 0 && pf.e.frac_setup == 0);
        qc_removable_policy_free(&p);
    }
}

typedef struct instance {
    const char *name;
    double lambda;
    qc_energy_cost c;
} instance;

static void solve(const instance *in, qc_removable_result *r)
{
    qc_removable_params p;
    qc_removable_params_init(&p);
    p.lambda = in->lambda;
    p.cost = in->c;
    qc_err err = {0};
    if (qc_removable_solve(&p, r, &err) != 0)
        fail_msg("%s: solve: %s", in->name, err.msg);
}

/* The MDP's gain equals the exact chain's average cost of its policy; RVI
 * and PI agree; the structure the theory predicts holds; no simple
 * policy does better on the same chain. */
static void test_optimal_policies(void **state)
{
    (void)state;
    qc_energy_cost rep = cost3(0, 0, 0.1, 0, 1);
    /* the representative instance: powers rising convexly */
    rep.power[0] = 1.95, rep.power[1] = 2.4, rep.power[2] = 3.15;
    rep.idle_power = 1.8, rep.setup_power = 2.4;
    instance ins[] = {
        {"lambda 0.7, slow setup", 0.7, rep},
        {"lambda 0.4, threshold 4", 0.4, cost3(1, 2, 1, 3, 0.1)},
        {"lambda 0.2, threshold 2", 0.2, cost3(1, 2, 1, 0, 0.1)},
        {"lambda 0.4, switch cost", 0.4, cost3(2, 2, 1, 3, 0.3)},
        {"lambda 0.9, fast setup", 0.9, cost3(1.5, 3, 5, 1, 0.5)},
    };
    for (size_t i = 0; i < sizeof ins / sizeof *ins; i++) {
        qc_removable_result r;
        solve(&ins[i], &r);
        const qc_removable_structure *st = &r.structure;
        printf("  %-28s N %4zu gain %.10f RVI [%.10f, %.10f] threshold %ld wc %d thr %d "
               "mono %d boundary %ld\n",
               ins[i].name, r.nmax, r.gain_pi, r.gain_lo, r.gain_hi, st->threshold_n,
               st->work_conserving, st->threshold, st->monotone_rate, st->boundary);
        near(r.perf.e.average_cost, r.gain_pi, REL, "chain cost vs MDP gain");
        assert_true(r.rvi_converged);
        assert_true(r.policies_agree);
        assert_true(r.gain_hi - r.gain_lo <= r.tol_abs * (1 + 1e-9));
        assert_true(r.tail_ok && r.perf.blocking <= 1e-8 && r.perf.tail_mass <= 1e-8);
        assert_true(st->work_conserving);
        assert_true(st->threshold);
        assert_true(st->monotone_rate);
        assert_true(st->upto + 1 >= r.nmax / 2); /* the boundary layer is thin */
        assert_true(r.have_baselines);
        for (int b = 0; b < QC_RB_COUNT; b++)
            if (!(r.baseline[b].perf.e.average_cost >= r.gain_pi * (1 - 1e-9)))
                fail_msg("%s: %s costs %.12g < optimal %.12g", ins[i].name, r.baseline[b].name,
                         r.baseline[b].perf.e.average_cost, r.gain_pi);
        qc_removable_result_free(&r);
    }
}

static void expect_ci(const qc_ci *ci, double exact, double widen, double maxrel,
                      const char *what)
{
    double half = ci->half * widen;
    printf("    %-22s exact %-11.6g sim %-11.6g +- %-9.3g (%.2f%%)\n", what, exact, ci->mean,
           half, 100 * half / fabs(exact));
    if (!(fabs(ci->mean - exact) <= half))
        fail_msg("%s: exact %.10g outside the interval %.10g +- %.3g", what, exact, ci->mean,
                 half);
    if (!(half <= maxrel * fabs(exact)))
        fail_msg("%s: half-width %.3g above %.3g%% of %.6g", what, half, 100 * maxrel, exact);
}

static void chain_vs_sim(const char *name, double lambda, const qc_energy_cost *c,
                         const qc_removable_policy *pol, double horizon)
{
    qc_removable_perf pf;
    qc_err err = {0};
    if (qc_removable_evaluate(lambda, c, pol, &pf, &err) != 0)
        fail_msg("%s: evaluate: %s", name, err.msg);
    qc_removable_sim_params sp = {lambda, c, pol, horizon, 0.02 * horizon, 20, 20260601,
                                  0.99, 0};
    qc_removable_sim_result s;
    if (qc_removable_simulate(&sp, &s, &err) != 0)
        fail_msg("%s: simulate: %s", name, err.msg);
    printf("  %s (%llu events)\n", name, (unsigned long long)s.events);
    double t99 = gsl_cdf_tdist_Pinv(0.995, 19), tfam = gsl_cdf_tdist_Pinv(1 - 0.005 / 5, 19);
    double w = tfam / t99;
    expect_ci(&s.mean_jobs, pf.e.mean_jobs, 1, 0.04, "mean jobs (99%)");
    expect_ci(&s.mean_power, pf.e.mean_power, 1, 0.01, "mean power (99%)");
    expect_ci(&s.mean_response, pf.e.mean_response, w, 0.05, "mean response");
    if (pf.switch_on_rate > 0) {
        expect_ci(&s.switch_on_rate, pf.switch_on_rate, w, 0.03, "switch-ons per time");
        expect_ci(&s.frac_setup, pf.e.frac_setup, w, 0.03, "fraction in setup");
    }
    expect_ci(&s.average_cost, pf.e.average_cost, w, 0.02, "average cost");
    expect_ci(&s.throughput, pf.throughput, w, 0.01, "throughput");
}

static void test_chain_vs_simulation(void **state)
{
    (void)state;
    /* The optimal policy of a rich instance: off when idle, on at n >= 4,
     * rates 0.5, 1, 1.5 as the queue grows. */
    instance in = {"optimal, lambda 0.4", 0.4, cost3(1, 2, 1, 3, 0.1)};
    qc_removable_result r;
    solve(&in, &r);
    assert_true(r.structure.threshold_n >= 2 && r.structure.off_when_idle);
    chain_vs_sim(in.name, in.lambda, &in.c, &r.policy, 40000);
    qc_removable_result_free(&r);

    /* DelayedOff with an exponential timer (the chain's model of it). */
    qc_energy_cost c = cost3(1, 2, 0.5, 1, 0.5);
    qc_removable_policy p;
    assert_int_equal(qc_removable_policy_init(&p, 200, NULL), 0);
    qc_removable_policy_delayed_off(&p, &c, 0.3);
    chain_vs_sim("DelayedOff theta 0.3, lambda 0.6", 0.6, &c, &p, 20000);
    qc_removable_policy_free(&p);
}

static void test_truncation(void **state)
{
    (void)state;
    qc_removable_params p;
    qc_removable_params_init(&p);
    p.lambda = 0.4;
    p.cost = cost3(1, 2, 1, 3, 0.1);
    p.baselines = 0;
    qc_err err = {0};
    qc_removable_result a, b, f, s;
    assert_int_equal(qc_removable_solve(&p, &a, &err), 0);
    p.tail_tol = 1e-14;
    assert_int_equal(qc_removable_solve(&p, &b, &err), 0);
    assert_true(b.nmax > a.nmax);
    assert_true(b.perf.blocking <= 1e-14 && b.perf.tail_mass <= 1e-14 && b.tail_ok);
    near(b.gain_pi, a.gain_pi, 1e-7, "gain across truncations");
    /* forced truncation: exactly N, no search */
    p.levels = 300;
    assert_int_equal(qc_removable_solve(&p, &f, &err), 0);
    assert_true(f.nmax == 300 && f.rounds == 1 && f.states == 903);
    near(f.gain_pi, b.gain_pi, 1e-12, "gain at N = 300");
    /* a budget too small for the target: solved, but tail_ok is 0 */
    p.levels = 0;
    p.tail_tol = 1e-8;
    p.max_states = 3 * 9;
    assert_int_equal(qc_removable_solve(&p, &s, &err), QC_ERANGE); /* below 17 levels */
    p.max_states = 3 * 18;
    p.cost.holding = 0.02; /* long queues: 17 levels are not enough */
    assert_int_equal(qc_removable_solve(&p, &s, &err), 0);
    assert_false(s.tail_ok);
    assert_true(s.nmax == 17);
    qc_removable_result_free(&a);
    qc_removable_result_free(&b);
    qc_removable_result_free(&f);
    qc_removable_result_free(&s);
}

static void test_methods(void **state)
{
    (void)state;
    qc_removable_params p;
    qc_removable_params_init(&p);
    p.lambda = 0.2;
    p.cost = cost3(1, 2, 1, 0, 0.3);
    p.baselines = 0;
    qc_err err = {0};
    qc_removable_result both, rvi, pi, jac;
    assert_int_equal(qc_removable_solve(&p, &both, &err), 0);
    p.method = QC_REMOVABLE_PI;
    assert_int_equal(qc_removable_solve(&p, &pi, &err), 0);
    assert_true(isnan(pi.gain_lo) && pi.rvi_iterations == 0);
    p.method = QC_REMOVABLE_RVI;
    assert_int_equal(qc_removable_solve(&p, &rvi, &err), 0);
    assert_true(isnan(rvi.gain_pi) && rvi.pi_iterations == 0);
    p.sweep = QC_MDP_JACOBI;
    assert_int_equal(qc_removable_solve(&p, &jac, &err), 0);
    assert_true(rvi.gain_lo <= pi.gain_pi * (1 + 1e-12) && pi.gain_pi <= rvi.gain_hi * (1 + 1e-12));
    assert_true(jac.gain_lo <= pi.gain_pi * (1 + 1e-12) && pi.gain_pi <= jac.gain_hi * (1 + 1e-12));
    near(both.gain, pi.gain, 1e-15, "both vs pi");
    /* same policy table from every method */
    for (size_t n = 0; n <= pi.nmax && n <= rvi.nmax; n++) {
        assert_int_equal(pi.policy.switch_on[n], rvi.policy.switch_on[n]);
        assert_int_equal(pi.policy.on_action[n], rvi.policy.on_action[n]);
        assert_int_equal(pi.policy.on_action[n], jac.policy.on_action[n]);
    }
    qc_removable_result_free(&both);
    qc_removable_result_free(&pi);
    qc_removable_result_free(&rvi);
    qc_removable_result_free(&jac);
}

static void test_bad_input(void **state)
{
    (void)state;
    qc_removable_params p;
    qc_removable_params_init(&p);
    p.lambda = 0.4;
    p.cost = cost3(1, 2, 1, 3, 0.1);
    qc_err err = {0};
    qc_removable_result r;

    p.lambda = 1.5; /* = fastest rate */
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_EUNSTABLE);
    assert_non_null(strstr(err.msg, "unstable under every policy"));
    p.lambda = 0.4;
    p.cost.nrates = 0;
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "rates"));
    p.cost = cost3(1, 2, 1, 3, 0.1);
    p.cost.rate[1] = 0.5; /* not increasing */
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "increase"));
    p.cost = cost3(1, 2, 1, 3, 0.1);
    p.cost.power[2] = -1;
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "power"));
    p.cost = cost3(-1, 2, 1, 3, 0.1);
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "idle"));
    p.cost = cost3(1, 2, 1, -3, 0.1);
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    p.cost = cost3(1, 2, 1, 3, 0);
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "holding"));
    p.cost = cost3(1, 2, 0, 3, 0.1);
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "setup rate"));
    p.cost = cost3(1, 2, 1, 3, 0.1);
    p.tol = 0;
    assert_int_equal(qc_removable_solve(&p, &r, &err), QC_ERANGE);

    /* policies */
    qc_energy_cost c = cost3(1, 2, 1, 3, 0.1);
    qc_removable_policy pol;
    qc_removable_perf pf;
    assert_int_equal(qc_removable_policy_init(&pol, 10, NULL), 0);
    qc_removable_policy_npolicy(&pol, &c, 2);
    pol.switch_on[0] = 1; /* off at n = 0 when on, and back on when off */
    assert_int_equal(qc_removable_evaluate(0.4, &c, &pol, &pf, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "straight back on"));
    qc_removable_policy_npolicy(&pol, &c, 2);
    pol.on_action[0] = 1; /* a rate with no job */
    assert_int_equal(qc_removable_evaluate(0.4, &c, &pol, &pf, &err), QC_EINVAL);
    qc_removable_policy_npolicy(&pol, &c, 2);
    pol.on_action[3] = 7;
    assert_int_equal(qc_removable_evaluate(0.4, &c, &pol, &pf, &err), QC_EINVAL);
    qc_removable_policy_npolicy(&pol, &c, 2);
    pol.timer = 0.5; /* a timer while switching off at once */
    assert_int_equal(qc_removable_evaluate(0.4, &c, &pol, &pf, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "timer"));
    qc_removable_policy_npolicy(&pol, &c, 2);
    qc_removable_sim_params sp = {0.4, &c, &pol, 100, 10, 1, 1, 0.99, 0};
    qc_removable_sim_result s;
    assert_int_equal(qc_removable_simulate(&sp, &s, &err), QC_EINVAL); /* one replication */
    qc_removable_policy_free(&pol);
}

/* The simulation's defaults (lambda 1, 10 replications, level 0.99)
 * need only a cost model and a policy: with them, on a shorter horizon,
 * the run covers the chain's exact mean power with its 99% interval of
 * 10 values. */
static void test_sim_params_init(void **state)
{
    (void)state;
    qc_removable_sim_params sp;
    memset(&sp, 0xff, sizeof sp);
    qc_removable_sim_params_init(&sp);
    assert_true(sp.lambda == 1 && sp.reps == 10 && sp.level == 0.99 && sp.seed == 1);
    assert_true(sp.horizon == 10000 && sp.warmup == 1000 && sp.timer_deterministic == 0);
    assert_null(sp.cost);
    qc_removable_sim_result s;
    qc_err err = {0};
    assert_int_equal(qc_removable_simulate(&sp, &s, &err), QC_EINVAL);
    qc_energy_cost c = cost3(1, 2, 1, 3, 0.1);
    qc_removable_policy pol;
    assert_int_equal(qc_removable_policy_init(&pol, 40, NULL), 0);
    qc_removable_policy_npolicy(&pol, &c, 2);
    sp.lambda = 0.4;
    sp.cost = &c;
    sp.policy = &pol;
    sp.horizon = 2000;
    sp.warmup = 200;
    assert_int_equal(qc_removable_simulate(&sp, &s, &err), 0);
    assert_int_equal(s.mean_power.n, 10);
    assert_true(s.mean_power.level == 0.99);
    qc_removable_perf pf;
    assert_int_equal(qc_removable_evaluate(0.4, &c, &pol, &pf, &err), 0);
    expect_ci(&s.mean_power, pf.e.mean_power, 1, 0.05, "mean power (99%, defaults)");
    qc_removable_policy_free(&pol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_setup_closed_forms),
        cmocka_unit_test(test_optimal_policies),
        cmocka_unit_test(test_chain_vs_simulation),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_methods),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_sim_params_init),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
