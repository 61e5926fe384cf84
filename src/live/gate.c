/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate.c: `qctl gate`, MaxUsers at the TCP session level (see gate.h), an
 * I/O shell around the admission front.
 *
 * Every decision on who gets a place, who waits, until when, and who is
 * refused is the front's (qctl/front.h, src/control/front.c: a FIFO
 * waiting room with its deadline, run without a limiter of its own and
 * with the gate's limit as its cap, qc_front_set_cap), told through the
 * core the proxy runs too (pcore.h: the decisions carried out in the
 * front's order, never nested). This file accepts, connects, relays
 * bytes, and carries out the decisions. The invariant is the one MaxUsers
 * states: at most `limit` sessions hold a place (connecting to or
 * connected to the backend) at once, except when the controller lowers
 * the limit below the sessions already in, which then end on their own
 * (a gate never cuts a session it let in). A place is taken when the
 * front admits a session and given back (qc_front_done) only once its
 * backend socket is closed, so the backend never holds more than the
 * limit.
 *
 * Relaying knows no protocol: each read is written to the other side, and
 * reading from one side stops while the other side has more than `buffer`
 * bytes queued, resuming when the queue falls under half of it (nginx's
 * rule: a slow reader slows its writer, end to end). So a session holds at
 * most about 2 x (buffer + 64 KiB) of memory, and a waiting one at most
 * 16 KiB read ahead. An end of stream read from one side is passed on as
 * a shutdown of the other's write side once what was queued is written (a
 * half-close); the session closes when both directions have ended, or at
 * once on an error on either side.
 *
 * The control loop (the lead worker's) runs every interval: the tick
 * notes the sessions and the peak of the interval, and starts a sensor
 * sample (sensor.h) with a deadline of 0.9 interval; its answer (or the
 * sessions connected, with no sensor) steps the controller, sets the
 * front's cap and writes the series row. A failed or late sample leaves
 * the limit as it was (held).
 *
 * Workers: a group is N gates on N loops and threads, each accepting on
 * its own SO_REUSEPORT socket, sharing one front (one limit, one FIFO).
 * A decision may name another worker's session (a place freed here lets
 * in a session waiting there): it is handed over through that worker's
 * mailbox and async handle, as the proxy's (proxy.c, "workers"). */
#include "live/gate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "live/http.h"
#include "live/list.h"
#include "live/pcore.h"
#include "qctl/front.h"
#include "qctl/rng.h"

#ifndef SO_REUSEPORT
#define SO_REUSEPORT 15 /* Linux's, hidden by the strict C11 headers */
#endif

#define READ_CHUNK 65536
#define ADMIN_CONNS_MAX 32
#define READ_AHEAD 16384 /* a waiting client's bytes read ahead, at most */
#define ROOM_MIN 1024    /* waiting places allocated at least (a reload may raise --queue) */

enum { S_NEW, S_WAIT, S_CONNECT, S_RELAY, S_DONE };

typedef struct gate gate;

/* What a session and an admin connection own besides their handles, first
 * in each: how many of the handles are still open, and the bytes read and
 * not yet passed on (a session's client bytes read before the relay, an
 * admin request). */
typedef struct conn_own {
    unsigned handles;
    qc__buf in;
    int is_sess;
} conn_own;

typedef struct sess {
    conn_own own;
    gate *G;
    unsigned worker; /* its gate's index in the group */
    uv_tcp_t client, up;
    uv_timer_t timer; /* wait deadline, then connect deadline, then bounds */
    uv_connect_t conn;
    int state;
    int closing, up_init, counted;
    int zombie;             /* closed while a decision on it is on its way */
    int c_eof, u_eof;       /* end of stream read from the client / upstream */
    int c_shut, u_shut;     /* their write sides shut down (done) */
    int c_paused, u_paused; /* reading stopped for backpressure */
    double t_in, t_seen;    /* relaying since, last byte either way (see sess_budget) */
    uint64_t bytes;         /* relayed both ways */
    qc_front_handle fh;     /* waiting: its place in the front */
    qc_front_token tok;     /* admitted: its place, given back once */
    qc_front_decision ho;   /* a decision handed over by another worker */
    struct sess *ho_next;   /* the mailbox's link */
    struct sess *prev, *next;
} sess;

typedef struct wreq {
    uv_write_t req;
    sess *s;
    char *base;
} wreq;

typedef struct shreq {
    uv_shutdown_t req;
    sess *s;
} shreq;

typedef struct aconn {
    conn_own own;
    gate *G;
    uv_tcp_t tcp;
    uv_timer_t timer;
    int done;
    struct aconn *prev, *next;
} aconn;

typedef struct slist {
    sess *head, *tail;
    unsigned n;
} slist;

/* A worker's counters: written by its own thread, summed by the lead's
 * /metrics and /status (relaxed atomics: no torn or raced reads). */
typedef struct gcount {
    atomic_ullong accepted, admitted, refused, expired, left, backend_errors, done;
    atomic_ullong bytes_up, bytes_down, cut_idle, cut_time, cut_bytes;
} gcount;

#define CNT(G, f) atomic_fetch_add_explicit(&(G)->c->f, 1, memory_order_relaxed)
#define CNT_N(G, f, n) atomic_fetch_add_explicit(&(G)->c->f, (n), memory_order_relaxed)
#define CGET(c, f) atomic_load_explicit(&(c)->f, memory_order_relaxed)

/* What a session reads of the configuration: each worker's own copy, set
 * by the lead at a reload through the mailbox. */
typedef struct gknobs {
    size_t buffer;
    double idle_timeout, max_session, connect_timeout;
    uint64_t max_bytes;
} gknobs;

typedef struct gworker {
    gate *G;           /* NULL before start and after its close */
    uv_async_t *async; /* G's wakeup; NULL once stopping */
    sess *mb_head, *mb_tail;
    int knobs_new;
    gknobs knobs;
    gcount c;
} gworker;

struct qc_gate_group {
    qc_gate_params o; /* start's copy (its strings the caller's) */
    qc_front *front;
    pthread_mutex_t mu; /* the mailboxes, the workers' G and async */
    int port;           /* the port the lead bound (the others join it) */
    atomic_uint connected, peak, limit;
    atomic_int backend_down; /* the last connect to the backend, by any worker, failed (/readyz) */
    _Atomic double u;
    unsigned n;
    gworker w[];
};

struct gate {
    qc_gate_group *g;
    int own_group; /* qc_gate_start's: freed with the gate */
    unsigned index;
    gworker *me;
    gcount *c;
    const qc_gate_params *o; /* the lead's: the running one (a reload replaces
                                it); the others': the group's copy, for what
                                a reload cannot change */
    gknobs k;
    uv_loop_t *loop;
    uv_tcp_t listener, admin;
    int listener_open, admin_open;
    uv_timer_t control, drain_timer;
    uv_async_t async;
    unsigned handles; /* own handles and sessions open (see "lifecycle") */
    int stopped, close_requested, draining, drain_set;
    void (*on_closed)(qc_gate *g, void *arg);
    void *on_closed_arg;
    int port, admin_port;
    unsigned cut;
    qc__pcore core;
    unsigned long long reloads, reloads_refused;
    struct sockaddr_storage backend;
    qc_mu_ctl ctl;
    double u;       /* the lead's: the controller's limit (a real number) */
    unsigned limit; /* ... applied: floor(u), the front's cap */
    qc_rng rng;
    qc__sensor *sensor;
    slist waiting, active;
    aconn *admins, *admins_tail; /* open admin connections, the newest first */
    unsigned nadmins;
    unsigned long long intervals, held_demand, held_missing, missing, saturated;
    double t0;
    /* the interval being decided */
    double tick_t;
    unsigned tick_connected, tick_waiting, tick_peak;
    int pending;
    /* the last good sample, and when it was started */
    double value, value_t;
    int have_value;
    int level;
    FILE *series;
};

static void stop_all(gate *G);
static void sess_budget_arm(sess *s);
static int sess_budget_note(sess *s, size_t n);
static void sess_close(sess *s);
static void gate_unref(gate *G);
static void check_drained(gate *G);

/* ---- lists -------------------------------------------------------------- */

static void list_push(slist *l, sess *s)
{
    QC__LIST_PUSH_TAIL(l->head, l->tail, s, prev, next);
    l->n++;
}

static void list_remove(slist *l, sess *s)
{
    QC__LIST_REMOVE(l->head, l->tail, s, prev, next);
    l->n--;
}

/* ---- sessions ----------------------------------------------------------- */

/* The close callback of a session's or an admin connection's handles:
 * the owner goes with its last one (a zombie session stays allocated
 * until the decision on its way comes: see on_mailbox). */
