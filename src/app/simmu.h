/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simmu.h (not installed): what `qctl sim maxusers` makes of the
 * replications of qc_mu_run_reps: each step's settling time, overshoot
 * and steady-state error over replications with their intervals, the
 * JSON summary (one schema for --json, --report, the sweep and Python),
 * the table, and the rows of replication 1's series. The command
 * (src/cli/sim_maxusers.c) is its flag table and a call. */
#ifndef QCTL_APP_SIMMU_H
#define QCTL_APP_SIMMU_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "qctl/maxusers.h"
#include "qctl/results.h"
#include "simout.h"

/* Step metrics and saturation over replications (qctl/results.h). */
typedef qc_mu_rep_stats qc_app_mu_stats;

/* What the outputs are made of. */
typedef struct qc_app_mu_out {
    const qc_mu_run_params *p;
    const qc_mu_run_result *r;
    const qc_app_mu_stats *st;
    const char *ctl;
    const qc_app_support *sup; /* whether the run supports its intervals */
} qc_app_mu_out;

/* One replication's result, in replication order: its step metrics into
 * st; replication 0's result kept whole in *res0 (series, plots). */
typedef struct qc_app_mu_each_ctx {
    qc_app_mu_stats *st;
    qc_mu_run_result *res0;
} qc_app_mu_each_ctx;

/* qc_mu_rep_fn over a qc_app_mu_each_ctx: replication k's step metrics
 * into st, replication 0's result kept in *res0. */
int qc_app_mu_each(void *ctx, unsigned k, qc_mu_run_result *rk);
void qc_app_mu_stats_free(qc_app_mu_stats *st);
/* The JSON summary; ctl: the controller's name. */
json_t *qc_app_mu_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                       const qc_app_mu_stats *st, const char *ctl, const qc_app_support *sup);
/* The table on stdout (ctx: a qc_app_mu_out). */
void qc_app_mu_table(const void *ctx);
/* CSV of replication 1, a row per sample instant (ctx: a qc_app_mu_out). */
void qc_app_mu_series_rows(FILE *fp, const void *ctx);

#endif
