/* SPDX-License-Identifier: GPL-3.0-or-later */
/* guard.c: path, memory and output-size checks made before a run (see
 * guard.h). */
#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmdline.h"
#include "flags.h"

/* Which flags name files, by command, for the commands still parsed with
 * cli_getopt (a cli_flag row names its own kind, in its path field); the
 * "*" rows hold for every command. A command or flag missing here names
 * no file. */
static const struct {
    const char *cmd, *flag;
    cli_path_kind kind;
} path_flags[] = {
    {"*", "output", CLI_PATH_OUT},
    {"*", "series", CLI_PATH_OUT},
    {"*", "plot", CLI_PATH_OUT_DIR},
    {"*", "report", CLI_PATH_OUT_DIR},
    {"load", "traffic", CLI_PATH_IN_NONEMPTY},
    {"load", "replay", CLI_PATH_IN_NONEMPTY},
};

cli_path_kind cli_path_flag(const char *cmd, const char *name)
{
    cli_path_kind generic = 0;
    for (size_t i = 0; i < sizeof path_flags / sizeof path_flags[0]; i++) {
        if (strcmp(path_flags[i].flag, name) != 0)
            continue;
        if (cmd && strcmp(path_flags[i].cmd, cmd) == 0)
            return path_flags[i].kind;
        if (strcmp(path_flags[i].cmd, "*") == 0)
            generic = path_flags[i].kind;
    }
    /* proxy and backend have no --output, --plot or --report; their
     * --series is the control loop's CSV, a file like the others */
    return generic;
}

