/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control_cli.c: `qctl control`, a controller between another server's
 * sensor and actuator (live/control.h): its flags, and the run of
 * app/control_cmd.c, which parses them again on SIGHUP. */
#include "app/control_cmd.h"
#include "cli.h"

static const char control_about[] =
    "Runs a controller every --interval from a sensor to an actuator of a\n"
    "server qctl does not sit in front of: haproxy (its runtime API on the\n"
    "stats socket), pgbouncer (its admin console) or any program. The\n"
    "controllers: static (a hand-set value), integral and pi (the MaxUsers\n"
    "controller of 'qctl sim maxusers' and 'qctl gate', with its demand hold\n"
    "and anti-windup), open (a PRBS or steps between two settings, for\n"
    "'qctl sysid' and 'qctl design') and park (delay-JSQ parking of haproxy's\n"
    "servers: T requests a server, a setup delay, an idle wait; routing left\n"
    "to haproxy's leastconn). A sensor that does not answer (unreachable,\n"
    "refused, malformed, late) or an actuator that refuses holds the\n"
    "controller for that interval; both are counted (--admin /metrics) and\n"
    "logged when they start and stop failing.\n"
    "\n"
    "Sensors (--sensor, or the --sensor-cmd/-url/-log of 'qctl gate'):\n"
    "  haproxy:SOCKET:BACKEND/SERVER:FIELD   sends 'show stat\\n' (one\n"
    "      connection an exchange, read until haproxy closes it), reads FIELD of\n"
    "      the row pxname=BACKEND, svname=SERVER (BACKEND alone: its backend\n"
    "      row); FIELD a column of show stat (qcur, scur, slim, rtime, qtime,\n"
    "      req_rate, weight, ...) or several summed: qcur+scur\n"
    "  haproxy:SOCKET:info:FIELD             sends 'show info', reads the line\n"
    "      'FIELD: value' (CurrConns, SessRate, ...)\n"
    "  pgbouncer:CONNINFO:DB:FIELD           logs in to the admin console and\n"
    "      sends 'SHOW POOLS' (cl_active, cl_waiting, sv_active, sv_idle,\n"
    "      maxwait, ...: summed over DB's rows), 'SHOW STATS' (total_*, avg_*)\n"
    "      or 'SHOW DATABASES' (pool_size, current_connections, ...; the row\n"
    "      whose name is DB), each one Query message after the login, then\n"
    "      Terminate\n"
    "  SOCKET is a UNIX path (holding a '/') or HOST:PORT; CONNINFO is\n"
    "  'host=H port=P user=U password=W' (host /DIR: the UNIX socket\n"
    "  DIR/.s.PGSQL.P; default host 127.0.0.1 port 6432 user pgbouncer).\n"
    "\n"
    "Actuators (--actuator; N the setting rounded down):\n"
    "  haproxy-maxconn:SOCKET:BACKEND/SERVER[,...]  'set maxconn server\n"
    "      BACKEND/SERVER N' (one per server, ';'-joined), N >= 1\n"
    "  haproxy-weight:SOCKET:BACKEND/SERVER[,...]   'set weight BACKEND/SERVER N',\n"
    "      N in 0..256\n"
    "  haproxy-park:SOCKET:BACKEND   (park) 'set server BACKEND/SERVER state\n"
    "      ready|drain|maint' for every server, and 'show stat' as the sensor\n"
    "  pgbouncer-pool:CONNINFO       two exchanges: 'SHOW POOLS' gives C, the\n"
    "      most server connections of a pool (sv_active+sv_idle+sv_used+\n"
    "      sv_tested+sv_login), then 'SET default_pool_size = N', followed when\n"
    "      C > N by 'SET server_lifetime = 'L'' with L = N x interval / (C - N)\n"
    "      (pgbouncer then closes a connection as its client releases it, at\n"
    "      most one every interval / (C - N) s: a busy pool shrinks by about\n"
    "      C - N in an interval, nobody cut off), and once C <= N again by\n"
    "      'SET server_lifetime = 'V'', V the operator's value (read once by\n"
    "      'SHOW CONFIG'; 3600 if unreadable); a drain restores it too\n"
    "  cmd:PROG ARGS                 PROG run (no shell) with {} replaced by N;\n"
    "      exit status 0 is applied\n"
    "haproxy applied a line when it answers only empty lines; pgbouncer when it\n"
    "sends no ErrorResponse. SIGHUP reads --config again (reference, gains,\n"
    "limits; bumpless). SIGTERM (or --duration) drains: the apply under way\n"
    "finishes, then --final N is applied (park: every server back to ready).\n";

