/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_master.c: the master of `qctl sweep`: its journal and its points.
 *
 * The journal is the sweep's memory: a point counts as finished once its
 * record is in the journal, written and fsync'd, and only then. A sweep
 * killed at any instant resumes from the journal and neither loses nor
 * repeats a finished point. docs/sweep.md describes the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep_master.h"

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

char *sweep_read_fd(int fd, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (b == NULL) {
                free(buf);
                return NULL;
            }
            buf = b;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            free(buf);
            return NULL;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    *len = n;
    return buf;
}

/* The message and exit status of qc_sweep_journal_load's rc (0: none). */
static int journal_load_error(int rc, const qc_err *err)
{
    if (rc == QC_ERANGE) {
        cli_error("sweep: %s; use --fresh to start over, or --results to write elsewhere",
                  err->msg);
        return QC_EXIT_USAGE;
    }
    if (rc != 0) {
        cli_error("sweep: %s (use --fresh to start over)", err->msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* The directory part of path ("." when it has none); caller frees. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

int sweep_master_probe(const qc_sweep *sw, const char *journal, int fresh)
{
    int fd = open(journal, O_RDWR | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        /* the start creates it: its directory must take a new file */
        char *dir = dir_of(journal);
        if (dir == NULL) {
            cli_error("out of memory");
            return QC_EXIT_FAIL;
        }
        int ok = access(dir, W_OK | X_OK) == 0;
        int e = errno;
        free(dir);
        if (!ok) {
            cli_error("sweep: %s: %s", journal, strerror(e));
            return QC_EXIT_FAIL;
        }
        return 0;
    }
    if (fd < 0) {
        cli_error("sweep: %s: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(fd, F_GETLK, &lk) != 0 || lk.l_type != F_UNLCK) {
        close(fd);
        cli_error("sweep: %s: in use by another qctl sweep", journal);
        return QC_EXIT_FAIL;
    }
    if (fresh) {
        close(fd);
        return 0;
    }
    size_t len = 0, good = 0, records = 0;
    char *text = sweep_read_fd(fd, &len);
    int e = errno;
    close(fd);
    if (text == NULL) {
        cli_error("sweep: %s: cannot read: %s", journal, strerror(e));
        return QC_EXIT_FAIL;
    }
    qc_sweep_point *pts = qc_sweep_points_new(sw);
    if (pts == NULL) {
        free(text);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    int rc = qc_sweep_journal_load(sw, text, len, journal, pts, &good, &records, &err);
    free(text);
    qc_sweep_points_free(sw, pts);
    return journal_load_error(rc, &err);
}

int sweep_master_open(sweep_master *m, const qc_sweep *sw, const char *journal, int fresh,
                      int quiet)
{
    memset(m, 0, sizeof *m);
    m->sw = sw;
    m->journal = journal;
    m->fd = -1;
    m->pts = qc_sweep_points_new(sw);
    if (m->pts == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    m->fd = open(journal, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m->fd < 0) {
        cli_error("sweep: %s: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    /* One sweep at a time per journal. */
    struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(m->fd, F_SETLK, &lk) != 0) {
        cli_error("sweep: %s: in use by another qctl sweep", journal);
        return QC_EXIT_FAIL;
    }
    if (fresh && ftruncate(m->fd, 0) != 0) {
        cli_error("sweep: %s: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    size_t len = 0, good = 0;
    char *text = sweep_read_fd(m->fd, &len);
    if (text == NULL) {
        cli_error("sweep: %s: cannot read: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    int rc = qc_sweep_journal_load(sw, text, len, journal, m->pts, &good, &m->resumed, &err);
    free(text);
    if ((rc = journal_load_error(rc, &err)) != 0)
        return rc;
    /* Drop a record cut by an interruption, then append after the rest. */
    if (ftruncate(m->fd, (off_t)good) != 0 || lseek(m->fd, (off_t)good, SEEK_SET) < 0) {
        cli_error("sweep: %s: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    if (good == 0) {
        char *h = qc_sweep_journal_header(sw);
        if (h == NULL || write_all(m->fd, h, strlen(h)) != 0 || fsync(m->fd) != 0) {
            free(h);
            cli_error("sweep: %s: cannot write: %s", journal, strerror(errno));
            return QC_EXIT_FAIL;
        }
        free(h);
    }
    /* Failed points are journaled but run again: only finished ones count. */
    size_t n = 0;
    free(sweep_master_todo(m, &n));
    m->pending = n;
    m->resumed = qc_sweep_npoints(sw) - n;
    cli_progress_init(&m->prog, m->what, quiet);
    snprintf(m->what, sizeof m->what, "sweep");
    return 0;
}

size_t *sweep_master_todo(const sweep_master *m, size_t *n)
{
    const size_t np = qc_sweep_npoints(m->sw);
    size_t *todo = malloc((np ? np : 1) * sizeof *todo);
    *n = 0;
    if (todo == NULL)
        return NULL;
    for (size_t i = 0; i < np; i++)
        if (m->pts[i].state != QC_SWEEP_DONE)
            todo[(*n)++] = i;
    return todo;
}

int sweep_master_record(void *ctx, size_t point, const qc_sweep_val *vals, const char *error)
{
    sweep_master *m = ctx;
    if (qc_sweep_point_set(m->sw, &m->pts[point], vals, error) != 0) {
        cli_error("out of memory");
        return QC_ENOMEM;
    }
    char *line = qc_sweep_journal_record(m->sw, point, &m->pts[point]);
    if (line == NULL || write_all(m->fd, line, strlen(line)) != 0 || fsync(m->fd) != 0) {
        free(line);
        cli_error("sweep: %s: cannot write: %s", m->journal, strerror(errno));
        return QC_EIO;
    }
    free(line);
    m->done_now++;
    const double el = cli_elapsed(&m->prog);
    const double rate = el > 0 ? (double)m->done_now / el : 0;
    snprintf(m->what, sizeof m->what, "sweep %zu/%zu points, %.2f points/s,",
             m->resumed + m->done_now, qc_sweep_npoints(m->sw), rate);
    cli_progress_update(&m->prog, m->pending ? (double)m->done_now / (double)m->pending : 1.0);
    return 0;
}

void sweep_master_close(sweep_master *m)
{
    cli_progress_done(&m->prog);
    if (m->fd >= 0)
        close(m->fd);
    m->fd = -1;
    qc_sweep_points_free(m->sw, m->pts);
    m->pts = NULL;
}
