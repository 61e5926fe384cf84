/* SPDX-License-Identifier: GPL-3.0-or-later */
/* interrupt.c: SIGINT and SIGTERM during a long command (interrupt.h).
 * The process's one piece of state that a signal handler shares with the
 * command: the signal seen and whether a run is checking the flag. */
#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "flags.h"
#include "io/ofile_open.h"

qc_cancel cli_cancel;

static volatile sig_atomic_t seen;    /* the first signal, or 0 */
static volatile sig_atomic_t holding; /* a run checks cli_cancel */

static const char *sig_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM" : "SIGINT";
}

static void put(const char *s)
{
    ssize_t w = write(STDERR_FILENO, s, strlen(s));
    (void)w;
}

static void on_signal(int sig)
{
    int first = seen == 0;
    if (first)
        seen = sig;
    if (first && holding) {
        qc_cancel_request(&cli_cancel);
        return;
    }
    qc__ofile_remove_open();
    put("qctl: ");
    if (cli_command) {
        put(cli_command);
        put(": ");
    }
    put("interrupted (");
    put(sig_name(sig));
    put(")\n");
    _exit(128 + sig);
}

void cli_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_interrupt_hold(int on)
{
    holding = on;
}

int cli_interrupted(void)
{
    return seen;
}

int cli_interrupt_exit(const char *detail)
{
    int sig = seen ? seen : SIGINT;
    cli_error("%s%sinterrupted (%s)%s%s", cli_command ? cli_command : "", cli_command ? ": " : "",
              sig_name(sig), detail ? ": " : "", detail ? detail : "");
    return 128 + sig;
}
