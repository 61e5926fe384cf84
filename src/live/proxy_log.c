/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_log.c: the access log's records of `qctl proxy` (the writer is
 * accesslog.c).
 *
 * A record is taken from the request head when the request is read (the
 * request line, Referer, User-Agent: the head's buffer is reused after),
 * filled as the request goes (the front's decision in proxy.c's apply,
 * the backend's status and the bytes sent in proxy_upstream.c), and
 * written once, when the answer is complete: the backend's response at
 * its end, or an answer the proxy made itself (503, 502, 504, 400, 413),
 * or when its connection closes first (qc__proxy_log_gone): nginx's 499
 * when no answer had begun (the client left while its request waited or
 * was at the backend), else the backend's status with the bytes that
 * went out, as nginx logs a response cut short. So every request read
 * has its one line. */
#include "live/proxy_int.h"

/* s[0..n) into out (cut to cap - 1), its length in *len. */
static void keep(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
    *len = n < cap - 1 ? n : cap - 1;
    memcpy(out, s, *len);
    out[*len] = 0;
}

/* Lines dropped (the file takes them slower than they come, and the
 * buffers are full) are said at once, then at most every 10 s while it
 * lasts, with the count since the last warning. */
static void drops_warn(proxy *P, double now)
{
    uint64_t d = P->alog.dropped;
    if (d == P->alog_warned || (P->alog_warned && now - P->alog_warn_t < 10))
        return;
    qc__proxy_plog(P, QC_LOG_WARN,
                   "access log: %llu lines dropped (%llu in all): %s takes them slower than they "
                   "come and %zu bytes wait already",
                   (unsigned long long)(d - P->alog_warned), (unsigned long long)d,
                   P->alog.path[0] ? P->alog.path : "standard output", 2 * P->alog.cap);
    P->alog_warned = d;
    P->alog_warn_t = now;
}

void qc__proxy_log_head(cconn *c, const char *buf, const qc__http_head *h)
{
    if (!c->P->alog_on || c->admin)
        return;
    if (!c->lr && !(c->lr = malloc(sizeof *c->lr)))
        return;
    alog_rec *r = c->lr;
    memset(r, 0, sizeof *r);
    const char *eol = memchr(buf, '\r', h->head_len);
    const char *lf = memchr(buf, '\n', h->head_len);
    if (!eol || (lf && lf < eol))
        eol = lf;
    if (eol) {
        keep(r->request, sizeof r->request, &r->request_len, buf, (size_t)(eol - buf));
        r->has_request = 1;
    }
    size_t n;
    const char *v;
    if ((v = qc__http_header(buf, h, "Referer", &n)) != NULL) {
        keep(r->referer, sizeof r->referer, &r->referer_len, v, n);
        r->has_referer = 1;
    }
    if ((v = qc__http_header(buf, h, "User-Agent", &n)) != NULL) {
        keep(r->agent, sizeof r->agent, &r->agent_len, v, n);
        r->has_agent = 1;
    }
}

void qc__proxy_log_answer(cconn *c, int status, uint64_t body, double upstream_time)
{
    proxy *P = c->P;
    if (!P->alog_on || c->admin)
        return;
    alog_rec *r = c->lr;
    double now = qc__now();
    int admitted = r && r->decision && strcmp(r->decision, "admitted") == 0;
    qc__alog_entry e = {
        .peer = c->peer,
        .request = r && r->has_request ? r->request : NULL,
        .request_len = r ? r->request_len : 0,
        .referer = r && r->has_referer ? r->referer : NULL,
        .referer_len = r ? r->referer_len : 0,
        .agent = r && r->has_agent ? r->agent : NULL,
        .agent_len = r ? r->agent_len : 0,
        .status = status,
        .body_bytes = body,
        .cls = c->cls < P->ncls ? P->cls[c->cls].name : NULL,
        .decision = r && r->decision ? r->decision : "error",
        .queue_wait = admitted ? r->t_admit - c->t_arrive : NAN,
        .upstream_time = upstream_time,
        .request_time = c->t_arrive > 0 ? now - c->t_arrive : NAN,
        .backend = admitted && r->backend > 0 && (unsigned)r->backend <= P->nb
                       ? P->backend[r->backend - 1].name
                       : NULL,
        .request_id = c->reqid,
    };
    qc__alog_write(&P->alog, &e);
    drops_warn(P, now);
    if (r)
        memset(r, 0, sizeof *r); /* the next request on the connection starts anew */
}

void qc__proxy_log_gone(cconn *c)
{
    alog_rec *r = c->lr;
    if (!c->P->alog_on || c->admin || !r || !r->has_request)
        return; /* no log, or no request between its head and its answer */
    if (!r->decision)
        r->decision = c->state == C_QUEUED ? "waiting" : "none";
    double up = c->up && c->up->t_sent > 0 ? qc__now() - c->up->t_sent : NAN;
    if (r->status)
        qc__proxy_log_answer(c, r->status, r->sent > r->head ? r->sent - r->head : 0, up);
    else
        qc__proxy_log_answer(c, 499, 0, up);
}

void qc_proxy_reopen_logs(qc_proxy *P)
{
    if (P->alog_on)
        qc__alog_reopen(&P->alog);
    qc_proxy_group *g = P->g;
    if (g && P->index == 0) {
        pthread_mutex_lock(&g->mu);
        for (unsigned i = 1; i < g->n; i++)
            if (g->w[i].P && g->w[i].async) {
                g->w[i].reopen = 1;
                uv_async_send(g->w[i].async);
            }
        pthread_mutex_unlock(&g->mu);
    }
}
