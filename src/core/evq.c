/* SPDX-License-Identifier: GPL-3.0-or-later */
/* evq.c: binary heap of (time, seq, slot) with a slot pool and free list.
 *
 * Invariant: for every heap position i > 0, key(parent(i)) <= key(i) where
 * key = (t, seq); and for every pending slot s, heap[slot[s].pos].slot == s.
 * Free slots are chained through slot[s].pos (with the flag bit set) so the
 * pool needs no second array. An empty queue has heap[0].t = INFINITY (the
 * heap always has room for one entry), so peeking needs no test. */
#include "qctl/evq.h"

#include <math.h>
#include <stdlib.h>

#define FREE_BIT QC__EVQ_FREE
#define NIL QC__EVQ_NIL
#define GEN_MASK QC__EVQ_GEN_MASK

typedef qc__evq_entry heap_entry;
typedef qc__evq_slot slot;

static inline int64_t handle_of(const qc_evq *q, uint32_t s)
{
    return (int64_t)((uint64_t)q->slots[s].gen << 32 | s);
}

static void chain_free(qc_evq *q, size_t from)
{
    /* Slots [from, cap) become free, in order, ahead of the old list. */
    uint32_t next = q->free_head;
    for (size_t i = q->cap; i-- > from;) {
        q->slots[i].pos = FREE_BIT | next;
        next = (uint32_t)i;
    }
    q->free_head = next;
}

static int grow(qc_evq *q, size_t cap)
{
    if (cap > NIL)
        return QC_ENOMEM;
    heap_entry *h = realloc(q->heap, cap * sizeof *h);
    if (h == NULL)
        return QC_ENOMEM;
    q->heap = h;
    slot *s = realloc(q->slots, cap * sizeof *s);
    if (s == NULL)
        return QC_ENOMEM;
    q->slots = s;
    size_t old = q->cap;
    for (size_t i = old; i < cap; i++)
        s[i].gen = 0;
    q->cap = cap;
    chain_free(q, old);
    return 0;
}

qc_evq *qc_evq_alloc(size_t hint, qc_err *err)
{
    qc_evq *q = calloc(1, sizeof *q);
    if (q == NULL) {
        qc_err_set(err, QC_ENOMEM, "event queue: out of memory");
        return NULL;
    }
    q->free_head = NIL;
    if (grow(q, hint < 16 ? 16 : hint) != 0) {
        qc_evq_free(q);
        qc_err_set(err, QC_ENOMEM, "event queue: out of memory for %zu events", hint);
        return NULL;
    }
    q->heap[0].t = INFINITY;
    return q;
}

void qc_evq_free(qc_evq *q)
{
    if (q == NULL)
        return;
    free(q->heap);
    free(q->slots);
    free(q);
}

void qc_evq_clear(qc_evq *q)
{
    for (size_t i = 0; i < q->n; i++) { /* the pending handles go stale */
        slot *s = &q->slots[q->heap[i].slot];
        s->gen = (s->gen + 1) & GEN_MASK;
    }
    q->n = 0;
    q->heap[0].t = INFINITY;
    q->free_head = NIL;
    chain_free(q, 0);
}

static inline int less(const heap_entry *a, const heap_entry *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void place(qc_evq *q, size_t i, heap_entry e)
{
    q->heap[i] = e;
    q->slots[e.slot].pos = (uint32_t)i;
}

static void sift_up(qc_evq *q, size_t i, heap_entry e)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!less(&e, &q->heap[p]))
            break;
        place(q, i, q->heap[p]);
        i = p;
    }
    place(q, i, e);
}

static void sift_down(qc_evq *q, size_t i, heap_entry e)
{
    size_t n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && less(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!less(&q->heap[c], &e))
            break;
        place(q, i, q->heap[c]);
        i = c;
    }
    place(q, i, e);
}

int64_t qc_evq_push(qc_evq *q, double t, uint32_t type, uint64_t data)
{
    if (isnan(t))
        return QC_EINVAL;
    if (q->free_head == NIL) {
        int rc = grow(q, q->cap * 2);
        if (rc != 0)
            return rc;
    }
    uint32_t s = q->free_head;
    q->free_head = q->slots[s].pos & ~FREE_BIT;
    q->slots[s].data = data;
    q->slots[s].type = type;
    heap_entry e = {t, q->seq++, s};
    sift_up(q, q->n++, e);
    return handle_of(q, s);
}

static void release(qc_evq *q, uint32_t s)
{
    q->slots[s].gen = (q->slots[s].gen + 1) & GEN_MASK;
    q->slots[s].pos = FREE_BIT | q->free_head;
    q->free_head = s;
}

int qc_evq_pop(qc_evq *q, qc_event *ev)
{
    if (q->n == 0)
        return QC_EEMPTY;
    heap_entry top = q->heap[0];
    const slot *s = &q->slots[top.slot];
    ev->t = top.t;
    ev->type = s->type;
    ev->data = s->data;
    ev->handle = handle_of(q, top.slot);
    release(q, top.slot);
    if (--q->n > 0)
        sift_down(q, 0, q->heap[q->n]);
    else
        q->heap[0].t = INFINITY;
    return 0;
}

int qc_evq_cancel(qc_evq *q, int64_t handle)
{
    if (handle < 0)
        return QC_EINVAL;
    uint64_t slot_no = (uint64_t)handle & 0xffffffffu;
    uint32_t gen = (uint32_t)((uint64_t)handle >> 32);
    if (slot_no >= q->cap)
        return QC_EINVAL;
    uint32_t s = (uint32_t)slot_no;
    if ((q->slots[s].pos & FREE_BIT) || q->slots[s].gen != gen)
        return QC_EINVAL;
    size_t i = q->slots[s].pos;
    release(q, s);
    if (--q->n == i) {
        if (i == 0)
            q->heap[0].t = INFINITY;
        return 0;
    }
    heap_entry last = q->heap[q->n];
    if (i > 0 && less(&last, &q->heap[(i - 1) / 2]))
        sift_up(q, i, last);
    else
        sift_down(q, i, last);
    return 0;
}

size_t qc_evq_size(const qc_evq *q)
{
    return q->n;
}
