/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.h: the qctl commands' side of the live servers: the command
 * owns the event loop and the signals, the library only serves on it
 * (live.h, "the proxy on a host's loop"). SIGTERM or SIGINT drains within
 * the drain timeout; a second signal cuts the drain at once. */
#ifndef QCTL_CLI_LIVE_SERVE_H
#define QCTL_CLI_LIVE_SERVE_H

#include "live/live.h"

/* The command's signal handles on its main loop, one set for every live
 * command: SIGTERM and SIGINT call stop (each time: the first drains, a
 * later one cuts the drain), SIGHUP reload and SIGUSR1 reopen where given
 * (NULL: that signal is left as it is); each handle's data is arg. The
 * handles stay open until cli_signals_close, so that a second signal
 * finds them while a drain runs. */
typedef struct cli_signals {
    uv_signal_t h[4];
    unsigned n; /* handles open */
} cli_signals;

void cli_signals_start(cli_signals *s, uv_loop_t *loop, uv_signal_cb stop, uv_signal_cb reload,
                       uv_signal_cb reopen, void *arg);
void cli_signals_close(cli_signals *s);

/* Runs the proxy of o on `workers` loops and threads sharing one front
 * (0: the usable CPUs, 1 with a fleet) until a signal has drained and
 * closed them. QC_ECANCELED when the drain cut requests in flight. */
int cli_proxy_serve(const qc_proxy_params *o, unsigned workers, qc_err *err);

/* Runs the backend of o on a loop of its own until SIGTERM or SIGINT
 * (which stops it at once), the thread pool sized to its workers with
 * --mode cpu. */
int cli_backend_serve(const qc_backend_params *o, unsigned threads, qc_err *err);

#endif
