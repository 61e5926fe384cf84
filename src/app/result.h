/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result.h: what the commands that run a model share around the run
 * (sim queue, sim pool, sim maxusers, sim admission, mdp removable; fit
 * and gen for their plot files): the run under the progress line, and
 * the outputs after it, always written in one order:
 *
 *   1. the summary on stdout: the command's table, or with --json the JSON
 *      summary;
 *   2. the command's verdict on the run (sim queue: no steady state),
 *      an exit status after its message;
 *   3. --output FILE: the JSON summary;
 *   4. --series FILE: the command's CSV rows;
 *   5. --plot DIR: data files and gnuplot plots (a notice, not an error,
 *      when gnuplot is missing);
 *   6. --report DIR: the plots of --plot when gnuplot is there, then the
 *      HTML page of the summary (report_cli.h).
 *
 * The first output that fails stops the rest: its message is printed and
 * the status is QC_EXIT_FAIL. Every file is written under a temporary
 * name and renamed when complete (qctl/output.h), so a failed or
 * interrupted command leaves no half file. A command thus declares what
 * it has (a summary, a table, rows, plots) and this file decides when and
 * where each goes. */
#ifndef QCTL_CLI_RESULT_H
#define QCTL_CLI_RESULT_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "cmdline.h"
#include "flags.h"
#include "interrupt.h"
#include "qctl/output.h"

/* ---- the run ------------------------------------------------------------- */

/* A run of the library under the progress line, between cli_run_begin
 * and cli_run_end:
 *     cli_run run;
 *     cli_run_begin(&run, "sim queue", NULL, quiet, &p.progress, &p.progress_ctx);
 *     rc = cli_run_end(&run, qc_queue_run(&p, &res, &run.err));
 * The run's progress hook (the addresses of its parameters' progress and
 * progress_ctx fields) is pointed at the line until cli_run_end; a run
 * with more than one set of parameters gives NULL and hands
 * cli_progress_update and &run.prog to each itself. */
typedef struct cli_run {
    const char *what; /* names the run in its error: "WHAT: message" */
    cli_progress prog;
    qc_err err; /* the library's message */
    void (**progress)(void *ctx, double fraction);
    void **progress_ctx;
    double elapsed; /* set by cli_run_end: the run's wall-clock seconds */
} cli_run;

/* Starts the line labelled label (NULL: what), unless quiet. */
void cli_run_begin(cli_run *r, const char *what, const char *label, int quiet,
                   void (**progress)(void *ctx, double fraction), void **progress_ctx);

/* The run checks the process's stop flag: *cancel (the address of its
 * parameters' cancel field) is pointed at cli_cancel, and until
 * cli_run_end a first SIGINT or SIGTERM only asks the run to stop
 * (interrupt.h). */
void cli_run_cancellable(cli_run *r, const qc_cancel **cancel);

/* Ends the line after the library returned rc: 0, or after "qctl: WHAT:
 * message" the exit status of rc (cli_exit_code). A run stopped by a
 * signal (or one that ended after it came) prints "qctl: CMD:
 * interrupted (SIG)" with the library's message and returns 128 + the
 * signal (cli_interrupt_exit). */
int cli_run_end(cli_run *r, int rc);

/* ---- files --------------------------------------------------------------- */

/* Writes the rows of a file (CSV, a gnuplot data file) to fp. */
typedef void (*cli_rows_fn)(FILE *fp, const void *ctx);

/* Opens path under its temporary name: the stream, or NULL after the
 * message. cli_file_commit renames it into place: 0, or QC_EXIT_FAIL after
 * the message. */
FILE *cli_file_open(qc_ofile *f, const char *path);
int cli_file_commit(qc_ofile *f);

/* doc as JSON (qc_json_write) to path, or to stdout when path is NULL: 0
 * or QC_EXIT_FAIL after the message. */
int cli_json_out(const json_t *doc, const char *path);

/* doc as JSON on stdout, then released (the summary of --json, the
 * configuration of --check): 0 or QC_EXIT_FAIL after the message. */
int cli_json_print(json_t *doc);

/* path written whole by rows(fp, ctx): 0 or QC_EXIT_FAIL after a message. */
int cli_write_file(const char *path, cli_rows_fn rows, const void *ctx);

/* A JSON array of x[0..n), non-finite values as null. */
json_t *cli_json_reals(const double *x, size_t n);

/* ---- plots --------------------------------------------------------------- */

/* The plots of one output directory. */
typedef struct cli_plots {
    const char *dir;
    char path[4096]; /* DIR/FILE of the last data file written */
} cli_plots;

enum { CLI_PLOTS_SKIPPED = -1 };

