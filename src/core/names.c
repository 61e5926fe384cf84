/* SPDX-License-Identifier: GPL-3.0-or-later */
/* names.c: looking up the words of an enum (core/names.h).
 *
 * A table is indexed by the enum's value; a NULL entry is a value with no
 * word (a gap in the numbering, or a count at the end), which neither
 * function ever yields. The error lists the words in the table's order,
 * "a, b or c", and is cut (ending in "...") only if the message buffer is
 * full. */
#include "core/names.h"

#include <stdio.h>
#include <string.h>

const char *qc__name_of(const char *const *names, size_t n, int v)
{
    if (v < 0 || (size_t)v >= n || names[v] == NULL)
        return "?";
    return names[v];
}

int qc__name_parse(const char *s, const char *const *names, size_t n, int *v, qc_err *err)
{
    size_t nwords = 0;
    for (size_t i = 0; i < n; i++) {
        if (names[i] == NULL)
            continue;
        nwords++;
        if (s != NULL && strcmp(s, names[i]) == 0) {
            *v = (int)i;
            return 0;
        }
    }
    char list[QC_ERR_MSG_MAX];
    size_t len = 0, k = 0;
    list[0] = '\0';
    for (size_t i = 0; i < n && len < sizeof list; i++) {
        if (names[i] == NULL)
            continue;
        k++;
        const char *sep = k == 1 ? "" : k == nwords ? " or " : ", ";
        int w = snprintf(list + len, sizeof list - len, "%s%s", sep, names[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return qc_err_set(err, QC_EINVAL, "'%s' is not %s", s ? s : "(null)", list);
}
