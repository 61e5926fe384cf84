/* SPDX-License-Identifier: GPL-3.0-or-later */
/* copula_uv.h: the Markov copula, the pseudo-observations and the rank
 * correlations from ranks already taken (internal to src/traffic). A
 * traffic fit needs the order of its sizes and of its gaps for the
 * fits, the empirical tables, the copula and the report's three tau and
 * rho pairs: ranking a million values is the costliest part of all of
 * these, so each sample is ranked once (qc__sort_ranks, traffic/sort.h)
 * and its dense ranks handed here. Ranks r[i] are below m, equal values
 * with equal ranks; a subsequence of a sample's ranks (every k-th value,
 * the sample shifted by a lag) is ranks of that subsequence with the
 * same m. Each returns 0 or QC_ENOMEM; the results are those of the
 * public functions of qctl/copula.h on the values, bit for bit. */
#ifndef QCTL_TRAFFIC_COPULA_UV_H
#define QCTL_TRAFFIC_COPULA_UV_H

#include "qctl/copula.h"

/* qc_copula_kendall, qc_copula_spearman and qc_copula_pseudo on ranks. */
int qc__copula_kendall_ranks(const uint32_t *rx, size_t mx, const uint32_t *ry, size_t my,
                             size_t n, double *tau);
int qc__copula_spearman_ranks(const uint32_t *rx, size_t mx, const uint32_t *ry, size_t my,
                              size_t n, double *rho);
int qc__copula_pseudo_ranks(const uint32_t *r, size_t m, size_t n, double *u);

/* qc_copula_build (qctl/copula.h) given u = qc_copula_pseudo(a) and
 * v = qc_copula_pseudo(b) instead of a and b. */
int qc__copula_build_uv(qc_copula *c, const double *u, const double *v, const uint8_t *mark,
                        size_t n, size_t max_points, qc_err *err);

#endif
