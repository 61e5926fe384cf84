/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_gate_embed.c: the TCP gate as a library on a loop the test owns
 * (gate.h, "the gate on a host's loop"). The test's loop carries its own
 * timer, its own backend (a TCP echo server written here, independent of
 * qctl's, that counts the connections it holds at once) and its own
 * clients; a gate started on it relays sessions under its limit, drains
 * and closes without touching the test's handles, and a second gate then
 * runs on the same loop (and two side by side). The drain ends at its own
 * deadline whatever the control interval (1e300 s). Afterwards the
 * process's signal dispositions and environment are what they were, and
 * the loop closes with no handle left open. */
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

#include "live/gate.h"

/* ---- the test's own echo backend ----------------------------------------- */

typedef struct econn {
    uv_tcp_t tcp;
    char buf[4096];
} econn;

static struct {
    uv_tcp_t listener;
    int port;
    unsigned open, open_max;
    uint64_t sessions, bytes;
} E;

static void e_closed(uv_handle_t *h)
{
    E.open--;
    free(h->data);
}

static void e_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    econn *c = h->data;
    *b = uv_buf_init(c->buf, sizeof c->buf);
}

static void e_written(uv_write_t *w, int status)
{
    (void)status;
    free(w);
}

static void e_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    if (n < 0) {
        if (!uv_is_closing((uv_handle_t *)s))
            uv_close((uv_handle_t *)s, e_closed);
        return;
    }
    if (n == 0)
        return;
    E.bytes += (uint64_t)n;
    uv_write_t *w = malloc(sizeof *w + (size_t)n);
    assert_non_null(w);
    memcpy(w + 1, b->base, (size_t)n);
    uv_buf_t out = uv_buf_init((char *)(w + 1), (unsigned)n);
    assert_int_equal(uv_write(w, s, &out, 1, e_written), 0);
}

static void e_conn(uv_stream_t *srv, int status)
{
    assert_int_equal(status, 0);
    econn *c = calloc(1, sizeof *c);
    assert_non_null(c);
    uv_tcp_init(srv->loop, &c->tcp);
    c->tcp.data = c;
    assert_int_equal(uv_accept(srv, (uv_stream_t *)&c->tcp), 0);
    E.open++;
    E.sessions++;
    if (E.open > E.open_max)
        E.open_max = E.open;
    uv_read_start((uv_stream_t *)&c->tcp, e_alloc, e_read);
}

static void e_start(uv_loop_t *loop)
{
    memset(&E, 0, sizeof E);
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", 0, &a);
    uv_tcp_init(loop, &E.listener);
    assert_int_equal(uv_tcp_bind(&E.listener, (const struct sockaddr *)&a, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&E.listener, 128, e_conn), 0);
    struct sockaddr_storage ss;
    int len = sizeof ss;
    uv_tcp_getsockname(&E.listener, (struct sockaddr *)&ss, &len);
    E.port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* ---- the test's clients: connect, send, read the echo, hold, close -------- */

typedef struct client {
    uv_tcp_t tcp;
    uv_connect_t conn;
    uv_write_t w;
    uv_timer_t hold;
    char buf[64];
    size_t got;
    int echoed, closed_early, handles;
} client;

static unsigned clients_open, clients_echoed, clients_cut;
static unsigned hold_ms = 40; /* how long a session lasts after its echo (0: until the gate ends it) */

static void c_closed(uv_handle_t *h)
{
    client *c = h->data;
    if (--c->handles == 0) {
        clients_open--;
        free(c);
    }
}

static void c_close(client *c)
{
    if (!uv_is_closing((uv_handle_t *)&c->tcp)) {
        uv_close((uv_handle_t *)&c->tcp, c_closed);
        uv_close((uv_handle_t *)&c->hold, c_closed);
    }
}

static void c_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    (void)hint;
    client *c = h->data;
    *b = uv_buf_init(c->buf + c->got, (unsigned)(sizeof c->buf - c->got));
}

static void c_hold_over(uv_timer_t *t)
{
    c_close(t->data);
}

static void c_read(uv_stream_t *s, ssize_t n, const uv_buf_t *b)
{
    (void)b;
    client *c = s->data;
    if (n < 0) { /* closed by the gate before (or after) its echo */
        if (!c->echoed)
            clients_cut++;
        c_close(c);
        return;
    }
    c->got += (size_t)n;
    if (!c->echoed && c->got >= 5) {
        assert_memory_equal(c->buf, "hello", 5);
        c->echoed = 1;
        clients_echoed++;
        if (hold_ms) /* the session lasts a while */
            uv_timer_start(&c->hold, c_hold_over, hold_ms, 0);
    }
}

