/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_hist.c: unit tests of the log-bucketed histogram (hist.h).
 *
 * The histogram's promise is a relative error of at most 2^-7 = 1/128
 * (0.78%) against the exact sample quantile of the same rank: the value of
 * rank k lies in the reported bucket, whose half-width is at most 1/128 of
 * its lower edge, hence of the value. That bound is checked exactly
 * against a sorted copy of the data, on data spanning a few octaves
 * (exponential) and dozens (lognormal). The bucket layout the quantile
 * code assumes is checked edge by edge against the inline index function
 * in the header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/hist.h"
#include "qctl/rng.h"
#include "qctl/rng_gsl.h"

#define SEED 20240611u
#define SUB (1 << QC_HIST_SUBBITS)
/* Half a bucket width relative to its lower edge: 2^-(SUBBITS+1). */
#define REL_BOUND (1.0 / (2.0 * SUB))

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sample quantile the histogram approximates: the value of rank
 * ceil(q n) (rank 1 for q = 0) in sorted data, rank computed as in the
 * contract. */
static double sample_quantile(const double *sorted, size_t n, double q)
{
    double k = ceil(q * (double)n);
    if (k < 1.0)
        k = 1.0;
    if (k > (double)n)
        k = (double)n;
    return sorted[(size_t)k - 1];
}

/* Lower edge and midpoint of bucket (e, j), written from the header's
 * description, independently of hist.c. */
static double edge(int e, int j)
{
    return ldexp(1.0 + (double)j / SUB, e);
}

static double mid(int e, int j)
{
    return ldexp(1.0 + (j + 0.5) / SUB, e);
}

/* Every bucket's lower edge maps to its own index, the largest double
 * below its upper edge too, and the upper edge to the next index: the
 * inline index function cuts the line exactly where hist.c assumes. */
static void test_index_matches_edges(void **state)
{
    (void)state;
    int i = 0;
    for (int e = QC_HIST_EMIN; e <= QC_HIST_EMAX; e++) {
        for (int j = 0; j < SUB; j++, i++) {
            const double lo = edge(e, j);
            const double up = j + 1 < SUB ? edge(e, j + 1) : ldexp(1.0, e + 1);
            assert_int_equal(qc__hist_index(lo), i);
            assert_int_equal(qc__hist_index(nextafter(up, 0.0)), i);
            if (i + 1 < QC_HIST_NBUCKETS)
                assert_int_equal(qc__hist_index(up), i + 1);
            /* The library's own account of the edges agrees. */
            double blo, bhi;
            qc_hist_bucket_edges(i, &blo, &bhi);
            assert_true(blo == lo);
            assert_true(bhi == up);
        }
    }
    assert_int_equal(i, QC_HIST_NBUCKETS);
    double blo = 0.0, bhi = 0.0;
    qc_hist_bucket_edges(-1, &blo, &bhi);
    assert_true(isnan(blo) && isnan(bhi));
    qc_hist_bucket_edges(QC_HIST_NBUCKETS, &blo, &bhi);
    assert_true(isnan(blo) && isnan(bhi));
}

/* One value at every lower edge (powers of two are the j = 0 edges, and
 * 1 + j/64 the e = 0 ones): one count per bucket, and the quantile of rank
 * k reports exactly the midpoint of bucket k - 1. */
static void test_edges_and_midpoints(void **state)
{
    (void)state;
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(h);
    for (int e = QC_HIST_EMIN; e <= QC_HIST_EMAX; e++)
        for (int j = 0; j < SUB; j++)
            qc_hist_add(h, edge(e, j));
    assert_int_equal(h->total, QC_HIST_NBUCKETS);
    assert_int_equal(h->zero + h->under + h->over, 0);
    for (int i = 0; i < QC_HIST_NBUCKETS; i++)
        assert_int_equal(h->count[i], 1);
    assert_true(h->min == ldexp(1.0, QC_HIST_EMIN));
    /* q = k / N is exact (N is a power of two), so the rank is k. The last
     * bucket's midpoint lies above the largest value, so the clamp to max
     * applies there; q = 1 gives max anyway. */
    for (int k = 1; k < QC_HIST_NBUCKETS; k++) {
        const int i = k - 1;
        const double want = mid(i / SUB + QC_HIST_EMIN, i % SUB);
        assert_true(qc_hist_quantile(h, (double)k / QC_HIST_NBUCKETS) == want);
    }
    assert_true(qc_hist_quantile(h, 1.0) == h->max);
    qc_hist_free(h);
}

