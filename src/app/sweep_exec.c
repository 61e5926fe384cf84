/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_exec.c: runs a sweep's points as child processes of qctl itself
 * (app/sweep_exec.h).
 *
 * Each (point, replication) is one `qctl EXPERIMENT ... --seed S --json`
 * started with posix_spawn, its stdout and stderr on pipes read through
 * poll(): a child never blocks on a full pipe, and a finished child frees
 * its slot at once, so `jobs` children are always running while runs are
 * left (points differ greatly in cost). Runs are started in canonical
 * order; results do not depend on the order they end in, because a
 * point's value comes only from its own runs, indexed by replication. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app/sweep_exec.h"

extern char **environ;

#define ERR_KEEP 1024

typedef struct run_slot {
    pid_t pid; /* 0: free */
    size_t unit;
    int fd[2]; /* stdout, stderr read ends; -1 once closed */
    char *out;
    size_t nout, capout;
    char errtext[ERR_KEEP];
    size_t nerr;
} run_slot;

typedef struct point_acc {
    unsigned left;     /* runs not ended */
    unsigned err_rep;  /* replication of the kept error (lowest) */
    char *error;
    qc_sweep_val *vals; /* reps x nmetrics, replication-major */
} point_acc;

static int cloexec_pipe(int p[2])
{
    if (pipe(p) != 0)
        return -1;
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    fcntl(p[1], F_SETFD, FD_CLOEXEC);
    return 0;
}

static int spawn_run(run_slot *sl, const char *exe, char **args, qc_err *err)
{
    int po[2], pe[2];
    if (cloexec_pipe(po) != 0)
        return qc_err_set(err, QC_EIO, "pipe: %s", strerror(errno));
    if (cloexec_pipe(pe) != 0) {
        close(po[0]), close(po[1]);
        return qc_err_set(err, QC_EIO, "pipe: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    pid_t pid;
    int rc = posix_spawn(&pid, exe, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]), close(pe[0]);
        return qc_err_set(err, QC_EIO, "%s: cannot start: %s", exe, strerror(rc));
    }
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    sl->pid = pid;
    sl->fd[0] = po[0];
    sl->fd[1] = pe[0];
    sl->nout = 0;
    sl->nerr = 0;
    return 0;
}

/* Reads what is available on one of a slot's pipes; closes it at EOF. */
static int drain(run_slot *sl, int which)
{
    for (;;) {
        char buf[8192];
        ssize_t r = read(sl->fd[which], buf, sizeof buf);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
        }
        if (r <= 0) {
            close(sl->fd[which]);
            sl->fd[which] = -1;
            return 0;
        }
        if (which == 0) {
            if (sl->nout + (size_t)r + 1 > sl->capout) {
                size_t cap = 2 * (sl->nout + (size_t)r + 1);
                char *o = realloc(sl->out, cap);
                if (o == NULL)
                    return QC_ENOMEM;
                sl->out = o;
                sl->capout = cap;
            }
            memcpy(sl->out + sl->nout, buf, (size_t)r);
            sl->nout += (size_t)r;
        } else {
            size_t keep = ERR_KEEP - 1 - sl->nerr;
            if ((size_t)r < keep)
                keep = (size_t)r;
            memcpy(sl->errtext + sl->nerr, buf, keep);
            sl->nerr += keep;
            sl->errtext[sl->nerr] = '\0';
        }
    }
}

static void kill_all(run_slot *slots, unsigned jobs)
{
    for (unsigned i = 0; i < jobs; i++) {
        if (slots[i].pid > 0) {
            kill(slots[i].pid, SIGKILL);
            while (waitpid(slots[i].pid, NULL, 0) < 0 && errno == EINTR)
                ;
            slots[i].pid = 0;
        }
        for (int w = 0; w < 2; w++)
            if (slots[i].fd[w] >= 0) {
                close(slots[i].fd[w]);
                slots[i].fd[w] = -1;
            }
    }
}

