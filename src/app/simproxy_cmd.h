/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simproxy_cmd.h: `qctl sim proxy` between its flags (cli/sim_proxy.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simproxy_cmd.c). */
#ifndef QCTL_APP_SIMPROXY_CMD_H
#define QCTL_APP_SIMPROXY_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simproxy.h"
#include "cmdline.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/output.h"
#include "qctl/proxysim.h"
#include "report_cli.h"
#include "result.h"

#define NCLS QC_PSIM_CLASSES_MAX

typedef struct psim_cli {
    qc_psim_params p;
    const char *limiter, *route, *discipline, *service, *arrival, *think, *overhead,
        *transit;
    unsigned users;
    double limit, minl, maxl, ref, gain, eps, alpha, backoff, timeout;
    unsigned minc;
    cli_strs classes, c_arr, c_users, c_think, c_svc, candidates;
    const char *v_classes[NCLS], *v_arr[NCLS], *v_users[NCLS], *v_think[NCLS], *v_svc[NCLS],
        *v_cand[NCLS];
    char names[NCLS][64];
    const char *arr_spec[NCLS], *think_spec[NCLS], *svc_spec[NCLS];
    qc_arrivals arr[NCLS];
    qc_dist thk[NCLS], csvc[NCLS], svc, over, trans;
    cli_outputs out;
    int quiet;
    double series_dt;
    const cli_flag *flags;
    unsigned given[80];
} psim_cli;

int psim_validate(void *ctx);
int psim_run(void *ctx, int argc, char **argv);

#endif
