/* SPDX-License-Identifier: GPL-3.0-or-later */
/* live_serve.h: the qctl commands' side of the live servers: the command
 * owns the event loops, the threads and the signals, the library only
 * serves on them (live.h, "the proxy on a host's loop"). One lifecycle
 * for every live server (proxy, gate, backend, control): N workers, the
 * lead on the main thread's loop with the signal handles, the others
 * each on a loop and thread of their own. SIGTERM or SIGINT drains within
 * the drain timeout; a second signal cuts the drain at once. */
#ifndef QCTL_APP_LIVE_SERVE_H
#define QCTL_APP_LIVE_SERVE_H

#include "live/live.h"

/* The command's signal handles on its main loop: SIGTERM and SIGINT call
 * stop (each time: the first drains, a later one cuts the drain), SIGHUP
 * reload and SIGUSR1 reopen where given (NULL: that signal is left as it
 * is); each handle's data is arg. The handles stay open until
 * cli_signals_close, so that a second signal finds them while a drain
 * runs. */
typedef struct cli_signals {
    uv_signal_t h[4];
    unsigned n; /* handles open */
} cli_signals;

void cli_signals_start(cli_signals *s, uv_loop_t *loop, uv_signal_cb stop, uv_signal_cb reload,
                       uv_signal_cb reopen, void *arg);
void cli_signals_close(cli_signals *s);

/* What a live server is to the group: h is its handle (a qc_proxy, a
 * qc_gate, ...), ctx the command's. */
typedef struct cli_group_ops {
    /* Starts worker index on loop (one after the other, 0 first, each on
     * its own thread but the lead): 0 and *h, or an error. */
    int (*start)(void *ctx, uv_loop_t *loop, unsigned index, void **h, qc_err *err);
    /* Once every worker started (NULL: nothing): an error stops them. */
    int (*started)(void *ctx, qc_err *err);
    /* Closes h (after its drain), cli_group_closed(w) once it is closed.
     * With ends_itself, called right after the start: the server ends on
     * its own (a --duration of the library's), drain only asks it to. */
    void (*close)(void *h, void *w);
    int ends_itself;
    /* Drains h within timeout seconds (0: cut what is left at once);
     * NULL: a signal closes at once, a second does nothing more. */
    void (*drain)(void *h, double timeout);
    /* The running configuration's drain timeout, read from the lead at
     * its start and as a signal comes (as reloaded). NULL: 0. */
    double (*drain_timeout)(void *h);
    /* At close, what the worker's end counts (requests cut, writes
     * failed), summed over the workers into cli_group_run's *cut. */
    unsigned (*cut)(void *h);
    /* A second signal, on the lead's loop (h NULL once it closed). */
    void (*second)(void *h, unsigned workers);
    /* SIGHUP and SIGUSR1 on the lead's handle while it runs undrained
     * (NULL: the signal left as it is). */
    void (*reload)(void *h);
    void (*reopen)(void *h);
} cli_group_ops;

/* Runs `workers` workers (at least 1) until a signal, or duration
 * seconds (0: none), has drained and closed them; *cut the sum of their
 * ops->cut. 0, or the first start's error. */
int cli_group_run(const cli_group_ops *ops, void *ctx, unsigned workers, double duration,
                  unsigned *cut, qc_err *err);

/* The end of a worker's handle, from ops->close's callback. */
void cli_group_closed(void *w);

/* The process as a live server wants it: SIGPIPE ignored (a peer gone
 * mid-write is not fatal) and, with files, the open-file limit raised to
 * its hard limit (a connection is a file). */
void cli_live_process(int files);

/* A live command's flags parsed into pc (its defaults first):
 * 0, or CLI_DONE_HELP/CLI_DONE_CHECK, or an exit status after a message.
 * A reload comes here again with the same command line (reload 1: no
 * usage). */
typedef int (*cli_reparse_fn)(void *pc, int argc, char **argv, int reload);

/* The same command line parsed again into n (a reload), its messages
 * captured into err: 0, or QC_EINVAL with the message. */
int cli_reparse(cli_reparse_fn parse, void *n, int argc, char **argv, qc_err *err);

/* A copy of argv[0..argc] (getopt reorders the one it parses). */
char **cli_argv_copy(int argc, char **argv);

/* The names of the first n controllers (qc_ctlloop_kind_name) and of the
 * anti-windup modes (qc_antiwindup_name), comma-joined: the words of a
 * CLI_CHOICE flag, in the order of the library's values. */
const char *cli_ctlloop_words(unsigned n);
const char *cli_antiwindup_words(void);

/* --excite-levels A,B into lv: two finite numbers, the limits of a gate
 * (limits: both >= 0) or the settings of a controller; else a message
 * and QC_EXIT_USAGE. */
int cli_excite_levels(const char *s, double lv[2], int limits);

/* A live server's event line on stderr (cli_log_line), its info lines
 * left out with quiet. */
void cli_live_log(const char *program, int json, int quiet, int level, const char *line);

/* A reload's configuration: size bytes, the running command line parsed
 * again into it (cli_reparse); NULL with err set, what the parse made
 * freed by drop. */
void *cli_reparse_new(cli_reparse_fn parse, size_t size, void (*drop)(void *), int argc,
                      char **argv, qc_err *err);

#endif
