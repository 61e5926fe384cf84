/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate.c: `qctl gate`, MaxUsers at the TCP session level (see gate.h).
 *
 * The invariant is the one MaxUsers states: at most `limit` sessions hold
 * a place (connecting to or connected to the backend) at once, except
 * when the controller lowers the limit below the sessions already in,
 * which then end on their own (a gate never cuts a session it let in).
 * A place is taken when a session is admitted and given back when it
 * closes; the FIFO is pumped whenever a place frees or the limit rises.
 *
 * Relaying knows no protocol: each read is written to the other side, and
 * reading from one side stops while the other side has more than `buffer`
 * bytes queued, resuming when the queue falls under half of it (nginx's
 * rule: a slow reader slows its writer, end to end). So a session holds at
 * most about 2 x (buffer + 64 KiB) of memory, and a waiting one at most
 * 16 KiB read ahead (so a full FIFO of N holds at most N x 16 KiB). An end of stream read from one side is
 * passed on as a shutdown of the other's write side once what was queued
 * is written (a half-close); the session closes when both directions have
 * ended, or at once on an error on either side.
 *
 * The control loop runs every interval: the tick notes the sessions and
 * the peak of the interval, and starts a sensor sample (sensor.h) with a
 * deadline of 0.9 interval; its answer (or the sessions connected, with
 * no sensor) steps the controller, sets the limit and writes the series
 * row. A failed or late sample leaves the limit as it was (held). */
#include "live/gate.h"

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/http.h"
#include "live/list.h"
#include "live/live.h"
#include "qctl/rng.h"

#define READ_CHUNK 65536
#define ADMIN_CONNS_MAX 32
#define READ_AHEAD 16384 /* a waiting client's bytes read ahead, at most */

enum { S_WAIT, S_CONNECT, S_RELAY };

typedef struct gate gate;

/* What a session and an admin connection own besides their handles, first
 * in each (owner_closed reads it through the handles' data): how many of
 * the handles are still open, and the bytes read and not yet passed on
 * (a session's client bytes read before the relay, an admin request). */
typedef struct conn_own {
    unsigned handles;
    qc__buf in;
} conn_own;

typedef struct sess {
    conn_own own;
    gate *G;
    uv_tcp_t client, up;
    uv_timer_t timer; /* wait deadline, then connect deadline */
    uv_connect_t conn;
    int state;
    int closing, up_init, counted;
    int c_eof, u_eof;       /* end of stream read from the client / upstream */
    int c_shut, u_shut;     /* their write sides shut down (done) */
    int c_paused, u_paused; /* reading stopped for backpressure */
    double t_in, t_seen;    /* relaying since, last byte either way (see sess_budget) */
    uint64_t bytes;         /* relayed both ways */
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

struct gate {
    const qc_gate_params *o;
    uv_loop_t loop;
    uv_tcp_t listener, admin;
    int admin_on;
    uv_signal_t sigterm, sigint;
    uv_signal_t sighup; /* a reload: qc_gate_reload */
    unsigned long long reloads, reloads_refused;
    uv_timer_t control, duration;
    struct sockaddr_storage backend;
    qc_mu_ctl ctl;
    qc_rng rng;
    qc__sensor *sensor;
    double u;       /* the controller's limit (a real number) */
    unsigned limit; /* the limit applied: floor(u) */
    unsigned connected, peak;
    slist waiting, active;
    aconn *admins, *admins_tail; /* open admin connections, the newest first */
    unsigned nadmins;
    unsigned long long accepted, admitted, refused, expired, left, backend_errors, done;
    unsigned long long bytes_up, bytes_down;
    unsigned long long cut_idle, cut_time, cut_bytes; /* sessions closed by a bound */
    int backend_down; /* the last connect to the backend failed (/readyz) */
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
    int draining, stopping, in_pump;
    double drain_until;
    FILE *series;
};

static void stop_all(gate *G);
static void pump(gate *G);
static void sess_budget_arm(sess *s);
static int sess_budget_note(sess *s, size_t n);

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
 * the owner goes with its last one. */
static void owner_closed(uv_handle_t *h)
{
    conn_own *o = h->data;
    if (--o->handles > 0)
        return;
    qc__buf_free(&o->in);
    free(o);
}

static void hclose(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, owner_closed);
}

