/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sort.h: sorting the long arrays of a fit (gaps, sizes, ranks) by radix.
 *
 * A million gaps sort in a few milliseconds by an LSD radix sort on the
 * bits of the doubles (order-preserving once the sign is folded in), where
 * qsort with a comparison callback takes a quarter of a second: fitting a
 * capture sorts its samples several times (distinct values, empirical
 * tables, ranks). Both functions are stable and give the order of <, with
 * ties (including -0 and +0) in input order; NaN is not allowed. Internal
 * to src/traffic. */
#ifndef QCTL_TRAFFIC_SORT_H
#define QCTL_TRAFFIC_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n-1] ascending. Returns 0, or -1 when out of memory (a is
 * then sorted by qsort instead: the result is the same). */
int qc__sort_doubles(double *a, size_t n);

/* The permutation idx[0..n-1] that sorts x (x[idx[0]] <= x[idx[1]] ...,
 * equal values in index order); x is unchanged. Returns 0, or -1 when out
 * of memory (idx is then unset). */
int qc__sort_order(const double *x, size_t n, size_t *idx);

/* Dense ranks: rank[i] is the number of distinct values of x below x[i]
 * (equal values, -0 and +0 included, share a rank), *m the number of
 * distinct values; sorted, when not NULL, receives x in ascending order.
 * One sort gives everything a fit needs of a sample: its order
 * statistics (fit data, empirical tables) and its ranks (pseudo-
 * observations, Kendall's tau, Spearman's rho). Returns 0, or -1 when out
 * of memory or n is 2^32 or more (nothing then set but *m = 0). */
int qc__sort_ranks(const double *x, size_t n, uint32_t *rank, double *sorted, size_t *m);

#endif
