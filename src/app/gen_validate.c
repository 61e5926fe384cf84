/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_validate.c: `qctl gen --validate CAPTURE` (gen_cmd.h): the
 * fitted-distribution and copula approaches compared with a real capture
 * side by side. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "gen_cmd.h"
#include "guard.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "result.h"
#include "traffic_cmd.h"

/* Each metric over the realisations: per approach its mean and a 95%
 * Student-t interval of the mean, and the same for its distance to the
 * capture (|value - real|, or the value itself for a distance metric).
 * The packet rate is (n - 1) / mean duration, its interval that of the
 * mean duration turned over: the mean of per-realisation rates would be
 * biased upwards (E[1/D] > 1/E[D]), by 25% on a game capture's 1000
 * packets of strongly correlated gaps.
 * An approach is "closer" only when its distance interval lies wholly
 * below the other's: one realisation is noise (a Hurst exponent or an
 * autocorrelation from 2000 packets moves by 0.1 from seed to seed). */
#define NMETRICS 10

/* A figure over the realisations: the one interval shape (qc_ci), NAN
 * ends when fewer than 2 finite values. */
typedef qc_ci vstat;

typedef struct vrow {
    const char *name;
    double real;        /* NAN: the values are distances already */
    double per;         /* > 0: the values are durations, shown as per / mean */
    double *x[2];       /* per realisation: fitted, copula */
    vstat v[2], d[2];   /* values and distances */
    const char *closer;
} vrow;

static void summarise(const double *x, size_t n, vstat *s)
{
    qc_ci_t_finite(x, n, 0.95, s, NULL);
}

static void row_finish(vrow *r, size_t n)
{
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (int a = 0; a < 2; a++) {
        summarise(r->x[a], n, &r->v[a]);
        if (d == NULL) {
            r->d[a] = r->v[a];
            continue;
        }
        for (size_t k = 0; k < n; k++)
            d[k] = isnan(r->real) ? r->x[a][k] : fabs(r->x[a][k] - r->real);
        summarise(d, n, &r->d[a]);
    }
    free(d);
    if (r->per > 0) /* a rate: the packets over the mean duration */
        for (int a = 0; a < 2; a++) {
            vstat *v = &r->v[a];
            const double m = v->mean, lo = v->lo, hi = v->hi;
            v->mean = m > 0 ? r->per / m : NAN;
            v->lo = hi > 0 ? r->per / hi : NAN;
            v->hi = lo > 0 ? r->per / lo : (isnan(lo) ? NAN : INFINITY);
            v->half = NAN; /* the interval of a rate is not symmetric */
        }
    const vstat *f = &r->d[0], *c = &r->d[1];
    if (isnan(f->lo) || isnan(c->lo))
        r->closer = f->n == 0 && c->n == 0 ? "no values" : "undecided";
    else if (f->hi < c->lo)
        r->closer = "fitted";
    else if (c->hi < f->lo)
        r->closer = "copula";
    else
        r->closer = "overlap";
}

static double acf_rms(const qc_traffic_stats *a, const qc_traffic_stats *b)
{
    double s = 0;
    int n = 0;
    for (int k = 1; k <= QC_TRAFFIC_ACF_LAGS; k++)
        if (isfinite(a->acf[k]) && isfinite(b->acf[k])) {
            s += (a->acf[k] - b->acf[k]) * (a->acf[k] - b->acf[k]);
            n++;
        }
    return n ? sqrt(s / n) : NAN;
}

static json_t *num_or_null(double x)
{
    return isfinite(x) ? qc_json_real_new(x) : json_null();
}

