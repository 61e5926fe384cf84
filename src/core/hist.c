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
 * The histogram holds counts only, so merging is exact and commutative:
 * per-replication or per-thread histograms sum to the one built from all
 * the values, bit for bit. */
#include "qctl/hist.h"

#include <math.h>
#include <stdlib.h>

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

void qc_hist_free(qc_hist *h)
{
    free(h);
}

void qc_hist_reset(qc_hist *h)
{
    memset(h, 0, sizeof *h);
    h->min = INFINITY;
    h->max = -INFINITY;
}

void qc_hist_merge(qc_hist *dst, const qc_hist *src)
{
    dst->total += src->total;
    dst->zero += src->zero;
    dst->under += src->under;
    dst->over += src->over;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (size_t i = 0; i < QC_HIST_NBUCKETS; i++)
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
        return clamp(ldexp(1.0, QC_HIST_EMIN), h->min, h->max);
    for (size_t i = 0; i < QC_HIST_NBUCKETS; i++) {
        c += h->count[i];
        if (k <= c)
            return clamp(bucket_mid(i), h->min, h->max);
    }
    return clamp(ldexp(1.0, QC_HIST_EMAX + 1), h->min, h->max);
}

/* The grouped-data quantile: the counts of a bucket spread uniformly over
 * it, so the cumulative count rises linearly across each bucket, and the
 * quantile is where it reaches q * total. The midpoint rule above moves
 * in steps of a bucket (up to 0.78% of the value); this one moves
 * continuously with the data, which is what an interval formed from
 * several quantiles needs. */
double qc_hist_quantile_interp(const qc_hist *h, double q)
{
    double v;
    if (quantile_edge(h, q, &v))
        return v;
    const double t = q * (double)h->total;
    double c = (double)h->zero;
    if (t <= c)
        return h->min;
    c += (double)h->under;
    if (t <= c)
        return clamp(ldexp(1.0, QC_HIST_EMIN), h->min, h->max);
    for (size_t i = 0; i < QC_HIST_NBUCKETS; i++) {
        const double n = (double)h->count[i];
        if (n > 0 && t <= c + n) {
            const double f = (t - c) / n;
            return clamp(bucket_point(i, f), h->min, h->max);
        }
        c += n;
    }
    return clamp(ldexp(1.0, QC_HIST_EMAX + 1), h->min, h->max);
}
