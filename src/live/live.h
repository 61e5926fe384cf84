/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live.h: the small pieces qctl's live programs on libuv (backend, load
 * generator, proxy, gate) share, internal to src/live/ and src/cli/; their
 * public API is qctl/live.h.
 *
 * Each program runs on a loop of its own (nest.h), driven from the loop
 * its host gives it. Buffers are owned by the connection they belong to
 * and freed in its close callback, libuv's ownership rule. */
#ifndef QCTL_LIVE_LIVE_H
#define QCTL_LIVE_LIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <uv.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/limiter.h"
#include "qctl/live.h"

#include "live/fleet.h"
#include "live/http.h"

/* A growable byte buffer. */
typedef struct qc__buf {
    char *data;
    size_t len, cap;
} qc__buf;

int qc__buf_append(qc__buf *b, const char *p, size_t n);
void qc__buf_consume(qc__buf *b, size_t n);
void qc__buf_free(qc__buf *b);

/* Parses an address into addr: "1.2.3.4:PORT", "[::1]:PORT" or
 * "NAME:PORT" (port 0..65535). A name is resolved here with getaddrinfo,
 * which blocks: call it before the event loop serves anything; the first
 * answer is taken. QC_EINVAL with a message quoting s; addr is then
 * unspecified. */
int qc__addr_parse(const char *s, struct sockaddr_storage *addr, qc_err *err);
/* 1 if addr is a loopback address (127.0.0.0/8, ::1, ::ffff:127.0.0.0/104). */
int qc__addr_is_loopback(const struct sockaddr_storage *addr);
/* addr's port, its numeric host (n >= 46 for IPv6) and its sockaddr length. */
int qc__addr_port(const struct sockaddr_storage *addr);
void qc__addr_host(const struct sockaddr_storage *addr, char *host, size_t n);
unsigned qc__addr_len(const struct sockaddr_storage *addr);

/* Writes a copy of p[0..n) to stream (the copy is freed when written). */
int qc__write_copy(uv_stream_t *stream, const char *p, size_t n);

/* Stops reading stream, lets its pending writes go out (uv_close would
 * cancel them) and half-closes it, then calls close(arg); at once when the
 * shutdown cannot be started. */
void qc__close_after_write(uv_stream_t *stream, void (*close)(void *), void *arg);

/* The proxy's live page (page.c) when target[0..tlen) asks for it ("/" or
 * "/?..."), its length in *len; NULL otherwise. The page is a constant. */
const char *qc__admin_page(const char *target, size_t tlen, size_t *len);
/* The headers it is sent with: not cached; no script, style, image or
 * connection from anywhere but the page itself and its own origin. */
#define QC_ADMIN_PAGE_HEADERS                                                                      \
    "Cache-Control: no-store\r\nContent-Security-Policy: default-src 'none'; script-src "         \
    "'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self'\r\n"

/* Parses the head of the request at the start of in (qc__http_parse_head
 * with request = 1): its length when complete, 0 when more bytes are
 * needed, or QC_EPARSE with *why a short static reason ("malformed
 * request" when the parser names none). */
int qc__http_request_head(const qc__buf *in, qc__http_head *h, const char **why);

/* Seconds on the monotonic clock. */
double qc__now(void);

/* Writes the bound port of a TCP handle to path (for tests using port 0). */
int qc__write_port(uv_tcp_t *tcp, const char *path, qc_err *err);

/* Initializes a connection's socket and timer on loop, the data of both
 * its owner; returns 2, the handles the owner's close callback waits for. */
int qc__conn_init(uv_loop_t *loop, uv_tcp_t *tcp, uv_timer_t *timer, void *owner);

/* Opens the --series file at path for writing, its rows written as the
 * run goes. 0, or QC_EIO naming the flag and the file (*f is then NULL). */
int qc__series_open(FILE **f, const char *path, qc_err *err);

/* Initializes t on loop (t->data = data), binds it to `where` (host:port)
 * and listens with cb, then writes the port to port_file when not NULL.
 * 0, or the error (QC_EIO naming where) with t initialized: the caller
 * closes it as any of its handles. */
int qc__listen(uv_loop_t *loop, uv_tcp_t *t, void *data, const char *where,
               const char *port_file, uv_connection_cb cb, qc_err *err);
/* The same, on port instead of where's when port >= 0, and with
 * reuseport on a socket of its own with SO_REUSEPORT (several loops
 * accepting on one address). */
int qc__listen_ex(uv_loop_t *loop, uv_tcp_t *t, void *data, const char *where, int port,
                  int reuseport, const char *port_file, uv_connection_cb cb, qc_err *err);



/* The arrival times of requests drawn from a traffic model (qctl gen's
 * JSON): `users` users of the model generated with the copula approach
 * from `seed`; each packet a user sends (direction 0) is a request, or,
 * with per_session, only the first packet of each of its sessions. Times
 * up to `duration` (0: no limit) and at most `max` of them (0: no limit;
 * one of the two is needed) fill a as a trace (qc_arrivals_free). */
int qc_load_traffic_arrivals(qc_arrivals *a, const char *model, uint32_t users, int per_session,
                             uint64_t seed, double duration, uint64_t max, qc_err *err);

/* `qctl load --udp`: one datagram per packet of a trace, at its time. */
typedef struct qc_replay_params {
    const char *target; /* HOST:PORT */
    const char *file;   /* pcap, pcapng or CSV (qctl/trace.h) */
    int pattern;        /* payload: 0 zeros, 1 the bytes 0, 1, ..., 255, 0, ... */
} qc_replay_params;

typedef struct qc_replay_result {
    uint64_t packets, sent, failed, bytes, capped; /* capped: cut to 65507 */
    double span, elapsed;            /* the trace's and the replay's duration */
    double err_p50, err_p99, err_max; /* send time - scheduled time, s */
} qc_replay_result;

/* Replays o->file to o->target; fills r. Fails on a bad address, an
 * unreadable trace or no socket. */
int qc_replay_run(const qc_replay_params *o, qc_replay_result *r, qc_err *err);

/* proxy workers (see "workers" in proxy.c) */
#define QC_PROXY_WORKERS_MAX 64
/* Starts a worker of a group of proxies on host: lead NULL starts the
 * lead (its listener with SO_REUSEPORT when reuseport), else a worker
 * sharing lead's limiter, accepting on its own SO_REUSEPORT socket of the
 * lead's port, without admin port or series; index < QC_PROXY_WORKERS_MAX
 * names its place. Called on the worker's own thread. */
int qc__proxy_start_worker(uv_loop_t *host, const qc_proxy_config *o, qc_proxy *lead,
                           unsigned index, int reuseport, qc_proxy **out, qc_err *err);
/* Frees a stopped worker (not the lead) once every worker's thread has
 * ended: a worker's memory outlives it, since others may still wake it. */
void qc__proxy_worker_free(qc_proxy *p);

#endif
