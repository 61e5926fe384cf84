/* SPDX-License-Identifier: GPL-3.0-or-later */
/* core/names.h: the words of the library's enums.
 *
 * Every public enum X has one pair, const char *qc_X_name(X v) and
 * int qc_X_parse(const char *s, X *v, qc_err *err), and both read one
 * table of words indexed by value (NULL where a value has no word). The
 * functions below do the reading, so that the message for an unknown word
 * is the same everywhere: "'WORD' is not a, b or c". QC__NAMES defines a
 * pair from a table in the module that owns the enum. */
#ifndef QC_CORE_NAMES_H
#define QC_CORE_NAMES_H

#include <stddef.h>

#include "qctl/error.h"

/* names[v], or "?" for a value outside the table or without a word. */
const char *qc__name_of(const char *const *names, size_t n, int v);

/* The index of s in names[0..n): 0 and *v set, or QC_EINVAL naming s and
 * every word of the table (*v unchanged). s may be NULL (an error). */
int qc__name_parse(const char *s, const char *const *names, size_t n, int *v, qc_err *err);

/* Defines `const char *name_fn(type v)` and
 * `int parse_fn(const char *s, type *v, qc_err *err)` on table. */
#define QC__NAMES(type, name_fn, parse_fn, table)                              \
    const char *name_fn(type v)                                                \
    {                                                                          \
        return qc__name_of(table, sizeof table / sizeof *table, (int)v);       \
    }                                                                          \
    int parse_fn(const char *s, type *v, qc_err *err)                          \
    {                                                                          \
        int i = 0;                                                             \
        int rc = qc__name_parse(s, table, sizeof table / sizeof *table, &i, err); \
        if (rc == 0)                                                           \
            *v = (type)i;                                                      \
        return rc;                                                             \
    }

#endif
