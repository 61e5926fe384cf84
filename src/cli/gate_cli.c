/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cli.c: `qctl gate`, the session-limiting TCP proxy (live/gate.h):
 * its flags, and the run of app/gate_cmd.c, which parses them again on
 * a reload. */
#include "app/gate_cmd.h"
#include "cli.h"

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

/* The gate's flags parsed into *gp (its defaults first): 0, or
 * CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message. A
 * reload (SIGHUP) comes here again with the same command line. */
static int gate_parse(void *ctx, int argc, char **argv, int reload)
{
    gate_cli *g = ctx;
    gate_defaults(g, reload);
    qc_gate_params *o = &g->o;
    int help = 0;
    const cli_flag flags[] = {
        {"listen", CLI_STR, &o->listen, .arg = "HOST:PORT",
         .help = "where clients connect (default 127.0.0.1:5433;\nport 0: any free)"},
        {"backend", CLI_STR, &o->backend, .arg = "HOST:PORT", .help = "the server (needed)"},
        CLI_ROW_PORT_FILE(&o->port_file),
        {"admin", CLI_STR, &o->admin, .arg = "HOST:PORT",
         .help = "loopback address answering GET /status (JSON)\nand /metrics (Prometheus text)"},
        {"admin-port-file", CLI_STR, &o->admin_port_file, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write the admin port to FILE"},
        {"", CLI_NOTE, NULL, .help = "The limit:"},
        {"limit", CLI_DOUBLE, &o->limit, 0, 1e9, .arg = "N",
         .help = "a fixed limit (without --controller), or the\ncontroller's first limit "
                 "(default --min-limit)"},
        {"controller", CLI_CHOICE, &o->controller, .arg = "C",
         .choices = cli_ctlloop_words(QC_GATE_OPEN + 1),
         .help = "static (default, --limit), integral or pi (the\nMaxUsers controller on the "
                 "sensor), or open (the\nlimit switched by --excite, for identification)"},
        {"reference", CLI_STR, &g->reference, .arg = "SCHED",
         .help = "the sensor value to hold (integral, pi): R, or\nR@T,R@T,... changing at T s "
                 "from the start\n(e.g. 5@0,10@60, a step at 60 s)"},
        {"control-from", CLI_DOUBLE, &o->control_from, 0, 1e9, .arg = "T",
         .help = "integral, pi, open: hold --limit for the first\nT s, then close the loop "
                 "(a step from rest)\nor start the excitation (default 0)"},
        {"ki", CLI_DOUBLE, &o->ki, -1e9, 1e9, .arg = "K", .help = "integral gain (default 0.1)"},
        {"kp", CLI_DOUBLE, &o->kp, -1e9, 1e9, .arg = "K", .help = "proportional gain (pi only)"},
        {"min-limit", CLI_DOUBLE, &o->min_limit, 0, 1e9, .arg = "A",
         .help = "the controller's least limit (default 1)"},
        {"max-limit", CLI_DOUBLE, &o->max_limit, 0, 1e9, .arg = "B",
         .help = "its largest (default 1000)"},
        {"antiwindup", CLI_CHOICE, &g->aw, .arg = "A", .choices = cli_antiwindup_words(),
         .help = "none, conditional (default) or backcalc"},
        {"kaw", CLI_DOUBLE, &o->k_aw, 1e-9, 1, .arg = "K",
         .help = "back-calculation gain (default 1)"},
        {"excite", CLI_CHOICE, &o->excite, .arg = "E", .choices = "prbs,steps",
         .help = "open: prbs (default: a switch with probability\n1/2 every --hold intervals) or "
                 "steps (a switch\nevery --hold intervals)"},
        {"excite-levels", CLI_STR, &g->levels, .arg = "A,B",
         .help = "open: the two limits, starting at A"},
        {"hold", CLI_UINT, &o->hold, 1, 1e6, .arg = "H",
         .help = "intervals between switches (default 3)"},
        {"seed", CLI_U64, &o->seed, .arg = "S", .help = "the PRBS's seed (default 1)"},
        {"interval", CLI_DOUBLE, &o->interval, 1e-3, 86400, .arg = "T",
         .help = "control interval, seconds (default 1)"},
        {"", CLI_NOTE, NULL, .help = "The sensor (default: the sessions connected at each interval):"},
        {"sensor-cmd", CLI_STR, &o->sensor.cmd, .arg = "'PROG ARGS'",
         .help = "run PROG (no shell: split on spaces) each\ninterval, killed after 0.9 interval; "
                 "the value\nis the first number of its output"},
        {"sensor-url", CLI_STR, &o->sensor.url, .arg = "URL",
         .help = "GET http://HOST:PORT/PATH each interval"},
        {"sensor-metric", CLI_STR, &o->sensor.metric, .arg = "NAME",
         .help = "the Prometheus metric in that answer (a line\n'NAME value' or "
                 "'NAME{labels} value'); without\nit, the answer's first number"},
        {"sensor-log", CLI_STR, &o->sensor.log, .arg = "FILE",
         .help = "follow FILE (as tail -F: truncation, rotation)\nfrom its end"},
        {"sensor-pattern", CLI_STR, &o->sensor.pattern, .arg = "RE",
         .help = "count the new lines matching RE (POSIX extended)\neach interval; with a group "
                 "(...), sum the numbers\nit captures"},
        {"sensor-scale", CLI_DOUBLE, &o->sensor.scale, 0, 1e12, .arg = "K",
         .help = "multiply every sample by K (default 1)"},
        {"", CLI_NOTE, NULL, .help = "Sessions and bounds:"},
        {"queue", CLI_UINT, &o->queue, 0, 1e6, .arg = "N",
         .help = "sessions waiting at most (default 128; 0:\nrefuse at once beyond the limit)"},
        {"queue-timeout", CLI_DOUBLE, &o->queue_timeout, 1e-3, 1e6, .arg = "T",
         .help = "a session waits T s at most (default 10)"},
        {"connect-timeout", CLI_DOUBLE, &o->connect_timeout, 1e-3, 1e6, .arg = "T",
         .help = "the backend accepts within T s (default 5)"},
        {"buffer", CLI_DOUBLE, &g->buffer, 4096, 1 << 30, .arg = "BYTES",
         .help = "bytes queued toward a peer before reading from\nthe other side stops "
                 "(default 262144)"},
        {"idle-timeout", CLI_DOUBLE, &o->idle_timeout, 0, 1e9, .arg = "T",
         .help = "close a connected session with no byte either way\nfor T s, its place given "
                 "back (default 50, as\nhaproxy's client timeout; 0: never)"},
        {"max-session", CLI_DOUBLE, &o->max_session, 0, 1e9, .arg = "T",
         .help = "close a session T s after it got its place\n(default 0: no bound)"},
        {"max-bytes", CLI_U64, &o->max_bytes, .arg = "BYTES",
         .help = "close a session once it relayed BYTES both ways\n(default 0: no bound)"},
        {"drain-timeout", CLI_DOUBLE, &o->drain_timeout, 0, 1e6, .arg = "T",
         .help = "after SIGTERM, stop anyway after T s (default 30)"},
        {"duration", CLI_DOUBLE, &o->duration, 1e-3, 1e9, .arg = "T", .zero_unset = 1,
         .help = "drain after T s, as on SIGTERM (default: run\nuntil a signal)"},
        {"series", CLI_STR, &o->series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV, one row per interval: time, reference,\nlimit, gate, connected, peak, "
                 "waiting, admitted,\nrefused, expired, sensor, sensor_age, missing, held"},
        {"workers", CLI_UINT, &g->workers, 0, 1024, .arg = "N",
         .help = "N event loops on N threads sharing one limit\nand waiting room (default 0: "
                 "the usable CPUs)"},
        {"log-format", CLI_CHOICE, &g->log_json, .arg = "F", .choices = "text,json",
         .help = "the event lines on stderr: text (TIME LEVEL\nqctl gate: ..., the default) or "
                 "json (an object a\nline: time, level, program, msg)"},
        {"quiet", CLI_BOOL, &gate_quiet,
         .help = "no info lines on standard error (start, reloads);\nwarnings and errors "
                 "still"},
        CLI_ROWS_CONFIG_CHECK(g, gate_validate),
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
    if (rc == 0)
        g->words = cli_flags_config_detach();
    return rc;
}

int cmd_gate(int argc, char **argv)
{
    return gate_main(argc, argv, gate_parse);
}
