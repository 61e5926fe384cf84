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

int cmd_sim_proxy(int argc, char **argv)
{
    psim_cli q = {.limiter = "maxusers", .service = "exp:100", .out.cmd = "sim proxy"};
    q.limit = q.minl = q.maxl = q.ref = q.gain = q.eps = q.alpha = q.backoff = q.timeout = NAN;
    q.classes.v = q.v_classes;
    q.c_arr.v = q.v_arr;
    q.c_users.v = q.v_users;
    q.c_think.v = q.v_think;
    q.c_svc.v = q.v_svc;
    q.candidates.v = q.v_cand;
    qc_psim_params *p = &q.p;
    qc_psim_params_init(p);
    p->jobs = cli_jobs_default();
    int help = 0;
    const cli_flag flags[] = {
        {"", CLI_NOTE, NULL, .help = "Backends (as qctl backend):"},
        {"backends", CLI_UINT, &p->backends, 1, QC_PSIM_BACKENDS_MAX, .arg = "B",
         .help = "backends (default 1)"},
        {"workers", CLI_UINT, &p->workers, 1, 100000, .arg = "C",
         .help = "workers per backend, each serving one request at a\ntime, FCFS (default 1)"},
        {"service", CLI_STR, &q.service, .arg = "SPEC",
         .help = "service time at a backend (default exp:100, mean 10 ms)"},
        {"route", CLI_STR, &q.route, .arg = "jsq|djsq",
         .help = "routing between backends: jsq (default), the fewest in\nflight; djsq: "
                 "delay-JSQ with --djsq-threshold"},
        {"djsq-threshold", CLI_UINT, &p->threshold, 1, 1e6, .arg = "T",
         .help = "delay-JSQ threshold (default 4)"},
        {"overhead", CLI_STR, &q.overhead, .arg = "SPEC",
         .help = "time added to every answer as the client sees it (the\nproxy's, the "
                 "network's, the host's): det:X, or\nempirical:FILE of latencies measured "
                 "at no load\n(default none)"},
        {"service-seed", CLI_U64, &p->service_seed, .arg = "S",
         .help = "every replication serves the service times qctl backend\n--seed S draws "
                 "(one backend): the twin of one live run\n(default 0: each replication "
                 "its own)"},
        {"", CLI_NOTE, NULL, .help = "\nThe proxy (as qctl proxy):"},
        {"limiter", CLI_STR, &q.limiter, .arg = "NAME",
         .help = "maxusers (default), aimd, vegas, gradient2, envoy,\nfixed, admission or none"},
        {"limit", CLI_DOUBLE, &q.limit, .arg = "L", .help = "initial (fixed: the) limit"},
        {"min-limit", CLI_DOUBLE, &q.minl, .arg = "L", .help = "least limit (default 1)"},
        {"max-limit", CLI_DOUBLE, &q.maxl, .arg = "L", .help = "largest limit (default 1000)"},
        {"reference", CLI_DOUBLE, &q.ref, .arg = "R",
         .help = "maxusers: requests in the server to hold (default\nadaptive)"},
        {"gain", CLI_DOUBLE, &q.gain, .arg = "K", .help = "maxusers: integral gain"},
        {"aimd-backoff", CLI_DOUBLE, &q.backoff, .arg = "F",
         .help = "aimd: the limit's factor on a drop (default 0.9)"},
        {"aimd-timeout", CLI_DOUBLE, &q.timeout, .arg = "T",
         .help = "aimd: a mean latency above T counts as a drop\n(default 5)"},
        {"interval", CLI_DOUBLE, &p->interval, .arg = "T", .open = CLI_OPEN_MIN,
         .help = "control interval (default 0.1)"},
        {"queue", CLI_UINT, &p->queue, .arg = "N", .help = "waiting room (default 1024)"},
        {"queue-timeout", CLI_DOUBLE, &p->queue_timeout, .arg = "T", .open = CLI_OPEN_MIN,
         .help = "default wait deadline (default 1)"},
        {"queue-discipline", CLI_STR, &q.discipline, .arg = "D",
         .help = "fifo, or codel (default): short deadlines and LIFO\nwhile the queue stands"},
        {"queue-target", CLI_DOUBLE, &p->queue_target, .arg = "T",
         .help = "codel target wait (default 0: adaptive)"},
        {"sample-every", CLI_UINT, &p->sample_every, 0, 1e9, .arg = "N",
         .help = "the limiter's sampler: 0 (default, as the proxy), one\nsample per interval; "
                 "N, one per N completions"},
        {"class", CLI_STRS, &q.classes, 0, NCLS, .arg = "NAME=BOUND",
         .help = "a class and its deadline, s (0: --queue-timeout); under\n--limiter "
                 "admission its delay bound (0: best effort)"},
        {"candidate", CLI_STRS, &q.candidates, 0, NCLS, .arg = "NAME",
         .help = "admission: the class starts as a candidate"},
        {"epsilon", CLI_DOUBLE, &q.eps, .arg = "E", .help = "admission: margin under the bound"},
        {"alpha", CLI_DOUBLE, &q.alpha, .arg = "A", .help = "admission: slow-start constant"},
        {"min-completions", CLI_UINT, &q.minc, 1, 4294967295.0, .arg = "M",
         .help = "admission: completions per sample"},
        {"", CLI_NOTE, NULL, .help = "\nClients (as qctl load):"},
        {"arrival", CLI_STR, &q.arrival, .arg = "SPEC",
         .help = "open loop: exp:RATE, any renewal spec, sin:, curve:,\nsteps: or trace:FILE "
                 "(qctl/arrivals.h)"},
        {"users", CLI_UINT, &q.users, 0, QC_PSIM_USERS_MAX, .arg = "N",
         .help = "closed loop: users, each sending after its think time"},
        {"think", CLI_STR, &q.think, .arg = "SPEC", .help = "closed loop: think time"},
        {"class-arrival", CLI_STRS, &q.c_arr, 0, NCLS, .arg = "NAME=SPEC",
         .help = "a class's open-loop clients"},
        {"class-users", CLI_STRS, &q.c_users, 0, NCLS, .arg = "NAME=N",
         .help = "a class's closed-loop users"},
        {"class-think", CLI_STRS, &q.c_think, 0, NCLS, .arg = "NAME=SPEC",
         .help = "their think time"},
        {"class-service", CLI_STRS, &q.c_svc, 0, NCLS, .arg = "NAME=SPEC",
         .help = "a class's own service time (default --service)"},
        {"", CLI_NOTE, NULL, .help = "\nThe run:"},
        {"time", CLI_DOUBLE, &p->horizon, .arg = "T", .open = CLI_OPEN_MIN,
         .help = "measured seconds per replication (default 60)"},
        {"warmup", CLI_DOUBLE, &p->warmup, .arg = "T",
         .help = "seconds simulated first, unmeasured (default 5)"},
        {"reps", CLI_UINT, &p->reps, 1, 4096, .arg = "R",
         .help = "independent replications (default 10; 1: no interval)"},
        CLI_ROW_JOBS(&p->jobs),
        CLI_ROW_SEED(&p->seed),
        CLI_ROW_CONFIDENCE(&p->level),
        CLI_ROW_JSON(&q.out.json),
        CLI_ROW_OUTPUT(&q.out.output),
        {"series", CLI_STR, &q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write the limit, in flight and waiting of replication 1\nover time as CSV"},
        {"series-dt", CLI_DOUBLE, &q.series_dt, .arg = "DT",
         .help = "the series' step (default: the control interval)", .zero_unset = 1},
        {"plot", CLI_STR, &q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "draw the limit over time into DIR (needs gnuplot)"},
        CLI_ROW_REPORT(&q.out.report),
        CLI_ROW_QUIET(&q.quiet),
        CLI_ROWS_CONFIG_CHECK(&q, psim_validate),
        CLI_ROW_HELP(&help),
        {0}};
    q.flags = flags;
    int rc = cli_command_main("sim proxy",
                              "qctl sim proxy (--arrival SPEC | --users N | --class NAME=BOUND "
                              "...) [options]",
                              about, flags, q.given, psim_run, &q, argc, argv);
    for (unsigned k = 0; k < NCLS; k++) {
        qc_arrivals_free(&q.arr[k]);
        qc_dist_free(&q.thk[k]);
        qc_dist_free(&q.csvc[k]);
    }
    qc_dist_free(&q.svc);
    qc_dist_free(&q.over);
    return rc;
}
