/* SPDX-License-Identifier: GPL-3.0-or-later */
/* nest.c: a component's loop run from its host's loop (see nest.h). */
#include "live/nest.h"

static void rearm(qc__nest *n);

/* Whether the inner loop has watchers not yet given to epoll: libuv
 * queues a uv__io_start and makes the epoll_ctl call at the start of its
 * next poll, so a connection accepted (or a read started) by a callback
 * is invisible on the backend descriptor until the inner loop polls once
 * more. The host must not block before that: rearm polls the inner loop
 * again while any are queued. The queue is a private field of uv_loop_t
 * (its layout differs from libuv 1.45 on). */
static int watchers_queued(const uv_loop_t *l)
{
#if UV_VERSION_HEX >= 0x012d00
    return l->watcher_queue.next != &l->watcher_queue;
#else
    return l->watcher_queue[0] != (const void *)&l->watcher_queue;
#endif
}

static void host_closed(uv_handle_t *h)
{
    qc__nest *n = h->data;
    if (--n->open > 0)
        return;
    /* the inner loop has nothing alive: its own close cannot fail */
    uv_loop_close(&n->inner);
    n->done_called = 1;
    n->done(n->arg);
}

/* The inner loop is over: the host handles go, then done. */
static void end(qc__nest *n)
{
    if (n->open == 0 || uv_is_closing((uv_handle_t *)&n->prep))
        return;
    uv_close((uv_handle_t *)&n->poll, host_closed);
    uv_close((uv_handle_t *)&n->timer, host_closed);
    uv_close((uv_handle_t *)&n->prep, host_closed);
}

static void run_inner(qc__nest *n)
{
    uv_run(&n->inner, UV_RUN_NOWAIT);
    if (n->finishing && !uv_loop_alive(&n->inner))
        end(n);
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    (void)status;
    (void)events;
    run_inner(p->data);
}

static void on_timer(uv_timer_t *t)
{
    run_inner(t->data);
}

/* Before the host blocks: wake when the inner loop's next timer is due,
 * at once when it has callbacks pending or handles closing. */
static void rearm(qc__nest *n)
{
    if (uv_is_closing((uv_handle_t *)&n->prep))
        return;
    if (n->finishing && !uv_loop_alive(&n->inner)) {
        end(n);
        return;
    }
    /* watchers queued: poll the inner loop until none are (its callbacks
     * may queue more; after a few rounds the host just does not block) */
    for (int i = 0; i < 8 && watchers_queued(&n->inner); i++)
        uv_run(&n->inner, UV_RUN_NOWAIT);
    if (n->finishing && !uv_loop_alive(&n->inner)) {
        end(n);
        return;
    }
    /* both loops' cached times are from the start of their last
     * iteration: the inner loop's next timeout is counted from now */
    uv_update_time(&n->inner);
    uv_update_time(n->host);
    int t = watchers_queued(&n->inner) ? 0 : uv_backend_timeout(&n->inner);
    if (t < 0)
        uv_timer_stop(&n->timer);
    else
        uv_timer_start(&n->timer, on_timer, (uint64_t)t, 0);
}

static void on_prepare(uv_prepare_t *p)
{
    rearm(p->data);
}

int qc__nest_init(qc__nest *n, qc_err *err)
{
    *n = (qc__nest){0};
    int rc = uv_loop_init(&n->inner);
    if (rc != 0)
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    return 0;
}

void qc__nest_abort(qc__nest *n)
{
    uv_run(&n->inner, UV_RUN_DEFAULT); /* the close callbacks of its handles */
    uv_loop_close(&n->inner);
}

int qc__nest_attach(qc__nest *n, uv_loop_t *host, qc_err *err)
{
    n->host = host;
    int rc = uv_poll_init(host, &n->poll, uv_backend_fd(&n->inner));
    if (rc != 0)
        return qc_err_set(err, QC_EIO, "event loop: polling its descriptor: %s", uv_strerror(rc));
    uv_timer_init(host, &n->timer);
    uv_prepare_init(host, &n->prep);
    n->poll.data = n->timer.data = n->prep.data = n;
    n->open = 3;
    uv_poll_start(&n->poll, UV_READABLE, on_poll);
    uv_prepare_start(&n->prep, on_prepare);
    /* the poll handle keeps the host's loop alive while the component
     * lives, as a handle of its own would; the prepare handle need not */
    uv_unref((uv_handle_t *)&n->prep);
    return 0;
}

void qc__nest_finish(qc__nest *n, void (*done)(void *arg), void *arg)
{
    n->done = done;
    n->arg = arg;
    n->finishing = 1;
    /* wake the host at once to look (the prepare handle re-arms) */
    uv_timer_start(&n->timer, on_timer, 0, 0);
}
