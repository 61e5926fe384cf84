/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_network_paths.c: sim network's station-specialized path against
 * its general event loop (qctl/network.h, params.general).
 *
 * A network of one open class through FCFS stations (with capacities,
 * c servers, probabilistic routing with feedback, a split entry) runs on
 * a path with no event list and no customer records. It draws the same
 * numbers from the same streams in the same order as the general loop,
 * so for the same seed every estimate must be the general loop's: the
 * events, the measured exits and the clock exactly, the means and
 * half-widths of every station and end-to-end metric to a few ulps (the
 * time integrals are summed in another order, exact in real numbers).
 * A chain of single-server stations runs on the tandem recursion (no
 * event list at all), held to the same equality. Cases with a fixed
 * warm-up, several replications and non-exponential services too; and a network the path does not take (a PS station) runs
 * the same either way. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "qctl/network.h"

#include "../../../bench/net_cases.h"

/* the bench's three networks (bench/net_cases.h: M/M/1/10 at 0.9 with
 * loss, M/M/2 at 0.8, three M/M/1 in tandem), then these */
static const char *const more[] = {
    /* feedback, a split entry, three servers with a capacity, lognormal */
    "{\"stations\":[{\"name\":\"a\",\"service\":\"exp:4\"},"
    "{\"name\":\"b\",\"servers\":3,\"capacity\":6,\"service\":\"lognormal:0.6,0.8\"},"
    "{\"name\":\"c\",\"servers\":2,\"service\":\"uniform:0.1,0.5\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:1.5\",\"entry\":{\"a\":0.7,\"c\":0.3}}],"
    "\"routing\":{\"x\":{\"a\":{\"b\":0.5,\"c\":0.3},\"b\":{\"a\":0.4},\"c\":{\"a\":0.2}}}}",
    /* the tandem recursion: one M/M/1; four stations, general services
     * and arrivals, the second one the bottleneck at 0.9 */
    "{\"stations\":[{\"name\":\"s\",\"service\":\"exp:1\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:0.8\",\"entry\":\"s\"}]}",
    "{\"stations\":[{\"name\":\"a\",\"service\":\"lognormal:-0.8,0.6\"},"
    "{\"name\":\"b\",\"service\":\"uniform:0.8,1.1\"},{\"name\":\"c\",\"service\":\"exp:2\"},"
    "{\"name\":\"d\",\"service\":\"exp:1.5\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"uniform:0.5,1.6\",\"entry\":\"a\"}],"
    "\"routing\":{\"x\":{\"a\":{\"b\":1},\"b\":{\"c\":1},\"c\":{\"d\":1}}}}",
    /* a chain with two servers at one station: the event loop's */
    "{\"stations\":[{\"name\":\"a\",\"service\":\"exp:1.2\"},"
    "{\"name\":\"b\",\"servers\":2,\"service\":\"exp:0.6\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:1\",\"entry\":\"a\"}],"
    "\"routing\":{\"x\":{\"a\":{\"b\":1}}}}",
};
#define NNETS (NET_CASES + sizeof more / sizeof *more)

static const char *net_json(size_t c)
{
    return c < NET_CASES ? net_case_json[c] : more[c - NET_CASES];
}

static void same(const qc_ci *a, const qc_ci *b, size_t n, const char *what)
{
    for (size_t x = 0; x < n; x++) {
        int both_nan = isnan(a[x].mean) && isnan(b[x].mean);
        if (both_nan)
            continue;
        double tol = 1e-12 * fabs(a[x].mean) + 1e-300;
        if (!(fabs(a[x].mean - b[x].mean) <= tol)) {
            print_error("%s[%zu]: mean %.17g (specialized) vs %.17g (general)\n", what, x,
                        a[x].mean, b[x].mean);
            fail();
        }
        double th = 1e-9 * fabs(a[x].half) + 1e-300;
        if (!(fabs(a[x].half - b[x].half) <= th) && !(isnan(a[x].half) && isnan(b[x].half))) {
            print_error("%s[%zu]: half-width %.17g vs %.17g\n", what, x, a[x].half, b[x].half);
            fail();
        }
    }
}

static void compare(const char *json, qc_warmup_mode wm, double warmup, unsigned reps,
                    uint64_t seed)
{
    qc_network net;
    qc_err err = {0};
    assert_int_equal(qc_network_parse(&net, json, "test", &err), 0);
    qc_network_result r[2];
    for (int g = 0; g < 2; g++) {
        qc_network_params p;
        qc_network_params_init(&p);
        p.net = &net;
        p.customers = 20000;
        p.warmup_mode = wm;
        p.warmup = warmup;
        p.reps = reps;
        p.seed = seed;
        p.jobs = 1;
        p.general = g;
        int rc = qc_network_run(&p, &r[g], &err);
        if (rc != 0)
            print_error("%s\n", err.msg);
        assert_int_equal(rc, 0);
    }
    assert_true(r[0].events == r[1].events);
    assert_true(r[0].measured == r[1].measured);
    assert_true(r[0].sim_time == r[1].sim_time);
    assert_int_equal(r[0].warmup_chunks, r[1].warmup_chunks);
    size_t nrows = (size_t)net.nst * (net.ncl + 1);
    same(r[0].station, r[1].station, nrows * QC_NM_COUNT, "station");
    same(r[0].e2e, r[1].e2e, (size_t)(net.ncl + 1) * QC_NE_COUNT, "e2e");
    qc_network_result_free(&r[0]);
    qc_network_result_free(&r[1]);
    qc_network_free(&net);
}

static void t_one_run(void **state)
{
    (void)state;
    for (size_t c = 0; c < NNETS; c++)
        for (uint64_t seed = 1; seed <= 3; seed++)
            compare(net_json(c), QC_WARMUP_MSER5, 0, 1, seed);
}

static void t_reps_fixed_warmup(void **state)
{
    (void)state;
    for (size_t c = 0; c < NNETS; c++) {
        compare(net_json(c), QC_WARMUP_FIXED, 2000, 1, 7);
        compare(net_json(c), QC_WARMUP_MSER5, 0, 4, 11);
    }
}

static void t_not_taken(void **state)
{
    (void)state;
    /* a PS station: the general loop either way */
    compare("{\"stations\":[{\"name\":\"s\",\"discipline\":\"ps\",\"service\":\"exp:1\"}],"
            "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:0.7\",\"entry\":\"s\"}]}",
            QC_WARMUP_MSER5, 0, 1, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(t_one_run),
        cmocka_unit_test(t_reps_fixed_warmup),
        cmocka_unit_test(t_not_taken),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
