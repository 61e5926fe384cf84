/* SPDX-License-Identifier: GPL-3.0-or-later */
/* flags_value.c: a flag's value read into its row's destination, checked
 * as it is read (type, range, path kind) with a message naming the flag;
 * and the CLI_FUNC parsers several commands share ("A..B", "U,Y"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "flags.h"
#include "flags_int.h"
#include "guard.h"

/* ---- the declarative table ----------------------------------------------- */

int cli__table_value(const cli_flag *f, const char *s)
{
    char flag[96];
    snprintf(flag, sizeof flag, "--%s", f->name);
    int bounded = f->min != 0 || f->max != 0;
    double x = 0;
    int rc = 0;
    cli_path_kind pk = f->path ? (cli_path_kind)f->path
                   : f->type == CLI_STR ? cli_path_flag(cli_command, f->name) : 0;
    if (pk && (s = cli_input_path(flag, s, pk)) == NULL) /* "-": standard input */
        return QC_EXIT_USAGE;
    if (f->path && (rc = cli_check_path(flag, s, (cli_path_kind)f->path)) != 0)
        return rc;
    switch (f->type) {
    case CLI_BOOL: *(int *)f->dest = 1; return 0;
    case CLI_HELP:
    case CLI_NOTE:
    case CLI_CHECK:
    case CLI_CONFIG: return 0; /* --config is read before the other flags */
    case CLI_STRS: {
        cli_strs *v = f->dest;
        if (v->n >= (unsigned)f->max) {
            cli_error("%s: given more than %g times", flag, f->max);
            return QC_EXIT_USAGE;
        }
        v->v[v->n++] = s;
        return 0;
    }
    case CLI_CHOICE: {
        const char *c = f->choices;
        for (int k = 0; c && *c; k++) {
            size_t n = strcspn(c, ",");
            if (strlen(s) == n && strncmp(c, s, n) == 0) {
                *(int *)f->dest = f->values ? f->values[k] : k;
                return 0;
            }
            c += n + (c[n] == ',');
        }
        /* "a,b,c" read as "a, b or c" */
        char list[256];
        size_t w = 0;
        for (c = f->choices; *c && w + 4 < sizeof list; c++) {
            if (*c != ',') {
                list[w++] = *c;
            } else if (strchr(c + 1, ',')) {
                list[w++] = ',';
                list[w++] = ' ';
            } else {
                memcpy(list + w, " or ", 4);
                w += 4;
            }
        }
        list[w] = '\0';
        const char *words[64];
        char copy[256];
        size_t nw = 0;
        snprintf(copy, sizeof copy, "%s", f->choices);
        for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && nw < 64;
             tok = strtok_r(NULL, ",", &save))
            words[nw++] = tok;
        const char *near = cli_nearest(s, words, nw);
        if (near)
            cli_error("%s: '%s' is not %s; did you mean '%s'?", flag, s, list, near);
        else
            cli_error("%s: '%s' is not %s", flag, s, list);
        return QC_EXIT_USAGE;
    }
    case CLI_STR: {
        /* a row without a kind (checked above): guard.h's list of path flags */
        cli_path_kind kind = f->path ? 0 : cli_path_flag(cli_command, f->name);
        if (kind && (rc = cli_check_path(flag, s, kind)) != 0)
            return rc;
        *(const char **)f->dest = s;
        return 0;
    }
    case CLI_FUNC: return f->parse(f, flag, s);
    case CLI_DOUBLE: rc = cli_double(flag, s, &x); break;
    case CLI_U64: {
        uint64_t u;
        if ((rc = cli_u64(flag, s, &u)) == 0)
            x = (double)u;
        break;
    }
    case CLI_UINT: {
        unsigned u;
        if ((rc = cli_uint(flag, s, &u)) == 0)
            x = (double)u;
        break;
    }
    }
    if (rc != 0)
        return rc;
    int lo_open = (f->open & CLI_OPEN_MIN) != 0, hi_open = (f->open & CLI_OPEN_MAX) != 0;
    if (bounded && !((lo_open ? x > f->min : x >= f->min) && (hi_open ? x < f->max : x <= f->max))) {
        if (f->max == HUGE_VAL)
            cli_error("%s: %s must be %s %g", flag, s, lo_open ? ">" : ">=", f->min);
        else if (f->min == -HUGE_VAL)
            cli_error("%s: %s must be %s %g", flag, s, hi_open ? "<" : "<=", f->max);
        else if (f->type != CLI_DOUBLE && !f->open) /* whole numbers: A..B */
            cli_error("%s: %s is not in %g..%g", flag, s, f->min, f->max);
        else
            cli_error("%s: %s is not in %c%g, %g%c", flag, s, lo_open ? '(' : '[', f->min,
                      f->max, hi_open ? ')' : ']');
        return QC_EXIT_USAGE;
    }
    if (f->type == CLI_DOUBLE)
        *(double *)f->dest = x;
    else if (f->type == CLI_U64)
        *(uint64_t *)f->dest = (uint64_t)x;
    else
        *(unsigned *)f->dest = (unsigned)x;
    return 0;
}

/* ---- row parsers shared by commands (CLI_FUNC) --------------------------- */

/* "A..B" or "A" into [lo, hi], each within [min, max]. */
static int parse_range(const char *flag, const char *s, int min, int max, int *lo, int *hi)
{
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s)
        goto bad;
    if (strncmp(end, "..", 2) == 0) {
        const char *t = end + 2;
        b = strtol(t, &end, 10);
        if (end == t)
            goto bad;
    }
    if (*end != '\0')
        goto bad;
    if (a > b || a < min || b > max) {
        cli_error("%s: '%s' must be A..B with %d <= A <= B <= %d", flag, s, min, max);
        return QC_EXIT_USAGE;
    }
    *lo = (int)a;
    *hi = (int)b;
    return 0;
bad:
    cli_error("%s: '%s' is not a range A..B of whole numbers (bad character at column %d)", flag,
              s, (int)(end - s) + 1);
    return QC_EXIT_USAGE;
}

static int parse_urange(const char *flag, const char *s, int min, int max, unsigned *lo,
                        unsigned *hi)
{
    int a, b;
    int rc = parse_range(flag, s, min, max, &a, &b);
    if (rc == 0) {
        *lo = (unsigned)a;
        *hi = (unsigned)b;
    }
    return rc;
}

static int parse_pair(const char *flag, const char *s, double *x, double *y)
{
    const char *comma = strchr(s, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL) {
        cli_error("%s: '%s' must be two numbers U,Y", flag, s);
        return QC_EXIT_USAGE;
    }
    char first[128];
    size_t n = (size_t)(comma - s);
    if (n >= sizeof first) {
        cli_error("%s: '%s' is too long", flag, s);
        return QC_EXIT_USAGE;
    }
    memcpy(first, s, n);
    first[n] = '\0';
    if (cli_double(flag, first, x) != 0 || cli_double(flag, comma + 1, y) != 0)
        return QC_EXIT_USAGE;
    return 0;
}

int cli_range_flag(const cli_flag *f, const char *flag, const char *s)
{
    int *v = f->dest;
    return parse_range(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

int cli_urange_flag(const cli_flag *f, const char *flag, const char *s)
{
    unsigned *v = f->dest;
    return parse_urange(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

int cli_pair_flag(const cli_flag *f, const char *flag, const char *s)
{
    double *v = f->dest;
    return parse_pair(flag, s, &v[0], &v[1]);
}
