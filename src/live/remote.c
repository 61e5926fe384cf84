/* SPDX-License-Identifier: GPL-3.0-or-later */
/* remote.c: one exchange with haproxy's runtime API or pgbouncer's admin
 * console on a libuv loop (see remote.h).
 *
 * A job owns its handles (a TCP or pipe stream and a deadline timer) and
 * its buffers; it is freed by the last close callback, so it never
 * outlives its handles, and an answer (or the deadline, or a cancel)
 * closes them. It is answered once: whatever arrives after that only
 * closes handles. The pgbouncer side is a small state machine driven by
 * the messages read: it parses what is whole at the front of the buffer,
 * answers authentication, sends the next query after each ReadyForQuery,
 * and ends after the last one; no message is interpreted twice. */
#include "live/remote.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/live.h"

#define QUERIES_MAX 8

typedef union stream_u {
    uv_tcp_t tcp;
    uv_pipe_t pipe;
} stream_u;

struct qc__remote_job {
    qc__remote_addr a;
    qc__remote_cb cb;
    void *ctx;
    int answered, muted;
    unsigned handles;
    stream_u s;
    uv_timer_t timer;
    uv_connect_t conn;
    qc__buf in;
    size_t parsed;     /* pgbouncer: bytes of whole messages handled */
    size_t answer_at;  /* pgbouncer: where the queries' answer starts */
    int ready_seen;    /* pgbouncer: ReadyForQuery messages seen */
    char *queries[QUERIES_MAX];
    unsigned nq, next_q;
    char *request; /* haproxy: the line with its newline */
    char errmsg[200];
};

static void job_closed(uv_handle_t *h)
{
    qc__remote_job *j = h->data;
    if (--j->handles > 0)
        return;
    qc__buf_free(&j->in);
    for (unsigned i = 0; i < j->nq; i++)
        free(j->queries[i]);
    free(j->request);
    free(j);
}

static void job_finish(qc__remote_job *j, int ok, const char *ans, size_t len, const char *why)
{
    if (j->answered)
        return;
    j->answered = 1;
    if (!uv_is_closing((uv_handle_t *)&j->timer))
        uv_close((uv_handle_t *)&j->timer, job_closed);
    if (!uv_is_closing((uv_handle_t *)&j->s))
        uv_close((uv_handle_t *)&j->s, job_closed);
    if (!j->muted)
        j->cb(j->ctx, ok, ans, len, why);
}

void qc__remote_cancel(qc__remote_job *j)
{
    if (!j)
        return;
    j->muted = 1;
    job_finish(j, 0, NULL, 0, "cancelled");
}

static void on_timer(uv_timer_t *t)
{
    qc__remote_job *j = t->data;
    snprintf(j->errmsg, sizeof j->errmsg, "%s did not answer in time", j->a.where);
    job_finish(j, 0, NULL, 0, j->errmsg);
}

static void fail_io(qc__remote_job *j, const char *what, int status)
{
    snprintf(j->errmsg, sizeof j->errmsg, "%s: %s (%s)", j->a.where, what,
             status ? uv_strerror(status) : "closed");
    job_finish(j, 0, NULL, 0, j->errmsg);
}

static void on_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)h;
    (void)want;
    char *p = malloc(65536);
    *b = uv_buf_init(p, p ? 65536 : 0);
}

static void on_written(uv_write_t *w, int status)
{
    qc__remote_job *j = w->data;
    free(w);
    if (status != 0 && !j->answered)
        fail_io(j, "the write failed", status);
}

static int send_bytes(qc__remote_job *j, const char *p, size_t n)
{
    uv_write_t *w = malloc(sizeof *w + n);
    if (!w)
        return -1;
    char *copy = (char *)(w + 1);
    memcpy(copy, p, n);
    w->data = j;
    uv_buf_t b = uv_buf_init(copy, (unsigned)n);
    if (uv_write(w, (uv_stream_t *)&j->s, &b, 1, on_written) != 0) {
        free(w);
        return -1;
    }
    return 0;
}

/* ---- pgbouncer ---------------------------------------------------------- */

static void put32(char *p, uint32_t v)
{
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
}

/* A message of type t (0: the startup message, which has none) with body
 * b[0..n). */
