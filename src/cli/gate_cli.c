/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cli.c: `qctl gate`, the session-limiting TCP proxy (live/gate.h):
 * flags, checks, and the loops, threads and signals around the library's
 * gates (the library changes nothing process-wide: the command installs
 * SIGTERM, SIGINT and SIGHUP and owns the loops). */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "live/gate.h"
#include "live_serve.h"

static const char gate_about[] =
    "A TCP proxy that limits the client sessions connected to one backend at\n"
    "once (MaxUsers at the session level; no protocol knowledge). A session\n"
    "beyond the limit waits in a FIFO of --queue sessions for at most\n"
    "--queue-timeout seconds, or is refused (closed at once) when the FIFO\n"
    "is full or --queue is 0. Every --interval the limit is set by the\n"
    "MaxUsers controller (the one 'qctl sim maxusers' and 'qctl proxy' run:\n"
    "integral or PI with anti-windup and the demand hold) from a sensor's\n"
    "sample, held at --limit, or switched between two levels by a PRBS for\n"
    "identification (--controller open). The sensor is the sessions\n"
    "connected, a command, an HTTP metric or a followed log file; a missing\n"
    "or late sample holds the controller for that interval. Bytes are relayed\n"
    "with backpressure both ways and half-closes passed on. SIGTERM (or\n"
    "--duration) drains: no new session, the waiting ones closed, the\n"
    "connected ones relayed until they end or --drain-timeout passes.\n";

/* "A,B": two numbers >= 0. */
static int parse_levels(const char *s, double lv[2])
{
    char *end;
    lv[0] = strtod(s, &end);
    if (end == s || *end != ',')
        goto bad;
    const char *b = end + 1;
    lv[1] = strtod(b, &end);
    if (end == b || *end != 0 || !(lv[0] >= 0) || !(lv[1] >= 0) || !isfinite(lv[0]) ||
        !isfinite(lv[1]))
        goto bad;
    return 0;
bad:
    cli_error("--excite-levels: '%s' is not A,B (two limits >= 0)", s);
    return QC_EXIT_USAGE;
}

/* What the gate's flags set: the options, and the flags turned into them
 * by gate_validate. */
typedef struct gate_cli {
    qc_gate_params o;
    const char *levels, *reference;
    double buffer;
    int aw;
    void *words; /* the --config words its strings point into (cli_flags_config_detach) */
    int log_json; /* --log-format json (gate_log_json once this configuration runs) */
    unsigned workers; /* --workers (0: the usable CPUs) */
    int reloading; /* a reload: the running gate holds the ports, no dry-run bind */
} gate_cli;

/* Every check the gate makes before it starts: the run and --check both
 * come here, so --check refuses what the run refuses with the same
 * message. */
