/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_mpi.c: `mpirun -np N qctl sweep FILE`: rank 0 is the master, the
 * other ranks are workers.
 *
 * Dynamic load balancing by request: a worker sends a request (its first
 * message) or the result of its last point, and the master answers with
 * the next point index, or -1 when none is left. Points differ greatly in
 * cost, so a static split would leave ranks idle; with requests, a rank
 * that finishes early simply asks again. A worker runs its point exactly as
 * a local sweep does (child processes, the same command lines and seeds)
 * and sends back the point's journal record: the master parses it and
 * journals it, so a result travels as the same 17-digit text it is stored
 * as, and results match a local run bit for bit.
 *
 * MPI_Init is called only here, only when the environment says mpirun
 * started the process; no other qctl command touches MPI. The MPI calls
 * are in a module, qctl-mpi.so (mpi_ops.h), loaded here: the library is
 * not linked into qctl. The module is looked for beside the qctl binary
 * (a build tree), then where it is installed (QC_MPI_MODULE). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interrupt.h"
#include "sweep_master.h"

int sweep_mpi_wanted(void)
{
#ifdef QC_HAVE_MPI
    return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL ||
           getenv("PMIX_RANK") != NULL;
#else
    return 0;
#endif
}

#ifndef QC_HAVE_MPI

int sweep_mpi_run(const qc_sweep *sw, const char *exe, sweep_master_fn setup,
                  sweep_master_fn finish, void *ctx)
{
    (void)sw, (void)exe, (void)setup, (void)finish, (void)ctx;
    cli_error("sweep: qctl was built without MPI");
    return QC_EXIT_FAIL;
}

#else

#include <dlfcn.h>

#include "mpi_ops.h"

static const qc_mpi_ops *mpi;

/* Loads qctl-mpi.so: beside the binary, else from QC_MPI_MODULE. Returns
 * 0, or prints why not and returns -1. */
static int load_module(void)
{
    char path[PATH_MAX];
    char why[2][256] = {"", ""};
    const char *where[2] = {NULL, QC_MPI_MODULE};
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n > 0) {
        path[n] = '\0';
        char *slash = strrchr(path, '/');
        if (slash != NULL) {
            strcpy(slash + 1, "qctl-mpi.so");
            where[0] = path;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (where[i] == NULL)
            continue;
        void *h = dlopen(where[i], RTLD_NOW | RTLD_LOCAL);
        if (h == NULL) {
            snprintf(why[i], sizeof why[i], "%s", dlerror());
            continue;
        }
        const qc_mpi_ops *ops = (const qc_mpi_ops *)dlsym(h, QC_MPI_OPS_SYMBOL);
        if (ops == NULL || ops->version != QC_MPI_OPS_VERSION) {
            snprintf(why[i], sizeof why[i], "%s: not a qctl %s MPI module", where[i], QC_VERSION);
            dlclose(h);
            continue;
        }
        mpi = ops;
        return 0;
    }
    cli_error("sweep: started by mpirun, but qctl's MPI module cannot be loaded: %s%s%s",
              why[0], why[0][0] ? "; " : "", why[1]);
    return -1;
}

enum { TAG_REQUEST = 1, TAG_RESULT, TAG_FATAL, TAG_WORK };

/* A worker's point: the record line to send back, or the fatal message. */
typedef struct worker_out {
    const qc_sweep *sw;
    char *line;
} worker_out;

static int worker_done(void *ctx, size_t point, const qc_sweep_val *vals, const char *error)
{
    worker_out *w = ctx;
    qc_sweep_point p = {0};
    if (qc_sweep_point_set(w->sw, &p, vals, error) != 0)
        return QC_ENOMEM;
    free(w->line);
    w->line = qc_sweep_journal_record(w->sw, point, &p);
    free(p.error);
    free(p.m);
    return w->line != NULL ? 0 : QC_ENOMEM;
}

static void worker(const qc_sweep *sw, const char *exe)
{
    mpi->send("", 0, 0, TAG_REQUEST);
    for (;;) {
        long long idx;
        mpi->recv(&idx, (int)sizeof idx, 0, TAG_WORK);
        if (idx < 0)
            return;
        const size_t point = (size_t)idx;
        worker_out w = {.sw = sw};
        qc_err err = {0};
        size_t runs = 0;
        int rc = qc_sweep_run_points(sw, exe, &point, 1, 1, &cli_cancel, worker_done, &w, &runs, &err);
        if (rc != 0 || w.line == NULL) {
            const char *msg = err.msg[0] ? err.msg : "out of memory";
            mpi->send(msg, (int)strlen(msg), 0, TAG_FATAL);
        } else {
            /* The run count travels first in the record's place: "N\n" */
            char head[32];
            int hn = snprintf(head, sizeof head, "%zu\n", runs);
            size_t ln = strlen(w.line);
            char *msg = malloc((size_t)hn + ln);
            if (msg != NULL) {
                memcpy(msg, head, (size_t)hn);
                memcpy(msg + hn, w.line, ln);
                mpi->send(msg, (int)((size_t)hn + ln), 0, TAG_RESULT);
            } else {
                mpi->send("out of memory", 13, 0, TAG_FATAL);
            }
            free(msg);
        }
        free(w.line);
    }
}

