/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hist.c: the log-bucketed histogram: allocation, merging and quantiles.
 *
 * Bucket i = (e - QC_HIST_EMIN) * 2^S + j (S = QC_HIST_SUBBITS) holds the
 * x whose exponent is e and whose top S mantissa bits are j, that is
 *     2^e (1 + j / 2^S) <= x < 2^e (1 + (j + 1) / 2^S).
 * The index grows with x (exponent bits above mantissa bits, as in the
 * double itself), so walking zero, underflow, buckets 0..N-1 and overflow
 * in that order visits the values in increasing order, and the value of
 * rank k lies in the first place where the running count reaches k.
 *
 * Any x in a bucket is within half a bucket width of its midpoint:
 *     |mid - x| <= 2^e / 2^(S+1) <= x / 2^(S+1),
 * so the reported quantile is within 2^-(S+1) = 1/128 of the true sample
 * quantile, relative. Clamping to the exact [min, max] only moves the
 * answer towards the true value, which lies inside that interval.
 *
 * A histogram's unit (qc_hist_set_unit) is a power of two by which every
 * value is multiplied before bucketing, exactly, so the range of 2^64
 * follows the time scale of what is measured (a queue whose services take
 * 1e-12 s or 1e12 s keeps its 0.78% resolution); min and max are kept
 * unscaled, and answers are divided back, also exactly.
 *
 * The histogram holds counts only, so merging is exact and commutative:
 * per-replication or per-thread histograms sum to the one built from all
 * the values, bit for bit. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "qctl/hist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

qc_hist *qc_hist_alloc(qc_err *err)
{
    qc_hist *h = calloc(1, sizeof *h);
    if (h == NULL) {
        qc_err_set(err, QC_ENOMEM, "histogram: out of memory");
        return NULL;
    }
    h->min = INFINITY;
    h->max = -INFINITY;
    return h;
}

/* A block of MAPPED bytes or more is mapped here, not taken from the
 * heap: its pages are then fresh zero pages whatever the allocator did
 * before (glibc serves blocks under its mmap threshold, which rises as
 * large blocks are freed, from the heap, and calloc clears those whole),
 * so the pages of buckets no value reaches are never touched. Every first
 * touch of a 4 KiB page is a page fault (about 12 us on a virtual
 * machine). A block of HUGE_PG bytes or more (a chunked model's 128
 * histograms, 4 MiB, of which a run touches a few pages each: 512 faults,
 * 6 ms a workspace) is also aligned to 2 MiB and advised for transparent
 * huge pages: three faults, 0.3 ms. Where huge pages are off or refused
 * it is an ordinary mapping. */
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MAP_ANONYMOUS)
#define MAPPED ((size_t)64 << 10)
#define HUGE_PG ((size_t)2 << 20)
static size_t page_round(size_t n)
{
    const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    return (n + pg - 1) / pg * pg;
}

