/* SPDX-License-Identifier: GPL-3.0-or-later */
/* net.c: the small pieces the live programs share: a byte buffer, address
 * parsing (IPv4, [IPv6] and names, resolved once), copying writes and the clock. The buffer grows by doubling and
 * is compacted on consume, so a connection's steady state allocates
 * nothing once its buffer has reached the size of its largest message. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "live/live.h"

int qc__buf_append(qc__buf *b, const char *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        char *d = realloc(b->data, cap);
        if (!d)
            return QC_ENOMEM;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

void qc__buf_consume(qc__buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void qc__buf_free(qc__buf *b)
{
    free(b->data);
    *b = (qc__buf){0};
}

/* Splits "HOST:PORT", "[V6]:PORT" into host and port; 0 or QC_EINVAL. */
static int addr_split(const char *s, char *host, size_t hostsz, int *bracketed, long *port,
                      qc_err *err)
{
    const char *h = s, *hend, *colon;
    *bracketed = s[0] == '[';
    if (*bracketed) {
        h = s + 1;
        hend = strchr(h, ']');
        if (!hend || hend[1] != ':')
            return qc_err_set(err, QC_EINVAL, "'%s' is not [IPv6]:PORT", s);
        colon = hend + 1;
    } else {
        colon = strrchr(s, ':');
        if (!colon)
            return qc_err_set(err, QC_EINVAL, "'%s' is not HOST:PORT", s);
        if (memchr(s, ':', (size_t)(colon - s)))
            return qc_err_set(err, QC_EINVAL,
                              "'%s': an IPv6 address goes in brackets, as [::1]:8080", s);
        hend = colon;
    }
    if (hend == h || (size_t)(hend - h) >= hostsz)
        return qc_err_set(err, QC_EINVAL, "'%s' is not HOST:PORT", s);
    memcpy(host, h, (size_t)(hend - h));
    host[hend - h] = 0;
    const char *p = colon + 1;
    *port = 0;
    if (!*p)
        return qc_err_set(err, QC_EINVAL, "'%s': bad port", s);
    for (; *p; p++) {
        if (*p < '0' || *p > '9' || (*port = *port * 10 + (*p - '0')) > 65535)
            return qc_err_set(err, QC_EINVAL, "'%s': bad port (0..65535)", s);
    }
    return 0;
}

int qc__addr_parse(const char *s, struct sockaddr_storage *addr, qc_err *err)
{
    char host[256];
    int bracketed;
    long port;
    int rc = addr_split(s, host, sizeof host, &bracketed, &port, err);
    if (rc)
        return rc;
    memset(addr, 0, sizeof *addr);
    struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;
    if (!bracketed && uv_ip4_addr(host, (int)port, a4) == 0)
        return 0;
    if (bracketed) {
        if (uv_ip6_addr(host, (int)port, a6) != 0)
            return qc_err_set(err, QC_EINVAL, "'%s': bad IPv6 address '%s'", s, host);
        return 0;
    }
    /* a name: resolved here, once, before any event loop runs (getaddrinfo
     * blocks); the first answer is taken, in the system's preference order */
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int g = getaddrinfo(host, NULL, &hints, &res);
    if (g != 0)
        return qc_err_set(err, QC_EINVAL, "'%s': cannot resolve '%s': %s", s, host,
                          gai_strerror(g));
    const struct addrinfo *r = res;
    while (r && r->ai_family != AF_INET && r->ai_family != AF_INET6)
        r = r->ai_next;
    if (!r) {
        freeaddrinfo(res);
        return qc_err_set(err, QC_EINVAL, "'%s': '%s' has no IPv4 or IPv6 address", s, host);
    }
    memcpy(addr, r->ai_addr, r->ai_addrlen);
    freeaddrinfo(res);
    if (addr->ss_family == AF_INET)
        a4->sin_port = htons((uint16_t)port);
    else
        a6->sin6_port = htons((uint16_t)port);
    return 0;
}

int qc__addr_is_loopback(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)addr)->sin_addr.s_addr) >> 24) == 127;
    if (addr->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)addr)->sin6_addr;
        if (IN6_IS_ADDR_LOOPBACK(a))
            return 1;
        /* ::ffff:127.x.y.z, an IPv4 loopback address in IPv6 clothes */
        return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
    }
    return 0;
}

