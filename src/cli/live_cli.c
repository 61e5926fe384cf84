/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_cli.c: `qctl backend`, `qctl load` and `qctl proxy`: flags in,
 * the live programs of src/live/ out. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cli.h"
#include "app/config.h"
#include "flags.h"
#include "guard.h"
#include "live/live.h"
#include "qctl/output.h"

static const char backend_about[] =
    "A small HTTP/1.1 server for demos and tests: each request takes one of\n"
    "N workers for a service time drawn from SPEC (waiting FCFS when all are\n"
    "busy) and is answered 200. GET /health answers at once. Stops on "
    "SIGTERM.\n";

int cmd_backend(int argc, char **argv)
{
    qc_backend_params o = {.listen = "127.0.0.1:8081", .workers = 1, .seed = 1};
    const char *service = "exp:100", *warmup = NULL, *warmup_old = NULL;
    int help = 0, first = 0;
    /* one row per flag: the parser, this help and the completion */
    const cli_flag flags[] = {
        {"listen", CLI_STR, &o.listen, .arg = "HOST:PORT",
         .help = "address (default 127.0.0.1:8081; port 0: any free);\nHOST is 1.2.3.4, [::1] or a "
                 "name (resolved once\nat start, the first address taken)"},
        {"port-file", CLI_STR, &o.port_file, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write the bound port to FILE"},
        {"service", CLI_STR, &service, .arg = "SPEC",
         .help = "service time in seconds (default exp:100)"},
        {"workers", CLI_UINT, &o.workers, 1, 65536, .arg = "N",
         .help = "requests served at once (default 1)"},
        {"mode", CLI_CHOICE, &o.cpu, .arg = "sleep|cpu", .choices = "sleep,cpu",
         .help = "wait on a timer (default) or burn CPU"},
        {"seed", CLI_U64, &o.seed, .arg = "S", .help = "seed of the service times (default 1)"},
        {"health", CLI_STR, &o.health, .arg = "PATH", .help = "the health path (default /health)"},
        {"setup", CLI_STR, &warmup, .arg = "SPEC",
         .help = "the health path answers 503 for a setup time drawn\nfrom SPEC (seconds) after "
                 "start, then 200"},
        {"warmup", CLI_STR, &warmup_old, .arg = "SPEC", .help = "old name of --setup"},
        {"body", CLI_U64, &o.body, .arg = "BYTES",
         .help = "answer with a body of BYTES bytes of a fixed\npattern instead of \"ok\" (any "
                 "size, not buffered)"},
        {"chunked", CLI_BOOL, &o.chunked, .help = "send that body chunked (1 MiB chunks)"},
        {"keepalive-timeout", CLI_DOUBLE, &o.keepalive_timeout, 1e-3, 1e9, .arg = "T",
         .help = "close a kept-alive connection idle T s\n(default: never)"},
        {"http10", CLI_BOOL, &o.http10,
         .help = "answer HTTP/1.0 without Content-Length, the body\nended by closing the "
                 "connection"},
        {"help", CLI_HELP, &help, .help = "this text"},
        {0}};
    int rc = cli_flags_parse("backend", flags, argc, argv, &first, NULL);
    if (rc < 0) {
        cli_flags_usage(stdout, "qctl backend [options]", backend_about, flags);
        return 0;
    }
    if (rc != 0)
        return rc;
    if (first < argc)
        return cli_extra_operand("backend", argv[first]);
    if (warmup_old != NULL) {
        fprintf(stderr, "qctl: --warmup is deprecated; use --setup (same meaning)\n");
        if (warmup == NULL)
            warmup = warmup_old;
    }
    if (o.health && o.health[0] != '/') {
        cli_error("--health: '%s' does not start with /", o.health);
        return QC_EXIT_USAGE;
    }
    if (o.workers == 0) {
        cli_error("--workers: must be >= 1");
        return QC_EXIT_USAGE;
    }
    qc_err err = {0};
    if (qc_dist_parse(&o.service, service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (warmup) {
        if (qc_dist_parse(&o.warmup, warmup, &err) != 0) {
            qc_dist_free(&o.service);
            cli_error("--setup: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        o.has_warmup = 1;
    }
    struct sockaddr_storage a;
    if (qc__addr_parse(o.listen, &a, &err) != 0) {
        qc_dist_free(&o.service);
        if (o.has_warmup)
            qc_dist_free(&o.warmup);
        cli_error("--listen: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    signal(SIGPIPE, SIG_IGN); /* a client gone mid-response is not fatal */
    rc = qc_backend_run(&o, &err);
    qc_dist_free(&o.service);
    if (o.has_warmup)
        qc_dist_free(&o.warmup);
    if (rc) {
        cli_error("backend: %s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

static const char proxy_usage[] =
    "usage: qctl proxy --backend HOST:PORT [--backend ...] [options]\n"
    "\n"
    "HTTP/1.1 reverse proxy with admission control: a request beyond the\n"
    "current limit waits in a bounded queue until its class's deadline, then\n"
    "gets 503 with Retry-After. The limit is set every control interval by\n"
    "the controller from the proxy's own measurements; backends are chosen\n"
    "by join-the-shortest-queue. SIGTERM drains: admitted requests finish,\n"
    "waiting and new ones are refused, then it exits.\n"
    "\n"
    "  --listen HOST:PORT   address (default 127.0.0.1:8080; port 0: any "
    "free);\n"
    "                       in every address flag HOST is 1.2.3.4, [::1] or\n"
    "                       a name (resolved once at start, the first\n"
    "                       address taken)\n"
    "  --port-file FILE     write the bound port to FILE\n"
    "  --admin HOST:PORT    admin endpoint: GET / (a live page drawing the\n"
    "                       last minutes), GET /metrics (Prometheus), GET\n"
    "                       /status (JSON), POST /reference?value=R\n"
    "                       (loopback only unless --admin-public; state\n"
    "                       changes by POST only, GET gets 405)\n"
    "  --admin-port-file F  write the admin port to F\n"
    "  --admin-public       allow --admin on a non-loopback address\n"
    "  --admin-token-file F state changes need \"Authorization: Bearer TOKEN\",\n"
    "                       TOKEN the first line of F (16-255 characters;\n"
    "                       401 otherwise)\n"
    "  --admin-read-only    the admin port changes nothing (403)\n"
    "  --drain-timeout T    after SIGTERM/SIGINT, stop anyway after T s\n"
    "                       (default 30); a second signal stops at once\n"
    "  --backend HOST:PORT  a backend (repeat for more)\n"
    "  --limiter NAME       none, fixed, maxusers (default), aimd, vegas,\n"
    "                       gradient2, envoy, admission (per-class delay\n"
    "                       bounds, see --class; the limit stays --limit)\n"
    "  --limit L            initial (fixed: the) limit (default 20)\n"
    "  --min-limit L        least limit (default 1)\n"
    "  --max-limit L        largest limit (default 1000)\n"
    "  --reference R        maxusers: requests in the backends to hold (10)\n"
    "  --gain K             maxusers: integral gain K_I (default 0.5)\n"
    "  --interval T         control interval, seconds (default 0.1)\n"
    "  --queue N            waiting room (default 128)\n"
    "  --queue-timeout T    best-effort wait deadline, seconds (default 1)\n"
    "  --queue-discipline D codel (default): while the queue stands (its least\n"
    "                       wait over an interval above --queue-target) the\n"
    "                       deadline is --queue-target; fifo: always the\n"
    "                       class's deadline\n"
    "  --queue-target T     codel's target wait, seconds (default 0.05)\n"
    "  --class-header NAME  header naming a request's class\n"
    "  --class NAME=BOUND   a class and its bound in seconds (repeat; NAME:BOUND\n"
    "                       too): its wait deadline, or under --limiter\n"
    "                       admission the bound on its mean delay\n"
    "  --class-prefix NAME=/PATH  requests whose path starts with /PATH are\n"
    "                       of class NAME (repeat; the longest prefix wins;\n"
    "                       before --class-header; unmatched: best-effort)\n"
    "  --candidate NAME     admission: NAME starts as a candidate (slow start,\n"
    "                       then admitted or rejected) instead of admitted\n"
    "  --epsilon E          admission: track (1 - E) of each bound (0.1)\n"
    "  --alpha A            admission: slow-start constant (default 20)\n"
    "  --min-completions M  admission: completions per delay sample (20)\n"
    "  --config FILE.json   options from a JSON object {\"flag\": value, ...}:\n"
    "                       true for a bare flag, arrays to repeat a flag;\n"
    "                       flags on the command line override its keys\n"
    "  --check              validate everything, print the effective\n"
    "                       configuration as JSON and exit\n"
    "  --header-timeout T   seconds for a request head to arrive (default 10)\n"
    "  --idle-timeout T     idle client connection (default 60)\n"
    "  --backend-timeout T  backend answer, else 504 (default 30)\n"
    "  --series FILE        CSV of the control loop, one line per interval\n"
    "  --max-body BYTES     a larger request body gets 413 (default 16777216)\n"
    "  --max-connections N  client connections beyond N get 503 and are\n"
    "                       closed (default 0: no cap but the file limit)\n"
    "  --max-memory BYTES   request bytes buffered over all clients: a client\n"
    "                       that would grow them past it gets 503 (default\n"
    "                       268435456; 0: no cap; at least 1 MiB)\n"
    "Backend fleet (power control, docs/live.md):\n"
    "  --route jsq|djsq     jsq: every backend on, fewest in flight (default);\n"
    "                       djsq: delay-JSQ, backends unparked and parked\n"
    "  --djsq-threshold T   djsq: join a busy backend while it holds <= T\n"
    "                       with the new request (default 4)\n"
    "  --idle-off SECONDS   djsq: park a backend idle this long (default never)\n"
    "  --min-on N           djsq: backends kept on or warming (default 1)\n"
    "  --max-on N           djsq: backends powered at most (default all)\n"
    "  --initially-on N     djsq: the first N on at start, the rest off\n"
    "  --unpark-cmd CMD     run by /bin/sh -c to switch a backend on; {backend},\n"
    "                       {host} and {port} are replaced by its address\n"
    "  --park-cmd CMD       the same, to switch one off\n"
    "  --cmd-timeout T      an un/park command killed after T s (default 10)\n"
    "  --health PATH        while warming, GET PATH until a 2xx marks it on;\n"
    "                       the probe of --health-check and --max-fails too\n"
    "  --health-interval T  seconds between health probes of a warming or\n"
    "                       out-of-rotation backend (default 0.1)\n"
    "  --setup-timeout T    not healthy T s after an unpark: back off (default 30;\n"
    "                       --warmup-timeout: old name)\n"
    "Retries and health (docs/live.md):\n"
    "  --retries N          send a request again at most N times (0-10,\n"
    "                       default 2) when its backend failed before any\n"
    "                       answer: a failed connect (any method), or a link\n"
    "                       closed before the head (idempotent methods only)\n"
    "  --retry-budget F     retries at most F per admitted request, plus 5\n"
    "                       a second (0-1, default 0.2)\n"
    "  --max-fails N        N failures in a row take a backend out of\n"
    "                       rotation until a probe succeeds (default 3; 0:\n"
    "                       never)\n"
    "  --health-check T     probe every on backend every T s (GET --health,\n"
    "                       else a connect; default 0: none)\n"
    "  --help               this text\n";

static int positive(const char *flag, double v)
{
    if (!(v > 0) || !isfinite(v)) {
        cli_error("%s: %g must be > 0", flag, v);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* The argument vector cmd_proxy parses: argv[0], the config file's flag
 * words (those the command line does not override), the command line. */
typedef struct proxy_argv {
    int argc;
    char **argv;
    qc__config_args cfg;
} proxy_argv;

static void proxy_argv_free(proxy_argv *pa)
{
    free(pa->argv);
    qc__config_args_free(&pa->cfg);
    pa->argv = NULL;
}

static int proxy_config_argv(int argc, char **argv, const struct option *longopts,
                             proxy_argv *pa)
{
    memset(pa, 0, sizeof *pa);
    /* a first pass over a copy of the command line: which flags it gives,
     * and the config file (getopt reorders its argument vector) */
    char **copy = malloc(((size_t)argc + 1) * sizeof *copy);
    unsigned char given[256] = {0};
    size_t nopts = 0;
    while (longopts[nopts].name)
        nopts++;
    if (!copy || nopts > sizeof given) {
        free(copy);
        cli_error("proxy: out of memory");
        return QC_EXIT_FAIL;
    }
    memcpy(copy, argv, ((size_t)argc + 1) * sizeof *copy);
    const char *file = NULL;
    int c, idx, saved = opterr;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, copy, "", longopts, &idx)) != -1)
        if (c != '?' && c != ':') {
            given[idx] = 1;
            if (strcmp(longopts[idx].name, "config") == 0)
                file = optarg;
        }
    opterr = saved;
    free(copy);
    if (file) {
        static const char *const forbidden[] = {"config", "check", "help", NULL};
        qc_err err = {0};
        if (qc__config_args_load(file, longopts, forbidden, &pa->cfg, &err) != 0) {
            cli_error("--config: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    pa->argv = malloc(((size_t)argc + (size_t)pa->cfg.n + 1) * sizeof *pa->argv);
    if (!pa->argv) {
        qc__config_args_free(&pa->cfg);
        cli_error("proxy: out of memory");
        return QC_EXIT_FAIL;
    }
    pa->argv[pa->argc++] = argv[0];
    for (int i = 0; i < pa->cfg.n; i++) {
        size_t k = 0;
        while (strcmp(longopts[k].name, pa->cfg.key[i]) != 0)
            k++;
        if (!given[k])
            pa->argv[pa->argc++] = pa->cfg.word[i];
    }
    for (int i = 1; i < argc; i++)
        pa->argv[pa->argc++] = argv[i];
    pa->argv[pa->argc] = NULL;
    return 0;
}

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

/* A flag's argument as JSON: a number if it is all one, else the string. */
static json_t *check_value(const char *s)
{
    char *end;
    double d = strtod(s, &end);
    if (end == s || *end || !isfinite(d) || strspn(s, "0123456789.eE+-") != strlen(s))
        return json_string(s);
    if (strspn(s, "0123456789") == strlen(s) && d < 9e15)
        return json_integer((json_int_t)d);
    return json_real(d);
}

/* --check: the effective configuration as a JSON object of flags (it
 * loads back as a --config): each flag the file or the command line gave,
 * by its final value (an array for a repeated flag), then the defaults of
 * the main ones. */
static int proxy_print_check(const qc_proxy_params *o, const char *limiter, int argc, char **argv,
                             const struct option *longopts)
{
    json_t *root = json_object();
    int c, idx;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, &idx)) != -1) {
        if (c == '?' || c == ':')
            continue;
        const char *name = longopts[idx].name;
        if (strcmp(name, "check") == 0 || strcmp(name, "config") == 0)
            continue;
        json_t *v = longopts[idx].has_arg == no_argument ? json_true() : check_value(optarg);
        json_t *old = json_object_get(root, name);
        int repeat = strcmp(name, "backend") == 0 || strcmp(name, "class") == 0 ||
                     strcmp(name, "class-prefix") == 0 || strcmp(name, "candidate") == 0;
        if (repeat && !old) {
            old = json_array();
            json_object_set_new(root, name, old);
        }
        if (repeat)
            json_array_append_new(old, v);
        else
            json_object_set_new(root, name, v);
    }
    opterr = 1;
#define DEF(name, v)                                                                             \
    do {                                                                                         \
        if (!json_object_get(root, name))                                                        \
            json_object_set_new(root, name, v);                                                  \
    } while (0)
    DEF("listen", json_string(o->listen));
    DEF("limiter", json_string(limiter));
    if (o->control) {
        DEF("limit", json_real(o->limiter.initial_limit));
        DEF("min-limit", json_real(o->limiter.min_limit));
        DEF("max-limit", json_real(o->limiter.max_limit));
    }
    if (o->control && o->limiter.algo == QC_LIMITER_MAXUSERS) {
        DEF("reference", json_real(o->limiter.reference));
        DEF("gain", json_real(o->limiter.ki));
    }
    if (o->control && o->limiter.algo == QC_LIMITER_ADMISSION) {
        DEF("epsilon", json_real(o->limiter.adm_epsilon));
        DEF("alpha", json_real(o->limiter.adm_alpha));
        DEF("min-completions", json_integer(o->limiter.adm_min_completions));
    }
    DEF("interval", json_real(o->interval));
    DEF("queue", json_integer(o->queue));
    DEF("queue-timeout", json_real(o->queue_timeout));
    DEF("header-timeout", json_real(o->header_timeout));
    DEF("idle-timeout", json_real(o->idle_timeout));
    DEF("backend-timeout", json_real(o->backend_timeout));
    DEF("retries", json_integer(o->retries));
    DEF("retry-budget", json_real(o->retry_budget));
    DEF("max-fails", json_integer(o->max_fails));
    DEF("health-check", json_real(o->health_check));
    DEF("max-body", json_integer((json_int_t)o->max_body));
    DEF("max-connections", json_integer(o->max_connections));
    DEF("max-memory", json_integer((json_int_t)o->max_memory));
    DEF("queue-discipline",
        json_string(o->queue_discipline == QC_QUEUE_CODEL ? "codel" : "fifo"));
    DEF("queue-target", json_real(o->queue_target));
    DEF("drain-timeout", json_real(o->drain_timeout));
#undef DEF
    qc_err err = {0};
    int rc = qc_json_write(root, NULL, &err);
    json_decref(root);
    if (rc) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

/* The proxy's event lines, on stderr. */
static void proxy_log(void *ctx, const char *line)
{
    (void)ctx;
    fprintf(stderr, "qctl proxy: %s\n", line);
}

int cmd_proxy(int argc, char **argv)
{
    enum {
        O_LISTEN = 1,
        O_PF,
        O_ADMIN,
        O_APF,
        O_APUB,
        O_BK,
        O_LIM,
        O_L,
        O_MINL,
        O_MAXL,
        O_REF,
        O_GAIN,
        O_INT,
        O_Q,
        O_QT,
        O_CH,
        O_CL,
        O_HT,
        O_IT,
        O_BT,
        O_SER,
        O_HELP
    };
    enum { O_CPFX = 200, O_CAND, O_EPS, O_ALPHA, O_MINC, O_CONFIG, O_CHECK };
    enum {
        O_ROUTE = 100,
        O_DJT,
        O_IOFF,
        O_MINON,
        O_MAXON,
        O_INITON,
        O_UNPARK,
        O_PARK,
        O_CMDT,
        O_HEALTH,
        O_HINT,
        O_WUT,
        O_RETRIES,
        O_RBUDGET,
        O_MAXFAILS,
        O_HCHECK,
        O_MAXBODY,
        O_MAXCONN,
        O_MAXMEM,
        O_QDISC,
        O_QTARGET,
        O_DRAIN,
        O_ATOKEN,
        O_AREAD,
        O_WUT_OLD
    };
    static const struct option longopts[] = {{"listen", required_argument, 0, O_LISTEN},
                                             {"port-file", required_argument, 0, O_PF},
                                             {"admin", required_argument, 0, O_ADMIN},
                                             {"admin-port-file", required_argument, 0, O_APF},
                                             {"admin-public", no_argument, 0, O_APUB},
                                             {"backend", required_argument, 0, O_BK},
                                             {"limiter", required_argument, 0, O_LIM},
                                             {"limit", required_argument, 0, O_L},
                                             {"min-limit", required_argument, 0, O_MINL},
                                             {"max-limit", required_argument, 0, O_MAXL},
                                             {"reference", required_argument, 0, O_REF},
                                             {"gain", required_argument, 0, O_GAIN},
                                             {"interval", required_argument, 0, O_INT},
                                             {"queue", required_argument, 0, O_Q},
                                             {"queue-timeout", required_argument, 0, O_QT},
                                             {"class-header", required_argument, 0, O_CH},
                                             {"class", required_argument, 0, O_CL},
                                             {"class-prefix", required_argument, 0, O_CPFX},
                                             {"candidate", required_argument, 0, O_CAND},
                                             {"epsilon", required_argument, 0, O_EPS},
                                             {"alpha", required_argument, 0, O_ALPHA},
                                             {"min-completions", required_argument, 0, O_MINC},
                                             {"config", required_argument, 0, O_CONFIG},
                                             {"check", no_argument, 0, O_CHECK},
                                             {"header-timeout", required_argument, 0, O_HT},
                                             {"idle-timeout", required_argument, 0, O_IT},
                                             {"backend-timeout", required_argument, 0, O_BT},
                                             {"series", required_argument, 0, O_SER},
                                             {"route", required_argument, 0, O_ROUTE},
                                             {"djsq-threshold", required_argument, 0, O_DJT},
                                             {"idle-off", required_argument, 0, O_IOFF},
                                             {"min-on", required_argument, 0, O_MINON},
                                             {"max-on", required_argument, 0, O_MAXON},
                                             {"initially-on", required_argument, 0, O_INITON},
                                             {"unpark-cmd", required_argument, 0, O_UNPARK},
                                             {"park-cmd", required_argument, 0, O_PARK},
                                             {"cmd-timeout", required_argument, 0, O_CMDT},
                                             {"health", required_argument, 0, O_HEALTH},
                                             {"health-interval", required_argument, 0, O_HINT},
                                             {"setup-timeout", required_argument, 0, O_WUT},
                                             /* old name of --setup-timeout */
                                             {"warmup-timeout", required_argument, 0, O_WUT_OLD},
                                             {"retries", required_argument, 0, O_RETRIES},
                                             {"retry-budget", required_argument, 0, O_RBUDGET},
                                             {"max-fails", required_argument, 0, O_MAXFAILS},
                                             {"health-check", required_argument, 0, O_HCHECK},
                                             {"max-body", required_argument, 0, O_MAXBODY},
                                             {"max-connections", required_argument, 0, O_MAXCONN},
                                             {"max-memory", required_argument, 0, O_MAXMEM},
                                             {"queue-discipline", required_argument, 0, O_QDISC},
                                             {"queue-target", required_argument, 0, O_QTARGET},
                                             {"drain-timeout", required_argument, 0, O_DRAIN},
                                             {"admin-token-file", required_argument, 0, O_ATOKEN},
                                             {"admin-read-only", no_argument, 0, O_AREAD},
                                             {"help", no_argument, 0, O_HELP},
                                             {0, 0, 0, 0}};
    qc_proxy_params o;
    qc_proxy_params_init(&o);
    o.log = proxy_log;
    const char *limiter = "maxusers";
    double limit = NAN, minl = NAN, maxl = NAN, ref = NAN, gain = NAN;
    double eps = NAN, alpha = NAN;
    unsigned minc = 0;
    const char *prefix_spec[QC_PROXY_CLASSES_MAX * 4], *cand_spec[QC_PROXY_CLASSES_MAX];
    unsigned nprefix = 0, ncand = 0;
    int c, rc = 0, check = 0;
    /* --config FILE: its keys become flag words ahead of the command
     * line's, parsed by the loop below like any flag (one code path);
     * a key the command line also gives is dropped from the file's */
    proxy_argv pa;
    if ((rc = proxy_config_argv(argc, argv, longopts, &pa)) != 0)
        return rc;
    argc = pa.argc;
    argv = pa.argv;
    optind = 1;
    while ((c = cli_getopt(argc, argv, "", longopts, NULL)) != -1) {
        if (c == O_WUT_OLD) {
            fprintf(stderr, "qctl: --warmup-timeout is deprecated; use --setup-timeout "
                            "(same meaning)\n");
            c = O_WUT;
        }
        switch (c) {
        case O_LISTEN:
            o.listen = optarg;
            break;
        case O_PF:
            o.port_file = optarg;
            break;
        case O_ADMIN:
            o.admin = optarg;
            break;
        case O_APF:
            o.admin_port_file = optarg;
            break;
        case O_APUB:
            o.admin_public = 1;
            break;
        case O_BK:
            if (o.nbackends >= QC_PROXY_BACKENDS_MAX) {
                cli_error("--backend: at most %d backends", QC_PROXY_BACKENDS_MAX);
                rc = QC_EXIT_USAGE;
                break;
            }
            o.backend[o.nbackends++] = optarg;
            break;
        case O_LIM:
            limiter = optarg;
            break;
        case O_L:
            rc = cli_double("--limit", optarg, &limit);
            break;
        case O_MINL:
            rc = cli_double("--min-limit", optarg, &minl);
            break;
        case O_MAXL:
            rc = cli_double("--max-limit", optarg, &maxl);
            break;
        case O_REF:
            rc = cli_double("--reference", optarg, &ref);
            break;
        case O_GAIN:
            rc = cli_double("--gain", optarg, &gain);
            break;
        case O_INT:
            rc = cli_double("--interval", optarg, &o.interval);
            break;
        case O_Q:
            rc = cli_uint("--queue", optarg, &o.queue);
            break;
        case O_QT:
            rc = cli_double("--queue-timeout", optarg, &o.queue_timeout);
            break;
        case O_CH:
            o.class_header = optarg;
            break;
        case O_CL: {
            const char *colon = strchr(optarg, '=');
            if (!colon)
                colon = strrchr(optarg, ':');
            if (!colon || colon == optarg) {
                cli_error("--class: '%s' is not NAME=BOUND", optarg);
                rc = QC_EXIT_USAGE;
                break;
            }
            if (o.nclasses >= QC_PROXY_CLASSES_MAX) {
                cli_error("--class: at most %d classes", QC_PROXY_CLASSES_MAX);
                rc = QC_EXIT_USAGE;
                break;
            }
            if ((rc = cli_double("--class", colon + 1, &o.class_bound[o.nclasses])) != 0 ||
                (rc = positive("--class", o.class_bound[o.nclasses])) != 0)
                break;
            o.class_name[o.nclasses++] = strndup(optarg, (size_t)(colon - optarg));
            break;
        }
        case O_CPFX:
            if (nprefix >= sizeof prefix_spec / sizeof *prefix_spec) {
                cli_error("--class-prefix: at most %zu prefixes",
                          sizeof prefix_spec / sizeof *prefix_spec);
                rc = QC_EXIT_USAGE;
                break;
            }
            prefix_spec[nprefix++] = optarg;
            break;
        case O_CAND:
            if (ncand >= QC_PROXY_CLASSES_MAX) {
                cli_error("--candidate: at most %d", QC_PROXY_CLASSES_MAX);
                rc = QC_EXIT_USAGE;
                break;
            }
            cand_spec[ncand++] = optarg;
            break;
        case O_EPS:
            rc = cli_double("--epsilon", optarg, &eps);
            break;
        case O_ALPHA:
            rc = cli_double("--alpha", optarg, &alpha);
            break;
        case O_MINC:
            if ((rc = cli_uint("--min-completions", optarg, &minc)) == 0 && minc == 0) {
                cli_error("--min-completions: must be >= 1");
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_CONFIG: /* read before the loop */
            break;
        case O_CHECK:
            check = 1;
            break;
        case O_HT:
            rc = cli_double("--header-timeout", optarg, &o.header_timeout);
            break;
        case O_IT:
            rc = cli_double("--idle-timeout", optarg, &o.idle_timeout);
            break;
        case O_BT:
            rc = cli_double("--backend-timeout", optarg, &o.backend_timeout);
            break;
        case O_SER:
            o.series = optarg;
            break;
        case O_ROUTE:
            if (strcmp(optarg, "jsq") == 0)
                o.fleet.route = QC_FLEET_JSQ;
            else if (strcmp(optarg, "djsq") == 0)
                o.fleet.route = QC_FLEET_DJSQ;
            else {
                cli_error("--route: '%s' is not jsq or djsq", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_DJT:
            rc = cli_uint("--djsq-threshold", optarg, &o.fleet.threshold);
            break;
        case O_IOFF:
            if ((rc = cli_double("--idle-off", optarg, &o.fleet.idle_off)) == 0)
                rc = positive("--idle-off", o.fleet.idle_off);
            break;
        case O_MINON:
            rc = cli_uint("--min-on", optarg, &o.fleet.min_on);
            break;
        case O_MAXON:
            rc = cli_uint("--max-on", optarg, &o.fleet.max_on);
            break;
        case O_INITON:
            rc = cli_uint("--initially-on", optarg, &o.fleet.initially_on);
            break;
        case O_UNPARK:
            o.unpark_cmd = optarg;
            break;
        case O_PARK:
            o.park_cmd = optarg;
            break;
        case O_CMDT:
            if ((rc = cli_double("--cmd-timeout", optarg, &o.cmd_timeout)) == 0)
                rc = positive("--cmd-timeout", o.cmd_timeout);
            break;
        case O_HEALTH:
            if (optarg[0] != '/' || strlen(optarg) > 256 || strpbrk(optarg, " \r\n")) {
                cli_error("--health: '%s' is not a path (/..., no spaces)", optarg);
                rc = QC_EXIT_USAGE;
            }
            o.health = optarg;
            break;
        case O_HINT:
            if ((rc = cli_double("--health-interval", optarg, &o.health_interval)) == 0)
                rc = positive("--health-interval", o.health_interval);
            break;
        case O_WUT:
            if ((rc = cli_double("--setup-timeout", optarg, &o.warmup_timeout)) == 0)
                rc = positive("--setup-timeout", o.warmup_timeout);
            break;
        case O_RETRIES:
            rc = cli_uint("--retries", optarg, &o.retries);
            break;
        case O_RBUDGET:
            rc = cli_double("--retry-budget", optarg, &o.retry_budget);
            break;
        case O_MAXFAILS:
            rc = cli_uint("--max-fails", optarg, &o.max_fails);
            break;
        case O_HCHECK:
            rc = cli_double("--health-check", optarg, &o.health_check);
            break;
        case O_MAXBODY:
            rc = cli_u64("--max-body", optarg, &o.max_body);
            break;
        case O_MAXCONN:
            rc = cli_uint("--max-connections", optarg, &o.max_connections);
            break;
        case O_MAXMEM: {
            uint64_t m;
            if ((rc = cli_u64("--max-memory", optarg, &m)) == 0)
                o.max_memory = m > SIZE_MAX ? SIZE_MAX : (size_t)m;
            break;
        }
        case O_QDISC:
            if (strcmp(optarg, "fifo") == 0)
                o.queue_discipline = QC_QUEUE_FIFO;
            else if (strcmp(optarg, "codel") == 0)
                o.queue_discipline = QC_QUEUE_CODEL;
            else {
                cli_error("--queue-discipline: '%s' is not fifo or codel", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_QTARGET:
            rc = cli_double("--queue-target", optarg, &o.queue_target);
            break;
        case O_DRAIN:
            rc = cli_double("--drain-timeout", optarg, &o.drain_timeout);
            break;
        case O_ATOKEN:
            o.admin_token_file = optarg;
            break;
        case O_AREAD:
            o.admin_read_only = 1;
            break;
        case O_HELP:
            fputs(proxy_usage, stdout);
            rc = 0;
            goto out;
        default:
            rc = cli_bad_option("proxy", argv[optind - 1]);
            goto out;
        }
        if (rc)
            goto out;
    }
    rc = QC_EXIT_USAGE;
    if (optind < argc) {
        cli_extra_operand("proxy", argv[optind]);
        goto out;
    }
    if (o.nbackends == 0) {
        cli_error("proxy: at least one --backend HOST:PORT is required");
        goto out;
    }
    qc_err err = {0};
    if (strcmp(limiter, "none") == 0) {
        o.control = 0;
    } else {
        qc_limiter_algo a;
        if (qc_limiter_algo_parse(limiter, &a, &err) != 0) {
            cli_error("--limiter: %s", err.msg);
            goto out;
        }
        qc_limiter_params_init(&o.limiter, a);
    }
    if (!isnan(limit))
        o.limiter.initial_limit = limit;
    if (!isnan(minl))
        o.limiter.min_limit = minl;
    if (!isnan(maxl))
        o.limiter.max_limit = maxl;
    if (!isnan(ref))
        o.limiter.reference = ref;
    if (!isnan(gain))
        o.limiter.ki = gain;
    if (positive("--interval", o.interval) || positive("--queue-timeout", o.queue_timeout) ||
        positive("--header-timeout", o.header_timeout) ||
        positive("--idle-timeout", o.idle_timeout) ||
        positive("--backend-timeout", o.backend_timeout))
        goto out;
    if (o.fleet.route == QC_FLEET_JSQ &&
        (isfinite(o.fleet.idle_off) || o.fleet.initially_on || o.fleet.max_on || o.unpark_cmd)) {
        cli_error("proxy: --idle-off, --initially-on, --max-on and --unpark-cmd need --route djsq");
        goto out;
    }
    if (qc__fleet_check(&o.fleet, o.nbackends, &err) != 0) {
        cli_error("proxy: %s", err.msg);
        goto out;
    }
    struct sockaddr_storage a;
    for (unsigned i = 0; i < o.nbackends; i++)
        if (qc__addr_parse(o.backend[i], &a, &err) != 0) {
            cli_error("--backend: %s", err.msg);
            goto out;
        }
    if (qc__addr_parse(o.listen, &a, &err) != 0) {
        cli_error("--listen: %s", err.msg);
        goto out;
    }
    if (o.admin && qc__addr_parse(o.admin, &a, &err) != 0) {
        cli_error("--admin: %s", err.msg);
        goto out;
    }
    if (proxy_classes(&o, prefix_spec, nprefix, cand_spec, ncand) != 0)
        goto out;
    if (o.limiter.algo == QC_LIMITER_ADMISSION && o.control) {
        if (!isnan(eps))
            o.limiter.adm_epsilon = eps;
        if (!isnan(alpha))
            o.limiter.adm_alpha = alpha;
        if (minc)
            o.limiter.adm_min_completions = minc;
        if (o.nclasses == 0) {
            cli_error("proxy: --limiter admission needs at least one --class NAME=BOUND");
            goto out;
        }
        /* the limiter's own checks (epsilon, alpha, bounds), named */
        qc_limiter_params lc = o.limiter;
        lc.classes = o.nclasses + 1;
        for (unsigned i = 0; i < o.nclasses; i++)
            lc.bound[i] = o.class_bound[i];
        lc.adm_candidates = o.class_candidate;
        qc_limiter *l;
        if ((l = qc_limiter_alloc(&lc, 0, &err)) == NULL) {
            cli_error("proxy: admission: %s", err.msg);
            goto out;
        }
        qc_limiter_free(l);
    } else if (!isnan(eps) || !isnan(alpha) || minc || ncand) {
        cli_error("proxy: --epsilon, --alpha, --min-completions and --candidate need "
                  "--limiter admission");
        goto out;
    }
    if (check) { /* the proxy's own validation, as the run would do it */
        int r = qc_proxy_check(&o, &err);
        if (r) {
            cli_error("proxy: %s", err.msg);
            rc = cli_exit_code(r) == QC_EXIT_USAGE ? QC_EXIT_USAGE : QC_EXIT_FAIL;
            goto out;
        }
        rc = proxy_print_check(&o, limiter, argc, argv, longopts);
        goto out;
    }
    signal(SIGPIPE, SIG_IGN); /* a peer gone mid-response is not fatal */
    /* a connection is a file: as many as the hard limit allows */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int r = qc_proxy_run(&o, &err);
    if (r) {
        cli_error("proxy: %s", err.msg);
        rc = cli_exit_code(r) == QC_EXIT_USAGE ? QC_EXIT_USAGE : QC_EXIT_FAIL;
        goto out;
    }
    rc = 0;
out:
    for (unsigned i = 0; i < o.nclasses; i++)
        free((char *)o.class_name[i]);
    proxy_argv_free(&pa);
    return rc;
}
