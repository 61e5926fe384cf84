/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy.c: `qctl proxy`, an HTTP/1.1 reverse proxy that runs a qctl
 * controller on real traffic.
 *
 * Each request, once its head and body are read, asks the limiter for a
 * slot. Admitted, it goes to the backend with the fewest requests in
 * flight (join the shortest queue) over a kept-alive connection; refused,
 * it waits in a bounded FIFO until a slot frees or its class's deadline
 * passes, and is then answered 503 with Retry-After. Every control
 * interval the limiter's tick runs the chosen controller on what the
 * proxy measured itself (latencies and in-flight counts of the requests
 * it carried) and publishes the new limit.
 *
 * The backends are a fleet (fleet.h): with --route djsq they are unparked
 * and parked with the load by commands, a setup ending at the first
 * healthy answer; a request routed to a backend in setup waits for it
 * within its deadline (see "backend fleet").
 *
 * The invariant the tests check: every request read is answered exactly
 * once, by the backend's response, a 503 (refused, queue or setup
 * deadline, draining), a 502 (backend failed) or a 504 (backend too slow), unless
 * the client went away first. A request admitted is never dropped: the
 * limiter only gates new ones, and SIGTERM stops the listeners, refuses
 * what waits, and exits once the admitted requests are answered.
 *
 * Responses are streamed: head, then body bytes as they arrive
 * (Content-Length, chunked or to the close), verbatim, so chunked framing
 * and trailers pass through untouched, with backpressure from the
 * client's write queue and no bound on their size (see "streaming the
 * response"). A response cut by its backend after its head was sent
 * cannot become a 502: the client's connection is closed instead.
 * Requests are read whole and bounded in size (--max-body, --max-memory,
 * --max-connections: see "reading requests"). A request its backend
 * failed before any answer is sent again within a budget (see
 * "retries"), and backends that keep failing leave the rotation until a
 * probe brings them back (see "health"). Under a standing queue the wait
 * deadlines shrink to --queue-target (see "queue discipline").
 *
 * This file holds the setup, the control interval, the class queues with
 * their discipline, and the drain; the client connections are in
 * proxy_client.c, the backend links in proxy_upstream.c, the fleet's I/O
 * in proxy_fleet.c and the admin listener in proxy_admin.c, sharing the
 * types and qc__proxy_ functions of proxy_int.h. */
#include <signal.h>
#include <stdarg.h>

#include "live/list.h"
#include "live/proxy_int.h"
#include "qctl/output.h"

static void stop_now(proxy *P, const char *why);

void qc__proxy_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)h;
    (void)hint;
    static char slab[65536]; /* one loop thread; on_read copies out */
    *buf = uv_buf_init(slab, sizeof slab);
}

/* ---- the admission front -------------------------------------------------
 *
 * Every decision on who goes in, who waits, who goes next and who is
 * refused is the front's (qctl/front.h, src/control/front.c), the object
 * `qctl sim proxy` runs too: this file tells it the events (a request read,
 * a request over, a control interval, a deadline, a client gone, the
 * drain) with the time through the proxy's core (pcore.h: the decisions
 * carried out in the front's order, never nested), and carries out the
 * decisions it answers, naming each client connection by its address. */

