/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_results.c: the results' JSON (qctl/results.h). Each model's
 * document has its sections and every metric it names; every interval in
 * it, wherever it sits, has the one shape (value, ci_low, ci_high,
 * half_width, level, n, in that order) with consistent figures; the
 * closed form written beside M/M/1's estimate is 1/(mu - lambda); a short
 * run's intervals are withheld or marked; and the text Python parses
 * gives back every double exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/output.h"
#include "qctl/results.h"

static const char *const ci_keys[] = {"value", "ci_low", "ci_high", "half_width", "level", "n"};

/* One interval object: the six keys first, in order; the figures
 * consistent where they are given. */
static void check_interval(const json_t *o, const char *path)
{
    const char *key;
    json_t *v;
    size_t i = 0;
    json_object_foreach((json_t *)o, key, v)
    {
        if (i < 6 && strcmp(key, ci_keys[i]) != 0)
            fail_msg("%s: key %zu is '%s', want '%s'", path, i, key, ci_keys[i]);
        i++;
    }
    assert_true(i >= 6);
    json_t *x = json_object_get(o, "value"), *lo = json_object_get(o, "ci_low"),
           *hi = json_object_get(o, "ci_high"), *h = json_object_get(o, "half_width");
    double level = json_number_value(json_object_get(o, "level"));
    if (!(level > 0 && level < 1))
        fail_msg("%s: level %g", path, level);
    assert_true(json_is_integer(json_object_get(o, "n")));
    if (json_is_number(lo) && json_is_number(hi) && json_is_number(x)) {
        double a = json_number_value(lo), b = json_number_value(hi), m = json_number_value(x);
        if (!(a <= m && m <= b))
            fail_msg("%s: %g not in [%g, %g]", path, m, a, b);
        if (json_is_number(h) && fabs(json_number_value(h) - (b - a) / 2) > 1e-9 * (b - a + 1))
            fail_msg("%s: half-width %g, ends %g %g", path, json_number_value(h), a, b);
    }
    /* an interval with no ends says why, or is a figure with one value */
    if (json_is_null(lo) && json_is_number(x) && json_integer_value(json_object_get(o, "n")) > 1)
        assert_non_null(json_object_get(o, "reason"));
}

/* Every interval in doc (an object with "ci_low"), counted. */
static size_t walk(const json_t *doc, const char *path, int depth)
{
    assert_true(depth < 10);
    size_t n = 0;
    if (json_is_object(doc)) {
        if (json_object_get(doc, "ci_low")) {
            check_interval(doc, path);
            return 1;
        }
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)doc, key, v) n += walk(v, key, depth + 1);
    } else if (json_is_array(doc)) {
        size_t i;
        json_t *v;
        json_array_foreach(doc, i, v) n += walk(v, path, depth + 1);
    }
    return n;
}

static void has(const json_t *doc, const char *const *keys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(doc, keys[i]))
            fail_msg("no key '%s'", keys[i]);
}

static void test_queue(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_arrivals arr;
    qc_dist svc;
    assert_int_equal(qc_arrivals_parse(&arr, "exp:0.5", &err), 0);
    assert_int_equal(qc_dist_parse(&svc, "exp:1", &err), 0);
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrivals = &arr;
    p.service = &svc;
    p.customers = 20000;
    p.reps = 3;
    p.seed = 1;
    qc_queue_result r;
    assert_int_equal(qc_queue_run(&p, &r, &err), 0);
    qc_queue_exact ex;
    qc_queue_exact_values(&p, &ex);
    qc_queue_json_opts o = {"exp:0.5", "exp:1", NULL, 0, 0};
    json_t *doc = qc_queue_result_json(&p, &r, &ex, &o, 0.25);
    static const char *const top[] = {"command", "model", "run", "metrics"};
    has(doc, top, 4);
    json_t *m = json_object_get(doc, "metrics");
    for (int i = 0; i < QC_QM_COUNT; i++)
        assert_non_null(json_object_get(m, qc_queue_metric_name(i)));
    assert_int_equal(walk(doc, "", 0), QC_QM_COUNT);
    /* the closed form beside the estimate: M/M/1's 1/(mu - lambda) */
    double e = json_number_value(json_object_get(json_object_get(m, "response_time"), "exact"));
    assert_true(fabs(e - 1 / (1 - 0.5)) < 1e-12);
    /* the text gives back every double exactly */
    char *text = qc_result_text(doc);
    json_t *back = json_loads(text, 0, NULL);
    assert_non_null(back);
    double v = json_real_value(json_object_get(json_object_get(json_object_get(back, "metrics"),
                                                               "response_time"),
                                               "value"));
    assert_true(v == r.metric[QC_QM_RESPONSE].mean);
    json_decref(back);
    qc_result_text_free(text);
    json_decref(doc);
    qc_queue_result_free(&r);
    qc_dist_free(&svc);
    qc_arrivals_free(&arr);
}

