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
 * The invariant the tests check: every request read is answered exactly
 * once, by the backend's response, a 503 (refused, queue deadline,
 * draining), a 502 (backend failed) or a 504 (backend too slow), unless
 * the client went away first. A request admitted is never dropped: the
 * limiter only gates new ones, and SIGTERM stops the listeners, refuses
 * what waits, and exits once the admitted requests are answered.
 *
 * Responses are read whole from the backend (Content-Length, chunked or
 * to the close) and written verbatim, so chunked framing and trailers
 * pass through untouched. Requests and responses are bounded in size. */
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/http.h"
#include "live/live.h"
#include "qctl/hist.h"
#include "qctl/output.h"

#define BODY_MAX (1u << 24)

typedef struct cconn cconn;
typedef struct uconn uconn;
typedef struct proxy proxy;

typedef struct pbackend {
    struct sockaddr_in addr;
    const char *name;
    unsigned inflight;
    uint64_t answered, failed;
    double down_until; /* a failed connect keeps it out of routing a while */
    uconn *idle;
} pbackend;

enum { K_CLIENT = 1, K_UPSTREAM = 2 };

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
    unsigned cls;
    double t_arrive;
    uconn *up;
    cconn *qnext;
};

enum { C_READ = 0, C_QUEUED, C_UPSTREAM };

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
    double t_admit;
    int busy, closing, handles_open, to_close; /* to_close: body ends at EOF */
    uconn *next_idle;
};

typedef struct pclass {
    const char *name;
    double bound;
    uint64_t admitted, refused, answered;
    qc_hist *lat;
} pclass;

struct proxy {
    uv_loop_t *loop;
    const qc_proxy_opts *o;
    uv_tcp_t listener, admin;
    int admin_on;
    uv_signal_t sigterm, sigint;
    uv_timer_t control;
    qc_limiter *lim;
    pbackend backend[QC_PROXY_BACKENDS_MAX];
    unsigned nb, rr;
    pclass cls[QC_PROXY_CLASSES_MAX + 1];
    unsigned ncls;
    cconn *qhead, *qtail;
    unsigned qlen;
    unsigned inflight;
    int draining;
    uint64_t bad_requests, errors502, errors504, conns;
    double t0;
    FILE *series;
};

static void client_process(cconn *c);
static void pump_queue(proxy *P);
static void forward(cconn *c, uconn *u);

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
    (void)h;
    (void)hint;
    static char slab[65536]; /* one loop thread; on_read copies out */
    *buf = uv_buf_init(slab, sizeof slab);
}

/* ---- clients ------------------------------------------------------------ */

static void client_closed(uv_handle_t *h)
{
    cconn *c = h->data;
    if (--c->handles_open == 0) {
        qc__buf_free(&c->in);
        qc__buf_free(&c->req);
        free(c);
    }
}

static void unqueue(cconn *c)
{
    proxy *P = c->P;
    cconn *prev = NULL;
    for (cconn *q = P->qhead; q; prev = q, q = q->qnext)
        if (q == c) {
            if (prev)
                prev->qnext = q->qnext;
            else
                P->qhead = q->qnext;
            if (P->qtail == q)
                P->qtail = prev;
            P->qlen--;
            return;
        }
}

static void client_close(cconn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    if (c->state == C_QUEUED)
        unqueue(c);
    if (c->up)
        c->up->client = NULL; /* the backend's answer will be dropped */
    c->up = NULL;
    uv_close((uv_handle_t *)&c->tcp, client_closed);
    uv_close((uv_handle_t *)&c->timer, client_closed);
}

static void on_client_shutdown(uv_shutdown_t *req, int status)
{
    (void)status;
    client_close(req->data);
    free(req);
}

static void client_close_after_write(cconn *c)
{
    uv_read_stop((uv_stream_t *)&c->tcp);
    uv_shutdown_t *req = malloc(sizeof *req);
    if (!req || uv_shutdown(req, (uv_stream_t *)&c->tcp, on_client_shutdown) != 0) {
        free(req);
        client_close(c);
        return;
    }
    req->data = c;
}

static void on_client_timer(uv_timer_t *t);

static void client_idle(cconn *c)
{
    c->state = C_READ;
    c->head_timer_on = 0;
    uv_timer_start(&c->timer, on_client_timer, (uint64_t)(c->P->o->idle_timeout * 1000), 0);
}

