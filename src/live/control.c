/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control.c: `qctl control`, the loop between another server's sensor
 * and its actuator (see control.h).
 *
 * One interval is a small sequence on the loop: tick -> sample -> step ->
 * apply -> row. Exactly one interval is in flight: a tick that finds the
 * last one unfinished closes it first (a sample not answered is missing,
 * an apply not answered is refused), so a dead server costs one deadline
 * an interval and never piles up work, and the loop never spins: each
 * interval does a bounded amount whatever the server answers. */
#include "live/control.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "live/actuator.h"
#include "live/http.h"
#include "live/list.h"
#include "live/live.h"
#include "live/remote.h"

#define ADMIN_CONNS_MAX 16

typedef struct ctl ctl;

typedef struct aconn {
    ctl *C;
    uv_tcp_t tcp;
    uv_timer_t timer;
    unsigned handles;
    int done;
    qc__buf in;
    struct aconn *prev, *next;
} aconn;

struct ctl {
    qc_control_params o; /* a copy: a reload replaces it */
    uv_loop_t *loop; /* the host's (see control.h, "on a host's loop") */
    uv_timer_t tick, duration, drain_timer;
    unsigned handles; /* C's own open: C is freed when the last closes */
    void (*on_closed)(qc_control *C, void *arg);
    void *closed_arg;
    int close_requested; /* by qc_control_close, or a failed start */
    int series_failed;
    uv_tcp_t admin;
    int admin_on;
    aconn *admins, *admins_tail;
    unsigned nadmins;
    qc__sensor *sensor;
    qc__actuator *act;
    qc__remote_job *probe; /* PARK: the `show stat` under way */
    qc_ctlloop L;
    int loop_ready; /* PARK: the loop starts at the first `show stat` */
    double t0;
    FILE *series;
    /* the interval in flight */
    int phase; /* 0 idle, 1 sampling, 2 applying */
    double tick_t;
    int row_ok;
    double row_y, row_r, row_u, row_queue, row_sessions;
    int row_held;
    /* PARK: the servers and their sessions */
    char names[QC_CTLLOOP_SERVERS_MAX][QC__REMOTE_NAME_MAX];
    double sessions[QC_CTLLOOP_SERVERS_MAX];
    unsigned nservers;
    /* counts */
    unsigned long long intervals, missing, refused, applied, reloads, reload_failed;
    int sensor_down, act_down; /* for the log: in a run of failures */
    unsigned long long sensor_run, act_run;
    double last_applied;
    int draining, stopping, final_sent;
    int no_sensor; /* STATIC, OPEN without one: every interval steps */
};

