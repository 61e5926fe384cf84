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
 * and parked with the load by commands, a warm-up ending at the first
 * healthy answer; a request routed to a warming backend waits for it
 * within its deadline (see "backend fleet").
 *
 * The invariant the tests check: every request read is answered exactly
 * once, by the backend's response, a 503 (refused, queue or warm-up
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
 * deadlines shrink to --queue-target (see "queue discipline"). */
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "live/http.h"
#include "live/live.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/sfq.h"


typedef struct cconn cconn;
typedef struct uconn uconn;
typedef struct proxy proxy;

typedef struct probe probe;
typedef struct fcmd fcmd;

/* A backend: its address and links; its power state and counts are in
 * P->fleet (fleet.h), at the same index. */
typedef struct pbackend {
    int kind, what; /* K_FLEET, F_BACKEND: see close_walk */
    struct sockaddr_storage addr;
    const char *name;
    char host[64];
    int port;
    unsigned index;
    proxy *P;
    uconn *idle;
    uconn *wait_head, *wait_tail; /* requests waiting for its warm-up */
    fcmd *cmd;                    /* its un/park command running, or NULL */
    probe *probe;                 /* its health probe in flight, or NULL */
    uv_timer_t health;            /* polls the health path while WARMING, probes
                                     an ON one (out of rotation, or --health-check) */
    unsigned fails;               /* failures in a row (passive health) */
    int out;                      /* taken out of rotation: see backend_failed */
    uint64_t ejections;
} pbackend;

enum { K_CLIENT = 1, K_UPSTREAM = 2, K_FLEET = 3 };
enum { F_BACKEND = 1, F_PROBE, F_CMD };

/* One GET of the health path of a WARMING backend. */
struct probe {
    int kind, what; /* K_FLEET, F_PROBE */
    uv_tcp_t tcp;
    uv_connect_t connect;
    pbackend *b;
    char buf[64];
    size_t len;
    int closing;
};

/* An un/park command running through /bin/sh -c. */
struct fcmd {
    int kind, what; /* K_FLEET, F_CMD */
    uv_process_t proc;
    uv_timer_t timer; /* its time bound */
    pbackend *b;
    int park, spawned, exited, timed_out, closing, handles_open;
};

struct cconn {
    int kind; /* K_CLIENT: first, see close_walk */
    uv_tcp_t tcp;
    uv_timer_t timer;
    proxy *P;
    qc__buf in;
    qc__buf req; /* the request being carried */
    int admin, closing, handles_open;
    int state; /* C_READ, C_QUEUED, C_UPSTREAM */
    int keep;
    int head_timer_on;
    int head_method; /* the request is HEAD: its response has no body */
    int processing;  /* client_process's loop is running: see there */
    int rpaused;     /* reading stopped: see client_flow */
    int ending;      /* its last answer is written: closes after it */
    int idem;        /* the request's method is idempotent (RFC 9110 9.2.2) */
    int minor;       /* the request's HTTP/1.minor */
    int continued;   /* 100 Continue sent for the request being read */
    size_t mem;      /* its buffers' bytes counted in P->mem */
    unsigned tries;  /* times the request was sent again: see retry */
    unsigned cls;
    double t_arrive;
    uconn *up;
    cconn *qnext;
};

enum { C_READ = 0, C_QUEUED, C_UPSTREAM };
/* uconn.placed: see "backend fleet" */
enum { PLACED_NONE = 0, PLACED_WAITING, PLACED_SENT };

struct uconn {
    int kind; /* K_UPSTREAM */
    uv_tcp_t tcp;
    uv_connect_t connect;
    uv_timer_t timer;
    proxy *P;
    pbackend *b;
    cconn *client;
    qc__buf in;
    qc_limiter_token tok;
    int has_tok;
    unsigned cls;
    int head_method; /* answering a HEAD request: no body follows the head */
    double t_admit;
    double t_arrive; /* its client's request arrived (the delay ADMISSION measures) */
    /* the response being streamed (see response_end) */
    int rstate, framing, keep_resp, head_sent, paused;
    uint64_t left; /* F_LENGTH: body bytes still to come */
    qc__http_chunked ch;
    int busy, closing, handles_open, to_close; /* to_close: body ends at EOF */
    int reframe; /* a body to the close, sent to the client chunked */
    uconn *next_idle;
    int placed;       /* PLACED_*: waiting at a warming backend, or sent */
    int connected;    /* the link to b is up or being made */
    int link_up;      /* the connect succeeded (a kept link: before) */
    int reused;       /* the link carried a request before this one */
    uconn *next_wait; /* b's list of requests waiting for its warm-up */
};

/* Latency histogram buckets of /metrics (seconds; +Inf implied). */
static const double lat_le[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                0.25,  0.5,    1,     2.5,  5,     10};
#define LAT_BUCKETS (sizeof lat_le / sizeof *lat_le)

/* A class: its counts, and its own FIFO of requests waiting for a slot.
 * The FIFOs are served by start-time fair queueing (qctl/sfq.h) on the
 * limiter's weights (1 each but under ADMISSION): the backlogged class
 * with the least pass goes next and is charged at its start est / weight,
 * est being the class's running mean time at the backend (requests are
 * chosen while others are in flight, and a request's own cost is known
 * only once it is over). */
typedef struct pclass {
    const char *name;
    double bound;
    uint64_t admitted, refused, answered;
    qc_hist *lat;
    uint64_t lat_bucket[LAT_BUCKETS + 1];
    double lat_sum;
    cconn *qhead, *qtail;
    unsigned qlen;
    double est;
} pclass;

_Static_assert(QC_PROXY_CLASSES_MAX + 1 <= QC_SFQ_MAX_CLASSES, "a class bit per class in qc_sfq_pick");

struct proxy {
    uv_loop_t *loop; /* &loop_own: nothing process-wide */
    uv_loop_t loop_own;
    const qc_proxy_opts *o;
    uv_tcp_t listener, admin;
    int admin_on;
    uv_signal_t sigterm, sigint;
    uv_timer_t control;
    qc_limiter *lim;
    pbackend backend[QC_PROXY_BACKENDS_MAX];
    unsigned nb, rr;
    qc__fleet fleet;
    uint64_t unpark_failures, park_failures, warm_timeouts;
    pclass cls[QC_PROXY_CLASSES_MAX + 1];
    unsigned ncls;
    unsigned qlen; /* waiting, all classes */
    qc_sfq sfq;    /* the order of the class queues */
    unsigned inflight;
    int draining;
    uint64_t bad_requests, errors502, errors504, conns;
    double retry_tokens, retry_t; /* the retry budget: see retry_allowed */
    uint64_t retries, retries_denied;
    size_t mem;        /* bytes in the clients' request buffers (--max-memory) */
    double q_min;      /* least wait of a request let in this interval (codel) */
    int q_standing;    /* the queue is standing: short deadlines (codel) */
    int q_drained;     /* the queue emptied by admission this interval (codel) */
    uint64_t q_shed;   /* requests refused by the short deadline (codel) */
    char token[256];   /* --admin-token-file's token, or empty */
    double drain_until; /* draining: stop at this time (--drain-timeout) */
    int stopping;       /* closing everything: see stop_now */
    unsigned nclients; /* client connections open (--max-connections) */
    uint64_t refused_conns, refused_mem, too_large;
    double t0;
    FILE *series;
};

static void client_process(cconn *c);
static void upstream_resume(uconn *u);
static void on_upstream_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static void on_upstream_timer(uv_timer_t *t);
static void pump_queue(proxy *P);
static void forward(cconn *c, uconn *u, int avoid);
static void backend_failed(pbackend *b);
static void stop_now(proxy *P, const char *why);
static void plog(const proxy *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void backend_answered(pbackend *b);
static void fleet_request_done(uconn *u, int ok);
static void unwait(uconn *u);
static void warmup_deadline(uconn *u);
static int backend_is_on(const pbackend *b);
static void park_start(pbackend *b);
static void unpark_start(pbackend *b);
static double wait_deadline(proxy *P, unsigned i);
static int codel_on(const proxy *P);
static void codel_stand(proxy *P, double now);

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)h;
    (void)hint;
    static char slab[65536]; /* one loop thread; on_read copies out */
    *buf = uv_buf_init(slab, sizeof slab);
}

/* ---- clients ------------------------------------------------------------ */

/* Accounts c's request buffers in P->mem (--max-memory). */
static void client_mem(cconn *c)
{
    size_t now = c->in.cap + c->req.cap;
    c->P->mem = c->P->mem - c->mem + now;
    c->mem = now;
}

static void client_closed(uv_handle_t *h)
{
    cconn *c = h->data;
    if (--c->handles_open == 0) {
        qc__buf_free(&c->in);
        qc__buf_free(&c->req);
        client_mem(c);
        c->P->nclients -= !c->admin;
        free(c);
    }
}

static void unqueue(cconn *c)
{
    proxy *P = c->P;
    pclass *k = &P->cls[c->cls];
    cconn *prev = NULL;
    for (cconn *q = k->qhead; q; prev = q, q = q->qnext)
        if (q == c) {
            if (prev)
                prev->qnext = q->qnext;
            else
                k->qhead = q->qnext;
            if (k->qtail == q)
                k->qtail = prev;
            k->qlen--;
            P->qlen--;
            return;
        }
}

/* Appends c to its class's queue. */
static void enqueue(cconn *c)
{
    proxy *P = c->P;
    pclass *k = &P->cls[c->cls];
    if (!k->qhead)
        qc_sfq_join(&P->sfq, c->cls); /* newly backlogged: no credit for idling */
    c->state = C_QUEUED;
    c->qnext = NULL;
    if (k->qtail)
        k->qtail->qnext = c;
    else
        k->qhead = c;
    k->qtail = c;
    k->qlen++;
    P->qlen++;
}

/* Takes the head of class i's queue off it. */
static cconn *dequeue(proxy *P, unsigned i)
{
    pclass *k = &P->cls[i];
    cconn *c = k->qhead;
    k->qhead = c->qnext;
    if (!k->qhead)
        k->qtail = NULL;
    k->qlen--;
    P->qlen--;
    c->state = C_READ;
    return c;
}

static void client_close(cconn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->state == C_QUEUED)
        unqueue(c);
    if (c->up) {
        c->up->client = NULL; /* the backend's answer will be dropped */
        upstream_resume(c->up); /* read (and drop) the rest, if it was paused */
    }
    c->up = NULL;
    uv_close((uv_handle_t *)&c->tcp, client_closed);
    uv_close((uv_handle_t *)&c->timer, client_closed);
}

static void client_close_cb(void *c)
{
    client_close(c);
}

static void client_close_after_write(cconn *c)
{
    c->ending = 1; /* requests pipelined after the last are not read */
    qc__close_after_write((uv_stream_t *)&c->tcp, client_close_cb, c);
}

static void on_client_timer(uv_timer_t *t);

/* Buffers larger than this are given back once their request is over: a
 * large body is not kept while its connection idles. */
#define BUF_KEEP (64u << 10)

static void client_idle(cconn *c)
{
    c->state = C_READ;
    c->head_timer_on = 0;
    c->continued = 0;
    if (c->req.cap > BUF_KEEP)
        qc__buf_free(&c->req);
    if (c->in.len == 0 && c->in.cap > BUF_KEEP)
        qc__buf_free(&c->in);
    client_mem(c);
    uv_timer_start(&c->timer, on_client_timer, (uint64_t)(c->P->o->idle_timeout * 1000), 0);
}

