/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/error.h: error codes and the message buffer every library call fills.
 *
 * Convention for all of libqctl: a function returns 0 on success or a
 * negative QC_E* code. When it is given a non-NULL qc_err, it writes a
 * one-line message there saying what was wrong and where (file, line,
 * field or column). The library never prints and never exits. */
#ifndef QCTL_ERROR_H
#define QCTL_ERROR_H

#include <stddef.h>

#include "qctl/api.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* X(name, value, description): one table for codes and qc_strerror(). */
#define QC_ERRNO_MAP(X)                                             \
    X(EINVAL, -1, "invalid argument")                               \
    X(ENOMEM, -2, "out of memory")                                  \
    X(EPARSE, -3, "malformed input")                                \
    X(EIO, -4, "input/output error")                                \
    X(ERANGE, -5, "value out of range")                             \
    X(EUNSTABLE, -6, "unstable system")                             \
    X(EEMPTY, -7, "empty")                                          \
    X(ENOTSUP, -8, "not supported")                                 \
    X(EINTR, -9, "interrupted")                                     \
    X(EREFUSED, -10, "refused: no free slot")                       \
    X(EREJECTED, -11, "class rejected by admission control")        \
    X(ECANCELED, -12, "cancelled")                                  \
    X(ENOLIB, -13, "a library it needs could not be loaded")

enum {
#define QC__ERR_ENUM(name, val, desc) QC_##name = (val),
    QC_ERRNO_MAP(QC__ERR_ENUM)
#undef QC__ERR_ENUM
};

#define QC_ERR_MSG_MAX 512

/* A message buffer; code is the last code set. Zero-initialize it. */
typedef struct qc_err {
    int code;
    char msg[QC_ERR_MSG_MAX];
} qc_err;

/* The fixed description of a code ("unknown error" for others). */
const char *qc_strerror(int code);

/* Sets err->code and formats err->msg (if err is not NULL); returns code,
 * so that a caller can write `return qc_err_set(err, QC_EINVAL, ...)`. */
int qc_err_set(qc_err *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (e.g. a file name). */
void qc_err_prefix(qc_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