static void logf_(ctl *C, const char *fmt, ...)
{
    if (C->o.quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qctl control: t=%.1f s: ", qc__now() - C->t0);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void stop_all(ctl *C);
static void send_final(ctl *C);

/* ---- the series ---------------------------------------------------------- */

static void put_num(FILE *f, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(f, "%.10g%s", v, sep);
    else
        fputs(sep, f); /* empty: no value (never "nan") */
}

static void write_row(ctl *C, int applied)
{
    if (!C->series)
        return;
    FILE *f = C->series;
    put_num(f, C->tick_t - C->t0, ",");
    put_num(f, C->row_r, ",");
    put_num(f, C->row_u, ",");
    fprintf(f, "%d,", applied);
    put_num(f, C->row_ok ? C->row_y : NAN, ",");
    fprintf(f, "%d,%llu,%llu,", C->row_held, C->missing, C->refused);
    if (C->o.loop.kind == QC_CTLLOOP_PARK) {
        qc_ctlloop_act a = {0};
        unsigned on = 0, st = 0;
        for (unsigned i = 0; i < C->nservers; i++) {
            on += C->L.state[i] == QC_PARK_ON;
            st += C->L.state[i] == QC_PARK_SETUP;
        }
        (void)a;
        fprintf(f, "%u,%u,", on, st);
        put_num(f, C->row_queue, ",");
        put_num(f, C->row_sessions, ",");
        put_num(f, C->L.server_seconds, ",");
        fprintf(f, "%llu\n", C->L.starts);
    } else {
        fputs(",,,,,\n", f);
    }
    fflush(f);
}

/* ---- the interval -------------------------------------------------------- */
/* The sample has 0.7 interval; the apply what is left until 0.95 interval
 * (at least 0.25): an interval in flight is closed by the next tick. */

static void act_state(ctl *C, int ok, const char *why)
{
    if (!ok) {
        C->refused++;
        if (!C->act_down)
            logf_(C, "actuator: %s (the controller holds until it applies)", why);
        C->act_down = 1;
        C->act_run++;
    } else {
        if (C->act_down)
            logf_(C, "actuator: applied again after %llu refused", C->act_run);
        C->act_down = 0;
        C->act_run = 0;
        C->applied++;
    }
}

static void end_interval(ctl *C, int ok, const char *why)
{
    if (C->phase != 2)
        return;
    C->phase = 0;
    act_state(C, ok, why);
    if (ok) {
        qc_ctlloop_applied(&C->L, C->row_u);
        C->last_applied = C->row_u;
    } else {
        qc_ctlloop_refused(&C->L);
    }
    write_row(C, ok);
    if (C->draining)
        send_final(C);
}

static void on_applied(void *ctx, int ok, const char *why)
{
    ctl *C = ctx;
    if (C->stopping)
        return;
    if (C->final_sent) {
        if (!ok)
            logf_(C, "the final setting was refused: %s", why);
        stop_all(C);
        return;
    }
    end_interval(C, ok, why);
}

static void sensor_state(ctl *C, int ok, const char *why)
{
    if (!ok) {
        C->missing++;
        if (!C->sensor_down)
            logf_(C, "sensor: %s (the controller holds until it answers)", why);
        C->sensor_down = 1;
        C->sensor_run++;
    } else {
        if (C->sensor_down)
            logf_(C, "sensor: answering again after %llu missing", C->sensor_run);
        C->sensor_down = 0;
        C->sensor_run = 0;
    }
}

/* The sample's answer: step, then apply. */
static void decide(ctl *C, int ok, double y, const char *why)
{
    if (C->phase != 1)
        return;
    if (!C->no_sensor)
        sensor_state(C, ok, why);
    double t = C->tick_t - C->t0;
    qc_ctlloop_sense in = {t, ok, ok ? y : NAN, NAN, NULL, NAN};
    double sum = 0;
    if (C->o.loop.kind == QC_CTLLOOP_PARK) {
        in.sessions = C->sessions;
        in.queue = ok ? C->row_queue : NAN;
        in.y = ok ? 0 : NAN;
        for (unsigned i = 0; i < C->nservers; i++)
            sum += C->sessions[i];
    }
    C->row_ok = ok;
    C->row_y = C->o.loop.kind == QC_CTLLOOP_PARK ? (ok ? sum + C->row_queue : NAN) : y;
    C->row_sessions = ok ? sum : NAN;
    qc_ctlloop_act a;
    qc_ctlloop_step(&C->L, &in, &a);
    C->row_r = a.r;
    C->row_u = a.u;
    C->row_held = a.held;
    C->intervals++;
    C->phase = 2;
    /* the apply has what is left of the interval (at least a quarter of
     * it): a slow sample on a loaded host leaves the apply less, never
     * the next interval's time */
    double left = 0.95 * C->o.interval - (qc__now() - C->tick_t);
    double timeout = left > 0.25 * C->o.interval ? left : 0.25 * C->o.interval;
    if (C->o.loop.kind == QC_CTLLOOP_PARK)
        qc__actuator_park(C->act, C->names, C->L.state, C->nservers, timeout);
    else
        qc__actuator_apply(C->act, a.u, timeout);
}

static void on_sample(void *ctx, int ok, double v)
{
    ctl *C = ctx;
    if (C->stopping || C->draining)
        return;
    const char *why = "";
    if (!ok) {
        unsigned long long s, f;
        qc__sensor_counts(C->sensor, &s, &f, &why);
    }
    decide(C, ok, v, why);
}

static void on_probe(void *ctx, int ok, const char *ans, size_t n, const char *why)
{
    ctl *C = ctx;
    C->probe = NULL;
    if (C->stopping || C->draining)
        return;
    qc__haproxy_server sv[QC_CTLLOOP_SERVERS_MAX];
    unsigned cnt = 0;
    double queue = 0;
    if (ok && !qc__haproxy_servers(ans, n, qc__actuator_backend(C->act), sv,
                                   QC_CTLLOOP_SERVERS_MAX, &cnt, &queue, &why))
        ok = 0;
    if (ok && !C->loop_ready) {
        if (cnt == 0) {
            ok = 0;
            why = "the backend has no server";
        } else {
            C->nservers = cnt;
            for (unsigned i = 0; i < cnt; i++)
                snprintf(C->names[i], sizeof C->names[i], "%s", sv[i].name);
            qc_ctlloop_params p = C->o.loop;
            p.servers = cnt;
            if (p.min_on > cnt)
                p.min_on = cnt;
            qc_err err = {0};
            if (qc_ctlloop_init(&C->L, &p, &err) != 0) {
                logf_(C, "park: %s", err.msg);
                ok = 0;
                why = "the parking controller could not start";
            } else {
                C->loop_ready = 1;
                logf_(C, "park: %u servers in backend %s, %u on at the start", cnt,
                      qc__actuator_backend(C->act), p.min_on);
            }
        }
    }
    if (ok) {
        /* by name: a server list that changed order still maps right */
        for (unsigned i = 0; i < C->nservers; i++) {
            C->sessions[i] = NAN;
            for (unsigned k = 0; k < cnt; k++)
                if (strcmp(sv[k].name, C->names[i]) == 0)
                    C->sessions[i] = sv[k].scur + sv[k].qcur;
            if (!isfinite(C->sessions[i]))
                ok = 0, why = "a server of the backend is gone from 'show stat'";
        }
        C->row_queue = queue;
    }
    if (!C->loop_ready) { /* nothing to drive yet: the interval ends here */
        sensor_state(C, 0, why);
        C->phase = 0;
        C->row_ok = 0;
        C->row_u = C->row_r = C->row_queue = C->row_sessions = NAN;
        C->row_held = 1;
        write_row(C, 0);
        return;
    }
    decide(C, ok, 0, why);
}

static void on_tick(uv_timer_t *t)
{
    ctl *C = t->data;
    if (C->draining)
        return;
    if (C->phase == 1) { /* the sample never came */
        if (C->probe) {
            qc__remote_cancel(C->probe);
            C->probe = NULL;
        }
        decide(C, 0, 0, "the sample did not come within the interval");
    }
    if (C->phase == 2)
        end_interval(C, 0, "the apply did not finish within the interval");
    C->tick_t = qc__now();
    C->phase = 1;
    double timeout = 0.7 * C->o.interval;
    if (C->o.loop.kind == QC_CTLLOOP_PARK)
        C->probe = qc__remote_start(C->loop, qc__actuator_addr(C->act), "show stat", timeout,
                                    on_probe, C);
    else if (C->no_sensor)
        decide(C, 0, 0, "");
    else
        qc__sensor_start(C->sensor, timeout);
}

/* ---- admin --------------------------------------------------------------- */

static void admin_closed(uv_handle_t *h)
{
    aconn *a = h->data;
    if (--a->handles > 0)
        return;
    qc__buf_free(&a->in);
    free(a);
}

static void admin_close(void *arg)
{
    aconn *a = arg;
    ctl *C = a->C;
    if (!a->done) {
        a->done = 1;
        QC__LIST_REMOVE(C->admins, C->admins_tail, a, prev, next);
        C->nadmins--;
    }
    if (!uv_is_closing((uv_handle_t *)&a->tcp))
        uv_close((uv_handle_t *)&a->tcp, admin_closed);
    if (!uv_is_closing((uv_handle_t *)&a->timer))
        uv_close((uv_handle_t *)&a->timer, admin_closed);
}

static void admin_reply(aconn *a, int status, const char *reason, const char *type,
                        const char *body, size_t n)
{
    char head[256];
    int k = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
                     status, reason, type, n);
    uv_read_stop((uv_stream_t *)&a->tcp);
    uv_timer_stop(&a->timer);
    if (qc__write_copy((uv_stream_t *)&a->tcp, head, (size_t)k) != 0 ||
        (n && qc__write_copy((uv_stream_t *)&a->tcp, body, n) != 0)) {
        admin_close(a);
        return;
    }
    qc__close_after_write((uv_stream_t *)&a->tcp, admin_close, a);
}

static size_t metrics_text(const ctl *C, char *m, size_t cap)
{
    unsigned long long ss = 0, sf = 0;
    const char *why;
    if (C->sensor)
        qc__sensor_counts(C->sensor, &ss, &sf, &why);
    int k = snprintf(
        m, cap,
        "# HELP qctl_control_setting the setting in force (the controller's u)\n"
        "# TYPE qctl_control_setting gauge\nqctl_control_setting %.10g\n"
        "# TYPE qctl_control_applied gauge\nqctl_control_applied %.10g\n"
        "# TYPE qctl_control_sensor gauge\nqctl_control_sensor %.10g\n"
        "# TYPE qctl_control_intervals_total counter\nqctl_control_intervals_total %llu\n"
        "# TYPE qctl_control_sensor_missing_total counter\n"
        "qctl_control_sensor_missing_total %llu\n"
        "# TYPE qctl_control_actuator_applied_total counter\n"
        "qctl_control_actuator_applied_total %llu\n"
        "# TYPE qctl_control_actuator_refused_total counter\n"
        "qctl_control_actuator_refused_total %llu\n"
        "# TYPE qctl_control_holds_total counter\n"
        "qctl_control_holds_total{reason=\"missing_sample\"} %llu\n"
        "qctl_control_holds_total{reason=\"refused\"} %llu\n"
        "qctl_control_holds_total{reason=\"demand\"} %llu\n"
        "# TYPE qctl_control_reloads_total counter\nqctl_control_reloads_total %llu\n"
        "qctl_control_reload_failures_total %llu\n",
        C->row_u, isfinite(C->last_applied) ? C->last_applied : 0, C->row_ok ? C->row_y : 0,
        C->intervals, C->missing, C->applied, C->refused, C->L.held_missing, C->L.held_refused,
        C->L.held_demand, C->reloads, C->reload_failed);
    size_t n = k > 0 && (size_t)k < cap ? (size_t)k : 0;
    if (C->o.loop.kind == QC_CTLLOOP_PARK && n < cap) {
        unsigned on = 0;
        for (unsigned i = 0; i < C->nservers; i++)
            on += C->L.state[i] == QC_PARK_ON;
        k = snprintf(m + n, cap - n,
                     "# TYPE qctl_control_servers_on gauge\nqctl_control_servers_on %u\n"
                     "# TYPE qctl_control_server_seconds_total counter\n"
                     "qctl_control_server_seconds_total %.6g\n"
                     "# TYPE qctl_control_server_starts_total counter\n"
                     "qctl_control_server_starts_total %llu\n",
                     on, C->L.server_seconds, C->L.starts);
        if (k > 0 && (size_t)k < cap - n)
            n += (size_t)k;
    }
    return n;
}

static size_t status_text(const ctl *C, char *m, size_t cap)
{
    unsigned long long ss = 0, sf = 0, aa = 0, ar = 0;
    const char *swhy = "", *awhy = "";
    if (C->sensor)
        qc__sensor_counts(C->sensor, &ss, &sf, &swhy);
    if (C->act)
        qc__actuator_counts(C->act, &aa, &ar, &awhy);
    /* the reasons are quoted: keep only characters JSON takes as they are */
    char s1[200], s2[200];
    snprintf(s1, sizeof s1, "%s", swhy);
    snprintf(s2, sizeof s2, "%s", awhy);
    for (char *p = s1; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '\'';
    for (char *p = s2; *p; p++)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            *p = '\'';
    char u[32] = "null", y[32] = "null";
    if (isfinite(C->row_u))
        snprintf(u, sizeof u, "%.10g", C->row_u);
    if (C->row_ok && isfinite(C->row_y))
        snprintf(y, sizeof y, "%.10g", C->row_y);
    int k = snprintf(m, cap,
                     "{\"controller\": \"%s\", \"setting\": %s, \"sensor\": %s, \"intervals\": "
                     "%llu, \"sensor_missing\": %llu, \"actuator_applied\": %llu, "
                     "\"actuator_refused\": %llu, \"sensor_why\": \"%s\", \"actuator_why\": "
                     "\"%s\", \"draining\": %s}\n",
                     qc_ctlloop_kind_name(C->o.loop.kind), u, y, C->intervals, C->missing,
                     C->applied, C->refused, s1, s2, C->draining ? "true" : "false");
    return k > 0 && (size_t)k < cap ? (size_t)k : 0;
}

static void admin_route(aconn *a, const qc__http_head *h)
{
    const char *buf = a->in.data;
    const char *target = buf + h->target.off;
    size_t tl = h->target.len;
    if (!(h->method.len == 3 && memcmp(buf + h->method.off, "GET", 3) == 0)) {
        admin_reply(a, 405, "Method Not Allowed", "text/plain", "GET only\n", 9);
        return;
    }
    char m[4096];
    if (tl == 8 && memcmp(target, "/metrics", 8) == 0) {
        size_t n = metrics_text(a->C, m, sizeof m);
        admin_reply(a, 200, "OK", "text/plain; version=0.0.4", m, n);
    } else if (tl == 7 && memcmp(target, "/status", 7) == 0) {
        size_t n = status_text(a->C, m, sizeof m);
        admin_reply(a, 200, "OK", "application/json", m, n);
    } else {
        admin_reply(a, 404, "Not Found", "text/plain", "not found: /status or /metrics\n", 31);
    }
}

static void admin_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
    (void)h;
    (void)want;
    char *p = malloc(4096);
    *b = uv_buf_init(p, p ? 4096 : 0);
}

static void on_admin_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    aconn *a = st->data;
    if (n <= 0) {
        free(b->base);
        if (n < 0)
            admin_close(a);
        return;
    }
    size_t room = QC__HTTP_HEAD_MAX - a->in.len;
    int rc = qc__buf_append(&a->in, b->base, (size_t)n < room ? (size_t)n : room);
    free(b->base);
    if (rc != 0) {
        admin_close(a);
        return;
    }
    qc__http_head h;
    const char *why = NULL;
    int r = qc__http_parse_head(a->in.data, a->in.len, 1, &h, &why);
    if (r > 0)
        admin_route(a, &h);
    else if (r < 0)
        admin_reply(a, 400, "Bad Request", "text/plain", "bad request\n", 12);
    else if (a->in.len >= QC__HTTP_HEAD_MAX)
        admin_reply(a, 431, "Request Header Fields Too Large", "text/plain", "too large\n", 10);
}