/* Writes to a client go through one path (client_write) whose completion
 * (on_client_write) resumes whatever waited for the client's write queue
 * to drain: an upstream streaming to it (see stream_out) or the client's
 * own pipelined requests (see client_process). WQ_HIGH bounds the unsent
 * bytes held for one client; WQ_LOW is where waiting ends. */
#define WQ_HIGH (256u << 10)
#define WQ_LOW (64u << 10)
/* Request bytes read ahead while a request is being carried: beyond it the
 * client is not read until its current request is answered. */
#define IN_HIGH (64u << 10)
/* Unsent answers beyond which a client's pipelined requests wait: small
 * answers cost several times their size in write requests. */
#define WQ_REPLIES (32u << 10)

enum { R_HEAD = 0, R_BODY };
enum { F_LENGTH = 0, F_CHUNKED, F_CLOSE };

typedef struct cwrite {
    uv_write_t req;
    cconn *c;
    char data[];
} cwrite;

static void upstream_resume(uconn *u)
{
    if (!u->paused || u->closing)
        return;
    u->paused = 0;
    uv_read_start((uv_stream_t *)&u->tcp, alloc_cb, on_upstream_read);
    uv_timer_start(&u->timer, on_upstream_timer, (uint64_t)(u->P->o->backend_timeout * 1000), 0);
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

static size_t client_wq(cconn *c)
{
    return uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
}

/* A write to a client is done: below WQ_LOW, a paused upstream streaming
 * to it reads again, and a client whose reading was stopped (see
 * client_flow) is served and read again. */
static void on_client_write(uv_write_t *req, int status)
{
    (void)status;
    cwrite *w = (cwrite *)req;
    cconn *c = w->c;
    free(w);
    /* a write is called back before its stream's close callback, so c is
     * still there */
    if (c->closing || client_wq(c) > WQ_LOW)
        return;
    if (c->up && c->up->paused)
        upstream_resume(c->up);
    if (c->rpaused)
        client_process(c);
}

/* Queues a copy of p[0..n) to c. On failure c is closed and it returns
 * nonzero. */
static int client_write(cconn *c, const char *p, size_t n)
{
    if (c->closing)
        return -1;
    cwrite *w = malloc(sizeof *w + n);
    if (!w) {
        client_close(c);
        return -1;
    }
    memcpy(w->data, p, n);
    w->c = c;
    uv_buf_t b = uv_buf_init(w->data, (unsigned)n);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_client_write) != 0) {
        free(w);
        client_close(c);
        return -1;
    }
    return 0;
}


/* Writes a response qctl makes itself, then goes on with the next request
 * (client_process, which does not recurse: see there). */
static void client_reply(cconn *c, int status, const char *reason, const char *extra,
                         const char *ctype, const char *body, size_t blen)
{
    char msg[1024];
    int keep = c->keep && !c->P->draining;
    int k = snprintf(
        msg, sizeof msg, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
        status, reason, ctype, blen, extra ? extra : "", keep ? "" : "Connection: close\r\n");
    if ((size_t)k + blen <= sizeof msg) { /* one write: the common, small answer */
        memcpy(msg + k, body, blen);
        if (client_write(c, msg, (size_t)k + blen) != 0)
            return; /* closed */
    } else if (client_write(c, msg, (size_t)k) != 0 || (blen && client_write(c, body, blen) != 0)) {
        return;
    }
    c->state = C_READ;
    if (!keep) {
        client_close_after_write(c);
        return;
    }
    client_idle(c);
    client_process(c);
}

static void record_latency(pclass *k, double s)
{
    qc_hist_add(k->lat, s);
    unsigned b = 0;
    while (b < LAT_BUCKETS && s > lat_le[b])
        b++;
    k->lat_bucket[b]++;
    k->lat_sum += s;
}

static void refuse(cconn *c)
{
    proxy *P = c->P;
    P->cls[c->cls].refused++;
    static const char body[] = "overloaded: retry later\n";
    client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                 sizeof body - 1);
}

static void on_client_timer(uv_timer_t *t)
{
    cconn *c = t->data;
    if (c->state == C_QUEUED) { /* the class's deadline passed */
        unqueue(c);
        c->state = C_READ;
        refuse(c);
        return;
    }
    if (c->state == C_READ)
        client_close(c); /* idle, or a head too slow to arrive */
}

/* ---- metrics ------------------------------------------------------------ */

/* The fleet's lines of /metrics: states, per-backend counts, unparks,
 * warm-ups and the time spent in each state (server-seconds). */
static size_t fleet_metrics(proxy *P, char *buf, size_t size)
{
    const qc__fleet *f = &P->fleet;
    double now = qc__now(), tot[QC_FLEET_NSTATES] = {0};
    uint64_t unparks = 0, parks = 0;
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    OUT("# TYPE qctl_backends gauge\n");
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
        OUT("qctl_backends{state=\"%s\"} %u\n", qc__fleet_state_name(s),
            qc__fleet_count(f, (qc__fleet_state)s));
    OUT("# TYPE qctl_backend_inflight gauge\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_inflight{backend=\"%s\"} %u\n", P->backend[i].name, f->b[i].inflight);
    OUT("# TYPE qctl_backend_waiting gauge\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_waiting{backend=\"%s\"} %u\n", P->backend[i].name, f->b[i].waiting);
    OUT("# TYPE qctl_backend_answered_total counter\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_answered_total{backend=\"%s\"} %llu\n", P->backend[i].name,
            (unsigned long long)f->b[i].answered);
    OUT("# TYPE qctl_backend_failed_total counter\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_failed_total{backend=\"%s\"} %llu\n", P->backend[i].name,
            (unsigned long long)f->b[i].failed);
    OUT("# TYPE qctl_backend_state gauge\n");
    for (unsigned i = 0; i < P->nb; i++)
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
            OUT("qctl_backend_state{backend=\"%s\",state=\"%s\"} %d\n", P->backend[i].name,
                qc__fleet_state_name(s), f->b[i].state == s);
    OUT("# TYPE qctl_backend_seconds_total counter\n");
    for (unsigned i = 0; i < P->nb; i++) {
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(f, i, now, t);
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++) {
            OUT("qctl_backend_seconds_total{backend=\"%s\",state=\"%s\"} %.3f\n",
                P->backend[i].name, qc__fleet_state_name(s), t[s]);
            tot[s] += t[s];
        }
        unparks += f->b[i].unparks;
        parks += f->b[i].parks;
    }
    OUT("# TYPE qctl_fleet_seconds_total counter\n");
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
        OUT("qctl_fleet_seconds_total{state=\"%s\"} %.3f\n", qc__fleet_state_name(s), tot[s]);
    OUT("# TYPE qctl_unparks_total counter\nqctl_unparks_total %llu\n"
        "# TYPE qctl_parks_total counter\nqctl_parks_total %llu\n",
        (unsigned long long)unparks, (unsigned long long)parks);
    OUT("# TYPE qctl_fleet_failures_total counter\nqctl_fleet_failures_total{kind=\"unpark\"} "
        "%llu\nqctl_fleet_failures_total{kind=\"park\"} %llu\n"
        "# TYPE qctl_warmup_refused_total counter\nqctl_warmup_refused_total %llu\n",
        (unsigned long long)P->unpark_failures, (unsigned long long)P->park_failures,
        (unsigned long long)P->warm_timeouts);
    OUT("# TYPE qctl_warmup_seconds histogram\n");
    for (unsigned k = 0; k < QC_FLEET_WARM_BUCKETS; k++) {
        if (isinf(qc__fleet_warm_le[k]))
            OUT("qctl_warmup_seconds_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)f->warm_bucket[k]);
        else
            OUT("qctl_warmup_seconds_bucket{le=\"%g\"} %llu\n", qc__fleet_warm_le[k],
                (unsigned long long)f->warm_bucket[k]);
    }
    OUT("qctl_warmup_seconds_sum %g\nqctl_warmup_seconds_count %llu\n", f->warm_sum,
        (unsigned long long)f->warmups);
#undef OUT
    return n;
}

/* The fleet in /status: its rule, counts and time totals. */
static json_t *fleet_json(proxy *P)
{
    const qc__fleet *f = &P->fleet;
    double now = qc__now(), tot[QC_FLEET_NSTATES] = {0};
    uint64_t unparks = 0, parks = 0;
    for (unsigned i = 0; i < P->nb; i++) {
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(f, i, now, t);
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
            tot[s] += t[s];
        unparks += f->b[i].unparks;
        parks += f->b[i].parks;
    }
    json_t *o = json_object();
    json_object_set_new(o, "route", json_string(f->cfg.route == QC_FLEET_DJSQ ? "djsq" : "jsq"));
    json_object_set_new(o, "threshold", json_integer(f->cfg.threshold));
    json_object_set_new(o, "idle_off", qc_json_real_new(f->cfg.idle_off));
    json_object_set_new(o, "min_on", json_integer(f->cfg.min_on));
    json_object_set_new(o, "max_on", json_integer(f->cfg.max_on));
    json_t *cnt = json_object(), *sec = json_object();
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++) {
        json_object_set_new(cnt, qc__fleet_state_name(s),
                            json_integer(qc__fleet_count(f, (qc__fleet_state)s)));
        json_object_set_new(sec, qc__fleet_state_name(s), json_real(tot[s]));
    }
    json_object_set_new(o, "backends", cnt);
    json_object_set_new(o, "seconds", sec);
    double powered = tot[QC_FLEET_ON] + tot[QC_FLEET_WARMING] + tot[QC_FLEET_PARKING];
    json_object_set_new(o, "powered_seconds", json_real(powered));
    json_object_set_new(o, "unparks", json_integer((json_int_t)unparks));
    json_object_set_new(o, "parks", json_integer((json_int_t)parks));
    json_object_set_new(o, "unpark_failures", json_integer((json_int_t)P->unpark_failures));
    json_object_set_new(o, "park_failures", json_integer((json_int_t)P->park_failures));
    json_object_set_new(o, "warmup_refused", json_integer((json_int_t)P->warm_timeouts));
    json_object_set_new(o, "warmups", json_integer((json_int_t)f->warmups));
    json_object_set_new(o, "warmup_mean",
                        f->warmups ? json_real(f->warm_sum / (double)f->warmups) : json_null());
    json_object_set_new(o, "warmup_max", f->warmups ? json_real(f->warm_max) : json_null());
    return o;
}

