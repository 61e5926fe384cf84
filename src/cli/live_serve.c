/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.c: `qctl proxy`'s loops, threads and signals around the
 * library's proxy (live_serve.h): the loops, the signal handles and the
 * exit status are the command's, so that the library changes nothing
 * process-wide. With N workers the lead runs on the main thread's loop
 * with the signal handles, the others each on a loop and thread of their
 * own; a signal reaches them through an async handle of the command's on
 * each worker's loop. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

typedef struct serve serve;

/* A worker: its loop, proxy and wakeup. */
typedef struct worker {
    serve *s;
    unsigned index;
    uv_loop_t loop;
    uv_async_t wake; /* a signal came: see worker_wake */
    qc_proxy *p;
    pthread_t thread;
    int rc;          /* its start's */
    qc_err err;
    unsigned cut;
    int draining;
    int wake_on; /* wake is initialized */
    uv_sem_t started;
} worker;

struct serve {
    /* the event lines' callback (the configuration given may be freed by
     * a reload: see qc_proxy_params_get) */
    void (*log)(void *ctx, int level, const char *line);
    void *log_ctx;
    qc_proxy_group *g;
    unsigned n;
    worker *w; /* w[0]: the lead, on the main loop */
    cli_signals sig; /* drain, a reload, the access log reopened (the lead's loop) */
    atomic_int signals; /* signals received: 1 drain, 2 and more cut */
    /* the signal handles stay until every worker is closed (a second
     * signal must find them): each worker counts itself closed here and
     * wakes the main loop */
    uv_async_t all_closed;
    atomic_uint closed;
    unsigned running; /* workers started */
};

static void on_all_closed(uv_async_t *a)
{
    serve *s = a->data;
    if (atomic_load(&s->closed) < s->running)
        return;
    cli_signals_close(&s->sig);
    uv_close((uv_handle_t *)&s->all_closed, NULL);
}

static void worker_closed(qc_proxy *p, void *arg)
{
    worker *w = arg;
    qc_proxy_status st;
    qc_proxy_status_get(p, &st);
    w->cut = st.cut;
    w->p = NULL;
    uv_close((uv_handle_t *)&w->wake, NULL);
    atomic_fetch_add(&w->s->closed, 1);
    uv_async_send(&w->s->all_closed);
}

/* On a worker's own loop: what the signals so far ask of it. */
static void worker_wake(uv_async_t *a)
{
    worker *w = a->data;
    int n = atomic_load(&w->s->signals);
    if (!w->p || n == 0)
        return;
    if (!w->draining) {
        w->draining = 1;
        qc_proxy_drain(w->p, qc_proxy_params_get(w->p)->drain_timeout); /* as reloaded */
        qc_proxy_close(w->p, worker_closed, w);
        if (!w->p)
            return;
    }
    if (n >= 2)
        qc_proxy_drain(w->p, 0);
}

static void on_signal(uv_signal_t *h, int sig)
{
    (void)sig;
    serve *s = h->data;
    int n = atomic_fetch_add(&s->signals, 1) + 1;
    if (n == 2 && s->log) {
        unsigned inflight = 0;
        qc_proxy_status st;
        if (s->w[0].p) {
            qc_proxy_status_get(s->w[0].p, &st);
            inflight = st.inflight;
        }
        char line[96];
        snprintf(line, sizeof line, "second signal: stopping with %u requests in flight%s",
                 inflight, s->n > 1 ? " (the lead's)" : "");
        s->log(s->log_ctx, QC_LOG_WARN, line);
    }
    for (unsigned i = 1; i < s->n; i++)
        if (s->w[i].wake_on)
            uv_async_send(&s->w[i].wake);
    if (s->w[0].wake_on)
        worker_wake(&s->w[0].wake);
}

/* SIGHUP: the configuration read again by the lead, which hands it to
 * the other workers (qc_proxy_reload_request logs a refusal itself). */
static void on_hup(uv_signal_t *h, int sig)
{
    (void)sig;
    serve *s = h->data;
    qc_err err = {0};
    if (s->w[0].p && !s->w[0].draining)
        qc_proxy_reload_request(s->w[0].p, "SIGHUP", &err);
}