/* Writes a response qctl makes itself, then reads the next request. */
static void client_reply(cconn *c, int status, const char *reason, const char *extra,
                         const char *ctype, const char *body, size_t blen)
{
    char head[512];
    int keep = c->keep && !c->P->draining;
    int k = snprintf(
        head, sizeof head, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
        status, reason, ctype, blen, extra ? extra : "", keep ? "" : "Connection: close\r\n");
    qc__write_copy((uv_stream_t *)&c->tcp, head, (size_t)k);
    if (blen)
        qc__write_copy((uv_stream_t *)&c->tcp, body, blen);
    c->state = C_READ;
    if (!keep) {
        client_close_after_write(c);
        return;
    }
    client_idle(c);
    client_process(c);
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
    OUT("# TYPE qctl_latency_seconds summary\n");
    for (unsigned i = 0; i < P->ncls; i++) {
        static const double q[] = {0.5, 0.95, 0.99};
        for (int k = 0; k < 3; k++) {
            double v = qc_hist_quantile(P->cls[i].lat, q[k]);
            OUT("qctl_latency_seconds{class=\"%s\",quantile=\"%g\"} %g\n", P->cls[i].name, q[k],
                isnan(v) ? 0.0 : v);
        }
        OUT("qctl_latency_seconds_count{class=\"%s\"} %llu\n", P->cls[i].name,
            (unsigned long long)P->cls[i].lat->total);
    }
    OUT("# TYPE qctl_backends gauge\nqctl_backends{state=\"on\"} %u\n"
        "qctl_backends{state=\"warming\"} 0\nqctl_backends{state=\"off\"} 0\n",
        P->nb);
    OUT("# TYPE qctl_backend_inflight gauge\n");
    for (unsigned i = 0; i < P->nb; i++)
        OUT("qctl_backend_inflight{backend=\"%s\"} %u\n", P->backend[i].name,
            P->backend[i].inflight);
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
    json_t *cl = json_array();
    for (unsigned i = 0; i < P->ncls; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(P->cls[i].name));
        json_object_set_new(o, "bound", qc_json_real_new(P->cls[i].bound));
        json_object_set_new(o, "admitted", json_integer((json_int_t)P->cls[i].admitted));
        json_object_set_new(o, "refused", json_integer((json_int_t)P->cls[i].refused));
        json_object_set_new(o, "answered", json_integer((json_int_t)P->cls[i].answered));
        json_object_set_new(o, "p95", qc_json_real_new(qc_hist_quantile(P->cls[i].lat, 0.95)));
        json_array_append_new(cl, o);
    }
    json_object_set_new(root, "classes", cl);
    json_t *bk = json_array();
    for (unsigned i = 0; i < P->nb; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "address", json_string(P->backend[i].name));
        json_object_set_new(o, "state", json_string("on"));
        json_object_set_new(o, "inflight", json_integer(P->backend[i].inflight));
        json_object_set_new(o, "answered", json_integer((json_int_t)P->backend[i].answered));
        json_object_set_new(o, "failed", json_integer((json_int_t)P->backend[i].failed));
        json_array_append_new(bk, o);
    }
    json_object_set_new(root, "backends", bk);
    char *s = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    return s;
}

/* GET /metrics, GET /status, POST /reference?value=R. */
static void admin_request(cconn *c, const char *target, size_t tlen)
{
    proxy *P = c->P;
    if (tlen == 8 && memcmp(target, "/metrics", 8) == 0) {
        char *buf = malloc(1 << 16);
        if (!buf) {
            client_close(c);
            return;
        }
        size_t n = metrics_text(P, buf, 1 << 16);
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
            client_reply(c, 200, "OK", NULL, "text/plain", "ok\n", 3);
            return;
        }
        client_reply(c, 400, "Bad Request", NULL, "text/plain", "bad value\n", 10);
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
    uv_close((uv_handle_t *)&u->tcp, upstream_closed);
    uv_close((uv_handle_t *)&u->timer, upstream_closed);
}

/* The request on u is over: release its slot and let the queue in. */
static void upstream_done(uconn *u, int outcome)
{
    proxy *P = u->P;
    if (u->has_tok) {
        qc_limiter_release(P->lim, &u->tok, qc__now() - u->t_admit, outcome);
        u->has_tok = 0;
    }
    u->busy = 0;
    u->b->inflight--;
    P->inflight--;
    uv_timer_stop(&u->timer);
    pump_queue(P);
}