static void owner_closed(uv_handle_t *h)
{
    conn_own *o = h->data;
    if (--o->handles > 0)
        return;
    qc__buf_free(&o->in);
    gate *G;
    int keep = 0;
    if (o->is_sess) {
        sess *s = (sess *)o;
        G = s->G;
        keep = s->zombie;
    } else {
        G = ((aconn *)o)->G;
    }
    if (!keep)
        free(o);
    gate_unref(G);
}

static void hclose(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, owner_closed);
}

/* Gives s's place back to the front: the decisions that follow (a
 * waiting session let in) are carried out. */
static void sess_release(sess *s)
{
    gate *G = s->G;
    if (!s->counted)
        return;
    s->counted = 0;
    atomic_fetch_sub(&G->g->connected, 1);
    CNT(G, done);
    qc__pcore_done(&G->core, qc__now(), &s->tok, NAN, QC_FRONT_OK);
}

/* The backend socket is closed: only now is the place free, so that the
 * next session's connect never overlaps this one's socket and the backend
 * never holds more than the limit. */
static void up_closed(uv_handle_t *h)
{
    sess *s = h->data;
    sess_release(s);
    owner_closed(h);
}

/* Closes s (every handle; pending writes are cancelled) and gives its
 * place back once its backend socket is closed; a waiting session leaves
 * the front's room (a decision on it already on its way from another
 * worker makes it a zombie until it comes). */
static void sess_close(sess *s)
{
    if (s->closing)
        return;
    gate *G = s->G;
    s->closing = 1;
    int waiting = s->state == S_NEW || s->state == S_WAIT;
    list_remove(waiting ? &G->waiting : &G->active, s);
    if (waiting && s->state == S_WAIT &&
        qc__pcore_gone(&G->core, (uint64_t)(uintptr_t)s, s->fh))
        s->zombie = 1;
    s->state = S_DONE;
    hclose((uv_handle_t *)&s->client);
    hclose((uv_handle_t *)&s->timer);
    if (s->up_init && !uv_is_closing((uv_handle_t *)&s->up))
        uv_close((uv_handle_t *)&s->up, up_closed);
    else
        sess_release(s);
    check_drained(G);
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)h;
    (void)want;
    char *p = malloc(READ_CHUNK);
    *b = uv_buf_init(p, p ? READ_CHUNK : 0);
}

static void on_client_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b);
static void on_up_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b);

static void on_written(uv_write_t *req, int status)
{
    wreq *w = (wreq *)req;
    sess *s = w->s;
    uv_stream_t *dst = req->handle;
    free(w->base);
    free(w);
    if (s->closing)
        return;
    if (status < 0) {
        sess_close(s);
        return;
    }
    size_t low = s->G->k.buffer / 2;
    if (s->state != S_RELAY || uv_stream_get_write_queue_size(dst) > low)
        return;
    if (dst == (uv_stream_t *)&s->up && s->c_paused && !s->c_eof) {
        s->c_paused = 0;
        uv_read_start((uv_stream_t *)&s->client, on_alloc, on_client_read);
    } else if (dst == (uv_stream_t *)&s->client && s->u_paused && !s->u_eof) {
        s->u_paused = 0;
        uv_read_start((uv_stream_t *)&s->up, on_alloc, on_up_read);
    }
}

/* Writes base[0..n) (owned, freed when written) to dst. */
static int relay_write(sess *s, uv_stream_t *dst, char *base, size_t n)
{
    wreq *w = malloc(sizeof *w);
    if (!w) {
        free(base);
        return -1;
    }
    w->s = s;
    w->base = base;
    uv_buf_t b = uv_buf_init(base, (unsigned)n);
    if (uv_write(&w->req, dst, &b, 1, on_written) != 0) {
        free(base);
        free(w);
        return -1;
    }
    return 0;
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    shreq *r = (shreq *)req;
    sess *s = r->s;
    int to_client = req->handle == (uv_stream_t *)&s->client;
    free(r);
    if (s->closing || status == UV_ECANCELED)
        return;
    if (to_client)
        s->c_shut = 1;
    else
        s->u_shut = 1;
    if (status < 0 || (s->c_shut && s->u_shut))
        sess_close(s);
}

/* Passes an end of stream on: shuts dst's write side once its queued
 * writes are out. */
static void shut(sess *s, uv_stream_t *dst)
{
    shreq *r = malloc(sizeof *r);
    if (r) {
        r->s = s;
        if (uv_shutdown(&r->req, dst, on_shutdown) == 0)
            return;
        free(r);
    }
    sess_close(s);
}

static void client_read_start(sess *s)
{
    uv_read_start((uv_stream_t *)&s->client, on_alloc, on_client_read);
}

/* Writes n bytes read from `from` to `to` (base is taken); stops reading
 * `from` (setting *paused) while `to` has over --buffer bytes queued. */
static void relay(sess *s, uv_stream_t *from, uv_stream_t *to, char *base, size_t n, int *paused)
{
    if (relay_write(s, to, base, n) != 0) {
        sess_close(s);
        return;
    }
    if (uv_stream_get_write_queue_size(to) > s->G->k.buffer) {
        *paused = 1;
        uv_read_stop(from);
    }
}

/* A read of no bytes from either side of s (n <= 0): 1 when it is the
 * side's end of stream, for the caller to pass on; else 0, with s closed
 * on an error. */
static int read_ended(sess *s, ssize_t n, const uv_buf_t *b)
{
    free(b->base);
    if (n == 0)
        return 0;
    if (n != UV_EOF) {
        sess_close(s);
        return 0;
    }
    return 1;
}

static void on_client_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    sess *s = st->data;
    gate *G = s->G;
    if (n > 0 && s->state == S_RELAY) {
        CNT_N(G, bytes_up, (unsigned long long)n);
        relay(s, st, (uv_stream_t *)&s->up, b->base, (size_t)n, &s->c_paused);
        if (!s->closing)
            sess_budget_note(s, (size_t)n);
        return;
    }
    if (n > 0) { /* not yet relayed: held, up to buffer bytes */
        int rc = qc__buf_append(&s->own.in, b->base, (size_t)n);
        free(b->base);
        if (rc != 0) {
            sess_close(s);
            return;
        }
        if (s->own.in.len >= READ_AHEAD || s->own.in.len >= G->k.buffer) {
            s->c_paused = 1;
            uv_read_stop(st);
        }
        return;
    }
    if (!read_ended(s, n, b))
        return;
    s->c_eof = 1;
    if (s->state == S_RELAY) {
        shut(s, (uv_stream_t *)&s->up);
    } else if (s->own.in.len == 0) { /* gone before it got in */
        CNT(G, left);
        sess_close(s);
    } /* else: half-closed with bytes to send once it is in */
}

static void on_up_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    sess *s = st->data;
    gate *G = s->G;
    if (n > 0) {
        CNT_N(G, bytes_down, (unsigned long long)n);
        relay(s, st, (uv_stream_t *)&s->client, b->base, (size_t)n, &s->u_paused);
        if (!s->closing)
            sess_budget_note(s, (size_t)n);
        return;
    }
    if (!read_ended(s, n, b))
        return;
    s->u_eof = 1;
    shut(s, (uv_stream_t *)&s->client);
}

static void on_up_connect(uv_connect_t *req, int status)
{
    sess *s = req->data;
    gate *G = s->G;
    if (s->closing || status == UV_ECANCELED)
        return;
    if (status < 0) {
        CNT(G, backend_errors);
        atomic_store(&G->g->backend_down, 1);
        sess_close(s);
        return;
    }
    uv_timer_stop(&s->timer);
    s->state = S_RELAY;
    atomic_store(&G->g->backend_down, 0);
    s->t_in = s->t_seen = qc__now();
    sess_budget_arm(s);
    uv_tcp_nodelay(&s->client, 1);
    uv_tcp_nodelay(&s->up, 1);
    if (s->own.in.len) {
        char *p = s->own.in.data;
        size_t n = s->own.in.len;
        s->own.in = (qc__buf){0}; /* the write owns the bytes now */
        CNT_N(G, bytes_up, n);
        if (relay_write(s, (uv_stream_t *)&s->up, p, n) != 0) {
            sess_close(s);
            return;
        }
    }
    if (s->c_eof) {
        shut(s, (uv_stream_t *)&s->up);
        if (s->closing)
            return;
    } else if (s->c_paused) {
        s->c_paused = 0;
        client_read_start(s);
    }
    uv_read_start((uv_stream_t *)&s->up, on_alloc, on_up_read);
}

