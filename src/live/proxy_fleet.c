/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_fleet.c: the proxy's backend fleet.
 *
 * The rules (states, idle timer, delay-JSQ) live in fleet.c, apart from any
 * I/O; this file carries them out: requests waiting for a backend's
 * setup, health probes (passive and active), taking a failing backend
 * out of rotation and back, and the un/park commands. */
#include "live/proxy_int.h"

static void park_start(pbackend *b);

/* ---- backend fleet: un/parking, health checks, routing ----------------- */

/* A request is placed at most once at a time: waiting at a SETUP backend
 * (its uconn in the backend's wait list, never connected, its timer the
 * client's deadline) or sent (counted in flight at the backend). Leaving
 * either is counted back in qc__proxy_fleet_request_done, so the fleet's counts stay
 * equal to the uconns that hold them. A request whose backend fails to
 * become healthy is routed again; one whose deadline passes while it waits is
 * answered 503, like one that waited in the admission queue. */

void qc__proxy_unwait(uconn *u)
{
    pbackend *b = u->b;
    uconn *prev = NULL;
    for (uconn *w = b->wait_head; w; prev = w, w = w->next_wait)
        if (w == u) {
            if (prev)
                prev->next_wait = w->next_wait;
            else
                b->wait_head = w->next_wait;
            if (b->wait_tail == w)
                b->wait_tail = prev;
            break;
        }
    u->next_wait = NULL;
    qc__fleet_unwait(&u->P->fleet, b->index, qc__now());
    u->placed = PLACED_NONE;
}

void qc__proxy_fleet_request_done(uconn *u, int ok)
{
    proxy *P = u->P;
    if (u->placed == PLACED_WAITING) {
        qc__proxy_unwait(u);
    } else if (u->placed == PLACED_SENT) {
        u->placed = PLACED_NONE;
        if (qc__fleet_done(&P->fleet, u->b->index, ok, qc__now()))
            park_start(u->b);
    }
}

int qc__proxy_backend_is_on(const pbackend *b)
{
    return b->P->fleet.b[b->index].state == QC_FLEET_ON;
}

static void close_idle(pbackend *b)
{
    while (b->idle)
        qc__proxy_upstream_close(b->idle); /* removes it from the list */
}

/* u waits for its backend's setup until its client's deadline. */
static void wait_setup(uconn *u)
{
    proxy *P = u->P;
    pbackend *b = u->b;
    cconn *c = u->client;
    u->placed = PLACED_WAITING;
    u->next_wait = NULL;
    if (b->wait_tail)
        b->wait_tail->next_wait = u;
    else
        b->wait_head = u;
    b->wait_tail = u;
    qc__fleet_wait(&P->fleet, b->index);
    double left = qc_front_setup_wait(P->front, c->cls, c->t_arrive, qc__now());
    uv_timer_start(&u->timer, qc__proxy_on_upstream_timer, left > 0.001 ? (uint64_t)(left * 1000) : 1, 0);
}

/* The deadline of a request waiting for a setup passed: 503. */
void qc__proxy_setup_deadline(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    u->client = NULL;
    P->setup_timeouts++;
    qc__proxy_upstream_done(u, QC_LIMITER_IGNORE);
    qc__proxy_upstream_close(u);
    if (c) {
        c->up = NULL;
        qc__proxy_refuse_why(c, QC_FRONT_DEADLINE);
    }
}

void qc__proxy_place(uconn *u, int i, int unparked)
{
    proxy *P = u->P;
    u->b = &P->backend[i];
    if (P->fleet.b[i].state == QC_FLEET_SETUP)
        wait_setup(u);
    else
        qc__proxy_send_request(u);
    if (unparked)
        qc__proxy_unpark_start(&P->backend[i]);
}

/* Routes u (its backend failed its setup) again, or answers 503. */
static void reroute(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    int unparked = 0;
    int i = c ? qc__fleet_route(&P->fleet, qc__now(), &unparked) : -1;
    if (i >= 0) {
        qc__proxy_place(u, i, unparked);
        return;
    }
    u->client = NULL;
    qc__proxy_upstream_done(u, QC_LIMITER_IGNORE);
    qc__proxy_upstream_close(u);
    if (c) {
        c->up = NULL;
        qc__proxy_refuse(c);
    }
}

