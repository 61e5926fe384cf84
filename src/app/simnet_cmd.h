/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simnet_cmd.h: `qctl sim network` between its flags (cli/sim_network.c) and the
 * library: the parsed flags, their one check (the table's --check calls
 * it, and so does the run) and the run with its outputs (simnet_cmd.c). */
#ifndef QCTL_APP_SIMNET_CMD_H
#define QCTL_APP_SIMNET_CMD_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/simnet.h"
#include "cmdline.h"
#include "flags.h"
#include "qctl/network.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "result.h"

typedef struct net_cli {
    qc_network_params p;
    qc_network net;
    const char *file, *warm;
    cli_outputs out;
    int quiet, analytic, loaded;
    const cli_flag *flags;
    unsigned given[64];
} net_cli;

int net_validate(void *ctx);
int net_run(void *ctx, int argc, char **argv);

#endif
