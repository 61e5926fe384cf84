/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load.c: `qctl load`, an HTTP load generator, open or closed loop.
 *
 * Open loop means arrivals do not wait for answers: request i is due at
 * t_0 + T_i, T_i the i-th time of the arrival process (qctl/arrivals.h: a
 * renewal process, a rate schedule, a curve, a trace, or the request times
 * drawn from a traffic model), whatever the server is doing. Its latency
 * is measured from t_0 + T_i, its intended send time, not from when a
 * connection was free to carry it; otherwise a slow server
 * would slow the generator down and hide its own queueing (coordinated
 * omission). A request due while every connection is busy waits in the
 * generator's own queue, and that wait counts.
 *
 * Accounting is the point of the tests built on it: every request issued
 * ends exactly once, as answered (by status: 2xx, 503, other), as an
 * error (its connection failed before a full answer) or as a timeout, so
 * sent = answered + errors + timeouts at the end of every run.
 *
 * Closed loop (users > 0): N users each own one connection and have at
 * most one request out. A user sends, waits for the answer (or the
 * failure), then thinks for Z (a draw of the think spec) and sends again;
 * with sessions, after a session's K requests (K a draw of the session
 * spec, rounded up, at least 1) it is off for a draw of the off spec
 * instead. A request is due when the think (or off) time ends, and its
 * latency is measured from then, so the time a user spends is exactly the
 * sum of its think times and latencies, and the throughput obeys the
 * closed-network law X = N / (R + Z) up to the last, partial cycle. The
 * same accounting holds (sent = answered + errors + timeouts); a user
 * whose connection failed thinks and sends on a new one.
 *
 * Series: every interval a CSV row counts what was sent and answered in
 * it, with the percentiles of the latencies answered in it.
 *
 * As a library (live.h, "the load on a host's loop") a load runs on the
 * host's loop: it counts the handles it opens and closes only those, and
 * touches nothing process-wide. qc_load_run spreads one load over loops
 * on threads of their own as parts: part i of n issues the arrivals
 * i, i + n, i + 2n, ... of the one arrival process (each part draws the
 * whole sequence from the same seed and keeps its own), and takes its
 * share of the users, the connections and the --requests bound, so the
 * requests issued are those of one loop, and the counts and histograms
 * of the parts add up exactly. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/http.h"
#include "live/list.h"
#include "live/live.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/rng.h"
#include "qctl/traffic.h"

typedef struct lconn lconn;

typedef struct pending {
    double due;
    struct pending *next;
} pending;

typedef struct user user;

/* One request for --dump: when it was due (from t0), its latency, its
 * status (0: a connection error). */
typedef struct drec {
    double due, lat;
    int status;
} drec;

typedef struct drecs {
    drec *v;
    size_t n, cap;
    int oom;
} drecs;

static void drecs_add(drecs *d, double due, double lat, int status)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? 2 * d->cap : 4096;
        drec *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            d->oom = 1;
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = (drec){due, lat, status};
}

typedef struct load {
    uv_loop_t *loop; /* the host's: the load closes only its own handles */
    qc_load_params o_copy; /* this part's share of the caller's */
    const qc_load_params *o; /* &o_copy */
    unsigned part, parts;
    /* closed loop over parts: the requests issued by every part, each
     * request's ticket taken here (NULL: the load's own count) */
    atomic_uint_fast64_t *issued;
    struct sockaddr_storage addr;
    qc_rng rng, urng;
    qc_arrivals_gen gen;
    uv_timer_t arrive, tick, stime;
    double t0, next_due, stop_at, last_done;
    int issuing;
    user *users;
    double think_sum;
    uint64_t think_n;
    double lat_sum;
    /* series: counters at the start of the interval, and its histogram */
    qc_ofile series;
    int series_on;
    uint64_t s_sent, s_answered, s_ok, s_refused, s_errors;
    double s_next;
    qc_hist *iv, *iv_ok; /* this interval's latencies: all answers, 2xx */
    unsigned open_conns;
    lconn *idle;
    pending *wait_head, *wait_tail;
    uint64_t waiting;
    qc_load_result res;
    qc_load_result *r; /* &res */
    qc_hist *all, *ok;
    char req[1024];
    size_t req_len;
    /* the lifecycle: every handle opened counted until its close callback,
     * the connections on a list; the tick timer opened first, closed last */
    unsigned handles;
    lconn *conns_head, *conns_tail;
    int ended, close_requested, logged_connect;
    double drain_until; /* qc_load_drain: wait for answers until then */
    void (*on_closed)(qc_load *l, void *arg);
    void *on_closed_arg;
    qc_err series_err; /* the series file could not be written */
    drecs dump;        /* o->dump: the requests answered or failed */
    char slab[65536]; /* the read buffer: the load's own, not a static */
} load;

