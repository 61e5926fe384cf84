/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.h: how qctl's live commands run the components of
 * qctl/live.h: on loops the command owns, with the signals the command
 * installs (the library installs none). */
#ifndef QCTL_CLI_LIVE_SERVE_H
#define QCTL_CLI_LIVE_SERVE_H

#include <uv.h>

/* What close is given: the component's close callback calls
 * cli_live_closed(d). */
typedef struct cli_live_done cli_live_done;
void cli_live_closed(cli_live_done *d);

/* What the command does with one started component: drain it (timeout
 * seconds, 0: at once), and close it (qc_X_close(x, cb, d), cb calling
 * cli_live_closed(d)) to be told when it has ended. */
typedef struct cli_live_ops {
    void (*drain)(void *x, double timeout);
    void (*close)(void *x, cli_live_done *d);
} cli_live_ops;

/* Runs loop, on which the n components xs were started, until every one
 * has closed: SIGTERM or SIGINT drains them all within drain_timeout, a
 * second signal cuts them at once; a component that ends by itself (a
 * load at its bound, a gate at its duration) closes on its own. SIGPIPE is
 * ignored. 0, or a libuv error installing the signal watchers. */
int cli_live_serve(uv_loop_t *loop, const cli_live_ops *ops, void *const *xs, unsigned n,
                   double drain_timeout);

#endif
