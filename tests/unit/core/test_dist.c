/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_dist.c: distributions: sampling against their own CDF, moments and
 * CDFs against closed forms, spec errors, empirical files, determinism.
 *
 * Statistical checks use a fixed seed, so they are deterministic; their
 * thresholds are still set from the sampling distribution of the statistic
 * so that a correct implementation passes each with probability >= 0.999
 * for any seed, and a wrong one (a swapped parameter, a mean off by a
 * factor) fails by a wide margin:
 *  - Kolmogorov-Smirnov: D < 1.9495 / sqrt(n), the asymptotic critical
 *    value at alpha = 0.001 (sqrt(-log(alpha/2)/2) = 1.9495). For a
 *    discrete law the test is conservative, so the bound still holds.
 *  - Sample mean: |mean - E[X]| < 4 sqrt(Var[X] / n), two-sided
 *    probability 6e-5 under the CLT, checked only where Var[X] < inf. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/dist.h"

#define PI 3.14159265358979323846
#define KS_N 20000
#define KS_CRIT_COEF 1.9495 /* alpha = 0.001 */
#define SEED UINT64_C(20240601)

#define assert_close(a, b, tol) check_close((a), (b), (tol), #a, __FILE__, __LINE__)

static void check_close(double a, double b, double tol, const char *what, const char *file,
                        int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("%s = %.17g, expected %.17g within %g\n", what, a, b, tol);
        _fail(file, line);
    }
}

/* Relative closeness, for values whose scale varies. */
#define assert_rel(a, b, rel) check_close((a), (b), (rel)*fabs(b), #a, __FILE__, __LINE__)

static void parse_ok(qc_dist *d, const char *spec)
{
    qc_err err = {0};
    const int rc = qc_dist_parse(d, spec, &err);
    if (rc != 0)
        print_error("qc_dist_parse(\"%s\"): %d: %s\n", spec, rc, err.msg);
    assert_int_equal(rc, 0);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* sup_x |F_n(x) - F(x)| over sorted x[0..n). Between distinct sample
 * values both functions are monotone and F_n is flat, so the supremum is
 * reached at a sample value v, comparing F_n(v) with F(v) and F_n(v-) with
 * F(v-) (the left limit, which differs from F(v) at an atom). */
static double ks_stat(const qc_dist *d, const double *x, size_t n)
{
    double dmax = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && x[j] == x[i])
            j++;
        const double v = x[i];
        const double f = qc_dist_cdf(d, v), fl = qc_dist_cdf(d, nextafter(v, -INFINITY));
        const double a = fabs((double)j / (double)n - f), b = fabs((double)i / (double)n - fl);
        if (a > dmax)
            dmax = a;
        if (b > dmax)
            dmax = b;
        i = j;
    }
    return dmax;
}

/* ------------------------------------------------------------------ */
/* Every kind against its own CDF                                     */
/* ------------------------------------------------------------------ */

static const double ties[] = {0.5, 1, 1, 2, 3.5, 3.5, 3.5, 7, 0, 12.25};

typedef struct ks_case {
    const char *spec;     /* NULL: qc_dist_empirical(ties) */
    int continuous;       /* check quantile(cdf(x)) == x */
} ks_case;

static ks_case ks_cases[] = {
    {"exp:1", 1},
    {"exp:0.25", 1},
    {"uniform:0,1", 1},
    {"uniform:2,4", 1},
    {"erlang:3,2", 1},      /* product-of-uniforms sampler */
    {"erlang:50,10", 1},    /* GSL gamma sampler */
    {"hyperexp:0.5,1,0.5,0.1", 1},
    {"hyperexp:0.9,10,0.1,0.5", 1},
    {"gamma:0.3,2", 1},
    {"gamma:4.5,0.5", 1},
    {"gamma:20000,0.0005", 1}, /* CDF by Temme's expansion */
    {"lognormal:0,0.5", 1},
    {"lognormal:1,1.5", 1},    /* heavy tail */
    {"weibull:0.5,1", 1},      /* heavy tail */
    {"weibull:2,3", 1},
    {"pareto:3,1", 1},
    {"pareto:1.5,2", 1},       /* infinite variance */
    {"bpareto:1.2,1,1000", 1},
    {"bpareto:1,0.5,50", 1},   /* alpha = 1 */
    {"bpareto:2,1,10", 1},     /* alpha = 2 */
    {"lnmix:0.3,0,0.5,0.7,2,0.25", 1},
    {"lnmix:0.5,-6,0.3,0.3,-4,0.5,0.2,-2,1", 1},
    {"expmix:0.9,10,0.1,0.5", 1},
    {"expmix:0.2,100,0.5,10,0.3,1", 1},
    {"gpd:0.3,2,1", 1},
    {"gpd:0,1,0", 1},
    {"gpd:-0.4,1,0.5", 1},     /* bounded support [0.5, 3] */
    {"empirical:" QC_TEST_DATA "/dist_two_cols.csv,service", 0},
    {NULL, 0},
};

