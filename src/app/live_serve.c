/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.c: the live commands' loops, threads and signals around the
 * library's servers (live_serve.h): the loops, the signal handles and the
 * exit status are the command's, so that the library changes nothing
 * process-wide. With N workers the lead runs on the main thread's loop
 * with the signal handles, the others each on a loop and thread of their
 * own; a signal reaches them through an async handle of the command's on
 * each worker's loop. */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cmdline.h"
#include "qctl/ctlloop.h"
#include "flags.h"
#include "live_serve.h"

void cli_signals_start(cli_signals *s, uv_loop_t *loop, uv_signal_cb stop, uv_signal_cb reload,
                       uv_signal_cb reopen, void *arg)
{
    const struct {
        uv_signal_cb cb;
        int sig;
    } want[] = {{stop, SIGTERM}, {stop, SIGINT}, {reload, SIGHUP}, {reopen, SIGUSR1}};
    s->n = 0;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!want[i].cb)
            continue;
        uv_signal_t *h = &s->h[s->n++];
        uv_signal_init(loop, h);
        h->data = arg;
        uv_signal_start(h, want[i].cb, want[i].sig);
    }
}

void cli_signals_close(cli_signals *s)
{
    for (unsigned i = 0; i < s->n; i++)
        uv_close((uv_handle_t *)&s->h[i], NULL);
    s->n = 0;
}

typedef struct group group;

/* A worker: its loop, server and wakeup. */
typedef struct worker {
    group *s;
    unsigned index;
    uv_loop_t loop;
    uv_async_t wake; /* a signal came: see worker_wake */
    void *h;
    pthread_t thread;
    int rc; /* its start's */
    qc_err err;
    unsigned cut;
    int draining;
    int wake_on; /* wake is initialized */
    uv_sem_t started;
} worker;

struct group {
    const cli_group_ops *ops;
    void *ctx;
    unsigned n;
    worker *w;       /* w[0]: the lead, on the main loop */
    cli_signals sig; /* drain, a reload, the logs reopened (the lead's loop) */
    uv_timer_t duration;
    atomic_int signals;   /* signals received: 1 drain, 2 and more cut */
    double drain_timeout; /* the running configuration's, read on the lead's loop */
    /* the signal handles stay until every worker is closed (a second
     * signal must find them): each worker counts itself closed here and
     * wakes the main loop */
    uv_async_t all_closed;
    atomic_uint closed;
    unsigned running; /* workers started */
};

static void on_all_closed(uv_async_t *a)
{
    group *s = a->data;
    if (atomic_load(&s->closed) < s->running)
        return;
    cli_signals_close(&s->sig);
    uv_close((uv_handle_t *)&s->duration, NULL);
    uv_close((uv_handle_t *)&s->all_closed, NULL);
}

void cli_group_closed(void *arg)
{
    worker *w = arg;
    w->cut = w->s->ops->cut ? w->s->ops->cut(w->h) : 0;
    w->h = NULL;
    uv_close((uv_handle_t *)&w->wake, NULL);
    atomic_fetch_add(&w->s->closed, 1);
    uv_async_send(&w->s->all_closed);
}

/* On a worker's own loop: what the signals so far ask of it. */
static void worker_wake(uv_async_t *a)
{
    worker *w = a->data;
    const cli_group_ops *ops = w->s->ops;
    int n = atomic_load(&w->s->signals);
    if (!w->h || n == 0)
        return;
    if (!w->draining) {
        w->draining = 1;
        if (ops->drain)
            ops->drain(w->h, w->s->drain_timeout);
        if (!ops->ends_itself)
            ops->close(w->h, w);
        if (!w->h)
            return;
    }
    if (n >= 2 && ops->drain)
        ops->drain(w->h, 0);
}

