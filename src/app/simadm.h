/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simadm.h (not installed): what `qctl sim admission` makes of the
 * runs of qc_mc_run (one per policy, on the same random numbers): the
 * JSON summary (one schema for --json, --report, the sweep and Python),
 * the tables and the series rows. The command (src/cli/sim_admission.c)
 * is its flag table and a call. */
#ifndef QCTL_APP_SIMADM_H
#define QCTL_APP_SIMADM_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "qctl/multiclass.h"
#include "simout.h"

/* The scenario and the file it came from, which the outputs name. */
typedef struct qc_app_adm_scenario {
    qc_mc_scenario m;
    const char *path;
} qc_app_adm_scenario;

/* A class's role: "best-effort", "candidate" or "admitted". */
const char *qc_app_adm_role(const qc_mc_run_class *c);

/* The JSON summary of npol policies' results res[0..npol) (p: the first's
 * parameters). */
json_t *qc_app_adm_json(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
                        const qc_mc_run_result *res, const qc_mc_policy *pols, unsigned npol,
                        double elapsed);
/* One policy's table, and the table of several, on stdout. */
void qc_app_adm_table_one(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
                          const qc_mc_run_result *r, const qc_app_support *sup);
void qc_app_adm_table(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
                      const qc_mc_run_result *r, const qc_mc_policy *pols, unsigned npol,
                      const qc_app_support *sup);
/* CSV of replication 1 of the first policy, a row per busy cycle. */
void qc_app_adm_series_rows(FILE *fp, const qc_app_adm_scenario *s, const qc_mc_run_result *r);
/* Marks every interval object of the summary on a short run
 * (qc_result_mark_all, which bounds the depth itself: depth is unused). */
void qc_app_adm_mark_short(json_t *o, const qc_app_support *sup, int depth);

#endif