static void test_ks(void **state)
{
    const ks_case *c = *state;
    const size_t idx = (size_t)(c - ks_cases);
    qc_dist d;
    if (c->spec != NULL) {
        parse_ok(&d, c->spec);
    } else {
        qc_err err = {0};
        assert_int_equal(qc_dist_empirical(&d, ties, sizeof ties / sizeof ties[0], &err), 0);
    }
    qc_rng r;
    qc_rng_init(&r, SEED, idx);
    double *x = malloc(KS_N * sizeof *x);
    assert_non_null(x);
    double sum = 0;
    for (size_t i = 0; i < KS_N; i++) {
        x[i] = qc_dist_sample(&d, &r);
        assert_true(x[i] >= 0 && isfinite(x[i]));
        sum += x[i];
    }
    qsort(x, KS_N, sizeof *x, cmp_double);

    const double dstat = ks_stat(&d, x, KS_N), crit = KS_CRIT_COEF / sqrt(KS_N);
    print_message("KS %-34s D = %.5f  crit = %.5f\n", c->spec ? c->spec : "empirical(ties)", dstat,
                  crit);
    assert_true(dstat < crit);

    const double mean = qc_dist_mean(&d), var = qc_dist_var(&d);
    if (isfinite(var)) {
        assert_true(var >= 0);
        assert_close(sum / KS_N, mean, 4 * sqrt(var / KS_N));
    }

    /* Round trip on 200 sample points away from the extreme tails. The
     * quantile is the smallest x with F(x) >= F(x0); it moves from x0 by
     * about ulp(F) / f(x0), which for these laws and F in [1e-3, 1-1e-3]
     * is below 1e-11 x0; 1e-9 leaves room and still catches any real
     * inversion error. Empirical: exact, every sample is its own quantile. */
    for (size_t i = 0; i < KS_N; i += KS_N / 200) {
        const double f = qc_dist_cdf(&d, x[i]);
        if (c->continuous && f >= 1e-3 && f <= 1 - 1e-3)
            assert_rel(qc_dist_quantile(&d, f), x[i], 1e-9);
        if (!c->continuous)
            assert_true(qc_dist_quantile(&d, f) == x[i]);
    }
    free(x);
    qc_dist_free(&d);
}

/* The mixtures and the GPD against the laws they reduce to, whose
 * formulas are independent of theirs: expmix with two components is
 * hyperexp; a lognormal mixture of two equal components is that
 * lognormal; gpd:0,SIGMA,U is U + exponential of mean SIGMA; gpd:XI,
 * XI XM,XM is pareto:1/XI,XM. Then the specs' errors. */
static void same_law(const char *a, const char *b)
{
    qc_dist x, y;
    parse_ok(&x, a);
    parse_ok(&y, b);
    assert_rel(qc_dist_mean(&x), qc_dist_mean(&y), 1e-12);
    if (isfinite(qc_dist_var(&y)))
        assert_rel(qc_dist_var(&x), qc_dist_var(&y), 1e-9);
    for (double q = 0.01; q < 1; q += 0.07) {
        const double v = qc_dist_quantile(&y, q);
        assert_close(qc_dist_cdf(&x, v), q, 1e-9);
        assert_rel(qc_dist_quantile(&x, q), v, 1e-9);
    }
    qc_dist_free(&x);
    qc_dist_free(&y);
}

static void test_mixtures(void **state)
{
    (void)state;
    same_law("expmix:0.3,2,0.7,0.25", "hyperexp:0.3,2,0.7,0.25");
    same_law("lnmix:0.4,1.5,0.7,0.6,1.5,0.7", "lognormal:1.5,0.7");
    same_law("lnmix:0.4,1.5,0.7,0.6,1.5,0.7,0,3,1", "lognormal:1.5,0.7");
    same_law("gpd:0,2,0", "exp:0.5");
    same_law("gpd:0.25,0.5,2", "pareto:4,2");
    /* Three-component moments by hand: E[X] = sum w e^(mu + s^2/2). */
    qc_dist d;
    parse_ok(&d, "lnmix:0.5,0,1,0.25,1,0.5,0.25,2,0.1");
    assert_rel(qc_dist_mean(&d),
               0.5 * exp(0.5) + 0.25 * exp(1.125) + 0.25 * exp(2.005), 1e-12);
    char buf[QC_DIST_FORMAT_MAX];
    assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
    assert_string_equal(buf, "lnmix:0.5,0,1,0.25,1,0.5,0.25,2,0.1");
    qc_dist_free(&d);
    parse_ok(&d, "expmix:0.5,1,0.5,3");
    assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
    assert_string_equal(buf, "expmix:0.5,1,0.5,3");
    qc_dist_free(&d);
    static const char *const bad[] = {
        "lnmix:0.5,0,1,0.6,1,1",     /* weights sum to 1.1 */
        "lnmix:0.5,0,1",             /* one component */
        "lnmix:0.5,0,1,0.5,1,0",     /* SIGMA2 = 0 */
        "expmix:0.5,1,0.5,3,0.1",    /* 5 fields */
        "expmix:1.5,1,-0.5,3",       /* a weight outside [0, 1] */
        "gpd:0.1,0,0",               /* SIGMA = 0 */
        "gpd:0.1,1,-1",              /* U < 0 */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        qc_err err = {0};
        assert_int_not_equal(qc_dist_parse(&d, bad[i], &err), 0);
        assert_true(err.msg[0] != '\0');
    }
}

