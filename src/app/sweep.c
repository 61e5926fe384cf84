/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep.c: sweep files, grids, seeds, aggregation and results (sweep.h).
 *
 * The invariant everything rests on: a point is identified by its
 * parameters' value texts. The texts are fixed once, when the grid is
 * expanded; the command line, the seed, the journal key and the CSV are all
 * made from them, so two runs of the same definition agree on every byte
 * whatever order, parallelism or interruption came between them. */
#include "app/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/output.h"
#include "qctl/stats.h"

typedef struct sw_value {
    char *text;
    double x; /* NAN for a string */
    int is_num;
} sw_value;

typedef struct sw_param {
    char *name;
    sw_value *v;
    size_t n;
    int templated; /* used by a "{name}" template: not passed as --name */
} sw_param;

typedef struct sw_metric {
    char *name;
    char *path;
} sw_metric;

struct qc_sweep {
    char *experiment;
    json_t *args; /* the "args" object, validated */
    sw_param *params;
    size_t nparams;
    sw_metric *metrics;
    size_t nmetrics;
    unsigned reps;
    uint64_t seed;
    double confidence;
    size_t npoints;
    char hash[17];
};

/* ---- small helpers ---- */

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

static uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as x. */
static void fmt_exact(char *buf, size_t n, double x)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

/* A number as a value text: integers without a point, -0 as 0. */
static void fmt_number(char *buf, size_t n, double x, int round12)
{
    if (x == 0.0)
        x = 0.0;
    if (round12)
        snprintf(buf, n, "%.12g", x);
    else
        fmt_exact(buf, n, x);
}

static int valid_name(const char *s)
{
    if (*s == '\0')
        return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_'))
            return 0;
    return 1;
}

/* ---- parameters ---- */

static int push_value(sw_param *p, size_t cap, const char *text, int is_num)
{
    if (p->n >= cap)
        return QC_ERANGE;
    sw_value *v = &p->v[p->n];
    v->text = dupstr(text);
    if (v->text == NULL)
        return QC_ENOMEM;
    v->is_num = is_num;
    v->x = is_num ? strtod(text, NULL) : NAN;
    p->n++;
    return 0;
}

static int get_real(const json_t *o, const char *key, const char *path, double *x, int *present,
                    qc_err *err)
{
    const json_t *v = json_object_get(o, key);
    *present = v != NULL;
    if (v == NULL)
        return 0;
    if (!json_is_number(v))
        return qc_err_set(err, QC_EINVAL, "%s.%s: a number is expected", path, key);
    *x = json_number_value(v);
    if (!isfinite(*x))
        return qc_err_set(err, QC_EINVAL, "%s.%s: not a finite number", path, key);
    return 0;
}

static int expand_list(sw_param *p, const json_t *a, const char *path, qc_err *err)
{
    size_t n = json_array_size(a);
    if (n == 0)
        return qc_err_set(err, QC_EINVAL, "%s: an empty list of values", path);
    p->v = calloc(n, sizeof *p->v);
    if (p->v == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(a, i);
        char buf[64];
        int rc;
        if (json_is_integer(e)) {
            snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(e));
            rc = push_value(p, n, buf, 1);
        } else if (json_is_real(e)) {
            fmt_number(buf, sizeof buf, json_real_value(e), 0);
            rc = push_value(p, n, buf, 1);
        } else if (json_is_string(e)) {
            if (json_string_length(e) == 0 || strlen(json_string_value(e)) != json_string_length(e))
                return qc_err_set(err, QC_EINVAL, "%s[%zu]: an empty string or one with NUL",
                                  path, i);
            rc = push_value(p, n, json_string_value(e), 0);
        } else {
            return qc_err_set(err, QC_EINVAL, "%s[%zu]: a number or a string is expected", path,
                              i);
        }
        if (rc != 0)
            return qc_err_set(err, rc, "out of memory");
    }
    return 0;
}

static int expand_range(sw_param *p, const json_t *o, const char *path, qc_err *err)
{
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)o, key, val) {
        if (strcmp(key, "from") != 0 && strcmp(key, "to") != 0 && strcmp(key, "step") != 0 &&
            strcmp(key, "points") != 0 && strcmp(key, "log") != 0)
            return qc_err_set(err, QC_EINVAL,
                              "%s.%s: unknown field (from, to, step, points, log)", path, key);
    }
    double from = 0, to = 0, step = 0, points = 0;
    int has_from, has_to, has_step, has_points;
    int rc;
    if ((rc = get_real(o, "from", path, &from, &has_from, err)) != 0 ||
        (rc = get_real(o, "to", path, &to, &has_to, err)) != 0 ||
        (rc = get_real(o, "step", path, &step, &has_step, err)) != 0 ||
        (rc = get_real(o, "points", path, &points, &has_points, err)) != 0)
        return rc;
    const json_t *logv = json_object_get(o, "log");
    if (logv != NULL && !json_is_boolean(logv))
        return qc_err_set(err, QC_EINVAL, "%s.log: true or false is expected", path);
    const int log = logv != NULL && json_is_true(logv);
    if (!has_from)
        return qc_err_set(err, QC_EINVAL, "%s.from: missing", path);
    if (!has_to)
        return qc_err_set(err, QC_EINVAL, "%s.to: missing", path);
    if (has_step == has_points)
        return qc_err_set(err, QC_EINVAL, "%s: give either step or points", path);
    if (log && !has_points)
        return qc_err_set(err, QC_EINVAL, "%s: a log range takes points, not step", path);
    size_t n;
    if (has_step) {
        if (step == 0)
            return qc_err_set(err, QC_EINVAL, "%s.step: 0 (the range would never end)", path);
        const double span = (to - from) / step;
        if (span < 0)
            return qc_err_set(err, QC_EINVAL,
                              "%s: empty range (from %g does not reach to %g with step %g)", path,
                              from, to, step);
        /* A relative tolerance makes 0.5..0.95 step 0.05 ten points,
         * although (0.95 - 0.5) / 0.05 is 8.999999999999998. */
        const double k = floor(span + 1e-9 * fmax(1.0, span));
        if (k + 1 > QC_SWEEP_MAX_POINTS)
            return qc_err_set(err, QC_ERANGE, "%s: more than %u values", path,
                              QC_SWEEP_MAX_POINTS);
        n = (size_t)k + 1;
    } else {
        if (points < 1 || points != floor(points))
            return qc_err_set(err, QC_EINVAL, "%s.points: a whole number >= 1 is expected",
                              path);
        if (points > QC_SWEEP_MAX_POINTS)
            return qc_err_set(err, QC_ERANGE, "%s.points: more than %u values", path,
                              QC_SWEEP_MAX_POINTS);
        n = (size_t)points;
        if (log && !(from > 0 && to > 0))
            return qc_err_set(err, QC_EINVAL, "%s: a log range needs from > 0 and to > 0",
                              path);
    }
    p->v = calloc(n, sizeof *p->v);
    if (p->v == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        double x;
        if (has_step)
            x = from + (double)i * step;
        else if (n == 1)
            x = from;
        else if (i == n - 1)
            x = to;
        else if (log)
            x = from * pow(to / from, (double)i / (double)(n - 1));
        else
            x = from + (to - from) * (double)i / (double)(n - 1);
        char buf[64];
        fmt_number(buf, sizeof buf, x, 1);
        if (push_value(p, n, buf, 1) != 0)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    return 0;
}