static int pg_send(qc__remote_job *j, char t, const char *b, size_t n)
{
    char head[5];
    size_t h = t ? 5 : 4;
    if (t)
        head[0] = t;
    put32(head + (t ? 1 : 0), (uint32_t)(n + 4));
    char *msg = malloc(h + n);
    if (!msg)
        return -1;
    memcpy(msg, head, h);
    if (n)
        memcpy(msg + h, b, n);
    int rc = send_bytes(j, msg, h + n);
    free(msg);
    return rc;
}

static int pg_startup(qc__remote_job *j)
{
    char b[512];
    size_t n = 0;
    put32(b, 196608); /* protocol 3.0 */
    n = 4;
    const char *kv[] = {"user", j->a.user, "database", j->a.dbname, "application_name", "qctl"};
    for (int i = 0; i < 6; i++) {
        size_t l = strlen(kv[i]) + 1;
        memcpy(b + n, kv[i], l);
        n += l;
    }
    b[n++] = 0;
    return pg_send(j, 0, b, n);
}

static int pg_next_query(qc__remote_job *j)
{
    const char *q = j->queries[j->next_q++];
    return pg_send(j, 'Q', q, strlen(q) + 1);
}

/* Handles the whole messages read so far. */
static void pg_progress(qc__remote_job *j)
{
    while (!j->answered) {
        qc__pg_msg m;
        int r = qc__pg_next(j->in.data + j->parsed, j->in.len - j->parsed, &m);
        if (r < 0) {
            snprintf(j->errmsg, sizeof j->errmsg, "%s: a malformed message from the server",
                     j->a.where);
            job_finish(j, 0, NULL, 0, j->errmsg);
            return;
        }
        if (r == 0)
            return;
        j->parsed += m.total;
        switch (m.type) {
        case 'R': {
            uint32_t code = m.body_len >= 4 ? (uint32_t)(((unsigned char)m.body[0] << 24) |
                                                         ((unsigned char)m.body[1] << 16) |
                                                         ((unsigned char)m.body[2] << 8) |
                                                         (unsigned char)m.body[3])
                                            : 99;
            int rc = 0;
            if (code == 0)
                break;
            if (code == 3) {
                rc = pg_send(j, 'p', j->a.password, strlen(j->a.password) + 1);
            } else if (code == 5 && m.body_len >= 8) {
                char pw[36];
                qc__pg_md5_password(j->a.user, j->a.password,
                                    (const unsigned char *)m.body + 4, pw);
                rc = pg_send(j, 'p', pw, 36);
            } else {
                snprintf(j->errmsg, sizeof j->errmsg,
                         "%s: authentication method %u is not supported (trust, password or "
                         "md5 are)",
                         j->a.where, (unsigned)code);
                job_finish(j, 0, NULL, 0, j->errmsg);
                return;
            }
            if (rc != 0)
                fail_io(j, "the write failed", 0);
            break;
        }
        case 'E': {
            char t[160];
            qc__pg_error_text(&m, t, sizeof t);
            snprintf(j->errmsg, sizeof j->errmsg, "%s: the server refused: %s", j->a.where,
                     t[0] ? t : "(no message)");
            job_finish(j, 0, NULL, 0, j->errmsg);
            return;
        }
        case 'Z':
            if (j->ready_seen++ == 0)
                j->answer_at = j->parsed;
            if (j->next_q < j->nq) {
                if (pg_next_query(j) != 0)
                    fail_io(j, "the write failed", 0);
            } else {
                pg_send(j, 'X', NULL, 0); /* Terminate; its result does not matter */
                size_t end = j->parsed - m.total; /* the answer stops before this Z */
                job_finish(j, 1, j->in.data + j->answer_at,
                           end > j->answer_at ? end - j->answer_at : 0, "");
                return;
            }
            break;
        default: break; /* ParameterStatus, BackendKeyData, notices, rows */
        }
    }
}

