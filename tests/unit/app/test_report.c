/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_report.c: the HTML report page (report.h).
 *
 * The page is checked as text: every outside string escaped (argv, title,
 * JSON keys and strings, plot names), the summary laid out by shape (key/
 * value table, titled nested table, row table from an array of objects,
 * one "value [low, high]" cell for a confidence interval), an SVG inlined
 * without its prolog and with its ids made unique, a missing SVG shown as
 * a note, the same inputs giving the same bytes, and an unwritable
 * directory reported as QC_EIO naming the path. What a browser makes of
 * the page is checked in headless Chromium by the scripts in tests/report/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/report.h"

/* A fresh scratch directory per test. */
static char *scratch(void)
{
    char *d = strdup("/tmp/qc-test-report-XXXXXX");
    assert_non_null(d);
    assert_non_null(mkdtemp(d));
    return d;
}

static void rm_dir(char *d)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    assert_int_equal(system(cmd), 0);
    free(d);
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = '\0';
    fclose(fp);
    return s;
}

static void put(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

static json_t *parse(const char *text)
{
    json_error_t je;
    json_t *v = json_loads(text, 0, &je);
    assert_non_null(v);
    return v;
}

/* Writes a report of `summary` (JSON text) with no plots and returns the page. */
static char *page_of(const char *dir, const char *summary, int argc, char *const argv[])
{
    json_t *js = summary ? parse(summary) : NULL;
    qc_err err = {0};
    assert_int_equal(qc_report_write(dir, "t", NULL, argc, argv, js, NULL, 0, &err), 0);
    json_decref(js);
    return slurp(dir, "index.html");
}

static void test_escapes_outside_text(void **state)
{
    (void)state;
    char *d = scratch();
    char *argv[] = {"qctl", "sim", "queue", "--arrival", "<script>&\"x\"", "it's"};
    json_t *js = parse("{\"<b>key\": \"a<b>&\\\"c\\\"\", \"n\": 3}");
    const char *plots[] = {"<i>plot"};
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "T<&>\"", "about <x>", 6, argv, js, plots, 1, &err), 0);
    json_decref(js);
    char *s = slurp(d, "index.html");
    /* nothing that came in raw reaches the page raw */
    assert_null(strstr(s, "<script>&"));
    assert_null(strstr(s, "<b>"));
    assert_null(strstr(s, "<i>"));
    assert_non_null(strstr(s, "<title>T&lt;&amp;&gt;&quot;</title>"));
    /* argv shell-quoted, then escaped */
    assert_non_null(strstr(s, "qctl sim queue --arrival '&lt;script&gt;&amp;&quot;x&quot;'"));
    assert_non_null(strstr(s, "'it&#39;\\&#39;&#39;s'"));
    assert_non_null(strstr(s, "<th>&lt;b&gt;key</th>"));
    assert_non_null(strstr(s, "<td>a&lt;b&gt;&amp;&quot;c&quot;</td>"));
    assert_non_null(strstr(s, "&lt;i&gt;plot"));
    /* the one script is the page's own */
    const char *sc = strstr(s, "<script>");
    assert_non_null(sc);
    assert_null(strstr(sc + 1, "<script>"));
    free(s);
    rm_dir(d);
}

static void test_ci_cell(void **state)
{
    (void)state;
    char *d = scratch();
    char *s = page_of(d,
                      "{\"metrics\": {\"response time\": {\"value\": 1.5, \"ci_low\": 1.25,"
                      " \"ci_high\": 1.75, \"half_width\": 0.25, \"level\": 0.95, \"n\": 20},"
                      " \"blocking\": {\"value\": null, \"ci_low\": null, \"ci_high\": null}}}",
                      0, NULL);
    /* value and interval in their own columns; a metric without a value
     * is named in words after the table, not drawn as dashes */
    assert_non_null(strstr(s, "<th>response time</th><td class=\"num\">1.5</td>"
                              "<td class=\"num\">[1.25, 1.75]</td>"));
    assert_null(strstr(s, "&mdash; [&mdash;, &mdash;]"));
    assert_non_null(strstr(s, "Not measured in this run: blocking"));
    /* the interval is one row, not a table of its own fields */
    assert_null(strstr(s, "half_width"));
    /* reals with 6 significant digits */
    free(s);
    s = page_of(d, "{\"x\": 3.14159265358979, \"big\": 12345678901, \"t\": true}", 0, NULL);
    assert_non_null(strstr(s, "<td class=\"num\">3.14159</td>"));
    /* no interval anywhere: the top-level numbers are the main figures */
    assert_non_null(strstr(s, "<li>x: <strong>3.14159</strong></li>"));
    assert_non_null(strstr(s, "computed, not estimated"));
    assert_non_null(strstr(s, "<td class=\"num\">12345678901</td>"));
    assert_non_null(strstr(s, "<td>true</td>"));
    free(s);
    rm_dir(d);
}

