/* SPDX-License-Identifier: GPL-3.0-or-later */
/* forwarded.c: the headers a reverse proxy adds so that its backends see
 * the client: X-Forwarded-For, X-Forwarded-Proto, Forwarded (RFC 7239)
 * and X-Request-Id, each switched on by its own flag.
 *
 * The idea: a hop appends itself to what earlier hops said and never
 * trusts or parses it beyond copying it. X-Forwarded-For and Forwarded
 * keep every value the request came with, in order, and add this
 * client's element last (nginx's $proxy_add_x_forwarded_for, RFC 7239
 * section 4); X-Forwarded-Proto says the scheme this hop was reached
 * by, replacing any value sent; X-Request-Id is kept when the client's
 * is a plain token (1 to 128 of [A-Za-z0-9._-], so that it cannot
 * inject anything into a backend's log) and generated otherwise (128
 * random bits, 32 hex digits). The bytes copied are bounded by the
 * request head, whose size the proxy already bounds; the one thing
 * parsed, the request id, is checked character by character up to 128,
 * with no recursion and no allocation but the request's buffer. */
#include <sys/random.h>

#include "live/forwarded.h"

int qc__fwd_is_header(const qc__fwd *f, const char *name, size_t n)
{
    return (f->xff && n == 15 && strncasecmp(name, "X-Forwarded-For", 15) == 0) ||
           (f->xfp && n == 17 && strncasecmp(name, "X-Forwarded-Proto", 17) == 0) ||
           (f->forwarded && n == 9 && strncasecmp(name, "Forwarded", 9) == 0) ||
           (f->request_id && n == 12 && strncasecmp(name, "X-Request-Id", 12) == 0);
}

int qc__fwd_request_id_ok(const char *v, size_t n)
{
    if (n == 0 || n > QC_FWD_ID_MAX)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = v[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '-'))
            return 0;
    }
    return 1;
}

void qc__fwd_request_id_new(char out[33])
{
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = getrandom(r + got, sizeof r - got, GRND_NONBLOCK);
        if (k <= 0) { /* no entropy yet: the clock and a counter, unique enough for a log */
            static uint64_t seq;
            uint64_t t = (uint64_t)(qc__now() * 1e9) ^ (++seq << 40);
            memcpy(r, &t, sizeof t);
            memcpy(r + 8, &seq, sizeof seq);
            break;
        }
        got += (size_t)k;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(out + 2 * i, 3, "%02x", r[i]);
}

/* Appends the values of every header named name (n bytes) of the head
 * in buf, joined by ", " (their order kept), then `add`. */
static int join(qc__buf *out, const char *buf, const qc__http_head *h, const char *name, size_t n,
                const char *add)
{
    int first = 1;
    for (unsigned i = 0; i < h->nhdr; i++) {
        if (h->name[i].len != n || strncasecmp(buf + h->name[i].off, name, n) != 0 ||
            h->value[i].len == 0)
            continue;
        if ((!first && qc__buf_append(out, ", ", 2) != 0) ||
            qc__buf_append(out, buf + h->value[i].off, h->value[i].len) != 0)
            return -1;
        first = 0;
    }
    if (!first && qc__buf_append(out, ", ", 2) != 0)
        return -1;
    return qc__buf_append(out, add, strlen(add));
}

int qc__fwd_append(const qc__fwd *f, qc__buf *out, const char *buf, const qc__http_head *h,
                   const char *peer, int tls, char id[QC_FWD_ID_MAX + 1])
{
    const char *proto = tls ? "https" : "http";
    if (f->xff && (qc__buf_append(out, "X-Forwarded-For: ", 17) != 0 ||
                   join(out, buf, h, "X-Forwarded-For", 15, peer) != 0 ||
                   qc__buf_append(out, "\r\n", 2) != 0))
        return -1;
    if (f->xfp && (qc__buf_append(out, "X-Forwarded-Proto: ", 19) != 0 ||
                   qc__buf_append(out, proto, strlen(proto)) != 0 ||
                   qc__buf_append(out, "\r\n", 2) != 0))
        return -1;
    if (f->forwarded) {
        /* for=: an IPv6 address is quoted and bracketed (RFC 7239 6) */
        char el[128];
        int v6 = strchr(peer, ':') != NULL;
        snprintf(el, sizeof el, "for=%s%s%s;proto=%s", v6 ? "\"[" : "", peer, v6 ? "]\"" : "",
                 proto);
        if (qc__buf_append(out, "Forwarded: ", 11) != 0 ||
            join(out, buf, h, "Forwarded", 9, el) != 0 || qc__buf_append(out, "\r\n", 2) != 0)
            return -1;
    }
    if (f->request_id) {
        size_t n;
        const char *v = qc__http_header(buf, h, "X-Request-Id", &n);
        if (v && qc__fwd_request_id_ok(v, n)) {
            memcpy(id, v, n);
            id[n] = 0;
        } else {
            qc__fwd_request_id_new(id);
        }
        if (qc__buf_append(out, "X-Request-Id: ", 14) != 0 ||
            qc__buf_append(out, id, strlen(id)) != 0 || qc__buf_append(out, "\r\n", 2) != 0)
            return -1;
    }
    return 0;
}
