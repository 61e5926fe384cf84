/* SPDX-License-Identifier: GPL-3.0-or-later */
/* backend_cli.c: `qctl backend`, the demo and test HTTP server: its
 * flags, and the run of app/backend_cmd.c. */
#include "app/backend_cmd.h"
#include "cli.h"

static const char backend_about[] =
    "A small HTTP/1.1 server for demos and tests: each request takes one of\n"
    "N workers for a service time drawn from SPEC (waiting FCFS when all are\n"
    "busy) and is answered 200. GET /health answers at once. Stops on "
    "SIGTERM.\n";

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
    return backend_main(b, rc);
}
