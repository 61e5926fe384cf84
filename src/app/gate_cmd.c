/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gate_cmd.c: what `qctl gate` does once its flags are read (gate_cmd.h):
 * their check, and the gates on the command's loops, threads and signals
 * (live_serve.h: the library changes nothing process-wide), re-reading
 * the command line on SIGHUP. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gate_cmd.h"

/* Every check the gate makes before it starts: the run and --check both
 * come here, so --check refuses what the run refuses with the same
 * message. */
int gate_validate(void *ctx)
{
    gate_cli *g = ctx;
    qc_gate_params *o = &g->o;
    o->aw = (qc_antiwindup)g->aw;
    o->buffer = (size_t)g->buffer;
    if (g->levels && cli_excite_levels(g->levels, o->levels, 1) != 0)
        return QC_EXIT_USAGE;
    qc_err err = {0};
    if (g->reference) {
        if (o->controller != QC_GATE_INTEGRAL && o->controller != QC_GATE_PI) {
            cli_error("--reference: only with --controller integral or pi");
            return QC_EXIT_USAGE;
        }
        if (qc_sched_parse(g->reference, o->ref, QC_GATE_REF_MAX, &o->nref, &err) != 0) {
            cli_error("--reference: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    int r = g->reloading ? qc_gate_check(o, &err) : qc_gate_params_check(o, &err);
    if (r != 0) { /* a refused bind is a failure to start (1), the rest usage (2) */
        cli_error("gate: %s", err.msg);
        return r == QC_EIO ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

/* The gate's event lines (reloads), on stderr. */
static int gate_log_json; /* --log-format json: one process, one format */

/* --quiet: the gate's info lines left out, warnings and errors kept. */
int gate_quiet;

static void gate_log(void *ctx, int level, const char *line)
{
    (void)ctx;
    cli_live_log("qctl gate", gate_log_json, gate_quiet, level, line);
}

void gate_defaults(gate_cli *g, int reload)
{
    memset(g, 0, sizeof *g);
    g->reloading = reload;
    qc_gate_params_init(&g->o);
    g->o.log = gate_log;
    g->buffer = (double)g->o.buffer;
    g->aw = (int)g->o.aw;
}

/* The running configuration and how it was given, for a reload. */
typedef struct gate_run {
    int argc;
    char **argv; /* the command line as given (getopt reorders a copy) */
    cli_reparse_fn parse;
    gate_cli *cur;
    gate_cli *first; /* kept to the end: the sensor, built once, points into its strings */
    qc_gate_group *grp;
} gate_run;

static void gate_cli_free(void *p)
{
    gate_cli *g = p;
    if (!g)
        return;
    cli_flags_config_release(g->words);
    free(g);
}

static int gate_reread(void *ctx, const struct qc_gate_params **next, qc_err *err);
static void gate_reread_done(void *ctx, const struct qc_gate_params *next, int taken);

static void gate_hooks(gate_run *R, gate_cli *g)
{
    g->o.reload = gate_reread;
    g->o.reload_done = gate_reread_done;
    g->o.reload_ctx = R;
}

/* SIGHUP: the same command line again, --config read anew; a message
 * refusing it goes back to the gate, which logs it. */
static int gate_reread(void *ctx, const struct qc_gate_params **next, qc_err *err)
{
    gate_run *R = ctx;
    gate_cli *n = cli_reparse_new(R->parse, sizeof *n, gate_cli_free, R->argc, R->argv, err);
    if (!n)
        return err->code;
    gate_hooks(R, n);
    *next = &n->o;
    return 0;
}

static void gate_reread_done(void *ctx, const struct qc_gate_params *next, int taken)
{
    gate_run *R = ctx;
    gate_cli *n = (gate_cli *)(void *)next; /* o is its first field */
    if (!taken) {
        gate_cli_free(n);
        return;
    }
    if (R->cur != R->first)
        gate_cli_free(R->cur);
    R->cur = n;
    gate_log_json = n->log_json;
}

/* ---- the gate as a worker of the group (live_serve.h) ---- */

static int w_start(void *ctx, uv_loop_t *loop, unsigned index, void **h, qc_err *err)
{
    gate_run *R = ctx;
    return qc_gate_group_start(loop, R->grp, index, (qc_gate **)h, err);
}

static void w_closed(qc_gate *g, void *w)
{
    (void)g;
    cli_group_closed(w);
}

static void w_close(void *h, void *w) { qc_gate_close(h, w_closed, w); }

static void w_drain(void *h, double timeout) { qc_gate_drain(h, timeout); }

static double w_drain_timeout(void *h) { return qc_gate_params_get(h)->drain_timeout; }

/* SIGHUP: read again by the lead, which hands the session bounds to the
 * others (and logs a refusal itself). */
static void w_reload(void *h) { qc_gate_reload_request(h, "SIGHUP"); }

static const cli_group_ops gate_ops = {.start = w_start, .close = w_close, .drain = w_drain,
                                       .drain_timeout = w_drain_timeout, .reload = w_reload};

static int gate_serve(gate_run *R, const qc_gate_params *o, unsigned workers, qc_err *err)
{
    if (workers == 0)
        workers = uv_available_parallelism();
    int rc = qc_gate_group_alloc(o, workers, &R->grp, err);
    if (rc != 0)
        return rc;
    unsigned cut;
    rc = cli_group_run(&gate_ops, R, workers, o->duration, &cut, err);
    qc_gate_group_free(R->grp);
    return rc;
}

int gate_main(int argc, char **argv, cli_reparse_fn parse)
{
    gate_run R = {.argc = argc, .argv = cli_argv_copy(argc, argv), .parse = parse};
    gate_cli *gp = malloc(sizeof *gp);
    if (!R.argv || !gp) {
        free(R.argv);
        free(gp);
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    R.cur = R.first = gp;
    int rc = parse(gp, argc, argv, 0);
    if (rc == 0) {
        gate_hooks(&R, gp);
        gate_log_json = gp->log_json;
        cli_live_process(1); /* a session is two files */
        qc_err err = {0};
        if ((rc = gate_serve(&R, &gp->o, gp->workers, &err)) != 0) {
            cli_error("gate: %s", err.msg);
            rc = cli_exit_code(rc);
        }
    }
    if (R.cur != R.first)
        gate_cli_free(R.cur);
    gate_cli_free(R.first);
    free(R.argv);
    return rc < 0 ? 0 : rc; /* --help, --check: done */
}
