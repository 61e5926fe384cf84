/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simnet.c: what `qctl sim network` makes of a run and of the exact
 * solution (app/simnet.h): the JSON summary and the table, each value
 * beside its exact one where there is one, written once for --json,
 * --report, the sweep and Python. */
#include "simnet.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/output.h"

static const char *const slabels[QC_NM_COUNT] = {"response", "wait", "number", "util",
                                                 "thruput", "loss", "balk", "renege",
                                                 "timeout"};

/* An end-to-end percentile whose interval the replications withheld
 * (simout.h); one run gives none of them an interval ("no interval"). */
static int pct_withheld(const qc_network_result *r, int m, const qc_ci *c)
{
    return r->reps > 1 && m >= QC_NE_P50 && m <= QC_NE_P99 && isfinite(c->mean) &&
           isnan(c->half);
}

static json_t *value_json(const qc_ci *c, double exact, int sim, int withheld)
{
    json_t *o = sim ? qc_json_ci_new(c) : json_object();
    if (sim && withheld)
        json_object_set_new(o, "reason", json_string(QC_APP_PCT_SHORT_REASON));
    else if (sim && isnan(c->half))
        json_object_set_new(o, "reason", json_string(isnan(c->mean) ? "nothing measured"
                                                                    : "no interval"));
    json_object_set_new(o, "exact", qc_json_real_new(exact));
    return o;
}

json_t *qc_app_net_json(const qc_app_net_out *o, double elapsed)
{
    const qc_network *n = o->net;
    const qc_network_params *p = o->p;
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim network"));
    json_t *model = json_object();
    json_object_set_new(model, "file", json_string(o->file));
    json_object_set_new(model, "exact_method",
                        o->ex.method[0] ? json_string(o->ex.method) : json_null());
    json_object_set_new(model, "no_exact_because",
                        o->ex.why_not[0] ? json_string(o->ex.why_not) : json_null());
    json_t *diag = json_array();
    for (unsigned i = 0; i < n->nst; i++)
        for (unsigned k = 0; k < n->ncl; k++) {
            size_t row = (size_t)i * n->ncl + k;
            for (unsigned h = 0; h < n->nroute[row]; h++) {
                const qc_net_hop *hp = &n->route[row][h];
                char e[160];
                snprintf(e, sizeof e, "%s -(%s %.3g)-> %s/%s", n->st[i].name, n->cl[k].name,
                         hp->p, n->st[hp->station].name, n->cl[hp->cls].name);
                json_array_append_new(diag, json_string(e));
            }
        }
    json_object_set_new(model, "routes", diag);
    json_object_set_new(root, "model", model);
    if (o->simulated) {
        const qc_network_result *r = &o->r;
        json_t *run = qc_app_json_run(p->customers, p->horizon, r->reps, p->seed, p->level,
                                   r->ci_method);
        json_object_set_new(run, "warmup_chunks", json_integer(r->warmup_chunks));
        json_object_set_new(run, "transient",
                            r->transient ? json_string(r->transient_reason) : json_null());
        if (n->front >= 0) {
            json_object_set_new(run, "maxusers_mean_limit", qc_json_real_new(r->ctl_limit_mean));
            json_object_set_new(run, "maxusers_reference",
                                qc_json_real_new(p->ctl_reference > 0 ? p->ctl_reference
                                                                      : n->ctl_reference));
            json_object_set_new(run, "response_behind_front",
                                qc_json_real_new(r->ctl_behind_mean));
        }
        qc_app_json_run_done(root, run, r->measured, r->events, r->sim_time, elapsed);
    }
    json_t *st = json_object();
    for (unsigned i = 0; i < n->nst; i++) {
        json_t *sj = json_object();
        json_object_set_new(sj, "discipline", json_string(qc_net_disc_name(n->st[i].disc)));
        for (unsigned k = 0; k <= n->ncl; k++) {
            json_t *cj = json_object();
            size_t row = QC_NET_ROW(n, i, k);
            for (int m = 0; m < QC_NM_COUNT; m++)
                json_object_set_new(cj, qc_net_metric_name(m),
                                    value_json(o->simulated ? &o->r.station[row * QC_NM_COUNT + m]
                                                            : NULL,
                                               o->ex.station[row * QC_NM_COUNT + m],
                                               o->simulated, 0));
            json_object_set_new(sj, k < n->ncl ? n->cl[k].name : "all", cj);
        }
        json_object_set_new(st, n->st[i].name, sj);
    }
    json_object_set_new(root, "stations", st);
    json_t *e2e = json_object();
    for (unsigned k = 0; k <= n->ncl; k++) {
        json_t *cj = json_object();
        for (int m = 0; m < QC_NE_COUNT; m++) {
            size_t x = (size_t)k * QC_NE_COUNT + m;
            json_t *v = value_json(o->simulated ? &o->r.e2e[x] : NULL, o->ex.e2e[x],
                                   o->simulated,
                                   o->simulated && pct_withheld(&o->r, m, &o->r.e2e[x]));
            if (!isnan(o->ex.e2e_lo[x])) {
                json_object_set_new(v, "bound_low", qc_json_real_new(o->ex.e2e_lo[x]));
                json_object_set_new(v, "bound_high", qc_json_real_new(o->ex.e2e_hi[x]));
            }
            json_object_set_new(cj, qc_net_e2e_name(m), v);
        }
        json_object_set_new(e2e, k < n->ncl ? n->cl[k].name : "all", cj);
    }
    json_object_set_new(root, "end_to_end", e2e);
    return root;
}

