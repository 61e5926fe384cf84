/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sensor.c: the gate's measurements from outside the data path (see
 * sensor.h): a program, an HTTP metric, or a followed log file.
 *
 * A CMD or URL sample is a "job" with its own handles (process and pipe,
 * or TCP connection, and a timer for its deadline), allocated when it
 * starts and freed by the last of its close callbacks. A job is answered
 * once: by its result, or by its deadline, after which whatever it still
 * does (a program being killed, a connection being closed) only closes
 * handles. So a late program never answers for the next interval, and a
 * sample's memory never outlives its handles (libuv's ownership rule). */
#include "live/sensor.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/live.h"
#include "live/remote.h"

#define CMD_OUT_MAX 4096
#define URL_ANSWER_MAX (1u << 20)
#define LOG_LINE_MAX 4096
#define LOG_READ_MAX ((off_t)64 << 20)
#define ARGS_MAX 64

struct job;

struct qc__sensor {
    uv_loop_t *loop;
    qc__sensor_kind kind;
    qc__sensor_cb cb;
    void *ctx;
    double scale;
    int closing, mute;
    unsigned jobs_open;
    struct job *cur;
    unsigned long long samples, failed;
    const char *why;
    /* CMD */
    char *cmdline;
    char *argv[ARGS_MAX + 1];
    /* URL */
    struct sockaddr_storage addr;
    char *request;
    size_t request_len;
    const char *metric;
    /* LOG */
    const char *path;
    regex_t re;
    int re_ok, has_group;
    int fd;
    dev_t dev;
    ino_t ino;
    off_t off;
    char line[LOG_LINE_MAX + 1];
    size_t line_len;
    /* HAPROXY, PGBOUNCER */
    qc__remote_probe probe;
    qc__remote_fields fields;
    qc__remote_job *rjob;
    char why_buf[256];
};

typedef struct job {
    qc__sensor *S;
    int answered;
    unsigned handles;
    uv_timer_t timer;
    /* CMD */
    uv_process_t proc;
    uv_pipe_t out;
    int exited, eof;
    int64_t status;
    int term;
    /* URL */
    uv_tcp_t tcp;
    uv_connect_t conn;
    uv_write_t wr;
    /* output read so far (CMD: 4 KiB; URL: 1 MiB) */
    char *buf;
    size_t len, cap;
    int overflow;
} job;

qc__sensor_kind qc__sensor_kind_of(const qc__sensor_params *o)
{
    if (o->remote)
        return strncmp(o->remote, "pgbouncer:", 10) == 0 ? QC__SENSOR_PGBOUNCER
                                                          : QC__SENSOR_HAPROXY;
    return o->cmd ? QC__SENSOR_CMD : o->url ? QC__SENSOR_URL : o->log ? QC__SENSOR_LOG
                                                                      : QC__SENSOR_NONE;
}

/* ---- numbers ------------------------------------------------------------ */

static int num_at(const char *p, size_t n, double *v)
{
    char tmp[64];
    size_t k = n < sizeof tmp - 1 ? n : sizeof tmp - 1;
    memcpy(tmp, p, k);
    tmp[k] = 0;
    char *end;
    errno = 0;
    double x = strtod(tmp, &end);
    if (end == tmp || !isfinite(x) || errno == ERANGE)
        return 0;
    *v = x;
    return 1;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

int qc__first_number(const char *p, size_t n, double *v)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        int starts = is_digit(c);
        if (!starts && (c == '-' || c == '+' || c == '.') && i + 1 < n)
            starts = is_digit(p[i + 1]) ||
                     (c != '.' && p[i + 1] == '.' && i + 2 < n && is_digit(p[i + 2]));
        if (starts)
            return num_at(p + i, n - i, v);
    }
    return 0;
}