/* The ends of the kept range, and the midpoint rule on a tiny example:
 * {1, 3}: rank 1 is in bucket [1, 1 + 1/64), midpoint 1 + 1/128. */
static void test_range_ends(void **state)
{
    (void)state;
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(h);
    qc_hist_add(h, 0x1.0p-32);
    assert_int_equal(h->count[0], 1);
    qc_hist_add(h, nextafter(0x1.0p-32, 0.0));
    assert_int_equal(h->under, 1);
    qc_hist_add(h, 0x1.0p32);
    assert_int_equal(h->over, 1);
    qc_hist_add(h, nextafter(0x1.0p32, 0.0));
    assert_int_equal(h->count[QC_HIST_NBUCKETS - 1], 1);
    assert_int_equal(h->total, 4);

    qc_hist_reset(h);
    qc_hist_add(h, 1.0);
    qc_hist_add(h, 3.0);
    assert_true(qc_hist_quantile(h, 0.5) == 1.0 + 1.0 / 128.0);
    qc_hist_free(h);
}

/* Exponential, rate 1, 10^6 values. Against the sorted sample, the bound
 * is the exact 1/128 (the comparison rounds nothing: the midpoint is a
 * dyadic number and the bound a power-of-two multiple of the value).
 * Against the true quantile Q(p) = -log(1 - p), the sample value of rank
 * k = ceil(p n) is Q(U) with U ~ Beta(k, n + 1 - k), which is close to
 * normal with mean p and sd sqrt(p (1 - p) / n) at these ranks; its 99.9%
 * interval, mapped through Q and widened by the histogram's 1/128, must
 * hold the histogram's answer. */
static void test_exponential_quantiles(void **state)
{
    (void)state;
    enum { N = 1000000 };
    const double qs[] = {0.01, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999};
    double *x = malloc(N * sizeof *x);
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(x);
    assert_non_null(h);
    qc_rng r;
    qc_rng_init(&r, SEED, 1);
    for (size_t i = 0; i < N; i++) {
        x[i] = qc_rng_exp(&r, 1.0);
        qc_hist_add(h, x[i]);
    }
    qsort(x, N, sizeof *x, cmp_double);
    double worst = 0.0;
    for (size_t t = 0; t < sizeof qs / sizeof qs[0]; t++) {
        const double p = qs[t];
        const double got = qc_hist_quantile(h, p);
        const double s = sample_quantile(x, N, p);
        const double rel = fabs(got - s) / s;
        worst = fmax(worst, rel);
        assert_true(fabs(got - s) <= s * REL_BOUND);

        const double dp = 3.2905 * sqrt(p * (1.0 - p) / N);
        const double lo = -log1p(-(p - dp)) * (1.0 - REL_BOUND);
        const double hi = -log1p(-(p + dp)) * (1.0 + REL_BOUND);
        printf("exp q=%-5g hist %.6f sample %.6f (rel %.5f) true %.6f "
               "band [%.6f, %.6f]\n",
               p, got, s, rel, -log1p(-p), lo, hi);
        assert_true(lo <= got && got <= hi);
    }
    printf("exponential: worst relative error %.5f (bound %.5f)\n", worst,
           REL_BOUND);
    assert_true(h->min == x[0]);
    assert_true(h->max == x[N - 1]);
    free(x);
    qc_hist_free(h);
}

/* Lognormal(0, 3): 2 * 10^5 values spanning about 40 octaves, all inside
 * the kept range (e^{+-15} against 2^{+-32} = e^{+-22}). The 1/128 bound
 * against the sorted sample on a fine grid of q. */
static void test_lognormal_octaves(void **state)
{
    (void)state;
    enum { N = 200000 };
    double *x = malloc(N * sizeof *x);
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(x);
    assert_non_null(h);
    qc_rng r;
    qc_rng_init(&r, SEED, 2);
    gsl_rng *g = qc_rng_gsl(&r);
    for (size_t i = 0; i < N; i++) {
        x[i] = gsl_ran_lognormal(g, 0.0, 3.0);
        qc_hist_add(h, x[i]);
    }
    qsort(x, N, sizeof *x, cmp_double);
    assert_int_equal(h->under + h->over + h->zero, 0);
    const double octaves = log2(x[N - 1] / x[0]);
    printf("lognormal: %.1f octaves\n", octaves);
    assert_true(octaves > 30.0);
    double worst = 0.0;
    for (int t = 1; t < 1000; t++) {
        const double p = t / 1000.0;
        const double got = qc_hist_quantile(h, p);
        const double s = sample_quantile(x, N, p);
        worst = fmax(worst, fabs(got - s) / s);
        assert_true(fabs(got - s) <= s * REL_BOUND);
    }
    printf("lognormal: worst relative error %.5f (bound %.5f)\n", worst,
           REL_BOUND);
    free(x);
    qc_hist_free(h);
}