static void on_admin_timer(uv_timer_t *t) { admin_close(t->data); }

static void on_admin(uv_stream_t *server, int status)
{
    ctl *C = server->data;
    aconn *a = status < 0 ? NULL : calloc(1, sizeof *a);
    if (!a)
        return;
    a->C = C;
    uv_tcp_init(C->loop, &a->tcp);
    uv_timer_init(C->loop, &a->timer);
    a->tcp.data = a->timer.data = a;
    a->handles = 2;
    QC__LIST_PUSH_HEAD(C->admins, C->admins_tail, a, prev, next);
    C->nadmins++;
    if (uv_accept(server, (uv_stream_t *)&a->tcp) != 0 || C->nadmins > ADMIN_CONNS_MAX) {
        admin_close(a);
        return;
    }
    uv_timer_start(&a->timer, on_admin_timer, 5000, 0);
    uv_read_start((uv_stream_t *)&a->tcp, admin_alloc, on_admin_read);
}

/* ---- reload, drain, stop ------------------------------------------------- */

static void finish(ctl *C)
{
    if (C->on_closed)
        C->on_closed(C, C->closed_arg);
    free(C);
}

static void own_closed(uv_handle_t *h)
{
    ctl *C = h->data;
    if (--C->handles == 0 && C->close_requested)
        finish(C); /* else at qc_control_close */
}

