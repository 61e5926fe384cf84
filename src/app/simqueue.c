/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simqueue.c: what `qctl sim queue` makes of a run (app/simqueue.h): the
 * JSON summary, the table, the series and response-time rows, written
 * once for --json, --report, the sweep and Python. */
#include "simqueue.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/hist.h"
#include "qctl/output.h"

/* The run's verdict on its intervals (result.h). */
qc_app_support qc_app_queue_support(const qc_queue_params *p, const qc_queue_result *r, const qc_app_queue_opts *o)
{
    return qc_queue_result_support(p, r, o);
}

static const char *const labels[QC_QM_COUNT] = {
    "response time", "waiting time", "number in system", "utilization", "throughput",
    "blocking probability", "response time p50", "response time p95", "response time p99"};

/* The words for a metric whose interval was withheld as resting on too
 * few rare events (qc_queue_result.rare). */
static void rare_words(const qc_queue_result *r, int i, char *buf, size_t n)
{
    if (i == QC_QM_BLOCKING)
        snprintf(buf, n, "no interval: %llu blocked (<%d)",
                 (unsigned long long)r->rare_blocked, QC_QUEUE_RARE_MIN);
    else if (i == QC_QM_UTILIZATION)
        snprintf(buf, n, "no interval: %llu found a server free (<%d)",
                 (unsigned long long)r->rare_free, QC_QUEUE_RARE_FREE_MIN);
    else
        snprintf(buf, n, "no interval: %llu waited (<%d)",
                 (unsigned long long)r->rare_waited, QC_QUEUE_RARE_MIN);
}

static int is_percentile(int i)
{
    return i >= QC_QM_P50 && i <= QC_QM_P99;
}

json_t *qc_app_queue_json(const qc_queue_params *p, const qc_queue_result *r,
                            const qc_queue_exact *ex, const qc_app_queue_opts *o, double elapsed)
{
    return qc_queue_result_json(p, r, ex, o, elapsed);
}

void qc_app_queue_table(const qc_queue_params *p, const qc_queue_result *r,
                        const qc_queue_exact *ex, const qc_app_queue_opts *o)
{
    printf("G/G/c/K queue: arrival %s, service %s, c = %u, K = ", o->arrival, o->service,
           p->servers);
    if (p->capacity)
        printf("%llu", (unsigned long long)p->capacity);
    else
        printf("unlimited");
    printf(", %s; offered load %.4g\n", p->discipline == QC_PS ? "PS" : "FCFS", r->load);
    double lw = qc_queue_window_load(p, r);
    if (qc_arrivals_varies(p->arrivals) && isfinite(lw))
        printf("time-varying rate (period %.6g s%s): load offered over the measured window "
               "%.4g%s\n",
               p->arrivals->period, o->whole_periods ? ", the run set to whole periods" : "", lw,
               fabs(lw - r->load) > 0.05 * r->load ? " (NOT the mean load: the window covers "
                                                      "part of a period)" : "");
    printf("%u replication%s of ", r->reps, r->reps > 1 ? "s" : "");
    if (p->customers)
        printf("%llu customers", (unsigned long long)r->customers);
    else
        printf("time %g", p->horizon);
    if (p->warmup_mode == QC_WARMUP_MSER5)
        printf("; warm-up cut by MSER on the %s: %.0f customers, time %.4g%s\n",
               r->reps > 1 ? "other replications' mean" : "run", r->warmup_customers,
               r->warmup_time, r->reps > 1 ? " per replication" : "");
    else
        printf("; fixed warm-up: %.0f customers, time %.4g%s\n", r->warmup_customers,
               r->warmup_time, r->reps > 1 ? " per replication" : "");
    if (r->batches)
        printf("CI by batch means: %zu batches, %s (von Neumann statistic %.2f)\n", r->batches,
               r->batches_independent ? "independent by von Neumann's test"
                                      : "NOT independent even at 8 batches: intervals may be "
                                        "too narrow; run longer",
               r->von_neumann);
    else
        printf("CI by replications\n");
    if (p->precision > 0) {
        if (r->precision_met)
            printf("precision %g%% reached with %llu customers%s (%llu simulated in all rounds)\n",
                   100 * p->precision, (unsigned long long)(r->customers * r->reps),
                   r->reps > 1 ? " in all replications" : "",
                   (unsigned long long)r->total_customers);
        else
            printf("precision %g%% NOT reached within --max-customers/--max-reps: "
                   "stopped at %u replication%s of %llu customers\n",
                   100 * p->precision, r->reps, r->reps > 1 ? "s" : "",
                   (unsigned long long)r->customers);
    }
    if (r->transient)
        printf("TRANSIENT, NOT A STEADY STATE: %s\n", r->transient_reason);
    const qc_app_support sup = qc_app_queue_support(p, r, o);
    qc_app_support_print(&sup);
    char lvl[48];
    snprintf(lvl, sizeof lvl, "%g%% confidence interval", 100 * p->level);
    printf("\n%-22s %14s   %-32s %s\n", "metric", "estimate", lvl, "exact");
    for (int i = 0; i < QC_QM_COUNT; i++) {
        const qc_ci *c = &r->metric[i];
        char est[32], ci[96], exs[32];
        if (isinf(c->mean)) {
            snprintf(est, sizeof est, "infinite");
            snprintf(ci, sizeof ci, "no mean exists (see below)");
        } else if (isnan(c->mean)) {
            snprintf(est, sizeof est, "none");
            snprintf(ci, sizeof ci, "nothing measured");
        } else {
            snprintf(est, sizeof est, "%.6g", c->mean);
            if (r->rare[i])
                rare_words(r, i, ci, sizeof ci);
            else if (isnan(c->half) && is_percentile(i) && (r->batches || r->reps > 1))
                snprintf(ci, sizeof ci, "%s", QC_APP_PCT_SHORT_CELL);
            else if (isnan(c->half))
                snprintf(ci, sizeof ci, "no interval from %zu value%s", c->n, c->n == 1 ? "" : "s");
            else
                qc_app_support_cell(&sup, c->lo, c->hi, ci, sizeof ci);
        }
        double e = ex->value[i];
        if (isinf(e))
            snprintf(exs, sizeof exs, "infinite");
        else if (isnan(e))
            snprintf(exs, sizeof exs, "-");
        else
            snprintf(exs, sizeof exs, "%.6g", e);
        printf("%-22s %14s   %-32s %s\n", labels[i], est, ci, exs);
    }
    if (r->infinite_reason[0])
        printf("\nNo finite mean: %s.\n", r->infinite_reason);
    if (ex->model[0])
        printf("\nexact: %s closed form%s\n", ex->model,
               is_percentile(QC_QM_P50) && isnan(ex->value[QC_QM_P50]) ? " (means only)" : "");
}