int qc__prom_metric(const char *p, size_t n, const char *name, double *v)
{
    size_t nl = strlen(name);
    int with_labels = strchr(name, '{') != NULL;
    size_t i = 0;
    while (i < n) {
        size_t e = i;
        while (e < n && p[e] != '\n')
            e++;
        size_t a = i;
        while (a < e && (p[a] == ' ' || p[a] == '\t'))
            a++;
        if (a < e && p[a] != '#' && e - a > nl && memcmp(p + a, name, nl) == 0) {
            size_t k = a + nl;
            int ok = p[k] == ' ' || p[k] == '\t' || (!with_labels && p[k] == '{');
            if (ok && p[k] == '{') { /* skip the labels, quotes respected */
                int q = 0;
                for (k++; k < e; k++) {
                    if (q && p[k] == '\\')
                        k++;
                    else if (p[k] == '"')
                        q = !q;
                    else if (!q && p[k] == '}')
                        break;
                }
                ok = k < e;
                k++;
            }
            if (ok) {
                while (k < e && (p[k] == ' ' || p[k] == '\t'))
                    k++;
                return k < e && num_at(p + k, e - k, v);
            }
        }
        i = e + 1;
    }
    return 0;
}

/* ---- answering ---------------------------------------------------------- */

static void answer(qc__sensor *S, int ok, double v, const char *why)
{
    S->samples++;
    if (!ok) {
        S->failed++;
        S->why = why;
    }
    if (!S->closing && !S->mute)
        S->cb(S->ctx, ok, ok ? v * S->scale : 0);
}

static void sensor_free(qc__sensor *S)
{
    free(S->cmdline);
    free(S->request);
    if (S->re_ok)
        regfree(&S->re);
    if (S->fd >= 0)
        close(S->fd);
    free(S);
}

static void job_closed(uv_handle_t *h)
{
    job *j = h->data;
    if (--j->handles > 0)
        return;
    qc__sensor *S = j->S;
    free(j->buf);
    free(j);
    if (--S->jobs_open == 0 && S->closing)
        sensor_free(S);
}

static void job_close(job *j, uv_handle_t *h)
{
    (void)j;
    if (!uv_is_closing(h))
        uv_close(h, job_closed);
}

/* Answers j (once) and closes what it no longer needs; a program still
 * running is killed (its exit closes the process handle). */
static void job_answer(job *j, int ok, double v, const char *why)
{
    if (j->answered)
        return;
    j->answered = 1;
    qc__sensor *S = j->S;
    if (S->cur == j)
        S->cur = NULL;
    job_close(j, (uv_handle_t *)&j->timer);
    if (S->kind == QC__SENSOR_CMD) {
        job_close(j, (uv_handle_t *)&j->out);
        if (!j->exited)
            uv_process_kill(&j->proc, SIGKILL);
    } else {
        job_close(j, (uv_handle_t *)&j->tcp);
    }
    answer(S, ok, v, why);
}

static void on_job_timer(uv_timer_t *t)
{
    job *j = t->data;
    job_answer(j, 0, 0, j->S->kind == QC__SENSOR_CMD ? "the command did not finish in time"
                                                     : "the URL did not answer in time");
}

static void job_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)want;
    job *j = h->data;
    size_t max = j->S->kind == QC__SENSOR_CMD ? CMD_OUT_MAX : URL_ANSWER_MAX;
    if (j->cap == 0) {
        j->cap = j->S->kind == QC__SENSOR_CMD ? CMD_OUT_MAX : 16384;
        j->buf = malloc(j->cap);
        if (!j->buf)
            j->cap = 0;
    } else if (j->len == j->cap && j->cap < max) {
        size_t cap = j->cap * 2 < max ? j->cap * 2 : max;
        char *d = realloc(j->buf, cap);
        if (d) {
            j->buf = d;
            j->cap = cap;
        }
    }
    if (j->len < j->cap) {
        *b = uv_buf_init(j->buf + j->len, (unsigned)(j->cap - j->len));
        return;
    }
    /* full: read into a scratch area and drop it (a program's output
     * beyond 4 KiB is not looked at; an HTTP answer over 1 MiB fails) */
    static char scratch[4096];
    j->overflow = 1;
    *b = uv_buf_init(scratch, sizeof scratch);
}