static void apply(void *ctx, const qc_front_decision *d)
{
    proxy *P = ctx;
    cconn *c = (cconn *)(uintptr_t)d->id;
    if (c->state == C_QUEUED) {
        pclass *k = &P->cls[c->cls];
        k->qlen--;
        P->qlen--;
        c->state = C_READ;
        c->fh = 0;
        uv_timer_stop(&c->timer);
    }
    switch (d->act) {
    case QC_FRONT_ADMIT: {
        if (c->lr) {
            c->lr->decision = "admitted";
            c->lr->t_admit = qc__now();
        }
        uconn holder = {0};
        holder.tok = d->tok;
        P->cls[c->cls].admitted++;
        qc__proxy_retry_deposit(P);
        qc__proxy_forward(c, &holder, -1);
        break;
    }
    case QC_FRONT_WAIT: {
        pclass *k = &P->cls[c->cls];
        k->qlen++;
        P->qlen++;
        c->state = C_QUEUED;
        c->fh = d->handle;
        double left = d->deadline - qc__now();
        uv_timer_start(&c->timer, qc__proxy_on_queue_timer,
                       left > 0 ? (uint64_t)ceil(left * 1000) : 0, 0);
        break;
    }
    case QC_FRONT_REFUSE:
        if (c->lr)
            c->lr->decision = qc_front_reason_name(d->reason);
        if (d->reason == QC_FRONT_STANDING)
            P->q_shed++;
        qc__proxy_refuse(c);
        break;
    }
}

/* c is closing: it leaves the waiting room, and a decision on it not yet
 * carried out is void (an admission's slot given back). */
void qc__proxy_forget(cconn *c)
{
    proxy *P = c->P;
    qc_front_handle h = 0;
    if (c->state == C_QUEUED) {
        h = c->fh;
        P->cls[c->cls].qlen--;
        P->qlen--;
        c->state = C_READ;
        c->fh = 0;
    }
    qc__pcore_gone(&P->core, (uint64_t)(uintptr_t)c, h);
}

/* A request read whole asks the front: in now, wait, or refused. */
void qc__proxy_arrive(cconn *c)
{
    qc__pcore_arrive(&c->P->core, qc__now(), c->cls, (uint64_t)(uintptr_t)c);
}

/* The request of tok is over (service: its time at the backend, NaN: not
 * sent): its slot frees, and the waiting requests the front names go. */
void qc__proxy_done(proxy *P, qc_front_token *tok, double service, int outcome)
{
    qc__pcore_done(&P->core, qc__now(), tok, service, outcome);
}

/* A waiting request's deadline timer: the front refuses what is past its
 * deadline; a timer that fired before the front's clock reached the
 * deadline (the loop's time is cached) waits the rest. */
void qc__proxy_on_queue_timer(uv_timer_t *t)
{
    cconn *c = t->data;
    qc__pcore_expire(&c->P->core, qc__now());
    if (c->state == C_QUEUED && !c->closing)
        uv_timer_start(&c->timer, qc__proxy_on_queue_timer, 1, 0);
}

/* Reports an event through the caller's log callback (none: silent; the
 * counters of /metrics have it). */
