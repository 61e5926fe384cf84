/* SPDX-License-Identifier: GPL-3.0-or-later */
/* actuator.c: settings applied through haproxy's runtime API, pgbouncer's
 * admin console or a program (see actuator.h).
 *
 * An apply is one exchange (remote.c) or one program run, answered once.
 * The command line is built into a buffer the actuator owns, sized at
 * setup for the longest line it can send, so an apply allocates only the
 * exchange itself. */
#include "live/actuator.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/live.h"

#define TARGETS_MAX 64
#define ARGS_MAX 64

typedef struct cmd_job {
    qc__actuator *A;
    uv_process_t proc;
    uv_timer_t timer;
    unsigned handles;
    int answered, exited;
} cmd_job;

struct qc__actuator {
    uv_loop_t *loop;
    qc__actuator_kind kind;
    qc__actuator_cb cb;
    void *ctx;
    qc__remote_addr addr;
    char targets[TARGETS_MAX][QC__REMOTE_NAME_MAX]; /* BACKEND/SERVER */
    unsigned ntargets;
    char backend[QC__REMOTE_NAME_MAX];
    char *line; /* the line being sent */
    size_t line_cap;
    qc__remote_job *rjob;
    /* CMD */
    char *cmdline;
    char *argv[ARGS_MAX + 1];
    int argc;
    char argbuf[ARGS_MAX][256]; /* the arguments with {} replaced */
    char *run_argv[ARGS_MAX + 1];
    cmd_job *cjob;
    unsigned jobs_open;
    int closing;
    unsigned long long applies, refused;
    char why[256];
    long pool_sent; /* PGPOOL: the size last sent (-1: none yet) */
    /* PGPOOL: an apply is two exchanges, SHOW POOLS then the SET lines */
    int pool_stage;       /* 1 while SHOW POOLS is under way */
    long pool_n;          /* the size being applied */
    double pool_deadline; /* when the apply's time is up (qc__now) */
    double interval;      /* the control interval (s) */
    int lifetime_low;     /* server_lifetime lowered by us, to restore */
    char lifetime[32];    /* the operator's server_lifetime, as SHOW CONFIG
                           * gave it ("" before it was read) */
    int final;            /* the final apply: restore, lower nothing */
    double servers;       /* the largest pool's server connections, last read */
};

qc__actuator_kind qc__actuator_kind_of(const qc__actuator *a) { return a->kind; }

void qc__actuator_set_interval(qc__actuator *a, double interval) { a->interval = interval; }
void qc__actuator_final(qc__actuator *a) { a->final = 1; }
double qc__actuator_pool_servers(const qc__actuator *a) { return a->servers; }
int qc__actuator_restore_due(const qc__actuator *a)
{
    return a->kind == QC__ACT_PGPOOL && a->lifetime_low && a->pool_sent > 0;
}
double qc__actuator_last(const qc__actuator *a) { return (double)a->pool_sent; }
const char *qc__actuator_lifetime(const qc__actuator *a)
{
    return a->lifetime[0] ? a->lifetime : "3600";
}

/* PGPOOL: the operator's server_lifetime from SHOW CONFIG's answer, which
 * follows SHOW POOLS's in ans[0..n), kept to be restored; pgbouncer's
 * default (3600) when it cannot be read. Only a plain number or duration
 * word is kept, since it is sent back inside quotes. */
static void pool_learn_lifetime(qc__actuator *a, const char *ans, size_t n)
{
    size_t k = qc__pg_answer_len(ans, n);
    char v[sizeof a->lifetime];
    const char *why;
    int ok = k > 0 && qc__pg_table_text(ans + k, n - k, "key", "server_lifetime", "value", v,
                                        sizeof v, &why) &&
             v[0] != 0;
    for (const char *c = v; ok && *c; c++)
        ok = (*c >= '0' && *c <= '9') || *c == '.' || (*c >= 'a' && *c <= 'z');
    strcpy(a->lifetime, ok ? v : "3600");
}

void qc__actuator_range(const qc__actuator *a, double *lo, double *hi)
{
    *lo = a->kind == QC__ACT_MAXCONN || a->kind == QC__ACT_PGPOOL ? 1 : 0;
    *hi = a->kind == QC__ACT_WEIGHT ? 256 : 1e9;
}

