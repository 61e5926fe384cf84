/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cmdline.c: flag parsing, error reporting and progress for the subcommands. */
#include "cmdline.h"
#include "flags.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

void cli_log_line(int json, const char *program, const char *level, const char *line)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char t[40];
    size_t k = strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(t + k, sizeof t - k, ".%03ldZ", ts.tv_nsec / 1000000);
    if (json) {
        fprintf(stderr, "{\"time\":\"%s\",\"level\":\"%s\",\"program\":", t, level);
        json_str(stderr, program);
        fputs(",\"msg\":", stderr);
        json_str(stderr, line);
        fputs("}\n", stderr);
    } else {
        fprintf(stderr, "%s %s %s: %s\n", t, level, program, line);
    }
}

static char *capture;
static size_t capture_size;

void cli_error_capture(char *buf, size_t size)
{
    capture = size ? buf : NULL;
    capture_size = size;
    if (capture)
        capture[0] = 0;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    if (capture) {
        if (!capture[0]) {
            va_start(ap, fmt);
            vsnprintf(capture, capture_size, fmt, ap);
            va_end(ap);
        }
        return;
    }
    fputs("qctl: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int cli_exit_code(int code)
{
    switch (code) {
    case QC_EINVAL:
    case QC_EPARSE:
    case QC_ERANGE:
    case QC_EUNSTABLE:
        return QC_EXIT_USAGE;
    default:
        return QC_EXIT_FAIL;
    }
}

int cli_input_exit(int code)
{
    return code == QC_ENOMEM || code == QC_ENOLIB ? QC_EXIT_FAIL : QC_EXIT_USAGE;
}

int cli_double(const char *flag, const char *s, double *out)
{
    char *end;
    errno = 0;
    if (*s == '\0') {
        cli_error("%s: empty value", flag);
        return QC_EXIT_USAGE;
    }
    double x = strtod(s, &end);
    if (*end != '\0') {
        cli_error("%s: '%s' is not a number (bad character '%c' at column %d)", flag, s,
                  *end, (int)(end - s) + 1);
        return QC_EXIT_USAGE;
    }
    if (!isfinite(x) || errno == ERANGE) {
        cli_error("%s: '%s' is not a finite number", flag, s);
        return QC_EXIT_USAGE;
    }
    *out = x;
    return 0;
}

int cli_u64(const char *flag, const char *s, uint64_t *out)
{
    double x;
    if (cli_double(flag, s, &x) != 0)
        return QC_EXIT_USAGE;
    /* Accept 1e6 as well as 1000000, but only whole, non-negative values
     * that a double holds exactly. */
    if (x < 0 || x != floor(x) || x > 9007199254740992.0) {
        cli_error("%s: '%s' is not a whole number in [0, 2^53]", flag, s);
        return QC_EXIT_USAGE;
    }
    *out = (uint64_t)x;
    return 0;
}

int cli_word(const char *flag, int rc, const qc_err *err)
{
    if (rc == 0)
        return 0;
    cli_error("%s: %s", flag, err->msg);
    return QC_EXIT_USAGE;
}

int cli_uint(const char *flag, const char *s, unsigned *out)
{
    uint64_t x;
    if (cli_u64(flag, s, &x) != 0)
        return QC_EXIT_USAGE;
    if (x > 4294967295u) {
        cli_error("%s: '%s' is too large", flag, s);
        return QC_EXIT_USAGE;
    }
    *out = (unsigned)x;
    return 0;
}

int cli_jobs(const char *s, unsigned *out)
{
    unsigned j;
    if (cli_uint("--jobs", s, &j) != 0)
        return QC_EXIT_USAGE;
    if (j < 1 || j > 256) {
        cli_error("--jobs: %s is not a number of threads in [1, 256]", s);
        return QC_EXIT_USAGE;
    }
    *out = j;
    return 0;
}

unsigned cli_jobs_default(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}

int cli_bad_option(const char *cmd, const char *arg)
{
    if (cli_flag_reported) /* cli_getopt said what was wrong */
        return QC_EXIT_USAGE;
    cli_error("%s: unknown or incomplete option '%s' (see 'qctl %s --help')", cmd, arg, cmd);
    return QC_EXIT_USAGE;
}

/* Levenshtein distance of two short words, rows of at most 64 + 1 cells:
 * a longer word is "far" from everything (returns 99). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 64 || nb > 64)
        return 99;
    size_t row[65];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t sub = diag + (a[i - 1] != b[j - 1]);
            size_t del = up + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            diag = up;
        }
    }
    return row[nb];
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    /* close enough to be a typo: one edit in four letters, at least one */
    size_t len = strlen(word), limit = len / 4 > 0 ? len / 4 : 1;
    const char *best = NULL;
    size_t best_d = limit + 1;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, names[i]);
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

int cli_extra_operand(const char *cmd, const char *arg)
{
    cli_error("%s: unexpected argument '%s' (see 'qctl %s --help')", cmd, arg, cmd);
    return QC_EXIT_USAGE;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_init(cli_progress *p, const char *what, int quiet)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->enabled = !quiet && (cli_progress_forced || isatty(STDERR_FILENO));
    clock_gettime(CLOCK_MONOTONIC, &p->start);
}

double cli_elapsed(const cli_progress *p)
{
    return now_s() - ((double)p->start.tv_sec + 1e-9 * (double)p->start.tv_nsec);
}

void cli_progress_update(void *ctx, double fraction)
{
    cli_progress *p = ctx;
    if (!p->enabled)
        return;
    double el = cli_elapsed(p);
    if (el < 1.0 || el - p->last < 0.2)
        return;
    p->last = el;
    p->shown = 1;
    if (fraction > 0.001)
        fprintf(stderr, "\rqctl: %s %5.1f%%  %.0f s left   ", p->what, 100 * fraction,
                el * (1 - fraction) / fraction);
    else
        fprintf(stderr, "\rqctl: %s %5.1f%%   ", p->what, 100 * fraction);
    fflush(stderr);
}

void cli_progress_done(cli_progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = 0;
}
