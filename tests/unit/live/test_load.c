/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_load.c: the load generator as a library on a loop the test owns
 * (live.h, "the load on a host's loop"), and spread over threads by
 * qc_load_run. Embedded: a load runs beside the test's own timer and a
 * backend on the same loop, ends by itself (done called once), closes,
 * and a second load then runs on the same loop; a drain of an endless
 * load ends it at its deadline; the backend's own count of the requests
 * it served is the truth the load's counts are held to; afterwards the
 * process's signal dispositions and environment are unchanged and the
 * loop closes with no handle left. Threads: a closed loop of a fixed
 * request count and an open loop bounded by count or by duration give
 * the same totals on 2 and 3 threads as on 1 (the parts share one
 * arrival sequence), the merged histograms count every answer, and the
 * backend served exactly what was sent. Two backends share one port
 * with SO_REUSEPORT (qctl backend --threads). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "host.h"

#include "live/live.h"

typedef struct watch {
    int done, closed, done_calls;
    double done_at;
    qc_load_result r;
    qc_load_status st;
} watch;

static void on_done(qc_load *l, void *ctx)
{
    watch *w = ctx;
    w->done = 1;
    w->done_calls++;
    w->done_at = qc__now();
    qc_load_result_get(l, &w->r);
}

static void on_closed(qc_load *l, void *arg)
{
    watch *w = arg;
    qc_load_status_get(l, &w->st);
    w->closed = 1;
}

HOST_CLOSED(bwatch, qc_backend, qc_backend_status, qc_backend_status_get)

static char target[32];

static void conserved(const qc_load_result *r)
{
    assert_int_equal(r->sent, r->answered + r->errors + r->timeouts);
    assert_int_equal(r->answered, r->ok + r->refused + r->other);
}

/* Two loads one after the other on the host's loop, beside the host's
 * timer and a backend on the same loop; then a drained endless load. */
