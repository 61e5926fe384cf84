/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen.c: `qctl gen`, traffic from model files: a mix of users and
 * activities written as pcap or CSV; and `qctl gen --validate CAPTURE`,
 * the fitted-distribution and copula approaches compared with a real
 * capture side by side. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <sys/stat.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "app/gen_run.h"
#include "qctl/output.h"
#include "qctl/traffic.h"
#include "report_cli.h"
#include "result.h"
#include "traffic_cli.h"

static const char synopsis[] =
    "qctl gen --model FILE... (--duration T | --packets N) --output FILE [options]\n"
    "       qctl gen --validate CAPTURE [--model FILE] [options]";

static const char about[] =
    "Generates the traffic of many users from traffic models (written by\n"
    "'qctl fit --out DIR'), each user an independent random stream.\n";

/* Where --report writes, and the command line it shows. */
typedef struct report_ctx {
    const char *dir;
    int argc;
    char **argv;
} report_ctx;

typedef struct mix {
    qc_traffic_model *m;
    uint32_t *users;
    size_t n;
} mix;

static void mix_free(mix *x)
{
    for (size_t i = 0; i < x->n; i++)
        qc_traffic_model_free(&x->m[i]);
    free(x->m);
    free(x->users);
    memset(x, 0, sizeof *x);
}

/* Applies "--users a=N,b=M" to the loaded models. */
static int apply_users(mix *x, const char *spec)
{
    char buf[4096];
    if (strlen(spec) >= sizeof buf) {
        cli_error("--users: too long");
        return QC_EXIT_USAGE;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    for (size_t i = 0; i < x->n; i++)
        x->users[i] = 0;
    int col = 1;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(w, '=');
        if (eq == NULL) {
            cli_error("--users: '%s' is not NAME=COUNT (entry at column %d)", w, col);
            return QC_EXIT_USAGE;
        }
        *eq = '\0';
        unsigned cnt;
        char flag[160];
        snprintf(flag, sizeof flag, "--users %s", w);
        if (cli_uint(flag, eq + 1, &cnt) != 0)
            return QC_EXIT_USAGE;
        if (cnt >= (1u << 24)) {
            cli_error("--users %s: at most 16777215 users per activity", w);
            return QC_EXIT_USAGE;
        }
        size_t i = 0;
        while (i < x->n && strcmp(x->m[i].name, w) != 0)
            i++;
        if (i == x->n) {
            cli_error("--users: no model for activity '%s' (models given:%s%s%s)", w,
                      x->n > 0 ? " " : "", x->n > 0 ? x->m[0].name : "", x->n > 1 ? ", ..." : "");
            return QC_EXIT_USAGE;
        }
        x->users[i] = cnt;
        col += (int)(strlen(w) + strlen(eq + 1)) + 2;
    }
    return 0;
}

static int add_model(mix *x, const char *path)
{
    qc_traffic_model *m = realloc(x->m, (x->n + 1) * sizeof *m);
    if (m)
        x->m = m;
    uint32_t *u = realloc(x->users, (x->n + 1) * sizeof *u);
    if (u)
        x->users = u;
    if (!m || !u) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    const int rc = qc_traffic_model_load(&x->m[x->n], path, &err);
    if (rc != 0) {
        cli_error("--model: %s", err.msg);
        return cli_input_exit(rc);
    }
    x->users[x->n++] = 1;
    return 0;
}

/* The temporary file the atomic writer fills (qc_ofile: OUT.tmp-PID),
 * whose size the progress line follows. SIGINT or SIGTERM ends the run
 * at once and removes it (interrupt.h: the writer has no stop flag). */
static char gen_tmp[4096];

/* The progress line: the bytes of the temporary file against the size
 * estimated before the run (check_gen_size), polled by a thread so that
 * the writer's loop stays as it is. */
static double gen_estimate;
static volatile int gen_done;

