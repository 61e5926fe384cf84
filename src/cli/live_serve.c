/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.c: the signals and the loop of qctl's live commands (see
 * live_serve.h). The process-wide decisions are the command's: SIGPIPE
 * ignored, SIGTERM and SIGINT meaning "drain". */
#include "live_serve.h"

#include <signal.h>


typedef struct serve serve;
struct serve {
    uv_signal_t term, intr;
    const cli_live_ops *ops;
    void *const *xs;
    unsigned n, open, signals;
    double drain_timeout;
};

struct cli_live_done {
    serve *s;
};

void cli_live_closed(cli_live_done *d)
{
    serve *s = d->s;
    if (--s->open > 0)
        return;
    /* every component gone: the signal watchers go too, and the loop ends */
    uv_close((uv_handle_t *)&s->term, NULL);
    uv_close((uv_handle_t *)&s->intr, NULL);
}

static void on_signal(uv_signal_t *h, int sig)
{
    (void)sig;
    serve *s = h->data;
    double t = s->signals++ ? 0 : s->drain_timeout; /* the second: at once */
    for (unsigned i = 0; i < s->n; i++)
        s->ops->drain(s->xs[i], t);
}

int cli_live_serve(uv_loop_t *loop, const cli_live_ops *ops, void *const *xs, unsigned n,
                   double drain_timeout)
{
    signal(SIGPIPE, SIG_IGN); /* a peer gone mid-write is not fatal */
    serve s = {.ops = ops, .xs = xs, .n = n, .open = n, .drain_timeout = drain_timeout};
    int rc;
    if ((rc = uv_signal_init(loop, &s.term)) != 0 || (rc = uv_signal_init(loop, &s.intr)) != 0)
        return rc;
    s.term.data = s.intr.data = &s;
    uv_signal_start(&s.term, on_signal, SIGTERM);
    uv_signal_start(&s.intr, on_signal, SIGINT);
    /* the watchers must not keep the loop alive alone: once every
     * component has closed, closed() closes them */
    cli_live_done d = {&s}; /* one for all: each close counts one down */
    for (unsigned i = 0; i < n; i++)
        ops->close(xs[i], &d);
    uv_run(loop, UV_RUN_DEFAULT);
    return 0;
}