/* Takes a worker's result message "RUNS\nRECORD\n" into the master. */
static int take_result(sweep_master *m, char *msg, int len, qc_err *err)
{
    char *nl = memchr(msg, '\n', (size_t)len);
    if (nl == NULL)
        return qc_err_set(err, QC_EPARSE, "a worker's message is malformed");
    m->runs += strtoull(msg, NULL, 10);
    const char *rec = nl + 1;
    const size_t rlen = (size_t)(msg + len - rec);
    /* Parse into a scratch copy of the point, then record through the
     * master (journal first), as a local run does. */
    const size_t np = qc_sweep_npoints(m->sw);
    qc_sweep_point *scratch = qc_sweep_points_new(m->sw);
    if (scratch == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    size_t point = np;
    int rc = qc_sweep_journal_parse_record(m->sw, rec, rlen, scratch, &point, err);
    if (rc == 0)
        rc = sweep_master_record(m, point, scratch[point].m, scratch[point].error) != 0
                 ? qc_err_set(err, QC_EIO, "journal write failed")
                 : 0;
    qc_sweep_points_free(m->sw, scratch);
    return rc;
}

static int master(const qc_sweep *sw, sweep_master_fn setup, sweep_master_fn finish, void *ctx,
                  int size)
{
    (void)sw;
    sweep_master *m = NULL;
    int rc = setup(ctx, &m);
    size_t n = 0, next = 0;
    size_t *todo = rc == 0 ? sweep_master_todo(m, &n) : NULL;
    int stopping = rc != 0 || todo == NULL;
    int active = size - 1, fatal = 0;
    while (active > 0) {
        int src = 0, tag = 0, len = 0;
        mpi->probe(&src, &tag, &len);
        char *msg = malloc((size_t)len + 1);
        if (msg == NULL) {
            cli_error("out of memory");
            mpi->abort(QC_EXIT_FAIL);
        }
        mpi->recv(msg, len, src, tag);
        msg[len] = '\0';
        if (tag == TAG_FATAL && !fatal) {
            cli_progress_done(&m->prog);
            cli_error("sweep: %s", msg);
            fatal = 1;
            stopping = 1;
        } else if (tag == TAG_RESULT && !stopping) {
            qc_err err = {0};
            if (take_result(m, msg, len, &err) != 0) {
                cli_error("sweep: %s", err.msg);
                rc = QC_EXIT_FAIL;
                stopping = 1;
            }
        }
        free(msg);
        long long idx = -1;
        if (!stopping && next < n)
            idx = (long long)todo[next++];
        if (idx < 0)
            active--;
        mpi->send(&idx, (int)sizeof idx, src, TAG_WORK);
    }
    free(todo);
    if (fatal)
        rc = QC_EXIT_USAGE;
    else if (rc == 0 && m != NULL)
        rc = finish(ctx, &m);
    if (m != NULL)
        sweep_master_close(m);
    return rc;
}

int sweep_mpi_run(const qc_sweep *sw, const char *exe, sweep_master_fn setup,
                  sweep_master_fn finish, void *ctx)
{
    if (load_module() != 0)
        return QC_EXIT_FAIL;
    int rank = 0, size = 1;
    mpi->init(&rank, &size);
    int rc = 0;
    if (size < 2) {
        /* No workers: the master runs the points itself. */
        sweep_master *m = NULL;
        rc = setup(ctx, &m);
        size_t n = 0;
        size_t *todo = rc == 0 ? sweep_master_todo(m, &n) : NULL;
        if (rc == 0) {
            qc_err err = {0};
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            int e = todo == NULL ? QC_ENOMEM
                                 : qc_sweep_run_points(sw, exe, todo, n, cpus > 0 ? (unsigned)cpus : 1, &cli_cancel,
                                                    sweep_master_record, m, &m->runs, &err);
            if (e != 0) {
                cli_error("sweep: %s", err.msg[0] ? err.msg : "failed");
                rc = e == QC_EINVAL ? QC_EXIT_USAGE : QC_EXIT_FAIL;
            } else {
                rc = finish(ctx, &m);
            }
        }
        free(todo);
        if (m != NULL)
            sweep_master_close(m);
    } else if (rank == 0) {
        rc = master(sw, setup, finish, ctx, size);
    } else {
        worker(sw, exe);
    }
    mpi->finalize();
    return rc;
}

#endif
