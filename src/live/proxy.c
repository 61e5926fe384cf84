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
#include <stdarg.h>

#include "live/list.h"
#include "live/proxy_int.h"
#include "qctl/output.h"

static int codel_on(const proxy *P);
static double head_wait(const proxy *P, double now);
static void codel_shed(proxy *P, double now);
static void stop_now(proxy *P, const char *why);

void qc__proxy_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    proxy *P = h->loop->data; /* the proxy's own loop: see qc_proxy_start */
    *buf = uv_buf_init(P->slab, sizeof P->slab);
}

void qc__proxy_unqueue(cconn *c)
{
    proxy *P = c->P;
    pclass *k = &P->cls[c->cls];
    QC__LIST_REMOVE(k->qhead, k->qtail, c, qprev, qnext);
    k->qlen--;
    P->qlen--;
}

/* Links c into its class's queue, at the head or at the tail. */
static void qlink(cconn *c, int at_head)
{
    proxy *P = c->P;
    pclass *k = &P->cls[c->cls];
    c->state = C_QUEUED;
    if (at_head)
        QC__LIST_PUSH_HEAD(k->qhead, k->qtail, c, qprev, qnext);
    else
        QC__LIST_PUSH_TAIL(k->qhead, k->qtail, c, qprev, qnext);
    k->qlen++;
    P->qlen++;
}

/* Appends c to its class's queue. */
void qc__proxy_enqueue(cconn *c)
{
    proxy *P = c->P;
    if (!P->cls[c->cls].qhead)
        qc_sfq_join(&P->sfq, c->cls); /* newly backlogged: no credit for idling */
    qlink(c, 0);
}

/* Takes the head (lifo: the tail) of class i's queue off it. */
static cconn *dequeue(proxy *P, unsigned i, int lifo)
{
    cconn *c = lifo ? P->cls[i].qtail : P->cls[i].qhead;
    qc__proxy_unqueue(c);
    c->state = C_READ;
    return c;
}