/* ---- common ------------------------------------------------------------- */

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    qc__remote_job *j = st->data;
    if (j->answered) {
        free(b->base);
        return;
    }
    if (n > 0) {
        if (j->in.len + (size_t)n > QC__REMOTE_ANSWER_MAX) {
            free(b->base);
            snprintf(j->errmsg, sizeof j->errmsg, "%s: an answer over 1 MiB", j->a.where);
            job_finish(j, 0, NULL, 0, j->errmsg);
            return;
        }
        int rc = qc__buf_append(&j->in, b->base, (size_t)n);
        free(b->base);
        if (rc != 0) {
            job_finish(j, 0, NULL, 0, "out of memory");
            return;
        }
        if (j->a.kind == QC__REMOTE_PG)
            pg_progress(j);
        return;
    }
    free(b->base);
    if (n == 0)
        return;
    if (n == UV_EOF && j->a.kind == QC__REMOTE_HAPROXY)
        job_finish(j, 1, j->in.data ? j->in.data : "", j->in.len, "");
    else
        fail_io(j, "the connection closed before the answer was whole", n == UV_EOF ? 0 : (int)n);
}

static void on_connect(uv_connect_t *c, int status)
{
    qc__remote_job *j = c->data;
    if (j->answered)
        return;
    if (status != 0) {
        fail_io(j, "cannot connect", status);
        return;
    }
    int rc = j->a.kind == QC__REMOTE_HAPROXY ? send_bytes(j, j->request, strlen(j->request))
                                             : pg_startup(j);
    if (rc != 0 || uv_read_start((uv_stream_t *)&j->s, on_alloc, on_read) != 0)
        fail_io(j, "the connection failed", 0);
}

qc__remote_job *qc__remote_start(uv_loop_t *loop, const qc__remote_addr *a, const char *request,
                                 double timeout, qc__remote_cb cb, void *ctx)
{
    qc__remote_job *j = calloc(1, sizeof *j);
    if (!j) {
        cb(ctx, 0, NULL, 0, "out of memory");
        return NULL;
    }
    j->a = *a;
    j->cb = cb;
    j->ctx = ctx;
    int oom = 0;
    if (a->kind == QC__REMOTE_HAPROXY) {
        size_t l = strlen(request);
        j->request = malloc(l + 2);
        if (j->request) {
            memcpy(j->request, request, l);
            memcpy(j->request + l, "\n", 2);
        } else {
            oom = 1;
        }
    } else {
        for (const char *q = request; *q && j->nq < QUERIES_MAX;) {
            size_t l = strcspn(q, "\n");
            if (l > 0) {
                char *s = malloc(l + 1);
                if (!s) {
                    oom = 1;
                    break;
                }
                memcpy(s, q, l);
                s[l] = 0;
                j->queries[j->nq++] = s;
            }
            q += l + (q[l] == '\n');
        }
    }
    uv_timer_init(loop, &j->timer);
    j->timer.data = j;
    j->handles = 2;
    if (a->is_unix)
        uv_pipe_init(loop, &j->s.pipe, 0);
    else
        uv_tcp_init(loop, &j->s.tcp);
    j->s.tcp.data = j;
    j->conn.data = j;
    if (oom) {
        job_finish(j, 0, NULL, 0, "out of memory");
        return NULL;
    }
    uint64_t ms = timeout > 0.001 ? (uint64_t)llround(timeout * 1000) : 1;
    uv_timer_start(&j->timer, on_timer, ms, 0);
    if (a->is_unix) {
        uv_pipe_connect(&j->conn, &j->s.pipe, a->path, on_connect);
    } else {
        int rc = uv_tcp_connect(&j->conn, &j->s.tcp, (const struct sockaddr *)&a->tcp, on_connect);
        if (rc != 0) {
            fail_io(j, "cannot connect", rc);
            return NULL;
        }
    }
    return j;
}

/* ---- addresses ---------------------------------------------------------- */

int qc__remote_addr_haproxy(const char *sock, qc__remote_addr *a, qc_err *err)
{
    memset(a, 0, sizeof *a);
    a->kind = QC__REMOTE_HAPROXY;
    snprintf(a->where, sizeof a->where, "haproxy at %s", sock);
    if (strchr(sock, '/')) {
        if (strlen(sock) >= sizeof a->path)
            return qc_err_set(err, QC_EINVAL, "'%s': a socket path of at most %zu bytes", sock,
                              sizeof a->path - 1);
        a->is_unix = 1;
        strcpy(a->path, sock);
        return 0;
    }
    return qc__addr_parse(sock, &a->tcp, err);
}

