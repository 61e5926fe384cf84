/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_client.c: the proxy's client connections.
 *
 * A client's bytes are read into c->in and its requests taken out one
 * after another in a loop (client_process: never by recursion, so a
 * pipelined burst of any length is answered in full), each parsed
 * strictly, classed, and admitted, queued or answered by qctl itself
 * (400/413/414/431/501/503/505). Reading stops while the client's unsent
 * answers or read-ahead exceed their bounds (client_flow), so one client
 * cannot grow the process. Over TLS the same holds: a client's bytes go
 * through its TLS engine both ways (see "TLS" below) and everything above
 * reads and writes plaintext as on plain TCP. */
#include "live/list.h"
#include "live/forwarded.h"
#include "live/proxy_int.h"

static void on_client_timer(uv_timer_t *t);
static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);
static int tls_flush(cconn *c);

/* ---- clients ------------------------------------------------------------ */

/* Accounts c's request buffers in P->mem (--max-memory). */
static void client_mem(cconn *c)
{
    size_t now = c->in.cap + c->req.cap;
    if (now >= c->mem)
        atomic_fetch_add(c->P->mem, now - c->mem);
    else
        atomic_fetch_sub(c->P->mem, c->mem - now);
    c->mem = now;
}

static void client_closed(uv_handle_t *h)
{
    cconn *c = h->data;
    proxy *P = c->P;
    if (--c->handles_open == 0) {
        qc__buf_free(&c->in);
        qc__proxy_req_release(c); /* a write still out keeps the bytes */
        qc__buf_free(&c->req);
        free(c->lr);
        qc__tls_free(c->tls);
        c->tls = NULL;
        client_mem(c);
        if (!c->admin)
            atomic_fetch_sub(P->nclients, 1);
        QC__LIST_REMOVE(P->clients_head, P->clients_tail, c, all_prev, all_next);
        if (!c->zombie) /* else freed when its decision comes (qc__proxy_mailbox) */
            free(c);
    }
    qc__proxy_handle_closed(P); /* last: it may free P */
}

void qc__proxy_client_close(cconn *c)
{
    if (c->closing)
        return;
    c->closing = 1;
    qc__proxy_log_gone(c); /* before forget: whether it waited */
    qc__proxy_forget(c); /* out of the waiting room, decisions on it void */
    if (c->up && c->body_stream) {
        qc__proxy_body_abandon(c->up); /* its body will never be whole */
    } else if (c->up) {
        c->up->client = NULL; /* the backend's answer will be dropped */
        qc__proxy_upstream_resume(c->up); /* read (and drop) the rest, if it was paused */
    }
    c->up = NULL;
    uv_close((uv_handle_t *)&c->tcp, client_closed);
    uv_close((uv_handle_t *)&c->timer, client_closed);
}

static void client_close_cb(void *c)
{
    qc__proxy_client_close(c);
}

void qc__proxy_client_close_after_write(cconn *c)
{
    c->ending = 1; /* requests pipelined after the last are not read */
    if (c->tls && c->tls_up && !c->closing) { /* the end said in TLS, then in TCP */
        qc__tls_close_notify(c->tls);
        tls_flush(c);
        if (c->closing)
            return;
    }
    qc__close_after_write((uv_stream_t *)&c->tcp, client_close_cb, c);
}

void qc__proxy_client_idle(cconn *c)
{
    c->state = C_READ;
    c->head_timer_on = 0;
    c->continued = 0;
    c->body_need = 0;
    c->mem_wait = 0;
    if (c->req.cap > BUF_KEEP) {
        qc__proxy_req_release(c);
        qc__buf_free(&c->req);
    }
    if (c->in.len == 0 && c->in.cap > BUF_KEEP)
        qc__buf_free(&c->in);
    client_mem(c);
    qc__deadline_set(&c->dl, &c->timer, on_client_timer, (uint64_t)(c->P->o->idle_timeout * 1000),
                     qc__proxy_client_step(c->P));
}

/* The client's answers not yet done: queued in libuv, or written to the
 * kernel but not yet called back. The second part is what bounds a
 * pipelining client that does not read: its answers go to the socket's
 * buffer at once (libuv's queue stays empty), but each one's copy is held
 * until on_client_write runs on the next turn of the loop, so a burst of
 * a few thousand small requests would otherwise hold their answers all at
 * once (16 such clients on the admin page: 40 MB). */
