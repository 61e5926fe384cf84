/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_embed.c: the proxy as a library on a loop the test owns
 * (live.h, "the proxy on a host's loop"). The test's loop carries its own
 * timer, its own backend (a small HTTP server written here, independent of
 * qctl's: it counts what it is sent) and its own clients; a proxy started
 * on it serves requests, drains and closes without touching the test's
 * handles, and a second proxy then runs on the same loop. The drain ends
 * at its own deadline whatever the control interval (20 s, 1e300 s), and
 * at once when nothing is in flight. Afterwards the process's signal
 * dispositions and environment are what they were, and the loop closes
 * with no handle left open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "host.h"

#include "live/live.h"

/* ---- the test's own backend: answers each request after its delay ------- */

typedef struct bconn {
    uv_tcp_t tcp;
    uv_timer_t timer;
    char buf[4096];
    size_t len;
    int open;
} bconn;

typedef struct backend {
    uv_tcp_t listener;
    int port;
    unsigned inflight, inflight_max;
    uint64_t requests;
} backend;

static backend B;

static void bconn_closed(uv_handle_t *h)
{
    bconn *c = h->data;
    if (--c->open == 0)
        free(c);
}

static void bconn_close(bconn *c)
{
    if (!uv_is_closing((uv_handle_t *)&c->tcp)) {
        uv_close((uv_handle_t *)&c->tcp, bconn_closed);
        uv_close((uv_handle_t *)&c->timer, bconn_closed);
    }
}

static void b_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    bconn *c = h->data;
    *buf = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - c->len));
}

static void b_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void b_next(bconn *c);

/* The delay is over: the answer, then the next request of the link. */
static void b_answer(uv_timer_t *t)
{
    bconn *c = t->data;
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    uv_write_t *w = malloc(sizeof *w);
    assert_non_null(w);
    uv_buf_t b = uv_buf_init((char *)ok, sizeof ok - 1);
    uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, b_written);
    B.inflight--;
    char *end = strstr(c->buf, "\r\n\r\n");
    size_t used = (size_t)(end - c->buf) + 4;
    memmove(c->buf, c->buf + used, c->len - used);
    c->len -= used;
    c->buf[c->len] = 0;
    b_next(c);
}

/* A whole request head in the buffer starts its delay: /slow 5 s, else 20 ms. */
static void b_next(bconn *c)
{
    if (uv_is_active((uv_handle_t *)&c->timer) || !strstr(c->buf, "\r\n\r\n"))
        return;
    B.requests++;
    if (++B.inflight > B.inflight_max)
        B.inflight_max = B.inflight;
    uint64_t ms = strncmp(c->buf, "GET /slow", 9) == 0 ? 5000 : 20;
    uv_timer_start(&c->timer, b_answer, ms, 0);
}

static void b_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    bconn *c = s->data;
    if (n < 0) {
        if (uv_is_active((uv_handle_t *)&c->timer))
            B.inflight--;
        bconn_close(c);
        return;
    }
    c->len += (size_t)n;
    assert_true(c->len < sizeof c->buf);
    c->buf[c->len] = 0;
    b_next(c);
}

static void b_connection(uv_stream_t *server, int status)
{
    assert_int_equal(status, 0);
    bconn *c = calloc(1, sizeof *c);
    assert_non_null(c);
    uv_tcp_init(server->loop, &c->tcp);
    uv_timer_init(server->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    c->open = 2;
    assert_int_equal(uv_accept(server, (uv_stream_t *)&c->tcp), 0);
    uv_read_start((uv_stream_t *)&c->tcp, b_alloc, b_read);
}

static void backend_start(uv_loop_t *loop)
{
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &B.listener);
    assert_int_equal(uv_tcp_bind(&B.listener, (struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&B.listener, 128, b_connection), 0);
    struct sockaddr_in got;
    int len = sizeof got;
    uv_tcp_getsockname(&B.listener, (struct sockaddr *)&got, &len);
    B.port = ntohs(got.sin_port);
}

/* ---- the test's clients: one request each, Connection: close ------------- */

typedef struct client {
    uv_tcp_t tcp;
    uv_connect_t conn;
    char out[128];
    char in[1024];
    size_t len;
    int *status; /* where its status goes: 200, 503..., or -1 (no answer) */
    unsigned *left;
} client;

static void c_closed(uv_handle_t *h)
{
    client *c = h->data;
    int st = -1;
    if (c->len >= 12 && strncmp(c->in, "HTTP/1.1 ", 9) == 0)
        st = atoi(c->in + 9);
    *c->status = st;
    --*c->left;
    free(c);
}

static void c_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    client *c = h->data;
    *buf = uv_buf_init(c->in + c->len, (unsigned)(sizeof c->in - 1 - c->len));
}

