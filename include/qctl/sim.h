/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/sim.h: the discrete-event simulation kernel.
 *
 * A kernel is a clock and a future-event list. A model owns its loop:
 *
 *     qc_event ev;
 *     while (qc_sim_next(&sim, &ev) == 0) {
 *         switch (ev.type) { case ARRIVAL: ...; case DEPARTURE: ...; }
 *     }
 *
 * Dispatch is a switch in the model, not a function pointer per event, so
 * the compiler sees the whole loop. The clock only moves forward: an event
 * scheduled in the past is a bug the kernel refuses (QC_EINVAL).
 *
 * Ownership: qc_sim_init allocates the event list; qc_sim_destroy frees it
 * (and is safe on a zeroed or failed qc_sim). */
#ifndef QCTL_SIM_H
#define QCTL_SIM_H

#include <stdint.h>

#include "qctl/error.h"
#include "qctl/evq.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct qc_sim {
    double now;
    uint64_t events; /* events delivered so far */
    qc_evq *evq;
} qc_sim;

/* Clock at 0, empty list with room for `hint` events. QC_ENOMEM. */
int qc_sim_init(qc_sim *s, size_t hint);
void qc_sim_destroy(qc_sim *s);
/* Back to time 0 with no events; keeps the memory. */
void qc_sim_reset(qc_sim *s);

/* Schedules an event `delay` (>= 0) from now; returns its handle (>= 0)
 * or a negative QC_E* code. */
static inline int64_t qc_sim_after(qc_sim *s, double delay, uint32_t type, uint64_t data)
{
    if (!(delay >= 0.0))
        return QC_EINVAL;
    return qc_evq_push(s->evq, s->now + delay, type, data);
}

/* Schedules an event at absolute time t (>= now). */
static inline int64_t qc_sim_at(qc_sim *s, double t, uint32_t type, uint64_t data)
{
    if (!(t >= s->now))
        return QC_EINVAL;
    return qc_evq_push(s->evq, t, type, data);
}

/* Delivers the next event and advances the clock to its time; QC_EEMPTY
 * when nothing is scheduled. */
static inline int qc_sim_next(qc_sim *s, qc_event *ev)
{
    int rc = qc_evq_pop(s->evq, ev);
    if (rc == 0) {
        s->now = ev->t;
        s->events++;
    }
    return rc;
}

#ifdef __cplusplus
}
#endif
#endif