static void test_tables_by_shape(void **state)
{
    (void)state;
    char *d = scratch();
    char *s = page_of(d,
                      "{\"command\": \"sim pool\","
                      " \"run\": {\"seed\": 7, \"warmup\": {\"method\": \"mser5\"}},"
                      " \"policies\": [{\"name\": \"a\", \"cost\": 1},"
                      "                {\"name\": \"b\", \"cost\": 2}],"
                      " \"mixed\": [{\"x\": 1}, {\"y\": 2}],"
                      " \"reordered\": [{\"a\": 1, \"b\": 2}, {\"b\": 4, \"a\": 3}],"
                      " \"list\": [1, 2, 3],"
                      " \"metrics\": {\"ks\": {\"fitted\": 0.1, \"copula\": 0.2},"
                      "             \"rate\": {\"real\": 5, \"fitted\": 4, \"copula\": 6}}}",
                      0, NULL);
    /* top-level scalars: one key/value table, scalar array in one cell */
    assert_non_null(strstr(s, "<tr><th>command</th><td>sim pool</td></tr>"));
    assert_non_null(strstr(s, "<tr><th>list</th><td>1, 2, 3</td></tr>"));
    /* a nested object under a heading; its object of scalars folded into
     * its table as rows under a heading row with the object's name */
    const char *run = strstr(s, "<h3>run</h3>");
    assert_non_null(run);
    assert_non_null(strstr(run, "<tr><th>seed</th><td class=\"num\">7</td></tr>"));
    assert_non_null(strstr(run, "<tr><th colspan=\"2\" class=\"group\">warmup</th></tr>\n"
                                "<tr><th class=\"sub\">method</th><td>mser5</td></tr>"));
    assert_null(strstr(s, "\xe2\x80\xba"));
    assert_null(strstr(s, "run / warmup"));
    /* array of like objects: one table, keys as columns */
    const char *pol = strstr(s, "<h3>policies</h3>");
    assert_non_null(pol);
    assert_non_null(strstr(pol, "<tr><th>name</th><th>cost</th></tr>\n"
                                "<tr><td>a</td><td class=\"num\">1</td></tr>\n"
                                "<tr><td>b</td><td class=\"num\">2</td></tr>"));
    /* the same keys in another order: one table, columns of the first row */
    const char *re = strstr(s, "<h3>reordered</h3>");
    assert_non_null(re);
    assert_non_null(strstr(re, "<tr><th>a</th><th>b</th></tr>\n"
                               "<tr><td class=\"num\">1</td><td class=\"num\">2</td></tr>\n"
                               "<tr><td class=\"num\">3</td><td class=\"num\">4</td></tr>"));
    /* an object of like objects: one table, a row per member, the union of
     * their keys as columns, a missing value an empty cell */
    const char *mt = strstr(s, "<h3>metrics</h3>");
    assert_non_null(mt);
    assert_non_null(strstr(mt, "<tr><th></th><th>fitted</th><th>copula</th><th>real</th></tr>\n"
                               "<tr><th>Kolmogorov-Smirnov</th><td class=\"num\">0.1</td><td class=\"num\">0.2</td>"
                               "<td></td></tr>\n"
                               "<tr><th>rate</th><td class=\"num\">4</td><td class=\"num\">6</td>"
                               "<td class=\"num\">5</td></tr>"));
    assert_null(strstr(s, "<h3>metrics / ks</h3>"));
    /* like objects with other keys: one table, the union of the columns */
    assert_non_null(strstr(s, "<tr><th>x</th><th>y</th></tr>\n"
                              "<tr><td class=\"num\">1</td><td></td></tr>"));
    free(s);
    /* a long scalar array is cut to its head and a count */
    json_t *big = json_array();
    for (int i = 0; i < 100; i++)
        json_array_append_new(big, json_integer(i));
    json_t *root = json_object();
    json_object_set_new(root, "series", big);
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "t", NULL, 0, NULL, root, NULL, 0, &err), 0);
    json_decref(root);
    s = slurp(d, "index.html");
    assert_non_null(strstr(s, "18, 19, &hellip; (100 values)"));
    assert_null(strstr(s, ", 20,"));
    free(s);
    rm_dir(d);
}