static void test_det(void **state)
{
    (void)state;
    qc_dist d;
    parse_ok(&d, "det:2.5");
    qc_rng r;
    qc_rng_init(&r, SEED, 99);
    for (int i = 0; i < 1000; i++) {
        assert_true(qc_dist_sample(&d, &r) == 2.5);
        assert_true(qc__dist_sample_slow(&d, &r) == 2.5);
    }
    assert_true(qc_dist_mean(&d) == 2.5);
    assert_true(qc_dist_var(&d) == 0);
    assert_true(qc_dist_cdf(&d, nextafter(2.5, 0)) == 0);
    assert_true(qc_dist_cdf(&d, 2.5) == 1);
    assert_true(qc_dist_quantile(&d, 0.3) == 2.5);
    parse_ok(&d, "det:-0");
    assert_true(qc_dist_sample(&d, &r) == 0 && !signbit(qc_dist_sample(&d, &r)));
    char buf[32];
    assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
    assert_string_equal(buf, "det:0");
}

/* The inlined exponential and the out-of-line one draw the same numbers. */
static void test_inline_matches_slow(void **state)
{
    (void)state;
    qc_dist d;
    parse_ok(&d, "exp:3");
    qc_rng a, b;
    qc_rng_init(&a, SEED, 5);
    qc_rng_init(&b, SEED, 5);
    for (int i = 0; i < 1000; i++)
        assert_true(qc_dist_sample(&d, &a) == qc__dist_sample_slow(&d, &b));
}

/* ------------------------------------------------------------------ */
/* Closed forms, computed by hand here, independently of dist.c        */
/* ------------------------------------------------------------------ */

static void test_closed_forms(void **state)
{
    (void)state;
    qc_dist d;
    const double tol = 1e-12;

    parse_ok(&d, "exp:4");
    assert_close(qc_dist_mean(&d), 0.25, tol);
    assert_close(qc_dist_var(&d), 0.0625, tol);
    assert_close(qc_dist_cdf(&d, log(2) / 4), 0.5, tol);
    assert_close(qc_dist_quantile(&d, 0.5), log(2) / 4, tol);

    parse_ok(&d, "uniform:2,4");
    assert_close(qc_dist_mean(&d), 3, tol);
    assert_close(qc_dist_var(&d), 4.0 / 12, tol);
    assert_close(qc_dist_cdf(&d, 3), 0.5, tol);
    assert_close(qc_dist_cdf(&d, 1.5), 0, 0);
    assert_close(qc_dist_cdf(&d, 4.5), 1, 0);
    assert_close(qc_dist_quantile(&d, 0.25), 2.5, tol);

    /* Erlang(3, 2): mean 3/2, var 3/4, F(x) = 1 - e^-2x (1 + 2x + (2x)^2/2) */
    parse_ok(&d, "erlang:3,2");
    assert_close(qc_dist_mean(&d), 1.5, tol);
    assert_close(qc_dist_var(&d), 0.75, tol);
    assert_close(qc_dist_cdf(&d, 1), 1 - 5 * exp(-2), tol);
    assert_close(qc_dist_cdf(&d, qc_dist_quantile(&d, 0.9)), 0.9, tol);

    /* mean 0.5/1 + 0.5/0.1 = 5.5; E[S^2] = 2 (0.5/1 + 0.5/0.01) = 101 */
    parse_ok(&d, "hyperexp:0.5,1,0.5,0.1");
    assert_close(qc_dist_mean(&d), 5.5, tol);
    assert_close(qc_dist_var(&d), 101 - 30.25, 1e-10);
    assert_close(qc_dist_cdf(&d, 2), 0.5 * (1 - exp(-2)) + 0.5 * (1 - exp(-0.2)), tol);
    assert_close(qc_dist_cdf(&d, qc_dist_quantile(&d, 0.5)), 0.5, tol);

    /* Gamma(2, 3): mean 6, var 18, F(3) = 1 - e^-1 (1 + 1) */
    parse_ok(&d, "gamma:2,3");
    assert_close(qc_dist_mean(&d), 6, tol);
    assert_close(qc_dist_var(&d), 18, tol);
    assert_close(qc_dist_cdf(&d, 3), 1 - 2 * exp(-1), tol);

    /* lognormal(0, 1): mean e^1/2, var (e - 1) e, median 1 */
    parse_ok(&d, "lognormal:0,1");
    assert_close(qc_dist_mean(&d), exp(0.5), tol);
    assert_close(qc_dist_var(&d), (exp(1) - 1) * exp(1), tol);
    assert_close(qc_dist_cdf(&d, 1), 0.5, tol);
    assert_close(qc_dist_quantile(&d, 0.5), 1, tol);
    assert_close(qc_dist_cdf(&d, 0), 0, 0);

    /* Weibull(shape 2, scale 3): mean 3 Gamma(3/2) = 3 sqrt(pi)/2,
     * var 9 (Gamma(2) - Gamma(3/2)^2) = 9 (1 - pi/4), F(3) = 1 - 1/e.
     * Swapping GSL's (scale, shape) order would fail all three. */
    parse_ok(&d, "weibull:2,3");
    assert_close(qc_dist_mean(&d), 3 * sqrt(PI) / 2, tol);
    assert_close(qc_dist_var(&d), 9 * (1 - PI / 4), tol);
    assert_close(qc_dist_cdf(&d, 3), 1 - exp(-1), tol);
    assert_close(qc_dist_quantile(&d, 1 - exp(-1)), 3, 1e-9);

    /* Pareto(3, 2): mean 3*2/2 = 3, var 4*3/(2^2 * 1) = 3, F(4) = 1 - 1/8 */
    parse_ok(&d, "pareto:3,2");
    assert_close(qc_dist_mean(&d), 3, tol);
    assert_close(qc_dist_var(&d), 3, tol);
    assert_close(qc_dist_cdf(&d, 4), 0.875, tol);
    assert_close(qc_dist_cdf(&d, 1.9), 0, 0);
    assert_close(qc_dist_quantile(&d, 0.875), 4, 1e-12);
    parse_ok(&d, "pareto:1.5,1");
    assert_close(qc_dist_mean(&d), 3, tol);
    assert_true(isinf(qc_dist_var(&d)));
    parse_ok(&d, "pareto:0.8,1");
    assert_true(isinf(qc_dist_mean(&d)));
    assert_true(isinf(qc_dist_var(&d)));

    /* Bounded Pareto, C = 1 - (L/H)^alpha,
     * E[X^k] = alpha L^alpha / C * (H^(k-alpha) - L^(k-alpha)) / (k - alpha),
     * or alpha L^alpha / C * log(H/L) when k = alpha. */
    /* alpha = 1, L = 1, H = 10: C = 0.9, E[X] = ln 10 / 0.9, E[X^2] = 9/0.9 */
    parse_ok(&d, "bpareto:1,1,10");
    const double m1 = log(10) / 0.9;
    assert_close(qc_dist_mean(&d), m1, tol);
    assert_close(qc_dist_var(&d), 10 - m1 * m1, 1e-11);
    assert_close(qc_dist_cdf(&d, 2), 0.5 / 0.9, tol);
    /* alpha = 2: C = 0.99, E[X] = 2 (1 - 1/10) / 0.99, E[X^2] = 2 ln 10 / 0.99 */
    parse_ok(&d, "bpareto:2,1,10");
    const double m2 = 2 * 0.9 / 0.99;
    assert_close(qc_dist_mean(&d), m2, tol);
    assert_close(qc_dist_var(&d), 2 * log(10) / 0.99 - m2 * m2, 1e-11);
    /* alpha = 1.5, L = 1, H = 100: C = 0.999, E[X] = 1.5 * 1.8 / 0.999,
     * E[X^2] = 1.5 * 18 / 0.999, median (1 - 0.5 C)^(-2/3) */
    parse_ok(&d, "bpareto:1.5,1,100");
    const double m3 = 1.5 * 1.8 / 0.999;
    assert_close(qc_dist_mean(&d), m3, tol);
    assert_close(qc_dist_var(&d), 1.5 * 18 / 0.999 - m3 * m3, 1e-10);
    assert_close(qc_dist_quantile(&d, 0.5), pow(1 - 0.5 * 0.999, -2.0 / 3), tol);
    assert_close(qc_dist_cdf(&d, 1), 0, 0);
    assert_close(qc_dist_cdf(&d, 100), 1, 0);

    /* Empirical {1, 2, 3, 4}: mean 2.5, population variance 1.25 */
    const double four[] = {4, 2, 3, 1};
    qc_err err = {0};
    assert_int_equal(qc_dist_empirical(&d, four, 4, &err), 0);
    assert_close(qc_dist_mean(&d), 2.5, tol);
    assert_close(qc_dist_var(&d), 1.25, tol);
    assert_close(qc_dist_cdf(&d, 2), 0.5, 0);
    assert_close(qc_dist_cdf(&d, 2.5), 0.5, 0);
    assert_close(qc_dist_cdf(&d, 0.5), 0, 0);
    assert_close(qc_dist_quantile(&d, 0.25), 1, 0);
    assert_close(qc_dist_quantile(&d, 0.5), 2, 0);
    assert_close(qc_dist_quantile(&d, 0.51), 3, 0);
    qc_dist_free(&d);

    /* Ranks by the same division as the CDF: ceil(q n) alone would give
     * rank 8 for q = 7/25 (7/25 * 25 rounds up past 7). */
    double ranks[25];
    for (int i = 0; i < 25; i++)
        ranks[i] = 25 - i;
    assert_int_equal(qc_dist_empirical(&d, ranks, 25, &err), 0);
    for (int k = 1; k <= 25; k++) {
        assert_close(qc_dist_quantile(&d, (double)k / 25), k, 0);
        assert_close(qc_dist_quantile(&d, qc_dist_cdf(&d, k)), k, 0);
        assert_close(qc_dist_quantile(&d, nextafter((double)k / 25, 0)), k, 0);
    }
    qc_dist_free(&d);
}

