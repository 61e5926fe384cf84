/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/sfq.h: start-time fair queueing by class weight, the one rule
 * that orders the classes of the simulated weighted server (`qctl sim
 * admission --discipline weighted`) and the class queues of the live
 * proxy (`qctl proxy --class ...`).
 *
 * Each class k has a pass: the start tag of its next request. The
 * scheduler's virtual time vt is the pass of the request started last.
 *
 *   a request of class k joins an empty class queue:
 *       pass_k = max(pass_k, vt)      (idling earns no credit)
 *   choosing the next request to start:
 *       the backlogged class with the least pass (ties: lowest index)
 *   starting a request of class k:     pass_k = max(pass_k, vt); vt = pass_k
 *       (a request let in at once, without waiting in a queue, joins and
 *       starts in the same breath)
 *   charging it, with cost c and the class's weight w > 0:
 *       pass_k += c / w               (w <= 0: an infinite charge, the
 *                                      class goes after every other)
 *
 * How cost is charged. A request is charged once, before the next
 * choice, with the best cost known at that moment. The simulated server
 * runs one request at a time, so the next choice comes at its departure:
 * it is charged then, with its actual service time and the weight in
 * force at that time. The proxy chooses while requests are in flight, so
 * it must charge at the start, and a request's time at the backend is
 * known only once it is over: it charges the class's running mean of
 * that time (its estimate). Both are the same rule; only what is known
 * differs. See docs/architecture.md.
 *
 * Plain values, no allocation; the caller keeps the queues. */
#ifndef QCTL_SFQ_H
#define QCTL_SFQ_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_SFQ_MAX_CLASSES 32

typedef struct qc_sfq {
    unsigned n;
    double vt;                       /* pass of the request started last */
    double pass[QC_SFQ_MAX_CLASSES]; /* next start tag of each class */
} qc_sfq;

/* n classes (1..QC_SFQ_MAX_CLASSES), every pass and vt at 0. Returns 0,
 * or QC_EINVAL for a bad n (q unchanged; err set, err may be NULL). */
int qc_sfq_init(qc_sfq *q, unsigned n, qc_err *err);

/* A request of class k joins k's empty queue. */
void qc_sfq_join(qc_sfq *q, unsigned k);

/* The class to start next among those whose bit is set in backlogged
 * (bit k: class k has a request waiting), or -1 when none is. */
int qc_sfq_pick(const qc_sfq *q, uint32_t backlogged);

/* A request of class k starts: pass_k = max(pass_k, vt), vt = pass_k. */
void qc_sfq_start(qc_sfq *q, unsigned k);

/* Charges class k for one request: pass_k += cost / weight. */
void qc_sfq_charge(qc_sfq *q, unsigned k, double cost, double weight);

/* Class k's charge per request is now quantum (its cost over its weight,
 * which a controller may have moved): pass_k = min(pass_k, vt + quantum).
 * With fixed weights a backlogged class is never more than one request's
 * charge ahead of vt (it is charged only when its pass is the least);
 * a lead earned in the units of an older, smaller weight would otherwise
 * hold the class back for as many requests as that lead is worth at the
 * new weight: priorities that climb by orders of magnitude froze the
 * order of the classes at the moment they climbed (whichever class was
 * behind then was served first for the rest of the run). quantum <= 0 or
 * not finite: no change. */
void qc_sfq_reweigh(qc_sfq *q, unsigned k, double quantum);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