size_t qc__proxy_client_wq(cconn *c)
{
    size_t q = uv_stream_get_write_queue_size((uv_stream_t *)&c->tcp);
    return q > c->wpending ? q : c->wpending;
}

/* A write to a client is done: below WQ_LOW, a paused upstream streaming
 * to it reads again, and a client whose reading was stopped (see
 * client_flow) is served and read again. */
static void on_client_write(uv_write_t *req, int status)
{
    (void)status;
    cwrite *w = (cwrite *)req;
    cconn *c = w->c;
    c->wpending -= w->n;
    free(w);
    /* a write is called back before its stream's close callback, so c is
     * still there */
    if (c->closing || qc__proxy_client_wq(c) > WQ_LOW)
        return;
    if (c->up && c->up->paused)
        qc__proxy_upstream_resume(c->up);
    if (c->rpaused)
        qc__proxy_client_process(c);
}

/* Queues the n bytes that fill(arg, data, n) puts in place, from the
 * skip-th on, to c's socket. On failure c is closed and it returns
 * nonzero. */
static int socket_queue(cconn *c, size_t n, size_t skip,
                        void (*fill)(void *arg, char *data, size_t n), void *arg)
{
    cwrite *w = malloc(sizeof *w + n);
    if (!w) {
        qc__proxy_client_close(c);
        return -1;
    }
    fill(arg, w->data, n);
    w->c = c;
    w->n = n - skip;
    uv_buf_t b = uv_buf_init(w->data + skip, (unsigned)(n - skip));
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_client_write) != 0) {
        free(w);
        qc__proxy_client_close(c);
        return -1;
    }
    c->wpending += n - skip;
    return 0;
}

/* A write to c's socket of n bytes that fill(arg, data, n) puts in
 * place. On failure c is closed and it returns nonzero. */
static int socket_write(cconn *c, size_t n, void (*fill)(void *arg, char *data, size_t n),
                        void *arg)
{
    if (c->closing)
        return -1;
    return socket_queue(c, n, 0, fill, arg);
}

/* A write of the nb pieces b (n bytes in all, a plain client's) tried
 * at once: what the socket takes now costs no copy, no request and no
 * callback; libuv's own path (uv_write, then the callback on the next
 * turn) also stops its write watcher when its queue empties, an
 * epoll_ctl per answer on a keep-alive connection. What the socket does
 * not take (or all of it, while earlier writes are queued: libuv keeps
 * them in order) is copied and queued as before, an error included (it
 * comes back through the callback as before). */
static int socket_write_now(cconn *c, const uv_buf_t *b, unsigned nb, size_t n,
                            void (*fill)(void *arg, char *data, size_t n), void *arg)
{
    if (c->closing)
        return -1;
    int k = uv_try_write((uv_stream_t *)&c->tcp, b, nb);
    if (k > 0 && (size_t)k == n)
        return 0;
    return socket_queue(c, n, k > 0 ? (size_t)k : 0, fill, arg);
}

static void fill_copy(void *arg, char *data, size_t n)
{
    memcpy(data, arg, n);
}

static void fill_tls(void *arg, char *data, size_t n)
{
    qc__tls_out_take(arg, data, n);
}

/* ---- TLS -------------------------------------------------------------------
 *
 * A TLS client's engine (tls.h) sits between its socket and the rest of
 * this file. What is read is fed to the engine a record at most at a time
 * and the plaintext it yields taken as a plain client's bytes
 * (client_bytes), with every bound of plain TCP; what the proxy writes is
 * encrypted a record at a time and the ciphertext queued at once
 * (tls_flush), so the write queue's bounds (WQ_HIGH, WQ_REPLIES) count
 * the bytes really waiting. The handshake runs within the first reads and
 * must end within --tls-handshake-timeout; a client whose bytes are no
 * acceptable TLS (garbage, TLS 1.1, an ALPN list without http/1.1) gets
 * the engine's alert and is closed. */

/* Queues the ciphertext c's engine has for the socket. */
static int tls_flush(cconn *c)
{
    size_t n = qc__tls_out_pending(c->tls);
    return n ? socket_write(c, n, fill_tls, c->tls) : 0;
}

/* Queues p[0..n) to c: a copy, or its ciphertext over TLS. On failure c
 * is closed and it returns nonzero. */