static size_t metrics_text(proxy *P, char *buf, size_t size)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(P->lim, &st);
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    OUT("# HELP qctl_limit Concurrency limit the controller set.\n# TYPE "
        "qctl_limit gauge\n");
    OUT("qctl_limit %g\n", P->o->control ? st.limit : INFINITY);
    OUT("# TYPE qctl_inflight gauge\nqctl_inflight %u\n", P->inflight);
    OUT("# TYPE qctl_queue gauge\nqctl_queue %u\n", P->qlen);
    OUT("# TYPE qctl_admitted_total counter\n");
    for (unsigned i = 0; i < P->ncls; i++)
        OUT("qctl_admitted_total{class=\"%s\"} %llu\n", P->cls[i].name,
            (unsigned long long)P->cls[i].admitted);
    OUT("# TYPE qctl_refused_total counter\n");
    for (unsigned i = 0; i < P->ncls; i++)
        OUT("qctl_refused_total{class=\"%s\"} %llu\n", P->cls[i].name,
            (unsigned long long)P->cls[i].refused);
    OUT("# TYPE qctl_answered_total counter\n");
    for (unsigned i = 0; i < P->ncls; i++)
        OUT("qctl_answered_total{class=\"%s\"} %llu\n", P->cls[i].name,
            (unsigned long long)P->cls[i].answered);
    OUT("# HELP qctl_latency_seconds Time from a request read to its answer's end.\n"
        "# TYPE qctl_latency_seconds histogram\n");
    for (unsigned i = 0; i < P->ncls; i++) {
        const pclass *k = &P->cls[i];
        uint64_t cum = 0;
        for (unsigned b = 0; b <= LAT_BUCKETS; b++) {
            cum += k->lat_bucket[b];
            if (b < LAT_BUCKETS)
                OUT("qctl_latency_seconds_bucket{class=\"%s\",le=\"%g\"} %llu\n", k->name,
                    lat_le[b], (unsigned long long)cum);
            else
                OUT("qctl_latency_seconds_bucket{class=\"%s\",le=\"+Inf\"} %llu\n", k->name,
                    (unsigned long long)cum);
        }
        OUT("qctl_latency_seconds_sum{class=\"%s\"} %.9g\n", k->name, k->lat_sum);
        OUT("qctl_latency_seconds_count{class=\"%s\"} %llu\n", k->name, (unsigned long long)cum);
    }
    OUT("# TYPE qctl_latency_quantile_seconds gauge\n");
    for (unsigned i = 0; i < P->ncls; i++) {
        static const double q[] = {0.5, 0.95, 0.99};
        for (int k = 0; k < 3; k++) {
            double v = qc_hist_quantile(P->cls[i].lat, q[k]);
            OUT("qctl_latency_quantile_seconds{class=\"%s\",quantile=\"%g\"} %g\n",
                P->cls[i].name, q[k], isnan(v) ? 0.0 : v);
        }
    }
    if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
        OUT("# HELP qctl_class_weight Scheduling weight of a class (admission control).\n"
            "# TYPE qctl_class_weight gauge\n");
        for (unsigned i = 0; i < P->ncls; i++)
            OUT("qctl_class_weight{class=\"%s\"} %g\n", P->cls[i].name, st.class_weight[i]);
        OUT("# TYPE qctl_class_bound_seconds gauge\n");
        for (unsigned i = 0; i + 1 < P->ncls; i++)
            OUT("qctl_class_bound_seconds{class=\"%s\"} %g\n", P->cls[i].name,
                st.class_bound[i]);
        OUT("# TYPE qctl_class_delay_seconds gauge\n");
        for (unsigned i = 0; i < P->ncls; i++)
            OUT("qctl_class_delay_seconds{class=\"%s\"} %g\n", P->cls[i].name,
                isnan(st.class_delay[i]) ? 0.0 : st.class_delay[i]);
        OUT("# TYPE qctl_class_state gauge\n");
        for (unsigned i = 0; i + 1 < P->ncls; i++)
            for (int s = 0; s < 3; s++)
                OUT("qctl_class_state{class=\"%s\",state=\"%s\"} %d\n", P->cls[i].name,
                    qc_adm_state_name((qc_adm_state)s), st.class_state[i] == s);
        OUT("# TYPE qctl_busy_cycles_total counter\nqctl_busy_cycles_total %llu\n",
            (unsigned long long)st.busy_cycles);
    }
    n += fleet_metrics(P, buf + (n < size ? n : size), n < size ? size - n : 0);
    OUT("# TYPE qctl_retries_total counter\nqctl_retries_total %llu\n"
        "# TYPE qctl_retries_denied_total counter\nqctl_retries_denied_total %llu\n",
        (unsigned long long)P->retries, (unsigned long long)P->retries_denied);
    OUT("# TYPE qctl_connections gauge\nqctl_connections %u\n"
        "# TYPE qctl_buffered_bytes gauge\nqctl_buffered_bytes %zu\n"
        "# TYPE qctl_refused_connections_total counter\n"
        "qctl_refused_connections_total{why=\"max-connections\"} %llu\n"
        "qctl_refused_connections_total{why=\"max-memory\"} %llu\n"
        "# TYPE qctl_too_large_total counter\nqctl_too_large_total %llu\n"
        "# TYPE qctl_queue_standing gauge\nqctl_queue_standing %d\n"
        "# TYPE qctl_queue_shed_total counter\nqctl_queue_shed_total %llu\n",
        P->nclients, P->mem, (unsigned long long)P->refused_conns,
        (unsigned long long)P->refused_mem, (unsigned long long)P->too_large, P->q_standing,
        (unsigned long long)P->q_shed);
    OUT("# TYPE qctl_backend_out gauge\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_out{backend=\"%s\"} %d\n", P->backend[i].name, P->backend[i].out);
    OUT("# TYPE qctl_errors_total counter\nqctl_errors_total{kind=\"400\"} %llu\n"
        "qctl_errors_total{kind=\"502\"} %llu\nqctl_errors_total{kind=\"504\"} "
        "%llu\n",
        (unsigned long long)P->bad_requests, (unsigned long long)P->errors502,
        (unsigned long long)P->errors504);
#undef OUT
    return n < size ? n : size - 1;
}

static char *status_json(proxy *P)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(P->lim, &st);
    json_t *root = json_object();
    json_object_set_new(
        root, "controller",
        json_string(P->o->control ? qc_limiter_algo_name(P->o->limiter.algo) : "none"));
    json_object_set_new(root, "limit", P->o->control ? qc_json_real_new(st.limit) : json_null());
    json_object_set_new(root, "inflight", json_integer(P->inflight));
    json_object_set_new(root, "queue", json_integer(P->qlen));
    json_object_set_new(root, "draining", json_boolean(P->draining));
    json_object_set_new(root, "uptime", json_real(qc__now() - P->t0));
    json_object_set_new(root, "retries", json_integer((json_int_t)P->retries));
    json_object_set_new(root, "retries_denied", json_integer((json_int_t)P->retries_denied));
    json_object_set_new(root, "errors502", json_integer((json_int_t)P->errors502));
    json_object_set_new(root, "errors504", json_integer((json_int_t)P->errors504));
    json_t *cl = json_array();
    for (unsigned i = 0; i < P->ncls; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(P->cls[i].name));
        json_object_set_new(o, "bound", qc_json_real_new(P->cls[i].bound));
        json_object_set_new(o, "admitted", json_integer((json_int_t)P->cls[i].admitted));
        json_object_set_new(o, "refused", json_integer((json_int_t)P->cls[i].refused));
        json_object_set_new(o, "answered", json_integer((json_int_t)P->cls[i].answered));
        json_object_set_new(o, "p95", qc_json_real_new(qc_hist_quantile(P->cls[i].lat, 0.95)));
        json_object_set_new(o, "waiting", json_integer(P->cls[i].qlen));
        if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
            int s = st.class_state[i];
            json_object_set_new(o, "state",
                                json_string(s < 0 ? "best-effort"
                                                  : qc_adm_state_name((qc_adm_state)s)));
            json_object_set_new(o, "delay_bound", qc_json_real_new(s < 0 ? NAN : st.class_bound[i]));
            json_object_set_new(o, "weight", qc_json_real_new(st.class_weight[i]));
            json_object_set_new(o, "mean_delay", qc_json_real_new(st.class_delay[i]));
            json_object_set_new(o, "samples", json_integer((json_int_t)st.class_samples[i]));
        }
        json_array_append_new(cl, o);
    }
    json_object_set_new(root, "classes", cl);
    json_t *bk = json_array();
    for (unsigned i = 0; i < P->nb; i++) {
        const qc__fleet_backend *fb = &P->fleet.b[i];
        json_t *o = json_object();
        json_object_set_new(o, "address", json_string(P->backend[i].name));
        json_object_set_new(o, "state", json_string(qc__fleet_state_name(fb->state)));
        json_object_set_new(o, "inflight", json_integer(fb->inflight));
        json_object_set_new(o, "waiting", json_integer(fb->waiting));
        json_object_set_new(o, "answered", json_integer((json_int_t)fb->answered));
        json_object_set_new(o, "failed", json_integer((json_int_t)fb->failed));
        json_object_set_new(o, "unparks", json_integer((json_int_t)fb->unparks));
        json_object_set_new(o, "out", json_boolean(P->backend[i].out));
        json_object_set_new(o, "ejections", json_integer((json_int_t)P->backend[i].ejections));
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(&P->fleet, i, qc__now(), t);
        json_t *sec = json_object();
        for (unsigned k = 0; k < QC_FLEET_NSTATES; k++)
            json_object_set_new(sec, qc__fleet_state_name(k), json_real(t[k]));
        json_object_set_new(o, "seconds", sec);
        json_array_append_new(bk, o);
    }
    json_object_set_new(root, "backends", bk);
    json_object_set_new(root, "fleet", fleet_json(P));
    char *s = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    return s;
}

/* POST /bound?class=NAME&value=D: a class's bound from the next control
 * interval on (the admission limiter's delay bound, else the class's
 * wait deadline for requests queued from now on). */
static void admin_bound(cconn *c, const char *q)
{
    proxy *P = c->P;
    char name[128] = "", msg[256];
    double v = NAN;
    const char *cp = strstr(q, "class="), *vp = strstr(q, "value=");
    if (cp && (cp == q || cp[-1] == '&')) {
        size_t n = strcspn(cp + 6, "&");
        if (n < sizeof name) {
            memcpy(name, cp + 6, n);
            name[n] = 0;
        }
    }
    if (vp && (vp == q || vp[-1] == '&')) {
        char num[32], *end;
        size_t n = strcspn(vp + 6, "&");
        if (n > 0 && n < sizeof num) {
            memcpy(num, vp + 6, n);
            num[n] = 0;
            v = strtod(num, &end);
            if (*end)
                v = NAN;
        }
    }
    if (!name[0] || !(v > 0) || !isfinite(v)) {
        int k = snprintf(msg, sizeof msg, "bad request: want class=NAME&value=SECONDS (> 0)\n");
        client_reply(c, 400, "Bad Request", NULL, "text/plain", msg, (size_t)k);
        return;
    }
    unsigned i = 0;
    while (i + 1 < P->ncls && strcmp(P->cls[i].name, name) != 0)
        i++;
    if (i + 1 >= P->ncls) {
        int k = snprintf(msg, sizeof msg, "no bounded class '%s'\n", name);
        client_reply(c, 404, "Not Found", NULL, "text/plain", msg, (size_t)k);
        return;
    }
    if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
        qc_err err = {0};
        if (qc_limiter_set_bound(P->lim, i, v, &err) != 0) {
            int k = snprintf(msg, sizeof msg, "%s\n", err.msg);
            client_reply(c, 400, "Bad Request", NULL, "text/plain", msg, (size_t)k);
            return;
        }
    }
    P->cls[i].bound = v;
    int k = snprintf(msg, sizeof msg, "%s %g\n", name, v);
    client_reply(c, 200, "OK", NULL, "text/plain", msg, (size_t)k);
}

/* GET /metrics, GET /status, POST /reference?value=R,
 * POST /bound?class=NAME&value=D. */
/* Answers an admin request. Reads are GET (or HEAD); a change of state
 * (/bound, /reference) only by POST, else 405: a GET can be made by any
 * web page a browser on the host opens, or replayed by a cache. */
/* A state change on the admin port: POST only (405), none at all under
 * --admin-read-only (403), and with --admin-token-file only with
 * "Authorization: Bearer TOKEN" (401). authorized: the request carried
 * the token (or none is needed). */
