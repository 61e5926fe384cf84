/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/mdp_result.h (not installed): the outputs of `qctl mdp removable`
 * from a solved model, written once for every front (the command's
 * --json, --output and report, the sweep's metrics). */
#ifndef QCTL_APP_MDP_RESULT_H
#define QCTL_APP_MDP_RESULT_H

#include <jansson.h>

#include "qctl/removable.h"

/* The JSON summary of the solved model r of p: the model (with the energy
 * price per unit of energy, price), the policy and its exact performance,
 * the structural checks, the comparison with simple policies and the
 * run's wall-clock seconds (elapsed). A new object, the caller's. */
json_t *qc_app_mdp_json(const qc_removable_params *p, const qc_removable_result *r,
                        double price, double elapsed);

/* The same as the command's table on standard output. */
void qc_app_mdp_print(const qc_removable_params *p, const qc_removable_result *r);

#endif
