/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_cmd.h: `qctl fit` between its flags (cli/fit.c) and the library:
 * the parsed flags and what the check reads before the run (the column,
 * or the capture and its groups), the check (the table's --check calls
 * it, and so does the run) and the run: a capture's models (fit_cmd.c)
 * or one sample's families (fit_column.c). */
#ifndef QCTL_APP_FIT_CMD_H
#define QCTL_APP_FIT_CMD_H

#include "app/fit_run.h"
#include "flags.h"
#include "qctl/dist.h"
#include "qctl/fit.h"
#include "qctl/trace.h"
#include "qctl/traffic.h"
#include "traffic_cmd.h"

typedef struct fit_cli {
    qc_app_fit_params p;
    const cli_flag *flags;
    qc_dist col_emp; /* --column: the sample read by the check */
    qc_fit_data col_data;
    int col_loaded, trace_loaded;
    qc_trace tr; /* or the capture, and its groups */
    cli_groups groups;
} fit_cli;

/* Every check before the fits, --check or not: the library's one check,
 * then the inputs read (the column; the capture, its labels and groups),
 * so that a file the run would refuse is refused here alike. */
int fit_check(void *ctx);
/* The capture's groups fitted one by one, then the outputs; or the
 * column's fit. An exit status. */
int fit_run(void *ctx, int argc, char **argv);
/* What the check and the run held. */
void fit_cli_free(fit_cli *f);

/* `fit --column FILE[:COL]`, read: the column into *emp by the empirical
 * spec's reader and the data the fits take into *d; 0 or the exit status
 * after a message. */
int fit_column_load(const char *arg, qc_dist *emp, qc_fit_data *d);
/* The families fitted to the column read by fit_column_load (emp, d,
 * both freed here), the best printed as a qc_dist spec. */
int fit_column(const char *arg, const qc_dist *emp, const qc_fit_data *d,
               const qc_fit_params *fo, unsigned families, int json, int spec_only);

#endif
