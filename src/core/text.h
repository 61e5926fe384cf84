/* SPDX-License-Identifier: GPL-3.0-or-later */
/* text.h: reading text files of numbers, shared by the readers of
 * empirical samples (core/dist.c), of (time, u, y) columns (control/arx.c)
 * and of rate curves and arrival times (traffic/arrivals.c).
 *
 * One rule for what a data line is, so the three readers agree on a file:
 * the end of line (\n or \r\n) is cut, a UTF-8 byte order mark on line 1
 * (as spreadsheets write) is dropped, and a line that is empty, blank or
 * starts with '#' after blanks holds no data. The caller keeps its own
 * messages; the reader counts lines so that each can name FILE:LINE. */
#ifndef QC_CORE_TEXT_H
#define QC_CORE_TEXT_H

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>

typedef struct qc__lines {
    FILE *fp;
    char *buf;
    size_t cap;
    size_t lineno; /* 1-based number of the line last returned */
} qc__lines;

/* Opens path for reading; 0, or -1 with errno set (nothing to close). */
int qc__lines_open(qc__lines *r, const char *path);

/* The next data line: 1 with line[0, *len) (end of line and byte order
 * mark cut) and *start the offset of its first character that is not a
 * blank; 0 at the end of the file or on a read error (qc__lines_error
 * tells them apart). */
int qc__lines_next(qc__lines *r, const char **line, size_t *len, size_t *start);

/* Whether reading failed (errno says why). */
int qc__lines_error(const qc__lines *r);

/* Closes the file and frees the buffer. */
void qc__lines_close(qc__lines *r);

static inline int qc__is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Whether a field starting with ch could be meant as a number. */
static inline int qc__starts_number(char ch)
{
    return isdigit((unsigned char)ch) || ch == '+' || ch == '-' || ch == '.';
}

/* Narrows the field line[*b, *e) to its text: blanks at both ends cut,
 * then one pair of surrounding double quotes. */
static inline void qc__field_trim(const char *line, size_t *b, size_t *e)
{
    while (*b < *e && qc__is_blank(line[*b]))
        ++*b;
    while (*e > *b && qc__is_blank(line[*e - 1]))
        --*e;
    if (*e - *b >= 2 && line[*b] == '"' && line[*e - 1] == '"') {
        ++*b;
        --*e;
    }
}

/* A growing array of doubles; zero-initialised it is empty. */
typedef struct qc__dvec {
    double *x;
    size_t n, cap;
} qc__dvec;

/* Appends x (doubling the storage, from 256); 0 or QC_ENOMEM, v unchanged. */
int qc__dvec_push(qc__dvec *v, double x);

#endif
