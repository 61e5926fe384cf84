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

#include "app/simproxy.h"
#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/output.h"
#include "qctl/proxysim.h"
#include "report_cli.h"
#include "result.h"

static const char about[] =
    "Simulates `qctl proxy` in front of backends of c workers: the proxy's\n"
    "limiter, waiting rooms, deadlines, CoDel and class scheduling decide, as\n"
    "live, on simulated clients (open loop, or users that think). Prints what\n"
    "the proxy would: goodput, admitted latency, refusals by reason, the limit,\n"
    "per class, with confidence intervals over replications.\n";

#define NCLS QC_PSIM_CLASSES_MAX

typedef struct psim_cli {
    qc_psim_params p;
    const char *limiter, *route, *discipline, *service, *arrival, *think, *overhead;
    unsigned users;
    double limit, minl, maxl, ref, gain, eps, alpha, backoff, timeout;
    unsigned minc;
    cli_strs classes, c_arr, c_users, c_think, c_svc, candidates;
    const char *v_classes[NCLS], *v_arr[NCLS], *v_users[NCLS], *v_think[NCLS], *v_svc[NCLS],
        *v_cand[NCLS];
    char names[NCLS][64];
    const char *arr_spec[NCLS], *think_spec[NCLS], *svc_spec[NCLS];
    qc_arrivals arr[NCLS];
    qc_dist thk[NCLS], csvc[NCLS], svc, over;
    cli_outputs out;
    int quiet;
    double series_dt;
    const cli_flag *flags;
    unsigned given[80];
} psim_cli;

/* ---- flags ------------------------------------------------------------------ */

/* Splits "NAME=VALUE" at its first '='; the class index of NAME, or -1
 * after a message. */
static int class_value(psim_cli *q, const char *flag, const char *s, const char **value)
{
    const char *eq = strchr(s, '=');
    if (eq == NULL || eq == s || eq[1] == '\0') {
        cli_error("%s: '%s' is not NAME=VALUE", flag, s);
        return -1;
    }
    for (unsigned k = 0; k < q->p.nclasses; k++)
        if (strlen(q->names[k]) == (size_t)(eq - s) && strncmp(q->names[k], s, (size_t)(eq - s)) == 0) {
            *value = eq + 1;
            return (int)k;
        }
    cli_error("%s: '%.*s' is no class named by --class", flag, (int)(eq - s), s);
    return -1;
}