struct lconn {
    uv_tcp_t tcp;
    uv_connect_t connect;
    load *L;
    qc__buf in;
    int connected, active, closing;
    double due; /* of the request in flight */
    lconn *next_idle;
    lconn *all_prev, *all_next; /* L's connections */
    user *u;    /* closed loop: the user owning it */
};

struct user {
    load *L;
    lconn *c;         /* NULL until the first send or after a close */
    uv_timer_t timer; /* end of the think or off time */
    double due;       /* when the next request is due */
    double think;     /* the think time before it */
    int after_off;    /* 1: it follows an off time, not a think time */
    uint64_t left;    /* requests left in the session */
    int stopped;
};

static void user_answered(user *u);
static int done_issuing(load *L);

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static void dispatch(load *L);
static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf);

static void handle_closed(load *L);

static void on_closed(uv_handle_t *h)
{
    lconn *c = h->data;
    load *L = c->L;
    QC__LIST_REMOVE(L->conns_head, L->conns_tail, c, all_prev, all_next);
    qc__buf_free(&c->in);
    free(c);
    handle_closed(L);
}

static void own_closed(uv_handle_t *h)
{
    handle_closed(h->data);
}

static void user_closed(uv_handle_t *h)
{
    handle_closed(((user *)h->data)->L);
}

static void finish(load *L, double due, int status)
{
    double now = qc__now(), lat = now - due;
    L->last_done = now;
    if (L->o->dump)
        drecs_add(&L->dump, due - L->t0, lat, status);
    L->r->answered++;
    L->lat_sum += lat;
    qc_hist_add(L->all, lat);
    if (L->iv)
        qc_hist_add(L->iv, lat);
    if (status >= 200 && status < 300) {
        L->r->ok++;
        qc_hist_add(L->ok, lat);
        if (L->iv_ok)
            qc_hist_add(L->iv_ok, lat);
    } else if (status == 503) {
        L->r->refused++;
    } else {
        L->r->other++;
    }
}

static void remove_idle(load *L, lconn *c)
{
    for (lconn **pp = &L->idle; *pp; pp = &(*pp)->next_idle)
        if (*pp == c) {
            *pp = c->next_idle;
            return;
        }
}

static void conn_fail(lconn *c)
{
    load *L = c->L;
    if (c->closing)
        return;
    c->closing = 1;
    int was_active = c->active;
    if (c->active) {
        L->r->errors++;
        L->last_done = qc__now();
        if (L->o->dump)
            drecs_add(&L->dump, c->due - L->t0, L->last_done - c->due, 0);
        c->active = 0;
    }
    remove_idle(L, c);
    L->open_conns--;
    uv_close((uv_handle_t *)&c->tcp, on_closed);
    if (c->u) {
        user *u = c->u;
        u->c = NULL;
        if (was_active)
            user_answered(u);
        return;
    }
    dispatch(L);
}

static void send_on(lconn *c, double due)
{
    c->active = 1;
    c->due = due;
    c->L->r->sent++;
    if (qc__write_copy((uv_stream_t *)&c->tcp, c->L->req, c->L->req_len) != 0)
        conn_fail(c);
}

static void on_connect(uv_connect_t *req, int status)
{
    lconn *c = req->data;
    if (status < 0) {
        load *L = c->L;
        if (!L->logged_connect && L->o->log && status != UV_ECANCELED) {
            char line[160]; /* once: a refused target fails every request alike */
            snprintf(line, sizeof line, "connect to %s: %s", L->o->target, uv_strerror(status));
            L->logged_connect = 1;
            L->o->log(L->o->log_ctx, line);
        }
        conn_fail(c);
        return;
    }
    c->connected = 1;
    uv_tcp_nodelay(&c->tcp, 1);
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_read);
}

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)hint;
    load *L = ((lconn *)h->data)->L;
    *buf = uv_buf_init(L->slab, sizeof L->slab);
}

/* Opens a connection (user u's, or one of the open-loop pool when u is
 * NULL) and sends the request due at `due` on it: the request is written
 * at once, libuv queues it until the connection is up. Returns 0 (a
 * failed connect is counted as the request's error), or -1 when out of
 * memory, with nothing counted. */
static int open_and_send(load *L, user *u, double due)
{
    lconn *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->L = L;
    c->u = u;
    uv_tcp_init(L->loop, &c->tcp);
    c->tcp.data = c->connect.data = c;
    L->handles++;
    QC__LIST_PUSH_TAIL(L->conns_head, L->conns_tail, c, all_prev, all_next);
    L->open_conns++;
    if (u)
        u->c = c;
    if (uv_tcp_connect(&c->connect, &c->tcp, (struct sockaddr *)&L->addr, on_connect) != 0) {
        L->r->sent++;
        c->active = 1;
        conn_fail(c);
        return 0;
    }
    send_on(c, due);
    return 0;
}

/* Sends the request due at `due` on an idle connection, a new one, or
 * queues it. */
