/* SPDX-License-Identifier: GPL-3.0-or-later */
/* output.c: atomic file output and JSON helpers. */
#include "qctl/output.h"

#include "io/ofile_open.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

json_t *qc_json_real_new(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

json_t *qc_json_ci_new(const qc_ci *ci)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "value", qc_json_real_new(ci->mean));
    json_object_set_new(o, "ci_low", qc_json_real_new(ci->lo));
    json_object_set_new(o, "ci_high", qc_json_real_new(ci->hi));
    json_object_set_new(o, "half_width", qc_json_real_new(ci->half));
    json_object_set_new(o, "level", json_real(ci->level));
    json_object_set_new(o, "n", json_integer((json_int_t)ci->n));
    return o;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* The temporary names of the files open for writing (io/ofile_open.h).
 * A slot is FREE, FILLING (its owner is copying a name in: a handler
 * passes it by) or NOTED (a complete name a handler may unlink). The
 * states are atomic; the names are written only by the thread that took
 * the slot, and read only once the slot is NOTED. */
enum { OPEN_SLOTS = 16, OPEN_NAME = 4096 };
enum { SLOT_FREE, SLOT_FILLING, SLOT_NOTED };
static int open_state[OPEN_SLOTS];
static char open_name[OPEN_SLOTS][OPEN_NAME];

static void note_open(const char *tmp)
{
    size_t n = strlen(tmp) + 1;
    if (n > OPEN_NAME)
        return;
    for (int i = 0; i < OPEN_SLOTS; i++) {
        int free_ = SLOT_FREE;
        if (__atomic_compare_exchange_n(&open_state[i], &free_, SLOT_FILLING, 0,
                                        __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            memcpy(open_name[i], tmp, n);
            __atomic_store_n(&open_state[i], SLOT_NOTED, __ATOMIC_RELEASE);
            return;
        }
    }
}

static void forget_open(const char *tmp)
{
    for (int i = 0; i < OPEN_SLOTS; i++)
        if (__atomic_load_n(&open_state[i], __ATOMIC_ACQUIRE) == SLOT_NOTED &&
            strcmp(open_name[i], tmp) == 0) {
            __atomic_store_n(&open_state[i], SLOT_FREE, __ATOMIC_RELEASE);
            return;
        }
}

void qc__ofile_remove_open(void)
{
    for (int i = 0; i < OPEN_SLOTS; i++)
        if (__atomic_load_n(&open_state[i], __ATOMIC_ACQUIRE) == SLOT_NOTED)
            unlink(open_name[i]);
}

/* "-" is standard output, as Unix tools read it: a stream of its own on a
 * copy of descriptor 1 (what stdout holds is flushed first, so the two
 * keep their order), with no temporary name and nothing to rename. */
static int ofile_stdout(qc_ofile *f, qc_err *err)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    f->fp = fd < 0 ? NULL : fdopen(fd, "w");
    f->path = dupstr("-");
    if (f->fp == NULL || f->path == NULL) {
        int e = errno;
        if (f->fp)
            fclose(f->fp);
        else if (fd >= 0)
            close(fd);
        free(f->path);
        memset(f, 0, sizeof *f);
        return qc_err_set(err, QC_EIO, "standard output: cannot write: %s", strerror(e));
    }
    return 0;
}

int qc_ofile_open(qc_ofile *f, const char *path, qc_err *err)
{
    memset(f, 0, sizeof *f);
    if (strcmp(path, "-") == 0)
        return ofile_stdout(f, err);
    size_t n = strlen(path) + 32;
    f->path = dupstr(path);
    f->tmp = malloc(n);
    if (f->path == NULL || f->tmp == NULL) {
        qc_ofile_abort(f);
        return qc_err_set(err, QC_ENOMEM, "%s: out of memory", path);
    }
    snprintf(f->tmp, n, "%s.tmp-%ld", path, (long)getpid());
    f->fp = fopen(f->tmp, "w");
    if (f->fp == NULL) {
        int e = errno;
        qc_ofile_abort(f);
        return qc_err_set(err, QC_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    note_open(f->tmp);
    return 0;
}

static void ofile_release(qc_ofile *f)
{
    if (f->tmp) /* after the file was renamed or removed */
        forget_open(f->tmp);
    free(f->path);
    free(f->tmp);
    memset(f, 0, sizeof *f);
}

void qc_ofile_abort(qc_ofile *f)
{
    if (f->fp) {
        fclose(f->fp);
        if (f->tmp) /* else standard output: nothing to remove */
            remove(f->tmp);
    }
    ofile_release(f);
}

int qc_ofile_commit(qc_ofile *f, qc_err *err)
{
    int bad = ferror(f->fp) != 0;
    if (fclose(f->fp) != 0)
        bad = 1;
    f->fp = NULL;
    if (!f->tmp) { /* standard output */
        int e = errno;
        ofile_release(f);
        return bad ? qc_err_set(err, QC_EIO, "standard output: write failed: %s", strerror(e)) : 0;
    }
    if (bad || rename(f->tmp, f->path) != 0) {
        int e = errno;
        remove(f->tmp);
        qc_err_set(err, QC_EIO, "%s: write failed: %s", f->path, strerror(e));
        ofile_release(f);
        return QC_EIO;
    }
    ofile_release(f);
    return 0;
}

int qc_json_write(const json_t *v, const char *path, qc_err *err)
{
    size_t flags = JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10);
    if (path == NULL || strcmp(path, "-") == 0) {
        if (json_dumpf(v, stdout, flags) != 0 || fputc('\n', stdout) == EOF)
            return qc_err_set(err, QC_EIO, "stdout: write failed");
        fflush(stdout);
        return 0;
    }
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc != 0)
        return rc;
    if (json_dumpf(v, f.fp, flags) != 0) {
        qc_ofile_abort(&f);
        return qc_err_set(err, QC_EIO, "%s: write failed", path);
    }
    fputc('\n', f.fp);
    return qc_ofile_commit(&f, err);
}

int qc_mkdir_p(const char *dir, qc_err *err)
{
    char *p = dupstr(dir);
    if (p == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char c = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                int e = errno;
                qc_err_set(err, QC_EIO, "%s: cannot create directory: %s", p, strerror(e));
                free(p);
                return QC_EIO;
            }
            *s = c;
            if (c == '\0')
                break;
        }
    }
    free(p);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return qc_err_set(err, QC_EIO, "%s: not a directory", dir);
    return 0;
}
