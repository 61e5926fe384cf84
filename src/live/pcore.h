/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pcore.h: the proxy's core around its admission front, with no sockets
 * and no clock: it tells the front (qctl/front.h) each event with the time
 * it is given, and hands each decision to the plant's apply callback, in
 * the front's order. Carrying a decision out may raise another event (a
 * request admitted whose backend cannot be reached gives its slot back at
 * once); its decisions join the end of the pending ones, a ring as long
 * as the most one event returns (the decisions pending name distinct
 * requests), emptied by one loop at a time: decisions are carried out in
 * the order they were taken, never nested. `qctl proxy` runs it on libuv
 * (proxy.c); tests/unit/live/test_front_replay.c runs it on a fake clock
 * beside a simulation and requires the same decisions in the same order. */
#ifndef QC_LIVE_PCORE_H
#define QC_LIVE_PCORE_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/front.h"

typedef struct qc__pcore {
    qc_front *front;
    qc_front_decision *scratch, *pending; /* ndec each */
    size_t ndec, head, n;
    int applying;
    double now; /* the time of the event being carried out */
    /* carries out one decision; d->id 0: its request went away (an ADMIT
     * then only gives its token back: see qc__pcore_gone) */
    void (*apply)(void *ctx, const qc_front_decision *d);
    void *ctx;
} qc__pcore;

/* f is the caller's (freed by it). 0 or QC_ENOMEM. */
int qc__pcore_init(qc__pcore *c, qc_front *f, void (*apply)(void *, const qc_front_decision *),
                   void *ctx);
void qc__pcore_free(qc__pcore *c);

void qc__pcore_arrive(qc__pcore *c, double now, unsigned cls, uint64_t id);
void qc__pcore_done(qc__pcore *c, double now, qc_front_token *tok, double service, int outcome);
/* tok's body is carried to its backend (on 1) or whole there (0): qc_front_carry. */
void qc__pcore_carry(qc__pcore *c, double now, qc_front_token *tok, int on);
void qc__pcore_tick(qc__pcore *c, double now);
void qc__pcore_expire(qc__pcore *c, double now);
void qc__pcore_drain(qc__pcore *c, double now);
/* The plant's own limit (qc_front_set_cap: the gate's controller). */
void qc__pcore_set_cap(qc__pcore *c, double now, uint32_t cap);
/* Request id went away: out of the waiting room (its handle h, 0: it
 * was not waiting), and decisions on it not yet carried out voided.
 * Returns 1 when it was no longer waiting and no decision on it is
 * pending here: another core sharing the front took that decision, which
 * is on its way (the caller keeps the request until it comes). */
int qc__pcore_gone(qc__pcore *c, uint64_t id, qc_front_handle h);

#endif
