/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_sweep.c: unit tests of sweep files and grids (sweep.h).
 *
 * The grid's texts are the contract (command lines, seeds, CSV and journal
 * are made from them): ranges with floating-point ends must give the
 * number of points a person counts (0.5..0.95 step 0.05 is ten), log
 * ranges must hit their ends exactly, and a point's seed must depend on
 * the point's values only, not on where it sits in the grid. Aggregation
 * is checked against the t-interval computed here from GSL's quantile. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/sweep.h"

static qc_sweep *parse_ok(const char *text, const char *const *sets, size_t nsets)
{
    qc_sweep *s = NULL;
    qc_err err = {0};
    int rc = qc_sweep_parse(&s, text, strlen(text), "t.json", sets, nsets, &err);
    if (rc != 0)
        fprintf(stderr, "unexpected error: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(s);
    return s;
}

/* Parses text expecting failure; returns the code, err holds the message. */
static int parse_bad(const char *text, const char *const *sets, size_t nsets, qc_err *err)
{
    qc_sweep *s = NULL;
    int rc = qc_sweep_parse(&s, text, strlen(text), "t.json", sets, nsets, err);
    assert_null(s);
    assert_int_not_equal(rc, 0);
    return rc;
}

#define BASE "\"experiment\": \"sim queue\", \"metrics\": {\"r\": \"metrics.response_time\"}"

static void test_list_grid_order(void **state)
{
    (void)state;
    qc_sweep *s = parse_ok("{" BASE ", \"params\": {\"policy\": [\"jsq\", \"djsq\"], "
                           "\"load\": [0.5, 0.75, 2]}}",
                           NULL, 0);
    assert_int_equal(qc_sweep_npoints(s), 6);
    assert_int_equal(qc_sweep_nparams(s), 2);
    assert_string_equal(qc_sweep_param_name(s, 0), "policy");
    /* The first parameter varies slowest. */
    const char *want[6] = {"policy=jsq load=0.5",  "policy=jsq load=0.75",  "policy=jsq load=2",
                           "policy=djsq load=0.5", "policy=djsq load=0.75", "policy=djsq load=2"};
    for (size_t i = 0; i < 6; i++) {
        char *key = qc_sweep_point_key(s, i);
        assert_string_equal(key, want[i]);
        free(key);
    }
    assert_false(qc_sweep_param_is_number(s, 0, 0));
    assert_true(qc_sweep_param_is_number(s, 1, 2));
    assert_true(qc_sweep_param_value(s, 1, 1) == 0.75);
    qc_sweep_free(s);
}

static void test_step_range_float_ends(void **state)
{
    (void)state;
    qc_sweep *s =
        parse_ok("{" BASE ", \"params\": {\"load\": {\"from\": 0.5, \"to\": 0.95, \"step\": 0.05}}}",
                 NULL, 0);
    assert_int_equal(qc_sweep_npoints(s), 10);
    const char *want[10] = {"0.5", "0.55", "0.6", "0.65", "0.7",
                            "0.75", "0.8", "0.85", "0.9", "0.95"};
    for (size_t i = 0; i < 10; i++)
        assert_string_equal(qc_sweep_param_text(s, 0, i), want[i]);
    qc_sweep_free(s);
    /* Descending, and a step that does not land on "to". */
    s = parse_ok("{" BASE ", \"params\": {\"x\": {\"from\": 1, \"to\": 0, \"step\": -0.25}, "
                 "\"y\": {\"from\": 0, \"to\": 1, \"step\": 0.3}}}",
                 NULL, 0);
    assert_int_equal(qc_sweep_param_nvalues(s, 0), 5);
    assert_string_equal(qc_sweep_param_text(s, 0, 4), "0");
    assert_int_equal(qc_sweep_param_nvalues(s, 1), 4);
    assert_string_equal(qc_sweep_param_text(s, 1, 3), "0.9");
    assert_int_equal(qc_sweep_npoints(s), 20);
    qc_sweep_free(s);
}

static void test_points_and_log_ranges(void **state)
{
    (void)state;
    qc_sweep *s = parse_ok("{" BASE ", \"params\": {"
                           "\"a\": {\"from\": 0, \"to\": 1, \"points\": 5},"
                           "\"g\": {\"from\": 0.001, \"to\": 10, \"points\": 5, \"log\": true},"
                           "\"one\": {\"from\": 3, \"to\": 9, \"points\": 1}}}",
                           NULL, 0);
    const char *a[5] = {"0", "0.25", "0.5", "0.75", "1"};
    const char *g[5] = {"0.001", "0.01", "0.1", "1", "10"};
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(qc_sweep_param_text(s, 0, i), a[i]);
        assert_string_equal(qc_sweep_param_text(s, 1, i), g[i]);
    }
    assert_int_equal(qc_sweep_param_nvalues(s, 2), 1);
    assert_string_equal(qc_sweep_param_text(s, 2, 0), "3");
    assert_int_equal(qc_sweep_npoints(s), 25);
    qc_sweep_free(s);
}

