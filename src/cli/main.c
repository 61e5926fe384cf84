/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: the qctl command: dispatches to its subcommands. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "interrupt.h"

#ifndef QC_VERSION
#define QC_VERSION "unknown"
#endif

static const char usage[] =
    "usage: qctl COMMAND [SUBCOMMAND] [options]\n"
    "\n"
    "qctl keeps servers fast and frugal under changing load: it simulates\n"
    "queues, identifies and controls servers, and models traffic.\n"
    "\n"
    "Commands:\n"
    "  sim queue     simulate an open G/G/c/K queue (FCFS or processor sharing)\n"
    "  sim pool      simulate K removable servers: routing, on/off policies, energy\n"
    "  sim maxusers  MaxUsers feedback control of a closed-population server\n"
    "  sim admission autonomic admission control of delay-bounded classes\n"
    "  sim network   a network of queues from JSON, exact MVA/product form beside it\n"
    "  sim proxy     the simulated twin of qctl proxy: its front before backends\n"
    "  sysid         identify an ARX model of a system from (time, u, y) data\n"
    "  design        integral and PI controller design from an ARX model\n"
    "  fit           traffic models (per activity) from a capture: fits, copula, on/off\n"
    "  gen           generate many users' traffic from models (pcap or CSV); --validate\n"
    "  mdp removable optimal on/off and speed policy of a removable server (MDP)\n"
    "  sweep         run an experiment over a grid of parameters (local or MPI)\n"
    "  proxy         HTTP reverse proxy with live admission control\n"
    "  gate          TCP proxy limiting the sessions connected at once (MaxUsers)\n"
    "  backend       HTTP server with a service-time distribution (demos, tests)\n"
    "  load          open-loop HTTP load generator\n"
    "  help          the help of a command: qctl help COMMAND [SUBCOMMAND]\n"
    "  completion    shell completion: qctl completion bash|zsh\n"
    "\n"
    "  -h, --help    this text ('qctl COMMAND --help' or -h for a command)\n"
    "  --version     print the version\n"
    "\n"
    "Global options, accepted by every command:\n"
    "  --progress    show the progress line of a long run even when stderr\n"
    "                is not a terminal (--quiet silences it)\n"
    "  --force       run although the memory or output size the flags imply\n"
    "                passes its budget (1 GB); never past the machine's\n"
    "                memory or the free disk space\n"
    "\n"
    "Exit status: 0 success, 1 failure while running, 2 bad usage or input.\n";

static const char sim_usage[] =
    "usage: qctl sim MODEL [options]\n"
    "\n"
    "Models:\n"
    "  queue         open G/G/c/K queue, FCFS or processor sharing\n"
    "  pool          K removable servers with routing and on/off policies\n"
    "  maxusers      closed-population server under MaxUsers feedback control\n"
    "  admission     delay-bounded classes and best effort: admission control\n"
    "  network       a network of queues (stations, classes, routing) from JSON\n"
    "  proxy         qctl proxy simulated: its front before backends of c workers\n";

static const char mdp_usage[] =
    "usage: qctl mdp MODEL [options]\n"
    "\n"
    "Models:\n"
    "  removable     M/M/1 with a removable server and finitely many rates:\n"
    "                average-cost optimal on/off and speed policy\n";

/* A command whose first word names a model ("sim queue", "mdp
 * removable"); reached for the bare command, its --help, or a model it
 * does not know. */
typedef struct model_row {
    const char *name;
    cli_cmd_fn fn;
} model_row;

static int models(const char *cmd, const char *help, const model_row *rows, int argc,
                  char **argv)
{
    if (argc < 2) {
        fputs(help, stderr);
        return QC_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(help, stdout);
        return 0;
    }
    for (const model_row *r = rows; r->name; r++)
        if (strcmp(argv[1], r->name) == 0)
            return r->fn(argc - 1, argv + 1);
    const char *names[16];
    size_t n = 0;
    for (const model_row *r = rows; r->name && n < 16; r++)
        names[n++] = r->name;
    const char *near = cli_nearest(argv[1], names, n);
    if (near)
        cli_error("%s: unknown model '%s'; did you mean '%s'? (see 'qctl %s --help')", cmd,
                  argv[1], near, cmd);
    else
        cli_error("%s: unknown model '%s' (see 'qctl %s --help')", cmd, argv[1], cmd);
    return QC_EXIT_USAGE;
}

int cmd_sim(int argc, char **argv)
{
    static const model_row rows[] = {{"queue", cmd_sim_queue},
                                     {"pool", cmd_sim_pool},
                                     {"maxusers", cmd_sim_maxusers},
                                     {"admission", cmd_sim_admission},
                                     {"network", cmd_sim_network},
                                     {"proxy", cmd_sim_proxy},
                                     {NULL, NULL}};
    return models("sim", sim_usage, rows, argc, argv);
}

int cmd_mdp(int argc, char **argv)
{
    static const model_row rows[] = {{"removable", cmd_mdp_removable}, {NULL, NULL}};
    return models("mdp", mdp_usage, rows, argc, argv);
}

int main(int argc, char **argv)
{
    /* GSL's default error handler aborts; the library checks its inputs
     * and results itself, so a GSL error must never end the process. */
    gsl_set_error_handler_off();
    argc = cli_take_global_flags(argc, argv);
    if (argc < 2) {
        fputs(usage, stderr);
        return QC_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("qctl %s\n", QC_VERSION);
        return 0;
    }
    /* the longest command name the words match: "sim queue" before "sim" */
    int used = 0;
    const cli_command_row *c = cli_find_command(argc - 1, argv + 1, &used);
    if (c == NULL) {
        const char *names[64];
        size_t n = 0;
        for (const cli_command_row *r = cli_commands; r->name && n < 64; r++)
            if (!strchr(r->name, ' '))
                names[n++] = r->name;
        const char *near = cli_nearest(cmd, names, n);
        if (near)
            cli_error("unknown command '%s'; did you mean '%s'? (see 'qctl --help')", cmd, near);
        else
            cli_error("unknown command '%s' (see 'qctl --help')", cmd);
        return QC_EXIT_USAGE;
    }
    cli_command = c->name;
    /* the servers (proxy, gate, backend, load) stop through their own
     * loop's signal watchers: a signal drains them */
    static const char *const servers[] = {"proxy", "gate", "backend", "load"};
    int server = 0;
    for (size_t i = 0; i < sizeof servers / sizeof servers[0]; i++)
        server |= strcmp(c->name, servers[i]) == 0;
    if (!server)
        cli_interrupt_install();
    if (c->fn == cmd_help) {
        int rc = cmd_help(argc - 1, argv + 1);
        if (rc >= 0)
            return rc;
        fputs(usage, stdout);
        return 0;
    }
    return c->fn(argc - used, argv + used);
}
