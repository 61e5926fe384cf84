/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load_cli.c: `qctl load`: flags in, the load generator of src/live/load.c
 * out, its summary as text or JSON. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "live/live.h"
#include "qctl/arrivals.h"
#include "qctl/output.h"

static const char load_usage[] =
    "usage: qctl load --target HOST:PORT (--requests N | --duration T) "
    "[options]\n"
    "\n"
    "Open-loop HTTP load: requests are due at arrival times drawn from the\n"
    "spec whatever the server does, and latency is measured from the time a\n"
    "request was due (so queueing in the generator is not hidden). Reports\n"
    "sent, answered (2xx, 503, other), errors and timeouts, with latency\n"
    "percentiles; sent = answered + errors + timeouts.\n"
    "\n"
    "  --target HOST:PORT   server to load\n"
    "  --path P             request target (default /)\n"
    "  --rate R             Poisson arrivals at R per second (same as exp:R)\n"
    "  --arrival SPEC       an arrival process instead: a distribution of\n"
    "                       the gaps, sin:MEAN,AMP,PERIOD, curve:FILE,\n"
    "                       steps:T0:R0,T1:R1,... or trace:FILE\n"
    "  --schedule T0:R0,... Poisson at rate R_k from T_k s on (same as\n"
    "                       --arrival steps:...), e.g. 0:50,10:150,20:50\n"
    "  --requests N         stop issuing after N requests\n"
    "  --duration T         stop issuing after T seconds\n"
    "  --connections C      most connections open at once (default 64)\n"
    "  --timeout T          wait at most T s for answers at the end (default "
    "10)\n"
    "  --header 'N: V'      send this header (e.g. a class)\n"
    "  --seed S             seed of the arrivals (default 1)\n"
    "  --json               print the summary as JSON\n"
    "  --help               this text\n";

