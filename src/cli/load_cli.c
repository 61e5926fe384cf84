/* SPDX-License-Identifier: GPL-3.0-or-later */
/* load_cli.c: `qctl load`, HTTP load (open or closed loop) or a UDP
 * replay: its flags, and the run of app/load_cmd.c. */
#include "app/load_cmd.h"
#include "cli.h"

static const char load_synopsis[] =
    "qctl load --target HOST:PORT (--requests N | --duration T) [options]\n"
    "       qctl load --udp HOST:PORT --replay FILE [--payload P] [--json]";

static const char load_about[] =
    "HTTP load, open loop (default): requests are due at the times of an\n"
    "arrival process whatever the server does, and latency is measured from\n"
    "the time a request was due (so queueing in the generator is not\n"
    "hidden). Closed loop (--users N): each of N users sends a request,\n"
    "waits for its answer, thinks, and sends again. Reports sent, answered\n"
    "(2xx, 503, other), errors and timeouts, with latency percentiles;\n"
    "sent = answered + errors + timeouts.\n";


/* Parses argv into a; 0, or the exit status to return (help: -1). One
 * row per flag: the parser, the help, the completion and the man page. */
static int parse_args(int argc, char **argv, load_args *a)
{
    qc_load_params *o = &a->o;
    int help = 0;
    const cli_flag flags[] = {
        {"target", CLI_STR, &o->target, .arg = "HOST:PORT",
         .help = "server to load (HOST: 1.2.3.4, [::1] or a name,\nresolved once before the load starts)"},
        {"path", CLI_STR, &o->path, .arg = "P", .help = "request target (default /)"},
        {"", CLI_NOTE, NULL, .help = "open loop, one of:"},
        {"rate", CLI_DOUBLE, &a->rate, .arg = "R",
         .help = "Poisson arrivals at R per second (same as exp:R)"},
        {"arrival", CLI_STR, &a->arrival, .arg = "SPEC",
         .help = "an arrival process: a distribution of the gaps,\nsin:MEAN,AMP,PERIOD, "
                 "curve:FILE,\nsteps:T0:R0,T1:R1,... or trace:FILE"},
        {"schedule", CLI_STR, &a->schedule, .arg = "T0:R0,...",
         .help = "Poisson at rate R_k from T_k s on (same as\n--arrival steps:...), e.g. "
                 "0:50,10:150,20:50"},
        {"traffic", CLI_STR, &a->traffic, .path = CLI_PATH_IN_NONEMPTY, .arg = "MODEL.json",
         .help = "requests at the packet times of a traffic model\n(qctl gen): each packet a "
                 "user sends is a request"},
        {"traffic-users", CLI_UINT, &a->traffic_users, .arg = "U",
         .help = "users of the model (default 1)"},
        {"per", CLI_CHOICE, &a->per_session, .arg = "packet|session", .choices = "packet,session",
         .help = "a request per user packet (default) or per\nsession (its first packet)"},
        {"", CLI_NOTE, NULL, .help = "closed loop:"},
        {"users", CLI_UINT, &o->users, .arg = "N",
         .help = "N users, each with one request out at most"},
        {"think", CLI_STR, &a->think, .arg = "SPEC",
         .help = "think time in seconds after an answer (default det:0)"},
        {"session", CLI_STR, &a->session, .arg = "SPEC",
         .help = "requests per session (rounded up; default: one\nendless session)"},
        {"off", CLI_STR, &a->off, .arg = "SPEC",
         .help = "off time between sessions (default det:0)"},
        {"", CLI_NOTE, NULL, .help = "bounds and output:"},
        {"requests", CLI_U64, &o->requests, .arg = "N", .help = "stop issuing after N requests"},
        {"duration", CLI_DOUBLE, &o->duration, .arg = "T", .help = "stop issuing after T seconds"},
        {"connections", CLI_UINT, &o->connections, .arg = "C",
         .help = "open loop: most connections at once (default 64)"},
        {"timeout", CLI_DOUBLE, &o->timeout, .arg = "T",
         .help = "wait at most T s for answers at the end (default 10)"},
        {"header", CLI_STR, &o->class_header, .arg = "'N: V'",
         .help = "send this header (e.g. a class)"},
        {"seed", CLI_U64, &o->seed, .arg = "S",
         .help = "seed of the arrivals and think times (default 1)"},
        {"threads", CLI_UINT, &o->threads, .arg = "N",
         .help = "spread the load over N event loops, a thread\neach (default: the usable "
                 "cores; 1 with\n--series); counts and latencies are merged"},
        {"series", CLI_STR, &o->series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "CSV per interval: time, sent, answered, ok,\nrefused, errors, p50, p95 of "
                 "that interval's\nanswers, p95 of its 2xx answers (ok_p95)"},
        {"series-interval", CLI_DOUBLE, &o->series_interval, .arg = "T",
         .help = "its interval in seconds (default 1)"},
        {"dump", CLI_STR, &o->dump, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "one line per request answered or failed, in the\norder due: class (the "
                 "--header value, else the\npath), send time (s from the start), latency\n"
                 "(s), HTTP status (0: connection error)"},
        {"max-errors", CLI_DOUBLE, &a->max_errors, 0, 1, .arg = "F",
         .help = "exit 1 when more than this fraction of the requests\nfailed (connection "
                 "errors and timeouts; default 0:\nany failure)"},
        CLI_ROW_JSON(&a->json),
        {"quiet", CLI_BOOL, &a->quiet, .help = "no log lines on standard error"},
        CLI_ROWS_CONFIG_CHECK(a, load_validate),
        {"", CLI_NOTE, NULL, .help = "UDP replay:"},
        {"udp", CLI_STR, &a->udp, .arg = "HOST:PORT",
         .help = "send one datagram per packet of --replay FILE"},
        {"replay", CLI_STR, &a->replay, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "pcap, pcapng or CSV (time,size): each packet's\nsize (at most 65507) at its "
                 "time from the first"},
        {"payload", CLI_CHOICE, &a->pattern, .arg = "zeros|pattern", .choices = "zeros,pattern",
         .help = "datagram bytes (default zeros)"},
        CLI_ROW_HELP(&help),
        {0}};
    /* CLI_DONE_HELP after --help */
    return cli_flags_parse_command("load", load_synopsis, load_about, flags, argc, argv, NULL);
}

int cmd_load(int argc, char **argv)
{
    load_args a = {.o = {.path = "/", .connections = 64, .timeout = 10, .seed = 1,
                         .series_interval = 1}};
    return load_main(&a, parse_args(argc, argv, &a));
}
