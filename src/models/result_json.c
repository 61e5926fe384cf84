/* SPDX-License-Identifier: GPL-3.0-or-later */
/* result_json.c: the pieces every result's JSON shares (qctl/results.h):
 * the run's verdict on its intervals, the "run" object of a chunked
 * simulation, and the text Python parses. One interval shape
 * (qc_json_ci_new) everywhere; a short run's intervals withheld or marked
 * here, once. */
#include "qctl/results.h"

#include <stdlib.h>

void qc_result_ci_mark(const qc_result_support *s, json_t *ci)
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

/* Bounded by depth: a result's document nests a few levels, never more
 * than 8. */
static void mark_all(const qc_result_support *s, json_t *o, int depth)
{
    if (depth > 8)
        return;
    if (json_is_object(o)) {
        if (json_object_get(o, "ci_low"))
            qc_result_ci_mark(s, o);
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v) mark_all(s, v, depth + 1);
    } else if (json_is_array(o)) {
        size_t i;
        json_t *v;
        json_array_foreach(o, i, v) mark_all(s, v, depth + 1);
    }
}

void qc_result_mark_all(const qc_result_support *s, json_t *doc)
{
    mark_all(s, doc, 0);
}

json_t *qc_result_support_json(const qc_result_support *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "supported", json_boolean(!s->short_run));
    json_object_set_new(o, "reason", s->short_run ? json_string(s->why) : json_null());
    json_object_set_new(o, "allowed_short", json_boolean(s->allow_short));
    return o;
}

json_t *qc_result_run_json(uint64_t customers, double horizon, unsigned reps, uint64_t seed,
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

void qc_result_run_done(json_t *root, json_t *run, uint64_t measured, uint64_t events,
                        double sim_time, double elapsed)
{
    json_object_set_new(run, "measured_customers", json_integer((json_int_t)measured));
    json_object_set_new(run, "events", json_integer((json_int_t)events));
    json_object_set_new(run, "simulated_time", json_real(sim_time));
    json_object_set_new(run, "elapsed_seconds", json_real(elapsed));
    json_object_set_new(root, "run", run);
}

char *qc_result_text(const json_t *doc)
{
    return json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
}

void qc_result_text_free(char *text)
{
    free(text);
}
