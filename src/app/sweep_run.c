/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_run.c: `qctl sweep FILE` once its flags are read: the file
 * loaded and its experiment's flags checked, the points run locally
 * (sweep_exec.c) or over MPI ranks (sweep_mpi.c) through the master's
 * journal (sweep_master.c), then the CSV, the JSON and the report written
 * at the end, from the records, atomically. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard.h"
#include "interrupt.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "sweep_master.h"

extern char **environ;

typedef struct sweep_run_ctx {
    sweep_opts *o;
    qc_sweep *sw;
    sweep_master m;
    char *journal, *csv, *json;
} sweep_run_ctx;

static int master_setup(void *vctx, sweep_master **m)
{
    sweep_run_ctx *c = vctx;
    int rc = sweep_master_open(&c->m, c->sw, c->journal, c->o->fresh, c->o->quiet);
    *m = &c->m;
    return rc;
}

static int master_finish(void *vctx, sweep_master **mp)
{
    sweep_run_ctx *c = vctx;
    sweep_master *m = *mp;
    const qc_sweep *sw = c->sw;
    cli_progress_done(&m->prog);
    qc_err err = {0};
    size_t failed = 0, pending = 0;
    for (size_t i = 0; i < qc_sweep_npoints(sw); i++) {
        failed += m->pts[i].state == QC_SWEEP_FAILED;
        pending += m->pts[i].state == QC_SWEEP_PENDING;
    }
    json_t *summary = qc_sweep_results_json(sw, m->pts);
    if (summary == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    int rc = 0;
    if (qc_sweep_write_csv(sw, m->pts, c->csv, &err) != 0 ||
        qc_json_write(summary, c->json, &err) != 0) {
        cli_error("sweep: %s", err.msg);
        rc = QC_EXIT_FAIL;
    }
    if (rc == 0 && c->o->report != NULL)
        rc = sweep_write_report(c->o, sw, m->pts, summary);
    json_decref(summary);
    if (!c->o->quiet)
        fprintf(stderr,
                "qctl: sweep: %zu points, %zu from the journal, %zu runs now, %zu failed; "
                "wrote %s and %s\n",
                qc_sweep_npoints(sw), m->resumed, m->runs, failed + pending, c->csv, c->json);
    for (size_t i = 0; i < qc_sweep_npoints(sw) && failed > 0; i++)
        if (m->pts[i].state == QC_SWEEP_FAILED) {
            char *key = qc_sweep_point_key(sw, i);
            cli_error("sweep: point %zu (%s) failed: %s", i, key ? key : "", m->pts[i].error);
            free(key);
            break; /* the first; the CSV has all */
        }
    if (rc == 0 && (failed > 0 || pending > 0))
        rc = QC_EXIT_FAIL;
    return rc;
}

/* The results base: --results, or STEM-results in the current directory. */
static char *results_base(const sweep_opts *o)
{
    if (o->results != NULL)
        return strdup(o->results);
    const char *slash = strrchr(o->file, '/');
    const char *name = slash ? slash + 1 : o->file;
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".json") == 0)
        n -= 5;
    char *b = malloc(n + 9);
    if (b != NULL)
        snprintf(b, n + 9, "%.*s-results", (int)n, name);
    return b;
}

static char *with_ext(const char *base, const char *ext)
{
    size_t n = strlen(base) + strlen(ext) + 1;
    char *p = malloc(n);
    if (p != NULL)
        snprintf(p, n, "%s%s", base, ext);
    return p;
}

/* The flags of the experiment's command line (point 0: every point has
 * the same flags) checked against the flags that command accepts, so a
 * misspelled argument stops the sweep before any point runs. */
