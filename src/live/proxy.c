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
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <unistd.h>
#ifndef SO_REUSEPORT
#define SO_REUSEPORT 15 /* Linux's, hidden by the strict C11 headers */
#endif

#include "live/list.h"
#include "live/proxy_int.h"
#include "qctl/output.h"

static void stop_now(proxy *P, const char *why);

/* The read buffer: the proxy's own (one per proxy, so that proxies on
 * different threads never share one); each on_read copies out. */
void qc__proxy_alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    int kind = *(const int *)h->data;
    proxy *P = kind == K_CLIENT     ? ((cconn *)h->data)->P
               : kind == K_UPSTREAM ? ((uconn *)h->data)->P
                                    : ((probe *)h->data)->b->P;
    *buf = uv_buf_init(P->slab, sizeof P->slab);
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

static void handover(proxy *P, cconn *c, const qc_front_decision *d);

/* ---- the waiting room's timer ---------------------------------------------
 *
 * One timer a worker, not one a waiting request: it is armed at the
 * earliest deadline the front gave a request of this worker's (a WAIT
 * decision's), and when it fires the front refuses what is past its
 * deadline (qc__pcore_expire) and names the next deadline of its room
 * (qc_front_next_deadline), where the timer is armed again while this
 * worker has requests waiting. What is refused and when stays the
 * front's: the timer only tells it the time. With workers the room is
 * the group's, so a worker's timer may fire at another's deadline and
 * expire it for that one (the decision goes to its worker's mailbox). */
static void on_room_timer(uv_timer_t *t);

static void room_arm(proxy *P, double due)
{
    if (P->stopped)
        return; /* its timer is closing */
    if (!(due < P->room_due) && uv_is_active((uv_handle_t *)&P->room))
        return; /* armed as early already */
    P->room_due = due;
    double left = due - qc__now();
    uv_timer_start(&P->room, on_room_timer, left > 0 ? (uint64_t)ceil(left * 1000) : 0, 0);
}

static void on_room_timer(uv_timer_t *t)
{
    proxy *P = t->data;
    P->room_due = INFINITY;
    double now = qc__now();
    qc__pcore_expire(&P->core, now);
    if (P->qlen == 0 || P->stopped)
        return;
    double next = qc_front_next_deadline(P->front);
    if (isfinite(next)) /* a deadline the front's clock had not reached: 1 ms on */
        room_arm(P, next > now ? next : now + 1e-3);
}

static void apply(void *ctx, const qc_front_decision *d)
{
    proxy *P = ctx;
    cconn *c = (cconn *)(uintptr_t)d->id;
    if (c->P != P) { /* another worker's request: see "workers" */
        handover(P, c, d);
        return;
    }
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
            c->lr->t_admit = qc__proxy_now(P);
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
        qc__deadline_drop(&c->dl);
        uv_timer_stop(&c->timer); /* the room's timer bounds its wait */
        room_arm(P, d->deadline);
        break;
    }
    case QC_FRONT_REFUSE:
        if (c->lr)
            c->lr->decision = qc_front_reason_name(d->reason);
        if (d->reason == QC_FRONT_STANDING)
            P->q_shed++;
        qc__proxy_refuse_why(c, (unsigned)d->reason);
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
    if (qc__pcore_gone(&P->core, (uint64_t)(uintptr_t)c, h))
        c->zombie = 1; /* another worker's decision on c is on its way */
}

/* A request read whole asks the front: in now, wait, or refused. */
void qc__proxy_arrive(cconn *c)
{
    qc__pcore_arrive(&c->P->core, qc__proxy_now(c->P), c->cls, (uint64_t)(uintptr_t)c);
}

/* The request of tok is over (service: its time at the backend, NaN: not
 * sent): its slot frees, and the waiting requests the front names go. */
void qc__proxy_done(proxy *P, qc_front_token *tok, double service, int outcome)
{
    qc__pcore_done(&P->core, qc__proxy_now(P), tok, service, outcome);
}

/* tok's large body is on its way to its backend (on 1) or whole there
 * (0): its slot is lent meanwhile (qc_front_carry), and the waiting
 * requests the front names go. */
void qc__proxy_carry(proxy *P, qc_front_token *tok, int on)
{
    qc__pcore_carry(&P->core, qc__proxy_now(P), tok, on);
}