/* Puts c back where dequeue took it from. */
static void requeue(cconn *c, int lifo)
{
    qlink(c, !lifo);
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

/* Admits c now if the limiter lets it in: 1 admitted (and sent), 0 no
 * slot, -1 its class was rejected by admission control (never admitted). */
int qc__proxy_try_admit(cconn *c)
{
    proxy *P = c->P;
    uconn holder = {0};
    if (P->o->control) {
        int rc = qc_limiter_acquire(P->lim, c->cls, &holder.tok);
        if (rc != QC_LIMITER_ADMIT)
            return rc == QC_LIMITER_REJECTED ? -1 : 0;
        holder.has_tok = 1;
    }
    pclass *k = &P->cls[c->cls];
    double w = qc_limiter_weight(P->lim, c->cls);
    qc_sfq_start(&P->sfq, c->cls);
    qc_sfq_charge(&P->sfq, c->cls, k->est, w);
    k->admitted++;
    qc__proxy_retry_deposit(P);
    qc__proxy_forward(c, &holder, -1);
    return 1;
}

/* Answers 503 to everything waiting in class i's queue. */
static void refuse_class(proxy *P, unsigned i)
{
    while (P->cls[i].qhead)
        qc__proxy_refuse(dequeue(P, i, 0));
}

/* ---- workers --------------------------------------------------------------
 *
 * `--workers N` runs N proxies, each on its own loop and thread, each
 * accepting on its own SO_REUSEPORT socket of one address. They share the
 * lead's limiter, whose acquire is a compare-and-swap against the one
 * limit (qctl/limiter.h), so the requests admitted over all workers never
 * exceed it; the lead alone ticks it and holds the admin port and the
 * series. Each worker keeps its own waiting room: a slot freed in one
 * worker wakes the others that have requests waiting (an async handle
 * each), which then try the limiter for them. */
static void wake_peers(proxy *P)
{
    proxy *L = P->lead ? P->lead : P;
    if (!P->lead && !P->wake_on)
        return; /* alone */
    for (unsigned i = 0; i < QC_PROXY_WORKERS_MAX; i++) {
        proxy *q = atomic_load_explicit(&L->peers[i], memory_order_acquire);
        if (q && q != P && __atomic_load_n(&q->qlen, __ATOMIC_RELAXED))
            uv_async_send(&q->wake);
    }
}

static void on_wake(uv_async_t *a)
{
    proxy *P = a->data;
    if (!P->draining)
        qc__proxy_pump_queue(P);
}

/* The group's counters in the lead's, while its admin port renders them
 * (dir = 1), and back (dir = -1): one admin endpoint answers for every
 * worker. Only the lead's thread changes the lead's fields, and nothing
 * runs between the two calls but the rendering; the other workers'
 * counters are read as they are at that moment (relaxed loads). The
 * latency quantiles stay the lead's alone. */
#define FOLD(f) (P->f += (__typeof__(P->f))dir * __atomic_load_n(&q->f, __ATOMIC_RELAXED))
void qc__proxy_group_fold(proxy *P, int dir)
{
    if (P->lead || !P->wake_on)
        return;
    for (unsigned w = 0; w < QC_PROXY_WORKERS_MAX; w++) {
        proxy *q = atomic_load_explicit(&P->peers[w], memory_order_acquire);
        if (!q || q == P)
            continue;
        FOLD(inflight);
        FOLD(qlen);
        FOLD(nclients);
        FOLD(bad_requests);
        FOLD(errors502);
        FOLD(errors504);
        FOLD(conns);
        FOLD(retries);
        FOLD(retries_denied);
        FOLD(refused_conns);
        FOLD(refused_mem);
        FOLD(too_large);
        FOLD(q_shed);
        FOLD(mem);
        for (unsigned i = 0; i < P->ncls; i++) {
            FOLD(cls[i].admitted);
            FOLD(cls[i].refused);
            FOLD(cls[i].answered);
            FOLD(cls[i].qlen);
            for (unsigned b = 0; b <= LAT_BUCKETS; b++)
                FOLD(cls[i].lat_bucket[b]);
        }
    }
}
#undef FOLD

/* Lets waiting requests in while there are slots: the backlogged class
 * with the least pass first (see pclass). */
void qc__proxy_pump_queue(proxy *P)
{
    wake_peers(P);
    while (P->qlen) {
        if (P->o->control && qc_limiter_limit(P->lim) <= P->inflight)
            return; /* no slot: everyone waits */
        uint32_t backlogged = 0;
        for (unsigned i = 0; i < P->ncls; i++) {
            if (!P->cls[i].qhead)
                continue;
            if (P->o->control && qc_limiter_weight(P->lim, i) <= 0) {
                refuse_class(P, i); /* rejected meanwhile */
                continue;
            }
            backlogged |= 1u << i;
        }
        int pick = qc_sfq_pick(&P->sfq, backlogged);
        if (pick < 0)
            return;
        unsigned best = (unsigned)pick;
        double now = qc__now();
        if (codel_on(P)) {
            qc__proxy_queue_target(P);
            if (qc_codel_head(&P->codel, head_wait(P, now)))
                codel_shed(P, now); /* above the target for an interval */
            if (!P->cls[best].qhead)
                continue; /* codel_shed refused the class's queue */
        }
        int lifo = codel_on(P) && qc_codel_lifo(&P->codel, head_wait(P, now));
        cconn *c = dequeue(P, best, lifo);
        double waited = now - c->t_arrive;
        if (qc_codel_expired(&P->codel, waited)) {
            P->q_shed++;
            qc__proxy_refuse(c);
            continue;
        }
        int rc = qc__proxy_try_admit(c);
        if (rc > 0)
            qc_codel_admitted(&P->codel, waited);
        if (rc < 0) {
            qc__proxy_refuse(c);
        } else if (rc == 0) { /* refused after all: back where it was */
            requeue(c, lifo);
            return;
        }
    }
}

/* ---- reading requests --------------------------------------------------- */

/* How long a request of class i may wait for a slot: its bound, but under
 * ADMISSION (where the bound is a mean-delay target the controller must
 * see exceeded, not a cut-off) the common --queue-timeout. */
double qc__proxy_wait_deadline(proxy *P, unsigned i)
{
    double d = P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION
                   ? P->o->queue_timeout
                   : P->cls[i].bound;
    return qc_codel_deadline(&P->codel, d);
}

/* --queue-target, or (0, the default) the adaptive target of the no-load
 * latency the limiter measures now (qc_codel_set_noload: one L0, 5 ms at
 * least, 50 ms before the first answer). */
double qc__proxy_queue_target(proxy *P)
{
    return qc_codel_set_noload(&P->codel, qc_limiter_noload(P->lim));
}

/* How long the oldest waiting request has waited (NAN: none waits). */
static double head_wait(const proxy *P, double now)
{
    double t = INFINITY;
    for (unsigned i = 0; i < P->ncls; i++)
        if (P->cls[i].qhead && P->cls[i].qhead->t_arrive < t)
            t = P->cls[i].qhead->t_arrive;
    return isfinite(t) ? now - t : NAN;
}

/* ---- queue discipline (--queue-discipline codel) --------------------------
 *
 * The rule is qc_codel's (qctl/codel.h, src/control/codel.c), which a
 * simulation runs as well: the queue stands once its oldest request has
 * waited longer than the target plus CoDel's interval (above the target
 * for a whole interval); while it stands a request's deadline is the
 * target and those already waiting longer are refused 503 at once; the
 * newest waiting request goes first (adaptive LIFO, as Facebook's servers
 * run CoDel) while it stands and already once the oldest has waited past
 * the target; it stands until it drains (a request got in without
 * waiting in a control interval).
 * This file only applies it: it tells qc_codel the waits (the head's
 * before each dequeue and at each tick, each admitted request's), and
 * refuses what qc_codel_expired says. Not under the admission limiter:
 * there the waits are what the controller tracks against each class's
 * bound, and its weights order the queue.
 *
 * Measured at 3x overload (bench_live.sh part 4): with the standing state
 * ended by the least wait falling under the target, rather than by
 * draining, the queue refilled to the long deadline every other interval
 * (admitted p50 92 ms, p99 198 ms, against 25 and 56 ms through nginx).
 * docs/live.md has the figures of the adaptive target. */
static int codel_on(const proxy *P)
{
    return P->o->queue_discipline == QC_QUEUE_CODEL &&
           !(P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION);
}

/* The queue stands: what already waited past the target is refused. */
static void codel_shed(proxy *P, double now)
{
    for (unsigned i = 0; i < P->ncls; i++)
        while (P->cls[i].qhead && qc_codel_expired(&P->codel, now - P->cls[i].qhead->t_arrive)) {
            P->q_shed++;
            qc__proxy_refuse(dequeue(P, i, 0));
        }
}

static void codel_tick(proxy *P, double now)
{
    if (!codel_on(P))
        return;
    qc__proxy_queue_target(P);
    if (qc_codel_tick(&P->codel, head_wait(P, now)))
        codel_shed(P, now);
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
    if (P->o->control) {
        if (!P->lead) /* one tick for the shared limiter: the lead's */
            qc_limiter_tick(P->lim, now);
        qc__proxy_pump_queue(P);
    }
    codel_tick(P, now);
    qc__proxy_fleet_tick(P, now);
    if (P->series) {
        qc__proxy_group_fold(P, 1); /* one series for every worker */
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
        qc__proxy_group_fold(P, -1);
    }
}

static void drain_queue(proxy *P)
{
    for (unsigned i = 0; i < P->ncls; i++)
        refuse_class(P, i);
}

static void release(proxy *P)
{
    if (P->series)
        fclose(P->series);
    P->series = NULL;
    if (!P->lead)
        qc_limiter_free(P->lim); /* a worker's is the lead's */
    P->lim = NULL;
    for (unsigned i = 0; i < P->ncls; i++) {
        qc_hist_free(P->cls[i].lat);
        P->cls[i].lat = NULL;
    }
}

static void nest_done(void *arg)
{
    proxy *P = arg;
    if (P->on_closed)
        P->on_closed(P, P->close_arg);
    if (P->lead)
        return; /* freed by qc__proxy_worker_free */
    release(P);
    free(P);
}

void qc__proxy_worker_free(qc_proxy *P)
{
    release(P);
    free(P);
}

/* Closes every handle of the proxy's loop (requests still in flight are
 * cut): the loop then ends, and with a close asked for, the proxy goes. */
static void stop_now(proxy *P, const char *why)
{
    if (P->stopping)
        return;
    P->stopping = 1;
    P->state = QC_LIVE_STOPPED;
    P->port = P->admin_port = 0;
    if (why && P->inflight)
        qc__proxy_plog(P, "%s: stopping with %u requests in flight", why, P->inflight);
    uv_walk(P->loop, close_walk, P);
    if (P->closing)
        qc__nest_finish(&P->nest, nest_done, P);
}

/* The drain, on a timer of its own whatever the control interval: done
 * once nothing is admitted or waiting, cut at its deadline; it looks
 * every 10 ms (and at the deadline). */
static void on_drain_timer(uv_timer_t *t)
{
    proxy *P = t->data;
    if (P->inflight == 0 && P->qlen == 0) {
        stop_now(P, NULL);
        return;
    }
    double left = P->drain_until - qc__now();
    if (left <= 0) {
        stop_now(P, "drain deadline passed");
        return;
    }
    uv_timer_start(t, on_drain_timer, left < 0.01 ? (uint64_t)ceil(left * 1000) : 10, 0);
}

void qc_proxy_drain(qc_proxy *P, double timeout)
{
    if (P->stopping)
        return;
    double until = qc__now() + (timeout > 0 ? timeout : 0);
    if (P->draining && until >= P->drain_until)
        return;
    P->drain_until = until;
    if (!P->draining) {
        P->draining = 1;
        P->state = QC_LIVE_DRAINING;
        uv_close((uv_handle_t *)&P->listener, NULL);
        if (P->admin_on)
            uv_close((uv_handle_t *)&P->admin, NULL);
        P->port = P->admin_port = 0;
        drain_queue(P);
    }
    if (!(timeout > 0)) { /* the host's second signal, say */
        stop_now(P, "drain cut short");
        return;
    }
    uv_timer_start(&P->drain, on_drain_timer, 0, 0);
}

void qc_proxy_close(qc_proxy *P, qc_proxy_close_cb cb, void *arg)
{
    if (P->closing)
        return;
    P->closing = 1;
    P->on_closed = cb;
    P->close_arg = arg;
    if (P->stopping)
        qc__nest_finish(&P->nest, nest_done, P);
}

void qc_proxy_status_get(const qc_proxy *cP, qc_proxy_status *st)
{
    proxy *P = (proxy *)cP; /* the group's counters are folded in and out */
    qc__proxy_group_fold(P, 1);
    qc_limiter_stats ls;
    qc_limiter_get_stats(P->lim, &ls);
    *st = (qc_proxy_status){.state = P->state,
                            .limit = P->o->control ? ls.limit : NAN,
                            .inflight = P->inflight,
                            .queued = P->qlen,
                            .clients = P->nclients,
                            .errors502 = P->errors502,
                            .errors504 = P->errors504,
                            .bad_requests = P->bad_requests,
                            .port = P->port,
                            .admin_port = P->admin_port};
    for (unsigned i = 0; i < P->ncls; i++) {
        st->admitted += P->cls[i].admitted;
        st->refused += P->cls[i].refused;
        st->answered += P->cls[i].answered;
    }
    qc__proxy_group_fold(P, -1);
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

/* The limiter's configuration for o: its classes are o's named ones
 * (bounded under ADMISSION) and best effort last. */
static qc_limiter_params proxy_limiter_config(const qc_proxy_params *o)
{
    qc_limiter_params lc = o->limiter;
    lc.classes = o->nclasses + 1;
    if (lc.algo == QC_LIMITER_ADMISSION) { /* named classes bounded, the last best effort */
        for (unsigned i = 0; i < lc.classes; i++)
            lc.bound[i] = i < o->nclasses ? o->class_bound[i] : 0;
        lc.adm_candidates = o->class_candidate;
    }
    return lc;
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
    qc_limiter_params lc = proxy_limiter_config(o);
    qc_limiter *l;
    if ((l = qc_limiter_alloc(&lc, 0, err)) == NULL) {
        qc_err_prefix(err, "limiter");
        return err && err->code ? err->code : QC_ENOMEM;
    }
    qc_limiter_free(l);
    return 0;
}

static int bound_port(uv_tcp_t *t)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    return uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len) == 0 ? qc__addr_port(&ss) : 0;
}

