/* SPDX-License-Identifier: GPL-3.0-or-later */
/* cli.h: the qctl command itself: its commands (one file each, a flag
 * table and a call into app/) and the table main dispatches on. What the
 * commands share (the flag engine, the error and exit conventions, the
 * progress line, the outputs) is app/'s: cmdline.h, flags.h, result.h. */
#ifndef QCTL_CLI_H
#define QCTL_CLI_H

#include "app/cmdline.h"
#include "app/flags.h"

/* The allocator's settings for a command that allocates and frees large
 * arrays it fills whole, as fit does (memory.c). */
void cli_batch_memory(void);

/* Every command, in the order of the top-level help (commands.c). */
extern const cli_command_row cli_commands[];

/* The command named by words argv[0..] ("sim", "queue"), or NULL; *used is
 * the number of words its name has. */
const cli_command_row *cli_find_command(int argc, char **argv, int *used);

/* Subcommands. */
int cmd_help(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_mdp(int argc, char **argv);
int cmd_mdp_removable(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_sim_queue(int argc, char **argv);
int cmd_sim_network(int argc, char **argv);
int cmd_sysid(int argc, char **argv);
int cmd_design(int argc, char **argv);
int cmd_sim_pool(int argc, char **argv);
int cmd_sim_maxusers(int argc, char **argv);
int cmd_sim_admission(int argc, char **argv);
int cmd_sim_proxy(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_backend(int argc, char **argv);
int cmd_load(int argc, char **argv);
int cmd_proxy(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_control(int argc, char **argv);
int cmd_sweep(int argc, char **argv);

#endif