/* Large shapes: the gamma CDF by Temme's expansion against P(a, x) from
 * 40-digit mpmath at x = a + z sqrt(a) (x computed in double, as here;
 * z sqrt(a) is an integer for a = 1e12).
 * Measured agreement ~1e-14; GSL's own routine is off by 5e-6 at
 * a = 2e5, z = -1, and calls its (aborting) error handler at a = 1e6. */
static void test_gamma_large_shape(void **state)
{
    (void)state;
    static const struct {
        double a, z, p;
    } ref[] = {
        {2e5, -3, 0.0013235937254361334418}, {2e5, -1, 0.15865505196802798538},
        {2e5, 0, 0.50029735402761853687},    {2e5, 1, 0.84134494739071038237},
        {2e5, 2.5, 0.99372166963453842617},  {1.5e4, -3, 0.0012550397017432611817},
        {1.5e4, -1, 0.15865254966233132346}, {1.5e4, 0, 0.50108578376186640841},
        {1.5e4, 1, 0.84134741911583102383},  {1.5e4, 2.5, 0.99353890313520664973},
        {1e6, -3, 0.0013381041673135996923}, {1e6, -1, 0.15865521357430365246},
        {1e6, 0, 0.50013298076087259124},    {1e6, 1, 0.84134478636834029163},
        {1e6, 2.5, 0.99375964513891169274},
        /* |x/a - 1| < 1e-3: the series branch of c0, c1 */
        {1.5e4, 0.05, 0.5210204125092980304388}, {1.5e4, -0.05, 0.4811430201614892470465},
        {2e5, 0.05, 0.5202350377248921606896},   {2e5, -0.05, 0.4803574424978377662834},
        /* a = 1e12, where x/a - 1 = 1e-6 would cancel in log1p(e) - e; the
         * reference is the same two-term expansion in 50-digit arithmetic
         * (mpmath's series does not converge here), whose truncation error
         * at this a is below 1e-24. */
        {1e12, -1, 0.158655253931416722932},     {1e12, 0.5, 0.6914625492903429610385},
    };
    for (size_t i = 0; i < sizeof ref / sizeof ref[0]; i++) {
        char spec[64];
        qc_dist d;
        snprintf(spec, sizeof spec, "gamma:%.17g,1", ref[i].a);
        parse_ok(&d, spec);
        const double x = ref[i].a + ref[i].z * sqrt(ref[i].a);
        assert_close(qc_dist_cdf(&d, x), ref[i].p, 1e-13);
    }
    /* Erlang with the largest K allowed: rate 2 halves the scale. */
    qc_dist d;
    parse_ok(&d, "erlang:1000000,2");
    assert_close(qc_dist_cdf(&d, (1e6 + sqrt(1e6)) / 2), 0.84134478636834029163, 1e-13);
    assert_close(qc_dist_cdf(&d, qc_dist_quantile(&d, 0.25)), 0.25, 1e-12);
    assert_close(qc_dist_mean(&d), 5e5, 0);
}

