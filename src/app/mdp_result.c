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
#include "qctl/results.h"

static const char *action_name(int a, const qc_energy_cost *c, char *buf, size_t n)
{
    if (a == QC_REMOVABLE_IDLE)
        return "idle";
    if (a == QC_REMOVABLE_OFF)
        return "switch off";
    snprintf(buf, n, "rate %g", c->rate[a]);
    return buf;
}

json_t *qc_app_mdp_json(const qc_removable_params *p, const qc_removable_result *r,
                        double price, double elapsed)
{
    return qc_removable_result_json(p, r, price, elapsed);
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