const qc__remote_addr *qc__actuator_addr(const qc__actuator *a) { return &a->addr; }
const char *qc__actuator_backend(const qc__actuator *a) { return a->backend; }

void qc__actuator_counts(const qc__actuator *a, unsigned long long *applies,
                         unsigned long long *refused, const char **why)
{
    *applies = a->applies;
    *refused = a->refused;
    *why = a->why;
}

static void act_free(qc__actuator *a)
{
    free(a->line);
    free(a->cmdline);
    free(a);
}

static void answer(qc__actuator *a, int ok, const char *why, int mute)
{
    if (!ok) {
        a->refused++;
        snprintf(a->why, sizeof a->why, "%s", why);
    }
    if (!mute && !a->closing)
        a->cb(a->ctx, ok, why);
}

/* ---- haproxy and pgbouncer ---------------------------------------------- */

static void pool_set(qc__actuator *a, int ok, const char *ans, size_t n, const char *why);

static void on_remote(void *ctx, int ok, const char *ans, size_t n, const char *why)
{
    qc__actuator *a = ctx;
    a->rjob = NULL;
    if (a->kind == QC__ACT_PGPOOL && a->pool_stage == 1) {
        a->pool_stage = 0;
        pool_set(a, ok, ans, n, why);
        return;
    }
    char msg[200];
    if (ok && a->addr.kind == QC__REMOTE_HAPROXY && !qc__haproxy_applied(ans, n, msg, sizeof msg)) {
        char full[256];
        snprintf(full, sizeof full, "haproxy refused '%.60s...': %s", a->line, msg);
        answer(a, 0, full, 0);
        return;
    }
    answer(a, ok, ok ? "" : why, 0);
}

static void give_up(qc__actuator *a)
{
    if (a->rjob) {
        qc__remote_cancel(a->rjob);
        a->rjob = NULL;
        if (a->pool_stage == 1)
            a->applies++; /* an apply that ended in its SHOW POOLS */
        a->pool_stage = 0;
        answer(a, 0, "the last apply did not finish in time", 1);
    }
}

static void send_line(qc__actuator *a, double timeout)
{
    a->applies++;
    a->rjob = qc__remote_start(a->loop, &a->addr, a->line, timeout, on_remote, a);
}

/* PGPOOL, the second exchange, once SHOW POOLS told how many server
 * connections the largest pool holds (C). pgbouncer gives a released
 * server connection to the next waiting client whatever the pool size,
 * and closes the ones over a lowered size only when idle, which they
 * never are while clients wait; RECONNECT would close every one as it
 * is released, and pgbouncer opens their replacements one at a time,
 * so that each lowering stalled the pool while PostgreSQL started new
 * backends. What closes a chosen number on release is server_lifetime:
 * a connection released older than it is closed, at most one every
 * server_lifetime / pool_size seconds (pgbouncer's own spacing). With
 * E = C - N too many, server_lifetime = N * interval / E closes about E
 * in the next interval, each as its user's session ends (nobody is cut
 * off), and the connections stay open once the pool is down to size,
 * when server_lifetime goes back to the operator's value (read with SHOW
 * CONFIG before the first lowering). */
static void pool_set(qc__actuator *a, int ok, const char *ans, size_t n, const char *why)
{
    double c = -1;
    if (ok) {
        static const qc__remote_fields sv = {
            {"sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"}, 5};
        unsigned rows;
        const char *bad = NULL;
        if (!qc__pg_table_max(ans, n, &sv, &c, &rows, &bad)) {
            char full[256];
            snprintf(full, sizeof full, "pgbouncer's SHOW POOLS: %s", bad);
            a->applies++;
            answer(a, 0, full, 0);
            return;
        }
        a->servers = c;
        if (!a->lifetime[0])
            pool_learn_lifetime(a, ans, n);
    } else if (!a->final) {
        a->applies++;
        answer(a, 0, why, 0);
        return;
    }
    long N = a->pool_n;
    size_t k = (size_t)snprintf(a->line, a->line_cap, "SET default_pool_size = %ld", N);
    if (!a->final && c > (double)N) {
        double life = (double)N * a->interval / (c - (double)N);
        k += (size_t)snprintf(a->line + k, a->line_cap - k, "\nSET server_lifetime = '%.3f'",
                              life < 0.001 ? 0.001 : life);
        a->lifetime_low = 1;
    } else if (a->lifetime_low) {
        k += (size_t)snprintf(a->line + k, a->line_cap - k, "\nSET server_lifetime = '%s'",
                              qc__actuator_lifetime(a));
        a->lifetime_low = 0;
    }
    (void)k;
    a->pool_sent = N;
    double left = a->pool_deadline - qc__now();
    send_line(a, left > 0.05 ? left : 0.05);
}