void qc__proxy_plog(const proxy *P, const char *fmt, ...)
{
    if (!P->o->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    P->o->log(P->o->log_ctx, line);
}

/* How long a request of class i arriving now may wait (for a slot, or
 * for a backend's setup). */
double qc__proxy_wait_deadline(proxy *P, unsigned i)
{
    return qc_front_class_deadline(P->front, i);
}

/* --queue-target, or (0, the default) the adaptive target of the no-load
 * latency the limiter measures now (one L0, 5 ms at least, 50 ms before
 * the first answer): the front's. */
double qc__proxy_queue_target(proxy *P)
{
    return qc_front_queue_target(P->front);
}

/* Whether the waiting room stands (CoDel), as the front says. */
int qc__proxy_standing(proxy *P)
{
    qc_front_stats st;
    qc_front_get_stats(P->front, &st);
    return st.standing;
}

/* When the bytes a callback is handed came (for the time a request spent
 * at its backend): not when the callback runs. A loop that polls and
 * finds nothing waits in the poll, and what wakes it came at the poll's
 * return (the first call after it); a loop busy with a burst of events
 * polls again only when done, and what came meanwhile is found at once:
 * it came some time during that busy spell, on average half of it
 * earlier. So: the poll's return (the first call after the prepare
 * handle ran), less half the loop's last busy spell when the poll
 * returned at once (within 50 us). Without it, 256 keep-alive clients on
 * one loop read as a backend 10 to 20 times slower than it is (bench:
 * docs/live.md, "work-conserving"). */
double qc__proxy_ready_time(proxy *P)
{
    if (P->polled) {
        double now = qc__now();
        P->polled = 0;
        P->lag = now - P->t_prep < 50e-6 ? P->lag : 0;
        P->t_ret = now;
    }
    return P->t_ret - P->lag;
}

static void on_prepare(uv_prepare_t *h)
{
    proxy *P = h->data;
    double now = qc__now();
    if (P->polled) /* nothing read since the last poll */
        P->t_ret = P->t_prep;
    P->lag = P->t_ret > 0 ? (now - P->t_ret) / 2 : 0; /* half the busy spell */
    P->t_prep = now;
    P->polled = 1;
}

/* ---- control loop and drain --------------------------------------------- */

/* Closes every handle; a connection's own close frees it (its handles'
 * data point at it, and its first field says which kind it is). */
static void close_walk(uv_handle_t *h, void *arg)
{
    proxy *P = arg;
    if (uv_is_closing(h))
        return;
    if (h->data == P || h->data == NULL) {
        uv_close(h, NULL);
        return;
    }
    if (*(int *)h->data == K_CLIENT)
        qc__proxy_client_close(h->data);
    else if (*(int *)h->data == K_FLEET)
        qc__proxy_fleet_handle_close(h);
    else
        qc__proxy_upstream_close(h->data);
}

static void on_control(uv_timer_t *t)
{
    proxy *P = t->data;
    double now = qc__now();
    qc__pcore_tick(&P->core, now);
    qc__proxy_fleet_tick(P, now);
    if (P->series) {
        qc_limiter_stats st;
        qc_limiter_get_stats(P->lim, &st);
        uint64_t adm = 0, ref = 0;
        for (unsigned i = 0; i < P->ncls; i++) {
            adm += P->cls[i].admitted;
            ref += P->cls[i].refused;
        }
        fprintf(P->series, "%.3f,%g,%u,%u,%llu,%llu,%g", now - P->t0,
                P->o->control ? st.limit : NAN, P->inflight, P->qlen, (unsigned long long)adm,
                (unsigned long long)ref, st.last_y);
        fprintf(P->series, ",%u,%u,%u,%u\n", qc__fleet_count(&P->fleet, QC_FLEET_ON),
                qc__fleet_count(&P->fleet, QC_FLEET_SETUP),
                qc__fleet_count(&P->fleet, QC_FLEET_OFF),
                qc__fleet_count(&P->fleet, QC_FLEET_PARKING));
    }
    if (P->draining && P->inflight == 0 && P->qlen == 0 && !P->stopping) {
        P->stopping = 1;
        uv_walk(P->loop, close_walk, P);
    } else if (P->draining && now >= P->drain_until) {
        stop_now(P, "drain deadline passed");
    }
}

static void drain_queue(proxy *P)
{
    qc__pcore_drain(&P->core, qc__now());
}

/* Closes every handle: the loop then ends (a second signal, or the
 * drain deadline). Requests still in flight are cut. */
static void stop_now(proxy *P, const char *why)
{
    if (P->stopping)
        return;
    P->stopping = 1;
    P->cut = P->inflight;
    qc__proxy_plog(P, "%s: stopping with %u requests in flight", why, P->inflight);
    uv_walk(P->loop, close_walk, P);
}

static void on_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    proxy *P = s->data;
    if (P->draining) {
        stop_now(P, "second signal");
        return;
    }
    P->draining = 1;
    P->drain_until = qc__now() + P->o->drain_timeout;
    uv_close((uv_handle_t *)&P->listener, NULL);
    if (P->admin_on)
        uv_close((uv_handle_t *)&P->admin, NULL);
    drain_queue(P);
}

