/* SPDX-License-Identifier: GPL-3.0-or-later */
/* error.c: the QC_E* table and the message buffer helpers. */
#include "qctl/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *qc_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define QC__ERR_CASE(name, val, desc) \
    case QC_##name:                   \
        return desc;
        QC_ERRNO_MAP(QC__ERR_CASE)
#undef QC__ERR_CASE
    default:
        return "unknown error";
    }
}

int qc_err_set(qc_err *err, int code, const char *fmt, ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return code;
}

void qc_err_prefix(qc_err *err, const char *fmt, ...)
{
    if (err == NULL)
        return;
    char head[QC_ERR_MSG_MAX];
    char old[QC_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Truncation is acceptable: the message stays a valid, shorter line. */
    size_t hl = strlen(head);
    if (hl > sizeof err->msg - 3)
        hl = sizeof err->msg - 3;
    memcpy(err->msg, head, hl);
    memcpy(err->msg + hl, ": ", 2);
    size_t room = sizeof err->msg - hl - 3;
    size_t ol = strnlen(old, room);
    memcpy(err->msg + hl + 2, old, ol);
    err->msg[hl + 2 + ol] = '\0';
}