static void issue(load *L, double due)
{
    if (L->idle) {
        lconn *c = L->idle;
        L->idle = c->next_idle;
        send_on(c, due);
        return;
    }
    if (L->open_conns < L->o->connections && open_and_send(L, NULL, due) == 0)
        return;
    pending *p = malloc(sizeof *p);
    if (!p) {
        L->r->sent++;
        L->r->errors++;
        return;
    }
    p->due = due;
    QC__FIFO_PUSH(L->wait_head, L->wait_tail, p, next);
    L->waiting++;
}

/* Takes the oldest waiting request off the queue (there is one): its due
 * time. */
static double wait_pop(load *L)
{
    pending *p;
    QC__FIFO_POP(L->wait_head, L->wait_tail, p, next);
    L->waiting--;
    const double due = p->due;
    free(p);
    return due;
}

/* A connection freed or closed: give it the oldest waiting request. */
static void dispatch(load *L)
{
    while (L->wait_head && (L->idle || L->open_conns < L->o->connections))
        issue(L, wait_pop(L));
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    lconn *c = s->data;
    load *L = c->L;
    if (n < 0) {
        conn_fail(c);
        return;
    }
    if (n == 0 || qc__buf_append(&c->in, buf->base, (size_t)n) != 0)
        return;
    for (;;) {
        qc__http_head h;
        const char *why;
        int rc = qc__http_parse_head(c->in.data, c->in.len, 0, &h, &why);
        if (rc < 0 || (rc > 0 && !c->active)) {
            conn_fail(c);
            return;
        }
        if (rc == 0)
            return;
        if (!h.chunked && h.content_length < 0 && h.status != 204 && h.status != 304) {
            conn_fail(c); /* a body to the close: not used by qctl's servers */
            return;
        }
        long total = qc__http_message_len(c->in.data, c->in.len, &h, UINT64_MAX, &why);
        if (total < 0) {
            conn_fail(c);
            return;
        }
        if (total == 0)
            return;
        qc__buf_consume(&c->in, (size_t)total);
        c->active = 0;
        finish(L, c->due, h.status);
        if (!h.keep_alive) {
            c->closing = 1;
            L->open_conns--;
            uv_close((uv_handle_t *)&c->tcp, on_closed);
            if (c->u) {
                c->u->c = NULL;
                user_answered(c->u);
                return;
            }
            dispatch(L);
            return;
        }
        if (c->u) {
            user_answered(c->u);
            continue; /* an unasked answer then fails the connection */
        }
        if (L->wait_head) {
            send_on(c, wait_pop(L));
        } else {
            c->next_idle = L->idle;
            L->idle = c;
        }
    }
}

static int done_issuing(load *L)
{
    uint64_t n = L->issued ? atomic_load_explicit(L->issued, memory_order_relaxed)
                           : L->r->sent + L->waiting;
    if (L->o->requests && n >= L->o->requests)
        return 1;
    return L->o->duration > 0 && L->next_due - L->t0 >= L->o->duration;
}

static void stop_issuing(load *L)
{
    if (L->issuing) {
        L->issuing = 0;
        L->stop_at = qc__now();
    }
}

/* ---- closed loop -------------------------------------------------------- */

static void user_fire(uv_timer_t *t);

/* Starts the user's timer so that its next request is due `delay` from
 * now. */
static void user_wait(user *u, double delay)
{
    u->due = qc__now() + delay;
    uv_timer_start(&u->timer, user_fire, (uint64_t)(delay * 1000), 0);
}

static double draw(const qc_dist *d, qc_rng *r)
{
    if (!d)
        return 0;
    double x = qc_dist_sample(d, r);
    return x > 0 && isfinite(x) ? x : 0;
}

static uint64_t session_length(load *L)
{
    if (!L->o->session)
        return UINT64_MAX;
    double k = ceil(qc_dist_sample(L->o->session, &L->urng));
    return k >= 1 && k < 1e18 ? (uint64_t)k : 1;
}

/* The user's request ended (answered or failed): think, or go off. */
static void user_answered(user *u)
{
    load *L = u->L;
    if (u->stopped)
        return;
    if (u->left != UINT64_MAX)
        u->left--;
    if (u->left == 0) {
        u->left = session_length(L);
        u->after_off = 1;
        user_wait(u, draw(L->o->off, &L->urng));
    } else {
        u->after_off = 0;
        u->think = draw(L->o->think, &L->urng);
        user_wait(u, u->think);
    }
}