/* ---- CMD ---------------------------------------------------------------- */

static void cjob_closed(uv_handle_t *h)
{
    cmd_job *j = h->data;
    if (--j->handles > 0)
        return;
    qc__actuator *a = j->A;
    free(j);
    if (--a->jobs_open == 0 && a->closing)
        act_free(a);
}

static void cjob_answer(cmd_job *j, int ok, const char *why, int mute)
{
    if (j->answered)
        return;
    j->answered = 1;
    qc__actuator *a = j->A;
    if (a->cjob == j)
        a->cjob = NULL;
    if (!uv_is_closing((uv_handle_t *)&j->timer))
        uv_close((uv_handle_t *)&j->timer, cjob_closed);
    if (!j->exited)
        uv_process_kill(&j->proc, SIGKILL);
    answer(a, ok, why, mute);
}

static void on_cmd_exit(uv_process_t *p, int64_t status, int term)
{
    cmd_job *j = p->data;
    j->exited = 1;
    uv_close((uv_handle_t *)&j->proc, cjob_closed);
    cjob_answer(j, status == 0 && term == 0, "the actuator command failed", 0);
}

static void on_cmd_timer(uv_timer_t *t)
{
    cjob_answer(t->data, 0, "the actuator command did not finish in time", 0);
}

static void cmd_run(qc__actuator *a, long n, double timeout)
{
    char num[32];
    snprintf(num, sizeof num, "%ld", n);
    for (int i = 0; i < a->argc; i++) {
        const char *s = a->argv[i];
        char *d = a->argbuf[i];
        size_t k = 0;
        while (*s && k + 32 < sizeof a->argbuf[i]) {
            if (s[0] == '{' && s[1] == '}') {
                k += (size_t)snprintf(d + k, sizeof a->argbuf[i] - k, "%s", num);
                s += 2;
            } else {
                d[k++] = *s++;
            }
        }
        d[k] = 0;
        a->run_argv[i] = d;
    }
    a->run_argv[a->argc] = NULL;
    a->applies++;
    cmd_job *j = calloc(1, sizeof *j);
    if (!j) {
        answer(a, 0, "out of memory", 0);
        return;
    }
    j->A = a;
    a->jobs_open++;
    a->cjob = j;
    uv_timer_init(a->loop, &j->timer);
    j->timer.data = j;
    j->proc.data = j;
    j->handles = 2;
    uv_stdio_container_t io[3];
    io[0].flags = UV_IGNORE;
    io[1].flags = UV_INHERIT_FD;
    io[1].data.fd = 2; /* its output goes to our standard error, beside our log */
    io[2].flags = UV_INHERIT_FD;
    io[2].data.fd = 2;
    uv_process_options_t po = {.exit_cb = on_cmd_exit,
                               .file = a->run_argv[0],
                               .args = a->run_argv,
                               .stdio_count = 3,
                               .stdio = io};
    uint64_t ms = timeout > 0.001 ? (uint64_t)llround(timeout * 1000) : 1;
    uv_timer_start(&j->timer, on_cmd_timer, ms, 0);
    if (uv_spawn(a->loop, &j->proc, &po) != 0) {
        j->exited = 1;
        uv_close((uv_handle_t *)&j->proc, cjob_closed);
        cjob_answer(j, 0, "the actuator command could not be started", 0);
    }
}

/* ---- apply -------------------------------------------------------------- */

