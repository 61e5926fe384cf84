/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/hist.h: a mergeable log-bucketed histogram for percentiles.
 *
 * A positive double x = m * 2^e (1 <= m < 2) falls in bucket (e, j) where
 * j is the top QC_HIST_SUBBITS bits of the mantissa m: each octave is cut
 * into 2^QC_HIST_SUBBITS equal slices, so a bucket's width is at most
 * 1/2^QC_HIST_SUBBITS of its lower edge. Reporting a bucket's midpoint
 * gives a relative error at most 2^-(QC_HIST_SUBBITS+1) = 0.78% < 1%. The
 * bucket index is computed from the bits of the double, with no log().
 *
 * Exponents from QC_HIST_EMIN to QC_HIST_EMAX are kept (about 2.3e-10 to
 * 4.3e9); smaller positive values count as underflow (reported as the
 * lower edge), larger as overflow (reported as the upper edge); zero and
 * negative values are counted apart as zero. Histograms with the same
 * layout merge by adding counts, so per-replication or per-thread
 * histograms combine exactly.
 *
 * Every non-zero count lies in the buckets from min's to max's (adding
 * and merging keep it so): reset, merge and the quantiles touch those
 * buckets only. Write the counts through qc_hist_add and qc_hist_merge.
 *
 * Ownership: qc_hist_alloc returns a histogram the caller frees with
 * qc_hist_free (which accepts NULL). */
#ifndef QCTL_HIST_H
#define QCTL_HIST_H

#include <stdint.h>
#include <string.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_HIST_SUBBITS 6
#define QC_HIST_EMIN (-32)
#define QC_HIST_EMAX 31
/* 2^EMIN and 2^(EMAX+1), as constants the compiler folds. */
#define QC__HIST_LOWEST (1.0 / 4294967296.0)
#define QC__HIST_BEYOND 4294967296.0
#define QC_HIST_NBUCKETS (((QC_HIST_EMAX) - (QC_HIST_EMIN) + 1) << QC_HIST_SUBBITS)

typedef struct qc_hist {
    uint64_t total;     /* all values added */
    uint64_t zero;      /* values <= 0 (and NaN) */
    uint64_t under;     /* 0 < x < 2^EMIN */
    uint64_t over;      /* x >= 2^(EMAX+1) */
    double min, max;    /* exact extremes of the values added */
    /* A value x is bucketed as x * scale, a power of two (qc_hist_set_unit;
     * 0, as a zeroed histogram has it, means 1): the kept range is then
     * 2^EMIN .. 2^(EMAX+1) units, whatever the time scale. Exact, so min,
     * max and the quantiles are in the values' own units. */
    double scale;
    uint64_t count[QC_HIST_NBUCKETS];
} qc_hist;

/* A new empty histogram, or NULL with err set (QC_ENOMEM; err may be
 * NULL). */
qc_hist *qc_hist_alloc(qc_err *err);
void qc_hist_free(qc_hist *h);
/* n empty histograms h[0..n) in one block, freed by
 * qc_hist_free_array(h, n); NULL with err set (QC_ENOMEM). The block's
 * fresh pages are zero and only those the histograms' headers and used
 * buckets (above) touch are ever mapped in, where n separate allocations
 * are cleared whole, 32 KiB each; a block of 2 MiB or more is advised for
 * transparent huge pages (few page faults for a sparsely touched block). */
qc_hist *qc_hist_alloc_array(size_t n, qc_err *err);
void qc_hist_free_array(qc_hist *h, size_t n);
void qc_hist_reset(qc_hist *h);

/* The unit the buckets are relative to: values from about 2.3e-10 to
 * 4.3e9 times `unit` are resolved to 0.78% (the power of two nearest
 * below unit is used, so that the scaling is exact). A unit that is not
 * positive and finite, or outside [1e-290, 1e290], leaves the scale as
 * it is. Call on an empty histogram; reset keeps the unit. */
void qc_hist_set_unit(qc_hist *h, double unit);

/* dst += src. An empty dst takes src's unit; histograms of different
 * units merge with src's buckets re-bucketed at their midpoints. */
void qc_hist_merge(qc_hist *dst, const qc_hist *src);

/* The q-quantile (0 <= q <= 1) of the values added: the midpoint of the
 * bucket holding the value of rank ceil(q * total), clamped to [min, max];
 * q = 0 and q = 1 give the exact min and max. Values counted as zero
 * (<= 0 or NaN) report min. NAN for an empty histogram. */
double qc_hist_quantile(const qc_hist *h, double q);

/* The q-quantile with the counts of each bucket spread uniformly over it
 * (the grouped-data quantile): where the linearly interpolated cumulative
 * count reaches q * total, clamped to [min, max]. It moves continuously
 * with the data instead of in steps of a bucket; sim queue and sim pool
 * report their percentiles with it. Zero, underflow and overflow as in
 * qc_hist_quantile; NAN for an empty histogram. */
double qc_hist_quantile_interp(const qc_hist *h, double q);

/* out[k] = qc_hist_quantile_interp(h, q[k]) for k < n, the same values,
 * in one walk over the buckets when the q[k] increase. */
void qc_hist_quantiles_interp(const qc_hist *h, const double *q, size_t n, double *out);

/* How many values are <= x, with each bucket's count spread uniformly
 * over it (the inverse of qc_hist_quantile_interp: at x = that quantile
 * of q it is about q * total). 0 below min, total at or above max. */
double qc_hist_below_interp(const qc_hist *h, double x);

/* The edges [lo, hi) of bucket i (0 <= i < QC_HIST_NBUCKETS), of a
 * histogram of unit 1. */
void qc_hist_bucket_edges(int i, double *lo, double *hi);
/* The edges [lo, hi) of bucket i of h, in the values' own units. */
void qc_hist_edges(const qc_hist *h, int i, double *lo, double *hi);

/* The bucket index of x > 0 inside the kept range. */
static inline int qc__hist_index(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    int j = (int)((bits >> (52 - QC_HIST_SUBBITS)) & ((1u << QC_HIST_SUBBITS) - 1));
    return ((e - QC_HIST_EMIN) << QC_HIST_SUBBITS) | j;
}

/* Adds one value. A positive double's bits grow with it, so one
 * unsigned compare of the bits against those of 2^EMIN and 2^(EMAX+1)
 * finds the values in the kept range (negative numbers, NaN and infinity
 * fall outside), and the bucket index is then the top bits of the
 * difference: exponent - EMIN above the top SUBBITS mantissa bits, which
 * is qc__hist_index(x). */
static inline void qc_hist_add(qc_hist *h, double x)
{
    const uint64_t lo = (uint64_t)(1023 + QC_HIST_EMIN) << 52;
    const uint64_t hi = (uint64_t)(1023 + QC_HIST_EMAX + 1) << 52;
    uint64_t bits;
    h->total++;
    /* stored whether or not they change: no branch (minsd and maxsd) */
    h->min = x < h->min ? x : h->min;
    h->max = x > h->max ? x : h->max;
    if (h->scale > 0)
        x *= h->scale; /* a power of two: exact */
    memcpy(&bits, &x, sizeof bits);
    if (bits - lo < hi - lo) {
        h->count[(bits - lo) >> (52 - QC_HIST_SUBBITS)]++;
        return;
    }
    if (!(x > 0.0)) {
        h->zero++;
        return;
    }
    if (x < QC__HIST_LOWEST) {
        h->under++;
        return;
    }
    if (x >= QC__HIST_BEYOND) {
        h->over++;
        return;
    }
    h->count[qc__hist_index(x)]++;
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