static void user_fire(uv_timer_t *t)
{
    user *u = t->data;
    load *L = u->L;
    double now = qc__now();
    if (now < u->due) { /* libuv's timers have millisecond steps */
        uv_timer_start(&u->timer, user_fire, (uint64_t)((u->due - now) * 1000), 0);
        return;
    }
    L->next_due = u->due;
    if (!L->issuing || done_issuing(L) ||
        (L->issued && L->o->requests &&
         atomic_fetch_add_explicit(L->issued, 1, memory_order_relaxed) >= L->o->requests)) {
        stop_issuing(L);
        u->stopped = 1;
        return;
    }
    if (!u->after_off) {
        /* the think times that precede requests: with the response times,
         * they make up each user's time */
        L->think_sum += u->think;
        L->think_n++;
    }
    if (u->c) /* open (or still connecting: written when it is up) */
        send_on(u->c, u->due);
    else if (open_and_send(L, u, u->due) != 0) {
        L->r->sent++;
        L->r->errors++;
        user_answered(u);
    }
}

/* This part's next arrival time: the k-th of the whole process from here
 * (the arrivals of the other parts drawn and passed over). */
static double next_arrival(load *L, unsigned k)
{
    double at = INFINITY;
    for (unsigned i = 0; i < k; i++)
        if (!isfinite(at = qc_arrivals_next(&L->gen)))
            break;
    return at;
}

static void on_arrive(uv_timer_t *t)
{
    load *L = t->data;
    double now = qc__now();
    while (L->issuing && L->next_due <= now) {
        if (done_issuing(L)) {
            stop_issuing(L);
            break;
        }
        issue(L, L->next_due);
        double at = next_arrival(L, L->parts);
        if (!isfinite(at)) { /* a trace or a schedule ended */
            stop_issuing(L);
            break;
        }
        L->next_due = L->t0 + at;
        if (done_issuing(L)) { /* not one more wait past the bound */
            stop_issuing(L);
            break;
        }
    }
    if (L->issuing) {
        double wait = L->next_due - qc__now();
        uv_timer_start(&L->arrive, on_arrive, wait > 0 ? (uint64_t)(wait * 1000) : 0, 0);
    }
}

/* ---- series -------------------------------------------------------------- */

static void series_row(load *L, double now)
{
    const qc_load_result *r = L->r;
    double p50 = qc_hist_quantile(L->iv, 0.5), p95 = qc_hist_quantile(L->iv, 0.95);
    fprintf(L->series.fp, "%.3f,%llu,%llu,%llu,%llu,%llu,", now - L->t0,
            (unsigned long long)(r->sent - L->s_sent),
            (unsigned long long)(r->answered - L->s_answered),
            (unsigned long long)(r->ok - L->s_ok), (unsigned long long)(r->refused - L->s_refused),
            (unsigned long long)(r->errors - L->s_errors));
    double ok95 = qc_hist_quantile(L->iv_ok, 0.95);
    if (isnan(p50))
        fputs(",,", L->series.fp);
    else
        fprintf(L->series.fp, "%.6g,%.6g,", p50, p95);
    if (isnan(ok95))
        fputs("\n", L->series.fp);
    else
        fprintf(L->series.fp, "%.6g\n", ok95);
    L->s_sent = r->sent;
    L->s_answered = r->answered;
    L->s_ok = r->ok;
    L->s_refused = r->refused;
    L->s_errors = r->errors;
    qc_hist_reset(L->iv);
    qc_hist_reset(L->iv_ok);
}

/* One row per timer expiry, labelled with the interval's nominal end:
 * libuv's clock and qc__now() may differ by a millisecond, so the row is
 * written when the timer fires rather than when the clock says so; a
 * stalled loop's missed intervals get rows too. */
static void on_series(uv_timer_t *t)
{
    load *L = t->data;
    double now = qc__now(), dt = L->o->series_interval;
    do {
        series_row(L, L->s_next);
        L->s_next += dt;
    } while (now >= L->s_next + 0.5 * dt);
}

/* The load is over: what is outstanding times out, the counts are final,
 * every handle but the tick timer closes (the host's qc_load_close closes
 * that one), and the host is told. */
static void end(load *L, double now)
{
    if (L->ended)
        return;
    L->ended = 1;
    stop_issuing(L);
    uint64_t outstanding = L->r->sent + L->waiting - L->r->answered - L->r->errors;
    L->r->timeouts += outstanding;
    L->r->sent += L->waiting; /* queued then timed out: sent in intent */
    L->r->elapsed = (outstanding || !(L->last_done > L->t0) ? now : L->last_done) - L->t0;
    if (L->series_on) {
        if (now > L->s_next - L->o->series_interval + 1e-6)
            series_row(L, now); /* the last, partial interval */
        L->series_on = 0;
        if (qc_ofile_commit(&L->series, &L->series_err) != 0 && L->o->log)
            L->o->log(L->o->log_ctx, L->series_err.msg);
    }
    uv_timer_stop(&L->tick);
    uv_close((uv_handle_t *)&L->arrive, own_closed);
    uv_close((uv_handle_t *)&L->stime, own_closed);
    if (L->users)
        for (unsigned i = 0; i < L->o->users; i++)
            uv_close((uv_handle_t *)&L->users[i].timer, user_closed);
    for (lconn *c = L->conns_head; c; c = c->all_next)
        if (!c->closing) {
            c->closing = 1;
            L->open_conns--;
            uv_close((uv_handle_t *)&c->tcp, on_closed);
        }
    L->idle = NULL;
    pending *p = L->wait_head;
    while (p) {
        pending *next = p->next;
        free(p);
        p = next;
    }
    L->wait_head = L->wait_tail = NULL;
    L->waiting = 0;
    if (L->o->done)
        L->o->done(L, L->o->done_ctx);
}

