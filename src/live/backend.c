/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backend.c: `qctl backend`, a small HTTP server whose service time is a
 * distribution: the plant the live proxy is tested and demonstrated on.
 *
 * It is a queue with W servers: a parsed request takes one of W workers
 * for a service time drawn from the spec, and waits FCFS when all are
 * busy, so its capacity is W / E[S] requests per second and overload
 * shows as a growing queue, as in the models of `qctl sim`. A worker
 * either sleeps (a timer: the loop stays free, thousands of requests can
 * be in service) or burns CPU on libuv's thread pool (the machine itself
 * becomes the bottleneck). One request per connection is served at a
 * time; pipelined requests wait in the connection's buffer. GET /health
 * (or the --health path) answers at once, outside the queue: 503 during a
 * random setup time after start (--setup), then 200, so that a backend the
 * proxy unparks has a real setup time, like the model's. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/socket.h>
#include <unistd.h>

#include "live/http.h"
#include "live/list.h"
#include "live/live.h"
#include "qctl/rng.h"

#ifndef SO_REUSEPORT
#define SO_REUSEPORT 15 /* Linux's, hidden by the strict C11 headers */
#endif

typedef struct bconn bconn;

typedef struct backend {
    uv_loop_t *loop; /* the host's: the backend closes only its own handles */
    uv_tcp_t server;
    qc_backend_params o_copy;
    const qc_backend_params *o; /* &o_copy */
    qc_rng rng;
    unsigned busy;
    bconn *wait_head, *wait_tail;
    double ready_at; /* the health path answers 503 until then (--setup) */
    double freed_at; /* the nominal end of the service that freed a worker
                        (0: none): the next waiting request starts then */
    /* the lifecycle, as the proxy's (proxy.c, "lifecycle"): its handles
     * and the CPU bursts on the thread pool counted until called back,
     * its connections on a list, the drain timer opened first and closed
     * last */
    bconn *conns_head, *conns_tail;
    unsigned handles;
    uv_timer_t drain_timer;
    int listening, draining, stopped, close_requested;
    double drain_until;
    void (*on_closed)(qc_backend *b, void *arg);
    void *on_closed_arg;
    int port;
    uint64_t requests, served;
    unsigned busy_max, nconns;
    unsigned char *piece; /* --body's pattern (see respond_body) */
    char slab[65536];     /* the read buffer: on_read copies out */
} backend;

struct bconn {
    uv_tcp_t tcp; /* first: the handle's address is the connection's */
    uv_timer_t timer;
    uv_work_t work;
    backend *b;
    qc__buf in;
    double service;
    double t_ready; /* the request was whole (its arrival at the queue) */
    double t_end;   /* its service's nominal end (timer mode: see start) */
    int busy, keep, closing, handles_open, working, queued;
    int head_method; /* the request is HEAD: answer the head alone */
    bconn *next;
    bconn *all_prev, *all_next; /* b's connections */
};

static void handle_closed(backend *b);

static void process(bconn *c);

static void maybe_free(bconn *c)
{
    if (c->handles_open == 0 && !c->working) {
        backend *b = c->b;
        QC__LIST_REMOVE(b->conns_head, b->conns_tail, c, all_prev, all_next);
        b->nconns--;
        qc__buf_free(&c->in);
        free(c);
    }
}

static void on_handle_closed(uv_handle_t *h)
{
    bconn *c = h->data;
    backend *b = c->b;
    c->handles_open--;
    maybe_free(c);
    handle_closed(b); /* last: it may free b */
}

static void unqueue(bconn *c)
{
    backend *b = c->b;
    bconn **pp = &b->wait_head, *prev = NULL;
    while (*pp && *pp != c) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = c->next;
        if (b->wait_tail == c)
            b->wait_tail = prev;
    }
    c->queued = 0;
}

static void conn_close(bconn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->queued)
        unqueue(c);
    uv_close((uv_handle_t *)&c->tcp, on_handle_closed);
    uv_close((uv_handle_t *)&c->timer, on_handle_closed);
}