static void cell(char *buf, size_t len, const qc_ci *c, double exact, int sim, int withheld)
{
    char e[32] = "";
    if (!isnan(exact))
        snprintf(e, sizeof e, " (%.4g)", exact);
    if (!sim)
        snprintf(buf, len, "%s", isnan(exact) ? "-" : e + 1);
    else if (isnan(c->mean))
        snprintf(buf, len, "none%s", e);
    else if (withheld)
        snprintf(buf, len, "%.4g %s%s", c->mean, QC_APP_PCT_SHORT_CELL, e);
    else if (isnan(c->half))
        snprintf(buf, len, "%.4g no CI%s", c->mean, e);
    else
        snprintf(buf, len, "%.4g±%.2g%s", c->mean, c->half, e);
}

void qc_app_net_table(const void *ctx)
{
    const qc_app_net_out *o = ctx;
    const qc_network *n = o->net;
    const qc_network_result *r = &o->r;
    const qc_network_params *p = o->p;
    printf("network %s: %u station%s, %u class%s\n", o->file, n->nst, n->nst == 1 ? "" : "s",
           n->ncl, n->ncl == 1 ? "" : "es");
    if (o->simulated) {
        printf("%u replication%s of ", r->reps, r->reps == 1 ? "" : "s");
        if (p->customers)
            printf("%llu customers leaving", (unsigned long long)p->customers);
        else
            printf("time %g", p->horizon);
        printf("; CI by %s at %g%%; warm-up %s\n", r->ci_method, 100 * p->level,
               p->warmup_mode == QC_WARMUP_FIXED ? "fixed" : "by MSER");
        if (r->transient)
            printf("TRANSIENT, NOT A STEADY STATE: %s\n", r->transient_reason);
        if (n->front >= 0)
            printf("MaxUsers at the front: reference %.4g s, mean limit %.4g, mean response "
                   "behind the front %.4g s\n",
                   p->ctl_reference > 0 ? p->ctl_reference : n->ctl_reference,
                   r->ctl_limit_mean, r->ctl_behind_mean);
    }
    if (o->ex.method[0])
        printf("exact: %s\n", o->ex.method);
    if (o->ex.why_not[0])
        printf("no exact product form: %s\n", o->ex.why_not);
    printf("(estimate±half-width (exact))\n");
    for (unsigned i = 0; i < n->nst; i++) {
        printf("\nstation %s (%s", n->st[i].name, qc_net_disc_name(n->st[i].disc));
        if (n->st[i].disc != QC_NET_IS)
            printf(", c = %u", n->st[i].servers);
        if (n->st[i].capacity)
            printf(", K = %llu%s", (unsigned long long)n->st[i].capacity,
                   n->st[i].bas ? " (blocking after service)" : "");
        printf(")\n  %-10s", "class");
        int show[QC_NM_COUNT];
        for (int m = 0; m < QC_NM_COUNT; m++) {
            show[m] = m <= QC_NM_THROUGHPUT;
            for (unsigned k = 0; k <= n->ncl && !show[m]; k++) {
                size_t x = QC_NET_ROW(n, i, k) * QC_NM_COUNT + (size_t)m;
                show[m] = (o->simulated && r->station[x].mean > 0) || o->ex.station[x] > 0;
            }
            if (show[m])
                printf(" %-26s", slabels[m]);
        }
        printf("\n");
        for (unsigned k = 0; k <= n->ncl; k++) {
            size_t row = QC_NET_ROW(n, i, k);
            if (k < n->ncl && !n->st[i].has_service[k])
                continue;
            printf("  %-10s", k < n->ncl ? n->cl[k].name : "all");
            for (int m = 0; m < QC_NM_COUNT; m++) {
                if (!show[m])
                    continue;
                char b[64];
                size_t x = row * QC_NM_COUNT + (size_t)m;
                cell(b, sizeof b, o->simulated ? &r->station[x] : NULL, o->ex.station[x],
                     o->simulated, 0);
                printf(" %-26s", b);
            }
            printf("\n");
        }
    }
    printf("\nend to end (per class entered as)\n  %-10s", "class");
    static const char *const el[QC_NE_COUNT] = {"response", "number", "thruput", "lost",
                                                "p50",      "p95",    "p99"};
    for (int m = 0; m < QC_NE_COUNT; m++)
        printf(" %-26s", el[m]);
    printf("\n");
    for (unsigned k = 0; k <= n->ncl; k++) {
        printf("  %-10s", k < n->ncl ? n->cl[k].name : "all");
        for (int m = 0; m < QC_NE_COUNT; m++) {
            char b[96];
            size_t x = (size_t)k * QC_NE_COUNT + (size_t)m;
            cell(b, sizeof b, o->simulated ? &r->e2e[x] : NULL, o->ex.e2e[x], o->simulated,
                 o->simulated && pct_withheld(r, m, &r->e2e[x]));
            if (isnan(o->ex.e2e[x]) && !isnan(o->ex.e2e_lo[x])) {
                size_t l = strlen(b);
                snprintf(b + l, sizeof b - l, " [%.3g, %.3g]", o->ex.e2e_lo[x], o->ex.e2e_hi[x]);
            }
            printf(" %-26s", b);
        }
        printf("\n");
    }
}
