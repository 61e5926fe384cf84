/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simpool.c: what `qctl sim pool` makes of a run (app/simpool.h): the JSON
 * summary, the table, the policy comparison and the rows of its series
 * and plots, written once for --json, --report, the sweep and Python. */
#include "simpool.h"

#include <math.h>
#include <stdio.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/hist.h"
#include "qctl/output.h"

static const char *const labels[QC_PM_COUNT] = {
    "mean jobs",           "response time",        "response time p50",
    "response time p95",   "response time p99",    "throughput",
    "mean power (cost)",   "energy per job (cost)", "switch-ons per hour",
    "fraction in setup",    "average cost",         "holding cost",
    "setup cost",        "servers on",           "servers busy",
    "servers in setup",     "corr(servers on, rate)"};

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

/* A response-time percentile whose interval the run withheld (simout.h). */
static int pct_withheld(int i, const qc_ci *c)
{
    return i >= QC_PM_P50 && i <= QC_PM_P99 && isfinite(c->mean) && isnan(c->half);
}

/* A metric's interval cell: a withheld percentile or a value without an
 * interval in words, never "[nan, nan]". */
static void pool_cell(const qc_app_support *sup, int i, const qc_ci *c, char *buf, size_t n)
{
    if (pct_withheld(i, c))
        snprintf(buf, n, "%s", QC_APP_PCT_SHORT_CELL);
    else if (isnan(c->mean))
        snprintf(buf, n, "nothing measured");
    else if (isnan(c->half))
        snprintf(buf, n, "no interval from %zu value%s", c->n, c->n == 1 ? "" : "s");
    else
        qc_app_support_cell(sup, c->lo, c->hi, buf, n);
}

qc_app_support qc_app_pool_support(const qc_pool_result *r, const qc_app_pool_opts *o)
{
    return qc_pool_result_support(r, o);
}

json_t *qc_app_pool_json(const qc_pool_params *p, const qc_pool_result *r, const qc_app_pool_opts *o,
                            double elapsed)
{
    return qc_pool_result_json(p, r, o, elapsed);
}

void qc_app_pool_table(const qc_pool_params *p, const qc_pool_result *r, const qc_app_pool_opts *o)
{
    printf("server pool: K = %u, policy %s", p->servers, qc_pool_policy_name(p->policy));
    if (p->policy == QC_POOL_DJSQ)
        printf(" (T = %u)", p->threshold);
    printf(", arrival %s, service %s, setup %s", o->arrival, o->service, o->setup);
    if (p->policy != QC_POOL_JSQ)
        printf(", idle timer %g", p->idle_timer);
    if (isfinite(r->load))
        printf("; load %.4g", r->load);
    printf("\n%u replication%s of ", p->reps, p->reps > 1 ? "s" : "");
    if (p->customers)
        printf("%llu customers", (unsigned long long)p->customers);
    else
        printf("time %g", p->horizon);
    printf("; warm-up cut (%s): %.0f customers, time %.4g per replication; CI by %s\n\n",
           qc_warmup_mode_name(p->warmup_mode),
           r->warmup_customers, r->warmup_time, r->ci_method);
    const qc_app_support sup = qc_app_pool_support(r, o);
    qc_app_support_print(&sup);
    if (sup.short_run)
        printf("\n");
    printf("%-24s %14s   %g%% confidence interval\n", "metric", "estimate", 100 * p->level);
    char cell[96];
    for (int i = 0; i < QC_PM_COUNT; i++) {
        const qc_ci *c = &r->metric[i];
        if (i == QC_PM_DEMAND_CORR && c->n == 0)
            continue;
        pool_cell(&sup, i, c, cell, sizeof cell);
        if (isnan(c->mean))
            printf("%-24s %14s   %s\n", labels[i], "none", cell);
        else
            printf("%-24s %14.6g   %s\n", labels[i], c->mean, cell);
    }
    if (o->price > 0) {
        qc_ci w = ci_scaled(&r->metric[QC_PM_POWER], 1.0 / o->price);
        pool_cell(&sup, QC_PM_POWER, &w, cell, sizeof cell);
        printf("%-24s %14.6g   %s\n", "mean power (W)", w.mean, cell);
    }
}

void qc_app_pool_series_rows(FILE *fp, const void *ctx)
{
    const qc_pool_result *r = ctx;
    fprintf(fp, "time,jobs,servers_on,servers_setup,servers_busy,arrival_rate,measured_rate\n");
    for (size_t i = 0; i < r->series_len; i++) {
        const qc_pool_series_point *s = &r->series[i];
        fprintf(fp, "%.10g,%.10g,%.10g,%.10g,%.10g,", s->t, s->jobs, s->on, s->setup, s->busy);
        qc_app_csv_num(fp, s->rate, ",");
        qc_app_csv_num(fp, s->arrivals, "\n");
    }
}

/* The series as the plot draws it: a long run (125,000 s at 12.5 s is
 * 10,000 points of a count jumping between whole numbers) drawn point by
 * point fills the frame solid, so it is averaged over consecutive points
 * into at most QC_APP_PLOT_POINTS bins, each at its last point's time;
 * a short series is written as it is. The columns are the series' own
 * (--series writes every point). */