/* ---- session bounds (--idle-timeout, --max-session, --max-bytes) ----------
 *
 * A connected session holds a place of the limit for as long as it lives,
 * so a client that connects and then says nothing would hold it forever:
 * as many silent clients as the limit and every other session waits out
 * its deadline. As haproxy's client timeout does, a session with no byte
 * relayed either way for --idle-timeout is closed and its place given
 * back; --max-session and --max-bytes bound the time and the bytes of any
 * one session. These are bounds on a relay, not admission decisions: the
 * checks run on the session's own timer, armed while it relays for the
 * nearest of its deadlines (reads only note the time). */
static double sess_deadline(const sess *s)
{
    const gknobs *k = &s->G->k;
    double d = INFINITY;
    if (k->idle_timeout > 0)
        d = s->t_seen + k->idle_timeout;
    if (k->max_session > 0 && s->t_in + k->max_session < d)
        d = s->t_in + k->max_session;
    return d;
}

static void on_sess_timer(uv_timer_t *t);

/* Arms s's timer for its next bound while it relays (nothing: no bound). */
static void sess_budget_arm(sess *s)
{
    double d = sess_deadline(s);
    if (isfinite(d)) {
        double ms = (d - qc__now()) * 1000;
        uv_timer_start(&s->timer, on_sess_timer, ms > 1 ? (uint64_t)ms + 1 : 1, 0);
    }
}

/* A read of n bytes on s: the idle clock restarts; past --max-bytes the
 * session is closed (1). */
static int sess_budget_note(sess *s, size_t n)
{
    const gknobs *k = &s->G->k;
    s->t_seen = qc__now();
    s->bytes += n;
    if (k->max_bytes && s->bytes > k->max_bytes) {
        CNT(s->G, cut_bytes);
        sess_close(s);
        return 1;
    }
    return 0;
}

static void on_sess_timer(uv_timer_t *t)
{
    sess *s = t->data;
    gate *G = s->G;
    if (s->state == S_WAIT) { /* its deadline: the front refuses what is past it */
        qc__pcore_expire(&G->core, qc__now());
        if (s->state == S_WAIT && !s->closing) /* a timer a little early */
            uv_timer_start(&s->timer, on_sess_timer, 1, 0);
        return;
    }
    if (s->state == S_RELAY) { /* a bound of the session's (see above) */
        double now = qc__now();
        const gknobs *k = &G->k;
        if (k->max_session > 0 && now >= s->t_in + k->max_session - 1e-3) {
            CNT(G, cut_time);
        } else if (k->idle_timeout > 0 && now >= s->t_seen + k->idle_timeout - 1e-3) {
            CNT(G, cut_idle);
        } else {
            sess_budget_arm(s); /* bytes came since: the idle deadline moved */
            return;
        }
        sess_close(s);
        return;
    }
    if (s->state == S_CONNECT) {
        CNT(G, backend_errors); /* the backend did not accept in time */
        sess_close(s);
    }
}

/* ---- the front's decisions ------------------------------------------------ */

/* The front let s in (its place in tok): connects it to the backend. */
static void admit(gate *G, sess *s, const qc_front_token *tok)
{
    list_remove(&G->waiting, s);
    s->state = S_CONNECT;
    list_push(&G->active, s);
    s->tok = *tok;
    s->counted = 1;
    unsigned c = atomic_fetch_add(&G->g->connected, 1) + 1;
    unsigned p = atomic_load(&G->g->peak);
    while (c > p && !atomic_compare_exchange_weak(&G->g->peak, &p, c))
        ;
    CNT(G, admitted);
    uv_tcp_init(G->loop, &s->up);
    s->up.data = s;
    s->up_init = 1;
    s->own.handles++;
    s->conn.data = s;
    uv_timer_start(&s->timer, on_sess_timer, (uint64_t)(G->k.connect_timeout * 1000), 0);
    if (uv_tcp_connect(&s->conn, &s->up, (const struct sockaddr *)&G->backend, on_up_connect) !=
        0) {
        CNT(G, backend_errors);
        sess_close(s);
    }
}

static void handover(gate *G, sess *s, const qc_front_decision *d);

/* Carries out one decision of the front on session d->id. */
static void apply(void *ctx, const qc_front_decision *d)
{
    gate *G = ctx;
    sess *s = (sess *)(uintptr_t)d->id;
    if (s->G != G) { /* another worker's session: see "workers" */
        handover(G, s, d);
        return;
    }
    if (s->closing) { /* gone meanwhile: a place given is given back */
        if (d->act == QC_FRONT_ADMIT) {
            qc_front_token t = d->tok;
            qc__pcore_done(&G->core, qc__now(), &t, NAN, QC_FRONT_IGNORE);
        }
        return;
    }
    if (s->state == S_WAIT) {
        s->fh = 0;
        uv_timer_stop(&s->timer);
    }
    switch (d->act) {
    case QC_FRONT_ADMIT:
        admit(G, s, &d->tok);
        break;
    case QC_FRONT_WAIT: {
        s->state = S_WAIT;
        s->fh = d->handle;
        double left = d->deadline - qc__now();
        uv_timer_start(&s->timer, on_sess_timer, left > 0 ? (uint64_t)ceil(left * 1000) : 0, 0);
        break;
    }
    case QC_FRONT_REFUSE:
        if (d->reason == QC_FRONT_DEADLINE)
            CNT(G, expired);
        else
            CNT(G, refused);
        s->state = S_NEW; /* decided: not in the front's room any more */
        sess_close(s);
        break;
    }
}

/* ---- workers ---------------------------------------------------------------
 *
 * A decision on another worker's session is stored in the session (it has
 * at most one decision on its way: the one that took it out of the
 * waiting room) and the session put on its worker's mailbox, whose async
 * handle wakes that loop, where it is carried out as if taken there. A
 * session whose client closes while such a decision is on its way (the
 * front's cancel finds it decided, its own core holds nothing on it)
 * stays allocated, a zombie, until the decision comes: an admission's
 * place is then given back. What a stopped worker never took out of its
 * mailbox (zombies only) the group frees. The same mailbox carries a
 * reload's session knobs from the lead. */
static void handover(gate *G, sess *s, const qc_front_decision *d)
{
    gworker *w = &G->g->w[s->worker];
    pthread_mutex_lock(&G->g->mu);
    s->ho = *d;
    s->ho_next = NULL;
    if (w->mb_tail)
        w->mb_tail->ho_next = s;
    else
        w->mb_head = s;
    w->mb_tail = s;
    if (w->async)
        uv_async_send(w->async);
    pthread_mutex_unlock(&G->g->mu);
}

static void on_mailbox(uv_async_t *a)
{
    gate *G = a->data;
    gworker *w = G->me;
    pthread_mutex_lock(&G->g->mu);
    sess *s = w->mb_head;
    w->mb_head = w->mb_tail = NULL;
    if (w->knobs_new) {
        G->k = w->knobs;
        w->knobs_new = 0;
    }
    pthread_mutex_unlock(&G->g->mu);
    while (s) {
        sess *next = s->ho_next;
        qc_front_decision d = s->ho;
        if (s->zombie) {
            if (d.act == QC_FRONT_ADMIT) /* its place back */
                qc__pcore_done(&G->core, qc__now(), &d.tok, NAN, QC_FRONT_IGNORE);
            s->zombie = 0;
            if (s->own.handles == 0) /* closed already: freed here */
                free(s);
        } else {
            apply(G, &d);
        }
        s = next;
    }
}

static void on_client(uv_stream_t *server, int status)
{
    gate *G = server->data;
    sess *s = status < 0 ? NULL : calloc(1, sizeof *s);
    if (!s)
        return;
    s->G = G;
    s->worker = G->index;
    s->own.is_sess = 1;
    s->own.handles = qc__conn_init(G->loop, &s->client, &s->timer, s);
    G->handles++;
    s->state = S_NEW;
    list_push(&G->waiting, s); /* removed by admit or close */
    if (uv_accept(server, (uv_stream_t *)&s->client) != 0) {
        sess_close(s);
        return;
    }
    CNT(G, accepted);
    client_read_start(s);
    qc__pcore_arrive(&G->core, qc__now(), 0, (uint64_t)(uintptr_t)s);
}

static const char *controller_name(int c)
{
    static const char *names[] = {"static", "integral", "pi", "open"};
    return c >= 0 && c <= 3 ? names[c] : "?";
}

/* The counters of every worker of G's group, summed, and the sessions
 * connected and waiting over the group. */
typedef struct gsum {
    unsigned long long accepted, admitted, refused, expired, left, backend_errors, done;
    unsigned long long bytes_up, bytes_down, cut_idle, cut_time, cut_bytes;
    unsigned connected, waiting, limit;
    double u;
} gsum;

