/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jcheck.c: asserts on one field of a JSON document, for command-line tests.
 *
 *   jcheck FILE PATH OP [ARG...]
 *
 * PATH is dot-separated keys (numbers index arrays). OPs:
 *   exists | null | true | false | str S | eq X | lt X | gt X | le X | ge X
 *   within A B      A <= value <= B
 *   near PATH2 R    |value - v2| <= R |v2|, v2 the number at PATH2 (a
 *                   relative tolerance against another field)
 *   covers X        PATH is a confidence-interval object whose
 *                   [ci_low, ci_high] contains X
 * Exit 0 when the assertion holds; 1 with a message when it does not;
 * 2 on bad usage or an unreadable document. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *walk(json_t *v, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && v; k = strtok_r(NULL, ".", &save)) {
        if (json_is_array(v))
            v = json_array_get(v, (size_t)strtoul(k, NULL, 10));
        else
            v = json_object_get(v, k);
    }
    return v;
}

static int num(const json_t *v, double *x)
{
    if (!json_is_number(v))
        return -1;
    *x = json_number_value(v);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: jcheck FILE PATH OP [ARG...]\n");
        return 2;
    }
    json_error_t e;
    json_t *root = json_load_file(argv[1], 0, &e);
    if (root == NULL) {
        fprintf(stderr, "jcheck: %s:%d:%d: %s\n", argv[1], e.line, e.column, e.text);
        return 2;
    }
    const char *path = argv[2], *op = argv[3];
    json_t *v = walk(root, path);
    int ok = 0;
    double x = 0, a = argc > 4 ? atof(argv[4]) : 0, b = argc > 5 ? atof(argv[5]) : 0;
    char *got = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    if (strcmp(op, "exists") == 0)
        ok = v != NULL;
    else if (strcmp(op, "null") == 0)
        ok = json_is_null(v);
    else if (strcmp(op, "true") == 0)
        ok = json_is_true(v);
    else if (strcmp(op, "false") == 0)
        ok = json_is_false(v);
    else if (strcmp(op, "str") == 0 && argc > 4)
        ok = json_is_string(v) && strcmp(json_string_value(v), argv[4]) == 0;
    else if (strcmp(op, "covers") == 0 && argc > 4) {
        double lo, hi;
        ok = num(json_object_get(v, "ci_low"), &lo) == 0 &&
             num(json_object_get(v, "ci_high"), &hi) == 0 && lo <= a && a <= hi;
    } else if (num(v, &x) != 0)
        ok = 0;
    else if (strcmp(op, "eq") == 0 && argc > 4)
        ok = x == a;
    else if (strcmp(op, "lt") == 0 && argc > 4)
        ok = x < a;
    else if (strcmp(op, "gt") == 0 && argc > 4)
        ok = x > a;
    else if (strcmp(op, "le") == 0 && argc > 4)
        ok = x <= a;
    else if (strcmp(op, "ge") == 0 && argc > 4)
        ok = x >= a;
    else if (strcmp(op, "within") == 0 && argc > 5)
        ok = a <= x && x <= b;
    else if (strcmp(op, "near") == 0 && argc > 5) {
        double y;
        ok = num(walk(root, argv[4]), &y) == 0 && fabs(x - y) <= b * fabs(y);
    }
    else {
        fprintf(stderr, "jcheck: bad operator or arguments: %s\n", op);
        free(got);
        json_decref(root);
        return 2;
    }
    if (!ok) {
        fprintf(stderr, "jcheck: %s %s", path, op);
        for (int i = 4; i < argc; i++)
            fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, ": failed, value is %s\n", got ? got : "(missing)");
    }
    free(got);
    json_decref(root);
    return ok ? 0 : 1;
}