static int parse_classes(psim_cli *q)
{
    qc_psim_params *p = &q->p;
    if (q->classes.n == 0) {
        if (q->c_arr.n || q->c_users.n || q->c_think.n || q->c_svc.n ||
            q->candidates.n) {
            cli_error("sim proxy: --class-* and --candidate need --class NAME=BOUND");
            return QC_EXIT_USAGE;
        }
        p->nclasses = 1;
        snprintf(q->names[0], sizeof q->names[0], "all");
        q->arr_spec[0] = q->arrival;
        p->cls[0].users = q->users;
        q->think_spec[0] = q->think;
        return 0;
    }
    if (q->arrival || q->users || q->think) {
        cli_error("sim proxy: with --class, give each class's clients by --class-arrival or "
                  "--class-users (not --arrival, --users, --think)");
        return QC_EXIT_USAGE;
    }
    p->nclasses = q->classes.n;
    for (unsigned k = 0; k < q->classes.n; k++) {
        const char *s = q->classes.v[k], *eq = strchr(s, '=');
        if (eq == NULL || eq == s || (size_t)(eq - s) >= sizeof q->names[k]) {
            cli_error("--class: '%s' is not NAME=BOUND", s);
            return QC_EXIT_USAGE;
        }
        snprintf(q->names[k], sizeof q->names[k], "%.*s", (int)(eq - s), s);
        for (unsigned j = 0; j < k; j++)
            if (strcmp(q->names[j], q->names[k]) == 0) {
                cli_error("--class: '%s' is named twice", q->names[k]);
                return QC_EXIT_USAGE;
            }
        if (cli_double("--class", eq + 1, &p->cls[k].bound) != 0)
            return QC_EXIT_USAGE;
        if (!(p->cls[k].bound >= 0)) {
            cli_error("--class: bound '%s' must be >= 0", eq + 1);
            return QC_EXIT_USAGE;
        }
    }
    const char *v;
    int k;
    for (unsigned i = 0; i < q->c_arr.n; i++) {
        if ((k = class_value(q, "--class-arrival", q->c_arr.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->arr_spec[k] = v;
    }
    for (unsigned i = 0; i < q->c_users.n; i++) {
        if ((k = class_value(q, "--class-users", q->c_users.v[i], &v)) < 0 ||
            cli_uint("--class-users", v, &p->cls[k].users) != 0)
            return QC_EXIT_USAGE;
    }
    for (unsigned i = 0; i < q->c_think.n; i++) {
        if ((k = class_value(q, "--class-think", q->c_think.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->think_spec[k] = v;
    }
    for (unsigned i = 0; i < q->c_svc.n; i++) {
        if ((k = class_value(q, "--class-service", q->c_svc.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->svc_spec[k] = v;
    }
    for (unsigned i = 0; i < q->candidates.n; i++) {
        unsigned j;
        for (j = 0; j < p->nclasses; j++)
            if (strcmp(q->names[j], q->candidates.v[i]) == 0)
                break;
        if (j == p->nclasses) {
            cli_error("--candidate: '%s' is no class named by --class", q->candidates.v[i]);
            return QC_EXIT_USAGE;
        }
        p->cls[j].candidate = 1;
    }
    return 0;
}

static int parse_clients(psim_cli *q)
{
    qc_psim_params *p = &q->p;
    qc_err err = {0};
    for (unsigned k = 0; k < p->nclasses; k++) {
        qc_psim_class *c = &p->cls[k];
        c->name = q->names[k];
        int open = q->arr_spec[k] != NULL, closed = c->users > 0;
        if (open == closed) {
            if (q->classes.n == 0)
                cli_error("sim proxy: give --arrival SPEC (open loop) or --users N (closed "
                          "loop), one of them");
            else
                cli_error("sim proxy: class %s: give --class-arrival %s=SPEC or --class-users "
                          "%s=N, one of them",
                          c->name, c->name, c->name);
            return QC_EXIT_USAGE;
        }
        if (open) {
            if (qc_arrivals_parse(&q->arr[k], q->arr_spec[k], &err) != 0) {
                cli_error("%s: %s", q->classes.n ? "--class-arrival" : "--arrival", err.msg);
                return QC_EXIT_USAGE;
            }
            c->arrival = &q->arr[k];
        }
        if (q->think_spec[k]) {
            if (!closed) {
                cli_error("%s: a think time needs users (closed loop)",
                          q->classes.n ? "--class-think" : "--think");
                return QC_EXIT_USAGE;
            }
            if (qc_dist_parse(&q->thk[k], q->think_spec[k], &err) != 0) {
                cli_error("%s: %s", q->classes.n ? "--class-think" : "--think", err.msg);
                return QC_EXIT_USAGE;
            }
            c->think = &q->thk[k];
        }
        if (q->svc_spec[k]) {
            if (qc_dist_parse(&q->csvc[k], q->svc_spec[k], &err) != 0) {
                cli_error("--class-service: %s", err.msg);
                return QC_EXIT_USAGE;
            }
            c->service = &q->csvc[k];
        }
    }
    return 0;
}

static int psim_validate(void *ctx)
{
    psim_cli *q = ctx;
    qc_psim_params *p = &q->p;
    qc_err err = {0};
    int rc;
    if ((rc = parse_classes(q)) != 0)
        return rc;
    if (strcmp(q->limiter, "none") == 0) {
        p->control = 0;
    } else {
        qc_limiter_algo a;
        if (qc_limiter_algo_parse(q->limiter, &a, &err) != 0) {
            cli_error("--limiter: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        p->control = 1;
        qc_limiter_params_init(&p->limiter, a);
    }
    qc_limiter_params *l = &p->limiter;
    if (!isnan(q->limit))
        l->initial_limit = q->limit;
    if (!isnan(q->minl))
        l->min_limit = q->minl;
    if (!isnan(q->maxl))
        l->max_limit = q->maxl;
    if (!isnan(q->ref))
        l->reference = q->ref;
    if (!isnan(q->gain))
        l->ki = q->gain;
    if (!isnan(q->backoff))
        l->aimd_backoff = q->backoff;
    if (!isnan(q->timeout))
        l->aimd_timeout = q->timeout;
    int admission = p->control && l->algo == QC_LIMITER_ADMISSION;
    if (admission) {
        if (!isnan(q->eps))
            l->adm_epsilon = q->eps;
        if (!isnan(q->alpha))
            l->adm_alpha = q->alpha;
        if (q->minc)
            l->adm_min_completions = q->minc;
        if (q->classes.n == 0) {
            cli_error("sim proxy: --limiter admission needs at least one --class NAME=BOUND");
            return QC_EXIT_USAGE;
        }
    } else if (!isnan(q->eps) || !isnan(q->alpha) || q->minc || q->candidates.n) {
        cli_error("sim proxy: --epsilon, --alpha, --min-completions and --candidate need "
                  "--limiter admission");
        return QC_EXIT_USAGE;
    }
    if (q->route && qc_psim_route_parse(q->route, &p->route, &err) != 0) {
        cli_error("--route: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (q->discipline && qc_psim_discipline_parse(q->discipline, &p->discipline, &err) != 0) {
        cli_error("--queue-discipline: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    if (qc_dist_parse(&q->svc, q->service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->service = &q->svc;
    if (q->overhead) {
        if (qc_dist_parse(&q->over, q->overhead, &err) != 0) {
            cli_error("--overhead: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        p->overhead = &q->over;
    }
    if ((rc = parse_clients(q)) != 0)
        return rc;
    if (q->out.series || q->out.plot || q->out.report)
        p->series_dt = q->series_dt > 0 ? q->series_dt : p->interval;
    /* the limiter's own checks (limits, gains, bounds), before the run */
    if (p->control) {
        qc_limiter_params lc = *l;
        lc.classes = p->nclasses;
        if (admission)
            for (unsigned k = 0; k < p->nclasses; k++) {
                lc.bound[k] = p->cls[k].bound;
                if (p->cls[k].candidate)
                    lc.adm_candidates |= 1u << k;
            }
        qc_limiter *lim = qc_limiter_alloc(&lc, 0, &err);
        if (lim == NULL) {
            cli_error("sim proxy: limiter: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        qc_limiter_free(lim);
    }
    q->route = qc_psim_route_name(p->route);
    q->discipline = qc_psim_discipline_name(p->discipline);
    /* the run's own checks, so that --check answers what the start would */
    int crc = qc_psim_params_check(p, &err);
    if (crc != 0) {
        cli_error("sim proxy: %s", err.msg);
        return cli_exit_code(crc);
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------ */
typedef struct psim_out {
    const psim_cli *q;
    const qc_psim_params *p; /* the run's (q->p with its hooks) */
    const qc_psim_result *r;
} psim_out;

static void psim_table(const void *ctx)
{
    const psim_out *o = ctx;
    qc_app_psim_table(o->p, o->q->service, o->r);
}

static void psim_series(FILE *fp, const void *ctx)
{
    qc_app_psim_series_rows(fp, ((const psim_out *)ctx)->r);
}

static int psim_plots(cli_plots *pl, const void *ctx)
{
    int rc = cli_plots_data(pl, "proxy_series.csv", psim_series, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "limit",
                            "set datafile separator ','\nset key below horizontal\n"
                            "set xlabel 'time (s)'\nset ylabel 'requests'\n"
                            "plot '%s' using 1:2 every ::1 with lines lw 2 title 'limit', "
                            "'' using 1:3 every ::1 with lines title 'in flight', "
                            "'' using 1:4 every ::1 with lines title 'waiting'",
                            pl->path);
    return rc;
}

static int psim_run(void *ctx, int argc, char **argv)
{
    psim_cli *q = ctx;
    static const char *const names[] = {"limit"};
    qc_psim_params p = q->p;
    qc_psim_result r;
    cli_run run;
    cli_run_begin(&run, "sim proxy", NULL, q->quiet, &p.progress, &p.progress_ctx);
    cli_run_cancellable(&run, &p.cancel);
    int rc = cli_run_end(&run, qc_psim_run(&p, &r, &run.err));
    if (rc != 0)
        return rc;
    const psim_out out = {q, &q->p, &r};
    json_t *js = qc_app_psim_json(&q->p, q->service, q->overhead, &r, run.elapsed);
    cli_result res = {js, &out, psim_table, NULL, psim_series, psim_plots, names, 1};
    rc = cli_result_write(&q->out, &res, argc, argv);
    qc_psim_result_free(&r);
    return rc;
}

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
