/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep.c: qctl sweep: runs a qctl experiment over a grid of parameters,
 * with replications, locally in parallel or across MPI ranks.
 *
 * The journal is the sweep's memory: a point counts as finished once its
 * record is in the journal, written and fsync'd, and only then. A sweep
 * killed at any instant resumes from the journal and neither loses nor
 * repeats a finished point; the CSV and JSON are written at the end, from
 * the records, atomically. docs/sweep.md describes the file and outputs. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/plot.h"
#include "app/report.h"
#include "flags.h"
#include "guard.h"
#include "interrupt.h"
#include "qctl/output.h"
#include "report_cli.h"
#include "sweep_cli.h"

static const char sweep_synopsis[] = "qctl sweep FILE [options]";

static const char sweep_about[] =
    "Runs a qctl experiment (sim, mdp, design, sysid) over a grid of parameters\n"
    "with replications, each run a child process, and collects metrics from its\n"
    "JSON output: mean and t-interval across replications per point. Started by\n"
    "mpirun, rank 0 hands points out to the other ranks. See docs/sweep.md.\n";

/* --set given more often than this is refused, naming the flag. */
#define QC_SWEEP_SETS_MAX 256

typedef struct sweep_opts {
    const char *file;
    cli_strs sets; /* --set, in order (in set_v) */
    const char *set_v[QC_SWEEP_SETS_MAX];
    unsigned jobs;
    const char *results;
    const char *report;
    int fresh, quiet;
    char *base;
    int argc;
    char **argv;
} sweep_opts;

/* ---- the master: journal, records, outputs ---- */

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

static char *read_fd(int fd, size_t *len)
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
    char *text = read_fd(m->fd, &len);
    if (text == NULL) {
        cli_error("sweep: %s: cannot read: %s", journal, strerror(errno));
        return QC_EXIT_FAIL;
    }
    qc_err err = {0};
    int rc = qc_sweep_journal_load(sw, text, len, journal, m->pts, &good, &m->resumed, &err);
    free(text);
    if (rc == QC_ERANGE) {
        cli_error("sweep: %s; use --fresh to start over, or --results to write elsewhere",
                  err.msg);
        return QC_EXIT_USAGE;
    }
    if (rc != 0) {
        cli_error("sweep: %s (use --fresh to start over)", err.msg);
        return QC_EXIT_USAGE;
    }
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

/* ---- the report ---- */

/* The x axis of the plots: of the parameters whose values are all
 * numbers, the one with the most values (the first of equals), so that the
 * lines are as long and as few as they can be; nparams if none. */
static size_t first_numeric(const qc_sweep *sw)
{
    size_t best = qc_sweep_nparams(sw), most = 0;
    for (size_t k = 0; k < qc_sweep_nparams(sw); k++) {
        size_t i, n = qc_sweep_param_nvalues(sw, k);
        for (i = 0; i < n; i++)
            if (!qc_sweep_param_is_number(sw, k, i))
                break;
        if (i < n)
            continue;
        if (best == qc_sweep_nparams(sw) || n > most) {
            best = k;
            most = n;
        }
    }
    return best;
}

/* Points sharing every parameter but x (a line of the plot) have the same
 * "rest" key; lines are drawn in canonical order of their first point. */
static int same_rest(const qc_sweep *sw, size_t a, size_t b, size_t x)
{
    for (size_t k = 0; k < qc_sweep_nparams(sw); k++)
        if (k != x && qc_sweep_point_index(sw, a, k) != qc_sweep_point_index(sw, b, k))
            return 0;
    return 1;
}

