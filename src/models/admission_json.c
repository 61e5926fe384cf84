/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission_json.c: the runs of qc_mc_run (one per policy, on the same
 * random numbers) as JSON (qctl/results.h), the summary `qctl sim
 * admission --json` prints and Python reads: the model and its classes,
 * the run, the admissibility of the bounds, and per policy each class's
 * intervals (null where nothing was measured) and the summary. */
#include "qctl/results.h"

#include <math.h>

#include "qctl/output.h"

const char *qc_mc_class_role(const qc_mc_run_class *c)
{
    return c->c.best_effort ? "best-effort" : c->candidate ? "candidate" : "admitted";
}

static json_t *ci_or_null(const qc_ci *ci)
{
    return isnan(ci->mean) ? json_null() : qc_json_ci_new(ci);
}

static json_t *result_json(const qc_mc_run_params *p, const qc_mc_scenario *sc,
                           const qc_mc_run_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "policy", json_string(qc_mc_policy_name(p->policy)));
    json_t *cls = json_array();
    for (unsigned k = 0; k < sc->n; k++) {
        const qc_mc_run_class_result *c = &r->cls[k];
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(sc->cls[k].c.name));
        json_object_set_new(x, "role", json_string(qc_mc_class_role(&sc->cls[k])));
        json_object_set_new(x, "bound", sc->cls[k].c.best_effort ? json_null()
                                                                 : json_real(sc->cls[k].bound));
        json_object_set_new(x, "delay", ci_or_null(&c->delay));
        json_object_set_new(x, "admitted_delay", ci_or_null(&c->admitted_delay));
        json_object_set_new(x, "worst_excursion", ci_or_null(&c->worst));
        json_t *ew = ci_or_null(&c->worst_mean);
        if (json_is_object(ew))
            json_object_set_new(ew, "window_start", qc_json_real_new(c->worst_mean_t));
        json_object_set_new(x, "expected_worst_excursion", ew);
        json_object_set_new(x, "throughput", ci_or_null(&c->throughput));
        json_object_set_new(x, "offered", qc_json_real_new(c->offered));
        json_object_set_new(x, "shed", ci_or_null(&c->shed));
        json_object_set_new(x, "priority", ci_or_null(&c->priority));
        json_object_set_new(x, "admit_time", ci_or_null(&c->admit_time));
        json_object_set_new(x, "admitted", json_integer(c->admitted));
        json_object_set_new(x, "rejected", json_integer(c->rejected));
        json_object_set_new(x, "undecided", json_integer(c->undecided));
        json_array_append_new(cls, x);
    }
    json_object_set_new(o, "classes", cls);
    json_t *sm = json_object();
    json_object_set_new(sm, "worst_excursion", ci_or_null(&r->worst));
    json_object_set_new(sm, "worst_excursion_max", qc_json_real_new(r->worst_max));
    json_t *em = ci_or_null(&r->worst_mean);
    if (json_is_object(em)) {
        json_object_set_new(em, "class", json_string(sc->cls[r->worst_mean_class].c.name));
        json_object_set_new(em, "window_start", qc_json_real_new(r->worst_mean_t));
    }
    json_object_set_new(sm, "expected_worst_excursion", em);
    json_object_set_new(sm, "best_effort_throughput", ci_or_null(&r->be_throughput));
    json_object_set_new(sm, "best_effort_offered", qc_json_real_new(r->be_offered));
    json_object_set_new(sm, "events", json_integer((json_int_t)r->events));
    json_object_set_new(o, "summary", sm);
    return o;
}

static json_t *model_json(const qc_mc_run_params *p, const qc_mc_scenario *sc,
                          const qc_mc_run_result *r)
{
    json_t *m = json_object();
    json_object_set_new(m, "discipline", json_string(qc_mc_discipline_name(p->discipline)));
    json_object_set_new(m, "be_floor", json_real(p->be_floor));
    json_object_set_new(m, "min_completions", json_integer(p->min_completions));
    json_object_set_new(m, "cycle_max", qc_json_real_new(r->cycle_max));
    double load = 0;
    json_t *cls = json_array();
    for (unsigned k = 0; k < sc->n; k++) {
        json_t *x = json_object();
        const qc_mc_run_class *c = &sc->cls[k];
        json_object_set_new(x, "name", json_string(c->c.name));
        json_object_set_new(x, "role", json_string(qc_mc_class_role(c)));
        json_object_set_new(x, "arrival", json_string(sc->arr_spec[k]));
        json_object_set_new(x, "service", json_string(sc->svc_spec[k]));
        json_object_set_new(x, "start", json_real(c->c.start));
        json_object_set_new(x, "bound", c->c.best_effort ? json_null() : json_real(c->bound));
        json_object_set_new(x, "target", c->c.best_effort
                                             ? json_null()
                                             : json_real((1 - p->adm.epsilon) * c->bound));
        json_object_set_new(x, "load", qc_json_real_new(r->cls[k].load));
        json_object_set_new(x, "least_delay", qc_json_real_new(r->cls[k].min_delay));
        load += r->cls[k].load;
        json_array_append_new(cls, x);
    }
    json_object_set_new(m, "classes", cls);
    json_object_set_new(m, "load", qc_json_real_new(load));
    return m;
}

static json_t *verdict(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

json_t *qc_mc_result_json(const qc_mc_run_params *p, const qc_mc_scenario *sc,
                          const char *path, const qc_mc_run_result *res,
                          const qc_mc_policy *pols, unsigned npol, const qc_result_support *sup,
                          double elapsed)
{
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim admission"));
    json_object_set_new(root, "scenario", json_string(path));
    json_object_set_new(root, "model", model_json(p, sc, &res[0]));
    json_t *run = json_object();
    json_object_set_new(run, "epsilon", json_real(p->adm.epsilon));
    json_object_set_new(run, "alpha", json_real(p->adm.alpha));
    json_object_set_new(run, "gain", json_real(p->adm.gain));
    json_object_set_new(run, "time", json_real(p->horizon));
    json_object_set_new(run, "warmup", json_real(p->warmup));
    json_object_set_new(run, "window", json_real(p->window));
    json_object_set_new(run, "reps", json_integer(p->reps));
    json_object_set_new(run, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(run, "confidence", json_real(p->level));
    json_object_set_new(run, "elapsed_seconds", json_real(elapsed));
    json_object_set_new(root, "run", run);
    json_t *adm = json_object();
    json_object_set_new(adm, "method",
                        json_string(p->discipline == QC_MC_WEIGHTED
                                        ? "achievable region, non-preemptive (Kleinrock)"
                                        : "achievable region, exponential classes "
                                          "(Coffman-Mitrani)"));
    json_object_set_new(adm, "bounds", verdict(res[0].region_bounds));
    json_object_set_new(adm, "targets", verdict(res[0].region_targets));
    json_object_set_new(adm, "margin", res[0].region_bounds < 0
                                           ? json_null()
                                           : qc_json_real_new(res[0].region_margin));
    json_object_set_new(root, "admissibility", adm);
    if (npol == 1) {
        json_t *one = result_json(p, sc, &res[0]);
        json_object_update(root, one);
        json_decref(one);
    } else {
        json_t *arr = json_array();
        for (unsigned i = 0; i < npol; i++) {
            qc_mc_run_params q = *p;
            q.policy = pols[i];
            json_array_append_new(arr, result_json(&q, sc, &res[i]));
        }
        json_object_set_new(root, "policies", arr);
    }
    if (sup) {
        json_object_set_new(root, "interval_support", qc_result_support_json(sup));
        qc_result_mark_all(sup, root);
    }
    return root;
}