/* Two pieces in one write (a response's head and the body bytes read
 * with it): one system call and one segment where there were two. */
typedef struct two {
    const char *p, *q;
    size_t n;
} two;

static void fill_two(void *arg, char *data, size_t n)
{
    const two *t = arg;
    memcpy(data, t->p, t->n);
    memcpy(data + t->n, t->q, n - t->n);
}

int qc__proxy_client_write2(cconn *c, const char *p, size_t n, const char *q, size_t m)
{
    if (n == 0 || m == 0 || c->tls)
        return (n && qc__proxy_client_write(c, p, n) != 0) ||
                       (m && qc__proxy_client_write(c, q, m) != 0)
                   ? -1
                   : 0;
    two t = {p, q, n};
    uv_buf_t b[2] = {uv_buf_init((char *)p, (unsigned)n), uv_buf_init((char *)q, (unsigned)m)};
    return socket_write_now(c, b, 2, n + m, fill_two, &t);
}

int qc__proxy_client_write(cconn *c, const char *p, size_t n)
{
    if (!c->tls) {
        uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
        return socket_write_now(c, &b, 1, n, fill_copy, (void *)p);
    }
    if (c->closing || !c->tls_up) { /* nothing is written before the handshake */
        qc__proxy_client_close(c);
        return -1;
    }
    for (size_t off = 0; off < n;) {
        size_t k = n - off < QC__TLS_PIECE ? n - off : QC__TLS_PIECE;
        if (qc__tls_write(c->tls, p + off, k) != 0) {
            qc__proxy_client_close(c);
            return -1;
        }
        if (tls_flush(c) != 0)
            return -1;
        off += k;
    }
    return 0;
}

/* Writes a response qctl makes itself, then goes on with the next request
 * (qc__proxy_client_process, which does not recurse: see there). */
void qc__proxy_client_reply(cconn *c, int status, const char *reason, const char *extra,
                            const char *ctype, const char *body, size_t blen)
{
    char msg[1024];
    qc__proxy_log_answer(c, status, blen, NAN);
    if (c->body_stream) { /* the rest of its body is not read: nothing follows */
        c->body_stream = 0;
        c->keep = 0;
    }
    int keep = c->keep && !c->P->draining;
    int k = snprintf(
        msg, sizeof msg, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s%s\r\n",
        status, reason, ctype, blen, extra ? extra : "", keep ? "" : "Connection: close\r\n");
    if ((size_t)k + blen <= sizeof msg) { /* one write: the common, small answer */
        memcpy(msg + k, body, blen);
        if (qc__proxy_client_write(c, msg, (size_t)k + blen) != 0)
            return; /* closed */
    } else if (qc__proxy_client_write(c, msg, (size_t)k) != 0 || (blen && qc__proxy_client_write(c, body, blen) != 0)) {
        return;
    }
    c->state = C_READ;
    if (!keep) {
        qc__proxy_client_close_after_write(c);
        return;
    }
    qc__proxy_client_idle(c);
    qc__proxy_client_process(c);
}

void qc__proxy_record_latency(pclass *k, double s)
{
    qc_hist_add(k->lat, s);
    unsigned b = 0;
    while (b < LAT_BUCKETS && s > qc__proxy_lat_le[b])
        b++;
    /* written by this worker alone: a relaxed load and store, no locked add */
    atomic_store_explicit(&k->lat_bucket[b],
                          atomic_load_explicit(&k->lat_bucket[b], memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&k->lat_sum, atomic_load_explicit(&k->lat_sum, memory_order_relaxed) + s,
                          memory_order_relaxed);
}

void qc__proxy_refuse(cconn *c)
{
    qc__proxy_refuse_why(c, REFUSED_NO_BACKEND);
}

void qc__proxy_refuse_why(cconn *c, unsigned why)
{
    proxy *P = c->P;
    P->cls[c->cls].refused++;
    P->refused_why[why <= REFUSED_NO_BACKEND ? why : REFUSED_NO_BACKEND]++;
    static const char body[] = "overloaded: retry later\n";
    qc__proxy_client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                           sizeof body - 1);
}

/* How far ahead a client's lazy timer is armed: the shorter of its
 * timeouts, so that moving from one to the other rarely re-arms it. */