static void probe_closed(uv_handle_t *h)
{
    proxy *P = ((probe *)h->data)->b->P;
    free(h->data);
    qc__proxy_handle_closed(P); /* last: it may free P */
}

static void probe_close(probe *p)
{
    if (p->closing)
        return;
    p->closing = 1;
    if (p->b->probe == p)
        p->b->probe = NULL;
    uv_close((uv_handle_t *)&p->tcp, probe_closed);
}

static void health_stop(pbackend *b)
{
    uv_timer_stop(&b->health);
    if (b->probe)
        probe_close(b->probe);
}

/* SETUP -> ON: the waiting requests go to it, in their order. */
static void backend_ready(pbackend *b)
{
    proxy *P = b->P;
    health_stop(b);
    qc__fleet_ready(&P->fleet, b->index, qc__now());
    b->out = 0;
    b->fails = 0;
    qc__proxy_health_schedule(b);
    while (b->wait_head) {
        uconn *u = b->wait_head;
        qc__proxy_unwait(u);
        if (!u->client) { /* its client went away while it waited */
            qc__proxy_upstream_done(u, QC_LIMITER_IGNORE);
            qc__proxy_upstream_close(u);
            continue;
        }
        qc__proxy_send_request(u);
    }
}

static void unpark_fail(pbackend *b, const char *why)
{
    proxy *P = b->P;
    qc__proxy_plog(P, QC_LOG_ERROR, "unpark %s failed: %s; it stays off", b->name, why);
    P->unpark_failures++;
    health_stop(b);
    uconn *list = NULL, **tail = &list;
    while (b->wait_head) {
        uconn *u = b->wait_head;
        qc__proxy_unwait(u);
        *tail = u;
        tail = &u->next_wait;
    }
    qc__fleet_unpark_failed(&P->fleet, b->index, qc__now());
    while (list) {
        uconn *u = list;
        list = u->next_wait;
        u->next_wait = NULL;
        reroute(u);
    }
}

/* ---- health ------------------------------------------------------------
 *
 * Passive: a backend that fails --max-fails requests in a row (a connect
 * refused, a link broken before the answer, a timeout) is taken out of
 * rotation: the routing avoids it while another can take the request
 * (fleet.h's down_until, held at infinity), and a probe every
 * --health-interval brings it back at its first success. Active
 * (--health-check T): every T seconds each ON backend is probed, and a
 * failed probe counts as a failed request. A probe is a GET of --health
 * (a 2xx is a success) or, without --health, a TCP connect. A SETUP
 * backend is probed by the same machinery until its first success. */

/* With workers, one health state per backend for the proxy: the
 * failures in a row are counted over all workers (a backend that fails
 * --max-fails requests is out whichever workers sent them), and out or
 * back is the group's; each worker follows it at its control tick
 * (qc__proxy_health_follow) and probes while it sees the backend out. */
static qc_proxy_group *shared_health(const proxy *P)
{
    return P->g && P->g->n > 1 ? P->g : NULL;
}

static void take_out(pbackend *b, const char *why)
{
    proxy *P = b->P;
    b->out = 1;
    b->ejections++;
    P->fleet.b[b->index].down_until = INFINITY;
    qc__proxy_plog(P, QC_LOG_WARN, "backend %s out of rotation %s; probed every %g s", b->name,
                   why, P->o->health_interval);
    qc__proxy_health_schedule(b);
}

static void bring_back(pbackend *b)
{
    proxy *P = b->P;
    b->out = 0;
    P->fleet.b[b->index].down_until = -INFINITY;
    qc__proxy_plog(P, QC_LOG_INFO, "backend %s back in rotation", b->name);
    qc__proxy_health_schedule(b);
}