/* Reports an event through the caller's log callback (none: silent; the
 * counters of /metrics have it). */
void qc__proxy_plog(const proxy *P, int level, const char *fmt, ...)
{
    if (!P->o->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    P->o->log(P->o->log_ctx, level, line);
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

/* The time of the events a turn of the loop carries out, read once a turn
 * (as nginx caches its time): the clock read was 4% of the proxy's work
 * per request, for times (arrivals, admissions, the front's events, the
 * latencies shown) that a turn's span does not change in any way that
 * matters. What the limiter is told of a backend's speed is taken apart,
 * on the clock itself (t_sent, t_first_seen) and at the poll's return
 * (qc__proxy_ready_time). Read afresh after the poll (on_prepare) and
 * before the timers of the next turn (on_check). */
double qc__proxy_now(proxy *P)
{
    if (!P->now_ok) {
        P->now_c = qc__now();
        P->now_ok = 1;
    }
    return P->now_c;
}

static void on_check(uv_check_t *h)
{
    ((proxy *)h->data)->now_ok = 0;
}

static void on_prepare(uv_prepare_t *h)
{
    proxy *P = h->data;
    double now = qc__now();
    P->now_ok = 0;
    if (P->polled) /* nothing read since the last poll */
        P->t_ret = P->t_prep;
    P->lag = P->t_ret > 0 ? (now - P->t_ret) / 2 : 0; /* half the busy spell */
    P->t_prep = now;
    P->polled = 1;
}

/* ---- control loop ------------------------------------------------------- */

/* The series' counts are the whole proxy's: with workers, every worker's
 * admitted, refused, in flight and waiting added up (each counter written
 * by its own worker's thread, read here as it stands: qc__ctr64), as
 * /metrics and /status add them (proxy_admin.c, group_view). No
 * allocation: the workers' P are read under the group's mutex. */
static void series_counts(proxy *P, uint64_t *adm, uint64_t *ref, unsigned *inflight,
                          unsigned *qlen)
{
    *adm = *ref = 0;
    *inflight = *qlen = 0;
    unsigned n = P->g ? P->g->n : 1;
    if (P->g)
        pthread_mutex_lock(&P->g->mu);
    for (unsigned w = 0; w < n; w++) {
        const proxy *W = P->g ? P->g->w[w].P : P;
        if (P->g && w == P->index)
            W = P; /* the lead itself, whatever its slot says while it closes */
        if (!W)
            continue; /* a worker not started or already closed */
        for (unsigned i = 0; i < W->ncls; i++) {
            *adm += W->cls[i].admitted;
            *ref += W->cls[i].refused;
        }
        *inflight += W->inflight;
        *qlen += W->qlen;
    }
    if (P->g)
        pthread_mutex_unlock(&P->g->mu);
}

static void on_control(uv_timer_t *t)
{
    proxy *P = t->data;
    double now = qc__now();
    if (P->index == 0) /* one tick per interval for the shared front: the lead's */
        qc__pcore_tick(&P->core, now);
    qc__proxy_fleet_tick(P, now);
    if (P->series) {
        qc_limiter_stats st;
        qc_limiter_get_stats(P->lim, &st);
        uint64_t adm, ref;
        unsigned inflight, qlen;
        series_counts(P, &adm, &ref, &inflight, &qlen);
        fprintf(P->series, "%.3f,%g,%u,%u,%llu,%llu,%g", now - P->t0,
                P->o->control ? st.limit : NAN, inflight, qlen, (unsigned long long)adm,
                (unsigned long long)ref, st.last_y);
        fprintf(P->series, ",%u,%u,%u,%u\n", qc__fleet_count(&P->fleet, QC_FLEET_ON),
                qc__fleet_count(&P->fleet, QC_FLEET_SETUP),
                qc__fleet_count(&P->fleet, QC_FLEET_OFF),
                qc__fleet_count(&P->fleet, QC_FLEET_PARKING));
    }
}

/* ---- workers ---------------------------------------------------------------
 *
 * A group (qc_proxy_group) is N proxies on N loops and threads, each
 * accepting on its own SO_REUSEPORT socket of one address, all sharing
 * one admission front: one limiter, one waiting room, one CoDel state.
 * The front takes its own mutex for every event, so each worker tells it
 * its events directly (its own pcore, its own decision arrays); a
 * decision may name a request another worker owns (a slot freed here lets
 * in a request that waits there). Such a decision is handed over: stored
 * in the request itself (a request has at most one decision on its way,
 * the one that took it out of the waiting room) and the request put on
 * its worker's mailbox, whose async handle wakes that loop; there it is
 * carried out as if taken there. A request whose client closes while its
 * decision is on the way (the front's cancel finds it decided, and its own
 * core holds no decision on it) stays allocated, a zombie, until the
 * decision comes: an admission's slot is then given back. Mailboxes live
 * in the group, which outlives its workers; what a stopped worker never
 * took out of its mailbox (zombies only) the group frees. */

static qc_front_params proxy_front_config(const qc_proxy_params *o);

static void handover(proxy *P, cconn *c, const qc_front_decision *d)
{
    pworker *w = &P->g->w[c->worker];
    pthread_mutex_lock(&P->g->mu);
    c->ho = *d;
    c->ho_next = NULL;
    if (w->mb_tail)
        w->mb_tail->ho_next = c;
    else
        w->mb_head = c;
    w->mb_tail = c;
    if (w->async)
        uv_async_send(w->async);
    pthread_mutex_unlock(&P->g->mu);
}

/* The decisions the other workers took on P's requests. */
static void on_mailbox(uv_async_t *a)
{
    proxy *P = a->data;
    pworker *w = &P->g->w[P->index];
    pthread_mutex_lock(&P->g->mu);
    cconn *c = w->mb_head;
    w->mb_head = w->mb_tail = NULL;
    const qc_proxy_params *reload = w->reload;
    int reopen = w->reopen;
    w->reopen = 0;
    pthread_mutex_unlock(&P->g->mu);
    if (reload) { /* the first worker took it: this one's part (proxy_reload.c) */
        qc__proxy_reload_local(P, reload);
        pthread_mutex_lock(&P->g->mu);
        w->reload = NULL;
        pthread_mutex_unlock(&P->g->mu);
    }
    if (reopen && P->alog_on)
        qc__alog_reopen(&P->alog);
    while (c) {
        cconn *next = c->ho_next;
        qc_front_decision d = c->ho;
        if (c->zombie) {
            if (d.act == QC_FRONT_ADMIT) /* its slot back, not a sample */
                qc__pcore_done(&P->core, qc__now(), &d.tok, NAN, QC_FRONT_IGNORE);
            c->zombie = 0;
            if (c->handles_open == 0) /* closed already: freed here */
                free(c);
        } else {
            apply(P, &d);
        }
        c = next;
    }
}

int qc_proxy_group_alloc(const qc_proxy_params *o, unsigned workers, qc_proxy_group **out,
                         qc_err *err)
{
    *out = NULL;
    int rc = qc_proxy_check(o, err);
    if (rc != 0)
        return rc;
    if (workers < 1 || workers > 1024)
        return qc_err_set(err, QC_EINVAL, "--workers: %u is not in [1, 1024]", workers);
    if (workers > 1 && (o->fleet.route != QC_FLEET_JSQ || o->unpark_cmd || o->park_cmd))
        return qc_err_set(err, QC_EINVAL,
                          "--workers: more than one with a backend fleet (--route djsq, "
                          "un/park commands), which is one proxy's");
    qc_proxy_group *g = calloc(1, sizeof *g + workers * sizeof g->w[0]);
    if (!g)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    g->o = *o;
    g->n = workers;
    qc_front_params fp = proxy_front_config(o);
    if ((g->front = qc_front_alloc(&fp, qc__now(), err)) == NULL) {
        free(g);
        return err && err->code ? err->code : QC_ENOMEM;
    }
    pthread_mutex_init(&g->mu, NULL);
    qc__tls_slot_init(&g->tls);
    if ((rc = qc__proxy_tls_slot_fill(&g->tls, o, err)) != 0) {
        qc_proxy_group_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

void qc_proxy_group_free(qc_proxy_group *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < g->n; i++)
        for (cconn *c = g->w[i].mb_head, *next; c; c = next) {
            next = c->ho_next;
            free(c); /* a zombie whose worker stopped before its decision came */
        }
    pthread_mutex_destroy(&g->mu);
    qc__tls_slot_destroy(&g->tls);
    qc_front_free(g->front);
    free(g);
}

unsigned qc_proxy_group_size(const qc_proxy_group *g)
{
    return g->n;
}

/* ---- lifecycle -------------------------------------------------------------
 *
 * The proxy runs on a loop it does not own (qc_proxy_start): it closes its
 * own handles and never another's, so it neither walks the loop nor stops
 * it. Every handle it opens is counted in P->handles until its close
 * callback runs; its connections are on two lists (clients, backend
 * links), its fleet's probes and commands hang off their backends. The
 * drain has a timer of its own (drain_timer), checked every 10 ms and at
 * its deadline whatever the control interval; that timer is opened first
 * and closed last, by qc_proxy_close, so that the host's close callback
 * always comes from the loop (libuv's rule) and after every other
 * handle's. */

static void finish_cb(void *arg);

static void finish(proxy *P)
{
    if (P->alog_on && P->alog.writing) { /* its buffer is the pool's until written */
        P->alog.idle = finish_cb;
        P->alog.idle_arg = P;
        return;
    }
    if (P->alog_on) {
        P->alog_on = 0;
        qc__alog_close(&P->alog);
    }
    if (P->on_closed)
        P->on_closed(P, P->on_closed_arg);
    if (P->g) {
        pthread_mutex_lock(&P->g->mu);
        P->g->w[P->index].P = NULL;
        pthread_mutex_unlock(&P->g->mu);
    }
    qc__proxy_admin_token_end(P);
    if (P->series)
        fclose(P->series);
    qc__pcore_free(&P->core);
    if (!P->g)
        qc_front_free(P->front);
    for (unsigned i = 0; i < P->ncls; i++)
        qc_hist_free(P->cls[i].lat);
    if (P->tls == &P->tls_own)
        qc__tls_slot_destroy(&P->tls_own);
    free(P);
}

static void finish_cb(void *arg)
{
    finish(arg);
}

/* One of P's handles is closed: when only the drain timer is left and the
 * host asked for the close, it goes too; after it, P is freed. */
void qc__proxy_handle_closed(proxy *P)
{
    P->handles--;
    if (P->handles == 0)
        finish(P);
    else if (P->handles == 1 && P->stopped && P->close_requested &&
             !uv_is_closing((uv_handle_t *)&P->drain_timer))
        uv_close((uv_handle_t *)&P->drain_timer, qc__proxy_own_closed);
}

/* The close callback of the handles whose data is P. */
void qc__proxy_own_closed(uv_handle_t *h)
{
    qc__proxy_handle_closed(h->data);
}

static void close_own(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, qc__proxy_own_closed);
}

static void close_listeners(proxy *P)
{
    if (P->listener_open) {
        P->listener_open = 0;
        close_own((uv_handle_t *)&P->listener);
    }
    if (P->admin_open) {
        P->admin_open = 0;
        close_own((uv_handle_t *)&P->admin);
    }
}

/* Closes every handle P opened but the drain timer. Requests still in
 * flight are cut. A connection's own close frees it. */
static void stop_all(proxy *P)
{
    if (P->stopped)
        return;
    P->stopped = 1;
    P->draining = 1;
    uv_timer_stop(&P->drain_timer);
    close_listeners(P);
    close_own((uv_handle_t *)&P->control);
    close_own((uv_handle_t *)&P->room);
    close_own((uv_handle_t *)&P->prep);
    close_own((uv_handle_t *)&P->check);
    if (P->g) { /* no wakeup from now on: what comes stays in the mailbox */
        pthread_mutex_lock(&P->g->mu);
        P->g->w[P->index].async = NULL;
        P->g->w[P->index].reload = NULL; /* a reload still coming no longer concerns it */
        pthread_mutex_unlock(&P->g->mu);
        close_own((uv_handle_t *)&P->async);
    }
    for (unsigned i = 0; i < P->nb; i++) {
        pbackend *b = &P->backend[i];
        if (!uv_is_closing((uv_handle_t *)&b->health))
            qc__proxy_fleet_handle_close((uv_handle_t *)&b->health);
        if (b->probe)
            qc__proxy_fleet_handle_close((uv_handle_t *)&b->probe->tcp);
        if (b->cmd)
            qc__proxy_fleet_handle_close((uv_handle_t *)&b->cmd->proc);
    }
    /* closes free nothing at once (libuv calls back later): the lists
     * hold while they are walked; a link opened meanwhile joins the tail
     * and is closed in turn */
    for (cconn *c = P->clients_head; c; c = c->all_next)
        qc__proxy_client_close(c);
    for (uconn *u = P->ups_head; u; u = u->all_next)
        qc__proxy_upstream_close(u);
    if (P->handles == 1 && P->close_requested)
        close_own((uv_handle_t *)&P->drain_timer);
}

/* Stops at once, cutting the requests in flight (the drain deadline). */
static void stop_now(proxy *P, const char *why)
{
    if (P->stopped)
        return;
    P->cut = P->inflight;
    qc__proxy_plog(P, QC_LOG_WARN, "%s: stopping with %u requests in flight", why, P->inflight);
    stop_all(P);
}

static void on_drain_timer(uv_timer_t *t);

/* The drain's check: done when nothing is in flight or waiting; cut at
 * its deadline; else checked again in 10 ms (or at the deadline). */
static void drain_check(proxy *P)
{
    if (P->stopped)
        return;
    if (P->inflight == 0 && P->qlen == 0) {
        stop_all(P);
        return;
    }
    double left = P->drain_until - qc__now();
    if (!(left > 0)) {
        stop_now(P, P->drain_shortened ? "drain cut short" : "drain deadline passed");
        return;
    }
    uint64_t ms = left < 0.01 ? (uint64_t)ceil(left * 1000) : 10;
    uv_timer_start(&P->drain_timer, on_drain_timer, ms ? ms : 1, 0);
}

static void on_drain_timer(uv_timer_t *t)
{
    drain_check(t->data);
}

void qc_proxy_drain(proxy *P, double timeout)
{
    if (P->stopped)
        return;
    double until = qc__now() + (timeout > 0 ? timeout : 0); /* NaN, negative: at once */
    if (!P->draining) {
        P->draining = 1;
        P->drain_until = until;
        close_listeners(P);
        qc__pcore_drain(&P->core, qc__now());
    } else if (until < P->drain_until) {
        P->drain_until = until;
        P->drain_shortened = 1;
    }
    drain_check(P);
}

void qc_proxy_close(proxy *P, void (*on_closed)(qc_proxy *, void *), void *arg)
{
    if (P->close_requested)
        return;
    P->close_requested = 1;
    P->on_closed = on_closed;
    P->on_closed_arg = arg;
    if (!P->draining)
        qc_proxy_drain(P, 0);
    else if (P->stopped && P->handles == 1)
        close_own((uv_handle_t *)&P->drain_timer);
}

void qc_proxy_status_get(const proxy *P, qc_proxy_status *st)
{
    memset(st, 0, sizeof *st);
    st->state = P->stopped ? QC_LIVE_STOPPED : P->draining ? QC_LIVE_DRAINING : QC_LIVE_RUNNING;
    st->port = P->port;
    st->admin_port = P->admin_port;
    st->inflight = P->inflight;
    st->queued = P->qlen;
    st->clients = atomic_load(P->nclients);
    st->cut = P->cut;
    qc_limiter_stats ls;
    qc_limiter_get_stats(P->lim, &ls);
    st->limit = P->o->control ? ls.limit : NAN;
    for (unsigned i = 0; i < P->ncls; i++) {
        st->admitted += P->cls[i].admitted;
        st->refused += P->cls[i].refused;
        st->answered += P->cls[i].answered;
    }
    st->connections = P->conns;
    st->errors502 = P->errors502;
    st->errors504 = P->errors504;
    st->bad_requests = P->bad_requests;
}

void qc_proxy_params_init(qc_proxy_params *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:8080";
    qc_limiter_params_init(&o->limiter, QC_LIMITER_MAXUSERS);
    o->control = 1;
    o->interval = 0.1;
    o->queue = 1024; /* at least the clients of a busy host: a room smaller than the
                        client population refuses, full, what the limit only
                        holds while it rises to a fast backend */
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
    o->sample_least = 32; /* the front's: qctl/front.h */
    o->drain_timeout = 30;
    o->tls_handshake_timeout = 10;
}

static int listen_on(proxy *P, uv_tcp_t *t, const char *where, const char *port_file,
                     uv_connection_cb cb, int *port, int *open, qc_err *err)
{
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(where, &addr, err);
    if (rc)
        return rc;
    P->handles++; /* qc__listen initializes t from here on */
    *open = 1;
    if ((rc = qc__listen(P->loop, t, P, where, port_file, cb, err)) != 0)
        return rc;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    *port = uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len) == 0 ? qc__addr_port(&ss) : 0;
    return 0;
}

/* Listens on where with SO_REUSEPORT (the port `port` when >= 0: the
 * lead's, which the other workers join), so that the kernel spreads the
 * connections over the workers' sockets. */
static int listen_shared(proxy *P, uv_tcp_t *t, const char *where, int port,
                         const char *port_file, int *bound, int *open, qc_err *err)
{
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(where, &addr, err);
    if (rc)
        return rc;
    if (port >= 0) {
        if (addr.ss_family == AF_INET6)
            ((struct sockaddr_in6 *)&addr)->sin6_port = htons((uint16_t)port);
        else
            ((struct sockaddr_in *)&addr)->sin_port = htons((uint16_t)port);
    }
    uv_tcp_init(P->loop, t);
    t->data = P;
    P->handles++;
    *open = 1;
    if ((rc = qc__bind_reuseport(t, &addr, where, err)) != 0)
        return rc;
    if ((rc = uv_listen((uv_stream_t *)t, 1024, qc__proxy_on_connection)) != 0)
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(rc));
    if (port_file && (rc = qc__write_port(t, port_file, err)) != 0)
        return rc;
    struct sockaddr_storage ss;
    int len = sizeof ss;
    *bound = uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len) == 0 ? qc__addr_port(&ss) : 0;
    return 0;
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
    fp.sample_every = o->sample_every;
    fp.sample_least = o->sample_least;
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
    struct sockaddr_storage listen;
    if ((rc = qc__addr_parse(o->listen, &listen, err)) != 0) {
        qc_err_prefix(err, "--listen");
        return rc;
    }
    if (o->admin && (rc = qc__addr_parse(o->admin, &addr, err)) != 0) {
        qc_err_prefix(err, "--admin");
        return rc;
    }
    /* found here, so that --check says what the start would */
    if (o->admin && qc__addr_clash(&listen, &addr))
        return qc_err_set(err, QC_EINVAL, "--admin: '%s' is the address of --listen ('%s')",
                          o->admin, o->listen);
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
    if ((rc = qc__proxy_tls_check(o, err)) != 0)
        return rc;
    if (o->access_log_buffer &&
        (o->access_log_buffer < QC_ALOG_BUFFER_MIN || o->access_log_buffer > QC_ALOG_BUFFER_MAX))
        return qc_err_set(err, QC_EINVAL, "--access-log-buffer: %zu is not in [%u, %u]",
                          o->access_log_buffer, QC_ALOG_BUFFER_MIN, QC_ALOG_BUFFER_MAX);
    qc_front_params fp = proxy_front_config(o);
    qc_front *f;
    if ((f = qc_front_alloc(&fp, 0, err)) == NULL)
        return err && err->code ? err->code : QC_ENOMEM;
    qc_front_free(f);
    return 0;
}