static void close_if_open(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, own_closed);
}

static void stop_all(ctl *C)
{
    if (C->stopping)
        return;
    C->stopping = 1;
    close_if_open((uv_handle_t *)&C->tick);
    close_if_open((uv_handle_t *)&C->duration);
    close_if_open((uv_handle_t *)&C->drain_timer);
    if (C->admin_on)
        close_if_open((uv_handle_t *)&C->admin);
    while (C->admins)
        admin_close(C->admins);
    if (C->probe) {
        qc__remote_cancel(C->probe);
        C->probe = NULL;
    }
    qc__sensor_close(C->sensor);
    C->sensor = NULL;
    qc__actuator_close(C->act);
    C->act = NULL;
    if (C->series && fclose(C->series) != 0)
        C->series_failed = 1;
    C->series = NULL;
    if (!C->o.quiet)
        fprintf(stderr,
                "qctl control: %llu intervals, %llu samples missing, %llu applies refused, "
                "%llu applied\n",
                C->intervals, C->missing, C->refused, C->applied);
}

/* The final setting, once no apply is under way. */
static void send_final(ctl *C)
{
    if (C->final_sent)
        return;
    int park = C->o.loop.kind == QC_CTLLOOP_PARK;
    if (!park && !isfinite(C->o.final) && qc__actuator_restore_due(C->act)) {
        /* no final setting, but pgbouncer's server_lifetime is still
         * lowered: left so, every connection would be closed on release
         * long after the controller stopped */
        C->final_sent = 1;
        logf_(C, "drain: pgbouncer's server_lifetime back to %s",
              qc__actuator_lifetime(C->act));
        qc__actuator_final(C->act);
        qc__actuator_apply(C->act, qc__actuator_last(C->act),
                           C->o.drain_timeout > 0 ? C->o.drain_timeout : 1);
        return;
    }
    if (!(park ? C->loop_ready : isfinite(C->o.final))) {
        stop_all(C);
        return;
    }
    C->final_sent = 1;
    double timeout = C->o.drain_timeout > 0 ? C->o.drain_timeout : 1;
    if (park) {
        qc_park_state all[QC_CTLLOOP_SERVERS_MAX];
        for (unsigned i = 0; i < C->nservers; i++)
            all[i] = QC_PARK_ON;
        logf_(C, "drain: every server of %s back to ready", qc__actuator_backend(C->act));
        qc__actuator_park(C->act, C->names, all, C->nservers, timeout);
    } else {
        logf_(C, "drain: the final setting %g", C->o.final);
        qc__actuator_final(C->act);
        qc__actuator_apply(C->act, C->o.final, timeout);
    }
}

