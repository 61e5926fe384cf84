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

/* The CLI_FUNC parser of --families: a mask of families at f->dest. */
static int parse_families(const cli_flag *fl, const char *flag, const char *s)
{
    unsigned *mask = fl->dest;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *mask = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        qc_fit_family f;
        if (qc_fit_family_parse(w, &f, NULL) != 0 || f == QC_FIT_GPD || f == QC_FIT_EMPIRICAL) {
            cli_error("%s: unknown family '%s' (exp, gamma, lognormal, weibull, pareto, "
                      "lnmix2, lnmix3, expmix2, expmix3)",
                      flag, w);
            return QC_EXIT_USAGE;
        }
        *mask |= 1u << f;
    }
    if (*mask == 0) {
        cli_error("--families: empty list");
        return QC_EXIT_USAGE;
    }
    return 0;
}

static void print_fits(const char *what, const qc_traffic_fits *f, const char *unit)
{
    printf("  %s (%zu values%s%s), ranked:\n", what, f->n, unit[0] ? ", " : "", unit);
    printf("    %-9s %12s %12s %8s %9s  parameters [%s]\n", "family", "BIC", "AIC", "KS", "AD",
           "confidence interval");
    for (size_t i = 0; i < f->nranked; i++) {
        const qc_fit_result *r = &f->r[f->order[i]];
        printf("    %-9s %12.1f %12.1f %8.4f %9.2f ", qc_fit_family_name(r->dist.family), r->bic,
               r->aic, r->ks, r->ad);
        for (int j = 0; j < qc_fit_nstored(r->dist.family); j++) {
            if (isfinite(r->lo[j]) && isfinite(r->hi[j]))
                printf(" %s=%.4g[%.4g,%.4g]", qc_fit_param_name(r->dist.family, j), r->dist.p[j],
                       r->lo[j], r->hi[j]);
            else
                printf(" %s=%.4g[no interval]", qc_fit_param_name(r->dist.family, j),
                       r->dist.p[j]);
        }
        printf("  (%s)\n", r->ci_method);
    }
    const qc_fit_result *g = &f->r[QC_FIT_GPD];
    if (g->ok && isfinite(g->lo[0]) && isfinite(g->hi[0]))
        printf("    tail above %.4g (%.0f%% of values): generalized Pareto xi=%.3f[%.3f,%.3f] "
               "sigma=%.4g, KS %.4f\n",
               g->dist.p[2], 100 * g->dist.p[3], g->dist.p[0], g->lo[0], g->hi[0], g->dist.p[1],
               g->ks);
    else if (g->ok)
        printf("    tail above %.4g (%.0f%% of values): generalized Pareto xi=%.3f (no interval: "
               "the information matrix exists only for xi > -1/2) sigma=%.4g, KS %.4f\n",
               g->dist.p[2], 100 * g->dist.p[3], g->dist.p[0], g->dist.p[1], g->ks);
}