/* Gives s's place back and admits the next session. */
static void sess_release(sess *s)
{
    gate *G = s->G;
    if (!s->counted)
        return;
    s->counted = 0;
    G->connected--;
    G->done++;
    if (G->draining && G->connected == 0)
        stop_all(G);
    else
        pump(G);
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
 * place back once its backend socket is closed. */
static void sess_close(sess *s)
{
    if (s->closing)
        return;
    gate *G = s->G;
    s->closing = 1;
    list_remove(s->state == S_WAIT ? &G->waiting : &G->active, s);
    hclose((uv_handle_t *)&s->client);
    hclose((uv_handle_t *)&s->timer);
    if (s->up_init && !uv_is_closing((uv_handle_t *)&s->up))
        uv_close((uv_handle_t *)&s->up, up_closed);
    else
        sess_release(s);
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
    size_t low = s->G->o->buffer / 2;
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
    if (uv_stream_get_write_queue_size(to) > s->G->o->buffer) {
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
        G->bytes_up += (unsigned long long)n;
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
        if (s->own.in.len >= READ_AHEAD || s->own.in.len >= G->o->buffer) {
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
        G->left++;
        sess_close(s);
    } /* else: half-closed with bytes to send once it is in */
}

static void on_up_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    sess *s = st->data;
    gate *G = s->G;
    if (n > 0) {
        G->bytes_down += (unsigned long long)n;
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
    if (s->closing || status == UV_ECANCELED)
        return;
    if (status < 0) {
        s->G->backend_errors++;
        s->G->backend_down = 1;
        sess_close(s);
        return;
    }
    uv_timer_stop(&s->timer);
    s->state = S_RELAY;
    s->G->backend_down = 0;
    s->t_in = s->t_seen = qc__now();
    sess_budget_arm(s);
    uv_tcp_nodelay(&s->client, 1);
    uv_tcp_nodelay(&s->up, 1);
    if (s->own.in.len) {
        char *p = s->own.in.data;
        size_t n = s->own.in.len;
        s->own.in = (qc__buf){0}; /* the write owns the bytes now */
        s->G->bytes_up += n;
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
 * one session. The checks run on the session's own timer, armed while it
 * relays for the nearest of its deadlines (reads only note the time). */
static double sess_deadline(const sess *s)
{
    const qc_gate_params *o = s->G->o;
    double d = INFINITY;
    if (o->idle_timeout > 0)
        d = s->t_seen + o->idle_timeout;
    if (o->max_session > 0 && s->t_in + o->max_session < d)
        d = s->t_in + o->max_session;
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
    const qc_gate_params *o = s->G->o;
    s->t_seen = qc__now();
    s->bytes += n;
    if (o->max_bytes && s->bytes > o->max_bytes) {
        s->G->cut_bytes++;
        sess_close(s);
        return 1;
    }
    return 0;
}

static void on_sess_timer(uv_timer_t *t)
{
    sess *s = t->data;
    if (s->state == S_RELAY) { /* a bound of the session's (see above) */
        double now = qc__now();
        const qc_gate_params *o = s->G->o;
        if (o->max_session > 0 && now >= s->t_in + o->max_session - 1e-3) {
            s->G->cut_time++;
        } else if (o->idle_timeout > 0 && now >= s->t_seen + o->idle_timeout - 1e-3) {
            s->G->cut_idle++;
        } else {
            sess_budget_arm(s); /* bytes came since: the idle deadline moved */
            return;
        }
        sess_close(s);
        return;
    }
    if (s->state == S_WAIT)
        s->G->expired++;
    else
        s->G->backend_errors++; /* the backend did not accept in time */
    sess_close(s);
}

/* Takes a place for s and connects it to the backend. */
static void admit(gate *G, sess *s)
{
    if (s->state == S_WAIT)
        list_remove(&G->waiting, s);
    s->state = S_CONNECT;
    list_push(&G->active, s);
    s->counted = 1;
    G->connected++;
    if (G->connected > G->peak)
        G->peak = G->connected;
    G->admitted++;
    uv_tcp_init(&G->loop, &s->up);
    s->up.data = s;
    s->up_init = 1;
    s->own.handles++;
    s->conn.data = s;
    uv_timer_start(&s->timer, on_sess_timer, (uint64_t)(G->o->connect_timeout * 1000), 0);
    if (uv_tcp_connect(&s->conn, &s->up, (const struct sockaddr *)&G->backend, on_up_connect) !=
        0) {
        G->backend_errors++;
        sess_close(s);
    }
}

/* Admits waiting sessions, oldest first, while there are places. Not
 * reentrant: a session closed while pumping frees a place the loop sees. */
static void pump(gate *G)
{
    if (G->in_pump)
        return;
    G->in_pump = 1;
    while (!G->draining && !G->stopping && G->waiting.head && G->connected < G->limit)
        admit(G, G->waiting.head);
    G->in_pump = 0;
}

static void on_client(uv_stream_t *server, int status)
{
    gate *G = server->data;
    sess *s = status < 0 ? NULL : calloc(1, sizeof *s);
    if (!s)
        return;
    s->G = G;
    s->own.handles = qc__conn_init(&G->loop, &s->client, &s->timer, s);
    s->state = S_WAIT;
    list_push(&G->waiting, s); /* removed by admit or close */
    if (uv_accept(server, (uv_stream_t *)&s->client) != 0) {
        sess_close(s);
        return;
    }
    G->accepted++;
    if (G->draining || G->stopping) {
        G->refused++;
        sess_close(s);
        return;
    }
    client_read_start(s);
    if (G->waiting.n == 1 && G->connected < G->limit) {
        admit(G, s);
    } else if (G->waiting.n <= G->o->queue) {
        uv_timer_start(&s->timer, on_sess_timer, (uint64_t)(G->o->queue_timeout * 1000), 0);
    } else {
        G->refused++;
        sess_close(s);
    }
}

/* ---- admin -------------------------------------------------------------- */

static const char *controller_name(int c)
{
    static const char *names[] = {"static", "integral", "pi", "open"};
    return c >= 0 && c <= 3 ? names[c] : "?";
}

static size_t metrics_text(const gate *G, char *buf, size_t cap)
{
    double now = qc__now();
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
        G->limit, G->u, G->active.n, G->waiting.n, G->accepted, G->admitted, G->refused,
        G->expired, G->left, G->backend_errors, G->done, G->bytes_up, G->bytes_down,
        G->intervals, G->held_demand, G->held_missing, samples, failed);
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
                     G->draining, G->cut_idle, G->cut_time, G->cut_bytes);
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
    json_t *r = json_object();
    json_object_set_new(r, "uptime", json_real(now - G->t0));
    json_object_set_new(r, "controller", json_string(controller_name(o->controller)));
    if (o->controller == QC_GATE_INTEGRAL || o->controller == QC_GATE_PI)
        json_object_set_new(r, "reference", json_real(qc_sched_at(o->ref, o->nref, now - G->t0)));
    json_object_set_new(r, "limit", json_integer(G->limit));
    json_object_set_new(r, "limit_controller", json_real(G->u));
    json_object_set_new(r, "connected", json_integer(G->active.n));
    json_object_set_new(r, "waiting", json_integer(G->waiting.n));
    json_object_set_new(r, "queue", json_integer(o->queue));
    json_object_set_new(r, "reloads", json_integer((json_int_t)G->reloads));
    json_object_set_new(r, "reloads_refused", json_integer((json_int_t)G->reloads_refused));
    json_object_set_new(r, "accepted", json_integer((json_int_t)G->accepted));
    json_object_set_new(r, "admitted", json_integer((json_int_t)G->admitted));
    json_object_set_new(r, "refused", json_integer((json_int_t)G->refused));
    json_object_set_new(r, "expired", json_integer((json_int_t)G->expired));
    json_object_set_new(r, "left", json_integer((json_int_t)G->left));
    json_object_set_new(r, "backend_errors", json_integer((json_int_t)G->backend_errors));
    json_object_set_new(r, "bytes_up", json_integer((json_int_t)G->bytes_up));
    json_object_set_new(r, "bytes_down", json_integer((json_int_t)G->bytes_down));
    json_object_set_new(r, "cut_idle", json_integer((json_int_t)G->cut_idle));
    json_object_set_new(r, "cut_time", json_integer((json_int_t)G->cut_time));
    json_object_set_new(r, "cut_bytes", json_integer((json_int_t)G->cut_bytes));
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
                          : G->backend_down ? "not ready: the last connect to the backend failed\n"
                                            : "ready\n";
        int ok = !G->draining && !G->backend_down;
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
    a->own.handles = qc__conn_init(&G->loop, &a->tcp, &a->timer, a);
    QC__LIST_PUSH_HEAD(G->admins, G->admins_tail, a, prev, next);
    G->nadmins++;
    if (uv_accept(server, (uv_stream_t *)&a->tcp) != 0 || G->nadmins > ADMIN_CONNS_MAX) {
        admin_close(a);
        return;
    }
    uv_timer_start(&a->timer, on_admin_timer, 5000, 0);
    uv_read_start((uv_stream_t *)&a->tcp, admin_alloc, on_admin_read);
}

/* ---- control ------------------------------------------------------------ */

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
    fprintf(f, "%.10g,%u,%u,%u,%u,%llu,%llu,%llu,", G->u, G->limit, G->tick_connected,
            G->tick_peak, G->tick_waiting, G->admitted, G->refused, G->expired);
    put_num(f, ok ? y : NAN, ",");
    put_num(f, G->have_value ? now - G->value_t : NAN, ",");
    fprintf(f, "%llu,%llu\n", G->missing, G->held_demand + G->held_missing);
    fflush(f);
}

/* The interval's answer: steps the controller (or holds), applies the
 * limit, writes the row. */
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
    G->limit = (unsigned)floor(G->u + 1e-9);
    if (G->series)
        write_row(G, ok, y, now);
    pump(G);
}

