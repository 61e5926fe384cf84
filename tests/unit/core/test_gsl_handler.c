/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_gsl_handler.c: the library leaves GSL's process-wide error handler
 * as the host set it. A host handler is installed; library calls that go
 * through GSL (a t quantile, a gamma CDF, a linear solve, a polynomial's
 * roots) must neither call it (they run with the handler off) nor replace
 * it. Then GSL's own default handler, which aborts the process, is
 * installed and the public calls that size a GSL allocation are given
 * impossible sizes: each must return its error, and the process live on
 * (under the default handler an abort would end this test, exit 134). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <string.h>

#include "qctl/arx.h"
#include "qctl/dist.h"

/* Under AddressSanitizer an impossible malloc aborts the test unless the
 * allocator may return NULL, which is what the library must then handle
 * (QC_ENOMEM): the same answer an ordinary build's malloc gives. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}
#include "qctl/error.h"
#include "qctl/multiclass.h"
#include "qctl/stats.h"

static int calls;

static void host_handler(const char *reason, const char *file, int line, int gsl_errno)
{
    (void)reason, (void)file, (void)line, (void)gsl_errno;
    calls++;
}

static void test_handler_kept(void **state)
{
    (void)state;
    gsl_error_handler_t *before = gsl_set_error_handler(host_handler);
    const double x[] = {1, 2, 4, 8};
    qc_ci ci;
    assert_int_equal(qc_ci_t(x, 4, 0.95, &ci, NULL), 0);
    assert_true(ci.hi > ci.lo);
    qc_dist g;
    assert_int_equal(qc_dist_parse(&g, "gamma:0.5,2", NULL), 0);
    assert_true(qc_dist_cdf(&g, 1.0) > 0);
    const double lambda[2] = {0.3, 0.2}, mu[2] = {1, 1}, w[2] = {2, 1};
    double T[2];
    assert_int_equal(qc_mc_dps_exp_delays(2, lambda, mu, w, T, NULL), 0);
    assert_int_equal(calls, 0);
    /* still the host's: setting another returns it */
    assert_ptr_equal(gsl_set_error_handler(before), host_handler);
}

static void test_default_handler_survives(void **state)
{
    (void)state;
    gsl_error_handler_t *before = gsl_set_error_handler(NULL); /* GSL's default: abort */
    const size_t sizes[] = {SIZE_MAX, SIZE_MAX / 2, SIZE_MAX / 96 + 1, (size_t)1 << 50,
                            (size_t)1 << 44};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        qc_err err = {0};
        qc_arx_ws *w = qc_arx_alloc(sizes[i], &err);
        assert_null(w);
        assert_int_equal(err.code, QC_ENOMEM);
        assert_non_null(strstr(err.msg, "out of memory"));
    }
    /* and an ordinary size still works under it */
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(100, &err);
    assert_non_null(w);
    qc_arx_free(w);
    /* the default handler is still installed: the next setter gets NULL back */
    assert_null(gsl_set_error_handler(before));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_handler_kept),
                                       cmocka_unit_test(test_default_handler_survives)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
