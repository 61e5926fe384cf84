/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_result.c: the result schema of `qctl mdp removable`
 * (app/mdp_result.h), written once: the JSON summary that --json,
 * --output, the report and the sweep read, and the table on standard
 * output, both from the solved model (qc_removable_solve). The model and
 * its equations are in docs/energy-mdp.md. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app/mdp_result.h"
#include "qctl/output.h"

static json_t *reals(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, qc_json_real_new(x[i]));
    return a;
}

static const char *action_name(int a, const qc_energy_cost *c, char *buf, size_t n)
{
    if (a == QC_REMOVABLE_IDLE)
        return "idle";
    if (a == QC_REMOVABLE_OFF)
        return "switch off";
    snprintf(buf, n, "rate %g", c->rate[a]);
    return buf;
}

static json_t *perf_json(const qc_removable_perf *pf)
{
    json_t *o = json_object();
    json_object_set_new(o, "mean_jobs", qc_json_real_new(pf->e.mean_jobs));
    json_object_set_new(o, "mean_response", qc_json_real_new(pf->e.mean_response));
    json_object_set_new(o, "mean_power", qc_json_real_new(pf->e.mean_power));
    json_object_set_new(o, "energy_per_job", qc_json_real_new(pf->e.energy_per_job));
    json_object_set_new(o, "switch_ons_per_hour", qc_json_real_new(pf->e.switch_ons_per_hour));
    json_object_set_new(o, "switch_ons_per_time", qc_json_real_new(pf->switch_on_rate));
    json_object_set_new(o, "frac_setup", qc_json_real_new(pf->e.frac_setup));
    json_object_set_new(o, "frac_off", qc_json_real_new(pf->frac_off));
    json_object_set_new(o, "frac_idle", qc_json_real_new(pf->frac_idle));
    json_object_set_new(o, "frac_serving", qc_json_real_new(pf->frac_serving));
    json_object_set_new(o, "average_cost", qc_json_real_new(pf->e.average_cost));
    json_object_set_new(o, "holding_cost", qc_json_real_new(pf->holding_cost));
    json_object_set_new(o, "power_cost", qc_json_real_new(pf->power_cost));
    json_object_set_new(o, "switching_cost", qc_json_real_new(pf->switching_cost));
    json_object_set_new(o, "throughput", qc_json_real_new(pf->throughput));
    json_object_set_new(o, "blocking", qc_json_real_new(pf->blocking));
    return o;
}

