/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simmu_cmd.h: `qctl sim maxusers` between its flags (cli/sim_maxusers.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simmu_cmd.c). */
#ifndef QCTL_APP_SIMMU_CMD_H
#define QCTL_APP_SIMMU_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simmu.h"
#include "cmdline.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/maxusers.h"
#include "qctl/output.h"
#include "qctl/stats.h"
#include "report_cli.h"
#include "result.h"

typedef struct mu_cli {
    qc_mu_run_params p;
    const char *spec[5], *ref, *mu, *sensor_model;
    cli_outputs out; /* --json, --series, --plot, --report */
    double ki, kp, kaw, umax, level;
    int quiet, ctl, aw;
    int allow_short; /* --allow-short */
    unsigned reps, jobs;
    qc_sched_point refs[64], mus[64];
    size_t nref, nmu;
    qc_dist d[5];
    const cli_flag *flags;
    unsigned given[64];
} mu_cli;

int sensor_model(qc_mu_run_params *p, const char *path);
int mu_validate(void *ctx);
int mu_run(void *ctx, int argc, char **argv);

#endif
