/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simproxy.c: what `qctl sim proxy` makes of a run (app/simproxy.h): the
 * JSON summary, the table and the series rows, written once for --json,
 * --report, the sweep and Python. */
#include "simproxy.h"

#include <math.h>
#include <stdio.h>

#include "qctl/dist.h"
#include "qctl/output.h"


static json_t *ci_json(const qc_ci *c)
{
    return isnan(c->mean) ? json_null() : qc_json_ci_new(c);
}

static json_t *metrics_json(const qc_ci *m)
{
    json_t *o = json_object();
    for (int i = 0; i < QC_PSIM_NMETRICS; i++)
        json_object_set_new(o, qc_psim_metric_name(i), ci_json(&m[i]));
    return o;
}

json_t *qc_app_psim_json(const qc_psim_params *p, const char *service, const char *overhead,
                         const char *transit, const qc_psim_result *r, double elapsed)
{
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim proxy"));
    json_t *m = json_object();
    char buf[256];
    json_object_set_new(m, "backends", json_integer(p->backends));
    json_object_set_new(m, "workers", json_integer(p->workers));
    json_object_set_new(m, "service", json_string(service));
    qc_dist_format(p->service, buf, sizeof buf);
    json_object_set_new(m, "service_canonical", json_string(buf));
    json_object_set_new(m, "route", json_string(qc_psim_route_name(p->route)));
    json_object_set_new(m, "limiter", json_string(p->control ? qc_limiter_algo_name(p->limiter.algo)
                                                             : "none"));
    json_object_set_new(m, "interval", json_real(p->interval));
    json_object_set_new(m, "queue", json_integer(p->queue));
    json_object_set_new(m, "queue_timeout", qc_json_real_new(p->queue_timeout));
    json_object_set_new(m, "queue_discipline",
                        json_string(qc_psim_discipline_name(p->discipline)));
    json_object_set_new(m, "overhead", overhead ? json_string(overhead) : json_null());
    json_object_set_new(m, "transit", transit ? json_string(transit) : json_null());
    json_object_set_new(m, "service_seed",
                        p->service_seed ? json_integer((json_int_t)p->service_seed) : json_null());
    json_object_set_new(m, "load", qc_json_real_new(r->offered_load));
    json_object_set_new(root, "model", m);
    json_t *run = qc_app_json_run(0, p->horizon, p->reps, p->seed, p->level,
                               p->reps > 1 ? "replications" : "none");
    json_object_set_new(run, "warmup_time", json_real(p->warmup));
    qc_app_json_run_done(root, run, r->requests, r->events, p->reps * (p->warmup + p->horizon),
                      elapsed);
    json_object_set_new(root, "metrics", metrics_json(r->all));
    json_object_set_new(root, "limit", ci_json(&r->limit));
    json_object_set_new(root, "utilization", ci_json(&r->utilization));
    json_t *cls = json_array();
    for (unsigned k = 0; k < p->nclasses; k++) {
        const qc_psim_class *c = &p->cls[k];
        json_t *x = metrics_json(r->cls[k]);
        json_object_set_new(x, "name", json_string(c->name));
        json_object_set_new(x, "bound", c->bound > 0 ? json_real(c->bound) : json_null());
        json_object_set_new(x, "clients", json_string(c->users ? "closed" : "open"));
        if (c->users)
            json_object_set_new(x, "users", json_integer(c->users));
        else
            json_object_set_new(x, "arrival_rate",
                                qc_json_real_new(qc_arrivals_mean_rate(c->arrival)));
        json_object_set_new(x, "candidate", json_boolean(c->candidate));
        json_object_set_new(x, "rejected_in_reps", json_integer(r->rejected[k]));
        json_array_append_new(cls, x);
    }
    json_object_set_new(root, "classes", cls);
    return root;
}