static int has_pair(char **argv, const char *flag, const char *value)
{
    for (size_t i = 0; argv[i] && argv[i + 1]; i++)
        if (strcmp(argv[i], flag) == 0 && strcmp(argv[i + 1], value) == 0)
            return 1;
    return 0;
}

static int count(char **argv, const char *word)
{
    int n = 0;
    for (size_t i = 0; argv[i]; i++)
        n += strcmp(argv[i], word) == 0;
    return n;
}

static void test_argv_templates(void **state)
{
    (void)state;
    qc_sweep *s = parse_ok("{\"experiment\": \"sim  pool\", "
                           "\"args\": {\"arrival\": \"exp:{load}\", \"servers\": 4, "
                           "\"quiet\": true, \"plot\": false, \"warmup-time\": \"det:{w}{w}\", "
                           "\"x\": [1, \"b\"], \"price\": 0.1, \"brace\": \"{not a template}\"},"
                           "\"params\": {\"load\": [0.5], \"policy\": [\"jsq\"], \"w\": [2]},"
                           "\"metrics\": {\"c\": \"metrics.average_cost\"}}",
                           NULL, 0);
    assert_string_equal(qc_sweep_experiment(s), "sim pool");
    char **argv;
    size_t argc;
    qc_err err = {0};
    assert_int_equal(qc_sweep_argv(s, 0, 0, &argv, &argc, &err), 0);
    assert_string_equal(argv[0], "sim");
    assert_string_equal(argv[1], "pool");
    assert_true(has_pair(argv, "--arrival", "exp:0.5"));
    assert_true(has_pair(argv, "--servers", "4"));
    assert_true(has_pair(argv, "--price", "0.1"));
    assert_true(has_pair(argv, "--warmup-time", "det:22"));
    assert_true(has_pair(argv, "--brace", "{not a template}"));
    assert_true(has_pair(argv, "--x", "1") && has_pair(argv, "--x", "b"));
    assert_int_equal(count(argv, "--x"), 2);
    assert_int_equal(count(argv, "--quiet"), 1);
    assert_int_equal(count(argv, "--plot"), 0);
    /* load and w are used by templates; policy is passed as a flag. */
    assert_int_equal(count(argv, "--load"), 0);
    assert_int_equal(count(argv, "--w"), 0);
    assert_true(has_pair(argv, "--policy", "jsq"));
    assert_string_equal(argv[argc - 3], "--seed");
    assert_string_equal(argv[argc - 1], "--json");
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)qc_sweep_seed(s, 0, 0));
    assert_string_equal(argv[argc - 2], seed);
    assert_null(argv[argc]);
    qc_sweep_argv_free(argv);
    qc_sweep_free(s);
}

static void test_set_overrides(void **state)
{
    (void)state;
    const char *sets[] = {"reps=3", "args.customers=20000", "params.load=[0.5,0.9]",
                          "args.service=\"exp:2\"", "seed=42"};
    qc_sweep *s = parse_ok("{" BASE ", \"reps\": 10, \"args\": {\"customers\": 5}, "
                           "\"params\": {\"load\": {\"from\": 0.1, \"to\": 0.9, \"step\": 0.1}}}",
                           sets, 5);
    assert_int_equal(qc_sweep_reps(s), 3);
    assert_int_equal(qc_sweep_npoints(s), 2);
    assert_string_equal(qc_sweep_param_text(s, 0, 1), "0.9");
    char **argv;
    size_t argc;
    assert_int_equal(qc_sweep_argv(s, 1, 2, &argv, &argc, NULL), 0);
    assert_true(has_pair(argv, "--customers", "20000"));
    assert_true(has_pair(argv, "--service", "exp:2"));
    assert_true(has_pair(argv, "--load", "0.9"));
    qc_sweep_argv_free(argv);
    /* The overrides are part of the definition. */
    qc_sweep *t = parse_ok("{" BASE ", \"reps\": 3, \"seed\": 42, \"args\": {\"customers\": "
                           "20000, \"service\": \"exp:2\"}, \"params\": {\"load\": [0.5, 0.9]}}",
                           NULL, 0);
    assert_string_equal(qc_sweep_hash(s), qc_sweep_hash(t));
    qc_sweep_free(t);
    const char *other[] = {"reps=4"};
    t = parse_ok("{" BASE ", \"reps\": 3, \"seed\": 42, \"args\": {\"customers\": 20000, "
                 "\"service\": \"exp:2\"}, \"params\": {\"load\": [0.5, 0.9]}}",
                 other, 1);
    assert_string_not_equal(qc_sweep_hash(s), qc_sweep_hash(t));
    qc_sweep_free(t);
    qc_sweep_free(s);
}