/* The validation summary of --json and --report. */
static json_t *validation_json(const char *capture, const qc_trace *tr, const qc_traffic_model *m,
                               const char *model_file, size_t packets, double bin,
                               unsigned realisations, size_t segments, const vrow *rows,
                               size_t nrows, const int wins[2])
{
    json_t *s = json_object(), *mt = json_object();
    json_object_set_new(s, "command", json_string("gen --validate"));
    json_object_set_new(s, "capture", cli_trace_json(capture, tr));
    json_object_set_new(s, "activity", json_string(m->name));
    json_object_set_new(s, "model", model_file ? json_string(model_file) : json_string("fitted in-sample"));
    json_object_set_new(s, "packets", json_integer((json_int_t)packets));
    json_object_set_new(s, "segments", json_integer((json_int_t)segments));
    json_object_set_new(s, "realisations", json_integer(realisations));
    json_object_set_new(s, "bin_seconds", qc_json_real_new(bin));
    json_t *mr = json_object();
    json_object_set_new(mr, "fitted", num_or_null(qc_traffic_model_rate(m, QC_TRAFFIC_FITTED)));
    json_object_set_new(mr, "copula", num_or_null(qc_traffic_model_rate(m, QC_TRAFFIC_COPULA)));
    json_object_set_new(s, "model_packets_per_second", mr);
    for (size_t i = 0; i < nrows; i++) {
        json_t *r = json_object();
        if (!isnan(rows[i].real))
            json_object_set_new(r, "real", num_or_null(rows[i].real));
        json_object_set_new(r, "fitted", qc_json_ci_new(&rows[i].v[0]));
        json_object_set_new(r, "copula", qc_json_ci_new(&rows[i].v[1]));
        json_object_set_new(r, "fitted_distance", qc_json_ci_new(&rows[i].d[0]));
        json_object_set_new(r, "copula_distance", qc_json_ci_new(&rows[i].d[1]));
        json_object_set_new(r, "closer", json_string(rows[i].closer));
        json_object_set_new(mt, rows[i].name, r);
    }
    json_object_set_new(s, "metrics", mt);
    json_t *sc = json_object();
    json_object_set_new(sc, "fitted", json_integer(wins[0]));
    json_object_set_new(sc, "copula", json_integer(wins[1]));
    json_object_set_new(s, "closer_count", sc);
    return s;
}

static const char *const validation_plots[] = {"variance_time", "acf_counts", "gap_cdf"};

/* "12.34 [11.9, 12.8]" or "12.34" or "no value" into buf. */
static const char *fmt_stat(const vstat *s, char *buf, size_t len)
{
    if (!isfinite(s->mean))
        snprintf(buf, len, "no value");
    else if (isnan(s->lo))
        snprintf(buf, len, "%.4g", s->mean);
    else
        snprintf(buf, len, "%.4g [%.4g, %.4g]", s->mean, s->lo, s->hi);
    return buf;
}

/* The realisations vs[0..realisations) of a capture of `packets` packets
 * read into the rows in order, each row finished; the first realisation
 * kept in *first (for the plots), the others freed; wins[a]: the metrics
 * on which approach a is closer. */
static void validation_rows(vrow *rows, qc_traffic_validation *vs, unsigned realisations,
                            size_t packets, qc_traffic_validation *first, int wins[2])
{
    for (unsigned k = 0; k < realisations; k++) {
        qc_traffic_validation vk = vs[k];
        const qc_traffic_stats *R = &vk.real;
        const double real[NMETRICS] = {R->duration, R->mean_size, NAN,      NAN,
                                       R->tau_sg, R->tau_ss,    R->tau_gg,  R->acf[1],
                                       NAN,       R->hurst};
        for (int a = 0; a < 2; a++) {
            const qc_traffic_stats *G = &vk.gen[a];
            const double x[NMETRICS] = {G->duration,  G->mean_size,    vk.ks_size[a],
                                        vk.ks_gap[a], G->tau_sg,       G->tau_ss,
                                        G->tau_gg,    G->acf[1],       acf_rms(G, R),
                                        G->hurst};
            for (size_t i = 0; i < NMETRICS; i++)
                rows[i].x[a][k] = x[i];
        }
        for (size_t i = 0; i < NMETRICS; i++)
            if (!isnan(rows[i].real))
                rows[i].real = real[i];
        if (k == 0)
            *first = vk; /* the first realisation is plotted */
        else
            qc_traffic_validation_free(&vk);
        memset(&vs[k], 0, sizeof vs[k]);
    }
    rows[0].per = (double)(packets - 1);
    for (size_t i = 0; i < NMETRICS; i++) {
        row_finish(&rows[i], realisations);
        if (i == 0)
            rows[0].real = rows[0].real > 0 ? rows[0].per / rows[0].real : NAN;
        wins[0] += strcmp(rows[i].closer, "fitted") == 0;
        wins[1] += strcmp(rows[i].closer, "copula") == 0;
    }
}

