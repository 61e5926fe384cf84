/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sfq.c: start-time fair queueing by class weight (the rule and how cost
 * is charged are in qctl/sfq.h).
 *
 * Invariant: every backlogged class has pass >= vt, because vt is only
 * ever set to the least pass among the backlogged classes (or, with none
 * backlogged, to the pass of the class that starts), passes only grow
 * but in qc_sfq_reweigh, which keeps them above vt, and a class that
 * joins is lifted to vt. */
#include "qctl/sfq.h"

#include <math.h>

#include "qctl/error.h"

int qc_sfq_init(qc_sfq *q, unsigned n, qc_err *err)
{
    if (n < 1 || n > QC_SFQ_MAX_CLASSES)
        return qc_err_set(err, QC_EINVAL, "fair queueing: %u classes, not 1 to %d", n,
                          QC_SFQ_MAX_CLASSES);
    *q = (qc_sfq){.n = n};
    return 0;
}

void qc_sfq_join(qc_sfq *q, unsigned k)
{
    if (q->pass[k] < q->vt)
        q->pass[k] = q->vt;
}

int qc_sfq_pick(const qc_sfq *q, uint32_t backlogged)
{
    int best = -1;
    for (unsigned k = 0; k < q->n; k++)
        if ((backlogged >> k & 1u) && (best < 0 || q->pass[k] < q->pass[best]))
            best = (int)k;
    return best;
}

void qc_sfq_start(qc_sfq *q, unsigned k)
{
    qc_sfq_join(q, k);
    q->vt = q->pass[k];
}

void qc_sfq_charge(qc_sfq *q, unsigned k, double cost, double weight)
{
    q->pass[k] += weight > 0 ? cost / weight : INFINITY;
}

void qc_sfq_reweigh(qc_sfq *q, unsigned k, double quantum)
{
    if (quantum > 0 && isfinite(quantum) && q->pass[k] > q->vt + quantum)
        q->pass[k] = q->vt + quantum;
}