void qc_proxy_params_init(qc_proxy_params *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:8080";
    qc_limiter_params_init(&o->limiter, QC_LIMITER_MAXUSERS);
    o->control = 1;
    o->interval = 0.1;
    o->queue = 128;
    o->queue_timeout = 1;
    o->header_timeout = 10;
    o->idle_timeout = 60;
    o->backend_timeout = 30;
    o->fleet = (qc__fleet_params){
        .route = QC_FLEET_JSQ, .threshold = 4, .idle_off = INFINITY, .min_on = 1};
    o->health_interval = 0.1;
    o->cmd_timeout = 10;
    o->setup_timeout = 30;
    o->retries = 2;
    o->retry_budget = 0.2;
    o->max_fails = 3;
    o->max_body = 1u << 24;
    o->max_memory = (size_t)256 << 20;
    o->queue_discipline = QC_QUEUE_CODEL;
    o->queue_target = 0; /* adaptive: qc__proxy_queue_target */
    o->drain_timeout = 30;
}

static int listen_on(proxy *P, uv_tcp_t *t, const char *where, const char *port_file,
                     uv_connection_cb cb, qc_err *err)
{
    return qc__listen(P->loop, t, P, where, port_file, cb, err);
}

/* The front's configuration for o: its classes are o's named ones (their
 * bounds: wait deadlines, or under ADMISSION mean-delay bounds) and best
 * effort last (the --queue-timeout); its waiting room --queue places. */
static qc_front_params proxy_front_config(const qc_proxy_params *o)
{
    qc_front_params fp;
    qc_front_params_init(&fp, o->limiter.algo);
    fp.control = o->control;
    fp.limiter = o->limiter;
    fp.classes = o->nclasses + 1;
    for (unsigned i = 0; i < fp.classes; i++)
        fp.bound[i] = i < o->nclasses ? o->class_bound[i] : 0;
    fp.candidates = o->class_candidate;
    fp.queue = o->queue;
    fp.queue_timeout = o->queue_timeout;
    fp.discipline = o->queue_discipline == QC_QUEUE_CODEL ? QC_FRONT_CODEL : QC_FRONT_FIFO;
    fp.codel.target = o->queue_target;
    fp.codel.interval = o->interval;
    return fp;
}