static void sum_of(const gate *G, gsum *t)
{
    memset(t, 0, sizeof *t);
    qc_gate_group *g = G->g;
    for (unsigned i = 0; i < g->n; i++) {
        const gcount *c = &g->w[i].c;
        t->accepted += CGET(c, accepted);
        t->admitted += CGET(c, admitted);
        t->refused += CGET(c, refused);
        t->expired += CGET(c, expired);
        t->left += CGET(c, left);
        t->backend_errors += CGET(c, backend_errors);
        t->done += CGET(c, done);
        t->bytes_up += CGET(c, bytes_up);
        t->bytes_down += CGET(c, bytes_down);
        t->cut_idle += CGET(c, cut_idle);
        t->cut_time += CGET(c, cut_time);
        t->cut_bytes += CGET(c, cut_bytes);
    }
    qc_front_stats st;
    qc_front_get_stats(g->front, &st);
    t->waiting = st.waiting;
    t->connected = atomic_load(&g->connected);
    t->limit = atomic_load(&g->limit);
    t->u = atomic_load(&g->u);
}

static size_t metrics_text(const gate *G, char *buf, size_t cap)
{
    double now = qc__now();
    gsum T;
    sum_of(G, &T);
    unsigned long long samples = 0, failed = 0;
    const char *why = "";
    if (G->sensor)
        qc__sensor_counts(G->sensor, &samples, &failed, &why);
    else
        samples = G->intervals;
    int n = snprintf(
        buf, cap,
        "# HELP qctl_gate_limit The session limit applied (MaxUsers).\n"
        "# TYPE qctl_gate_limit gauge\nqctl_gate_limit %u\n"
        "# HELP qctl_gate_limit_controller The controller's limit before rounding down.\n"
        "# TYPE qctl_gate_limit_controller gauge\nqctl_gate_limit_controller %g\n"
        "# HELP qctl_gate_sessions Sessions by state.\n# TYPE qctl_gate_sessions gauge\n"
        "qctl_gate_sessions{state=\"connected\"} %u\nqctl_gate_sessions{state=\"waiting\"} %u\n"
        "# HELP qctl_gate_sessions_total Sessions by outcome.\n"
        "# TYPE qctl_gate_sessions_total counter\n"
        "qctl_gate_sessions_total{outcome=\"accepted\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"admitted\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"refused\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"expired\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"left\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"backend_error\"} %llu\n"
        "qctl_gate_sessions_total{outcome=\"done\"} %llu\n"
        "# HELP qctl_gate_bytes_total Bytes relayed.\n# TYPE qctl_gate_bytes_total counter\n"
        "qctl_gate_bytes_total{direction=\"up\"} %llu\n"
        "qctl_gate_bytes_total{direction=\"down\"} %llu\n"
        "# HELP qctl_gate_intervals_total Control intervals decided.\n"
        "# TYPE qctl_gate_intervals_total counter\nqctl_gate_intervals_total %llu\n"
        "# HELP qctl_gate_holds_total Intervals the controller held the limit.\n"
        "# TYPE qctl_gate_holds_total counter\n"
        "qctl_gate_holds_total{reason=\"demand\"} %llu\n"
        "qctl_gate_holds_total{reason=\"missing_sample\"} %llu\n"
        "# HELP qctl_gate_sensor_samples_total Sensor samples taken.\n"
        "# TYPE qctl_gate_sensor_samples_total counter\n"
        "qctl_gate_sensor_samples_total %llu\n"
        "# HELP qctl_gate_sensor_missing_total Sensor samples that failed or came late.\n"
        "# TYPE qctl_gate_sensor_missing_total counter\nqctl_gate_sensor_missing_total %llu\n",
        T.limit, T.u, T.connected, T.waiting, T.accepted, T.admitted, T.refused, T.expired,
        T.left, T.backend_errors, T.done, T.bytes_up, T.bytes_down, G->intervals, G->held_demand, G->held_missing, samples, failed);
    if (n < 0 || (size_t)n >= cap)
        return 0;
    if (G->have_value) {
        int m = snprintf(buf + n, cap - (size_t)n,
                         "# HELP qctl_gate_sensor_value The last good sample.\n"
                         "# TYPE qctl_gate_sensor_value gauge\nqctl_gate_sensor_value %g\n"
                         "# HELP qctl_gate_sensor_age_seconds Since that sample was started.\n"
                         "# TYPE qctl_gate_sensor_age_seconds gauge\n"
                         "qctl_gate_sensor_age_seconds %.3f\n",
                         G->value, now - G->value_t);
        if (m > 0 && (size_t)(n + m) < cap)
            n += m;
    }
    int m = snprintf(buf + n, cap - (size_t)n,
                     "# HELP qctl_gate_draining 1 while draining.\n"
                     "# TYPE qctl_gate_draining gauge\nqctl_gate_draining %d\n"
                     "# HELP qctl_gate_sessions_cut_total Connected sessions closed by a bound "
                     "(--idle-timeout, --max-session, --max-bytes).\n"
                     "# TYPE qctl_gate_sessions_cut_total counter\n"
                     "qctl_gate_sessions_cut_total{bound=\"idle\"} %llu\n"
                     "qctl_gate_sessions_cut_total{bound=\"time\"} %llu\n"
                     "qctl_gate_sessions_cut_total{bound=\"bytes\"} %llu\n",
                     G->draining, T.cut_idle, T.cut_time, T.cut_bytes);
    if (m > 0 && (size_t)(n + m) < cap)
        n += m;
    size_t p = qc__process_metrics(buf + n, cap - (size_t)n);
    if ((size_t)n + p < cap)
        n += (int)p;
    return (size_t)n;
}

static char *status_json(const gate *G)
{
    const qc_gate_params *o = G->o;
    double now = qc__now();
    gsum T;
    sum_of(G, &T);
    json_t *r = json_object();
    json_object_set_new(r, "uptime", json_real(now - G->t0));
    json_object_set_new(r, "controller", json_string(controller_name(o->controller)));
    if (o->controller == QC_GATE_INTEGRAL || o->controller == QC_GATE_PI)
        json_object_set_new(r, "reference", json_real(qc_sched_at(o->ref, o->nref, now - G->t0)));
    json_object_set_new(r, "limit", json_integer(T.limit));
    json_object_set_new(r, "limit_controller", json_real(T.u));
    json_object_set_new(r, "connected", json_integer(T.connected));
    json_object_set_new(r, "waiting", json_integer(T.waiting));
    json_object_set_new(r, "queue", json_integer(o->queue));
    json_object_set_new(r, "reloads", json_integer((json_int_t)G->reloads));
    json_object_set_new(r, "reloads_refused", json_integer((json_int_t)G->reloads_refused));
    json_object_set_new(r, "accepted", json_integer((json_int_t)T.accepted));
    json_object_set_new(r, "admitted", json_integer((json_int_t)T.admitted));
    json_object_set_new(r, "refused", json_integer((json_int_t)T.refused));
    json_object_set_new(r, "expired", json_integer((json_int_t)T.expired));
    json_object_set_new(r, "left", json_integer((json_int_t)T.left));
    json_object_set_new(r, "backend_errors", json_integer((json_int_t)T.backend_errors));
    json_object_set_new(r, "bytes_up", json_integer((json_int_t)T.bytes_up));
    json_object_set_new(r, "bytes_down", json_integer((json_int_t)T.bytes_down));
    json_object_set_new(r, "cut_idle", json_integer((json_int_t)T.cut_idle));
    json_object_set_new(r, "cut_time", json_integer((json_int_t)T.cut_time));
    json_object_set_new(r, "cut_bytes", json_integer((json_int_t)T.cut_bytes));
    json_object_set_new(r, "intervals", json_integer((json_int_t)G->intervals));
    json_object_set_new(r, "held_demand", json_integer((json_int_t)G->held_demand));
    json_object_set_new(r, "held_missing", json_integer((json_int_t)G->held_missing));
    json_t *sn = json_object();
    static const char *kinds[] = {"sessions", "cmd", "url", "log"};
    json_object_set_new(sn, "kind", json_string(kinds[qc__sensor_kind_of(&o->sensor)]));
    if (G->have_value) {
        json_object_set_new(sn, "value", json_real(G->value));
        json_object_set_new(sn, "age", json_real(now - G->value_t));
    }
    if (G->sensor) {
        unsigned long long samples, failed;
        const char *why;
        qc__sensor_counts(G->sensor, &samples, &failed, &why);
        json_object_set_new(sn, "samples", json_integer((json_int_t)samples));
        json_object_set_new(sn, "missing", json_integer((json_int_t)failed));
        if (why[0])
            json_object_set_new(sn, "last_failure", json_string(why));
    }
    json_object_set_new(r, "sensor", sn);
    json_object_set_new(r, "draining", json_boolean(G->draining));
    json_object_set_new(r, "workers", json_integer(G->g->n));
    char *s = json_dumps(r, JSON_COMPACT);
    json_decref(r);
    return s;
}

