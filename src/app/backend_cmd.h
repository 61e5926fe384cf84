/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backend_cmd.h: `qctl backend` between its flags (cli/backend_cli.c)
 * and the library's backend: the parsed flags, their one check (the
 * table's --check calls it, and so does the run) and the run on the
 * command's loops (backend_cmd.c). */
#ifndef QCTL_APP_BACKEND_CMD_H
#define QCTL_APP_BACKEND_CMD_H

#include "cmdline.h"
#include "flags.h"
#include "live/live.h"

/* What the backend's flags set: the options, and the specs read into
 * them by backend_validate. */
typedef struct backend_cli {
    qc_backend_params o;
    const char *service, *setup;
    unsigned threads;
    int quiet;
} backend_cli;

/* Every check the backend's start makes (the table's --check). */
int backend_validate(void *ctx);

/* `qctl backend` once its flags are read (rc: the parse's): the backend
 * until a signal; what the flags and the check made of b freed. */
int backend_main(backend_cli *b, int rc);

#endif
