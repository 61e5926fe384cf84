/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_cli.h: the --report DIR option every experiment command shares.
 *
 * A command checks DIR right after parsing its flags (cli_report_prepare:
 * a path that exists and is not a directory is bad usage, exit 2, before
 * any simulation runs), then after the run draws its plots into DIR with
 * the same code as its --plot option, builds the same summary as its
 * --json option and calls cli_report_write, which writes DIR/index.html
 * (qc_report_write) with the command line "qctl CMD ARGS...", and with
 * the run's story in sentences computed from the summary
 * (qc_report_story) where the command has one. */
#ifndef QCTL_REPORT_CLI_H
#define QCTL_REPORT_CLI_H

#include <jansson.h>
#include <stddef.h>

/* Makes DIR (and its parents). Returns 0, QC_EXIT_USAGE when DIR is an
 * existing non-directory, QC_EXIT_FAIL when it cannot be made; the message
 * is printed. */
int cli_report_prepare(const char *dir);

/* Writes DIR/index.html titled "qctl CMD" for the command's own argv
 * (argv[0] is the subcommand's name, as getopt saw it). When gnuplot is
 * missing prints a one-line notice (the page then holds tables and a note
 * per plot). Returns 0 or QC_EXIT_FAIL with the message printed. */
int cli_report_write(const char *dir, const char *cmd, int argc, char **argv,
                     const json_t *summary, const char *const *plots, size_t nplots);

/* As cli_report_write, with "What it shows" in the command's own words
 * (qc_report_write_story): findings, paragraphs separated by blank lines,
 * or NULL for the automatic list of estimates. */
int cli_report_write_story(const char *dir, const char *cmd, const char *findings, int argc,
                           char **argv, const json_t *summary, const char *const *plots,
                           size_t nplots);

#endif
