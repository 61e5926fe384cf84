/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_trend.c: the trend test of sim queue (queue.h, units.h): a run
 * whose response times still rise over the last half of its window is
 * flagged transient with the evidence; stationary runs are not.
 *
 * Ramps, where the answer is known:
 *   - M/M/1 at load 1.05 with a buffer of 1e9: the queue grows by 0.05
 *     per unit time for ever, so the response time rises across any
 *     window (10 replications of 200000, and one run of 10^6);
 *   - M/M/1/K at load 1.5 with K = 25000, 10 x 100000: the buffer fills
 *     after about 75000 arrivals (K over a net growth of 0.5 per unit time,
 *     1.5 arrivals per unit time), so three quarters of the window is the
 *     filling ramp. The buffer is reached, so only the trend can tell;
 *   - M/M/1 at load 1 with a buffer of 1e9 (null recurrent): flagged
 *     transient (the buffer is never reached); a single path's trend is
 *     as noisy as its growth, so the test only checks that it was tested.
 * False alarms: M/M/1 at 0.9, a stationary queue, over 60 fixed seeds each
 * with 10 replications of 20000 customers and with one run of 200000. The
 * rule's level is 0.001 with a 10% size guard; on 200 other seeds of each
 * kind none was flagged. The test allows 1 of 60 (a true rate of 0.001
 * gives 2 or more with probability 0.0017), so it fails if the rule
 * starts to fire on stationary runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/dist.h"
#include "qctl/queue.h"

static void run(const char *arr, uint64_t K, uint64_t customers, unsigned reps, uint64_t seed,
                qc_queue_result *r)
{
    qc_dist a = {0}, s = {0};
    assert_int_equal(qc_dist_parse(&a, arr, NULL), 0);
    assert_int_equal(qc_dist_parse(&s, "exp:1", NULL), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &s;
    p.capacity = K;
    p.customers = customers;
    p.reps = reps;
    p.seed = seed;
    qc_err err = {0};
    assert_int_equal(qc_queue_run(&p, r, &err), 0);
    qc_dist_free(&a);
    qc_dist_free(&s);
}

static void test_ramp_reps(void **state)
{
    (void)state;
    qc_queue_result r;
    run("exp:1.05", 1000000000, 200000, 10, 1, &r);
    printf("load 1.05, 10 x 200000: t = %g (df %u), p = %g, change %+.3f\n", r.trend_t,
           r.trend_df, r.trend_p, r.trend_change);
    assert_true(r.trend_tested && r.trend_detected && r.transient);
    assert_int_equal(r.trend_df, 9);
    assert_true(r.trend_change > 0.3);
    assert_non_null(strstr(r.transient_reason, "never filled the buffer"));
    assert_non_null(strstr(r.transient_reason, "a trend across the run"));
    qc_queue_result_free(&r);
}

static void test_ramp_one_run(void **state)
{
    (void)state;
    qc_queue_result r;
    run("exp:1.05", 1000000000, 1000000, 1, 1, &r);
    printf("load 1.05, one run of 10^6: t = %g (df %u), p = %g, change %+.3f\n", r.trend_t,
           r.trend_df, r.trend_p, r.trend_change);
    assert_true(r.trend_tested && r.trend_detected && r.transient);
    assert_int_equal(r.trend_df, 14);
    assert_true(r.trend_change > 0.3);
    qc_queue_result_free(&r);
}

static void test_filling_buffer(void **state)
{
    (void)state;
    qc_queue_result r;
    run("exp:1.5", 25000, 100000, 10, 3, &r);
    printf("load 1.5, K 25000, 10 x 100000: t = %g, p = %g, change %+.3f\n", r.trend_t,
           r.trend_p, r.trend_change);
    assert_true(r.trend_detected && r.transient);
    /* the buffer was reached: the trend is the only evidence */
    assert_null(strstr(r.transient_reason, "never filled"));
    assert_true(strncmp(r.transient_reason, "a trend across the run", 22) == 0);
    assert_non_null(strstr(r.transient_reason, "at its limit"));
    qc_queue_result_free(&r);
    /* the same buffer filled in the first fifth of the window: the cut
     * removes the ramp, and nothing is flagged */
    run("exp:1.5", 8000, 100000, 10, 3, &r);
    assert_true(r.trend_tested);
    assert_false(r.trend_detected);
    assert_false(r.transient);
    qc_queue_result_free(&r);
}

static void test_load_one(void **state)
{
    (void)state;
    qc_queue_result r;
    run("exp:1", 1000000000, 200000, 10, 1, &r);
    assert_true(r.transient && r.trend_tested);
    assert_non_null(strstr(r.transient_reason, "never filled the buffer"));
    qc_queue_result_free(&r);
}

static void test_false_alarms(void **state)
{
    (void)state;
    unsigned flagged_reps = 0, flagged_one = 0, tested = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        qc_queue_result r;
        run("exp:0.9", 0, 20000, 10, 1000 + seed, &r);
        tested += (unsigned)r.trend_tested;
        flagged_reps += (unsigned)r.trend_detected;
        assert_int_equal(r.transient, r.trend_detected);
        qc_queue_result_free(&r);
        run("exp:0.9", 0, 200000, 1, 2000 + seed, &r);
        tested += (unsigned)r.trend_tested;
        flagged_one += (unsigned)r.trend_detected;
        qc_queue_result_free(&r);
    }
    printf("M/M/1 0.9: trend flagged in %u of 60 (10 x 20000) and %u of 60 (one run of "
           "200000)\n", flagged_reps, flagged_one);
    assert_int_equal(tested, 120);
    assert_true(flagged_reps <= 1);
    assert_true(flagged_one <= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramp_reps),
        cmocka_unit_test(test_ramp_one_run),
        cmocka_unit_test(test_filling_buffer),
        cmocka_unit_test(test_load_one),
        cmocka_unit_test(test_false_alarms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