int qc__remote_addr_pg(const char *conninfo, qc__remote_addr *a, qc_err *err)
{
    memset(a, 0, sizeof *a);
    a->kind = QC__REMOTE_PG;
    char host[100] = "127.0.0.1";
    unsigned port = 6432;
    strcpy(a->user, "pgbouncer");
    strcpy(a->dbname, "pgbouncer");
    const char *p = conninfo;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t kl = strcspn(p, "= ");
        if (p[kl] != '=')
            return qc_err_set(err, QC_EINVAL, "'%s': expected key=value pairs separated by spaces",
                              conninfo);
        const char *v = p + kl + 1;
        size_t vl = strcspn(v, " ");
        char *dst = NULL;
        size_t cap = 0;
        if (kl == 4 && memcmp(p, "host", 4) == 0)
            dst = host, cap = sizeof host;
        else if (kl == 4 && memcmp(p, "user", 4) == 0)
            dst = a->user, cap = sizeof a->user;
        else if (kl == 8 && memcmp(p, "password", 8) == 0)
            dst = a->password, cap = sizeof a->password;
        else if (kl == 6 && memcmp(p, "dbname", 6) == 0)
            dst = a->dbname, cap = sizeof a->dbname;
        else if (kl == 4 && memcmp(p, "port", 4) == 0) {
            char *end;
            unsigned long x = strtoul(v, &end, 10);
            if (end != v + vl || vl == 0 || x == 0 || x > 65535)
                return qc_err_set(err, QC_EINVAL, "'%s': port must be 1..65535", conninfo);
            port = (unsigned)x;
        } else {
            return qc_err_set(err, QC_EINVAL,
                              "'%s': unknown key '%.*s' (host, port, user, password, dbname)",
                              conninfo, (int)kl, p);
        }
        if (dst) {
            if (vl == 0 || vl >= cap)
                return qc_err_set(err, QC_EINVAL, "'%s': '%.*s' is empty or too long", conninfo,
                                  (int)kl, p);
            memcpy(dst, v, vl);
            dst[vl] = 0;
        }
        p = v + vl;
    }
    if (host[0] == '/') {
        a->is_unix = 1;
        int k = snprintf(a->path, sizeof a->path, "%s/.s.PGSQL.%u", host, port);
        if (k < 0 || (size_t)k >= sizeof a->path)
            return qc_err_set(err, QC_EINVAL, "'%s': the socket path is too long", conninfo);
        snprintf(a->where, sizeof a->where, "pgbouncer at %s", a->path);
        return 0;
    }
    char hp[128];
    snprintf(hp, sizeof hp, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
    snprintf(a->where, sizeof a->where, "pgbouncer at %s", hp);
    return qc__addr_parse(hp, &a->tcp, err);
}

/* ---- specs -------------------------------------------------------------- */

int qc__remote_split(const char *spec, const char *prefix, char *head, size_t n, char *a,
                     char *b, qc_err *err)
{
    size_t pl = strlen(prefix);
    if (strncmp(spec, prefix, pl) != 0 || spec[pl] != ':')
        return qc_err_set(err, QC_EINVAL, "'%s' does not start with %s:", spec, prefix);
    const char *rest = spec + pl + 1;
    const char *c2 = strrchr(rest, ':');
    const char *c1 = NULL;
    for (const char *q = rest; c2 && q < c2; q++)
        if (*q == ':')
            c1 = q;
    if (!c1 || !c2)
        return qc_err_set(err, QC_EINVAL, "'%s': expected %s:%s:%s:%s", spec, prefix,
                          pl == 7 ? "SOCKET" : "CONNINFO", pl == 7 ? "TARGET" : "DB", "FIELD");
    size_t hl = (size_t)(c1 - rest), al = (size_t)(c2 - c1 - 1), bl = strlen(c2 + 1);
    if (hl == 0 || hl >= n || al == 0 || al >= QC__REMOTE_NAME_MAX || bl == 0 ||
        bl >= QC__REMOTE_NAME_MAX)
        return qc_err_set(err, QC_EINVAL, "'%s': a part is empty or too long", spec);
    memcpy(head, rest, hl);
    head[hl] = 0;
    memcpy(a, c1 + 1, al);
    a[al] = 0;
    memcpy(b, c2 + 1, bl);
    b[bl] = 0;
    return 0;
}

