/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/evq.h: the future-event list of the simulation kernel.
 *
 * A binary min-heap ordered by (time, sequence number). The sequence number
 * is taken from a counter at insertion, so events with equal times leave
 * in the order they were scheduled: a run never depends on how the heap
 * happened to break a tie.
 *
 * Events live in a slot pool with a free list; the heap holds (time, seq,
 * slot) triples inline so that sift operations touch one array. Slots and
 * heap grow by doubling, so after the queue reached its largest size no
 * event costs an allocation (qc_evq_alloc takes a size hint to avoid even
 * that). A slot knows its heap position, so an event can be cancelled in
 * O(log n) through the handle that qc_evq_push returned (processor
 * sharing reschedules its next departure this way).
 *
 * A handle is the slot and the slot's generation, (gen << 32) | slot; the
 * generation changes each time the slot is freed (pop, cancel, clear), so
 * a handle names one event only: once that event is popped or cancelled,
 * cancelling its handle fails with QC_EINVAL even if the slot now holds
 * another event, which stays pending.
 *
 * Ownership: qc_evq_alloc returns a queue freed by qc_evq_free (NULL ok). */
#ifndef QCTL_EVQ_H
#define QCTL_EVQ_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_evq qc_evq;

/* The layout is here only so that the kernel's fast paths (below, and
 * qc_sim_next) can be inlined; the fields are private to evq.c. */
typedef struct qc__evq_entry {
    double t;
    uint64_t seq;
    uint32_t slot;
} qc__evq_entry;

typedef struct qc__evq_slot {
    uint64_t data;
    uint32_t type;
    uint32_t pos; /* heap position, or QC__EVQ_FREE | next free slot */
    uint32_t gen; /* bumped when the slot is freed: stale handles fail */
} qc__evq_slot;

#define QC__EVQ_FREE 0x80000000u
#define QC__EVQ_NIL 0x7fffffffu
#define QC__EVQ_GEN_MASK 0x7fffffffu /* handles stay >= 0 as int64_t */

struct qc_evq {
    qc__evq_entry *heap;
    qc__evq_slot *slots;
    size_t n;   /* events pending */
    size_t cap; /* capacity of heap and slots */
    uint32_t free_head;
    uint64_t seq;
};

/* An event as delivered: its time, the type and payload given at push. */
typedef struct qc_event {
    double t;
    uint32_t type;
    int64_t handle; /* the handle push returned (stale once popped) */
    uint64_t data;
} qc_event;

/* A new empty queue with room for `hint` events, or NULL with err set
 * (QC_ENOMEM) when out of memory; err may be NULL. */
qc_evq *qc_evq_alloc(size_t hint, qc_err *err);
void qc_evq_free(qc_evq *q);

/* Removes every event; keeps the memory. */
void qc_evq_clear(qc_evq *q);

/* Schedules an event; returns its handle (>= 0) or QC_ENOMEM (the queue is
 * unchanged then). t must not be NaN. */
int64_t qc_evq_push(qc_evq *q, double t, uint32_t type, uint64_t data);

/* Removes the earliest event into *ev; QC_EEMPTY if there is none. */
int qc_evq_pop(qc_evq *q, qc_event *ev);

/* Cancels a pending event by the handle push returned; QC_EINVAL (the
 * queue unchanged) if that event is not pending: already popped,
 * cancelled or cleared, or a handle push never returned. */
int qc_evq_cancel(qc_evq *q, int64_t handle);

/* Number of pending events; time of the earliest (INFINITY if none). */
size_t qc_evq_size(const qc_evq *q);

QC_HOT double qc_evq_peek_time(const qc_evq *q)
{
    return q->heap[0].t; /* INFINITY when empty (evq.c) */
}

/* The small-queue fast paths of the kernel. A simulation with one server
 * and renewal arrivals (its arrivals in a qc_sim source) has at most one
 * event in the heap, its next departure: then a push lands in an empty
 * heap and a pop empties it, with no sift and no call. These do exactly
 * what qc_evq_push and qc_evq_pop do (same slot, handle, sequence number
 * and free list), so a run is the same event for event; any other case
 * goes to them. */
QC_HOT int64_t qc__evq_push_inline(qc_evq *q, double t, uint32_t type, uint64_t data)
{
    uint32_t s = q->free_head;
    if (q->n != 0 || s == QC__EVQ_NIL || isnan(t))
        return qc_evq_push(q, t, type, data);
    qc__evq_slot *sl = &q->slots[s];
    q->free_head = sl->pos & ~QC__EVQ_FREE;
    sl->data = data;
    sl->type = type;
    sl->pos = 0;
    q->heap[0].t = t;
    q->heap[0].seq = q->seq++;
    q->heap[0].slot = s;
    q->n = 1;
    return (int64_t)((uint64_t)sl->gen << 32 | s);
}

QC_HOT int qc__evq_pop_inline(qc_evq *q, qc_event *ev)
{
    if (q->n != 1) {
        /* through a copy: ev's address does not escape into the call, so
         * a caller's qc_event can live in registers */
        qc_event e;
        int rc = qc_evq_pop(q, &e);
        *ev = e;
        return rc;
    }
    uint32_t s = q->heap[0].slot;
    qc__evq_slot *sl = &q->slots[s];
    ev->t = q->heap[0].t;
    ev->type = sl->type;
    ev->data = sl->data;
    ev->handle = (int64_t)((uint64_t)sl->gen << 32 | s);
    sl->gen = (sl->gen + 1) & QC__EVQ_GEN_MASK;
    sl->pos = QC__EVQ_FREE | q->free_head;
    q->free_head = s;
    q->n = 0;
    q->heap[0].t = (double)INFINITY;
    return 0;
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