static void on_sample(void *ctx, int ok, double v)
{
    gate *G = ctx;
    if (G->pending && !G->stopping)
        decide(G, ok, v);
}

static void on_control(uv_timer_t *t)
{
    gate *G = t->data;
    double now = qc__now();
    if (G->draining && now >= G->drain_until) {
        stop_all(G);
        return;
    }
    if (G->pending) /* the last sample never came (a timer late under load) */
        decide(G, 0, 0);
    G->tick_t = now;
    G->tick_connected = G->active.n;
    G->tick_waiting = G->waiting.n;
    G->tick_peak = G->peak;
    G->peak = G->connected;
    G->pending = 1;
    if (G->sensor)
        qc__sensor_start(G->sensor, 0.9 * G->o->interval);
    else
        decide(G, 1, (double)G->tick_connected);
}

/* ---- drain and stop ----------------------------------------------------- */

static void close_if_open(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

static void stop_all(gate *G)
{
    if (G->stopping)
        return;
    G->stopping = 1;
    close_if_open((uv_handle_t *)&G->control);
    close_if_open((uv_handle_t *)&G->duration);
    close_if_open((uv_handle_t *)&G->sigterm);
    close_if_open((uv_handle_t *)&G->sigint);
    close_if_open((uv_handle_t *)&G->sighup);
    close_if_open((uv_handle_t *)&G->listener);
    if (G->admin_on)
        close_if_open((uv_handle_t *)&G->admin);
    qc__sensor_close(G->sensor);
    G->sensor = NULL;
    while (G->waiting.head)
        sess_close(G->waiting.head);
    while (G->active.head)
        sess_close(G->active.head);
    while (G->admins)
        admin_close(G->admins);
}

static void start_drain(gate *G)
{
    if (G->draining)
        return;
    G->draining = 1;
    G->drain_until = qc__now() + G->o->drain_timeout;
    close_if_open((uv_handle_t *)&G->listener);
    while (G->waiting.head) {
        G->refused++;
        sess_close(G->waiting.head);
    }
    if (G->connected == 0)
        stop_all(G);
}

static void on_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    gate *G = s->data;
    if (G->draining)
        stop_all(G);
    else
        start_drain(G);
}

