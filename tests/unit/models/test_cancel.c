/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_cancel.c: the cancel hook of the runs (qctl/cancel.h).
 *
 * A run is cancelled from its own progress hook once it reports a tenth
 * of its work done: it must return QC_ECANCELED, and the last fraction it
 * reported must be a little over a tenth (the check comes between chunks,
 * every 2^18 events, so the run stops within a chunk of the request), not
 * the whole run's. That counts the work done, with no clock. A flag set
 * before the run stops it before its first replication, and a run given
 * no flag, or one never requested, gives the same result as before
 * (checked on the queue's estimates, bit for bit). Runs with two worker
 * threads check it between replications too. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "qctl/cancel.h"
#include "qctl/maxusers.h"
#include "qctl/multiclass.h"
#include "qctl/pool.h"
#include "qctl/queue.h"

/* The progress hook: requests the cancel at `at` and records the largest
 * fraction reported. */
typedef struct probe {
    qc_cancel cancel;
    double at, last;
    unsigned calls;
} probe;

static void on_progress(void *ctx, double fraction)
{
    probe *pr = ctx;
    pr->calls++;
    if (fraction > pr->last)
        pr->last = fraction;
    if (fraction >= pr->at)
        qc_cancel_request(&pr->cancel);
}

static void test_flag(void **state)
{
    (void)state;
    qc_cancel c = {0};
    assert_int_equal(qc_cancel_requested(&c), 0);
    assert_int_equal(qc_cancel_requested(NULL), 0);
    qc_cancel_request(&c);
    assert_int_equal(qc_cancel_requested(&c), 1);
    qc_cancel_clear(&c);
    assert_int_equal(qc_cancel_requested(&c), 0);
    assert_string_equal(qc_strerror(QC_ECANCELED), "cancelled");
}

static void queue_params(qc_queue_params *p, qc_dist *a, qc_dist *s, unsigned jobs)
{
    assert_int_equal(qc_dist_parse(a, "exp:0.9", NULL), 0);
    assert_int_equal(qc_dist_parse(s, "exp:1", NULL), 0);
    qc_queue_params_init(p);
    p->arrival = a;
    p->service = s;
    p->customers = 2000000; /* about 4 M events a replication: 16 chunks of checks */
    p->reps = 4;
    p->seed = 7;
    p->jobs = jobs;
}

static void check_queue_cancel(unsigned jobs)
{
    qc_dist a = {0}, s = {0};
    qc_queue_params p;
    queue_params(&p, &a, &s, jobs);
    probe pr = {.at = 0.1};
    p.progress = on_progress;
    p.progress_ctx = &pr;
    p.cancel = &pr.cancel;
    qc_queue_result res;
    qc_err err = {0};
    assert_int_equal(qc_queue_run(&p, &res, &err), QC_ECANCELED);
    assert_true(pr.calls > 0);
    /* stopped within a chunk of checks per worker of the request: a
     * replication is a quarter of the work, a chunk 1/16 of that */
    assert_true(pr.last >= 0.1);
    assert_true(pr.last < 0.1 + 0.25 * (double)(jobs ? jobs : 1) / 8);
    qc_dist_free(&a);
    qc_dist_free(&s);
}

static void test_queue_stops_early(void **state)
{
    (void)state;
    check_queue_cancel(1);
    check_queue_cancel(2);
}

static void test_queue_preset_and_unset(void **state)
{
    (void)state;
    qc_dist a = {0}, s = {0};
    qc_queue_params p;
    queue_params(&p, &a, &s, 1);
    p.customers = 20000;
    qc_queue_result r0, r1;
    qc_err err = {0};
    assert_int_equal(qc_queue_run(&p, &r0, &err), 0); /* no flag */
    qc_cancel c = {0};
    p.cancel = &c;
    assert_int_equal(qc_queue_run(&p, &r1, &err), 0); /* a flag never requested */
    for (int i = 0; i < QC_QM_COUNT; i++)
        assert_memory_equal(&r0.metric[i], &r1.metric[i], sizeof r0.metric[i]);
    assert_true(r0.events == r1.events);
    qc_queue_result_free(&r1);
    qc_cancel_request(&c);
    assert_int_equal(qc_queue_run(&p, &r1, &err), QC_ECANCELED);
    assert_string_equal(err.msg, "cancelled after 0 of 4 replications"); /* none started */
    qc_queue_result_free(&r0);
    qc_dist_free(&a);
    qc_dist_free(&s);
}

static void test_pool_stops_early(void **state)
{
    (void)state;
    qc_arrivals a = {0};
    qc_dist s = {0}, w = {0};
    assert_int_equal(qc_arrivals_parse(&a, "exp:2", NULL), 0);
    assert_int_equal(qc_dist_parse(&s, "exp:1", NULL), 0);
    assert_int_equal(qc_dist_parse(&w, "exp:0.1", NULL), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = 4;
    p.arrival = &a;
    p.service = &s;
    p.setup = &w;
    p.customers = 1000000;
    p.reps = 4;
    probe pr = {.at = 0.1};
    p.progress = on_progress;
    p.progress_ctx = &pr;
    p.cancel = &pr.cancel;
    qc_pool_result res;
    qc_err err = {0};
    assert_int_equal(qc_pool_run(&p, &res, &err), QC_ECANCELED);
    assert_true(pr.last >= 0.1 && pr.last < 0.25);
    /* --compare obeys it too */
    qc_pool_comparison cmp;
    assert_int_equal(qc_pool_compare(&p, &cmp, &err), QC_ECANCELED);
    assert_int_equal((int)cmp.n, 0);
    qc_arrivals_free(&a);
    qc_dist_free(&s);
    qc_dist_free(&w);
}

static void test_admission_stops_early(void **state)
{
    (void)state;
    qc_mc_scenario sc;
    qc_err err = {0};
    assert_int_equal(
        qc_mc_scenario_parse(&sc,
                             "{\"classes\": [{\"name\": \"gold\", \"arrival\": \"exp:0.3\", "
                             "\"service\": \"exp:1\", \"bound\": 3}, {\"name\": \"web\", "
                             "\"arrival\": \"exp:0.3\", \"service\": \"exp:1\", "
                             "\"best_effort\": true}]}",
                             "scenario", &err),
        0);
    qc_mc_run_params p;
    qc_mc_run_params_init(&p);
    qc_mc_scenario_apply(&sc, &p);
    p.horizon = 2e6;
    p.warmup = 1e4;
    p.window = 1e5;
    p.reps = 2;
    probe pr = {.at = 0.1};
    p.progress = on_progress;
    p.progress_ctx = &pr;
    p.cancel = &pr.cancel;
    qc_mc_run_result res;
    assert_int_equal(qc_mc_run(&p, &res, &err), QC_ECANCELED);
    assert_true(pr.last >= 0.1 && pr.last < 0.2);
    qc_mc_scenario_free(&sc);
}

static void test_scenario_messages(void **state)
{
    (void)state;
    qc_mc_scenario sc;
    qc_err err = {0};
    assert_int_equal(qc_mc_scenario_parse(&sc, "{\"classes\": [{\"name\": \"a\", \"arrival\": "
                                                "\"exp:1\", \"service\": \"exp:2\", "
                                                "\"bound\": -1}]}",
                                          "s.json", &err),
                     QC_EPARSE);
    assert_string_equal(err.msg, "s.json: classes[0] (a): \"bound\" is -1; it must be > 0");
    assert_int_equal(qc_mc_scenario_parse(&sc, "{\"classes\": [}", "s.json", &err), QC_EPARSE);
    assert_true(strncmp(err.msg, "s.json:1:", 9) == 0);
    qc_mc_scenario_free(&sc); /* safe after a failure */
}

static void test_maxusers_preset(void **state)
{
    (void)state;
    qc_dist d[5] = {{0}};
    const char *spec[5] = {"exp:0.2", "exp:2.5", "exp:0.0008333", "exp:0.0016667", "det:30"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(qc_dist_parse(&d[i], spec[i], NULL), 0);
    qc_mu_run_params p;
    memset(&p, 0, sizeof p);
    qc_maxusers_params_init(&p.plant);
    p.plant.think = &d[0];
    p.plant.service = &d[1];
    p.plant.session = &d[2];
    p.plant.off = &d[3];
    p.plant.retry = &d[4];
    qc_sched_point in = {0, 375};
    p.input = &in;
    p.ninput = 1;
    p.duration = 600;
    qc_cancel c = {0};
    qc_cancel_request(&c);
    p.cancel = &c;
    qc_mu_run_result res;
    qc_err err = {0};
    assert_int_equal(qc_mu_run(&p, &res, &err), QC_ECANCELED);
    qc_cancel_clear(&c);
    assert_int_equal(qc_mu_run(&p, &res, &err), 0);
    assert_int_equal((int)res.n, 10);
    qc_mu_run_result_free(&res);
    for (int i = 0; i < 5; i++)
        qc_dist_free(&d[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flag),
        cmocka_unit_test(test_queue_stops_early),
        cmocka_unit_test(test_queue_preset_and_unset),
        cmocka_unit_test(test_pool_stops_early),
        cmocka_unit_test(test_admission_stops_early),
        cmocka_unit_test(test_scenario_messages),
        cmocka_unit_test(test_maxusers_preset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