static void on_drain_timer(uv_timer_t *t)
{
    ctl *C = t->data;
    logf_(C, "drain: stopped after --drain-timeout");
    stop_all(C);
}

static void start_drain(ctl *C)
{
    if (C->draining)
        return;
    C->draining = 1;
    uv_timer_stop(&C->tick);
    uint64_t ms = (uint64_t)llround(C->o.drain_timeout * 1000);
    uv_timer_start(&C->drain_timer, on_drain_timer, ms ? ms : 1, 0);
    if (C->phase == 1) { /* a sample under way: no step on it */
        if (C->probe) {
            qc__remote_cancel(C->probe);
            C->probe = NULL;
        }
        C->phase = 0;
    }
    if (C->phase == 2)
        return; /* the apply's answer comes first (end_interval) */
    send_final(C);
}

void qc_control_drain(qc_control *C)
{
    if (C->stopping)
        return;
    if (C->draining)
        stop_all(C);
    else
        start_drain(C);
}

void qc_control_close(qc_control *C, void (*on_closed)(qc_control *C, void *arg), void *arg)
{
    C->on_closed = on_closed;
    C->closed_arg = arg;
    C->close_requested = 1;
    if (C->stopping && C->handles == 0)
        finish(C); /* stopped at its start, or before the host asked */
}