static void test_quantile_edges(void **state)
{
    (void)state;
    qc_dist d;
    parse_ok(&d, "uniform:2,4");
    assert_true(qc_dist_quantile(&d, 0) == 2);
    assert_true(qc_dist_quantile(&d, 1) == 4);
    assert_true(isnan(qc_dist_quantile(&d, -0.1)));
    assert_true(isnan(qc_dist_quantile(&d, 1.1)));
    assert_true(isnan(qc_dist_quantile(&d, NAN)));
    assert_true(isnan(qc_dist_cdf(&d, NAN)));
    parse_ok(&d, "gamma:2,1");
    assert_true(qc_dist_quantile(&d, 0) == 0);
    assert_true(isinf(qc_dist_quantile(&d, 1)));
    assert_true(qc_dist_cdf(&d, INFINITY) == 1);
    assert_true(qc_dist_cdf(&d, -1) == 0);
    parse_ok(&d, "bpareto:1,1,10");
    assert_true(qc_dist_quantile(&d, 0) == 1);
    assert_true(qc_dist_quantile(&d, 1) == 10);
    qc_dist zero = {0};
    assert_true(isnan(qc_dist_mean(&zero)));
    assert_true(isnan(qc_dist_cdf(&zero, 1)));
    assert_true(isnan(qc_dist_quantile(&zero, 0.5)));
}

/* Valid but extreme parameters (several first found by fuzz/fuzz_dist.c):
 * nothing may come out NaN or negative, CDFs stay in [0, 1] and rise,
 * quantiles rise with q. */
static void test_extreme_parameters(void **state)
{
    (void)state;
    static const char *const specs[] = {
        "erlang:2,1.5e-323",        /* scale 1/rate = inf: cdf(inf) was inf/inf */
        "gamma:3e-7,1.1e308",       /* GSL's sampler gave inf * 0 */
        "pareto:5.1e307,5",         /* ALPHA XM overflowed in the mean */
        "bpareto:1e-12,1e-300,1e300",
        "bpareto:1e-320,1,1.0000000000000002",
        "bpareto:1e300,1,2",
        "lognormal:-1e308,1e200",
        "hyperexp:0,1e-200,1,1",
        "weibull:1e-300,1",
        "weibull:1e300,1e-300",
        "gamma:1e300,1e300",
        "gamma:1e-300,1",
        "uniform:0,1.7976931348623157e308",
        "exp:4.9e-324",
        "det:1.7976931348623157e308",
        "erlang:1000000,1e-300",
        "pareto:1e-300,1e-300",
    };
    static const double qs[] = {0, 1e-300, 1e-9, 0.001, 0.5, 0.999, 1 - 1e-12, 1};
    static const double xs[] = {0, 1e-300, 1e-3, 1, 1e6, 1e300, INFINITY};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        qc_dist d;
        parse_ok(&d, specs[i]);
        const double mean = qc_dist_mean(&d), var = qc_dist_var(&d);
        if (isnan(mean) || mean < 0 || isnan(var) || var < 0)
            print_error("%s: mean %g var %g\n", specs[i], mean, var);
        assert_true(!isnan(mean) && mean >= 0);
        assert_true(!isnan(var) && var >= 0);
        double last = 0;
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
            const double x = qc_dist_quantile(&d, qs[k]);
            assert_true(!isnan(x) && x >= last);
            last = x;
        }
        last = 0;
        for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
            const double f = qc_dist_cdf(&d, xs[k]);
            assert_true(f >= last && f <= 1);
            last = f;
        }
        assert_true(last == 1);
        qc_rng r;
        qc_rng_init(&r, SEED, i);
        for (int k = 0; k < 100; k++) {
            const double x = qc_dist_sample(&d, &r);
            assert_true(!isnan(x) && x >= 0);
        }
    }

    /* Values, from 40-digit mpmath. */
    qc_dist d;
    parse_ok(&d, "pareto:5.1e307,5");
    assert_close(qc_dist_mean(&d), 5, 1e-14);
    /* P(3e-7, 1e-300 / 1.1e308): y underflows, P does not. */
    parse_ok(&d, "gamma:3e-7,1.1e308");
    assert_close(qc_dist_cdf(&d, 1e-300), 0.99958024117400663819, 1e-13);
    /* alpha -> 0: nearly log-uniform on [1, 100], through the first-order
     * expansions (al = 4.6e-12 < 1e-8). */
    parse_ok(&d, "bpareto:1e-12,1,100");
    assert_close(qc_dist_cdf(&d, 10), 0.50000000000057564627, 1e-15);
    assert_close(qc_dist_mean(&d), 21.497576854181963046, 1e-12);
    assert_close(qc_dist_quantile(&d, 0.5), 9.9999999999734905094, 1e-12);
}

