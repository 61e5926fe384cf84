/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sched.c: piecewise-constant schedules (see qctl/sched.h). */
#include "qctl/sched.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int qc_sched_parse(const char *s, qc_sched_point *pts, size_t max, size_t *n, qc_err *err)
{
    size_t k = 0;
    const char *p = s;
    if (*p == '\0')
        return qc_err_set(err, QC_EPARSE, "\"%s\": empty schedule", s);
    while (*p) {
        if (k == max)
            return qc_err_set(err, QC_ERANGE, "\"%s\": more than %zu points", s, max);
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || !isfinite(v))
            return qc_err_set(err, QC_EPARSE, "\"%s\": bad value at column %d", s,
                              (int)(p - s) + 1);
        double t = 0;
        p = end;
        if (*p == '@') {
            const char *q = p + 1;
            t = strtod(q, &end);
            if (end == q || !isfinite(t) || t < 0)
                return qc_err_set(err, QC_EPARSE, "\"%s\": bad time at column %d", s,
                                  (int)(q - s) + 1);
            p = end;
        } else if (k > 0) {
            return qc_err_set(err, QC_EPARSE, "\"%s\": point %zu needs a time (V@T)", s, k + 1);
        }
        if (k == 0 && t != 0)
            return qc_err_set(err, QC_EPARSE, "\"%s\": the first point must be at time 0", s);
        if (k > 0 && !(t > pts[k - 1].t))
            return qc_err_set(err, QC_EPARSE, "\"%s\": times must increase (point %zu)", s,
                              k + 1);
        pts[k++] = (qc_sched_point){t, v};
        if (*p == ',')
            p++;
        else if (*p != '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": unexpected '%c' at column %d", s, *p,
                              (int)(p - s) + 1);
        else
            break;
        if (*p == '\0')
            return qc_err_set(err, QC_EPARSE, "\"%s\": trailing comma", s);
    }
    *n = k;
    return 0;
}

double qc_sched_at(const qc_sched_point *pts, size_t n, double t)
{
    double v = n ? pts[0].v : NAN;
    for (size_t i = 1; i < n && pts[i].t <= t; i++)
        v = pts[i].v;
    return v;
}