void qc__actuator_apply(qc__actuator *a, double u, double timeout)
{
    if (a->closing)
        return;
    double lo, hi;
    qc__actuator_range(a, &lo, &hi);
    double f = floor(u + 1e-9);
    long n = (long)(f < lo ? lo : f > hi ? hi : f);
    if (a->kind == QC__ACT_CMD) {
        if (a->cjob)
            cjob_answer(a->cjob, 0, "the last apply did not finish in time", 1);
        cmd_run(a, n, timeout);
        return;
    }
    give_up(a);
    size_t k = 0;
    if (a->kind == QC__ACT_PGPOOL) {
        /* first how many server connections the pools hold (pool_set) */
        a->pool_n = n;
        a->pool_stage = 1;
        a->pool_deadline = qc__now() + timeout;
        snprintf(a->line, a->line_cap, "SHOW POOLS%s", a->lifetime[0] ? "" : "\nSHOW CONFIG");
        qc__remote_job *j = qc__remote_start(a->loop, &a->addr, a->line, timeout / 2, on_remote, a);
        if (a->pool_stage == 1) /* else answered at once (a connect refused): its next job is rjob */
            a->rjob = j;
        return;
    } else {
        for (unsigned i = 0; i < a->ntargets; i++)
            k += (size_t)snprintf(a->line + k, a->line_cap - k,
                                  a->kind == QC__ACT_MAXCONN ? "%sset maxconn server %s %ld"
                                                             : "%sset weight %s %ld",
                                  i ? ";" : "", a->targets[i], n);
    }
    (void)k;
    send_line(a, timeout);
}

void qc__actuator_park(qc__actuator *a, char (*names)[QC__REMOTE_NAME_MAX],
                       const qc_park_state *state, unsigned n, double timeout)
{
    if (a->closing || a->kind != QC__ACT_PARK)
        return;
    give_up(a);
    size_t k = 0;
    for (unsigned i = 0; i < n && k < a->line_cap; i++) {
        const char *s = state[i] == QC_PARK_ON      ? "ready"
                        : state[i] == QC_PARK_DRAIN ? "drain"
                                                    : "maint";
        k += (size_t)snprintf(a->line + k, a->line_cap - k, "%sset server %s/%s state %s",
                              i ? ";" : "", a->backend, names[i], s);
    }
    send_line(a, timeout);
}

/* ---- setup -------------------------------------------------------------- */