/* A failed run's message: its stderr's first line, and how it ended. */
static void run_error(const run_slot *sl, int status, char *msg, size_t n)
{
    const char *line = sl->errtext;
    size_t len = strcspn(line, "\n");
    if (WIFSIGNALED(status))
        snprintf(msg, n, "killed by signal %d%s%.*s", WTERMSIG(status), len ? ": " : "",
                 (int)len, line);
    else if (len > 0)
        snprintf(msg, n, "%.*s", (int)len, line);
    else
        snprintf(msg, n, "exit status %d", WEXITSTATUS(status));
}

/* Takes an ended run's output into its point's accumulator. Returns 0, or
 * QC_EINVAL for an output that lacks a metric (a fault of the sweep file,
 * not of the run: the sweep stops). */
static int take_run(const qc_sweep *sw, run_slot *sl, int status, point_acc *acc, unsigned rep,
                    qc_err *err)
{
    const size_t nm = qc_sweep_nmetrics(sw);
    char msg[ERR_KEEP + 64];
    msg[0] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        run_error(sl, status, msg, sizeof msg);
    } else {
        json_error_t je;
        json_t *o = json_loadb(sl->out ? sl->out : "", sl->nout, 0, &je);
        if (o == NULL) {
            snprintf(msg, sizeof msg, "output is not JSON (line %d: %s)", je.line, je.text);
        } else {
            for (size_t m = 0; m < nm; m++) {
                int rc = qc_sweep_extract(sw, o, m, &acc->vals[(size_t)rep * nm + m], err);
                if (rc != 0) {
                    json_decref(o);
                    return rc;
                }
            }
            json_decref(o);
        }
    }
    if (msg[0] && (acc->error == NULL || rep < acc->err_rep)) {
        free(acc->error);
        size_t n = strlen(msg) + 1;
        acc->error = malloc(n);
        if (acc->error != NULL)
            memcpy(acc->error, msg, n);
        acc->err_rep = rep;
    }
    return 0;
}

static int finish_point(const qc_sweep *sw, point_acc *acc, size_t point, qc_sweep_point_fn done,
                        void *ctx)
{
    const size_t nm = qc_sweep_nmetrics(sw);
    const unsigned reps = qc_sweep_reps(sw);
    if (acc->error != NULL)
        return done(ctx, point, NULL, acc->error);
    qc_sweep_val agg[nm ? nm : 1];
    qc_sweep_val *col = malloc(reps * sizeof *col);
    if (col == NULL)
        return QC_ENOMEM;
    for (size_t m = 0; m < nm; m++) {
        for (unsigned r = 0; r < reps; r++)
            col[r] = acc->vals[(size_t)r * nm + m];
        qc_sweep_aggregate(sw, m, col, reps, &agg[m]);
    }
    free(col);
    return done(ctx, point, agg, NULL);
}

/* The stop flag was set (the command's SIGINT or SIGTERM): QC_ECANCELED,
 * the children are then killed and nothing more is recorded; else 0. */
static int stop_asked(const qc_cancel *cancel, qc_err *err)
{
    return cancel && qc_cancel_requested(cancel) ? qc_err_set(err, QC_ECANCELED, "cancelled")
                                                 : 0;
}