void qc_control_status_get(const qc_control *C, qc_control_status *st)
{
    memset(st, 0, sizeof *st);
    st->state = C->stopping ? QC_CONTROL_STOPPED : C->draining ? QC_CONTROL_DRAINING
                                                               : QC_CONTROL_RUNNING;
    st->intervals = C->intervals;
    st->missing = C->missing;
    st->refused = C->refused;
    st->applied = C->applied;
    st->reloads = C->reloads;
    st->reload_failed = C->reload_failed;
    st->setting = C->last_applied;
    st->series_failed = C->series_failed;
    if (C->admin_on) {
        struct sockaddr_storage a;
        int len = sizeof a;
        if (uv_tcp_getsockname(&C->admin, (struct sockaddr *)&a, &len) == 0)
            st->admin_port = qc__addr_port(&a);
    }
}

static void on_duration(uv_timer_t *t) { start_drain(t->data); }

int qc_control_reload(qc_control *C)
{
    if (C->stopping || C->draining)
        return QC_EINVAL;
    if (!C->o.reload) {
        logf_(C, "SIGHUP: no --config to read again; ignored");
        return QC_EINVAL;
    }
    qc_control_params fresh;
    qc_err err = {0};
    int rc = C->o.reload(C->o.reload_ctx, &fresh, &err);
    if (rc == 0 && fresh.loop.kind != C->o.loop.kind)
        rc = qc_err_set(&err, QC_EINVAL, "the controller cannot change on a reload");
    if (rc == 0 && fresh.interval != C->o.interval)
        rc = qc_err_set(&err, QC_EINVAL, "the interval cannot change on a reload");
    qc_ctlloop L2;
    if (rc == 0) {
        qc_ctlloop_params p = fresh.loop;
        if (p.kind == QC_CTLLOOP_PARK)
            p.servers = C->nservers ? C->nservers : 1, p.min_on = p.min_on > p.servers ? p.servers : p.min_on;
        else if (isfinite(C->row_u) &&
                 (p.kind == QC_CTLLOOP_INTEGRAL || p.kind == QC_CTLLOOP_PI))
            p.u_init = C->row_u < p.u_min ? p.u_min : C->row_u > p.u_max ? p.u_max : C->row_u;
        rc = qc_ctlloop_init(&L2, &p, &err);
    }
    if (rc != 0) {
        C->reload_failed++;
        logf_(C, "SIGHUP: the configuration was not taken: %s", err.msg);
        return rc;
    }
    /* bumpless: the new loop starts where the old one is */
    if (C->o.loop.kind == QC_CTLLOOP_PARK) {
        memcpy(L2.state, C->L.state, sizeof L2.state);
        memcpy(L2.since, C->L.since, sizeof L2.since);
        L2.server_seconds = C->L.server_seconds;
        L2.starts = C->L.starts;
        L2.stops = C->L.stops;
        L2.t_prev = C->L.t_prev;
    } else if (C->o.loop.kind == QC_CTLLOOP_OPEN) {
        L2.k = C->L.k;
        L2.level = C->L.level;
        L2.rng = C->L.rng;
        L2.u = C->L.u;
    }
    L2.applied = C->L.applied;
    L2.held_missing = C->L.held_missing;
    L2.held_refused = C->L.held_refused;
    L2.held_demand = C->L.held_demand;
    C->L = L2;
    qc_control_reload_fn fn = C->o.reload;
    void *ctx = C->o.reload_ctx;
    const char *series = C->o.series, *admin = C->o.admin;
    C->o.loop = fresh.loop;
    C->o.final = fresh.final;
    C->o.reload = fn;
    C->o.reload_ctx = ctx;
    C->o.series = series;
    C->o.admin = admin;
    C->reloads++;
    logf_(C, "SIGHUP: the configuration was read again and taken");
    return 0;
}

/* ---- setup --------------------------------------------------------------- */

void qc_control_params_init(qc_control_params *o)
{
    memset(o, 0, sizeof *o);
    qc_ctlloop_params_init(&o->loop);
    o->interval = 1;
    o->drain_timeout = 10;
    o->final = NAN;
    o->gain = o->gain_lo = o->gain_hi = NAN;
}

/* An integral or PI loop closed only on an identified gain it can trust
 * (control.h). */