static int in_file(const char *what, const char *path, int nonempty)
{
    struct stat st;
    if (*path == '\0') {
        cli_error("%s: empty file name", what);
        return QC_EXIT_USAGE;
    }
    if (stat(path, &st) != 0) {
        cli_error("%s: %s: %s", what, path, strerror(errno));
        return QC_EXIT_USAGE;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("%s: %s: is a directory, not a file", what, path);
        return QC_EXIT_USAGE;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        cli_error("%s: %s: cannot read: %s", what, path, strerror(errno));
        return QC_EXIT_USAGE;
    }
    close(fd);
    if (nonempty && S_ISREG(st.st_mode) && st.st_size == 0) {
        cli_error("%s: %s: the file is empty", what, path);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* The directory part of path ("." when none), in buf. */
static const char *parent_of(const char *path, char *buf, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return ".";
    size_t len = slash == path ? 1 : (size_t)(slash - path);
    if (len >= n)
        len = n - 1;
    memcpy(buf, path, len);
    buf[len] = '\0';
    return buf;
}

/* Creates and removes a file named like the atomic writer's temporary
 * (path.tmp-PID) in the place path names: the one test that answers for
 * read-only file systems, missing or wrong-type parents and permissions
 * alike. */
static int probe_create(const char *what, const char *path)
{
    size_t n = strlen(path) + 40;
    char *tmp = malloc(n);
    if (tmp == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    snprintf(tmp, n, "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        int e = errno;
        char pb[4096];
        cli_error("%s: %s: cannot create a file in '%s': %s", what, path,
                  parent_of(path, pb, sizeof pb), strerror(e));
        free(tmp);
        return QC_EXIT_USAGE;
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return 0;
}

static int out_file(const char *what, const char *path)
{
    struct stat st, pst;
    if (*path == '\0') {
        cli_error("%s: empty file name", what);
        return QC_EXIT_USAGE;
    }
    if (strcmp(path, "-") == 0)
        return 0;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_error("%s: %s: is a directory (give a file name)", what, path);
            return QC_EXIT_USAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            cli_error("%s: %s: exists and is not a regular file", what, path);
            return QC_EXIT_USAGE;
        }
        /* the writer renames a temporary over the file: a file mounted
         * on its own (another device than its directory) cannot be
         * replaced, nor can a file in a directory we cannot write */
        char pb[4096];
        if (stat(parent_of(path, pb, sizeof pb), &pst) == 0 && pst.st_dev != st.st_dev) {
            cli_error("%s: %s: is a mount point and cannot be replaced", what, path);
            return QC_EXIT_USAGE;
        }
    }
    return probe_create(what, path);
}

static int out_dir(const char *what, const char *path)
{
    struct stat st;
    if (*path == '\0') {
        cli_error("%s: empty directory name", what);
        return QC_EXIT_USAGE;
    }
    size_t n = strlen(path) + 48;
    char *p = malloc(n);
    if (p == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    /* the deepest part of path that exists must be a directory we can
     * write in; the rest is created by the command */
    strcpy(p, path);
    int rc = 0;
    for (;;) {
        if (stat(p, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                if (strcmp(p, path) == 0)
                    cli_error("%s: '%s' exists and is not a directory", what, path);
                else
                    cli_error("%s: '%s' is not a directory (in '%s')", what, p, path);
                rc = QC_EXIT_USAGE;
            } else {
                size_t l = strlen(p);
                snprintf(p + l, n - l, "/.qctl-probe-%ld", (long)getpid());
                if (mkdir(p, 0755) != 0) {
                    int e = errno;
                    p[l] = '\0';
                    cli_error("%s: %s: cannot create it in '%s': %s", what, path, p, strerror(e));
                    rc = QC_EXIT_USAGE;
                } else {
                    rmdir(p);
                }
            }
            break;
        }
        char *slash = strrchr(p, '/');
        if (slash == NULL) {
            strcpy(p, ".");
        } else if (slash == p) {
            p[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    free(p);
    return rc;
}

/* The copy of standard input (cli_input_path), removed at exit. */
static char stdin_copy[64];

static void stdin_copy_remove(void)
{
    if (stdin_copy[0])
        unlink(stdin_copy);
}

/* Standard input copied to a temporary file, once: the readers of
 * captures, models and scenarios may look at a file's start, seek, or
 * read it twice, which a pipe cannot do. */
static const char *stdin_file(const char *what, int nonempty)
{
    if (stdin_copy[0]) {
        cli_error("%s: '-': standard input is already read by another input", what);
        return NULL;
    }
    const char *dir = getenv("TMPDIR");
    snprintf(stdin_copy, sizeof stdin_copy, "%s/qctl-stdin-XXXXXX",
             dir && *dir && strlen(dir) < 32 ? dir : "/tmp");
    int fd = mkstemp(stdin_copy);
    if (fd < 0) {
        cli_error("%s: '-': cannot copy standard input to %s: %s", what, stdin_copy,
                  strerror(errno));
        stdin_copy[0] = 0;
        return NULL;
    }
    atexit(stdin_copy_remove);
    static char buf[65536];
    size_t total = 0;
    for (;;) {
        ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error("%s: '-': cannot read standard input: %s", what, strerror(errno));
            close(fd);
            return NULL;
        }
        if (n == 0)
            break;
        for (ssize_t w = 0; w < n;) {
            ssize_t k = write(fd, buf + w, (size_t)(n - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0) {
                cli_error("%s: '-': cannot copy standard input to %s: %s", what, stdin_copy,
                          strerror(errno));
                close(fd);
                return NULL;
            }
            w += k;
        }
        total += (size_t)n;
    }
    if (close(fd) != 0) {
        cli_error("%s: '-': cannot copy standard input to %s", what, stdin_copy);
        return NULL;
    }
    if (nonempty && total == 0) {
        cli_error("%s: '-': standard input is empty", what);
        return NULL;
    }
    return stdin_copy;
}

const char *cli_input_name(const char *path)
{
    return stdin_copy[0] && path && strcmp(path, stdin_copy) == 0 ? "-" : path;
}

const char *cli_input_path(const char *what, const char *path, cli_path_kind kind)
{
    if (strcmp(path, "-") != 0 || (kind != CLI_PATH_IN && kind != CLI_PATH_IN_NONEMPTY))
        return path;
    return stdin_file(what, kind == CLI_PATH_IN_NONEMPTY);
}

int cli_check_path(const char *what, const char *path, cli_path_kind kind)
{
    char buf[4096];
    switch (kind) {
    case CLI_PATH_IN: return in_file(what, path, 0);
    case CLI_PATH_IN_NONEMPTY: return in_file(what, path, 1);
    case CLI_PATH_OUT: return out_file(what, path);
    case CLI_PATH_OUT_PREFIX:
        snprintf(buf, sizeof buf, "%s.json", path);
        return out_file(what, buf);
    case CLI_PATH_OUT_DIR: return out_dir(what, path);
    case CLI_PATH_APPEND: {
        struct stat st;
        if (stat(path, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)))
            return 0;
        return out_file(what, path);
    }
    }
    return 0;
}

const char *cli_bytes(double b, char *buf, size_t n)
{
    if (b >= 1e12)
        snprintf(buf, n, "%.3g TB", b / 1e12);
    else if (b >= 1e9)
        snprintf(buf, n, "%.3g GB", b / 1e9);
    else if (b >= 1e6)
        snprintf(buf, n, "%.3g MB", b / 1e6);
    else
        snprintf(buf, n, "%.3g kB", b / 1e3);
    return buf;
}

static double physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (double)pages * (double)size : INFINITY;
}

/* The one policy of both budgets: bytes past what there is (have) are
 * refused, bytes past the budget only without --force. size_fmt says the
 * size ("would be about %s"), have_fmt what there is ("the %s free"). */
static int check_budget(const char *flag, const char *what, double bytes, double have,
                        double budget, int force, const char *size_fmt, const char *have_fmt)
{
    char a[32], b[32], size[128], there[128];
    snprintf(size, sizeof size, size_fmt, cli_bytes(bytes, a, sizeof a));
    if (!(bytes <= have)) {
        snprintf(there, sizeof there, have_fmt, cli_bytes(have, b, sizeof b));
        cli_error("%s: %s %s, more than %s", flag, what, size, there);
        return QC_EXIT_USAGE;
    }
    if (bytes > budget && !force) {
        cli_error("%s: %s %s (limit %s without --force)", flag, what, size,
                  cli_bytes(budget, b, sizeof b));
        return QC_EXIT_USAGE;
    }
    return 0;
}

int cli_check_memory(const char *flag, double bytes, const char *what, int force)
{
    return check_budget(flag, what, bytes, physical_memory(), CLI_MEMORY_BUDGET, force,
                        "would need about %s of memory", "this machine's %s");
}

int cli_check_output_size(const char *flag, double bytes, const char *what, const char *path,
                          int force)
{
    char pb[4096];
    struct statvfs vfs;
    double avail = INFINITY;
    if (path && strcmp(path, "-") != 0 && statvfs(parent_of(path, pb, sizeof pb), &vfs) == 0)
        avail = (double)vfs.f_bavail * (double)vfs.f_frsize;
    return check_budget(flag, what, bytes, avail, CLI_OUTPUT_BUDGET, force, "would be about %s",
                        "the %s free where it goes");
}

int cli_check_series(const char *flag, double span, double dt, size_t point_bytes)
{
    char what[96];
    double points = span / dt;
    if (!(span > 0) || !isfinite(span) || !(dt > 0))
        return 0;
    /* the points of replication 1 in an array that doubles as it grows */
    snprintf(what, sizeof what, "a series of %.3g points (%.3g s of simulated time / %g s)",
             points, span, dt);
    return cli_check_memory(flag, 2.0 * points * (double)point_bytes, what, cli_force);
}

int cli_check_warmup(const char *flag, double warmup, double length, const char *unit)
{
    if (warmup > length && !cli_force) {
        cli_error("%s: a warm-up of %g %s is longer than the %g %s measured after it; "
                  "lengthen the run or give --force",
                  flag, warmup, unit, length, unit);
        return QC_EXIT_USAGE;
    }
    return 0;
}
