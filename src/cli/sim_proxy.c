/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_proxy.c: `qctl sim proxy`, the simulated twin of `qctl proxy`.
 * Parses flags (the proxy's own, and the backends' and clients' of
 * `qctl backend` and `qctl load`), runs qc_psim_run, writes the summary,
 * the limit over time and plots.
 *
 * Classes follow the proxy's words: --class NAME=BOUND names a class
 * and its deadline (its delay bound under --limiter admission), and
 * --class-arrival NAME=SPEC, --class-users NAME=N, --class-think
 * NAME=SPEC and --class-service NAME=SPEC give its clients; without --class there is one class whose clients are
 * --arrival, or --users and --think. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simproxy_cmd.h"
#include "cli.h"

static const char about[] =
    "Simulates `qctl proxy` in front of backends of c workers: the proxy's\n"
    "limiter, waiting rooms, deadlines, CoDel and class scheduling decide, as\n"
    "live, on simulated clients (open loop, or users that think). Prints what\n"
    "the proxy would: goodput, admitted latency, refusals by reason, the limit,\n"
    "per class, with confidence intervals over replications.\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; cmd_* sets every field before the flags are read. */
static psim_cli Q;
static int help;

static const cli_flag flags[] = {
    {"", CLI_NOTE, NULL, .help = "Backends (as qctl backend):"},
    {"backends", CLI_UINT, &Q.p.backends, 1, QC_PSIM_BACKENDS_MAX, .arg = "B",
     .help = "backends (default 1)"},
    {"workers", CLI_UINT, &Q.p.workers, 1, 100000, .arg = "C",
     .help = "workers per backend, each serving one request at a\ntime, FCFS (default 1)"},
    {"service", CLI_STR, &Q.service, .arg = "SPEC",
     .help = "service time at a backend (default exp:100, mean 10 ms)"},
    {"route", CLI_STR, &Q.route, .arg = "jsq|djsq",
     .help = "routing between backends: jsq (default), the fewest in\nflight; djsq: "
             "delay-JSQ with --djsq-threshold"},
    {"djsq-threshold", CLI_UINT, &Q.p.threshold, 1, 1e6, .arg = "T",
     .help = "delay-JSQ threshold (default 4)"},
    {"overhead", CLI_STR, &Q.overhead, .arg = "SPEC",
     .help = "time added to every answer as the client sees it (the\nproxy's, the "
             "network's, the host's): det:X, or\nempirical:FILE of latencies measured "
             "at no load\n(default none)"},
    {"transit", CLI_STR, &Q.transit, .arg = "SPEC",
     .help = "time an answer takes from the end of its service to\nthe proxy, holding its "
             "slot (the network both ways,\nthe backend's timer): det:X, or empirical:FILE "
             "of\nthe proxy's time at a backend less its service,\nmeasured at no load "
             "(default none)"},
    {"service-seed", CLI_U64, &Q.p.service_seed, .arg = "S",
     .help = "every replication serves the service times qctl backend\n--seed S draws "
             "(one backend): the twin of one live run\n(default 0: each replication "
             "its own)"},
    {"", CLI_NOTE, NULL, .help = "\nThe proxy (as qctl proxy):"},
    {"limiter", CLI_STR, &Q.limiter, .arg = "NAME",
     .help = "maxusers (default), aimd, vegas, gradient2, envoy,\nfixed, admission or none"},
    {"limit", CLI_DOUBLE, &Q.limit, .arg = "L", .help = "initial (fixed: the) limit"},
    {"min-limit", CLI_DOUBLE, &Q.minl, .arg = "L", .help = "least limit (default 1)"},
    {"max-limit", CLI_DOUBLE, &Q.maxl, .arg = "L", .help = "largest limit (default 1000)"},
    {"reference", CLI_DOUBLE, &Q.ref, .arg = "R",
     .help = "maxusers: requests in the server to hold (default\nadaptive)"},
    {"gain", CLI_DOUBLE, &Q.gain, .arg = "K", .help = "maxusers: integral gain"},
    {"aimd-backoff", CLI_DOUBLE, &Q.backoff, .arg = "F",
     .help = "aimd: the limit's factor on a drop (default 0.9)"},
    {"aimd-timeout", CLI_DOUBLE, &Q.timeout, .arg = "T",
     .help = "aimd: a mean latency above T counts as a drop\n(default 5)"},
    {"interval", CLI_DOUBLE, &Q.p.interval, .arg = "T", .open = CLI_OPEN_MIN,
     .help = "control interval (default 0.1)"},
    {"queue", CLI_UINT, &Q.p.queue, .arg = "N", .help = "waiting room (default 1024)"},
    {"queue-timeout", CLI_DOUBLE, &Q.p.queue_timeout, .arg = "T", .open = CLI_OPEN_MIN,
     .help = "default wait deadline (default 1)"},
    {"queue-discipline", CLI_STR, &Q.discipline, .arg = "D",
     .help = "fifo, or codel (default): short deadlines and LIFO\nwhile the queue stands"},
    {"queue-target", CLI_DOUBLE, &Q.p.queue_target, .arg = "T",
     .help = "codel target wait (default 0: adaptive)"},
    {"sample-every", CLI_UINT, &Q.p.sample_every, 0, 1e9, .arg = "N",
     .help = "the limiter's sampler: 0 (default, as the proxy), one\nsample per interval; "
             "N, one per N completions"},
    {"sample-least", CLI_UINT, &Q.p.sample_least, 0, 1e9, .arg = "N",
     .help = "--sample-every 0: an interval closes the window once\nit holds N completions "
             "(default 32; 0: every interval)"},
    {"class", CLI_STRS, &Q.classes, 0, NCLS, .arg = "NAME=BOUND",
     .help = "a class and its deadline, s (0: --queue-timeout); under\n--limiter "
             "admission its delay bound (0: best effort)"},
    {"candidate", CLI_STRS, &Q.candidates, 0, NCLS, .arg = "NAME",
     .help = "admission: the class starts as a candidate"},
    {"epsilon", CLI_DOUBLE, &Q.eps, .arg = "E", .help = "admission: margin under the bound"},
    {"alpha", CLI_DOUBLE, &Q.alpha, .arg = "A", .help = "admission: slow-start constant"},
    {"min-completions", CLI_UINT, &Q.minc, 1, 4294967295.0, .arg = "M",
     .help = "admission: completions per sample"},
    {"", CLI_NOTE, NULL, .help = "\nClients (as qctl load):"},
    {"arrival", CLI_STR, &Q.arrival, .arg = "SPEC",
     .help = "open loop: exp:RATE, any renewal spec, sin:, curve:,\nsteps: or trace:FILE "
             "(qctl/arrivals.h)"},
    {"users", CLI_UINT, &Q.users, 0, QC_PSIM_USERS_MAX, .arg = "N",
     .help = "closed loop: users, each sending after its think time"},
    {"think", CLI_STR, &Q.think, .arg = "SPEC", .help = "closed loop: think time"},
    {"class-arrival", CLI_STRS, &Q.c_arr, 0, NCLS, .arg = "NAME=SPEC",
     .help = "a class's open-loop clients"},
    {"class-users", CLI_STRS, &Q.c_users, 0, NCLS, .arg = "NAME=N",
     .help = "a class's closed-loop users"},
    {"class-think", CLI_STRS, &Q.c_think, 0, NCLS, .arg = "NAME=SPEC",
     .help = "their think time"},
    {"class-service", CLI_STRS, &Q.c_svc, 0, NCLS, .arg = "NAME=SPEC",
     .help = "a class's own service time (default --service)"},
    {"", CLI_NOTE, NULL, .help = "\nThe run:"},
    {"time", CLI_DOUBLE, &Q.p.horizon, .arg = "T", .open = CLI_OPEN_MIN,
     .help = "measured seconds per replication (default 60)"},
    {"warmup", CLI_DOUBLE, &Q.p.warmup, .arg = "T",
     .help = "seconds simulated first, unmeasured (default 5)"},
    {"reps", CLI_UINT, &Q.p.reps, 1, 4096, .arg = "R",
     .help = "independent replications (default 10; 1: no interval)"},
    CLI_ROW_JOBS(&Q.p.jobs),
    CLI_ROW_SEED(&Q.p.seed),
    CLI_ROW_CONFIDENCE(&Q.p.level),
    CLI_ROW_JSON(&Q.out.json),
    CLI_ROW_OUTPUT(&Q.out.output),
    {"series", CLI_STR, &Q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
     .help = "write the limit, in flight and waiting of replication 1\nover time as CSV"},
    {"series-dt", CLI_DOUBLE, &Q.series_dt, .arg = "DT",
     .help = "the series' step (default: the control interval)", .zero_unset = 1},
    {"plot", CLI_STR, &Q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
     .help = "draw the limit over time into DIR (needs gnuplot)"},
    CLI_ROW_REPORT(&Q.out.report),
    CLI_ROW_QUIET(&Q.quiet),
    CLI_ROWS_CONFIG_CHECK(&Q, psim_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_sim_proxy(int argc, char **argv)
{
    Q = (psim_cli){.limiter = "maxusers", .service = "exp:100", .out.cmd = "sim proxy"};
    help = 0;
    Q.limit = Q.minl = Q.maxl = Q.ref = Q.gain = Q.eps = Q.alpha = Q.backoff = Q.timeout = NAN;
    Q.classes.v = Q.v_classes;
    Q.c_arr.v = Q.v_arr;
    Q.c_users.v = Q.v_users;
    Q.c_think.v = Q.v_think;
    Q.c_svc.v = Q.v_svc;
    Q.candidates.v = Q.v_cand;
    qc_psim_params *p = &Q.p;
    qc_psim_params_init(p);
    p->jobs = cli_jobs_default();
    Q.flags = flags;
    int rc = cli_command_main("sim proxy",
                              "qctl sim proxy (--arrival SPEC | --users N | --class NAME=BOUND "
                              "...) [options]",
                              about, flags, Q.given, psim_run, &Q, argc, argv);
    for (unsigned k = 0; k < NCLS; k++) {
        qc_arrivals_free(&Q.arr[k]);
        qc_dist_free(&Q.thk[k]);
        qc_dist_free(&Q.csvc[k]);
    }
    qc_dist_free(&Q.svc);
    qc_dist_free(&Q.over);
    return rc;
}