uint64_t qc__proxy_client_step(const proxy *P)
{
    double s = P->o->header_timeout < P->o->idle_timeout ? P->o->header_timeout : P->o->idle_timeout;
    return s * 1000 >= 1 ? (uint64_t)(s * 1000) : 1;
}

static void on_client_timer(uv_timer_t *t)
{
    cconn *c = t->data;
    if (c->state == C_QUEUED) /* its wait is bounded by the room's timer (proxy.c) */
        return;
    if (!qc__deadline_due(&c->dl, t, on_client_timer, qc__proxy_client_step(c->P)))
        return; /* early: re-armed for the rest, or no deadline now */
    if (c->mem_wait > 0 && c->state == C_READ) { /* a body waiting for memory: see body_buffer */
        if (qc__now() - c->mem_wait < c->P->o->idle_timeout) {
            qc__proxy_client_process(c); /* tries again; client_flow reads it once in */
            return;
        }
        static const char body[] = "proxy memory full: retry later\n";
        c->P->refused_mem++;
        c->mem_wait = 0;
        c->keep = 0;
        c->in.len = 0;
        qc__proxy_client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                               sizeof body - 1);
        return;
    }
    if (c->state == C_READ)
        qc__proxy_client_close(c); /* idle, or a head too slow to arrive */
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
    qc__proxy_client_reply(c, status, reason, status == 405 ? allow : NULL, "text/plain", body, (size_t)n);
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
    size_t skip = t[4] == ':' ? 7 : 8; /* http:// or https:// */
    if (t[0] != '/' && (h->target.len == skip || strchr("/?#", t[skip]))) {
        bad_request(c, "absolute target without a host");
        return 1;
    }
    return 0;
}

/* The request c->in[0..total) whose head is h goes to c->req without its
 * hop-by-hop headers (an Upgrade among them: the backend never sees an
 * upgrade, so none is carried out). 0, or -1 out of memory. */
/* An absolute-form target (RFC 9112 3.2.2: "http://authority/path"): 1
 * with *auth the authority and *path what follows it (*plen 0: none, the
 * origin-form is then "/"), else 0. */
static int absolute_form(const char *buf, const qc__http_head *h, const char **auth, size_t *alen,
                         const char **path, size_t *plen)
{
    const char *t = buf + h->target.off;
    size_t n = h->target.len, skip;
    if (n > 7 && strncasecmp(t, "http://", 7) == 0)
        skip = 7;
    else if (n > 8 && strncasecmp(t, "https://", 8) == 0)
        skip = 8;
    else
        return 0;
    size_t a = skip;
    while (a < n && t[a] != '/' && t[a] != '?' && t[a] != '#')
        a++;
    *auth = t + skip;
    *alen = a - skip;
    *path = t + a;
    *plen = n - a;
    return 1;
}

