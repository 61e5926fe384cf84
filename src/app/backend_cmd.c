/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backend_cmd.c: what `qctl backend` does once its flags are read
 * (backend_cmd.h): their check, and the backend on the command's loops.
 * With --threads N: N backends on N loops (the first on the main
 * thread's, with the signal handles), each listening with SO_REUSEPORT on
 * the first one's port, the c workers (--workers) split among them: part
 * i has c / N, one more for the first c % N. Each is a FCFS queue of its
 * own, fed by the connections the kernel gives its socket (a hash of the
 * client's address and port), so N > 1 is N queues of about c / N
 * servers each, not one queue of c: one thread (the default) keeps the
 * law of one M/G/c queue. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cmd.h"
#include "live_serve.h"

/* The library's fields, as the flags name them. */
static void backend_error(const qc_err *err)
{
    static const char *const field[][2] = {
        {"workers: ", "--workers"}, {"health: ", "--health"}, {"listen: ", "--listen"}};
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
        if (strncmp(err->msg, field[i][0], strlen(field[i][0])) == 0) {
            cli_error("%s: %s", field[i][1], err->msg + strlen(field[i][0]));
            return;
        }
    cli_error("backend: %s", err->msg);
}

/* Every check the backend's start makes, its bind's dry run included
 * (qc_backend_params_check): the run and --check both come here. */
int backend_validate(void *ctx)
{
    backend_cli *b = ctx;
    qc_err err = {0};
    if (qc_dist_parse(&b->o.service, b->service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (b->setup) {
        if (qc_dist_parse(&b->o.setup, b->setup, &err) != 0) {
            cli_error("--setup: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        b->o.has_setup = 1;
    }
    int r = qc_backend_params_check(&b->o, &err);
    if (r != 0) {
        backend_error(&err);
        return r == QC_EIO ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

/* The parts and what they share: the first one's port. */
typedef struct backend_parts {
    const qc_backend_params *o;
    unsigned n;
    int port;
    struct bpart {
        qc_backend_params o;
        char listen[96];
    } *p;
} backend_parts;

/* Part i on loop, after the first (whose host and port it takes). */
static int part_start(void *ctx, uv_loop_t *loop, unsigned i, void **h, qc_err *err)
{
    backend_parts *B = ctx;
    const qc_backend_params *o = B->o;
    struct bpart *p = &B->p[i];
    p->o = *o;
    p->o.port_file = B->n > 1 ? NULL : o->port_file;
    p->o.workers = o->workers / B->n + (i < o->workers % B->n);
    p->o.reuseport = B->n > 1;
    p->o.stream = i;
    if (i > 0) {
        struct sockaddr_storage a;
        char host[64];
        int rc = qc__addr_parse(o->listen, &a, err);
        if (rc != 0)
            return rc;
        qc__addr_host(&a, host, sizeof host);
        snprintf(p->listen, sizeof p->listen, a.ss_family == AF_INET6 ? "[%s]:%d" : "%s:%d", host,
                 B->port);
        p->o.listen = p->listen;
    }
    int rc = qc_backend_start(loop, &p->o, (qc_backend **)h, err);
    if (rc == 0 && i == 0) {
        qc_backend_status st;
        qc_backend_status_get(*h, &st);
        B->port = st.port;
    }
    return rc;
}

/* The port file, written once every part listens (a client then finds
 * all of them). */
static int parts_started(void *ctx, qc_err *err)
{
    backend_parts *B = ctx;
    if (B->n > 1 && B->o->port_file)
        return qc__port_file_write(B->o->port_file, B->port, err);
    return 0;
}

static void part_closed(qc_backend *b, void *w)
{
    (void)b;
    cli_group_closed(w);
}

/* A signal stops the backend at once: its requests in service are cut. */
static void part_close(void *h, void *w) { qc_backend_close(h, part_closed, w); }

static const cli_group_ops backend_ops = {
    .start = part_start, .started = parts_started, .close = part_close};

/* The backend of o on `threads` loops until SIGTERM or SIGINT, the thread
 * pool sized to its workers with --mode cpu. */
static int backend_serve(const qc_backend_params *o, unsigned threads, qc_err *err)
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
    backend_parts B = {.o = o, .n = threads, .p = calloc(threads, sizeof *B.p)};
    if (!B.p)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    unsigned cut;
    int rc = cli_group_run(&backend_ops, &B, threads, 0, &cut, err);
    free(B.p);
    return rc;
}

int backend_main(backend_cli *b, int rc)
{
    if (rc == 0) {
        qc_err err = {0};
        cli_live_process(0);
        if (backend_serve(&b->o, b->threads, &err) != 0) {
            cli_error("backend: %s", err.msg);
            rc = QC_EXIT_FAIL;
        }
    }
    qc_dist_free(&b->o.service);
    if (b->o.has_setup)
        qc_dist_free(&b->o.setup);
    return rc < 0 ? 0 : rc;
}
