/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load_cmd.c: what `qctl load` does once its flags are read
 * (load_cmd.h): their check, the load generator of src/live/load.c (HTTP,
 * open or closed loop) or the UDP replay of src/live/replay.c, and the
 * summary as text or JSON. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_serve.h"
#include "load_cmd.h"
#include "qctl/output.h"
#include "result.h"

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
    struct sockaddr_storage sa;
    if (qc__addr_parse(a->udp, &sa, &err) != 0) {
        cli_error("--udp: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    qc_replay_params ro = {.target = a->udp, .file = a->replay, .pattern = a->pattern};
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
        if ((rc = cli_json_print(root)) != 0)
            return rc;
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
    const qc_load_params *o = &a->o;
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
    json_object_set_new(root, "threads", json_integer(r->threads));
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
    return cli_json_print(root);
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
    const qc_load_params *o = &a->o;
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
    if (o->series && o->threads > 1) {
        cli_error("--threads: %u threads with --series: the series is written by one thread "
                  "(--threads 1)", o->threads);
        return QC_EXIT_USAGE;
    }
    if (o->threads > 256) {
        cli_error("--threads: %u is more than 256", o->threads);
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

/* Every check the run makes before it sends (flags, the target's
 * address, the bound, the specs read into a for the run): the run and
 * --check both come here. The UDP replay checks its own flags. */
int load_validate(void *ctx)
{
    load_args *a = ctx;
    if (a->udp)
        return 0;
    int rc = check_args(a);
    if (rc)
        return rc;
    qc_err err = {0};
    struct sockaddr_storage sa;
    if (qc__addr_parse(a->o.target, &sa, &err) != 0) {
        cli_error("--target: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    int arrivals_bounded = a->arrival && strncmp(a->arrival, "trace:", 6) == 0;
    if (!a->o.requests && !(a->o.duration > 0) && !arrivals_bounded) {
        cli_error("load: a bound is required: --requests N or --duration T");
        return QC_EXIT_USAGE;
    }
    if (a->o.users) {
        if ((rc = parse_dist(&a->think_d, "--think", a->think ? a->think : "det:0")) != 0 ||
            (a->session && (rc = parse_dist(&a->session_d, "--session", a->session)) != 0) ||
            (a->off && (rc = parse_dist(&a->off_d, "--off", a->off)) != 0))
            return rc;
        a->o.think = &a->think_d;
        a->o.session = a->session ? &a->session_d : NULL;
        a->o.off = a->off ? &a->off_d : NULL;
        return 0;
    }
    if ((rc = make_arrivals(a, &a->arr, a->spec, sizeof a->spec)) != 0)
        return rc;
    a->o.arrival = &a->arr;
    return 0;
}

static void load_log(void *ctx, const char *line)
{
    (void)ctx; /* from any part's thread: one fprintf, one line */
    fprintf(stderr, "qctl: load: %s\n", line);
}

int load_main(load_args *a, int rc)
{
    if (rc)
        goto out;
    if (a->udp)
        return run_udp(a);
    if (a->o.threads == 0) /* the usable cores; one loop writes a series */
        a->o.threads = a->o.series ? 1 : uv_available_parallelism();
    a->o.log = a->quiet ? NULL : load_log;
    qc_load_result r;
    qc_err err = {0};
    cli_live_process(0); /* a server gone mid-request is not fatal */
    if (qc_load_run(&a->o, &r, &err) != 0) {
        cli_error("load: %s", err.msg);
        rc = QC_EXIT_FAIL;
        goto out;
    }
    if (a->json)
        rc = print_json(a, a->spec, &r);
    else
        print_summary(a, a->spec, &r);
    /* connection errors and timeouts: the run measured a broken target */
    uint64_t bad = r.errors + r.timeouts;
    if (rc == 0 && r.sent > 0 && (double)bad > a->max_errors * (double)r.sent) {
        cli_error("load: %llu of %llu requests failed (errors or timeouts), more than "
                  "--max-errors %g allows",
                  (unsigned long long)bad, (unsigned long long)r.sent, a->max_errors);
        rc = QC_EXIT_FAIL;
    }
out:
    qc_dist_free(&a->think_d);
    qc_dist_free(&a->session_d);
    qc_dist_free(&a->off_d);
    qc_arrivals_free(&a->arr);
    return rc < 0 ? 0 : rc;
}
