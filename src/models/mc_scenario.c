/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mc_scenario.c: the scenario of a multiclass admission run, from JSON
 * (qctl/multiclass.h). The whole document is checked before anything
 * runs: every field is known, of its type, and every spec parses, so a
 * typo is an error naming the class and field rather than a default
 * silently used. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/multiclass.h"

/* Field key of o: 0 with *v set when it is of type a or b (what: those
 * types in words); 1 when absent; QC_EPARSE naming it otherwise. */
static int get(const char *name, const char *where, json_t *o, const char *key, json_type a,
               json_type b, const char *what, json_t **v, qc_err *err)
{
    *v = json_object_get(o, key);
    if (*v == NULL)
        return 1;
    if (json_typeof(*v) != a && json_typeof(*v) != b)
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"%s\" must be %s", name, where, key, what);
    return 0;
}

/* A number field: *out set and 0; 1 when absent; QC_EPARSE when not a
 * finite number. */
static int get_num(const char *name, const char *where, json_t *o, const char *key, double *out,
                   qc_err *err)
{
    json_t *v;
    int rc = get(name, where, o, key, JSON_INTEGER, JSON_REAL, "a number", &v, err);
    if (rc != 0)
        return rc;
    *out = json_number_value(v);
    if (!isfinite(*out))
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"%s\" must be finite", name, where, key);
    return 0;
}

static int get_bool(const char *name, const char *where, json_t *o, const char *key, int *out,
                    qc_err *err)
{
    json_t *v;
    int rc = get(name, where, o, key, JSON_TRUE, JSON_FALSE, "true or false", &v, err);
    if (rc == 0)
        *out = json_is_true(v);
    return rc;
}

static int get_str(const char *name, const char *where, json_t *o, const char *key,
                   const char **out, qc_err *err)
{
    json_t *v;
    int rc = get(name, where, o, key, JSON_STRING, JSON_STRING, "a string", &v, err);
    if (rc == 0)
        *out = json_string_value(v);
    return rc;
}

/* QC_EPARSE naming the first key of o not in known[0..n). */
static int only_known(const char *name, const char *where, json_t *o, const char *const *known,
                      size_t n, qc_err *err)
{
    const char *key;
    json_t *val;
    json_object_foreach(o, key, val) {
        size_t i = 0;
        while (i < n && strcmp(key, known[i]) != 0)
            i++;
        if (i == n)
            return where ? qc_err_set(err, QC_EPARSE, "%s: %s: unknown field \"%s\"", name,
                                      where, key)
                         : qc_err_set(err, QC_EPARSE, "%s: unknown field \"%s\"", name, key);
    }
    return 0;
}

static int parse_class(qc_mc_scenario *s, const char *path, unsigned k, json_t *o, qc_err *err)
{
    char where[96];
    snprintf(where, sizeof where, "classes[%u]", k);
    if (!json_is_object(o))
        return qc_err_set(err, QC_EPARSE, "%s: %s: must be an object", path, where);
    static const char *const known[] = {"name", "arrival", "service", "bound", "start",
                                        "candidate", "admitted", "priority", "best_effort"};
    int rc = only_known(path, where, o, known, sizeof known / sizeof *known, err);
    if (rc < 0)
        return rc;
    qc_mc_run_class *c = &s->cls[k];
    memset(c, 0, sizeof *c);
    const char *name = NULL;
    if ((rc = get_str(path, where, o, "name", &name, err)) < 0)
        return rc;
    if (rc > 0)
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"name\" is missing", path, where);
    snprintf(where, sizeof where, "classes[%u] (%s)", k, name);
    for (unsigned j = 0; j < k; j++)
        if (strcmp(s->cls[j].c.name, name) == 0)
            return qc_err_set(err, QC_EPARSE, "%s: %s: the name is used twice", path, where);
    c->c.name = name;
    int be = 0, cand = 0, adm = 0;
    if ((rc = get_bool(path, where, o, "best_effort", &be, err)) < 0)
        return rc;
    c->c.best_effort = be;
    const char *spec[2] = {NULL, NULL};
    static const char *const which[2] = {"arrival", "service"};
    for (int i = 0; i < 2; i++) {
        if ((rc = get_str(path, where, o, which[i], &spec[i], err)) < 0)
            return rc;
        if (rc > 0)
            return qc_err_set(err, QC_EPARSE,
                              "%s: %s: \"%s\" is missing (a distribution spec such as exp:0.5)",
                              path, where, which[i]);
        qc_err e = {0};
        qc_dist *d = i == 0 ? &s->arr[k] : &s->svc[k];
        if (qc_dist_parse(d, spec[i], &e) != 0)
            return qc_err_set(err, QC_EPARSE, "%s: %s: %s: %s", path, where, which[i], e.msg);
    }
    s->arr_spec[k] = spec[0];
    s->svc_spec[k] = spec[1];
    c->c.arrival = &s->arr[k];
    c->c.service = &s->svc[k];
    if ((rc = get_num(path, where, o, "bound", &c->bound, err)) < 0)
        return rc;
    if (rc > 0 && !be)
        return qc_err_set(err, QC_EPARSE,
                          "%s: %s: \"bound\" is missing (the class's mean-delay bound; or set "
                          "\"best_effort\": true)",
                          path, where);
    if (rc == 0 && !be && !(c->bound > 0))
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"bound\" is %g; it must be > 0", path, where,
                          c->bound);
    c->c.start = 0;
    if ((rc = get_num(path, where, o, "start", &c->c.start, err)) < 0)
        return rc;
    if (!(c->c.start >= 0))
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"start\" is %g; it must be >= 0", path,
                          where, c->c.start);
    cand = c->c.start > 0;
    if ((rc = get_bool(path, where, o, "candidate", &cand, err)) < 0)
        return rc;
    if ((rc = get_bool(path, where, o, "admitted", &adm, err)) < 0)
        return rc;
    if (rc == 0) {
        if (json_object_get(o, "candidate") && adm == cand)
            return qc_err_set(err, QC_EPARSE, "%s: %s: \"candidate\" and \"admitted\" disagree",
                              path, where);
        cand = !adm;
    }
    c->candidate = be ? 0 : cand;
    if ((rc = get_num(path, where, o, "priority", &c->c.priority, err)) < 0)
        return rc;
    if (rc == 0 && !(c->c.priority > 0))
        return qc_err_set(err, QC_EPARSE, "%s: %s: \"priority\" is %g; it must be > 0", path,
                          where, c->c.priority);
    return 0;
}

