/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/output.h: writing results: JSON summaries, CSV time series, plots.
 *
 * Every file is written to a temporary name in the same directory and
 * renamed into place when complete, so an interrupted run never leaves a
 * half-written file where a finished one is expected. Plots go through
 * gnuplot when it is installed (SVG, PNG and, with pdfcairo, PDF of the same
 * script, saved as DIR/NAME.gp with paths relative to DIR); when it is
 * not, qc_plot reports QC_ENOTSUP and the caller prints a one-line notice.
 *
 * Ownership: JSON values follow jansson's reference counting; functions
 * named *_new return a new reference. */
#ifndef QCTL_OUTPUT_H
#define QCTL_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "qctl/error.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A number, or JSON null when x is not finite (JSON has no NaN). */
json_t *qc_json_real_new(double x);

/* {"value": mean, "ci_low": lo, "ci_high": hi, "half_width": half,
 *  "level": level, "n": n} */
json_t *qc_json_ci_new(const qc_ci *ci);

/* Writes v (pretty, keys in insertion order, %.10g reals) to path, or to
 * stdout when path is NULL or "-". */
int qc_json_write(const json_t *v, const char *path, qc_err *err);

/* An output file being written under a temporary name. */
typedef struct qc_ofile {
    FILE *fp;
    char *path; /* final name */
    char *tmp;  /* name while writing */
} qc_ofile;

/* Opens path.tmp-PID for writing. */
int qc_ofile_open(qc_ofile *f, const char *path, qc_err *err);
/* Flushes, closes and renames into place; on a write error removes the
 * temporary file and reports QC_EIO. Always releases f. */
int qc_ofile_commit(qc_ofile *f, qc_err *err);
/* Closes and removes the temporary file (error paths). */
void qc_ofile_abort(qc_ofile *f);

/* Makes directory dir (and its parents) if missing. */
int qc_mkdir_p(const char *dir, qc_err *err);

/* 1 if gnuplot is on PATH, else 0. */
int qc_plot_available(void);

/* Runs the gnuplot commands `body` (which may refer to data files in dir
 * as 'DIR/file'; the saved script names them 'file') inside dir, writing
 * dir/name.svg, dir/name.png and, when gnuplot has the pdfcairo terminal,
 * dir/name.pdf; the script stays as dir/name.gp and reruns from dir. QC_ENOTSUP when gnuplot is
 * missing; QC_EIO when it fails (the message holds its exit status). */
int qc_plot(const char *dir, const char *name, const char *body, qc_err *err);

#ifdef __cplusplus
}
#endif
#endif
