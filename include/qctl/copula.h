/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/copula.h: rank dependence and the empirical Markov copula of a
 * sequence of (size, gap) pairs.
 *
 * A copula is what is left of a joint distribution once the marginals
 * are taken out: for pairs (X, Y) with continuous marginals F and G it is
 * the law of (F(X), G(Y)), uniform marginals, dependence intact (Sklar's
 * theorem). Its empirical version is the law of the pseudo-observations
 *   u_i = (R_i - 1/2) / n   (R_i the mid-rank of X_i among X_1..X_n),
 * which is all a rank statistic such as Kendall's tau or Spearman's rho
 * sees. The 1/2 puts u_i in the middle of the block of ranks of its value,
 * [F_n(x-), F_n(x)], never on an edge: a stored u, rounded, still maps
 * back to the same observed value.
 *
 * For a packet sequence the state of packet i is z_i = (u_i, v_i), the
 * pseudo-observations of its size and of the gap before it. The copula
 * model keeps the transitions (z_{i-1}, z_i): the empirical copula of the
 * lag-1 pairs. A new sequence is drawn as a Markov chain over stored
 * states: from the current z, cut [0,1]^2 into a g x g grid, take the cell
 * of z, pick uniformly one stored transition whose first state lies in
 * that cell, and move to its second state. What is preserved:
 *  - the joint law of (size, gap) of one packet, exactly (every emitted
 *    state is an observed state, and in the long run each is emitted in
 *    proportion to how often it was observed);
 *  - the lag-1 dependence, up to the grid: the next state depends on the
 *    current one only through its cell, so dependence finer than 1/g is
 *    lost; g is chosen so that a cell holds about 20 transitions on
 *    average (at most 16 per axis);
 *  - marks carried with a state (a packet's direction) come along.
 * An empty cell borrows the transitions of the nearest non-empty cell.
 *
 * Kendall's tau is tau-b (ties corrected), by Knight's O(n log n)
 * algorithm: sort by x, count discordant pairs as the swaps of a merge
 * sort by y. Spearman's rho is the Pearson correlation of mid-ranks.
 *
 * Ownership: qc_copula owns its arrays (qc_copula_free, safe on a zeroed
 * one). A walk keeps pointers to its copula and stream. Errors: 0 or a
 * negative QC_E* code with a message. */
#ifndef QCTL_COPULA_H
#define QCTL_COPULA_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* Kendall's tau-b of (x_i, y_i); NAN when either is constant. */
int qc_copula_kendall(const double *x, const double *y, size_t n, double *tau, qc_err *err);

/* Spearman's rho (Pearson correlation of mid-ranks); NAN if constant. */
int qc_copula_spearman(const double *x, const double *y, size_t n, double *rho, qc_err *err);

/* Pseudo-observations u_i = (mid-rank of x_i - 1/2) / n, in (0, 1). */
int qc_copula_pseudo(const double *x, size_t n, double *u, qc_err *err);

typedef struct qc_copula {
    size_t n;        /* stored transitions */
    double *prev;    /* 2n: (u, v) of the state a transition leaves */
    double *next;    /* 2n: (u, v) of the state it enters */
    uint8_t *mark;   /* n: the mark of the entered state */
    unsigned grid;   /* cells per axis */
    size_t *start;   /* grid^2 + 1: transitions by cell of prev (CSR) */
    size_t *order;   /* n: transition indices sorted by cell */
    uint32_t *alias; /* grid^2: the non-empty cell used for each cell */
} qc_copula;

/* Builds the copula of the sequence (a_i, b_i, mark_i), i = 0..n-1 in
 * time order (n >= 2). With more than max_points transitions, evenly
 * spaced ones are kept. mark may be NULL (all 0). */
int qc_copula_build(qc_copula *c, const double *a, const double *b, const uint8_t *mark,
                    size_t n, size_t max_points, qc_err *err);

/* Builds it from stored transitions (as read from a model file): prev and
 * next hold 2n values in [0, 1]; grid 0 chooses it from n. */
int qc_copula_from_points(qc_copula *c, const double *prev, const double *next,
                          const uint8_t *mark, size_t n, unsigned grid, qc_err *err);

void qc_copula_free(qc_copula *c);

/* A chain drawn from the copula. */
typedef struct qc_copula_walk {
    const qc_copula *c;
    qc_rng *r;
    size_t cur; /* transition last taken */
} qc_copula_walk;

/* Starts at a uniformly chosen stored state. */
void qc_copula_walk_init(qc_copula_walk *w, const qc_copula *c, qc_rng *r);

/* The next state (u, v) and its mark. */
void qc_copula_walk_next(qc_copula_walk *w, double *u, double *v, uint8_t *mark);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