void qc_app_queue_series_rows(FILE *fp, const qc_queue_result *r)
{
    fprintf(fp, "time,mean_number_in_system,number_in_system\n");
    for (size_t i = 0; i < r->series_len; i++)
        fprintf(fp, "%.10g,%.10g,%u\n", r->series[i].t, r->series[i].mean, r->series[i].n);
}

/* Response time: density in equal bins up to the 99.9th percentile (each
 * histogram bucket spread over the bins it overlaps), and the
 * complementary CDF, which shows the tail. */
void qc_app_queue_response_rows(FILE *fp, const qc_queue_result *r)
{
    enum { NBIN = 80 };
    const qc_hist *h = r->response_hist;
    double top = qc_hist_quantile(h, 0.999), width = top / NBIN;
    double bins[NBIN] = {0};
    for (int i = 0; i < QC_HIST_NBUCKETS && width > 0; i++) {
        if (h->count[i] == 0)
            continue;
        double lo, hi;
        qc_hist_edges(h, i, &lo, &hi);
        /* uniform inside the bucket, so that bins do not alias bucket edges */
        for (int b = (int)(lo / width); b < NBIN && b * width < hi; b++) {
            double a = lo > b * width ? lo : b * width;
            double z = hi < (b + 1) * width ? hi : (b + 1) * width;
            if (z > a)
                bins[b] += (double)h->count[i] * (z - a) / (hi - lo);
        }
    }
    fprintf(fp, "# time density P(T>time)\n");
    for (int b = 0; b < NBIN; b++) {
        double t = (b + 0.5) * width;
        /* P(T > t) from the histogram: 1 - fraction at or below t */
        uint64_t below = 0;
        for (int i = 0; i < QC_HIST_NBUCKETS; i++) {
            double lo, hi;
            qc_hist_edges(h, i, &lo, &hi);
            if (0.5 * (lo + hi) > t)
                break;
            below += h->count[i];
        }
        below += h->zero + h->under;
        double ccdf = 1.0 - (double)below / (double)h->total;
        fprintf(fp, "%.10g %.10g %.10g\n", t, bins[b] / ((double)h->total * width), ccdf);
    }
}