static int plot_metric(const qc_sweep *sw, const qc_sweep_point *pts, size_t m, size_t x,
                       const char *dir)
{
    const size_t np = qc_sweep_npoints(sw);
    const char *mname = qc_sweep_metric_name(sw, m);
    const char *xname = qc_sweep_param_name(sw, x);
    size_t plen = strlen(dir) + strlen(mname) + 16;
    char *dat = malloc(plen);
    unsigned char *seen = calloc(np ? np : 1, 1);
    size_t bcap = 4096, bn = 0;
    char *body = malloc(bcap);
    int rc = 0;
    if (dat == NULL || seen == NULL || body == NULL) {
        rc = QC_ENOMEM;
        goto out;
    }
    snprintf(dat, plen, "%s/%s.dat", dir, mname);
    qc_ofile f;
    qc_err err = {0};
    if ((rc = qc_ofile_open(&f, dat, &err)) != 0)
        goto out;
    double xmin = INFINITY, xmax = -INFINITY;
    for (size_t i = 0; i < qc_sweep_param_nvalues(sw, x); i++) {
        xmin = fmin(xmin, qc_sweep_param_value(sw, x, i));
        xmax = fmax(xmax, qc_sweep_param_value(sw, x, i));
    }
    /* A log range's points spread evenly on a log axis. */
    const int logx = xmin > 0 && xmax / xmin >= 100;
    bn = (size_t)snprintf(body, bcap,
                          "%sset key outside right noenhanced\nset xlabel '%s' noenhanced\n"
                          "set ylabel '%s' noenhanced\n"
                          "set title '%s against %s (%.0f%% intervals)' noenhanced\n"
                          "set bars small\n"
                          /* room around the points, so that no error bar
                           * lies on the frame and hides in it */
                          "set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08\n",
                          logx ? "set logscale x\n" : "", xname, mname, mname, xname,
                          100 * qc_sweep_confidence(sw));
    size_t block = 0, rows = 0;
    for (size_t a = 0; a < np; a++) {
        if (seen[a])
            continue;
        /* One block per line: its points in canonical order (x ascending
         * as written). */
        char title[512] = "";
        size_t tn = 0;
        for (size_t k = 0; k < qc_sweep_nparams(sw); k++)
            if (k != x && tn < sizeof title)
                tn += (size_t)snprintf(title + tn, sizeof title - tn, "%s%s=%s", tn ? " " : "",
                                       qc_sweep_param_name(sw, k),
                                       qc_sweep_param_text(sw, k, qc_sweep_point_index(sw, a, k)));
        /* A value's quote would end gnuplot's string. */
        for (char *q = title; *q; q++)
            if (*q == '\'' || *q == '\\')
                *q = ' ';
        for (size_t b = a; b < np; b++) {
            if (seen[b] || !same_rest(sw, a, b, x))
                continue;
            seen[b] = 1;
            const double xv = qc_sweep_param_value(sw, x, qc_sweep_point_index(sw, b, x));
            if (pts[b].state != QC_SWEEP_DONE || !isfinite(pts[b].m[m].value))
                continue;
            const qc_sweep_val *v = &pts[b].m[m];
            rows++;
            fprintf(f.fp, "%.10g %.10g %.10g %.10g\n", xv, v->value,
                    isfinite(v->lo) ? v->lo : v->value, isfinite(v->hi) ? v->hi : v->value);
        }
        fputs("\n\n", f.fp);
        char line[1024];
        int ln = snprintf(line, sizeof line, "%s'%s' index %zu using 1:2:3:4 with yerrorlines "
                                             "title '%s'",
                          block ? ", " : "plot ", dat, block, tn ? title : mname);
        if (bn + (size_t)ln + 2 > bcap) {
            bcap = 2 * (bn + (size_t)ln + 2);
            char *nb = realloc(body, bcap);
            if (nb == NULL) {
                qc_ofile_abort(&f);
                rc = QC_ENOMEM;
                goto out;
            }
            body = nb;
        }
        memcpy(body + bn, line, (size_t)ln + 1);
        bn += (size_t)ln;
        block++;
    }
    if ((rc = qc_ofile_commit(&f, &err)) != 0)
        goto out;
    if (rows == 0) {
        rc = QC_EEMPTY; /* no point has a value: nothing to draw */
        goto out;
    }
    if (qc_plot(dir, mname, body, &err) != 0 && err.code != QC_ENOTSUP)
        cli_error("sweep: %s", err.msg);
out:
    if (rc == QC_ENOMEM)
        cli_error("out of memory");
    free(dat);
    free(seen);
    free(body);
    return rc;
}

/* The summary as the page shows it: each metric of a point named with
 * the unit of the summary key it reads ("response" reading
 * metrics.response_time is "response (s)"), the members kept in order. A
 * copy; the --results JSON is unchanged. */
static json_t *page_units(const json_t *summary)
{
    json_t *page = json_deep_copy(summary);
    const json_t *metrics = json_object_get(json_object_get(page, "sweep"), "metrics");
    json_t *pts = json_object_get(page, "points");
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        json_t *row = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(p, k, v)
        {
            const char *path = json_string_value(json_object_get(metrics, k));
            const char *leaf = path && strrchr(path, '.') ? strrchr(path, '.') + 1 : path;
            const char *unit = leaf ? qc__report_unit(leaf) : NULL;
            char name[256];
            if (unit != NULL && snprintf(name, sizeof name, "%s (%s)", k, unit) < (int)sizeof name)
                json_object_set(row, name, v);
            else
                json_object_set(row, k, v);
        }
        json_array_set_new(pts, i, row);
    }
    return page;
}