static void ci_cell(const qc_ci *c, double f, const char *unit)
{
    if (isnan(c->mean)) {
        printf("  %-26s", "none");
        return;
    }
    char s[64];
    if (c->n >= 2 && isfinite(c->half))
        snprintf(s, sizeof s, "%.4g +- %.2g%s", c->mean * f, c->half * f, unit);
    else
        snprintf(s, sizeof s, "%.4g%s", c->mean * f, unit);
    printf("  %-26s", s);
}

static void table_rows(const char *name, const qc_ci *m)
{
    static const struct {
        int i;
        const char *label;
        double f;
        const char *unit;
    } rows[] = {{QC_PSIM_OFFERED, "offered (/s)", 1, ""},
                {QC_PSIM_GOODPUT, "goodput (/s)", 1, ""},
                {QC_PSIM_LATENCY, "admitted latency mean", 1e3, " ms"},
                {QC_PSIM_P50, "admitted latency p50", 1e3, " ms"},
                {QC_PSIM_P95, "admitted latency p95", 1e3, " ms"},
                {QC_PSIM_P99, "admitted latency p99", 1e3, " ms"},
                {QC_PSIM_WAIT, "admitted wait mean", 1e3, " ms"},
                {QC_PSIM_REFUSED, "refused", 100, " %"},
                {QC_PSIM_REFUSED_FULL, "  room full", 100, " %"},
                {QC_PSIM_REFUSED_DEADLINE, "  deadline", 100, " %"},
                {QC_PSIM_REFUSED_STANDING, "  queue stood (CoDel)", 100, " %"},
                {QC_PSIM_REFUSED_REJECTED, "  class rejected", 100, " %"}};
    printf("\nclass %s\n", name);
    for (size_t j = 0; j < sizeof rows / sizeof rows[0]; j++) {
        printf("  %-24s", rows[j].label);
        ci_cell(&m[rows[j].i], rows[j].f, rows[j].unit);
        printf("\n");
    }
}

void qc_app_psim_table(const qc_psim_params *p, const char *service, const qc_psim_result *r)
{
    printf("simulated proxy: limiter %s, interval %g s, room %u, deadline %g s, %s; "
           "%u backend%s x %u workers, service %s, %s",
           p->control ? qc_limiter_algo_name(p->limiter.algo) : "none", p->interval, p->queue,
           p->queue_timeout, qc_psim_discipline_name(p->discipline), p->backends,
           p->backends > 1 ? "s" : "", p->workers, service, qc_psim_route_name(p->route));
    if (isfinite(r->offered_load))
        printf("; load %.3g", r->offered_load);
    printf("\n%u replication%s of %g s after %g s", p->reps, p->reps > 1 ? "s" : "", p->horizon,
           p->warmup);
    if (p->reps > 1)
        printf("; %g%% intervals over replications", 100 * p->level);
    else
        printf("; one replication: no interval");
    printf("\n");
    if (p->nclasses > 1)
        for (unsigned k = 0; k < p->nclasses; k++)
            table_rows(p->cls[k].name, r->cls[k]);
    table_rows(p->nclasses > 1 ? "all" : p->cls[0].name, r->all);
    printf("\n  %-24s", "limit (mean)");
    ci_cell(&r->limit, 1, "");
    printf("\n  %-24s", "workers busy");
    ci_cell(&r->utilization, 100, " %");
    printf("\n");
    for (unsigned k = 0; k < p->nclasses; k++)
        if (r->rejected[k])
            printf("  class %s rejected by admission control in %d of %u replications\n",
                   p->cls[k].name, r->rejected[k], p->reps);
}

void qc_app_psim_series_rows(FILE *fp, const qc_psim_result *r)
{
    fprintf(fp, "t,limit,inflight,queue\n");
    for (size_t i = 0; i < r->series_len; i++) {
        const qc_psim_series_point *s = &r->series[i];
        fprintf(fp, "%.6g,", s->t);
        if (isfinite(s->limit))
            fprintf(fp, "%.10g", s->limit);
        fputc(',', fp);
        fprintf(fp, "%g,%g\n", s->inflight, s->waiting);
    }
}