int qc_proxy_check(const qc_proxy_params *o, qc_err *err)
{
    if (o->nbackends == 0)
        return qc_err_set(err, QC_EINVAL, "at least one --backend is needed");
    if (o->nbackends > QC_PROXY_BACKENDS_MAX)
        return qc_err_set(err, QC_EINVAL, "at most %d backends", QC_PROXY_BACKENDS_MAX);
    if (o->nclasses > QC_PROXY_CLASSES_MAX)
        return qc_err_set(err, QC_EINVAL, "at most %d classes", QC_PROXY_CLASSES_MAX);
    if (!(o->interval > 0) || !(o->queue_timeout > 0) || !(o->header_timeout > 0) ||
        !(o->idle_timeout > 0) || !(o->backend_timeout > 0))
        return qc_err_set(err, QC_EINVAL, "intervals and timeouts must be > 0");
    struct sockaddr_storage addr;
    int rc;
    for (unsigned i = 0; i < o->nbackends; i++)
        if ((rc = qc__addr_parse(o->backend[i], &addr, err)) != 0) {
            qc_err_prefix(err, "--backend");
            return rc;
        }
    if ((rc = qc__addr_parse(o->listen, &addr, err)) != 0) {
        qc_err_prefix(err, "--listen");
        return rc;
    }
    if (o->admin && (rc = qc__addr_parse(o->admin, &addr, err)) != 0) {
        qc_err_prefix(err, "--admin");
        return rc;
    }
    /* the admin port changes the proxy's state and has no authentication:
     * loopback (127.0.0.0/8, ::1) only, unless the user says otherwise */
    if (o->admin && !o->admin_public && !qc__addr_is_loopback(&addr))
        return qc_err_set(err, QC_EINVAL,
                          "--admin: '%s' is not a loopback address; the admin port changes "
                          "the proxy's state without authentication (--admin-public to allow it)",
                          o->admin);
    if ((rc = qc__fleet_check(&o->fleet, o->nbackends, err)) != 0)
        return rc;
    if (!(o->health_interval > 0) || !(o->cmd_timeout > 0) || !(o->setup_timeout > 0))
        return qc_err_set(err, QC_EINVAL,
                          "health interval, command and setup timeouts must be > 0");
    if (o->retries > 10)
        return qc_err_set(err, QC_EINVAL, "--retries: %u is more than 10", o->retries);
    if (!(o->retry_budget >= 0 && o->retry_budget <= 1))
        return qc_err_set(err, QC_EINVAL, "--retry-budget: %g is not in [0, 1]", o->retry_budget);
    if (o->max_body == 0 || o->max_body > ((uint64_t)1 << 40))
        return qc_err_set(err, QC_EINVAL, "--max-body: %llu is not in [1, 2^40]",
                          (unsigned long long)o->max_body);
    if (o->max_memory && o->max_memory < ((size_t)1 << 20))
        return qc_err_set(err, QC_EINVAL, "--max-memory: %zu is under 1 MiB (0: no cap)",
                          o->max_memory);
    if (!(o->drain_timeout > 0) || !isfinite(o->drain_timeout))
        return qc_err_set(err, QC_EINVAL, "--drain-timeout: %g must be > 0", o->drain_timeout);
    char token[256];
    if (o->admin_token_file &&
        (rc = qc__proxy_read_token(o->admin_token_file, token, sizeof token, err)) != 0)
        return rc;
    if (o->queue_discipline != QC_QUEUE_FIFO && o->queue_discipline != QC_QUEUE_CODEL)
        return qc_err_set(err, QC_EINVAL, "--queue-discipline: not fifo or codel");
    if (!(o->queue_target >= 0) || !isfinite(o->queue_target))
        return qc_err_set(err, QC_EINVAL,
                          "--queue-target: %g must be >= 0 (0: the backends' no-load latency)",
                          o->queue_target);
    if (!(o->health_check >= 0) || !isfinite(o->health_check))
        return qc_err_set(err, QC_EINVAL, "--health-check: %g must be >= 0 (0: none)",
                          o->health_check);
    qc_front_params fp = proxy_front_config(o);
    qc_front *f;
    if ((f = qc_front_alloc(&fp, 0, err)) == NULL)
        return err && err->code ? err->code : QC_ENOMEM;
    qc_front_free(f);
    return 0;
}

