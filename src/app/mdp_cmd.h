/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_cmd.h: `qctl mdp removable` between its flags
 * (cli/mdp_removable.c) and the library: the parsed flags, their check
 * (the table's --check calls it, and so does the run) and the run with
 * its outputs (mdp_cmd.c). */
#ifndef QCTL_APP_MDP_CMD_H
#define QCTL_APP_MDP_CMD_H

#include "app/mdp_run.h"
#include "flags.h"
#include "result.h"

typedef struct mdp_cli {
    qc_app_mdp_params p;
    cli_outputs out; /* --json, --output, --plot, --report */
    const cli_flag *flags;
} mdp_cli;

/* Every check the run makes before solving: the library's one check,
 * then the memory the chain would take. */
int mdp_check(void *ctx);
/* The solver and the outputs; an exit status. */
int mdp_run(void *ctx, int argc, char **argv);

#endif