/* Merging two halves gives, bit for bit, the histogram of all the values;
 * merging an empty one changes nothing. */
static void test_merge(void **state)
{
    (void)state;
    enum { N = 100000 };
    qc_hist *all = qc_hist_alloc(NULL), *a = qc_hist_alloc(NULL), *b = qc_hist_alloc(NULL),
            *empty = qc_hist_alloc(NULL);
    assert_non_null(all);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(empty);
    qc_rng r;
    qc_rng_init(&r, SEED, 3);
    gsl_rng *g = qc_rng_gsl(&r);
    for (size_t i = 0; i < N; i++) {
        /* Include every category: zero, underflow, overflow. */
        double v = gsl_ran_lognormal(g, 0.0, 8.0);
        if (i % 1000 == 0)
            v = -v;
        qc_hist_add(all, v);
        qc_hist_add(i < N / 2 ? a : b, v);
    }
    assert_true(all->zero > 0 && all->under > 0 && all->over > 0);
    qc_hist_merge(a, b);
    assert_int_equal(a->total, all->total);
    assert_int_equal(a->zero, all->zero);
    assert_int_equal(a->under, all->under);
    assert_int_equal(a->over, all->over);
    assert_true(a->min == all->min && a->max == all->max);
    assert_memory_equal(a->count, all->count, sizeof a->count);
    for (int t = 0; t <= 100; t++) {
        const double p = t / 100.0;
        const double qa = qc_hist_quantile(a, p), qall = qc_hist_quantile(all, p);
        assert_memory_equal(&qa, &qall, sizeof qa);
    }
    qc_hist_merge(a, empty);
    assert_memory_equal(a, all, sizeof *a);
    qc_hist_merge(empty, all);
    assert_memory_equal(empty, all, sizeof *all);
    qc_hist_free(all);
    qc_hist_free(a);
    qc_hist_free(b);
    qc_hist_free(empty);
}

/* Values outside the buckets are counted apart, and min/max see them. */
static void test_special_values(void **state)
{
    (void)state;
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(h);
    const double zeros[] = {0.0, -0.0, -5.0, NAN, -INFINITY};
    const double unders[] = {1e-300, 0x1.0p-1074 /* subnormal */, 1e-12};
    const double overs[] = {1e300, INFINITY, 1e10};
    for (size_t i = 0; i < 5; i++)
        qc_hist_add(h, zeros[i]);
    for (size_t i = 0; i < 3; i++)
        qc_hist_add(h, unders[i]);
    for (size_t i = 0; i < 3; i++)
        qc_hist_add(h, overs[i]);
    qc_hist_add(h, 1.0);
    assert_int_equal(h->total, 12);
    assert_int_equal(h->zero, 5);
    assert_int_equal(h->under, 3);
    assert_int_equal(h->over, 3);
    assert_int_equal(h->count[qc__hist_index(1.0)], 1);
    assert_true(h->min == -INFINITY);
    assert_true(h->max == INFINITY);
    /* Ranks 1..5 are the zero class (reported as min), 6..8 underflow
     * (2^EMIN), 9 the value 1 (its bucket midpoint), 10..12 overflow
     * (2^(EMAX+1)). q = (k - 1/2) / 12 has ceil(12 q) = k whatever the
     * rounding of q. */
    assert_true(qc_hist_quantile(h, 4.5 / 12) == -INFINITY);
    assert_true(qc_hist_quantile(h, 5.5 / 12) == 0x1.0p-32);
    assert_true(qc_hist_quantile(h, 7.5 / 12) == 0x1.0p-32);
    assert_true(qc_hist_quantile(h, 8.5 / 12) == 1.0 + 1.0 / 128.0);
    assert_true(qc_hist_quantile(h, 9.5 / 12) == 0x1.0p32);
    assert_true(qc_hist_quantile(h, 11.5 / 12) == 0x1.0p32);
    qc_hist_free(h);

    /* Underflow and overflow answers are clamped to the exact extremes. */
    h = qc_hist_alloc(NULL);
    assert_non_null(h);
    qc_hist_add(h, 1e-12);
    qc_hist_add(h, 1e-11);
    assert_true(qc_hist_quantile(h, 0.5) == 1e-11);
    qc_hist_reset(h);
    qc_hist_add(h, 1e10);
    qc_hist_add(h, 1e11);
    assert_true(qc_hist_quantile(h, 0.5) == 1e10);
    /* Only NaN: counted, but there is no value to report. */
    qc_hist_reset(h);
    qc_hist_add(h, NAN);
    assert_int_equal(h->zero, 1);
    assert_true(isnan(qc_hist_quantile(h, 0.5)));
    qc_hist_free(h);
}