static int targets_parse(qc__actuator *a, const char *list, const char *spec, const char *flag,
                         qc_err *err)
{
    const char *p = list;
    while (*p) {
        size_t l = strcspn(p, ",");
        const char *slash = memchr(p, '/', l);
        if (l == 0 || l >= QC__REMOTE_NAME_MAX || !slash || slash == p || slash == p + l - 1 ||
            memchr(slash + 1, '/', (size_t)(p + l - slash - 1)) || memchr(p, ' ', l) ||
            memchr(p, ';', l))
            return qc_err_set(err, QC_EINVAL, "%s: '%s': the target is BACKEND/SERVER[,...]",
                              flag, spec);
        if (a->ntargets == TARGETS_MAX)
            return qc_err_set(err, QC_EINVAL, "%s: at most %d servers", flag, TARGETS_MAX);
        memcpy(a->targets[a->ntargets], p, l);
        a->targets[a->ntargets][l] = 0;
        a->ntargets++;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* "PREFIX:SOCKET:LAST": SOCKET (may hold ':') and LAST, split at the last ':'. */
static int split_last(const char *rest, char *head, size_t hn, char *last, size_t ln)
{
    const char *c = strrchr(rest, ':');
    if (!c || c == rest || !c[1] || (size_t)(c - rest) >= hn || strlen(c + 1) >= ln)
        return 0;
    memcpy(head, rest, (size_t)(c - rest));
    head[c - rest] = 0;
    strcpy(last, c + 1);
    return 1;
}

static int cmd_setup(qc__actuator *a, const char *cmd, const char *flag, qc_err *err)
{
    a->cmdline = strdup(cmd);
    if (!a->cmdline)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (char *save = NULL, *t = strtok_r(a->cmdline, " ", &save); t;
         t = strtok_r(NULL, " ", &save)) {
        if (a->argc == ARGS_MAX)
            return qc_err_set(err, QC_EINVAL, "%s: more than %d words", flag, ARGS_MAX);
        if (strlen(t) > 200)
            return qc_err_set(err, QC_EINVAL, "%s: a word over 200 characters", flag);
        a->argv[a->argc++] = t;
    }
    if (a->argc == 0)
        return qc_err_set(err, QC_EINVAL, "%s: empty command", flag);
    return 0;
}

int qc__actuator_new(uv_loop_t *loop, const char *spec, const char *flag, qc__actuator_cb cb,
                     void *ctx, qc__actuator **out, qc_err *err)
{
    qc__actuator *a = calloc(1, sizeof *a);
    if (!a)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    a->loop = loop;
    a->pool_sent = -1;
    a->interval = 1;
    a->servers = -1;
    a->cb = cb;
    a->ctx = ctx;
    char head[512], last[QC__REMOTE_NAME_MAX * TARGETS_MAX];
    int rc = 0;
    static const struct {
        const char *prefix;
        qc__actuator_kind kind;
    } kinds[] = {{"haproxy-maxconn:", QC__ACT_MAXCONN},
                 {"haproxy-weight:", QC__ACT_WEIGHT},
                 {"haproxy-park:", QC__ACT_PARK},
                 {"pgbouncer-pool:", QC__ACT_PGPOOL},
                 {"cmd:", QC__ACT_CMD}};
    const char *rest = NULL;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strncmp(spec, kinds[i].prefix, strlen(kinds[i].prefix)) == 0) {
            a->kind = kinds[i].kind;
            rest = spec + strlen(kinds[i].prefix);
        }
    if (!rest) {
        rc = qc_err_set(err, QC_EINVAL,
                        "%s: '%s' is not haproxy-maxconn:SOCKET:BACKEND/SERVER, "
                        "haproxy-weight:..., haproxy-park:SOCKET:BACKEND, pgbouncer-pool:CONNINFO "
                        "or cmd:PROG ARGS",
                        flag, spec);
        goto out;
    }
    switch (a->kind) {
    case QC__ACT_MAXCONN:
    case QC__ACT_WEIGHT:
    case QC__ACT_PARK:
        if (!split_last(rest, head, sizeof head, last, sizeof last)) {
            rc = qc_err_set(err, QC_EINVAL, "%s: '%s': expected %s", flag, spec,
                            a->kind == QC__ACT_PARK ? "haproxy-park:SOCKET:BACKEND"
                                                    : "haproxy-...:SOCKET:BACKEND/SERVER");
            goto out;
        }
        if ((rc = qc__remote_addr_haproxy(head, &a->addr, err)) != 0) {
            qc_err_prefix(err, "%s", flag);
            goto out;
        }
        if (a->kind == QC__ACT_PARK) {
            if (strlen(last) >= sizeof a->backend || strpbrk(last, "/,; ")) {
                rc = qc_err_set(err, QC_EINVAL, "%s: '%s': the target is one BACKEND", flag,
                                spec);
                goto out;
            }
            strcpy(a->backend, last);
            a->line_cap = QC_CTLLOOP_SERVERS_MAX * (2 * QC__REMOTE_NAME_MAX + 40);
        } else {
            if ((rc = targets_parse(a, last, spec, flag, err)) != 0)
                goto out;
            a->line_cap = a->ntargets * (QC__REMOTE_NAME_MAX + 48);
        }
        break;
    case QC__ACT_PGPOOL:
        if ((rc = qc__remote_addr_pg(rest, &a->addr, err)) != 0) {
            qc_err_prefix(err, "%s", flag);
            goto out;
        }
        a->line_cap = 128;
        break;
    case QC__ACT_CMD:
        if ((rc = cmd_setup(a, rest, flag, err)) != 0)
            goto out;
        break;
    }
    if (a->line_cap && !(a->line = malloc(a->line_cap))) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    if (a->line)
        a->line[0] = 0;
out:
    if (rc != 0 || loop == NULL) {
        act_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

void qc__actuator_close(qc__actuator *a)
{
    if (!a || a->closing)
        return;
    a->closing = 1;
    if (a->rjob) {
        qc__remote_cancel(a->rjob);
        a->rjob = NULL;
        if (a->pool_stage == 1)
            a->applies++; /* an apply that ended in its SHOW POOLS */
        a->pool_stage = 0;
    }
    if (a->cjob)
        cjob_answer(a->cjob, 0, "closed", 1);
    if (a->jobs_open == 0)
        act_free(a);
}
