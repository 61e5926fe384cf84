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
    if (!s->short_run)
        return;
    if (s->allow_short) {
        json_object_set_new(ci, "unreliable", json_true());
        return;
    }
    static const char *const ends[] = {"ci_low", "ci_high", "half_width"};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++)
        if (json_object_get(ci, ends[i]))
            json_object_set_new(ci, ends[i], json_null());
    json_object_set_new(ci, "reason", json_string("run too short to support an interval"));
}

json_t *qc_app_support_json_run(const qc_app_support *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "supported", json_boolean(!s->short_run));
    json_object_set_new(o, "reason", s->short_run ? json_string(s->why) : json_null());
    json_object_set_new(o, "allowed_short", json_boolean(s->allow_short));
    return o;
}

json_t *qc_app_json_run(uint64_t customers, double horizon, unsigned reps, uint64_t seed,
                        double level, const char *ci_method)
{
    json_t *run = json_object();
    if (customers)
        json_object_set_new(run, "customers", json_integer((json_int_t)customers));
    else
        json_object_set_new(run, "time", json_real(horizon));
    json_object_set_new(run, "reps", json_integer(reps));
    json_object_set_new(run, "seed", json_integer((json_int_t)seed));
    json_object_set_new(run, "confidence", json_real(level));
    json_object_set_new(run, "ci_method", json_string(ci_method));
    return run;
}

void qc_app_json_run_done(json_t *root, json_t *run, uint64_t measured, uint64_t events,
                          double sim_time, double elapsed)
{
    json_object_set_new(run, "measured_customers", json_integer((json_int_t)measured));
    json_object_set_new(run, "events", json_integer((json_int_t)events));
    json_object_set_new(run, "simulated_time", json_real(sim_time));
    json_object_set_new(run, "elapsed_seconds", json_real(elapsed));
    json_object_set_new(root, "run", run);
}

void qc_app_csv_num(FILE *fp, double x, const char *sep)
{
    if (isfinite(x))
        fprintf(fp, "%.10g", x);
    fputs(sep, fp);
}
