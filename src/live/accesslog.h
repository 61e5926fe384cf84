/* SPDX-License-Identifier: GPL-3.0-or-later */
/* accesslog.h: the access log of `qctl proxy` (accesslog.c), internal to
 * src/live/: one line per request answered, nginx's `combined` format or
 * JSON, written without blocking the loop and with bounded memory. */
#ifndef QC_LIVE_ACCESSLOG_H
#define QC_LIVE_ACCESSLOG_H

#include <stdint.h>
#include <uv.h>

#include "live/http.h"
#include "qctl/error.h"

enum { QC_ALOG_COMBINED = 0, QC_ALOG_JSON = 1 };

/* Bytes of lines held while the file is slow, in each of two buffers
 * (one being written, one filling), by default: a line that does not fit
 * is dropped and counted, so a stalled disk costs at most twice this. */
#define QC_ALOG_BUFFER (1u << 20)
/* The bounds of --access-log-buffer. */
#define QC_ALOG_BUFFER_MIN 4096u
#define QC_ALOG_BUFFER_MAX (1u << 30)

typedef struct qc__alog {
    uv_loop_t *loop;
    char path[4096]; /* empty: standard output */
    int fd, format;
    char *buf[2];
    size_t len[2];
    size_t cap;   /* each buffer's bytes */
    int cur;      /* the buffer filling */
    int writing;  /* a write of buf[!cur] in flight */
    size_t woff;  /* bytes of it written */
    int reopen;   /* reopen once the write in flight is done */
    uv_fs_t req;
    uint64_t lines, dropped, write_errors, reopens;
    /* called once no write is in flight any more (set by an owner that
     * waits for the last write before it frees the buffers) */
    void (*idle)(void *arg);
    void *idle_arg;
} qc__alog;

/* One request answered, as the log shows it. Strings may be NULL ("-"). */
typedef struct qc__alog_entry {
    const char *peer;       /* the client's address */
    const char *request;    /* the request line as received */
    size_t request_len;
    const char *referer, *agent; /* header values (lengths below) */
    size_t referer_len, agent_len;
    int status;
    uint64_t body_bytes;    /* response body bytes sent */
    const char *cls;        /* its class */
    const char *decision;   /* "admitted", or why it was refused ("full", ...), or
                               "error" (answered by the proxy before a decision),
                               or for a client gone first (499) "waiting" (in the
                               waiting room) or "none" (before any decision) */
    double queue_wait;      /* s waited for a slot (NAN: not admitted) */
    double upstream_time;   /* s at the backend to the last byte (NAN: not sent) */
    double request_time;    /* s from the request read to its answer */
    const char *backend;    /* NULL: none */
    const char *request_id; /* NULL or empty: none */
} qc__alog_entry;

/* Opens path ("-": standard output) for appending (O_APPEND: a file
 * truncated under it, logrotate's copytruncate, is written from its
 * start), its two buffers of `buffer` bytes each (0: QC_ALOG_BUFFER). 0,
 * or QC_EIO naming --access-log and the file. */
int qc__alog_open(qc__alog *a, uv_loop_t *loop, const char *path, int format, size_t buffer,
                  qc_err *err);
/* Appends e's line; dropped (counted) when the buffers are full. */
void qc__alog_write(qc__alog *a, const qc__alog_entry *e);
/* Opens the file's path again (logrotate's create: the old name was
 * moved), once the write in flight is done; lines meanwhile are kept. */
void qc__alog_reopen(qc__alog *a);
/* Writes what is held (blocking: at the end of the run) and closes. The
 * loop must have run every write in flight to its end. */
void qc__alog_close(qc__alog *a);

#endif
