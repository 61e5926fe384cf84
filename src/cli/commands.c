/* SPDX-License-Identifier: GPL-3.0-or-later */
/* commands.c: the commands of qctl, in the order of the top-level help;
 * main dispatches on this table, and help and completion (app/flags_list.c,
 * app/completion.c) read it. */
#include <stddef.h>

#include "cli.h"

static int cmd_sim_group(int argc, char **argv) { return cmd_sim(argc, argv); }
static int cmd_mdp_group(int argc, char **argv) { return cmd_mdp(argc, argv); }

const cli_command_row cli_commands[] = {
    {"sim", cmd_sim_group, "simulation models (queue, pool, maxusers, admission, network, proxy)"},
    {"sim queue", cmd_sim_queue, "simulate an open G/G/c/K queue (FCFS or processor sharing)"},
    {"sim pool", cmd_sim_pool, "simulate K removable servers: routing, on/off policies, energy"},
    {"sim maxusers", cmd_sim_maxusers, "MaxUsers feedback control of a closed-population server"},
    {"sim admission", cmd_sim_admission, "autonomic admission control of delay-bounded classes"},
    {"sim network", cmd_sim_network, "a network of queues from JSON, exact MVA/product form beside it"},
    {"sim proxy", cmd_sim_proxy, "the simulated twin of qctl proxy: its front before backends"},
    {"sysid", cmd_sysid, "identify an ARX model of a system from (time, u, y) data"},
    {"design", cmd_design, "integral and PI controller design from an ARX model"},
    {"fit", cmd_fit, "traffic models (per activity) from a capture: fits, copula, on/off"},
    {"gen", cmd_gen, "generate many users' traffic from models (pcap or CSV); --validate"},
    {"mdp", cmd_mdp_group, "Markov decision processes (removable)"},
    {"mdp removable", cmd_mdp_removable, "optimal on/off and speed policy of a removable server"},
    {"sweep", cmd_sweep, "run an experiment over a grid of parameters (local or MPI)"},
    {"proxy", cmd_proxy, "HTTP reverse proxy with live admission control"},
    {"gate", cmd_gate, "TCP proxy limiting the sessions connected at once (MaxUsers), live control"},
    {"control", cmd_control, "a controller driving haproxy, pgbouncer or a program from a sensor"},
    {"backend", cmd_backend, "HTTP server with a service-time distribution (demos, tests)"},
    {"load", cmd_load, "open-loop HTTP load generator"},
    {"help", cmd_help, "the help of a command: qctl help COMMAND [SUBCOMMAND]"},
    {"completion", cmd_completion, "shell completion (bash, zsh) or the man page's command sections"},
    {NULL, NULL, NULL}};

const cli_command_row *cli_find_command(int argc, char **argv, int *used)
{
    return cli_command_find(cli_commands, argc, argv, used);
}

int cmd_help(int argc, char **argv) { return cli_help_main(cli_commands, argc, argv); }

int cmd_completion(int argc, char **argv)
{
    return cli_completion_main(cli_commands, argc, argv);
}
