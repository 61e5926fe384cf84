/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_upstream.c: the proxy's backend links.
 *
 * An admitted request goes to the backend the fleet's routing picks over
 * a kept-alive link (qc__proxy_forward), is sent again within the retry
 * budget when its backend failed it before any answer, and its response is
 * streamed back as it arrives, with backpressure from the client's write
 * queue (see "streaming the response"). */
#include "live/list.h"
#include "live/proxy_int.h"

static void on_upstream_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf);

/* The backend's silence is bounded by --backend-timeout (a lazy timer:
 * set again on every read of a response body, and for every request). */
static void backend_deadline(uconn *u)
{
    uint64_t ms = (uint64_t)(u->P->o->backend_timeout * 1000);
    qc__deadline_set(&u->dl, &u->timer, qc__proxy_on_upstream_timer, ms, ms);
}

void qc__proxy_upstream_resume(uconn *u)
{
    if (!u->paused || u->closing)
        return;
    u->paused = 0;
    uv_read_start((uv_stream_t *)&u->tcp, qc__proxy_alloc_cb, on_upstream_read);
    backend_deadline(u);
}

/* ---- upstream ----------------------------------------------------------- */

static void upstream_closed(uv_handle_t *h)
{
    uconn *u = h->data;
    proxy *P = u->P;
    if (--u->handles_open == 0) {
        qc__buf_free(&u->in);
        QC__LIST_REMOVE(P->ups_head, P->ups_tail, u, all_prev, all_next);
        free(u);
    }
    qc__proxy_handle_closed(P); /* last: it may free P */
}

static void remove_idle(uconn *u)
{
    for (uconn **pp = &u->b->idle; *pp; pp = &(*pp)->next_idle)
        if (*pp == u) {
            *pp = u->next_idle;
            return;
        }
}

void qc__proxy_upstream_close(uconn *u)
{
    if (u->closing)
        return;
    u->closing = 1;
    if (!u->busy)
        remove_idle(u);
    else if (u->placed == 1) /* PLACED_WAITING, at exit */
        qc__proxy_unwait(u);
    uv_close((uv_handle_t *)&u->tcp, upstream_closed);
    uv_close((uv_handle_t *)&u->timer, upstream_closed);
}

/* The time the request spent at its backend, as the front's limiter
 * samples it: from the moment the request was whole at the backend to the
 * response's first byte, each taken at the instant the event happened
 * rather than the one the proxy got to it (qc__proxy_ready_time): not the
 * upload of a large body, not the download to a slow client, not the
 * proxy's own queueing on a busy event loop, none of which is the
 * backend's load. Under ADMISSION the whole delay the client sees (to the
 * last byte) is what its bounds are about: the front adds the wait. */
static double backend_time(const uconn *u, double now)
{
    if (u->P->o->control && u->P->o->limiter.algo == QC_LIMITER_ADMISSION)
        return now - u->t_admit;
    if (!(u->t_first > 0) || !(u->t_sent > 0))
        return now - u->t_admit; /* no answer (a failure): the time it took */
    /* the lag taken out is an estimate: at most half of what was seen */
    double seen = u->t_first_seen - u->t_sent, t = u->t_first - u->t_sent;
    return t > seen / 2 ? t : seen / 2;
}