/* Empty: NAN; q outside [0, 1]: NAN; q = 0 and 1: the exact extremes,
 * where the bucket midpoints would be off. Reset empties. */
static void test_empty_extremes_reset(void **state)
{
    (void)state;
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(h);
    qc_hist *fresh = qc_hist_alloc(NULL);
    assert_non_null(fresh);
    assert_true(isnan(qc_hist_quantile(h, 0.0)));
    assert_true(isnan(qc_hist_quantile(h, 0.5)));
    assert_true(isnan(qc_hist_quantile(h, 1.0)));

    /* 1.001 is low in [1, 1 + 1/64) (midpoint 1.0078); 3.715 is high in
     * [3.6875, 3.71875) (midpoint 3.703125). */
    qc_hist_add(h, 1.001);
    qc_hist_add(h, 3.715);
    assert_true(qc_hist_quantile(h, 0.0) == 1.001);
    assert_true(qc_hist_quantile(h, 1.0) == 3.715);
    assert_true(qc_hist_quantile(h, 0.25) == 1.0 + 1.0 / 128.0);
    assert_true(qc_hist_quantile(h, 0.75) == 3.703125);
    assert_true(isnan(qc_hist_quantile(h, -0.1)));
    assert_true(isnan(qc_hist_quantile(h, 1.1)));
    assert_true(isnan(qc_hist_quantile(h, NAN)));

    qc_hist_reset(h);
    assert_memory_equal(h, fresh, sizeof *h);
    assert_true(isnan(qc_hist_quantile(h, 0.5)));
    qc_hist_free(h);
    qc_hist_free(fresh);
    qc_hist_free(NULL);
}

/* The interpolated (grouped-data) quantile. (1) It stays in the bucket of
 * the value it stands for: within a bucket width (1/64 of the value) of
 * the sorted sample's value of rank ceil(q n). (2) It is not quantised:
 * on exponential data, over q = 0.001..0.999, its mean relative error
 * against the sample is under a quarter of the midpoint rule's (the
 * midpoint's error is spread over the bucket's half-width; the
 * interpolated one only carries the unevenness of the density inside a
 * bucket and the sampling noise of a few values). (3) Against values laid
 * evenly across one bucket it is exact: the k-th of n evenly spaced
 * values at q = k / n. */
static void test_interpolated_quantiles(void **state)
{
    (void)state;
    enum { N = 1000000 };
    double *x = malloc(N * sizeof *x);
    qc_hist *h = qc_hist_alloc(NULL);
    assert_non_null(x);
    assert_non_null(h);
    qc_rng r;
    qc_rng_init(&r, SEED, 4);
    for (size_t i = 0; i < N; i++) {
        x[i] = qc_rng_exp(&r, 1.0);
        qc_hist_add(h, x[i]);
    }
    qsort(x, N, sizeof *x, cmp_double);
    double err_mid = 0, err_int = 0;
    for (int t = 1; t < 1000; t++) {
        const double p = t / 1000.0;
        const double s = sample_quantile(x, N, p);
        const double gi = qc_hist_quantile_interp(h, p), gm = qc_hist_quantile(h, p);
        assert_true(fabs(gi - s) <= s * 2 * REL_BOUND);
        err_int += fabs(gi - s) / s;
        err_mid += fabs(gm - s) / s;
    }
    printf("interpolated: mean relative error %.6f, midpoint %.6f\n", err_int / 999,
           err_mid / 999);
    assert_true(err_int < 0.25 * err_mid);
    assert_true(qc_hist_quantile_interp(h, 0.0) == x[0]);
    assert_true(qc_hist_quantile_interp(h, 1.0) == x[N - 1]);

    /* n values at the centres of n equal slices of [1, 1 + 1/64): the
     * cumulative count reaches k at 1 + k / (64 n) */
    qc_hist_reset(h);
    enum { M = 100 };
    for (int k = 0; k < M; k++)
        qc_hist_add(h, 1.0 + (k + 0.5) / (64.0 * M));
    for (int k = 1; k < M; k++) {
        const double want = 1.0 + (double)k / (64.0 * M);
        assert_true(fabs(qc_hist_quantile_interp(h, (double)k / M) - want) < 1e-12);
    }
    /* empty and out of range: NAN */
    qc_hist_reset(h);
    assert_true(isnan(qc_hist_quantile_interp(h, 0.5)));
    qc_hist_add(h, 2.0);
    assert_true(isnan(qc_hist_quantile_interp(h, 1.5)));
    assert_true(qc_hist_quantile_interp(h, 0.5) == 2.0);
    free(x);
    qc_hist_free(h);
}

