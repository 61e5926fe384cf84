/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_network.c: `qctl sim network FILE.json`, a network of queues from
 * the command line. Parses flags, loads the network (qc_network_load),
 * runs qc_network_run and qc_network_exact_solve, writes the summary.
 * --analytic prints the analytic solution alone. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simnet_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates a network of queues read from FILE.json (stations, open and\n"
    "closed classes, routing; docs/networks.md) and prints per station, per\n"
    "class and end to end the estimates with their confidence intervals, the\n"
    "exact value beside each where theory gives one (Jackson, BCMP, MVA).\n";

static const char epilogue[] =
    "\n"
    "FILE.json may also be given as --network FILE.json (e.g. in --config or\n"
    "a sweep). --analytic solves without simulating: the exact product form\n"
    "or MVA, a station's closed form, or balanced job bounds.";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_* sets every field before the flags are read. */
static net_cli Q;
static int help;

static const cli_flag flags[] = {
    {"network", CLI_STR, &Q.file, .arg = "FILE.json",
     .help = "the network (or as the first word after 'network')"},
    {"customers", CLI_U64, &Q.p.customers, .arg = "N",
     .help = "customers leaving the network measured per\nreplication (default 100000)",
     .zero_unset = 1},
    CLI_ROW_TIME(&Q.p.horizon),
    {"warmup", CLI_STR, &Q.warm, .arg = "W",
     .help = "auto (default: MSER), or customers (with --customers)\nor time (with --time) "
             "simulated before measuring"},
    {"reps", CLI_UINT, &Q.p.reps, .arg = "R",
     .help = "independent replications (default 1: batch means)"},
    {"precision", CLI_DOUBLE, &Q.p.precision, .arg = "REL",
     .help = "double the replications until every mean's half-width\nis at most REL of it",
     .zero_unset = 1},
    {"max-reps", CLI_UINT, &Q.p.max_reps, .arg = "R",
     .help = "with --precision: most replications (default 10000)", .zero_unset = 1},
    {"maxusers-reference", CLI_DOUBLE, &Q.p.ctl_reference, .arg = "R",
     .help = "the front's MaxUsers reference (s) instead of the\nfile's control.maxusers.reference "
             "(e.g. to sweep it)",
     .zero_unset = 1},
    {"analytic", CLI_BOOL, &Q.analytic,
     .help = "no simulation: the analytic solution alone (exact, or\nbalanced job bounds)"},
    CLI_ROW_JOBS(&Q.p.jobs),
    CLI_ROW_SEED(&Q.p.seed),
    CLI_ROW_CONFIDENCE(&Q.p.level),
    CLI_ROW_JSON(&Q.out.json),
    CLI_ROW_OUTPUT(&Q.out.output),
    {"plot", CLI_STR, &Q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "draw the network (stations, entries, routes) into DIR\nas SVG and PNG (needs gnuplot)"},
    CLI_ROW_REPORT(&Q.out.report),
    CLI_ROW_QUIET(&Q.quiet),
    CLI_ROWS_CONFIG_CHECK(&Q, net_validate),
    CLI_ROW_HELP(&help),
    {"", CLI_NOTE, NULL, .help = epilogue},
    {0}};

int cmd_sim_network(int argc, char **argv)
{
    Q = (net_cli){.warm = "auto", .out.cmd = "sim network"};
    help = 0;
    qc_network_params *p = &Q.p;
    qc_network_params_init(p);
    p->jobs = cli_jobs_default();
    Q.flags = flags;
    /* `sim network FILE.json [options]`: the file as --network */
    char **av = calloc((size_t)argc + 2, sizeof *av);
    if (av == NULL) {
        cli_error("sim network: out of memory");
        return QC_EXIT_FAIL;
    }
    int ac = 0;
    av[ac++] = argv[0];
    int i = 1;
    if (argc > 1 && argv[1][0] != '-') {
        av[ac++] = (char *)"--network";
        av[ac++] = argv[1];
        i = 2;
    }
    for (; i < argc; i++)
        av[ac++] = argv[i];
    av[ac] = NULL;
    int rc = cli_command_main("sim network", "qctl sim network FILE.json [options]", about,
                              flags, Q.given, net_run, &Q, ac, av);
    free(av);
    if (Q.loaded)
        qc_network_free(&Q.net);
    return rc;
}
