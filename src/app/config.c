/* SPDX-License-Identifier: GPL-3.0-or-later */
/* config.c: a command's options from a JSON file (config.h).
 *
 * The file never sets an option itself: it is turned into flag words, and
 * the command's own option parser does the rest, with the same checks and
 * messages as on the command line. So the only things decided here are
 * the key's existence (in the long-option table), whether the flag takes
 * a value, and the JSON type of the value. */
#include "app/config.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qc__config_args_free(qc__config_args *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->word[i]);
    free(a->word);
    free((void *)a->key);
    memset(a, 0, sizeof *a);
}

static int push(qc__config_args *a, const char *key, const char *value, qc_err *err)
{
    if (a->n == a->cap) {
        int cap = a->cap ? 2 * a->cap : 16;
        char **w = realloc(a->word, (size_t)cap * sizeof *w);
        if (!w)
            return qc_err_set(err, QC_ENOMEM, "config: out of memory");
        a->word = w;
        const char **k = realloc((void *)a->key, (size_t)cap * sizeof *k);
        if (!k)
            return qc_err_set(err, QC_ENOMEM, "config: out of memory");
        a->key = k;
        a->cap = cap;
    }
    size_t n = strlen(key) + (value ? strlen(value) + 1 : 0) + 3;
    char *w = malloc(n);
    if (!w)
        return qc_err_set(err, QC_ENOMEM, "config: out of memory");
    if (value)
        snprintf(w, n, "--%s=%s", key, value);
    else
        snprintf(w, n, "--%s", key);
    a->word[a->n] = w;
    a->key[a->n] = key;
    a->n++;
    return 0;
}

/* One value of key (element idx of an array, or -1). */
static int one(qc__config_args *a, const struct option *opt, json_t *v, int idx, const char *file,
               qc_err *err)
{
    char where[160], num[64];
    if (idx >= 0)
        snprintf(where, sizeof where, "%s: \"%s\"[%d]", file, opt->name, idx);
    else
        snprintf(where, sizeof where, "%s: \"%s\"", file, opt->name);
    int takes = opt->has_arg != no_argument;
    switch (json_typeof(v)) {
    case JSON_STRING:
        if (!takes)
            return qc_err_set(err, QC_EINVAL, "%s: a bare flag: give true, not a string", where);
        if (strlen(json_string_value(v)) != json_string_length(v))
            return qc_err_set(err, QC_EINVAL, "%s: the string holds a NUL byte", where);
        return push(a, opt->name, json_string_value(v), err);
    case JSON_INTEGER:
    case JSON_REAL:
        if (!takes)
            return qc_err_set(err, QC_EINVAL, "%s: a bare flag: give true, not a number", where);
        if (json_is_integer(v))
            snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
        else
        {
            /* the shortest form that reads back to the same double */
            snprintf(num, sizeof num, "%.15g", json_real_value(v));
            if (strtod(num, NULL) != json_real_value(v))
                snprintf(num, sizeof num, "%.17g", json_real_value(v));
        }
        return push(a, opt->name, num, err);
    case JSON_TRUE:
        if (takes)
            return qc_err_set(err, QC_EINVAL, "%s: needs a value (a string or a number), not true",
                              where);
        return push(a, opt->name, NULL, err);
    case JSON_FALSE:
        if (takes)
            return qc_err_set(err, QC_EINVAL,
                              "%s: needs a value (a string or a number), not false", where);
        return 0;
    default:
        return qc_err_set(err, QC_EINVAL, "%s: must be a string, a number or true%s", where,
                          idx < 0 ? ", or an array of them" : "");
    }
}

int qc__config_args_parse(const char *text, size_t len, const char *file,
                          const struct option *longopts, const char *const *forbidden,
                          qc__config_args *out, qc_err *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", file, je.line, je.column, je.text);
    int rc = 0;
    if (!json_is_object(root)) {
        rc = qc_err_set(err, QC_EINVAL, "%s: the configuration must be a JSON object of flags",
                        file);
        goto done;
    }
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        const struct option *opt = NULL;
        for (const struct option *o = longopts; o->name; o++)
            if (strcmp(o->name, key) == 0) {
                opt = o;
                break;
            }
        for (const char *const *f = forbidden; f && *f && opt; f++)
            if (strcmp(*f, key) == 0) {
                rc = qc_err_set(err, QC_EINVAL, "%s: \"%s\" is not allowed in a config file",
                                file, key);
                goto done;
            }
        if (!opt) {
            rc = qc_err_set(err, QC_EINVAL, "%s: unknown key \"%s\" (not a flag of the command)",
                            file, key);
            goto done;
        }
        if (json_is_array(v)) {
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e)
            {
                if ((rc = one(out, opt, e, (int)i, file, err)) != 0)
                    goto done;
            }
        } else if ((rc = one(out, opt, v, -1, file, err)) != 0) {
            goto done;
        }
    }
done:
    json_decref(root);
    if (rc)
        qc__config_args_free(out);
    return rc;
}

int qc__config_args_load(const char *path, const struct option *longopts,
                         const char *const *forbidden, qc__config_args *out, qc_err *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return qc_err_set(err, QC_EIO, "%s: cannot read: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - len, f);
        if (len < cap)
            break;
        char *t = cap > (1u << 24) ? NULL : realloc(text, cap * 2);
        if (!t) {
            free(text);
            text = NULL;
            break;
        }
        text = t;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!text)
        return qc_err_set(err, QC_ENOMEM, "%s: too large or out of memory", path);
    if (bad) {
        free(text);
        return qc_err_set(err, QC_EIO, "%s: cannot read", path);
    }
    int rc = qc__config_args_parse(text, len, path, longopts, forbidden, out, err);
    free(text);
    return rc;
}
