/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load.c: `qctl load`, an open-loop HTTP load generator.
 *
 * Open loop means arrivals do not wait for answers: request i is due at
 * t_0 + T_i, T_i the i-th time of the arrival process (qctl/arrivals.h: a
 * renewal process, a rate schedule, a curve, a trace), whatever the
 * server is doing. Its latency is measured from t_i, its intended send time, not
 * from when a connection was free to carry it; otherwise a slow server
 * would slow the generator down and hide its own queueing (coordinated
 * omission). A request due while every connection is busy waits in the
 * generator's own queue, and that wait counts.
 *
 * Accounting is the point of the tests built on it: every request issued
 * ends exactly once, as answered (by status: 2xx, 503, other), as an
 * error (its connection failed before a full answer) or as a timeout, so
 * sent = answered + errors + timeouts at the end of every run. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/http.h"
#include "live/live.h"
#include "qctl/hist.h"
#include "qctl/rng.h"

typedef struct lconn lconn;

typedef struct pending {
    double due;
    struct pending *next;
} pending;

typedef struct load {
    uv_loop_t *loop;
    const qc_load_opts *o;
    struct sockaddr_in addr;
    qc_rng rng;
    qc_arrivals_gen gen;
    uv_timer_t arrive, tick;
    double t0, next_due;
    int issuing;
    unsigned open_conns;
    lconn *idle;
    pending *wait_head, *wait_tail;
    uint64_t waiting;
    qc_load_result *r;
    qc_hist *all, *ok;
    char req[1024];
    size_t req_len;
} load;

struct lconn {
    uv_tcp_t tcp;
    uv_connect_t connect;
    load *L;
    qc__buf in;
    int connected, active, closing;
    double due; /* of the request in flight */
    lconn *next_idle;
};

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static void dispatch(load *L);
static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf);

static void on_closed(uv_handle_t *h)
{
    lconn *c = h->data;
    qc__buf_free(&c->in);
    free(c);
}

static void finish(load *L, double due, int status)
{
    double lat = qc__now() - due;
    L->r->answered++;
    qc_hist_add(L->all, lat);
    if (status >= 200 && status < 300) {
        L->r->ok++;
        qc_hist_add(L->ok, lat);
    } else if (status == 503) {
        L->r->refused++;
    } else {
        L->r->other++;
    }
}

static void remove_idle(load *L, lconn *c)
{
    for (lconn **pp = &L->idle; *pp; pp = &(*pp)->next_idle)
        if (*pp == c) {
            *pp = c->next_idle;
            return;
        }
}

static void conn_fail(lconn *c)
{
    load *L = c->L;
    if (c->closing)
        return;
    c->closing = 1;
    if (c->active) {
        L->r->errors++;
        c->active = 0;
    }
    remove_idle(L, c);
    L->open_conns--;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    dispatch(L);
}

static void send_on(lconn *c, double due)
{
    c->active = 1;
    c->due = due;
    c->L->r->sent++;
    if (qc__write_copy((uv_stream_t *)&c->tcp, c->L->req, c->L->req_len) != 0)
        conn_fail(c);
}

static void on_connect(uv_connect_t *req, int status)
{
    lconn *c = req->data;
    if (status < 0) {
        conn_fail(c);
        return;
    }
    c->connected = 1;
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)h;
    (void)hint;
    static char slab[65536];
    *buf = uv_buf_init(slab, sizeof slab);
}

/* Sends the request due at `due` on an idle connection, a new one, or
 * queues it. */
static void issue(load *L, double due)
{
    if (L->idle) {
        lconn *c = L->idle;
        L->idle = c->next_idle;
        send_on(c, due);
        return;
    }
    if (L->open_conns < L->o->connections) {
        lconn *c = calloc(1, sizeof *c);
        if (c) {
            c->L = L;
            uv_tcp_init(L->loop, &c->tcp);
            c->tcp.data = c->connect.data = c;
            L->open_conns++;
            /* The request is written at once; libuv queues it until the
             * connection is up. */
            if (uv_tcp_connect(&c->connect, &c->tcp, (struct sockaddr *)&L->addr, on_connect) !=
                0) {
                L->r->sent++;
                c->active = 1;
                conn_fail(c);
                return;
            }
            send_on(c, due);
            return;
        }
    }
    pending *p = malloc(sizeof *p);
    if (!p) {
        L->r->sent++;
        L->r->errors++;
        return;
    }
    p->due = due;
    p->next = NULL;
    if (L->wait_tail)
        L->wait_tail->next = p;
    else
        L->wait_head = p;
    L->wait_tail = p;
    L->waiting++;
}