static void conn_close_cb(void *c)
{
    conn_close(c);
}

/* Closes after the pending writes are out. */
static void close_after_write(bconn *c)
{
    qc__close_after_write((uv_stream_t *)&c->tcp, conn_close_cb, c);
}

static void respond(bconn *c, int status, const char *reason, const char *body, int keep)
{
    char head[512];
    size_t n = strlen(body);
    int k = c->b->o->http10 /* close-delimited: the caller closes after it */
                ? snprintf(head, sizeof head,
                           "HTTP/1.0 %d %s\r\nContent-Type: text/plain\r\n\r\n%s", status, reason,
                           body)
                : snprintf(head, sizeof head,
                           "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: "
                           "%zu\r\n%s\r\n%s",
                           status, reason, n, keep ? "" : "Connection: close\r\n", body);
    if (k > 0 && (size_t)k < sizeof head)
        qc__write_copy((uv_stream_t *)&c->tcp, head, (size_t)k - (c->head_method ? n : 0));
}

/* --body: a body of o->body bytes, written as 1 MiB pieces of one static
 * pattern (byte i of a piece is (7 i + 3) mod 256), so no size needs a
 * buffer of its size; chunked, each piece is one chunk. */
#define PIECE (1u << 20)

static void on_piece_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

static void write_static(bconn *c, const void *p, size_t n)
{
    uv_write_t *req = malloc(sizeof *req);
    uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
    if (req && uv_write(req, (uv_stream_t *)&c->tcp, &b, 1, on_piece_written) != 0)
        free(req);
}

static void respond_body(bconn *c, uint64_t size, int chunked, int keep)
{
    char head[256];
    if (c->b->o->http10)
        chunked = 0;
    int k = c->b->o->http10
                ? snprintf(head, sizeof head,
                           "HTTP/1.0 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n")
            : chunked ? snprintf(head, sizeof head,
                               "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                               "Transfer-Encoding: chunked\r\n%s\r\n",
                               keep ? "" : "Connection: close\r\n")
                    : snprintf(head, sizeof head,
                               "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                               "Content-Length: %llu\r\n%s\r\n",
                               (unsigned long long)size, keep ? "" : "Connection: close\r\n");
    qc__write_copy((uv_stream_t *)&c->tcp, head, (size_t)k);
    if (c->head_method)
        return;
    const unsigned char *piece = c->b->piece;
    static const char crlf[] = "\r\n", last[] = "0\r\n\r\n";
    for (uint64_t off = 0; off < size; off += PIECE) {
        size_t n = size - off < PIECE ? (size_t)(size - off) : PIECE;
        if (chunked) {
            char line[32];
            int m = snprintf(line, sizeof line, "%zx\r\n", n);
            qc__write_copy((uv_stream_t *)&c->tcp, line, (size_t)m);
        }
        write_static(c, piece, n);
        if (chunked)
            write_static(c, crlf, 2);
    }
    if (chunked)
        write_static(c, last, sizeof last - 1);
}

static void bad_request(bconn *c, const char *why)
{
    c->head_method = 0;
    char body[256];
    snprintf(body, sizeof body, "bad request: %s\n", why);
    respond(c, 400, "Bad Request", body, 0);
    close_after_write(c);
}

static void start_next(backend *b);

static void on_keepalive_timer(uv_timer_t *t)
{
    conn_close(t->data);
}

/* --keepalive-timeout: an idle kept-alive connection is closed after it
 * (the timer is the service timer's, free while no request is served). */
static void keepalive_wait(bconn *c)
{
    double t = c->b->o->keepalive_timeout;
    if (t > 0 && !c->busy && !c->closing && !c->working)
        uv_timer_start(&c->timer, on_keepalive_timer, (uint64_t)llround(t * 1000), 0);
}