static void admin_close(void *arg)
{
    aconn *a = arg;
    gate *G = a->G;
    if (!a->done) {
        a->done = 1;
        QC__LIST_REMOVE(G->admins, G->admins_tail, a, prev, next);
        G->nadmins--;
    }
    hclose((uv_handle_t *)&a->tcp);
    hclose((uv_handle_t *)&a->timer);
}

static void admin_reply(aconn *a, int status, const char *reason, const char *type,
                        const char *body, size_t n)
{
    char head[256];
    int k = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                     status, reason, type, n);
    uv_read_stop((uv_stream_t *)&a->tcp);
    uv_timer_stop(&a->timer);
    if (qc__write_copy((uv_stream_t *)&a->tcp, head, (size_t)k) != 0 ||
        (n && qc__write_copy((uv_stream_t *)&a->tcp, body, n) != 0)) {
        admin_close(a);
        return;
    }
    qc__close_after_write((uv_stream_t *)&a->tcp, admin_close, a);
}

static void admin_route(aconn *a, const qc__http_head *h)
{
    const char *buf = a->own.in.data;
    const char *target = buf + h->target.off;
    size_t tl = h->target.len;
    size_t ml = h->method.len;
    if (!(ml == 3 && memcmp(buf + h->method.off, "GET", 3) == 0)) {
        admin_reply(a, 405, "Method Not Allowed", "text/plain", "GET only\n", 9);
        return;
    }
    if (tl == 8 && memcmp(target, "/healthz", 8) == 0) {
        admin_reply(a, 200, "OK", "text/plain", "ok\n", 3);
        return;
    }
    if (tl == 7 && memcmp(target, "/readyz", 7) == 0) { /* listening, the backend answering */
        const gate *G = a->G;
        const char *why = G->draining    ? "not ready: draining\n"
                          : atomic_load(&G->g->backend_down) ? "not ready: the last connect to the backend failed\n"
                                            : "ready\n";
        int ok = !G->draining && !atomic_load(&G->g->backend_down);
        admin_reply(a, ok ? 200 : 503, ok ? "OK" : "Service Unavailable", "text/plain", why,
                    strlen(why));
        return;
    }
    if (tl == 8 && memcmp(target, "/metrics", 8) == 0) {
        char *m = malloc(16384);
        size_t n = m ? metrics_text(a->G, m, 16384) : 0;
        admin_reply(a, 200, "OK", "text/plain; version=0.0.4", m ? m : "", n);
        free(m);
        return;
    }
    if (tl == 7 && memcmp(target, "/status", 7) == 0) {
        char *s = status_json(a->G);
        admin_reply(a, 200, "OK", "application/json", s ? s : "{}", s ? strlen(s) : 2);
        free(s);
        return;
    }
    static const char nf[] = "not found: /status, /metrics, /healthz or /readyz\n";
    admin_reply(a, 404, "Not Found", "text/plain", nf, sizeof nf - 1);
}

static void on_admin_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    aconn *a = st->data;
    if (n <= 0) {
        free(b->base);
        if (n < 0)
            admin_close(a);
        return;
    }
    size_t room = QC__HTTP_HEAD_MAX - a->own.in.len;
    int rc = qc__buf_append(&a->own.in, b->base, (size_t)n < room ? (size_t)n : room);
    free(b->base);
    if (rc != 0) {
        admin_close(a);
        return;
    }
    qc__http_head h;
    const char *why = NULL;
    int r = qc__http_parse_head(a->own.in.data, a->own.in.len, 1, &h, &why);
    if (r > 0)
        admin_route(a, &h);
    else if (r < 0)
        admin_reply(a, 400, "Bad Request", "text/plain", "bad request\n", 12);
    else if (a->own.in.len >= QC__HTTP_HEAD_MAX)
        admin_reply(a, 431, "Request Header Fields Too Large", "text/plain", "too large\n", 10);
}

static void on_admin_timer(uv_timer_t *t) { admin_close(t->data); }

static void admin_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)h;
    (void)want;
    char *p = malloc(4096);
    *b = uv_buf_init(p, p ? 4096 : 0);
}

static void on_admin(uv_stream_t *server, int status)
{
    gate *G = server->data;
    aconn *a = status < 0 ? NULL : calloc(1, sizeof *a);
    if (!a)
        return;
    a->G = G;
    a->own.handles = qc__conn_init(G->loop, &a->tcp, &a->timer, a);
    G->handles++;
    QC__LIST_PUSH_HEAD(G->admins, G->admins_tail, a, prev, next);
    G->nadmins++;
    if (uv_accept(server, (uv_stream_t *)&a->tcp) != 0 || G->nadmins > ADMIN_CONNS_MAX) {
        admin_close(a);
        return;
    }
    uv_timer_start(&a->timer, on_admin_timer, 5000, 0);
    uv_read_start((uv_stream_t *)&a->tcp, admin_alloc, on_admin_read);
}

static void put_num(FILE *f, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(f, "%.10g%s", v, sep);
    else
        fputs(sep, f); /* empty: no value (never "nan") */
}

static void write_row(gate *G, int ok, double y, double now)
{
    const qc_gate_params *o = G->o;
    FILE *f = G->series;
    int closed = o->controller == QC_GATE_INTEGRAL || o->controller == QC_GATE_PI;
    put_num(f, G->tick_t - G->t0, ",");
    put_num(f, closed ? qc_sched_at(o->ref, o->nref, G->tick_t - G->t0) : NAN, ",");
    gsum T;
    sum_of(G, &T);
    fprintf(f, "%.10g,%u,%u,%u,%u,%llu,%llu,%llu,", G->u, G->limit, G->tick_connected,
            G->tick_peak, G->tick_waiting, T.admitted, T.refused, T.expired);
    put_num(f, ok ? y : NAN, ",");
    put_num(f, G->have_value ? now - G->value_t : NAN, ",");
    fprintf(f, "%llu,%llu\n", G->missing, G->held_demand + G->held_missing);
    fflush(f);
}

/* The interval's answer: steps the controller (or holds), applies the
 * limit, writes the row. */
/* The controller's u applied: the front's cap (floor(u)), which lets the
 * waiting in at once when it rose. */
static void set_limit(gate *G)
{
    double l = floor(G->u + 1e-9);
    G->limit = l >= 4e9 ? 4000000000u : l > 0 ? (unsigned)l : 0;
    atomic_store(&G->g->u, G->u);
    atomic_store(&G->g->limit, G->limit);
    qc__pcore_set_cap(&G->core, qc__now(), G->limit);
}

static void decide(gate *G, int ok, double y)
{
    const qc_gate_params *o = G->o;
    double now = qc__now();
    G->pending = 0;
    if (ok) {
        G->value = y;
        G->value_t = G->tick_t;
        G->have_value = 1;
    } else {
        G->missing++;
    }
    switch (o->controller) {
    case QC_GATE_OPEN:
        if (G->tick_t - G->t0 < o->control_from) {
            G->u = isfinite(o->limit) ? o->limit : o->levels[0]; /* excitation not started */
            break;
        }
        if (G->intervals % o->hold == 0 && G->intervals > 0) {
            if (o->excite == QC_GATE_STEPS || qc_rng_u01(&G->rng) < 0.5)
                G->level = !G->level;
        }
        G->u = o->levels[G->level];
        break;
    case QC_GATE_INTEGRAL:
    case QC_GATE_PI:
        if (G->tick_t - G->t0 < o->control_from)
            break; /* not closed yet: the first limit stays */
        if (!ok) {
            G->held_missing++; /* no sample: the limit stays */
            break;
        }
        {
            double r = qc_sched_at(o->ref, o->nref, G->tick_t - G->t0);
            qc_mu_ctl_sense in = {r, y, (double)G->tick_peak};
            qc_mu_ctl_act act;
            qc_mu_ctl_step(&G->ctl, &in, &act);
            G->u = act.u;
            G->held_demand += (unsigned long long)act.held;
            G->saturated += act.saturated != 0;
        }
        break;
    default:
        break;
    }
    G->intervals++;
    set_limit(G);
    if (G->series)
        write_row(G, ok, y, now);
}

static void on_sample(void *ctx, int ok, double v)
{
    gate *G = ctx;
    if (G->pending && !G->stopped)
        decide(G, ok, v);
}