int qc_sweep_run_points(const qc_sweep *sw, const char *exe, const size_t *points, size_t n,
                        unsigned jobs, const qc_cancel *cancel, qc_sweep_point_fn done,
                        void *ctx, size_t *runs, qc_err *err)
{
    const unsigned reps = qc_sweep_reps(sw);
    const size_t nm = qc_sweep_nmetrics(sw);
    const size_t units = n * reps;
    if (jobs == 0)
        jobs = 1;
    if (units < jobs)
        jobs = units ? (unsigned)units : 1;
    run_slot *slots = calloc(jobs, sizeof *slots);
    point_acc *acc = calloc(n ? n : 1, sizeof *acc);
    struct pollfd *pfd = calloc(2 * (size_t)jobs, sizeof *pfd);
    int rc = 0;
    if (slots == NULL || acc == NULL || pfd == NULL) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < jobs; i++)
        slots[i].fd[0] = slots[i].fd[1] = -1;
    for (size_t b = 0; b < n; b++) {
        acc[b].left = reps;
        acc[b].vals = malloc((size_t)reps * (nm ? nm : 1) * sizeof *acc[b].vals);
        if (acc[b].vals == NULL) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
    }
    size_t next = 0, running = 0;
    while (next < units || running > 0) {
        if ((rc = stop_asked(cancel, err)) != 0)
            goto out;
        /* Fill free slots, in canonical order. */
        for (unsigned i = 0; i < jobs && next < units; i++) {
            if (slots[i].pid != 0)
                continue;
            char **args = NULL;
            size_t argc;
            const size_t b = next / reps;
            const unsigned rep = (unsigned)(next % reps);
            if ((rc = qc_sweep_argv(sw, points[b], rep, &args, &argc, err)) != 0)
                goto out;
            /* argv[0] of the child: the program's name. */
            char **full = malloc((argc + 2) * sizeof *full);
            if (full == NULL) {
                qc_sweep_argv_free(args);
                rc = qc_err_set(err, QC_ENOMEM, "out of memory");
                goto out;
            }
            full[0] = (char *)"qctl";
            memcpy(full + 1, args, (argc + 1) * sizeof *args);
            rc = spawn_run(&slots[i], exe, full, err);
            free(full);
            qc_sweep_argv_free(args);
            if (rc != 0)
                goto out;
            slots[i].unit = next++;
            running++;
            (*runs)++;
        }
        nfds_t np = 0;
        for (unsigned i = 0; i < jobs; i++)
            for (int w = 0; w < 2; w++)
                if (slots[i].pid != 0 && slots[i].fd[w] >= 0) {
                    pfd[np].fd = slots[i].fd[w];
                    pfd[np].events = POLLIN;
                    pfd[np].revents = 0;
                    np++;
                }
        /* a signal interrupts the poll; the timeout covers one that came
         * just before it */
        if (np > 0 && poll(pfd, np, 250) < 0 && errno != EINTR) {
            rc = qc_err_set(err, QC_EIO, "poll: %s", strerror(errno));
            goto out;
        }
        for (unsigned i = 0; i < jobs; i++) {
            run_slot *sl = &slots[i];
            if (sl->pid == 0)
                continue;
            for (int w = 0; w < 2; w++)
                if (sl->fd[w] >= 0)
                    for (nfds_t k = 0; k < np; k++)
                        if (pfd[k].fd == sl->fd[w] && pfd[k].revents != 0 &&
                            drain(sl, w) != 0) {
                            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
                            goto out;
                        }
            if (sl->fd[0] >= 0 || sl->fd[1] >= 0)
                continue;
            /* Both pipes closed: the child has exited (or is about to). */
            int status = 0;
            while (waitpid(sl->pid, &status, 0) < 0 && errno == EINTR)
                ;
            sl->pid = 0;
            running--;
            /* a Ctrl-C reaches the children too: a run it ended is no
             * failed point for the journal */
            if ((rc = stop_asked(cancel, err)) != 0)
                goto out;
            const size_t b = sl->unit / reps;
            const unsigned rep = (unsigned)(sl->unit % reps);
            if ((rc = take_run(sw, sl, status, &acc[b], rep, err)) != 0)
                goto out;
            if (--acc[b].left == 0 && (rc = finish_point(sw, &acc[b], points[b], done, ctx)) != 0)
                goto out;
        }
    }
out:
    if (slots != NULL) {
        kill_all(slots, jobs);
        for (unsigned i = 0; i < jobs; i++)
            free(slots[i].out);
    }
    if (acc != NULL)
        for (size_t b = 0; b < n; b++) {
            free(acc[b].vals);
            free(acc[b].error);
        }
    free(acc);
    free(slots);
    free(pfd);
    return rc;
}