static void *map_block(size_t size)
{
    const size_t len = page_round(size);
    const size_t pad = len >= HUGE_PG ? HUGE_PG : 0;
    if (len > SIZE_MAX - pad)
        return NULL;
    unsigned char *p =
        mmap(NULL, len + pad, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    if (pad == 0)
        return p;
    unsigned char *a = (unsigned char *)(((uintptr_t)p + HUGE_PG - 1) & ~(uintptr_t)(HUGE_PG - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (p + len + pad > a + len)
        munmap(a + len, (size_t)(p + len + pad - (a + len)));
    (void)madvise(a, len, MADV_HUGEPAGE); /* advice: ignored if refused */
    return a;
}
#endif

qc_hist *qc_hist_alloc_array(size_t n, qc_err *err)
{
    qc_hist *h = NULL;
    if (n > 0 && n <= SIZE_MAX / sizeof *h) {
#ifdef MAPPED
        if (n * sizeof *h >= MAPPED)
            h = map_block(n * sizeof *h);
        else
#endif
            h = calloc(n, sizeof *h);
    }
    if (h == NULL) {
        qc_err_set(err, QC_ENOMEM, "histogram: out of memory");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        h[i].min = INFINITY;
        h[i].max = -INFINITY;
    }
    return h;
}

void qc_hist_free_array(qc_hist *h, size_t n)
{
    if (h == NULL)
        return;
#ifdef MAPPED
    if (n * sizeof *h >= MAPPED) {
        munmap(h, page_round(n * sizeof *h));
        return;
    }
#endif
    (void)n;
    free(h);
}

void qc_hist_free(qc_hist *h)
{
    free(h);
}

/* The buckets [*lo, *hi) outside of which every count is 0: those from
 * min's to max's (a value's bucket grows with it), as every value added
 * moves min and max to include it and a merge takes the wider of both.
 * Resetting, merging and the quantiles' walks touch these alone: a
 * histogram spans 4096 buckets, 32 KiB, of which a run's response times
 * fill a few octaves, and the chunked models reset and merge hundreds of
 * histograms per replication. */
static double scale_of(const qc_hist *h)
{
    return h->scale > 0 ? h->scale : 1.0;
}

static void used(const qc_hist *h, size_t *lo, size_t *hi)
{
    *lo = *hi = 0;
    const double s = scale_of(h), mn = h->min * s, mx = h->max * s;
    if (!(mn <= mx) || mx < QC__HIST_LOWEST || mn >= QC__HIST_BEYOND)
        return; /* nothing in the kept range */
    *lo = mn < QC__HIST_LOWEST ? 0 : (size_t)qc__hist_index(mn);
    *hi = mx >= QC__HIST_BEYOND ? QC_HIST_NBUCKETS : (size_t)qc__hist_index(mx) + 1;
}

void qc_hist_set_unit(qc_hist *h, double unit)
{
    if (!(unit >= 1e-290 && unit <= 1e290))
        return;
    h->scale = ldexp(1.0, -ilogb(unit));
}

void qc_hist_reset(qc_hist *h)
{
    size_t lo, hi;
    used(h, &lo, &hi);
    memset(h->count + lo, 0, (hi - lo) * sizeof h->count[0]);
    h->total = h->zero = h->under = h->over = 0;
    h->min = INFINITY;
    h->max = -INFINITY;
}

static double bucket_point(size_t i, double f);

void qc_hist_merge(qc_hist *dst, const qc_hist *src)
{
    size_t lo, hi;
    used(src, &lo, &hi);
    if (dst->total == 0)
        dst->scale = src->scale;
    if (scale_of(dst) != scale_of(src)) {
        /* another unit: each bucket's count at its midpoint, re-bucketed */
        const double r = scale_of(dst) / scale_of(src);
        const double mn = dst->min, mx = dst->max;
        for (size_t i = lo; i < hi; i++) {
            if (src->count[i] == 0)
                continue;
            double x = bucket_point(i, 0.5) * r;
            uint64_t n = src->count[i];
            if (!(x > 0.0))
                dst->zero += n;
            else if (x < QC__HIST_LOWEST)
                dst->under += n;
            else if (x >= QC__HIST_BEYOND)
                dst->over += n;
            else
                dst->count[qc__hist_index(x)] += n;
        }
        dst->total += src->total;
        dst->zero += src->zero;
        /* src's underflow and overflow are outside its range, which may be
         * inside dst's: kept as dst's extremes of its own range */
        dst->under += src->under;
        dst->over += src->over;
        dst->min = src->min < mn ? src->min : mn;
        dst->max = src->max > mx ? src->max : mx;
        return;
    }
    dst->total += src->total;
    dst->zero += src->zero;
    dst->under += src->under;
    dst->over += src->over;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (size_t i = lo; i < hi; i++)
        dst->count[i] += src->count[i];
}

/* The point at fraction f of bucket i: 2^e (1 + (j + f) / 2^S). Exact for
 * f = 0, 1/2 and 1, as (j + f) / 2^S then has few bits. */
static double bucket_point(size_t i, double f)
{
    const int e = (int)(i >> QC_HIST_SUBBITS) + QC_HIST_EMIN;
    const double j = (double)(i & ((1u << QC_HIST_SUBBITS) - 1));
    return ldexp(1.0 + (j + f) / (double)(1u << QC_HIST_SUBBITS), e);
}

static double bucket_mid(size_t i)
{
    return bucket_point(i, 0.5);
}

void qc_hist_bucket_edges(int i, double *lo, double *hi)
{
    if (i < 0 || i >= QC_HIST_NBUCKETS) {
        *lo = NAN;
        *hi = NAN;
        return;
    }
    /* For j = 2^S - 1 the upper edge is 2^e * 2 = 2^(e+1), the next
     * octave's first lower edge, so consecutive buckets tile the range. */
    *lo = bucket_point((size_t)i, 0.0);
    *hi = bucket_point((size_t)i, 1.0);
}

void qc_hist_edges(const qc_hist *h, int i, double *lo, double *hi)
{
    qc_hist_bucket_edges(i, lo, hi);
    *lo /= scale_of(h);
    *hi /= scale_of(h);
}

/* The rank ceil(q * total), between 1 and total. */
static uint64_t target_rank(double q, uint64_t total)
{
    const double x = ceil(q * (double)total);
    if (!(x >= 1.0))
        return 1;
    if (x >= (double)total)
        return total;
    return (uint64_t)x;
}

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The quantiles both rules below agree on, 1 with *v set: NaN when there
 * is none (no values, q outside [0, 1], or min > max: nothing but NaN was
 * added), and the extremes, known exactly where a bucket would only
 * approximate them. 0 for a q the buckets must answer. */
static int quantile_edge(const qc_hist *h, double q, double *v)
{
    if (h->total == 0 || !(q >= 0.0 && q <= 1.0) || h->min > h->max)
        *v = NAN;
    else if (q == 0.0)
        *v = h->min;
    else if (q == 1.0)
        *v = h->max;
    else
        return 0;
    return 1;
}

double qc_hist_quantile(const qc_hist *h, double q)
{
    double v;
    if (quantile_edge(h, q, &v))
        return v;
    const uint64_t k = target_rank(q, h->total);
    /* Values <= 0 are not resolved further; min is the only one known. */
    uint64_t c = h->zero;
    if (k <= c)
        return h->min;
    c += h->under;
    if (k <= c)
        return clamp(ldexp(1.0, QC_HIST_EMIN) / scale_of(h), h->min, h->max);
    size_t lo, hi;
    used(h, &lo, &hi);
    for (size_t i = lo; i < hi; i++) {
        c += h->count[i];
        if (k <= c)
            return clamp(bucket_mid(i) / scale_of(h), h->min, h->max);
    }
    return clamp(ldexp(1.0, QC_HIST_EMAX + 1) / scale_of(h), h->min, h->max);
}

/* The grouped-data quantile: the counts of a bucket spread uniformly over
 * it, so the cumulative count rises linearly across each bucket, and the
 * quantile is where it reaches q * total. The midpoint rule above moves
 * in steps of a bucket (up to 0.78% of the value); this one moves
 * continuously with the data, which is what an interval formed from
 * several quantiles needs. */

/* The walk over the buckets to the count t: from bucket *i, with *c
 * counted below it, up to hi; it stops at the bucket it answers from
 * (*c still below it), where the walk to a count >= t would pass, so
 * that one walk serves several quantiles in increasing order. */
static double interp_walk(const qc_hist *h, double t, size_t *i, size_t hi, double *c)
{
    for (; *i < hi; ++*i) {
        const double n = (double)h->count[*i];
        if (n > 0 && t <= *c + n)
            return clamp(bucket_point(*i, (t - *c) / n) / scale_of(h), h->min, h->max);
        *c += n;
    }
    return clamp(ldexp(1.0, QC_HIST_EMAX + 1) / scale_of(h), h->min, h->max);
}

void qc_hist_quantiles_interp(const qc_hist *h, const double *q, size_t n, double *out)
{
    size_t lo, hi;
    used(h, &lo, &hi);
    const double zero = (double)h->zero, below = zero + (double)h->under;
    size_t i = lo;
    double c = below, last = -INFINITY;
    for (size_t k = 0; k < n; k++) {
        if (quantile_edge(h, q[k], &out[k]))
            continue;
        const double t = q[k] * (double)h->total;
        if (t <= zero) {
            out[k] = h->min;
            continue;
        }
        if (t <= below) {
            out[k] = clamp(ldexp(1.0, QC_HIST_EMIN) / scale_of(h), h->min, h->max);
            continue;
        }
        if (t < last) { /* not in increasing order: walk again */
            i = lo;
            c = below;
        }
        last = t;
        out[k] = interp_walk(h, t, &i, hi, &c);
    }
}

double qc_hist_quantile_interp(const qc_hist *h, double q)
{
    double v;
    qc_hist_quantiles_interp(h, &q, 1, &v);
    return v;
}

double qc_hist_below_interp(const qc_hist *h, double x)
{
    if (h->total == 0 || !(h->min <= h->max) || x != x)
        return 0;
    if (x >= h->max)
        return (double)h->total;
    if (x < h->min)
        return 0;
    double c = (double)h->zero;
    const double s = scale_of(h), xs = x * s;
    if (!(xs > 0.0))
        return c;
    if (xs < QC__HIST_LOWEST)
        return c; /* below the resolved range: the underflow counted above x */
    c += (double)h->under;
    size_t lo, hi;
    used(h, &lo, &hi);
    const size_t ix = xs >= QC__HIST_BEYOND ? hi : (size_t)qc__hist_index(xs);
    for (size_t i = lo; i < hi && i < ix; i++)
        c += (double)h->count[i];
    if (ix < hi && ix >= lo) {
        const double a = bucket_point(ix, 0.0), b = bucket_point(ix, 1.0);
        c += (double)h->count[ix] * (xs - a) / (b - a);
    }
    return c;
}