static void c_written(uv_write_t *w, int status)
{
    (void)w;
    (void)status;
}

static void c_connected(uv_connect_t *r, int status)
{
    client *c = r->data;
    if (status < 0) {
        clients_cut++;
        c_close(c);
        return;
    }
    uv_buf_t b = uv_buf_init("hello", 5);
    uv_write(&c->w, (uv_stream_t *)&c->tcp, &b, 1, c_written);
    uv_read_start((uv_stream_t *)&c->tcp, c_alloc, c_read);
}

static void c_start(uv_loop_t *loop, int port)
{
    client *c = calloc(1, sizeof *c);
    assert_non_null(c);
    uv_tcp_init(loop, &c->tcp);
    uv_timer_init(loop, &c->hold);
    c->tcp.data = c->hold.data = c->conn.data = c;
    c->handles = 2;
    clients_open++;
    struct sockaddr_in a;
    uv_ip4_addr("127.0.0.1", port, &a);
    assert_int_equal(uv_tcp_connect(&c->conn, &c->tcp, (const struct sockaddr *)&a, c_connected),
                     0);
}

/* ---- the host's own timer and the gate's end ----------------------------- */

static int gates_closed;
static qc_gate_status last_status;
static void on_gate_closed(qc_gate *g, void *arg)
{
    (void)arg;
    qc_gate_status_get(g, &last_status);
    gates_closed++;
}

static void run_until(uv_loop_t *loop, int *flag, int want, double seconds)
{
    uint64_t end = uv_hrtime() + (uint64_t)(seconds * 1e9);
    while (*flag < want && uv_hrtime() < end)
        uv_run(loop, UV_RUN_ONCE);
}

static void run_until_u(uv_loop_t *loop, unsigned *v, unsigned want, double seconds)
{
    uint64_t end = uv_hrtime() + (uint64_t)(seconds * 1e9);
    while (*v < want && uv_hrtime() < end)
        uv_run(loop, UV_RUN_ONCE);
}

static char backend_addr[64];

static void params(qc_gate_params *o, double limit, double interval)
{
    qc_gate_params_init(o);
    o->listen = "127.0.0.1:0";
    snprintf(backend_addr, sizeof backend_addr, "127.0.0.1:%d", E.port);
    o->backend = backend_addr;
    o->limit = limit;
    o->interval = interval;
    o->queue = 64;
    o->queue_timeout = 5;
}

/* 20 sessions at once through limit 3: all echoed, the backend never holds
 * more than 3 and holds 3; drain, close; the host's timer ran throughout
 * and still runs; then a second gate on the same loop, and two at once. */
