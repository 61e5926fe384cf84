/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/sched.h: piecewise-constant schedules of a value over time (a
 * reference or a MaxUsers input that changes at given times).
 *
 * Errors: 0 or a negative QC_E* code with a message quoting the text and
 * the column that is wrong. */
#ifndef QCTL_SCHED_H
#define QCTL_SCHED_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* A piecewise-constant schedule: value v from time t on (t increasing,
 * the first t is 0). */
typedef struct qc_sched_point {
    double t, v;
} qc_sched_point;

/* Parses "V" or "V@T,V@T,..." (e.g. "325@0,400@3600"). */
int qc_sched_parse(const char *s, qc_sched_point *pts, size_t max, size_t *n, qc_err *err);
double qc_sched_at(const qc_sched_point *pts, size_t n, double t);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
