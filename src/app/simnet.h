/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simnet.h (not installed): what `qctl sim network` makes of a run of
 * qc_network_run and of qc_network_exact_solve: the JSON summary (one
 * schema for --json, --report, the sweep and Python) and the table. The
 * command (src/cli/sim_network.c) is its flag table and a call. */
#ifndef QCTL_APP_SIMNET_H
#define QCTL_APP_SIMNET_H

#include <jansson.h>

#include "qctl/network.h"
#include "simout.h"

/* What the outputs are made of. */
typedef struct qc_app_net_out {
    const qc_network *net;
    const qc_network_params *p;
    const char *file; /* the network's file, as given */
    qc_network_result r;
    qc_network_exact ex;
    int simulated; /* 0: the exact solution alone (--analytic) */
} qc_app_net_out;

/* The JSON summary; elapsed: the run's wall-clock seconds. */
json_t *qc_app_net_json(const qc_app_net_out *o, double elapsed);
/* The table on stdout (ctx: a qc_app_net_out). */
void qc_app_net_table(const void *ctx);

#endif