static void served(bconn *c)
{
    backend *b = c->b;
    b->busy--;
    b->served++;
    c->busy = 0;
    b->freed_at = c->t_end;
    if (!c->closing) {
        if (b->o->body)
            respond_body(c, b->o->body, b->o->chunked, c->keep);
        else
            respond(c, 200, "OK", "ok\n", c->keep);
        if (c->keep && !b->o->http10) {
            process(c);
            keepalive_wait(c);
        } else {
            close_after_write(c);
        }
    }
    start_next(b);
}

static void on_timer(uv_timer_t *t)
{
    served(t->data);
}

static void burn(uv_work_t *w)
{
    bconn *c = w->data;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    volatile double x = 1;
    do {
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < c->service);
}

static void after_burn(uv_work_t *w, int status)
{
    (void)status;
    bconn *c = w->data;
    backend *b = c->b;
    c->working = 0;
    served(c);
    if (c->closing)
        maybe_free(c);
    handle_closed(b); /* the burst is over: last, it may free b */
}

static void start(bconn *c)
{
    backend *b = c->b;
    if (++b->busy > b->busy_max)
        b->busy_max = b->busy;
    double s = qc_dist_sample(&b->o->service, &b->rng);
    c->service = s > 0 && isfinite(s) ? s : 0;
    if (b->o->cpu) {
        c->working = 1;
        b->handles++; /* counted back in after_burn */
        c->work.data = c;
        uv_queue_work(b->loop, &c->work, burn, after_burn);
    } else {
        /* The service ends at its nominal instant: it began when the
         * request was whole or, if it waited, when the service before it
         * nominally ended, not when the loop got to it, so a timer late
         * by the loop's latency and its millisecond grain delays each
         * answer a little but never the ones after it: the backend
         * delivers W / E[S] a second under a backlog (started when the
         * callback ran, 4 workers of det:0.01 gave 10-15% less on a
         * loaded host). The timer counts from the loop's own clock,
         * rounded up: never early. */
        double t0 = c->t_ready > b->freed_at ? c->t_ready : b->freed_at;
        c->t_end = t0 + c->service;
        double ms = ceil((c->t_end - (double)uv_now(b->loop) * 1e-3) * 1e3 - 1e-6);
        uv_timer_start(&c->timer, on_timer, ms > 0 ? (uint64_t)ms : 0, 0);
    }
    b->freed_at = 0;
}

static void start_next(backend *b)
{
    while (b->busy < b->o->workers && b->wait_head) {
        bconn *c;
        QC__FIFO_POP(b->wait_head, b->wait_tail, c, next);
        c->queued = 0;
        start(c);
    }
}

/* Parses the next complete request in the buffer, if any, and queues it;
 * 1 when it answered one at once (a health check) and the next may follow. */
static int process_one(bconn *c)
{
    if (c->busy || c->closing)
        return 0;
    qc__http_head h;
    const char *why;
    long total = qc__http_request_head(&c->in, &h, &why);
    if (total > 0)
        total = qc__http_message_len(c->in.data, c->in.len, &h, 1u << 24, &why);
    if (total < 0) {
        bad_request(c, why);
        return 0;
    }
    if (total == 0)
        return 0;
    const char *hp = c->b->o->health ? c->b->o->health : "/health";
    int health =
        h.target.len == strlen(hp) && memcmp(c->in.data + h.target.off, hp, h.target.len) == 0;
    c->keep = h.keep_alive;
    c->head_method = qc__http_is_head(c->in.data, &h);
    c->b->requests++;
    qc__buf_consume(&c->in, (size_t)total);
    if (health) {
        if (qc__now() < c->b->ready_at)
            respond(c, 503, "Service Unavailable", "in setup\n", c->keep);
        else
            respond(c, 200, "OK", "ready\n", c->keep);
        if (!c->keep || c->b->o->http10) {
            close_after_write(c);
            return 0;
        }
        return 1;
    }
    c->busy = 1;
    c->t_ready = qc__now();
    backend *b = c->b;
    if (b->busy < b->o->workers) {
        start(c);
        return 0;
    }
    c->queued = 1;
    QC__FIFO_PUSH(b->wait_head, b->wait_tail, c, next);
    return 0;
}