static void on_control(uv_timer_t *t)
{
    gate *G = t->data;
    double now = qc__now();
    if (G->pending) /* the last sample never came (a timer late under load) */
        decide(G, 0, 0);
    qc_front_stats st;
    qc_front_get_stats(G->g->front, &st);
    G->tick_t = now;
    G->tick_connected = atomic_load(&G->g->connected);
    G->tick_waiting = st.waiting;
    G->tick_peak = atomic_exchange(&G->g->peak, G->tick_connected);
    if (G->tick_peak < G->tick_connected)
        G->tick_peak = G->tick_connected;
    G->pending = 1;
    if (G->sensor)
        qc__sensor_start(G->sensor, 0.9 * G->o->interval);
    else
        decide(G, 1, (double)G->tick_connected);
}

/* ---- lifecycle -------------------------------------------------------------
 *
 * The gate runs on a loop it does not own (qc_gate_start): it closes its
 * own handles and never another's. G->handles counts its open handles and
 * its sessions and admin connections (each until its last handle's close
 * callback); the drain timer is opened first and closed last, by
 * qc_gate_close, so that the host's on_closed always comes from the loop
 * and after every other handle's. */

static void finish(gate *G)
{
    if (G->on_closed)
        G->on_closed(G, G->on_closed_arg);
    pthread_mutex_lock(&G->g->mu);
    G->me->G = NULL;
    pthread_mutex_unlock(&G->g->mu);
    if (G->series)
        fclose(G->series);
    qc__pcore_free(&G->core);
    if (G->own_group)
        qc_gate_group_free(G->g);
    free(G);
}

static void own_closed(uv_handle_t *h);

static void gate_unref(gate *G)
{
    G->handles--;
    if (G->handles == 0)
        finish(G);
    else if (G->handles == 1 && G->stopped && G->close_requested &&
             !uv_is_closing((uv_handle_t *)&G->drain_timer))
        uv_close((uv_handle_t *)&G->drain_timer, own_closed);
}

/* The close callback of the handles whose data is G. */
static void own_closed(uv_handle_t *h)
{
    gate_unref(h->data);
}

static void close_own(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, own_closed);
}

static void close_listener(gate *G)
{
    if (G->listener_open) {
        G->listener_open = 0;
        close_own((uv_handle_t *)&G->listener);
    }
}

/* Closes every handle G opened but the drain timer; sessions still
 * connected are cut (counted in cut when the drain ran out). */
static void stop_all(gate *G)
{
    if (G->stopped)
        return;
    G->stopped = 1;
    G->draining = 1;
    uv_timer_stop(&G->drain_timer);
    close_listener(G);
    if (G->admin_open) {
        G->admin_open = 0;
        close_own((uv_handle_t *)&G->admin);
    }
    close_own((uv_handle_t *)&G->control);
    pthread_mutex_lock(&G->g->mu); /* no wakeup from now on: what comes stays in the mailbox */
    G->me->async = NULL;
    pthread_mutex_unlock(&G->g->mu);
    close_own((uv_handle_t *)&G->async);
    qc__sensor_close(G->sensor);
    G->sensor = NULL;
    G->cut += G->active.n;
    G->handles++; /* held while the sessions close (each gives its own back) */
    while (G->waiting.head)
        sess_close(G->waiting.head);
    while (G->active.head)
        sess_close(G->active.head);
    while (G->admins)
        admin_close(G->admins);
    gate_unref(G);
}

/* Draining, the last connected session gone: stop. */
static void check_drained(gate *G)
{
    if (G->draining && !G->stopped && G->active.n == 0 && G->waiting.n == 0)
        stop_all(G);
}

static void on_drain_timer(uv_timer_t *t)
{
    stop_all(t->data);
}

void qc_gate_drain(qc_gate *G, double timeout)
{
    if (G->stopped)
        return;
    if (!(timeout > 0))
        timeout = 0;
    if (G->draining) { /* a later call only brings the deadline nearer */
        double left = (double)uv_timer_get_due_in(&G->drain_timer) / 1000;
        if (G->drain_set && left <= timeout)
            return;
    }
    int first = !G->draining;
    G->draining = 1;
    if (first) {
        close_listener(G);
        qc__pcore_drain(&G->core, qc__now()); /* the waiting refused, later arrivals too */
        check_drained(G);
        if (G->stopped)
            return;
    }
    if (timeout <= 0) {
        stop_all(G);
        return;
    }
    G->drain_set = 1;
    uv_timer_start(&G->drain_timer, on_drain_timer,
                   timeout < 1e9 ? (uint64_t)ceil(timeout * 1000) : (uint64_t)1e12, 0);
}

void qc_gate_close(qc_gate *G, void (*on_closed)(qc_gate *g, void *arg), void *arg)
{
    G->on_closed = on_closed;
    G->on_closed_arg = arg;
    G->close_requested = 1;
    if (!G->draining)
        qc_gate_drain(G, 0);
    if (G->stopped && G->handles == 1 && !uv_is_closing((uv_handle_t *)&G->drain_timer))
        uv_close((uv_handle_t *)&G->drain_timer, own_closed);
}

void qc_gate_status_get(const qc_gate *G, qc_gate_status *st)
{
    memset(st, 0, sizeof *st);
    st->state = G->stopped ? QC_LIVE_STOPPED : G->draining ? QC_LIVE_DRAINING : QC_LIVE_RUNNING;
    st->port = G->port;
    st->admin_port = G->admin_port;
    st->limit = atomic_load(&G->g->limit);
    st->connected = G->active.n;
    st->waiting = G->waiting.n;
    st->cut = G->cut;
    const gcount *c = G->c;
    st->accepted = CGET(c, accepted);
    st->admitted = CGET(c, admitted);
    st->refused = CGET(c, refused);
    st->expired = CGET(c, expired);
    st->left = CGET(c, left);
    st->backend_errors = CGET(c, backend_errors);
    st->done = CGET(c, done);
    st->bytes_up = CGET(c, bytes_up);
    st->bytes_down = CGET(c, bytes_down);
    st->reloads = G->reloads;
    st->reloads_refused = G->reloads_refused;
}

const qc_gate_params *qc_gate_params_get(const qc_gate *G)
{
    return G->o;
}

size_t qc_gate_metrics(const qc_gate *G, char *buf, size_t size)
{
    return metrics_text(G, buf, size);
}

/* ---- reload ---------------------------------------------------------------
 *
 * As the proxy's (proxy_reload.c): what can change in place is changed,
 * what cannot is refused before anything moved, so a reload takes the
 * whole new configuration or leaves the old one running. Sessions and
 * the listener are never touched. The lead takes it; the other workers
 * get their session knobs through their mailboxes. */

