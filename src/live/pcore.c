/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pcore.c: the proxy's core around its admission front (see pcore.h): the
 * events in, the decisions carried out one at a time in the front's order
 * through a ring allocated once. */
#include "live/pcore.h"

#include <math.h>
#include <stdlib.h>

int qc__pcore_init(qc__pcore *c, qc_front *f, void (*apply)(void *, const qc_front_decision *),
                   void *ctx)
{
    c->front = f;
    c->ndec = qc_front_max_decisions(f);
    c->head = c->n = 0;
    c->applying = 0;
    c->apply = apply;
    c->ctx = ctx;
    c->scratch = calloc(c->ndec, sizeof *c->scratch);
    c->pending = calloc(c->ndec, sizeof *c->pending);
    if (!c->scratch || !c->pending) {
        qc__pcore_free(c);
        return QC_ENOMEM;
    }
    return 0;
}

void qc__pcore_free(qc__pcore *c)
{
    free(c->scratch);
    free(c->pending);
    c->scratch = c->pending = NULL;
}

/* Adds the n decisions of scratch to the pending ones and, unless a
 * caller up the stack is already at it, carries them all out. */
static void run(qc__pcore *c, int n)
{
    for (int i = 0; i < n; i++) {
        c->pending[(c->head + c->n) % c->ndec] = c->scratch[i];
        c->n++;
    }
    if (c->applying)
        return;
    c->applying = 1;
    while (c->n) {
        qc_front_decision d = c->pending[c->head];
        c->head = (c->head + 1) % c->ndec;
        c->n--;
        if (d.id == 0 && d.act == QC_FRONT_ADMIT) /* its request went away */
            run(c, qc_front_done(c->front, c->now, &d.tok, NAN, QC_FRONT_IGNORE,
                                 c->scratch, c->ndec));
        else if (d.id != 0)
            c->apply(c->ctx, &d);
    }
    c->applying = 0;
}

void qc__pcore_arrive(qc__pcore *c, double now, unsigned cls, uint64_t id)
{
    c->now = now;
    run(c, qc_front_arrive_n(c->front, now, cls, id, c->scratch, c->ndec));
}

void qc__pcore_done(qc__pcore *c, double now, qc_front_token *tok, double service, int outcome)
{
    c->now = now;
    run(c, qc_front_done(c->front, now, tok, service, outcome, c->scratch, c->ndec));
}

void qc__pcore_carry(qc__pcore *c, double now, qc_front_token *tok, int on)
{
    c->now = now;
    run(c, qc_front_carry(c->front, now, tok, on, c->scratch, c->ndec));
}

void qc__pcore_tick(qc__pcore *c, double now)
{
    c->now = now;
    run(c, qc_front_tick(c->front, now, c->scratch, c->ndec));
}

void qc__pcore_expire(qc__pcore *c, double now)
{
    c->now = now;
    run(c, qc_front_expire(c->front, now, c->scratch, c->ndec));
}

void qc__pcore_drain(qc__pcore *c, double now)
{
    c->now = now;
    run(c, qc_front_drain(c->front, now, c->scratch, c->ndec));
}

void qc__pcore_set_cap(qc__pcore *c, double now, uint32_t cap)
{
    c->now = now;
    run(c, qc_front_set_cap(c->front, now, cap, c->scratch, c->ndec));
}

int qc__pcore_gone(qc__pcore *c, uint64_t id, qc_front_handle h)
{
    int decided = h && qc_front_cancel(c->front, h) == QC_EEMPTY;
    for (size_t i = 0; i < c->n; i++) {
        qc_front_decision *d = &c->pending[(c->head + i) % c->ndec];
        if (d->id == id) {
            /* a wait not carried out: its place in the room let go (else
             * the front would decide on it again, for a client gone) */
            if (d->act == QC_FRONT_WAIT)
                qc_front_cancel(c->front, d->handle);
            d->id = 0;
            decided = 0; /* the decision was here, and is void */
        }
    }
    return decided;
}