int cmd_load(int argc, char **argv)
{
    enum {
        O_TGT = 1,
        O_PATH,
        O_RATE,
        O_ARR,
        O_SCHED,
        O_REQ,
        O_DUR,
        O_CONN,
        O_TMO,
        O_HDR,
        O_SEED,
        O_JSON,
        O_HELP
    };
    static const struct option longopts[] = {{"target", required_argument, 0, O_TGT},
                                             {"path", required_argument, 0, O_PATH},
                                             {"rate", required_argument, 0, O_RATE},
                                             {"arrival", required_argument, 0, O_ARR},
                                             {"schedule", required_argument, 0, O_SCHED},
                                             {"requests", required_argument, 0, O_REQ},
                                             {"duration", required_argument, 0, O_DUR},
                                             {"connections", required_argument, 0, O_CONN},
                                             {"timeout", required_argument, 0, O_TMO},
                                             {"header", required_argument, 0, O_HDR},
                                             {"seed", required_argument, 0, O_SEED},
                                             {"json", no_argument, 0, O_JSON},
                                             {"help", no_argument, 0, O_HELP},
                                             {0, 0, 0, 0}};
    qc_load_opts o = {.path = "/", .connections = 64, .timeout = 10, .seed = 1};
    const char *arrival = NULL, *schedule = NULL;
    double rate = 0;
    int json = 0, c, rc = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case O_TGT:
            o.target = optarg;
            break;
        case O_PATH:
            o.path = optarg;
            break;
        case O_RATE:
            rc = cli_double("--rate", optarg, &rate);
            break;
        case O_ARR:
            arrival = optarg;
            break;
        case O_SCHED:
            schedule = optarg;
            break;
        case O_REQ:
            rc = cli_u64("--requests", optarg, &o.requests);
            break;
        case O_DUR:
            rc = cli_double("--duration", optarg, &o.duration);
            break;
        case O_CONN:
            rc = cli_uint("--connections", optarg, &o.connections);
            break;
        case O_TMO:
            rc = cli_double("--timeout", optarg, &o.timeout);
            break;
        case O_HDR:
            o.class_header = optarg;
            break;
        case O_SEED:
            rc = cli_u64("--seed", optarg, &o.seed);
            break;
        case O_JSON:
            json = 1;
            break;
        case O_HELP:
            fputs(load_usage, stdout);
            return 0;
        default:
            return cli_bad_option("load", argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cli_extra_operand("load", argv[optind]);
    if (!o.target) {
        cli_error("load: --target is required");
        return QC_EXIT_USAGE;
    }
    if (o.duration < 0 || !isfinite(o.duration)) {
        cli_error("--duration: %g must be >= 0", o.duration);
        return QC_EXIT_USAGE;
    }
    if (!(o.timeout > 0) || !isfinite(o.timeout)) {
        cli_error("--timeout: %g must be > 0", o.timeout);
        return QC_EXIT_USAGE;
    }
    if (o.connections == 0) {
        cli_error("--connections: must be >= 1");
        return QC_EXIT_USAGE;
    }
    if ((arrival != NULL) + (rate > 0) + (schedule != NULL) != 1) {
        cli_error("load: give exactly one of --rate R (> 0), --arrival SPEC or --schedule S");
        return QC_EXIT_USAGE;
    }
    if (o.class_header && (strchr(o.class_header, '\r') || strchr(o.class_header, '\n') ||
                           !strchr(o.class_header, ':'))) {
        cli_error("--header: '%s' is not 'Name: value'", o.class_header);
        return QC_EXIT_USAGE;
    }
    qc_err err = {0};
    struct sockaddr_in a;
    if (qc__addr_parse(o.target, &a, &err) != 0) {
        cli_error("--target: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    char *spec = NULL;
    const char *flag = rate > 0 ? "--rate" : schedule ? "--schedule" : "--arrival";
    size_t len = (arrival ? strlen(arrival) : schedule ? strlen(schedule) : 0) + 32;
    spec = malloc(len);
    if (spec && rate > 0)
        snprintf(spec, len, "exp:%.17g", rate);
    else if (spec)
        snprintf(spec, len, "%s%s", schedule ? "steps:" : "", schedule ? schedule : arrival);
    if (!spec) {
        cli_error("load: out of memory");
        return QC_EXIT_FAIL;
    }
    qc_arrivals arr;
    if (qc_arrivals_parse(&arr, spec, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        free(spec);
        return QC_EXIT_USAGE;
    }
    if (!o.requests && !(o.duration > 0) && arr.kind != QC_ARRIVALS_TRACE) {
        cli_error("load: a bound is required: --requests N or --duration T");
        qc_arrivals_free(&arr);
        free(spec);
        return QC_EXIT_USAGE;
    }
    o.arrival = &arr;
    qc_load_result r;
    rc = qc_load_run(&o, &r, &err);
    qc_arrivals_free(&arr);
    if (rc) {
        free(spec);
        cli_error("load: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    if (json) {
        json_t *root = json_object();
        json_object_set_new(root, "command", json_string("load"));
        json_object_set_new(root, "target", json_string(o.target));
        json_object_set_new(root, "arrival", json_string(spec));
        json_object_set_new(root, "sent", json_integer((json_int_t)r.sent));
        json_object_set_new(root, "answered", json_integer((json_int_t)r.answered));
        json_object_set_new(root, "ok", json_integer((json_int_t)r.ok));
        json_object_set_new(root, "refused_503", json_integer((json_int_t)r.refused));
        json_object_set_new(root, "other_status", json_integer((json_int_t)r.other));
        json_object_set_new(root, "errors", json_integer((json_int_t)r.errors));
        json_object_set_new(root, "timeouts", json_integer((json_int_t)r.timeouts));
        json_object_set_new(root, "elapsed", json_real(r.elapsed));
        json_object_set_new(root, "throughput_ok",
                            qc_json_real_new(r.elapsed > 0 ? (double)r.ok / r.elapsed : NAN));
        json_t *lat = json_object();
        json_object_set_new(lat, "p50", qc_json_real_new(r.p50));
        json_object_set_new(lat, "p95", qc_json_real_new(r.p95));
        json_object_set_new(lat, "p99", qc_json_real_new(r.p99));
        json_object_set_new(lat, "max", qc_json_real_new(r.max));
        json_object_set_new(lat, "ok_p50", qc_json_real_new(r.ok_p50));
        json_object_set_new(lat, "ok_p95", qc_json_real_new(r.ok_p95));
        json_object_set_new(lat, "ok_p99", qc_json_real_new(r.ok_p99));
        json_object_set_new(root, "latency", lat);
        rc = qc_json_write(root, NULL, &err);
        json_decref(root);
        if (rc) {
            free(spec);
            cli_error("%s", err.msg);
            return QC_EXIT_FAIL;
        }
    } else {
        printf("sent %llu: ok %llu, 503 %llu, other %llu, errors %llu, timeouts "
               "%llu in %.3f s\n",
               (unsigned long long)r.sent, (unsigned long long)r.ok, (unsigned long long)r.refused,
               (unsigned long long)r.other, (unsigned long long)r.errors,
               (unsigned long long)r.timeouts, r.elapsed);
        printf("latency p50 %.6g s, p95 %.6g s, p99 %.6g s; ok p95 %.6g s\n", r.p50, r.p95, r.p99,
               r.ok_p95);
    }
    free(spec);
    return 0;
}