static qc_pi_params pi_params(const qc_gate_params *o);
static void glog(const gate *G, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void glog(const gate *G, int level, const char *fmt, ...)
{
    if (!G->o->log)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    G->o->log(G->o->log_ctx, level, line);
}

static gknobs knobs_of(const qc_gate_params *o)
{
    return (gknobs){o->buffer, o->idle_timeout, o->max_session, o->connect_timeout, o->max_bytes};
}

static int gsame(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static int sensor_same(const qc__sensor_params *a, const qc__sensor_params *b)
{
    return gsame(a->cmd, b->cmd) && gsame(a->url, b->url) && gsame(a->metric, b->metric) &&
           gsame(a->log, b->log) && gsame(a->pattern, b->pattern) && gsame(a->remote, b->remote) &&
           a->scale == b->scale;
}

int qc_gate_reload(qc_gate *G, const qc_gate_params *n, qc_err *err)
{
    const qc_gate_params *o = G->o;
    if (G->index != 0)
        return qc_err_set(err, QC_EINVAL, "a reload is the first worker's");
    int rc = qc_gate_check(n, err);
    if (rc)
        return rc;
    const char *f = !gsame(o->listen, n->listen)             ? "--listen"
                    : !gsame(o->backend, n->backend)         ? "--backend"
                    : !gsame(o->admin, n->admin)             ? "--admin"
                    : o->controller != n->controller         ? "--controller"
                    : o->interval != n->interval             ? "--interval"
                    : !gsame(o->series, n->series)           ? "--series"
                    : !sensor_same(&o->sensor, &n->sensor)   ? "the sensor (--sensor-*)"
                    : o->duration != n->duration             ? "--duration"
                    : o->excite != n->excite || o->seed != n->seed ? "--excite, --seed"
                                                             : NULL;
    if (f)
        return qc_err_set(err, QC_EINVAL,
                          "%s cannot change while the gate runs (restart it for that)", f);
    qc_front *front = G->g->front;
    if (n->queue > qc_front_max_decisions(front) - 1)
        return qc_err_set(err, QC_ERANGE,
                          "--queue: %u is more than the %zu places allocated at the start "
                          "(restart the gate for that)",
                          n->queue, qc_front_max_decisions(front) - 1);
    qc_mu_ctl ctl = G->ctl;
    double u = G->u;
    if (n->controller == QC_GATE_STATIC) {
        u = n->limit;
    } else if (n->controller == QC_GATE_INTEGRAL || n->controller == QC_GATE_PI) {
        qc_pi_params a = pi_params(o), b = pi_params(n);
        if (a.kp != b.kp || a.ki != b.ki || a.u_min != b.u_min || a.u_max != b.u_max ||
            a.aw != b.aw || a.k_aw != b.k_aw) {
            /* bumpless: the new controller starts at the limit in force */
            b.u_init = G->u < b.u_min ? b.u_min : G->u > b.u_max ? b.u_max : G->u;
            if ((rc = qc_mu_ctl_init(&ctl, &b, err)) != 0)
                return rc;
            u = b.u_init;
        }
    }
    /* nothing refused from here on */
    qc_front_set_queue(front, n->queue, NULL);
    qc_front_set_deadline(front, 0, n->queue_timeout, NULL);
    G->ctl = ctl;
    G->u = u;
    G->o = n;
    G->k = knobs_of(n);
    qc_gate_group *g = G->g;
    pthread_mutex_lock(&g->mu);
    for (unsigned i = 1; i < g->n; i++) {
        g->w[i].knobs = G->k;
        g->w[i].knobs_new = 1;
        if (g->w[i].async)
            uv_async_send(g->w[i].async);
    }
    pthread_mutex_unlock(&g->mu);
    set_limit(G); /* a higher limit lets the waiting sessions in now */
    return 0;
}

int qc_gate_reload_request(qc_gate *G, const char *why)
{
    const qc_gate_params *o = G->o, *n = NULL;
    if (G->draining || G->index != 0)
        return QC_EINVAL;
    qc_err err = {0};
    int rc;
    if (!o->reload)
        rc = qc_err_set(&err, QC_EINVAL, "no configuration to read again");
    else if ((rc = o->reload(o->reload_ctx, &n, &err)) == 0)
        rc = n ? qc_gate_reload(G, n, &err) : qc_err_set(&err, QC_EINVAL, "empty configuration");
    /* o may be freed by reload_done once n is taken: its hooks read first */
    void (*done)(void *, const qc_gate_params *, int) = o->reload_done;
    void *ctx = o->reload_ctx;
    if (o->reload && done && n)
        done(ctx, n, rc == 0);
    if (rc) {
        G->reloads_refused++;
        glog(G, QC_LOG_ERROR, "%s: the new configuration was refused, the running one stays: %s",
             why, err.msg);
        return rc;
    }
    G->reloads++;
    glog(G, QC_LOG_INFO, "%s: configuration reloaded (limit %u)", why, G->limit);
    return 0;
}

/* ---- setup -------------------------------------------------------------- */

void qc_gate_params_init(qc_gate_params *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:5433";
    o->controller = QC_GATE_STATIC;
    o->limit = NAN;
    o->ki = 0.1;
    o->min_limit = 1;
    o->max_limit = 1000;
    o->aw = QC_AW_CONDITIONAL;
    o->k_aw = 1;
    o->hold = 3;
    o->seed = 1;
    o->levels[0] = o->levels[1] = NAN;
    o->interval = 1;
    o->queue = 128;
    o->queue_timeout = 10;
    o->connect_timeout = 5;
    o->drain_timeout = 30;
    o->buffer = 256 * 1024;
    o->idle_timeout = 50; /* haproxy's "timeout client 50s" of Debian's haproxy.cfg */
}

static qc_pi_params pi_params(const qc_gate_params *o)
{
    double init = isfinite(o->limit) ? o->limit : o->min_limit;
    return (qc_pi_params){o->controller == QC_GATE_PI ? o->kp : 0,
                          o->ki,
                          o->min_limit,
                          o->max_limit,
                          init,
                          o->aw,
                          o->k_aw};
}

int qc_gate_check(const qc_gate_params *o, qc_err *err)
{
    struct sockaddr_storage a;
    int rc;
    if (!o->backend)
        return qc_err_set(err, QC_EINVAL, "--backend: the backend's HOST:PORT is needed");
    if ((rc = qc__addr_parse(o->backend, &a, err)) != 0) {
        qc_err_prefix(err, "--backend");
        return rc;
    }
    struct sockaddr_storage listen;
    if ((rc = qc__addr_parse(o->listen, &listen, err)) != 0) {
        qc_err_prefix(err, "--listen");
        return rc;
    }
    if (o->admin) {
        if ((rc = qc__addr_parse(o->admin, &a, err)) != 0) {
            qc_err_prefix(err, "--admin");
            return rc;
        }
        if (!qc__addr_is_loopback(&a))
            return qc_err_set(err, QC_EINVAL, "--admin: '%s' is not a loopback address",
                              o->admin);
        if (qc__addr_clash(&listen, &a)) /* here, so that --check says what the start would */
            return qc_err_set(err, QC_EINVAL, "--admin: '%s' is the address of --listen ('%s')",
                              o->admin, o->listen);
    }
    if (!(o->interval > 0) || !isfinite(o->interval))
        return qc_err_set(err, QC_EINVAL, "--interval: must be > 0");
    if (!(o->queue_timeout > 0) || !(o->connect_timeout > 0) || !(o->drain_timeout >= 0))
        return qc_err_set(err, QC_EINVAL, "--queue-timeout, --connect-timeout: must be > 0");
    if (o->buffer < 4096)
        return qc_err_set(err, QC_EINVAL, "--buffer: at least 4096 bytes");
    if (!(o->idle_timeout >= 0) || !isfinite(o->idle_timeout))
        return qc_err_set(err, QC_EINVAL, "--idle-timeout: must be >= 0 seconds (0: never)");
    if (!(o->max_session >= 0) || !isfinite(o->max_session))
        return qc_err_set(err, QC_EINVAL, "--max-session: must be >= 0 seconds (0: no bound)");
    switch (o->controller) {
    case QC_GATE_STATIC:
        if (!(o->limit >= 1))
            return qc_err_set(err, QC_EINVAL,
                              "--limit: give the static limit (>= 1), or a --controller");
        break;
    case QC_GATE_INTEGRAL:
    case QC_GATE_PI: {
        if (o->nref == 0)
            return qc_err_set(err, QC_EINVAL, "--reference: needed by --controller %s",
                              controller_name(o->controller));
        if (o->controller == QC_GATE_INTEGRAL && o->kp != 0)
            return qc_err_set(err, QC_EINVAL, "--kp: only with --controller pi");
        if (!(o->min_limit >= 0))
            return qc_err_set(err, QC_ERANGE, "--min-limit: must be >= 0");
        qc_pi_params p = pi_params(o);
        qc_pi c;
        if ((rc = qc_pi_init(&c, &p, err)) != 0) {
            qc_err_prefix(err, "--min-limit, --max-limit, --limit, --ki, --kp");
            return rc;
        }
        break;
    }
    case QC_GATE_OPEN:
        if (!(o->levels[0] >= 0) || !(o->levels[1] >= 0))
            return qc_err_set(err, QC_EINVAL,
                              "--excite-levels: give the two limits A,B of the excitation");
        if (o->hold < 1)
            return qc_err_set(err, QC_EINVAL, "--hold: at least 1 interval");
        break;
    default: return qc_err_set(err, QC_EINVAL, "--controller: unknown");
    }
    if (!(o->control_from >= 0) || !isfinite(o->control_from))
        return qc_err_set(err, QC_ERANGE, "--control-from: must be >= 0 seconds");
    if (o->control_from != 0 && o->controller == QC_GATE_STATIC)
        return qc_err_set(err, QC_EINVAL,
                          "--control-from: only with --controller integral, pi or open");
    if (o->controller != QC_GATE_OPEN && isfinite(o->levels[0]))
        return qc_err_set(err, QC_EINVAL, "--excite-levels: only with --controller open");
    qc__sensor *s = NULL;
    return qc__sensor_new(NULL, &o->sensor, NULL, NULL, &s, err);
}


/* Listens on where with SO_REUSEPORT (the port `port` when >= 0: the
 * lead's, which the other workers join), so that the kernel spreads the
 * connections over the workers' sockets. */
static int listen_shared(gate *G, int port, qc_err *err)
{
    const char *where = G->o->listen;
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
    uv_tcp_init(G->loop, &G->listener);
    G->listener.data = G;
    G->handles++;
    G->listener_open = 1;
    if ((rc = qc__bind_reuseport(&G->listener, &addr, where, err)) != 0)
        return rc;
    if ((rc = uv_listen((uv_stream_t *)&G->listener, 1024, on_client)) != 0)
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(rc));
    if (G->index == 0 && G->o->port_file &&
        (rc = qc__write_port(&G->listener, G->o->port_file, err)) != 0)
        return rc;
    return 0;
}

static int bound_port(uv_tcp_t *t)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    return uv_tcp_getsockname(t, (struct sockaddr *)&ss, &len) == 0 ? qc__addr_port(&ss) : 0;
}