static void test_load_embed(void **state)
{
    (void)state;
    host_snapshot before, after;
    host_snap(&before);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    host_timer_start(&loop, 5);
    qc_backend_params bo = {.listen = "127.0.0.1:0", .workers = 4, .seed = 1};
    qc_err err = {0};
    assert_int_equal(qc_dist_parse(&bo.service, "det:0.002", &err), 0);
    qc_backend *b;
    assert_int_equal(qc_backend_start(&loop, &bo, &b, &err), 0);
    qc_backend_status bs;
    qc_backend_status_get(b, &bs);
    snprintf(target, sizeof target, "127.0.0.1:%d", bs.port);

    qc_dist think;
    assert_int_equal(qc_dist_parse(&think, "det:0.001", &err), 0);
    /* a closed loop of 4 users and 120 requests, then an open loop of 80 */
    qc_arrivals arr;
    assert_int_equal(qc_arrivals_parse(&arr, "exp:400", &err), 0);
    qc_load_params lo[2] = {
        {.target = target, .path = "/", .requests = 120, .connections = 1, .timeout = 5,
         .seed = 3, .users = 4, .think = &think},
        {.target = target, .path = "/", .arrival = &arr, .requests = 80, .connections = 8,
         .timeout = 5, .seed = 3}};
    uint64_t served = 0;
    for (int k = 0; k < 2; k++) {
        watch w = {0};
        lo[k].done = on_done;
        lo[k].done_ctx = &w;
        qc_load *l;
        assert_int_equal(qc_load_start(&loop, &lo[k], &l, &err), 0);
        qc_load_status st;
        qc_load_status_get(l, &st);
        assert_int_equal(st.state, QC_LIVE_RUNNING);
        uint64_t ticks = host_ticks;
        host_run_until(&loop, &w.done, 1, 30);
        assert_true(host_ticks > ticks); /* the host's timer ran beside it */
        assert_int_equal(w.done_calls, 1);
        conserved(&w.r);
        assert_int_equal(w.r.sent, lo[k].requests);
        assert_int_equal(w.r.ok, lo[k].requests);
        assert_true(w.r.p50 >= 0.002 && w.r.p50 < 1);
        qc_load_close(l, on_closed, &w);
        host_run_until(&loop, &w.closed, 1, 30);
        assert_int_equal(w.st.state, QC_LIVE_STOPPED);
        assert_int_equal(w.st.connections, 0);
        assert_int_equal(w.done_calls, 1);
        served += lo[k].requests;
        qc_backend_status_get(b, &bs);
        assert_int_equal(bs.served, served); /* the backend's own count */
    }

    /* an endless load (duration 1000 s) drained with 0.3 s for its answers:
     * it stops issuing at once and ends by the deadline */
    lo[1].requests = 0;
    lo[1].duration = 1000;
    watch w = {0};
    lo[1].done_ctx = &w;
    qc_load *l;
    assert_int_equal(qc_load_start(&loop, &lo[1], &l, &err), 0);
    double t0 = qc__now();
    while (qc__now() - t0 < 0.3)
        uv_run(&loop, UV_RUN_ONCE);
    qc_load_status st;
    qc_load_status_get(l, &st);
    assert_int_equal(st.state, QC_LIVE_RUNNING);
    assert_true(st.sent > 10);
    double t1 = qc__now();
    qc_load_drain(l, 0.3);
    qc_load_status_get(l, &st);
    assert_true(st.state != QC_LIVE_RUNNING);
    uint64_t sent_at_drain = st.sent;
    host_run_until(&loop, &w.done, 1, 30);
    assert_true(w.done_at - t1 < 0.3 + 0.2);
    conserved(&w.r);
    assert_true(w.r.sent <= sent_at_drain + st.waiting);
    qc_load_close(l, on_closed, &w);
    host_run_until(&loop, &w.closed, 1, 30);
    served += w.r.ok;

    bwatch bc = {0};
    qc_backend_drain(b, 5);
    qc_backend_close(b, bwatch_on, &bc);
    host_run_until(&loop, &bc.done, 1, 30);
    assert_int_equal(bc.st.served, served);
    assert_true(uv_is_active((uv_handle_t *)&host_timer));
    uv_close((uv_handle_t *)&host_timer, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_int_equal(uv_loop_close(&loop), 0);
    qc_arrivals_free(&arr);
    qc_dist_free(&think);
    qc_dist_free(&bo.service);
    host_snap(&after);
    host_same(&before, &after);
    free(before.env);
    free(after.env);
}

/* ---- threads --------------------------------------------------------------- */

/* A backend on a loop and thread of its own, for qc_load_run to load. */
typedef struct bthread {
    uv_loop_t loop;
    uv_async_t stop;
    qc_backend *b;
    pthread_t thread;
    bwatch bc;
} bthread;

static void bthread_stop(uv_async_t *a)
{
    bthread *t = a->data;
    qc_backend_close(t->b, bwatch_on, &t->bc);
    uv_close((uv_handle_t *)&t->stop, NULL);
}

static void *bthread_main(void *arg)
{
    bthread *t = arg;
    uv_run(&t->loop, UV_RUN_DEFAULT);
    return NULL;
}

static void bthread_start(bthread *t, qc_backend_params *bo)
{
    qc_err err = {0};
    assert_int_equal(uv_loop_init(&t->loop), 0);
    assert_int_equal(qc_backend_start(&t->loop, bo, &t->b, &err), 0);
    qc_backend_status bs;
    qc_backend_status_get(t->b, &bs);
    snprintf(target, sizeof target, "127.0.0.1:%d", bs.port);
    uv_async_init(&t->loop, &t->stop, bthread_stop);
    t->stop.data = t;
    assert_int_equal(pthread_create(&t->thread, NULL, bthread_main, t), 0);
}

static uint64_t bthread_join(bthread *t)
{
    uv_async_send(&t->stop);
    pthread_join(t->thread, NULL);
    assert_int_equal(uv_loop_close(&t->loop), 0);
    assert_true(t->bc.done);
    return t->bc.st.served;
}

static void test_load_threads(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_backend_params bo = {.listen = "127.0.0.1:0", .workers = 64, .seed = 1};
    assert_int_equal(qc_dist_parse(&bo.service, "det:0.001", &err), 0);
    bthread bt = {0};
    bthread_start(&bt, &bo);
    qc_dist think;
    assert_int_equal(qc_dist_parse(&think, "det:0", &err), 0);
    qc_arrivals arr;
    assert_int_equal(qc_arrivals_parse(&arr, "exp:1500", &err), 0);
    uint64_t sent_all = 0;
    /* 0: closed loop, 8 users, 1201 requests; 1: open loop, 901 requests;
     * 2: open loop for 0.6 s (the count is that of the arrival sequence) */
    for (int kind = 0; kind < 3; kind++) {
        qc_load_result r1 = {0};
        for (unsigned threads = 1; threads <= 3; threads++) {
            qc_load_params o = {.target = target, .path = "/", .connections = 16, .timeout = 5,
                                .seed = 7, .threads = threads};
            if (kind == 0) {
                o.users = 8;
                o.think = &think;
                o.requests = 1201;
            } else {
                o.arrival = &arr;
                if (kind == 1)
                    o.requests = 901;
                else
                    o.duration = 0.6;
            }
            qc_load_result r;
            assert_int_equal(qc_load_run(&o, &r, &err), 0);
            assert_int_equal(r.threads, threads);
            conserved(&r);
            assert_int_equal(r.errors + r.timeouts, 0);
            if (threads == 1) {
                r1 = r;
                if (kind == 0)
                    assert_int_equal(r.sent, 1201);
                if (kind == 1)
                    assert_int_equal(r.sent, 901);
                assert_true(r.sent > 500);
            }
            /* the same totals as one thread, exactly */
            assert_int_equal(r.sent, r1.sent);
            assert_int_equal(r.answered, r1.answered);
            assert_int_equal(r.ok, r1.ok);
            /* the merged histogram holds every answer: its quantiles are
             * those of service times of 1 ms and more, its max one of them */
            assert_true(r.p50 >= 0.001 && r.p50 <= r.p99 && r.p99 <= r.max);
            assert_true(isfinite(r.mean) && r.mean >= 0.001 && r.mean <= r.max);
            if (kind == 0)
                assert_true(isfinite(r.think_mean) && r.think_mean == 0);
            sent_all += r.sent;
        }
    }
    assert_int_equal(bthread_join(&bt), sent_all); /* the backend's own count */
    /* a part needs its share: more threads than users are fewer threads */
    qc_load_params o = {.target = "127.0.0.1:1", .path = "/", .connections = 2, .timeout = 1,
                        .seed = 7, .threads = 4, .users = 2, .think = &think, .requests = 4};
    qc_load_result r;
    assert_int_equal(qc_load_run(&o, &r, &err), 0);
    assert_int_equal(r.threads, 2);
    assert_int_equal(r.sent, 4);
    assert_int_equal(r.errors, 4); /* nothing listens on port 1 */
    /* a series with threads is refused before anything starts */
    o.series = "/nonexistent/never-written.csv";
    o.series_interval = 1;
    assert_int_equal(qc_load_run(&o, &r, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "series"));
    qc_arrivals_free(&arr);
    qc_dist_free(&think);
    qc_dist_free(&bo.service);
}

/* Two backends on two loops and threads of the host's, one port with
 * SO_REUSEPORT (qctl backend --threads 2): the kernel spreads the load's
 * 64 connections over both (each serves some: all on one would be a
 * chance of 2^-63), each holds to its own workers, and together they
 * served exactly what the load sent; then they close as a backend alone. */
static void test_backend_reuseport(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_backend_params bo = {.listen = "127.0.0.1:0", .workers = 3, .seed = 1, .reuseport = 1};
    assert_int_equal(qc_dist_parse(&bo.service, "det:0.002", &err), 0);
    static bthread bt[2];
    memset(bt, 0, sizeof bt);
    bthread_start(&bt[0], &bo);
    char second[32];
    snprintf(second, sizeof second, "%s", target); /* the first's port */
    qc_backend_params b1 = bo;
    b1.listen = second;
    b1.workers = 2;
    b1.stream = 1;
    bthread_start(&bt[1], &b1);
    assert_string_equal(target, second); /* both on one port */
    qc_arrivals arr;
    assert_int_equal(qc_arrivals_parse(&arr, "exp:1000", &err), 0);
    qc_load_params o = {.target = target, .path = "/", .arrival = &arr, .requests = 1000,
                        .connections = 64, .timeout = 5, .seed = 3, .threads = 2};
    qc_load_result r;
    assert_int_equal(qc_load_run(&o, &r, &err), 0);
    conserved(&r);
    assert_int_equal(r.ok, 1000);
    uint64_t served[2];
    for (int i = 0; i < 2; i++) {
        served[i] = bthread_join(&bt[i]);
        assert_true(served[i] > 0);
        assert_true(bt[i].bc.st.busy_max <= (i == 0 ? 3u : 2u));
        assert_int_equal(bt[i].bc.st.state, QC_LIVE_STOPPED);
    }
    assert_int_equal(served[0] + served[1], 1000);
    /* both closed: the port is free again for a backend alone */
    bo.reuseport = 0;
    bo.listen = second;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    qc_backend *b;
    assert_int_equal(qc_backend_start(&loop, &bo, &b, &err), 0);
    bwatch bc = {0};
    qc_backend_close(b, bwatch_on, &bc);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(bc.done);
    assert_int_equal(uv_loop_close(&loop), 0);
    qc_arrivals_free(&arr);
    qc_dist_free(&bo.service);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* the host's part (live.h) */
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_load_embed),
                                       cmocka_unit_test(test_load_threads),
                                       cmocka_unit_test(test_backend_reuseport)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
