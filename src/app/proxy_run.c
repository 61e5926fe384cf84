/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_run.c: `qctl proxy`'s run (proxy_cmd.h): the proxy group on the
 * command's workers (live_serve.h), and its reloads: SIGHUP or POST
 * /reload parses the same command line again, --config read anew. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "proxy_cmd.h"

/* The running configuration and how it was given, for a reload. */
typedef struct proxy_run {
    int argc;
    char **argv; /* the command line as given (getopt reorders a copy) */
    cli_reparse_fn parse;
    proxy_cli *cur, *prev;
    qc_proxy_group *g;
} proxy_run;

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
    proxy_cli *n = cli_reparse_new(R->parse, sizeof *n, proxy_cli_free, R->argc, R->argv, err);
    if (!n)
        return err->code;
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

/* ---- the proxy as a worker of the group (live_serve.h) ---- */

static int w_start(void *ctx, uv_loop_t *loop, unsigned index, void **h, qc_err *err)
{
    proxy_run *R = ctx;
    return qc_proxy_group_start(loop, R->g, index, (qc_proxy **)h, err);
}

static void w_closed(qc_proxy *p, void *w)
{
    (void)p;
    cli_group_closed(w);
}

static void w_close(void *h, void *w) { qc_proxy_close(h, w_closed, w); }

static void w_drain(void *h, double timeout) { qc_proxy_drain(h, timeout); }

static double w_drain_timeout(void *h) { return qc_proxy_params_get(h)->drain_timeout; }

static unsigned w_cut(void *h)
{
    qc_proxy_status st;
    qc_proxy_status_get(h, &st);
    return st.cut;
}

static unsigned w_inflight(void *h)
{
    qc_proxy_status st;
    if (!h)
        return 0;
    qc_proxy_status_get(h, &st);
    return st.inflight;
}

static void w_second(void *h, unsigned workers)
{
    char line[96];
    snprintf(line, sizeof line, "second signal: stopping with %u requests in flight%s",
             w_inflight(h), workers > 1 ? " (the lead's)" : "");
    proxy_log(NULL, QC_LOG_WARN, line);
}

/* qc_proxy_reload_request logs a refusal itself */
static void w_reload(void *h)
{
    qc_err err = {0};
    qc_proxy_reload_request(h, "SIGHUP", &err);
}

static void w_reopen(void *h) { qc_proxy_reopen_logs(h); }

static const cli_group_ops proxy_ops = {
    .start = w_start, .close = w_close, .drain = w_drain, .drain_timeout = w_drain_timeout,
    .cut = w_cut, .second = w_second, .reload = w_reload, .reopen = w_reopen};

/* Large request buffers (bodies read whole: megabytes each) are given
 * back to the system when freed. glibc raises its mmap threshold to the
 * size of the largest block freed (up to 32 MiB), after which 8 MiB bodies
 * come from the heaps of the worker threads, and a freed one stays
 * resident there (measured: 40 concurrent uploads of 8 MiB peaked 15 to
 * 25 MB higher than the buffers counted in --max-memory). A fixed
 * threshold keeps every block of 1 MiB or more mapped on its own. It is
 * the process's allocator, so the command sets it, not the library (a
 * host embedding the proxy chooses its own). */
static void large_blocks_mapped(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

/* The proxy of o on `workers` loops and threads sharing one front (0:
 * the usable CPUs, 1 with a fleet). QC_ECANCELED when the drain cut
 * requests in flight. */
static int proxy_serve(proxy_run *R, const qc_proxy_params *o, unsigned workers, qc_err *err)
{
    int fleet = o->fleet.route != QC_FLEET_JSQ || o->unpark_cmd || o->park_cmd;
    if (workers == 0) /* the usable CPUs, one with a fleet (one proxy's) */
        workers = fleet ? 1 : uv_available_parallelism();
    large_blocks_mapped();
    int rc = qc_proxy_group_alloc(o, workers, &R->g, err);
    if (rc != 0)
        return rc;
    unsigned cut = 0;
    rc = cli_group_run(&proxy_ops, R, workers, 0, &cut, err);
    qc_proxy_group_free(R->g);
    if (rc == 0 && cut) /* the drain did not end by itself: say so in the exit status */
        rc = qc_err_set(err, QC_ECANCELED, "the drain cut %u requests in flight", cut);
    return rc;
}

int proxy_main(int argc, char **argv, cli_reparse_fn parse)
{
    proxy_run R = {.argc = argc, .argv = cli_argv_copy(argc, argv), .parse = parse};
    proxy_cli *pc = malloc(sizeof *pc);
    if (!R.argv || !pc) {
        free(R.argv);
        free(pc);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    int rc = parse(pc, argc, argv, 0);
    R.cur = pc;
    if (rc == 0) {
        proxy_hooks(&R, pc);
        proxy_log_json = pc->log_json;
        cli_live_process(1);
        qc_err err = {0};
        int r = proxy_serve(&R, &pc->o, pc->workers, &err);
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