static void c_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    (void)buf;
    client *c = s->data;
    if (n < 0 || c->len + (size_t)n >= sizeof c->in - 1) {
        uv_close((uv_handle_t *)&c->tcp, c_closed);
        return;
    }
    c->len += (size_t)n;
}

static void c_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void c_connected(uv_connect_t *r, int status)
{
    client *c = r->data;
    if (status != 0) {
        uv_close((uv_handle_t *)&c->tcp, c_closed);
        return;
    }
    uv_write_t *w = malloc(sizeof *w);
    assert_non_null(w);
    uv_buf_t b = uv_buf_init(c->out, (unsigned)strlen(c->out));
    uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, c_written);
    uv_read_start((uv_stream_t *)&c->tcp, c_alloc, c_read);
}

static void request(uv_loop_t *loop, int port, const char *path, int *status, unsigned *left)
{
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->status = status;
    c->left = left;
    ++*left;
    snprintf(c->out, sizeof c->out, "GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
             path);
    uv_tcp_init(loop, &c->tcp);
    c->tcp.data = c->conn.data = c;
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", port, &a);
    assert_int_equal(uv_tcp_connect(&c->conn, &c->tcp, (struct sockaddr *)&a, c_connected), 0);
}

/* ---- the host: its timer, and the loop run until a condition holds ------ */

static int zero_left(unsigned left)
{
    return left == 0;
}

static void run_until_answered(uv_loop_t *loop, const unsigned *left)
{
    double t0 = qc__now();
    while (!zero_left(*left)) {
        uv_run(loop, UV_RUN_ONCE);
        assert_true(qc__now() - t0 < 20);
    }
}

typedef struct closed {
    int done;
    double at;
    qc_proxy_status st;
    char metrics[1 << 16];
    size_t mlen;
} closed;

static void on_closed(qc_proxy *p, void *arg)
{
    closed *c = arg;
    qc_proxy_status_get(p, &c->st);
    c->mlen = qc_proxy_metrics(p, c->metrics, sizeof c->metrics);
    c->at = qc__now();
    c->done = 1;
}

static char backend_addr[32];

static void params(qc_proxy_params *o, double interval)
{
    qc_proxy_params_init(o);
    o->listen = "127.0.0.1:0";
    snprintf(backend_addr, sizeof backend_addr, "127.0.0.1:%d", B.port);
    o->backend[0] = backend_addr;
    o->nbackends = 1;
    o->interval = interval;
}

/* Serves n requests through p; every one is answered 200. */
static void serve(uv_loop_t *loop, qc_proxy *p, unsigned n)
{
    qc_proxy_status st;
    qc_proxy_status_get(p, &st);
    assert_int_equal(st.state, QC_LIVE_RUNNING);
    assert_true(st.port > 0);
    int status[64];
    unsigned left = 0;
    assert_true(n <= 64);
    uint64_t before = B.requests, ticks = host_ticks;
    for (unsigned i = 0; i < n; i++)
        request(loop, st.port, "/", &status[i], &left);
    run_until_answered(loop, &left);
    for (unsigned i = 0; i < n; i++)
        assert_int_equal(status[i], 200);
    assert_int_equal(B.requests - before, n);
    assert_true(host_ticks > ticks); /* the host's timer ran meanwhile */
    qc_proxy_status_get(p, &st);
    assert_true(st.answered >= n);
}