void qc_app_pool_plot_rows(FILE *fp, const void *ctx)
{
    const qc_pool_result *r = ctx;
    const size_t n = r->series_len;
    const size_t per = n > QC_APP_PLOT_POINTS ? (n + QC_APP_PLOT_POINTS - 1) / QC_APP_PLOT_POINTS : 1;
    if (per == 1) {
        qc_app_pool_series_rows(fp, ctx);
        return;
    }
    fprintf(fp, "time,jobs,servers_on,servers_setup,servers_busy,arrival_rate,measured_rate\n");
    for (size_t i = 0; i < n; i += per) {
        const size_t end = i + per < n ? i + per : n;
        double sum[6] = {0}; /* jobs, on, setup, busy, rate, arrivals */
        size_t fin[2] = {0};  /* finite rate, arrivals values */
        for (size_t j = i; j < end; j++) {
            const qc_pool_series_point *s = &r->series[j];
            sum[0] += s->jobs;
            sum[1] += s->on;
            sum[2] += s->setup;
            sum[3] += s->busy;
            if (isfinite(s->rate)) {
                sum[4] += s->rate;
                fin[0]++;
            }
            if (isfinite(s->arrivals)) {
                sum[5] += s->arrivals;
                fin[1]++;
            }
        }
        const double k = (double)(end - i);
        fprintf(fp, "%.10g,%.10g,%.10g,%.10g,%.10g,", r->series[end - 1].t, sum[0] / k,
                sum[1] / k, sum[2] / k, sum[3] / k);
        qc_app_csv_num(fp, fin[0] ? sum[4] / (double)fin[0] : NAN, ",");
        qc_app_csv_num(fp, fin[1] ? sum[5] / (double)fin[1] : NAN, "\n");
    }
}

/* P(T > t) at the histogram's bucket edges, for the tail plot. */
void qc_app_pool_ccdf_rows(FILE *fp, const void *ctx)
{
    const qc_hist *h = ((const qc_pool_result *)ctx)->response_hist;
    fprintf(fp, "# time P(T>time)\n");
    uint64_t below = h->zero + h->under;
    for (int i = 0; i < QC_HIST_NBUCKETS && h->total > 0; i++) {
        if (h->count[i] == 0)
            continue;
        double lo, hi;
        qc_hist_edges(h, i, &lo, &hi);
        below += h->count[i];
        double ccdf = 1.0 - (double)below / (double)h->total;
        if (ccdf > 0)
            fprintf(fp, "%.10g %.10g\n", hi, ccdf);
    }
}

static const int cmp_metrics[] = {QC_PM_COST, QC_PM_HOLDING_COST, QC_PM_POWER, QC_PM_SETUP_COST,
                                  QC_PM_RESPONSE, QC_PM_P95, QC_PM_SERVERS_ON,
                                  QC_PM_SWITCH_ONS_PER_HOUR};
#define NCMP (sizeof cmp_metrics / sizeof cmp_metrics[0])

json_t *qc_app_pool_comparison_json(const qc_app_pool_cmp *c)
{
    json_t *a = json_array();
    for (size_t i = 0; i < c->n; i++) {
        json_t *row = json_object();
        json_object_set_new(row, "policy", json_string(qc_pool_policy_name(c->pol[i])));
        for (size_t j = 0; j < NCMP; j++) {
            const qc_ci *ci = &c->r[i]->metric[cmp_metrics[j]];
            json_t *cj = qc_json_ci_new(ci);
            if (pct_withheld(cmp_metrics[j], ci))
                json_object_set_new(cj, "reason", json_string(QC_APP_PCT_SHORT_REASON));
            json_object_set_new(row, qc_pool_metric_name(cmp_metrics[j]), cj);
        }
        json_array_append_new(a, row);
    }
    return a;
}

void qc_app_pool_comparison_table(const qc_app_pool_cmp *c, double level)
{
    printf("\npolicy comparison (same input and seed; %g%% half-widths):\n", 100 * level);
    printf("%-8s %22s %22s %22s %12s\n", "policy", "average cost", "response time",
           "mean power (cost)", "servers on");
    for (size_t i = 0; i < c->n; i++) {
        const qc_ci *m = c->r[i]->metric;
        printf("%-8s %12.6g +- %-7.2g %12.6g +- %-7.2g %12.6g +- %-7.2g %12.4g\n",
               qc_pool_policy_name(c->pol[i]), m[QC_PM_COST].mean, m[QC_PM_COST].half,
               m[QC_PM_RESPONSE].mean, m[QC_PM_RESPONSE].half, m[QC_PM_POWER].mean,
               m[QC_PM_POWER].half, m[QC_PM_SERVERS_ON].mean);
    }
}

void qc_app_pool_comparison_rows(FILE *fp, const void *ctx)
{
    const qc_app_pool_cmp *c = ctx;
    fprintf(fp, "# policy average_cost holding_cost ci_low ci_high\n");
    for (size_t i = 0; i < c->n; i++) {
        const qc_ci *m = c->r[i]->metric;
        fprintf(fp, "%s %.10g %.10g %.10g %.10g\n", qc_pool_policy_name(c->pol[i]),
                m[QC_PM_COST].mean, m[QC_PM_HOLDING_COST].mean, m[QC_PM_COST].lo,
                m[QC_PM_COST].hi);
    }
}