static void test_seeds(void **state)
{
    (void)state;
    qc_sweep *a = parse_ok("{" BASE ", \"params\": {\"p\": [\"x\", \"y\"], \"load\": [0.5, 0.9]}}",
                           NULL, 0);
    qc_sweep *b = parse_ok(
        "{" BASE ", \"params\": {\"p\": [\"w\", \"y\", \"x\"], \"load\": [0.9, 0.7, 0.5]}}", NULL,
        0);
    /* p=x load=0.5 is point 0 of a and point 8 of b: the same seeds. */
    for (unsigned r = 0; r < 3; r++)
        assert_true(qc_sweep_seed(a, 0, r) == qc_sweep_seed(b, 8, r));
    /* Distinct across points and replications, and below 2^53. */
    uint64_t seen[12];
    size_t n = 0;
    for (size_t i = 0; i < 4; i++)
        for (unsigned r = 0; r < 3; r++) {
            uint64_t sd = qc_sweep_seed(a, i, r);
            assert_true(sd < (1ull << 53));
            for (size_t k = 0; k < n; k++)
                assert_true(seen[k] != sd);
            seen[n++] = sd;
        }
    const char *sets[] = {"seed=2"};
    qc_sweep *c = parse_ok("{" BASE ", \"params\": {\"p\": [\"x\", \"y\"], \"load\": [0.5, 0.9]}}",
                           sets, 1);
    assert_true(qc_sweep_seed(a, 0, 0) != qc_sweep_seed(c, 0, 0));
    qc_sweep_free(a);
    qc_sweep_free(b);
    qc_sweep_free(c);
}

static void test_errors(void **state)
{
    (void)state;
    qc_err err = {0};
    assert_int_equal(parse_bad("{\n  \"experiment\": \"sim queue\",\n  \"params\": [1,\n", NULL, 0,
                               &err),
                     QC_EPARSE);
    assert_non_null(strstr(err.msg, "t.json:4:"));
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"{\"experiment\": \"proxy\", \"metrics\": {\"a\": \"b\"}}", "experiment"},
        {"{\"experiment\": \"sweep\", \"metrics\": {\"a\": \"b\"}}", "experiment"},
        {"{\"experiment\": \"sim queue extra\", \"metrics\": {\"a\": \"b\"}}", "experiment"},
        {"{" BASE ", \"params\": {\"x\": {\"from\": 1, \"to\": 2, \"step\": 0}}}",
         "params.x.step"},
        {"{" BASE ", \"params\": {\"x\": {\"from\": 2, \"to\": 1, \"step\": 0.5}}}",
         "params.x: empty range"},
        {"{" BASE ", \"params\": {\"x\": []}}", "params.x: an empty list"},
        {"{" BASE ", \"params\": {\"x\": {\"from\": 0, \"to\": 1, \"points\": 3, \"log\": "
         "true}}}",
         "params.x: a log range"},
        {"{" BASE ", \"params\": {\"x\": {\"from\": 0, \"to\": 1}}}", "either step or points"},
        {"{" BASE ", \"params\": {\"x\": {\"from\": 0, \"to\": 1, \"stp\": 1}}}", "params.x.stp"},
        {"{" BASE ", \"params\": {\"x\": [true]}}", "params.x[0]"},
        {"{" BASE ", \"args\": {\"arrival\": \"exp:{lod}\"}, \"params\": {\"load\": [1]}}",
         "args.arrival: template {lod}"},
        {"{" BASE ", \"args\": {\"seed\": 3}}", "args.seed"},
        {"{" BASE ", \"reps\": 0}", "reps"},
        {"{" BASE ", \"reps\": 1.5}", "reps"},
        {"{" BASE ", \"colour\": 1}", "colour: unknown field"},
        {"{\"experiment\": \"sim queue\"}", "metrics"},
        {"{" BASE ", \"params\": {\"a\": {\"from\": 1, \"to\": 1000, \"step\": 1}, \"b\": "
         "{\"from\": 1, \"to\": 1001, \"step\": 1}}}",
         "more than"},
        {"[1]", "a JSON object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memset(&err, 0, sizeof err);
        parse_bad(cases[i].text, NULL, 0, &err);
        if (strstr(err.msg, cases[i].want) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].want);
    }
    const char *bad_sets[][1] = {{"reps"}, {"=3"}, {"reps=three"}, {"experiment.x=1"},
                                 {"a..b=1"}};
    for (size_t i = 0; i < sizeof bad_sets / sizeof bad_sets[0]; i++) {
        memset(&err, 0, sizeof err);
        parse_bad("{" BASE "}", bad_sets[i], 1, &err);
        assert_non_null(strstr(err.msg, "--set"));
    }
}