/* A request held at the backend (5 s) when the drain starts: the drain
 * ends at its deadline, cutting it, whatever the control interval. */
static void drain_cuts_at_deadline(uv_loop_t *loop, double interval, double timeout)
{
    qc_proxy_params o;
    params(&o, interval);
    qc_proxy *p;
    qc_err err = {0};
    assert_int_equal(qc_proxy_start(loop, &o, &p, &err), 0);
    serve(loop, p, 4);
    int held;
    unsigned left = 0;
    qc_proxy_status st;
    qc_proxy_status_get(p, &st);
    request(loop, st.port, "/slow", &held, &left);
    double t0 = qc__now();
    while (qc_proxy_status_get(p, &st), st.inflight == 0) {
        uv_run(loop, UV_RUN_ONCE);
        assert_true(qc__now() - t0 < 10);
    }
    closed c = {0};
    double t_drain = qc__now();
    qc_proxy_drain(p, timeout);
    qc_proxy_close(p, on_closed, &c);
    host_run_until(loop, &c.done, 1, 20);
    double took = c.at - t_drain;
    print_message("interval %g s, drain timeout %g s: closed after %.3f s, cut %u\n", interval,
                  timeout, took, c.st.cut);
    assert_true(took >= timeout - 0.002);
    assert_true(took < timeout + 0.5); /* the deadline, not the 20 s interval */
    assert_int_equal(c.st.cut, 1);
    assert_int_equal(c.st.state, QC_LIVE_STOPPED);
    run_until_answered(loop, &left);
    assert_int_equal(held, -1); /* cut: its connection closed unanswered */
}