/* Answers the buffered requests in a loop (pipelined health checks are
 * answered at once: a recursion per request would let one burst exhaust
 * the stack). */
static void process(bconn *c)
{
    while (process_one(c))
        ;
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    backend *b = ((bconn *)h->data)->b;
    *buf = uv_buf_init(b->slab, sizeof b->slab);
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    bconn *c = s->data;
    if (n < 0) {
        conn_close(c);
        return;
    }
    if (n == 0)
        return;
    if (!c->busy)
        uv_timer_stop(&c->timer); /* the keep-alive wait is over */
    if (qc__buf_append(&c->in, buf->base, (size_t)n) != 0) {
        conn_close(c);
        return;
    }
    process(c);
    keepalive_wait(c);
}

static void on_connection(uv_stream_t *server, int status)
{
    backend *b = server->data;
    if (status < 0)
        return;
    bconn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->b = b;
    c->handles_open = qc__conn_init(b->loop, &c->tcp, &c->timer, c);
    b->handles += 2;
    b->nconns++;
    QC__LIST_PUSH_TAIL(b->conns_head, b->conns_tail, c, all_prev, all_next);
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        conn_close(c);
        return;
    }
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    keepalive_wait(c);
}

/* ---- lifecycle (live.h, "the backend on a host's loop") ---------------- */

static void finish(backend *b)
{
    if (b->on_closed)
        b->on_closed(b, b->on_closed_arg);
    free(b->piece);
    free(b);
}

static void own_closed(uv_handle_t *h)
{
    handle_closed(h->data);
}

static void handle_closed(backend *b)
{
    b->handles--;
    if (b->handles == 0)
        finish(b);
    else if (b->handles == 1 && b->stopped && b->close_requested &&
             !uv_is_closing((uv_handle_t *)&b->drain_timer))
        uv_close((uv_handle_t *)&b->drain_timer, own_closed);
}

static void close_listener(backend *b)
{
    if (b->listening) {
        b->listening = 0;
        uv_close((uv_handle_t *)&b->server, own_closed);
    }
}

/* Closes every connection (requests in service are cut) and the listener;
 * a burst on the thread pool finishes first (libuv cannot stop it). */
static void stop_all(backend *b)
{
    if (b->stopped)
        return;
    b->stopped = b->draining = 1;
    uv_timer_stop(&b->drain_timer);
    close_listener(b);
    for (bconn *c = b->conns_head; c; c = c->all_next)
        conn_close(c);
    if (b->handles == 1 && b->close_requested)
        uv_close((uv_handle_t *)&b->drain_timer, own_closed);
}

static void on_drain_timer(uv_timer_t *t);

static void drain_check(backend *b)
{
    if (b->stopped)
        return;
    double left = b->drain_until - qc__now();
    if ((b->busy == 0 && !b->wait_head) || !(left > 0)) {
        stop_all(b);
        return;
    }
    uint64_t ms = left < 0.01 ? (uint64_t)ceil(left * 1000) : 10;
    uv_timer_start(&b->drain_timer, on_drain_timer, ms ? ms : 1, 0);
}

static void on_drain_timer(uv_timer_t *t)
{
    drain_check(t->data);
}

void qc_backend_drain(backend *b, double timeout)
{
    if (b->stopped)
        return;
    double until = qc__now() + (timeout > 0 ? timeout : 0);
    if (!b->draining) {
        b->draining = 1;
        b->drain_until = until;
        close_listener(b);
    } else if (until < b->drain_until) {
        b->drain_until = until;
    }
    drain_check(b);
}

