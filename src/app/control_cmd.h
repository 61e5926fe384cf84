/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control_cmd.h: `qctl control` between its flags (cli/control_cli.c)
 * and the library's controller (live/control.h): the parsed flags, their
 * one check (the table's --check calls it, and so does the run) and the
 * run with its reloads on the command's loop (control_cmd.c). */
#ifndef QCTL_APP_CONTROL_CMD_H
#define QCTL_APP_CONTROL_CMD_H

#include "cmdline.h"
#include "flags.h"
#include "live/control.h"
#include "live_serve.h"

typedef struct control_cli {
    qc_control_params o;
    const char *reference, *levels, *sensor, *model;
    int controller, aw, excite, help, gain_sign;
    int argc;
    char **argv; /* the command line as given (getopt reorders a copy) */
    void *words; /* the --config words its strings point into (cli_flags_config_detach) */
} control_cli;

/* The defaults of *c before its flags are read. */
void control_defaults(control_cli *c);

/* Every check the controller makes before it starts (the table's
 * --check). */
int control_validate(void *ctx);

/* `qctl control`: parse (control_cli's), then the controller on the
 * command's loop until a signal or --duration has drained it; SIGHUP
 * parses the same command line again. */
int control_main(int argc, char **argv, cli_reparse_fn parse);

#endif