int qc_proxy_start(uv_loop_t *host, const qc_proxy_config *o, qc_proxy **out, qc_err *err)
{
    return qc__proxy_start_worker(host, o, NULL, 0, 0, out, err);
}

int qc__proxy_start_worker(uv_loop_t *host, const qc_proxy_config *o, qc_proxy *lead,
                           unsigned index, int reuseport, qc_proxy **out, qc_err *err)
{
    int rc = qc_proxy_check(o, err);
    if (rc != 0)
        return rc;
    if (index >= QC_PROXY_WORKERS_MAX)
        return qc_err_set(err, QC_EINVAL, "workers: at most %d", QC_PROXY_WORKERS_MAX);
    proxy *P = calloc(1, sizeof *P);
    if (!P)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    P->cfg = *o;
    P->o = o = &P->cfg;
    P->lead = lead;
    if (lead) { /* the lead's admin port and series are the group's */
        P->cfg.admin = P->cfg.admin_port_file = P->cfg.series = P->cfg.port_file = NULL;
    }
    P->t0 = qc__now();
    P->retry_tokens = RETRY_CAP;
    P->retry_t = P->t0;
    qc_codel_params cp;
    qc_codel_params_init(&cp);
    cp.target = o->queue_target;
    cp.interval = o->interval;
    if ((rc = qc_codel_init(&P->codel, &cp, err)) != 0) {
        qc_err_prefix(err, "--queue-target");
        goto out;
    }
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
    if ((rc = qc_sfq_init(&P->sfq, P->ncls, err)) != 0)
        goto out;
    for (unsigned i = 0; i < P->ncls; i++) {
        P->cls[i].est = 0.01; /* a first guess of the time at a backend */
        if (!(P->cls[i].lat = qc_hist_alloc(NULL))) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
    }
    qc_limiter_params lc = proxy_limiter_config(o);
    if (lead) {
        P->lim = lead->lim;
    } else if ((P->lim = qc_limiter_alloc(&lc, P->t0, err)) == NULL) {
        rc = err && err->code ? err->code : QC_ENOMEM;
        qc_err_prefix(err, "limiter");
        goto out;
    }
    if (o->series) {
        if ((rc = qc__series_open(&P->series, o->series, err)) != 0)
            goto out;
        fprintf(P->series, "t,limit,inflight,queue,admitted,refused,measured,"
                           "on,setup,off,parking\n");
    }
    if ((rc = qc__nest_init(&P->nest, err)) != 0)
        goto out;
    P->loop = qc__nest_loop(&P->nest);
    P->loop->data = P; /* qc__proxy_alloc_cb finds the proxy there */
    if ((rc = qc__listen_ex(P->loop, &P->listener, P, o->listen, lead ? lead->port : -1,
                            reuseport || lead, o->port_file, qc__proxy_on_connection, err)) != 0)
        goto out_loop;
    P->port = bound_port(&P->listener);
    if (reuseport || lead) {
        uv_async_init(P->loop, &P->wake, on_wake);
        P->wake.data = P;
        P->wake_on = 1;
    }
    if (o->admin) {
        P->admin_on = 1;
        if ((rc = listen_on(P, &P->admin, o->admin, o->admin_port_file, qc__proxy_on_admin_connection,
                            err)) != 0)
            goto out_loop;
        P->admin_port = bound_port(&P->admin);
    }
    if ((rc = qc__nest_attach(&P->nest, host, err)) != 0)
        goto out_loop;
    uv_timer_init(P->loop, &P->drain);
    P->drain.data = P;
    uv_timer_init(P->loop, &P->control);
    P->control.data = P;
    uint64_t ms = (uint64_t)llround(o->interval * 1000);
    uv_timer_start(&P->control, on_control, ms ? ms : 1, ms ? ms : 1);
    for (unsigned i = 0; i < P->nb; i++) {
        uv_timer_init(P->loop, &P->backend[i].health);
        P->backend[i].health.data = &P->backend[i];
        qc__proxy_health_schedule(&P->backend[i]);
    }
    if (P->wake_on) /* joins the group: others may wake it from now on */
        atomic_store_explicit(&(lead ? lead : P)->peers[index], P, memory_order_release);
    *out = P;
    return 0;
out_loop:
    uv_walk(P->loop, close_walk, P);
    qc__nest_abort(&P->nest);
out:
    release(P);
    free(P);
    return rc;
}