/* Starts the plots into dir: 0 (dir made when make_dir); CLI_PLOTS_SKIPPED
 * when gnuplot is missing, after "qctl: gnuplot not found; SKIPPED
 * skipped" (SKIPPED: "--plot", "--report plots"); or QC_EXIT_FAIL when dir
 * cannot be made, after the message. */
int cli_plots_open(cli_plots *pl, const char *dir, const char *skipped, int make_dir);

/* Opens DIR/file (pl->path) for a data file, as cli_file_open. */
FILE *cli_plots_file(cli_plots *pl, qc_ofile *f, const char *file);

/* DIR/file written whole by rows(fp, ctx), as cli_write_file; pl->path
 * names it for the plot that reads it. */
int cli_plots_data(cli_plots *pl, const char *file, cli_rows_fn rows, const void *ctx);

/* Draws DIR/name.{svg,png} from the gnuplot commands printf-formatted
 * from fmt (qc_plot): 0, or QC_EXIT_FAIL after the message. */
int cli_plots_draw(const cli_plots *pl, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the outputs --------------------------------------------------------- */

/* Where the outputs go: the command's flags. */
typedef struct cli_outputs {
    const char *cmd; /* "sim queue": the page's title */
    int json;        /* --json */
    const char *output, *series, *plot, *report;
} cli_outputs;

/* What the command has to show; ctx is given to each callback. A NULL
 * callback has nothing to add. */
typedef struct cli_result {
    json_t *summary; /* the JSON summary, released by cli_result_write */
    const void *ctx;
    void (*table)(const void *ctx);               /* the summary as text on stdout */
    int (*verdict)(const void *ctx);              /* 0, or an exit status after a message */
    cli_rows_fn series;                           /* the rows of --series */
    int (*plots)(cli_plots *pl, const void *ctx); /* the plots (0 or an exit status) */
    const char *const *plot_names;                /* the plots shown on the page of --report */
    size_t nplots;
} cli_result;

/* Writes the outputs in the order above for the command line argv (shown
 * on the page of --report), and releases r->summary: 0, or the first
 * failure's exit status (its message printed). */
int cli_result_write(const cli_outputs *o, const cli_result *r, int argc, char **argv);

/* ---- whether the run supports its intervals ------------------------------ */

/* A run's verdict on its intervals, shared by every command that prints
 * them (sim queue, sim pool, sim maxusers, sim admission): the library
 * decides from the run's data whether it supports them (short: it does
 * not, why: in words) and whether --precision was reached. */
typedef struct cli_support {
    int short_run;       /* the intervals are not supported */
    const char *why;     /* in words, when short_run */
    int allow_short;     /* --allow-short: print them marked unreliable */
    int precision_asked; /* --precision given */
    int precision_met;
} cli_support;

/* The exit status the verdict gives: after a message, QC_EXIT_FAIL for a
 * short run without --allow-short or for --precision not reached; else
 * 0. cmd names the command in the message. */
int cli_support_verdict(const cli_support *s, const char *cmd);

/* The flag row of --allow-short. */
#define CLI_ROW_ALLOW_SHORT(p)                                                                 \
    {"allow-short", CLI_BOOL, (p),                                                              \
     .help = "print the intervals of a run too short to support them\n(marked unreliable) "     \
             "and exit 0; without it such a run\nprints none and exits 1"}

/* ---- the command ----------------------------------------------------------- */

/* A command: parses argv against its flags (cli_flags_parse; how often
 * each was given into given, when not NULL), prints the usage for --help,
 * refuses an operand, else runs run(ctx, argc, argv) unless --check
 * stopped. Returns the exit
 * status (0 after --help and --check). */
int cli_command_main(const char *cmd, const char *synopsis, const char *about,
                     const cli_flag *flags, unsigned *given,
                     int (*run)(void *ctx, int argc, char **argv), void *ctx, int argc,
                     char **argv);

/* ---- checks before the run ----------------------------------------------- */

/* --warmup W of a chunked run: "auto" (and, with mser, "mser" and
 * "mser5"), or a number >= 0, whole when the run is counted in customers.
 * 0 with *fixed = 0 (auto), or *fixed = 1 and *w the number; else
 * QC_EXIT_USAGE after the message. */
int cli_warmup_parse(const char *s, int mser, int in_customers, int *fixed, double *w);

/* The bin width of replication 1's series over a run of `span` seconds:
 * *run_dt = 0 when no output wants a series (--series, --plot, --report),
 * else *dt, which when 0 (--series-dt not given) becomes span / 2000 (1
 * when span is not finite and > 0). Then the series of span / *run_dt
 * points of point_bytes must pass cli_check_series: 0 or QC_EXIT_USAGE. */
int cli_series_bins(const cli_outputs *o, double span, double *dt, double *run_dt,
                    size_t point_bytes);

#endif
