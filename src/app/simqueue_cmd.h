/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simqueue_cmd.h: `qctl sim queue` between its flags (cli/sim_queue.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simqueue_cmd.c). */
#ifndef QCTL_APP_SIMQUEUE_CMD_H
#define QCTL_APP_SIMQUEUE_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simqueue.h"
#include "cmdline.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/exact.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/queue.h"
#include "report_cli.h"
#include "result.h"

typedef struct opts {
    qc_app_queue_opts a; /* what the summary shows of the command line */
    cli_outputs out;     /* --json, --output, --series, --plot, --report */
    int quiet;
    double series_dt;
} opts;

typedef struct queue_cli {
    qc_queue_params p;
    opts o;
    const char *warm, *capacity;
    qc_arrivals arr;
    qc_dist svc;
    const cli_flag *flags;
    unsigned given[64];
} queue_cli;

int queue_validate(void *ctx);
int queue_run(void *ctx, int argc, char **argv);

#endif