/* A connection freed or closed: give it the oldest waiting request. */
static void dispatch(load *L)
{
    while (L->wait_head && (L->idle || L->open_conns < L->o->connections)) {
        pending *p = L->wait_head;
        L->wait_head = p->next;
        if (!L->wait_head)
            L->wait_tail = NULL;
        L->waiting--;
        double due = p->due;
        free(p);
        issue(L, due);
    }
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lconn *c = s->data;
    load *L = c->L;
    if (n < 0) {
        conn_fail(c);
        return;
    }
    if (n == 0 || qc__buf_append(&c->in, buf->base, (size_t)n) != 0)
        return;
    for (;;) {
        qc__http_head h;
        const char *why;
        int rc = qc__http_parse_head(c->in.data, c->in.len, 0, &h, &why);
        if (rc < 0 || (rc > 0 && !c->active)) {
            conn_fail(c);
            return;
        }
        if (rc == 0)
            return;
        size_t total = h.head_len;
        if (h.chunked) {
            qc__http_chunked ch = {0};
            int done = 0;
            long m = qc__http_chunked_feed(&ch, c->in.data + total, c->in.len - total, &done, &why);
            if (m < 0) {
                conn_fail(c);
                return;
            }
            if (!done)
                return;
            total += (size_t)m;
        } else if (h.content_length > 0) {
            if (c->in.len - total < (size_t)h.content_length)
                return;
            total += (size_t)h.content_length;
        } else if (h.content_length < 0 && h.status != 204 && h.status != 304) {
            conn_fail(c); /* a body to the close: not used by qctl's servers */
            return;
        }
        qc__buf_consume(&c->in, total);
        c->active = 0;
        finish(L, c->due, h.status);
        if (!h.keep_alive) {
            c->closing = 1;
            L->open_conns--;
            uv_close((uv_handle_t *)&c->tcp, on_closed);
            dispatch(L);
            return;
        }
        if (L->wait_head) {
            pending *p = L->wait_head;
            L->wait_head = p->next;
            if (!L->wait_head)
                L->wait_tail = NULL;
            L->waiting--;
            double due = p->due;
            free(p);
            send_on(c, due);
        } else {
            c->next_idle = L->idle;
            L->idle = c;
        }
    }
}

static int done_issuing(load *L)
{
    if (L->o->requests && L->r->sent + L->waiting >= L->o->requests)
        return 1;
    return L->o->duration > 0 && L->next_due - L->t0 >= L->o->duration;
}

static void on_arrive(uv_timer_t *t)
{
    load *L = t->data;
    double now = qc__now();
    while (L->issuing && L->next_due <= now) {
        if (done_issuing(L)) {
            L->issuing = 0;
            break;
        }
        issue(L, L->next_due);
        double at = qc_arrivals_next(&L->gen);
        if (!isfinite(at)) { /* a trace or a schedule ended */
            L->issuing = 0;
            break;
        }
        L->next_due = L->t0 + at;
    }
    if (L->issuing) {
        double wait = L->next_due - qc__now();
        uv_timer_start(&L->arrive, on_arrive, wait > 0 ? (uint64_t)(wait * 1000) : 0, 0);
    }
}

static void close_all(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (uv_is_closing(h))
        return;
    if (h->type == UV_TCP) {
        lconn *c = h->data;
        c->closing = 1;
        uv_close(h, on_closed);
    } else {
        uv_close(h, NULL);
    }
}

/* Ends the run once nothing is in flight, or times the stragglers out. */
static void on_tick(uv_timer_t *t)
{
    load *L = t->data;
    if (L->issuing)
        return;
    double now = qc__now();
    uint64_t outstanding = L->r->sent + L->waiting - L->r->answered - L->r->errors;
    int late = now - L->next_due > L->o->timeout;
    if (outstanding && !late)
        return;
    L->r->timeouts += outstanding;
    uv_walk(L->loop, close_all, NULL);
    pending *p = L->wait_head;
    while (p) {
        pending *next = p->next;
        free(p);
        p = next;
    }
    L->r->sent += L->waiting; /* queued then timed out: sent in intent */
    L->wait_head = L->wait_tail = NULL;
    L->waiting = 0;
    L->r->elapsed = now - L->t0;
}

int qc_load_run(const qc_load_opts *o, qc_load_result *r, qc_err *err)
{
    memset(r, 0, sizeof *r);
    load L = {.o = o, .r = r};
    int rc = qc__addr_parse(o->target, &L.addr, err);
    if (rc)
        return rc;
    if (!o->requests && !(o->duration > 0) && o->arrival->kind != QC_ARRIVALS_TRACE)
        return qc_err_set(err, QC_EINVAL, "a bound is needed: --requests or --duration");
    if (o->connections == 0)
        return qc_err_set(err, QC_EINVAL, "connections: must be >= 1");
    int k =
        snprintf(L.req, sizeof L.req, "GET %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n", o->path, o->target,
                 o->class_header ? o->class_header : "", o->class_header ? "\r\n" : "");
    if (k <= 0 || (size_t)k >= sizeof L.req)
        return qc_err_set(err, QC_EINVAL, "request line too long");
    L.req_len = (size_t)k;
    L.all = qc_hist_alloc();
    L.ok = qc_hist_alloc();
    if (!L.all || !L.ok) {
        qc_hist_free(L.all);
        qc_hist_free(L.ok);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    signal(SIGPIPE, SIG_IGN);
    L.loop = uv_default_loop();
    qc_rng_init(&L.rng, o->seed, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    uv_timer_init(L.loop, &L.arrive);
    uv_timer_init(L.loop, &L.tick);
    L.arrive.data = L.tick.data = &L;
    qc_arrivals_gen_init(&L.gen, o->arrival, &L.rng);
    double first = qc_arrivals_next(&L.gen);
    L.t0 = qc__now();
    L.next_due = L.t0 + first;
    L.issuing = isfinite(first);
    uv_timer_start(&L.arrive, on_arrive, 0, 0);
    uv_timer_start(&L.tick, on_tick, 10, 10);
    uv_run(L.loop, UV_RUN_DEFAULT);
    uv_loop_close(L.loop);
    r->p50 = qc_hist_quantile(L.all, 0.5);
    r->p95 = qc_hist_quantile(L.all, 0.95);
    r->p99 = qc_hist_quantile(L.all, 0.99);
    r->max = qc_hist_quantile(L.all, 1);
    r->ok_p50 = qc_hist_quantile(L.ok, 0.5);
    r->ok_p95 = qc_hist_quantile(L.ok, 0.95);
    r->ok_p99 = qc_hist_quantile(L.ok, 0.99);
    qc_hist_free(L.all);
    qc_hist_free(L.ok);
    return 0;
}
