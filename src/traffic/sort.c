/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sort.c: LSD radix sort of doubles (see sort.h).
 *
 * The key of x is its IEEE bit pattern with the sign bit flipped for
 * x >= 0 and every bit flipped for x < 0: unsigned order of keys is then
 * the numeric order of values. Eight passes of one byte each, least
 * significant first, each a stable counting sort; a pass whose byte is the
 * same in every key (the exponent bytes of data within a few octaves, the
 * low mantissa bytes of whole numbers) is skipped, found from the counts
 * of all eight bytes taken in one first sweep. */
#include "traffic/sort.h"

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
 * result ended in k2 (and v2), 0 when in k (and v). */
static int radix(uint64_t *k, uint64_t *k2, size_t *v, size_t *v2, size_t n)
{
    size_t cnt[8][256];
    memset(cnt, 0, sizeof cnt);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            cnt[b][(k[i] >> (8 * b)) & 0xff]++;
    int swapped = 0;
    for (int b = 0; b < 8; b++) {
        if (cnt[b][(k[0] >> (8 * b)) & 0xff] == n)
            continue; /* every key has this byte: the order stands */
        size_t pos = 0;
        for (int d = 0; d < 256; d++) {
            const size_t c = cnt[b][d];
            cnt[b][d] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++) {
            const size_t at = cnt[b][(k[i] >> (8 * b)) & 0xff]++;
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
    return swapped;
}

int qc__sort_doubles(double *a, size_t n)
{
    if (n < QC_SORT_SMALL) {
        qsort(a, n, sizeof *a, cmp_double);
        return 0;
    }
    uint64_t *k = malloc(2 * n * sizeof *k);
    if (k == NULL) {
        qsort(a, n, sizeof *a, cmp_double);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = key_of(a[i]);
    const uint64_t *res = radix(k, k + n, NULL, NULL, n) ? k + n : k;
    for (size_t i = 0; i < n; i++)
        a[i] = value_of(res[i]);
    free(k);
    return 0;
}

int qc__sort_order(const double *x, size_t n, size_t *idx)
{
    if (n == 0)
        return 0;
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
    const size_t *res = radix(k, k + n, v, v + n, n) ? v + n : v;
    memcpy(idx, res, n * sizeof *idx);
    free(k);
    free(v);
    return 0;
}