/* The table over c; parses argv into c. */
static int control_parse(void *ctx, int argc, char **argv, int reload)
{
    (void)reload; /* the same parse: a reload's messages go to standard error */
    control_cli *c = ctx;
    qc_control_params *o = &c->o;
    qc_ctlloop_params *l = &o->loop;
    const cli_flag flags[] = {
        {"sensor", CLI_STR, &c->sensor, .arg = "SPEC",
         .help = "haproxy:SOCKET:TARGET:FIELD or\npgbouncer:CONNINFO:DB:FIELD (above)"},
        {"sensor-cmd", CLI_STR, &o->sensor.cmd, .arg = "'PROG ARGS'",
         .help = "run PROG each interval; the value is the first\nnumber of its output"},
        {"sensor-url", CLI_STR, &o->sensor.url, .arg = "URL",
         .help = "GET http://HOST:PORT/PATH each interval"},
        {"sensor-metric", CLI_STR, &o->sensor.metric, .arg = "NAME",
         .help = "the Prometheus metric in that answer"},
        {"sensor-log", CLI_STR, &o->sensor.log, .arg = "FILE",
         .help = "follow FILE (as tail -F) from its end"},
        {"sensor-pattern", CLI_STR, &o->sensor.pattern, .arg = "RE",
         .help = "count the new lines matching RE each interval;\nwith a group, sum the "
                 "numbers it captures"},
        {"sensor-scale", CLI_DOUBLE, &o->sensor.scale, 0, 1e12, .arg = "K",
         .help = "multiply every sample by K (default 1)"},
        {"actuator", CLI_STR, &o->actuator, .arg = "SPEC",
         .help = "haproxy-maxconn:..., haproxy-weight:...,\nhaproxy-park:..., "
                 "pgbouncer-pool:... or cmd:... (above)"},
        {"", CLI_NOTE, NULL, .help = "The controller:"},
        {"controller", CLI_CHOICE, &c->controller, .arg = "C", .choices = cli_ctlloop_words(QC_CTLLOOP_PARK + 1),
         .help = "static (default, --setting), integral, pi, open\nor park"},
        {"setting", CLI_DOUBLE, &l->u_init, -1e9, 1e9, .arg = "N",
         .help = "static: the setting; integral, pi: the first one\n(default --min-setting); "
                 "open: before --control-from"},
        {"reference", CLI_STR, &c->reference, .arg = "SCHED",
         .help = "integral, pi: the sensor value to hold: R, or\nR@T,R@T,... changing at T s"},
        {"control-from", CLI_DOUBLE, &l->control_from, 0, 1e9, .arg = "T",
         .help = "hold --setting for T s, then close the loop or\nstart the excitation "
                 "(default 0)"},
        {"ki", CLI_DOUBLE, &l->ki, -1e9, 1e9, .arg = "K", .help = "integral gain (default 0.1)"},
        {"kp", CLI_DOUBLE, &l->kp, -1e9, 1e9, .arg = "K", .help = "proportional gain (pi only)"},
        {"model", CLI_STR, &c->model, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE.json",
         .help = "integral, pi: the identified plant ('qctl sysid\n-o'); the loop is not "
                 "closed (exit 2) when\nits static gain is not finite, its 95% interval\nholds "
                 "0, or K_I's sign is not the gain's"},
        {"gain-sign", CLI_CHOICE, &c->gain_sign, .arg = "S", .choices = "any,positive,negative",
         .help = "with --model: the sign the plant's gain has\n(MaxUsers' RIS: positive); a "
                 "model of the other\nsign is refused (default any)"},
        {"min-setting", CLI_DOUBLE, &l->u_min, -1e9, 1e9, .arg = "A",
         .help = "the controller's least setting (default 1)"},
        {"max-setting", CLI_DOUBLE, &l->u_max, -1e9, 1e9, .arg = "B",
         .help = "its largest (default 1000)"},
        {"antiwindup", CLI_CHOICE, &c->aw, .arg = "A", .choices = cli_antiwindup_words(),
         .help = "none, conditional (default) or backcalc"},
        {"kaw", CLI_DOUBLE, &l->k_aw, 1e-9, 1, .arg = "K",
         .help = "back-calculation gain (default 1)"},
        {"excite", CLI_CHOICE, &c->excite, .arg = "E", .choices = "prbs,steps",
         .help = "open: prbs (default) or steps"},
        {"excite-levels", CLI_STR, &c->levels, .arg = "A,B",
         .help = "open: the two settings, starting at A"},
        {"hold", CLI_UINT, &l->hold, 1, 1e6, .arg = "H",
         .help = "open: intervals between switches (default 3)"},
        {"seed", CLI_U64, &l->seed, .arg = "S", .help = "the PRBS's seed (default 1)"},
        {"threshold", CLI_DOUBLE, &l->threshold, 1e-9, 1e9, .arg = "T",
         .help = "park: requests a server holds before another\nstarts (default 4)"},
        {"min-on", CLI_UINT, &l->min_on, 1, 64, .arg = "N",
         .help = "park: servers always on (default 1)"},
        {"idle-wait", CLI_DOUBLE, &l->idle_wait, 0, 1e9, .arg = "T",
         .help = "park: seconds of low load before one is\ndrained (default 10)"},
        {"setup", CLI_DOUBLE, &l->setup, 0, 1e9, .arg = "T",
         .help = "park: seconds from start to ready (default 5)"},
        {"", CLI_NOTE, NULL, .help = "Running:"},
        {"interval", CLI_DOUBLE, &o->interval, 0.01, 86400, .arg = "T",
         .help = "control interval, seconds (default 1)"},
        {"duration", CLI_DOUBLE, &o->duration, 1e-3, 1e9, .arg = "T",
         .help = "drain after T s, as on SIGTERM (default: run\nuntil a signal)"},
        {"drain-timeout", CLI_DOUBLE, &o->drain_timeout, 0, 1e6, .arg = "T",
         .help = "after SIGTERM, stop anyway after T s (default 10)"},
        {"final", CLI_DOUBLE, &o->final, -1e9, 1e9, .arg = "N",
         .help = "the setting applied on drain (default: none,\nthe last one stays)"},
        {"admin", CLI_STR, &o->admin, .arg = "HOST:PORT",
         .help = "loopback address answering GET /status (JSON)\nand /metrics (Prometheus text)"},
        {"admin-port-file", CLI_STR, &o->admin_port_file, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write the admin port to FILE"},
        {"series", CLI_STR, &o->series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV, one row per interval: time, reference,\nsetting, applied, sensor, held, "
                 "missing, refused,\non, starting, queue, sessions, server_seconds,\nstarts"},
        {"quiet", CLI_BOOL, &o->quiet, .help = "no log lines on standard error"},
        CLI_ROWS_CONFIG_CHECK(c, control_validate),
        CLI_ROW_HELP(&c->help),
        {0}};
    return cli_flags_parse_command(
        "control",
        "qctl control --actuator SPEC [--sensor SPEC | --sensor-cmd ... ]\n"
        "         [--controller static --setting N | integral|pi --reference R --ki K\n"
        "          [--kp K] --min-setting A --max-setting B | open --excite prbs\n"
        "          --excite-levels A,B --hold H | park --threshold T --setup S\n"
        "          --idle-wait W] [--interval T] [--series FILE] [--admin HOST:PORT]\n"
        "         [--duration T] [--config FILE.json] [--check] [options]",
        control_about, flags, argc, argv, NULL);
}

int cmd_control(int argc, char **argv)
{
    return control_main(argc, argv, control_parse);
}
