/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simadm_cmd.h: `qctl sim admission` between its flags (cli/sim_admission.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simadm_cmd.c). */
#ifndef QCTL_APP_SIMADM_CMD_H
#define QCTL_APP_SIMADM_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simadm.h"
#include "cmdline.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"
#include "qctl/dist.h"
#include "qctl/multiclass.h"
#include "qctl/output.h"

typedef qc_app_adm_scenario scenario;

typedef struct adm_cli {
    qc_mc_run_params p;
    const char *scen, *pol, *disc;
    cli_outputs out; /* --json, --output, --series, --plot, --report */
    double eps, alpha, horizon, warm, win;
    int quiet;
    int allow_short; /* --allow-short */
    scenario s;
    qc_mc_policy pols[7];
    unsigned npol;
} adm_cli;

void scenario_free(scenario *s);
int adm_validate(void *ctx);
int adm_run(void *ctx, int argc, char **argv);

#endif
