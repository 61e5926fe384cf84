/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit.c: `qctl fit`, traffic models from a capture. Reads the capture (or
 * CSV), applies labels, splits it into groups, learns one model per group
 * (qc_traffic_fit_group), prints the fits and writes model files and a
 * report of plots. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "app/fit_run.h"
#include "qctl/output.h"
#include "qctl/traffic.h"
#include "report_cli.h"
#include "result.h"
#include "traffic_cli.h"

static const char synopsis[] =
    "qctl fit CAPTURE [options]\n"
    "       qctl fit --column FILE[:COL] [--families LIST] [--criterion C] [--spec]";

static const char about[] =
    "Learns traffic models from a capture (pcap, pcapng, or CSV time,size[,flow][,activity]):\n"
    "maximum-likelihood fits of packet size and gap, on/off sessions, and the\n"
    "empirical copula of (size, gap) and of consecutive packets.\n";

/* A column whose n values all equal v: the deterministic law det:v,
 * said in words (text), as the spec (--spec) or as JSON with best "det". */
static int fit_column_constant(const char *arg, size_t n, double v, int json, int spec_only)
{
    char spec[64], canon[QC_DIST_FORMAT_MAX];
    snprintf(spec, sizeof spec, "det:%.17g", v);
    qc_err err = {0};
    qc_dist det;
    if (qc_dist_parse(&det, spec, &err) != 0) {
        cli_error("--column %s: all %zu values equal %.17g, which is not a valid time or size "
                  "(%s)",
                  arg, n, v, err.msg);
        return QC_EXIT_USAGE;
    }
    const int fmt = qc_dist_format(&det, canon, sizeof canon);
    qc_dist_free(&det);
    if (fmt != 0)
        snprintf(canon, sizeof canon, "%s", spec);
    if (spec_only) {
        printf("%s\n", canon);
        return 0;
    }
    if (json) {
        json_t *o = json_object(), *c = json_array(), *e = json_object();
        json_object_set_new(o, "command", json_string("fit --column"));
        json_object_set_new(o, "column", json_string(arg));
        json_object_set_new(o, "values", json_integer((json_int_t)n));
        json_object_set_new(o, "mean", qc_json_real_new(v));
        json_object_set_new(o, "constant", json_true());
        json_object_set_new(o, "best", json_string("det"));
        json_object_set_new(o, "spec", json_string(canon));
        json_object_set_new(e, "family", json_string("det"));
        json_object_set_new(e, "spec", json_string(canon));
        json_object_set_new(e, "mean", qc_json_real_new(v));
        json_array_append_new(c, e);
        json_object_set_new(o, "candidates", c);
        return cli_json_print(o);
    }
    printf("%s: %zu values, all equal to %.6g: a deterministic law (no family with a spread "
           "fits a constant)\n",
           arg, n, v);
    printf("best: %s\n", canon);
    return 0;
}

/* `fit --column FILE[:COL]`, read: the column into *emp by the empirical
 * spec's reader (so its messages, FILE:LINE, are the same) and the data
 * the fits take into *d; 0 or the exit status after a message. */
static int column_load(const char *arg, qc_dist *emp, qc_fit_data *d)
{
    char spec[4200];
    const char *colon = strrchr(arg, ':'), *slash = strrchr(arg, '/');
    if (strlen(arg) > 4000) {
        cli_error("--column: file name too long");
        return QC_EXIT_USAGE;
    }
    if (colon && colon[1] != '\0' && (slash == NULL || colon > slash))
        snprintf(spec, sizeof spec, "empirical:%.*s,%s", (int)(colon - arg), arg, colon + 1);
    else
        snprintf(spec, sizeof spec, "empirical:%s", arg);
    qc_err err = {0};
    int rc = qc_dist_parse(emp, spec, &err);
    if (rc != 0) {
        cli_error("--column: %s", err.msg);
        return cli_input_exit(rc);
    }
    if ((rc = qc_fit_data_init(d, emp->samples, emp->n, &err)) != 0) {
        cli_error("--column %s: %s", arg, err.msg);
        qc_dist_free(emp);
        return cli_input_exit(rc);
    }
    return 0;
}

/* The families fitted to the column read by column_load (emp, d, both
 * freed here), the best printed as a qc_dist spec. */
