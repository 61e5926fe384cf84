/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load_cmd.h: `qctl load` between its flags (cli/load_cli.c) and the
 * library's load generator and replay: the parsed flags, their one check
 * (the table's --check calls it, and so does the run) and the run with
 * its summary (load_cmd.c). */
#ifndef QCTL_APP_LOAD_CMD_H
#define QCTL_APP_LOAD_CMD_H

#include "cmdline.h"
#include "flags.h"
#include "live/live.h"
#include "qctl/arrivals.h"

typedef struct load_args {
    qc_load_params o;
    const char *arrival, *schedule, *traffic, *think, *session, *off, *udp, *replay;
    double rate, max_errors;
    unsigned traffic_users;
    int per_session, pattern, json, quiet;
    /* what load_validate reads the specs into, for the run */
    qc_dist think_d, session_d, off_d;
    qc_arrivals arr;
    char spec[512];
} load_args;

/* Every check the run makes before it sends (the table's --check). */
int load_validate(void *ctx);

/* `qctl load` once its flags are read into a (rc: the parse's): the load
 * or the replay, its summary; what the check made of a freed. */
int load_main(load_args *a, int rc);

#endif