static int check_sweep_flags(const cli_command_row *commands, const qc_sweep *sw,
                             const char *file, int *has_check)
{
    *has_check = 0;
    char **av = NULL;
    size_t ac = 0;
    qc_err err = {0};
    if (qc_sweep_argv(sw, 0, 0, &av, &ac, &err) != 0) {
        cli_error("sweep: %s: %s", file, err.msg);
        return QC_EXIT_USAGE;
    }
    int used = 0, rc = 0;
    const cli_command_row *c = cli_command_find(commands, (int)ac, av, &used);
    static char list[16384];
    if (c == NULL || strcmp(c->name, "help") == 0 || strcmp(c->name, "completion") == 0 ||
        strcmp(c->name, "sweep") == 0 ||
        cli_list_flags(c, list, sizeof list) <= 0) {
        cli_error("sweep: %s: experiment '%s' is not a qctl command that takes flags", file,
                  qc_sweep_experiment(sw));
        rc = QC_EXIT_USAGE;
    }
    for (const char *l = list; rc == 0 && *l;) {
        size_t n = strcspn(l, "=\n");
        *has_check |= n == 5 && strncmp(l, "check", 5) == 0;
        l += strcspn(l, "\n");
        if (*l)
            l++;
    }
    for (size_t i = (size_t)used; rc == 0 && i < ac; i++) {
        if (strncmp(av[i], "--", 2) != 0)
            continue;
        const char *name = av[i] + 2;
        size_t len = strcspn(name, "=");
        int found = 0, takes = 0;
        for (const char *l = list; *l && !found;) {
            size_t n = strcspn(l, "=\n");
            if (n == len && strncmp(l, name, len) == 0) {
                found = 1;
                takes = l[n] == '=';
            }
            l += strcspn(l, "\n");
            if (*l)
                l++;
        }
        if (!found) {
            cli_error("sweep: %s: '%.*s' is not a flag of 'qctl %s' (see 'qctl help %s')", file,
                      (int)len + 2, av[i], c->name, c->name);
            rc = QC_EXIT_USAGE;
        } else if (takes && name[len] != '=') {
            i++; /* its value */
        }
    }
    qc_sweep_argv_free(av);
    return rc;
}

static qc_sweep *load_sweep(const sweep_opts *o, int *has_check, int *rc)
{
    const char *file = cli_input_path("sweep FILE", o->file, CLI_PATH_IN_NONEMPTY);
    if (!file) {
        *rc = QC_EXIT_USAGE;
        return NULL;
    }
    if ((*rc = cli_check_path("sweep FILE", file, CLI_PATH_IN_NONEMPTY)) != 0)
        return NULL;
    FILE *fp = fopen(file, "rb");
    if (fp == NULL) {
        cli_error("sweep: %s: %s", o->file, strerror(errno));
        *rc = QC_EXIT_USAGE;
        return NULL;
    }
    size_t len = 0;
    char *text = sweep_read_fd(fileno(fp), &len);
    fclose(fp);
    if (text == NULL) {
        cli_error("sweep: %s: cannot read", o->file);
        *rc = QC_EXIT_FAIL;
        return NULL;
    }
    qc_sweep *sw = NULL;
    qc_err err = {0};
    int e = qc_sweep_parse(&sw, text, len, o->file, o->sets.v, o->sets.n, &err);
    free(text);
    if (e != 0) {
        cli_error("sweep: %s", err.msg);
        *rc = cli_exit_code(e);
        return NULL;
    }
    if ((*rc = check_sweep_flags(o->commands, sw, o->file, has_check)) != 0) {
        qc_sweep_free(sw);
        return NULL;
    }
    return sw;
}

/* The path of this program, for the children: /proc/self/exe resolved
 * once, so that every child runs the same binary. */
static char *self_exe(void)
{
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return strdup("/proc/self/exe");
    buf[n] = '\0';
    return strdup(buf);
}

/* 1 when both paths name one existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* A point's check under way: `exe ARGS --check`, stdout discarded, its
 * stderr on fd. */
typedef struct point_probe {
    pid_t pid;
    int fd;
    size_t point;
} point_probe;