int qc_proxy_run(const qc_proxy_params *o, qc_err *err)
{
    int rc = qc_proxy_check(o, err);
    if (rc != 0)
        return rc;
    proxy *P = calloc(1, sizeof *P);
    if (!P)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    P->o = o;
    P->t0 = qc__now();
    P->retry_tokens = RETRY_CAP;
    P->retry_t = P->t0;
    if (o->admin_token_file &&
        (rc = qc__proxy_read_token(o->admin_token_file, P->token, sizeof P->token, err)) != 0)
        goto out;
    for (unsigned i = 0; i < o->nbackends; i++) {
        if ((rc = qc__addr_parse(o->backend[i], &P->backend[i].addr, err)) != 0) {
            qc_err_prefix(err, "--backend");
            goto out;
        }
        pbackend *b = &P->backend[i];
        b->name = o->backend[i];
        b->kind = K_FLEET;
        b->what = F_BACKEND;
        b->index = i;
        b->P = P;
        b->port = qc__addr_port(&b->addr);
        qc__addr_host(&b->addr, b->host, sizeof b->host);
    }
    P->nb = o->nbackends;
    if ((rc = qc__fleet_check(&o->fleet, P->nb, err)) != 0)
        goto out;
    if (!(o->health_interval > 0) || !(o->cmd_timeout > 0) || !(o->setup_timeout > 0)) {
        rc = qc_err_set(err, QC_EINVAL,
                        "health interval, command and setup timeouts must be > 0");
        goto out;
    }
    qc__fleet_init(&P->fleet, &o->fleet, P->nb, P->t0);
    for (unsigned i = 0; i < o->nclasses; i++) {
        P->cls[i].name = o->class_name[i];
        P->cls[i].bound = o->class_bound[i];
    }
    P->cls[o->nclasses].name = "best-effort";
    P->cls[o->nclasses].bound = o->queue_timeout;
    P->ncls = o->nclasses + 1;
    for (unsigned i = 0; i < P->ncls; i++) {
        if (!(P->cls[i].lat = qc_hist_alloc(NULL))) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
    }
    qc_front_params fp = proxy_front_config(o);
    if ((P->front = qc_front_alloc(&fp, P->t0, err)) == NULL) {
        rc = err && err->code ? err->code : QC_ENOMEM;
        goto out;
    }
    P->lim = qc_front_limiter(P->front);
    if (qc__pcore_init(&P->core, P->front, apply, P) != 0) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    if (o->series) {
        if ((rc = qc__series_open(&P->series, o->series, err)) != 0)
            goto out;
        fprintf(P->series, "t,limit,inflight,queue,admitted,refused,measured,"
                           "on,setup,off,parking\n");
    }
    if ((rc = uv_loop_init(&P->loop_own)) != 0) {
        rc = qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
        goto out;
    }
    P->loop = &P->loop_own;
    if (o->access_log) {
        if ((rc = qc__alog_open(&P->alog, P->loop, o->access_log, o->access_log_format, err)) != 0)
            goto out_loop;
        P->alog_on = 1;
    }
    if ((rc = listen_on(P, &P->listener, o->listen, o->port_file, qc__proxy_on_connection, err)) != 0)
        goto out_loop;
    if (o->admin) {
        P->admin_on = 1;
        if ((rc = listen_on(P, &P->admin, o->admin, o->admin_port_file, qc__proxy_on_admin_connection,
                            err)) != 0 ||
            (rc = qc__proxy_admin_token_start(P, err)) != 0)
            goto out_loop;
    }
    uv_signal_init(P->loop, &P->sigterm);
    uv_signal_init(P->loop, &P->sigint);
    P->sigterm.data = P->sigint.data = P;
    uv_signal_start(&P->sigterm, on_signal, SIGTERM);
    uv_signal_start(&P->sigint, on_signal, SIGINT);
    qc__proxy_signals_reload(P);
    uv_prepare_init(P->loop, &P->prep);
    P->prep.data = P;
    uv_prepare_start(&P->prep, on_prepare);
    uv_timer_init(P->loop, &P->control);
    P->control.data = P;
    uint64_t ms = (uint64_t)llround(o->interval * 1000);
    uv_timer_start(&P->control, on_control, ms ? ms : 1, ms ? ms : 1);
    for (unsigned i = 0; i < P->nb; i++) {
        uv_timer_init(P->loop, &P->backend[i].health);
        P->backend[i].health.data = &P->backend[i];
        qc__proxy_health_schedule(&P->backend[i]);
    }
    uv_run(P->loop, UV_RUN_DEFAULT);
    if (P->cut) /* the drain did not end by itself: say so in the exit status */
        rc = qc_err_set(err, QC_ECANCELED, "the drain cut %u requests in flight", P->cut);
    goto out_close;
out_loop:
    uv_walk(P->loop, close_walk, P);
out_close:
    uv_run(P->loop, UV_RUN_DEFAULT);
    uv_loop_close(P->loop);
out:
    if (P->alog_on)
        qc__alog_close(&P->alog);
    qc__proxy_admin_token_end(P);
    if (P->series)
        fclose(P->series);
    qc__pcore_free(&P->core);
    qc_front_free(P->front);
    for (unsigned i = 0; i < P->ncls; i++)
        qc_hist_free(P->cls[i].lat);
    free(P);
    return rc;
}