static int proxy_start(uv_loop_t *loop, const qc_proxy_params *params, qc_proxy_group *g,
                       unsigned index, qc_proxy **out, qc_err *err)
{
    *out = NULL;
    int rc = qc_proxy_check(params, err);
    if (rc != 0)
        return rc;
    proxy *P = calloc(1, sizeof *P);
    if (!P)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    P->o_copy = *params;
    const qc_proxy_params *o = P->o = &P->o_copy;
    P->loop = loop;
    P->g = g;
    P->index = index;
    P->nclients = g ? &g->nclients : &P->nclients_own;
    P->mem = g ? &g->mem : &P->mem_own;
    if (index > 0) { /* the lead's alone: the admin port, the series, the port file */
        P->o_copy.admin = NULL;
        P->o_copy.series = NULL;
        P->o_copy.port_file = NULL;
    }
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
    if (g)
        P->front = g->front;
    else if ((P->front = qc_front_alloc(&fp, P->t0, err)) == NULL) {
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
    if (o->tls_cert) { /* a group's context is the group's; else P's own */
        if (g) {
            P->tls = &g->tls;
        } else {
            qc__tls_slot_init(&P->tls_own);
            P->tls = &P->tls_own;
            if ((rc = qc__proxy_tls_slot_fill(P->tls, o, err)) != 0)
                goto out;
        }
    }
    if (o->access_log) {
        if ((rc = qc__alog_open(&P->alog, P->loop, o->access_log, o->access_log_format,
                                o->access_log_buffer, err)) != 0)
            goto out;
        P->alog_on = 1;
    }
    /* the drain timer first: closed last (see "lifecycle") */
    uv_timer_init(P->loop, &P->drain_timer);
    P->drain_timer.data = P;
    P->handles = 1;
    uv_prepare_init(P->loop, &P->prep);
    P->prep.data = P;
    uv_check_init(P->loop, &P->check);
    P->check.data = P;
    uv_timer_init(P->loop, &P->control);
    P->control.data = P;
    uv_timer_init(P->loop, &P->room);
    P->room.data = P;
    P->room_due = INFINITY;
    P->handles += 4;
    for (unsigned i = 0; i < P->nb; i++) {
        uv_timer_init(P->loop, &P->backend[i].health);
        P->backend[i].health.data = &P->backend[i];
        P->handles++;
    }
    if (g) {
        uv_async_init(P->loop, &P->async, on_mailbox);
        P->async.data = P;
        P->handles++;
        pthread_mutex_lock(&g->mu);
        g->w[index].P = P;
        g->w[index].async = &P->async;
        pthread_mutex_unlock(&g->mu);
    }
    if (g && g->n > 1)
        rc = listen_shared(P, &P->listener, o->listen, index ? g->port : -1, o->port_file,
                           &P->port, &P->listener_open, err);
    else
        rc = listen_on(P, &P->listener, o->listen, o->port_file, qc__proxy_on_connection,
                       &P->port, &P->listener_open, err);
    if (rc != 0)
        goto out_handles;
    if (g && index == 0)
        g->port = P->port;
    if (o->admin) {
        P->admin_on = 1;
        if ((rc = listen_on(P, &P->admin, o->admin, o->admin_port_file,
                            qc__proxy_on_admin_connection, &P->admin_port, &P->admin_open,
                            err)) != 0 ||
            (rc = qc__proxy_admin_token_start(P, err)) != 0)
            goto out_handles;
    }
    uv_prepare_start(&P->prep, on_prepare);
    uv_check_start(&P->check, on_check);
    /* an interval beyond 10^6 s (which --check accepts) is a timer that
     * never fires in practice: capped, not overflowed */
    uint64_t ms = o->interval < 1e6 ? (uint64_t)llround(o->interval * 1000) : 1000000000u;
    uv_timer_start(&P->control, on_control, ms ? ms : 1, ms ? ms : 1);
    for (unsigned i = 0; i < P->nb; i++)
        qc__proxy_health_schedule(&P->backend[i]);
    *out = P;
    return 0;
out_handles:
    /* what was opened closes on the host's loop's next turn, and P with it */
    P->close_requested = 1;
    P->draining = 1;
    stop_all(P);
    return rc;
out:
    if (P->alog_on)
        qc__alog_close(&P->alog);
    qc__proxy_admin_token_end(P);
    if (P->series)
        fclose(P->series);
    qc__pcore_free(&P->core);
    if (!g)
        qc_front_free(P->front);
    for (unsigned i = 0; i < P->ncls; i++)
        qc_hist_free(P->cls[i].lat);
    if (P->tls == &P->tls_own)
        qc__tls_slot_destroy(&P->tls_own);
    free(P);
    return rc;
}

int qc_proxy_start(uv_loop_t *loop, const qc_proxy_params *params, qc_proxy **p, qc_err *err)
{
    return proxy_start(loop, params, NULL, 0, p, err);
}

int qc_proxy_group_start(uv_loop_t *loop, qc_proxy_group *g, unsigned index, qc_proxy **p,
                         qc_err *err)
{
    *p = NULL;
    if (index >= g->n)
        return qc_err_set(err, QC_EINVAL, "worker %u of %u", index, g->n);
    if (index > 0 && g->port == 0)
        return qc_err_set(err, QC_EINVAL, "worker %u started before the first", index);
    return proxy_start(loop, &g->o, g, index, p, err);
}

int qc_proxy_params_check(const qc_proxy_params *o, qc_err *err)
{
    int rc = qc_proxy_check(o, err);
    if (rc == 0)
        rc = qc__bind_probe(o->listen, err);
    if (rc == 0 && o->admin)
        rc = qc__bind_probe(o->admin, err);
    return rc;
}