static int request_out(cconn *c, const qc__http_head *h, size_t total)
{
    const char *buf = c->in.data;
    const char *auth = NULL, *path = NULL;
    size_t alen = 0, plen = 0;
    /* absolute form: the target's authority replaces Host, and the origin
     * form goes on (RFC 9112 3.2.2, as nginx forwards it) */
    int abs = absolute_form(buf, h, &auth, &alen, &path, &plen);
    const qc_proxy_params *o = c->P->o;
    const qc__fwd fw = {o->fwd_xff, o->fwd_xfp, o->fwd_forwarded, o->fwd_request_id};
    int fwd = fw.xff || fw.xfp || fw.forwarded || fw.request_id;
    int hop = abs || fwd; /* the head is written anew */
    c->reqid[0] = 0;
    for (unsigned i = 0; i < h->nhdr && !hop; i++)
        hop = qc__proxy_hop_by_hop(buf, h, i, 0);
    qc__proxy_req_release(c); /* the last request's writes may still read it */
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
    if (abs) { /* METHOD /path HTTP/1.x, then Host: authority */
        const char *ver = buf + h->target.off + h->target.len;
        if (qc__buf_append(&c->req, buf, h->target.off) != 0 ||
            qc__buf_append(&c->req, plen && path[0] == '/' ? "" : "/",
                           plen && path[0] == '/' ? 0 : 1) != 0 ||
            qc__buf_append(&c->req, path, plen) != 0 ||
            qc__buf_append(&c->req, ver, (size_t)(eol - ver) + 1) != 0 ||
            qc__buf_append(&c->req, "Host: ", 6) != 0 || qc__buf_append(&c->req, auth, alen) != 0 ||
            qc__buf_append(&c->req, "\r\n", 2) != 0)
            return -1;
    } else if (qc__buf_append(&c->req, buf, (size_t)(eol - buf) + 1) != 0) {
        return -1;
    }
    for (unsigned i = 0; i < h->nhdr; i++) {
        if (qc__proxy_hop_by_hop(buf, h, i, 0) ||
            (abs && h->name[i].len == 4 && strncasecmp(buf + h->name[i].off, "Host", 4) == 0) ||
            (fwd && qc__fwd_is_header(&fw, buf + h->name[i].off, h->name[i].len)))
            continue;
        /* a field line as read: name to the end of its value, then CRLF */
        size_t from = h->name[i].off, to = h->value[i].off + h->value[i].len;
        if (qc__buf_append(&c->req, buf + from, to - from) != 0 ||
            qc__buf_append(&c->req, "\r\n", 2) != 0)
            return -1;
    }
    if (fwd && qc__fwd_append(&fw, &c->req, buf, h, c->peer, c->tls != NULL, c->reqid) != 0)
        return -1;
    if (c->minor == 0 && c->keep && qc__buf_append(&c->req, "Connection: keep-alive\r\n", 24) != 0)
        return -1;
    if (qc__buf_append(&c->req, "\r\n", 2) != 0 ||
        qc__buf_append(&c->req, buf + h->head_len, total - h->head_len) != 0)
        return -1;
    qc__buf_consume(&c->in, total);
    if (c->in.len == 0 && c->in.cap > BUF_KEEP) /* a body read whole is in req now */
        qc__buf_free(&c->in);
    return 0;
}

/* A request over --max-body: 413, and the connection closes (its body is
 * not read). */
void qc__proxy_too_large(cconn *c)
{
    static const char body[] = "request body over --max-body\n";
    c->P->too_large++;
    c->keep = 0;
    qc__proxy_client_reply(c, 413, "Content Too Large", NULL, "text/plain", body, sizeof body - 1);
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
    qc__proxy_client_write(c, cont, sizeof cont - 1);
}

/* The body of c's request (head h, already in c->req) is streamed: its
 * bytes stay in c->in until the backend link is up, and are then sent as
 * they arrive (qc__proxy_body_pump). */
static void body_start(cconn *c, const qc__http_head *h)
{
    c->body_stream = 1;
    c->body_chunked = h->chunked;
    c->body_left = h->chunked ? 0 : (uint64_t)h->content_length;
    c->body_sent = 0;
    memset(&c->body_ch, 0, sizeof c->body_ch);
}

/* Whether c's request (head h, its body not all there yet) is held until
 * its body is whole before it goes to the front, as nginx's
 * proxy_request_buffering holds it: the request then counts against the
 * limit (a slot at the backend) only once it can be sent at once, so an
 * upload holds neither a slot nor a place in the waiting room while its
 * client sends it, and 40 concurrent uploads are not 40 long services.
 * Memory stays bounded: the body's bytes are reserved at once in
 * --max-memory's count (other clients see them), and a body framed by
 * chunked coding (its length unknown until its end), one over
 * BODY_BUFFER_MAX, or one that does not fit in what --max-memory leaves,
 * is streamed instead (body_start: admitted on its head, as before). The
 * client must keep sending: header_timeout between two reads. */