/* A signal or the end of --duration: the workers drain, or stop. */
static void stop_request(group *s)
{
    if (s->w[0].h && s->ops->drain_timeout)
        s->drain_timeout = s->ops->drain_timeout(s->w[0].h); /* as reloaded */
    int n = atomic_fetch_add(&s->signals, 1) + 1;
    if (n == 2 && s->ops->second)
        s->ops->second(s->w[0].h, s->n);
    for (unsigned i = 1; i < s->n; i++)
        if (s->w[i].wake_on)
            uv_async_send(&s->w[i].wake);
    if (s->w[0].wake_on)
        worker_wake(&s->w[0].wake);
}

static void on_signal(uv_signal_t *h, int sig)
{
    (void)sig;
    stop_request(h->data);
}

static void on_duration(uv_timer_t *t)
{
    group *s = t->data;
    if (atomic_load(&s->signals) == 0)
        stop_request(s);
}

/* SIGHUP: the configuration read again by the lead, which hands it to
 * the other workers (and reports a refusal itself). */
static void on_hup(uv_signal_t *h, int sig)
{
    (void)sig;
    group *s = h->data;
    if (s->w[0].h && !s->w[0].draining)
        s->ops->reload(s->w[0].h);
}

/* SIGUSR1: the access logs opened again (logrotate's create). */
static void on_usr1(uv_signal_t *h, int sig)
{
    (void)sig;
    group *s = h->data;
    if (s->w[0].h)
        s->ops->reopen(s->w[0].h);
}

/* A worker started on loop: its wakeup, and its end where it ends by
 * itself. */
static int worker_start(worker *w)
{
    group *s = w->s;
    int rc = s->ops->start(s->ctx, &w->loop, w->index, &w->h, &w->err);
    if (rc == 0) {
        uv_async_init(&w->loop, &w->wake, worker_wake);
        w->wake.data = w;
        w->wake_on = 1;
        if (s->ops->ends_itself)
            s->ops->close(w->h, w);
    }
    return rc;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->rc = worker_start(w);
    uv_sem_post(&w->started);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    return NULL;
}

/* The workers after the lead, each started before the next: the number
 * of threads made (a failed start's thread runs its loop until its
 * handles close). */
static unsigned start_others(group *s, int *rc, qc_err *err)
{
    unsigned started = 1;
    for (; started < s->n; started++) {
        worker *w = &s->w[started];
        if (uv_loop_init(&w->loop) != 0 || uv_sem_init(&w->started, 0) != 0) {
            *rc = qc_err_set(err, QC_EIO, "worker %u: no event loop", started);
            break;
        }
        if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
            uv_loop_close(&w->loop);
            *rc = qc_err_set(err, QC_EIO, "worker %u: no thread", started);
            break;
        }
        uv_sem_wait(&w->started);
        uv_sem_destroy(&w->started);
        if (w->rc != 0) {
            *rc = w->rc;
            *err = w->err;
            return started + 1;
        }
        s->running++;
    }
    return started;
}

int cli_group_run(const cli_group_ops *ops, void *ctx, unsigned workers, double duration,
                  unsigned *cut, qc_err *err)
{
    group s = {.ops = ops, .ctx = ctx, .n = workers ? workers : 1};
    *cut = 0;
    if (!(s.w = calloc(s.n, sizeof *s.w)))
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (unsigned i = 0; i < s.n; i++) {
        s.w[i].s = &s;
        s.w[i].index = i;
    }
    worker *lead = &s.w[0];
    int rc;
    if ((rc = uv_loop_init(&lead->loop)) != 0) {
        free(s.w);
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    }
    unsigned started = 1;
    if ((rc = worker_start(lead)) != 0) {
        *err = lead->err;
    } else {
        if (ops->drain_timeout) /* as started: the lead may close before a signal comes */
            s.drain_timeout = ops->drain_timeout(lead->h);
        cli_signals_start(&s.sig, &lead->loop, on_signal, ops->reload ? on_hup : NULL,
                          ops->reopen ? on_usr1 : NULL, &s);
        uv_timer_init(&lead->loop, &s.duration);
        s.duration.data = &s;
        if (duration > 0)
            uv_timer_start(&s.duration, on_duration, (uint64_t)llround(duration * 1000), 0);
        uv_async_init(&lead->loop, &s.all_closed, on_all_closed);
        s.all_closed.data = &s;
        s.running = 1;
        started = start_others(&s, &rc, err);
        if (rc == 0 && ops->started)
            rc = ops->started(ctx, err);
        if (rc != 0) /* stop those started, as a signal would */
            stop_request(&s);
    }
    uv_run(&lead->loop, UV_RUN_DEFAULT); /* a failed start: its handles close */
    *cut = lead->cut;
    for (unsigned i = 1; i < started; i++) {
        pthread_join(s.w[i].thread, NULL);
        uv_loop_close(&s.w[i].loop);
        *cut += s.w[i].cut;
    }
    uv_loop_close(&lead->loop);
    free(s.w);
    return rc;
}

