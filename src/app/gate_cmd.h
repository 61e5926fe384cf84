/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cmd.h: `qctl gate` between its flags (cli/gate_cli.c) and the
 * library's gates (live/gate.h): the parsed flags, their one check (the
 * table's --check calls it, and so does the run) and the run with its
 * reloads on the command's loops (gate_cmd.c). */
#ifndef QCTL_APP_GATE_CMD_H
#define QCTL_APP_GATE_CMD_H

#include "cmdline.h"
#include "flags.h"
#include "live/gate.h"
#include "live_serve.h"

/* What the gate's flags set: the options, and the flags turned into them
 * by gate_validate. */
typedef struct gate_cli {
    qc_gate_params o;
    const char *levels, *reference;
    double buffer;
    int aw;
    void *words; /* the --config words its strings point into (cli_flags_config_detach) */
    int log_json; /* --log-format json (gate_log_json once this configuration runs) */
    unsigned workers; /* --workers (0: the usable CPUs) */
    int reloading; /* a reload: the running gate holds the ports, no dry-run bind */
} gate_cli;

/* --quiet: the gate's info lines left out, warnings and errors kept. */
extern int gate_quiet;

/* The defaults of *g before its flags are read (reload: a re-read of the
 * running gate's command line). */
void gate_defaults(gate_cli *g, int reload);

/* Every check the gate makes before it starts (the table's --check). */
int gate_validate(void *ctx);

/* `qctl gate`: parse (gate_cli's), then the gates on the command's loops
 * until a signal or --duration has drained them; a reload (SIGHUP)
 * parses the same command line again. */
int gate_main(int argc, char **argv, cli_reparse_fn parse);

#endif