#define MEM_RETRY 20
static int body_buffer(cconn *c, const qc__http_head *h)
{
    proxy *P = c->P;
    if (c->body_need)
        return 1; /* reserved already: its bytes are on their way */
    if (h->chunked || h->content_length <= 0 || (uint64_t)h->content_length > BODY_BUFFER_MAX)
        return 0;
    size_t need = h->head_len + (size_t)h->content_length;
    size_t grow = need > c->in.cap ? need - c->in.cap : 0;
    if (P->o->max_memory && atomic_load(P->mem) + grow > P->o->max_memory) {
        /* no room now: the client is not read (TCP holds its bytes) and
         * tries again every MEM_RETRY ms, as the bodies before it are
         * answered and given back, for idle_timeout at most (the bodies
         * before it may take that long to come: 40 of 8 MiB took 15 to 25 s
         * from one client program on a busy host); then 503 with
         * Retry-After (on_client_timer). A body over half the budget
         * streams. */
        if (grow > P->o->max_memory / 2)
            return 0;
        if (!(c->mem_wait > 0))
            c->mem_wait = qc__now();
        qc__deadline_set(&c->dl, &c->timer, on_client_timer, MEM_RETRY, qc__proxy_client_step(P));
        return 1;
    }
    c->mem_wait = 0;
    if (grow) {
        char *d = realloc(c->in.data, need);
        if (!d)
            return 0;
        c->in.data = d;
        c->in.cap = need;
        client_mem(c);
    }
    c->body_need = need;
    qc__deadline_set(&c->dl, &c->timer, on_client_timer, (uint64_t)(P->o->header_timeout * 1000),
                     qc__proxy_client_step(P));
    return 1;
}

/* Takes the next request out of c->in and carries it: whole, or its head
 * with the body to follow; 0 when there is none yet (or c is closing). */
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
        qc__deadline_set(&c->dl, &c->timer, on_client_timer, (uint64_t)(P->o->header_timeout * 1000),
                         qc__proxy_client_step(P));
    }
    if (rc == 0)
        return 0;
    if ((h.content_length > 0 && (uint64_t)h.content_length > P->o->max_body) ||
        (h.chunked && c->in.len - h.head_len > P->o->max_body + P->o->max_body / 8 + 64)) {
        qc__proxy_too_large(c); /* chunked: the body with its framing (an eighth more) */
        return 0;
    }
    if (c->admin && (h.chunked || h.content_length > ADMIN_BODY_MAX)) {
        qc__proxy_too_large(c); /* no admin request has a body to speak of */
        return 0;
    }
    long n = qc__http_message_len(c->in.data, c->in.len, &h, P->o->max_body, &why);
    if (n < 0) {
        bad_request(c, why);
        return 0;
    }
    if (n == 0 && c->admin)
        return 0; /* the admin port reads its (small) requests whole */
    if (n == 0)
        expect_continue(c, &h);
    if (n == 0 && body_buffer(c, &h))
        return 0; /* the front hears of it once its body is whole */
    c->body_need = 0;
    /* a body not all there yet is streamed: the request goes on with its
     * head, and the body follows as it arrives (see body_start) */
    size_t total = n ? (size_t)n : h.head_len;
    c->keep = h.keep_alive;
    c->minor = h.minor;
    c->head_method = qc__http_is_head(c->in.data, &h);
    c->idem = qc__proxy_method_idempotent(c->in.data + h.method.off, h.method.len);
    c->tries = 0;
    c->t_arrive = qc__proxy_now(P);
    if (c->admin) {
        char target[256];
        size_t tl = h.target.len < sizeof target ? h.target.len : sizeof target - 1;
        memcpy(target, c->in.data + h.target.off, tl);
        int post = h.method.len == 4 && memcmp(c->in.data + h.method.off, "POST", 4) == 0;
        int authorized = qc__proxy_admin_authorized(P, c->in.data, &h);
        const char *browser = qc__proxy_admin_browser(c->in.data, &h);
        qc__buf_consume(&c->in, total);
        qc__proxy_admin_request(c, target, tl, post, authorized, browser);
        return 1;
    }
    qc__proxy_log_head(c, c->in.data, &h);
    if (refused_form(c, &h))
        return 1;
    c->cls = class_of(P, c->in.data, &h);
    if (request_out(c, &h, total) != 0) {
        qc__proxy_client_close(c);
        return 1;
    }
    if (n == 0)
        body_start(c, &h);
    client_mem(c);
    if (P->draining) {
        if (c->lr)
            c->lr->decision = "draining";
        qc__proxy_refuse_why(c, QC_FRONT_DRAINING);
        return 1;
    }
    qc__proxy_arrive(c); /* the front's answer: in, waiting, or refused */
    return 1;
}

/* Reads c or not. Reading stops while c's unsent answers exceed WQ_HIGH
 * (it sends requests faster than it takes the answers), or while a request
 * of c's is being carried and IN_HIGH bytes of the next ones are already
 * buffered; it resumes when the answers drain below WQ_LOW and the
 * request is done (on the admin port, whose requests are small and
 * answered at once, while IN_HIGH bytes are buffered at all). So one
 * client holds at most about WQ_HIGH of answers,
 * plus one request and IN_HIGH of read-ahead, whatever it sends: TCP
 * slows the rest down in its own buffers. */