/* SIGUSR1: the access logs opened again (logrotate's create). */
static void on_usr1(uv_signal_t *h, int sig)
{
    (void)sig;
    serve *s = h->data;
    if (s->w[0].p)
        qc_proxy_reopen_logs(s->w[0].p);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    w->rc = qc_proxy_group_start(&w->loop, w->s->g, w->index, &w->p, &w->err);
    if (w->rc == 0) {
        uv_async_init(&w->loop, &w->wake, worker_wake);
        w->wake.data = w;
        w->wake_on = 1;
    }
    uv_sem_post(&w->started);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    return NULL;
}

int cli_proxy_serve(const qc_proxy_params *o, unsigned workers, qc_err *err)
{
    int fleet = o->fleet.route != QC_FLEET_JSQ || o->unpark_cmd || o->park_cmd;
    if (workers == 0) /* the usable CPUs, one with a fleet (one proxy's) */
        workers = fleet ? 1 : uv_available_parallelism();
    serve s = {.log = o->log, .log_ctx = o->log_ctx, .n = workers};
    int rc;
    if ((rc = qc_proxy_group_alloc(o, workers, &s.g, err)) != 0)
        return rc;
    if (!(s.w = calloc(workers, sizeof *s.w))) {
        qc_proxy_group_free(s.g);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < workers; i++) {
        s.w[i].s = &s;
        s.w[i].index = i;
    }
    worker *lead = &s.w[0];
    if ((rc = uv_loop_init(&lead->loop)) != 0) {
        free(s.w);
        qc_proxy_group_free(s.g);
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    }
    unsigned started = 1;
    if ((rc = qc_proxy_group_start(&lead->loop, s.g, 0, &lead->p, err)) == 0) {
        uv_async_init(&lead->loop, &lead->wake, worker_wake);
        lead->wake.data = lead;
        lead->wake_on = 1;
        cli_signals_start(&s.sig, &lead->loop, on_signal, on_hup, on_usr1, &s);
        uv_async_init(&lead->loop, &s.all_closed, on_all_closed);
        s.all_closed.data = &s;
        s.running = 1;
        /* the other workers, each started before the next */
        for (; started < workers; started++) {
            worker *w = &s.w[started];
            if (uv_loop_init(&w->loop) != 0 || uv_sem_init(&w->started, 0) != 0) {
                rc = qc_err_set(err, QC_EIO, "worker %u: no event loop", started);
                break;
            }
            if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
                uv_loop_close(&w->loop);
                rc = qc_err_set(err, QC_EIO, "worker %u: no thread", started);
                break;
            }
            uv_sem_wait(&w->started);
            uv_sem_destroy(&w->started);
            if (w->rc == 0)
                s.running++;
            if (w->rc != 0) {
                rc = w->rc;
                *err = w->err;
                started++; /* its thread runs its loop until its handles close */
                break;
            }
        }
        if (rc != 0) /* stop those started, as a signal would */
            on_signal(&s.sig.h[0], SIGTERM);
    }
    uv_run(&lead->loop, UV_RUN_DEFAULT); /* a failed start: its handles close */
    unsigned cut = lead->cut;
    for (unsigned i = 1; i < started; i++) {
        pthread_join(s.w[i].thread, NULL);
        uv_loop_close(&s.w[i].loop);
        cut += s.w[i].cut;
    }
    uv_loop_close(&lead->loop);
    qc_proxy_group_free(s.g);
    free(s.w);
    if (rc == 0 && cut) /* the drain did not end by itself: say so in the exit status */
        rc = qc_err_set(err, QC_ECANCELED, "the drain cut %u requests in flight", cut);
    return rc;
}

/* ---- qctl backend ------------------------------------------------------- */

/* `qctl backend --threads N`: N backends on N loops (the first on the main
 * thread's, with the signal handles), each listening with SO_REUSEPORT on
 * the first one's port, the c workers (--workers) split among them: part
 * i has c / N, one more for the first c % N. Each is a FCFS queue of its
 * own, fed by the connections the kernel gives its socket (a hash of the
 * client's address and port), so N > 1 is N queues of about c / N
 * servers each, not one queue of c: one thread (the default) keeps the
 * law of one M/G/c queue. */
typedef struct bpart {
    struct backend_host *h;
    uv_loop_t loop;
    uv_async_t stop;
    qc_backend *b;
    pthread_t thread;
    int thread_on;
    qc_backend_params o;
    char listen[96];
} bpart;

typedef struct backend_host {
    cli_signals sig;
    bpart *p;
    unsigned n;
    atomic_uint closed;
    uv_async_t all_closed;
    int stopping;
} backend_host;

