/* SPDX-License-Identifier: GPL-3.0-or-later */
/* aimd.c: the AIMD concurrency limiter (Netflix AIMDLimit; the rule is in
 * qctl/aimd.h). Additive increase only while the limit is being used
 * (at least half of it in flight): raising a limit nobody reaches would
 * only let a later burst through. */
#include "qctl/aimd.h"

#include <math.h>

#include "qctl/limiters.h"

void qc_lim_aimd_params_init(qc_lim_aimd_params *p)
{
    *p = (qc_lim_aimd_params){
        .initial_limit = 20, .min_limit = 20, .max_limit = 200, .backoff = 0.9, .timeout = 5};
}

int qc_lim_aimd_init(qc_lim_aimd *c, const qc_lim_aimd_params *p, qc_err *err)
{
    if (!(p->min_limit >= 1 && p->min_limit <= p->max_limit) || !isfinite(p->max_limit))
        return qc_err_set(err, QC_EINVAL, "aimd: limits [%g, %g] are not an interval >= 1",
                          p->min_limit, p->max_limit);
    if (!(p->initial_limit >= p->min_limit && p->initial_limit <= p->max_limit))
        return qc_err_set(err, QC_EINVAL, "aimd: initial limit %g is outside [%g, %g]",
                          p->initial_limit, p->min_limit, p->max_limit);
    if (!(p->backoff > 0 && p->backoff < 1))
        return qc_err_set(err, QC_EINVAL, "aimd: backoff %g is not in (0, 1)", p->backoff);
    if (!(p->timeout > 0))
        return qc_err_set(err, QC_EINVAL, "aimd: timeout %g is not > 0", p->timeout);
    c->p = *p;
    c->limit = p->initial_limit;
    return 0;
}

int qc_lim_aimd_step(qc_lim_aimd *c, const qc_lim_sample *in, qc_lim_act *out)
{
    out->next_tick = INFINITY;
    double limit = c->limit;
    if (in->dropped || in->rtt > c->p.timeout)
        limit *= c->p.backoff;
    else if (!isnan(in->rtt) && (double)in->inflight * 2 >= limit)
        limit += 1;
    limit = limit < c->p.min_limit ? c->p.min_limit : limit > c->p.max_limit ? c->p.max_limit : limit;
    c->limit = limit;
    out->limit = limit;
    return 0;
}
