/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_queue.c: `qctl sim queue`, the G/G/c/K queue from the command line.
 * Parses flags, runs qc_queue_run, writes the summary, series and plots. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simqueue_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates an open G/G/c/K queue (FCFS or processor sharing) and prints\n"
    "its steady-state measures with confidence intervals.\n";

static const char epilogue[] =
    "\n"
    "A run with no steady state (offered load >= 1 and a buffer it never\n"
    "filled, or response times that still trend over the last half of the\n"
    "window) is printed marked TRANSIENT with the evidence, and exits 1.\n"
    "\n"
    "Distribution specs: exp:RATE det:VALUE uniform:A,B erlang:K,RATE\n"
    "  hyperexp:P1,R1,P2,R2 gamma:SHAPE,SCALE lognormal:MU,SIGMA\n"
    "  weibull:SHAPE,SCALE pareto:ALPHA,XM bpareto:ALPHA,L,H empirical:FILE[,COL]\n"
    "  lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2[,W3,MU3,SIGMA3] expmix:W1,R1,W2,R2[,W3,R3]\n"
    "  gpd:XI,SIGMA,U (a fitted one: qctl fit --column FILE[:COL] --spec)";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_* sets every field before the flags are read. */
static queue_cli Q;
static int help;

static const cli_flag flags[] = {
    {"arrival", CLI_STR, &Q.o.a.arrival, .arg = "SPEC",
     .help = "inter-arrival time distribution (e.g. exp:0.9), or\nsin:MEAN,AMP,PERIOD, "
             "curve:FILE or steps:T0:R0,...\n(Poisson with a time-varying rate), or "
             "trace:FILE\n(arrival times)"},
    {"service", CLI_STR, &Q.o.a.service, .arg = "SPEC",
     .help = "service time distribution (e.g. exp:1)"},
    {"curve-unit", CLI_STR, &Q.o.a.curve_unit, .arg = "s|min|h",
     .help = "the unit of the times in a curve:, steps: or sin:\narrival (its rates are per "
             "that unit; default s)"},
    {"servers", CLI_UINT, &Q.p.servers, .arg = "C", .help = "number of servers (default 1)"},
    {"capacity", CLI_STR, &Q.capacity, .arg = "K",
     .help = "most customers in system, K >= C (default: unlimited)"},
    {"discipline", CLI_CHOICE, &Q.p.discipline, .arg = "D", .choices = "fcfs,ps",
     .help = "fcfs (default) or ps (processor sharing)"},
    {"customers", CLI_U64, &Q.p.customers, .arg = "N",
     .help = "measured arrivals per replication (default 100000)", .zero_unset = 1},
    CLI_ROW_TIME(&Q.p.horizon),
    {"warmup", CLI_STR, &Q.warm, .arg = "W",
     .help = "auto (default: MSER on the other replications' mean\nseries, "
             "docs/output-analysis.md), or customers (with\n--customers) or time (with "
             "--time) simulated before\nmeasuring"},
    {"reps", CLI_UINT, &Q.p.reps, .arg = "R",
     .help = "independent replications (default 1: batch means)"},
    {"precision", CLI_DOUBLE, &Q.p.precision, .arg = "REL",
     .help = "run until every mean's half-width is at most REL times\nits estimate: twice the "
             "replications each round, or\nwith one replication the run repeated with "
             "twice the\ncustomers; says whether it got there",
     .zero_unset = 1},
    {"max-customers", CLI_U64, &Q.p.max_customers, .arg = "N",
     .help = "with --precision: most customers in all rounds\n(default 1e9)", .zero_unset = 1},
    {"max-reps", CLI_UINT, &Q.p.max_reps, .arg = "R",
     .help = "with --precision: most replications (default 10000)", .zero_unset = 1},
    CLI_ROW_JOBS(&Q.p.jobs),
    CLI_ROW_SEED(&Q.p.seed),
    CLI_ROW_CONFIDENCE(&Q.p.level),
    CLI_ROW_JSON(&Q.o.out.json),
    CLI_ROW_OUTPUT(&Q.o.out.output),
    {"series", CLI_STR, &Q.o.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "write number in system over time (replication 1) as CSV"},
    CLI_ROW_SERIES_DT(&Q.o.series_dt),
    {"plot", CLI_STR, &Q.o.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "draw number in system and the response-time histogram\ninto DIR as SVG and PNG "
             "(needs gnuplot)"},
    CLI_ROW_REPORT(&Q.o.out.report),
    CLI_ROW_QUIET(&Q.o.quiet),
    CLI_ROW_ALLOW_SHORT(&Q.o.a.allow_short),
    CLI_ROWS_CONFIG_CHECK(&Q, queue_validate),
    CLI_ROW_HELP(&help),
    {"", CLI_NOTE, NULL, .help = epilogue},
    {0}};

int cmd_sim_queue(int argc, char **argv)
{
    Q = (queue_cli){.warm = "auto", .o.out.cmd = "sim queue"};
    help = 0;
    qc_queue_params *p = &Q.p;
    qc_queue_params_init(p);
    p->jobs = cli_jobs_default();
    Q.flags = flags;
    int rc = cli_command_main("sim queue", "qctl sim queue --arrival SPEC --service SPEC [options]",
                              about, flags, Q.given, queue_run, &Q, argc, argv);
    qc_arrivals_free(&Q.arr);
    qc_dist_free(&Q.svc);
    return rc;
}