static int write_report(const sweep_opts *o, const qc_sweep *sw, const qc_sweep_point *pts,
                        const json_t *summary)
{
    const size_t nm = qc_sweep_nmetrics(sw);
    const size_t x = first_numeric(sw);
    const char **plots = calloc(nm ? nm : 1, sizeof *plots);
    size_t nplots = 0;
    if (plots == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    if (x < qc_sweep_nparams(sw))
        for (size_t m = 0; m < nm; m++)
            if (plot_metric(sw, pts, m, x, o->report) == 0)
                plots[nplots++] = qc_sweep_metric_name(sw, m);
    json_t *page = page_units(summary);
    int rc = page ? cli_report_write(o->report, "sweep", o->argc, o->argv, page, plots, nplots)
                  : QC_EXIT_FAIL;
    if (page == NULL)
        cli_error("out of memory");
    json_decref(page);
    free(plots);
    return rc;
}

/* ---- the command ---- */

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
        rc = write_report(c->o, sw, m->pts, summary);
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

static int parse_opts(int argc, char **argv, sweep_opts *o)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = cpus > 0 ? (unsigned)cpus : 1;
    int help = 0, first = 0;
    o->sets.v = o->set_v;
    const cli_flag flags[] = {
        {"set", CLI_STRS, &o->sets, 0, QC_SWEEP_SETS_MAX, .arg = "PATH=JSON",
         .help = "override a field of the file (repeatable), e.g.\n"
                 "--set reps=2 --set args.customers=20000\n"
                 "--set 'params.load=[0.5,0.9]'"},
        {"jobs", CLI_UINT, &o->jobs, 1, HUGE_VAL, .letter = 'j', .arg = "N",
         .help = "runs at once (default: online CPUs)"},
        {"results", CLI_STR, &o->results, .path = CLI_PATH_OUT_PREFIX, .arg = "BASE",
         .help = "write BASE.csv, BASE.json and the journal\n"
                 "BASE.journal (default: ./STEM-results, STEM the\n"
                 "file's name without .json)"},
        {"fresh", CLI_BOOL, &o->fresh, .help = "discard the journal and start over"},
        {"report", CLI_STR, &o->report, .arg = "DIR",
         .help = "HTML report: each metric against the first numeric\n"
                 "parameter, one line per value of the others"},
        {"quiet", CLI_BOOL, &o->quiet, .help = "no progress line and no summary line"},
        CLI_ROW_HELP(&help),
        {"", CLI_NOTE, NULL,
         .help = "\nA rerun of the same command resumes from the journal. A run that fails\n"
                 "makes its point an error row; the sweep goes on and exits 1."},
        {0}};
    int rc = cli_flags_parse("sweep", flags, argc, argv, &first, NULL);
    if (rc < 0)
        cli_flags_usage(stdout, sweep_synopsis, sweep_about, flags);
    if (rc != 0)
        return rc;
    if (first >= argc) {
        cli_error("sweep: a sweep FILE is required (see 'qctl sweep --help')");
        return QC_EXIT_USAGE;
    }
    o->file = argv[first++];
    if (first < argc)
        return cli_extra_operand("sweep", argv[first]);
    return 0;
}

/* The flags of the experiment's command line (point 0: every point has
 * the same flags) checked against the flags that command accepts, so a
 * misspelled argument stops the sweep before any point runs. */
static int check_sweep_flags(const qc_sweep *sw, const char *file)
{
    char **av = NULL;
    size_t ac = 0;
    qc_err err = {0};
    if (qc_sweep_argv(sw, 0, 0, &av, &ac, &err) != 0) {
        cli_error("sweep: %s: %s", file, err.msg);
        return QC_EXIT_USAGE;
    }
    int used = 0, rc = 0;
    const cli_command_row *c = cli_find_command((int)ac, av, &used);
    static char list[16384];
    if (c == NULL || c->fn == cmd_help || c->fn == cmd_completion || c->fn == cmd_sweep ||
        cli_list_flags(c, list, sizeof list) <= 0) {
        cli_error("sweep: %s: experiment '%s' is not a qctl command that takes flags", file,
                  qc_sweep_experiment(sw));
        rc = QC_EXIT_USAGE;
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

static qc_sweep *load_sweep(const sweep_opts *o, int *rc)
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
    char *text = read_fd(fileno(fp), &len);
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
    if ((*rc = check_sweep_flags(sw, o->file)) != 0) {
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

int cmd_sweep(int argc, char **argv)
{
    sweep_opts o = {0};
    o.argc = argc;
    o.argv = argv;
    int rc = parse_opts(argc, argv, &o);
    if (rc != 0) {
        return rc < 0 ? 0 : rc;
    }
    sweep_run_ctx c = {.o = &o};
    char *exe = NULL;
    c.sw = load_sweep(&o, &rc);
    if (c.sw == NULL)
        goto out;
    o.base = results_base(&o);
    exe = self_exe();
    c.journal = o.base ? with_ext(o.base, ".journal") : NULL;
    c.csv = o.base ? with_ext(o.base, ".csv") : NULL;
    c.json = o.base ? with_ext(o.base, ".json") : NULL;
    if (exe == NULL || c.journal == NULL || c.csv == NULL || c.json == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto out;
    }
    if (same_file(o.file, c.json) || same_file(o.file, c.csv) || same_file(o.file, c.journal)) {
        cli_error("sweep: --results %s would overwrite the sweep file %s", o.base, o.file);
        rc = QC_EXIT_USAGE;
        goto out;
    }
    if (o.report != NULL && (rc = cli_report_prepare(o.report)) != 0)
        goto out;
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
    free(o.base);
    qc_sweep_free(c.sw);
    return rc;
}
