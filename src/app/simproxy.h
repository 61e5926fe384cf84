/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simproxy.h (not installed): what `qctl sim proxy` makes of a run of
 * qc_psim_run: the JSON summary (one schema for --json, --report, the
 * sweep and Python), the table, and the rows of its series. The command
 * (src/cli/sim_proxy.c) is its flag table and a call. */
#ifndef QCTL_APP_SIMPROXY_H
#define QCTL_APP_SIMPROXY_H

#include <jansson.h>
#include <stdio.h>

#include "qctl/proxysim.h"
#include "simout.h"

/* The JSON summary; service, overhead and transit: the specs as given
 * (overhead and transit may be NULL); elapsed: the run's wall-clock
 * seconds. */
json_t *qc_app_psim_json(const qc_psim_params *p, const char *service, const char *overhead,
                         const char *transit, const qc_psim_result *r, double elapsed);
/* The summary as a table on stdout. */
void qc_app_psim_table(const qc_psim_params *p, const char *service, const qc_psim_result *r);
/* CSV of replication 1's limit, requests in flight and waiting over time. */
void qc_app_psim_series_rows(FILE *fp, const qc_psim_result *r);

#endif