/* The grouped-data quantile by a walk over all 4096 buckets, as the
 * histogram computed it before it walked only the used ones. */
static double interp_full(const qc_hist *h, double q)
{
    if (h->total == 0 || !(q >= 0.0 && q <= 1.0) || h->min > h->max)
        return NAN;
    if (q == 0.0)
        return h->min;
    if (q == 1.0)
        return h->max;
    const double t = q * (double)h->total;
    double c = (double)h->zero;
    if (t <= c)
        return h->min;
    c += (double)h->under;
    double v = ldexp(1.0, QC_HIST_EMAX + 1);
    if (t <= c) {
        v = ldexp(1.0, QC_HIST_EMIN);
    } else {
        for (int i = 0; i < QC_HIST_NBUCKETS; i++) {
            const double n = (double)h->count[i];
            if (n > 0 && t <= c + n) {
                const int e = (i >> QC_HIST_SUBBITS) + QC_HIST_EMIN;
                const double j = (double)(i & ((1 << QC_HIST_SUBBITS) - 1));
                v = ldexp(1.0 + (j + (t - c) / n) / (double)(1 << QC_HIST_SUBBITS), e);
                break;
            }
            c += n;
        }
    }
    return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* Histograms in one block start empty; reset, merge and the quantiles,
 * which touch only the buckets between min's and max's, give what a walk
 * over every bucket gives; several quantiles in one call, in any order,
 * are those of one call each. */
static void test_used_buckets(void **state)
{
    (void)state;
    qc_hist *h = qc_hist_alloc_array(3, NULL), *fresh = qc_hist_alloc(NULL);
    assert_non_null(h);
    assert_non_null(fresh);
    for (int k = 0; k < 3; k++)
        assert_memory_equal(&h[k], fresh, sizeof *fresh);
    qc_rng r;
    qc_rng_init(&r, SEED, 9);
    for (int i = 0; i < 20000; i++)
        qc_hist_add(&h[0], qc_rng_exp(&r, 0.1));
    for (int i = 0; i < 100; i++)
        qc_hist_add(&h[1], i % 10 == 0 ? 0.0 : 1e-12 * (i + 1));
    static const double q[] = {0.001, 0.01, 0.5, 0.95, 0.99, 0.999, 0.3, 0.95, 0, 1, 0.05};
    const size_t nq = sizeof q / sizeof q[0];
    double out[sizeof q / sizeof q[0]];
    for (int k = 0; k < 2; k++) {
        qc_hist_quantiles_interp(&h[k], q, nq, out);
        for (size_t i = 0; i < nq; i++) {
            const double ref = interp_full(&h[k], q[i]), one = qc_hist_quantile_interp(&h[k], q[i]);
            assert_memory_equal(&out[i], &ref, sizeof ref);
            assert_memory_equal(&one, &ref, sizeof ref);
        }
    }
    qc_hist_merge(&h[2], &h[0]);
    qc_hist_merge(&h[2], &h[1]);
    for (int i = 0; i < QC_HIST_NBUCKETS; i++)
        assert_true(h[2].count[i] == h[0].count[i] + h[1].count[i]);
    assert_int_equal(h[2].total, h[0].total + h[1].total);
    for (int k = 0; k < 3; k++) {
        qc_hist_reset(&h[k]);
        assert_memory_equal(&h[k], fresh, sizeof *fresh);
    }
    qc_hist_free_array(h, 3);
    qc_hist_free(fresh);
}

/* A block of 2 MiB or more (a chunked model's 128 histograms) is mapped
 * on its own, on a 2 MiB boundary (what huge pages need): it starts
 * empty in every histogram, holds what is added to its last one, and is
 * unmapped whole by qc_hist_free_array, time after time, with blocks of
 * other sizes allocated in between. */
static void test_big_block(void **state)
{
    (void)state;
    qc_hist *fresh = qc_hist_alloc(NULL);
    assert_non_null(fresh);
    static const size_t sizes[] = {64, 128, 129, 3, 200, 63};
    for (int round = 0; round < 3; round++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            const size_t n = sizes[s];
            qc_hist *h = qc_hist_alloc_array(n, NULL);
            assert_non_null(h);
#ifdef __linux__
            if (n * sizeof *h >= ((size_t)2 << 20))
                assert_int_equal((uintptr_t)h % ((uintptr_t)2 << 20), 0);
#endif
            for (size_t k = 0; k < n; k++)
                assert_memory_equal(&h[k], fresh, sizeof *fresh);
            for (int i = 0; i < 1000; i++)
                qc_hist_add(&h[n - 1], 1.0 + i);
            qc_hist_merge(&h[0], &h[n - 1]);
            assert_int_equal(h[0].total, 1000);
            assert_true(h[0].max == 1000.0);
            qc_hist *other = qc_hist_alloc(NULL); /* the heap still sound */
            assert_non_null(other);
            qc_hist_merge(other, &h[0]);
            qc_hist_free_array(h, n);
            assert_int_equal(other->total, 1000);
            qc_hist_free(other);
        }
    qc_hist_free_array(NULL, 200);
    qc_hist_free(fresh);
}

/* A unit moves the range with the time scale: exponential values of mean
 * 1e-12 and 1e12 (outside the unit-1 range) give the same relative
 * quantiles as those of mean 1, bit for bit (the scaling is a power of
 * two), and a histogram of another unit merges with its values kept. */
static void test_unit(void **state)
{
    (void)state;
    static const double means[3] = {1e-12, 1.0, 1e12};
    double q[3][3];
    qc_hist *h[3];
    for (int m = 0; m < 3; m++) {
        h[m] = qc_hist_alloc(NULL);
        assert_non_null(h[m]);
        qc_hist_set_unit(h[m], means[m]);
        qc_rng r;
        qc_rng_init(&r, SEED, 7);
        /* the same uniforms, scaled by the power of two of the unit */
        double p2 = ldexp(1.0, ilogb(means[m]));
        for (int i = 0; i < 20000; i++)
            qc_hist_add(h[m], qc_rng_exp(&r, 1.0) * p2);
        static const double ps[3] = {0.5, 0.95, 0.99};
        qc_hist_quantiles_interp(h[m], ps, 3, q[m]);
        for (int k = 0; k < 3; k++) {
            double rel = q[m][k] / p2, exact = -log(1 - ps[k]);
            assert_true(fabs(rel - exact) < 0.05 * exact);
        }
        assert_int_equal(h[m]->under + h[m]->over, 0);
    }
    for (int k = 0; k < 3; k++) {
        assert_true(q[0][k] / ldexp(1.0, ilogb(1e-12)) == q[1][k]);
        assert_true(q[2][k] / ldexp(1.0, ilogb(1e12)) == q[1][k]);
    }
    /* edges in the values' units */
    double lo, hi;
    qc_hist_edges(h[2], qc__hist_index(1.0), &lo, &hi);
    assert_true(lo == ldexp(1.0, ilogb(1e12)));
    /* merging units: into an empty one it takes the unit; into a full one
     * of unit 1 the values fall in its under- or overflow */
    qc_hist *e = qc_hist_alloc(NULL);
    qc_hist_merge(e, h[0]);
    assert_true(e->scale == h[0]->scale);
    assert_true(qc_hist_quantile_interp(e, 0.5) == q[0][0]);
    qc_hist_merge(h[1], h[2]);
    assert_int_equal(h[1]->total, 40000);
    assert_true(h[1]->over > 19000 && h[1]->under == 0); /* all but the few below 2^32 */
    assert_true(h[1]->max == h[2]->max);
    qc_hist_free(e);
    for (int m = 0; m < 3; m++)
        qc_hist_free(h[m]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_matches_edges),
        cmocka_unit_test(test_edges_and_midpoints),
        cmocka_unit_test(test_range_ends),
        cmocka_unit_test(test_exponential_quantiles),
        cmocka_unit_test(test_lognormal_octaves),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_special_values),
        cmocka_unit_test(test_empty_extremes_reset),
        cmocka_unit_test(test_interpolated_quantiles),
        cmocka_unit_test(test_used_buckets),
        cmocka_unit_test(test_big_block),
        cmocka_unit_test(test_unit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