static void backend_closed(qc_backend *b, void *arg)
{
    (void)b;
    bpart *p = arg;
    p->b = NULL;
    atomic_fetch_add(&p->h->closed, 1);
    uv_async_send(&p->h->all_closed);
}

static void backend_all_closed(uv_async_t *a)
{
    backend_host *h = a->data;
    if (atomic_load(&h->closed) < h->n)
        return;
    cli_signals_close(&h->sig);
    uv_close((uv_handle_t *)&h->all_closed, NULL);
}

/* On a part's own loop: a signal came; its requests in service are cut. */
static void backend_stop(uv_async_t *a)
{
    bpart *p = a->data;
    uv_close((uv_handle_t *)&p->stop, NULL);
    if (p->b)
        qc_backend_close(p->b, backend_closed, p);
}

/* A signal stops the backends at once. */
static void backend_signal(uv_signal_t *s, int sig)
{
    (void)sig;
    backend_host *h = s->data;
    if (h->stopping)
        return;
    h->stopping = 1;
    for (unsigned i = 0; i < h->n; i++)
        uv_async_send(&h->p[i].stop);
}

static void *backend_main(void *arg)
{
    bpart *p = arg;
    uv_run(&p->loop, UV_RUN_DEFAULT);
    return NULL;
}

/* The port file, written once every part listens (a client then finds
 * all of them); "-": standard output. */
static int write_port(const char *path, int port, qc_err *err)
{
    if (strcmp(path, "-") == 0) {
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

int cli_backend_serve(const qc_backend_params *o, unsigned threads, qc_err *err)
{
    if (threads == 0)
        threads = 1;
    if (threads > o->workers)
        threads = o->workers; /* a worker at least each */
    if (o->cpu) { /* the thread pool burns the service times: one thread per worker */
        char n[16];
        snprintf(n, sizeof n, "%u", o->workers > 1024 ? 1024 : o->workers);
        setenv("UV_THREADPOOL_SIZE", n, 1);
    }
    backend_host h = {.n = threads};
    if (!(h.p = calloc(threads, sizeof *h.p)))
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int rc = 0, port = -1;
    unsigned started = 0;
    for (; started < threads; started++) {
        bpart *p = &h.p[started];
        p->h = &h;
        p->o = *o;
        p->o.port_file = threads > 1 ? NULL : o->port_file;
        p->o.workers = o->workers / threads + (started < o->workers % threads);
        p->o.reuseport = threads > 1;
        p->o.stream = started;
        if (started > 0) { /* the first's host and port */
            struct sockaddr_storage a;
            char host[64];
            if ((rc = qc__addr_parse(o->listen, &a, err)) != 0)
                break;
            qc__addr_host(&a, host, sizeof host);
            snprintf(p->listen, sizeof p->listen, a.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d",
                     host, port);
            p->o.listen = p->listen;
        }
        if ((rc = uv_loop_init(&p->loop)) != 0) {
            rc = qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
            break;
        }
        if ((rc = qc_backend_start(&p->loop, &p->o, &p->b, err)) != 0) {
            uv_run(&p->loop, UV_RUN_DEFAULT); /* what it opened closes */
            uv_loop_close(&p->loop);
            break;
        }
        uv_async_init(&p->loop, &p->stop, backend_stop);
        p->stop.data = p;
        if (started == 0) {
            qc_backend_status st;
            qc_backend_status_get(p->b, &st);
            port = st.port;
        }
    }
    if (rc == 0 && threads > 1 && o->port_file)
        rc = write_port(o->port_file, port, err);
    bpart *lead = &h.p[0];
    if (started > 0) {
        cli_signals_start(&h.sig, &lead->loop, backend_signal, NULL, NULL, &h);
        uv_async_init(&lead->loop, &h.all_closed, backend_all_closed);
        h.all_closed.data = &h;
        h.n = started;
        for (unsigned i = 1; i < started; i++)
            h.p[i].thread_on = pthread_create(&h.p[i].thread, NULL, backend_main, &h.p[i]) == 0;
        if (rc != 0)
            backend_signal(&h.sig.h[0], SIGTERM);
        uv_run(&lead->loop, UV_RUN_DEFAULT);
        for (unsigned i = 1; i < started; i++) {
            if (h.p[i].thread_on)
                pthread_join(h.p[i].thread, NULL);
            else
                uv_run(&h.p[i].loop, UV_RUN_DEFAULT);
            uv_loop_close(&h.p[i].loop);
        }
        uv_loop_close(&lead->loop);
    }
    free(h.p);
    return rc;
}