static int gain_check(const qc_control_params *o, qc_err *err)
{
    const char *f = o->gain_from ? o->gain_from : "the model";
    const char *no = "the loop is not closed";
    if (!o->gain_from && !isfinite(o->gain))
        return 0; /* no model given: nothing to check against */
    if (!isfinite(o->gain))
        return qc_err_set(err, QC_ERANGE,
                          "--model: %s: the identified plant has no finite static gain (an "
                          "integrator or a failed fit); %s",
                          f, no);
    if (isfinite(o->gain_lo) && isfinite(o->gain_hi) && o->gain_lo <= 0 && o->gain_hi >= 0)
        return qc_err_set(err, QC_ERANGE,
                          "--model: %s: the identified static gain %.4g is uncertain in sign "
                          "(95%%: %.4g .. %.4g holds 0); %s: identify again with a longer or "
                          "larger excitation",
                          f, o->gain, o->gain_lo, o->gain_hi, no);
    if (o->gain_sign != 0 && (o->gain > 0 ? 1 : -1) != o->gain_sign)
        return qc_err_set(err, QC_ERANGE,
                          "--model: %s: the identified static gain %.4g is %s where the plant's "
                          "is %s (--gain-sign); %s: the identification saw something else than "
                          "the plant (a sensor or an actuator that did not act?)",
                          f, o->gain, o->gain > 0 ? "positive" : "negative",
                          o->gain_sign > 0 ? "positive" : "negative", no);
    if (o->loop.ki * o->gain <= 0)
        return qc_err_set(err, QC_ERANGE,
                          "--ki: %g against the identified static gain %.4g (%s): K_I must "
                          "have the gain's sign, or the loop runs away; %s",
                          o->loop.ki, o->gain, f, no);
    if (o->loop.kind == QC_CTLLOOP_PI && o->loop.kp * o->gain < 0)
        return qc_err_set(err, QC_ERANGE,
                          "--kp: %g against the identified static gain %.4g (%s): K_P must "
                          "have the gain's sign or be 0; %s",
                          o->loop.kp, o->gain, f, no);
    return 0;
}

int qc_control_check(const qc_control_params *o, qc_err *err)
{
    int rc;
    if (!o->actuator)
        return qc_err_set(err, QC_EINVAL, "--actuator: needed (haproxy-maxconn:..., "
                                          "haproxy-weight:..., haproxy-park:..., "
                                          "pgbouncer-pool:..., cmd:...)");
    qc__actuator *a = NULL;
    if ((rc = qc__actuator_new(NULL, o->actuator, "--actuator", NULL, NULL, &a, err)) != 0)
        return rc;
    int park_act = strncmp(o->actuator, "haproxy-park:", 13) == 0;
    int park = o->loop.kind == QC_CTLLOOP_PARK;
    if (park != park_act)
        return qc_err_set(err, QC_EINVAL,
                          park ? "--actuator: --controller park drives haproxy-park:SOCKET:BACKEND"
                               : "--actuator: haproxy-park: is driven by --controller park only");
    int has_sensor = qc__sensor_kind_of(&o->sensor) != QC__SENSOR_NONE;
    if (park && has_sensor)
        return qc_err_set(err, QC_EINVAL,
                          "--sensor: --controller park reads haproxy's 'show stat' of its "
                          "backend itself; give no sensor");
    int closed = o->loop.kind == QC_CTLLOOP_INTEGRAL || o->loop.kind == QC_CTLLOOP_PI;
    if (closed && !has_sensor)
        return qc_err_set(err, QC_EINVAL, "--sensor: the %s controller needs a sensor",
                          qc_ctlloop_kind_name(o->loop.kind));
    if (!(o->interval >= 0.01) || !isfinite(o->interval))
        return qc_err_set(err, QC_ERANGE, "--interval: at least 0.01 s");
    if (!closed && (o->gain_from || o->gain_sign))
        return qc_err_set(err, QC_EINVAL, "--model, --gain-sign: only with --controller "
                                          "integral or pi (the loop they guard)");
    if (closed && (rc = gain_check(o, err)) != 0)
        return rc;
    if (!(o->drain_timeout >= 0) || !isfinite(o->drain_timeout))
        return qc_err_set(err, QC_ERANGE, "--drain-timeout: must be >= 0");
    if (o->admin) {
        struct sockaddr_storage s;
        if ((rc = qc__addr_parse(o->admin, &s, err)) != 0) {
            qc_err_prefix(err, "--admin");
            return rc;
        }
        if (!qc__addr_is_loopback(&s))
            return qc_err_set(err, QC_EINVAL, "--admin: '%s' is not a loopback address",
                              o->admin);
    }
    qc_ctlloop_params p = o->loop;
    if (park)
        p.servers = QC_CTLLOOP_SERVERS_MAX;
    qc_ctlloop L;
    if ((rc = qc_ctlloop_init(&L, &p, err)) != 0) {
        static const char *const flag[][2] = {
            {"u_init", "--setting"},        {"reference", "--reference"},
            {"kp", "--kp"},                 {"levels", "--excite-levels"},
            {"hold", "--hold"},             {"min_on", "--min-on"},
            {"threshold", "--threshold"},   {"idle_wait, setup", "--idle-wait, --setup"},
            {"control_from", "--control-from"}};
        for (size_t i = 0; i < sizeof flag / sizeof flag[0]; i++)
            if (strncmp(err->msg, flag[i][0], strlen(flag[i][0])) == 0) {
                char rest[200];
                snprintf(rest, sizeof rest, "%s", err->msg + strlen(flag[i][0]));
                snprintf(err->msg, sizeof err->msg, "%s%s", flag[i][1], rest);
                return rc;
            }
        qc_err_prefix(err, "--min-setting, --max-setting, --ki, --kp, --setting");
        return rc;
    }
    qc__sensor *s = NULL;
    return qc__sensor_new(NULL, &o->sensor, NULL, NULL, &s, err);
}