static void client_flow(cconn *c)
{
    if (c->closing || c->ending)
        return;
    size_t wq = qc__proxy_client_wq(c);
    size_t up = c->body_stream && c->up ? uv_stream_get_write_queue_size((uv_stream_t *)&c->up->tcp)
                                        : 0;
    int stop = wq > WQ_REPLIES || ((c->state != C_READ || c->admin) && c->in.len >= IN_HIGH) ||
               up > WQ_HIGH || (c->mem_wait > 0 && c->state == C_READ);
    if (stop && !c->rpaused) {
        c->rpaused = 1;
        uv_read_stop((uv_stream_t *)&c->tcp);
    } else if (!stop && c->rpaused && wq <= WQ_LOW && up <= WQ_LOW) {
        c->rpaused = 0;
        uv_read_start((uv_stream_t *)&c->tcp, qc__proxy_alloc_cb, on_client_read);
    }
}

/* Carries the requests buffered in c one after another, in a loop: an
 * answer qctl makes itself (a refusal, a 400, an admin page) calls back
 * here, and a recursion per pipelined request would let one client's
 * burst exhaust the stack. A call made while the loop runs returns at once
 * and the loop goes on. The loop stops while c's unsent answers exceed
 * WQ_HIGH; client_flow then stops reading c until they drain. */
void qc__proxy_client_process(cconn *c)
{
    if (c->processing)
        return;
    c->processing = 1;
    while (!c->closing && !c->ending && c->state == C_READ && c->in.len &&
           qc__proxy_client_wq(c) <= WQ_REPLIES)
        if (!client_next(c))
            break;
    c->processing = 0;
    client_flow(c);
}

/* The client's bytes p[0..n) (plaintext, over TLS too): buffered within
 * the bounds, then its requests carried. */
static void client_bytes(cconn *c, const char *p, size_t n)
{
    proxy *P = c->P;
    /* --max-memory: a client with no request carried that would grow the
     * buffers past the cap is answered 503 and closed (a little is always
     * read, so that heads get through) */
    if (P->o->max_memory && c->in.len + (size_t)n > c->in.cap && c->in.len >= 16384 &&
        atomic_load(P->mem) + (size_t)n > P->o->max_memory && c->state == C_READ && !c->up) {
        static const char body[] = "proxy memory full: retry later\n";
        P->refused_mem++;
        c->keep = 0;
        c->in.len = 0;
        qc__proxy_client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                               sizeof body - 1);
        return;
    }
    size_t in_max = c->admin ? ADMIN_BODY_MAX + 2 * QC__HTTP_HEAD_MAX + 2 * IN_HIGH
                             : P->o->max_body + P->o->max_body / 8 + 2 * QC__HTTP_HEAD_MAX + IN_HIGH;
    if (c->in.len + (size_t)n > in_max ||
        qc__buf_append(&c->in, p, (size_t)n) != 0) {
        qc__proxy_client_close(c);
        return;
    }
    client_mem(c);
    if (c->body_need && c->in.len < c->body_need) { /* a body read whole: not yet */
        qc__deadline_set(&c->dl, &c->timer, on_client_timer, (uint64_t)(P->o->header_timeout * 1000),
                         qc__proxy_client_step(P));
        return;
    }
    if (c->body_stream && c->up)
        qc__proxy_body_pump(c->up); /* may answer and close c */
    if (!c->closing)
        qc__proxy_client_process(c);
}

/* The handshake of c is done: from now on its idle and header timers. */
static void tls_up(cconn *c)
{
    c->tls_up = 1;
    c->P->tls_ok++;
    qc__proxy_client_idle(c);
}

/* c's bytes are no TLS this side takes (rc QC__TLS_FAIL) or it said its
 * close_notify (QC__TLS_EOF): the engine's alert goes out, then c closes. */
static void tls_end(cconn *c, long rc)
{
    if (rc == QC__TLS_FAIL && !c->tls_up)
        c->P->tls_failed++;
    if (tls_flush(c) == 0)
        qc__proxy_client_close_after_write(c);
}