void qc_backend_close(backend *b, void (*on_closed)(qc_backend *, void *), void *arg)
{
    if (b->close_requested)
        return;
    b->close_requested = 1;
    b->on_closed = on_closed;
    b->on_closed_arg = arg;
    if (!b->draining)
        qc_backend_drain(b, 0);
    else if (b->stopped && b->handles == 1)
        uv_close((uv_handle_t *)&b->drain_timer, own_closed);
}

void qc_backend_status_get(const backend *b, qc_backend_status *st)
{
    memset(st, 0, sizeof *st);
    st->state = b->stopped ? QC_LIVE_STOPPED : b->draining ? QC_LIVE_DRAINING : QC_LIVE_RUNNING;
    st->port = b->port;
    st->requests = b->requests;
    st->served = b->served;
    st->busy = b->busy;
    st->busy_max = b->busy_max;
    st->connections = b->nconns;
    for (const bconn *c = b->wait_head; c; c = c->next)
        st->waiting++;
}

int qc_backend_start(uv_loop_t *loop, const qc_backend_params *o, qc_backend **out, qc_err *err)
{
    *out = NULL;
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(o->listen, &addr, err);
    if (rc)
        return rc;
    if (o->workers == 0)
        return qc_err_set(err, QC_EINVAL, "workers: must be >= 1");
    backend *b = calloc(1, sizeof *b);
    if (!b || (o->body && !(b->piece = malloc(PIECE)))) {
        free(b);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    if (b->piece)
        for (size_t i = 0; i < PIECE; i++)
            b->piece[i] = (unsigned char)(7 * i + 3);
    b->o_copy = *o;
    b->o = &b->o_copy;
    b->loop = loop;
    qc_rng_init(&b->rng, o->seed, qc_rng_stream(0, QC_STREAM_SERVICE, o->stream));
    b->ready_at = qc__now();
    if (o->has_setup) { /* its own stream: the service times stay as without */
        qc_rng wr;
        qc_rng_init(&wr, o->seed, qc_rng_stream(0, QC_STREAM_SERVER, 0));
        double w = qc_dist_sample(&o->setup, &wr);
        b->ready_at += w > 0 && isfinite(w) ? w : 0;
    }
    uv_timer_init(loop, &b->drain_timer); /* first: closed last */
    b->drain_timer.data = b;
    uv_tcp_init(loop, &b->server);
    b->server.data = b;
    b->handles = 2;
    b->listening = 1;
    if (o->reuseport)
        rc = qc__bind_reuseport(&b->server, &addr, o->listen, err);
    else if ((rc = uv_tcp_bind(&b->server, (struct sockaddr *)&addr, 0)) != 0)
        rc = qc_err_set(err, QC_EIO, "%s: %s", o->listen, uv_strerror(rc));
    if (rc == 0 && (rc = uv_listen((uv_stream_t *)&b->server, 1024, on_connection)) != 0)
        rc = qc_err_set(err, QC_EIO, "%s: %s", o->listen, uv_strerror(rc));
    else if (o->port_file)
        rc = qc__write_port(&b->server, o->port_file, err);
    if (rc != 0) { /* what was opened closes on the loop's next turn, b with it */
        b->close_requested = 1;
        stop_all(b);
        return rc;
    }
    struct sockaddr_storage ss;
    int len = sizeof ss;
    b->port = uv_tcp_getsockname(&b->server, (struct sockaddr *)&ss, &len) == 0
                  ? qc__addr_port(&ss)
                  : 0;
    *out = b;
    return 0;
}

int qc_backend_params_check(const qc_backend_params *o, qc_err *err)
{
    if (o->workers == 0)
        return qc_err_set(err, QC_EINVAL, "workers: must be >= 1");
    if (o->health && o->health[0] != '/')
        return qc_err_set(err, QC_EINVAL, "health: '%s' does not start with /", o->health);
    struct sockaddr_storage a;
    int rc = qc__addr_parse(o->listen, &a, err);
    if (rc) {
        qc_err_prefix(err, "listen");
        return rc;
    }
    return qc__bind_probe(o->listen, err);
}
