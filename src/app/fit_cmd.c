/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_cmd.c: what `qctl fit CAPTURE` does once its flags are read
 * (fit_cmd.h): the capture read, labelled and split into groups before
 * the run; one model a group fitted, written and shown; the summary and
 * the report page. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "fit_cmd.h"
#include "guard.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "result.h"

int fit_check(void *ctx)
{
    fit_cli *F = ctx;
    qc_app_fit_params *P = &F->p;
    qc_err err = {0};
    int rc;
    if ((rc = qc_app_fit_params_check(P, &err)) != 0)
        return cli_flags_error(F->flags, NULL, rc, &err);
    if (P->column) {
        if ((rc = fit_column_load(P->column, &F->col_emp, &F->col_data)) == 0)
            F->col_loaded = 1;
        return rc;
    }
    const char *capture = cli_input_path("fit CAPTURE", P->capture, CLI_PATH_IN_NONEMPTY);
    if (!capture)
        return QC_EXIT_USAGE;
    P->capture = capture;
    if (P->report && (rc = cli_report_prepare(P->report)) != 0)
        return rc;
    if ((rc = cli_load_trace(capture, P->labels, P->quiet, &F->tr)) != 0)
        return rc;
    F->trace_loaded = 1;
    if (P->split < 0)
        P->split = F->tr.nacts > 0 ? QC_SPLIT_ACTIVITY : QC_SPLIT_NONE;
    if (P->split == QC_SPLIT_ACTIVITY && F->tr.nacts == 0) {
        cli_error("--split activity: %s has no activity labels (give --labels FILE or an "
                  "activity column)",
                  capture);
        return QC_EXIT_USAGE;
    }
    if ((rc = qc_trace_split_groups(&F->tr, (qc_trace_split)P->split, &F->groups.g,
                                    &F->groups.n, &err)) != 0) {
        cli_error("fit: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    if (P->split == QC_SPLIT_NONE && P->activity)
        snprintf(F->groups.g[0].name, sizeof F->groups.g[0].name, "%s", P->activity);
    /* (a capture whose groups are all too small is said after the
     * groups' lines, which show their sizes: a refusal of the run) */
    size_t matched = 0;
    for (size_t i = 0; P->activity && P->split != QC_SPLIT_NONE && i < F->groups.n; i++)
        matched += strcmp(F->groups.g[i].name, P->activity) == 0;
    if (P->activity && P->split != QC_SPLIT_NONE && matched == 0) {
        cli_error("--activity: no group named '%s' in %s", P->activity, capture);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* One group's model: fitted, written (--out), shown, added to the
 * summary jg and the page's plots; *fitted counts the models. */
static int fit_group(const fit_cli *F, const qc_trace_group *g, json_t *jg, char ***plots,
                     size_t *nplots, size_t *fitted)
{
    const qc_app_fit_params *P = &F->p;
    qc_err err = {0};
    if (g->n < P->min_packets) {
        if (!P->json)
            printf("\n== %s: %zu packets, fewer than --min-packets %llu: skipped\n", g->name,
                   g->n, (unsigned long long)P->min_packets);
        return 0;
    }
    qc_traffic_model m;
    qc_traffic_report rep;
    int rc = qc_traffic_fit_group(&m, &F->tr, g, &P->fo, &rep, &err);
    if (rc == QC_EEMPTY) { /* too few packets in sessions: skip it */
        if (!P->json)
            printf("\n== %s: %s: skipped\n", g->name, err.msg);
        return 0;
    }
    if (rc != 0) {
        cli_error("fit: %s", err.msg);
        return cli_exit_code(rc);
    }
    ++*fitted;
    if (m.segments > 1 && !P->quiet)
        fprintf(stderr,
                "qctl: warning: %s: %s: %u segments: %u gap%s over %g s (concatenated or "
                "stopped captures) split the packets; not counted as idle periods\n",
                P->capture, g->name, m.segments, m.segments - 1, m.segments > 2 ? "s" : "",
                m.segment_gap);
    char *file = NULL;
    if (P->out) {
        file = cli_model_path(P->out, g->name);
        if (file == NULL || qc_traffic_model_save(&m, &rep, file, &err) != 0) {
            cli_error("%s", file ? err.msg : "out of memory");
            rc = QC_EXIT_FAIL;
        }
    }
    if (!P->json)
        qc_app_fit_print_group(g, &m, &rep, file);
    json_t *gj = json_object();
    json_object_set_new(gj, "name", json_string(g->name));
    json_object_set_new(gj, "packets", json_integer((json_int_t)g->n));
    json_object_set_new(gj, "sessions", json_integer((json_int_t)rep.sessions));
    json_object_set_new(gj, "model_file", file ? json_string(file) : json_null());
    json_object_set_new(gj, "model", qc_app_fit_summary_model(&m, &rep));
    json_array_append_new(jg, gj);
    if (rc == 0 && P->report && cli_fit_report(P->report, g->name, &m, &rep) != 0)
        rc = QC_EXIT_FAIL;
    if (rc == 0 && P->report && cli_fit_report_names(g->name, &rep, plots, nplots) != 0) {
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
static int fit_page(const qc_app_fit_params *P, const json_t *summary, char **plots,
                    size_t nplots, int argc, char **argv)
{
    qc_err err = {0};
    int rc = 0;
    char *full = malloc(strlen(P->report) + 16);
    json_t *page = json_deep_copy(summary);
    if (full == NULL || page == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    } else {
        snprintf(full, strlen(P->report) + 16, "%s/fit.json", P->report);
        if (qc_json_write(summary, full, &err) != 0) {
            cli_error("--report: %s", err.msg);
            rc = QC_EXIT_FAIL;
        }
        qc_app_fit_page(page, NULL);
    }
    if (rc == 0)
        rc = cli_report_write(P->report, "fit", argc, argv, page, (const char *const *)plots,
                              nplots);
    json_decref(page);
    free(full);
    return rc;
}

/* The capture's groups fitted one by one, then the outputs. */
int fit_run(void *ctx, int argc, char **argv)
{
    fit_cli *F = ctx;
    const qc_app_fit_params *P = &F->p;
    if (P->column) {
        F->col_loaded = 0;
        return fit_column(P->column, &F->col_emp, &F->col_data, &P->fo.fit, P->fo.families,
                          P->json, P->spec);
    }
    qc_err err = {0};
    int rc = 0;
    if (P->csv && qc_trace_write_csv(&F->tr, P->csv, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    if (P->out && qc_mkdir_p(P->out, &err) != 0) {
        cli_error("--out: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    char **plots = NULL; /* the page's plots, group by group */
    size_t nplots = 0, fitted = 0, total = 0, done = 0;
    json_t *summary = json_object(), *jg = json_array();
    json_object_set_new(summary, "command", json_string("fit"));
    json_object_set_new(summary, "capture", cli_trace_json(P->capture, &F->tr));
    if (!P->json)
        cli_print_trace(P->capture, &F->tr);
    for (size_t i = 0; i < F->groups.n; i++)
        total += F->groups.g[i].n;
    cli_progress prog; /* by packets fitted; cleared before each group's text */
    cli_progress_init(&prog, "fit", P->quiet);
    for (size_t i = 0; i < F->groups.n && rc == 0; i++) {
        const qc_trace_group *g = &F->groups.g[i];
        if (P->activity && P->split != QC_SPLIT_NONE && strcmp(g->name, P->activity) != 0)
            continue;
        cli_progress_update(&prog, total ? (double)done / (double)total : 0);
        rc = fit_group(F, g, jg, &plots, &nplots, &fitted);
        done += g->n;
        cli_progress_done(&prog);
    }
    json_object_set_new(summary, "groups", jg);
    if (rc == 0 && fitted == 0) {
        cli_error("fit: %s: no group has enough packets for a model (see --min-packets)",
                  P->capture);
        rc = QC_EXIT_USAGE;
    }
    if (rc == 0 && P->json)
        rc = cli_json_out(summary, NULL);
    if (rc == 0 && P->report)
        rc = fit_page(P, summary, plots, nplots, argc, argv);
    for (size_t i = 0; i < nplots; i++)
        free(plots[i]);
    free(plots);
    json_decref(summary);
    return rc;
}

void fit_cli_free(fit_cli *f)
{
    if (f->col_loaded) {
        qc_fit_data_free(&f->col_data);
        qc_dist_free(&f->col_emp);
    }
    if (f->trace_loaded) {
        qc_trace_groups_free(f->groups.g, f->groups.n);
        qc_trace_free(&f->tr);
    }
    f->col_loaded = f->trace_loaded = 0;
    f->groups = (cli_groups){0};
}