static void admin_request(cconn *c, const char *target, size_t tlen, int post, int authorized)
{
    proxy *P = c->P;
    int change = (tlen > 7 && memcmp(target, "/bound?", 7) == 0) ||
                 (tlen > 11 && memcmp(target, "/reference?", 11) == 0);
    if (change && !post) {
        static const char body[] = "method not allowed: use POST to change state\n";
        client_reply(c, 405, "Method Not Allowed", "Allow: POST\r\n", "text/plain", body,
                     sizeof body - 1);
        return;
    }
    if (change && P->o->admin_read_only) {
        static const char body[] = "forbidden: the admin port is read-only\n";
        client_reply(c, 403, "Forbidden", NULL, "text/plain", body, sizeof body - 1);
        return;
    }
    if (change && !authorized) {
        static const char body[] = "unauthorized: Authorization: Bearer TOKEN required\n";
        client_reply(c, 401, "Unauthorized", "WWW-Authenticate: Bearer\r\n", "text/plain", body,
                     sizeof body - 1);
        return;
    }
    if (tlen > 7 && memcmp(target, "/bound?", 7) == 0) {
        char q[256];
        size_t n = tlen - 7 < sizeof q - 1 ? tlen - 7 : sizeof q - 1;
        memcpy(q, target + 7, n);
        q[n] = 0;
        admin_bound(c, q);
        return;
    }
    const char *page;
    size_t plen;
    if ((page = qc__admin_page(target, tlen, &plen)) != NULL) { /* GET /: page.c */
        client_reply(c, 200, "OK", QC_ADMIN_PAGE_HEADERS, "text/html; charset=utf-8", page, plen);
        return;
    }
    if (tlen == 8 && memcmp(target, "/metrics", 8) == 0) {
        char *buf = malloc(1 << 18); /* 64 backends' and 9 classes' lines fit */
        if (!buf) {
            client_close(c);
            return;
        }
        size_t n = metrics_text(P, buf, 1 << 18);
        client_reply(c, 200, "OK", NULL, "text/plain; version=0.0.4", buf, n);
        free(buf);
        return;
    }
    if (tlen == 7 && memcmp(target, "/status", 7) == 0) {
        char *s = status_json(P);
        client_reply(c, 200, "OK", NULL, "application/json", s ? s : "{}", s ? strlen(s) : 2);
        free(s);
        return;
    }
    if (tlen > 17 && memcmp(target, "/reference?value=", 17) == 0) {
        char num[32];
        size_t n = tlen - 17 < sizeof num - 1 ? tlen - 17 : sizeof num - 1;
        memcpy(num, target + 17, n);
        num[n] = 0;
        char *end;
        double r = strtod(num, &end);
        if (*end == 0 && r > 0 && isfinite(r)) {
            qc_limiter_set_reference(P->lim, r);
            char msg[64];
            int k = snprintf(msg, sizeof msg, "reference %g\n", r);
            client_reply(c, 200, "OK", NULL, "text/plain", msg, (size_t)k);
            return;
        }
        client_reply(c, 400, "Bad Request", NULL, "text/plain",
                     "bad value: want /reference?value=R (> 0)\n", 41);
        return;
    }
    client_reply(c, 404, "Not Found", NULL, "text/plain", "not found\n", 10);
}

/* ---- upstream ----------------------------------------------------------- */

static void upstream_closed(uv_handle_t *h)
{
    uconn *u = h->data;
    if (--u->handles_open == 0) {
        qc__buf_free(&u->in);
        free(u);
    }
}

static void remove_idle(uconn *u)
{
    for (uconn **pp = &u->b->idle; *pp; pp = &(*pp)->next_idle)
        if (*pp == u) {
            *pp = u->next_idle;
            return;
        }
}

static void upstream_close(uconn *u)
{
    if (u->closing)
        return;
    u->closing = 1;
    if (!u->busy)
        remove_idle(u);
    else if (u->placed == 1) /* PLACED_WAITING, at exit */
        unwait(u);
    uv_close((uv_handle_t *)&u->tcp, upstream_closed);
    uv_close((uv_handle_t *)&u->timer, upstream_closed);
}

/* The request on u is over: release its slot and let the queue in. */
static void upstream_done(uconn *u, int outcome)
{
    proxy *P = u->P;
    double now = qc__now();
    if (u->has_tok) {
        /* ADMISSION tracks the whole delay (queue + backend), the others
         * the backend's answer time */
        int adm = P->o->limiter.algo == QC_LIMITER_ADMISSION;
        qc_limiter_release(P->lim, &u->tok, now - (adm ? u->t_arrive : u->t_admit), outcome);
        u->has_tok = 0;
    }
    if (outcome == QC_LIMITER_OK && u->cls < P->ncls) {
        pclass *k = &P->cls[u->cls];
        k->est += 0.1 * ((now - u->t_admit) - k->est);
    }
    u->busy = 0;
    fleet_request_done(u, outcome == QC_LIMITER_OK);
    P->inflight--;
    uv_timer_stop(&u->timer);
    pump_queue(P);
}

/* ---- retries ------------------------------------------------------------
 *
 * A request is sent again when its backend failed it before the first
 * byte of an answer: the connect failed (nothing was sent: any method),
 * or the link closed or broke before the response head (the backend may
 * have acted on it: idempotent methods only, RFC 9110 9.2.2; a kept-alive
 * link its backend closed while idle is the common case). It goes to
 * another backend where there is one, over a new link, at most --retries
 * times. Timeouts are not retried (the backend may still be working: a
 * retry would double the load it is failing under) and a malformed answer
 * is not either.
 *
 * Retries are paid from a budget, so that a failing fleet does not get
 * more load from them: each admitted request deposits --retry-budget
 * tokens (0.2: retries at most a fifth of the requests), RETRY_FLOOR
 * tokens a second come whatever the traffic (a quiet proxy may still
 * retry), the bank holds at most RETRY_CAP, and a retry takes one token.
 * A retry keeps its request's slot: the limiter sees one request. */
#define RETRY_FLOOR 5.0
#define RETRY_CAP 20.0

static void retry_deposit(proxy *P)
{
    P->retry_tokens += P->o->retry_budget;
    if (P->retry_tokens > RETRY_CAP)
        P->retry_tokens = RETRY_CAP;
}

static int retry_allowed(proxy *P)
{
    double now = qc__now();
    P->retry_tokens += RETRY_FLOOR * (now - P->retry_t);
    P->retry_t = now;
    if (P->retry_tokens > RETRY_CAP)
        P->retry_tokens = RETRY_CAP;
    if (P->retry_tokens < 1) {
        P->retries_denied++;
        return 0;
    }
    P->retry_tokens -= 1;
    return 1;
}

static int method_idempotent(const char *m, size_t n)
{
    static const char *const idem[] = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"};
    for (size_t i = 0; i < sizeof idem / sizeof *idem; i++)
        if (strlen(idem[i]) == n && memcmp(m, idem[i], n) == 0)
            return 1;
    return 0;
}

/* u's backend failed its request with nothing answered: sends it again
 * (1) or leaves u as it is (0: not retryable, or no budget). */
static int retry(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    if (!c || c->closing || u->placed != PLACED_SENT || u->rstate != R_HEAD || u->in.len ||
        u->head_sent || c->tries >= P->o->retries || !(c->idem || !u->link_up) || P->draining)
        return 0;
    if (!retry_allowed(P))
        return 0;
    uconn holder = {0};
    holder.tok = u->tok;
    holder.has_tok = u->has_tok;
    u->has_tok = 0;
    u->client = NULL;
    c->up = NULL;
    u->busy = 0;
    fleet_request_done(u, 0);
    P->inflight--;
    int avoid = (int)u->b->index;
    upstream_close(u);
    c->tries++;
    P->retries++;
    c->state = C_READ;
    forward(c, &holder, avoid);
    return 1;
}

/* A backend failed the request: send it again (see retry), or answer 502
 * or 504, and drop the link. */
static void upstream_fail(uconn *u, int status)
{
    proxy *P = u->P;
    if (u->closing)
        return;
    cconn *c = u->client;
    /* a kept link closed before the answer is most often one the backend
     * closed while idle: not a sign of a failing backend */
    int stale = u->reused && status == 502 && u->rstate == R_HEAD && u->in.len == 0;
    if (u->busy && u->placed == PLACED_SENT && !stale)
        backend_failed(u->b);
    if (u->busy && status == 502 && retry(u))
        return;
    if (u->busy) {
        u->client = NULL;
        upstream_done(u, QC_LIMITER_DROPPED);
        if (c) {
            c->up = NULL;
            if (status == 504)
                P->errors504++;
            else
                P->errors502++;
            if (u->head_sent) { /* too late for a status: cut the response */
                u->head_sent = 0;
                client_close(c);
            } else if (status == 504)
                client_reply(c, 504, "Gateway Timeout", NULL, "text/plain", "backend timeout\n",
                             16);
            else
                client_reply(c, 502, "Bad Gateway", NULL, "text/plain", "backend failed\n", 15);
        }
    }
    upstream_close(u);
}

static void on_upstream_timer(uv_timer_t *t)
{
    uconn *u = t->data;
    if (u->placed == 1) { /* PLACED_WAITING: the client's deadline passed */
        warmup_deadline(u);
        return;
    }
    upstream_fail(u, 504);
}

/* ---- streaming the response -------------------------------------------- */

/* A response is forwarded as it arrives: its head once whole, then body
 * bytes as they are read, framed by Content-Length, chunked (passed
 * through verbatim, trailers included: the framer only finds the end) or
 * the backend's close. Backpressure: while the client's write queue holds
 * more than WQ_HIGH bytes the backend is not read (TCP then slows it);
 * once the queue drains below WQ_LOW reading resumes. So the proxy holds
 * at most about WQ_HIGH + one read per response, whatever its size. While
 * paused, the upstream timer bounds the client's stall (--idle-timeout);
 * while reading, it bounds the backend's silence (--backend-timeout).
 * Once the head is sent a failure can no longer become a 502: the client
 * connection is closed, cutting the response short (a client sees the
 * framing end early). The link is kept for another request only when the
 * response ended cleanly: its framing ended, no byte beyond it, and
 * keep-alive. The latency the limiter gets ends with the last byte
 * (WQ_HIGH, WQ_LOW: see client_write). */

/* Writes a copy of p[0..n) to u's client; pauses u past WQ_HIGH. */
static void stream_out(uconn *u, const char *p, size_t n)
{
    cconn *c = u->client;
    if (!c || c->closing || n == 0)
        return;
    if (client_write(c, p, n) != 0)
        return;
    if (!u->paused && client_wq(c) > WQ_HIGH) {
        u->paused = 1;
        uv_read_stop((uv_stream_t *)&u->tcp);
        uv_timer_start(&u->timer, on_upstream_timer, (uint64_t)(u->P->o->idle_timeout * 1000), 0);
    }
}

/* Writes body bytes p[0..n) to u's client as one chunk (u->reframe). */
static void stream_chunk(uconn *u, const char *p, size_t n)
{
    if (n == 0)
        return;
    char line[24];
    int k = snprintf(line, sizeof line, "%zx\r\n", n);
    stream_out(u, line, (size_t)k);
    stream_out(u, p, n);
    stream_out(u, "\r\n", 2);
}

/* 1 when header i of h is hop-by-hop (RFC 9110 7.6.1): Connection,
 * Keep-Alive, Proxy-*, TE, Upgrade, one the Connection header names, and
 * (reframing) Transfer-Encoding. Transfer-Encoding and Trailer stay
 * otherwise: chunked bodies and their trailers are passed through. */
