/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/aimd.h: the AIMD concurrency limiter (Netflix concurrency-limits,
 * AIMDLimit) as a step object, run by the live limiter
 * (qc_limiter, algo "aimd") and by `qctl sim admission --policy aimd`.
 *
 * A request is let in iff the requests in flight are fewer than
 * floor(limit). Per sample (a completed request, or in the live limiter
 * one control interval's mean latency and peak in flight):
 *
 *     dropped, or rtt > timeout:        limit = limit * backoff
 *     else if inflight * 2 >= limit:    limit = limit + 1
 *     (else: the application, not the limit, bounds the concurrency)
 *     limit = clamp(limit, min_limit, max_limit)
 *
 * A tick (rtt = NAN, not dropped) changes nothing: AIMD has no timers.
 * Defaults (AIMDLimit's): initial 20, min 20, max 200, backoff 0.9,
 * timeout 5 (in the caller's unit of time; AIMDLimit's is seconds).
 *
 * Plain values; nothing to free. Errors: 0 or QC_EINVAL naming the
 * parameter. */
#ifndef QCTL_AIMD_H
#define QCTL_AIMD_H

#include "qctl/api.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#include "qctl/error.h"

struct qc_lim_sample;
struct qc_lim_act;

typedef struct qc_lim_aimd_params {
    double initial_limit, min_limit, max_limit;
    double backoff; /* in (0, 1) */
    double timeout; /* latency counted as a drop, > 0 */
} qc_lim_aimd_params;

typedef struct qc_lim_aimd {
    qc_lim_aimd_params p;
    double limit;
} qc_lim_aimd;

void qc_lim_aimd_params_init(qc_lim_aimd_params *p);
/* Checks p (1 <= min <= initial <= max finite, backoff in (0, 1),
 * timeout > 0) and starts at the initial limit. */
int qc_lim_aimd_init(qc_lim_aimd *c, const qc_lim_aimd_params *p, qc_err *err);
/* One sample (see above); out->next_tick is INFINITY. */
int qc_lim_aimd_step(qc_lim_aimd *c, const struct qc_lim_sample *in, struct qc_lim_act *out);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