int qc_control_start(uv_loop_t *loop, const qc_control_params *o, qc_control **out, qc_err *err)
{
    *out = NULL;
    int rc = qc_control_check(o, err);
    if (rc)
        return rc;
    ctl *C = calloc(1, sizeof *C);
    if (!C)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    C->o = *o;
    C->loop = loop;
    C->last_applied = NAN;
    C->row_u = C->row_r = C->row_y = C->row_queue = C->row_sessions = NAN;
    if (o->loop.kind != QC_CTLLOOP_PARK) {
        qc_ctlloop_init(&C->L, &o->loop, err);
        C->loop_ready = 1;
        C->row_u = C->L.u;
    }
    uv_timer_init(C->loop, &C->tick);
    uv_timer_init(C->loop, &C->duration);
    uv_timer_init(C->loop, &C->drain_timer);
    C->tick.data = C->duration.data = C->drain_timer.data = C;
    C->handles = 3;
    if (o->admin) {
        C->admin_on = 1;
        C->handles++; /* qc__listen initializes it, whatever it returns */
        if ((rc = qc__listen(C->loop, &C->admin, C, o->admin, o->admin_port_file, on_admin,
                             err)) != 0) {
            qc_err_prefix(err, "--admin");
            goto fail;
        }
    }
    if (o->series && (rc = qc__series_open(&C->series, o->series, err)) != 0)
        goto fail;
    if ((rc = qc__actuator_new(C->loop, o->actuator, "--actuator", on_applied, C, &C->act,
                               err)) != 0)
        goto fail;
    qc__actuator_set_interval(C->act, o->interval);
    if (o->loop.kind != QC_CTLLOOP_PARK &&
        (rc = qc__sensor_new(C->loop, &o->sensor, on_sample, C, &C->sensor, err)) != 0)
        goto fail;
    C->no_sensor = o->loop.kind != QC_CTLLOOP_PARK &&
                   qc__sensor_kind_of(&o->sensor) == QC__SENSOR_NONE;
    C->t0 = qc__now();
    if (C->series) {
        struct timespec wall;
        clock_gettime(CLOCK_REALTIME, &wall);
        fprintf(C->series,
                "# qctl control (%s): one row per interval; time is when the sample was "
                "started, sensor its value (empty: missing, the controller held), setting the "
                "controller's u for the next interval (applied rounded down; PARK: the servers "
                "on), applied 1 when the actuator took it; held 1 when the controller held; "
                "missing and refused count since the start; PARK: on, starting, queue (waiting "
                "in haproxy), sessions (at the servers), server_seconds (servers not off, "
                "integrated), starts\n"
                "# t0_epoch=%lld.%06ld (time 0, seconds since 1970-01-01 UTC)\n"
                "time,reference,setting,applied,sensor,held,missing,refused,on,starting,queue,"
                "sessions,server_seconds,starts\n",
                qc_ctlloop_kind_name(o->loop.kind), (long long)wall.tv_sec,
                wall.tv_nsec / 1000);
        fflush(C->series);
    }
    uint64_t ms = (uint64_t)llround(o->interval * 1000);
    uv_timer_start(&C->tick, on_tick, 0, ms ? ms : 1);
    if (o->duration > 0)
        uv_timer_start(&C->duration, on_duration, (uint64_t)llround(o->duration * 1000), 0);
    *out = C;
    return 0;
fail:
    if (C->admin_on && !C->admin.loop) { /* the address refused before the handle was made */
        C->admin_on = 0;
        C->handles--;
    }
    C->o.quiet = 1; /* nothing ran: no summary */
    C->close_requested = 1;
    stop_all(C);
    return rc; /* its handles close on the loop's next turn, and C is freed */
}


int qc_control_params_check(const qc_control_params *o, qc_err *err)
{
    int rc = qc_control_check(o, err);
    if (rc == 0 && o->admin && (rc = qc__bind_probe(o->admin, err)) != 0)
        qc_err_prefix(err, "--admin");
    return rc;
}
