/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_embed.c: the live servers as a library on a loop the test owns
 * (qctl/live.h), through the public API alone.
 *
 * One host loop carries a timer of the test's own, a backend, a proxy in
 * front of it and a load generator sending through the proxy: every
 * request is answered 2xx, the host's timer keeps ticking, the proxy is
 * drained and closed, and a second proxy then runs on the same loop and
 * serves too. Afterwards the process is as the test left it: every
 * signal's disposition (sigaction) and the whole environment are
 * compared with copies taken before the first start. A second case
 * drains a proxy whose control interval is 20 s while a request is held
 * 10 s at a slow backend: the drain must end at its own deadline
 * (0.3 s), not at the next control tick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/live.h"

extern char **environ;

#define NSIGS 65 /* 1..64: the standard and the real-time signals */

/* ---- the process's state, before and after ------------------------------ */

typedef struct snapshot {
    struct sigaction sa[NSIGS];
    int have[NSIGS];
    char *env[512];
    size_t nenv;
} snapshot;

static void snap(snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (int i = 1; i < NSIGS; i++)
        s->have[i] = sigaction(i, NULL, &s->sa[i]) == 0;
    for (char **e = environ; *e && s->nenv < 512; e++)
        s->env[s->nenv++] = strdup(*e);
}

static void same(const snapshot *a, const snapshot *b)
{
    for (int i = 1; i < NSIGS; i++) {
        assert_int_equal(a->have[i], b->have[i]);
        if (!a->have[i])
            continue;
        if (a->sa[i].sa_handler != b->sa[i].sa_handler) {
            fprintf(stderr, "signal %d: disposition changed\n", i);
            fail();
        }
        assert_int_equal(a->sa[i].sa_flags, b->sa[i].sa_flags);
    }
    assert_int_equal(a->nenv, b->nenv);
    for (size_t i = 0; i < a->nenv; i++)
        assert_string_equal(a->env[i], b->env[i]);
}

static void snap_free(snapshot *s)
{
    for (size_t i = 0; i < s->nenv; i++)
        free(s->env[i]);
}

/* ---- the host ------------------------------------------------------------ */

typedef struct host {
    uv_loop_t loop;
    uv_timer_t tick;
    unsigned ticks;
    qc_backend *backend;
    qc_proxy *proxy;
    qc_load *load;
    char backend_addr[64], proxy_addr[64];
    qc_dist think;
    qc_load_params lp;
    qc_load_result r;
    int proxies_closed, backend_closed, loads_done, round;
    double t_drain, t_closed;
} host;

static void on_tick(uv_timer_t *t)
{
    ((host *)t->data)->ticks++;
}

static void start_proxy(host *h)
{
    qc_proxy_config pc;
    qc_proxy_params_init(&pc);
    pc.listen = "127.0.0.1:0";
    pc.backend[0] = h->backend_addr;
    pc.nbackends = 1;
    qc_err err = {0};
    assert_int_equal(qc_proxy_start(&h->loop, &pc, &h->proxy, &err), 0);
    qc_proxy_status st;
    qc_proxy_status_get(h->proxy, &st);
    assert_int_equal(st.state, QC_LIVE_RUNNING);
    assert_true(st.port > 0);
    snprintf(h->proxy_addr, sizeof h->proxy_addr, "127.0.0.1:%d", st.port);
}

static void load_closed(qc_load *l, void *arg);

static void start_load(host *h)
{
    qc_load_params *o = &h->lp;
    memset(o, 0, sizeof *o);
    o->target = h->proxy_addr;
    o->path = "/";
    o->users = 4;
    o->think = &h->think;
    o->requests = 200;
    o->connections = 4;
    o->timeout = 5;
    o->seed = 1;
    qc_err err = {0};
    assert_int_equal(qc_load_start(&h->loop, o, &h->load, &err), 0);
    qc_load_close(h->load, load_closed, h); /* told when it reaches its bound */
}

static void proxy_closed(qc_proxy *p, void *arg)
{
    host *h = arg;
    qc_proxy_status st;
    qc_proxy_status_get(p, &st); /* the last moment p may be read */
    assert_int_equal(st.state, QC_LIVE_STOPPED);
    assert_true(st.answered >= 200);
    h->proxies_closed++;
    h->proxy = NULL;
    if (h->round == 1) { /* a second proxy on the same loop */
        h->round = 2;
        start_proxy(h);
        start_load(h);
    } else {
        qc_backend_drain(h->backend, 1);
    }
}

static void load_closed(qc_load *l, void *arg)
{
    host *h = arg;
    assert_int_equal(qc_load_state(l), QC_LIVE_STOPPED);
    qc_err err = {0};
    assert_int_equal(qc_load_result_get(l, &h->r, &err), 0);
    assert_int_equal(h->r.sent, 200);
    assert_int_equal(h->r.ok, 200);
    h->loads_done++;
    qc_proxy_drain(h->proxy, 1);
    qc_proxy_close(h->proxy, proxy_closed, h);
}

static void backend_closed(qc_backend *b, void *arg)
{
    host *h = arg;
    qc_backend_status st;
    qc_backend_status_get(b, &st);
    assert_true(st.served >= 400);
    h->backend_closed = 1;
    uv_close((uv_handle_t *)&h->tick, NULL); /* the host's own: the loop then ends */
}

