/* SPDX-License-Identifier: GPL-3.0-or-later */
/* accesslog.c: the proxy's access log, written off the event loop with
 * bounded memory.
 *
 * The idea is double buffering with one write in flight: lines are
 * appended to the buffer filling; when no write is in flight that buffer
 * is handed to libuv's thread pool (uv_fs_write) and the other one starts
 * filling. A slow disk therefore never blocks the loop, and what it costs
 * is bounded: a line that does not fit in the buffer filling is dropped
 * and counted (qctl_access_log_lines_total{result="dropped"}), never
 * queued without end. The file is opened with O_APPEND, so a file
 * truncated under the proxy (logrotate's copytruncate) is written from
 * its start rather than past a hole; SIGUSR1 reopens the path (logrotate's
 * create), after the write in flight, the lines meanwhile kept in the
 * buffer. The formats: nginx's `combined`
 *   $remote_addr - - [$time_local] "$request" $status $body_bytes_sent
 *   "$http_referer" "$http_user_agent"
 * with nginx's escaping of '"', '\' and bytes outside printable ASCII as
 * \xHH, and one JSON object per line with the class, the limiter's
 * decision, the queue wait, the upstream time and the backend. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "live/accesslog.h"

static int open_path(const char *path)
{
    return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

int qc__alog_open(qc__alog *a, uv_loop_t *loop, const char *path, int format, size_t buffer,
                  qc_err *err)
{
    memset(a, 0, sizeof *a);
    a->cap = buffer ? buffer : QC_ALOG_BUFFER;
    a->loop = loop;
    a->format = format;
    a->fd = -1;
    if (strcmp(path, "-") == 0) {
        a->fd = 1;
    } else {
        snprintf(a->path, sizeof a->path, "%s", path);
        if ((a->fd = open_path(path)) < 0)
            return qc_err_set(err, QC_EIO, "--access-log: %s: cannot open for appending", path);
    }
    a->buf[0] = malloc(a->cap);
    a->buf[1] = malloc(a->cap);
    if (!a->buf[0] || !a->buf[1]) {
        qc__alog_close(a);
        return qc_err_set(err, QC_ENOMEM, "--access-log: out of memory");
    }
    return 0;
}

static void start_write(qc__alog *a);

static void do_reopen(qc__alog *a)
{
    a->reopen = 0;
    if (!a->path[0])
        return;
    int fd = open_path(a->path);
    if (fd < 0) { /* keep writing where it was: nothing is lost */
        a->write_errors++;
        return;
    }
    close(a->fd);
    a->fd = fd;
    a->reopens++;
}

static void on_written(uv_fs_t *req)
{
    qc__alog *a = req->data;
    ssize_t r = req->result;
    uv_fs_req_cleanup(req);
    int w = !a->cur;
    if (r > 0 && a->woff + (size_t)r < a->len[w]) { /* short: the rest */
        a->woff += (size_t)r;
        uv_buf_t b = uv_buf_init(a->buf[w] + a->woff, (unsigned)(a->len[w] - a->woff));
        a->req.data = a;
        if (uv_fs_write(a->loop, &a->req, a->fd, &b, 1, -1, on_written) == 0)
            return;
    }
    if (r < 0)
        a->write_errors++;
    a->len[w] = 0;
    a->writing = 0;
    if (a->reopen)
        do_reopen(a);
    start_write(a);
    if (!a->writing && a->idle) {
        void (*idle)(void *) = a->idle;
        a->idle = NULL;
        idle(a->idle_arg);
    }
}

static void start_write(qc__alog *a)
{
    if (a->writing || a->len[a->cur] == 0 || a->fd < 0)
        return;
    int w = a->cur;
    a->cur = !a->cur;
    a->woff = 0;
    a->writing = 1;
    a->req.data = a;
    uv_buf_t b = uv_buf_init(a->buf[w], (unsigned)a->len[w]);
    if (uv_fs_write(a->loop, &a->req, a->fd, &b, 1, -1, on_written) != 0) {
        a->write_errors++;
        a->len[w] = 0;
        a->writing = 0;
    }
}

void qc__alog_reopen(qc__alog *a)
{
    if (a->writing)
        a->reopen = 1;
    else
        do_reopen(a);
}

/* Appends s[0..n) to out escaped as nginx escapes a logged variable:
 * '"', '\\' and bytes outside 0x20..0x7e as \xHH. */
static size_t esc_nginx(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 4 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\' || ch < 0x20 || ch > 0x7e)
            k += (size_t)snprintf(out + k, cap - k, "\\x%02X", ch);
        else
            out[k++] = (char)ch;
    }
    out[k] = 0;
    return k;
}

