/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_pool.c: `qctl sim pool`, K removable servers from the command line.
 * Parses flags, runs qc_pool_run, writes the summary, series and plots.
 * Power flags are in watts; --price turns watts into cost per unit time
 * (the cost model of qctl/energy.h), so the JSON reports both. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simpool_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates K removable servers (OFF, SETUP, ON) under a routing and\n"
    "on/off policy and prints delay, power and cost with confidence intervals.\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_* sets every field before the flags are read. */
static pool_cli Q;
static int help;

/* the old names (aliases) keep one vocabulary: "setup" for a server's
 * start-up time, "warm-up" for the statistical cut */
static const cli_flag flags[] = {
    {"servers", CLI_UINT, &Q.p.servers, .arg = "K", .help = "number of servers (required)"},
    {"policy", CLI_STR, &Q.policy, .arg = "P",
     .help = "djsq (default): delay-JSQ, the shortest non-empty queue,\n  one more server on "
             "only when every non-empty queue\n  would exceed T;\njsq: join the shortest "
             "queue, all servers always on;\njsq-off: JSQ, an OFF server counting as empty, "
             "servers\n  off when idle;\nrandom: uniform routing, servers off when "
             "idle;\ncentral: one central queue, M/M/k with setup\n  (Gandhi, Harchol-Balter, "
             "Adan 2010)"},
    {"threshold", CLI_UINT, &Q.p.threshold, .arg = "T",
     .help = "delay-JSQ threshold, T >= 1 (default 4)"},
    {"route-on", CLI_BOOL, &Q.p.route_on,
     .help = "djsq through a balancer over the servers ON only\n(haproxy's leastconn over "
             "servers 'ready'): a job\nthat turns a server on (or chooses one in setup)\n"
             "joins the shortest ON queue instead of waiting\nfor the setup"},
    {"arrival", CLI_STR, &Q.o.a.arrival, .arg = "SPEC",
     .help = "exp:RATE (Poisson), any distribution spec (renewal\ninter-arrival times), "
             "sin:MEAN,AMP,PERIOD,\ncurve:FILE (CSV time,rate; linear, repeats with its\nlast "
             "time as period), steps:T0:R0,T1:R1,... (rate\nR_k from T_k on, the last one for "
             "ever)\nor trace:FILE (arrival times)"},
    {"service", CLI_STR, &Q.o.a.service, .arg = "SPEC", .help = "service time (default exp:1)"},
    {"setup-time", CLI_STR, &Q.o.a.setup, .arg = "SPEC", .alias = "warmup-time",
     .help = "setup time of a server switched on, before it serves\n(default exp:0.1; "
             "--warmup-time: old name)"},
    {"idle-timer", CLI_STR, &Q.idle_timer, .arg = "T",
     .help = "an idle server switches off after T (default 0: at\nonce; 'inf': never); "
             "ignored by jsq"},
    {"customers", CLI_U64, &Q.p.customers, .arg = "N",
     .help = "measured arrivals per replication (default 100000;\na trace: all of it)",
     .zero_unset = 1},
    CLI_ROW_TIME(&Q.p.horizon),
    {"warmup", CLI_STR, &Q.trans, .arg = "W", .alias = "transient",
     .help = "statistical warm-up cut (--transient: old name):\nauto (default: MSER cut for "
             "stationary arrivals, none\nfor time-varying ones or traces), or customers "
             "(with\n--customers) or time (with --time) simulated first"},
    {"reps", CLI_UINT, &Q.p.reps, .arg = "R",
     .help = "independent replications (default 10; 1: batch means)"},
    CLI_ROW_JOBS(&Q.p.jobs),
    CLI_ROW_SEED(&Q.p.seed),
    CLI_ROW_CONFIDENCE(&Q.p.level),
    {"", CLI_NOTE, NULL, .help = "\nCost (watts x price = cost per unit time):"},
    {"holding", CLI_DOUBLE, &Q.p.cost.holding, .arg = "H",
     .help = "cost per job per unit time (default 1)"},
    {"busy-power", CLI_DOUBLE, &Q.o.a.watts[0], .arg = "W",
     .help = "watts while serving (default 240)"},
    {"idle-power", CLI_DOUBLE, &Q.o.a.watts[1], .arg = "W",
     .help = "watts while on and idle (default 180)"},
    {"setup-power", CLI_DOUBLE, &Q.o.a.watts[2], .arg = "W", .alias = "warm-power",
     .help = "watts during the setup time (default 240;\n--warm-power: old name)"},
    {"off-power", CLI_DOUBLE, &Q.o.a.watts[3], .arg = "W", .help = "watts while off (default 0)"},
    {"switch-cost", CLI_DOUBLE, &Q.p.cost.switch_cost, .arg = "C",
     .help = "cost per switch-on (default 0)"},
    {"price", CLI_DOUBLE, &Q.o.a.price, .arg = "P",
     .help = "cost per watt per unit time (default 1)"},
    {"", CLI_NOTE, NULL, .help = ""},
    CLI_ROW_JSON(&Q.o.out.json),
    CLI_ROW_OUTPUT(&Q.o.out.output),
    {"series", CLI_STR, &Q.o.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "write jobs, servers on and in setup and the arrival rate\nover time "
             "(replication 1) as CSV"},
    CLI_ROW_SERIES_DT(&Q.o.series_dt),
    {"plot", CLI_STR, &Q.o.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "draw servers against demand and the response-time tail\ninto DIR as SVG and "
             "PNG (needs gnuplot)"},
    CLI_ROW_REPORT(&Q.o.out.report),
    {"compare", CLI_BOOL, &Q.o.compare,
     .help = "also run every other policy on the same input with the\nsame seed, and compare "
             "cost, delay and power: a table,\n'comparison' in the JSON, a plot with --plot "
             "or --report"},
    CLI_ROW_QUIET(&Q.o.quiet),
    CLI_ROW_ALLOW_SHORT(&Q.o.a.allow_short),
    CLI_ROWS_CONFIG_CHECK(&Q, pool_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_sim_pool(int argc, char **argv)
{
    Q = (pool_cli){.trans = "auto", .o.out.cmd = "sim pool"};
    help = 0;
    qc_pool_params *p = &Q.p;
    opts *o = &Q.o;
    qc_pool_params_init(p);
    p->jobs = cli_jobs_default();
    o->a.service = "exp:1";
    o->a.price = 1.0;
    o->a.watts[0] = QC_POOL_DEFAULT_BUSY_W;
    o->a.watts[1] = QC_POOL_DEFAULT_IDLE_W;
    o->a.watts[2] = QC_POOL_DEFAULT_SETUP_W;
    o->a.watts[3] = QC_POOL_DEFAULT_OFF_W;
    char setup_default[64];
    snprintf(setup_default, sizeof setup_default, "exp:%g", QC_POOL_DEFAULT_SETUP_RATE);
    o->a.setup = setup_default;
    Q.flags = flags;
    int rc = cli_command_main("sim pool", "qctl sim pool --servers K --arrival SPEC [options]",
                              about, flags, Q.given, pool_run, &Q, argc, argv);
    qc_arrivals_free(&Q.arr);
    qc_dist_free(&Q.svc);
    qc_dist_free(&Q.wup);
    return rc;
}