static void test_extract_and_aggregate(void **state)
{
    (void)state;
    qc_sweep *s = parse_ok("{\"experiment\": \"sim pool\", \"reps\": 3, \"metrics\": {"
                           "\"ci\": \"metrics.cost\", \"num\": \"a.b\", \"arr\": \"cls.1.d\","
                           "\"nul\": \"n\", \"bad\": \"a\", \"gone\": \"metrics.nope\"}}",
                           NULL, 0);
    json_t *out = json_loads("{\"metrics\": {\"cost\": {\"value\": 2, \"ci_low\": 1, "
                             "\"ci_high\": 3}}, \"a\": {\"b\": 4.5}, \"cls\": [{\"d\": 1}, "
                             "{\"d\": 7}], \"n\": null}",
                             0, NULL);
    assert_non_null(out);
    qc_sweep_val v;
    qc_err err = {0};
    assert_int_equal(qc_sweep_extract(s, out, 0, &v, &err), 0);
    assert_true(v.value == 2 && v.lo == 1 && v.hi == 3);
    assert_int_equal(qc_sweep_extract(s, out, 1, &v, &err), 0);
    assert_true(v.value == 4.5 && isnan(v.lo));
    assert_int_equal(qc_sweep_extract(s, out, 2, &v, &err), 0);
    assert_true(v.value == 7);
    assert_int_equal(qc_sweep_extract(s, out, 3, &v, &err), 0);
    assert_true(isnan(v.value));
    assert_int_equal(qc_sweep_extract(s, out, 4, &v, &err), QC_EINVAL);
    assert_int_equal(qc_sweep_extract(s, out, 5, &v, &err), QC_EINVAL);
    assert_non_null(strstr(err.msg, "'gone'"));
    assert_non_null(strstr(err.msg, "metrics.nope"));
    json_decref(out);

    /* Three replications of a positive quantity: the mean, and the
     * t-interval with 2 degrees of freedom carried to the log scale (the
     * plain one, 3 -+ 6.57, went below 0: issue 34). */
    const qc_sweep_val r[3] = {{1, NAN, NAN}, {2, NAN, NAN}, {6, NAN, NAN}};
    qc_sweep_aggregate(s, 0, r, 3, &v);
    const double mean = 3, sd = sqrt(((1 - 3.) * (1 - 3.) + 1 + 9) / 2.0);
    const double half = gsl_cdf_tdist_Pinv(0.975, 2) * sd / sqrt(3.0);
    assert_true(fabs(v.value - mean) < 1e-12);
    assert_true(v.lo > 0 && v.lo < mean && v.hi > mean + half);
    assert_true(fabs(v.lo - mean * exp(-half / mean)) < 1e-9 &&
                fabs(v.hi - mean * exp(half / mean)) < 1e-9);
    /* A quantity that takes a negative value keeps the plain interval. */
    const qc_sweep_val neg[3] = {{-1, NAN, NAN}, {2, NAN, NAN}, {5, NAN, NAN}};
    qc_sweep_aggregate(s, 0, neg, 3, &v);
    const double sdn = 3, halfn = gsl_cdf_tdist_Pinv(0.975, 2) * sdn / sqrt(3.0);
    assert_true(fabs(v.lo - (2 - halfn)) < 1e-9 && fabs(v.hi - (2 + halfn)) < 1e-9);
    /* One replication: its own interval. */
    const qc_sweep_val one = {5, 4, 7};
    qc_sweep_aggregate(s, 0, &one, 1, &v);
    assert_true(v.value == 5 && v.lo == 4 && v.hi == 7);
    qc_sweep_free(s);

    /* A utilization near 1: its interval on the logit scale stays inside
     * (0, 1) (the plain one reached 1.02), with the mean in it; one run's
     * own interval is clamped at 1. */
    s = parse_ok("{\"experiment\": \"sim queue\", \"reps\": 3, \"metrics\": {"
                 "\"u\": \"metrics.utilization\"}}",
                 NULL, 0);
    const qc_sweep_val u[3] = {{0.95, NAN, NAN}, {0.99, NAN, NAN}, {0.999, NAN, NAN}};
    qc_sweep_aggregate(s, 0, u, 3, &v);
    assert_true(fabs(v.value - (0.95 + 0.99 + 0.999) / 3) < 1e-12);
    assert_true(v.lo > 0 && v.lo < v.value && v.value < v.hi && v.hi < 1);
    const qc_sweep_val u1 = {0.99, 0.96, 1.02};
    qc_sweep_aggregate(s, 0, &u1, 1, &v);
    assert_true(v.value == 0.99 && v.lo == 0.96 && v.hi == 1);
    qc_sweep_free(s);
}