/* Starts the check of one point: 0, or an exit status with msg set. */
static int check_start(point_probe *pp, const char *exe, char **av, size_t ac, char *msg,
                       size_t n)
{
    pp->pid = -1;
    pp->fd = -1;
    char **args = calloc(ac + 3, sizeof *args);
    int pe[2] = {-1, -1};
    if (args == NULL || pipe(pe) != 0 || fcntl(pe[0], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(pe[1], F_SETFD, FD_CLOEXEC) != 0) {
        snprintf(msg, n, "cannot start a check: %s", strerror(errno));
        free(args);
        if (pe[0] >= 0) {
            close(pe[0]);
            close(pe[1]);
        }
        return QC_EXIT_FAIL;
    }
    args[0] = (char *)exe;
    memcpy(args + 1, av, ac * sizeof *args);
    args[ac + 1] = (char *)"--check";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    int e = posix_spawn(&pp->pid, exe, &fa, NULL, args, environ);
    posix_spawn_file_actions_destroy(&fa);
    free(args);
    close(pe[1]);
    if (e != 0) {
        close(pe[0]);
        pp->pid = -1;
        snprintf(msg, n, "cannot start %s: %s", exe, strerror(e));
        return QC_EXIT_FAIL;
    }
    pp->fd = pe[0];
    return 0;
}

/* Waits for a point's check: 0, or the child's exit status with its first
 * "qctl: " line (without the prefix) in msg. */
static int check_end(point_probe *pp, char *msg, size_t n)
{
    char err[8192];
    size_t got = 0;
    for (;;) {
        ssize_t r = read(pp->fd, err + got, sizeof err - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
        if (got == sizeof err - 1) { /* the rest is not needed: drain it */
            char sink[4096];
            while (read(pp->fd, sink, sizeof sink) > 0)
                ;
            break;
        }
    }
    close(pp->fd);
    pp->fd = -1;
    err[got] = '\0';
    int status = 0;
    while (waitpid(pp->pid, &status, 0) < 0 && errno == EINTR)
        ;
    pp->pid = -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    const char *line = strstr(err, "qctl: ");
    if (line != NULL && line != err && line[-1] != '\n')
        line = NULL;
    if (line != NULL)
        snprintf(msg, n, "%.*s", (int)strcspn(line + 6, "\n"), line + 6);
    else if (WIFEXITED(status))
        snprintf(msg, n, "its check exited with status %d", WEXITSTATUS(status));
    else
        snprintf(msg, n, "its check ended by signal %d", WTERMSIG(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : QC_EXIT_FAIL;
}

/* Every point's command line checked by the experiment's own --check
 * before any run, -j at once in canonical order: a point the experiment
 * refuses stops the sweep here, naming the file and the point (the first
 * such point in canonical order, whatever -j), instead of turning into an
 * error row once its runs start. */
static int check_points(const sweep_opts *o, const qc_sweep *sw, const char *exe)
{
    enum { BATCH_MAX = 64 };
    point_probe pp[BATCH_MAX];
    const size_t batch = o->jobs < 1 ? 1 : o->jobs > BATCH_MAX ? BATCH_MAX : o->jobs;
    const size_t np = qc_sweep_npoints(sw);
    char msg[1024];
    int rc = 0;
    size_t bad = 0;
    for (size_t first = 0; first < np && rc == 0; first += batch) {
        size_t k = 0;
        for (size_t p = first; p < np && k < batch && rc == 0; p++) {
            char **av = NULL;
            size_t ac = 0;
            qc_err err = {0};
            if (qc_sweep_argv(sw, p, 0, &av, &ac, &err) != 0) {
                snprintf(msg, sizeof msg, "%s", err.msg);
                rc = -1;
                break;
            }
            if ((rc = check_start(&pp[k], exe, av, ac, msg, sizeof msg)) == 0)
                pp[k++].point = p;
            else
                bad = p;
            qc_sweep_argv_free(av);
        }
        for (size_t i = 0; i < k; i++) { /* all of them waited for */
            char m[1024];
            int r = check_end(&pp[i], m, sizeof m);
            if (r != 0 && (rc == 0 || pp[i].point < bad)) {
                rc = r;
                bad = pp[i].point;
                snprintf(msg, sizeof msg, "%s", m);
            }
        }
    }
    if (rc == -1) {
        cli_error("sweep: %s: %s", o->file, msg);
        return QC_EXIT_USAGE;
    }
    if (rc != 0) {
        char *key = qc_sweep_point_key(sw, bad);
        cli_error("sweep: %s: point %zu (%s): %s", o->file, bad, key ? key : "", msg);
        free(key);
        return rc == QC_EXIT_FAIL ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

int sweep_check(sweep_opts *o)
{
    qc_sweep_free(o->sw);
    o->sw = NULL;
    free(o->base);
    o->base = NULL;
    if (o->file == NULL) {
        cli_error("sweep: a sweep FILE is required (see 'qctl sweep --help')");
        return QC_EXIT_USAGE;
    }
    int rc = 0, has_check = 0;
    o->sw = load_sweep(o, &has_check, &rc);
    if (o->sw == NULL)
        return rc;
    o->base = results_base(o);
    char *exe = self_exe();
    char *journal = o->base ? with_ext(o->base, ".journal") : NULL;
    char *csv = o->base ? with_ext(o->base, ".csv") : NULL;
    char *json = o->base ? with_ext(o->base, ".json") : NULL;
    if (exe == NULL || journal == NULL || csv == NULL || json == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    } else if (same_file(o->file, json) || same_file(o->file, csv) ||
               same_file(o->file, journal)) {
        cli_error("sweep: --results %s would overwrite the sweep file %s", o->base, o->file);
        rc = QC_EXIT_USAGE;
    } else if (o->report != NULL && (rc = cli_report_prepare(o->report)) != 0) {
        ;
    } else if ((rc = sweep_master_probe(o->sw, journal, o->fresh)) != 0) {
        ;
    } else if (has_check) {
        rc = check_points(o, o->sw, exe);
    }
    free(exe);
    free(journal);
    free(csv);
    free(json);
    return rc;
}

void sweep_opts_free(sweep_opts *o)
{
    qc_sweep_free(o->sw);
    o->sw = NULL;
    free(o->base);
    o->base = NULL;
}

int sweep_main(sweep_opts *op)
{
    sweep_opts o = *op;
    int rc = 0;
    sweep_run_ctx c = {.o = &o, .sw = o.sw};
    char *exe = self_exe();
    c.journal = o.base ? with_ext(o.base, ".journal") : NULL;
    c.csv = o.base ? with_ext(o.base, ".csv") : NULL;
    c.json = o.base ? with_ext(o.base, ".json") : NULL;
    if (c.sw == NULL || exe == NULL || c.journal == NULL || c.csv == NULL || c.json == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto out;
    }
    if (sweep_mpi_wanted()) {
        rc = sweep_mpi_run(c.sw, exe, master_setup, master_finish, &c);
        goto out;
    }
    sweep_master *m;
    if ((rc = master_setup(&c, &m)) != 0) {
        sweep_master_close(&c.m);
        goto out;
    }
    size_t n = 0;
    size_t *todo = sweep_master_todo(m, &n);
    qc_err err = {0};
    cli_interrupt_hold(1);
    int e = todo == NULL ? QC_ENOMEM
                         : qc_sweep_run_points(c.sw, exe, todo, n, o.jobs, &cli_cancel, sweep_master_record, m,
                                            &m->runs, &err);
    cli_interrupt_hold(0);
    free(todo);
    if (cli_interrupted()) {
        cli_progress_done(&m->prog);
        char left[4200];
        snprintf(left, sizeof left,
                 "%zu of %zu points finished, kept in %s: the same command resumes from it",
                 m->resumed + m->done_now, qc_sweep_npoints(c.sw), c.journal);
        rc = cli_interrupt_exit(left);
    } else if (e != 0) {
        cli_progress_done(&m->prog);
        if (err.msg[0])
            cli_error("sweep: %s", err.msg);
        rc = e == QC_EINVAL ? QC_EXIT_USAGE : QC_EXIT_FAIL;
    } else {
        rc = master_finish(&c, &m);
    }
    sweep_master_close(&c.m);
out:
    free(exe);
    free(c.journal);
    free(c.csv);
    free(c.json);
    return rc;
}