/* The comparison as text: one row a metric, then the count of wins. */
static void validation_print(const char *capture, const char *name, const char *model_file,
                             size_t packets, unsigned realisations, double bin, const vrow *rows,
                             const int wins[2])
{
    printf("validation of '%s' against %s (%zu packets; %s; %u realisations, mean and 95%% "
           "interval; count bins of %.4g s)\n",
           name, capture, packets, model_file ? model_file : "model fitted in-sample",
           realisations, bin);
    printf("%-20s %11s  %-32s %-32s %s\n", "metric", "real", "fitted", "copula", "closer");
    for (size_t i = 0; i < NMETRICS; i++) {
        char a[64], b[64], r[32];
        if (isnan(rows[i].real))
            snprintf(r, sizeof r, "(distance)");
        else if (!isfinite(rows[i].real))
            snprintf(r, sizeof r, "no value");
        else
            snprintf(r, sizeof r, "%.4g", rows[i].real);
        printf("%-20s %11s  %-32s %-32s %s\n", rows[i].name, r,
               fmt_stat(&rows[i].v[0], a, sizeof a), fmt_stat(&rows[i].v[1], b, sizeof b),
               rows[i].closer);
    }
    printf("closer to the capture (distance intervals apart): copula on %d, fitted on %d of "
           "%d metrics\n",
           wins[1], wins[0], NMETRICS);
}