/* A request or probe of b failed. */
void qc__proxy_backend_failed(pbackend *b)
{
    proxy *P = b->P;
    unsigned max = P->o->max_fails;
    if (b->out || max == 0)
        return;
    qc_proxy_group *g = shared_health(P);
    b->fails = g ? atomic_fetch_add(&g->hfails[b->index], 1) + 1 : b->fails + 1;
    if (b->fails < max || P->fleet.b[b->index].state != QC_FLEET_ON)
        return;
    if (g)
        atomic_store(&g->hout[b->index], 1);
    char why[64];
    snprintf(why, sizeof why, "after %u failures in a row", b->fails);
    take_out(b, why);
}

/* b answered a request or a probe. */
void qc__proxy_backend_answered(pbackend *b)
{
    b->fails = 0;
    qc_proxy_group *g = shared_health(b->P);
    if (g) { /* loads first: no store (no shared cache line written) while all is well */
        if (atomic_load(&g->hfails[b->index]))
            atomic_store(&g->hfails[b->index], 0);
        if (atomic_load(&g->hout[b->index]))
            atomic_store(&g->hout[b->index], 0);
    }
    if (b->out)
        bring_back(b);
}

/* Every control interval, with workers: take each backend out or bring
 * it back as another worker decided. */
static void health_follow(proxy *P)
{
    qc_proxy_group *g = shared_health(P);
    if (!g || P->o->max_fails == 0)
        return;
    for (unsigned i = 0; i < P->nb; i++) {
        pbackend *b = &P->backend[i];
        int out = atomic_load(&g->hout[i]);
        if (out && !b->out && P->fleet.b[i].state == QC_FLEET_ON)
            take_out(b, "as another worker found it");
        else if (!out && b->out)
            bring_back(b);
    }
}

/* The outcome of probe p; p is closed. */
static void probe_result(probe *p, int ok)
{
    pbackend *b = p->b;
    int current = b->probe == p;
    probe_close(p);
    if (!current)
        return;
    qc__fleet_state st = b->P->fleet.b[b->index].state;
    if (st == QC_FLEET_SETUP) {
        if (ok)
            backend_ready(b);
    } else if (st == QC_FLEET_ON) {
        if (ok)
            qc__proxy_backend_answered(b);
        else
            qc__proxy_backend_failed(b);
    }
}

static void on_probe_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    probe *p = s->data;
    if (n == 0)
        return;
    if (n < 0) {
        probe_result(p, 0);
        return;
    }
    size_t k = (size_t)n < sizeof p->buf - p->len ? (size_t)n : sizeof p->buf - p->len;
    memcpy(p->buf + p->len, buf->base, k);
    p->len += k;
    if (p->len < 12)
        return;
    /* "HTTP/1.x NNN": only the status matters */
    probe_result(p, memcmp(p->buf, "HTTP/1.", 7) == 0 && p->buf[9] == '2');
}

static void on_probe_connect(uv_connect_t *req, int status)
{
    probe *p = req->data;
    if (p->closing)
        return;
    if (status < 0 || !p->b->P->o->health) { /* without a path, the connect is the probe */
        probe_result(p, status >= 0);
        return;
    }
    char get[512];
    int k = snprintf(get, sizeof get, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n",
                     p->b->P->o->health, p->b->name);
    if (k <= 0 || (size_t)k >= sizeof get ||
        qc__write_copy((uv_stream_t *)&p->tcp, get, (size_t)k) != 0 ||
        uv_read_start((uv_stream_t *)&p->tcp, qc__proxy_alloc_cb, on_probe_read) != 0)
        probe_result(p, 0);
}

