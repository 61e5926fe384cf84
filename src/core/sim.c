/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim.c: life cycle of the simulation kernel (the hot path is inline in
 * qctl/sim.h). */
#include "qctl/sim.h"

#include <math.h>
#include <string.h>

int qc_sim_init(qc_sim *s, size_t hint, qc_err *err)
{
    memset(s, 0, sizeof *s);
    s->evq = qc_evq_alloc(hint, err);
    return s->evq ? 0 : QC_ENOMEM;
}

void qc_sim_free(qc_sim *s)
{
    qc_evq_free(s->evq);
    s->evq = NULL;
}

void qc_sim_reset(qc_sim *s)
{
    s->now = 0.0;
    s->events = 0;
    qc_evq_clear(s->evq);
    for (unsigned i = 0; i < s->nsrc; i++)
        s->src_t[i] = INFINITY;
}

int qc_sim_source_add(qc_sim *s, uint32_t type)
{
    if (s->nsrc >= QC_SIM_MAX_SOURCES)
        return QC_ERANGE;
    s->src_t[s->nsrc] = INFINITY;
    s->src_type[s->nsrc] = type;
    return (int)s->nsrc++;
}
