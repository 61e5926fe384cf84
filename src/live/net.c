/* SPDX-License-Identifier: GPL-3.0-or-later */
/* net.c: the small pieces the live programs share: a byte buffer, address
 * parsing, copying writes and the clock. The buffer grows by doubling and
 * is compacted on consume, so a connection's steady state allocates
 * nothing once its buffer has reached the size of its largest message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int qc__addr_parse(const char *s, struct sockaddr_in *addr, qc_err *err)
{
    const char *colon = strrchr(s, ':');
    char host[64];
    if (!colon || (size_t)(colon - s) >= sizeof host || colon == s)
        return qc_err_set(err, QC_EINVAL, "'%s' is not HOST:PORT", s);
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = 0;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (colon[1] == 0 || *end || port < 0 || port > 65535)
        return qc_err_set(err, QC_EINVAL, "'%s': bad port", s);
    if (uv_ip4_addr(host, (int)port, addr) != 0)
        return qc_err_set(err, QC_EINVAL, "'%s': bad IPv4 address '%s'", s, host);
    return 0;
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

int qc__write_copy(uv_stream_t *stream, const char *p, size_t n)
{
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

int qc__write_port(uv_tcp_t *tcp, const char *path, qc_err *err)
{
    struct sockaddr_storage ss;
    int len = sizeof ss;
    if (uv_tcp_getsockname(tcp, (struct sockaddr *)&ss, &len) != 0)
        return qc_err_set(err, QC_EIO, "cannot read the bound address");
    int port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
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
