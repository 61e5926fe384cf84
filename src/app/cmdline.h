/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmdline.h: what the qctl subcommands share: strict number parsing for flags,
 * the error and exit conventions, and the progress line.
 *
 * Exit codes: 0 success; 2 bad usage or bad input (the message names the
 * flag, file and line, or field); 1 a failure while running. Messages go to
 * stderr as "qctl: ...". */
#ifndef QCTL_APP_CMDLINE_H
#define QCTL_APP_CMDLINE_H

#include <stdint.h>
#include <time.h>

#include <jansson.h>

#include "plot.h"
#include "qctl/error.h"

enum { QC_EXIT_OK = 0, QC_EXIT_FAIL = 1, QC_EXIT_USAGE = 2 };

/* Prints "qctl: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* While buf is not NULL, cli_error writes its first message (without the
 * "qctl: " prefix) into buf[0..size) instead of standard error: a
 * configuration read again by a running server (a reload) is refused
 * with its message, which the server reports. NULL: standard error. */
void cli_error_capture(char *buf, size_t size);

/* A running server's event line on standard error, with the time (UTC,
 * milliseconds) and its level ("info", "warn" or "error": the one its
 * writer gave it, see src/live/evlog.h). json 0: `TIME LEVEL PROGRAM: LINE`; 1: one JSON object
 * {"time", "level", "program", "msg"} a line. */
void cli_log_line(int json, const char *program, const char *level, const char *line);

/* Exit code for a library error: 2 for bad input, 1 otherwise. */
int cli_exit_code(int qc_code);
/* The exit code of a failure to read an input (a capture, a model, a
 * scenario): QC_EXIT_USAGE, the input's fault, unless memory or a library
 * was missing (QC_ENOMEM, QC_ENOLIB: QC_EXIT_FAIL). */
int cli_input_exit(int code);

/* Strict parsers for a flag's argument: the whole string must be the
 * number. On error they print which flag, the value and the first bad
 * character, and return QC_EXIT_USAGE; else 0. */
int cli_double(const char *flag, const char *s, double *out);
int cli_u64(const char *flag, const char *s, uint64_t *out);
int cli_uint(const char *flag, const char *s, unsigned *out);

/* A flag's word after the enum's qc_X_parse returned rc into err: 0, or
 * "qctl: <flag>: 'x' is not a, b or c" and QC_EXIT_USAGE. As in
 *     rc = cli_word("--discipline", qc_discipline_parse(optarg, &d, &e), &e); */
int cli_word(const char *flag, int rc, const qc_err *err);

/* -j N, --jobs N of the sim commands: replications run at once, 1 to 256
 * (the results do not depend on it). cli_jobs_default: the online cores. */
int cli_jobs(const char *s, unsigned *out);
unsigned cli_jobs_default(void);

/* Reports an unknown or malformed option from getopt for `cmd`. */
int cli_bad_option(const char *cmd, const char *arg);
/* The one of names[0..n) a mistyped word most likely meant (at most one
 * edit in four letters), or NULL: the "did you mean" of unknown words. */
const char *cli_nearest(const char *word, const char *const *names, size_t n);

/* Reports an operand that `cmd` does not take; returns QC_EXIT_USAGE. */
int cli_extra_operand(const char *cmd, const char *arg);

/* The progress line on stderr: shown only when stderr is a terminal, the
 * run has lasted more than a second, and quiet is off. */
typedef struct cli_progress {
    int enabled;
    int shown;
    const char *what;
    struct timespec start;
    double last;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *what, int quiet);
void cli_progress_update(void *ctx, double fraction);
void cli_progress_done(cli_progress *p);
double cli_elapsed(const cli_progress *p);

#endif