/* ------------------------------------------------------------------ */
/* Spec errors                                                        */
/* ------------------------------------------------------------------ */

static const struct bad_spec {
    const char *spec;
    int rc;
    const char *msg; /* must appear in the message */
} bad_specs[] = {
    {"", QC_EPARSE, "empty distribution spec"},
    {"exp", QC_EPARSE, "missing ':' after \"exp\""},
    {"gama:1,2", QC_EPARSE, "unknown distribution \"gama\" at column 1"},
    {"EXP:1", QC_EPARSE, "unknown distribution \"EXP\""},
    {":1", QC_EPARSE, "missing distribution name"},
    {"exp:", QC_EPARSE, "exp takes 1 field (RATE), got 0"},
    {"erlang:3", QC_EPARSE, "erlang takes 2 fields (K,RATE), got 1"},
    {"exp:1,2", QC_EPARSE, "exp takes 1 field (RATE), got 2"},
    {"bpareto:1,2", QC_EPARSE, "bpareto takes 3 fields (ALPHA,L,H), got 2"},
    {"hyperexp:0.5,1,0.5", QC_EPARSE, "hyperexp takes 4 fields (P1,R1,P2,R2), got 3"},
    {"exp:1x", QC_EPARSE, "\"exp:1x\": field 1 (RATE): bad character 'x' at column 6"},
    {"uniform:1,2y", QC_EPARSE, "field 2 (B): bad character 'y' at column 12"},
    {"exp:1.2.3", QC_EPARSE, "bad character '.' at column 8"},
    {"exp: 1", QC_EPARSE, "bad character ' ' at column 5"},
    {"exp:-", QC_EPARSE, "bad character '-' at column 5"},
    {"exp:\x01", QC_EPARSE, "bad character '\\x01' at column 5"},
    {"erlang:3,2,", QC_EPARSE, "trailing comma at column 11"},
    {"erlang:,2", QC_EPARSE, "field 1 (K) is empty at column 8"},
    {"gamma:1,,", QC_EPARSE, "trailing comma at column 9"},
    {"bpareto:1,,3", QC_EPARSE, "field 2 (L) is empty at column 11"},
    {"exp:inf", QC_EPARSE, "field 1 (RATE): \"inf\" is not a finite number"},
    {"lognormal:nan,1", QC_EPARSE, "field 1 (MU): \"nan\" is not a finite number"},
    {"exp:1e999", QC_ERANGE, "field 1 (RATE): 1e999 is too large"},
    {"exp:-1", QC_ERANGE, "\"exp:-1\": field 1 (RATE) must be > 0"},
    {"exp:0", QC_ERANGE, "field 1 (RATE) must be > 0"},
    {"exp:1e-400", QC_ERANGE, "field 1 (RATE) must be > 0"},
    {"det:-0.5", QC_ERANGE, "field 1 (VALUE) must be >= 0"},
    {"uniform:-1,2", QC_ERANGE, "field 1 (A) must be >= 0"},
    {"uniform:3,2", QC_ERANGE, "field 2 (B) must be > A"},
    {"uniform:2,2", QC_ERANGE, "field 2 (B) must be > A"},
    {"erlang:2.5,1", QC_ERANGE, "field 1 (K) must be a positive integer <= 1000000"},
    {"erlang:0,1", QC_ERANGE, "field 1 (K) must be a positive integer"},
    {"erlang:1000001,1", QC_ERANGE, "field 1 (K)"},
    {"erlang:3,0", QC_ERANGE, "field 2 (RATE) must be > 0"},
    {"hyperexp:0.5,1,0.4,2", QC_ERANGE, "must sum to 1"},
    {"hyperexp:1.5,1,-0.5,2", QC_ERANGE, "field 1 (P1) must be in [0, 1]"},
    {"hyperexp:0.5,0,0.5,2", QC_ERANGE, "field 2 (R1) must be > 0"},
    {"hyperexp:0.5,1,0.5,-2", QC_ERANGE, "field 4 (R2) must be > 0"},
    {"gamma:0,1", QC_ERANGE, "field 1 (SHAPE) must be > 0"},
    {"gamma:1,-2", QC_ERANGE, "field 2 (SCALE) must be > 0"},
    {"lognormal:0,0", QC_ERANGE, "field 2 (SIGMA) must be > 0"},
    {"weibull:-1,1", QC_ERANGE, "field 1 (SHAPE) must be > 0"},
    {"pareto:0,1", QC_ERANGE, "field 1 (ALPHA) must be > 0"},
    {"pareto:1,0", QC_ERANGE, "field 2 (XM) must be > 0"},
    {"bpareto:1,2,2", QC_ERANGE, "field 3 (H) must be > L"},
    {"bpareto:1,0,2", QC_ERANGE, "field 2 (L) must be > 0"},
    {"bpareto:-1,1,2", QC_ERANGE, "field 1 (ALPHA) must be > 0"},
    {"empirical:", QC_EPARSE, "empirical takes FILE[,COL]"},
    {"empirical:f,", QC_EPARSE, "trailing comma at column 12"},
    {"empirical:,2", QC_EPARSE, "field 1 (FILE) is empty at column 11"},
    {"empirical:f,0", QC_ERANGE, "field 2 (COL)"},
    {"empirical:f,99999999999999999999999", QC_ERANGE, "field 2 (COL)"},
};