static void print_group(const qc_trace_group *g, const qc_traffic_model *m,
                        const qc_traffic_report *rep, const char *file)
{
    printf("\n== %s: %zu packets, %s, server port %u\n", g->name, g->n,
           m->proto == 6 ? "tcp" : "udp", m->port);
    if (m->segments > 1)
        printf("  segments: %u (gaps over %g s split the capture; not counted as idle)\n",
               m->segments, m->segment_gap);
    if (isinf(m->threshold))
        printf("  on/off: none (one session%s)", m->segments > 1 ? " per segment" : "");
    else
        printf("  on/off: threshold %.6g s (%s), %zu sessions, %.3g packets per session",
               m->threshold, m->threshold_method, rep->sessions,
               (double)g->n / (double)rep->sessions);
    const qc_traffic_idle_evidence *ev = &m->idle;
    if (strcmp(ev->rule, "jump") == 0)
        printf("; rule: empty stretch, ratio %.3g, floor %.3g s, %.3g%% of gaps idle\n",
               ev->ratio, ev->floor, 100 * ev->idle_fraction);
    else if (strcmp(ev->rule, "mixture") == 0)
        printf("; rule: mixture, busy median %.3g s, idle median %.3g s (weight %.3g), floor "
               "%.3g s, %.3g%% of gaps idle\n",
               ev->busy_median, ev->idle_median, ev->idle_weight, ev->floor,
               100 * ev->idle_fraction);
    else if (strcmp(ev->rule, "none") == 0 && ev->floor > 0)
        printf("; no idle population above the floor %.3g s (1000 x resolution %.3g s, or 10 x "
               "median gap)\n",
               ev->floor, m->resolution);
    else
        printf("\n");
    if (m->opener.emp.m > 0) {
        double om = 0, prev = 0, im = 0, ip = 0;
        for (size_t j = 0; j < m->opener.emp.m; j++) {
            om += m->opener.emp.v[j] * (m->opener.emp.cum[j] - prev);
            prev = m->opener.emp.cum[j];
        }
        for (size_t j = 0; j < m->size.emp.m; j++) {
            im += m->size.emp.v[j] * (m->size.emp.cum[j] - ip);
            ip = m->size.emp.cum[j];
        }
        printf("  openers: %zu session-opening packets, mean size %.4g bytes (in-session %.4g)\n",
               rep->sessions, om, im);
    }
    printf("  rate: source %.6g packets/s, fitted model %.6g, copula model %.6g\n",
           m->src_duration > 0 ? (double)(m->src_packets - 1) / m->src_duration : NAN,
           qc_traffic_model_rate(m, QC_TRAFFIC_FITTED), qc_traffic_model_rate(m, QC_TRAFFIC_COPULA));
    print_fits("size", &rep->size, "bytes");
    print_fits("gap", &rep->gap, "seconds, in sessions");
    if (rep->off.n)
        print_fits("off period", &rep->off, "seconds");
    printf("  dependence (Kendall tau / Spearman rho): size-gap %.3f / %.3f, "
           "size lag 1 %.3f / %.3f, gap lag 1 %.3f / %.3f\n",
           rep->tau_sg, rep->rho_sg, rep->tau_ss, rep->rho_ss, rep->tau_gg, rep->rho_gg);
    printf("  copula: %zu transitions, %u x %u grid\n", m->copula.n, m->copula.grid,
           m->copula.grid);
    if (file)
        printf("  model: %s\n", file);
}

/* The summary form of a model: without the copula points and tables. */
static json_t *summary_model(const qc_traffic_model *m, const qc_traffic_report *rep)
{
    json_t *j = qc_traffic_model_json(m, rep);
    if (j == NULL)
        return NULL;
    json_t *c = json_object_get(j, "copula");
    json_object_del(c, "prev");
    json_object_del(c, "next");
    json_object_del(c, "mark");
    static const char *const parts[] = {"size", "gap"};
    for (int i = 0; i < 2; i++)
        json_object_del(json_object_get(j, parts[i]), "empirical");
    json_t *oo = json_object_get(j, "onoff");
    json_object_del(oo, "session_packets");
    json_t *off = json_object_get(oo, "off");
    if (json_is_object(off))
        json_object_del(off, "empirical");
    return j;
}

/* One candidate fit as a row of the report's comparison table: its
 * family and goodness of fit, without the parameters, standard errors
 * and intervals (fit.json beside the page has them). */
static json_t *candidate_row(const json_t *c, const char *mean)
{
    static const char *const keys[][2] = {
        {"family", "family"},         {"mean", "mean"},          {"loglik", "log-likelihood"},
        {"aic", "AIC"},               {"bic", "BIC"},            {"ks", "KS distance"},
        {"ad", "Anderson-Darling"},   {"converged", "converged"}};
    json_t *r = json_object();
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(c, keys[i][0]);
        if (v)
            json_object_set(r, i == 1 && mean ? mean : keys[i][1], v);
    }
    return r;
}

/* The summary as the report page shows it: every list of candidate fits
 * cut to one comparison table (candidate_row), the intervals of a fit
 * that has none dropped, a fit's mean named with its unit (`mean`: bytes
 * under a packet size, seconds under a gap; NULL above both). A deep
 * copy; the --json summary is unchanged. */
static void page_fits(json_t *j, const char *mean)
{
    if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) page_fits(v, mean);
        return;
    }
    if (!json_is_object(j))
        return;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(j, tmp, k, v) {
        if (strcmp(k, "candidates") == 0 && json_is_array(v)) {
            json_t *rows = json_array();
            size_t i;
            json_t *c;
            json_array_foreach(v, i, c) json_array_append_new(rows, candidate_row(c, mean));
            json_object_set_new(j, k, rows);
        } else if ((strcmp(k, "se") == 0 || strcmp(k, "ci") == 0) && json_is_object(v)) {
            json_object_del(j, k);
        } else if (strcmp(k, "mean") == 0 && mean != NULL && json_is_number(v)) {
            json_object_set(j, mean, v);
            json_object_del(j, k);
        } else {
            const int size = strcmp(k, "size") == 0 || strcmp(k, "opener") == 0;
            const int gap = strcmp(k, "gap") == 0 || strcmp(k, "off") == 0 ||
                            strcmp(k, "on") == 0;
            page_fits(v, size ? "mean (bytes)" : gap ? "mean (s)" : mean);
        }
    }
}

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

