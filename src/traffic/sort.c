/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sort.c: LSD radix sort of doubles (see sort.h).
 *
 * The key of x is its IEEE bit pattern with the sign bit flipped for
 * x >= 0 and every bit flipped for x < 0: unsigned order of keys is then
 * the numeric order of values. Six passes of 11 bits each, least
 * significant first, each a stable counting sort; a pass whose digit is
 * the same in every key (the exponent bits of data within a few octaves,
 * the low mantissa bits of whole numbers) is skipped, found from the
 * counts of all six digits taken in one first sweep. Whole numbers below
 * 65536 (packet sizes) take one counting pass over their values instead. */
#include "traffic/sort.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define QC_SORT_SMALL 64

static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u & 0x8000000000000000ULL ? ~u : u ^ 0x8000000000000000ULL;
}

static double value_of(uint64_t k)
{
    const uint64_t u = k & 0x8000000000000000ULL ? k ^ 0x8000000000000000ULL : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts keys k[0..n-1] (with payload v when not NULL) by radix, using
 * the scratch arrays k2 and v2 of the same length; returns 1 when the
 * result ended in k2 (and v2), 0 when in k (and v). Digits of 11 bits:
 * six passes at most (11 * 5 + 9 = 64), the counts (6 x 2048) still in
 * the first-level cache's neighbourhood. */
#define DIGIT 11
#define NPASS 6
#define RADIX (1u << DIGIT)
static int radix(uint64_t *k, uint64_t *k2, size_t *v, size_t *v2, size_t n)
{
    static const uint64_t mask = RADIX - 1;
    size_t(*cnt)[RADIX] = calloc(NPASS, sizeof *cnt);
    if (cnt == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < NPASS; b++)
            cnt[b][(k[i] >> (DIGIT * b)) & mask]++;
    int swapped = 0;
    for (int b = 0; b < NPASS; b++) {
        if (cnt[b][(k[0] >> (DIGIT * b)) & mask] == n)
            continue; /* every key has this digit: the order stands */
        size_t pos = 0;
        for (unsigned d = 0; d < RADIX; d++) {
            const size_t c = cnt[b][d];
            cnt[b][d] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++) {
            const size_t at = cnt[b][(k[i] >> (DIGIT * b)) & mask]++;
            k2[at] = k[i];
            if (v)
                v2[at] = v[i];
        }
        uint64_t *tk = k;
        k = k2;
        k2 = tk;
        size_t *tv = v;
        v = v2;
        v2 = tv;
        swapped ^= 1;
    }
    free(cnt);
    return swapped;
}

/* Whole numbers in [0, QC_SORT_COUNT) (packet sizes): a counting sort of
 * one pass, with payload when idx is not NULL (stable). Returns 0, 1 when
 * the values are not all such (nothing written), -1 when out of memory. */
#define QC_SORT_COUNT 65536
static int counting(double *a, const double *x, size_t n, size_t *idx)
{
    if (n < QC_SORT_COUNT / 4) /* the counts would cost more than the sort */
        return 1;
    for (size_t i = 0; i < n; i++)
        if (!(x[i] >= 0 && x[i] < QC_SORT_COUNT && x[i] == (double)(uint32_t)x[i]) ||
            signbit(x[i]))
            return 1;
    size_t *cnt = calloc(QC_SORT_COUNT + 1, sizeof *cnt);
    if (cnt == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        cnt[(uint32_t)x[i] + 1]++;
    for (size_t d = 1; d <= QC_SORT_COUNT; d++)
        cnt[d] += cnt[d - 1];
    if (idx) {
        for (size_t i = 0; i < n; i++)
            idx[cnt[(uint32_t)x[i]]++] = i;
    } else {
        /* a == x: the values are rewritten from the counts */
        size_t at = 0;
        for (size_t d = 0; d < QC_SORT_COUNT; d++)
            for (size_t e = cnt[d + 1] - cnt[d]; e > 0; e--)
                a[at++] = (double)d;
    }
    free(cnt);
    return 0;
}

int qc__sort_doubles(double *a, size_t n)
{
    if (n < QC_SORT_SMALL) {
        qsort(a, n, sizeof *a, cmp_double);
        return 0;
    }
    const int c = counting(a, a, n, NULL);
    if (c <= 0) {
        if (c < 0)
            qsort(a, n, sizeof *a, cmp_double);
        return c;
    }
    uint64_t *k = malloc(2 * n * sizeof *k);
    if (k == NULL) {
        qsort(a, n, sizeof *a, cmp_double);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = key_of(a[i]);
    const int r = radix(k, k + n, NULL, NULL, n);
    if (r < 0) {
        free(k);
        qsort(a, n, sizeof *a, cmp_double);
        return -1;
    }
    const uint64_t *res = r ? k + n : k;
    for (size_t i = 0; i < n; i++)
        a[i] = value_of(res[i]);
    free(k);
    return 0;
}

int qc__sort_order(const double *x, size_t n, size_t *idx)
{
    if (n == 0)
        return 0;
    const int c = counting(NULL, x, n, idx);
    if (c <= 0)
        return c;
    uint64_t *k = malloc(2 * n * sizeof *k + 1);
    size_t *v = malloc(2 * n * sizeof *v + 1);
    if (k == NULL || v == NULL) {
        free(k);
        free(v);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        k[i] = key_of(x[i]);
        v[i] = i;
    }
    const int r = radix(k, k + n, v, v + n, n);
    if (r < 0) {
        free(k);
        free(v);
        return -1;
    }
    const size_t *res = r ? v + n : v;
    memcpy(idx, res, n * sizeof *idx);
    free(k);
    free(v);
    return 0;
}

int qc__sort_ranks(const double *x, size_t n, uint32_t *rank, double *sorted, size_t *m)
{
    *m = 0;
    if (n == 0)
        return 0;
    if (n > UINT32_MAX)
        return -1;
    size_t *o = malloc(n * sizeof *o);
    if (o == NULL || qc__sort_order(x, n, o) != 0) {
        free(o);
        return -1;
    }
    uint32_t d = 0;
    double prev = x[o[0]];
    for (size_t i = 0; i < n; i++) {
        const double v = x[o[i]];
        d += v != prev;
        prev = v;
        rank[o[i]] = d;
        if (sorted)
            sorted[i] = v;
    }
    *m = (size_t)d + 1;
    free(o);
    return 0;
}