static void test_bad_specs(void **state)
{
    (void)state;
    const qc_dist zero = {0};
    for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++) {
        const struct bad_spec *b = &bad_specs[i];
        qc_dist d;
        qc_err err = {0};
        memset(&d, 0xab, sizeof d); /* garbage that must not survive */
        const int rc = qc_dist_parse(&d, b->spec, &err);
        if (rc != b->rc || strstr(err.msg, b->msg) == NULL)
            print_error("spec \"%s\": rc %d (want %d), message \"%s\" (want \"%s\")\n", b->spec,
                        rc, b->rc, err.msg, b->msg);
        assert_int_equal(rc, b->rc);
        assert_int_equal(err.code, b->rc);
        assert_non_null(strstr(err.msg, b->msg));
        assert_memory_equal(&d, &zero, sizeof d);
        qc_dist_free(&d); /* safe on a failed parse */
        qc_dist_free(&d);
    }
    qc_err err = {0};
    qc_dist d;
    assert_int_equal(qc_dist_parse(&d, NULL, &err), QC_EINVAL);
    assert_int_equal(qc_dist_parse(NULL, "exp:1", &err), QC_EINVAL);
    assert_int_equal(qc_dist_parse(&d, "exp:-1", NULL), QC_ERANGE); /* no message wanted */
    qc_dist_free(NULL);
}

/* ------------------------------------------------------------------ */
/* Empirical files and arrays                                         */
/* ------------------------------------------------------------------ */

#define TWO_COLS QC_TEST_DATA "/dist_two_cols.csv"

static void expect_samples(const char *spec, const double *want, size_t n)
{
    qc_dist d;
    parse_ok(&d, spec);
    assert_int_equal(d.kind, QC_DIST_EMPIRICAL);
    assert_int_equal(d.n, n);
    for (size_t i = 0; i < n; i++)
        assert_true(d.samples[i] == want[i]);
    qc_dist_free(&d);
    assert_null(d.samples);
    assert_int_equal(d.kind, QC_DIST_NONE);
}

static void expect_file_error(const char *spec, int rc, const char *msg)
{
    qc_dist d;
    qc_err err = {0};
    const qc_dist zero = {0};
    const int got = qc_dist_parse(&d, spec, &err);
    if (got != rc || strstr(err.msg, msg) == NULL)
        print_error("spec \"%s\": rc %d (want %d), message \"%s\" (want \"%s\")\n", spec, got,
                    rc, err.msg, msg);
    assert_int_equal(got, rc);
    assert_non_null(strstr(err.msg, msg));
    assert_memory_equal(&d, &zero, sizeof d);
    qc_dist_free(&d);
}

static void test_empirical_file(void **state)
{
    (void)state;
    /* Sorted, as the header promises. */
    const double service[] = {0.25, 0.5, 1.25, 2, 3};
    const double id[] = {1, 2, 3, 4, 5};
    expect_samples("empirical:" TWO_COLS ",2", service, 5);
    expect_samples("empirical:" TWO_COLS ",service", service, 5);
    expect_samples("empirical:" TWO_COLS ",1", id, 5);
    expect_samples("empirical:" TWO_COLS ",id", id, 5);
    expect_samples("empirical:" TWO_COLS, id, 5); /* column 1 by default */
    const double crlf[] = {1, 2.5};
    expect_samples("empirical:" QC_TEST_DATA "/dist_crlf.csv", crlf, 2);
    const double bom[] = {10, 20}; /* UTF-8 byte order mark before the header */
    expect_samples("empirical:" QC_TEST_DATA "/dist_bom.csv,size", bom, 2);
    expect_samples("empirical:" QC_TEST_DATA "/dist_bom.csv", bom, 2);

    qc_dist d;
    parse_ok(&d, "empirical:" TWO_COLS ",service");
    assert_close(qc_dist_mean(&d), 7.0 / 5, 1e-15);
    char buf[64];
    assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
    assert_string_equal(buf, "empirical:5 samples");
    qc_dist_free(&d);

    expect_file_error("empirical:" TWO_COLS ",nope", QC_EPARSE,
                      TWO_COLS ":2: no column named \"nope\"");
    expect_file_error("empirical:" TWO_COLS ",3", QC_EPARSE,
                      TWO_COLS ":2: 2 fields, column 3 requested");
    expect_file_error("empirical:" QC_TEST_DATA "/dist_bad_number.txt", QC_EPARSE,
                      QC_TEST_DATA "/dist_bad_number.txt:4: column 1: bad character 'x' at "
                                   "column 4");
    expect_file_error("empirical:" QC_TEST_DATA "/dist_negative.txt", QC_ERANGE,
                      QC_TEST_DATA "/dist_negative.txt:2: column 1: sample -2 is negative");
    expect_file_error("empirical:" QC_TEST_DATA "/dist_empty.txt", QC_EEMPTY,
                      QC_TEST_DATA "/dist_empty.txt: no samples");
    expect_file_error("empirical:" QC_TEST_DATA "/no_such_file.csv", QC_EIO,
                      QC_TEST_DATA "/no_such_file.csv: cannot open: ");
}