/* The front the gate runs: no limiter of its own (the gate's controller
 * sets its cap), one FIFO class with the --queue-timeout deadline, its
 * room allocated for what a reload may raise --queue to. */
static qc_front *gate_front(const qc_gate_params *o, qc_err *err)
{
    qc_front_params fp;
    qc_front_params_init(&fp, QC_LIMITER_FIXED);
    fp.control = 0;
    fp.work_conserving = 0;
    fp.classes = 1;
    fp.queue = o->queue > ROOM_MIN ? o->queue : ROOM_MIN;
    fp.queue_timeout = o->queue_timeout;
    fp.discipline = QC_FRONT_FIFO;
    qc_front *f = qc_front_alloc(&fp, qc__now(), err);
    if (!f)
        return NULL;
    qc_front_set_queue(f, o->queue, NULL); /* the cap: the lead's limit, set at its start */
    return f;
}

int qc_gate_group_alloc(const qc_gate_params *o, unsigned workers, qc_gate_group **out,
                        qc_err *err)
{
    *out = NULL;
    int rc = qc_gate_check(o, err);
    if (rc != 0)
        return rc;
    if (workers < 1 || workers > 1024)
        return qc_err_set(err, QC_EINVAL, "--workers: %u is not in [1, 1024]", workers);
    qc_gate_group *g = calloc(1, sizeof *g + workers * sizeof g->w[0]);
    if (!g)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    g->o = *o;
    g->n = workers;
    if (!(g->front = gate_front(o, err))) {
        free(g);
        return err && err->code ? err->code : QC_ENOMEM;
    }
    pthread_mutex_init(&g->mu, NULL);
    *out = g;
    return 0;
}

void qc_gate_group_free(qc_gate_group *g)
{
    if (!g)
        return;
    for (unsigned i = 0; i < g->n; i++)
        for (sess *s = g->w[i].mb_head, *next; s; s = next) {
            next = s->ho_next;
            free(s); /* a zombie whose worker stopped before its decision came */
        }
    pthread_mutex_destroy(&g->mu);
    qc_front_free(g->front);
    free(g);
}

unsigned qc_gate_group_size(const qc_gate_group *g)
{
    return g->n;
}

static int gate_start(uv_loop_t *loop, qc_gate_group *g, int own, unsigned index, qc_gate **out,
                      qc_err *err)
{
    *out = NULL;
    const qc_gate_params *o = &g->o;
    gate *G = calloc(1, sizeof *G);
    if (!G) {
        if (own)
            qc_gate_group_free(g);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    G->g = g;
    G->own_group = own;
    G->index = index;
    G->me = &g->w[index];
    G->c = &G->me->c;
    G->o = o;
    G->k = knobs_of(o);
    G->loop = loop;
    int rc = qc__pcore_init(&G->core, g->front, apply, G);
    if (rc != 0) {
        if (own)
            qc_gate_group_free(g);
        free(G);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    qc__addr_parse(o->backend, &G->backend, err);
    qc_rng_init(&G->rng, o->seed, qc_rng_stream(0, QC_STREAM_CONTROL, 0));
    switch (o->controller) {
    case QC_GATE_STATIC: G->u = o->limit; break;
    case QC_GATE_OPEN:
        G->u = o->control_from > 0 && isfinite(o->limit) ? o->limit : o->levels[0];
        break;
    default: {
        qc_pi_params p = pi_params(o);
        qc_mu_ctl_init(&G->ctl, &p, err);
        G->u = p.u_init;
    }
    }
    G->t0 = qc__now();
    if (index == 0 && o->series && (rc = qc__series_open(&G->series, o->series, err)) != 0) {
        qc__pcore_free(&G->core);
        if (own)
            qc_gate_group_free(g);
        free(G);
        return rc;
    }
    /* the drain timer first: closed last (see "lifecycle") */
    uv_timer_init(loop, &G->drain_timer);
    G->drain_timer.data = G;
    uv_timer_init(loop, &G->control);
    G->control.data = G;
    uv_async_init(loop, &G->async, on_mailbox);
    G->async.data = G;
    G->handles = 3;
    pthread_mutex_lock(&g->mu);
    G->me->G = G;
    G->me->async = &G->async;
    pthread_mutex_unlock(&g->mu);
    if (g->n > 1) {
        rc = listen_shared(G, index ? g->port : -1, err);
    } else {
        G->handles++; /* qc__listen initializes the handle from here on */
        G->listener_open = 1;
        rc = qc__listen(loop, &G->listener, G, o->listen, o->port_file, on_client, err);
    }
    if (rc != 0) {
        qc_err_prefix(err, "--listen");
        goto fail;
    }
    G->port = bound_port(&G->listener);
    if (index == 0)
        g->port = G->port;
    if (index == 0 && o->admin) {
        G->handles++;
        G->admin_open = 1;
        if ((rc = qc__listen(loop, &G->admin, G, o->admin, o->admin_port_file, on_admin, err)) !=
            0) {
            qc_err_prefix(err, "--admin");
            goto fail;
        }
        G->admin_port = bound_port(&G->admin);
    }
    if (index == 0 && qc__sensor_kind_of(&o->sensor) != QC__SENSOR_NONE &&
        (rc = qc__sensor_new(loop, &o->sensor, on_sample, G, &G->sensor, err)) != 0)
        goto fail;
    if (index == 0) {
        set_limit(G);
        if (G->series) {
            /* time 0 on the wall clock, so that the rows can be set beside a
             * server's log (its lines carry epoch times) */
            struct timespec wall;
            clock_gettime(CLOCK_REALTIME, &wall);
            fprintf(G->series,
                    "# qctl gate: one row per control interval; limit is the controller's u(k), "
                    "set at time and in force until the next row (gate: applied, rounded down); "
                    "connected, peak and waiting are measured over the interval ending at time; "
                    "admitted, refused and expired count sessions since the start; sensor is the "
                    "sample taken at time (empty: missing or late, the controller held), "
                    "sensor_age the seconds since the last good sample was started\n"
                    "# t0_epoch=%lld.%06ld (time 0, seconds since 1970-01-01 UTC)\n"
                    "time,reference,limit,gate,connected,peak,waiting,admitted,refused,expired,"
                    "sensor,sensor_age,missing,held\n",
                    (long long)wall.tv_sec, wall.tv_nsec / 1000);
            fflush(G->series);
        }
        /* an interval beyond 10^6 s (which --check accepts) is a timer that
         * never fires in practice: capped, not overflowed */
        uint64_t ms = o->interval < 1e6 ? (uint64_t)llround(o->interval * 1000) : 1000000000u;
        uv_timer_start(&G->control, on_control, ms ? ms : 1, ms ? ms : 1);
    }
    *out = G;
    return 0;
fail:
    /* what was opened closes on the host's loop's next turn, and G with it */
    G->close_requested = 1;
    G->draining = 1;
    stop_all(G);
    return rc;
}

int qc_gate_start(uv_loop_t *loop, const qc_gate_params *o, qc_gate **out, qc_err *err)
{
    qc_gate_group *g;
    *out = NULL;
    int rc = qc_gate_group_alloc(o, 1, &g, err);
    if (rc != 0)
        return rc;
    return gate_start(loop, g, 1, 0, out, err);
}

int qc_gate_group_start(uv_loop_t *loop, qc_gate_group *g, unsigned index, qc_gate **out,
                        qc_err *err)
{
    *out = NULL;
    if (index >= g->n)
        return qc_err_set(err, QC_EINVAL, "worker %u of %u", index, g->n);
    if (index > 0 && g->port == 0)
        return qc_err_set(err, QC_EINVAL, "worker %u started before the first", index);
    return gate_start(loop, g, 0, index, out, err);
}

int qc_gate_params_check(const qc_gate_params *o, qc_err *err)
{
    int rc = qc_gate_check(o, err);
    if (rc == 0 && (rc = qc__bind_probe(o->listen, err)) != 0)
        qc_err_prefix(err, "--listen");
    if (rc == 0 && o->admin && (rc = qc__bind_probe(o->admin, err)) != 0)
        qc_err_prefix(err, "--admin");
    return rc;
}