static void test_pool(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_arrivals arr;
    qc_dist svc, setup;
    assert_int_equal(qc_arrivals_parse(&arr, "exp:1.5", &err), 0);
    assert_int_equal(qc_dist_parse(&svc, "exp:1", &err), 0);
    assert_int_equal(qc_dist_parse(&setup, "exp:0.1", &err), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = 3;
    p.arrival = &arr;
    p.service = &svc;
    p.setup = &setup;
    p.customers = 20000;
    p.reps = 3;
    p.seed = 2;
    qc_pool_result r;
    assert_int_equal(qc_pool_run(&p, &r, &err), 0);
    qc_pool_json_opts o = {"exp:1.5", "exp:1", "exp:0.1", 0, 2.0, {240, 180, 240, 0}};
    json_t *doc = qc_pool_result_json(&p, &r, &o, 0.5);
    static const char *const top[] = {"command", "model", "cost", "run", "metrics",
                                      "energy_report"};
    has(doc, top, 6);
    json_t *m = json_object_get(doc, "metrics");
    for (int i = 0; i < QC_PM_COUNT; i++)
        assert_non_null(json_object_get(m, qc_pool_metric_name(i)));
    /* the metrics and the power in watts (price > 0) */
    assert_int_equal(walk(doc, "", 0), QC_PM_COUNT + 1);
    json_decref(doc);
    qc_pool_result_free(&r);
    qc_dist_free(&setup);
    qc_dist_free(&svc);
    qc_arrivals_free(&arr);
}

static void test_mdp(void **state)
{
    (void)state;
    qc_err err = {0};
    qc_removable_params p;
    qc_removable_params_init(&p);
    p.lambda = 0.5;
    p.cost.nrates = 2;
    p.cost.rate[0] = 0.6;
    p.cost.rate[1] = 1;
    p.cost.power[0] = 1;
    p.cost.power[1] = 3;
    p.cost.setup_rate = 0.2;
    p.cost.holding = 1;
    qc_removable_result r;
    assert_int_equal(qc_removable_solve(&p, &r, &err), 0);
    json_t *doc = qc_removable_result_json(&p, &r, 1, 0);
    static const char *const top[] = {"command", "model", "truncation", "solver", "gain",
                                      "policy", "structure", "performance", "comparison"};
    has(doc, top, 9);
    /* solved, not estimated: no interval; the optimal policy's cost is
     * the gain */
    assert_int_equal(walk(doc, "", 0), 0);
    json_t *opt = json_array_get(json_object_get(doc, "comparison"), 0);
    double g = json_number_value(json_object_get(doc, "gain"));
    assert_true(fabs(json_number_value(json_object_get(opt, "average_cost")) - g) <= 1e-9 * g);
    json_decref(doc);
    qc_removable_result_free(&r);
}

static void test_short_run_marks(void **state)
{
    (void)state;
    qc_ci ci = {.mean = 1, .half = 0.5, .lo = 0.5, .hi = 1.5, .level = 0.95, .n = 4};
    json_t *doc = json_pack("{s:o, s:[o]}", "a", qc_json_ci_new(&ci), "b", qc_json_ci_new(&ci));
    qc_result_support shrt = {1, "too short", 0, 0, 1};
    qc_result_mark_all(&shrt, doc);
    json_t *a = json_object_get(doc, "a"), *b = json_array_get(json_object_get(doc, "b"), 0);
    assert_true(json_is_null(json_object_get(a, "ci_low")) &&
                json_is_null(json_object_get(b, "half_width")));
    assert_non_null(json_object_get(b, "reason"));
    assert_int_equal(walk(doc, "", 0), 2); /* still the one shape */
    json_decref(doc);
    json_t *kept = qc_json_ci_new(&ci);
    qc_result_support allowed = {1, "too short", 1, 0, 1};
    qc_result_ci_mark(&allowed, kept);
    assert_true(json_is_true(json_object_get(kept, "unreliable")));
    assert_true(json_number_value(json_object_get(kept, "ci_low")) == 0.5);
    json_decref(kept);
    json_t *sup = qc_result_support_json(&shrt);
    assert_true(json_is_false(json_object_get(sup, "supported")));
    assert_string_equal(json_string_value(json_object_get(sup, "reason")), "too short");
    json_decref(sup);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_queue),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_mdp),
        cmocka_unit_test(test_short_run_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
