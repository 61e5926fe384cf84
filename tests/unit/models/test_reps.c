/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_reps.c: the replication harness (models/reps.h) with a model of its
 * own whose replications finish out of order on purpose.
 *
 * Replication 0 does not finish until PARKED later replications have
 * finished: they finish before their turn, so they must be parked in the
 * spare workspaces and merged afterwards, in order, by whoever merges
 * replication 0. Checked: every replication merged once, in the order 0,
 * 1, 2, ..., from the workspace it ran in; the later replications ran
 * while replication 0 was still running (the wait is bounded: a harness
 * that idled its workers instead fails the check, it does not hang). A
 * failing replication stops the merges at it, whatever the timing, and
 * its code, index and message are the run's. With one worker the same.
 * Spares set up on demand (qc__reps.more) are made when a replication is
 * parked and no workspace is free, and only then. On Linux, a worker
 * started away from its creator's CPU runs its replications with every
 * CPU the process may use (the start was a hint, not a pinning). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_EQUAL */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "models/reps.h"

enum { R = 12, JOBS = 2, NWS = 2 * JOBS, PARKED = NWS - 1 };

typedef struct model {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned finished_later; /* replications > 0 run to their end */
    int waited_ok;           /* replication 0 saw PARKED of them finish */
    int fail_at;             /* this replication fails (-1: none) */
    unsigned merged[R], nmerged;
    unsigned ran_in[R];      /* the workspace each replication ran in */
    unsigned merged_from[R]; /* the workspace each was merged from */
} model;

typedef struct ws {
    unsigned id;
    unsigned rep;
} ws;

static int run(void *ctx, void *w_, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    (void)w;
    model *m = ctx;
    ws *x = w_;
    x->rep = rep;
    m->ran_in[rep] = x->id;
    pthread_mutex_lock(&m->mu);
    if (rep == 0) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 20;
        int rc = 0;
        while (m->finished_later < PARKED && rc == 0)
            rc = pthread_cond_timedwait(&m->cv, &m->mu, &until);
        m->waited_ok = m->finished_later >= PARKED;
    } else {
        m->finished_later++;
        pthread_cond_broadcast(&m->cv);
    }
    pthread_mutex_unlock(&m->mu);
    if ((int)rep == m->fail_at)
        return qc_err_set(err, QC_EINVAL, "replication %u refused", rep);
    return 0;
}

static int merge(void *ctx, void *w_, unsigned rep, qc_err *err)
{
    (void)err;
    model *m = ctx;
    ws *x = w_;
    assert_int_equal(x->rep, rep); /* the workspace still holds it */
    m->merged_from[rep] = x->id;
    m->merged[m->nmerged++] = rep;
    return 0;
}

static unsigned made; /* spares set up by more */

static int more(void *ctx, unsigned i)
{
    (void)ctx;
    (void)i;
    made++;
    return 0;
}

static int go_lazy(model *m, unsigned jobs, unsigned nws, unsigned nready, unsigned *failed,
                   qc_err *err);

static int go(model *m, unsigned jobs, unsigned nws, unsigned *failed, qc_err *err)
{
    return go_lazy(m, jobs, nws, 0, failed, err);
}

static int go_lazy(model *m, unsigned jobs, unsigned nws, unsigned nready, unsigned *failed,
                   qc_err *err)
{
    ws w[NWS];
    void *wp[NWS];
    for (unsigned i = 0; i < NWS; i++) {
        w[i].id = i;
        w[i].rep = UINT32_MAX;
        wp[i] = &w[i];
    }
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    qc__reps h = {jobs, wp, run, merge, m, NULL, NULL, 0, R, NULL, nws, nready,
                  nready ? more : NULL};
    int rc = qc__reps_run(&h, 0, R, failed, err);
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    return rc;
}

static void test_parked_merged_in_order(void **state)
{
    (void)state;
    model m;
    memset(&m, 0, sizeof m);
    m.fail_at = -1;
    qc_err err = {0};
    assert_int_equal(go(&m, JOBS, NWS, NULL, &err), 0);
    assert_true(m.waited_ok); /* replications 1..PARKED finished before 0 */
    assert_int_equal(m.nmerged, R);
    for (unsigned r = 0; r < R; r++) {
        assert_int_equal(m.merged[r], r);
        assert_int_equal(m.merged_from[r], m.ran_in[r]);
    }
}

/* The spares set up only when a replication is parked and no workspace
 * is free (qc__reps.more): the same order, and the spares were made. */