void cli_live_process(int files)
{
    signal(SIGPIPE, SIG_IGN); /* a peer gone mid-write is not fatal */
    struct rlimit rl; /* a connection is a file: as many as the hard limit allows */
    if (files && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

char **cli_argv_copy(int argc, char **argv)
{
    char **v = malloc(((size_t)argc + 1) * sizeof *v);
    if (v)
        memcpy(v, argv, ((size_t)argc + 1) * sizeof *v);
    return v;
}

int cli_reparse(cli_reparse_fn parse, void *n, int argc, char **argv, qc_err *err)
{
    char **av = cli_argv_copy(argc, argv);
    if (!av)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    char msg[sizeof err->msg];
    cli_error_capture(msg, sizeof msg);
    int rc = parse(n, argc, av, 1);
    cli_error_capture(NULL, 0);
    free(av); /* the strings stay: they are argv's own, or the file's detached words */
    if (rc != 0)
        return qc_err_set(err, QC_EINVAL, "%s",
                          msg[0] ? msg : "--check or --help has no meaning on a reload");
    return 0;
}

/* names(0), names(1), ... of n values, comma-joined into buf. */
static const char *words(char *buf, size_t size, const char *(*name)(unsigned), unsigned n)
{
    size_t at = 0;
    buf[0] = 0;
    for (unsigned i = 0; i < n && at < size; i++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? "," : "", name(i));
    return buf;
}

static const char *kind_name(unsigned v) { return qc_ctlloop_kind_name((qc_ctlloop_kind)v); }

static const char *aw_name(unsigned v) { return qc_antiwindup_name((qc_antiwindup)v); }

const char *cli_ctlloop_words(unsigned n)
{
    static char buf[QC_CTLLOOP_PARK + 2][64]; /* one for each n: tables keep them */
    n = n > QC_CTLLOOP_PARK + 1 ? QC_CTLLOOP_PARK + 1 : n;
    return words(buf[n], sizeof buf[n], kind_name, n);
}

const char *cli_antiwindup_words(void)
{
    static char buf[64];
    return words(buf, sizeof buf, aw_name, QC_AW_BACKCALC + 1);
}

int cli_excite_levels(const char *s, double lv[2], int limits)
{
    char *end;
    lv[0] = strtod(s, &end);
    if (end == s || *end != ',')
        goto bad;
    const char *b = end + 1;
    lv[1] = strtod(b, &end);
    if (end == b || *end != 0 || !isfinite(lv[0]) || !isfinite(lv[1]) ||
        (limits && !(lv[0] >= 0 && lv[1] >= 0)))
        goto bad;
    return 0;
bad:
    cli_error("--excite-levels: '%s' is not A,B (%s)", s, limits ? "two limits >= 0" : "two settings");
    return QC_EXIT_USAGE;
}

void cli_live_log(const char *program, int json, int quiet, int level, const char *line)
{
    if (quiet && level < QC_LOG_WARN)
        return;
    cli_log_line(json, program, qc__log_level_name(level), line);
}

void *cli_reparse_new(cli_reparse_fn parse, size_t size, void (*drop)(void *), int argc,
                      char **argv, qc_err *err)
{
    void *n = malloc(size);
    if (!n) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        return NULL;
    }
    if (cli_reparse(parse, n, argc, argv, err) != 0) {
        drop(n);
        return NULL;
    }
    return n;
}
