/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_cli.c: `qctl proxy`: its flags, and the run of app/proxy_run.c,
 * which parses them again on a reload. */
#include <stdio.h>

#include "app/proxy_cmd.h"
#include "cli.h"

static const char proxy_about[] =
    "HTTP/1.1 reverse proxy with admission control: a request beyond the\n"
    "current limit waits in a bounded queue until its class's deadline, then\n"
    "gets 503 with Retry-After. The limit is set every control interval by\n"
    "the controller from the proxy's own measurements; backends are chosen\n"
    "by join-the-shortest-queue. SIGTERM drains: admitted requests finish,\n"
    "waiting and new ones are refused, then it exits.\n";

/* The proxy's flags parsed into pc (its defaults first): 0, or
 * CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message. A
 * reload comes here again with the same command line (quiet: no usage). */
static int proxy_parse(void *ctx, int argc, char **argv, int reload)
{
    proxy_cli *pc = ctx;
    proxy_defaults(pc, reload);
    qc_proxy_params *o = &pc->o;
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
        {"workers", CLI_UINT, &pc->workers, 0, 1024, .arg = "N",
         .help = "N event loops on N threads sharing one limiter\nand waiting room (default 0: "
                 "the usable CPUs;\n1 with a fleet)"},
        {"drain-timeout", CLI_DOUBLE, &o->drain_timeout, .arg = "T",
         .help = "after SIGTERM/SIGINT, stop anyway after T s\n(default 30); a second signal "
                 "stops at once"},
        {"backend", CLI_STRS, &pc->backends, 0, QC_PROXY_BACKENDS_MAX, .arg = "HOST:PORT",
         .help = "a backend (repeat for more)"},
        {"limiter", CLI_STR, &pc->limiter, .arg = "NAME",
         .help = "none, fixed, maxusers (default), aimd, vegas,\ngradient2, envoy, admission "
                 "(per-class delay\nbounds, see --class; limit set by Little's law)"},
        {"limit", CLI_DOUBLE, &pc->limit, .arg = "L",
         .help = "initial (fixed: the) limit (default 20;\nmaxusers 10, its least reference)"},
        {"min-limit", CLI_DOUBLE, &pc->minl, .arg = "L", .help = "least limit (default 1)"},
        {"max-limit", CLI_DOUBLE, &pc->maxl, .arg = "L", .help = "largest limit (default 1000)"},
        {"reference", CLI_DOUBLE, &pc->ref, .arg = "R",
         .help = "maxusers: requests in the backends to hold (default\n0: adapts, 1.5 x the knee of their latency curve,\n10 at least until the knee is measured)"},
        {"gain", CLI_DOUBLE, &pc->gain, .arg = "K",
         .help = "maxusers: integral gain K_I (default 0.5)"},
        {"interval", CLI_DOUBLE, &o->interval, .arg = "T",
         .help = "control interval, seconds (default 0.1)"},
        {"sample-every", CLI_UINT, &o->sample_every, 0, 1e9, .arg = "N",
         .help = "the limiter's window: 0 (default), one per interval;\nN, one per N completions"},
        {"sample-least", CLI_UINT, &o->sample_least, 0, 1e9, .arg = "N",
         .help = "--sample-every 0: an interval closes the window once\nit holds N completions "
                 "(default 32; 0: every interval)"},
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
        {"class", CLI_STRS, &pc->classes, 0, QC_PROXY_CLASSES_MAX, .arg = "NAME=BOUND",
         .help = "a class and its bound in seconds (repeat; NAME:BOUND\ntoo): its wait deadline, "
                 "or under --limiter\nadmission the bound on its mean delay"},
        {"class-prefix", CLI_STRS, &pc->prefixes, 0, QC_PROXY_CLASSES_MAX * 4,
         .arg = "NAME=/PATH",
         .help = "requests whose path starts with /PATH are\nof class NAME (repeat; the longest "
                 "prefix wins;\nbefore --class-header; unmatched: best-effort)"},
        {"candidate", CLI_STRS, &pc->candidates, 0, QC_PROXY_CLASSES_MAX, .arg = "NAME",
         .help = "admission: NAME starts as a candidate (slow start,\nthen admitted or rejected) "
                 "instead of admitted"},
        {"epsilon", CLI_DOUBLE, &pc->eps, .arg = "E",
         .help = "admission: track (1 - E) of each bound (0.1)"},
        {"alpha", CLI_DOUBLE, &pc->alpha, .arg = "A",
         .help = "admission: slow-start constant (default 20)"},
        {"min-completions", CLI_UINT, &pc->minc, 1, 4294967295.0, .arg = "M",
         .help = "admission: completions per delay sample (20)", .zero_unset = 1},
        CLI_ROWS_CONFIG_CHECK(pc, proxy_validate),
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
        {"max-memory", CLI_U64, &pc->max_memory, .arg = "BYTES",
         .help = "request bytes buffered over all clients: a client\nthat would grow them past it "
                 "gets 503 (default\n268435456; 0: no cap; at least 1 MiB)"},
        {"", CLI_NOTE, NULL, .help = "Backend fleet (power control, docs/live.md):"},
        {"route", CLI_CHOICE, &pc->route, .arg = "jsq|djsq", .choices = "jsq,djsq",
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
        {"access-log-buffer", CLI_U64, &pc->alog_buffer, QC_ALOG_BUFFER_MIN, QC_ALOG_BUFFER_MAX,
         .arg = "BYTES",
         .help = "lines held while the log's file is slow, in each\nof two buffers (default 1048576): "
                 "beyond, lines\nare dropped, counted and warned of (never the\nproxy slowed)"},
        {"log-format", CLI_CHOICE, &pc->log_json, .arg = "F", .choices = "text,json",
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
        pc->words = cli_flags_config_detach();
    return rc;
}

int cmd_proxy(int argc, char **argv)
{
    return proxy_main(argc, argv, proxy_parse);
}
