/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simpool_cmd.h: `qctl sim pool` between its flags (cli/sim_pool.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simpool_cmd.c). */
#ifndef QCTL_APP_SIMPOOL_CMD_H
#define QCTL_APP_SIMPOOL_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simpool.h"
#include "cmdline.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/pool.h"
#include "report_cli.h"
#include "result.h"

typedef struct opts {
    qc_app_pool_opts a; /* what the summary shows of the command line */
    cli_outputs out;    /* --json, --output, --series, --plot, --report */
    int quiet, compare;
    double series_dt;
} opts;

typedef struct pool_cli {
    qc_pool_params p;
    opts o;
    const char *trans, *policy, *idle_timer;
    char idle[32];
    qc_arrivals arr;
    qc_dist svc, wup;
    const cli_flag *flags;
    unsigned given[64];
} pool_cli;

int pool_validate(void *ctx);
int pool_run(void *ctx, int argc, char **argv);

#endif
