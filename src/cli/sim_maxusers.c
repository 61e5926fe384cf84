/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_maxusers.c: `qctl sim maxusers`, the MaxUsers server under integral
 * or PI control, or open loop with an excitation for identification. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simmu_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates a closed population of users on a server whose MaxUsers (the\n"
    "most users connected at once) is set each control interval by an integral\n"
    "or PI controller tracking a reference RIS (RPCs in server), or follows a\n"
    "schedule plus an excitation (open loop, for identification).\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_* sets every field before the flags are read. */
static mu_cli Q;
static int help;

static const cli_flag flags[] = {
    {"", CLI_NOTE, NULL, .help = "Plant:"},
    {"population", CLI_UINT, &Q.p.plant.population, .arg = "M", .help = "users (default 1000)"},
    {"threads", CLI_UINT, &Q.p.plant.threads, .arg = "T",
     .help = "server worker threads (default 4)"},
    {"discipline", CLI_CHOICE, &Q.p.plant.discipline, .arg = "D", .choices = "fcfs,ps",
     .help = "ps (default) or fcfs"},
    {"think", CLI_STR, &Q.spec[0], .arg = "SPEC",
     .help = "think time between RPCs (default exp:0.2)"},
    {"service", CLI_STR, &Q.spec[1], .arg = "SPEC",
     .help = "RPC service time (default exp:2.5)"},
    {"session", CLI_STR, &Q.spec[2], .arg = "SPEC",
     .help = "connected time of a session (default exp:0.0008333)"},
    {"off", CLI_STR, &Q.spec[3], .arg = "SPEC",
     .help = "offline time between sessions (default exp:0.0016667)"},
    {"retry", CLI_STR, &Q.spec[4], .arg = "SPEC",
     .help = "wait before retrying a refused connection (default det:30)"},
    {"interval", CLI_DOUBLE, &Q.p.plant.interval, .arg = "DT",
     .help = "control interval (default 60)"},
    {"maxusers-max", CLI_DOUBLE, &Q.umax, .arg = "U",
     .help = "upper limit of MaxUsers (default M)"},
    {"", CLI_NOTE, NULL, .help = "Control:"},
    {"controller", CLI_CHOICE, &Q.ctl, .arg = "C", .choices = "integral,pi,open",
     .help = "integral (default), pi, or open"},
    {"ki", CLI_DOUBLE, &Q.ki, .arg = "K", .help = "integral gain (default 0.1)"},
    {"kp", CLI_DOUBLE, &Q.kp, .arg = "K", .help = "proportional gain (default 0; pi only)"},
    {"antiwindup", CLI_CHOICE, &Q.aw, .arg = "A", .choices = "none,conditional,backcalc",
     .help = "none, conditional (default) or backcalc"},
    {"kaw", CLI_DOUBLE, &Q.kaw, .arg = "K", .help = "back-calculation gain (default 1)"},
    {"sensor", CLI_CHOICE, &Q.p.sensor, .arg = "S", .choices = "true,logged",
     .help = "true (default) or logged RIS for the controller"},
    {"sensor-gain", CLI_DOUBLE, &Q.p.sensor_gain, .arg = "G",
     .help = "map the reference into the sensor's units as"},
    {"sensor-offset", CLI_DOUBLE, &Q.p.sensor_offset, .arg = "C",
     .help = "r_m = C + G r (default 1 and 0: the sensor reads y)"},
    {"sensor-model", CLI_STR, &Q.sensor_model, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
     .help = "take C and G from the sensor block of a model from\n'qctl sysid': its affine "
             "map (sysid --sensor-at R, the\nmap around the reference), else the tangent at "
             "the\nidentification's mean (ym0 + G (r - y0), G its DC gain).\nA reference that "
             "maps above what the logged sensor can\nread is flagged: the logged RIS of N in "
             "the server is\nN - (N^2/X D)(1 - exp(-X D/N)) (PS; X = threads / mean\nservice, "
             "D the interval), at the largest N the plant\nholds (MaxUsers' limit or the users "
             "who want a session,\nless X x mean think)"},
    {"reference", CLI_STR, &Q.ref, .arg = "SCHED",
     .help = "RIS reference: V or V@T,V@T,... (default 325)"},
    {"maxusers", CLI_STR, &Q.mu, .arg = "SCHED",
     .help = "MaxUsers: the schedule (open) or the start (closed;\ndefault 375)"},
    {"excite", CLI_CHOICE, &Q.p.excite, .arg = "E", .choices = "none,prbs,uniform,steps",
     .help = "open loop: prbs, uniform or steps around --maxusers\n(default none)"},
    {"amplitude", CLI_DOUBLE, &Q.p.excite_amp, .arg = "A",
     .help = "excitation amplitude (default 50)"},
    {"hold", CLI_UINT, &Q.p.excite_hold, .arg = "H",
     .help = "intervals between excitation changes (default 3). Rule:\nat least the plant's "
             "time constant in intervals,\n-1 / ln a of a first fit (a = 0.66: 2.4 for the "
             "default\nplant), so each level shows the static gain"},
    {"", CLI_NOTE, NULL, .help = "Run and output:"},
    {"duration", CLI_DOUBLE, &Q.p.duration, .arg = "T",
     .help = "simulated time (default 14400)"},
    {"warmup", CLI_DOUBLE, &Q.p.warmup, .arg = "T",
     .help = "first run open loop at --maxusers for T (not recorded),\nso that steps start "
             "from a steady state (default 0)"},
    {"band", CLI_DOUBLE, &Q.p.band, .arg = "F",
     .help = "settling band, fraction of the reference (default 0.1)", .zero_unset = 1},
    {"seed", CLI_U64, &Q.p.plant.seed, .arg = "S", .help = "(default 1)"},
    {"reps", CLI_UINT, &Q.reps, .arg = "R",
     .help = "independent replications (default 1); the summary gives\nmeans with t "
             "confidence intervals over them"},
    CLI_ROW_JOBS(&Q.jobs),
    CLI_ROW_CONFIDENCE(&Q.level),
    CLI_ROW_ALLOW_SHORT(&Q.allow_short),
    CLI_ROW_JSON(&Q.out.json),
    {"series", CLI_STR, &Q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "one row per sample instant k (time = k interval):\ntime,reference,maxusers,ris,"
             "ris_now,ris_logged,\nthroughput,response,connected,waiting; maxusers is\nu(k), "
             "set at time and in force until the next row,\nthe rest y(k), measured at time "
             "(over the interval\nending there); '#' comment lines state it and the\nlogged "
             "sensor's bound (ris_logged_bound=V)"},
    {"plot", CLI_STR, &Q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "RIS and reference, and MaxUsers, over time"},
    CLI_ROW_REPORT(&Q.out.report),
    CLI_ROW_QUIET(&Q.quiet),
    CLI_ROWS_CONFIG_CHECK(&Q, mu_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_sim_maxusers(int argc, char **argv)
{
    Q = (mu_cli){.out.cmd = "sim maxusers", .spec = {"exp:0.2", "exp:2.5", "exp:0.0008333", "exp:0.0016667", "det:30"},
                .ref = "325", .mu = "375", .ki = 0.1, .kaw = 1, .umax = NAN, .level = 0.95,
                .aw = QC_AW_CONDITIONAL, .reps = 1, .jobs = cli_jobs_default()};
    help = 0;
    qc_mu_run_params *p = &Q.p;
    qc_maxusers_params_init(&p->plant);
    p->duration = 14400;
    p->excite_amp = 50;
    p->excite_hold = 3;
    p->sensor_gain = 1;
    Q.flags = flags;
    int rc = cli_command_main("sim maxusers", "qctl sim maxusers [options]", about, flags,
                              Q.given, mu_run, &Q, argc, argv);
    for (int i = 0; i < 5; i++)
        qc_dist_free(&Q.d[i]);
    return rc;
}