/* Ciphertext p[0..n) from c: fed to its engine a record at most at a
 * time, each piece's plaintext taken out whole before the next (so the
 * engine holds about a record), and what the engine answers (handshake,
 * alerts, session tickets) sent. */
static void tls_read(cconn *c, const char *p, size_t n)
{
    char plain[QC__TLS_PIECE];
    for (size_t off = 0; off < n && !c->closing && !c->ending;) {
        size_t k = n - off < QC__TLS_PIECE ? n - off : QC__TLS_PIECE;
        if (qc__tls_feed(c->tls, p + off, k) != 0) {
            qc__proxy_client_close(c);
            return;
        }
        off += k;
        long r;
        while (!c->closing && !c->ending &&
               (r = qc__tls_read(c->tls, plain, sizeof plain)) != QC__TLS_AGAIN) {
            if (r < 0) {
                tls_end(c, r);
                return;
            }
            if (!c->tls_up)
                tls_up(c);
            client_bytes(c, plain, (size_t)r);
        }
        if (c->closing || c->ending)
            return;
        if (!c->tls_up && qc__tls_ready(c->tls))
            tls_up(c);
        if (tls_flush(c) != 0)
            return;
    }
}

static void on_client_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    cconn *c = s->data;
    qc__proxy_ready_time(c->P); /* the poll's return, if this is the first event since */
    if (n < 0) {
        qc__proxy_client_close(c);
        return;
    }
    if (n == 0 || c->ending)
        return; /* ending: its last answer is out, what follows is dropped */
    if (c->tls)
        tls_read(c, buf->base, (size_t)n);
    else
        client_bytes(c, buf->base, (size_t)n);
}

/* The handshake's deadline, then the timers of a plain client. */
static void on_tls_timer(uv_timer_t *t)
{
    cconn *c = t->data;
    if (c->tls_up) {
        on_client_timer(t);
        return;
    }
    c->P->tls_timeouts++;
    qc__proxy_client_close(c);
}

void qc__proxy_accept_client(uv_stream_t *server, int status, int admin)
{
    proxy *P = server->data;
    if (status < 0)
        return;
    cconn *c = calloc(1, sizeof *c);
    if (!c)
        return;
    c->kind = K_CLIENT;
    c->P = P;
    c->worker = P->index;
    c->admin = admin;
    c->handles_open = qc__conn_init(P->loop, &c->tcp, &c->timer, c);
    P->handles += 2;
    QC__LIST_PUSH_TAIL(P->clients_head, P->clients_tail, c, all_prev, all_next);
    unsigned nclients = admin ? 0 : atomic_fetch_add(P->nclients, 1) + 1; /* back in client_closed */
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        qc__proxy_client_close(c);
        return;
    }
    P->conns++;
    uv_tcp_nodelay(&c->tcp, 1);
    struct sockaddr_storage ss;
    int sl = sizeof ss;
    if (uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&ss, &sl) == 0)
        qc__addr_host(&ss, c->peer, sizeof c->peer);
    else
        snprintf(c->peer, sizeof c->peer, "unknown");
    qc__proxy_client_idle(c);
    if (!admin && P->tls) {
        /* over --max-connections a TLS client is closed at once: an
         * answer would cost a handshake first */
        if ((P->o->max_connections && nclients > P->o->max_connections && ++P->refused_conns) ||
            !(c->tls = qc__tls_accept(P->tls))) {
            qc__proxy_client_close(c);
            return;
        }
        qc__deadline_drop(&c->dl);
        uv_timer_start(&c->timer, on_tls_timer, (uint64_t)(P->o->tls_handshake_timeout * 1000),
                       0);
        uv_read_start((uv_stream_t *)&c->tcp, qc__proxy_alloc_cb, on_client_read);
        return;
    }
    if (!admin && P->o->max_connections && nclients > P->o->max_connections) {
        static const char body[] = "too many connections: retry later\n";
        P->refused_conns++;
        c->keep = 0;
        qc__proxy_client_reply(c, 503, "Service Unavailable", "Retry-After: 1\r\n", "text/plain", body,
                               sizeof body - 1);
        return;
    }
    uv_read_start((uv_stream_t *)&c->tcp, qc__proxy_alloc_cb, on_client_read);
}

void qc__proxy_on_connection(uv_stream_t *server, int status)
{
    qc__proxy_accept_client(server, status, 0);
}