static int fit_column(const char *arg, const qc_dist *empp, const qc_fit_data *dp,
                      const qc_fit_params *fo, unsigned families, int json, int spec_only)
{
    qc_err err = {0};
    int rc;
    qc_dist emp = *empp;
    qc_fit_data d = *dp;
    if (d.m == 1 && d.raised == 0) {
        /* Every value the same: no family with a spread describes it (an
         * exponential of that mean would claim values near 0 and ten
         * times the mean); the law is the deterministic one. */
        rc = fit_column_constant(arg, emp.n, d.v[0], json, spec_only);
        qc_fit_data_free(&d);
        qc_dist_free(&emp);
        return rc;
    }
    qc_traffic_fits f;
    memset(&f, 0, sizeof f);
    const unsigned all = ((1u << QC_FIT_NFAMILIES) - 1) & ~(1u << QC_FIT_EMPIRICAL);
    const unsigned mask = families ? families | (1u << QC_FIT_GPD) : all;
    rc = qc_fit_all(&d, mask, fo, f.r, f.order, &f.nranked, &err);
    f.x = emp.samples;
    f.n = emp.n;
    if (rc != 0) {
        cli_error("--column %s: %s", arg, err.msg);
        rc = cli_exit_code(rc);
    } else if (f.nranked == 0) {
        cli_error("--column %s: no family fits these %zu values (%s)", arg, emp.n,
                  f.r[QC_FIT_LOGNORMAL].why[0] ? f.r[QC_FIT_LOGNORMAL].why : "see --families");
        rc = QC_EXIT_USAGE;
    }
    char best[QC_DIST_FORMAT_MAX] = "";
    if (rc == 0 && qc_dist_format(&f.r[f.order[0]].dist.d, best, sizeof best) != 0) {
        cli_error("--column %s: the best family has no spec", arg);
        rc = QC_EXIT_FAIL;
    }
    if (rc == 0 && spec_only) {
        printf("%s\n", best);
    } else if (rc == 0 && json) {
        json_t *o = json_object(), *c = json_array();
        json_object_set_new(o, "command", json_string("fit --column"));
        json_object_set_new(o, "column", json_string(arg));
        json_object_set_new(o, "values", json_integer((json_int_t)emp.n));
        json_object_set_new(o, "mean", qc_json_real_new(d.mean));
        json_object_set_new(o, "criterion", json_string(qc_fit_criterion_name(fo->crit)));
        json_object_set_new(o, "best", json_string(qc_fit_family_name(f.r[f.order[0]].dist.family)));
        json_object_set_new(o, "spec", json_string(best));
        for (size_t i = 0; i < f.nranked; i++) {
            const qc_fit_result *r = &f.r[f.order[i]];
            char sp[QC_DIST_FORMAT_MAX];
            json_t *e = json_object();
            json_object_set_new(e, "family", json_string(qc_fit_family_name(r->dist.family)));
            json_object_set_new(e, "spec", qc_dist_format(&r->dist.d, sp, sizeof sp) == 0
                                               ? json_string(sp)
                                               : json_null());
            json_object_set_new(e, "loglik", qc_json_real_new(r->loglik));
            json_object_set_new(e, "bic", qc_json_real_new(r->bic));
            json_object_set_new(e, "aic", qc_json_real_new(r->aic));
            json_object_set_new(e, "ks", qc_json_real_new(r->ks));
            json_object_set_new(e, "mean", qc_json_real_new(qc_fit_mean(&r->dist)));
            json_object_set_new(e, "ci_method", json_string(r->ci_method ? r->ci_method : "none"));
            json_array_append_new(c, e);
        }
        json_object_set_new(o, "candidates", c);
        rc = cli_json_print(o);
    } else if (rc == 0) {
        printf("%s: %zu values, mean %.6g\n", arg, emp.n, d.mean);
        qc_app_fit_print_fits("values", &f, "");
        printf("best by %s: %s\n", fo->crit == QC_FIT_AIC ? "AIC" : "BIC", best);
    }
    f.x = NULL;
    for (int i = 0; i < QC_FIT_NFAMILIES; i++)
        qc_fit_result_free(&f.r[i]);
    qc_fit_data_free(&d);
    qc_dist_free(&emp);
    return rc;
}

/* The command's parameters, the flags' destinations (one run a process),
 * and what the checks read before the run: the column, or the capture
 * and its groups. */
static qc_app_fit_params P;
static int help;
static const cli_flag *table;
static qc_dist col_emp;
static qc_fit_data col_data;
static int col_loaded, trace_loaded;
static qc_trace tr;
static cli_groups groups;

/* Every check before the fits, --check or not: the library's one check,
 * then the inputs read (the column; the capture, its labels and groups),
 * so that a file the run would refuse is refused here alike. */