static void test_human_page(void **state)
{
    (void)state;
    char *d = scratch();
    json_t *js = parse("{\"mean_power_w\": 12.5, \"response_time\": {\"value\": 2, \"ci_low\": 1.5,"
                       " \"ci_high\": 2.5, \"level\": 0.95},"
                       " \"groups\": [{\"name\": \"web\", \"model\": {\"size\": {\"deep\":"
                       " {\"list\": [{\"a\": {\"b\": 1}}, {\"c\": [1]}]}}}}],"
                       " \"fits\": [{\"family\": \"exp\", \"aic\": 3,"
                       "   \"params\": {\"p1\":1,\"p2\":1,\"p3\":1,\"p4\":1,\"p5\":1,\"p6\":1,\"p7\":1,"
                       "   \"p8\":1,\"p9\":1,\"p10\":1,\"p11\":1,\"p12\":1},"
                       "   \"se\": {\"p1\":1,\"p2\":1,\"p3\":1,\"p4\":1,\"p5\":1,\"p6\":1,\"p7\":1,"
                       "   \"p8\":1,\"p9\":1,\"p10\":1,\"p11\":1,\"p12\":1}}],"
                       " \"warnings\": [\"short run\"]}");
    char *argv[] = {"qctl", "sim", "pool"};
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "t", "A pool of <servers>.", 3, argv, js, NULL, 0, &err), 0);
    json_decref(js);
    char *s = slurp(d, "index.html");
    /* the narrative: what was run (escaped), what it shows */
    assert_non_null(strstr(s, "<h2>What was run</h2>\n<p>A pool of &lt;servers&gt;."));
    assert_non_null(strstr(s, "<h2>What it shows</h2>"));
    assert_non_null(strstr(s, "<li>response time (s): <strong>2</strong>, 95% confidence interval [1.5, 2.5]</li>"));
    assert_non_null(strstr(s, "<p class=\"warn\">Warning: short run</p>"));
    /* keys as words with their units */
    assert_non_null(strstr(s, "<tr><th>mean power (W)</th><td class=\"num\">12.5</td></tr>"));
    /* an array element named by its name, deep sections collapsed */
    assert_non_null(strstr(s, "<h4>web</h4>"));
    assert_non_null(strstr(s, "<details><summary>model</summary>"));
    assert_null(strstr(s, "[0]"));
    /* rows too wide when flattened: their scalars as one table, their
     * parameters and standard errors side by side in a collapsed table */
    assert_non_null(strstr(s, "<tr><th>family</th><th>AIC</th></tr>\n<tr><td>exp</td>"));
    assert_non_null(strstr(s, "<details><summary>exp</summary>"));
    assert_non_null(strstr(s, "<tr><th>standard error</th>"));
    free(s);
    rm_dir(d);
}

static const char svg_doc[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
    "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
    "\"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n"
    "<svg viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\""
    " xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
    "<defs><path id='gpPt0' d='M0,0'/><clipPath id=\"c1\"><rect width=\"5\"/></clipPath></defs>\n"
    "<use xlink:href='#gpPt0'/><g clip-path=\"url(#c1)\" data-grid=\"x\"><rect width=\"3\" height=\"3\"/></g>\n"
    "</svg>\n";

static void test_svg_inlined_and_missing_note(void **state)
{
    (void)state;
    char *d = scratch();
    put(d, "steps.svg", svg_doc);
    put(d, "notsvg.svg", "hello");
    const char *plots[] = {"steps", "absent", "notsvg", "steps"};
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "t", NULL, 0, NULL, NULL, plots, 4, &err), 0);
    char *s = slurp(d, "index.html");
    assert_null(strstr(s, "<?xml"));
    assert_null(strstr(s, "DOCTYPE svg"));
    assert_null(strstr(s, "svg11.dtd"));
    assert_non_null(strstr(s, "<!DOCTYPE html>"));
    /* two inlined, the same file twice with distinct ids */
    assert_non_null(strstr(s, "data-plots=\"2\""));
    assert_non_null(strstr(s, "id='p1-gpPt0'"));
    assert_non_null(strstr(s, "xlink:href='#p1-gpPt0'"));
    assert_non_null(strstr(s, "clip-path=\"url(#p1-c1)\""));
    assert_non_null(strstr(s, "id='p4-gpPt0'"));
    assert_non_null(strstr(s, "id=\"p4-c1\""));
    /* data-grid is not an id attribute */
    assert_non_null(strstr(s, "data-grid=\"x\""));
    assert_non_null(strstr(s, "<figcaption><strong>Figure 1.</strong> steps. <span class=\"files\">(steps.svg"));
    /* the missing plot and the bad file are visible notes */
    assert_non_null(strstr(s, "<p class=\"missing\">Plot <code>absent</code> not drawn: gnuplot is not installed"));
    assert_non_null(strstr(s, "<p class=\"missing\">Plot <code>notsvg</code> not shown"));
    /* order kept: steps, absent, notsvg, steps */
    assert_true(strstr(s, "p1-gpPt0") < strstr(s, "absent"));
    assert_true(strstr(s, "notsvg") < strstr(s, "p4-gpPt0"));
    free(s);
    rm_dir(d);
}