/* Ends the run once nothing is in flight, or times the stragglers out. */
static void on_tick(uv_timer_t *t)
{
    load *L = t->data;
    double now = qc__now();
    if (L->issuing && L->users &&
        ((L->o->requests && (L->issued ? done_issuing(L) : L->r->sent >= L->o->requests)) ||
         (L->o->duration > 0 && now - L->t0 >= L->o->duration)))
        stop_issuing(L); /* even if every user waits on an answer */
    if (L->issuing)
        return;
    uint64_t outstanding = L->r->sent + L->waiting - L->r->answered - L->r->errors;
    int late = now - L->stop_at > L->o->timeout || now >= L->drain_until;
    if (outstanding && !late)
        return;
    end(L, now);
}

static int check_opts(const qc_load_params *o, qc_err *err)
{
    if (o->users == 0 && !o->arrival)
        return qc_err_set(err, QC_EINVAL, "an arrival process or users are needed");
    if (!o->requests && !(o->duration > 0) &&
        (o->users || o->arrival->kind != QC_ARRIVALS_TRACE))
        return qc_err_set(err, QC_EINVAL, "a bound is needed: --requests or --duration");
    if (o->connections == 0)
        return qc_err_set(err, QC_EINVAL, "connections: must be >= 1");
    if (!(o->timeout > 0))
        return qc_err_set(err, QC_EINVAL, "timeout: must be > 0");
    if (o->series && !(o->series_interval > 0 && isfinite(o->series_interval)))
        return qc_err_set(err, QC_EINVAL, "series interval: must be > 0");
    if (o->series && o->threads > 1)
        return qc_err_set(err, QC_EINVAL, "series: written by one thread only (threads 1)");
    return 0;
}

static void load_free(load *L)
{
    qc_hist_free(L->all);
    qc_hist_free(L->ok);
    qc_hist_free(L->iv);
    qc_hist_free(L->iv_ok);
    free(L->dump.v);
    free(L->users);
    free(L);
}

static void handle_closed(load *L)
{
    if (--L->handles == 0) {
        if (L->on_closed)
            L->on_closed(L, L->on_closed_arg);
        load_free(L);
    }
}

/* ---- the load on a host's loop (live.h) ---------------------------------- */

/* part's share of n split over parts: n / parts, and one more for the
 * first n % parts parts. */
static uint64_t share(uint64_t n, unsigned part, unsigned parts)
{
    return n / parts + (part < n % parts);
}