/* The request on u is over: release its slot and let the queue in. */
void qc__proxy_upstream_done(uconn *u, int outcome)
{
    proxy *P = u->P;
    double now = qc__proxy_now(P);
    qc_front_token tok = u->tok;
    u->tok.live = 0;
    u->busy = 0;
    qc__proxy_fleet_request_done(u, outcome == QC_LIMITER_OK);
    P->inflight--;
    qc__deadline_clear(&u->dl);
    if (!u->dl.armed)
        uv_timer_stop(&u->timer);
    qc__proxy_done(P, &tok, backend_time(u, now), outcome);
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

void qc__proxy_retry_deposit(proxy *P)
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

int qc__proxy_method_idempotent(const char *m, size_t n)
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
        u->head_sent || c->tries >= P->o->retries || !(c->idem || !u->link_up) || P->draining ||
        c->body_sent) /* a streamed body's bytes sent are gone: see body_pump */
        return 0;
    if (!retry_allowed(P))
        return 0;
    uconn holder = {0};
    holder.tok = u->tok;
    u->tok.live = 0;
    u->client = NULL;
    c->up = NULL;
    u->busy = 0;
    qc__proxy_fleet_request_done(u, 0);
    P->inflight--;
    int avoid = (int)u->b->index;
    qc__proxy_upstream_close(u);
    c->tries++;
    P->retries++;
    c->state = C_READ;
    qc__proxy_forward(c, &holder, avoid);
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
        qc__proxy_backend_failed(u->b);
    if (u->busy && status == 502 && retry(u))
        return;
    if (u->busy) {
        u->client = NULL;
        qc__proxy_upstream_done(u, QC_LIMITER_DROPPED);
        if (c) {
            c->up = NULL;
            if (status == 504)
                P->errors504++;
            else
                P->errors502++;
            if (u->head_sent) { /* too late for a status: cut the response */
                u->head_sent = 0;
                qc__proxy_client_close(c);
            } else if (status == 504)
                qc__proxy_client_reply(c, 504, "Gateway Timeout", NULL, "text/plain", "backend timeout\n",
                                       16);
            else
                qc__proxy_client_reply(c, 502, "Bad Gateway", NULL, "text/plain", "backend failed\n", 15);
        }
    }
    qc__proxy_upstream_close(u);
}

