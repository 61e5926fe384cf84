/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool_json.c: a run of qc_pool_run as JSON (qctl/results.h), the summary
 * that `qctl sim pool --json` prints and Python reads: the model, the
 * costs, the run, each metric's interval and the energy report. */
#include "qctl/results.h"

#include <math.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/output.h"

/* A CI scaled by 1/price: the power in watts. */
static qc_ci ci_scaled(const qc_ci *c, double f)
{
    qc_ci s = *c;
    s.mean *= f;
    s.half *= f;
    s.lo *= f;
    s.hi *= f;
    return s;
}

/* A response-time percentile whose interval the run withheld. */
static int pct_withheld(int i, const qc_ci *c)
{
    return i >= QC_PM_P50 && i <= QC_PM_P99 && isfinite(c->mean) && isnan(c->half);
}

qc_result_support qc_pool_result_support(const qc_pool_result *r, const qc_pool_json_opts *o)
{
    return (qc_result_support){r->short_run, r->short_reason, o->allow_short, 0, 1};
}

json_t *qc_pool_result_json(const qc_pool_params *p, const qc_pool_result *r,
                            const qc_pool_json_opts *o, double elapsed)
{
    const qc_result_support sup = qc_pool_result_support(r, o);
    json_t *root = json_object();
    json_t *model = json_object();
    char buf[256];
    json_object_set_new(root, "command", json_string("sim pool"));
    json_object_set_new(model, "servers", json_integer(p->servers));
    json_object_set_new(model, "policy", json_string(qc_pool_policy_name(p->policy)));
    json_object_set_new(model, "threshold",
                        p->policy == QC_POOL_DJSQ ? json_integer(p->threshold) : json_null());
    json_object_set_new(model, "route_on", json_boolean(p->route_on));
    json_object_set_new(model, "arrival", json_string(o->arrival));
    qc_arrivals_format(p->arrival, buf, sizeof buf);
    json_object_set_new(model, "arrival_canonical", json_string(buf));
    json_object_set_new(model, "mean_arrival_rate",
                        qc_json_real_new(qc_arrivals_mean_rate(p->arrival)));
    json_object_set_new(model, "service", json_string(o->service));
    qc_dist_format(p->service, buf, sizeof buf);
    json_object_set_new(model, "service_canonical", json_string(buf));
    json_object_set_new(model, "setup_time", json_string(o->setup));
    qc_dist_format(p->setup, buf, sizeof buf);
    json_object_set_new(model, "setup_canonical", json_string(buf));
    /* null: an idle server never switches off */
    json_object_set_new(model, "idle_timer",
                        p->policy == QC_POOL_JSQ ? json_null() : qc_json_real_new(p->idle_timer));
    json_object_set_new(model, "load", qc_json_real_new(r->load));
    json_object_set_new(root, "model", model);

    json_t *cost = json_object();
    json_object_set_new(cost, "holding", json_real(p->cost.holding));
    json_object_set_new(cost, "busy_power_w", json_real(o->watts[0]));
    json_object_set_new(cost, "idle_power_w", json_real(o->watts[1]));
    json_object_set_new(cost, "setup_power_w", json_real(o->watts[2]));
    json_object_set_new(cost, "off_power_w", json_real(o->watts[3]));
    json_object_set_new(cost, "switch_cost", json_real(p->cost.switch_cost));
    json_object_set_new(cost, "price", json_real(o->price));
    json_object_set_new(root, "cost", cost);

    json_t *run = qc_result_run_json(p->customers, p->horizon, p->reps, p->seed, p->level, r->ci_method);
    json_t *tr = json_object();
    json_object_set_new(tr, "method",
                        json_string(qc_warmup_mode_name(p->warmup_mode)));
    json_object_set_new(tr, "customers_cut", qc_json_real_new(r->warmup_customers));
    json_object_set_new(tr, "time_cut", qc_json_real_new(r->warmup_time));
    json_object_set_new(run, "warmup", tr);
    qc_result_run_done(root, run, r->measured, r->events, r->sim_time, elapsed);

    json_t *is = qc_result_support_json(&sup);
    json_object_set_new(is, "effective_samples", qc_json_real_new(r->effective_obs));
    json_object_set_new(run, "interval_support", is);
    json_t *m = json_object();
    for (int i = 0; i < QC_PM_COUNT; i++) {
        json_t *ci = qc_json_ci_new(&r->metric[i]);
        if (isfinite(r->metric[i].half))
            qc_result_ci_mark(&sup, ci);
        else if (pct_withheld(i, &r->metric[i]))
            json_object_set_new(ci, "reason", json_string(QC_RESULT_PCT_SHORT_REASON));
        json_object_set_new(m, qc_pool_metric_name(i), ci);
    }
    if (o->price > 0) {
        qc_ci w = ci_scaled(&r->metric[QC_PM_POWER], 1.0 / o->price);
        json_t *ci = qc_json_ci_new(&w);
        if (isfinite(w.half))
            qc_result_ci_mark(&sup, ci);
        json_object_set_new(m, "mean_power_watts", ci);
    }
    json_object_set_new(root, "metrics", m);

    const qc_energy_report *e = &r->report;
    json_t *er = json_object();
    json_object_set_new(er, "mean_jobs", qc_json_real_new(e->mean_jobs));
    json_object_set_new(er, "mean_response", qc_json_real_new(e->mean_response));
    json_object_set_new(er, "mean_power", qc_json_real_new(e->mean_power));
    json_object_set_new(er, "energy_per_job", qc_json_real_new(e->energy_per_job));
    json_object_set_new(er, "switch_ons_per_hour", qc_json_real_new(e->switch_ons_per_hour));
    json_object_set_new(er, "frac_setup", qc_json_real_new(e->frac_setup));
    json_object_set_new(er, "average_cost", qc_json_real_new(e->average_cost));
    json_object_set_new(root, "energy_report", er);
    return root;
}