/* ---- CMD ---------------------------------------------------------------- */

static void cmd_maybe_done(job *j)
{
    if (!j->exited || !j->eof || j->answered)
        return;
    double v;
    if (j->term != 0 || j->status != 0)
        job_answer(j, 0, 0, "the command failed");
    else if (!qc__first_number(j->buf, j->len, &v))
        job_answer(j, 0, 0, "no number in the command's output");
    else
        job_answer(j, 1, v, "");
}

static void on_cmd_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    job *j = st->data;
    if (n > 0 && b->base == j->buf + j->len)
        j->len += (size_t)n;
    if (n < 0) {
        j->eof = 1;
        job_close(j, (uv_handle_t *)&j->out);
        cmd_maybe_done(j);
    }
}

static void on_cmd_exit(uv_process_t *p, int64_t status, int term)
{
    job *j = p->data;
    j->exited = 1;
    j->status = status;
    j->term = term;
    job_close(j, (uv_handle_t *)&j->proc);
    cmd_maybe_done(j);
}

static void cmd_start(qc__sensor *S, job *j)
{
    uv_pipe_init(S->loop, &j->out, 0);
    j->out.data = j;
    j->proc.data = j;
    j->handles = 3; /* timer, pipe, process */
    uv_stdio_container_t io[3];
    io[0].flags = UV_IGNORE;
    io[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
    io[1].data.stream = (uv_stream_t *)&j->out;
    io[2].flags = UV_INHERIT_FD;
    io[2].data.fd = 2;
    uv_process_options_t po = {.exit_cb = on_cmd_exit,
                               .file = S->argv[0],
                               .args = S->argv,
                               .stdio_count = 3,
                               .stdio = io};
    if (uv_spawn(S->loop, &j->proc, &po) != 0) {
        j->exited = 1;
        job_close(j, (uv_handle_t *)&j->proc);
        job_answer(j, 0, 0, "the command could not be started");
        return;
    }
    uv_read_start((uv_stream_t *)&j->out, job_alloc, on_cmd_read);
}

/* ---- URL ---------------------------------------------------------------- */

static void url_done(job *j)
{
    if (j->overflow) {
        job_answer(j, 0, 0, "the URL's answer is over 1 MiB");
        return;
    }
    const char *p = j->buf;
    size_t n = j->len;
    if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || memcmp(p + 8, " 200", 4) != 0) {
        job_answer(j, 0, 0, "the URL did not answer 200");
        return;
    }
    size_t body = 0;
    for (size_t i = 0; i + 1 < n && !body; i++) {
        if (p[i] == '\n' && p[i + 1] == '\n')
            body = i + 2;
        else if (i + 3 < n && memcmp(p + i, "\r\n\r\n", 4) == 0)
            body = i + 4;
    }
    double v;
    int ok = body && (j->S->metric ? qc__prom_metric(p + body, n - body, j->S->metric, &v)
                                   : qc__first_number(p + body, n - body, &v));
    if (ok)
        job_answer(j, 1, v, "");
    else
        job_answer(j, 0, 0, j->S->metric ? "the metric is not in the URL's answer"
                                         : "no number in the URL's answer");
}

static void on_url_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    job *j = st->data;
    if (j->answered)
        return;
    if (n > 0 && b->base == j->buf + j->len)
        j->len += (size_t)n;
    if (n == UV_EOF)
        url_done(j);
    else if (n < 0)
        job_answer(j, 0, 0, "the URL's connection failed");
}

static void on_url_written(uv_write_t *w, int status)
{
    job *j = w->data;
    if (status != 0 && !j->answered)
        job_answer(j, 0, 0, "the URL's connection failed");
}

