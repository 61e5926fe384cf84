/* SPDX-License-Identifier: GPL-3.0-or-later */
/* copula_uv.h: the Markov copula from pseudo-observations already taken
 * (internal to src/traffic). A traffic fit with a report needs the
 * pseudo-observations of sizes and gaps for the report as well as for the
 * copula: ranking a million values twice is the costliest part of the
 * copula, so they are taken once and handed here. */
#ifndef QCTL_TRAFFIC_COPULA_UV_H
#define QCTL_TRAFFIC_COPULA_UV_H

#include "qctl/copula.h"

/* qc_copula_build (qctl/copula.h) given u = qc_copula_pseudo(a) and
 * v = qc_copula_pseudo(b) instead of a and b. */
int qc__copula_build_uv(qc_copula *c, const double *u, const double *v, const uint8_t *mark,
                        size_t n, size_t max_points, qc_err *err);

#endif
