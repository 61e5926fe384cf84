/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_json.c: a solved removable-server MDP as JSON (qctl/results.h), the
 * summary `qctl mdp removable --json` prints and Python reads: the model,
 * the truncation, the solver, the gain, the policy, its structure, its
 * exact performance and the comparison with simple policies. Solved, not
 * estimated: plain numbers, no interval. The model and its equations are
 * in docs/energy-mdp.md. */
#include "qctl/results.h"

#include <stddef.h>

#include "qctl/output.h"
#include "qctl/removable.h"

static json_t *reals(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, qc_json_real_new(x[i]));
    return a;
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

json_t *qc_removable_result_json(const qc_removable_params *p, const qc_removable_result *r,
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

