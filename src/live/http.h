/* SPDX-License-Identifier: GPL-3.0-or-later */
/* http.h: qctl's strict HTTP/1.1 message head parser and chunked-body
 * framer, internal to src/live/.
 *
 * The parser is incremental by rescanning: it is handed the bytes read so
 * far and answers "need more", "complete, the head is N bytes", or
 * "malformed, here is why" (the proxy and backend answer 400 with that
 * text). A head is bounded (QC__HTTP_HEAD_MAX bytes, QC__HTTP_HDR_MAX
 * fields), so rescanning costs at most a few kilobytes per read.
 *
 * Strictness is the point: a proxy that accepts what its backend reads
 * differently is a request-smuggling hole. So: CRLF line ends only, no
 * whitespace before a colon, no folded lines, one Content-Length value
 * (repeats must agree), Transfer-Encoding only "chunked", and never both.
 * The header and its values point into the caller's buffer (no copies). */
#ifndef QCTL_LIVE_HTTP_H
#define QCTL_LIVE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define QC__HTTP_HEAD_MAX 8192
#define QC__HTTP_HDR_MAX 128

/* Reasons with a status of their own (qc__http_error_status). */
#define QC__HTTP_WHY_HEAD "header too large"
#define QC__HTTP_WHY_LINE "request line too long"
#define QC__HTTP_WHY_CODING "unsupported Transfer-Encoding"
#define QC__HTTP_WHY_VERSION "HTTP version not supported"

typedef struct qc__http_span {
    uint32_t off, len; /* into the buffer given to the parser */
} qc__http_span;

typedef struct qc__http_head {
    int request;                  /* 1 request, 0 response */
    qc__http_span method, target; /* request */
    int status;                   /* response */
    int minor;                    /* HTTP/1.minor */
    int keep_alive;               /* after this message */
    int chunked;
    int64_t content_length; /* -1: none given */
    size_t head_len;        /* bytes up to and including the blank line */
    unsigned nhdr;
    qc__http_span name[QC__HTTP_HDR_MAX], value[QC__HTTP_HDR_MAX];
} qc__http_head;

/* Parses a request (request = 1) or response head at the start of
 * buf[0..len). Returns head_len (> 0) when complete, 0 when more bytes
 * are needed, or QC_EPARSE with *why set to a short static reason. */
int qc__http_parse_head(const char *buf, size_t len, int request, qc__http_head *h,
                        const char **why);

/* The status that answers a malformed request whose reason is why: 431
 * (head or header count too large), 414 (request line too long), 501
 * (a transfer coding other than chunked), 505 (an HTTP version other than
 * 1.x), else 400 (RFC 9110 15.5, 15.6; RFC 6585 5). */
int qc__http_error_status(const char *why);

/* The value of header `name` (case-insensitive), or NULL; *n its length. */
const char *qc__http_header(const char *buf, const qc__http_head *h, const char *name, size_t *n);

/* A chunked body, framed incrementally. Zero-initialize it. */
typedef struct qc__http_chunked {
    int state;
    uint64_t left; /* bytes of chunk data still to come */
    unsigned digits;
    unsigned line; /* length of the current size or trailer line */
} qc__http_chunked;

/* Consumes bytes of a chunked body from buf[0..len) and returns how many
 * belong to it (all of them unless the body ends inside buf); *done is set
 * once the last chunk and the trailers are over. QC_EPARSE (*why set) on
 * malformed framing. */
long qc__http_chunked_feed(qc__http_chunked *c, const char *buf, size_t len, int *done,
                           const char **why);

/* The length of the whole message whose head h was parsed from the start
 * of buf[0..len): the head and its body, framed by chunked coding or by
 * Content-Length (a message with neither has no body here: a response
 * read to the close is the caller's case). Returns the length (> 0) once
 * the message is complete in buf, 0 while bytes are missing, or
 * QC_EPARSE with *why set on malformed chunking or a Content-Length over
 * max_body. */
long qc__http_message_len(const char *buf, size_t len, const qc__http_head *h,
                          uint64_t max_body, const char **why);

/* 1 when the request whose head h was parsed from buf is a HEAD request
 * (its response has no body, RFC 9110 9.3.2). */
int qc__http_is_head(const char *buf, const qc__http_head *h);

#endif