static void test_journal_roundtrip(void **state)
{
    (void)state;
    qc_sweep *s = parse_ok("{" BASE ", \"params\": {\"load\": [0.1, 0.2, 0.3]}}", NULL, 0);
    qc_sweep_point *pts = qc_sweep_points_new(s);
    const qc_sweep_val v0 = {0.1 + 0.2, 1.0 / 3.0, NAN};
    assert_int_equal(qc_sweep_point_set(s, &pts[0], &v0, NULL), 0);
    assert_int_equal(qc_sweep_point_set(s, &pts[2], NULL, "exit status 1"), 0);
    char *h = qc_sweep_journal_header(s);
    char *r0 = qc_sweep_journal_record(s, 0, &pts[0]);
    char *r2 = qc_sweep_journal_record(s, 2, &pts[2]);
    char text[2048];
    snprintf(text, sizeof text, "%s%s%s{\"point\":1,\"ke", h, r0, r2);
    qc_sweep_point *back = qc_sweep_points_new(s);
    size_t good, records;
    qc_err err = {0};
    assert_int_equal(
        qc_sweep_journal_load(s, text, strlen(text), "j", back, &good, &records, &err), 0);
    assert_int_equal(records, 2);
    assert_int_equal(good, strlen(h) + strlen(r0) + strlen(r2)); /* the cut line dropped */
    assert_int_equal(back[0].state, QC_SWEEP_DONE);
    assert_true(back[0].m[0].value == v0.value && back[0].m[0].lo == v0.lo);
    assert_true(isnan(back[0].m[0].hi));
    assert_int_equal(back[1].state, QC_SWEEP_PENDING);
    assert_int_equal(back[2].state, QC_SWEEP_FAILED);
    assert_string_equal(back[2].error, "exit status 1");
    /* Another definition refuses the journal. */
    const char *sets[] = {"reps=2"};
    qc_sweep *t = parse_ok("{" BASE ", \"params\": {\"load\": [0.1, 0.2, 0.3]}}", sets, 1);
    qc_sweep_point *tp = qc_sweep_points_new(t);
    assert_int_equal(qc_sweep_journal_load(t, text, strlen(text), "j", tp, &good, &records, &err),
                     QC_ERANGE);
    assert_non_null(strstr(err.msg, "different sweep definition"));
    /* A damaged line in the middle is an error with its line number. */
    snprintf(text, sizeof text, "%sgarbage\n%s", h, r0);
    assert_int_equal(
        qc_sweep_journal_load(s, text, strlen(text), "j", back, &good, &records, &err),
        QC_EPARSE);
    assert_non_null(strstr(err.msg, "j:2"));
    qc_sweep_points_free(t, tp);
    qc_sweep_free(t);
    free(h), free(r0), free(r2);
    qc_sweep_points_free(s, pts);
    qc_sweep_points_free(s, back);
    qc_sweep_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_grid_order),   cmocka_unit_test(test_step_range_float_ends),
        cmocka_unit_test(test_points_and_log_ranges), cmocka_unit_test(test_argv_templates),
        cmocka_unit_test(test_set_overrides),     cmocka_unit_test(test_seeds),
        cmocka_unit_test(test_errors),            cmocka_unit_test(test_extract_and_aggregate),
        cmocka_unit_test(test_journal_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
