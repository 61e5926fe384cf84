/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load_cli.c: `qctl load`: flags in, the load generator of src/live/load.c
 * (HTTP, open or closed loop) or the UDP replay of src/live/replay.c out,
 * the summary as text or JSON. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "live/live.h"
#include "qctl/arrivals.h"
#include "qctl/output.h"

static const char load_usage[] =
    "usage: qctl load --target HOST:PORT (--requests N | --duration T) [options]\n"
    "       qctl load --udp HOST:PORT --replay FILE [--payload P] [--json]\n"
    "\n"
    "HTTP load, open loop (default): requests are due at the times of an\n"
    "arrival process whatever the server does, and latency is measured from\n"
    "the time a request was due (so queueing in the generator is not\n"
    "hidden). Closed loop (--users N): each of N users sends a request,\n"
    "waits for its answer, thinks, and sends again. Reports sent, answered\n"
    "(2xx, 503, other), errors and timeouts, with latency percentiles;\n"
    "sent = answered + errors + timeouts.\n"
    "\n"
    "  --target HOST:PORT   server to load\n"
    "  --path P             request target (default /)\n"
    "open loop, one of:\n"
    "  --rate R             Poisson arrivals at R per second (same as exp:R)\n"
    "  --arrival SPEC       an arrival process: a distribution of the gaps,\n"
    "                       sin:MEAN,AMP,PERIOD, curve:FILE,\n"
    "                       steps:T0:R0,T1:R1,... or trace:FILE\n"
    "  --schedule T0:R0,... Poisson at rate R_k from T_k s on (same as\n"
    "                       --arrival steps:...), e.g. 0:50,10:150,20:50\n"
    "  --traffic MODEL.json requests at the packet times of a traffic model\n"
    "                       (qctl gen): each packet a user sends is a request\n"
    "  --traffic-users U    users of the model (default 1)\n"
    "  --per packet|session a request per user packet (default) or per\n"
    "                       session (its first packet)\n"
    "closed loop:\n"
    "  --users N            N users, each with one request out at most\n"
    "  --think SPEC         think time in seconds after an answer (default det:0)\n"
    "  --session SPEC       requests per session (rounded up; default: one\n"
    "                       endless session)\n"
    "  --off SPEC           off time between sessions (default det:0)\n"
    "bounds and output:\n"
    "  --requests N         stop issuing after N requests\n"
    "  --duration T         stop issuing after T seconds\n"
    "  --connections C      open loop: most connections at once (default 64)\n"
    "  --timeout T          wait at most T s for answers at the end (default 10)\n"
    "  --header 'N: V'      send this header (e.g. a class)\n"
    "  --seed S             seed of the arrivals and think times (default 1)\n"
    "  --series FILE        CSV per interval: time, sent, answered, ok,\n"
    "                       refused, errors, p50, p95 of that interval's\n"
    "                       answers, p95 of its 2xx answers (ok_p95)\n"
    "  --series-interval T  its interval in seconds (default 1)\n"
    "  --max-errors F       exit 1 when more than this fraction of the requests\n"
    "                       failed (connection errors and timeouts; default 0:\n"
    "                       any failure)\n"
    "  --json               print the summary as JSON\n"
    "UDP replay:\n"
    "  --udp HOST:PORT      send one datagram per packet of --replay FILE\n"
    "  --replay FILE        pcap, pcapng or CSV (time,size): each packet's\n"
    "                       size (at most 65507) at its time from the first\n"
    "  --payload zeros|pattern  datagram bytes (default zeros)\n"
    "  --help               this text\n";

typedef struct load_args {
    qc_load_opts o;
    const char *arrival, *schedule, *traffic, *think, *session, *off, *udp, *replay;
    double rate, max_errors;
    unsigned traffic_users;
    int per_session, pattern, json;
} load_args;