static void on_duration(uv_timer_t *t) { start_drain(t->data); }

/* ---- reload ---------------------------------------------------------------
 *
 * As the proxy's (proxy_reload.c): what can change in place is changed,
 * what cannot is refused before anything moved, so a reload takes the
 * whole new configuration or leaves the old one running. Sessions and
 * the listener are never touched. */

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
    if (n->controller == QC_GATE_STATIC) {
        G->u = n->limit;
    } else if (n->controller == QC_GATE_INTEGRAL || n->controller == QC_GATE_PI) {
        qc_pi_params a = pi_params(o), b = pi_params(n);
        if (a.kp != b.kp || a.ki != b.ki || a.u_min != b.u_min || a.u_max != b.u_max ||
            a.aw != b.aw || a.k_aw != b.k_aw) {
            /* bumpless: the new controller starts at the limit in force */
            b.u_init = G->u < b.u_min ? b.u_min : G->u > b.u_max ? b.u_max : G->u;
            qc_mu_ctl ctl;
            if ((rc = qc_mu_ctl_init(&ctl, &b, err)) != 0)
                return rc;
            G->ctl = ctl;
            G->u = b.u_init;
        }
    }
    G->limit = (unsigned)floor(G->u + 1e-9);
    G->o = n;
    pump(G); /* a higher limit lets the waiting sessions in now */
    return 0;
}

