/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.h: the output analysis qctl's chunked simulation models share
 * (sim queue, sim pool); internal to src/models/.
 *
 * A replication's measured window is cut into chunks, and the model knows
 * how to summarize a range of consecutive chunks into its metrics. The
 * independent units the confidence intervals are taken over are:
 *   - with two or more replications, the replications, each one unit of
 *     all its kept chunks [k0, nchunks);
 *   - with one replication, batch means: the kept chunks are cut into
 *     `batches` groups of m = (nchunks - k0) / batches consecutive chunks,
 *     and the (nchunks - k0) % batches chunks left over at the front are
 *     dropped.
 * Each metric's interval is the Student-t interval over the units; an
 * interval that cannot be formed (a metric undefined in every unit) is
 * all NAN rather than garbage.
 *
 * Ownership: qc__units_init allocates, qc__units_free releases (safe on a
 * zeroed value and after a failed init). */
#ifndef QCTL_MODELS_UNITS_H
#define QCTL_MODELS_UNITS_H

#include <stddef.h>

#include "qctl/stats.h"

/* Writes the metrics of chunks [first, last) to out[0..nmetrics). */
typedef void (*qc__summarize_fn)(void *ctx, int first, int last, double *out);

typedef struct qc__units {
    unsigned reps;
    size_t batches, nmetrics, nunits;
    double *v;   /* nunits rows of nmetrics values */
    double *col; /* scratch: one metric across the units */
} qc__units;

/* QC_ENOMEM or 0. */
int qc__units_init(qc__units *u, unsigned reps, size_t batches, size_t nmetrics);

/* Adds replication rep (0-based), whose kept chunks are [k0, nchunks). */
void qc__units_add(qc__units *u, unsigned rep, int k0, int nchunks, qc__summarize_fn f,
                   void *ctx);

/* The row of unit i (for metrics a model computes beside the chunks). */
static inline double *qc__units_row(qc__units *u, size_t i)
{
    return &u->v[i * u->nmetrics];
}

/* The interval of every metric at the given level into out[0..nmetrics). */
void qc__units_ci(qc__units *u, double level, qc_ci *out);

void qc__units_free(qc__units *u);

#endif
