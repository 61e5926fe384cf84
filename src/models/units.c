/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.c: replications or batch means over chunks (see units.h). */
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int qc__units_init(qc__units *u, unsigned reps, size_t batches, size_t nmetrics)
{
    memset(u, 0, sizeof *u);
    u->reps = reps;
    u->batches = batches;
    u->nmetrics = nmetrics;
    u->nunits = reps >= 2 ? reps : batches;
    u->v = calloc(u->nunits * nmetrics, sizeof *u->v);
    u->col = malloc(u->nunits * sizeof *u->col);
    if (!u->v || !u->col) {
        qc__units_free(u);
        return QC_ENOMEM;
    }
    return 0;
}

void qc__units_add(qc__units *u, unsigned rep, int k0, int nchunks, qc__summarize_fn f,
                   void *ctx)
{
    if (u->reps >= 2) {
        f(ctx, k0, nchunks, qc__units_row(u, rep));
        return;
    }
    int b = (int)u->batches;
    int m = (nchunks - k0) / b;
    int first = nchunks - m * b;
    for (int i = 0; i < b; i++)
        f(ctx, first + i * m, first + (i + 1) * m, qc__units_row(u, (size_t)i));
}

void qc__units_ci(qc__units *u, double level, qc_ci *out)
{
    for (size_t m = 0; m < u->nmetrics; m++) {
        for (size_t i = 0; i < u->nunits; i++)
            u->col[i] = u->v[i * u->nmetrics + m];
        if (qc_ci_t(u->col, u->nunits, level, &out[m], NULL) != 0)
            out[m] = (qc_ci){NAN, NAN, NAN, NAN, level, u->nunits};
    }
}

void qc__units_free(qc__units *u)
{
    free(u->v);
    free(u->col);
    u->v = u->col = NULL;
}
