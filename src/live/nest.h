/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nest.h: a live component's own libuv loop, run from its host's loop.
 *
 * A component (proxy, gate, backend, load) keeps every handle it opens on
 * a loop of its own, so that closing "everything" (uv_walk) closes its
 * handles and never the host's, and two components can share a host loop.
 * The inner loop is driven from the host's loop as libuv documents for
 * embedding one loop in another: its backend descriptor (epoll) is polled
 * by a uv_poll_t on the host's loop, a host timer fires at the inner
 * loop's next timeout (uv_backend_timeout), and a host prepare handle
 * re-arms that timer before the host's loop blocks (so work the host
 * queued on the component, or callbacks the inner loop has pending, run
 * in the same host iteration). Each wake runs the inner loop once
 * without blocking (UV_RUN_NOWAIT).
 *
 * A start opens its handles on the inner loop and attaches it to the host
 * last, so that a failed start leaves nothing on the host's loop.
 *
 * The end: once the component has closed its handles it asks for
 * qc__nest_finish; when the inner loop has nothing left alive the host
 * handles are closed, the inner loop is closed, and done(arg) runs. */
#ifndef QCTL_LIVE_NEST_H
#define QCTL_LIVE_NEST_H

#include <uv.h>

#include "qctl/error.h"

typedef struct qc__nest {
    uv_loop_t inner;
    uv_loop_t *host;
    uv_poll_t poll;
    uv_timer_t timer;
    uv_prepare_t prep;
    int open;      /* host handles still open */
    int finishing; /* qc__nest_finish was asked */
    int done_called;
    void (*done)(void *arg);
    void *arg;
} qc__nest;

/* Initializes n's inner loop. 0, or QC_EIO. */
int qc__nest_init(qc__nest *n, qc_err *err);
/* A start that failed before qc__nest_attach: runs the inner loop until
 * the handles the component closed are closed, and closes it. The host's
 * loop is not touched. */
void qc__nest_abort(qc__nest *n);
/* Drives the inner loop from host from now on (the component's setup
 * succeeded). 0, or QC_EIO (then qc__nest_abort). n must not move until
 * done has run. */
int qc__nest_attach(qc__nest *n, uv_loop_t *host, qc_err *err);
/* The loop the component opens its handles on. */
static inline uv_loop_t *qc__nest_loop(qc__nest *n) { return &n->inner; }
/* Once the inner loop has nothing alive: closes the host handles and the
 * inner loop, then calls done(arg) (from a host callback, never from
 * within this call). */
void qc__nest_finish(qc__nest *n, void (*done)(void *arg), void *arg);

#endif