static void test_deterministic(void **state)
{
    (void)state;
    char *d = scratch();
    put(d, "a.svg", svg_doc);
    char *argv[] = {"qctl", "design", "--model", "m.json"};
    const char *plots[] = {"a", "b"};
    json_t *js = parse("{\"z\": 1, \"a\": {\"q\": [1.5, 2.5]}, \"m\": 0.1}");
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "same", NULL, 4, argv, js, plots, 2, &err), 0);
    char *s1 = slurp(d, "index.html");
    assert_int_equal(qc_report_write(d, "same", NULL, 4, argv, js, plots, 2, &err), 0);
    char *s2 = slurp(d, "index.html");
    assert_string_equal(s1, s2);
    /* insertion order, not sorted: z before a before m */
    assert_true(strstr(s1, "<th>z</th>") < strstr(s1, "<th>m</th>"));
    /* no temporary file left behind */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "test \"$(ls '%s' | tr '\\n' ' ')\" = 'a.svg index.html '", d);
    assert_int_equal(system(cmd), 0);
    /* and a different input does change the page */
    json_object_set_new(js, "m", json_real(0.2));
    assert_int_equal(qc_report_write(d, "same", NULL, 4, argv, js, plots, 2, &err), 0);
    char *s3 = slurp(d, "index.html");
    assert_string_not_equal(s1, s3);
    json_decref(js);
    free(s1);
    free(s2);
    free(s3);
    rm_dir(d);
}

static void test_unwritable_dir(void **state)
{
    (void)state;
    char *d = scratch();
    put(d, "file", "x");
    char bad[512];
    snprintf(bad, sizeof bad, "%s/file/sub", d); /* below a regular file */
    qc_err err = {0};
    json_t *js = parse("{}");
    assert_int_equal(qc_report_write(bad, "t", NULL, 0, NULL, js, NULL, 0, &err), QC_EIO);
    assert_non_null(strstr(err.msg, bad));
    assert_non_null(strstr(err.msg, "index.html"));
    /* a directory that does not exist */
    snprintf(bad, sizeof bad, "%s/none", d);
    assert_int_equal(qc_report_write(bad, "t", NULL, 0, NULL, js, NULL, 0, &err), QC_EIO);
    assert_non_null(strstr(err.msg, bad));
    /* a summary that is not an object */
    json_t *arr = json_array();
    assert_int_equal(qc_report_write(d, "t", NULL, 0, NULL, arr, NULL, 0, &err), QC_EINVAL);
    json_decref(arr);
    json_decref(js);
    rm_dir(d);
}

static void test_self_contained(void **state)
{
    (void)state;
    char *d = scratch();
    put(d, "a.svg", svg_doc);
    const char *plots[] = {"a"};
    json_t *js = parse("{\"k\": \"v\"}");
    qc_err err = {0};
    assert_int_equal(qc_report_write(d, "t", NULL, 0, NULL, js, plots, 1, &err), 0);
    json_decref(js);
    char *s = slurp(d, "index.html");
    /* the only URIs are the SVG namespaces */
    for (const char *p = s; (p = strstr(p, "http")) != NULL; p++)
        assert_true(strncmp(p, "http://www.w3.org/2000/svg\"", 27) == 0 ||
                    strncmp(p, "http://www.w3.org/1999/xlink\"", 29) == 0);
    assert_null(strstr(s, "src="));
    assert_null(strstr(s, "<link"));
    assert_non_null(strstr(s, "<style>"));
    assert_non_null(strstr(s, "data-plots-rendered=\"0\""));
    free(s);
    rm_dir(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes_outside_text),
        cmocka_unit_test(test_ci_cell),
        cmocka_unit_test(test_tables_by_shape),
        cmocka_unit_test(test_human_page),
        cmocka_unit_test(test_svg_inlined_and_missing_note),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_unwritable_dir),
        cmocka_unit_test(test_self_contained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
