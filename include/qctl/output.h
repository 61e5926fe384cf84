/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/output.h: writing results: JSON summaries, CSV time series.
 *
 * Every file is written to a temporary name in the same directory and
 * renamed into place when complete, so an interrupted run never leaves a
 * half-written file where a finished one is expected. (Plots are drawn
 * by the qctl command, not the library.)
 *
 * Ownership: JSON values follow jansson's reference counting; functions
 * named *_new return a new reference. */
#ifndef QCTL_OUTPUT_H
#define QCTL_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "qctl/api.h"
#include "qctl/error.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

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

/* Opens path.tmp-PID for writing; path "-" is standard output (written
 * as it goes, nothing renamed). */
int qc_ofile_open(qc_ofile *f, const char *path, qc_err *err);
/* Flushes, closes and renames into place; on a write error removes the
 * temporary file and reports QC_EIO. Always releases f. */
int qc_ofile_commit(qc_ofile *f, qc_err *err);
/* Closes and removes the temporary file (error paths). */
void qc_ofile_abort(qc_ofile *f);

/* Makes directory dir (and its parents) if missing. */
int qc_mkdir_p(const char *dir, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
