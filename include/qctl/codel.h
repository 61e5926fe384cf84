/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/codel.h: the discipline of a waiting room in front of a server:
 * CoDel's standing-queue test (Nichols and Jacobson, 2012), a short
 * deadline while the queue stands, and adaptive LIFO.
 *
 * A FIFO with a fixed deadline lets every admitted request wait nearly
 * the whole deadline under sustained overload. CoDel's observation is
 * that a good queue drains: one whose waits stayed above a target for a
 * whole interval is standing, and holding it only adds delay. The rule,
 * for a plant that keeps the requests waiting for a slot:
 *
 *   standing begins when the oldest waiting request has waited longer
 *       than target + interval (qc_codel_head): the queue then held a
 *       request older than the target for a whole interval (in FIFO order
 *       every request let in meanwhile was older still, and none got in
 *       at once, since the queue was never empty): CoDel's "above target
 *       for an interval", read off the head instead of the departures;
 *   while it stands, a request's deadline is the target (qc_codel_deadline),
 *       and those already waiting longer are refused (qc_codel_expired);
 *   the newest waiting request goes first (qc_codel_lifo) while the queue
 *       stands, and already once the oldest has waited past the target:
 *       every slot is filled either way, with a request that has barely
 *       waited, and the oldest are the ones refused when the queue stands
 *       an interval later, or served once it drains if it never does (a
 *       stall of the host). LIFO costs no refusal, so it needs no
 *       interval of proof; without it the requests let in during the
 *       first interval of an overload, before the queue stands, waited up
 *       to target + interval each (about 44 requests of up to 110 ms at
 *       the start of a 3x overload of a 10 ms backend: most of the
 *       admitted p99 of a 10 s run);
 *   it stands until it drains (qc_codel_tick): a request got in without
 *       waiting, a slot being free when it came, during a control
 *       interval. Not the least wait falling under the target: the short
 *       deadline itself keeps every wait under it, so that test would end
 *       the state one interval after it began. Nor the queue emptied by
 *       letting one in: under a sustained overload the short deadline
 *       keeps the queue short, so it empties now and then while every
 *       slot stays busy, and each exit let the next requests wait target +
 *       interval again (admitted p99 121 ms against nginx limit_conn's
 *       21 ms for a 10 ms backend at 3x overload on an idle host).
 *
 * The target (qc_codel_set_noload): a fixed one, or adaptive,
 * max(floor, k L0) with L0 the server's no-load latency (fallback before
 * one is known), and the interval CoDel's 100 ms (the plant's control
 * interval). Why the floor and the interval make a light load safe: with c slots of mean service L0 and
 * Poisson arrivals at a load rho < 1 (M/M/c), the wait of a request that
 * waits is exponential with mean L0 / (c (1 - rho)), so P(W > target +
 * interval) <= exp(-c (1 - rho) 5 target / L0) <= exp(-5 c (1 - rho))
 * (target >= L0, interval >= 4 targets while L0 <= 25 ms; for a
 * longer L0 the interval is under 4 targets, and a 100 ms backend's head
 * must wait 2 L0, exp(-2 c (1 - rho)), a queue of 10 slots at half load
 * 5e-5): at rho = 0.5 that is 8% for one
 * slot but 4e-6 for 5 slots and 1e-11 for 10. A light load runs at many
 * slots (the MaxUsers reference is held at r_init or above until a knee
 * is measured, qctl/controller.h), so its head never ages past target +
 * interval and nothing is refused; the floor of a few milliseconds
 * (CoDel's 5 ms) keeps a server of sub-millisecond L0 from a target that
 * the host's own scheduling jitter exceeds, and the interval of 100 ms
 * (not 4 targets, 20 ms at the floor; nor 4 targets when longer, which
 * let a 0.1 s backend's overload run 0.5 s before it stood) keeps a stall of
 * the host of a few tens of milliseconds from being taken for a standing
 * queue (CoDel's interval is a worst-case round trip, not a multiple of
 * its target). Without the two floors (a target of L0 = 1 ms, an interval of
 * 4 ms, and a reference restarted on the lower bound, which put the limit
 * at 1 or 2) the proxy refused 1 to 2% of a 20% load.
 *
 * No clock, no I/O, no allocation: every function takes the waits the
 * plant measured (seconds). The admission front calls it (qctl/front.h),
 * which the proxy and simulations run alike, and
 * tests/unit/control/test_codel.c drives it through an event-queue
 * simulation and through the proxy's former call order with the same
 * actions. */
#ifndef QCTL_CODEL_H
#define QCTL_CODEL_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_codel_params {
    double target;       /* the target wait, s (> 0: fixed; 0: adaptive) */
    double floor;        /* least adaptive target; 0.005 */
    double k;            /* adaptive target in no-load latencies; 1 */
    double fallback;     /* adaptive target before L0 is known; 0.05 */
    double interval;     /* CoDel's interval, s; 0.1 */
} qc_codel_params;

typedef struct qc_codel {
    qc_codel_params p;
    double target;   /* in force */
    double interval; /* in force */
    double q_min;    /* least wait of a request let in since the last tick */
    int standing;    /* short deadlines and LIFO */
} qc_codel;

/* Defaults above. */
void qc_codel_params_init(qc_codel_params *p);
/* Checks p (QC_ERANGE naming the field); the queue starts not standing
 * with the fixed target, or the fallback. */
int qc_codel_init(qc_codel *c, const qc_codel_params *p, qc_err *err);
/* The no-load latency measured now (not > 0: not known): sets the target
 * and interval in force. Returns the target. */
double qc_codel_set_noload(qc_codel *c, double l0);
/* The oldest waiting request has waited head_wait (NaN or < 0: the queue
 * is empty). Returns 1 when the queue begins to stand now: the plant then
 * refuses every waiting request for which qc_codel_expired holds. */
int qc_codel_head(qc_codel *c, double head_wait);
/* A request was let in after waiting `waited` (0: at once, a slot was
 * free when it came). */
void qc_codel_admitted(qc_codel *c, double waited);
/* The end of a control interval, the oldest waiting request having waited
 * head_wait (as qc_codel_head). Leaves the standing state if a request
 * got in at once during the interval, enters it by qc_codel_head. Returns 1 if
 * the queue stands after it (the plant refuses what qc_codel_expired
 * says). */
int qc_codel_tick(qc_codel *c, double head_wait);
/* Whether a request that waited `waited` is refused now: standing and
 * waited past the target. */
int qc_codel_expired(const qc_codel *c, double waited);
/* A request's deadline: its own (`deadline`), or the target while the
 * queue stands if that is shorter. */
double qc_codel_deadline(const qc_codel *c, double deadline);
/* 1: take the newest waiting request first (the queue stands, or the
 * oldest waiting request has waited head_wait past the target; NaN: the
 * queue is empty); 0: FIFO. */
int qc_codel_lifo(const qc_codel *c, double head_wait);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
