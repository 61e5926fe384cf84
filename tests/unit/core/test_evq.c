/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_evq.c: the event queue and kernel: order, ties, cancellation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>
#include <math.h>

#include "qctl/evq.h"
#include "qctl/rng.h"
#include "qctl/sim.h"

typedef struct ref {
    double t;
    uint64_t seq;
    uint64_t data;
    int live;
} ref;

static int ref_cmp(const void *a, const void *b)
{
    const ref *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Events come out in (time, insertion) order, against a sorted copy. Times
 * are drawn from a small set so that ties are frequent. */
static void test_order_and_ties(void **state)
{
    (void)state;
    enum { N = 20000 };
    qc_evq *q = qc_evq_alloc(4, NULL);
    assert_non_null(q);
    ref *r = calloc(N, sizeof *r);
    qc_rng g;
    qc_rng_init(&g, 7, 0);
    for (int i = 0; i < N; i++) {
        r[i].t = (double)(qc_rng_next(&g) % 100);
        r[i].seq = (uint64_t)i;
        r[i].data = (uint64_t)i;
        assert_true(qc_evq_push(q, r[i].t, 1, r[i].data) >= 0);
    }
    assert_int_equal(qc_evq_size(q), N);
    qsort(r, N, sizeof *r, ref_cmp);
    qc_event ev;
    for (int i = 0; i < N; i++) {
        assert_int_equal(qc_evq_pop(q, &ev), 0);
        assert_true(ev.t == r[i].t);
        assert_int_equal(ev.data, r[i].data);
    }
    assert_int_equal(qc_evq_pop(q, &ev), QC_EEMPTY);
    assert_true(isinf(qc_evq_peek_time(q)));
    free(r);
    qc_evq_free(q);
}

/* Interleaved push, pop and cancel, checked against a reference list. */
static void test_cancel_interleaved(void **state)
{
    (void)state;
    enum { N = 5000 };
    qc_evq *q = qc_evq_alloc(16, NULL);
    ref *r = calloc(N, sizeof *r);
    int64_t *h = calloc(N, sizeof *h);
    qc_rng g;
    qc_rng_init(&g, 11, 0);
    int pushed = 0;
    double now = 0;
    for (int step = 0; step < 3 * N; step++) {
        uint64_t u = qc_rng_next(&g) % 3;
        if (u == 0 && pushed < N) {
            r[pushed] = (ref){now + (double)(qc_rng_next(&g) % 50), (uint64_t)pushed, (uint64_t)pushed, 1};
            h[pushed] = qc_evq_push(q, r[pushed].t, 0, (uint64_t)pushed);
            assert_true(h[pushed] >= 0);
            pushed++;
        } else if (u == 1 && pushed > 0) {
            int k = (int)(qc_rng_next(&g) % (uint64_t)pushed);
            /* a popped or cancelled event's handle is kept: its slot is
             * reused, and the stale cancel must fail and leave the new
             * event alone (the pops below would notice) */
            int rc = qc_evq_cancel(q, h[k]);
            if (r[k].live) {
                assert_int_equal(rc, 0);
                r[k].live = 0;
            } else {
                assert_int_equal(rc, QC_EINVAL);
            }
        } else {
            /* pop: must be the live minimum */
            int best = -1;
            for (int i = 0; i < pushed; i++)
                if (r[i].live && (best < 0 || ref_cmp(&r[i], &r[best]) < 0))
                    best = i;
            qc_event ev;
            if (best < 0) {
                assert_int_equal(qc_evq_pop(q, &ev), QC_EEMPTY);
                continue;
            }
            assert_int_equal(qc_evq_pop(q, &ev), 0);
            assert_int_equal(ev.data, (uint64_t)best);
            assert_true(ev.handle == h[best]);
            r[best].live = 0;
            now = ev.t;
        }
    }
    size_t live = 0;
    for (int i = 0; i < pushed; i++)
        live += (size_t)r[i].live;
    assert_int_equal(qc_evq_size(q), live);
    /* A cancelled handle cannot be cancelled twice. */
    int64_t x = qc_evq_push(q, 1e9, 0, 0);
    assert_int_equal(qc_evq_cancel(q, x), 0);
    assert_int_equal(qc_evq_cancel(q, x), QC_EINVAL);
    assert_int_equal(qc_evq_cancel(q, 0x7ffffff0), QC_EINVAL);
    assert_int_equal(qc_evq_cancel(q, -1), QC_EINVAL);
    free(r);
    free(h);
    qc_evq_free(q);
}

/* push A, pop A, push B (in A's slot), cancel(A): fails, B stays. The
 * same after a cancel and after a clear. */
static void test_stale_handle(void **state)
{
    (void)state;
    qc_evq *q = qc_evq_alloc(1, NULL);
    assert_non_null(q);
    qc_event ev;
    int64_t a = qc_evq_push(q, 1, 7, 100);
    assert_true(a >= 0);
    assert_int_equal(qc_evq_pop(q, &ev), 0);
    assert_true(ev.handle == a);
    int64_t b = qc_evq_push(q, 2, 7, 200);
    assert_true(b >= 0 && b != a);
    assert_true((b & 0xffffffff) == (a & 0xffffffff)); /* the same slot, reused */
    assert_int_equal(qc_evq_cancel(q, a), QC_EINVAL);
    assert_int_equal(qc_evq_size(q), 1);
    int64_t c = qc_evq_push(q, 3, 7, 300);
    assert_int_equal(qc_evq_cancel(q, b), 0); /* cancel B, C takes its slot */
    int64_t d = qc_evq_push(q, 4, 7, 400);
    assert_int_equal(qc_evq_cancel(q, b), QC_EINVAL);
    assert_int_equal(qc_evq_size(q), 2);
    qc_evq_clear(q);
    assert_int_equal(qc_evq_cancel(q, c), QC_EINVAL);
    assert_int_equal(qc_evq_cancel(q, d), QC_EINVAL);
    int64_t e = qc_evq_push(q, 5, 7, 500);
    assert_int_equal(qc_evq_cancel(q, c), QC_EINVAL);
    assert_int_equal(qc_evq_cancel(q, d), QC_EINVAL);
    assert_int_equal(qc_evq_pop(q, &ev), 0);
    assert_true(ev.handle == e && ev.data == 500);
    assert_int_equal(qc_evq_pop(q, &ev), QC_EEMPTY);
    qc_evq_free(q);
}

static void test_bad_time_and_clear(void **state)
{
    (void)state;
    qc_evq *q = qc_evq_alloc(0, NULL);
    assert_int_equal(qc_evq_push(q, NAN, 0, 0), QC_EINVAL);
    assert_int_equal(qc_evq_size(q), 0);
    for (int i = 0; i < 100; i++)
        assert_true(qc_evq_push(q, 100.0 - i, 0, (uint64_t)i) >= 0);
    assert_true(qc_evq_peek_time(q) == 1.0);
    qc_evq_clear(q);
    assert_int_equal(qc_evq_size(q), 0);
    assert_true(qc_evq_push(q, 5, 0, 42) >= 0);
    qc_event ev;
    assert_int_equal(qc_evq_pop(q, &ev), 0);
    assert_int_equal(ev.data, 42);
    qc_evq_free(q);
    qc_evq_free(NULL);
}

/* The kernel: the clock follows events and refuses the past. */
static void test_kernel_clock(void **state)
{
    (void)state;
    qc_sim s;
    assert_int_equal(qc_sim_init(&s, 8, NULL), 0);
    assert_true(qc_sim_after(&s, 2.0, 1, 0) >= 0);
    assert_true(qc_sim_after(&s, 1.0, 2, 0) >= 0);
    assert_int_equal(qc_sim_after(&s, -1.0, 3, 0), QC_EINVAL);
    qc_event ev;
    assert_int_equal(qc_sim_next(&s, &ev), 0);
    assert_int_equal(ev.type, 2);
    assert_true(s.now == 1.0);
    assert_int_equal(qc_sim_at(&s, 0.5, 4, 0), QC_EINVAL);
    assert_int_equal(qc_sim_next(&s, &ev), 0);
    assert_true(s.now == 2.0);
    assert_int_equal(qc_sim_next(&s, &ev), QC_EEMPTY);
    assert_int_equal(s.events, 2);
    qc_sim_reset(&s);
    assert_true(s.now == 0.0);
    qc_sim_free(&s);
    qc_sim_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_ties),
        cmocka_unit_test(test_cancel_interleaved),
        cmocka_unit_test(test_stale_handle),
        cmocka_unit_test(test_bad_time_and_clear),
        cmocka_unit_test(test_kernel_clock),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
