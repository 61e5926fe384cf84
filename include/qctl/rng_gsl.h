/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/rng_gsl.h: a qc_rng stream (qctl/rng.h) as a GSL generator, so that
 * every GSL variate draws from the stream. Separate from qctl/rng.h so that
 * code using only the streams (the limiters, for one) needs no GSL header. */
#ifndef QCTL_RNG_GSL_H
#define QCTL_RNG_GSL_H

#include <gsl/gsl_rng.h>

#include "qctl/api.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* The GSL type of qctl's generator (name "qc_xoshiro256ss"). */
extern const gsl_rng_type *qc_rng_type;

/* The GSL view of r (re-pointed at r's own state, so it is valid even after
 * r was copied). */
static inline gsl_rng *qc_rng_gsl(qc_rng *r)
{
    r->g.type = qc_rng_type;
    r->g.state = r->s;
    return (gsl_rng *)(void *)&r->g; /* same layout: checked in rng.c */
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