/* ---- templates ---- */

/* Calls fn for each "{name}" in s; a brace not opening a template is text. */
static const char *template_at(const char *s, size_t *len)
{
    if (*s != '{')
        return NULL;
    size_t n = 1;
    while (isalnum((unsigned char)s[n]) || s[n] == '-' || s[n] == '_')
        n++;
    if (n == 1 || s[n] != '}')
        return NULL;
    *len = n + 1;
    return s + 1;
}

static sw_param *find_param(const qc_sweep *s, const char *name, size_t len)
{
    for (size_t k = 0; k < s->nparams; k++)
        if (strlen(s->params[k].name) == len && memcmp(s->params[k].name, name, len) == 0)
            return &s->params[k];
    return NULL;
}

static int mark_templates(qc_sweep *s, const char *str, const char *path, qc_err *err)
{
    for (const char *c = str; *c; c++) {
        size_t len;
        const char *name = template_at(c, &len);
        if (name == NULL)
            continue;
        sw_param *p = find_param(s, name, len - 2);
        if (p == NULL)
            return qc_err_set(err, QC_EINVAL, "%s: template {%.*s} names no parameter", path,
                              (int)(len - 2), name);
        p->templated = 1;
        c += len - 1;
    }
    return 0;
}

/* ---- parsing ---- */

static int check_experiment(const char *e, qc_err *err)
{
    char w1[32], w2[32], extra[2];
    int n = sscanf(e, "%31s %31s %1s", w1, w2, extra);
    if (n == 1 && (strcmp(w1, "design") == 0 || strcmp(w1, "sysid") == 0))
        return 0;
    if (n == 2 && (strcmp(w1, "sim") == 0 || strcmp(w1, "mdp") == 0) && valid_name(w2))
        return 0;
    return qc_err_set(err, QC_EINVAL,
                      "experiment: '%s' is not a sweepable command ('sim MODEL', 'mdp MODEL', "
                      "'design' or 'sysid')",
                      e);
}