static void test_embed_gate(void **state)
{
    (void)state;
    host_snapshot before, after;
    host_snap(&before);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    host_timer_start(&loop, 5);
    e_start(&loop);

    qc_gate_params o;
    params(&o, 3, 0.05);
    qc_gate *g = NULL;
    qc_err err = {0};
    assert_int_equal(qc_gate_start(&loop, &o, &g, &err), 0);
    assert_non_null(g);
    qc_gate_status st;
    qc_gate_status_get(g, &st);
    assert_true(st.port > 0);
    assert_int_equal(st.limit, 3);
    assert_int_equal(st.state, QC_LIVE_RUNNING);
    clients_echoed = clients_cut = 0;
    for (int i = 0; i < 20; i++)
        c_start(&loop, st.port);
    run_until_u(&loop, &clients_echoed, 20, 20);
    assert_int_equal(clients_echoed, 20);
    assert_int_equal(clients_cut, 0);
    while (clients_open)
        uv_run(&loop, UV_RUN_ONCE);
    qc_gate_status_get(g, &st);
    assert_int_equal(st.accepted, 20);
    assert_int_equal(st.admitted, 20);
    assert_int_equal(st.refused + st.expired, 0);
    assert_int_equal(E.sessions, 20);
    assert_int_equal(E.open_max, 3); /* the limit, reached, never passed */
    char m[16384];
    size_t mn = qc_gate_metrics(g, m, sizeof m);
    assert_true(mn > 0 && mn < sizeof m);
    assert_non_null(strstr(m, "qctl_gate_sessions_total{outcome=\"admitted\"} 20\n"));
    uint64_t ticks = host_ticks;
    assert_true(ticks > 0);
    qc_gate_drain(g, 1);
    gates_closed = 0;
    qc_gate_close(g, on_gate_closed, NULL);
    run_until(&loop, &gates_closed, 1, 5);
    assert_int_equal(gates_closed, 1);
    assert_int_equal(last_status.state, QC_LIVE_STOPPED);
    assert_int_equal(last_status.cut, 0);
    assert_true(uv_is_active((uv_handle_t *)&host_timer)); /* the host's timer is the host's */

    /* a second gate on the same loop, then two side by side */
    qc_gate *g2 = NULL, *g3 = NULL;
    params(&o, 1, 0.05);
    assert_int_equal(qc_gate_start(&loop, &o, &g2, &err), 0);
    params(&o, 2, 0.05);
    assert_int_equal(qc_gate_start(&loop, &o, &g3, &err), 0);
    qc_gate_status s2, s3;
    qc_gate_status_get(g2, &s2);
    qc_gate_status_get(g3, &s3);
    assert_int_not_equal(s2.port, s3.port);
    E.open_max = 0;
    clients_echoed = 0;
    for (int i = 0; i < 4; i++)
        c_start(&loop, s2.port);
    run_until_u(&loop, &clients_echoed, 4, 20);
    assert_int_equal(clients_echoed, 4);
    while (clients_open)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(E.open_max, 1);
    E.open_max = 0;
    clients_echoed = 0;
    for (int i = 0; i < 6; i++)
        c_start(&loop, s3.port);
    run_until_u(&loop, &clients_echoed, 6, 20);
    assert_int_equal(clients_echoed, 6);
    while (clients_open)
        uv_run(&loop, UV_RUN_ONCE);
    assert_int_equal(E.open_max, 2);
    gates_closed = 0;
    qc_gate_close(g2, on_gate_closed, NULL);
    qc_gate_close(g3, on_gate_closed, NULL);
    run_until(&loop, &gates_closed, 2, 5);
    assert_int_equal(gates_closed, 2);

    /* a failed start (the port of the backend's listener) leaves nothing */
    qc_gate *bad = NULL;
    params(&o, 1, 0.05);
    char taken[64];
    snprintf(taken, sizeof taken, "127.0.0.1:%d", E.port);
    o.listen = taken;
    assert_true(qc_gate_start(&loop, &o, &bad, &err) != 0);
    assert_null(bad);
    assert_non_null(strstr(err.msg, "--listen"));

    uv_close((uv_handle_t *)&host_timer, NULL);
    uv_close((uv_handle_t *)&E.listener, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    host_snap(&after);
    host_same(&before, &after);
    free(before.env);
    free(after.env);
}

/* The drain ends at its deadline whatever the control interval: a session
 * that never ends, --interval 1e300, drain 0.3 s: the gate stops within
 * about 0.3 s and counts the session cut. */
static void test_drain_interval(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    e_start(&loop);
    qc_gate_params o;
    params(&o, 2, 1e300);
    o.idle_timeout = 0;
    qc_gate *g = NULL;
    qc_err err = {0};
    assert_int_equal(qc_gate_start(&loop, &o, &g, &err), 0);
    qc_gate_status st;
    qc_gate_status_get(g, &st);
    clients_echoed = clients_cut = 0;
    hold_ms = 0;
    c_start(&loop, st.port);
    run_until_u(&loop, &clients_echoed, 1, 10);
    assert_int_equal(clients_echoed, 1);
    qc_gate_status_get(g, &st);
    assert_int_equal(st.connected, 1);
    uint64_t t0 = uv_hrtime();
    gates_closed = 0;
    qc_gate_drain(g, 0.3);
    qc_gate_close(g, on_gate_closed, NULL);
    run_until(&loop, &gates_closed, 1, 10);
    double took = (double)(uv_hrtime() - t0) / 1e9;
    assert_int_equal(gates_closed, 1);
    assert_int_equal(last_status.cut, 1);
    assert_true(took >= 0.29 && took < 2.0);
    while (clients_open) /* the client sees its session end */
        uv_run(&loop, UV_RUN_ONCE);
    hold_ms = 40;
    uv_close((uv_handle_t *)&E.listener, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the host's part (gate.h) */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_embed_gate),
        cmocka_unit_test(test_drain_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