static void on_url_connect(uv_connect_t *c, int status)
{
    job *j = c->data;
    if (j->answered)
        return;
    if (status != 0) {
        job_answer(j, 0, 0, "the URL refused the connection");
        return;
    }
    uv_buf_t b = uv_buf_init(j->S->request, (unsigned)j->S->request_len);
    j->wr.data = j;
    if (uv_write(&j->wr, (uv_stream_t *)&j->tcp, &b, 1, on_url_written) != 0 ||
        uv_read_start((uv_stream_t *)&j->tcp, job_alloc, on_url_read) != 0)
        job_answer(j, 0, 0, "the URL's connection failed");
}

static void url_start(qc__sensor *S, job *j)
{
    uv_tcp_init(S->loop, &j->tcp);
    j->tcp.data = j;
    j->conn.data = j;
    j->handles = 2;
    if (uv_tcp_connect(&j->conn, &j->tcp, (const struct sockaddr *)&S->addr, on_url_connect) != 0)
        job_answer(j, 0, 0, "the URL refused the connection");
}

/* ---- LOG ---------------------------------------------------------------- */

static void log_line(qc__sensor *S, double *sum)
{
    regmatch_t m[2];
    S->line[S->line_len] = 0;
    if (regexec(&S->re, S->line, 2, m, 0) != 0)
        return;
    double v;
    if (!S->has_group)
        *sum += 1;
    else if (m[1].rm_so >= 0 &&
             num_at(S->line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so), &v))
        *sum += v;
}