static void on_health_tick(uv_timer_t *t)
{
    pbackend *b = t->data;
    proxy *P = b->P;
    qc__fleet_state st = P->fleet.b[b->index].state;
    if (st != QC_FLEET_SETUP && !(st == QC_FLEET_ON && (b->out || P->o->health_check > 0))) {
        health_stop(b);
        return;
    }
    if (st == QC_FLEET_SETUP &&
        qc__now() - P->fleet.b[b->index].unparked_at > P->o->setup_timeout) {
        char why[96];
        snprintf(why, sizeof why, "not healthy after %g s", P->o->setup_timeout);
        unpark_fail(b, why);
        return;
    }
    if (b->probe) /* unanswered for a whole interval: a failure; try afresh */
        probe_result(b->probe, 0);
    if (P->fleet.b[b->index].state != st)
        return;
    probe *p = calloc(1, sizeof *p);
    if (!p)
        return;
    p->kind = K_FLEET;
    p->what = F_PROBE;
    p->b = b;
    uv_tcp_init(P->loop, &p->tcp);
    P->handles++;
    p->tcp.data = p->connect.data = p;
    b->probe = p;
    if (uv_tcp_connect(&p->connect, &p->tcp, (struct sockaddr *)&b->addr, on_probe_connect) != 0)
        probe_close(p);
}

/* The probes of an ON backend: every --health-interval while out of
 * rotation, else every --health-check seconds (0: none). */
void qc__proxy_health_schedule(pbackend *b)
{
    proxy *P = b->P;
    if (P->fleet.b[b->index].state != QC_FLEET_ON)
        return;
    double every = b->out ? P->o->health_interval : P->o->health_check;
    if (!(every > 0)) {
        health_stop(b);
        return;
    }
    uint64_t ms = (uint64_t)llround(every * 1000);
    uv_timer_start(&b->health, on_health_tick, ms ? ms : 1, ms ? ms : 1);
}

/* After the unpark command: poll the health path, or be ON at once. */
static void health_start(pbackend *b)
{
    proxy *P = b->P;
    if (!P->o->health) {
        backend_ready(b);
        return;
    }
    uint64_t ms = (uint64_t)llround(P->o->health_interval * 1000);
    uv_timer_start(&b->health, on_health_tick, 0, ms ? ms : 1);
}

static void on_cmd_closed(uv_handle_t *h)
{
    fcmd *c = h->data;
    proxy *P = c->b->P;
    if (--c->handles_open == 0)
        free(c);
    qc__proxy_handle_closed(P); /* last: it may free P */
}

static void cmd_close(fcmd *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->b->cmd == c)
        c->b->cmd = NULL;
    if (!c->exited && c->spawned)
        uv_process_kill(&c->proc, SIGKILL);
    uv_close((uv_handle_t *)&c->proc, on_cmd_closed);
    uv_close((uv_handle_t *)&c->timer, on_cmd_closed);
}

/* An un/park command ended (or failed to start): ok, or why not. */
static void cmd_finished(pbackend *b, int park, const char *why)
{
    proxy *P = b->P;
    if (!park) {
        if (why)
            unpark_fail(b, why);
        else
            health_start(b);
        return;
    }
    if (why) {
        qc__proxy_plog(P, QC_LOG_ERROR, "park %s failed: %s; counted off", b->name, why);
        P->park_failures++;
    }
    qc__fleet_off(&P->fleet, b->index, qc__now());
}

static void on_cmd_exit(uv_process_t *proc, int64_t status, int sig)
{
    fcmd *c = proc->data;
    char why[96] = "";
    c->exited = 1;
    if (c->timed_out)
        snprintf(why, sizeof why, "command timed out after %g s", c->b->P->o->cmd_timeout);
    else if (sig)
        snprintf(why, sizeof why, "command killed by signal %d", sig);
    else if (status)
        snprintf(why, sizeof why, "command exited with status %lld", (long long)status);
    pbackend *b = c->b;
    int park = c->park;
    cmd_close(c);
    cmd_finished(b, park, why[0] ? why : NULL);
}

static void on_cmd_timer(uv_timer_t *t)
{
    fcmd *c = t->data;
    c->timed_out = 1;
    uv_process_kill(&c->proc, SIGKILL);
}