static int hop_by_hop(const char *buf, const qc__http_head *h, unsigned i, int reframe)
{
    const char *n = buf + h->name[i].off;
    size_t len = h->name[i].len;
#define IS(s) (len == sizeof s - 1 && strncasecmp(n, s, len) == 0)
    if (IS("Connection") || IS("Keep-Alive") || IS("TE") || IS("Upgrade") ||
        (len >= 6 && strncasecmp(n, "Proxy-", 6) == 0) || (reframe && IS("Transfer-Encoding")))
        return 1;
#undef IS
    for (unsigned j = 0; j < h->nhdr; j++) { /* named by a Connection header */
        if (h->name[j].len != 10 || strncasecmp(buf + h->name[j].off, "Connection", 10) != 0)
            continue;
        const char *v = buf + h->value[j].off, *end = v + h->value[j].len;
        while (v < end) {
            while (v < end && (*v == ' ' || *v == '\t' || *v == ','))
                v++;
            const char *t = v;
            while (v < end && *v != ',' && *v != ' ' && *v != '\t')
                v++;
            if ((size_t)(v - t) == len && strncasecmp(t, n, len) == 0)
                return 1;
        }
    }
    return 0;
}

/* The head the client gets for response head h in buf: HTTP/1.1, the
 * backend's status and reason, its headers less the hop-by-hop ones, then
 * Transfer-Encoding: chunked (reframe) and Connection: close (close).
 * Returns its length in out (<= size) or 0 when it does not fit. */
static size_t client_head(const char *buf, const qc__http_head *h, int reframe, int close,
                          char *out, size_t size)
{
    const char *eol = memchr(buf, '\r', h->head_len);
    if (!eol || eol - buf < 12)
        return 0;
    size_t n = 0;
#define PUT(p, k)                                                                                \
    do {                                                                                         \
        if (n + (k) > size)                                                                      \
            return 0;                                                                            \
        memcpy(out + n, p, k);                                                                   \
        n += (k);                                                                                \
    } while (0)
    PUT("HTTP/1.1", 8);
    PUT(buf + 8, (size_t)(eol - buf) - 8 + 2); /* " NNN reason\r\n" */
    for (unsigned i = 0; i < h->nhdr; i++) {
        if (hop_by_hop(buf, h, i, reframe))
            continue;
        PUT(buf + h->name[i].off, h->name[i].len);
        PUT(": ", 2);
        PUT(buf + h->value[i].off, h->value[i].len);
        PUT("\r\n", 2);
    }
    if (reframe)
        PUT("Transfer-Encoding: chunked\r\n", 28);
    if (close)
        PUT("Connection: close\r\n", 19);
    PUT("\r\n", 2);
#undef PUT
    return n;
}

/* The response on u ended (clean: the link may carry another request). */
static void response_end(uconn *u, int clean)
{
    proxy *P = u->P;
    cconn *c = u->client;
    u->client = NULL;
    u->rstate = R_HEAD;
    u->head_sent = 0;
    if (u->paused) { /* the last bytes paused it: a link kept must read again */
        u->paused = 0;
        uv_read_start((uv_stream_t *)&u->tcp, alloc_cb, on_upstream_read);
    }
    if (c) {
        pclass *k = &P->cls[c->cls];
        k->answered++;
        record_latency(k, qc__now() - c->t_arrive);
        c->up = NULL;
    }
    upstream_done(u, QC_LIMITER_OK);
    if (clean && !P->draining && backend_is_on(u->b)) {
        u->next_idle = u->b->idle;
        u->b->idle = u;
    } else {
        upstream_close(u);
    }
    if (c) {
        c->state = C_READ;
        if (!c->keep || P->draining) {
            client_close_after_write(c);
        } else {
            client_idle(c);
            client_process(c);
        }
    }
}

/* Body bytes p[0..n) (eof: the backend closed after them). u may be
 * reused or gone when this returns. */
static void body_feed(uconn *u, const char *p, size_t n, int eof)
{
    size_t take = n;
    int done = 0;
    if (u->framing == F_LENGTH) {
        take = (uint64_t)n < u->left ? n : (size_t)u->left;
        u->left -= take;
        done = u->left == 0;
    } else if (u->framing == F_CHUNKED) {
        const char *why;
        long k = qc__http_chunked_feed(&u->ch, p, n, &done, &why);
        if (k < 0) {
            upstream_fail(u, 502);
            return;
        }
        take = (size_t)k;
    } else {
        done = eof;
    }
    if (u->reframe) {
        stream_chunk(u, p, take);
        if (done)
            stream_out(u, "0\r\n\r\n", 5);
    } else {
        stream_out(u, p, take);
    }
    if (done) {
        response_end(u, u->keep_resp && take == n && !eof);
        return;
    }
    if (eof) /* cut short by the backend */
        upstream_fail(u, 502);
}

/* Bytes p[0..n) of the response on u (eof: the backend closed). */
static void upstream_feed(uconn *u, const char *p, size_t n, int eof)
{
    proxy *P = u->P;
    if (u->rstate == R_BODY) {
        body_feed(u, p, n, eof);
        return;
    }
    if (n && qc__buf_append(&u->in, p, n) != 0) {
        upstream_fail(u, 502);
        return;
    }
    qc__http_head h;
    const char *why;
    for (;;) {
        int rc = qc__http_parse_head(u->in.data, u->in.len, 0, &h, &why);
        if (rc < 0) {
            plog(P, "backend %s: malformed response head (%s): 502", u->b->name, why);
            upstream_fail(u, 502);
            return;
        }
        if (rc == 0 && eof) {
            upstream_fail(u, 502);
            return;
        }
        if (h.status == 101) { /* no upgrade was asked for: see request_out */
            plog(P, "backend %s: 101 Switching Protocols to a request without Upgrade: 502",
                 u->b->name);
            upstream_fail(u, 502);
            return;
        }
        if (rc == 0)
            return;
        if (h.status / 100 != 1)
            break;
        qc__buf_consume(&u->in, h.head_len); /* interim: not carried */
    }
    backend_answered(u->b);
    u->keep_resp = h.keep_alive;
    if (u->head_method || h.status == 204 || h.status == 304) {
        u->framing = F_LENGTH; /* no body, whatever the head announces */
        u->left = 0;
    } else if (h.chunked) {
        u->framing = F_CHUNKED;
        memset(&u->ch, 0, sizeof u->ch);
    } else if (h.content_length >= 0) {
        u->framing = F_LENGTH;
        u->left = h.content_length > 0 ? (uint64_t)h.content_length : 0;
    } else {
        u->framing = F_CLOSE; /* the body ends when the backend closes */
        u->keep_resp = 0;
    }
    /* a body ended by the backend's close cannot end the client's kept
     * connection: an HTTP/1.1 client gets it chunked, an HTTP/1.0 one the
     * close */
    cconn *c = u->client;
    u->reframe = 0;
    if (u->framing == F_CLOSE && c) {
        if (c->minor >= 1)
            u->reframe = 1;
        else
            c->keep = 0;
    }
    int close = !c || !c->keep || P->draining;
    u->rstate = R_BODY;
    u->head_sent = 1;
    /* the buffer leaves u: body_feed may end the response and hand u to
     * the next request */
    qc__buf b = u->in;
    memset(&u->in, 0, sizeof u->in);
    char head[QC__HTTP_HEAD_MAX + 256];
    size_t hn = client_head(b.data, &h, u->reframe, close, head, sizeof head);
    if (hn == 0) { /* cannot happen: the head was parsed, and grows by 175 at most */
        qc__buf_free(&b);
        u->head_sent = 0;
        upstream_fail(u, 502);
        return;
    }
    stream_out(u, head, hn);
    body_feed(u, b.data + h.head_len, b.len - h.head_len, eof);
    qc__buf_free(&b);
}

static void on_upstream_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    uconn *u = s->data;
    if (n == 0)
        return;
    if (n < 0) {
        if (u->busy && n == UV_EOF) {
            upstream_feed(u, NULL, 0, 1);
            if (!u->closing)
                upstream_close(u);
            return;
        }
        if (u->busy)
            upstream_fail(u, 502);
        else
            upstream_close(u);
        return;
    }
    if (!u->busy) { /* bytes nobody asked for */
        upstream_close(u);
        return;
    }
    if (u->rstate == R_BODY && !u->paused) /* the backend's silence is bounded */
        uv_timer_start(&u->timer, on_upstream_timer, (uint64_t)(u->P->o->backend_timeout * 1000),
                       0);
    upstream_feed(u, buf->base, (size_t)n, 0);
}

static void on_upstream_connect(uv_connect_t *req, int status)
{
    uconn *u = req->data;
    if (status < 0) {
        if (!u->b->out) /* out: kept out until a probe succeeds */
            qc__fleet_connect_failed(&u->P->fleet, u->b->index, qc__now());
        upstream_fail(u, 502);
        return;
    }
    u->link_up = 1;
    uv_tcp_nodelay(&u->tcp, 1);
    uv_read_start((uv_stream_t *)&u->tcp, alloc_cb, on_upstream_read);
}

/* ---- backend fleet: un/parking, health checks, routing ----------------- */

/* A request is placed at most once at a time: waiting at a WARMING backend
 * (its uconn in the backend's wait list, never connected, its timer the
 * client's deadline) or sent (counted in flight at the backend). Leaving
 * either is counted back in fleet_request_done, so the fleet's counts stay
 * equal to the uconns that hold them. A request whose backend fails to
 * warm up is routed again; one whose deadline passes while it waits is
 * answered 503, like one that waited in the admission queue. */

static void unwait(uconn *u)
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

static void fleet_request_done(uconn *u, int ok)
{
    proxy *P = u->P;
    if (u->placed == PLACED_WAITING) {
        unwait(u);
    } else if (u->placed == PLACED_SENT) {
        u->placed = PLACED_NONE;
        if (qc__fleet_done(&P->fleet, u->b->index, ok, qc__now()))
            park_start(u->b);
    }
}

static int backend_is_on(const pbackend *b)
{
    return b->P->fleet.b[b->index].state == QC_FLEET_ON;
}

static void close_idle(pbackend *b)
{
    while (b->idle)
        upstream_close(b->idle); /* removes it from the list */
}

/* Sends u's request to its backend (ON): connects a new link first. */
static void send_request(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    qc__fleet_sent(&P->fleet, u->b->index);
    u->placed = PLACED_SENT;
    u->t_admit = qc__now();
    uv_timer_start(&u->timer, on_upstream_timer, (uint64_t)(P->o->backend_timeout * 1000), 0);
    if (!u->connected) {
        u->connected = 1;
        if (uv_tcp_connect(&u->connect, &u->tcp, (struct sockaddr *)&u->b->addr,
                           on_upstream_connect) != 0) {
            upstream_fail(u, 502);
            return;
        }
    }
    if (qc__write_copy((uv_stream_t *)&u->tcp, c->req.data, c->req.len) != 0)
        upstream_fail(u, 502);
}

/* u waits for its backend's warm-up until its client's deadline. */
static void wait_warmup(uconn *u)
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
    double left = c->t_arrive + wait_deadline(P, c->cls) - qc__now();
    uv_timer_start(&u->timer, on_upstream_timer, left > 0.001 ? (uint64_t)(left * 1000) : 1, 0);
}