json_t *qc_app_mdp_json(const qc_removable_params *p, const qc_removable_result *r,
                        double price, double elapsed)
{
    const qc_energy_cost *c = &p->cost;
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("mdp removable"));

    json_t *m = json_object();
    json_object_set_new(m, "lambda", json_real(p->lambda));
    json_object_set_new(m, "rates", reals(c->rate, c->nrates));
    json_object_set_new(m, "power", reals(c->power, c->nrates));
    json_object_set_new(m, "idle_power", json_real(c->idle_power));
    json_object_set_new(m, "setup_power", json_real(c->setup_power));
    json_object_set_new(m, "off_power", json_real(c->off_power));
    json_object_set_new(m, "setup_rate", json_real(c->setup_rate));
    json_object_set_new(m, "switch_cost", json_real(c->switch_cost));
    json_object_set_new(m, "holding", json_real(c->holding));
    json_object_set_new(m, "price", json_real(price));
    json_object_set_new(root, "model", m);

    json_t *t = json_object();
    json_object_set_new(t, "N", json_integer((json_int_t)r->nmax));
    json_object_set_new(t, "states", json_integer((json_int_t)r->states));
    json_object_set_new(t, "pairs", json_integer((json_int_t)r->pairs));
    json_object_set_new(t, "transitions", json_integer((json_int_t)r->transitions));
    json_object_set_new(t, "rounds", json_integer((json_int_t)r->rounds));
    json_object_set_new(t, "mass_at_N", qc_json_real_new(r->perf.blocking));
    json_object_set_new(t, "tail_mass", qc_json_real_new(r->perf.tail_mass));
    json_object_set_new(t, "tail_tol", json_real(p->tail_tol));
    json_object_set_new(t, "tail_ok", json_boolean(r->tail_ok));
    json_object_set_new(t, "forced", json_boolean(p->levels > 0));
    json_object_set_new(t, "uniformization", json_real(r->unif));
    json_object_set_new(root, "truncation", t);

    json_t *s = json_object();
    json_object_set_new(s, "method", json_string(qc_removable_method_name(p->method)));
    json_object_set_new(s, "tol", json_real(p->tol));
    json_object_set_new(s, "span_tol", json_real(r->tol_abs));
    json_object_set_new(s, "span_tol_at_rounding_floor", json_boolean(r->tol_floored));
    if (p->method & QC_REMOVABLE_PI) {
        json_t *pi = json_object();
        json_object_set_new(pi, "gain", qc_json_real_new(r->gain_pi));
        json_object_set_new(pi, "iterations", json_integer((json_int_t)r->pi_iterations));
        json_object_set_new(s, "pi", pi);
    }
    if (p->method & QC_REMOVABLE_RVI) {
        json_t *rv = json_object();
        json_object_set_new(rv, "gain_low", qc_json_real_new(r->gain_lo));
        json_object_set_new(rv, "gain_high", qc_json_real_new(r->gain_hi));
        json_object_set_new(rv, "span", qc_json_real_new(r->gain_hi - r->gain_lo));
        json_object_set_new(rv, "iterations", json_integer((json_int_t)r->rvi_iterations));
        json_object_set_new(rv, "converged", json_boolean(r->rvi_converged));
        json_object_set_new(rv, "tau", json_real(r->rvi_tau));
        json_object_set_new(rv, "sweep", json_string(qc_mdp_sweep_name(p->sweep)));
        json_object_set_new(s, "rvi", rv);
    }
    if (p->method == QC_REMOVABLE_BOTH) {
        json_t *ag = json_object();
        json_object_set_new(ag, "agree", json_boolean(r->policies_agree));
        json_object_set_new(ag, "bounds_contain_pi", json_boolean(r->bounds_contain_pi));
        json_object_set_new(ag, "differences", json_integer((json_int_t)r->policy_diffs));
        json_object_set_new(ag, "ties", json_integer((json_int_t)r->policy_ties));
        json_object_set_new(s, "agreement", ag);
    }
    json_object_set_new(s, "elapsed_seconds", json_real(elapsed));
    json_object_set_new(root, "solver", s);
    json_object_set_new(root, "gain", qc_json_real_new(r->gain));

    json_t *pol = json_object(), *sw = json_array(), *rate = json_array(), *on = json_array();
    for (size_t n = 0; n <= r->nmax; n++) {
        int a = r->policy.on_action[n];
        json_array_append_new(sw, json_integer(r->policy.switch_on[n]));
        json_array_append_new(rate, a >= 0 ? json_real(c->rate[a]) : json_null());
        json_array_append_new(on, json_string(a == QC_REMOVABLE_IDLE  ? "idle"
                                              : a == QC_REMOVABLE_OFF ? "off"
                                                                      : "serve"));
    }
    json_object_set_new(pol, "switch_on", sw);
    json_object_set_new(pol, "rate", rate);
    json_object_set_new(pol, "when_on", on);
    json_object_set_new(root, "policy", pol);

    const qc_removable_structure *st = &r->structure;
    json_t *sj = json_object();
    json_object_set_new(sj, "work_conserving", json_boolean(st->work_conserving));
    json_object_set_new(sj, "switch_on_threshold", json_boolean(st->threshold));
    json_object_set_new(sj, "threshold_n",
                        st->threshold_n >= 0 ? json_integer(st->threshold_n) : json_null());
    json_object_set_new(sj, "rate_nondecreasing", json_boolean(st->monotone_rate));
    json_object_set_new(sj, "off_when_idle", json_boolean(st->off_when_idle));
    json_object_set_new(sj, "checked_levels", json_integer((json_int_t)st->upto + 1));
    json_object_set_new(sj, "boundary_from",
                        st->boundary >= 0 ? json_integer(st->boundary) : json_null());
    json_object_set_new(root, "structure", sj);

    json_object_set_new(root, "performance", perf_json(&r->perf));

    json_t *cmp = json_array();
    json_t *opt = json_object();
    json_object_set_new(opt, "policy", json_string("optimal (MDP)"));
    json_object_set_new(opt, "parameter_name", json_null());
    json_object_set_new(opt, "parameter", json_null());
    json_t *opf = perf_json(&r->perf);
    json_object_update(opt, opf);
    json_decref(opf);
    json_array_append_new(cmp, opt);
    for (int i = 0; r->have_baselines && i < QC_RB_COUNT; i++) {
        const qc_removable_baseline *b = &r->baseline[i];
        json_t *e = perf_json(&b->perf);
        json_object_set_new(e, "policy", json_string(b->name));
        json_object_set_new(e, "parameter_name", json_string(b->param_name));
        json_object_set_new(e, "parameter", qc_json_real_new(b->param));
        json_array_append_new(cmp, e);
    }
    json_object_set_new(root, "comparison", cmp);
    return root;
}

