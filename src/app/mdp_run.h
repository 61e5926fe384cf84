/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/mdp_run.h (not installed): the parameters of `qctl mdp removable`
 * as one struct with its defaults and its one check, which the command's
 * start and its --check both call, so that they answer alike; a message
 * names the field ("rates: element 2 ...") and the command says it with
 * its flag. */
#ifndef QCTL_APP_MDP_RUN_H
#define QCTL_APP_MDP_RUN_H

#include <stdint.h>

#include "qctl/error.h"
#include "qctl/removable.h"

typedef struct qc_app_mdp_params {
    qc_removable_params p;     /* the model and the solver's settings as
                                * given (power figures unscaled) */
    qc_removable_params solve; /* what check resolves from them for the
                                * solver: the lists parsed, the power
                                * figures times price, the method, levels,
                                * max_states and max_iter */
    const char *rates;     /* "R1,R2,..": service rates, strictly rising */
    const char *power;     /* "P1,P2,..": one power figure per rate */
    double price;          /* multiplies every power figure (default 1) */
    uint64_t levels;       /* queue lengths 0..levels exactly; 0: search */
    uint64_t max_states;   /* most states of the truncation; 0: default */
    uint64_t max_sweeps;   /* most value-iteration sweeps; 0: default */
    int method;            /* qc_removable_method (default policy iteration) */
    int quiet;             /* no notices (the caller's) */
} qc_app_mdp_params;

/* value iteration's sweeps with --method both unless max_sweeps says:
 * the cross-check is made only when it converges this quickly */
#define QC_APP_MDP_QUICK_SWEEPS 20000

/* The defaults: holding cost 1, price 1, policy iteration. */
void qc_app_mdp_params_init(qc_app_mdp_params *a);

/* The one check, and the settings it resolves into a->solve: 0, or
 * QC_EINVAL with a message naming the field. a->p is left as given, so
 * that calling it again gives the same a->solve. */
int qc_app_mdp_params_check(qc_app_mdp_params *a, qc_err *err);

/* What the solver's result leaves to a reader's judgement, as lines
 * "qctl: mdp removable: ...\n" (empty when nothing); a static buffer. */
const char *qc_app_mdp_notices(const qc_removable_params *p, const qc_removable_result *r);

#endif
