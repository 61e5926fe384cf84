/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_cmd.h: `qctl proxy` between its flags (cli/proxy_cli.c) and the
 * library's proxy: the parsed flags, their one check (the table's
 * --check calls it, and so does the run: proxy_cmd.c) and the run with
 * its reloads on the command's loops (proxy_run.c). */
#ifndef QCTL_APP_PROXY_CMD_H
#define QCTL_APP_PROXY_CMD_H

#include <stdint.h>

#include "cmdline.h"
#include "flags.h"
#include "live/accesslog.h"
#include "live/live.h"
#include "live_serve.h"

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
    unsigned workers; /* --workers (0: the usable CPUs, proxy_serve) */
    int reloading; /* a reload: the running proxy holds the ports, no dry-run bind */
} proxy_cli;

/* --quiet: the proxy's info lines (start, reloads) left out, its
 * warnings and errors kept (one process, one setting). */
extern int proxy_quiet;

/* The proxy's event lines on stderr, as --log-format (proxy_log_json:
 * the running configuration's) says. */
extern int proxy_log_json;
void proxy_log(void *ctx, int level, const char *line);

/* The defaults of *pc before its flags are read (reload: a re-read of
 * the running proxy's command line). */
void proxy_defaults(proxy_cli *pc, int reload);

/* Every check the proxy makes before it starts (the table's --check). */
int proxy_validate(void *ctx);

/* Frees what proxy_validate and the parse made of pc, and pc. */
void proxy_cli_free(void *pc);

/* `qctl proxy`: parse, then the proxy on the command's loops until a
 * signal has drained it; reloads parse the same command line again. */
/* parse: proxy_cli's (cli_reparse_fn). */
int proxy_main(int argc, char **argv, cli_reparse_fn parse);

#endif
