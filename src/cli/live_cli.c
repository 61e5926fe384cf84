/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_cli.c: `qctl backend`, `qctl load` and `qctl proxy`: flags in,
 * the live programs of src/live/ out. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "live/accesslog.h"
#include "live/live.h"
#include "live_serve.h"
#include "qctl/output.h"

static const char backend_about[] =
    "A small HTTP/1.1 server for demos and tests: each request takes one of\n"
    "N workers for a service time drawn from SPEC (waiting FCFS when all are\n"
    "busy) and is answered 200. GET /health answers at once. Stops on "
    "SIGTERM.\n";

/* What the backend's flags set: the options, and the specs read into
 * them by backend_validate. */
typedef struct backend_cli {
    qc_backend_params o;
    const char *service, *setup;
    unsigned threads;
    int quiet;
} backend_cli;

/* The library's fields, as the flags name them. */
static void backend_error(const qc_err *err)
{
    static const char *const field[][2] = {
        {"workers: ", "--workers"}, {"health: ", "--health"}, {"listen: ", "--listen"}};
    for (size_t i = 0; i < sizeof field / sizeof field[0]; i++)
        if (strncmp(err->msg, field[i][0], strlen(field[i][0])) == 0) {
            cli_error("%s: %s", field[i][1], err->msg + strlen(field[i][0]));
            return;
        }
    cli_error("backend: %s", err->msg);
}

/* Every check the backend's start makes, its bind's dry run included
 * (qc_backend_params_check): the run and --check both come here. */