int gen_validation(const char *capture, const qc_trace *trp, const char *model_file,
                   const char *activity, const qc_traffic_fit_params *fo, uint64_t seed,
                   unsigned realisations, unsigned jobs, int json, int quiet,
                   const char *plot_dir, const gen_report *rep)
{
    qc_err err = {0};
    const qc_trace tr = *trp; /* read only */
    int rc = 0;
    /* The packets compared: the whole capture, or one activity. */
    cli_groups gs = {0};
    const qc_trace_split how = activity && tr.nacts ? QC_SPLIT_ACTIVITY : QC_SPLIT_NONE;
    if (qc_trace_split_groups(&tr, how, &gs.g, &gs.n, &err) != 0) {
        cli_error("gen: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    size_t gi = 0;
    if (how == QC_SPLIT_ACTIVITY) {
        while (gi < gs.n && strcmp(gs.g[gi].name, activity) != 0)
            gi++;
        if (gi == gs.n) {
            cli_error("--activity: no activity '%s' in %s", activity, capture);
            rc = QC_EXIT_USAGE;
            goto end_groups;
        }
    } else if (activity) {
        snprintf(gs.g[0].name, sizeof gs.g[0].name, "%s", activity);
    }
    const qc_trace_group *g = &gs.g[gi];
    qc_traffic_model m;
    if (model_file) {
        if ((rc = qc_traffic_model_load(&m, model_file, &err)) != 0) {
            cli_error("--model: %s", err.msg);
            rc = cli_input_exit(rc);
            goto end_groups;
        }
    } else if ((rc = qc_traffic_fit_group(&m, &tr, g, fo, NULL, &err)) != 0) {
        cli_error("gen --validate: %s", err.msg);
        rc = cli_exit_code(rc) == QC_EXIT_FAIL && rc != QC_ENOMEM ? QC_EXIT_USAGE : cli_exit_code(rc);
        goto end_groups;
    }
    double *t = malloc(g->n * sizeof *t);
    int64_t *ns = malloc(g->n * sizeof *ns);
    uint32_t *sz = malloc(g->n * sizeof *sz);
    double *vals = calloc(2 * NMETRICS * (size_t)realisations, sizeof *vals);
    qc_traffic_validation *vs = calloc(realisations, sizeof *vs);
    qc_traffic_validation v;
    memset(&v, 0, sizeof v);
    if (!t || !ns || !sz || !vals || !vs) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto end_model;
    }
    for (size_t i = 0; i < g->n; i++) {
        ns[i] = tr.pkt[g->idx[i]].ns;
        sz[i] = tr.pkt[g->idx[i]].size;
    }
    /* The capture's segments joined end to end, as the model sees them. */
    size_t segments = 1;
    const double seg_gap = m.segment_gap > 0 ? m.segment_gap : fo->segment_gap;
    qc_traffic_join_segments(ns, g->n, seg_gap, t, &segments);
    if (segments > 1)
        fprintf(stderr,
                "qctl: warning: %s: %zu segments (gaps over %g s removed); the real "
                "statistics are of the segments joined end to end\n",
                capture, segments, seg_gap);
    static const char *const names[NMETRICS] = {
        "packets_per_second", "mean_size",         "ks_size",          "ks_gap",
        "kendall_size_gap",   "kendall_size_lag1", "kendall_gap_lag1", "acf_counts_lag1",
        "acf_counts_rms_diff", "hurst"};
    vrow rows[NMETRICS];
    memset(rows, 0, sizeof rows);
    for (size_t i = 0; i < NMETRICS; i++) {
        rows[i].name = names[i];
        rows[i].real = i == 2 || i == 3 || i == 8 ? NAN : 0; /* NAN: distances */
    }
    for (size_t i = 0; i < NMETRICS; i++)
        for (int a = 0; a < 2; a++)
            rows[i].x[a] = vals + (2 * i + (size_t)a) * realisations;
    /* The realisations on the threads of --jobs (each from its own seed:
     * the same results for any number), then read in order. */
    cli_progress prog;
    cli_progress_init(&prog, "gen --validate", quiet || json);
    rc = qc_traffic_validate_n(&m, t, sz, g->n, seed, realisations, jobs, cli_progress_update,
                               &prog, vs, &err);
    cli_progress_done(&prog);
    if (rc != 0) {
        cli_error("gen --validate: %s", err.msg);
        rc = cli_input_exit(rc);
        goto end_model;
    }
    int wins[2] = {0, 0};
    validation_rows(rows, vs, realisations, g->n, &v, wins);
    const double bin = v.real.bin;
    if (json) {
        json_t *s = validation_json(capture, &tr, &m, model_file, g->n, bin, realisations,
                                    segments, rows, NMETRICS, wins);
        rc = cli_json_print(s);
    } else {
        validation_print(capture, m.name, model_file, g->n, realisations, bin, rows, wins);
    }
    if (rc == 0 && plot_dir) {
        if (qc_mkdir_p(plot_dir, &err) != 0) {
            cli_error("--plot: %s", err.msg);
            rc = QC_EXIT_FAIL;
        } else {
            rc = cli_validation_plots(plot_dir, &v, t, g->n);
        }
    }
    if (rc == 0 && rep->dir) {
        if (qc_plot_available())
            rc = cli_validation_plots(rep->dir, &v, t, g->n);
        json_t *s = validation_json(capture, &tr, &m, model_file, g->n, bin, realisations,
                                    segments, rows, NMETRICS, wins);
        if (rc == 0)
            rc = cli_report_write(rep->dir, "gen", rep->argc, rep->argv, s, validation_plots, 3);
        json_decref(s);
    }
end_model:
    qc_traffic_validation_free(&v);
    free(vs);
    free(t);
    free(ns);
    free(sz);
    free(vals);
    qc_traffic_model_free(&m);
end_groups:
    qc_trace_groups_free(gs.g, gs.n);
    return rc;
}