static int fit_validate(void *ctx)
{
    (void)ctx;
    qc_err err = {0};
    int rc;
    if ((rc = qc_app_fit_params_check(&P, &err)) != 0)
        return cli_flags_error(table, NULL, rc, &err);
    if (P.column) {
        if ((rc = column_load(P.column, &col_emp, &col_data)) == 0)
            col_loaded = 1;
        return rc;
    }
    const char *capture = cli_input_path("fit CAPTURE", P.capture, CLI_PATH_IN_NONEMPTY);
    if (!capture)
        return QC_EXIT_USAGE;
    P.capture = capture;
    if (P.report && (rc = cli_report_prepare(P.report)) != 0)
        return rc;
    if ((rc = cli_load_trace(capture, P.labels, P.quiet, &tr)) != 0)
        return rc;
    trace_loaded = 1;
    if (P.split < 0)
        P.split = tr.nacts > 0 ? QC_SPLIT_ACTIVITY : QC_SPLIT_NONE;
    if (P.split == QC_SPLIT_ACTIVITY && tr.nacts == 0) {
        cli_error("--split activity: %s has no activity labels (give --labels FILE or an "
                  "activity column)",
                  capture);
        return QC_EXIT_USAGE;
    }
    if ((rc = qc_trace_split_groups(&tr, (qc_trace_split)P.split, &groups.g, &groups.n, &err)) != 0) {
        cli_error("fit: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    if (P.split == QC_SPLIT_NONE && P.activity)
        snprintf(groups.g[0].name, sizeof groups.g[0].name, "%s", P.activity);
    /* (a capture whose groups are all too small is said after the
     * groups' lines, which show their sizes: a refusal of the run) */
    size_t matched = 0;
    for (size_t i = 0; P.activity && P.split != QC_SPLIT_NONE && i < groups.n; i++)
        matched += strcmp(groups.g[i].name, P.activity) == 0;
    if (P.activity && P.split != QC_SPLIT_NONE && matched == 0) {
        cli_error("--activity: no group named '%s' in %s", P.activity, capture);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* One group's model: fitted, written (--out), shown, added to the
 * summary jg and the page's plots; *fitted counts the models. */
static int fit_group(const qc_trace_group *g, json_t *jg, char ***plots, size_t *nplots,
                     size_t *fitted)
{
    qc_err err = {0};
    if (g->n < P.min_packets) {
        if (!P.json)
            printf("\n== %s: %zu packets, fewer than --min-packets %llu: skipped\n", g->name,
                   g->n, (unsigned long long)P.min_packets);
        return 0;
    }
    qc_traffic_model m;
    qc_traffic_report rep;
    int rc = qc_traffic_fit_group(&m, &tr, g, &P.fo, &rep, &err);
    if (rc == QC_EEMPTY) { /* too few packets in sessions: skip it */
        if (!P.json)
            printf("\n== %s: %s: skipped\n", g->name, err.msg);
        return 0;
    }
    if (rc != 0) {
        cli_error("fit: %s", err.msg);
        return cli_exit_code(rc);
    }
    ++*fitted;
    if (m.segments > 1 && !P.quiet)
        fprintf(stderr,
                "qctl: warning: %s: %s: %u segments: %u gap%s over %g s (concatenated or "
                "stopped captures) split the packets; not counted as idle periods\n",
                P.capture, g->name, m.segments, m.segments - 1, m.segments > 2 ? "s" : "",
                m.segment_gap);
    char *file = NULL;
    if (P.out) {
        file = cli_model_path(P.out, g->name);
        if (file == NULL || qc_traffic_model_save(&m, &rep, file, &err) != 0) {
            cli_error("%s", file ? err.msg : "out of memory");
            rc = QC_EXIT_FAIL;
        }
    }
    if (!P.json)
        qc_app_fit_print_group(g, &m, &rep, file);
    json_t *gj = json_object();
    json_object_set_new(gj, "name", json_string(g->name));
    json_object_set_new(gj, "packets", json_integer((json_int_t)g->n));
    json_object_set_new(gj, "sessions", json_integer((json_int_t)rep.sessions));
    json_object_set_new(gj, "model_file", file ? json_string(file) : json_null());
    json_object_set_new(gj, "model", qc_app_fit_summary_model(&m, &rep));
    json_array_append_new(jg, gj);
    if (rc == 0 && P.report && cli_fit_report(P.report, g->name, &m, &rep) != 0)
        rc = QC_EXIT_FAIL;
    if (rc == 0 && P.report && cli_fit_report_names(g->name, &rep, plots, nplots) != 0) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    }
    free(file);
    qc_traffic_model_free(&m);
    qc_traffic_report_free(&rep);
    return rc;
}

/* The page: the summary in fit.json beside it (every candidate's
 * parameters and intervals), the page's fits cut to comparison tables. */
static int fit_page(const json_t *summary, char **plots, size_t nplots, int argc, char **argv)
{
    qc_err err = {0};
    int rc = 0;
    char *full = malloc(strlen(P.report) + 16);
    json_t *page = json_deep_copy(summary);
    if (full == NULL || page == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    } else {
        snprintf(full, strlen(P.report) + 16, "%s/fit.json", P.report);
        if (qc_json_write(summary, full, &err) != 0) {
            cli_error("--report: %s", err.msg);
            rc = QC_EXIT_FAIL;
        }
        qc_app_fit_page(page, NULL);
    }
    if (rc == 0)
        rc = cli_report_write(P.report, "fit", argc, argv, page, (const char *const *)plots,
                              nplots);
    json_decref(page);
    free(full);
    return rc;
}

/* The capture's groups fitted one by one, then the outputs. */
static int fit_run(void *ctx, int argc, char **argv)
{
    (void)ctx;
    if (P.column) {
        col_loaded = 0;
        return fit_column(P.column, &col_emp, &col_data, &P.fo.fit, P.fo.families, P.json, P.spec);
    }
    qc_err err = {0};
    int rc = 0;
    if (P.csv && qc_trace_write_csv(&tr, P.csv, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    if (P.out && qc_mkdir_p(P.out, &err) != 0) {
        cli_error("--out: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    char **plots = NULL; /* the page's plots, group by group */
    size_t nplots = 0, fitted = 0, total = 0, done = 0;
    json_t *summary = json_object(), *jg = json_array();
    json_object_set_new(summary, "command", json_string("fit"));
    json_object_set_new(summary, "capture", cli_trace_json(P.capture, &tr));
    if (!P.json)
        cli_print_trace(P.capture, &tr);
    for (size_t i = 0; i < groups.n; i++)
        total += groups.g[i].n;
    cli_progress prog; /* by packets fitted; cleared before each group's text */
    cli_progress_init(&prog, "fit", P.quiet);
    for (size_t i = 0; i < groups.n && rc == 0; i++) {
        const qc_trace_group *g = &groups.g[i];
        if (P.activity && P.split != QC_SPLIT_NONE && strcmp(g->name, P.activity) != 0)
            continue;
        cli_progress_update(&prog, total ? (double)done / (double)total : 0);
        rc = fit_group(g, jg, &plots, &nplots, &fitted);
        done += g->n;
        cli_progress_done(&prog);
    }
    json_object_set_new(summary, "groups", jg);
    if (rc == 0 && fitted == 0) {
        cli_error("fit: %s: no group has enough packets for a model (see --min-packets)",
                  P.capture);
        rc = QC_EXIT_USAGE;
    }
    if (rc == 0 && P.json)
        rc = cli_json_out(summary, NULL);
    if (rc == 0 && P.report)
        rc = fit_page(summary, plots, nplots, argc, argv);
    for (size_t i = 0; i < nplots; i++)
        free(plots[i]);
    free(plots);
    json_decref(summary);
    return rc;
}

static const int splits[] = {QC_SPLIT_NONE, QC_SPLIT_FLOW, QC_SPLIT_HOST, QC_SPLIT_ACTIVITY};
static const int crits[] = {QC_FIT_BIC, QC_FIT_AIC};
static const cli_flag flags[] = {
    {"capture", CLI_STR, CLI_AT(&P, capture), .arg = "FILE",
     .help = "the capture (or as the first word after 'fit')"},
    {"labels", CLI_STR, CLI_AT(&P, labels), .path = CLI_PATH_IN, .arg = "FILE",
     .help = "rules mapping flows or time ranges to activities"},
    {"split", CLI_CHOICE, CLI_AT(&P, split), .arg = "MODE", .choices = "none,flow,host,activity",
     .values = splits,
     .help = "none, flow, host or activity (default: activity when\n"
             "packets are labelled, else none)"},
    {"activity", CLI_STR, CLI_AT(&P, activity), .arg = "NAME",
     .help = "fit only this group (with --split none: the model's name,\ndefault 'all')"},
    {"gap-threshold", CLI_STR, CLI_AT(&P, gap_threshold), .arg = "T",
     .help = "idle gap threshold: auto (default), none, or seconds"},
    {"families", CLI_STR, CLI_AT(&P, families), .arg = "LIST",
     .help = "families to try, comma-separated (default all: exp,gamma,\n"
             "lognormal,weibull,pareto,lnmix2,lnmix3,expmix2,expmix3)"},
    {"criterion", CLI_CHOICE, CLI_AT(&P, criterion), .arg = "C", .choices = "bic,aic",
     .values = crits, .help = "bic (default) or aic"},
    {"confidence", CLI_DOUBLE, CLI_AT(&P, fo.fit.level), .min = 0, .max = 1,
     .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "L", .unit = "level in (0, 1)",
     .help = "level of the parameter intervals (default 0.95)"},
    {"gpd-quantile", CLI_DOUBLE, CLI_AT(&P, fo.fit.gpd_quantile), .min = 0, .max = 1,
     .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "Q", .unit = "probability",
     .help = "threshold of the generalized Pareto tail (default 0.9)"},
    {"copula-points", CLI_U64, CLI_AT(&P, copula_points), .min = 10, .max = 1e7, .arg = "N",
     .unit = "transitions", .help = "transitions kept in the copula (default 10000)"},
    {"min-packets", CLI_U64, CLI_AT(&P, min_packets), .min = 10, .max = HUGE_VAL, .arg = "N",
     .unit = "packets", .help = "skip groups with fewer packets (default 50)"},
    {"out", CLI_STR, CLI_AT(&P, out), .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "write one model file per group, DIR/NAME.json"},
    {"csv", CLI_STR, CLI_AT(&P, csv), .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "also write the decoded packets as CSV"},
    {"report", CLI_STR, CLI_AT(&P, report), .arg = "DIR",
     .help = "densities over histograms, Q-Q plots, copula scatter\n"
             "(SVG and PNG; needs gnuplot), and DIR/index.html: the\n"
             "capture, the fits and these plots in one page"},
    {"segment-gap", CLI_DOUBLE, CLI_AT(&P, fo.segment_gap), .min = 0, .max = HUGE_VAL,
     .open = CLI_OPEN_MIN, .arg = "T", .unit = "seconds",
     .help = "longer gaps split the capture into segments (default\n"
             "3600 s: concatenated captures); the model keeps neither\n"
             "as a gap nor as an idle period"},
    CLI_ROW_JSON(&P.json),
    {"quiet", CLI_BOOL, CLI_AT(&P, quiet), .help = "no warnings about the capture and no progress line"},
    {"jobs", CLI_UINT, CLI_AT(&P, fo.fit.threads), .min = 1, .max = 256, .letter = 'j', .arg = "N",
     .zero_unset = 1,
     .unit = "threads",
     .help = "threads for the families and the EM starts (default: the\nnumber of cores); the "
             "results do not depend on it"},
    {"", CLI_NOTE, NULL,
     .help = "\nAny sample (--column FILE[:COL]): fits the families to the numbers in column\n"
             "COL of FILE (1-based number or header name; default 1; one value a line or\n"
             "CSV) and prints the ranking and the best model as a distribution spec that\n"
             "every 'qctl sim' command takes (e.g. --service), such as\n"
             "lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2."},
    {"column", CLI_STR, CLI_AT(&P, column), .arg = "FILE[:COL]", .help = "the sample to fit"},
    {"spec", CLI_BOOL, CLI_AT(&P, spec),
     .help = "print only that spec (for $(qctl fit --column ... --spec))"},
    CLI_ROWS_CONFIG_CHECK(NULL, fit_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_fit(int argc, char **argv)
{
    cli_batch_memory();
    qc_app_fit_params_init(&P);
    table = flags;
    /* `fit CAPTURE [options]`: the first word as --capture */
    char **av = calloc((size_t)argc + 2, sizeof *av);
    if (av == NULL) {
        cli_error("fit: out of memory");
        return QC_EXIT_FAIL;
    }
    int ac = 0, i = 1;
    av[ac++] = argv[0];
    if (argc > 1 && (argv[1][0] != '-' || strcmp(argv[1], "-") == 0)) { /* "-": standard input */
        av[ac++] = (char *)"--capture";
        av[ac++] = argv[i++];
    }
    while (i < argc)
        av[ac++] = argv[i++];
    int rc = cli_command_main("fit", synopsis, about, flags, NULL, fit_run, NULL, ac, av);
    free(av);
    if (col_loaded) {
        qc_fit_data_free(&col_data);
        qc_dist_free(&col_emp);
    }
    if (trace_loaded) {
        qc_trace_groups_free(groups.g, groups.n);
        qc_trace_free(&tr);
    }
    col_loaded = trace_loaded = 0;
    groups = (cli_groups){0};
    return rc;
}