static void on_hup(uv_signal_t *h, int sig)
{
    (void)sig;
    gate *G = h->data;
    const qc_gate_params *o = G->o, *n = NULL;
    if (G->draining)
        return;
    qc_err err = {0};
    int rc;
    if (!o->reload)
        rc = qc_err_set(&err, QC_EINVAL, "no configuration to read again");
    else if ((rc = o->reload(o->reload_ctx, &n, &err)) == 0)
        rc = n ? qc_gate_reload(G, n, &err) : qc_err_set(&err, QC_EINVAL, "empty configuration");
    if (o->reload && o->reload_done && n)
        o->reload_done(o->reload_ctx, n, rc == 0);
    if (rc) {
        G->reloads_refused++;
        glog(G, QC_LOG_ERROR, "SIGHUP: the new configuration was refused, the running one stays: %s", err.msg);
        return;
    }
    G->reloads++;
    glog(G, QC_LOG_INFO, "SIGHUP: configuration reloaded (limit %u)", G->limit);
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
    if ((rc = qc__addr_parse(o->listen, &a, err)) != 0) {
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

static int listen_on(gate *G, uv_tcp_t *t, const char *where, const char *port_file,
                     uv_connection_cb cb, qc_err *err)
{
    return qc__listen(&G->loop, t, G, where, port_file, cb, err);
}

static void walk_close(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

int qc_gate_run(const qc_gate_params *o, qc_err *err)
{
    int rc = qc_gate_check(o, err);
    if (rc)
        return rc;
    gate *G = calloc(1, sizeof *G);
    if (!G)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    G->o = o;
    if (uv_loop_init(&G->loop) != 0) {
        free(G);
        return qc_err_set(err, QC_EIO, "cannot start the event loop");
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
    G->limit = (unsigned)floor(G->u + 1e-9);
    uv_timer_init(&G->loop, &G->control);
    uv_timer_init(&G->loop, &G->duration);
    uv_signal_init(&G->loop, &G->sigterm);
    uv_signal_init(&G->loop, &G->sigint);
    G->control.data = G->duration.data = G->sigterm.data = G->sigint.data = G;
    rc = listen_on(G, &G->listener, o->listen, o->port_file, on_client, err);
    if (rc) {
        qc_err_prefix(err, "--listen");
        goto fail;
    }
    if (o->admin) {
        G->admin_on = 1;
        if ((rc = listen_on(G, &G->admin, o->admin, o->admin_port_file, on_admin, err)) != 0) {
            qc_err_prefix(err, "--admin");
            goto fail;
        }
    }
    if (o->series && (rc = qc__series_open(&G->series, o->series, err)) != 0)
        goto fail;
    if (qc__sensor_kind_of(&o->sensor) != QC__SENSOR_NONE &&
        (rc = qc__sensor_new(&G->loop, &o->sensor, on_sample, G, &G->sensor, err)) != 0)
        goto fail;
    G->t0 = qc__now();
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
    uint64_t ms = (uint64_t)llround(o->interval * 1000);
    uv_timer_start(&G->control, on_control, ms ? ms : 1, ms ? ms : 1);
    if (o->duration > 0)
        uv_timer_start(&G->duration, on_duration, (uint64_t)llround(o->duration * 1000), 0);
    uv_signal_start(&G->sigterm, on_signal, SIGTERM);
    uv_signal_start(&G->sigint, on_signal, SIGINT);
    uv_signal_init(&G->loop, &G->sighup);
    G->sighup.data = G;
    uv_signal_start(&G->sighup, on_hup, SIGHUP);
    uv_run(&G->loop, UV_RUN_DEFAULT);
    rc = 0;
    goto done;
fail:
    qc__sensor_close(G->sensor);
    G->sensor = NULL;
    uv_walk(&G->loop, walk_close, NULL);
    uv_run(&G->loop, UV_RUN_DEFAULT);
done:
    if (G->series && fclose(G->series) != 0 && rc == 0)
        rc = qc_err_set(err, QC_EIO, "--series: %s: write failed", o->series);
    uv_loop_close(&G->loop);
    free(G);
    return rc;
}