/* s[0..n) as a JSON string's contents (bytes above 0x7e as \u00XX: the
 * line stays valid JSON whatever the client sent). */
static size_t esc_json(char *out, size_t cap, const char *s, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 7 < cap; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            out[k++] = '\\';
            out[k++] = (char)ch;
        } else if (ch < 0x20 || ch > 0x7e) {
            k += (size_t)snprintf(out + k, cap - k, "\\u%04x", ch);
        } else {
            out[k++] = (char)ch;
        }
    }
    out[k] = 0;
    return k;
}

/* A number in JSON: null for a value that is not one. */
static void json_num(char *out, size_t cap, double v)
{
    if (isfinite(v))
        snprintf(out, cap, "%.6f", v);
    else
        snprintf(out, cap, "null");
}

void qc__alog_write(qc__alog *a, const qc__alog_entry *e)
{
    char line[4096], req[1536], ref[768], ua[768], id[300];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    const char *r = e->request ? e->request : "-";
    size_t rn = e->request ? e->request_len : 1;
    int n;
    if (a->format == QC_ALOG_COMBINED) {
        char t[64];
        strftime(t, sizeof t, "%d/%b/%Y:%H:%M:%S %z", &tm);
        esc_nginx(req, sizeof req, r, rn);
        esc_nginx(ref, sizeof ref, e->referer ? e->referer : "-", e->referer ? e->referer_len : 1);
        esc_nginx(ua, sizeof ua, e->agent ? e->agent : "-", e->agent ? e->agent_len : 1);
        n = snprintf(line, sizeof line, "%s - - [%s] \"%s\" %d %llu \"%s\" \"%s\"\n",
                     e->peer ? e->peer : "-", t, req, e->status,
                     (unsigned long long)e->body_bytes, ref, ua);
    } else {
        char t[64], w[32], up[32], rt[32], be[160];
        struct tm g;
        gmtime_r(&now, &g);
        strftime(t, sizeof t, "%Y-%m-%dT%H:%M:%SZ", &g);
        esc_json(req, sizeof req, r, rn);
        esc_json(ref, sizeof ref, e->referer ? e->referer : "", e->referer ? e->referer_len : 0);
        esc_json(ua, sizeof ua, e->agent ? e->agent : "", e->agent ? e->agent_len : 0);
        esc_json(id, sizeof id, e->request_id ? e->request_id : "",
                 e->request_id ? strlen(e->request_id) : 0);
        esc_json(be, sizeof be, e->backend ? e->backend : "", e->backend ? strlen(e->backend) : 0);
        json_num(w, sizeof w, e->queue_wait);
        json_num(up, sizeof up, e->upstream_time);
        json_num(rt, sizeof rt, e->request_time);
        n = snprintf(line, sizeof line,
                     "{\"time\":\"%s\",\"remote_addr\":\"%s\",\"request\":\"%s\",\"status\":%d,"
                     "\"body_bytes_sent\":%llu,\"referer\":\"%s\",\"user_agent\":\"%s\","
                     "\"class\":\"%s\",\"decision\":\"%s\",\"queue_wait\":%s,"
                     "\"upstream_time\":%s,\"request_time\":%s,\"backend\":%s%s%s,"
                     "\"request_id\":%s%s%s}\n",
                     t, e->peer ? e->peer : "", req, e->status,
                     (unsigned long long)e->body_bytes, ref, ua, e->cls ? e->cls : "",
                     e->decision ? e->decision : "", w, up, rt, e->backend ? "\"" : "",
                     e->backend ? be : "null", e->backend ? "\"" : "",
                     id[0] ? "\"" : "", id[0] ? id : "null", id[0] ? "\"" : "");
    }
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line) { /* cut: still one line */
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    if (a->len[a->cur] + (size_t)n > a->cap) {
        a->dropped++;
        return;
    }
    memcpy(a->buf[a->cur] + a->len[a->cur], line, (size_t)n);
    a->len[a->cur] += (size_t)n;
    a->lines++;
    start_write(a);
}

void qc__alog_close(qc__alog *a)
{
    for (int i = 0; i < 2 && a->fd >= 0; i++) { /* the one not written, then the other */
        int b = i == 0 ? !a->cur : a->cur;
        size_t off = b == !a->cur ? a->woff : 0;
        if (a->writing && b == !a->cur)
            continue; /* the loop ran it to its end: see the contract */
        while (a->buf[b] && off < a->len[b]) {
            ssize_t k = write(a->fd, a->buf[b] + off, a->len[b] - off);
            if (k <= 0)
                break;
            off += (size_t)k;
        }
    }
    if (a->fd > 2)
        close(a->fd);
    a->fd = -1;
    free(a->buf[0]);
    free(a->buf[1]);
    a->buf[0] = a->buf[1] = NULL;
}