/* A backend failed the request: answer 502 or 504 and drop the link. */
static void upstream_fail(uconn *u, int status)
{
    proxy *P = u->P;
    if (u->closing)
        return;
    cconn *c = u->client;
    u->b->failed++;
    if (u->busy) {
        u->client = NULL;
        upstream_done(u, QC_LIMITER_DROPPED);
        if (c) {
            c->up = NULL;
            if (status == 504)
                P->errors504++;
            else
                P->errors502++;
            if (status == 504)
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
    upstream_fail(t->data, 504);
}

static void deliver(uconn *u, size_t total, int keep)
{
    proxy *P = u->P;
    cconn *c = u->client;
    u->client = NULL;
    u->b->answered++;
    if (c) {
        pclass *k = &P->cls[c->cls];
        k->answered++;
        qc_hist_add(k->lat, qc__now() - c->t_arrive);
        c->up = NULL;
        qc__write_copy((uv_stream_t *)&c->tcp, u->in.data, total);
    }
    qc__buf_consume(&u->in, total);
    upstream_done(u, QC_LIMITER_OK);
    if (keep && u->in.len == 0 && !P->draining) {
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

static void upstream_parse(uconn *u, int eof)
{
    qc__http_head h;
    const char *why;
    int rc = qc__http_parse_head(u->in.data, u->in.len, 0, &h, &why);
    if (rc < 0 || (rc == 0 && eof)) {
        upstream_fail(u, 502);
        return;
    }
    if (rc == 0)
        return;
    size_t total = h.head_len;
    if (h.status / 100 == 1) { /* interim: not carried; wait for the final */
        qc__buf_consume(&u->in, total);
        upstream_parse(u, eof);
        return;
    }
    if (h.chunked) {
        qc__http_chunked ch = {0};
        int done = 0;
        long n = qc__http_chunked_feed(&ch, u->in.data + total, u->in.len - total, &done, &why);
        if (n < 0 || (!done && eof)) {
            upstream_fail(u, 502);
            return;
        }
        if (!done)
            return;
        total += (size_t)n;
    } else if (h.content_length >= 0) {
        if (u->in.len - total < (size_t)h.content_length) {
            if (eof)
                upstream_fail(u, 502);
            return;
        }
        total += (size_t)h.content_length;
    } else if (h.status != 204 && h.status != 304) {
        if (!eof) /* the body ends when the backend closes */
            return;
        total = u->in.len;
        h.keep_alive = 0;
    }
    deliver(u, total, h.keep_alive);
}

static void on_upstream_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    uconn *u = s->data;
    if (n == 0)
        return;
    if (n < 0) {
        if (u->busy && n == UV_EOF && u->in.len) {
            upstream_parse(u, 1);
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
    if (!u->busy || u->in.len + (size_t)n > BODY_MAX ||
        qc__buf_append(&u->in, buf->base, (size_t)n) != 0) {
        if (u->busy)
            upstream_fail(u, 502);
        else
            upstream_close(u);
        return;
    }
    upstream_parse(u, 0);
}

static void on_upstream_connect(uv_connect_t *req, int status)
{
    uconn *u = req->data;
    if (status < 0) {
        u->b->down_until = qc__now() + 1;
        upstream_fail(u, 502);
        return;
    }
    uv_tcp_nodelay(&u->tcp, 1);
    uv_read_start((uv_stream_t *)&u->tcp, alloc_cb, on_upstream_read);
}

static pbackend *pick(proxy *P)
{
    pbackend *best = NULL;
    double now = qc__now();
    int best_down = 1;
    for (unsigned k = 0; k < P->nb; k++) {
        pbackend *b = &P->backend[(P->rr + k) % P->nb];
        int down = b->down_until > now; /* used only if all are down */
        if (!best || (best_down && !down) || (down == best_down && b->inflight < best->inflight)) {
            best = b;
            best_down = down;
        }
    }
    P->rr++;
    return best;
}

/* Sends c's request to the shortest backend queue. */
static void forward(cconn *c, uconn *tok_holder)
{
    proxy *P = c->P;
    pbackend *b = pick(P);
    uconn *u = b->idle;
    if (u) {
        b->idle = u->next_idle;
    } else {
        u = calloc(1, sizeof *u);
        if (!u) {
            if (tok_holder->has_tok)
                qc_limiter_release(P->lim, &tok_holder->tok, 0, QC_LIMITER_IGNORE);
            P->errors502++;
            client_reply(c, 502, "Bad Gateway", NULL, "text/plain", "out of memory\n", 14);
            return;
        }
        u->kind = K_UPSTREAM;
        u->P = P;
        u->b = b;
        uv_tcp_init(P->loop, &u->tcp);
        uv_timer_init(P->loop, &u->timer);
        u->tcp.data = u->timer.data = u->connect.data = u;
        u->handles_open = 2;
        if (uv_tcp_connect(&u->connect, &u->tcp, (struct sockaddr *)&b->addr,
                           on_upstream_connect) != 0) {
            u->busy = 1;
            u->client = c;
            u->tok = tok_holder->tok;
            u->has_tok = tok_holder->has_tok;
            b->inflight++;
            P->inflight++;
            c->up = u;
            c->state = C_UPSTREAM;
            upstream_fail(u, 502);
            return;
        }
    }
    u->tok = tok_holder->tok;
    u->has_tok = tok_holder->has_tok;
    u->cls = c->cls;
    u->t_admit = qc__now();
    u->busy = 1;
    u->client = c;
    u->in.len = 0;
    b->inflight++;
    P->inflight++;
    c->up = u;
    c->state = C_UPSTREAM;
    uv_timer_stop(&c->timer);
    uv_timer_start(&u->timer, on_upstream_timer, (uint64_t)(P->o->backend_timeout * 1000), 0);
    if (qc__write_copy((uv_stream_t *)&u->tcp, c->req.data, c->req.len) != 0)
        upstream_fail(u, 502);
}

/* Admits c now if the limiter lets it in. */
static int try_admit(cconn *c)
{
    proxy *P = c->P;
    uconn holder = {0};
    if (P->o->control) {
        if (qc_limiter_acquire(P->lim, c->cls, &holder.tok) != QC_LIMITER_ADMIT)
            return 0;
        holder.has_tok = 1;
    }
    P->cls[c->cls].admitted++;
    forward(c, &holder);
    return 1;
}

static void pump_queue(proxy *P)
{
    while (P->qhead) {
        cconn *c = P->qhead;
        if (P->o->control && qc_limiter_limit(P->lim) <= P->inflight)
            return; /* no slot: the head waits, and so does everyone behind */
        P->qhead = c->qnext;
        if (!P->qhead)
            P->qtail = NULL;
        P->qlen--;
        c->state = C_READ;
        if (!try_admit(c)) { /* refused after all: back to the head */
            c->state = C_QUEUED;
            c->qnext = P->qhead;
            P->qhead = c;
            if (!P->qtail)
                P->qtail = c;
            P->qlen++;
            return;
        }
    }
}

/* ---- reading requests --------------------------------------------------- */

static unsigned class_of(proxy *P, const char *buf, const qc__http_head *h)
{
    unsigned best_effort = P->ncls - 1;
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

static void bad_request(cconn *c, const char *why)
{
    char body[256];
    int n = snprintf(body, sizeof body, "bad request: %s\n", why);
    c->P->bad_requests++;
    c->keep = 0;
    client_reply(c, 400, "Bad Request", NULL, "text/plain", body, (size_t)n);
}

/* Takes the next whole request out of c->in and carries it. */
static void client_process(cconn *c)
{
    proxy *P = c->P;
    if (c->closing || c->state != C_READ || c->in.len == 0)
        return;
    qc__http_head h;
    const char *why = "malformed request";
    int rc = qc__http_parse_head(c->in.data, c->in.len, 1, &h, &why);
    if (rc < 0) {
        bad_request(c, why);
        return;
    }
    if (!c->head_timer_on) { /* the head has started: it has header_timeout to end
                              */
        c->head_timer_on = 1;
        uv_timer_start(&c->timer, on_client_timer, (uint64_t)(P->o->header_timeout * 1000), 0);
    }
    if (rc == 0)
        return;
    size_t total = h.head_len;
    if (h.chunked) {
        qc__http_chunked ch = {0};
        int done = 0;
        long n = qc__http_chunked_feed(&ch, c->in.data + total, c->in.len - total, &done, &why);
        if (n < 0) {
            bad_request(c, why);
            return;
        }
        if (!done)
            return;
        total += (size_t)n;
    } else if (h.content_length > 0) {
        if (h.content_length > (int64_t)BODY_MAX) {
            bad_request(c, "body too large");
            return;
        }
        if (c->in.len - total < (size_t)h.content_length)
            return;
        total += (size_t)h.content_length;
    }
    c->keep = h.keep_alive;
    c->t_arrive = qc__now();
    if (c->admin) {
        char target[256];
        size_t tl = h.target.len < sizeof target ? h.target.len : sizeof target - 1;
        memcpy(target, c->in.data + h.target.off, tl);
        qc__buf_consume(&c->in, total);
        admin_request(c, target, tl);
        return;
    }
    c->cls = class_of(P, c->in.data, &h);
    c->req.len = 0;
    if (qc__buf_append(&c->req, c->in.data, total) != 0) {
        client_close(c);
        return;
    }
    qc__buf_consume(&c->in, total);
    if (P->draining) {
        refuse(c);
        return;
    }
    if (!P->qhead && try_admit(c))
        return;
    if (P->qlen >= P->o->queue) {
        refuse(c);
        return;
    }
    c->state = C_QUEUED;
    c->qnext = NULL;
    if (P->qtail)
        P->qtail->qnext = c;
    else
        P->qhead = c;
    P->qtail = c;
    P->qlen++;
    uv_timer_start(&c->timer, on_client_timer, (uint64_t)(P->cls[c->cls].bound * 1000), 0);
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    cconn *c = s->data;
    if (n < 0) {
        client_close(c);
        return;
    }
    if (n == 0)
        return;
    if (c->in.len + (size_t)n > BODY_MAX + QC__HTTP_HEAD_MAX ||
        qc__buf_append(&c->in, buf->base, (size_t)n) != 0) {
        client_close(c);
        return;
    }
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
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        client_close(c);
        return;
    }
    P->conns++;
    uv_tcp_nodelay(&c->tcp, 1);
    client_idle(c);
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
    if (P->series) {
        qc_limiter_stats st;
        qc_limiter_get_stats(P->lim, &st);
        uint64_t adm = 0, ref = 0;
        for (unsigned i = 0; i < P->ncls; i++) {
            adm += P->cls[i].admitted;
            ref += P->cls[i].refused;
        }
        fprintf(P->series, "%.3f,%g,%u,%u,%llu,%llu,%g\n", now - P->t0,
                P->o->control ? st.limit : NAN, P->inflight, P->qlen, (unsigned long long)adm,
                (unsigned long long)ref, st.last_y);
    }
    if (P->draining && P->inflight == 0 && P->qlen == 0)
        uv_walk(P->loop, close_walk, P);
}

static void drain_queue(proxy *P)
{
    while (P->qhead) {
        cconn *c = P->qhead;
        P->qhead = c->qnext;
        P->qlen--;
        c->state = C_READ;
        refuse(c);
    }
    P->qtail = NULL;
}

static void on_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    proxy *P = s->data;
    if (P->draining)
        return;
    P->draining = 1;
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
}

static int listen_on(proxy *P, uv_tcp_t *t, const char *where, const char *port_file,
                     uv_connection_cb cb, qc_err *err)
{
    struct sockaddr_in addr;
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

int qc_proxy_run(const qc_proxy_opts *o, qc_err *err)
{
    if (o->nbackends == 0)
        return qc_err_set(err, QC_EINVAL, "at least one --backend is needed");
    if (!(o->interval > 0) || !(o->queue_timeout > 0) || !(o->header_timeout > 0) ||
        !(o->idle_timeout > 0) || !(o->backend_timeout > 0))
        return qc_err_set(err, QC_EINVAL, "intervals and timeouts must be > 0");
    proxy *P = calloc(1, sizeof *P);
    if (!P)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    P->o = o;
    P->loop = uv_default_loop();
    P->t0 = qc__now();
    int rc = 0;
    for (unsigned i = 0; i < o->nbackends; i++) {
        if ((rc = qc__addr_parse(o->backend[i], &P->backend[i].addr, err)) != 0) {
            qc_err_prefix(err, "--backend");
            goto out;
        }
        P->backend[i].name = o->backend[i];
    }
    P->nb = o->nbackends;
    for (unsigned i = 0; i < o->nclasses; i++) {
        P->cls[i].name = o->class_name[i];
        P->cls[i].bound = o->class_bound[i];
    }
    P->cls[o->nclasses].name = "best-effort";
    P->cls[o->nclasses].bound = o->queue_timeout;
    P->ncls = o->nclasses + 1;
    for (unsigned i = 0; i < P->ncls; i++)
        if (!(P->cls[i].lat = qc_hist_alloc())) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
    qc_limiter_config lc = o->limiter;
    lc.classes = P->ncls;
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
        fprintf(P->series, "t,limit,inflight,queue,admitted,refused,measured\n");
    }
    signal(SIGPIPE, SIG_IGN);
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
