/* SPDX-License-Identifier: GPL-3.0-or-later */
/* queue_json.c: a run of qc_queue_run as JSON (qctl/results.h), the
 * summary that `qctl sim queue --json` prints and Python reads. A metric
 * whose interval is missing says why beside its null ends: an infinite
 * mean, too few rare events (blocked, waiting, idle-finding customers),
 * a percentile the run cannot bound, or nothing measured. */
#include "qctl/results.h"

#include <math.h>
#include <stdio.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/output.h"

qc_result_support qc_queue_result_support(const qc_queue_params *p, const qc_queue_result *r,
                                          const qc_queue_json_opts *o)
{
    return (qc_result_support){r->short_run, r->short_reason, o->allow_short, p->precision > 0,
                               r->precision_met};
}

static int is_percentile(int i)
{
    return i >= QC_QM_P50 && i <= QC_QM_P99;
}

/* The load offered over each replication's measured window (after the
 * warm-up): the rate's mean over it times E[S] / c. NAN for a trace. */
double qc_queue_window_load(const qc_queue_params *p, const qc_queue_result *r)
{
    double end = r->sim_time / (r->reps ? r->reps : 1);
    double rate = qc_arrivals_mean_rate_over(p->arrivals, r->warmup_time, end);
    return rate * qc_dist_mean(p->service) / p->servers;
}

