/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.c: `qctl proxy`'s loop and signals around the library's
 * proxy (live_serve.h): the loop, the signal handles and the exit status
 * are the command's, so that the library changes nothing process-wide. */
#include <signal.h>
#include <stdio.h>

#include "live_serve.h"

typedef struct proxy_host {
    qc_proxy *p;
    const qc_proxy_params *o;
    uv_signal_t term, intr;
    int signals;
    unsigned cut;
} proxy_host;

static void proxy_closed(qc_proxy *p, void *arg)
{
    proxy_host *h = arg;
    qc_proxy_status st;
    qc_proxy_status_get(p, &st);
    h->cut = st.cut;
    h->p = NULL;
    uv_close((uv_handle_t *)&h->term, NULL);
    uv_close((uv_handle_t *)&h->intr, NULL);
}

static void proxy_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    proxy_host *h = s->data;
    if (!h->p)
        return;
    if (h->signals++ == 0) {
        qc_proxy_drain(h->p, h->o->drain_timeout);
        qc_proxy_close(h->p, proxy_closed, h);
        return;
    }
    qc_proxy_status st;
    qc_proxy_status_get(h->p, &st);
    if (h->o->log && st.state != QC_LIVE_STOPPED) {
        char line[96];
        snprintf(line, sizeof line, "second signal: stopping with %u requests in flight",
                 st.inflight);
        h->o->log(h->o->log_ctx, line);
    }
    qc_proxy_drain(h->p, 0);
}

int cli_proxy_serve(const qc_proxy_params *o, qc_err *err)
{
    uv_loop_t loop;
    int rc = uv_loop_init(&loop);
    if (rc != 0)
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    proxy_host h = {.o = o};
    if ((rc = qc_proxy_start(&loop, o, &h.p, err)) == 0) {
        uv_signal_init(&loop, &h.term);
        uv_signal_init(&loop, &h.intr);
        h.term.data = h.intr.data = &h;
        uv_signal_start(&h.term, proxy_signal, SIGTERM);
        uv_signal_start(&h.intr, proxy_signal, SIGINT);
    }
    uv_run(&loop, UV_RUN_DEFAULT); /* a failed start: its handles close */
    uv_loop_close(&loop);
    if (rc == 0 && h.cut) /* the drain did not end by itself: say so in the exit status */
        rc = qc_err_set(err, QC_ECANCELED, "the drain cut %u requests in flight", h.cut);
    return rc;
}
