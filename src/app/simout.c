/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simout.c: the result pieces the sim commands share (app/simout.h): one
 * "run" object and one verdict on the intervals, so that every command's
 * summary has the same shape. */
#include "simout.h"

#include <math.h>
#include <stdio.h>

void qc_app_support_print(const qc_app_support *s)
{
    if (!s->short_run)
        return;
    printf("RUN TOO SHORT FOR ITS INTERVALS: %s; %s\n", s->why,
           s->allow_short ? "the intervals below are UNRELIABLE (--allow-short)"
                          : "no interval is printed (a longer run, more replications, or "
                            "--allow-short to see them marked unreliable)");
}

void qc_app_support_cell(const qc_app_support *s, double lo, double hi, char *buf, size_t n)
{
    if (s->short_run && !s->allow_short)
        snprintf(buf, n, "none: run too short");
    else
        snprintf(buf, n, "[%.6g, %.6g]%s", lo, hi, s->short_run ? " unreliable" : "");
}

void qc_app_support_json(const qc_app_support *s, json_t *ci)
{
    qc_result_ci_mark(s, ci);
}

json_t *qc_app_support_json_run(const qc_app_support *s)
{
    return qc_result_support_json(s);
}

json_t *qc_app_json_run(uint64_t customers, double horizon, unsigned reps, uint64_t seed,
                        double level, const char *ci_method)
{
    return qc_result_run_json(customers, horizon, reps, seed, level, ci_method);
}

void qc_app_json_run_done(json_t *root, json_t *run, uint64_t measured, uint64_t events,
                          double sim_time, double elapsed)
{
    qc_result_run_done(root, run, measured, events, sim_time, elapsed);
}

void qc_app_csv_num(FILE *fp, double x, const char *sep)
{
    if (isfinite(x))
        fprintf(fp, "%.10g", x);
    fputs(sep, fp);
}