/* The deadline of a request waiting for a warm-up passed: 503. */
static void warmup_deadline(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    u->client = NULL;
    P->warm_timeouts++;
    upstream_done(u, QC_LIMITER_IGNORE);
    upstream_close(u);
    if (c) {
        c->up = NULL;
        refuse(c);
    }
}

static void place(uconn *u, int i, int unparked)
{
    proxy *P = u->P;
    u->b = &P->backend[i];
    if (P->fleet.b[i].state == QC_FLEET_WARMING)
        wait_warmup(u);
    else
        send_request(u);
    if (unparked)
        unpark_start(&P->backend[i]);
}

/* Routes u (its backend failed to warm up) again, or answers 503. */
static void reroute(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    int unparked = 0;
    int i = c ? qc__fleet_route(&P->fleet, qc__now(), &unparked) : -1;
    if (i >= 0) {
        place(u, i, unparked);
        return;
    }
    u->client = NULL;
    upstream_done(u, QC_LIMITER_IGNORE);
    upstream_close(u);
    if (c) {
        c->up = NULL;
        refuse(c);
    }
}

static void probe_closed(uv_handle_t *h)
{
    free(h->data);
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

static void health_schedule(pbackend *b);

/* WARMING -> ON: the waiting requests go to it, in their order. */
static void backend_ready(pbackend *b)
{
    proxy *P = b->P;
    health_stop(b);
    qc__fleet_ready(&P->fleet, b->index, qc__now());
    b->out = 0;
    b->fails = 0;
    health_schedule(b);
    while (b->wait_head) {
        uconn *u = b->wait_head;
        unwait(u);
        if (!u->client) { /* its client went away while it waited */
            upstream_done(u, QC_LIMITER_IGNORE);
            upstream_close(u);
            continue;
        }
        send_request(u);
    }
}

/* Reports an event through the caller's log callback (none: silent; the
 * counters of /metrics have it). */
static void plog(const proxy *P, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void plog(const proxy *P, const char *fmt, ...)
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

static void unpark_fail(pbackend *b, const char *why)
{
    proxy *P = b->P;
    plog(P, "unpark %s failed: %s; it stays off", b->name, why);
    P->unpark_failures++;
    health_stop(b);
    uconn *list = NULL, **tail = &list;
    while (b->wait_head) {
        uconn *u = b->wait_head;
        unwait(u);
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
 * (a 2xx is a success) or, without --health, a TCP connect. A WARMING
 * backend is probed by the same machinery until its first success. */

/* A request or probe of b failed. */
static void backend_failed(pbackend *b)
{
    proxy *P = b->P;
    unsigned max = P->o->max_fails;
    if (b->out || max == 0 || ++b->fails < max ||
        P->fleet.b[b->index].state != QC_FLEET_ON)
        return;
    b->out = 1;
    b->ejections++;
    P->fleet.b[b->index].down_until = INFINITY;
    plog(P, "backend %s out of rotation after %u failures in a row; probed every %g s", b->name,
         b->fails, P->o->health_interval);
    health_schedule(b);
}

/* b answered a request or a probe. */
static void backend_answered(pbackend *b)
{
    b->fails = 0;
    if (!b->out)
        return;
    proxy *P = b->P;
    b->out = 0;
    P->fleet.b[b->index].down_until = -INFINITY;
    plog(P, "backend %s back in rotation", b->name);
    health_schedule(b);
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
    if (st == QC_FLEET_WARMING) {
        if (ok)
            backend_ready(b);
    } else if (st == QC_FLEET_ON) {
        if (ok)
            backend_answered(b);
        else
            backend_failed(b);
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
        uv_read_start((uv_stream_t *)&p->tcp, alloc_cb, on_probe_read) != 0)
        probe_result(p, 0);
}

static void on_health_tick(uv_timer_t *t)
{
    pbackend *b = t->data;
    proxy *P = b->P;
    qc__fleet_state st = P->fleet.b[b->index].state;
    if (st != QC_FLEET_WARMING && !(st == QC_FLEET_ON && (b->out || P->o->health_check > 0))) {
        health_stop(b);
        return;
    }
    if (st == QC_FLEET_WARMING &&
        qc__now() - P->fleet.b[b->index].unparked_at > P->o->warmup_timeout) {
        char why[96];
        snprintf(why, sizeof why, "not healthy after %g s", P->o->warmup_timeout);
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
    p->tcp.data = p->connect.data = p;
    b->probe = p;
    if (uv_tcp_connect(&p->connect, &p->tcp, (struct sockaddr *)&b->addr, on_probe_connect) != 0)
        probe_close(p);
}

/* The probes of an ON backend: every --health-interval while out of
 * rotation, else every --health-check seconds (0: none). */
static void health_schedule(pbackend *b)
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
    if (--c->handles_open == 0)
        free(c);
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
        plog(P, "park %s failed: %s; counted off", b->name, why);
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

static void unpark_start(pbackend *b)
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
static void fleet_tick(proxy *P, double now)
{
    unsigned park[QC_FLEET_MAX], unpark[QC_FLEET_MAX], np, nu;
    qc__fleet_tick(&P->fleet, now, park, &np, unpark, &nu);
    for (unsigned k = 0; k < np; k++)
        park_start(&P->backend[park[k]]);
    for (unsigned k = 0; k < nu; k++)
        unpark_start(&P->backend[unpark[k]]);
}

/* Closes a fleet handle at exit (close_walk). */
static void fleet_handle_close(uv_handle_t *h)
{
    int what = ((const int *)h->data)[1];
    if (what == F_PROBE)
        probe_close(h->data);
    else if (what == F_CMD)
        cmd_close(h->data);
    else
        uv_close(h, NULL); /* a backend's health timer */
}

/* Sends c's request to the backend the fleet's routing chooses; a retry
 * (avoid >= 0) to another than backend avoid where there is one, over a
 * new link. */
static void forward(cconn *c, uconn *tok_holder, int avoid)
{
    proxy *P = c->P;
    int unparked = 0;
    double now = qc__now(), saved = 0;
    if (avoid >= 0) { /* routed as if avoid had just failed a connect */
        saved = P->fleet.b[avoid].down_until;
        P->fleet.b[avoid].down_until = INFINITY;
    }
    int i = qc__fleet_route(&P->fleet, now, &unparked);
    if (avoid >= 0)
        P->fleet.b[avoid].down_until = saved;
    if (i < 0) { /* nothing on and nothing may be unparked */
        if (tok_holder->has_tok)
            qc_limiter_release(P->lim, &tok_holder->tok, 0, QC_LIMITER_IGNORE);
        refuse(c);
        return;
    }
    pbackend *b = &P->backend[i];
    uconn *u = backend_is_on(b) && avoid < 0 ? b->idle : NULL;
    if (u) {
        b->idle = u->next_idle;
        u->reused = 1;
    } else {
        u = calloc(1, sizeof *u);
        if (!u) {
            if (tok_holder->has_tok)
                qc_limiter_release(P->lim, &tok_holder->tok, 0, QC_LIMITER_IGNORE);
            P->errors502++;
            if (unparked)
                unpark_start(b);
            client_reply(c, 502, "Bad Gateway", NULL, "text/plain", "out of memory\n", 14);
            return;
        }
        u->kind = K_UPSTREAM;
        u->P = P;
        uv_tcp_init(P->loop, &u->tcp);
        uv_timer_init(P->loop, &u->timer);
        u->tcp.data = u->timer.data = u->connect.data = u;
        u->handles_open = 2;
    }
    u->tok = tok_holder->tok;
    u->has_tok = tok_holder->has_tok;
    u->cls = c->cls;
    u->head_method = c->head_method;
    u->t_admit = qc__now();
    u->t_arrive = c->t_arrive;
    u->busy = 1;
    u->client = c;
    u->in.len = 0;
    P->inflight++;
    c->up = u;
    c->state = C_UPSTREAM;
    uv_timer_stop(&c->timer);
    place(u, i, unparked);
}

/* Admits c now if the limiter lets it in: 1 admitted (and sent), 0 no
 * slot, -1 its class was rejected by admission control (never admitted). */
static int try_admit(cconn *c)
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
    retry_deposit(P);
    forward(c, &holder, -1);
    return 1;
}

/* Answers 503 to everything waiting in class i's queue. */
static void refuse_class(proxy *P, unsigned i)
{
    while (P->cls[i].qhead)
        refuse(dequeue(P, i));
}

/* Lets waiting requests in while there are slots: the backlogged class
 * with the least pass first (see pclass). */
static void pump_queue(proxy *P)
{
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
        cconn *c = dequeue(P, best);
        double now = qc__now(), waited = now - c->t_arrive;
        if (!P->q_standing && waited > P->o->queue_target + P->o->interval && codel_on(P))
            codel_stand(P, now); /* a request older than the target for an interval */
        if (P->q_standing && waited > P->o->queue_target) { /* see codel_tick */
            P->q_shed++;
            refuse(c);
            continue;
        }
        if (waited < P->q_min)
            P->q_min = waited;
        int rc = try_admit(c);
        if (rc > 0 && !P->qlen)
            P->q_drained = 1; /* the slots caught up with the queue */
        if (rc < 0) {
            refuse(c);
        } else if (rc == 0) { /* refused after all: back to the head */
            pclass *k = &P->cls[best];
            c->state = C_QUEUED;
            c->qnext = k->qhead;
            k->qhead = c;
            if (!k->qtail)
                k->qtail = c;
            k->qlen++;
            P->qlen++;
            return;
        }
    }
}

/* ---- reading requests --------------------------------------------------- */

/* How long a request of class i may wait for a slot: its bound, but under
 * ADMISSION (where the bound is a mean-delay target the controller must
 * see exceeded, not a cut-off) the common --queue-timeout. */
static double wait_deadline(proxy *P, unsigned i)
{
    double d = P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION
                   ? P->o->queue_timeout
                   : P->cls[i].bound;
    if (P->q_standing && P->o->queue_target < d)
        d = P->o->queue_target;
    return d;
}

/* ---- queue discipline (--queue-discipline codel) --------------------------
 *
 * A FIFO with a fixed deadline makes every admitted request wait nearly
 * the whole deadline under sustained overload: the queue stays full and
 * each request gets in just before its time is up. CoDel's observation
 * (Nichols and Jacobson, 2012) is that a good queue drains: one whose least
 * wait over an interval stays above a target is standing, and holding it
 * only adds delay. So each control interval the least wait of the requests
 * let in (0 when one got in without waiting; none let in while requests
 * wait counts as standing) is compared with --queue-target: while the
 * queue stands, a request's deadline is --queue-target instead of its
 * class's, and those already waiting longer are refused 503 at once; once
 * the queue drains (a request got in without waiting, or letting one in
 * emptied the queue), deadlines are the configured ones again. The
 * standing state is left only by draining, not by the least wait falling
 * under the target: the short deadline itself keeps every wait under the
 * target, so that test would end the state one interval after it began
 * and the queue would fill to the long deadline every other interval
 * (measured: admitted p50 92 ms, p99 198 ms at 3x overload in
 * bench_live.sh part 4, against 25 and 56 ms through nginx). Admitted
 * requests then wait about --queue-target at most under overload, and a
 * burst still gets the whole deadline to be absorbed. Not under the
 * admission limiter: there the waits are what the controller tracks
 * against each class's bound, and its weights order the queue. */
static int codel_on(const proxy *P)
{
    return P->o->queue_discipline == QC_QUEUE_CODEL &&
           !(P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION);
}

/* The queue is found standing: short deadlines from now, and what already
 * waited past the target is refused. */
static void codel_stand(proxy *P, double now)
{
    P->q_standing = 1;
    for (unsigned i = 0; i < P->ncls; i++)
        while (P->cls[i].qhead && now - P->cls[i].qhead->t_arrive > P->o->queue_target) {
            P->q_shed++;
            refuse(dequeue(P, i));
        }
}

static void codel_tick(proxy *P, double now)
{
    if (!codel_on(P)) {
        P->q_standing = 0;
        return;
    }
    int standing = P->q_standing ? !(P->q_drained || P->q_min <= 0) /* until it drains */
                                 : P->qlen > 0 && P->q_min > P->o->queue_target;
    P->q_min = INFINITY;
    P->q_drained = 0;
    P->q_standing = 0;
    if (standing)
        codel_stand(P, now);
}

/* A request's class: by the longest --class-prefix its path starts with,
 * else by the --class-header value, else best effort (the last). */
static unsigned class_of(proxy *P, const char *buf, const qc__http_head *h)
{
    unsigned best_effort = P->ncls - 1;
    size_t longest = 0;
    unsigned by_prefix = best_effort;
    for (unsigned i = 0; i < P->o->nprefixes; i++) {
        size_t n = strlen(P->o->prefix[i]);
        if (n > longest && n <= h->target.len && memcmp(buf + h->target.off, P->o->prefix[i], n) == 0) {
            longest = n;
            by_prefix = P->o->prefix_class[i];
        }
    }
    if (longest)
        return by_prefix;
    if (!P->o->class_header)
        return best_effort;
    size_t n;
    const char *v = qc__http_header(buf, h, P->o->class_header, &n);
    if (!v)
        return best_effort;
    for (unsigned i = 0; i + 1 < P->ncls; i++)
        if (strlen(P->cls[i].name) == n && memcmp(P->cls[i].name, v, n) == 0)
            return i;
    return best_effort;
}

/* A request qctl will not carry: 400, or the status its reason has
 * (qc__http_error_status: 414, 431, 501, 505; or a caller's 405), and the
 * connection closes after it. */
static void reject_request(cconn *c, int status, const char *why)
{
    static const struct {
        int status;
        const char *reason;
    } st[] = {{400, "Bad Request"},
              {405, "Method Not Allowed"},
              {414, "URI Too Long"},
              {431, "Request Header Fields Too Large"},
              {501, "Not Implemented"},
              {505, "HTTP Version Not Supported"}};
    const char *reason = "Bad Request";
    for (size_t i = 0; i < sizeof st / sizeof *st; i++)
        if (st[i].status == status)
            reason = st[i].reason;
    char body[256];
    int n = snprintf(body, sizeof body, "%s: %s\n", reason, why);
    c->P->bad_requests++;
    c->keep = 0;
    const char *allow = "Allow: GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH\r\n";
    client_reply(c, status, reason, status == 405 ? allow : NULL, "text/plain", body, (size_t)n);
}

static void bad_request(cconn *c, const char *why)
{
    reject_request(c, qc__http_error_status(why), why);
}

/* Requests the proxy refuses to carry though they parse (RFC 9112 3.2,
 * as nginx answers them): HTTP/1.1 without Host or with two, CONNECT
 * (405: no tunnels), a target not in origin or absolute form (OPTIONS *:
 * 400). Returns 1 when c was answered. */
static int refused_form(cconn *c, const qc__http_head *h)
{
    const char *buf = c->in.data;
    unsigned hosts = 0;
    for (unsigned i = 0; i < h->nhdr; i++)
        hosts += h->name[i].len == 4 && strncasecmp(buf + h->name[i].off, "Host", 4) == 0;
    if (h->minor >= 1 && hosts == 0) {
        bad_request(c, "HTTP/1.1 request without Host");
        return 1;
    }
    if (hosts > 1) {
        bad_request(c, "more than one Host");
        return 1;
    }
    if (h->method.len == 7 && memcmp(buf + h->method.off, "CONNECT", 7) == 0) {
        reject_request(c, 405, "CONNECT is not carried");
        return 1;
    }
    const char *t = buf + h->target.off;
    if (t[0] != '/' && !(h->target.len > 7 && (strncasecmp(t, "http://", 7) == 0 ||
                                               strncasecmp(t, "https://", 8) == 0))) {
        bad_request(c, "request target not in origin or absolute form");
        return 1;
    }
    return 0;
}

static int hop_by_hop(const char *buf, const qc__http_head *h, unsigned i, int reframe);

/* The request c->in[0..total) whose head is h goes to c->req without its
 * hop-by-hop headers (an Upgrade among them: the backend never sees an
 * upgrade, so none is carried out). 0, or -1 out of memory. */
static int request_out(cconn *c, const qc__http_head *h, size_t total)
{
    const char *buf = c->in.data;
    int hop = 0;
    for (unsigned i = 0; i < h->nhdr && !hop; i++)
        hop = hop_by_hop(buf, h, i, 0);
    c->req.len = 0;
    if (!hop && total == c->in.len) { /* the request is all there is: no copy */
        qc__buf t = c->req;
        c->req = c->in;
        c->in = t;
        return 0;
    }
    if (!hop) {
        if (qc__buf_append(&c->req, buf, total) != 0)
            return -1;
        qc__buf_consume(&c->in, total);
        return 0;
    }
    const char *eol = memchr(buf, '\n', h->head_len);
    if (qc__buf_append(&c->req, buf, (size_t)(eol - buf) + 1) != 0)
        return -1;
    for (unsigned i = 0; i < h->nhdr; i++) {
        if (hop_by_hop(buf, h, i, 0))
            continue;
        /* a field line as read: name to the end of its value, then CRLF */
        size_t from = h->name[i].off, to = h->value[i].off + h->value[i].len;
        if (qc__buf_append(&c->req, buf + from, to - from) != 0 ||
            qc__buf_append(&c->req, "\r\n", 2) != 0)
            return -1;
    }
    if (c->minor == 0 && c->keep && qc__buf_append(&c->req, "Connection: keep-alive\r\n", 24) != 0)
        return -1;
    if (qc__buf_append(&c->req, "\r\n", 2) != 0 ||
        qc__buf_append(&c->req, buf + h->head_len, total - h->head_len) != 0)
        return -1;
    qc__buf_consume(&c->in, total);
    return 0;
}

/* A request over --max-body: 413, and the connection closes (its body is
 * not read). */
static void too_large(cconn *c)
{
    static const char body[] = "request body over --max-body\n";
    c->P->too_large++;
    c->keep = 0;
    client_reply(c, 413, "Content Too Large", NULL, "text/plain", body, sizeof body - 1);
}

/* The head of c's request is whole but its body is not: an
 * "Expect: 100-continue" gets its 100 Continue once (RFC 9110 10.1.1). */
static void expect_continue(cconn *c, const qc__http_head *h)
{
    size_t n;
    const char *v = qc__http_header(c->in.data, h, "Expect", &n);
    if (c->continued || !v || n != 12 || strncasecmp(v, "100-continue", 12) != 0 || h->minor < 1)
        return;
    c->continued = 1;
    static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
    client_write(c, cont, sizeof cont - 1);
}

/* 1 when no admin token is set, or the request carries it as
 * "Authorization: Bearer TOKEN" (compared in constant time). */
static int admin_authorized(const proxy *P, const char *buf, const qc__http_head *h)
{
    if (!P->token[0])
        return 1;
    size_t n;
    const char *v = qc__http_header(buf, h, "Authorization", &n);
    size_t tn = strlen(P->token);
    if (!v || n != 7 + tn || strncasecmp(v, "Bearer ", 7) != 0)
        return 0;
    unsigned char d = 0;
    for (size_t i = 0; i < tn; i++)
        d |= (unsigned char)(v[7 + i] ^ P->token[i]);
    return d == 0;
}

/* Takes the next whole request out of c->in and carries it; 0 when there
 * is none yet (or c is closing). */
static int client_next(cconn *c)
{
    proxy *P = c->P;
    if (c->closing || c->state != C_READ || c->in.len == 0)
        return 0;
    qc__http_head h;
    const char *why = "malformed request";
    int rc = qc__http_parse_head(c->in.data, c->in.len, 1, &h, &why);
    if (rc < 0) {
        bad_request(c, why);
        return 0;
    }
    if (!c->head_timer_on) { /* the head has started: it has header_timeout to end
                              */
        c->head_timer_on = 1;
        uv_timer_start(&c->timer, on_client_timer, (uint64_t)(P->o->header_timeout * 1000), 0);
    }
    if (rc == 0)
        return 0;
    if ((h.content_length > 0 && (uint64_t)h.content_length > P->o->max_body) ||
        (h.chunked && c->in.len - h.head_len > P->o->max_body + P->o->max_body / 8 + 64)) {
        too_large(c); /* chunked: the body with its framing (an eighth more) */
        return 0;
    }
    long n = qc__http_message_len(c->in.data, c->in.len, &h, P->o->max_body, &why);
    if (n < 0) {
        bad_request(c, why);
        return 0;
    }
    if (n == 0) {
        expect_continue(c, &h);
        return 0;
    }
    size_t total = (size_t)n;
    c->keep = h.keep_alive;
    c->minor = h.minor;
    c->head_method = qc__http_is_head(c->in.data, &h);
    c->idem = method_idempotent(c->in.data + h.method.off, h.method.len);
    c->tries = 0;
    c->t_arrive = qc__now();
    if (c->admin) {
        char target[256];
        size_t tl = h.target.len < sizeof target ? h.target.len : sizeof target - 1;
        memcpy(target, c->in.data + h.target.off, tl);
        int post = h.method.len == 4 && memcmp(c->in.data + h.method.off, "POST", 4) == 0;
        int authorized = admin_authorized(P, c->in.data, &h);
        qc__buf_consume(&c->in, total);
        admin_request(c, target, tl, post, authorized);
        return 1;
    }
    if (refused_form(c, &h))
        return 1;
    c->cls = class_of(P, c->in.data, &h);
    if (request_out(c, &h, total) != 0) {
        client_close(c);
        return 1;
    }
    client_mem(c);
    if (P->draining) {
        refuse(c);
        return 1;
    }
    int adm = P->qlen ? (P->o->control && qc_limiter_weight(P->lim, c->cls) <= 0 ? -1 : 0)
                      : try_admit(c);
    if (adm > 0) {
        P->q_min = 0; /* in without waiting: the queue is not standing */
        return 1;
    }
    if (adm < 0 || P->qlen >= P->o->queue) { /* rejected class, or no room */
        refuse(c);
        return 1;
    }
    enqueue(c);
    uv_timer_start(&c->timer, on_client_timer, (uint64_t)(wait_deadline(P, c->cls) * 1000), 0);
    return 1;
}

/* Reads c or not. Reading stops while c's unsent answers exceed WQ_HIGH
 * (it sends requests faster than it takes the answers), or while a request
 * of c's is being carried and IN_HIGH bytes of the next ones are already
 * buffered; it resumes when the answers drain below WQ_LOW and the
 * request is done. So one client holds at most about WQ_HIGH of answers,
 * plus one request and IN_HIGH of read-ahead, whatever it sends: TCP
 * slows the rest down in its own buffers. */
static void client_flow(cconn *c)
{
    if (c->closing || c->ending)
        return;
    size_t wq = client_wq(c);
    int stop = wq > WQ_REPLIES || (c->state != C_READ && c->in.len >= IN_HIGH);
    if (stop && !c->rpaused) {
        c->rpaused = 1;
        uv_read_stop((uv_stream_t *)&c->tcp);
    } else if (!stop && c->rpaused && wq <= WQ_LOW) {
        c->rpaused = 0;
        uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_client_read);
    }
}

/* Carries the requests buffered in c one after another, in a loop: an
 * answer qctl makes itself (a refusal, a 400, an admin page) calls back
 * here, and a recursion per pipelined request would let one client's
 * burst exhaust the stack. A call made while the loop runs returns at once
 * and the loop goes on. The loop stops while c's unsent answers exceed
 * WQ_HIGH; client_flow then stops reading c until they drain. */
static void client_process(cconn *c)
{
    if (c->processing)
        return;
    c->processing = 1;
    while (!c->closing && !c->ending && c->state == C_READ && c->in.len &&
           client_wq(c) <= WQ_REPLIES)
        if (!client_next(c))
            break;
    c->processing = 0;
    client_flow(c);
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    cconn *c = s->data;
    if (n < 0) {
        client_close(c);
        return;
    }
    if (n == 0 || c->ending)
        return; /* ending: its last answer is out, what follows is dropped */
    proxy *P = c->P;
    /* --max-memory: a client with no request carried that would grow the
     * buffers past the cap is answered 503 and closed (a little is always
     * read, so that heads get through) */
    if (P->o->max_memory && c->in.len + (size_t)n > c->in.cap && c->in.len >= 16384 &&
        P->mem + (size_t)n > P->o->max_memory && c->state == C_READ && !c->up) {
        static const char body[] = "proxy memory full: retry later\n";
        P->refused_mem++;
        c->keep = 0;
        c->in.len = 0;
        client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                     sizeof body - 1);
        return;
    }
    if (c->in.len + (size_t)n > P->o->max_body + P->o->max_body / 8 + 2 * QC__HTTP_HEAD_MAX +
                                    IN_HIGH ||
        qc__buf_append(&c->in, buf->base, (size_t)n) != 0) {
        client_close(c);
        return;
    }
    client_mem(c);
    client_process(c);
}

static void accept_client(uv_stream_t *server, int status, int admin)
{
    proxy *P = server->data;
    if (status < 0)
        return;
    cconn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->kind = K_CLIENT;
    c->P = P;
    c->admin = admin;
    uv_tcp_init(P->loop, &c->tcp);
    uv_timer_init(P->loop, &c->timer);
    c->tcp.data = c->timer.data = c;
    c->handles_open = 2;
    P->nclients += !admin; /* counted back in client_closed */
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        client_close(c);
        return;
    }
    P->conns++;
    uv_tcp_nodelay(&c->tcp, 1);
    client_idle(c);
    if (!admin && P->o->max_connections && P->nclients > P->o->max_connections) {
        static const char body[] = "too many connections: retry later\n";
        P->refused_conns++;
        c->keep = 0;
        client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                     sizeof body - 1);
        return;
    }
    uv_read_start((uv_stream_t *)&c->tcp, alloc_cb, on_client_read);
}