/* CMD with {backend}, {host} and {port} replaced by b's. */
static int expand(const pbackend *b, const char *cmd, char *out, size_t size)
{
    size_t n = 0;
    char port[16];
    snprintf(port, sizeof port, "%d", b->port);
    for (const char *s = cmd; *s;) {
        const char *v = NULL;
        size_t skip = 1;
        if (strncmp(s, "{backend}", 9) == 0)
            v = b->name, skip = 9;
        else if (strncmp(s, "{host}", 6) == 0)
            v = b->host, skip = 6;
        else if (strncmp(s, "{port}", 6) == 0)
            v = port, skip = 6;
        size_t k = v ? strlen(v) : 1;
        if (n + k >= size)
            return -1;
        memcpy(out + n, v ? v : s, k);
        n += k;
        s += skip;
    }
    out[n] = 0;
    return 0;
}

/* Runs the un/park command of b through /bin/sh -c, bounded in time. */
static void run_cmd(pbackend *b, int park)
{
    proxy *P = b->P;
    const char *tmpl = park ? P->o->park_cmd : P->o->unpark_cmd;
    char cmd[4096];
    if (expand(b, tmpl, cmd, sizeof cmd) != 0) {
        cmd_finished(b, park, "command too long");
        return;
    }
    fcmd *c = calloc(1, sizeof *c);
    if (!c) {
        cmd_finished(b, park, "out of memory");
        return;
    }
    c->kind = K_FLEET;
    c->what = F_CMD;
    c->b = b;
    c->park = park;
    c->handles_open = 2;
    c->proc.data = c->timer.data = c;
    uv_timer_init(P->loop, &c->timer);
    P->handles += 2; /* the timer and the process (closed even if not spawned) */
    char *args[] = {"/bin/sh", "-c", cmd, NULL};
    uv_stdio_container_t io[3] = {{.flags = UV_IGNORE},
                                  {.flags = UV_INHERIT_FD, .data.fd = 2},
                                  {.flags = UV_INHERIT_FD, .data.fd = 2}};
    uv_process_options_t po = {
        .exit_cb = on_cmd_exit, .file = "/bin/sh", .args = args, .stdio_count = 3, .stdio = io};
    int rc = uv_spawn(P->loop, &c->proc, &po);
    if (rc != 0) {
        char why[96];
        snprintf(why, sizeof why, "cannot run /bin/sh: %s", uv_strerror(rc));
        c->exited = 1;
        cmd_close(c);
        cmd_finished(b, park, why);
        return;
    }
    c->spawned = 1;
    b->cmd = c;
    uv_timer_start(&c->timer, on_cmd_timer, (uint64_t)llround(P->o->cmd_timeout * 1000), 0);
}

void qc__proxy_unpark_start(pbackend *b)
{
    if (b->P->o->unpark_cmd)
        run_cmd(b, 0);
    else
        health_start(b);
}

/* b is PARKING with nothing in flight: no link to it is kept. */
static void park_start(pbackend *b)
{
    close_idle(b);
    if (b->P->o->park_cmd)
        run_cmd(b, 1);
    else
        qc__fleet_off(&b->P->fleet, b->index, qc__now());
}

/* Every control interval: the idle timer and min-on. */
void qc__proxy_fleet_tick(proxy *P, double now)
{
    health_follow(P);
    unsigned park[QC_FLEET_MAX], unpark[QC_FLEET_MAX], np, nu;
    qc__fleet_tick(&P->fleet, now, park, &np, unpark, &nu);
    for (unsigned k = 0; k < np; k++)
        park_start(&P->backend[park[k]]);
    for (unsigned k = 0; k < nu; k++)
        qc__proxy_unpark_start(&P->backend[unpark[k]]);
}

/* Closes a fleet handle at exit (close_walk). */
static void health_closed(uv_handle_t *h)
{
    qc__proxy_handle_closed(((pbackend *)h->data)->P);
}

void qc__proxy_fleet_handle_close(uv_handle_t *h)
{
    int what = ((const int *)h->data)[1];
    if (what == F_PROBE)
        probe_close(h->data);
    else if (what == F_CMD)
        cmd_close(h->data);
    else
        uv_close(h, health_closed); /* a backend's health timer */
}
