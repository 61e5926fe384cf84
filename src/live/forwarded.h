/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forwarded.h: the forwarding headers `qctl proxy` adds to a request
 * (forwarded.c), internal to src/live/. */
#ifndef QC_LIVE_FORWARDED_H
#define QC_LIVE_FORWARDED_H

#include <string.h>
#include <strings.h>

#include "live/http.h"
#include "live/live.h"

/* The longest X-Request-Id kept from a client. */
#define QC_FWD_ID_MAX 128

/* Which headers are added (each 0 or 1). */
typedef struct qc__fwd {
    int xff, xfp, forwarded, request_id;
} qc__fwd;

/* 1 if the header name[0..n) is one that f replaces (the request's own
 * are then dropped from the copy sent on, their values carried over by
 * qc__fwd_append where they are kept). */
int qc__fwd_is_header(const qc__fwd *f, const char *name, size_t n);

/* Appends f's header lines for the request whose head h is in buf, from
 * the client at peer (a numeric address), reached over TLS or not, to
 * out; the request id sent (kept or made) into id. 0, or -1 out of
 * memory. */
int qc__fwd_append(const qc__fwd *f, qc__buf *out, const char *buf, const qc__http_head *h,
                   const char *peer, int tls, char id[QC_FWD_ID_MAX + 1]);

/* 1 if v[0..n) is a request id kept as it is: 1 to QC_FWD_ID_MAX
 * characters of [A-Za-z0-9._-]. */
int qc__fwd_request_id_ok(const char *v, size_t n);

/* A new request id: 32 hex digits of random bits, NUL-terminated. */
void qc__fwd_request_id_new(char out[33]);

#endif