int qc__addr_clash(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
    int port = qc__addr_port(a);
    if (port == 0 || port != qc__addr_port(b) || a->ss_family != b->ss_family)
        return 0;
    if (a->ss_family == AF_INET) {
        in_addr_t x = ((const struct sockaddr_in *)a)->sin_addr.s_addr;
        in_addr_t y = ((const struct sockaddr_in *)b)->sin_addr.s_addr;
        return x == y || x == htonl(INADDR_ANY) || y == htonl(INADDR_ANY);
    }
    if (a->ss_family == AF_INET6) {
        const struct in6_addr *x = &((const struct sockaddr_in6 *)a)->sin6_addr;
        const struct in6_addr *y = &((const struct sockaddr_in6 *)b)->sin6_addr;
        return IN6_ARE_ADDR_EQUAL(x, y) || IN6_IS_ADDR_UNSPECIFIED(x) ||
               IN6_IS_ADDR_UNSPECIFIED(y);
    }
    return 0;
}

int qc__addr_port(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET6)
        return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
    return ntohs(((const struct sockaddr_in *)addr)->sin_port);
}

void qc__addr_host(const struct sockaddr_storage *addr, char *host, size_t n)
{
    if (addr->ss_family == AF_INET6)
        uv_ip6_name((const struct sockaddr_in6 *)addr, host, n);
    else
        uv_ip4_name((const struct sockaddr_in *)addr, host, n);
}

unsigned qc__addr_len(const struct sockaddr_storage *addr)
{
    return addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
}

typedef struct wreq {
    uv_write_t req;
    char data[];
} wreq;

static void on_written(uv_write_t *req, int status)
{
    (void)status;
    free(req);
}

/* The bytes the socket takes at once are written without a copy or a
 * request (libuv's queued path would also stop its write watcher once
 * its queue empties: an epoll_ctl per write); the rest, or all of it
 * while earlier writes are queued or on an error (which the callback
 * then sees, as before), is copied and queued. */
int qc__write_copy(uv_stream_t *stream, const char *p, size_t n)
{
    uv_buf_t t = uv_buf_init((char *)p, (unsigned)n);
    int k = uv_try_write(stream, &t, 1);
    if (k > 0) {
        if ((size_t)k == n)
            return 0;
        p += k;
        n -= (size_t)k;
    }
    wreq *w = malloc(sizeof *w + n);
    if (!w)
        return QC_ENOMEM;
    memcpy(w->data, p, n);
    uv_buf_t b = uv_buf_init(w->data, (unsigned)n);
    if (uv_write(&w->req, stream, &b, 1, on_written) != 0) {
        free(w);
        return QC_EIO;
    }
    return 0;
}

typedef struct sreq {
    uv_shutdown_t req;
    void (*then)(void *);
    void *arg;
} sreq;

static void on_shut(uv_shutdown_t *req, int status)
{
    (void)status;
    sreq *s = (sreq *)req;
    s->then(s->arg);
    free(s);
}

void qc__close_after_write(uv_stream_t *stream, void (*close)(void *), void *arg)
{
    uv_read_stop(stream);
    sreq *s = malloc(sizeof *s);
    if (s) {
        s->then = close;
        s->arg = arg;
    }
    if (!s || uv_shutdown(&s->req, stream, on_shut) != 0) {
        free(s);
        close(arg);
    }
}

double qc__now(void)
{
    return (double)uv_hrtime() * 1e-9;
}

static void deadline_arm(qc__deadline *d, uv_timer_t *t, uv_timer_cb cb, uint64_t now,
                         uint64_t step)
{
    uint64_t at = d->due - now < step ? d->due : now + step;
    d->armed = at ? at : 1;
    uv_timer_start(t, cb, at - now, 0);
}

void qc__deadline_set(qc__deadline *d, uv_timer_t *t, uv_timer_cb cb, uint64_t ms, uint64_t step)
{
    uint64_t now = uv_now(t->loop);
    d->due = now + ms;
    /* the timer as it is (another may have started it since with the same
     * callback): when it fires first, it finds the deadline where it is */
    if (d->armed && uv_is_active((uv_handle_t *)t) && now + uv_timer_get_due_in(t) <= d->due)
        return;
    deadline_arm(d, t, cb, now, step ? step : 1);
}

void qc__deadline_clear(qc__deadline *d)
{
    d->due = UINT64_MAX;
}

void qc__deadline_drop(qc__deadline *d)
{
    d->armed = 0;
}