/* The checks of a parsed document s->doc. */
static int scenario_check(qc_mc_scenario *s, const char *path, qc_err *err)
{
    json_t *root = s->doc;
    if (!json_is_object(root))
        return qc_err_set(err, QC_EPARSE, "%s: the scenario must be a JSON object with \"classes\"",
                          path);
    static const char *const known[] = {"classes", "time", "warmup", "window", "epsilon",
                                        "alpha", "discipline", "description"};
    int rc = only_known(path, NULL, root, known, sizeof known / sizeof *known, err);
    if (rc < 0)
        return rc;
    json_t *cl = json_object_get(root, "classes");
    if (cl == NULL)
        return qc_err_set(err, QC_EPARSE, "%s: \"classes\" is missing", path);
    if (!json_is_array(cl))
        return qc_err_set(err, QC_EPARSE, "%s: \"classes\" must be an array", path);
    size_t n = json_array_size(cl);
    if (n == 0)
        return qc_err_set(err, QC_EPARSE,
                          "%s: \"classes\" is empty: give at least one delay-bounded class", path);
    if (n > QC_MC_MAX_CLASSES)
        return qc_err_set(err, QC_EPARSE, "%s: %zu classes; at most %d", path, n,
                          QC_MC_MAX_CLASSES);
    s->n = (unsigned)n;
    for (unsigned k = 0; k < s->n; k++)
        if ((rc = parse_class(s, path, k, json_array_get(cl, k), err)) < 0)
            return rc;
    if ((rc = get_num(path, "scenario", root, "time", &s->time, err)) < 0 ||
        (rc = get_num(path, "scenario", root, "warmup", &s->warmup, err)) < 0 ||
        (rc = get_num(path, "scenario", root, "window", &s->window, err)) < 0 ||
        (rc = get_num(path, "scenario", root, "epsilon", &s->epsilon, err)) < 0 ||
        (rc = get_num(path, "scenario", root, "alpha", &s->alpha, err)) < 0 ||
        (rc = get_str(path, "scenario", root, "discipline", &s->discipline, err)) < 0)
        return rc;
    return 0;
}

static void scenario_init(qc_mc_scenario *s)
{
    memset(s, 0, sizeof *s);
    s->time = s->warmup = s->window = s->epsilon = s->alpha = NAN;
}

static int scenario_finish(qc_mc_scenario *s, json_t *doc, const json_error_t *e,
                           const char *name, qc_err *err)
{
    if (doc == NULL) {
        if (e->line < 0)
            return qc_err_set(err, QC_EPARSE, "%s: %s", name, e->text);
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", name, e->line, e->column, e->text);
    }
    s->doc = doc;
    int rc = scenario_check(s, name, err);
    if (rc < 0)
        qc_mc_scenario_free(s);
    return rc;
}

int qc_mc_scenario_load(qc_mc_scenario *s, const char *path, qc_err *err)
{
    scenario_init(s);
    json_error_t e;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
    return scenario_finish(s, doc, &e, path, err);
}

int qc_mc_scenario_parse(qc_mc_scenario *s, const char *text, const char *name, qc_err *err)
{
    scenario_init(s);
    json_error_t e;
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &e);
    return scenario_finish(s, doc, &e, name, err);
}

void qc_mc_scenario_free(qc_mc_scenario *s)
{
    for (unsigned k = 0; k < QC_MC_MAX_CLASSES; k++) {
        qc_dist_free(&s->arr[k]);
        qc_dist_free(&s->svc[k]);
    }
    json_decref(s->doc);
    s->doc = NULL;
    s->n = 0;
}

void qc_mc_scenario_apply(const qc_mc_scenario *s, qc_mc_run_params *p)
{
    p->nclass = s->n;
    p->cls = s->cls;
    /* The envoy limiter's clock: its intervals in units of the mean service. */
    double es = 0;
    for (unsigned k = 0; k < s->n; k++)
        es += qc_dist_mean(s->cls[k].c.service) / (double)s->n;
    p->envoy.sample_interval = 10 * es;
    p->envoy.min_rtt_interval = 2000 * es;
    /* The Netflix limiters' defaults assume a server with many threads; this
     * one serves one job at a time, so let the limit go down to 1. */
    p->g2.min_limit = 1;
    p->g2.initial_limit = 10;
    p->aimd.min_limit = 1;
    p->aimd.initial_limit = 10;
    p->aimd.timeout = 5 * es; /* AIMDLimit's 5 s, in units of the mean service */
}
