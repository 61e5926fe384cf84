/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cli.c: `qctl gate`, the session-limiting TCP proxy (live/gate.h):
 * flags, checks, run. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "live/gate.h"

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
    if (qc_gate_check(o, &err) != 0) {
        cli_error("gate: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* The gate's event lines (reloads), on stderr. */
static int gate_log_json; /* --log-format json: one process, one format */

static void gate_log(void *ctx, int level, const char *line)
{
    (void)ctx;
    cli_log_line(gate_log_json, "qctl gate", qc__log_level_name(level), line);
}

/* The gate's flags parsed into *gp (its defaults first): 0, or
 * CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message. A
 * reload (SIGHUP) comes here again with the same command line. */
static int gate_parse(gate_cli *gp, int argc, char **argv)
{
    memset(gp, 0, sizeof *gp);
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
        {"log-format", CLI_CHOICE, &g.log_json, .arg = "F", .choices = "text,json",
         .help = "the event lines on stderr: text (TIME LEVEL\nqctl gate: ..., the default) or "
                 "json (an object a\nline: time, level, program, msg)"},
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
    int rc = gate_parse(n, R->argc, av);
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
    int rc = gate_parse(gp, argc, argv);
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
    if ((rc = qc_gate_run(op, &err)) != 0) {
        cli_error("gate: %s", err.msg);
        rc = cli_exit_code(rc);
    }
    if (R.cur != R.first)
        gate_cli_free(R.cur);
    gate_cli_free(R.first);
    free(R.argv);
    return rc;
}