static void on_connection(uv_stream_t *server, int status)
{
    accept_client(server, status, 0);
}

static void on_admin_connection(uv_stream_t *server, int status)
{
    accept_client(server, status, 1);
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
        client_close(h->data);
    else if (*(int *)h->data == K_FLEET)
        fleet_handle_close(h);
    else
        upstream_close(h->data);
}

static void on_control(uv_timer_t *t)
{
    proxy *P = t->data;
    double now = qc__now();
    if (P->o->control) {
        qc_limiter_tick(P->lim, now);
        pump_queue(P);
    }
    codel_tick(P, now);
    fleet_tick(P, now);
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
                qc__fleet_count(&P->fleet, QC_FLEET_WARMING),
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
    for (unsigned i = 0; i < P->ncls; i++)
        refuse_class(P, i);
}

/* Closes every handle: the loop then ends (a second signal, or the
 * drain deadline). Requests still in flight are cut. */
static void stop_now(proxy *P, const char *why)
{
    if (P->stopping)
        return;
    P->stopping = 1;
    plog(P, "%s: stopping with %u requests in flight", why, P->inflight);
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

void qc_proxy_opts_init(qc_proxy_opts *o)
{
    memset(o, 0, sizeof *o);
    o->listen = "127.0.0.1:8080";
    qc_limiter_config_init(&o->limiter, QC_LIMITER_MAXUSERS);
    o->control = 1;
    o->interval = 0.1;
    o->queue = 128;
    o->queue_timeout = 1;
    o->header_timeout = 10;
    o->idle_timeout = 60;
    o->backend_timeout = 30;
    o->fleet = (qc__fleet_config){
        .route = QC_FLEET_JSQ, .threshold = 4, .idle_off = INFINITY, .min_on = 1};
    o->health_interval = 0.1;
    o->cmd_timeout = 10;
    o->warmup_timeout = 30;
    o->retries = 2;
    o->retry_budget = 0.2;
    o->max_fails = 3;
    o->max_body = 1u << 24;
    o->max_memory = (size_t)256 << 20;
    o->queue_discipline = QC_QUEUE_CODEL;
    o->queue_target = 0.05;
    o->drain_timeout = 30;
}

/* Reads --admin-token-file: its first line, the token (printable ASCII,
 * 16 to 255 characters). */
static int read_token(const char *path, char *out, size_t size, qc_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return qc_err_set(err, QC_EIO, "--admin-token-file: %s: cannot read", path);
    char line[512];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = ok ? strcspn(line, "\r\n") : 0;
    line[n] = 0;
    if (n < 16 || n >= size)
        return qc_err_set(err, QC_EINVAL,
                          "--admin-token-file: %s:1: the token must be 16 to %zu characters", path,
                          size - 1);
    for (size_t i = 0; i < n; i++)
        if (line[i] <= 0x20 || line[i] >= 0x7f)
            return qc_err_set(err, QC_EINVAL,
                              "--admin-token-file: %s:1: a space or control character in the token",
                              path);
    memcpy(out, line, n + 1);
    return 0;
}

static int listen_on(proxy *P, uv_tcp_t *t, const char *where, const char *port_file,
                     uv_connection_cb cb, qc_err *err)
{
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(where, &addr, err);
    if (rc)
        return rc;
    uv_tcp_init(P->loop, t);
    t->data = P;
    if ((rc = uv_tcp_bind(t, (struct sockaddr *)&addr, 0)) != 0 ||
        (rc = uv_listen((uv_stream_t *)t, 1024, cb)) != 0)
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(rc));
    if (port_file)
        return qc__write_port(t, port_file, err);
    return 0;
}

