/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cli.c: `qctl gate`, the session-limiting TCP proxy (live/gate.h):
 * flags, checks, run. */
#include <math.h>
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

static void gate_drain(void *x, double timeout)
{
    qc_gate_drain(x, timeout);
}

static void gate_closed(qc_gate *g, void *arg)
{
    (void)g;
    cli_live_closed(arg);
}

static void gate_close(void *x, cli_live_done *d)
{
    qc_gate_close(x, gate_closed, d);
}

static void gate_log(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "qctl gate: %s\n", line);
}

/* The gate on a loop of the command's, until a signal or its duration. */
static int gate_serve(qc_gate_params *o, qc_err *err)
{
    o->log = gate_log;
    uv_loop_t loop;
    int rc = uv_loop_init(&loop);
    if (rc != 0)
        return qc_err_set(err, QC_EIO, "event loop: %s", uv_strerror(rc));
    qc_gate *g;
    if ((rc = qc_gate_start(&loop, o, &g, err)) != 0) {
        uv_loop_close(&loop);
        return rc;
    }
    static const cli_live_ops ops = {gate_drain, gate_close};
    void *xs[1] = {g};
    cli_live_serve(&loop, &ops, xs, 1, o->drain_timeout);
    uv_loop_close(&loop);
    return 0;
}

int cmd_gate(int argc, char **argv)
{
    qc_gate_params o;
    qc_gate_params_init(&o);
    const char *levels = NULL, *reference = NULL;
    double buffer = (double)o.buffer;
    int help = 0, aw = (int)o.aw;
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
        {"reference", CLI_STR, &reference, .arg = "SCHED",
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
        {"antiwindup", CLI_CHOICE, &aw, .arg = "A", .choices = "none,conditional,backcalc",
         .help = "none, conditional (default) or backcalc"},
        {"kaw", CLI_DOUBLE, &o.k_aw, 1e-9, 1, .arg = "K",
         .help = "back-calculation gain (default 1)"},
        {"excite", CLI_CHOICE, &o.excite, .arg = "E", .choices = "prbs,steps",
         .help = "open: prbs (default: a switch with probability\n1/2 every --hold intervals) or "
                 "steps (a switch\nevery --hold intervals)"},
        {"excite-levels", CLI_STR, &levels, .arg = "A,B",
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
        {"buffer", CLI_DOUBLE, &buffer, 4096, 1 << 30, .arg = "BYTES",
         .help = "bytes queued toward a peer before reading from\nthe other side stops "
                 "(default 262144)"},
        {"drain-timeout", CLI_DOUBLE, &o.drain_timeout, 0, 1e6, .arg = "T",
         .help = "after SIGTERM, stop anyway after T s (default 30)"},
        {"duration", CLI_DOUBLE, &o.duration, 1e-3, 1e9, .arg = "T",
         .help = "drain after T s, as on SIGTERM (default: run\nuntil a signal)"},
        {"series", CLI_STR, &o.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV, one row per interval: time, reference,\nlimit, gate, connected, peak, "
                 "waiting, admitted,\nrefused, expired, sensor, sensor_age, missing, held"},
        CLI_ROW_HELP(&help),
        {0}};
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
    if (rc != 0)
        return rc == CLI_DONE_HELP ? 0 : rc;
    o.aw = (qc_antiwindup)aw;
    o.buffer = (size_t)buffer;
    if (levels && parse_levels(levels, o.levels) != 0)
        return QC_EXIT_USAGE;
    qc_err err = {0};
    if (reference) {
        if (o.controller != QC_GATE_INTEGRAL && o.controller != QC_GATE_PI) {
            cli_error("--reference: only with --controller integral or pi");
            return QC_EXIT_USAGE;
        }
        if (qc_sched_parse(reference, o.ref, QC_GATE_REF_MAX, &o.nref, &err) != 0) {
            cli_error("--reference: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    if ((rc = qc_gate_check(&o, &err)) != 0) {
        cli_error("gate: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    /* a session is two files: as many as the hard limit allows */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if ((rc = gate_serve(&o, &err)) != 0) {
        cli_error("gate: %s", err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}