static void test_empirical_array(void **state)
{
    (void)state;
    qc_dist d;
    qc_err err = {0};
    const qc_dist zero = {0};
    double x[] = {3, 1, 2};
    assert_int_equal(qc_dist_empirical(&d, x, 3, &err), 0);
    x[0] = 100; /* the samples were copied */
    assert_true(d.samples[0] == 1 && d.samples[1] == 2 && d.samples[2] == 3);
    qc_dist_free(&d);

    const double neg[] = {1, -1};
    assert_int_equal(qc_dist_empirical(&d, neg, 2, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "sample 2 is negative"));
    assert_memory_equal(&d, &zero, sizeof d);
    const double not_finite[] = {NAN};
    assert_int_equal(qc_dist_empirical(&d, not_finite, 1, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "sample 1 is not finite"));
    assert_int_equal(qc_dist_empirical(&d, x, 0, &err), QC_EEMPTY);
    assert_int_equal(qc_dist_empirical(&d, NULL, 3, &err), QC_EINVAL);
    assert_memory_equal(&d, &zero, sizeof d);
    qc_dist_free(&d);
}

/* ------------------------------------------------------------------ */
/* Formatting and determinism                                         */
/* ------------------------------------------------------------------ */

static void test_format_round_trip(void **state)
{
    (void)state;
    static const char *const canon[] = {
        "exp:0.1",          "det:0",          "uniform:2,4",       "erlang:3,2",
        "hyperexp:0.5,1,0.5,0.1", "gamma:0.3,2", "lognormal:-1.5,0.25", "weibull:0.5,1",
        "pareto:1.5,2",     "bpareto:1.2,1,1000", "exp:1e-300",   "exp:0.30000000000000004",
    };
    for (size_t i = 0; i < sizeof canon / sizeof canon[0]; i++) {
        qc_dist d, e;
        char buf[128];
        parse_ok(&d, canon[i]);
        assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
        assert_string_equal(buf, canon[i]);
        parse_ok(&e, buf);
        assert_memory_equal(&d, &e, sizeof d);
    }
    qc_dist d;
    char buf[128];
    parse_ok(&d, "exp:1e-3");
    assert_int_equal(qc_dist_format(&d, buf, sizeof buf), 0);
    assert_string_equal(buf, "exp:0.001");
    assert_int_equal(qc_dist_format(&d, buf, 5), QC_ERANGE);
    assert_string_equal(buf, "exp:");
    qc_dist zero = {0};
    assert_int_equal(qc_dist_format(&zero, buf, sizeof buf), QC_EINVAL);
}

static void test_determinism(void **state)
{
    (void)state;
    enum { N = 200 };
    for (size_t k = 0; ks_cases[k].spec != NULL; k++) {
        qc_dist d;
        parse_ok(&d, ks_cases[k].spec);
        qc_rng a, b, c;
        qc_rng_init(&a, SEED, 7);
        qc_rng_init(&b, SEED, 7);
        qc_rng_init(&c, SEED, 8);
        int differ = 0;
        for (int i = 0; i < N; i++) {
            const double x = qc_dist_sample(&d, &a);
            assert_true(x == qc_dist_sample(&d, &b));
            differ += x != qc_dist_sample(&d, &c);
        }
        /* Another stream is another sequence. Even the 5-sample empirical
         * law repeats a value with probability 1/5 per draw, so 200 draws
         * differ in about 160 places; 100 is far in the tail. */
        if (differ < N / 2)
            print_error("%s: streams 7 and 8 differ in %d of %d draws\n", ks_cases[k].spec,
                        differ, N);
        assert_true(differ >= N / 2);
        qc_dist_free(&d);
    }
}

int main(void)
{
    struct CMUnitTest tests[sizeof ks_cases / sizeof ks_cases[0] + 16];
    size_t n = 0;
    for (size_t k = 0; k < sizeof ks_cases / sizeof ks_cases[0]; k++) {
        struct CMUnitTest t = cmocka_unit_test_prestate(test_ks, &ks_cases[k]);
        t.name = ks_cases[k].spec ? ks_cases[k].spec : "empirical(ties)";
        tests[n++] = t;
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test(test_det),
        cmocka_unit_test(test_inline_matches_slow),
        cmocka_unit_test(test_closed_forms),
        cmocka_unit_test(test_gamma_large_shape),
        cmocka_unit_test(test_quantile_edges),
        cmocka_unit_test(test_extreme_parameters),
        cmocka_unit_test(test_bad_specs),
        cmocka_unit_test(test_empirical_file),
        cmocka_unit_test(test_empirical_array),
        cmocka_unit_test(test_format_round_trip),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_mixtures),
    };
    for (size_t k = 0; k < sizeof rest / sizeof rest[0]; k++)
        tests[n++] = rest[k];
    return _cmocka_run_group_tests("dist", tests, n, NULL, NULL);
}
