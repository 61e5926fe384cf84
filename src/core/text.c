/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.c: the data-line reader and the growing array of core/text.h. */
#include "core/text.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/error.h"

int qc__lines_open(qc__lines *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->fp = fopen(path, "r");
    return r->fp ? 0 : -1;
}

int qc__lines_next(qc__lines *r, const char **line, size_t *len, size_t *start)
{
    ssize_t got;
    while ((got = getline(&r->buf, &r->cap, r->fp)) >= 0) {
        const char *s = r->buf;
        size_t n = (size_t)got;
        r->lineno++;
        while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
            n--;
        if (r->lineno == 1 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
            s += 3;
            n -= 3;
        }
        size_t b = 0;
        while (b < n && qc__is_blank(s[b]))
            b++;
        if (b == n || s[b] == '#')
            continue;
        *line = s;
        *len = n;
        *start = b;
        return 1;
    }
    return 0;
}

int qc__lines_error(const qc__lines *r)
{
    return ferror(r->fp) != 0;
}

void qc__lines_close(qc__lines *r)
{
    if (r->fp)
        fclose(r->fp);
    free(r->buf);
    memset(r, 0, sizeof *r);
}

int qc__dvec_push(qc__dvec *v, double x)
{
    if (v->n == v->cap) {
        const size_t cap = v->cap ? 2 * v->cap : 256;
        if (cap > SIZE_MAX / sizeof *v->x)
            return QC_ENOMEM;
        double *nx = realloc(v->x, cap * sizeof *nx);
        if (nx == NULL)
            return QC_ENOMEM;
        v->x = nx;
        v->cap = cap;
    }
    v->x[v->n++] = x;
    return 0;
}