static void test_spares_made_when_needed(void **state)
{
    (void)state;
    model m;
    memset(&m, 0, sizeof m);
    m.fail_at = -1;
    made = 0;
    qc_err err = {0};
    assert_int_equal(go_lazy(&m, JOBS, NWS, JOBS, NULL, &err), 0);
    assert_true(m.waited_ok);
    assert_int_equal(made, NWS - JOBS);
    assert_int_equal(m.nmerged, R);
    for (unsigned r = 0; r < R; r++) {
        assert_int_equal(m.merged[r], r);
        assert_int_equal(m.merged_from[r], m.ran_in[r]);
    }
}

static void test_failure_stops_in_order(void **state)
{
    (void)state;
    model m;
    memset(&m, 0, sizeof m);
    m.fail_at = 2; /* finishes (and fails) before replication 0 */
    qc_err err = {0};
    unsigned failed = 99;
    assert_int_equal(go(&m, JOBS, NWS, &failed, &err), QC_EINVAL);
    assert_int_equal(failed, 2);
    assert_string_equal(err.msg, "replication 2 refused");
    assert_int_equal(m.nmerged, 2); /* 0 and 1, not 2 nor any after it */
    assert_int_equal(m.merged[0], 0);
    assert_int_equal(m.merged[1], 1);
}

/* One worker: nothing to park; replication 0 is not made to wait. */
static int run_one(void *ctx, void *w_, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    model *m = ctx;
    m->finished_later = PARKED;
    return run(ctx, w_, rep, w, err);
}

static void test_one_worker(void **state)
{
    (void)state;
    model m;
    memset(&m, 0, sizeof m);
    m.fail_at = -1;
    ws w = {0, UINT32_MAX};
    void *wp[1] = {&w};
    pthread_mutex_init(&m.mu, NULL);
    pthread_cond_init(&m.cv, NULL);
    qc__reps h = {1, wp, run_one, merge, &m, NULL, NULL, 0, R, NULL, 0, 0, NULL};
    qc_err err = {0};
    assert_int_equal(qc__reps_run(&h, 0, R, NULL, &err), 0);
    pthread_cond_destroy(&m.cv);
    pthread_mutex_destroy(&m.mu);
    assert_int_equal(m.nmerged, R);
    for (unsigned r = 0; r < R; r++)
        assert_int_equal(m.merged[r], r);
}

/* Every replication, on whichever worker, runs with the process's whole
 * CPU set: the workers started away from the caller's CPU have widened
 * their affinity again. */
#ifdef __linux__
static cpu_set_t all_cpus;
static unsigned narrow; /* replications run with a smaller set */

static int run_affinity(void *ctx, void *w_, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    cpu_set_t mine;
    assert_int_equal(sched_getaffinity(0, sizeof mine, &mine), 0);
    model *m = ctx;
    pthread_mutex_lock(&m->mu);
    narrow += !CPU_EQUAL(&mine, &all_cpus);
    pthread_mutex_unlock(&m->mu);
    (void)w_, (void)rep, (void)w, (void)err;
    return 0;
}

static int merge_count(void *ctx, void *w_, unsigned rep, qc_err *err)
{
    (void)w_, (void)err;
    model *m = ctx;
    m->merged[m->nmerged++] = rep;
    return 0;
}

static void test_workers_keep_every_cpu(void **state)
{
    (void)state;
    assert_int_equal(sched_getaffinity(0, sizeof all_cpus, &all_cpus), 0);
    if (CPU_COUNT(&all_cpus) < 2)
        skip(); /* one CPU: no worker is started elsewhere, nothing to widen */
    model m;
    memset(&m, 0, sizeof m);
    pthread_mutex_init(&m.mu, NULL);
    ws w[3] = {{0, 0}, {1, 0}, {2, 0}};
    void *wp[3] = {&w[0], &w[1], &w[2]};
    narrow = 0;
    qc__reps h = {3, wp, run_affinity, merge_count, &m, NULL, NULL, 0, R, NULL, 3, 0, NULL};
    qc_err err = {0};
    assert_int_equal(qc__reps_run(&h, 0, R, NULL, &err), 0);
    pthread_mutex_destroy(&m.mu);
    assert_int_equal(m.nmerged, R);
    assert_int_equal(narrow, 0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parked_merged_in_order),
        cmocka_unit_test(test_spares_made_when_needed),
        cmocka_unit_test(test_failure_stops_in_order),
        cmocka_unit_test(test_one_worker),
#ifdef __linux__
        cmocka_unit_test(test_workers_keep_every_cpu),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