int qc__load_start_part(uv_loop_t *loop, const qc_load_params *o, unsigned part, unsigned parts,
                        double t0, atomic_uint_fast64_t *issued, qc_load **out, qc_err *err)
{
    *out = NULL;
    if (parts == 0)
        parts = 1;
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(o->target, &addr, err);
    if (rc || (rc = check_opts(o, err)) != 0)
        return rc;
    load *L = calloc(1, sizeof *L);
    if (!L)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    L->o_copy = *o;
    L->o = &L->o_copy;
    L->r = &L->res;
    L->addr = addr;
    L->part = part;
    L->parts = parts;
    L->drain_until = INFINITY;
    if (parts > 1) { /* this part's share of the bounds and of the users */
        /* a closed loop's requests counted over the parts (issued): the
         * parts stop together, as one loop's users do; an open loop's
         * split by the arrivals' indices (the same requests) */
        if (o->users && issued)
            L->issued = issued;
        else
            L->o_copy.requests = share(o->requests, part, parts);
        L->o_copy.connections = (unsigned)share(o->connections, part, parts);
        L->o_copy.users = (unsigned)share(o->users, part, parts);
        if (!L->o_copy.connections) /* not used by a closed loop's users */
            L->o_copy.connections = 1;
        if ((o->requests && !L->o_copy.requests) || (!o->users && o->connections < parts) ||
            (o->users && !L->o_copy.users)) {
            free(L);
            return qc_err_set(err, QC_EINVAL,
                              "threads: %u parts is more than the requests, connections or "
                              "users to share",
                              parts);
        }
    }
    o = L->o;
    int k =
        snprintf(L->req, sizeof L->req, "GET %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n", o->path,
                 o->target, o->class_header ? o->class_header : "", o->class_header ? "\r\n" : "");
    if (k <= 0 || (size_t)k >= sizeof L->req) {
        free(L);
        return qc_err_set(err, QC_EINVAL, "request line too long");
    }
    L->req_len = (size_t)k;
    L->all = qc_hist_alloc(err);
    L->ok = qc_hist_alloc(err);
    L->iv = o->series ? qc_hist_alloc(err) : NULL;
    L->iv_ok = o->series ? qc_hist_alloc(err) : NULL;
    L->users = o->users ? calloc(o->users, sizeof *L->users) : NULL;
    if (!L->all || !L->ok || (o->series && (!L->iv || !L->iv_ok)) || (o->users && !L->users)) {
        load_free(L);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    if (o->series) {
        if ((rc = qc_ofile_open(&L->series, o->series, err)) != 0) {
            load_free(L);
            return rc;
        }
        L->series_on = 1;
        fputs("time,sent,answered,ok,refused,errors,p50,p95,ok_p95\n", L->series.fp);
    }
    L->loop = loop;
    /* every part draws the one arrival sequence (see the top); the users'
     * draws are each part's own, part 0's those of a load alone */
    qc_rng_init(&L->rng, o->seed, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&L->urng, o->seed, qc_rng_stream(part, QC_STREAM_USER, 0));
    uv_timer_init(loop, &L->tick); /* first: closed last */
    uv_timer_init(loop, &L->arrive);
    uv_timer_init(loop, &L->stime);
    L->arrive.data = L->tick.data = L->stime.data = L;
    L->handles = 3;
    L->t0 = t0 > 0 ? t0 : qc__now();
    L->issuing = 1;
    if (o->users) {
        /* every user starts with a think time, so that users with random
         * think times do not all send at once */
        for (unsigned i = 0; i < o->users; i++) {
            user *u = &L->users[i];
            u->L = L;
            u->left = session_length(L);
            uv_timer_init(loop, &u->timer);
            L->handles++;
            u->timer.data = u;
            u->think = draw(o->think, &L->urng);
            user_wait(u, u->think);
        }
    } else {
        qc_arrivals_gen_init(&L->gen, o->arrival, &L->rng);
        double first = next_arrival(L, part + 1);
        L->next_due = L->t0 + first;
        L->issuing = isfinite(first);
        L->stop_at = L->t0;
        uv_timer_start(&L->arrive, on_arrive, 0, 0);
    }
    if (o->series) {
        L->s_next = L->t0 + o->series_interval;
        uint64_t ms = (uint64_t)(o->series_interval * 1000);
        uv_timer_start(&L->stime, on_series, ms, ms ? ms : 1);
    }
    uv_timer_start(&L->tick, on_tick, 10, 10);
    *out = L;
    return 0;
}

int qc_load_start(uv_loop_t *loop, const qc_load_params *o, qc_load **l, qc_err *err)
{
    return qc__load_start_part(loop, o, 0, 1, 0, NULL, l, err);
}

void qc_load_drain(qc_load *L, double timeout)
{
    if (L->ended)
        return;
    stop_issuing(L);
    double until = qc__now() + (timeout > 0 ? timeout : 0);
    if (until < L->drain_until)
        L->drain_until = until;
    if (!(timeout > 0))
        end(L, qc__now());
}

void qc_load_close(qc_load *L, void (*closed_cb)(qc_load *l, void *arg), void *arg)
{
    if (L->close_requested)
        return;
    L->close_requested = 1;
    L->on_closed = closed_cb;
    L->on_closed_arg = arg;
    if (!L->ended)
        end(L, qc__now());
    uv_close((uv_handle_t *)&L->tick, own_closed);
}

void qc_load_status_get(const qc_load *L, qc_load_status *st)
{
    memset(st, 0, sizeof *st);
    st->state = L->ended ? QC_LIVE_STOPPED : L->issuing ? QC_LIVE_RUNNING : QC_LIVE_DRAINING;
    st->sent = L->r->sent;
    st->answered = L->r->answered;
    st->ok = L->r->ok;
    st->refused = L->r->refused;
    st->errors = L->r->errors;
    st->timeouts = L->r->timeouts;
    st->connections = L->open_conns;
    st->waiting = (unsigned)L->waiting;
}

/* The percentiles and means of r from the histograms and sums. */
static void result_finish(qc_load_result *r, const qc_hist *all, const qc_hist *ok,
                          double lat_sum, double think_sum, uint64_t think_n)
{
    r->p50 = qc_hist_quantile(all, 0.5);
    r->p90 = qc_hist_quantile(all, 0.9);
    r->p95 = qc_hist_quantile(all, 0.95);
    r->p99 = qc_hist_quantile(all, 0.99);
    r->p999 = qc_hist_quantile(all, 0.999);
    r->max = qc_hist_quantile(all, 1);
    r->mean = r->answered ? lat_sum / (double)r->answered : NAN;
    r->ok_p50 = qc_hist_quantile(ok, 0.5);
    r->ok_p95 = qc_hist_quantile(ok, 0.95);
    r->ok_p99 = qc_hist_quantile(ok, 0.99);
    r->think_mean = think_n ? think_sum / (double)think_n : NAN;
}

void qc_load_result_get(const qc_load *L, qc_load_result *r)
{
    *r = *L->r;
    if (!L->ended)
        r->elapsed = qc__now() - L->t0;
    result_finish(r, L->all, L->ok, L->lat_sum, L->think_sum, L->think_n);
}

/* ---- qc_load_run: the parts on loops and threads ------------------------- */

typedef struct part_run {
    uv_loop_t loop;
    qc_load *l;
    pthread_t thread;
    int thread_on;
    /* copied from the load as it closes */
    qc_load_result r;
    qc_hist *all, *ok;
    double lat_sum, think_sum;
    uint64_t think_n;
    qc_err series_err;
    drecs dump;
} part_run;

static void part_closed(qc_load *L, void *arg)
{
    part_run *pr = arg;
    pr->r = *L->r;
    qc_hist_merge(pr->all, L->all);
    qc_hist_merge(pr->ok, L->ok);
    pr->lat_sum = L->lat_sum;
    pr->think_sum = L->think_sum;
    pr->think_n = L->think_n;
    pr->series_err = L->series_err;
    pr->dump = L->dump; /* taken over */
    L->dump = (drecs){0};
    pr->l = NULL;
}

static void part_done(qc_load *L, void *arg)
{
    qc_load_close(L, part_closed, arg);
}

static void *part_main(void *arg)
{
    part_run *pr = arg;
    uv_run(&pr->loop, UV_RUN_DEFAULT);
    return NULL;
}

static int drec_cmp(const void *a, const void *b)
{
    double x = ((const drec *)a)->due, y = ((const drec *)b)->due;
    return (x > y) - (x < y);
}

/* --dump: the parts' requests merged in the order they were due. */
static int write_dump(const qc_load_params *o, part_run *pr, unsigned n, qc_err *err)
{
    char cls[256];
    const char *h = o->class_header ? strchr(o->class_header, ':') : NULL;
    if (h) {
        h++;
        h += strspn(h, " \t");
        snprintf(cls, sizeof cls, "%s", h);
    } else {
        snprintf(cls, sizeof cls, "%s", o->path && *o->path ? o->path : "/");
    }
    for (char *p = cls; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            *p = '_'; /* one word */
    drecs all = {0};
    for (unsigned i = 0; i < n; i++) {
        if (pr[i].dump.oom)
            all.oom = 1;
        for (size_t j = 0; j < pr[i].dump.n && !all.oom; j++)
            drecs_add(&all, pr[i].dump.v[j].due, pr[i].dump.v[j].lat, pr[i].dump.v[j].status);
    }
    if (all.oom) {
        free(all.v);
        return qc_err_set(err, QC_ENOMEM, "--dump: out of memory for the requests' records");
    }
    if (all.n)
        qsort(all.v, all.n, sizeof *all.v, drec_cmp);
    FILE *fp = fopen(o->dump, "w");
    if (!fp) {
        free(all.v);
        return qc_err_set(err, QC_EIO, "--dump: %s: %s", o->dump, strerror(errno));
    }
    fprintf(fp, "# class send latency status\n");
    for (size_t j = 0; j < all.n; j++)
        fprintf(fp, "%s %.6f %.6f %d\n", cls, all.v[j].due, all.v[j].lat, all.v[j].status);
    free(all.v);
    if (ferror(fp) | (fclose(fp) != 0))
        return qc_err_set(err, QC_EIO, "--dump: %s: cannot write it", o->dump);
    return 0;
}

int qc_load_run(const qc_load_params *o, qc_load_result *r, qc_err *err)
{
    memset(r, 0, sizeof *r);
    int rc = check_opts(o, err);
    if (rc)
        return rc;
    unsigned n = o->threads ? o->threads : 1;
    /* no part without its share of the bounds */
    if (o->requests && n > o->requests)
        n = (unsigned)o->requests;
    if (n > o->connections && !o->users)
        n = o->connections;
    if (o->users && n > o->users)
        n = o->users;
    if (n > 256)
        n = 256;
    part_run *pr = calloc(n, sizeof *pr);
    if (!pr)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    qc_load_params po = *o;
    po.done = part_done;
    unsigned started = 0;
    double t0 = qc__now(); /* one start for every part: one arrival sequence */
    atomic_uint_fast64_t issued = 0;
    for (; started < n; started++) {
        part_run *p = &pr[started];
        p->all = qc_hist_alloc(err);
        p->ok = qc_hist_alloc(err);
        if (!p->all || !p->ok) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            break;
        }
        if ((rc = uv_loop_init(&p->loop)) != 0) {
            rc = qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
            break;
        }
        po.done_ctx = p;
        if ((rc = qc__load_start_part(&p->loop, &po, started, n, t0, &issued, &p->l, err)) != 0) {
            uv_loop_close(&p->loop);
            break;
        }
    }
    if (rc != 0) { /* close the parts started, unrun */
        for (unsigned i = 0; i < started; i++) {
            qc_load_close(pr[i].l, NULL, NULL);
            uv_run(&pr[i].loop, UV_RUN_DEFAULT);
            uv_loop_close(&pr[i].loop);
        }
        for (unsigned i = 0; i < n; i++) {
            qc_hist_free(pr[i].all);
            qc_hist_free(pr[i].ok);
        }
        free(pr);
        return rc;
    }
    for (unsigned i = 1; i < n; i++) /* a part with no thread runs here, after part 0 */
        pr[i].thread_on = pthread_create(&pr[i].thread, NULL, part_main, &pr[i]) == 0;
    uv_run(&pr[0].loop, UV_RUN_DEFAULT);
    for (unsigned i = 1; i < n; i++) {
        if (pr[i].thread_on)
            pthread_join(pr[i].thread, NULL);
        else
            uv_run(&pr[i].loop, UV_RUN_DEFAULT);
    }
    double lat_sum = 0, think_sum = 0;
    uint64_t think_n = 0;
    for (unsigned i = 0; i < n; i++) {
        part_run *p = &pr[i];
        uv_loop_close(&p->loop);
        r->sent += p->r.sent;
        r->answered += p->r.answered;
        r->ok += p->r.ok;
        r->refused += p->r.refused;
        r->other += p->r.other;
        r->errors += p->r.errors;
        r->timeouts += p->r.timeouts;
        if (p->r.elapsed > r->elapsed)
            r->elapsed = p->r.elapsed;
        lat_sum += p->lat_sum;
        think_sum += p->think_sum;
        think_n += p->think_n;
        if (i > 0) {
            qc_hist_merge(pr[0].all, p->all);
            qc_hist_merge(pr[0].ok, p->ok);
        }
        if (p->series_err.code && !rc) {
            rc = p->series_err.code;
            if (err)
                *err = p->series_err;
        }
    }
    result_finish(r, pr[0].all, pr[0].ok, lat_sum, think_sum, think_n);
    r->threads = n;
    if (o->dump) {
        int drc = write_dump(o, pr, n, err);
        if (drc && !rc)
            rc = drc;
    }
    for (unsigned i = 0; i < n; i++) {
        qc_hist_free(pr[i].all);
        qc_hist_free(pr[i].ok);
        free(pr[i].dump.v);
    }
    free(pr);
    return rc;
}

/* ---- requests from a traffic model ----------------------------------------- */

int qc_load_traffic_arrivals(qc_arrivals *a, const char *model, uint32_t users, int per_session,
                             uint64_t seed, double duration, uint64_t max, qc_err *err)
{
    memset(a, 0, sizeof *a);
    if (users == 0)
        return qc_err_set(err, QC_EINVAL, "traffic users: must be >= 1");
    if (max == 0 && !(duration > 0))
        return qc_err_set(err, QC_EINVAL, "a bound is needed: --requests or --duration");
    qc_traffic_model m = {0};
    int rc = qc_traffic_model_load(&m, model, err);
    if (rc)
        return rc;
    qc_traffic_gen_params go;
    qc_traffic_gen_params_init(&go);
    go.seed = seed;
    go.duration = duration > 0 ? duration : 0;
    const qc_traffic_model *ms[1] = {&m};
    qc_traffic_gen *g = NULL;
    uint32_t *last = calloc(users, sizeof *last); /* session + 1 of the last request */
    double *t = NULL;
    size_t n = 0, cap = 0;
    if (!last) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    if ((g = qc_traffic_gen_alloc(ms, &users, 1, &go, err)) == NULL) {
        rc = err && err->code ? err->code : QC_ENOMEM;
        goto out;
    }
    qc_traffic_pkt p;
    while ((max == 0 || n < max) && qc_traffic_gen_next(g, &p) == 1) {
        if (p.dir != 0 || p.t < 0)
            continue;
        if (per_session) {
            if (last[p.user] == p.session + 1)
                continue;
            last[p.user] = p.session + 1;
        }
        if (n == cap) {
            size_t nc = cap ? 2 * cap : 1024;
            double *nt = realloc(t, nc * sizeof *nt);
            if (!nt) {
                rc = qc_err_set(err, QC_ENOMEM, "out of memory");
                goto out;
            }
            t = nt;
            cap = nc;
        }
        t[n++] = p.t;
    }
    rc = qc_arrivals_from_times(a, t, n, err);
    t = NULL;
    if (rc == QC_EEMPTY)
        qc_err_set(err, rc, "%s: the model generated no requests in the bounds", model);
out:
    free(t);
    free(last);
    qc_traffic_gen_free(g);
    qc_traffic_model_free(&m);
    return rc;
}
