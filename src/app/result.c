/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result.c: the run under the progress line and the outputs after it,
 * shared by the commands that run a model (see result.h). */
#include "result.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/plot.h"
#include "guard.h"
#include "interrupt.h"
#include "report_cli.h"

void cli_run_begin(cli_run *r, const char *what, const char *label, int quiet,
                   void (**progress)(void *ctx, double fraction), void **progress_ctx)
{
    memset(r, 0, sizeof *r);
    r->what = what;
    r->progress = progress;
    r->progress_ctx = progress_ctx;
    cli_progress_init(&r->prog, label ? label : what, quiet);
    if (progress) {
        *progress = cli_progress_update;
        *progress_ctx = &r->prog;
    }
}

void cli_run_cancellable(cli_run *r, const qc_cancel **cancel)
{
    (void)r;
    *cancel = &cli_cancel;
    cli_interrupt_hold(1);
}

int cli_run_end(cli_run *r, int rc)
{
    cli_interrupt_hold(0);
    cli_progress_done(&r->prog);
    if (r->progress) { /* the parameters outlive the line */
        *r->progress = NULL;
        *r->progress_ctx = NULL;
    }
    r->elapsed = cli_elapsed(&r->prog);
    if (cli_interrupted())
        return cli_interrupt_exit(rc == QC_ECANCELED ? r->err.msg : NULL);
    if (rc != 0) {
        cli_error("%s: %s", r->what, r->err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}

FILE *cli_file_open(qc_ofile *f, const char *path)
{
    qc_err err = {0};
    if (qc_ofile_open(f, path, &err) != 0) {
        cli_error("%s", err.msg);
        return NULL;
    }
    return f->fp;
}

int cli_file_commit(qc_ofile *f)
{
    qc_err err = {0};
    if (qc_ofile_commit(f, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

int cli_json_out(const json_t *doc, const char *path)
{
    qc_err err = {0};
    if (qc_json_write(doc, path, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

int cli_json_print(json_t *doc)
{
    int rc = cli_json_out(doc, NULL);
    json_decref(doc);
    return rc;
}

int cli_write_file(const char *path, cli_rows_fn rows, const void *ctx)
{
    qc_ofile f;
    FILE *fp = cli_file_open(&f, path);
    if (fp == NULL)
        return QC_EXIT_FAIL;
    rows(fp, ctx);
    return cli_file_commit(&f);
}

json_t *cli_json_reals(const double *x, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, qc_json_real_new(x[i]));
    return a;
}

int cli_plots_open(cli_plots *pl, const char *dir, const char *skipped, int make_dir)
{
    pl->dir = dir;
    pl->path[0] = '\0';
    if (!qc_plot_available()) {
        fprintf(stderr, "qctl: gnuplot not found; %s skipped\n", skipped);
        return CLI_PLOTS_SKIPPED;
    }
    qc_err err = {0};
    if (make_dir && qc_mkdir_p(dir, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

FILE *cli_plots_file(cli_plots *pl, qc_ofile *f, const char *file)
{
    snprintf(pl->path, sizeof pl->path, "%s/%s", pl->dir, file);
    return cli_file_open(f, pl->path);
}

int cli_plots_data(cli_plots *pl, const char *file, cli_rows_fn rows, const void *ctx)
{
    snprintf(pl->path, sizeof pl->path, "%s/%s", pl->dir, file);
    return cli_write_file(pl->path, rows, ctx);
}

int cli_plots_draw(const cli_plots *pl, const char *name, const char *fmt, ...)
{
    qc_err err = {0};
    va_list ap;
    va_start(ap, fmt);
    int rc = qc_vplotf(pl->dir, name, &err, fmt, ap);
    va_end(ap);
    if (rc != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

/* The plots into dir; nothing (0) when gnuplot is missing. */
static int draw(const cli_result *r, const char *dir)
{
    cli_plots pl;
    int rc = cli_plots_open(&pl, dir, "--plot", 1);
    if (rc == CLI_PLOTS_SKIPPED)
        return 0;
    return rc != 0 ? rc : r->plots(&pl, r->ctx);
}

int cli_result_write(const cli_outputs *o, const cli_result *r, int argc, char **argv)
{
    int rc = 0;
    if (o->json)
        rc = cli_json_out(r->summary, NULL);
    else if (r->table)
        r->table(r->ctx);
    if (rc == 0 && r->verdict)
        rc = r->verdict(r->ctx);
    if (rc == 0 && o->output)
        rc = cli_json_out(r->summary, o->output);
    if (rc == 0 && o->series && r->series)
        rc = cli_write_file(o->series, r->series, r->ctx);
    if (rc == 0 && o->plot && r->plots)
        rc = draw(r, o->plot);
    if (rc == 0 && o->report) {
        /* the page shows a note for each plot when gnuplot is missing */
        if (r->plots && qc_plot_available())
            rc = draw(r, o->report);
        if (rc == 0)
            rc = cli_report_write(o->report, o->cmd, argc, argv, r->summary, r->plot_names,
                                  r->nplots);
    }
    json_decref(r->summary);
    return rc;
}

int cli_warmup_parse(const char *s, int mser, int in_customers, int *fixed, double *w)
{
    *fixed =
        !(strcmp(s, "auto") == 0 || (mser && (strcmp(s, "mser") == 0 || strcmp(s, "mser5") == 0)));
    if (!*fixed)
        return 0;
    int rc = cli_double("--warmup", s, w);
    if (rc != 0)
        return rc;
    if (*w < 0 || (in_customers && *w != floor(*w))) {
        cli_error("--warmup: '%s' must be 'auto' or a non-negative %s", s,
                  in_customers ? "whole number of customers" : "time");
        return QC_EXIT_USAGE;
    }
    return 0;
}

int cli_series_bins(const cli_outputs *o, double span, double *dt, double *run_dt,
                    size_t point_bytes)
{
    int want = o->series || o->plot || o->report;
    if (want && *dt == 0)
        *dt = isfinite(span) && span > 0 ? span / 2000 : 1.0;
    *run_dt = want ? *dt : 0;
    return *run_dt > 0 ? cli_check_series("--series-dt", span, *run_dt, point_bytes) : 0;
}

int cli_command_main(const char *cmd, const char *synopsis, const char *about,
                     const cli_flag *flags, unsigned *given,
                     int (*run)(void *ctx, int argc, char **argv), void *ctx, int argc,
                     char **argv)
{
    int first = 0;
    int rc = cli_flags_parse(cmd, flags, argc, argv, &first, given);
    if (rc == CLI_DONE_HELP)
        cli_flags_usage(stdout, synopsis, about, flags);
    if (rc == 0 && first < argc) /* a table with a check row refused it already */
        rc = cli_extra_operand(cmd, argv[first]);
    if (rc == 0)
        rc = run(ctx, argc, argv);
    return rc < 0 ? 0 : rc;
}

int cli_support_verdict(const cli_support *s, const char *cmd)
{
    int rc = 0;
    if (s->short_run && !s->allow_short) {
        cli_error("%s: the run is too short for its intervals: %s (--allow-short prints them "
                  "marked unreliable)",
                  cmd, s->why);
        rc = QC_EXIT_FAIL;
    }
    if (s->precision_asked && !s->precision_met) {
        cli_error("%s: the precision asked for was not reached", cmd);
        rc = QC_EXIT_FAIL;
    }
    return rc;
}