static int gate_validate(void *ctx)
{
    gate_cli *g = ctx;
    qc_gate_params *o = &g->o;
    o->aw = (qc_antiwindup)g->aw;
    o->buffer = (size_t)g->buffer;
    if (g->levels && parse_levels(g->levels, o->levels) != 0)
        return QC_EXIT_USAGE;
    qc_err err = {0};
    if (g->reference) {
        if (o->controller != QC_GATE_INTEGRAL && o->controller != QC_GATE_PI) {
            cli_error("--reference: only with --controller integral or pi");
            return QC_EXIT_USAGE;
        }
        if (qc_sched_parse(g->reference, o->ref, QC_GATE_REF_MAX, &o->nref, &err) != 0) {
            cli_error("--reference: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    int r = g->reloading ? qc_gate_check(o, &err) : qc_gate_params_check(o, &err);
    if (r != 0) { /* a refused bind is a failure to start (1), the rest usage (2) */
        cli_error("gate: %s", err.msg);
        return r == QC_EIO ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

/* The gate's event lines (reloads), on stderr. */
static int gate_log_json; /* --log-format json: one process, one format */

/* --quiet: the gate's info lines left out, warnings and errors kept. */
static int gate_quiet;

static void gate_log(void *ctx, int level, const char *line)
{
    (void)ctx;
    if (gate_quiet && level < QC_LOG_WARN)
        return;
    cli_log_line(gate_log_json, "qctl gate", qc__log_level_name(level), line);
}

/* The gate's flags parsed into *gp (its defaults first): 0, or
 * CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message. A
 * reload (SIGHUP) comes here again with the same command line. */
static int gate_parse(gate_cli *gp, int argc, char **argv, int reload)
{
    memset(gp, 0, sizeof *gp);
    gp->reloading = reload;
#define g (*gp)
    qc_gate_params_init(&g.o);
    g.o.log = gate_log;
    qc_gate_params *op = &g.o;
#define o (*op)
    g.buffer = (double)o.buffer;
    g.aw = (int)o.aw;
    int help = 0;
    const cli_flag flags[] = {
        {"listen", CLI_STR, &o.listen, .arg = "HOST:PORT",
         .help = "where clients connect (default 127.0.0.1:5433;\nport 0: any free)"},
        {"backend", CLI_STR, &o.backend, .arg = "HOST:PORT", .help = "the server (needed)"},
        CLI_ROW_PORT_FILE(&o.port_file),
        {"admin", CLI_STR, &o.admin, .arg = "HOST:PORT",
         .help = "loopback address answering GET /status (JSON)\nand /metrics (Prometheus text)"},
        {"admin-port-file", CLI_STR, &o.admin_port_file, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write the admin port to FILE"},
        {"", CLI_NOTE, NULL, .help = "The limit:"},
        {"limit", CLI_DOUBLE, &o.limit, 0, 1e9, .arg = "N",
         .help = "a fixed limit (without --controller), or the\ncontroller's first limit "
                 "(default --min-limit)"},
        {"controller", CLI_CHOICE, &o.controller, .arg = "C",
         .choices = "static,integral,pi,open",
         .help = "static (default, --limit), integral or pi (the\nMaxUsers controller on the "
                 "sensor), or open (the\nlimit switched by --excite, for identification)"},
        {"reference", CLI_STR, &g.reference, .arg = "SCHED",
         .help = "the sensor value to hold (integral, pi): R, or\nR@T,R@T,... changing at T s "
                 "from the start\n(e.g. 5@0,10@60, a step at 60 s)"},
        {"control-from", CLI_DOUBLE, &o.control_from, 0, 1e9, .arg = "T",
         .help = "integral, pi, open: hold --limit for the first\nT s, then close the loop "
                 "(a step from rest)\nor start the excitation (default 0)"},
        {"ki", CLI_DOUBLE, &o.ki, -1e9, 1e9, .arg = "K", .help = "integral gain (default 0.1)"},
        {"kp", CLI_DOUBLE, &o.kp, -1e9, 1e9, .arg = "K", .help = "proportional gain (pi only)"},
        {"min-limit", CLI_DOUBLE, &o.min_limit, 0, 1e9, .arg = "A",
         .help = "the controller's least limit (default 1)"},
        {"max-limit", CLI_DOUBLE, &o.max_limit, 0, 1e9, .arg = "B",
         .help = "its largest (default 1000)"},
        {"antiwindup", CLI_CHOICE, &g.aw, .arg = "A", .choices = "none,conditional,backcalc",
         .help = "none, conditional (default) or backcalc"},
        {"kaw", CLI_DOUBLE, &o.k_aw, 1e-9, 1, .arg = "K",
         .help = "back-calculation gain (default 1)"},
        {"excite", CLI_CHOICE, &o.excite, .arg = "E", .choices = "prbs,steps",
         .help = "open: prbs (default: a switch with probability\n1/2 every --hold intervals) or "
                 "steps (a switch\nevery --hold intervals)"},
        {"excite-levels", CLI_STR, &g.levels, .arg = "A,B",
         .help = "open: the two limits, starting at A"},
        {"hold", CLI_UINT, &o.hold, 1, 1e6, .arg = "H",
         .help = "intervals between switches (default 3)"},
        {"seed", CLI_U64, &o.seed, .arg = "S", .help = "the PRBS's seed (default 1)"},
        {"interval", CLI_DOUBLE, &o.interval, 1e-3, 86400, .arg = "T",
         .help = "control interval, seconds (default 1)"},
        {"", CLI_NOTE, NULL, .help = "The sensor (default: the sessions connected at each interval):"},
        {"sensor-cmd", CLI_STR, &o.sensor.cmd, .arg = "'PROG ARGS'",
         .help = "run PROG (no shell: split on spaces) each\ninterval, killed after 0.9 interval; "
                 "the value\nis the first number of its output"},
        {"sensor-url", CLI_STR, &o.sensor.url, .arg = "URL",
         .help = "GET http://HOST:PORT/PATH each interval"},
        {"sensor-metric", CLI_STR, &o.sensor.metric, .arg = "NAME",
         .help = "the Prometheus metric in that answer (a line\n'NAME value' or "
                 "'NAME{labels} value'); without\nit, the answer's first number"},
        {"sensor-log", CLI_STR, &o.sensor.log, .arg = "FILE",
         .help = "follow FILE (as tail -F: truncation, rotation)\nfrom its end"},
        {"sensor-pattern", CLI_STR, &o.sensor.pattern, .arg = "RE",
         .help = "count the new lines matching RE (POSIX extended)\neach interval; with a group "
                 "(...), sum the numbers\nit captures"},
        {"sensor-scale", CLI_DOUBLE, &o.sensor.scale, 0, 1e12, .arg = "K",
         .help = "multiply every sample by K (default 1)"},
        {"", CLI_NOTE, NULL, .help = "Sessions and bounds:"},
        {"queue", CLI_UINT, &o.queue, 0, 1e6, .arg = "N",
         .help = "sessions waiting at most (default 128; 0:\nrefuse at once beyond the limit)"},
        {"queue-timeout", CLI_DOUBLE, &o.queue_timeout, 1e-3, 1e6, .arg = "T",
         .help = "a session waits T s at most (default 10)"},
        {"connect-timeout", CLI_DOUBLE, &o.connect_timeout, 1e-3, 1e6, .arg = "T",
         .help = "the backend accepts within T s (default 5)"},
        {"buffer", CLI_DOUBLE, &g.buffer, 4096, 1 << 30, .arg = "BYTES",
         .help = "bytes queued toward a peer before reading from\nthe other side stops "
                 "(default 262144)"},
        {"idle-timeout", CLI_DOUBLE, &o.idle_timeout, 0, 1e9, .arg = "T",
         .help = "close a connected session with no byte either way\nfor T s, its place given "
                 "back (default 50, as\nhaproxy's client timeout; 0: never)"},
        {"max-session", CLI_DOUBLE, &o.max_session, 0, 1e9, .arg = "T",
         .help = "close a session T s after it got its place\n(default 0: no bound)"},
        {"max-bytes", CLI_U64, &o.max_bytes, .arg = "BYTES",
         .help = "close a session once it relayed BYTES both ways\n(default 0: no bound)"},
        {"drain-timeout", CLI_DOUBLE, &o.drain_timeout, 0, 1e6, .arg = "T",
         .help = "after SIGTERM, stop anyway after T s (default 30)"},
        {"duration", CLI_DOUBLE, &o.duration, 1e-3, 1e9, .arg = "T", .zero_unset = 1,
         .help = "drain after T s, as on SIGTERM (default: run\nuntil a signal)"},
        {"series", CLI_STR, &o.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV, one row per interval: time, reference,\nlimit, gate, connected, peak, "
                 "waiting, admitted,\nrefused, expired, sensor, sensor_age, missing, held"},
        {"workers", CLI_UINT, &g.workers, 0, 1024, .arg = "N",
         .help = "N event loops on N threads sharing one limit\nand waiting room (default 0: "
                 "the usable CPUs)"},
        {"log-format", CLI_CHOICE, &g.log_json, .arg = "F", .choices = "text,json",
         .help = "the event lines on stderr: text (TIME LEVEL\nqctl gate: ..., the default) or "
                 "json (an object a\nline: time, level, program, msg)"},
        {"quiet", CLI_BOOL, &gate_quiet,
         .help = "no info lines on standard error (start, reloads);\nwarnings and errors "
                 "still"},
        CLI_ROWS_CONFIG_CHECK(&g, gate_validate),
        CLI_ROW_HELP(&help),
        {0}};
#undef o
    int rc = cli_flags_parse_command(
        "gate",
        "qctl gate --backend HOST:PORT [--listen HOST:PORT]\n"
        "         [--limit N | --controller integral|pi --reference R --ki K\n"
        "          [--kp K] --min-limit A --max-limit B | --controller open\n"
        "          --excite prbs --excite-levels A,B --hold H] [--interval T]\n"
        "         [--sensor-cmd 'PROG ARGS' | --sensor-url URL --sensor-metric M |\n"
        "          --sensor-log FILE --sensor-pattern RE] [--queue N\n"
        "          --queue-timeout T] [--series FILE] [--duration T] [options]",
        gate_about, flags, argc, argv, NULL);
    if (rc == 0)
        g.words = cli_flags_config_detach();
    return rc;
#undef g
}

/* The running configuration and how it was given, for a reload. */
typedef struct gate_run {
    int argc;
    char **argv; /* the command line as given (getopt reorders a copy) */
    gate_cli *cur;
    gate_cli *first; /* kept to the end: the sensor, built once, points into its strings */
} gate_run;

static void gate_cli_free(gate_cli *g)
{
    if (!g)
        return;
    cli_flags_config_release(g->words);
    free(g);
}

static char **gate_argv_copy(int argc, char **argv)
{
    char **v = malloc(((size_t)argc + 1) * sizeof *v);
    if (v)
        memcpy(v, argv, ((size_t)argc + 1) * sizeof *v);
    return v;
}

static int gate_reread(void *ctx, const struct qc_gate_params **next, qc_err *err);
static void gate_reread_done(void *ctx, const struct qc_gate_params *next, int taken);

static void gate_hooks(gate_run *R, gate_cli *g)
{
    g->o.reload = gate_reread;
    g->o.reload_done = gate_reread_done;
    g->o.reload_ctx = R;
}

/* SIGHUP: the same command line again, --config read anew; a message
 * refusing it goes back to the gate, which logs it. */
static int gate_reread(void *ctx, const struct qc_gate_params **next, qc_err *err)
{
    gate_run *R = ctx;
    gate_cli *n = malloc(sizeof *n);
    char **av = gate_argv_copy(R->argc, R->argv);
    if (!n || !av) {
        free(n);
        free(av);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    char msg[sizeof err->msg];
    cli_error_capture(msg, sizeof msg);
    int rc = gate_parse(n, R->argc, av, 1);
    cli_error_capture(NULL, 0);
    free(av);
    if (rc != 0) {
        gate_cli_free(n);
        return qc_err_set(err, QC_EINVAL, "%s",
                          msg[0] ? msg : "--check or --help has no meaning on a reload");
    }
    gate_hooks(R, n);
    *next = &n->o;
    return 0;
}

static void gate_reread_done(void *ctx, const struct qc_gate_params *next, int taken)
{
    gate_run *R = ctx;
    gate_cli *n = (gate_cli *)(void *)next; /* o is its first field */
    if (!taken) {
        gate_cli_free(n);
        return;
    }
    if (R->cur != R->first)
        gate_cli_free(R->cur);
    R->cur = n;
    gate_log_json = n->log_json;
}

/* ---- the loops, threads and signals ----------------------------------------
 *
 * With N workers the lead runs on the main thread's loop with the signal
 * handles and the --duration timer, the others each on a loop and thread
 * of their own; a signal reaches them through an async handle of the
 * command's on each worker's loop. */

typedef struct gserve gserve;

typedef struct gworker_cli {
    gserve *s;
    unsigned index;
    uv_loop_t loop;
    uv_async_t wake;
    qc_gate *g;
    pthread_t thread;
    int rc;
    qc_err err;
    int draining, wake_on;
    uv_sem_t started;
} gworker_cli;

struct gserve {
    qc_gate_group *grp;
    unsigned n;
    gworker_cli *w; /* w[0]: the lead, on the main loop */
    cli_signals sig;
    uv_timer_t duration;
    atomic_int signals; /* 1: drain, 2 and more: stop now */
    uv_async_t all_closed;
    atomic_uint closed;
    unsigned running;
    double drain_timeout; /* the running configuration's, read on the lead's loop */
};

static void gate_on_all_closed(uv_async_t *a)
{
    gserve *s = a->data;
    if (atomic_load(&s->closed) < s->running)
        return;
    cli_signals_close(&s->sig);
    uv_close((uv_handle_t *)&s->duration, NULL);
    uv_close((uv_handle_t *)&s->all_closed, NULL);
}

static void gate_worker_closed(qc_gate *g, void *arg)
{
    (void)g;
    gworker_cli *w = arg;
    w->g = NULL;
    uv_close((uv_handle_t *)&w->wake, NULL);
    atomic_fetch_add(&w->s->closed, 1);
    uv_async_send(&w->s->all_closed);
}

/* On a worker's own loop: what the signals so far ask of it. */
static void gate_worker_wake(uv_async_t *a)
{
    gworker_cli *w = a->data;
    int n = atomic_load(&w->s->signals);
    if (!w->g || n == 0)
        return;
    if (!w->draining) {
        w->draining = 1;
        qc_gate_drain(w->g, w->s->drain_timeout);
        qc_gate_close(w->g, gate_worker_closed, w);
        if (!w->g)
            return;
    }
    if (n >= 2)
        qc_gate_drain(w->g, 0);
}

static void gate_stop_request(gserve *s)
{
    if (s->w[0].g)
        s->drain_timeout = qc_gate_params_get(s->w[0].g)->drain_timeout; /* as reloaded */
    atomic_fetch_add(&s->signals, 1);
    for (unsigned i = 1; i < s->n; i++)
        if (s->w[i].wake_on)
            uv_async_send(&s->w[i].wake);
    if (s->w[0].wake_on)
        gate_worker_wake(&s->w[0].wake);
}

static void gate_on_signal(uv_signal_t *h, int sig)
{
    (void)sig;
    gate_stop_request(h->data);
}

static void gate_on_duration(uv_timer_t *t)
{
    gserve *s = t->data;
    if (atomic_load(&s->signals) == 0)
        gate_stop_request(s);
}

/* SIGHUP: the configuration read again by the lead (which hands the
 * session bounds to the others, and logs a refusal itself). */
static void gate_on_hup(uv_signal_t *h, int sig)
{
    (void)sig;
    gserve *s = h->data;
    if (s->w[0].g && !s->w[0].draining)
        qc_gate_reload_request(s->w[0].g, "SIGHUP");
}

static void *gate_worker_main(void *arg)
{
    gworker_cli *w = arg;
    w->rc = qc_gate_group_start(&w->loop, w->s->grp, w->index, &w->g, &w->err);
    if (w->rc == 0) {
        uv_async_init(&w->loop, &w->wake, gate_worker_wake);
        w->wake.data = w;
        w->wake_on = 1;
    }
    uv_sem_post(&w->started);
    uv_run(&w->loop, UV_RUN_DEFAULT);
    return NULL;
}

static int gate_serve(const qc_gate_params *o, unsigned workers, qc_err *err)
{
    if (workers == 0)
        workers = uv_available_parallelism();
    gserve s = {.n = workers, .drain_timeout = o->drain_timeout};
    int rc;
    if ((rc = qc_gate_group_alloc(o, workers, &s.grp, err)) != 0)
        return rc;
    if (!(s.w = calloc(workers, sizeof *s.w))) {
        qc_gate_group_free(s.grp);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < workers; i++) {
        s.w[i].s = &s;
        s.w[i].index = i;
    }
    gworker_cli *lead = &s.w[0];
    if ((rc = uv_loop_init(&lead->loop)) != 0) {
        free(s.w);
        qc_gate_group_free(s.grp);
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    }
    unsigned started = 1;
    if ((rc = qc_gate_group_start(&lead->loop, s.grp, 0, &lead->g, err)) == 0) {
        uv_async_init(&lead->loop, &lead->wake, gate_worker_wake);
        lead->wake.data = lead;
        lead->wake_on = 1;
        cli_signals_start(&s.sig, &lead->loop, gate_on_signal, gate_on_hup, NULL, &s);
        uv_timer_init(&lead->loop, &s.duration);
        s.duration.data = &s;
        if (o->duration > 0)
            uv_timer_start(&s.duration, gate_on_duration, (uint64_t)llround(o->duration * 1000),
                           0);
        uv_async_init(&lead->loop, &s.all_closed, gate_on_all_closed);
        s.all_closed.data = &s;
        s.running = 1;
        for (; started < workers; started++) {
            gworker_cli *w = &s.w[started];
            if (uv_loop_init(&w->loop) != 0 || uv_sem_init(&w->started, 0) != 0) {
                rc = qc_err_set(err, QC_EIO, "worker %u: no event loop", started);
                break;
            }
            if (pthread_create(&w->thread, NULL, gate_worker_main, w) != 0) {
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
            gate_stop_request(&s);
    }
    uv_run(&lead->loop, UV_RUN_DEFAULT); /* a failed start: its handles close */
    for (unsigned i = 1; i < started; i++) {
        pthread_join(s.w[i].thread, NULL);
        uv_loop_close(&s.w[i].loop);
    }
    uv_loop_close(&lead->loop);
    qc_gate_group_free(s.grp);
    free(s.w);
    return rc;
}

int cmd_gate(int argc, char **argv)
{
    gate_run R = {.argc = argc, .argv = gate_argv_copy(argc, argv)};
    gate_cli *gp = malloc(sizeof *gp);
    if (!R.argv || !gp) {
        free(R.argv);
        free(gp);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    R.cur = R.first = gp;
    int rc = gate_parse(gp, argc, argv, 0);
    if (rc != 0) {
        gate_cli_free(R.cur);
        free(R.argv);
        return rc < 0 ? 0 : rc; /* --help, --check: done */
    }
    gate_hooks(&R, gp);
    gate_log_json = gp->log_json;
    qc_gate_params *op = &gp->o;
    qc_err err = {0};
    signal(SIGPIPE, SIG_IGN); /* a peer gone mid-write is not fatal */
    /* a session is two files: as many as the hard limit allows */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if ((rc = gate_serve(op, gp->workers, &err)) != 0) {
        cli_error("gate: %s", err.msg);
        rc = cli_exit_code(rc);
    }
    if (R.cur != R.first)
        gate_cli_free(R.cur);
    gate_cli_free(R.first);
    free(R.argv);
    return rc;
}