/* `fit --column FILE[:COL]`: the families fitted to one column of
 * numbers, the best printed as a qc_dist spec. The column is read by the
 * empirical spec's reader, so its messages (FILE:LINE) are the same. */
static int fit_column(const char *arg, const qc_fit_params *fo, unsigned families, int json,
                      int spec_only)
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
    qc_dist emp;
    int rc = qc_dist_parse(&emp, spec, &err);
    if (rc != 0) {
        cli_error("--column: %s", err.msg);
        return cli_input_exit(rc);
    }
    qc_fit_data d;
    if ((rc = qc_fit_data_init(&d, emp.samples, emp.n, &err)) != 0) {
        cli_error("--column %s: %s", arg, err.msg);
        qc_dist_free(&emp);
        return cli_input_exit(rc);
    }
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
        print_fits("values", &f, "");
        printf("best by %s: %s\n", fo->crit == QC_FIT_AIC ? "AIC" : "BIC", best);
    }
    f.x = NULL;
    for (int i = 0; i < QC_FIT_NFAMILIES; i++)
        qc_fit_result_free(&f.r[i]);
    qc_fit_data_free(&d);
    qc_dist_free(&emp);
    return rc;
}

int cmd_fit(int argc, char **argv)
{
    cli_batch_memory();
    qc_traffic_fit_params fo;
    qc_traffic_fit_params_init(&fo);
    const char *labels = NULL, *activity = NULL, *out = NULL, *csv = NULL, *report = NULL;
    const char *column = NULL;
    int split = -1, json = 0, quiet = 0, rc = 0, spec_only = 0, help = 0, first = 0;
    int crit = fo.fit.crit;
    uint64_t minp = 50, cpts = 10000;
    static const int splits[] = {QC_SPLIT_NONE, QC_SPLIT_FLOW, QC_SPLIT_HOST, QC_SPLIT_ACTIVITY};
    static const int crits[] = {QC_FIT_BIC, QC_FIT_AIC};
    const cli_flag flags[] = {
        {"labels", CLI_STR, &labels, .path = CLI_PATH_IN, .arg = "FILE",
         .help = "rules mapping flows or time ranges to activities"},
        {"split", CLI_CHOICE, &split, .arg = "MODE", .choices = "none,flow,host,activity",
         .values = splits,
         .help = "none, flow, host or activity (default: activity when\n"
                 "packets are labelled, else none)"},
        {"activity", CLI_STR, &activity, .arg = "NAME",
         .help = "fit only this group (with --split none: the model's name,\ndefault 'all')"},
        {"gap-threshold", CLI_FUNC, &fo.threshold, .arg = "T", .parse = cli_gap_threshold,
         .help = "idle gap threshold: auto (default), none, or seconds"},
        {"families", CLI_FUNC, &fo.families, .arg = "LIST", .parse = parse_families,
         .help = "families to try, comma-separated (default all: exp,gamma,\n"
                 "lognormal,weibull,pareto,lnmix2,lnmix3,expmix2,expmix3)"},
        {"criterion", CLI_CHOICE, &crit, .arg = "C", .choices = "bic,aic", .values = crits,
         .help = "bic (default) or aic"},
        {"confidence", CLI_DOUBLE, &fo.fit.level, 0, 1, .open = CLI_OPEN_MIN | CLI_OPEN_MAX,
         .arg = "L", .help = "level of the parameter intervals (default 0.95)"},
        {"gpd-quantile", CLI_DOUBLE, &fo.fit.gpd_quantile, 0, 1,
         .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "Q",
         .help = "threshold of the generalized Pareto tail (default 0.9)"},
        {"copula-points", CLI_U64, &cpts, 10, 1e7, .arg = "N",
         .help = "transitions kept in the copula (default 10000)"},
        {"min-packets", CLI_U64, &minp, 10, HUGE_VAL, .arg = "N",
         .help = "skip groups with fewer packets (default 50)"},
        {"out", CLI_STR, &out, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "write one model file per group, DIR/NAME.json"},
        {"csv", CLI_STR, &csv, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "also write the decoded packets as CSV"},
        {"report", CLI_STR, &report, .arg = "DIR",
         .help = "densities over histograms, Q-Q plots, copula scatter\n"
                 "(SVG and PNG; needs gnuplot), and DIR/index.html: the\n"
                 "capture, the fits and these plots in one page"},
        {"segment-gap", CLI_DOUBLE, &fo.segment_gap, 0, HUGE_VAL, .open = CLI_OPEN_MIN,
         .arg = "T",
         .help = "longer gaps split the capture into segments (default\n"
                 "3600 s: concatenated captures); the model keeps neither\n"
                 "as a gap nor as an idle period"},
        CLI_ROW_JSON(&json),
        {"quiet", CLI_BOOL, &quiet, .help = "no warnings about the capture and no progress line"},
        {"jobs", CLI_UINT, &fo.fit.threads, 1, 256, .letter = 'j', .arg = "N",
         .help = "threads for the families and the EM starts (default: the\nnumber of cores); the "
                 "results do not depend on it"},
        {"", CLI_NOTE, NULL,
         .help = "\nAny sample (--column FILE[:COL]): fits the families to the numbers in column\n"
                 "COL of FILE (1-based number or header name; default 1; one value a line or\n"
                 "CSV) and prints the ranking and the best model as a distribution spec that\n"
                 "every 'qctl sim' command takes (e.g. --service), such as\n"
                 "lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2."},
        {"column", CLI_STR, &column, .arg = "FILE[:COL]", .help = "the sample to fit"},
        {"spec", CLI_BOOL, &spec_only,
         .help = "print only that spec (for $(qctl fit --column ... --spec))"},
        CLI_ROW_HELP(&help),
        {0}};
    rc = cli_flags_parse("fit", flags, argc, argv, &first, NULL);
    if (rc < 0) {
        cli_flags_usage(stdout, synopsis, about, flags);
        return 0;
    }
    if (rc != 0)
        return rc;
    fo.fit.crit = (qc_fit_criterion)crit;
    if (column) {
        if (first < argc) {
            cli_error("fit --column: unexpected argument '%s' (see 'qctl fit --help')",
                      argv[first]);
            return QC_EXIT_USAGE;
        }
        return fit_column(column, &fo.fit, fo.families, json, spec_only);
    }
    if (spec_only) {
        cli_error("--spec: only with --column");
        return QC_EXIT_USAGE;
    }
    if (first >= argc) {
        cli_error("fit: a CAPTURE file is required (see 'qctl fit --help')");
        return QC_EXIT_USAGE;
    }
    if (first + 1 < argc) {
        cli_error("fit: unexpected argument '%s' (see 'qctl fit --help')", argv[first + 1]);
        return QC_EXIT_USAGE;
    }
    fo.copula_points = (size_t)cpts;
    const char *capture = cli_input_path("fit CAPTURE", argv[first], CLI_PATH_IN_NONEMPTY);
    if (!capture)
        return QC_EXIT_USAGE;
    if (report && (rc = cli_report_prepare(report)) != 0)
        return rc;

    qc_err err = {0};
    qc_trace tr;
    cli_groups groups = {0};
    if ((rc = cli_load_trace(capture, labels, quiet, &tr)) != 0)
        return rc;
    if (split < 0)
        split = tr.nacts > 0 ? QC_SPLIT_ACTIVITY : QC_SPLIT_NONE;
    if (split == QC_SPLIT_ACTIVITY && tr.nacts == 0) {
        cli_error("--split activity: %s has no activity labels (give --labels FILE or an "
                  "activity column)",
                  capture);
        qc_trace_free(&tr);
        return QC_EXIT_USAGE;
    }
    if (csv && qc_trace_write_csv(&tr, csv, &err) != 0) {
        cli_error("%s", err.msg);
        qc_trace_free(&tr);
        return QC_EXIT_FAIL;
    }
    if ((rc = qc_trace_split_groups(&tr, (qc_trace_split)split, &groups.g, &groups.n, &err)) != 0) {
        cli_error("fit: %s", err.msg);
        qc_trace_free(&tr);
        return QC_EXIT_FAIL;
    }
    if (split == QC_SPLIT_NONE && activity)
        snprintf(groups.g[0].name, sizeof groups.g[0].name, "%s", activity);
    if (out && qc_mkdir_p(out, &err) != 0) {
        cli_error("--out: %s", err.msg);
        rc = QC_EXIT_FAIL;
        goto end;
    }
    char **plots = NULL; /* the page's plots, group by group */
    size_t nplots = 0;
    json_t *summary = json_object(), *jg = json_array();
    json_object_set_new(summary, "command", json_string("fit"));
    json_object_set_new(summary, "capture", cli_trace_json(capture, &tr));
    if (!json)
        cli_print_trace(capture, &tr);
    size_t fitted = 0, matched = 0, total = 0, done = 0;
    for (size_t i = 0; i < groups.n; i++)
        total += groups.g[i].n;
    /* by packets fitted; cleared before each group's text */
    cli_progress prog;
    cli_progress_init(&prog, "fit", quiet);
    for (size_t i = 0; i < groups.n && rc == 0; i++) {
        const qc_trace_group *g = &groups.g[i];
        if (activity && split != QC_SPLIT_NONE && strcmp(g->name, activity) != 0)
            continue;
        matched++;
        if (g->n < minp) {
            if (!json)
                printf("\n== %s: %zu packets, fewer than --min-packets %llu: skipped\n", g->name,
                       g->n, (unsigned long long)minp);
            continue;
        }
        qc_traffic_model m;
        qc_traffic_report rep;
        cli_progress_update(&prog, total ? (double)done / (double)total : 0);
        rc = qc_traffic_fit_group(&m, &tr, g, &fo, &rep, &err);
        done += g->n;
        cli_progress_done(&prog);
        if (rc != 0) {
            if (rc == QC_EEMPTY) { /* too few packets in sessions: skip it */
                if (!json)
                    printf("\n== %s: %s: skipped\n", g->name, err.msg);
                rc = 0;
                continue;
            }
            cli_error("fit: %s", err.msg);
            rc = cli_exit_code(rc);
            break;
        }
        fitted++;
        if (m.segments > 1 && !quiet)
            fprintf(stderr,
                    "qctl: warning: %s: %s: %u segments: %u gap%s over %g s (concatenated or "
                    "stopped captures) split the packets; not counted as idle periods\n",
                    capture, g->name, m.segments, m.segments - 1, m.segments > 2 ? "s" : "",
                    m.segment_gap);
        char *file = NULL;
        if (out) {
            file = cli_model_path(out, g->name);
            if (file == NULL || qc_traffic_model_save(&m, &rep, file, &err) != 0) {
                cli_error("%s", file ? err.msg : "out of memory");
                rc = QC_EXIT_FAIL;
            }
        }
        if (!json)
            print_group(g, &m, &rep, file);
        json_t *gj = json_object();
        json_object_set_new(gj, "name", json_string(g->name));
        json_object_set_new(gj, "packets", json_integer((json_int_t)g->n));
        json_object_set_new(gj, "sessions", json_integer((json_int_t)rep.sessions));
        json_object_set_new(gj, "model_file", file ? json_string(file) : json_null());
        json_object_set_new(gj, "model", summary_model(&m, &rep));
        json_array_append_new(jg, gj);
        if (rc == 0 && report && cli_fit_report(report, g->name, &m, &rep) != 0)
            rc = QC_EXIT_FAIL;
        if (rc == 0 && report && cli_fit_report_names(g->name, &rep, &plots, &nplots) != 0) {
            cli_error("out of memory");
            rc = QC_EXIT_FAIL;
        }
        free(file);
        qc_traffic_model_free(&m);
        qc_traffic_report_free(&rep);
    }
    json_object_set_new(summary, "groups", jg);
    if (rc == 0 && activity && matched == 0) {
        cli_error("--activity: no group named '%s' in %s", activity, capture);
        rc = QC_EXIT_USAGE;
    } else if (rc == 0 && fitted == 0) {
        cli_error("fit: %s: no group has enough packets for a model (see --min-packets)", capture);
        rc = QC_EXIT_USAGE;
    }
    if (rc == 0 && json)
        rc = cli_json_out(summary, NULL);
    if (rc == 0 && report) {
        /* the page shows the selected fits and a comparison table; every
         * candidate's parameters and intervals go beside it, in fit.json */
        char *full = malloc(strlen(report) + 16);
        json_t *page = json_deep_copy(summary);
        if (full == NULL || page == NULL) {
            cli_error("out of memory");
            rc = QC_EXIT_FAIL;
        } else {
            snprintf(full, strlen(report) + 16, "%s/fit.json", report);
            if (qc_json_write(summary, full, &err) != 0) {
                cli_error("--report: %s", err.msg);
                rc = QC_EXIT_FAIL;
            }
            page_fits(page, NULL);
        }
        if (rc == 0)
            rc = cli_report_write(report, "fit", argc, argv, page, (const char *const *)plots,
                                  nplots);
        json_decref(page);
        free(full);
    }
    for (size_t i = 0; i < nplots; i++)
        free(plots[i]);
    free(plots);
    json_decref(summary);
end:
    qc_trace_groups_free(groups.g, groups.n);
    qc_trace_free(&tr);
    return rc;
}