int qc__deadline_due(qc__deadline *d, uv_timer_t *t, uv_timer_cb cb, uint64_t step)
{
    if (!d->armed)
        return 1;
    uint64_t now = uv_now(t->loop);
    if (now >= d->due) {
        d->armed = 0;
        return 1;
    }
    if (d->due == UINT64_MAX) {
        d->armed = 0;
        return 0;
    }
    deadline_arm(d, t, cb, now, step ? step : 1);
    return 0;
}

int qc__listen(uv_loop_t *loop, uv_tcp_t *t, void *data, const char *where,
               const char *port_file, uv_connection_cb cb, qc_err *err)
{
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(where, &addr, err);
    if (rc)
        return rc;
    uv_tcp_init(loop, t);
    t->data = data;
    if ((rc = uv_tcp_bind(t, (struct sockaddr *)&addr, 0)) != 0 ||
        (rc = uv_listen((uv_stream_t *)t, 1024, cb)) != 0)
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(rc));
    if (port_file)
        return qc__write_port(t, port_file, err);
    return 0;
}

int qc__port_file_write(const char *path, int port, qc_err *err)
{
    if (strcmp(path, "-") == 0) { /* standard output: the port on a line */
        printf("%d\n", port);
        return fflush(stdout) == 0 ? 0 : qc_err_set(err, QC_EIO, "standard output: cannot write");
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return qc_err_set(err, QC_EIO, "%s: cannot write", tmp);
    fprintf(f, "%d\n", port);
    if (fclose(f) != 0 || rename(tmp, path) != 0)
        return qc_err_set(err, QC_EIO, "%s: cannot write", path);
    return 0;
}

int qc__write_port(uv_tcp_t *tcp, const char *path, qc_err *err)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getsockname(tcp, (struct sockaddr *)&ss, &len) != 0)
        return qc_err_set(err, QC_EIO, "cannot read the bound address");
    return qc__port_file_write(path, qc__addr_port(&ss), err);
}

int qc__conn_init(uv_loop_t *loop, uv_tcp_t *tcp, uv_timer_t *timer, void *owner)
{
    uv_tcp_init(loop, tcp);
    uv_timer_init(loop, timer);
    tcp->data = timer->data = owner;
    return 2;
}

int qc__series_open(FILE **f, const char *path, qc_err *err)
{
    if (strcmp(path, "-") == 0) { /* standard output, on a copy of 1 (closed as a file) */
        fflush(stdout);
        int fd = dup(1);
        *f = fd < 0 ? NULL : fdopen(fd, "w");
        if (!*f && fd >= 0)
            close(fd);
        if (*f)
            setvbuf(*f, NULL, _IOLBF, 0); /* a row at a time, for a reader at the pipe */
        return *f ? 0 : qc_err_set(err, QC_EIO, "--series: standard output: cannot write");
    }
    *f = fopen(path, "w");
    return *f ? 0 : qc_err_set(err, QC_EIO, "--series: %s: cannot write", path);
}

int qc__http_request_head(const qc__buf *in, qc__http_head *h, const char **why)
{
    *why = "malformed request";
    return qc__http_parse_head(in->data, in->len, 1, h, why);
}

#ifndef SO_REUSEPORT
#define SO_REUSEPORT 15 /* Linux's, hidden by the strict C11 headers */
#endif

int qc__bind_reuseport(uv_tcp_t *t, const struct sockaddr_storage *addr, const char *where,
                       qc_err *err)
{
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1, rc;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0 ||
        bind(fd, (const struct sockaddr *)addr, qc__addr_len(addr)) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(-e));
    }
    if ((rc = uv_tcp_open(t, fd)) != 0) {
        close(fd);
        return qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(rc));
    }
    return 0;
}

/* Without SO_REUSEPORT: a port another program listens on is refused
 * here as by a one-worker start (a start of N workers could join a
 * port held by N others of the same user; --check does not count on it). */
int qc__bind_probe(const char *where, qc_err *err)
{
    struct sockaddr_storage addr;
    int rc = qc__addr_parse(where, &addr, err);
    if (rc)
        return rc;
    int fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1, e = 0;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (const struct sockaddr *)&addr, qc__addr_len(&addr)) != 0 || listen(fd, 1) != 0)
        e = errno;
    if (fd >= 0)
        close(fd);
    return e ? qc_err_set(err, QC_EIO, "%s: %s", where, uv_strerror(-e)) : 0;
}