/* Parses argv into a; 0, or the exit status to return (help: -1). */
static int parse_args(int argc, char **argv, load_args *a)
{
    enum {
        O_TGT = 1,
        O_PATH,
        O_RATE,
        O_ARR,
        O_SCHED,
        O_TRAF,
        O_TUSERS,
        O_PER,
        O_USERS,
        O_THINK,
        O_SESS,
        O_OFF,
        O_REQ,
        O_DUR,
        O_CONN,
        O_TMO,
        O_HDR,
        O_SEED,
        O_SERIES,
        O_SINT,
        O_JSON,
        O_UDP,
        O_REPLAY,
        O_PAYLOAD,
        O_HELP,
        O_MAXERR
    };
    static const struct option longopts[] = {{"target", required_argument, 0, O_TGT},
                                             {"path", required_argument, 0, O_PATH},
                                             {"rate", required_argument, 0, O_RATE},
                                             {"arrival", required_argument, 0, O_ARR},
                                             {"schedule", required_argument, 0, O_SCHED},
                                             {"traffic", required_argument, 0, O_TRAF},
                                             {"traffic-users", required_argument, 0, O_TUSERS},
                                             {"per", required_argument, 0, O_PER},
                                             {"users", required_argument, 0, O_USERS},
                                             {"think", required_argument, 0, O_THINK},
                                             {"session", required_argument, 0, O_SESS},
                                             {"off", required_argument, 0, O_OFF},
                                             {"requests", required_argument, 0, O_REQ},
                                             {"duration", required_argument, 0, O_DUR},
                                             {"connections", required_argument, 0, O_CONN},
                                             {"timeout", required_argument, 0, O_TMO},
                                             {"header", required_argument, 0, O_HDR},
                                             {"seed", required_argument, 0, O_SEED},
                                             {"series", required_argument, 0, O_SERIES},
                                             {"series-interval", required_argument, 0, O_SINT},
                                             {"json", no_argument, 0, O_JSON},
                                             {"udp", required_argument, 0, O_UDP},
                                             {"replay", required_argument, 0, O_REPLAY},
                                             {"payload", required_argument, 0, O_PAYLOAD},
                                             {"help", no_argument, 0, O_HELP},
                                             {"max-errors", required_argument, 0, O_MAXERR},
                                             {0, 0, 0, 0}};
    qc_load_opts *o = &a->o;
    int c, rc = 0;
    optind = 1;
    while ((c = cli_getopt(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_TGT:
            o->target = optarg;
            break;
        case O_PATH:
            o->path = optarg;
            break;
        case O_RATE:
            rc = cli_double("--rate", optarg, &a->rate);
            break;
        case O_ARR:
            a->arrival = optarg;
            break;
        case O_SCHED:
            a->schedule = optarg;
            break;
        case O_TRAF:
            a->traffic = optarg;
            break;
        case O_TUSERS:
            rc = cli_uint("--traffic-users", optarg, &a->traffic_users);
            break;
        case O_PER:
            if (strcmp(optarg, "packet") == 0)
                a->per_session = 0;
            else if (strcmp(optarg, "session") == 0)
                a->per_session = 1;
            else {
                cli_error("--per: '%s' is not packet or session", optarg);
                return QC_EXIT_USAGE;
            }
            break;
        case O_USERS:
            rc = cli_uint("--users", optarg, &o->users);
            break;
        case O_THINK:
            a->think = optarg;
            break;
        case O_SESS:
            a->session = optarg;
            break;
        case O_OFF:
            a->off = optarg;
            break;
        case O_REQ:
            rc = cli_u64("--requests", optarg, &o->requests);
            break;
        case O_DUR:
            rc = cli_double("--duration", optarg, &o->duration);
            break;
        case O_CONN:
            rc = cli_uint("--connections", optarg, &o->connections);
            break;
        case O_TMO:
            rc = cli_double("--timeout", optarg, &o->timeout);
            break;
        case O_HDR:
            o->class_header = optarg;
            break;
        case O_SEED:
            rc = cli_u64("--seed", optarg, &o->seed);
            break;
        case O_SERIES:
            o->series = optarg;
            break;
        case O_SINT:
            rc = cli_double("--series-interval", optarg, &o->series_interval);
            break;
        case O_JSON:
            a->json = 1;
            break;
        case O_UDP:
            a->udp = optarg;
            break;
        case O_REPLAY:
            a->replay = optarg;
            break;
        case O_PAYLOAD:
            if (strcmp(optarg, "zeros") == 0)
                a->pattern = 0;
            else if (strcmp(optarg, "pattern") == 0)
                a->pattern = 1;
            else {
                cli_error("--payload: '%s' is not zeros or pattern", optarg);
                return QC_EXIT_USAGE;
            }
            break;
        case O_MAXERR:
            rc = cli_double("--max-errors", optarg, &a->max_errors);
            break;
        case O_HELP:
            fputs(load_usage, stdout);
            return -1;
        default:
            return cli_bad_option("load", argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cli_extra_operand("load", argv[optind]);
    return 0;
}

static int run_udp(const load_args *a)
{
    if (!a->replay) {
        cli_error("load: --udp needs --replay FILE");
        return QC_EXIT_USAGE;
    }
    if (a->o.target || a->rate > 0 || a->arrival || a->schedule || a->traffic || a->o.users) {
        cli_error("load: --udp replays --replay FILE; it takes no --target, arrivals or users");
        return QC_EXIT_USAGE;
    }
    qc_err err = {0};
    struct sockaddr_in sa;
    if (qc__addr_parse(a->udp, &sa, &err) != 0) {
        cli_error("--udp: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    qc_replay_opts ro = {.target = a->udp, .file = a->replay, .pattern = a->pattern};
    qc_replay_result r;
    int rc = qc_replay_run(&ro, &r, &err);
    if (rc) {
        cli_error("--replay: %s", err.msg);
        return cli_exit_code(rc);
    }
    if (a->json) {
        json_t *root = json_object();
        json_object_set_new(root, "command", json_string("load"));
        json_object_set_new(root, "mode", json_string("udp"));
        json_object_set_new(root, "target", json_string(a->udp));
        json_object_set_new(root, "replay", json_string(a->replay));
        json_object_set_new(root, "packets", json_integer((json_int_t)r.packets));
        json_object_set_new(root, "sent", json_integer((json_int_t)r.sent));
        json_object_set_new(root, "failed", json_integer((json_int_t)r.failed));
        json_object_set_new(root, "bytes", json_integer((json_int_t)r.bytes));
        json_object_set_new(root, "capped", json_integer((json_int_t)r.capped));
        json_object_set_new(root, "span", qc_json_real_new(r.span));
        json_object_set_new(root, "elapsed", qc_json_real_new(r.elapsed));
        json_t *e = json_object();
        json_object_set_new(e, "p50", qc_json_real_new(r.err_p50));
        json_object_set_new(e, "p99", qc_json_real_new(r.err_p99));
        json_object_set_new(e, "max", qc_json_real_new(r.err_max));
        json_object_set_new(root, "send_error", e);
        rc = qc_json_write(root, NULL, &err);
        json_decref(root);
        if (rc) {
            cli_error("%s", err.msg);
            return QC_EXIT_FAIL;
        }
    } else {
        printf("sent %llu of %llu datagrams (%llu failed, %llu capped at 65507 B), %llu bytes in "
               "%.3f s\n",
               (unsigned long long)r.sent, (unsigned long long)r.packets,
               (unsigned long long)r.failed, (unsigned long long)r.capped,
               (unsigned long long)r.bytes, r.elapsed);
        printf("send time - scheduled: p50 %.1f us, p99 %.1f us, max %.1f us\n", r.err_p50 * 1e6,
               r.err_p99 * 1e6, r.err_max * 1e6);
    }
    return 0;
}

static int parse_dist(qc_dist *d, const char *flag, const char *spec)
{
    qc_err err = {0};
    if (qc_dist_parse(d, spec, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

static void print_summary(const load_args *a, const char *spec, const qc_load_result *r)
{
    printf("sent %llu: ok %llu, 503 %llu, other %llu, errors %llu, timeouts %llu in %.3f s\n",
           (unsigned long long)r->sent, (unsigned long long)r->ok,
           (unsigned long long)r->refused, (unsigned long long)r->other,
           (unsigned long long)r->errors, (unsigned long long)r->timeouts, r->elapsed);
    if (isfinite(r->mean))
        printf("latency mean %.6g s, p50 %.6g s, p95 %.6g s, p99 %.6g s", r->mean, r->p50, r->p95,
               r->p99);
    else
        fputs("latency: none (no request was answered)", stdout);
    if (isfinite(r->ok_p95))
        printf("; ok p95 %.6g s\n", r->ok_p95);
    else
        fputs("; ok p95: none (no 2xx answer)\n", stdout);
    if (a->o.users)
        printf("closed loop: %u users, mean think %.6g s, throughput %.6g/s\n", a->o.users,
               r->think_mean, r->elapsed > 0 ? (double)r->answered / r->elapsed : NAN);
    else
        printf("arrivals: %s\n", spec);
}

static int print_json(const load_args *a, const char *spec, const qc_load_result *r)
{
    const qc_load_opts *o = &a->o;
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("load"));
    json_object_set_new(root, "mode", json_string(o->users ? "closed" : "open"));
    json_object_set_new(root, "target", json_string(o->target));
    if (o->users) {
        json_object_set_new(root, "users", json_integer(o->users));
        json_object_set_new(root, "think", json_string(a->think ? a->think : "det:0"));
        if (a->session)
            json_object_set_new(root, "session", json_string(a->session));
        if (a->off)
            json_object_set_new(root, "off", json_string(a->off));
        json_object_set_new(root, "think_mean", qc_json_real_new(r->think_mean));
    } else {
        json_object_set_new(root, "arrival", json_string(spec));
    }
    json_object_set_new(root, "sent", json_integer((json_int_t)r->sent));
    json_object_set_new(root, "answered", json_integer((json_int_t)r->answered));
    json_object_set_new(root, "ok", json_integer((json_int_t)r->ok));
    json_object_set_new(root, "refused_503", json_integer((json_int_t)r->refused));
    json_object_set_new(root, "other_status", json_integer((json_int_t)r->other));
    json_object_set_new(root, "errors", json_integer((json_int_t)r->errors));
    json_object_set_new(root, "timeouts", json_integer((json_int_t)r->timeouts));
    json_object_set_new(root, "elapsed", json_real(r->elapsed));
    json_object_set_new(root, "throughput",
                        qc_json_real_new(r->elapsed > 0 ? (double)r->answered / r->elapsed : NAN));
    json_object_set_new(root, "throughput_ok",
                        qc_json_real_new(r->elapsed > 0 ? (double)r->ok / r->elapsed : NAN));
    json_t *lat = json_object();
    json_object_set_new(lat, "mean", qc_json_real_new(r->mean));
    json_object_set_new(lat, "p50", qc_json_real_new(r->p50));
    json_object_set_new(lat, "p90", qc_json_real_new(r->p90));
    json_object_set_new(lat, "p95", qc_json_real_new(r->p95));
    json_object_set_new(lat, "p99", qc_json_real_new(r->p99));
    json_object_set_new(lat, "p999", qc_json_real_new(r->p999));
    json_object_set_new(lat, "max", qc_json_real_new(r->max));
    json_object_set_new(lat, "ok_p50", qc_json_real_new(r->ok_p50));
    json_object_set_new(lat, "ok_p95", qc_json_real_new(r->ok_p95));
    json_object_set_new(lat, "ok_p99", qc_json_real_new(r->ok_p99));
    json_object_set_new(root, "latency", lat);
    qc_err err = {0};
    int rc = qc_json_write(root, NULL, &err);
    json_decref(root);
    if (rc) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

/* The open-loop arrival process named by the flags into arr, its spec
 * into spec[size]. */
static int make_arrivals(const load_args *a, qc_arrivals *arr, char *spec, size_t size)
{
    qc_err err = {0};
    const char *flag;
    if (a->traffic) {
        snprintf(spec, size, "traffic:%s (%u users, per %s)", a->traffic,
                 a->traffic_users ? a->traffic_users : 1, a->per_session ? "session" : "packet");
        int rc = qc_load_traffic_arrivals(arr, a->traffic, a->traffic_users ? a->traffic_users : 1,
                                          a->per_session, a->o.seed, a->o.duration,
                                          a->o.requests, &err);
        if (rc) {
            cli_error("--traffic: %s", err.msg);
            return cli_exit_code(rc);
        }
        return 0;
    }
    if (a->rate > 0) {
        flag = "--rate";
        snprintf(spec, size, "exp:%.17g", a->rate);
    } else if (a->schedule) {
        flag = "--schedule";
        snprintf(spec, size, "steps:%s", a->schedule);
    } else {
        flag = "--arrival";
        snprintf(spec, size, "%s", a->arrival);
    }
    if (qc_arrivals_parse(arr, spec, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

static int check_args(const load_args *a)
{
    const qc_load_opts *o = &a->o;
    if (!o->target) {
        cli_error("load: --target is required");
        return QC_EXIT_USAGE;
    }
    if (o->duration < 0 || !isfinite(o->duration)) {
        cli_error("--duration: %g must be >= 0", o->duration);
        return QC_EXIT_USAGE;
    }
    if (!(o->timeout > 0) || !isfinite(o->timeout)) {
        cli_error("--timeout: %g must be > 0", o->timeout);
        return QC_EXIT_USAGE;
    }
    if (o->connections == 0) {
        cli_error("--connections: must be >= 1");
        return QC_EXIT_USAGE;
    }
    if (!(o->series_interval > 0) || !isfinite(o->series_interval)) {
        cli_error("--series-interval: %g must be > 0", o->series_interval);
        return QC_EXIT_USAGE;
    }
    int nproc = (a->arrival != NULL) + (a->rate > 0) + (a->schedule != NULL) +
                (a->traffic != NULL) + (o->users > 0);
    if (nproc != 1) {
        cli_error("load: give exactly one of --rate R (> 0), --arrival SPEC, --schedule S, "
                  "--traffic MODEL or --users N");
        return QC_EXIT_USAGE;
    }
    if (a->rate > 1e6) {
        cli_error("--rate: %g requests/s is more than one load generator sends (at most 1e6/s); "
                  "requests it cannot send would pile up in memory", a->rate);
        return QC_EXIT_USAGE;
    }
    if (o->users > 1000000) {
        cli_error("--users: %u closed-loop users is more than one load generator holds "
                  "(at most 1e6)", o->users);
        return QC_EXIT_USAGE;
    }
    if (!(a->max_errors >= 0 && a->max_errors <= 1)) {
        cli_error("--max-errors: %g is not a fraction in [0, 1]", a->max_errors);
        return QC_EXIT_USAGE;
    }
    if (!o->users && (a->think || a->session || a->off)) {
        cli_error("load: --think, --session and --off need --users N");
        return QC_EXIT_USAGE;
    }
    if (o->class_header && (strchr(o->class_header, '\r') || strchr(o->class_header, '\n') ||
                            !strchr(o->class_header, ':'))) {
        cli_error("--header: '%s' is not 'Name: value'", o->class_header);
        return QC_EXIT_USAGE;
    }
    return 0;
}

int cmd_load(int argc, char **argv)
{
    load_args a = {.o = {.path = "/", .connections = 64, .timeout = 10, .seed = 1,
                         .series_interval = 1}};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? 0 : rc;
    if (a.udp)
        return run_udp(&a);
    if ((rc = check_args(&a)) != 0)
        return rc;
    qc_err err = {0};
    struct sockaddr_in sa;
    if (qc__addr_parse(a.o.target, &sa, &err) != 0) {
        cli_error("--target: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    int arrivals_bounded = a.arrival && strncmp(a.arrival, "trace:", 6) == 0;
    if (!a.o.requests && !(a.o.duration > 0) && !arrivals_bounded) {
        cli_error("load: a bound is required: --requests N or --duration T");
        return QC_EXIT_USAGE;
    }
    qc_dist think = {0}, session = {0}, off = {0};
    qc_arrivals arr = {0};
    char spec[512] = "";
    if (a.o.users) {
        if ((rc = parse_dist(&think, "--think", a.think ? a.think : "det:0")) != 0 ||
            (a.session && (rc = parse_dist(&session, "--session", a.session)) != 0) ||
            (a.off && (rc = parse_dist(&off, "--off", a.off)) != 0))
            goto out;
        a.o.think = &think;
        a.o.session = a.session ? &session : NULL;
        a.o.off = a.off ? &off : NULL;
    } else {
        if ((rc = make_arrivals(&a, &arr, spec, sizeof spec)) != 0)
            goto out;
        a.o.arrival = &arr;
    }
    qc_load_result r;
    signal(SIGPIPE, SIG_IGN); /* a server gone mid-request is not fatal */
    if (qc_load_run(&a.o, &r, &err) != 0) {
        cli_error("load: %s", err.msg);
        rc = QC_EXIT_FAIL;
        goto out;
    }
    if (a.json)
        rc = print_json(&a, spec, &r);
    else
        print_summary(&a, spec, &r);
    /* connection errors and timeouts: the run measured a broken target */
    uint64_t bad = r.errors + r.timeouts;
    if (rc == 0 && r.sent > 0 && (double)bad > a.max_errors * (double)r.sent) {
        cli_error("load: %llu of %llu requests failed (errors or timeouts), more than "
                  "--max-errors %g allows",
                  (unsigned long long)bad, (unsigned long long)r.sent, a.max_errors);
        rc = QC_EXIT_FAIL;
    }
out:
    qc_dist_free(&think);
    qc_dist_free(&session);
    qc_dist_free(&off);
    qc_arrivals_free(&arr);
    return rc;
}