static void test_embed(void **state)
{
    (void)state;
    host_snapshot before, after;
    host_snap(&before);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    backend_start(&loop);
    host_timer_start(&loop, 5);

    /* the first proxy: serves, drains (nothing in flight: at once), closes */
    qc_proxy_params o;
    params(&o, 0.1);
    qc_proxy *p;
    qc_err err = {0};
    assert_int_equal(qc_proxy_start(&loop, &o, &p, &err), 0);
    serve(&loop, p, 40);
    closed c1 = {0};
    double t0 = qc__now();
    qc_proxy_drain(p, 30);
    qc_proxy_close(p, on_closed, &c1);
    host_run_until(&loop, &c1.done, 1, 20);
    assert_true(c1.at - t0 < 0.5); /* nothing in flight: not the 30 s deadline */
    assert_int_equal(c1.st.cut, 0);
    assert_int_equal(c1.st.answered, 40);
    assert_int_equal(c1.st.state, QC_LIVE_STOPPED);
    assert_non_null(strstr(c1.metrics, "qctl_answered_total"));
    assert_non_null(strstr(c1.metrics, "qctl_inflight 0\n"));
    assert_true(c1.mlen < sizeof c1.metrics);
    /* the host's handles are the host's */
    assert_true(uv_is_active((uv_handle_t *)&host_timer));
    assert_true(uv_is_active((uv_handle_t *)&B.listener));

    /* a second proxy on the same loop, and a third beside it at once */
    qc_proxy *p2, *p3;
    assert_int_equal(qc_proxy_start(&loop, &o, &p2, &err), 0);
    assert_int_equal(qc_proxy_start(&loop, &o, &p3, &err), 0);
    serve(&loop, p2, 30);
    serve(&loop, p3, 10);
    /* requests in flight when the drain starts finish within it */
    qc_proxy_status st;
    qc_proxy_status_get(p2, &st);
    int status[8];
    unsigned left = 0;
    for (int i = 0; i < 8; i++)
        request(&loop, st.port, "/", &status[i], &left);
    t0 = qc__now();
    while (qc_proxy_status_get(p2, &st), st.inflight + st.queued < 8) {
        uv_run(&loop, UV_RUN_ONCE);
        assert_true(qc__now() - t0 < 10);
    }
    closed c2 = {0}, c3 = {0};
    qc_proxy_drain(p2, 10);
    qc_proxy_close(p2, on_closed, &c2);
    qc_proxy_close(p3, on_closed, &c3); /* not drained: drained with timeout 0 */
    host_run_until(&loop, &c2.done, 1, 20);
    host_run_until(&loop, &c3.done, 1, 20);
    run_until_answered(&loop, &left);
    assert_int_equal(c2.st.cut, 0);
    unsigned n200 = 0;
    for (int i = 0; i < 8; i++) { /* admitted: answered; waiting: refused by the drain */
        assert_true(status[i] == 200 || status[i] == 503);
        n200 += status[i] == 200;
    }
    assert_true(n200 >= 1);
    assert_int_equal(c2.st.answered, 30 + n200);
    assert_int_equal(c3.st.answered, 10);

    /* the drain's deadline whatever the interval */
    drain_cuts_at_deadline(&loop, 20, 0.3);
    drain_cuts_at_deadline(&loop, 1e300, 0.3);

    /* a failed start opens nothing that outlives the loop's next turn */
    qc_proxy_params bad;
    params(&bad, 0.1);
    char taken[32];
    snprintf(taken, sizeof taken, "127.0.0.1:%d", B.port);
    bad.listen = taken; /* the backend's port: the bind fails */
    qc_proxy *px = (qc_proxy *)&bad;
    int rc = qc_proxy_start(&loop, &bad, &px, &err);
    assert_int_not_equal(rc, 0);
    assert_null(px);
    assert_non_null(strstr(err.msg, taken));

    /* the host closes its own handles; nothing of the proxies is left */
    uv_close((uv_handle_t *)&host_timer, NULL);
    uv_close((uv_handle_t *)&B.listener, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_true(B.inflight_max >= 1);
    host_snap(&after);
    host_same(&before, &after);
    free(before.env);
    free(after.env);
}

HOST_CLOSED(bclosed, qc_backend, qc_backend_status, qc_backend_status_get)

/* qctl's backend on the host's loop too, behind a proxy on the same loop:
 * it counts what it served, drains (nothing in service: at once) and
 * closes, leaving the host's timer and nothing else. */
static void test_backend_embed(void **state)
{
    (void)state;
    host_snapshot before, after;
    host_snap(&before);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    host_timer_start(&loop, 5);
    qc_backend_params bo = {.listen = "127.0.0.1:0", .workers = 4, .seed = 1};
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&bo.service, "det:0.01", &err), 0);
    qc_backend *b;
    assert_int_equal(qc_backend_start(&loop, &bo, &b, &err), 0);
    qc_backend_status bs;
    qc_backend_status_get(b, &bs);
    assert_true(bs.port > 0);
    B.port = bs.port; /* params() points the proxy at it */
    qc_proxy_params o;
    params(&o, 0.1);
    qc_proxy *p;
    assert_int_equal(qc_proxy_start(&loop, &o, &p, &err), 0);
    qc_proxy_status st;
    qc_proxy_status_get(p, &st);
    int status[20];
    unsigned left = 0;
    for (int i = 0; i < 20; i++)
        request(&loop, st.port, "/", &status[i], &left);
    run_until_answered(&loop, &left);
    for (int i = 0; i < 20; i++)
        assert_int_equal(status[i], 200);
    closed pc = {0};
    bclosed bc = {0};
    qc_proxy_close(p, on_closed, &pc);
    host_run_until(&loop, &pc.done, 1, 20);
    qc_backend_drain(b, 5);
    qc_backend_close(b, bclosed_on, &bc);
    host_run_until(&loop, &bc.done, 1, 20);
    assert_int_equal(bc.st.served, 20);
    assert_int_equal(bc.st.requests, 20);
    assert_true(bc.st.busy_max >= 1 && bc.st.busy_max <= 4);
    assert_int_equal(bc.st.state, QC_LIVE_STOPPED);
    qc_dist_free(&bo.service);
    assert_true(uv_is_active((uv_handle_t *)&host_timer));
    uv_close((uv_handle_t *)&host_timer, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    host_snap(&after);
    host_same(&before, &after);
    free(before.env);
    free(after.env);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the host's part (live.h) */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_embed),
                                       cmocka_unit_test(test_backend_embed)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