/* The limiter's configuration for o: its classes are o's named ones
 * (bounded under ADMISSION) and best effort last. */
static qc_limiter_config proxy_limiter_config(const qc_proxy_opts *o)
{
    qc_limiter_config lc = o->limiter;
    lc.classes = o->nclasses + 1;
    if (lc.algo == QC_LIMITER_ADMISSION) { /* named classes bounded, the last best effort */
        for (unsigned i = 0; i < lc.classes; i++)
            lc.bound[i] = i < o->nclasses ? o->class_bound[i] : 0;
        lc.adm_candidates = o->class_candidate;
    }
    return lc;
}

int qc_proxy_check(const qc_proxy_opts *o, qc_err *err)
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
    if (!(o->health_interval > 0) || !(o->cmd_timeout > 0) || !(o->warmup_timeout > 0))
        return qc_err_set(err, QC_EINVAL,
                          "health interval, command and warm-up timeouts must be > 0");
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
        (rc = read_token(o->admin_token_file, token, sizeof token, err)) != 0)
        return rc;
    if (o->queue_discipline != QC_QUEUE_FIFO && o->queue_discipline != QC_QUEUE_CODEL)
        return qc_err_set(err, QC_EINVAL, "--queue-discipline: not fifo or codel");
    if (!(o->queue_target > 0) || !isfinite(o->queue_target))
        return qc_err_set(err, QC_EINVAL, "--queue-target: %g must be > 0", o->queue_target);
    if (!(o->health_check >= 0) || !isfinite(o->health_check))
        return qc_err_set(err, QC_EINVAL, "--health-check: %g must be >= 0 (0: none)",
                          o->health_check);
    qc_limiter_config lc = proxy_limiter_config(o);
    qc_limiter *l;
    if ((rc = qc_limiter_new(&lc, 0, &l, err)) != 0) {
        qc_err_prefix(err, "limiter");
        return rc;
    }
    qc_limiter_free(l);
    return 0;
}

int qc_proxy_run(const qc_proxy_opts *o, qc_err *err)
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
    P->q_min = INFINITY;
    if (o->admin_token_file &&
        (rc = read_token(o->admin_token_file, P->token, sizeof P->token, err)) != 0)
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
    if (!(o->health_interval > 0) || !(o->cmd_timeout > 0) || !(o->warmup_timeout > 0)) {
        rc = qc_err_set(err, QC_EINVAL,
                        "health interval, command and warm-up timeouts must be > 0");
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
    qc_sfq_init(&P->sfq, P->ncls);
    for (unsigned i = 0; i < P->ncls; i++) {
        P->cls[i].est = 0.01; /* a first guess of the time at a backend */
        if (!(P->cls[i].lat = qc_hist_alloc())) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
    }
    qc_limiter_config lc = proxy_limiter_config(o);
    if ((rc = qc_limiter_new(&lc, P->t0, &P->lim, err)) != 0) {
        qc_err_prefix(err, "limiter");
        goto out;
    }
    if (o->series) {
        P->series = fopen(o->series, "w");
        if (!P->series) {
            rc = qc_err_set(err, QC_EIO, "%s: cannot write", o->series);
            goto out;
        }
        fprintf(P->series, "t,limit,inflight,queue,admitted,refused,measured,"
                           "on,warming,off,parking\n");
    }
    if ((rc = uv_loop_init(&P->loop_own)) != 0) {
        rc = qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
        goto out;
    }
    P->loop = &P->loop_own;
    if ((rc = listen_on(P, &P->listener, o->listen, o->port_file, on_connection, err)) != 0)
        goto out_loop;
    if (o->admin) {
        P->admin_on = 1;
        if ((rc = listen_on(P, &P->admin, o->admin, o->admin_port_file, on_admin_connection,
                            err)) != 0)
            goto out_loop;
    }
    uv_signal_init(P->loop, &P->sigterm);
    uv_signal_init(P->loop, &P->sigint);
    P->sigterm.data = P->sigint.data = P;
    uv_signal_start(&P->sigterm, on_signal, SIGTERM);
    uv_signal_start(&P->sigint, on_signal, SIGINT);
    uv_timer_init(P->loop, &P->control);
    P->control.data = P;
    uint64_t ms = (uint64_t)llround(o->interval * 1000);
    uv_timer_start(&P->control, on_control, ms ? ms : 1, ms ? ms : 1);
    for (unsigned i = 0; i < P->nb; i++) {
        uv_timer_init(P->loop, &P->backend[i].health);
        P->backend[i].health.data = &P->backend[i];
        health_schedule(&P->backend[i]);
    }
    uv_run(P->loop, UV_RUN_DEFAULT);
    goto out_close;
out_loop:
    uv_walk(P->loop, close_walk, P);
out_close:
    uv_run(P->loop, UV_RUN_DEFAULT);
    uv_loop_close(P->loop);
out:
    if (P->series)
        fclose(P->series);
    qc_limiter_free(P->lim);
    for (unsigned i = 0; i < P->ncls; i++)
        qc_hist_free(P->cls[i].lat);
    free(P);
    return rc;
}
