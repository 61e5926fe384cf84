/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim.c: life cycle of the simulation kernel (the hot path is inline in
 * qctl/sim.h). */
#include "qctl/sim.h"

int qc_sim_init(qc_sim *s, size_t hint)
{
    s->now = 0.0;
    s->events = 0;
    s->evq = qc_evq_alloc(hint);
    return s->evq ? 0 : QC_ENOMEM;
}

void qc_sim_destroy(qc_sim *s)
{
    qc_evq_free(s->evq);
    s->evq = NULL;
}

void qc_sim_reset(qc_sim *s)
{
    s->now = 0.0;
    s->events = 0;
    qc_evq_clear(s->evq);
}