static int apply_set(json_t *root, const char *set, qc_err *err)
{
    const char *eq = strchr(set, '=');
    if (eq == NULL || eq == set)
        return qc_err_set(err, QC_EINVAL, "--set '%s': PATH=JSON is expected", set);
    char *path = malloc((size_t)(eq - set) + 1);
    if (path == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    memcpy(path, set, (size_t)(eq - set));
    path[eq - set] = '\0';
    json_error_t je;
    json_t *v = json_loads(eq + 1, JSON_DECODE_ANY, &je);
    if (v == NULL) {
        qc_err_set(err, QC_EPARSE,
                   "--set %s: '%s' is not JSON (column %d: %s; a string needs quotes: "
                   "'%s=\"...\"')",
                   path, eq + 1, je.column, je.text, path);
        free(path);
        return QC_EPARSE;
    }
    json_t *o = root;
    char *seg = path;
    int rc = 0;
    for (;;) {
        char *dot = strchr(seg, '.');
        if (dot != NULL)
            *dot = '\0';
        if (*seg == '\0') {
            rc = qc_err_set(err, QC_EINVAL, "--set: empty key in '%s'", set);
            break;
        }
        if (dot == NULL) {
            json_object_set(o, seg, v);
            break;
        }
        json_t *next = json_object_get(o, seg);
        if (next == NULL) {
            next = json_object();
            json_object_set_new(o, seg, next);
        } else if (!json_is_object(next)) {
            rc = qc_err_set(err, QC_EINVAL, "--set %.*s: '%s' is not an object",
                            (int)(eq - set), set, seg);
            break;
        }
        o = next;
        seg = dot + 1;
    }
    json_decref(v);
    free(path);
    return rc;
}

static int parse_uint_field(const json_t *root, const char *key, uint64_t max, uint64_t *out,
                            qc_err *err)
{
    const json_t *v = json_object_get(root, key);
    if (v == NULL)
        return 0;
    double x = json_is_number(v) ? json_number_value(v) : -1;
    if (!json_is_number(v) || x < 0 || x != floor(x) || x > (double)max)
        return qc_err_set(err, QC_EINVAL, "%s: a whole number in [0, %llu] is expected", key,
                          (unsigned long long)max);
    *out = (uint64_t)x;
    return 0;
}

static int check_arg_value(const json_t *v, const char *path, qc_err *err)
{
    if (json_is_string(v) || json_is_number(v) || json_is_boolean(v) || json_is_null(v))
        return 0;
    if (json_is_array(v)) {
        size_t i;
        const json_t *e;
        json_array_foreach(v, i, e) {
            if (!(json_is_string(e) || json_is_number(e)))
                return qc_err_set(err, QC_EINVAL, "%s[%zu]: a number or a string is expected",
                                  path, i);
        }
        return 0;
    }
    return qc_err_set(err, QC_EINVAL, "%s: a string, number, boolean or list is expected", path);
}

static int parse_def(qc_sweep *s, json_t *root, qc_err *err)
{
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        static const char *const known[] = {"experiment", "description", "args", "params",
                                            "reps",       "seed",        "metrics", "confidence"};
        size_t i;
        for (i = 0; i < sizeof known / sizeof known[0]; i++)
            if (strcmp(key, known[i]) == 0)
                break;
        if (i == sizeof known / sizeof known[0])
            return qc_err_set(err, QC_EINVAL,
                              "%s: unknown field (experiment, description, args, params, reps, "
                              "seed, metrics, confidence)",
                              key);
    }
    const json_t *e = json_object_get(root, "experiment");
    if (e == NULL)
        return qc_err_set(err, QC_EINVAL, "experiment: missing (e.g. \"sim pool\")");
    if (!json_is_string(e))
        return qc_err_set(err, QC_EINVAL, "experiment: a string is expected");
    int rc = check_experiment(json_string_value(e), err);
    if (rc != 0)
        return rc;
    /* Normalize the spacing: "sim  pool" and "sim pool" are one sweep. */
    char w1[32] = "", w2[32] = "";
    sscanf(json_string_value(e), "%31s %31s", w1, w2);
    size_t elen = strlen(w1) + strlen(w2) + 2;
    s->experiment = malloc(elen);
    if (s->experiment == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    snprintf(s->experiment, elen, "%s%s%s", w1, w2[0] ? " " : "", w2);

    const json_t *d = json_object_get(root, "description");
    if (d != NULL && !json_is_string(d))
        return qc_err_set(err, QC_EINVAL, "description: a string is expected");

    uint64_t reps = 1, seed = 1;
    if ((rc = parse_uint_field(root, "reps", 1000000, &reps, err)) != 0)
        return rc;
    if (reps < 1)
        return qc_err_set(err, QC_EINVAL, "reps: at least 1");
    if ((rc = parse_uint_field(root, "seed", 9007199254740992ull, &seed, err)) != 0)
        return rc;
    s->reps = (unsigned)reps;
    s->seed = seed;
    s->confidence = 0.95;
    const json_t *c = json_object_get(root, "confidence");
    if (c != NULL) {
        if (!json_is_number(c) || !(json_number_value(c) > 0 && json_number_value(c) < 1))
            return qc_err_set(err, QC_EINVAL, "confidence: a number in (0, 1) is expected");
        s->confidence = json_number_value(c);
    }

    /* Parameters, in the order written. */
    const json_t *params = json_object_get(root, "params");
    if (params != NULL && !json_is_object(params))
        return qc_err_set(err, QC_EINVAL, "params: an object {name: values} is expected");
    s->nparams = 0;
    s->params = calloc(json_object_size(params) + 1, sizeof *s->params);
    if (s->params == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    s->npoints = 1;
    json_object_foreach((json_t *)params, key, val) {
        char path[300];
        snprintf(path, sizeof path, "params.%s", key);
        if (!valid_name(key))
            return qc_err_set(err, QC_EINVAL, "%s: a parameter name is letters, digits, - and _",
                              path);
        if (strcmp(key, "seed") == 0 || strcmp(key, "json") == 0)
            return qc_err_set(err, QC_EINVAL, "%s: the sweep sets --%s of each run itself", path,
                              key);
        sw_param *p = &s->params[s->nparams++];
        p->name = dupstr(key);
        if (p->name == NULL)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
        if (json_is_array(val))
            rc = expand_list(p, val, path, err);
        else if (json_is_object(val))
            rc = expand_range(p, val, path, err);
        else
            rc = qc_err_set(err, QC_EINVAL,
                            "%s: a list of values or a range {from, to, step|points} is expected",
                            path);
        if (rc != 0)
            return rc;
        if (p->n > QC_SWEEP_MAX_POINTS / s->npoints)
            return qc_err_set(err, QC_ERANGE, "params: the grid has more than %u points",
                              QC_SWEEP_MAX_POINTS);
        s->npoints *= p->n;
    }

    /* Fixed flags; their templates mark the parameters they use. */
    json_t *args = json_object_get(root, "args");
    if (args != NULL && !json_is_object(args))
        return qc_err_set(err, QC_EINVAL, "args: an object {flag: value} is expected");
    s->args = args != NULL ? json_deep_copy(args) : json_object();
    if (s->args == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    json_object_foreach(s->args, key, val) {
        char path[300];
        snprintf(path, sizeof path, "args.%s", key);
        if (!valid_name(key))
            return qc_err_set(err, QC_EINVAL, "%s: a flag name is letters, digits, - and _", path);
        if (strcmp(key, "seed") == 0 || strcmp(key, "json") == 0)
            return qc_err_set(err, QC_EINVAL, "%s: the sweep sets --%s of each run itself", path,
                              key);
        if (find_param(s, key, strlen(key)) != NULL)
            return qc_err_set(err, QC_EINVAL, "%s: also a parameter (params.%s)", path, key);
        if ((rc = check_arg_value(val, path, err)) != 0)
            return rc;
        if (json_is_string(val) && (rc = mark_templates(s, json_string_value(val), path, err)) != 0)
            return rc;
        if (json_is_array(val)) {
            size_t i;
            const json_t *el;
            json_array_foreach(val, i, el) {
                if (json_is_string(el) &&
                    (rc = mark_templates(s, json_string_value(el), path, err)) != 0)
                    return rc;
            }
        }
    }

    const json_t *metrics = json_object_get(root, "metrics");
    if (metrics == NULL || !json_is_object(metrics) || json_object_size(metrics) == 0)
        return qc_err_set(err, QC_EINVAL,
                          "metrics: an object {name: \"path.in.the.json.output\"} is expected");
    s->metrics = calloc(json_object_size(metrics), sizeof *s->metrics);
    if (s->metrics == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    json_object_foreach((json_t *)metrics, key, val) {
        if (!valid_name(key))
            return qc_err_set(err, QC_EINVAL, "metrics.%s: a metric name is letters, digits, - and _",
                              key);
        if (find_param(s, key, strlen(key)) != NULL || strcmp(key, "reps") == 0 ||
            strcmp(key, "error") == 0)
            return qc_err_set(err, QC_EINVAL, "metrics.%s: the name is taken (a parameter, reps "
                                              "or error)", key);
        if (!json_is_string(val) || json_string_length(val) == 0)
            return qc_err_set(err, QC_EINVAL, "metrics.%s: a path such as \"metrics.cost\" is "
                                              "expected", key);
        sw_metric *m = &s->metrics[s->nmetrics++];
        m->name = dupstr(key);
        m->path = dupstr(json_string_value(val));
        if (m->name == NULL || m->path == NULL)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    return 0;
}

/* The hash covers what a point's results depend on: the expanded grid (as
 * texts), the flags, the replications, the seed, the metrics and the level. */
static int compute_hash(qc_sweep *s)
{
    json_t *d = json_object();
    json_t *ps = json_array();
    json_t *ms = json_array();
    if (d == NULL || ps == NULL || ms == NULL) {
        json_decref(d), json_decref(ps), json_decref(ms);
        return QC_ENOMEM;
    }
    json_object_set_new(d, "experiment", json_string(s->experiment));
    json_object_set(d, "args", s->args);
    for (size_t k = 0; k < s->nparams; k++) {
        json_t *vals = json_array();
        for (size_t i = 0; i < s->params[k].n; i++)
            json_array_append_new(vals, json_string(s->params[k].v[i].text));
        json_array_append_new(ps, json_pack("[so]", s->params[k].name, vals));
    }
    json_object_set_new(d, "params", ps);
    for (size_t m = 0; m < s->nmetrics; m++)
        json_array_append_new(ms, json_pack("[ss]", s->metrics[m].name, s->metrics[m].path));
    json_object_set_new(d, "metrics", ms);
    json_object_set_new(d, "reps", json_integer(s->reps));
    json_object_set_new(d, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(d, "confidence", json_real(s->confidence));
    char *txt = json_dumps(d, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(d);
    if (txt == NULL)
        return QC_ENOMEM;
    snprintf(s->hash, sizeof s->hash, "%016llx", (unsigned long long)fnv1a(txt, strlen(txt)));
    free(txt);
    return 0;
}

int qc_sweep_parse(qc_sweep **out, const char *text, size_t len, const char *name,
                   const char *const *sets, size_t nsets, qc_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL)
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", name, je.line, je.column, je.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return qc_err_set(err, QC_EINVAL, "%s: the sweep is a JSON object", name);
    }
    qc_sweep *s = calloc(1, sizeof *s);
    if (s == NULL) {
        json_decref(root);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < nsets && rc == 0; i++)
        rc = apply_set(root, sets[i], err);
    if (rc == 0) {
        rc = parse_def(s, root, err);
        if (rc != 0 && rc != QC_ENOMEM)
            qc_err_prefix(err, "%s", name);
    }
    if (rc == 0 && compute_hash(s) != 0)
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
    json_decref(root);
    if (rc != 0) {
        qc_sweep_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

void qc_sweep_free(qc_sweep *s)
{
    if (s == NULL)
        return;
    for (size_t k = 0; k < s->nparams; k++) {
        for (size_t i = 0; i < s->params[k].n; i++)
            free(s->params[k].v[i].text);
        free(s->params[k].v);
        free(s->params[k].name);
    }
    free(s->params);
    for (size_t m = 0; m < s->nmetrics; m++) {
        free(s->metrics[m].name);
        free(s->metrics[m].path);
    }
    free(s->metrics);
    json_decref(s->args);
    free(s->experiment);
    free(s);
}

/* ---- accessors ---- */

const char *qc_sweep_experiment(const qc_sweep *s) { return s->experiment; }
size_t qc_sweep_npoints(const qc_sweep *s) { return s->npoints; }
unsigned qc_sweep_reps(const qc_sweep *s) { return s->reps; }
double qc_sweep_confidence(const qc_sweep *s) { return s->confidence; }
const char *qc_sweep_hash(const qc_sweep *s) { return s->hash; }
size_t qc_sweep_nparams(const qc_sweep *s) { return s->nparams; }
const char *qc_sweep_param_name(const qc_sweep *s, size_t k) { return s->params[k].name; }
size_t qc_sweep_param_nvalues(const qc_sweep *s, size_t k) { return s->params[k].n; }
const char *qc_sweep_param_text(const qc_sweep *s, size_t k, size_t i)
{
    return s->params[k].v[i].text;
}
int qc_sweep_param_is_number(const qc_sweep *s, size_t k, size_t i)
{
    return s->params[k].v[i].is_num;
}
double qc_sweep_param_value(const qc_sweep *s, size_t k, size_t i) { return s->params[k].v[i].x; }
size_t qc_sweep_nmetrics(const qc_sweep *s) { return s->nmetrics; }
const char *qc_sweep_metric_name(const qc_sweep *s, size_t m) { return s->metrics[m].name; }
const char *qc_sweep_metric_path(const qc_sweep *s, size_t m) { return s->metrics[m].path; }

size_t qc_sweep_point_index(const qc_sweep *s, size_t point, size_t k)
{
    /* The last parameter varies fastest. */
    for (size_t j = s->nparams; j-- > k + 1;)
        point /= s->params[j].n;
    return point % s->params[k].n;
}

char *qc_sweep_point_key(const qc_sweep *s, size_t point)
{
    size_t len = 1;
    for (size_t k = 0; k < s->nparams; k++)
        len += strlen(s->params[k].name) + 2 +
               strlen(s->params[k].v[qc_sweep_point_index(s, point, k)].text);
    char *key = malloc(len);
    if (key == NULL)
        return NULL;
    size_t at = 0;
    key[0] = '\0';
    for (size_t k = 0; k < s->nparams; k++)
        at += (size_t)snprintf(key + at, len - at, "%s%s=%s", k ? " " : "", s->params[k].name,
                               s->params[k].v[qc_sweep_point_index(s, point, k)].text);
    return key;
}

uint64_t qc_sweep_seed(const qc_sweep *s, size_t point, unsigned rep)
{
    uint64_t h = splitmix64(s->seed);
    for (size_t k = 0; k < s->nparams; k++) {
        const char *name = s->params[k].name;
        const char *text = s->params[k].v[qc_sweep_point_index(s, point, k)].text;
        h = splitmix64(h ^ fnv1a(name, strlen(name)));
        h = splitmix64(h ^ fnv1a(text, strlen(text)));
    }
    h = splitmix64(h ^ (uint64_t)rep);
    return h >> 11;
}

/* ---- command lines ---- */

typedef struct sw_argv {
    char **v;
    size_t n, cap;
} sw_argv;

static int argv_push(sw_argv *a, char *s)
{
    if (s == NULL)
        return QC_ENOMEM;
    if (a->n + 2 > a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 16;
        char **v = realloc(a->v, cap * sizeof *v);
        if (v == NULL) {
            free(s);
            return QC_ENOMEM;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = s;
    a->v[a->n] = NULL;
    return 0;
}

static char *flag_text(const char *name)
{
    size_t n = strlen(name) + 3;
    char *f = malloc(n);
    if (f != NULL)
        snprintf(f, n, "--%s", name);
    return f;
}

/* A string with its templates replaced by the point's value texts. */
static char *substitute(const qc_sweep *s, size_t point, const char *str)
{
    size_t cap = strlen(str) + 1, n = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    for (const char *c = str; *c;) {
        size_t len;
        const char *name = template_at(c, &len);
        const char *rep = NULL;
        size_t rlen = 1;
        if (name != NULL) {
            const sw_param *p = find_param(s, name, len - 2);
            if (p != NULL) {
                rep = p->v[qc_sweep_point_index(s, point, (size_t)(p - s->params))].text;
                rlen = strlen(rep);
            }
        }
        if (rep == NULL)
            len = 1;
        if (n + rlen + 1 > cap) {
            cap = 2 * (n + rlen + 1);
            char *o = realloc(out, cap);
            if (o == NULL) {
                free(out);
                return NULL;
            }
            out = o;
        }
        memcpy(out + n, rep != NULL ? rep : c, rlen);
        n += rlen;
        c += len;
    }
    out[n] = '\0';
    return out;
}

static char *value_text(const qc_sweep *s, size_t point, const json_t *v)
{
    char buf[64];
    if (json_is_string(v))
        return substitute(s, point, json_string_value(v));
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return dupstr(buf);
    }
    fmt_number(buf, sizeof buf, json_number_value(v), 0);
    return dupstr(buf);
}

int qc_sweep_argv(const qc_sweep *s, size_t point, unsigned rep, char ***argv, size_t *argc,
                  qc_err *err)
{
    sw_argv a = {0};
    int rc = 0;
    char w1[32] = "", w2[32] = "";
    sscanf(s->experiment, "%31s %31s", w1, w2);
    rc = argv_push(&a, dupstr(w1));
    if (rc == 0 && w2[0])
        rc = argv_push(&a, dupstr(w2));
    const char *key;
    const json_t *val;
    json_object_foreach(s->args, key, val) {
        if (rc != 0)
            break;
        if (json_is_null(val) || json_is_false(val))
            continue;
        if (json_is_true(val)) {
            rc = argv_push(&a, flag_text(key));
        } else if (json_is_array(val)) {
            size_t i;
            const json_t *e;
            json_array_foreach(val, i, e) {
                if (rc == 0)
                    rc = argv_push(&a, flag_text(key));
                if (rc == 0)
                    rc = argv_push(&a, value_text(s, point, e));
            }
        } else {
            rc = argv_push(&a, flag_text(key));
            if (rc == 0)
                rc = argv_push(&a, value_text(s, point, val));
        }
    }
    for (size_t k = 0; k < s->nparams && rc == 0; k++) {
        if (s->params[k].templated)
            continue;
        rc = argv_push(&a, flag_text(s->params[k].name));
        if (rc == 0)
            rc = argv_push(&a, dupstr(s->params[k].v[qc_sweep_point_index(s, point, k)].text));
    }
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)qc_sweep_seed(s, point, rep));
    if (rc == 0)
        rc = argv_push(&a, dupstr("--seed"));
    if (rc == 0)
        rc = argv_push(&a, dupstr(seed));
    if (rc == 0)
        rc = argv_push(&a, dupstr("--json"));
    if (rc != 0) {
        qc_sweep_argv_free(a.v);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    *argv = a.v;
    *argc = a.n;
    return 0;
}

void qc_sweep_argv_free(char **argv)
{
    if (argv == NULL)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

/* ---- metrics ---- */

static double num_or_nan(const json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int qc_sweep_extract(const qc_sweep *s, const json_t *output, size_t m, qc_sweep_val *out,
                     qc_err *err)
{
    const sw_metric *mt = &s->metrics[m];
    const json_t *v = output;
    const char *seg = mt->path;
    out->value = out->lo = out->hi = NAN;
    while (v != NULL && *seg) {
        const char *dot = strchr(seg, '.');
        size_t len = dot != NULL ? (size_t)(dot - seg) : strlen(seg);
        char key[256];
        if (len == 0 || len >= sizeof key) {
            v = NULL;
            break;
        }
        memcpy(key, seg, len);
        key[len] = '\0';
        if (json_is_object(v)) {
            v = json_object_get(v, key);
        } else if (json_is_array(v)) {
            char *end;
            errno = 0;
            unsigned long i = strtoul(key, &end, 10);
            v = (*end == '\0' && isdigit((unsigned char)key[0]) && errno == 0)
                    ? json_array_get(v, (size_t)i)
                    : NULL;
        } else {
            v = NULL;
        }
        seg += len + (dot != NULL);
        if (dot != NULL && *seg == '\0')
            v = NULL;
    }
    if (v == NULL)
        return qc_err_set(err, QC_EINVAL,
                          "metric '%s': path '%s' is not in the output of '%s --json'", mt->name,
                          mt->path, s->experiment);
    if (json_is_null(v))
        return 0;
    if (json_is_number(v)) {
        out->value = json_number_value(v);
        return 0;
    }
    if (json_is_object(v) && json_object_get(v, "value") != NULL) {
        out->value = num_or_nan(json_object_get(v, "value"));
        out->lo = num_or_nan(json_object_get(v, "ci_low"));
        out->hi = num_or_nan(json_object_get(v, "ci_high"));
        return 0;
    }
    return qc_err_set(err, QC_EINVAL,
                      "metric '%s': path '%s' is not a number or an interval {\"value\", ...}",
                      mt->name, mt->path);
}

/* A fraction (a utilization, a probability): bounded by 0 and 1, so its
 * interval is formed on the logit scale and never leaves [0, 1]. */
static int is_fraction(const char *path)
{
    const char *leaf = strrchr(path, '.') ? strrchr(path, '.') + 1 : path;
    return strstr(leaf, "utilization") != NULL || strstr(leaf, "probability") != NULL ||
           strncmp(leaf, "frac", 4) == 0;
}

void qc_sweep_aggregate(const qc_sweep *s, size_t m, const qc_sweep_val *v, size_t n,
                        qc_sweep_val *out)
{
    out->value = out->lo = out->hi = NAN;
    const int frac = m < s->nmetrics && is_fraction(s->metrics[m].path);
    if (n == 1) {
        *out = v[0];
        if (frac && out->hi > 1) /* a run's own interval, clamped to what a fraction can be */
            out->hi = 1;
        return;
    }
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (x == NULL)
        return;
    size_t k = 0;
    int positive = 1, inside = 1;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i].value)) {
            x[k] = v[i].value;
            positive &= x[k] > 0;
            inside &= x[k] > 0 && x[k] < 1;
            k++;
        }
    qc_ci ci;
    if (k > 0 && qc_ci_t(x, k, s->confidence, &ci, NULL) == 0) {
        out->value = ci.mean;
        out->lo = ci.lo;
        out->hi = ci.hi;
        /* The t-interval of the mean, carried by the delta method to a
         * scale where the quantity is unbounded and mapped back: the log
         * for a positive quantity (x e^{-h}, x e^{h} with h = half / x),
         * the logit for a fraction inside (0, 1). The same first-order
         * width, but never a negative response time nor a utilization
         * above 1 (three replications of a heavy-tailed measure gave
         * "1.24 s (95% CI -2.08 to 4.57 s)"). */
        if (frac && inside && isfinite(ci.half)) {
            double lg = log(ci.mean / (1 - ci.mean));
            double h = ci.half / (ci.mean * (1 - ci.mean));
            out->lo = 1 / (1 + exp(-(lg - h)));
            out->hi = 1 / (1 + exp(-(lg + h)));
        } else if (positive && isfinite(ci.half)) {
            double h = ci.half / ci.mean;
            out->lo = ci.mean * exp(-h);
            out->hi = ci.mean * exp(h);
        } else if (frac) {
            out->lo = out->lo < 0 ? 0 : out->lo;
            out->hi = out->hi > 1 ? 1 : out->hi;
        }
    }
    free(x);
}

/* ---- results ---- */

qc_sweep_point *qc_sweep_points_new(const qc_sweep *s)
{
    qc_sweep_point *p = calloc(s->npoints, sizeof *p);
    return p;
}

void qc_sweep_points_free(const qc_sweep *s, qc_sweep_point *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < s->npoints; i++) {
        free(p[i].error);
        free(p[i].m);
    }
    free(p);
}

int qc_sweep_point_set(const qc_sweep *s, qc_sweep_point *p, const qc_sweep_val *vals,
                       const char *error)
{
    free(p->error);
    free(p->m);
    p->error = NULL;
    p->m = NULL;
    p->state = QC_SWEEP_PENDING;
    if (error != NULL) {
        p->error = dupstr(error);
        if (p->error == NULL)
            return QC_ENOMEM;
        p->state = QC_SWEEP_FAILED;
        return 0;
    }
    p->m = malloc(s->nmetrics * sizeof *p->m);
    if (p->m == NULL)
        return QC_ENOMEM;
    memcpy(p->m, vals, s->nmetrics * sizeof *p->m);
    p->state = QC_SWEEP_DONE;
    return 0;
}

static char *dump_line(json_t *o)
{
    char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(o);
    if (txt == NULL)
        return NULL;
    size_t n = strlen(txt);
    char *line = realloc(txt, n + 2);
    if (line == NULL) {
        free(txt);
        return NULL;
    }
    line[n] = '\n';
    line[n + 1] = '\0';
    return line;
}

char *qc_sweep_journal_header(const qc_sweep *s)
{
    json_t *o = json_pack("{sisssIsI}", "qctl_sweep_journal", 1, "hash", s->hash, "points",
                          (json_int_t)s->npoints, "reps", (json_int_t)s->reps);
    return o != NULL ? dump_line(o) : NULL;
}

char *qc_sweep_journal_record(const qc_sweep *s, size_t point, const qc_sweep_point *p)
{
    char *key = qc_sweep_point_key(s, point);
    json_t *o = json_object();
    if (key == NULL || o == NULL) {
        free(key);
        json_decref(o);
        return NULL;
    }
    json_object_set_new(o, "point", json_integer((json_int_t)point));
    json_object_set_new(o, "key", json_string(key));
    free(key);
    if (p->state == QC_SWEEP_FAILED) {
        json_object_set_new(o, "error", json_string(p->error));
    } else {
        json_t *ms = json_object();
        for (size_t m = 0; m < s->nmetrics; m++)
            json_object_set_new(ms, s->metrics[m].name,
                                json_pack("[ooo]", qc_json_real_new(p->m[m].value),
                                          qc_json_real_new(p->m[m].lo),
                                          qc_json_real_new(p->m[m].hi)));
        json_object_set_new(o, "metrics", ms);
    }
    return dump_line(o);
}

int qc_sweep_journal_parse_record(const qc_sweep *s, const char *line, size_t len,
                                  qc_sweep_point *pts, size_t *point, qc_err *err)
{
    json_error_t je;
    json_t *o = json_loadb(line, len, 0, &je);
    if (o == NULL)
        return qc_err_set(err, QC_EPARSE, "column %d: %s", je.column, je.text);
    int rc = QC_EPARSE;
    const json_t *pv = json_object_get(o, "point");
    const json_t *kv = json_object_get(o, "key");
    const json_t *ev = json_object_get(o, "error");
    const json_t *mv = json_object_get(o, "metrics");
    qc_sweep_val *vals = NULL;
    if (!json_is_integer(pv) || json_integer_value(pv) < 0 ||
        (uint64_t)json_integer_value(pv) >= s->npoints || !json_is_string(kv)) {
        qc_err_set(err, QC_EPARSE, "not a point record of this sweep");
        goto out;
    }
    size_t i = (size_t)json_integer_value(pv);
    char *key = qc_sweep_point_key(s, i);
    if (key == NULL || strcmp(key, json_string_value(kv)) != 0) {
        free(key);
        qc_err_set(err, QC_EPARSE, "point %zu is not '%s' in this sweep", i,
                   json_string_value(kv));
        goto out;
    }
    free(key);
    if (json_is_string(ev)) {
        rc = qc_sweep_point_set(s, &pts[i], NULL, json_string_value(ev));
    } else {
        vals = calloc(s->nmetrics ? s->nmetrics : 1, sizeof *vals);
        if (vals == NULL) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
        for (size_t m = 0; m < s->nmetrics; m++) {
            const json_t *a = json_object_get(mv, s->metrics[m].name);
            if (!json_is_array(a) || json_array_size(a) != 3) {
                qc_err_set(err, QC_EPARSE, "point %zu: metric '%s' missing", i,
                           s->metrics[m].name);
                goto out;
            }
            vals[m].value = num_or_nan(json_array_get(a, 0));
            vals[m].lo = num_or_nan(json_array_get(a, 1));
            vals[m].hi = num_or_nan(json_array_get(a, 2));
        }
        rc = qc_sweep_point_set(s, &pts[i], vals, NULL);
    }
    if (rc != 0)
        qc_err_set(err, rc, "out of memory");
    *point = i;
out:
    free(vals);
    json_decref(o);
    return rc;
}

int qc_sweep_journal_load(const qc_sweep *s, const char *text, size_t len, const char *name,
                          qc_sweep_point *pts, size_t *good, size_t *records, qc_err *err)
{
    *good = 0;
    *records = 0;
    size_t at = 0, lineno = 0;
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        if (nl == NULL)
            break; /* cut by an interruption: dropped */
        const size_t n = (size_t)(nl - (text + at));
        lineno++;
        if (lineno == 1) {
            json_error_t je;
            json_t *h = json_loadb(text + at, n, 0, &je);
            const json_t *hv = json_object_get(h, "hash");
            if (h == NULL || !json_is_integer(json_object_get(h, "qctl_sweep_journal")) ||
                !json_is_string(hv)) {
                json_decref(h);
                return qc_err_set(err, QC_EPARSE, "%s:1: not a qctl sweep journal", name);
            }
            if (strcmp(json_string_value(hv), s->hash) != 0) {
                qc_err_set(err, QC_ERANGE,
                           "%s: written for a different sweep definition (hash %s, now %s)",
                           name, json_string_value(hv), s->hash);
                json_decref(h);
                return QC_ERANGE;
            }
            json_decref(h);
        } else {
            size_t point;
            int rc = qc_sweep_journal_parse_record(s, text + at, n, pts, &point, err);
            if (rc != 0) {
                qc_err_prefix(err, "%s:%zu", name, lineno);
                return rc;
            }
            (*records)++;
        }
        at += n + 1;
        *good = at;
    }
    return 0;
}

/* One CSV field, quoted when it holds a comma, a quote or a line break;
 * every field but a row's first is preceded by a comma. */
static void csv_field(FILE *fp, int *first, const char *t)
{
    if (!*first)
        fputc(',', fp);
    *first = 0;
    if (strpbrk(t, ",\"\n\r") == NULL) {
        fputs(t, fp);
        return;
    }
    fputc('"', fp);
    for (; *t; t++) {
        if (*t == '"')
            fputc('"', fp);
        fputc(*t, fp);
    }
    fputc('"', fp);
}

static void csv_real(FILE *fp, int *first, double x)
{
    char buf[40] = "";
    if (isfinite(x))
        snprintf(buf, sizeof buf, "%.10g", x);
    csv_field(fp, first, buf);
}

int qc_sweep_write_csv(const qc_sweep *s, const qc_sweep_point *pts, const char *path,
                       qc_err *err)
{
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc != 0)
        return rc;
    int first = 1;
    char name[300];
    for (size_t k = 0; k < s->nparams; k++)
        csv_field(f.fp, &first, s->params[k].name);
    for (size_t m = 0; m < s->nmetrics; m++) {
        csv_field(f.fp, &first, s->metrics[m].name);
        snprintf(name, sizeof name, "%s_ci_low", s->metrics[m].name);
        csv_field(f.fp, &first, name);
        snprintf(name, sizeof name, "%s_ci_high", s->metrics[m].name);
        csv_field(f.fp, &first, name);
    }
    csv_field(f.fp, &first, "reps");
    csv_field(f.fp, &first, "error");
    fputc('\n', f.fp);
    for (size_t i = 0; i < s->npoints; i++) {
        const qc_sweep_point *p = &pts[i];
        first = 1;
        for (size_t k = 0; k < s->nparams; k++)
            csv_field(f.fp, &first, s->params[k].v[qc_sweep_point_index(s, i, k)].text);
        for (size_t m = 0; m < s->nmetrics; m++) {
            const int ok = p->state == QC_SWEEP_DONE;
            csv_real(f.fp, &first, ok ? p->m[m].value : NAN);
            csv_real(f.fp, &first, ok ? p->m[m].lo : NAN);
            csv_real(f.fp, &first, ok ? p->m[m].hi : NAN);
        }
        snprintf(name, sizeof name, "%u", s->reps);
        csv_field(f.fp, &first, name);
        csv_field(f.fp, &first, p->state == QC_SWEEP_FAILED    ? p->error
                                : p->state == QC_SWEEP_PENDING ? "not run"
                                                               : "");
        fputc('\n', f.fp);
    }
    return qc_ofile_commit(&f, err);
}

/* A point's metric in the one interval shape (qc_json_ci_new): across
 * replications the level is the sweep's and n the replications; with one
 * replication the interval is the run's own, whose level and n are in the
 * run's output (null here). The half-width is null where the interval is
 * not symmetric (formed on the log or logit scale). v NULL: not run. */
static json_t *point_ci_json(const qc_sweep *s, const qc_sweep_val *v)
{
    qc_ci ci = {NAN, NAN, NAN, NAN, NAN, 0};
    if (v != NULL) {
        ci.mean = v->value;
        ci.lo = v->lo;
        ci.hi = v->hi;
        const double a = v->value - v->lo, b = v->hi - v->value;
        if (isfinite(a) && isfinite(b) && fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b)))
            ci.half = (v->hi - v->lo) / 2;
    }
    json_t *o = qc_json_ci_new(&ci);
    const int many = s->reps > 1;
    json_object_set_new(o, "level", many ? json_real(s->confidence) : json_null());
    json_object_set_new(o, "n", many && v != NULL ? json_integer((json_int_t)s->reps) : json_null());
    return o;
}

json_t *qc_sweep_results_json(const qc_sweep *s, const qc_sweep_point *pts)
{
    json_t *root = json_object();
    json_t *sw = json_object();
    json_t *arr = json_array();
    if (root == NULL || sw == NULL || arr == NULL) {
        json_decref(root), json_decref(sw), json_decref(arr);
        return NULL;
    }
    json_object_set_new(sw, "experiment", json_string(s->experiment));
    json_object_set_new(sw, "points", json_integer((json_int_t)s->npoints));
    json_object_set_new(sw, "reps", json_integer(s->reps));
    json_object_set_new(sw, "seed", json_integer((json_int_t)s->seed));
    json_object_set_new(sw, "confidence", json_real(s->confidence));
    json_object_set_new(sw, "hash", json_string(s->hash));
    json_t *pn = json_array(), *mn = json_object();
    for (size_t k = 0; k < s->nparams; k++)
        json_array_append_new(pn, json_string(s->params[k].name));
    for (size_t m = 0; m < s->nmetrics; m++)
        json_object_set_new(mn, s->metrics[m].name, json_string(s->metrics[m].path));
    json_object_set_new(sw, "params", pn);
    json_object_set_new(sw, "metrics", mn);
    json_object_set_new(root, "sweep", sw);
    for (size_t i = 0; i < s->npoints; i++) {
        json_t *o = json_object();
        for (size_t k = 0; k < s->nparams; k++) {
            const sw_value *v = &s->params[k].v[qc_sweep_point_index(s, i, k)];
            json_object_set_new(o, s->params[k].name,
                                v->is_num ? json_real(v->x) : json_string(v->text));
        }
        const qc_sweep_point *p = &pts[i];
        for (size_t m = 0; m < s->nmetrics; m++) {
            const int ok = p->state == QC_SWEEP_DONE;
            json_object_set_new(o, s->metrics[m].name, point_ci_json(s, ok ? &p->m[m] : NULL));
        }
        json_object_set_new(o, "reps", json_integer(s->reps));
        json_object_set_new(o, "error", p->state == QC_SWEEP_FAILED ? json_string(p->error)
                                        : p->state == QC_SWEEP_PENDING ? json_string("not run")
                                                                       : json_null());
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "points", arr);
    return root;
}
