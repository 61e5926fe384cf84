/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_admission.c: `qctl sim admission`, autonomic admission control of
 * delay-bounded classes on a shared server, and its baselines. Reads the
 * scenario (JSON), runs qc_mc_run for one policy or for all of them on the
 * same random numbers, writes the summary, the per-cycle series and plots.
 *
 * Scenario file:
 *   { "classes": [
 *       { "name": "gold", "arrival": "exp:0.2", "service": "exp:1",
 *         "bound": 2.0 },                            admitted from time 0
 *       { "name": "silver", "arrival": "exp:0.3", "service": "exp:1",
 *         "bound": 2.3, "start": 20000, "candidate": true },
 *       { "name": "web", "arrival": "exp:0.3", "service": "exp:1",
 *         "best_effort": true } ],
 *     "time": 200000, "warmup": 10000, "window": 10000,     optional
 *     "epsilon": 0.05, "alpha": 20, "discipline": "dps" }  optional
 * A class may also give "priority" (its static priority, and the starting
 * one of an admitted class); "candidate" defaults to start > 0. Flags
 * override the run fields. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simadm_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates one server shared by priority among delay-bounded classes and a\n"
    "best-effort class, where each bounded class sets its own priority from its\n"
    "own busy-cycle delay samples (autonomic admission control: admitted classes\n"
    "track (1 - epsilon) x bound, candidates slow-start and are admitted or\n"
    "rejected), or under a baseline policy. Prints each class's delay against\n"
    "its bound with confidence intervals over replications.\n";

int cmd_sim_admission(int argc, char **argv)
{
    adm_cli q = {.out.cmd = "sim admission", .pol = "autonomic",
                 .eps = NAN, .alpha = NAN, .horizon = NAN, .warm = NAN, .win = NAN};
    qc_mc_run_params *p = &q.p;
    qc_mc_run_params_init(p);
    p->jobs = cli_jobs_default();
    int help = 0;
    const cli_flag flags[] = {
        {"scenario", CLI_STR, &q.scen, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "the classes (JSON; see docs/admission.md)"},
        {"policy", CLI_STR, &q.pol, .arg = "P",
         .help = "autonomic (default), static, utilization, gradient2,\nvegas, envoy, aimd, or "
                 "all (one comparison table)"},
        {"discipline", CLI_STR, &q.disc, .arg = "D",
         .help = "dps (default: DPS by class), dps-job (DPS by job), or\nweighted (non-preemptive, "
                 "request granularity)"},
        {"epsilon", CLI_DOUBLE, &q.eps, .arg = "E",
         .help = "target margin, 0 <= E < 1 (default 0.1)"},
        {"alpha", CLI_DOUBLE, &q.alpha, .arg = "A",
         .help = "slow-start constant, > 0; larger is gentler (default 20)"},
        {"gain", CLI_DOUBLE, &p->adm.gain, .arg = "G",
         .help = "tracking gain of the admitted classes (default 0.3)"},
        {"min-completions", CLI_UINT, &p->min_completions, .arg = "M",
         .help = "completions that make a delay sample (default 20)"},
        {"u-max", CLI_DOUBLE, &p->u_max, .arg = "U",
         .help = "utilization test threshold (default 0.9)"},
        {"time", CLI_DOUBLE, &q.horizon, .arg = "T",
         .help = "simulated time per replication (default 100000)"},
        {"warmup", CLI_DOUBLE, &q.warm, .arg = "W",
         .help = "time left out of the means (default T/10)"},
        {"window", CLI_DOUBLE, &q.win, .arg = "W",
         .help = "window of the delay excursions (default (T-W)/20)"},
        {"reps", CLI_UINT, &p->reps, .arg = "R", .help = "replications (default 10)"},
        CLI_ROW_JOBS(&p->jobs),
        CLI_ROW_SEED(&p->seed),
        {"confidence", CLI_DOUBLE, &p->level, .arg = "L",
         .help = "confidence level (default 0.95)"},
        CLI_ROW_JSON(&q.out.json),
        CLI_ROW_ALLOW_SHORT(&q.allow_short),
        CLI_ROW_OUTPUT(&q.out.output),
        {"series", CLI_STR, &q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "replication 1 per busy cycle with a sample: each class's\ndelay sample, bound, "
                 "priority, weight and state (CSV)"},
        {"plot", CLI_STR, &q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "each bounded class's delay, bound and priority over\nbusy cycles, as SVG and "
                 "PNG (needs gnuplot)"},
        {"report", CLI_STR, &q.out.report, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "write DIR/index.html: the scenario, the results tables and\n(one policy) the "
                 "plots of --plot, in one page"},
        CLI_ROW_QUIET(&q.quiet),
        CLI_ROWS_CONFIG_CHECK(&q, adm_validate),
        CLI_ROW_HELP(&help),
        {0}};
    int rc = cli_command_main("sim admission", "qctl sim admission --scenario FILE [options]",
                              about, flags, NULL, adm_run, &q, argc, argv);
    scenario_free(&q.s);
    return rc;
}