static void test_two_proxies_one_loop(void **state)
{
    (void)state;
    snapshot before, after;
    snap(&before);
    host *h = calloc(1, sizeof *h);
    assert_non_null(h);
    assert_int_equal(uv_loop_init(&h->loop), 0);
    uv_timer_init(&h->loop, &h->tick);
    h->tick.data = h;
    uv_timer_start(&h->tick, on_tick, 5, 5);
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&h->think, "det:0.001", &err), 0);

    qc_backend_params bp;
    qc_backend_params_init(&bp);
    bp.listen = "127.0.0.1:0";
    bp.workers = 8;
    assert_int_equal(qc_backend_start(&h->loop, &bp, &h->backend, &err), 0);
    qc_backend_close(h->backend, backend_closed, h);
    qc_backend_status bs;
    qc_backend_status_get(h->backend, &bs);
    assert_true(bs.port > 0);
    snprintf(h->backend_addr, sizeof h->backend_addr, "127.0.0.1:%d", bs.port);

    h->round = 1;
    start_proxy(h);
    start_load(h);
    assert_int_equal(uv_run(&h->loop, UV_RUN_DEFAULT), 0);

    assert_int_equal(h->loads_done, 2);
    assert_int_equal(h->proxies_closed, 2);
    assert_int_equal(h->backend_closed, 1);
    assert_true(h->ticks > 0); /* the host's timer ran beside them */
    assert_int_equal(uv_loop_close(&h->loop), 0);
    qc_dist_free(&h->think);
    free(h);
    snap(&after);
    same(&before, &after);
    snap_free(&before);
    snap_free(&after);
}

/* ---- drain on its own timer ---------------------------------------------- */

typedef struct slow {
    uv_loop_t loop;
    uv_timer_t go;
    qc_backend *backend;
    qc_proxy *proxy;
    qc_load *load;
    char backend_addr[64], proxy_addr[64];
    qc_arrivals arr;
    double t_drain, t_closed;
    int done;
} slow;

static void slow_proxy_closed(qc_proxy *p, void *arg)
{
    (void)p;
    slow *s = arg;
    s->t_closed = (double)uv_hrtime() * 1e-9;
    qc_load_drain(s->load, 0);
    qc_backend_drain(s->backend, 0);
}

static void slow_go(uv_timer_t *t)
{
    slow *s = t->data;
    qc_proxy_status st;
    qc_proxy_status_get(s->proxy, &st);
    assert_int_equal(st.inflight, 1); /* held at the backend */
    s->t_drain = (double)uv_hrtime() * 1e-9;
    qc_proxy_drain(s->proxy, 0.3);
    qc_proxy_close(s->proxy, slow_proxy_closed, s);
    uv_close((uv_handle_t *)t, NULL);
}

static void slow_done(qc_load *l, void *arg)
{
    (void)l;
    ((slow *)arg)->done++;
}

static void slow_backend_done(qc_backend *b, void *arg)
{
    (void)b;
    ((slow *)arg)->done++;
}

static void test_drain_long_interval(void **state)
{
    (void)state;
    slow *s = calloc(1, sizeof *s);
    assert_non_null(s);
    assert_int_equal(uv_loop_init(&s->loop), 0);
    qc_err err = {0};
    qc_backend_params bp;
    qc_backend_params_init(&bp);
    bp.listen = "127.0.0.1:0";
    assert_int_equal(qc_dist_parse(&bp.service, "det:10", &err), 0);
    assert_int_equal(qc_backend_start(&s->loop, &bp, &s->backend, &err), 0);
    qc_backend_close(s->backend, slow_backend_done, s);
    qc_backend_status bs;
    qc_backend_status_get(s->backend, &bs);
    snprintf(s->backend_addr, sizeof s->backend_addr, "127.0.0.1:%d", bs.port);

    qc_proxy_config pc;
    qc_proxy_params_init(&pc);
    pc.listen = "127.0.0.1:0";
    pc.backend[0] = s->backend_addr;
    pc.nbackends = 1;
    pc.interval = 20; /* no control tick during the test */
    pc.backend_timeout = 60;
    assert_int_equal(qc_proxy_start(&s->loop, &pc, &s->proxy, &err), 0);
    qc_proxy_status st;
    qc_proxy_status_get(s->proxy, &st);
    snprintf(s->proxy_addr, sizeof s->proxy_addr, "127.0.0.1:%d", st.port);

    /* one request, at once */
    double *t0 = calloc(1, sizeof *t0); /* taken over by the trace */
    assert_non_null(t0);
    assert_int_equal(qc_arrivals_from_times(&s->arr, t0, 1, &err), 0);
    qc_load_params lp = {.target = s->proxy_addr,
                         .path = "/",
                         .arrival = &s->arr,
                         .requests = 1,
                         .connections = 1,
                         .timeout = 30,
                         .seed = 1};
    assert_int_equal(qc_load_start(&s->loop, &lp, &s->load, &err), 0);
    qc_load_close(s->load, slow_done, s);

    uv_timer_init(&s->loop, &s->go);
    s->go.data = s;
    uv_timer_start(&s->go, slow_go, 300, 0); /* the request is at the backend by then */
    assert_int_equal(uv_run(&s->loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(s->done, 2);
    double took = s->t_closed - s->t_drain;
    /* the deadline is 0.3 s; a slack of 0.7 s for a loaded machine, far
     * below the 20 s the control interval would take */
    assert_true(took >= 0.29);
    assert_true(took < 1.0);
    assert_int_equal(uv_loop_close(&s->loop), 0);
    qc_dist_free(&bp.service);
    qc_arrivals_free(&s->arr);
    free(s);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the host's decision, as the API asks */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_proxies_one_loop),
                                       cmocka_unit_test(test_drain_long_interval)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