static void *gen_watch(void *ctx)
{
    while (!gen_done) {
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
        struct stat st;
        if (!gen_done && gen_estimate > 0 && stat(gen_tmp, &st) == 0)
            cli_progress_update(ctx, fmin(0.999, (double)st.st_size / gen_estimate));
    }
    return NULL;
}

static double mean_size(const qc_traffic_model *m)
{
    const qc_traffic_table *t = &m->size.emp;
    double s = 0, prev = 0;
    for (size_t j = 0; j < t->m; j++) {
        s += t->v[j] * (t->cum[j] - prev);
        prev = t->cum[j];
    }
    return t->m ? s : 1500;
}

/* The memory of the users and the size of the output, estimated from the
 * models' packet rates and mean sizes, before a run that could fill a
 * disk: about 128 bytes per user; per packet a CSV line, or a pcap
 * record of 16 bytes and the frame cut at snaplen. */
static int check_gen_size(const mix *x, const qc_traffic_gen_params *o, const char *output,
                          qc_traffic_format fmt, unsigned snaplen)
{
    double users = 0, rate = 0, bytes_per = 0;
    for (size_t i = 0; i < x->n; i++) {
        double r = x->users[i] * qc_traffic_model_rate(&x->m[i], o->approach);
        users += x->users[i];
        rate += r;
        double b = fmt == QC_TRAFFIC_CSV ? 30.0 + (double)strlen(x->m[i].name)
                                         : 16.0 + fmin((double)snaplen, mean_size(&x->m[i]) + 14);
        bytes_per += r * b;
    }
    char what[160];
    snprintf(what, sizeof what, "%.0f users", users);
    int rc = cli_check_memory("--users", 128.0 * users, what, cli_force);
    if (rc != 0 || !(rate > 0))
        return rc;
    double packets = o->duration > 0 ? rate * o->duration : INFINITY;
    if (o->packets > 0 && (double)o->packets < packets)
        packets = (double)o->packets;
    double bytes = packets * bytes_per / rate;
    gen_estimate = isfinite(bytes) ? bytes : 0;
    snprintf(what, sizeof what, "the output (%.3g packets of %.0f users at %.3g packets/s)",
             packets, users, rate);
    return cli_check_output_size(o->packets > 0 && (double)o->packets == packets ? "--packets"
                                                                                 : "--duration",
                                 bytes, what, output, cli_force);
}