/* Reads what was appended to fd since S->off, matching whole lines. */
static void log_drain(qc__sensor *S, double *sum)
{
    struct stat st;
    if (fstat(S->fd, &st) == 0 && st.st_size < S->off) { /* truncated */
        S->off = 0;
        S->line_len = 0;
    }
    char buf[65536];
    off_t read_now = 0;
    while (read_now < LOG_READ_MAX) {
        ssize_t r = pread(S->fd, buf, sizeof buf, S->off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        S->off += r;
        read_now += r;
        for (ssize_t i = 0; i < r; i++) {
            if (buf[i] == '\n') {
                log_line(S, sum);
                S->line_len = 0;
            } else if (S->line_len < LOG_LINE_MAX) {
                S->line[S->line_len++] = buf[i];
            }
        }
    }
}

static int log_open(qc__sensor *S, int at_end)
{
    int fd = open(S->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return 0;
    }
    S->fd = fd;
    S->dev = st.st_dev;
    S->ino = st.st_ino;
    S->off = at_end ? st.st_size : 0;
    S->line_len = 0;
    return 1;
}

static void log_sample(qc__sensor *S)
{
    double sum = 0;
    struct stat st;
    int there = stat(S->path, &st) == 0;
    if (S->fd >= 0 && there && (st.st_ino != S->ino || st.st_dev != S->dev)) {
        /* rotated: the rest of the old file, then the new one from its top */
        log_drain(S, &sum);
        close(S->fd);
        S->fd = -1;
    }
    if (S->fd < 0 && there)
        log_open(S, 0);
    if (S->fd < 0) {
        answer(S, 0, 0, "the log file is missing");
        return;
    }
    log_drain(S, &sum);
    answer(S, 1, sum, "");
}

/* ---- HAPROXY, PGBOUNCER ------------------------------------------------- */

static void on_remote(void *ctx, int ok, const char *ans, size_t n, const char *why)
{
    qc__sensor *S = ctx;
    S->rjob = NULL;
    double v = 0;
    const char *pwhy = NULL;
    if (ok && !qc__remote_probe_value(&S->probe, &S->fields, ans, n, &v, &pwhy)) {
        ok = 0;
        why = pwhy;
    }
    if (!ok)
        snprintf(S->why_buf, sizeof S->why_buf, "%s", why ? why : "failed");
    answer(S, ok, v, S->why_buf);
}

static void remote_sample(qc__sensor *S, double timeout)
{
    if (S->rjob) { /* late: counted, not answered (the caller moved on) */
        qc__remote_cancel(S->rjob);
        S->rjob = NULL;
        S->mute = 1;
        snprintf(S->why_buf, sizeof S->why_buf, "%s did not answer in time",
                 S->probe.addr.where);
        answer(S, 0, 0, S->why_buf);
        S->mute = 0;
    }
    S->rjob = qc__remote_start(S->loop, &S->probe.addr, S->probe.request, timeout, on_remote, S);
}

/* ---- setup -------------------------------------------------------------- */

static int find_program(const char *prog)
{
    if (strchr(prog, '/'))
        return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        char full[4096];
        if (n > 0 && n + strlen(prog) + 2 < sizeof full) {
            snprintf(full, sizeof full, "%.*s/%s", (int)n, path, prog);
            struct stat st;
            if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

static int cmd_setup(qc__sensor *S, const char *cmd, qc_err *err)
{
    S->cmdline = strdup(cmd);
    if (!S->cmdline)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int argc = 0;
    for (char *save = NULL, *t = strtok_r(S->cmdline, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        if (argc == ARGS_MAX)
            return qc_err_set(err, QC_EINVAL, "--sensor-cmd: more than %d words", ARGS_MAX);
        S->argv[argc++] = t;
    }
    S->argv[argc] = NULL;
    if (argc == 0)
        return qc_err_set(err, QC_EINVAL, "--sensor-cmd: empty command");
    if (!find_program(S->argv[0]))
        return qc_err_set(err, QC_EINVAL, "--sensor-cmd: '%s' is not an executable program%s",
                          S->argv[0], strchr(S->argv[0], '/') ? "" : " on PATH");
    return 0;
}

static int url_setup(qc__sensor *S, const char *url, qc_err *err)
{
    if (strncmp(url, "http://", 7) != 0)
        return qc_err_set(err, QC_EINVAL, "--sensor-url: '%s' does not start with http://", url);
    const char *h = url + 7;
    size_t hl = strcspn(h, "/");
    const char *path = h[hl] ? h + hl : "/";
    char hostport[300];
    if (hl == 0 || hl >= 256)
        return qc_err_set(err, QC_EINVAL, "--sensor-url: '%s' has no HOST:PORT", url);
    int has_port = h[hl - 1] != ']' && memchr(h, ':', hl) != NULL &&
                   (h[0] != '[' || memchr(h, ']', hl) != NULL);
    snprintf(hostport, sizeof hostport, "%.*s%s", (int)hl, h, has_port ? "" : ":80");
    int rc = qc__addr_parse(hostport, &S->addr, err);
    if (rc) {
        qc_err_prefix(err, "--sensor-url");
        return rc;
    }
    for (const char *c = path; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f)
            return qc_err_set(err, QC_EINVAL, "--sensor-url: a space or control character in '%s'",
                              url);
    size_t cap = strlen(path) + hl + 128;
    S->request = malloc(cap);
    if (!S->request)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int n = snprintf(S->request, cap,
                     "GET %s HTTP/1.0\r\nHost: %.*s\r\nAccept: text/plain\r\n"
                     "User-Agent: qctl-gate\r\n\r\n",
                     path, (int)hl, h);
    S->request_len = (size_t)n;
    return 0;
}

static int log_setup(qc__sensor *S, const char *path, const char *pattern, qc_err *err)
{
    S->path = path;
    if (!pattern)
        return qc_err_set(err, QC_EINVAL, "--sensor-log: give the lines to count with --sensor-pattern");
    int rc = regcomp(&S->re, pattern, REG_EXTENDED);
    if (rc != 0) {
        char msg[128];
        regerror(rc, &S->re, msg, sizeof msg);
        return qc_err_set(err, QC_EINVAL, "--sensor-pattern: '%s': %s", pattern, msg);
    }
    S->re_ok = 1;
    S->has_group = S->re.re_nsub >= 1;
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return qc_err_set(err, QC_EINVAL, "--sensor-log: '%s' is not a regular file", path);
    return 0;
}

int qc__sensor_new(uv_loop_t *loop, const qc__sensor_params *o, qc__sensor_cb cb, void *ctx,
                   qc__sensor **out, qc_err *err)
{
    int kinds = (o->cmd != NULL) + (o->url != NULL) + (o->log != NULL) + (o->remote != NULL);
    if (kinds > 1)
        return qc_err_set(err, QC_EINVAL,
                          "give one sensor: --sensor-cmd, --sensor-url, --sensor-log or --sensor");
    if (o->metric && !o->url)
        return qc_err_set(err, QC_EINVAL, "--sensor-metric: only with --sensor-url");
    if (o->pattern && !o->log)
        return qc_err_set(err, QC_EINVAL, "--sensor-pattern: only with --sensor-log");
    if (!(o->scale >= 0) || !isfinite(o->scale))
        return qc_err_set(err, QC_EINVAL, "--sensor-scale: must be a finite number >= 0");
    qc__sensor *S = calloc(1, sizeof *S);
    if (!S)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    S->loop = loop;
    S->kind = qc__sensor_kind_of(o);
    S->cb = cb;
    S->ctx = ctx;
    S->scale = o->scale > 0 ? o->scale : 1;
    S->metric = o->metric;
    S->fd = -1;
    S->why = "";
    int rc = 0;
    if (S->kind == QC__SENSOR_CMD)
        rc = cmd_setup(S, o->cmd, err);
    else if (S->kind == QC__SENSOR_URL)
        rc = url_setup(S, o->url, err);
    else if (S->kind == QC__SENSOR_LOG)
        rc = log_setup(S, o->log, o->pattern, err);
    else if (S->kind != QC__SENSOR_NONE) {
        rc = qc__remote_probe_parse(o->remote, &S->probe, &S->fields, err);
        if (rc)
            qc_err_prefix(err, "--sensor");
    }
    if (rc != 0 || loop == NULL) {
        sensor_free(S);
        return rc;
    }
    if (S->kind == QC__SENSOR_LOG)
        log_open(S, 1); /* from its end, as tail -F; a file made later from its top */
    *out = S;
    return 0;
}

void qc__sensor_start(qc__sensor *S, double timeout)
{
    if (S->closing || S->kind == QC__SENSOR_NONE)
        return;
    if (S->cur) { /* still running: late, counted, and not answered (the
                     caller has moved on to this sample) */
        S->mute = 1;
        job_answer(S->cur, 0, 0, S->kind == QC__SENSOR_CMD ? "the command did not finish in time"
                                                           : "the URL did not answer in time");
        S->mute = 0;
    }
    if (S->kind == QC__SENSOR_LOG) {
        log_sample(S);
        return;
    }
    if (S->kind == QC__SENSOR_HAPROXY || S->kind == QC__SENSOR_PGBOUNCER) {
        remote_sample(S, timeout);
        return;
    }
    job *j = calloc(1, sizeof *j);
    if (!j) {
        answer(S, 0, 0, "out of memory");
        return;
    }
    j->S = S;
    S->jobs_open++;
    S->cur = j;
    uv_timer_init(S->loop, &j->timer);
    j->timer.data = j;
    uint64_t ms = timeout > 0.001 ? (uint64_t)(timeout * 1000) : 1;
    uv_timer_start(&j->timer, on_job_timer, ms, 0);
    if (S->kind == QC__SENSOR_CMD)
        cmd_start(S, j);
    else
        url_start(S, j);
}

void qc__sensor_counts(const qc__sensor *S, unsigned long long *samples,
                       unsigned long long *failed, const char **why)
{
    *samples = S->samples;
    *failed = S->failed;
    *why = S->why;
}

void qc__sensor_close(qc__sensor *S)
{
    if (!S || S->closing)
        return;
    S->closing = 1;
    if (S->cur)
        job_answer(S->cur, 0, 0, "closed");
    if (S->rjob) {
        qc__remote_cancel(S->rjob);
        S->rjob = NULL;
    }
    if (S->jobs_open == 0)
        sensor_free(S);
}