static int is_database_field(const char *f)
{
    static const char *const names[] = {"pool_size",           "min_pool_size", "reserve_pool",
                                        "max_connections",     "current_connections", "port",
                                        "paused",              "disabled"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(f, names[i]) == 0)
            return 1;
    return 0;
}

static int pg_show_of(const char *f)
{
    if (strncmp(f, "total_", 6) == 0 || strncmp(f, "avg_", 4) == 0)
        return 1; /* STATS */
    return is_database_field(f) ? 2 : 0; /* DATABASES : POOLS */
}

int qc__remote_probe_parse(const char *spec, qc__remote_probe *p, qc__remote_fields *f,
                           qc_err *err)
{
    memset(p, 0, sizeof *p);
    char head[512], a[QC__REMOTE_NAME_MAX], b[QC__REMOTE_NAME_MAX];
    int rc;
    int hx = strncmp(spec, "haproxy:", 8) == 0;
    if (!hx && strncmp(spec, "pgbouncer:", 10) != 0)
        return qc_err_set(err, QC_EINVAL,
                          "'%s': a sensor is haproxy:SOCKET:TARGET:FIELD or "
                          "pgbouncer:CONNINFO:DB:FIELD",
                          spec);
    if ((rc = qc__remote_split(spec, hx ? "haproxy" : "pgbouncer", head, sizeof head, a, b,
                               err)) != 0)
        return rc;
    if ((rc = qc__remote_fields_parse(b, f, err)) != 0)
        return rc;
    if (hx) {
        if ((rc = qc__remote_addr_haproxy(head, &p->addr, err)) != 0)
            return rc;
        if (strcmp(a, "info") == 0) {
            p->info = 1;
            strcpy(p->request, "show info");
            return 0;
        }
        const char *slash = strchr(a, '/');
        if (slash) {
            snprintf(p->row.px, sizeof p->row.px, "%.*s", (int)(slash - a), a);
            snprintf(p->row.sv, sizeof p->row.sv, "%s", slash + 1);
        } else {
            snprintf(p->row.px, sizeof p->row.px, "%s", a);
            strcpy(p->row.sv, "BACKEND");
        }
        if (!p->row.px[0] || !p->row.sv[0] || strchr(p->row.sv, '/') || strpbrk(a, ", \t"))
            return qc_err_set(err, QC_EINVAL,
                              "'%s': the target is BACKEND/SERVER, BACKEND or info", spec);
        strcpy(p->request, "show stat");
        return 0;
    }
    if ((rc = qc__remote_addr_pg(head, &p->addr, err)) != 0)
        return rc;
    if (strlen(a) >= sizeof p->db)
        return qc_err_set(err, QC_EINVAL, "'%s': the database name is too long", spec);
    strcpy(p->db, a);
    int show = pg_show_of(f->name[0]);
    for (unsigned k = 1; k < f->n; k++)
        if (pg_show_of(f->name[k]) != show)
            return qc_err_set(err, QC_EINVAL,
                              "'%s': the fields summed must come from one of SHOW POOLS, SHOW "
                              "STATS (total_*, avg_*) and SHOW DATABASES",
                              spec);
    strcpy(p->request, show == 1 ? "SHOW STATS" : show == 2 ? "SHOW DATABASES" : "SHOW POOLS");
    p->key = show == 2 ? "name" : "database";
    return 0;
}

int qc__remote_probe_value(const qc__remote_probe *p, const qc__remote_fields *f,
                           const char *ans, size_t n, double *v, const char **why)
{
    if (p->addr.kind == QC__REMOTE_HAPROXY)
        return p->info ? qc__haproxy_info_value(ans, n, f, v, why)
                       : qc__haproxy_stat_value(ans, n, &p->row, f, v, why);
    unsigned rows;
    return qc__pg_table_sum(ans, n, p->key, p->db, f, v, &rows, why);
}
