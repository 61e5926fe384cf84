/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simpool.h (not installed): what `qctl sim pool` makes of a run of
 * qc_pool_run: the JSON summary (one schema for --json, --report, the
 * sweep and Python), the table, the comparison of policies, and the rows
 * of its series and plots. The command (src/cli/sim_pool.c) is its flag
 * table and a call. */
#ifndef QCTL_APP_SIMPOOL_H
#define QCTL_APP_SIMPOOL_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "qctl/pool.h"
#include "qctl/results.h"
#include "simout.h"

/* What the command line said that the run does not hold: the library's
 * (qctl/results.h). */
typedef qc_pool_json_opts qc_app_pool_opts;

/* --compare: the run's own policy first, then the others on the same
 * input and seed (qc_pool_compare). */
typedef struct qc_app_pool_cmp {
    size_t n;
    qc_pool_policy pol[QC_POOL_NPOLICIES];
    const qc_pool_result *r[QC_POOL_NPOLICIES];
    qc_pool_comparison other;
} qc_app_pool_cmp;

qc_app_support qc_app_pool_support(const qc_pool_result *r, const qc_app_pool_opts *o);
json_t *qc_app_pool_json(const qc_pool_params *p, const qc_pool_result *r,
                         const qc_app_pool_opts *o, double elapsed);
void qc_app_pool_table(const qc_pool_params *p, const qc_pool_result *r,
                       const qc_app_pool_opts *o);
/* CSV of replication 1's series (ctx: the qc_pool_result). */
void qc_app_pool_series_rows(FILE *fp, const void *ctx);
/* The plot's series (ctx: the qc_pool_result): the series' columns,
 * averaged over consecutive points into at most QC_APP_PLOT_POINTS rows
 * when it is longer, so that a long run is drawn readably. */
#define QC_APP_PLOT_POINTS 500
void qc_app_pool_plot_rows(FILE *fp, const void *ctx);
/* P(T > t) at the histogram's bucket edges (ctx: the qc_pool_result). */
void qc_app_pool_ccdf_rows(FILE *fp, const void *ctx);
json_t *qc_app_pool_comparison_json(const qc_app_pool_cmp *c);
void qc_app_pool_comparison_table(const qc_app_pool_cmp *c, double level);
/* gnuplot data: policy, average cost, holding cost, interval (ctx: the cmp). */
void qc_app_pool_comparison_rows(FILE *fp, const void *ctx);

#endif