json_t *qc_queue_result_json(const qc_queue_params *p, const qc_queue_result *r,
                             const qc_queue_exact *ex, const qc_queue_json_opts *o,
                             double elapsed)
{
    json_t *root = json_object();
    json_t *model = json_object();
    char buf[256];
    json_object_set_new(root, "command", json_string("sim queue"));
    json_object_set_new(model, "arrival", json_string(o->arrival));
    json_object_set_new(model, "service", json_string(o->service));
    qc_arrivals_format(p->arrivals, buf, sizeof buf);
    json_object_set_new(model, "arrival_canonical", json_string(buf));
    qc_dist_format(p->service, buf, sizeof buf);
    json_object_set_new(model, "service_canonical", json_string(buf));
    json_object_set_new(model, "servers", json_integer(p->servers));
    json_object_set_new(model, "capacity",
                        p->capacity ? json_integer((json_int_t)p->capacity) : json_null());
    json_object_set_new(model, "discipline", json_string(qc_discipline_name(p->discipline)));
    json_object_set_new(model, "load", qc_json_real_new(r->load));
    json_object_set_new(model, "load_over_window", qc_json_real_new(qc_queue_window_load(p, r)));
    json_object_set_new(model, "whole_periods", json_boolean(o->whole_periods));
    /* the curve's time unit and where it was read from */
    if (p->arrivals && p->arrivals->kind == QC_ARRIVALS_CURVE) {
        double u = p->arrivals->unit;
        const char *un = u == 60 ? "min" : u == 3600 ? "h" : "s";
        json_object_set_new(model, "curve_unit",
                            json_string(u > 0 ? un : o->curve_unit ? o->curve_unit : "s"));
        json_object_set_new(model, "curve_unit_from",
                            json_string(u > 0 ? "file" : o->curve_unit ? "--curve-unit"
                                                                      : "default"));
    }
    json_object_set_new(model, "exact_model", ex->model[0] ? json_string(ex->model) : json_null());
    json_object_set_new(root, "model", model);

    json_t *run = qc_result_run_json(r->customers, p->horizon, r->reps, p->seed, p->level, r->ci_method);
    json_t *wu = json_object();
    json_object_set_new(wu, "method", json_string(qc_warmup_mode_name(p->warmup_mode)));
    json_object_set_new(wu, "customers_cut", qc_json_real_new(r->warmup_customers));
    json_object_set_new(wu, "time_cut", qc_json_real_new(r->warmup_time));
    json_object_set_new(wu, "chunks_cut", json_integer(r->warmup_chunks));
    json_object_set_new(wu, "chunks", json_integer(QC_QUEUE_CHUNKS));
    json_object_set_new(run, "warmup", wu);
    if (r->batches) {
        json_t *bm = json_object();
        json_object_set_new(bm, "batches", json_integer((json_int_t)r->batches));
        json_object_set_new(bm, "rule", json_string("Fishman LBATCH: von Neumann test at 0.10"));
        json_object_set_new(bm, "von_neumann_statistic", qc_json_real_new(r->von_neumann));
        json_object_set_new(bm, "independent", json_boolean(r->batches_independent));
        json_object_set_new(run, "batch_means", bm);
    }
    if (p->precision > 0) {
        json_t *pr = json_object();
        json_object_set_new(pr, "relative_half_width", json_real(p->precision));
        json_object_set_new(pr, "reached", json_boolean(r->precision_met));
        json_object_set_new(pr, "customers_per_replication", json_integer((json_int_t)r->customers));
        json_object_set_new(pr, "replications", json_integer(r->reps));
        json_object_set_new(pr, "customers_all_rounds", json_integer((json_int_t)r->total_customers));
        json_object_set_new(run, "precision", pr);
    }
    json_object_set_new(run, "transient", r->transient ? json_string(r->transient_reason) : json_null());
    const qc_result_support sup = qc_queue_result_support(p, r, o);
    json_t *is = qc_result_support_json(&sup);
    json_object_set_new(is, "effective_samples", qc_json_real_new(r->effective_obs));
    json_object_set_new(is, "correlation_customers", qc_json_real_new(r->corr_customers));
    json_object_set_new(is, "relaxation_time", qc_json_real_new(r->relaxation_time));
    json_object_set_new(run, "interval_support", is);
    if (r->trend_tested) {
        json_t *tr = json_object();
        json_object_set_new(tr, "rule", json_string(r->reps >= 2
            ? "OLS slope of each replication's response time over the last half of the window; "
              "t over the replications; a rise, one-sided p < 0.001 and a change of +10% or more"
            : "OLS slope of 16 batch means over the last half of the window; "
              "a rise, one-sided p < 0.001 and a change of +10% or more"));
        json_object_set_new(tr, "t_statistic", qc_json_real_new(r->trend_t));
        json_object_set_new(tr, "degrees_of_freedom", json_integer(r->trend_df));
        json_object_set_new(tr, "p_value", qc_json_real_new(r->trend_p));
        json_object_set_new(tr, "relative_change", qc_json_real_new(r->trend_change));
        json_object_set_new(tr, "detected", json_boolean(r->trend_detected));
        json_object_set_new(run, "trend", tr);
    } else {
        json_object_set_new(run, "trend", json_null());
    }
    qc_result_run_done(root, run, r->measured, r->events, r->sim_time, elapsed);

    json_t *m = json_object();
    for (int i = 0; i < QC_QM_COUNT; i++) {
        const qc_ci *c = &r->metric[i];
        json_t *mj = qc_json_ci_new(c);
        if (isfinite(c->half))
            qc_result_ci_mark(&sup, mj);
        if (isinf(c->mean)) {
            json_object_set_new(mj, "infinite", json_true());
            json_object_set_new(mj, "reason", json_string(r->infinite_reason));
        } else if (r->rare[i]) {
            char w[240];
            uint64_t nrare = i == QC_QM_BLOCKING      ? r->rare_blocked
                             : i == QC_QM_UTILIZATION ? r->rare_free
                                                      : r->rare_waited;
            if (i == QC_QM_UTILIZATION)
                snprintf(w, sizeof w, "too few idle periods measured (%llu customers found a "
                         "server free, where %d are needed for an interval of the idle time "
                         "that covers): no interval",
                         (unsigned long long)nrare, QC_QUEUE_RARE_FREE_MIN);
            else
                snprintf(w, sizeof w, "too few %s customers measured (%llu, where %d are needed "
                         "for an interval that covers): no interval",
                         i == QC_QM_BLOCKING ? "blocked" : "waiting", (unsigned long long)nrare,
                         QC_QUEUE_RARE_MIN);
            json_object_set_new(mj, "reason", json_string(w));
            json_object_set_new(mj, "rare_events", json_integer((json_int_t)nrare));
        } else if (isnan(c->half) && is_percentile(i) && (r->batches || r->reps > 1) &&
                   !isnan(c->mean)) {
            json_object_set_new(mj, "reason", json_string(QC_RESULT_PCT_SHORT_REASON));
        } else if (isnan(c->half)) {
            json_object_set_new(mj, "reason",
                                json_string(isnan(c->mean) ? "nothing measured"
                                                           : "one value: no interval"));
        }
        double e = ex->value[i];
        json_object_set_new(mj, "exact", qc_json_real_new(e));
        if (isinf(e))
            json_object_set_new(mj, "exact_infinite", json_true());
        json_object_set_new(m, qc_queue_metric_name(i), mj);
    }
    json_object_set_new(root, "metrics", m);
    return root;
}