void qc__proxy_on_upstream_timer(uv_timer_t *t)
{
    uconn *u = t->data;
    if (u->placed == 1) { /* PLACED_WAITING: the client's deadline passed */
        qc__proxy_setup_deadline(u);
        return;
    }
    if (!qc__deadline_due(&u->dl, t, qc__proxy_on_upstream_timer,
                          (uint64_t)(u->P->o->backend_timeout * 1000)))
        return; /* early: re-armed for the rest, or no deadline now */
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
 * (WQ_HIGH, WQ_LOW: see qc__proxy_client_write). */

/* Writes a copy of p[0..n) to u's client; pauses u past WQ_HIGH. */
static void stream_out(uconn *u, const char *p, size_t n)
{
    cconn *c = u->client;
    size_t hn = u->phn; /* the head, written with the first bytes */
    u->phn = 0;
    if (!c || c->closing || (n == 0 && hn == 0))
        return;
    if (c->lr)
        c->lr->sent += hn + n; /* the head counts as sent (the log subtracts it) */
    if (qc__proxy_client_write2(c, u->phead, hn, p, n) != 0)
        return;
    if (!u->paused && qc__proxy_client_wq(c) > WQ_HIGH) {
        u->paused = 1;
        uv_read_stop((uv_stream_t *)&u->tcp);
        qc__deadline_drop(&u->dl);
        uv_timer_start(&u->timer, qc__proxy_on_upstream_timer, (uint64_t)(u->P->o->idle_timeout * 1000), 0);
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
int qc__proxy_hop_by_hop(const char *buf, const qc__http_head *h, unsigned i, int reframe)
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
        if (qc__proxy_hop_by_hop(buf, h, i, reframe))
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
        uv_read_start((uv_stream_t *)&u->tcp, qc__proxy_alloc_cb, on_upstream_read);
    }
    if (c) {
        pclass *k = &P->cls[c->cls];
        k->answered++;
        qc__proxy_record_latency(k, qc__proxy_now(P) - c->t_arrive);
        if (c->lr)
            qc__proxy_log_answer(c, c->lr->status, c->lr->sent - c->lr->head,
                                 u->t_sent > 0 ? qc__now() - u->t_sent : NAN);
        c->up = NULL;
    }
    qc__proxy_upstream_done(u, QC_LIMITER_OK);
    /* a link whose backend answered before the whole body was sent would
     * read the rest of it as a next request */
    if (clean && !(c && c->body_stream) && !P->draining && qc__proxy_backend_is_on(u->b)) {
        u->next_idle = u->b->idle;
        u->b->idle = u;
    } else {
        qc__proxy_upstream_close(u);
    }
    if (c) {
        c->state = C_READ;
        if (!c->keep || P->draining) {
            qc__proxy_client_close_after_write(c);
        } else {
            qc__proxy_client_idle(c);
            qc__proxy_client_process(c);
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
            qc__proxy_plog(P, QC_LOG_WARN, "backend %s: malformed response head (%s): 502", u->b->name, why);
            upstream_fail(u, 502);
            return;
        }
        if (rc == 0 && eof) {
            upstream_fail(u, 502);
            return;
        }
        if (h.status == 101) { /* no upgrade was asked for: see request_out */
            qc__proxy_plog(P, QC_LOG_WARN, "backend %s: 101 Switching Protocols to a request without Upgrade: 502",
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
    qc__proxy_backend_answered(u->b);
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
    if (c && c->body_stream)
        c->keep = 0; /* answered before its body was all sent: see body_pump */
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
    if (c && c->lr) {
        c->lr->status = h.status;
        c->lr->head = hn;
        c->lr->sent = 0;
    }
    u->phead = head; /* written with the body's first bytes (stream_out) */
    u->phn = hn;
    body_feed(u, b.data + h.head_len, b.len - h.head_len, eof);
    if (u->phn) /* no body bytes yet (a chunk not whole, reframed) */
        stream_out(u, NULL, 0);
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
                qc__proxy_upstream_close(u);
            return;
        }
        if (u->busy)
            upstream_fail(u, 502);
        else
            qc__proxy_upstream_close(u);
        return;
    }
    if (!u->busy) { /* bytes nobody asked for */
        qc__proxy_upstream_close(u);
        return;
    }
    if (u->rstate == R_HEAD && u->in.len == 0 && !(u->t_first > 0)) {
        u->t_first = qc__proxy_ready_time(u->P); /* the response's first byte */
        u->t_first_seen = qc__now();
        if (u->tok.carry == 1) /* its body is read: the slot is held again */
            qc__proxy_carry(u->P, &u->tok, 0);
    }
    if (u->rstate == R_BODY && !u->paused) /* the backend's silence is bounded */
        backend_deadline(u);
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
    uv_read_start((uv_stream_t *)&u->tcp, qc__proxy_alloc_cb, on_upstream_read);
    qc__proxy_body_pump(u);
}

/* ---- the request written in place --------------------------------------
 *
 * A request's bytes (c->req: its head, and its body when it was read
 * whole) go to the backend from the client's buffer, not through a copy
 * that --max-memory would not see: what the kernel does not take at once
 * is written by libuv from c->req itself, and the buffer is pinned
 * (reqpin) until those writes are called back. The client keeps the
 * buffer, so that a retry sends the same bytes again; a client that must
 * change it or go (its next request, its idle, its close) before they are
 * called back lets it go to them (qc__proxy_req_release), and the last
 * write frees it, counted in --max-memory until then.
 *
 * A request carried whole but large (a body read whole first: see
 * body_buffer in proxy_client.c) is whole at the backend once its write
 * is done, as a streamed body is once its last byte is sent: its time at
 * the backend starts there, not when its bytes were handed to libuv (8 MiB
 * take a while to go, and that is not the backend's load), and its slot
 * is lent to the next request until the response's first byte
 * (qc_front_carry: 40 concurrent 8 MiB uploads otherwise held the slots
 * while they moved and the rest passed their deadline waiting; the write
 * is done while the link's buffers still hold megabytes of it). Writes on a link end in order
 * and before its close callback, so u is still there. */
#define WHOLE_LARGE (256u << 10)
typedef struct sent_write {
    uv_write_t req;
    uconn *u;
    reqpin *pin;
    int large;
} sent_write;

static void pin_drop(reqpin *p)
{
    if (--p->refs)
        return;
    if (p->orphan) {
        free(p->data);
        atomic_fetch_sub(p->mem, p->cap);
    }
    free(p);
}

void qc__proxy_req_release(cconn *c)
{
    reqpin *p = c->pin;
    if (!p)
        return;
    c->pin = NULL;
    if (p->refs == 1) { /* no write out: the buffer stays c's */
        free(p);
        return;
    }
    /* the bytes go with the writes, still counted: c's count moves to p */
    p->orphan = 1;
    p->refs--;
    c->mem -= p->cap;
    c->req.data = NULL;
    c->req.len = c->req.cap = 0;
}

static void on_req_written(uv_write_t *req, int status)
{
    sent_write *w = (sent_write *)req;
    if (w->large && status == 0 && w->u->busy && !(w->u->t_sent > 0))
        w->u->t_sent = qc__now();
    pin_drop(w->pin);
    free(w);
}

/* Writes c->req to u's link: what the kernel takes now, and the rest
 * from c->req in place (pinned). *queued: a write was left to libuv. */
static int write_request(uconn *u, cconn *c, int large, int *queued)
{
    const char *p = c->req.data;
    size_t n = c->req.len;
    *queued = 0;
    if (u->link_up) { /* a connecting link takes no try_write */
        uv_buf_t t = uv_buf_init((char *)p, (unsigned)n);
        int k = uv_try_write((uv_stream_t *)&u->tcp, &t, 1);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        }
        if (n == 0)
            return 0;
    }
    if (!c->pin) {
        reqpin *pin = calloc(1, sizeof *pin);
        if (!pin)
            return QC_ENOMEM;
        pin->refs = 1;
        pin->data = c->req.data;
        pin->cap = c->req.cap;
        pin->mem = c->P->mem;
        c->pin = pin;
    }
    sent_write *w = malloc(sizeof *w);
    if (!w)
        return QC_ENOMEM;
    w->u = u;
    w->pin = c->pin;
    w->large = large;
    c->pin->refs++;
    uv_buf_t b = uv_buf_init((char *)p, (unsigned)n);
    if (uv_write(&w->req, (uv_stream_t *)&u->tcp, &b, 1, on_req_written) != 0) {
        c->pin->refs--;
        free(w);
        return QC_EIO;
    }
    *queued = 1;
    return 0;
}

/* Sends u's request to its backend (ON): connects a new link first. */
void qc__proxy_send_request(uconn *u)
{
    proxy *P = u->P;
    cconn *c = u->client;
    qc__fleet_sent(&P->fleet, u->b->index);
    u->placed = PLACED_SENT;
    u->t_admit = qc__proxy_now(P);
    u->t_first = 0;
    int large = !c->body_stream && c->req.len > WHOLE_LARGE;
    u->t_sent = c->body_stream || large ? 0 : qc__now(); /* a streamed body: once sent */
    if (c->lr)
        c->lr->backend = (int)u->b->index + 1;
    backend_deadline(u);
    if (!u->connected) {
        u->connected = 1;
        if (uv_tcp_connect(&u->connect, &u->tcp, (struct sockaddr *)&u->b->addr,
                           on_upstream_connect) != 0) {
            upstream_fail(u, 502);
            return;
        }
    }
    int queued;
    if (write_request(u, c, large, &queued) != 0) {
        upstream_fail(u, 502);
        return;
    }
    if (large && !queued)
        u->t_sent = qc__now(); /* the kernel took it all at once */
    else if (large) /* its slot is lent while the body moves (qc_front_carry) */
        qc__proxy_carry(P, &u->tok, 1);
    qc__proxy_body_pump(u); /* a kept link is up: the body can follow at once */
}

/* ---- streaming the request body -----------------------------------------
 *
 * A request whose body is not all there when its head is read goes on
 * with its head (admitted, queued or refused as any other), and its body
 * follows as it arrives: the bytes wait at the front of the client's read
 * buffer until the backend link is up (so that a failed connect can be
 * retried: nothing of the body is gone), and are then written to the
 * backend as they are read, framed by Content-Length or by chunked coding
 * (passed through verbatim; the framer finds the end). Backpressure:
 * while the backend's write queue holds more than WQ_HIGH bytes the client
 * is not read (client_flow), and reading resumes below WQ_LOW, so a body
 * costs the proxy about WQ_HIGH + IN_HIGH whatever its size; while the
 * request waits for a slot, at most IN_HIGH of its body is read ahead.
 * A request is sent again (see retry) only if no byte of its body was
 * sent. An answer given before the body was all sent (a refusal, an error,
 * or a backend that answered early) ends the client's connection after it,
 * and the backend link is not kept: the rest of the body is never read
 * as a request. A chunked body over --max-body (with an eighth for its
 * framing) is cut: 413 if no response has started, else the connection
 * closes. */

typedef struct uwrite {
    uv_write_t req;
    uconn *u;
    char *data;      /* the client's read buffer handed over, or inl */
    size_t counted;  /* its bytes in --max-memory's count until called back */
    atomic_size_t *mem;
    char inl[];
} uwrite;

/* A body write is out: the client may be read again (see client_flow).
 * A write is called back before its stream's close callback: u is there. */
static void on_body_written(uv_write_t *req, int status)
{
    uwrite *w = (uwrite *)req;
    uconn *u = w->u;
    atomic_fetch_sub(w->mem, w->counted);
    if (w->data != w->inl)
        free(w->data);
    free(w);
    cconn *c = u->client;
    if (status == 0 && !u->closing && c && c->up == u && c->rpaused && !c->closing)
        qc__proxy_client_process(c);
}

/* Writes the first take bytes of c->in to u's link and consumes them.
 * When they are all c->in holds (a body being streamed, most often),
 * the buffer itself goes to the write, no copy made, and its count in
 * --max-memory with it; else the bytes are copied out, and counted. */
static int body_write(uconn *u, cconn *c, size_t take)
{
    int whole = take == c->in.len;
    uwrite *w = malloc(sizeof *w + (whole ? 0 : take));
    if (!w)
        return QC_ENOMEM;
    w->u = u;
    w->mem = u->P->mem;
    if (whole) {
        w->data = c->in.data;
        w->counted = c->in.cap;
        c->mem -= c->in.cap; /* the count moves to the write */
        c->in.data = NULL;
        c->in.len = c->in.cap = 0;
    } else {
        w->data = w->inl;
        w->counted = take;
        memcpy(w->inl, c->in.data, take);
        atomic_fetch_add(w->mem, take);
        qc__buf_consume(&c->in, take);
    }
    uv_buf_t b = uv_buf_init(w->data, (unsigned)take);
    if (uv_write(&w->req, (uv_stream_t *)&u->tcp, &b, 1, on_body_written) != 0) {
        atomic_fetch_sub(w->mem, w->counted);
        if (w->data != w->inl)
            free(w->data);
        free(w);
        return QC_EIO;
    }
    return 0;
}

/* The body cannot be carried (malformed chunked framing: 400; over
 * --max-body: 413): the backend link is dropped, and the client answered
 * (or cut, once a response started) and closed. */
static void body_abort(uconn *u, int status)
{
    proxy *P = u->P;
    cconn *c = u->client;
    int started = u->head_sent;
    u->client = NULL;
    u->head_sent = 0;
    c->up = NULL;
    qc__proxy_upstream_done(u, QC_LIMITER_IGNORE); /* not the backend's doing */
    qc__proxy_upstream_close(u);
    if (started) {
        qc__proxy_client_close(c);
    } else if (status == 413) {
        qc__proxy_too_large(c);
    } else {
        P->bad_requests++;
        static const char body[] = "Bad Request: malformed chunked body\n";
        qc__proxy_client_reply(c, 400, "Bad Request", NULL, "text/plain", body, sizeof body - 1);
    }
}

/* u's client went away before its body was all sent: the backend would
 * wait for the rest until --backend-timeout, holding a slot; the link is
 * dropped and the slot given back at once. */
void qc__proxy_body_abandon(uconn *u)
{
    u->client = NULL;
    u->head_sent = 0;
    qc__proxy_upstream_done(u, QC_LIMITER_IGNORE);
    qc__proxy_upstream_close(u);
}

void qc__proxy_body_pump(uconn *u)
{
    cconn *c = u->client;
    if (!c || !c->body_stream || c->closing || u->closing || u->placed != PLACED_SENT ||
        !u->link_up || c->in.len == 0)
        return;
    proxy *P = u->P;
    size_t take = c->in.len;
    int done = 0;
    if (c->body_chunked) {
        const char *why;
        long k = qc__http_chunked_feed(&c->body_ch, c->in.data, c->in.len, &done, &why);
        if (k < 0) {
            body_abort(u, 400);
            return;
        }
        take = (size_t)k;
        if (c->body_sent + take > P->o->max_body + P->o->max_body / 8 + 64) {
            body_abort(u, 413);
            return;
        }
    } else {
        if ((uint64_t)take > c->body_left)
            take = (size_t)c->body_left;
        c->body_left -= take;
        done = c->body_left == 0;
    }
    if (take && body_write(u, c, take) != 0) {
        upstream_fail(u, 502);
        return;
    }
    c->body_sent += take;
    if (done) {
        c->body_stream = 0;
        u->t_sent = qc__now();
    }
}

/* Sends c's request to the backend the fleet's routing chooses; a retry
 * (avoid >= 0) to another than backend avoid where there is one, over a
 * new link. */
void qc__proxy_forward(cconn *c, uconn *tok_holder, int avoid)
{
    proxy *P = c->P;
    int unparked = 0;
    double now = qc__proxy_now(P), saved = 0;
    if (avoid >= 0) { /* routed as if avoid had just failed a connect */
        saved = P->fleet.b[avoid].down_until;
        P->fleet.b[avoid].down_until = INFINITY;
    }
    int i = qc__fleet_route(&P->fleet, now, &unparked);
    if (avoid >= 0)
        P->fleet.b[avoid].down_until = saved;
    if (i < 0) { /* nothing on and nothing may be unparked */
        qc__proxy_refuse(c);
        qc__proxy_done(P, &tok_holder->tok, NAN, QC_FRONT_IGNORE);
        return;
    }
    pbackend *b = &P->backend[i];
    uconn *u = qc__proxy_backend_is_on(b) && avoid < 0 ? b->idle : NULL;
    if (u) {
        b->idle = u->next_idle;
        u->reused = 1;
    } else {
        u = calloc(1, sizeof *u);
        if (!u) {
            P->errors502++;
            if (unparked)
                qc__proxy_unpark_start(b);
            qc__proxy_client_reply(c, 502, "Bad Gateway", NULL, "text/plain", "out of memory\n", 14);
            qc__proxy_done(P, &tok_holder->tok, NAN, QC_FRONT_IGNORE);
            return;
        }
        u->kind = K_UPSTREAM;
        u->P = P;
        u->handles_open = qc__conn_init(P->loop, &u->tcp, &u->timer, u);
        P->handles += 2;
        QC__LIST_PUSH_TAIL(P->ups_head, P->ups_tail, u, all_prev, all_next);
        u->connect.data = u;
    }
    u->tok = tok_holder->tok;
    u->cls = c->cls;
    u->head_method = c->head_method;
    u->t_admit = qc__proxy_now(P);
    u->t_arrive = c->t_arrive;
    u->busy = 1;
    u->client = c;
    u->in.len = 0;
    P->inflight++;
    c->up = u;
    c->state = C_UPSTREAM;
    qc__deadline_clear(&c->dl); /* the backend's timeout bounds it now */
    if (!c->dl.armed)
        uv_timer_stop(&c->timer);
    qc__proxy_place(u, i, unparked);
}
