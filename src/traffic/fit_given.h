/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_given.h: qc_fit_all with some families fitted already (internal to
 * src/traffic). The idle-threshold search fits the lognormal and its
 * mixtures to all the gaps; when it finds no idle population the in-session
 * gaps are those same gaps, and the marginal fit takes these results over
 * instead of repeating the EM. */
#ifndef QCTL_TRAFFIC_FIT_GIVEN_H
#define QCTL_TRAFFIC_FIT_GIVEN_H

#include "qctl/fit.h"

/* qc_fit_all (qctl/fit.h), except that each family f in given_mask is
 * taken from given[f], a result of qc_fit_one on the same d with the same
 * options but for o->gof: the result moves into r[f] (given[f] is left
 * zeroed) and its KS and AD statistics are computed here when o->gof. */
int qc__fit_all_given(const qc_fit_data *d, unsigned families, const qc_fit_params *o,
                      qc_fit_result *r, qc_fit_family *order, size_t *nranked,
                      qc_fit_result *given, unsigned given_mask, qc_err *err);

#endif
