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
 * Sources. A renewal arrival process always has exactly one pending event,
 * its next arrival, and it is the most frequent event of an open model.
 * Such a stream can be declared a source: its next time sits in a small
 * array beside the heap instead of in it, so that an arrival costs a
 * compare rather than a push and a pop. The departures of a single
 * server are another such stream (at most one pending, never cancelled
 * but by replacing it). qc_sim_next delivers whichever is
 * earlier. Order at equal times: scheduled events first (in the order they
 * were scheduled), then sources by index; either way the order depends
 * only on what the model did, never on the heap's layout.
 *
 * Ownership: qc_sim_init allocates the event list; qc_sim_free frees it
 * (and is safe on a zeroed or failed qc_sim). */
#ifndef QCTL_SIM_H
#define QCTL_SIM_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"
#include "qctl/evq.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_SIM_MAX_SOURCES 8
/* ev.handle of an event delivered from a source. */
#define QC_SIM_SOURCE_HANDLE INT64_MAX

typedef struct qc_sim {
    double now;
    uint64_t events; /* events delivered so far */
    qc_evq *evq;
    unsigned nsrc;
    double src_t[QC_SIM_MAX_SOURCES]; /* next time, INFINITY when idle */
    uint32_t src_type[QC_SIM_MAX_SOURCES];
} qc_sim;

/* Clock at 0, empty list with room for `hint` events; 0, or QC_ENOMEM
 * with err set (err may be NULL). qc_sim_free releases the list (safe on
 * a failed or already freed kernel). */
int qc_sim_init(qc_sim *s, size_t hint, qc_err *err);
void qc_sim_free(qc_sim *s);
/* Back to time 0 with no events; keeps the memory. */
void qc_sim_reset(qc_sim *s);

/* Schedules an event `delay` (>= 0) from now; returns its handle (>= 0)
 * or a negative QC_E* code. */
QC_HOT int64_t qc_sim_after(qc_sim *s, double delay, uint32_t type, uint64_t data)
{
    if (!(delay >= 0.0))
        return QC_EINVAL;
    return qc__evq_push_inline(s->evq, s->now + delay, type, data);
}

/* Schedules an event at absolute time t (>= now). */
QC_HOT int64_t qc_sim_at(qc_sim *s, double t, uint32_t type, uint64_t data)
{
    if (!(t >= s->now))
        return QC_EINVAL;
    return qc__evq_push_inline(s->evq, t, type, data);
}

/* Cancels the pending event of handle h (from qc_sim_after or qc_sim_at);
 * QC_EINVAL when it is not pending (popped or cancelled already). */
static inline int qc_sim_cancel(qc_sim *s, int64_t h)
{
    return qc_evq_cancel(s->evq, h);
}

/* Declares a source whose events have the given type; returns its index
 * (>= 0), or QC_ERANGE when QC_SIM_MAX_SOURCES are declared. It starts
 * idle. Sources survive qc_sim_reset (idle again). */
int qc_sim_source_add(qc_sim *s, uint32_t type);

/* Sets the next event of source i at absolute time t (>= now), replacing
 * any pending one; t = INFINITY makes it idle. */
QC_HOT int qc_sim_source_at(qc_sim *s, unsigned i, double t)
{
    if (i >= s->nsrc || !(t >= s->now))
        return QC_EINVAL;
    s->src_t[i] = t;
    return 0;
}

/* Delivers the next event and advances the clock to its time; QC_EEMPTY
 * when nothing is scheduled. An event from source i comes with
 * ev.data = i and ev.handle = QC_SIM_SOURCE_HANDLE, and leaves the source
 * idle until the model sets its next time. */
QC_HOT int qc_sim_next(qc_sim *s, qc_event *ev)
{
    /* One source (an open model's renewal arrivals), or two (those and
     * a single server's departures), is the common case: their times are
     * read without a loop; an idle one reads INFINITY. On a tie the
     * lower index wins, as in the loop. */
    double ts = s->src_t[0];
    unsigned best = 0;
    if (s->nsrc == 2) {
        if (s->src_t[1] < ts) {
            ts = s->src_t[1];
            best = 1;
        }
    } else if (s->nsrc != 1) {
        ts = (double)INFINITY;
        for (unsigned i = 0; i < s->nsrc; i++) {
            if (s->src_t[i] < ts) {
                ts = s->src_t[i];
                best = i;
            }
        }
    }
    if (ts < qc_evq_peek_time(s->evq)) {
        s->src_t[best] = (double)INFINITY;
        ev->t = ts;
        ev->type = s->src_type[best];
        ev->handle = QC_SIM_SOURCE_HANDLE;
        ev->data = best;
        s->now = ts;
        s->events++;
        return 0;
    }
    int rc = qc__evq_pop_inline(s->evq, ev);
    if (rc == 0) {
        s->now = ev->t;
        s->events++;
    }
    return rc;
}

/* Sets the next time of source i, known to be declared: qc_sim_source_at
 * without the index check, for a model's hot path. */
QC_HOT int qc__sim_source_set(qc_sim *s, unsigned i, double t)
{
    if (!(t >= s->now))
        return QC_EINVAL;
    s->src_t[i] = t;
    return 0;
}

/* qc_sim_next for a model whose every event comes from sources 0 and 1,
 * nothing ever scheduled (a single-server open queue: its departures,
 * then its renewal arrivals): two loads and a compare, no heap and no
 * qc_event. Returns the source of the event (0 or 1; 0 on a tie, as in
 * qc_sim_next), the clock at its time, or QC_EEMPTY when both are idle.
 * Unlike qc_sim_next it leaves the source's time as it was: the model
 * sets the next one (INFINITY: idle) before it asks for the next event,
 * which a renewal stream and a busy server do anyway. Internal to
 * libqctl's models (qc__ prefix). */
QC_HOT int qc__sim_next2(qc_sim *s)
{
    const double t0 = s->src_t[0], t1 = s->src_t[1];
    if (t1 < t0) {
        s->now = t1;
        s->events++;
        return 1;
    }
    if (!(t0 < (double)INFINITY))
        return QC_EEMPTY;
    s->now = t0;
    s->events++;
    return 0;
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
