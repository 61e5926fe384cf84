/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_queue.c: `qctl sim queue`, the G/G/c/K queue from the command line.
 * Parses flags, runs qc_queue_run, writes the summary, series and plots. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/exact.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/queue.h"
#include "report_cli.h"
#include "result.h"

static const char about[] =
    "Simulates an open G/G/c/K queue (FCFS or processor sharing) and prints\n"
    "its steady-state measures with confidence intervals.\n";

static const char epilogue[] =
    "\n"
    "A run with no steady state (offered load >= 1 and a buffer it never\n"
    "filled, or response times that still trend over the last half of the\n"
    "window) is printed marked TRANSIENT with the evidence, and exits 1.\n"
    "\n"
    "Distribution specs: exp:RATE det:VALUE uniform:A,B erlang:K,RATE\n"
    "  hyperexp:P1,R1,P2,R2 gamma:SHAPE,SCALE lognormal:MU,SIGMA\n"
    "  weibull:SHAPE,SCALE pareto:ALPHA,XM bpareto:ALPHA,L,H empirical:FILE[,COL]\n"
    "  lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2[,W3,MU3,SIGMA3] expmix:W1,R1,W2,R2[,W3,R3]\n"
    "  gpd:XI,SIGMA,U (a fitted one: qctl fit --column FILE[:COL] --spec)";

typedef struct opts {
    const char *arrival, *service;
    cli_outputs out; /* --json, --output, --series, --plot, --report */
    int quiet;
    double series_dt;
    int allow_short; /* --allow-short */
    const char *curve_unit; /* --curve-unit s|min|h */
    int whole_periods;      /* the run was set to whole periods of the rate */
} opts;