static void print_list(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%s%g", i ? ", " : "", x[i]);
}

void qc_app_mdp_print(const qc_removable_params *p, const qc_removable_result *r)
{
    const qc_energy_cost *c = &p->cost;
    char b1[64];
    printf("M/M/1 with a removable server: lambda %g; rates ", p->lambda);
    print_list(c->rate, c->nrates);
    printf("; power ");
    print_list(c->power, c->nrates);
    printf("\n  idle power %g, setup power %g (setup rate %g), off power %g, switch-on "
           "cost %g, holding cost %g\n",
           c->idle_power, c->setup_power, c->setup_rate, c->off_power, c->switch_cost,
           c->holding);
    printf("truncation N = %zu (%zu states, %zu round%s): mass at N %.3g, beyond N ~%.3g "
           "(target %g)%s\n",
           r->nmax, r->states, r->rounds, r->rounds == 1 ? "" : "s", r->perf.blocking,
           r->perf.tail_mass, p->tail_tol, r->tail_ok ? "" : "  NOT MET");
    printf("uniformization constant L = %g\n\n", r->unif);

    printf("gain (average cost per unit time): %.10g\n", r->gain);
    if (p->method & QC_REMOVABLE_PI)
        printf("  policy iteration         %.10g  (%zu step%s)\n", r->gain_pi, r->pi_iterations,
               r->pi_iterations == 1 ? "" : "s");
    if (p->method & QC_REMOVABLE_RVI)
        printf("  value iteration bounds   [%.10g, %.10g]  (%zu sweeps, span %.3g, %s)\n",
               r->gain_lo, r->gain_hi, r->rvi_iterations, r->gain_hi - r->gain_lo,
               r->rvi_converged ? "converged" : "NOT converged");
    if ((p->method & QC_REMOVABLE_RVI) && r->tol_floored)
        printf("  (span tolerance raised to %.3g, the rounding floor of relative values "
               "of this size)\n",
               r->tol_abs);
    if (p->method == QC_REMOVABLE_BOTH && r->rvi_converged)
        printf("  agreement                %s  (policies differ at %zu states, %zu of them "
               "near-ties)\n",
               r->policies_agree ? "yes" : "NO", r->policy_diffs, r->policy_ties);
    else if (p->method == QC_REMOVABLE_BOTH)
        printf("  agreement                cross-check skipped: value iteration stopped at "
               "the sweep limit;\n"
               "                           its bounds %s the policy-iteration gain\n",
               r->bounds_contain_pi ? "contain" : "DO NOT contain");

    printf("\noptimal policy\n  %-10s %-12s %s\n", "jobs n", "when off", "when on");
    size_t n = 0;
    while (n <= r->nmax) {
        size_t e = n;
        while (e + 1 <= r->nmax && r->policy.switch_on[e + 1] == r->policy.switch_on[n] &&
               r->policy.on_action[e + 1] == r->policy.on_action[n])
            e++;
        char range[48];
        if (e == n)
            snprintf(range, sizeof range, "%zu", n);
        else if (e == r->nmax)
            snprintf(range, sizeof range, "%zu-%zu (N)", n, e);
        else
            snprintf(range, sizeof range, "%zu-%zu", n, e);
        printf("  %-10s %-12s %s\n", range, r->policy.switch_on[n] ? "switch on" : "stay off",
               action_name(r->policy.on_action[n], c, b1, sizeof b1));
        n = e + 1;
    }

    const qc_removable_structure *st = &r->structure;
    /* In words a newcomer can follow: what range the properties below were
     * read on, and why not beyond it (the chain is cut at N jobs, and near
     * the cut the decisions are the cut's, not the model's). */
    printf("\nstructure of the optimal policy, read for 0 to %zu jobs", st->upto);
    if (st->boundary >= 0)
        printf(" (the chain is cut at N = %zu jobs; from %ld job%s on, the decisions change "
               "when the cut is moved to 2N, so there they describe the cut, not the queue)",
               r->nmax, st->boundary, st->boundary == 1 ? "" : "s");
    else if (st->boundary == -2)
        printf(" (not confirmed on a chain cut at 2N jobs: that would exceed --max-states)");
    printf("\n");
    printf("  work conserving          %s", st->work_conserving ? "yes" : "no");
    if (!st->work_conserving)
        printf("  (on with %ld jobs it does not serve)", st->violation[0]);
    printf("\n  switch-on threshold      %s", st->threshold ? "yes" : "no");
    if (st->threshold)
        printf("  (when off, switches on iff n >= %ld)", st->threshold_n);
    else if (st->threshold_n < 0)
        printf("  (never switches on)");
    else
        printf("  (switches on at n = %ld but not at n = %ld)", st->threshold_n,
               st->violation[1]);
    printf("\n  rate non-decreasing      %s", st->monotone_rate ? "yes" : "no");
    if (!st->monotone_rate)
        printf("  (the rate drops at n = %ld)", st->violation[2]);
    printf("\n  when empty and on        %s\n",
           st->off_when_idle ? "switches off" : "stays on, idle");

    const qc_removable_perf *pf = &r->perf;
    printf("\nperformance of the optimal policy (exact, stationary distribution)\n");
    printf("  mean jobs                %.6g\n", pf->e.mean_jobs);
    printf("  mean response time       %.6g\n", pf->e.mean_response);
    printf("  mean power               %.6g\n", pf->e.mean_power);
    printf("  energy per job           %.6g\n", pf->e.energy_per_job);
    printf("  switch-ons per hour      %.6g\n", pf->e.switch_ons_per_hour);
    printf("  fraction in setup         %.6g\n", pf->e.frac_setup);
    printf("  average cost             %.6g  (holding %.6g + power %.6g + switching %.6g)\n",
           pf->e.average_cost, pf->holding_cost, pf->power_cost, pf->switching_cost);

    if (!r->have_baselines)
        return;
    printf("\ncomparison on the same chain and cost\n");
    printf("  %-26s %-16s %14s %14s %12s\n", "policy", "parameter", "average cost",
           "mean response", "mean power");
    printf("  %-26s %-16s %14.6g %14.6g %12.6g\n", "optimal (MDP)", "-", pf->e.average_cost,
           pf->e.mean_response, pf->e.mean_power);
    for (int i = 0; i < QC_RB_COUNT; i++) {
        const qc_removable_baseline *b = &r->baseline[i];
        char par[48];
        snprintf(par, sizeof par, "%s = %.4g", b->param_name, b->param);
        printf("  %-26s %-16s %14.6g %14.6g %12.6g\n", b->name, par, b->perf.e.average_cost,
               b->perf.e.mean_response, b->perf.e.mean_power);
    }
}

