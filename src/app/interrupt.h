/* SPDX-License-Identifier: GPL-3.0-or-later */
/* interrupt.h: Ctrl-C (SIGINT) and SIGTERM during a long command (sim,
 * sweep, mdp, fit, gen, sysid, design).
 *
 * The process has one stop flag, cli_cancel (qctl/cancel.h), which the
 * commands put in the parameters of the library's runs. While a run
 * that checks it is under way (between cli_interrupt_hold(1) and
 * cli_interrupt_hold(0); cli_run does this, result.h), the first signal
 * only sets the flag: the run stops at its next check (within one chunk
 * of work or one replication), returns QC_ECANCELED through the
 * ordinary error paths (every temporary file removed) and the command
 * prints one line, "qctl: CMD: interrupted (SIGINT): cancelled after 3 of
 * 10 replications", and exits 128 + the signal: 130 for SIGINT, 143 for
 * SIGTERM.
 *
 * Outside such a run (reading the input, a solver with no check, writing
 * the outputs), and at a second signal, the handler ends the process at
 * once: it removes the temporary files being written
 * (io/ofile_open.h), prints "qctl: CMD: interrupted (SIGINT)" and calls
 * _exit with the same status. The handler does only async-signal-safe
 * things (an atomic store, unlink, write, _exit). */
#ifndef QCTL_CLI_INTERRUPT_H
#define QCTL_CLI_INTERRUPT_H

#include "qctl/cancel.h"

/* The process's stop flag, for a run's `cancel` parameter. */
extern qc_cancel cli_cancel;

/* Installs the handler of SIGINT and SIGTERM (main, for the commands
 * that are not servers: those stop through their own loop's watchers). */
void cli_interrupt_install(void);

/* on = 1: a run checking cli_cancel is under way, a first signal only
 * sets the flag; on = 0: a signal ends the process at once. */
void cli_interrupt_hold(int on);

/* The signal received (SIGINT, SIGTERM), or 0. */
int cli_interrupted(void);

/* After a run stopped because of the signal: prints "qctl: CMD:
 * interrupted (SIG)" (CMD the command, cli_command) and ": detail" when
 * detail is not NULL, and returns the exit status, 128 + the signal. */
int cli_interrupt_exit(const char *detail);

#endif