/* The run's verdict on its intervals (result.h). */
static cli_support support_of(const qc_queue_params *p, const qc_queue_result *r, const opts *o)
{
    return (cli_support){r->short_run, r->short_reason, o->allow_short, p->precision > 0,
                         r->precision_met};
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

/* The load offered over each replication's measured window (after the
 * warm-up): the rate's mean over it times E[S] / c. NAN for a trace. */
static double window_load(const qc_queue_params *p, const qc_queue_result *r)
{
    double end = r->sim_time / (r->reps ? r->reps : 1);
    double rate = qc_arrivals_mean_rate_over(p->arrivals, r->warmup_time, end);
    return rate * qc_dist_mean(p->service) / p->servers;
}

static json_t *summary_json(const qc_queue_params *p, const qc_queue_result *r,
                            const qc_queue_exact *ex, const opts *o, double elapsed)
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
    json_object_set_new(model, "load_over_window", qc_json_real_new(window_load(p, r)));
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

    json_t *run = cli_json_run(r->customers, p->horizon, r->reps, p->seed, p->level, r->ci_method);
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
    const cli_support sup = support_of(p, r, o);
    json_t *is = cli_support_json_run(&sup);
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
    cli_json_run_done(root, run, r->measured, r->events, r->sim_time, elapsed);

    json_t *m = json_object();
    for (int i = 0; i < QC_QM_COUNT; i++) {
        const qc_ci *c = &r->metric[i];
        json_t *mj = qc_json_ci_new(c);
        if (isfinite(c->half))
            cli_support_json(&sup, mj);
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
            json_object_set_new(mj, "reason",
                                json_string("the run is too short for this percentile's interval: "
                                            "too few response times beyond it, or its batches "
                                            "cannot bound it; a longer run or replications"));
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

static void print_table(const qc_queue_params *p, const qc_queue_result *r,
                        const qc_queue_exact *ex, const opts *o)
{
    printf("G/G/c/K queue: arrival %s, service %s, c = %u, K = ", o->arrival, o->service,
           p->servers);
    if (p->capacity)
        printf("%llu", (unsigned long long)p->capacity);
    else
        printf("unlimited");
    printf(", %s; offered load %.4g\n", p->discipline == QC_PS ? "PS" : "FCFS", r->load);
    double lw = window_load(p, r);
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
    const cli_support sup = support_of(p, r, o);
    cli_support_print(&sup);
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
                snprintf(ci, sizeof ci, "no interval: run too short");
            else if (isnan(c->half))
                snprintf(ci, sizeof ci, "no interval from %zu value%s", c->n, c->n == 1 ? "" : "s");
            else
                cli_support_cell(&sup, c->lo, c->hi, ci, sizeof ci);
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

/* The run (qc_queue_run on the validated parameters) and what the
 * outputs are made of. */
typedef struct queue_out {
    qc_queue_params p;
    qc_queue_result r;
    qc_queue_exact ex;
    const opts *o;
} queue_out;

static void queue_table(const void *ctx)
{
    const queue_out *q = ctx;
    print_table(&q->p, &q->r, &q->ex, q->o);
}

static int queue_verdict(const void *ctx)
{
    const queue_out *q = ctx;
    if (!q->r.transient) {
        const cli_support sup = support_of(&q->p, &q->r, q->o);
        return cli_support_verdict(&sup, "sim queue");
    }
    cli_error("sim queue: no steady state: %s", q->r.transient_reason);
    return QC_EXIT_FAIL;
}

static void series_rows(FILE *fp, const void *ctx)
{
    const qc_queue_result *r = &((const queue_out *)ctx)->r;
    fprintf(fp, "time,mean_number_in_system,number_in_system\n");
    for (size_t i = 0; i < r->series_len; i++)
        fprintf(fp, "%.10g,%.10g,%u\n", r->series[i].t, r->series[i].mean, r->series[i].n);
}

/* Response time: density in equal bins up to the 99.9th percentile (each
 * histogram bucket spread over the bins it overlaps), and the
 * complementary CDF, which shows the tail. */
static void response_rows(FILE *fp, const void *ctx)
{
    enum { NBIN = 80 };
    const qc_hist *h = ((const queue_out *)ctx)->r.response_hist;
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

static int queue_plots(cli_plots *pl, const void *ctx)
{
    int rc = cli_plots_data(pl, "number_in_system.csv", series_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "number_in_system",
                            "set datafile separator ','\nset key below horizontal\n"
                            "set xlabel 'time (s)'\nset ylabel 'number in system'\n"
                            "plot '%s' using 1:2 every ::1 with lines lw 1 title "
                            "'time-average per bin'",
                            pl->path);
    if (rc == 0)
        rc = cli_plots_data(pl, "response_time.dat", response_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "response_time_hist",
                            "set xlabel 'response time (s)'\nset ylabel 'density'\nunset key\n"
                            "set style fill solid 0.5 border\nset yrange [0:*]\n"
                            "plot '%s' using 1:2 with boxes lc rgb '#1f77b4'",
                            pl->path);
    if (rc == 0)
        rc = cli_plots_draw(pl, "response_time_ccdf",
                            "set xlabel 'response time t (s)'\nset ylabel 'P(T > t)'\nunset key\n"
                            "set logscale y\nset format y '10^{%%L}'\n"
                            "plot '%s' using 1:($3 > 0 ? $3 : 1/0) with linespoints pt 7 ps "
                            "0.4 lc rgb '#d62728'",
                            pl->path);
    return rc;
}

/* What the flags set, and what the validation makes of them (the
 * arrival process and the service distribution, owned here). */
typedef struct queue_cli {
    qc_queue_params p;
    opts o;
    const char *warm, *capacity;
    qc_arrivals arr;
    qc_dist svc;
    const cli_flag *flags;
    unsigned given[64];
} queue_cli;

/* Every check before the run (the table's, then these), the defaults
 * that depend on other flags resolved. */
static int queue_validate(void *ctx)
{
    queue_cli *q = ctx;
    qc_queue_params *p = &q->p;
    opts *o = &q->o;
    int rc;
    if (q->capacity) {
        if (strcmp(q->capacity, "inf") == 0 || strcmp(q->capacity, "unlimited") == 0)
            p->capacity = 0;
        else if ((rc = cli_u64("--capacity", q->capacity, &p->capacity)) != 0)
            return rc;
        else if (p->capacity == 0) {
            cli_error("--capacity: must be at least the number of servers (or 'inf')");
            return QC_EXIT_USAGE;
        }
    }
    if (o->out.report && (rc = cli_report_prepare(o->out.report)) != 0)
        return rc;
    if (!o->arrival || !o->service) {
        cli_error("sim queue: --%s is required (see 'qctl sim queue --help')",
                  o->arrival ? "service" : "arrival");
        return QC_EXIT_USAGE;
    }
    if (cli_flag_given(q->flags, q->given, "customers") && p->customers == 0) {
        cli_error("--customers: must be at least 1 (or give --time for a run in time)");
        return QC_EXIT_USAGE;
    }
    if (p->precision != 0 && !(p->precision > 0 && p->precision < 1)) {
        cli_error("--precision: %g is not a relative half-width in (0, 1), e.g. 0.01",
                  p->precision);
        return QC_EXIT_USAGE;
    }
    int no_length = p->customers == 0 && p->horizon == 0;
    if (no_length)
        p->customers = 100000;
    if ((p->max_customers || p->max_reps) && p->precision == 0) {
        cli_error("--%s: only with --precision", p->max_customers ? "max-customers" : "max-reps");
        return QC_EXIT_USAGE;
    }
    if (p->precision > 0) {
        if (p->horizon > 0) {
            cli_error("--precision: needs the run length in customers (--customers), not --time");
            return QC_EXIT_USAGE;
        }
        if (p->max_customers == 0)
            p->max_customers = 1000000000;
        if (p->max_reps == 0)
            p->max_reps = 10000;
        if (p->max_reps < p->reps) {
            cli_error("--max-reps: %u is fewer than the %u replications of --reps", p->max_reps, p->reps);
            return QC_EXIT_USAGE;
        }
        if (p->max_customers < p->customers * p->reps) {
            cli_error("--max-customers: %llu is fewer than the first round's %llu",
                      (unsigned long long)p->max_customers,
                      (unsigned long long)(p->customers * p->reps));
            return QC_EXIT_USAGE;
        }
    }
    if (p->horizon < 0) {
        cli_error("--time: must be > 0");
        return QC_EXIT_USAGE;
    }
    int fixed;
    if ((rc = cli_warmup_parse(q->warm, 1, p->customers != 0, &fixed, &p->warmup)) != 0)
        return rc;
    p->warmup_mode = fixed ? QC_WARMUP_FIXED : QC_WARMUP_MSER5;
    if (fixed && (rc = cli_check_warmup("--warmup", p->warmup,
                                        p->customers ? (double)p->customers : p->horizon,
                                        p->customers ? "customers" : "s")) != 0)
        return rc;
    if (o->series_dt < 0) {
        cli_error("--series-dt: must be > 0");
        return QC_EXIT_USAGE;
    }

    qc_err err = {0};
    if ((rc = qc_arrivals_parse(&q->arr, o->arrival, &err)) != 0) {
        cli_error("--arrival: %s", err.msg);
        return QC_EXIT_USAGE; /* a bad spec or an unreadable file: input */
    }
    p->arrivals = &q->arr;
    if (o->curve_unit) {
        double u = strcmp(o->curve_unit, "s") == 0     ? 1
                   : strcmp(o->curve_unit, "min") == 0 ? 60
                   : strcmp(o->curve_unit, "h") == 0   ? 3600
                                                       : 0;
        if (u == 0) {
            cli_error("--curve-unit: '%s' is not s, min or h", o->curve_unit);
            return QC_EXIT_USAGE;
        }
        if (q->arr.unit > 0 && q->arr.unit != u) {
            /* the file states its own unit: two answers to one question */
            const char *fu = q->arr.unit == 1 ? "s" : q->arr.unit == 60 ? "min" : "h";
            cli_error("--curve-unit %s: the curve file %s states its unit as %s (its '# unit: "
                      "%s' line); they disagree: drop --curve-unit or correct the file",
                      o->curve_unit, o->arrival + 6, fu, fu);
            return QC_EXIT_USAGE;
        }
        if (q->arr.unit > 0) {
            /* the same unit as the file's, which is applied already */
        } else if ((rc = qc_arrivals_set_time_unit(&q->arr, u, &err)) != 0) {
            cli_error("--curve-unit: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    /* A time-varying rate with no run length given: whole periods, as
     * many as the default 10^5 customers take (at least one), so that the
     * window offers the curve's mean load (10^5 customers of a 24-hour
     * curve covered 2 of its hours) */
    if (no_length && qc_arrivals_varies(&q->arr) && p->precision == 0) {
        double per = q->arr.period, avg = qc_arrivals_mean_rate(&q->arr);
        double k = ceil(100000.0 / (avg * per));
        p->customers = 0;
        p->horizon = (k >= 1 ? k : 1) * per;
        o->whole_periods = 1;
    }
    if ((rc = qc_dist_parse(&q->svc, o->service, &err)) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->service = &q->svc;
    /* the simulated time: measured customers (or time) and a fixed warm-up */
    double warm = fixed ? p->warmup : 0;
    double span = p->customers ? ((double)p->customers + warm) * (1.0 / qc_arrivals_mean_rate(&q->arr))
                               : p->horizon + warm;
    return cli_series_bins(&o->out, span, &o->series_dt, &p->series_dt, sizeof(qc_series_point));
}

static int queue_run(void *ctx, int argc, char **argv)
{
    queue_cli *q = ctx;
    static const char *const names[] = {"number_in_system", "response_time_hist",
                                        "response_time_ccdf"};
    queue_out out = {.p = q->p, .o = &q->o};
    cli_run run;
    cli_run_begin(&run, "sim queue", NULL, q->o.quiet, &out.p.progress, &out.p.progress_ctx);
    cli_run_cancellable(&run, &out.p.cancel);
    int rc = cli_run_end(&run, qc_queue_run(&out.p, &out.r, &run.err));
    if (rc != 0)
        return rc;
    qc_queue_exact_values(&out.p, &out.ex);
    cli_result r = {summary_json(&out.p, &out.r, &out.ex, &q->o, run.elapsed),
                    &out, queue_table, queue_verdict, series_rows, queue_plots, names, 3};
    rc = cli_result_write(&q->o.out, &r, argc, argv);
    qc_queue_result_free(&out.r);
    return rc;
}

int cmd_sim_queue(int argc, char **argv)
{
    queue_cli q = {.warm = "auto", .o.out.cmd = "sim queue"};
    qc_queue_params *p = &q.p;
    opts *o = &q.o;
    qc_queue_params_init(p);
    p->jobs = cli_jobs_default();
    int help = 0;
    const cli_flag flags[] = {
        {"arrival", CLI_STR, &o->arrival, .arg = "SPEC",
         .help = "inter-arrival time distribution (e.g. exp:0.9), or\nsin:MEAN,AMP,PERIOD, "
                 "curve:FILE or steps:T0:R0,...\n(Poisson with a time-varying rate), or "
                 "trace:FILE\n(arrival times)"},
        {"service", CLI_STR, &o->service, .arg = "SPEC",
         .help = "service time distribution (e.g. exp:1)"},
        {"curve-unit", CLI_STR, &o->curve_unit, .arg = "s|min|h",
         .help = "the unit of the times in a curve:, steps: or sin:\narrival (its rates are per "
                 "that unit; default s)"},
        {"servers", CLI_UINT, &p->servers, .arg = "C", .help = "number of servers (default 1)"},
        {"capacity", CLI_STR, &q.capacity, .arg = "K",
         .help = "most customers in system, K >= C (default: unlimited)"},
        {"discipline", CLI_CHOICE, &p->discipline, .arg = "D", .choices = "fcfs,ps",
         .help = "fcfs (default) or ps (processor sharing)"},
        {"customers", CLI_U64, &p->customers, .arg = "N",
         .help = "measured arrivals per replication (default 100000)", .zero_unset = 1},
        CLI_ROW_TIME(&p->horizon),
        {"warmup", CLI_STR, &q.warm, .arg = "W",
         .help = "auto (default: MSER on the other replications' mean\nseries, "
                 "docs/output-analysis.md), or customers (with\n--customers) or time (with "
                 "--time) simulated before\nmeasuring"},
        {"reps", CLI_UINT, &p->reps, .arg = "R",
         .help = "independent replications (default 1: batch means)"},
        {"precision", CLI_DOUBLE, &p->precision, .arg = "REL",
         .help = "run until every mean's half-width is at most REL times\nits estimate: twice the "
                 "replications each round, or\nwith one replication the run repeated with "
                 "twice the\ncustomers; says whether it got there",
         .zero_unset = 1},
        {"max-customers", CLI_U64, &p->max_customers, .arg = "N",
         .help = "with --precision: most customers in all rounds\n(default 1e9)", .zero_unset = 1},
        {"max-reps", CLI_UINT, &p->max_reps, .arg = "R",
         .help = "with --precision: most replications (default 10000)", .zero_unset = 1},
        CLI_ROW_JOBS(&p->jobs),
        CLI_ROW_SEED(&p->seed),
        CLI_ROW_CONFIDENCE(&p->level),
        CLI_ROW_JSON(&o->out.json),
        CLI_ROW_OUTPUT(&o->out.output),
        {"series", CLI_STR, &o->out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write number in system over time (replication 1) as CSV"},
        CLI_ROW_SERIES_DT(&o->series_dt),
        {"plot", CLI_STR, &o->out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "draw number in system and the response-time histogram\ninto DIR as SVG and PNG "
                 "(needs gnuplot)"},
        CLI_ROW_REPORT(&o->out.report),
        CLI_ROW_QUIET(&o->quiet),
        CLI_ROW_ALLOW_SHORT(&o->allow_short),
        CLI_ROWS_CONFIG_CHECK(&q, queue_validate),
        CLI_ROW_HELP(&help),
        {"", CLI_NOTE, NULL, .help = epilogue},
        {0}};
    q.flags = flags;
    int rc = cli_command_main("sim queue", "qctl sim queue --arrival SPEC --service SPEC [options]",
                              about, flags, q.given, queue_run, &q, argc, argv);
    qc_arrivals_free(&q.arr);
    qc_dist_free(&q.svc);
    return rc;
}