static int generate(mix *x, const qc_traffic_gen_params *o, const char *output, qc_traffic_format fmt,
                    uint32_t snaplen, int json, int quiet, const report_ctx *rep)
{
    const qc_traffic_model **mp = malloc(x->n * sizeof *mp);
    if (mp == NULL)
        return QC_EXIT_FAIL;
    for (size_t i = 0; i < x->n; i++)
        mp[i] = &x->m[i];
    qc_err err = {0};
    qc_traffic_gen *g = qc_traffic_gen_alloc(mp, x->users, x->n, o, &err);
    free(mp);
    if (g == NULL) {
        cli_error("gen: %s", err.msg);
        return cli_exit_code(err.code);
    }
    cli_progress prog;
    cli_progress_init(&prog, "gen", quiet);
    uint64_t count = 0;
    snprintf(gen_tmp, sizeof gen_tmp, "%s.tmp-%ld", output, (long)getpid());
    pthread_t watcher;
    gen_done = 0;
    int watching = prog.enabled && pthread_create(&watcher, NULL, gen_watch, &prog) == 0;
    int rc = qc_traffic_write(g, output, fmt, snaplen, &count, &err);
    gen_done = 1;
    if (watching)
        pthread_join(watcher, NULL);
    cli_progress_done(&prog);
    gen_tmp[0] = '\0';
    qc_traffic_gen_free(g);
    if (rc != 0) {
        cli_error("gen: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    const double el = cli_elapsed(&prog);
    double expected = 0;
    json_t *s = json_object(), *acts = json_array();
    for (size_t i = 0; i < x->n; i++) {
        const double r = qc_traffic_model_rate(&x->m[i], o->approach);
        expected += x->users[i] * r;
        json_t *a = json_object();
        json_object_set_new(a, "activity", json_string(x->m[i].name));
        json_object_set_new(a, "users", json_integer(x->users[i]));
        json_object_set_new(a, "packets_per_second_per_user", qc_json_real_new(r));
        json_array_append_new(acts, a);
    }
    json_object_set_new(s, "command", json_string("gen"));
    json_object_set_new(s, "output", json_string(output));
    json_object_set_new(s, "format", json_string(qc_traffic_format_name(fmt)));
    json_object_set_new(s, "approach", json_string(qc_traffic_approach_name(o->approach)));
    json_object_set_new(s, "seed", json_integer((json_int_t)o->seed));
    json_object_set_new(s, "activities", acts);
    json_object_set_new(s, "packets", json_integer((json_int_t)count));
    json_object_set_new(s, "duration", o->duration > 0 ? json_real(o->duration) : json_null());
    json_object_set_new(s, "expected_packets_per_second", qc_json_real_new(expected));
    json_object_set_new(s, "packets_per_second",
                        o->duration > 0 ? qc_json_real_new((double)count / o->duration) : json_null());
    json_object_set_new(s, "elapsed_seconds", json_real(el));
    /* the traffic itself on standard output (--output -): the summary on
     * standard error, out of its way */
    FILE *sum = strcmp(output, "-") == 0 ? stderr : stdout;
    if (json && sum == stdout) {
        rc = cli_json_out(s, NULL);
    } else if (json) {
        json_dumpf(s, stderr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        fputc('\n', stderr);
    } else {
        fprintf(sum, "%s: %llu packets (%s, %s approach, seed %llu)\n", output,
                (unsigned long long)count, qc_traffic_format_name(fmt),
                qc_traffic_approach_name(o->approach), (unsigned long long)o->seed);
        for (size_t i = 0; i < x->n; i++)
            fprintf(sum, "  %-16s %8u users x %.6g packets/s\n", x->m[i].name, x->users[i],
                    qc_traffic_model_rate(&x->m[i], o->approach));
        if (o->duration > 0)
            fprintf(sum, "  rate: %.6g packets/s generated, %.6g expected (sum over users)\n",
                    (double)count / o->duration, expected);
    }
    if (rc == 0 && rep->dir)
        rc = cli_report_write(rep->dir, "gen", rep->argc, rep->argv, s, NULL, 0);
    json_decref(s);
    return rc;
}

/* ---- validation ---------------------------------------------------------- */

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

static int validate(const char *capture, const qc_trace *trp, const char *model_file,
                    const char *activity, const qc_traffic_fit_params *fo, uint64_t seed,
                    unsigned realisations, unsigned jobs, int json, int quiet, const char *plot_dir,
                    const report_ctx *rep)
{
    qc_err err = {0};
    const qc_trace tr = *trp; /* read by gen_validate */
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
            v = vk; /* the first realisation is plotted */
        else
            qc_traffic_validation_free(&vk);
        memset(&vs[k], 0, sizeof vs[k]);
    }
    int wins[2] = {0, 0};
    rows[0].per = (double)(g->n - 1);
    for (size_t i = 0; i < NMETRICS; i++) {
        row_finish(&rows[i], realisations);
        if (i == 0)
            rows[0].real = rows[0].real > 0 ? rows[0].per / rows[0].real : NAN;
        wins[0] += strcmp(rows[i].closer, "fitted") == 0;
        wins[1] += strcmp(rows[i].closer, "copula") == 0;
    }
    const double bin = v.real.bin;
    if (json) {
        json_t *s = validation_json(capture, &tr, &m, model_file, g->n, bin, realisations,
                                    segments, rows, NMETRICS, wins);
        rc = cli_json_print(s);
    } else {
        printf("validation of '%s' against %s (%zu packets; %s; %u realisations, mean and 95%% "
               "interval; count bins of %.4g s)\n",
               m.name, capture, g->n, model_file ? model_file : "model fitted in-sample",
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

/* The command's parameters, the flags' destinations (one run a process),
 * and what the checks read before the run: the models, or the capture
 * compared with. */
static qc_app_gen_params P;
static cli_strs models = {P.models, 0};
static report_ctx rep;
static int help;
static const cli_flag *table;
static mix x;
static qc_trace vtr;
static int vtr_loaded;

/* Every check before the work, --check or not: the library's one check,
 * then the inputs read (the models and the users given to each, the
 * estimated size of the output; or the capture and its activity), so
 * that a file the run would refuse is refused here alike. */
static int gen_validate(void *ctx)
{
    (void)ctx;
    qc_err err = {0};
    int rc;
    P.nmodels = models.n;
    if ((rc = qc_app_gen_params_check(&P, &err)) != 0)
        return cli_flags_error(table, NULL, rc, &err);
    if (rep.dir && (rc = cli_report_prepare(rep.dir)) != 0)
        return rc;
    if (P.validate) {
        if (P.nmodels == 1 && (rc = add_model(&x, P.models[0])) != 0)
            return rc;
        mix_free(&x); /* read again by validate */
        if ((rc = cli_load_trace(P.validate, P.labels, P.json, &vtr)) != 0)
            return rc;
        vtr_loaded = 1;
        if (!P.activity || vtr.nacts == 0)
            return 0;
        for (size_t i = 0; i < vtr.nacts; i++)
            if (strcmp(vtr.acts[i], P.activity) == 0)
                return 0;
        cli_error("--activity: no activity '%s' in %s", P.activity, P.validate);
        return QC_EXIT_USAGE;
    }
    for (unsigned i = 0; i < P.nmodels; i++)
        if ((rc = add_model(&x, P.models[i])) != 0)
            return rc;
    if (P.users && (rc = apply_users(&x, P.users)) != 0)
        return rc;
    return check_gen_size(&x, &P.o, P.output, P.fmt, P.snaplen);
}

static int gen_run(void *ctx, int argc, char **argv)
{
    (void)ctx;
    rep.argc = argc;
    rep.argv = argv;
    if (P.validate)
        return validate(P.validate, &vtr, P.nmodels ? P.models[0] : NULL, P.activity, &P.fo,
                        P.o.seed, P.realisations, P.jobs, P.json, P.quiet, P.plot, &rep);
    return generate(&x, &P.o, P.output, P.fmt, P.snaplen, P.json, P.quiet, &rep);
}

static const int approaches[] = {QC_TRAFFIC_COPULA, QC_TRAFFIC_FITTED, QC_TRAFFIC_COPULA_FITTED};
static const cli_flag flags[] = {
    {"model", CLI_STRS, &models, .max = QC_APP_GEN_MAX_MODELS, .field = "models",
     .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "a model file; repeat for a mix of activities"},
    {"users", CLI_STR, CLI_AT(&P, users), .arg = "LIST",
     .help = "users per activity, e.g. web=300,video=50,gaming=20\n(default 1 of each model)"},
    {"duration", CLI_DOUBLE, CLI_AT(&P, o.duration), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds", .zero_unset = 1,
     .help = "seconds of traffic"},
    {"packets", CLI_U64, CLI_AT(&P, o.packets), .min = 1, .max = HUGE_VAL, .arg = "N",
     .unit = "packets", .zero_unset = 1, .help = "or a number of packets"},
    {"output", CLI_STR, CLI_AT(&P, output), .arg = "FILE",
     .help = "where to write (pcap, or CSV if it ends in .csv)"},
    {"format", CLI_CHOICE, CLI_AT(&P, format), .arg = "F", .choices = "pcap,csv",
     .help = "pcap or csv (overrides the file name)"},
    {"snaplen", CLI_UINT, CLI_AT(&P, snaplen), .min = 64, .max = 65535, .arg = "N",
     .unit = "bytes",
     .help = "bytes kept of each frame in a pcap (default 65535;\n"
             "sizes stay true in the IP length field)"},
    {"approach", CLI_CHOICE, CLI_AT(&P, approach), .arg = "A",
     .choices = "copula,fitted,copula-fitted", .values = approaches,
     .help = "copula (default), fitted, or copula-fitted (the copula\n"
             "over the fitted marginals)"},
    {"seed", CLI_U64, CLI_AT(&P, o.seed), .arg = "S", .unit = "integer seed",
     .help = "seed of every user's stream (default 1)"},
    {"quiet", CLI_BOOL, CLI_AT(&P, quiet),
     .help = "no progress line (shown on a terminal, or with\n--progress, during a long write)"},
    CLI_ROW_JSON(&P.json),
    {"report", CLI_STR, &rep.dir, .field = "report", .arg = "DIR",
     .help = "write DIR/index.html: the run's summary tables (and with\n"
             "--validate, the plots of --plot) in one page"},
    {"", CLI_NOTE, NULL,
     .help = "\nValidation (--validate CAPTURE): generates as many packets as the capture\n"
             "holds with the fitted and the copula approach, several times, and compares\n"
             "each with it:\n"
             "KS on size and gap, Kendall's tau, autocorrelation of counts, Hurst\n"
             "exponent (variance-time). Without --model the model is fitted from the\n"
             "capture itself (in-sample)."},
    {"validate", CLI_STR, CLI_AT(&P, validate), .path = CLI_PATH_IN_NONEMPTY, .arg = "CAPTURE",
     .help = "the capture to compare with"},
    {"labels", CLI_STR, CLI_AT(&P, labels), .path = CLI_PATH_IN, .arg = "FILE",
     .help = "with --activity NAME: compare one activity of the capture"},
    {"activity", CLI_STR, CLI_AT(&P, activity), .arg = "NAME", .help = "the activity compared"},
    {"gap-threshold", CLI_STR, CLI_AT(&P, gap_threshold), .arg = "T",
     .help = "as in 'qctl fit' (when fitting here)"},
    {"segment-gap", CLI_DOUBLE, CLI_AT(&P, fo.segment_gap), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds",
     .help = "as in 'qctl fit' (default 3600 s)"},
    {"realisations", CLI_UINT, CLI_AT(&P, realisations), .min = 1, .max = 1000, .arg = "N",
     .unit = "realisations",
     .help = "generated sequences per approach (default 10; seeds S,\n"
             "S+1, ...): each metric's mean and 95% interval, and an\n"
             "approach called closer only when its interval of the\n"
             "distance to the capture lies wholly below the other's"},
    {"plot", CLI_STR, CLI_AT(&P, plot), .arg = "DIR",
     .help = "variance-time, autocorrelation and gap CDF plots (of the\nfirst realisation)"},
    {"jobs", CLI_UINT, CLI_AT(&P, jobs), .min = 1, .max = 256, .letter = 'j', .arg = "N",
     .unit = "threads", .zero_unset = 1,
     .help = "threads for the realisations (default: the number of\ncores); the results do not "
             "depend on it"},
    CLI_ROWS_CONFIG_CHECK(NULL, gen_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_gen(int argc, char **argv)
{
    qc_app_gen_params_init(&P);
    models.n = 0;
    rep = (report_ctx){NULL, 0, NULL};
    table = flags;
    int rc = cli_command_main("gen", synopsis, about, flags, NULL, gen_run, NULL, argc, argv);
    mix_free(&x);
    if (vtr_loaded)
        qc_trace_free(&vtr);
    vtr_loaded = 0;
    return rc;
}