static int backend_validate(void *ctx)
{
    backend_cli *b = ctx;
    qc_err err = {0};
    if (qc_dist_parse(&b->o.service, b->service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (b->setup) {
        if (qc_dist_parse(&b->o.setup, b->setup, &err) != 0) {
            cli_error("--setup: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        b->o.has_setup = 1;
    }
    int r = qc_backend_params_check(&b->o, &err);
    if (r != 0) {
        backend_error(&err);
        return r == QC_EIO ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

int cmd_backend(int argc, char **argv)
{
    backend_cli bc = {.o = {.listen = "127.0.0.1:8081", .workers = 1, .seed = 1},
                      .service = "exp:100", .threads = 1};
    backend_cli *b = &bc;
    int help = 0;
    /* one row per flag: the parser, this help and the completion */
    const cli_flag flags[] = {
        {"listen", CLI_STR, &b->o.listen, .arg = "HOST:PORT",
         .help = "address (default 127.0.0.1:8081; port 0: any free);\nHOST is 1.2.3.4, [::1] or a "
                 "name (resolved once\nat start, the first address taken)"},
        CLI_ROW_PORT_FILE(&b->o.port_file),
        {"service", CLI_STR, &b->service, .arg = "SPEC",
         .help = "service time in seconds (default exp:100)"},
        {"workers", CLI_UINT, &b->o.workers, 1, 65536, .arg = "N",
         .help = "requests served at once (default 1)"},
        {"threads", CLI_UINT, &b->threads, 1, 256, .arg = "N",
         .help = "N event loops on N threads sharing the port\n(SO_REUSEPORT), the --workers split "
                 "among them:\nN queues, not one (default 1)"},
        {"mode", CLI_CHOICE, &b->o.cpu, .arg = "sleep|cpu", .choices = "sleep,cpu",
         .help = "wait on a timer (default) or burn CPU"},
        {"seed", CLI_U64, &b->o.seed, .arg = "S", .help = "seed of the service times (default 1)"},
        {"health", CLI_STR, &b->o.health, .arg = "PATH", .help = "the health path (default /health)"},
        {"setup", CLI_STR, &b->setup, .arg = "SPEC", .alias = "warmup",
         .help = "the health path answers 503 for a setup time drawn\nfrom SPEC (seconds) after "
                 "start, then 200 (--warmup: old name)"},
        {"body", CLI_U64, &b->o.body, .arg = "BYTES",
         .help = "answer with a body of BYTES bytes of a fixed\npattern instead of \"ok\" (any "
                 "size, not buffered)"},
        {"chunked", CLI_BOOL, &b->o.chunked, .help = "send that body chunked (1 MiB chunks)"},
        {"keepalive-timeout", CLI_DOUBLE, &b->o.keepalive_timeout, 1e-3, 1e9, .arg = "T",
         .help = "close a kept-alive connection idle T s\n(default: never)"},
        {"http10", CLI_BOOL, &b->o.http10,
         .help = "answer HTTP/1.0 without Content-Length, the body\nended by closing the "
                 "connection"},
        {"quiet", CLI_BOOL, &b->quiet,
         .help = "nothing but errors on standard error (the backend\nwrites nothing else: taken "
                 "as by every command)"},
        CLI_ROWS_CONFIG_CHECK(b, backend_validate),
        CLI_ROW_HELP(&help),
        {0}};
    int rc = cli_flags_parse_command("backend", "qctl backend [options]", backend_about, flags,
                                     argc, argv, NULL);
    if (rc == 0) {
        qc_err err = {0};
        signal(SIGPIPE, SIG_IGN); /* a client gone mid-response is not fatal */
        if (cli_backend_serve(&b->o, b->threads, &err) != 0) {
            cli_error("backend: %s", err.msg);
            rc = QC_EXIT_FAIL;
        }
    }
    qc_dist_free(&b->o.service);
    if (b->o.has_setup)
        qc_dist_free(&b->o.setup);
    return rc < 0 ? 0 : rc;
}

static const char proxy_about[] =
    "HTTP/1.1 reverse proxy with admission control: a request beyond the\n"
    "current limit waits in a bounded queue until its class's deadline, then\n"
    "gets 503 with Retry-After. The limit is set every control interval by\n"
    "the controller from the proxy's own measurements; backends are chosen\n"
    "by join-the-shortest-queue. SIGTERM drains: admitted requests finish,\n"
    "waiting and new ones are refused, then it exits.\n";

static int positive(const char *flag, double v)
{
    if (!(v > 0) || !isfinite(v)) {
        cli_error("%s: %g must be > 0", flag, v);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* What the proxy's flags set: the options, and the flags read into them
 * by proxy_validate (NAN or 0: not given). */
typedef struct proxy_cli {
    qc_proxy_params o;
    const char *limiter;
    double limit, minl, maxl, ref, gain, eps, alpha;
    unsigned minc;
    int route;
    uint64_t max_memory;
    uint64_t alog_buffer; /* --access-log-buffer */
    cli_strs backends, classes, prefixes, candidates;
    const char *class_spec[QC_PROXY_CLASSES_MAX];
    const char *prefix_spec[QC_PROXY_CLASSES_MAX * 4], *cand_spec[QC_PROXY_CLASSES_MAX];
    void *words; /* the --config words its strings point into (cli_flags_config_detach) */
    int log_json; /* --log-format json (proxy_log_json once this configuration runs) */
    unsigned workers; /* --workers (0: the usable CPUs, cli_proxy_serve) */
    int reloading; /* a reload: the running proxy holds the ports, no dry-run bind */
} proxy_cli;

/* Resolves --class-prefix NAME=/PATH and --candidate NAME against the
 * classes: names must be classes (or best-effort for a prefix), prefixes
 * start with '/', class names are distinct. */
static int proxy_classes(qc_proxy_params *o, const char *const *prefix, unsigned nprefix,
                         const char *const *cand, unsigned ncand)
{
    for (unsigned i = 0; i < o->nclasses; i++) {
        if (strcmp(o->class_name[i], "best-effort") == 0) {
            cli_error("--class: 'best-effort' is the name of the unbounded class");
            return QC_EXIT_USAGE;
        }
        for (unsigned j = 0; j < i; j++)
            if (strcmp(o->class_name[i], o->class_name[j]) == 0) {
                cli_error("--class: '%s' given twice", o->class_name[i]);
                return QC_EXIT_USAGE;
            }
    }
    for (unsigned p = 0; p < nprefix; p++) {
        const char *eq = strchr(prefix[p], '=');
        if (!eq || eq == prefix[p] || eq[1] != '/') {
            cli_error("--class-prefix: '%s' is not NAME=/PATH", prefix[p]);
            return QC_EXIT_USAGE;
        }
        size_t n = (size_t)(eq - prefix[p]);
        unsigned k = 0;
        while (k < o->nclasses &&
               !(strlen(o->class_name[k]) == n && memcmp(o->class_name[k], prefix[p], n) == 0))
            k++;
        if (k == o->nclasses && !(n == 11 && memcmp(prefix[p], "best-effort", 11) == 0)) {
            cli_error("--class-prefix: '%.*s' is not a --class", (int)n, prefix[p]);
            return QC_EXIT_USAGE;
        }
        o->prefix[o->nprefixes] = eq + 1;
        o->prefix_class[o->nprefixes++] = k;
    }
    for (unsigned c = 0; c < ncand; c++) {
        unsigned k = 0;
        while (k < o->nclasses && strcmp(o->class_name[k], cand[c]) != 0)
            k++;
        if (k == o->nclasses) {
            cli_error("--candidate: '%s' is not a --class", cand[c]);
            return QC_EXIT_USAGE;
        }
        o->class_candidate |= 1u << k;
    }
    return 0;
}


/* --class NAME=BOUND (NAME:BOUND too) into the options' classes. */
static int proxy_class_specs(qc_proxy_params *o, const cli_strs *spec)
{
    for (unsigned i = 0; i < spec->n; i++) {
        const char *s = spec->v[i];
        const char *colon = strchr(s, '=');
        if (!colon)
            colon = strrchr(s, ':');
        if (!colon || colon == s) {
            cli_error("--class: '%s' is not NAME=BOUND", s);
            return QC_EXIT_USAGE;
        }
        int rc;
        if ((rc = cli_double("--class", colon + 1, &o->class_bound[o->nclasses])) != 0 ||
            (rc = positive("--class", o->class_bound[o->nclasses])) != 0)
            return rc;
        o->class_name[o->nclasses++] = strndup(s, (size_t)(colon - s));
    }
    return 0;
}

/* Every check the proxy makes before it starts, in the order a run makes
 * them, then the proxy's own (qc_proxy_check): the run and --check both
 * come here, so --check refuses what the run refuses with the same
 * message. The limiter's flags are then set to the values the proxy
 * takes, for --check to print. */
static int proxy_validate(void *ctx)
{
    proxy_cli *pc = ctx;
    qc_proxy_params *o = &pc->o;
    int rc = QC_EXIT_USAGE;
    o->nbackends = pc->backends.n;
    o->fleet.route = pc->route ? QC_FLEET_DJSQ : QC_FLEET_JSQ;
    o->max_memory = pc->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)pc->max_memory;
    o->access_log_buffer = (size_t)pc->alog_buffer;
    if (o->health && (o->health[0] != '/' || strlen(o->health) > 256 ||
                      strpbrk(o->health, " \r\n"))) {
        cli_error("--health: '%s' is not a path (/..., no spaces)", o->health);
        return rc;
    }
    if ((!isinf(o->fleet.idle_off) && positive("--idle-off", o->fleet.idle_off)) ||
        positive("--cmd-timeout", o->cmd_timeout) ||
        positive("--health-interval", o->health_interval) ||
        positive("--setup-timeout", o->setup_timeout))
        return rc;
    if (proxy_class_specs(o, &pc->classes) != 0)
        return rc;
    if (o->nbackends == 0) {
        cli_error("proxy: at least one --backend HOST:PORT is required");
        return rc;
    }
    qc_err err = {0};
    if (strcmp(pc->limiter, "none") == 0) {
        o->control = 0;
    } else {
        qc_limiter_algo a;
        if (qc_limiter_algo_parse(pc->limiter, &a, &err) != 0) {
            cli_error("--limiter: %s", err.msg);
            return rc;
        }
        qc_limiter_params_init(&o->limiter, a);
    }
    if (!isnan(pc->limit))
        o->limiter.initial_limit = pc->limit;
    if (!isnan(pc->minl))
        o->limiter.min_limit = pc->minl;
    if (!isnan(pc->maxl))
        o->limiter.max_limit = pc->maxl;
    if (!isnan(pc->ref))
        o->limiter.reference = pc->ref;
    if (!isnan(pc->gain))
        o->limiter.ki = pc->gain;
    if (positive("--interval", o->interval) || positive("--queue-timeout", o->queue_timeout) ||
        positive("--header-timeout", o->header_timeout) ||
        positive("--idle-timeout", o->idle_timeout) ||
        positive("--backend-timeout", o->backend_timeout))
        return rc;
    if (o->fleet.route == QC_FLEET_JSQ &&
        (isfinite(o->fleet.idle_off) || o->fleet.initially_on || o->fleet.max_on || o->unpark_cmd)) {
        cli_error("proxy: --idle-off, --initially-on, --max-on and --unpark-cmd need --route djsq");
        return rc;
    }
    if (qc__fleet_check(&o->fleet, o->nbackends, &err) != 0) {
        cli_error("proxy: %s", err.msg);
        return rc;
    }
    struct sockaddr_storage a;
    for (unsigned i = 0; i < o->nbackends; i++)
        if (qc__addr_parse(o->backend[i], &a, &err) != 0) {
            cli_error("--backend: %s", err.msg);
            return rc;
        }
    if (qc__addr_parse(o->listen, &a, &err) != 0) {
        cli_error("--listen: %s", err.msg);
        return rc;
    }
    if (o->admin && qc__addr_parse(o->admin, &a, &err) != 0) {
        cli_error("--admin: %s", err.msg);
        return rc;
    }
    if (proxy_classes(o, pc->prefixes.v, pc->prefixes.n, pc->candidates.v, pc->candidates.n) != 0)
        return rc;
    int admission = o->limiter.algo == QC_LIMITER_ADMISSION && o->control;
    if (admission) {
        if (!isnan(pc->eps))
            o->limiter.adm_epsilon = pc->eps;
        if (!isnan(pc->alpha))
            o->limiter.adm_alpha = pc->alpha;
        if (pc->minc)
            o->limiter.adm_min_completions = pc->minc;
        if (o->nclasses == 0) {
            cli_error("proxy: --limiter admission needs at least one --class NAME=BOUND");
            return rc;
        }
        /* the limiter's own checks (epsilon, alpha, bounds), named */
        qc_limiter_params lc = o->limiter;
        lc.classes = o->nclasses + 1;
        for (unsigned i = 0; i < o->nclasses; i++)
            lc.bound[i] = o->class_bound[i];
        lc.adm_candidates = o->class_candidate;
        qc_limiter *l = qc_limiter_alloc(&lc, 0, &err);
        if (l == NULL) {
            cli_error("proxy: admission: %s", err.msg);
            return rc;
        }
        qc_limiter_free(l);
    } else if (!isnan(pc->eps) || !isnan(pc->alpha) || pc->minc || pc->candidates.n) {
        cli_error("proxy: --epsilon, --alpha, --min-completions and --candidate need "
                  "--limiter admission");
        return rc;
    }
    int r = pc->reloading ? qc_proxy_check(o, &err) : qc_proxy_params_check(o, &err);
    if (r) {
        cli_error("proxy: %s", err.msg);
        return cli_exit_code(r) == QC_EXIT_USAGE ? QC_EXIT_USAGE : QC_EXIT_FAIL;
    }
    /* the values the proxy runs with, for --check: the limiter's flags
     * where they apply (elsewhere a given one would be refused) */
    pc->limit = pc->minl = pc->maxl = pc->ref = pc->gain = NAN;
    if (o->control) {
        pc->limit = o->limiter.initial_limit;
        pc->minl = o->limiter.min_limit;
        pc->maxl = o->limiter.max_limit;
    }
    if (o->control && o->limiter.algo == QC_LIMITER_MAXUSERS) {
        pc->ref = o->limiter.reference;
        pc->gain = o->limiter.ki;
    }
    if (admission) {
        pc->eps = o->limiter.adm_epsilon;
        pc->alpha = o->limiter.adm_alpha;
        pc->minc = o->limiter.adm_min_completions;
    }
    return 0;
}

/* The proxy's event lines, on stderr. */
static int proxy_log_json; /* --log-format json: one process, one format */

/* --quiet: the proxy's info lines (start, reloads) left out, its
 * warnings and errors kept. */
static int proxy_quiet;

static void proxy_log(void *ctx, int level, const char *line)
{
    (void)ctx;
    if (proxy_quiet && level < QC_LOG_WARN)
        return;
    cli_log_line(proxy_log_json, "qctl proxy", qc__log_level_name(level), line);
}

/* The proxy's flags parsed into pc (its defaults first): 0, or
 * CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message. A
 * reload comes here again with the same command line (quiet: no usage). */
static int proxy_parse(proxy_cli *pc_, int argc, char **argv, int reload)
{
    proxy_cli *const pcp = pc_;
#define pc (*pcp)
    memset(pcp, 0, sizeof *pcp);
    pc.limiter = "maxusers";
    pc.limit = pc.minl = pc.maxl = pc.ref = pc.gain = pc.eps = pc.alpha = NAN;
    qc_proxy_params *o = &pc.o;
    qc_proxy_params_init(o);
    o->log = proxy_log;
    pc.max_memory = o->max_memory;
    pc.alog_buffer = QC_ALOG_BUFFER;
    pc.backends.v = o->backend;
    pc.classes.v = pc.class_spec;
    pc.prefixes.v = pc.prefix_spec;
    pc.candidates.v = pc.cand_spec;
    pc.reloading = reload;
    int help = 0, first = 0;
    const cli_flag flags[] = {
        {"listen", CLI_STR, &o->listen, .arg = "HOST:PORT",
         .help = "address (default 127.0.0.1:8080; port 0: any free);\nin every address flag HOST "
                 "is 1.2.3.4, [::1] or\na name (resolved once at start, the first\naddress taken)"},
        CLI_ROW_PORT_FILE(&o->port_file),
        {"admin", CLI_STR, &o->admin, .arg = "HOST:PORT",
         .help = "admin endpoint: GET / (a live page drawing the\nlast minutes), GET /metrics "
                 "(Prometheus), GET\n/status (JSON), GET /healthz (alive), GET /readyz\n(listening, "
                 "a backend in rotation), POST\n/reference?value=R (loopback only unless\n"
                 "--admin-public; state changes by POST only, with\nthe admin token, never from "
                 "a browser)"},
        {"admin-port-file", CLI_STR, &o->admin_port_file, .path = CLI_PATH_OUT, .arg = "F",
         .help = "write the admin port to F"},
        {"admin-public", CLI_BOOL, &o->admin_public,
         .help = "allow --admin on a non-loopback address"},
        {"admin-token-file", CLI_STR, &o->admin_token_file, .arg = "F",
         .help = "state changes need \"Authorization: Bearer TOKEN\",\nTOKEN the first line of F "
                 "(16-255 characters;\n401 otherwise); without it a token is made at\nstart and "
                 "written to --admin-token-out"},
        {"admin-token-out", CLI_STR, &o->admin_token_out, .path = CLI_PATH_OUT, .arg = "F",
         .help = "where the token made at start goes (mode 0600,\nremoved at exit; default "
                 "$RUNTIME_DIRECTORY/admin-token,\nelse $XDG_RUNTIME_DIR or /tmp, "
                 "qctl-admin-PORT.token)"},
        {"admin-no-token", CLI_BOOL, &o->admin_no_token,
         .help = "no token: state changes from any local program\nthat is not a browser"},
        {"admin-read-only", CLI_BOOL, &o->admin_read_only,
         .help = "the admin port changes nothing (403)"},
        {"workers", CLI_UINT, &pc.workers, 0, 1024, .arg = "N",
         .help = "N event loops on N threads sharing one limiter\nand waiting room (default 0: "
                 "the usable CPUs;\n1 with a fleet)"},
        {"drain-timeout", CLI_DOUBLE, &o->drain_timeout, .arg = "T",
         .help = "after SIGTERM/SIGINT, stop anyway after T s\n(default 30); a second signal "
                 "stops at once"},
        {"backend", CLI_STRS, &pc.backends, 0, QC_PROXY_BACKENDS_MAX, .arg = "HOST:PORT",
         .help = "a backend (repeat for more)"},
        {"limiter", CLI_STR, &pc.limiter, .arg = "NAME",
         .help = "none, fixed, maxusers (default), aimd, vegas,\ngradient2, envoy, admission "
                 "(per-class delay\nbounds, see --class; limit set by Little's law)"},
        {"limit", CLI_DOUBLE, &pc.limit, .arg = "L",
         .help = "initial (fixed: the) limit (default 20;\nmaxusers 10, its least reference)"},
        {"min-limit", CLI_DOUBLE, &pc.minl, .arg = "L", .help = "least limit (default 1)"},
        {"max-limit", CLI_DOUBLE, &pc.maxl, .arg = "L", .help = "largest limit (default 1000)"},
        {"reference", CLI_DOUBLE, &pc.ref, .arg = "R",
         .help = "maxusers: requests in the backends to hold (default\n0: adapts, 1.5 x the knee of their latency curve,\n10 at least until the knee is measured)"},
        {"gain", CLI_DOUBLE, &pc.gain, .arg = "K",
         .help = "maxusers: integral gain K_I (default 0.5)"},
        {"interval", CLI_DOUBLE, &o->interval, .arg = "T",
         .help = "control interval, seconds (default 0.1)"},
        {"queue", CLI_UINT, &o->queue, .arg = "N", .help = "waiting room (default 1024)"},
        {"queue-timeout", CLI_DOUBLE, &o->queue_timeout, .arg = "T",
         .help = "best-effort wait deadline, seconds (default 1)"},
        {"queue-discipline", CLI_CHOICE, &o->queue_discipline, .arg = "D", .choices = "fifo,codel",
         .help = "codel (default): while the queue stands (its oldest\nwaited past --queue-target for "
                 "an interval) the\ndeadline is --queue-target and the newest goes\nfirst; fifo: "
                 "always the class's deadline"},
        {"queue-target", CLI_DOUBLE, &o->queue_target, .arg = "T",
         .help = "codel's target wait, seconds (default 0: one\nno-load latency of the backends, 5 ms at least)"},
        {"class-header", CLI_STR, &o->class_header, .arg = "NAME",
         .help = "header naming a request's class"},
        {"class", CLI_STRS, &pc.classes, 0, QC_PROXY_CLASSES_MAX, .arg = "NAME=BOUND",
         .help = "a class and its bound in seconds (repeat; NAME:BOUND\ntoo): its wait deadline, "
                 "or under --limiter\nadmission the bound on its mean delay"},
        {"class-prefix", CLI_STRS, &pc.prefixes, 0, QC_PROXY_CLASSES_MAX * 4,
         .arg = "NAME=/PATH",
         .help = "requests whose path starts with /PATH are\nof class NAME (repeat; the longest "
                 "prefix wins;\nbefore --class-header; unmatched: best-effort)"},
        {"candidate", CLI_STRS, &pc.candidates, 0, QC_PROXY_CLASSES_MAX, .arg = "NAME",
         .help = "admission: NAME starts as a candidate (slow start,\nthen admitted or rejected) "
                 "instead of admitted"},
        {"epsilon", CLI_DOUBLE, &pc.eps, .arg = "E",
         .help = "admission: track (1 - E) of each bound (0.1)"},
        {"alpha", CLI_DOUBLE, &pc.alpha, .arg = "A",
         .help = "admission: slow-start constant (default 20)"},
        {"min-completions", CLI_UINT, &pc.minc, 1, 4294967295.0, .arg = "M",
         .help = "admission: completions per delay sample (20)", .zero_unset = 1},
        CLI_ROWS_CONFIG_CHECK(&pc, proxy_validate),
        {"header-timeout", CLI_DOUBLE, &o->header_timeout, .arg = "T",
         .help = "seconds for a request head to arrive (default 10)"},
        {"idle-timeout", CLI_DOUBLE, &o->idle_timeout, .arg = "T",
         .help = "idle client connection (default 60)"},
        {"backend-timeout", CLI_DOUBLE, &o->backend_timeout, .arg = "T",
         .help = "backend answer, else 504 (default 30)"},
        {"series", CLI_STR, &o->series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV of the control loop, one line per interval"},
        {"max-body", CLI_U64, &o->max_body, .arg = "BYTES",
         .help = "a larger request body gets 413 (default 16777216)"},
        {"max-connections", CLI_UINT, &o->max_connections, .arg = "N",
         .help = "client connections beyond N get 503 and are\nclosed (default 0: no cap but the "
                 "file limit)"},
        {"max-memory", CLI_U64, &pc.max_memory, .arg = "BYTES",
         .help = "request bytes buffered over all clients: a client\nthat would grow them past it "
                 "gets 503 (default\n268435456; 0: no cap; at least 1 MiB)"},
        {"", CLI_NOTE, NULL, .help = "Backend fleet (power control, docs/live.md):"},
        {"route", CLI_CHOICE, &pc.route, .arg = "jsq|djsq", .choices = "jsq,djsq",
         .help = "jsq: every backend on, fewest in flight (default);\ndjsq: delay-JSQ, backends "
                 "unparked and parked"},
        {"djsq-threshold", CLI_UINT, &o->fleet.threshold, .arg = "T",
         .help = "djsq: join a busy backend while it holds <= T\nwith the new request (default 4)"},
        {"idle-off", CLI_DOUBLE, &o->fleet.idle_off, .arg = "SECONDS",
         .help = "djsq: park a backend idle this long (default never)"},
        {"min-on", CLI_UINT, &o->fleet.min_on, .arg = "N",
         .help = "djsq: backends kept on or in setup (default 1)"},
        {"max-on", CLI_UINT, &o->fleet.max_on, .arg = "N",
         .help = "djsq: backends powered at most (default all)", .zero_unset = 1},
        {"initially-on", CLI_UINT, &o->fleet.initially_on, .arg = "N",
         .help = "djsq: the first N on at start, the rest off", .zero_unset = 1},
        {"unpark-cmd", CLI_STR, &o->unpark_cmd, .arg = "CMD",
         .help = "run by /bin/sh -c to switch a backend on; {backend},\n{host} and {port} are "
                 "replaced by its address"},
        {"park-cmd", CLI_STR, &o->park_cmd, .arg = "CMD", .help = "the same, to switch one off"},
        {"cmd-timeout", CLI_DOUBLE, &o->cmd_timeout, .arg = "T",
         .help = "an un/park command killed after T s (default 10)"},
        {"health", CLI_STR, &o->health, .arg = "PATH",
         .help = "during setup, GET PATH until a 2xx marks it on;\nthe probe of --health-check "
                 "and --max-fails too"},
        {"health-interval", CLI_DOUBLE, &o->health_interval, .arg = "T",
         .help = "seconds between health probes of a backend in setup or an\nout-of-rotation backend "
                 "(default 0.1)"},
        {"setup-timeout", CLI_DOUBLE, &o->setup_timeout, .arg = "T",
         .alias = "warmup-timeout",
         .help = "not healthy T s after an unpark: back off (default 30;\n--warmup-timeout: old "
                 "name)"},
        {"", CLI_NOTE, NULL, .help = "Retries and health (docs/live.md):"},
        {"retries", CLI_UINT, &o->retries, .arg = "N",
         .help = "send a request again at most N times (0-10,\ndefault 2) when its backend failed "
                 "before any\nanswer: a failed connect (any method), or a link\nclosed before the "
                 "head (idempotent methods only)"},
        {"retry-budget", CLI_DOUBLE, &o->retry_budget, .arg = "F",
         .help = "retries at most F per admitted request, plus 5\na second (0-1, default 0.2)"},
        {"max-fails", CLI_UINT, &o->max_fails, .arg = "N",
         .help = "N failures in a row take a backend out of\nrotation until a probe succeeds "
                 "(default 3; 0:\nnever)"},
        {"health-check", CLI_DOUBLE, &o->health_check, .arg = "T",
         .help = "probe every on backend every T s (GET --health,\nelse a connect; default 0: "
                 "none)"},
        {"access-log", CLI_STR, &o->access_log, .path = CLI_PATH_APPEND, .arg = "FILE",
         .help = "a line per request answered ('-': standard\noutput), appended; SIGUSR1 reopens "
                 "FILE\n(logrotate's create; copytruncate works too)"},
        {"access-log-format", CLI_CHOICE, &o->access_log_format, .arg = "F",
         .choices = "combined,json",
         .help = "combined (nginx's, the default) or json (with\nthe class, the limiter's "
                 "decision, the queue\nwait, the upstream time and the backend)"},
        {"access-log-buffer", CLI_U64, &pc.alog_buffer, QC_ALOG_BUFFER_MIN, QC_ALOG_BUFFER_MAX,
         .arg = "BYTES",
         .help = "lines held while the log's file is slow, in each\nof two buffers (default 1048576): "
                 "beyond, lines\nare dropped, counted and warned of (never the\nproxy slowed)"},
        {"log-format", CLI_CHOICE, &pc.log_json, .arg = "F", .choices = "text,json",
         .help = "the event lines on stderr: text (TIME LEVEL\nqctl proxy: ..., the default) or "
                 "json (an object\na line: time, level, program, msg)"},
        {"", CLI_NOTE, NULL, .help = "TLS on the listening side (OpenSSL; TLS 1.2 and 1.3, ALPN http/1.1):"},
        {"tls-cert", CLI_STR, &o->tls_cert, .arg = "FILE",
         .help = "serve TLS with this PEM certificate chain (the\nserver's first); read again at each "
                 "reload"},
        {"tls-key", CLI_STR, &o->tls_key, .arg = "FILE",
         .help = "its PEM private key (no passphrase)"},
        {"tls-handshake-timeout", CLI_DOUBLE, &o->tls_handshake_timeout, .arg = "T",
         .help = "a handshake not done in T s is closed (default 10)"},
        {"", CLI_NOTE, NULL, .help = "Forwarding headers (each off by default):"},
        {"x-forwarded-for", CLI_BOOL, &o->fwd_xff,
         .help = "send X-Forwarded-For: the values the request\ncame with, then the client's "
                 "address"},
        {"x-forwarded-proto", CLI_BOOL, &o->fwd_xfp,
         .help = "send X-Forwarded-Proto: the scheme the proxy was\nreached by (replaces the "
                 "client's)"},
        {"forwarded", CLI_BOOL, &o->fwd_forwarded,
         .help = "send Forwarded (RFC 7239): the request's elements,\nthen for=CLIENT;proto=SCHEME"},
        {"request-id", CLI_BOOL, &o->fwd_request_id,
         .help = "send X-Request-Id: the client's when it is 1-128\nof [A-Za-z0-9._-], else 32 "
                 "random hex digits"},
        {"quiet", CLI_BOOL, &proxy_quiet,
         .help = "no info lines on standard error (start, reloads);\nwarnings and errors "
                 "still"},
        CLI_ROW_HELP(&help),
        {0}};
    int rc = cli_flags_parse("proxy", flags, argc, argv, &first, NULL);
    if (rc == CLI_DONE_HELP && !reload)
        cli_flags_usage(stdout, "qctl proxy --backend HOST:PORT [--backend ...] [options]",
                        proxy_about, flags);
    if (rc == 0)
        pc.words = cli_flags_config_detach();
    return rc;
#undef pc
}

static void proxy_cli_free(proxy_cli *pc)
{
    if (!pc)
        return;
    for (unsigned i = 0; i < pc->o.nclasses; i++)
        free((char *)pc->o.class_name[i]);
    cli_flags_config_release(pc->words);
    free(pc);
}

/* The running configuration and how it was given, for a reload. */
typedef struct proxy_run {
    int argc;
    char **argv; /* the command line as given (getopt reorders a copy) */
    proxy_cli *cur, *prev;
} proxy_run;

static char **argv_copy(int argc, char **argv)
{
    char **v = malloc(((size_t)argc + 1) * sizeof *v);
    if (v)
        memcpy(v, argv, ((size_t)argc + 1) * sizeof *v);
    return v;
}

static int proxy_reread(void *ctx, const struct qc_proxy_params **next, qc_err *err);
static void proxy_reread_done(void *ctx, const struct qc_proxy_params *next, int taken);

static void proxy_hooks(proxy_run *R, proxy_cli *pc)
{
    pc->o.reload = proxy_reread;
    pc->o.reload_done = proxy_reread_done;
    pc->o.reload_ctx = R;
}

/* SIGHUP, POST /reload: the same command line again, --config read anew;
 * a message refusing it goes back to the proxy, which reports it. */
static int proxy_reread(void *ctx, const struct qc_proxy_params **next, qc_err *err)
{
    proxy_run *R = ctx;
    proxy_cli *n = malloc(sizeof *n);
    char **av = argv_copy(R->argc, R->argv);
    if (!n || !av) {
        free(n);
        free(av);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    char msg[sizeof err->msg];
    cli_error_capture(msg, sizeof msg);
    int rc = proxy_parse(n, R->argc, av, 1);
    cli_error_capture(NULL, 0);
    free(av); /* the strings stay: they are argv's own, or the file's detached words */
    if (rc != 0) {
        proxy_cli_free(n);
        return qc_err_set(err, QC_EINVAL, "%s",
                          msg[0] ? msg : "--check or --help has no meaning on a reload");
    }
    proxy_hooks(R, n);
    *next = &n->o;
    return 0;
}

static void proxy_reread_done(void *ctx, const struct qc_proxy_params *next, int taken)
{
    proxy_run *R = ctx;
    proxy_cli *n = (proxy_cli *)(void *)next; /* o is its first field */
    if (!taken) {
        proxy_cli_free(n);
        return;
    }
    /* the one before stays until the next reload: the other workers may
     * still read it until the configuration reaches them (a reload waits
     * for that: qc_proxy_reload) */
    proxy_cli_free(R->prev);
    R->prev = R->cur;
    R->cur = n;
    proxy_log_json = n->log_json;
}

int cmd_proxy(int argc, char **argv)
{
    proxy_run R = {.argc = argc, .argv = argv_copy(argc, argv)};
    proxy_cli *pc = malloc(sizeof *pc);
    if (!R.argv || !pc) {
        free(R.argv);
        free(pc);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    int rc = proxy_parse(pc, argc, argv, 0);
    R.cur = pc;
    if (rc == 0) {
        proxy_hooks(&R, pc);
        proxy_log_json = pc->log_json;
        signal(SIGPIPE, SIG_IGN); /* a peer gone mid-response is not fatal */
        /* a connection is a file: as many as the hard limit allows */
        struct rlimit rl;
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_NOFILE, &rl);
        }
        qc_err err = {0};
        int r = cli_proxy_serve(&pc->o, pc->workers, &err);
        if (r) {
            cli_error("proxy: %s", err.msg);
            rc = cli_exit_code(r) == QC_EXIT_USAGE ? QC_EXIT_USAGE : QC_EXIT_FAIL;
        }
    }
    proxy_cli_free(R.cur);
    proxy_cli_free(R.prev);
    free(R.argv);
    return rc < 0 ? 0 : rc;
}
