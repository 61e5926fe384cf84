/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control_cmd.c: what `qctl control` does once its flags are read
 * (control_cmd.h): their check, the controller on the command's loop
 * and signals, and the re-read of --config on SIGHUP (the same table
 * parsed again). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_cmd.h"
#include "qctl/arx_json.h"

/* --model FILE.json (`qctl sysid -o`): the plant's static gain, and its
 * 95% interval when the file has the fit's (fit.dc_gain.ci95). */
static int model_gain(const char *path, qc_control_params *o)
{
    qc_arx_system sys;
    qc_err err = {0};
    if (qc_arx_system_read(path, &sys, &err) != 0) {
        cli_error("--model: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    o->gain = qc_arx_dc_gain(&sys.plant);
    o->gain_lo = o->gain_hi = NAN;
    o->gain_from = path;
    json_t *j = json_load_file(path, 0, NULL); /* read once already: it parses */
    json_t *ci = json_object_get(json_object_get(json_object_get(j, "fit"), "dc_gain"), "ci95");
    if (json_is_array(ci) && json_array_size(ci) == 2 &&
        json_is_number(json_array_get(ci, 0)) && json_is_number(json_array_get(ci, 1))) {
        o->gain_lo = json_number_value(json_array_get(ci, 0));
        o->gain_hi = json_number_value(json_array_get(ci, 1));
    }
    json_decref(j);
    return 0;
}

int control_validate(void *ctx)
{
    control_cli *c = ctx;
    qc_control_params *o = &c->o;
    o->loop.kind = (qc_ctlloop_kind)c->controller;
    o->loop.aw = (qc_antiwindup)c->aw;
    o->loop.steps = c->excite == 1;
    o->sensor.remote = c->sensor;
    qc_err err = {0};
    if (c->levels && cli_excite_levels(c->levels, o->loop.levels, 0) != 0)
        return QC_EXIT_USAGE;
    if (c->reference) {
        if (o->loop.kind != QC_CTLLOOP_INTEGRAL && o->loop.kind != QC_CTLLOOP_PI) {
            cli_error("--reference: only with --controller integral or pi");
            return QC_EXIT_USAGE;
        }
        if (qc_sched_parse(c->reference, o->loop.ref, QC_CTLLOOP_REF_MAX, &o->loop.nref, &err) !=
            0) {
            cli_error("--reference: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    if (c->gain_sign && !c->model) {
        cli_error("--gain-sign: only with --model (the identified gain it is checked against)");
        return QC_EXIT_USAGE;
    }
    o->gain_sign = c->gain_sign == 1 ? 1 : c->gain_sign == 2 ? -1 : 0;
    if (c->model && model_gain(c->model, o) != 0)
        return QC_EXIT_USAGE;
    if (c->levels && o->loop.kind != QC_CTLLOOP_OPEN) {
        cli_error("--excite-levels: only with --controller open");
        return QC_EXIT_USAGE;
    }
    int r = qc_control_params_check(o, &err);
    if (r != 0) { /* a refused bind is a failure to start (1), the rest usage (2) */
        cli_error("control: %s", err.msg);
        return r == QC_EIO ? QC_EXIT_FAIL : QC_EXIT_USAGE;
    }
    return 0;
}

void control_defaults(control_cli *c)
{
    memset(c, 0, sizeof *c);
    qc_control_params_init(&c->o);
    c->controller = QC_CTLLOOP_STATIC;
    c->aw = QC_AW_CONDITIONAL;
}

/* Parses a copy of argv (getopt reorders it) into c, and keeps the
 * --config words its strings point into with it: the next parse (a
 * reload) would free them otherwise. */
static int control_parse_held(cli_reparse_fn parse, control_cli *c, int argc, char **argv)
{
    char **av = cli_argv_copy(argc, argv);
    if (!av) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    int rc = parse(c, argc, av, 0);
    free(av); /* the strings stay: they are argv's own, or the file's detached words */
    if (rc == 0)
        c->words = cli_flags_config_detach();
    return rc;
}

/* The words of the configurations read: the first (the running sensor's
 * and actuator's strings point into it for the whole run), the one a
 * reload took last, and the one before it, released only at the next
 * reload (as the proxy's command keeps its previous configuration) so
 * that nothing the running configuration may still point into is freed. */
typedef struct control_run {
    cli_reparse_fn parse;
    control_cli *first;
    void *cur, *prev;
} control_run;

/* SIGHUP: the same command line again, --config read anew. */
static int control_reload(void *ctx, qc_control_params *fresh, qc_err *err)
{
    control_run *R = ctx;
    control_cli *c = R->first;
    control_cli *n = malloc(sizeof *n);
    if (!n)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    control_defaults(n);
    n->argc = c->argc;
    n->argv = c->argv;
    int rc = control_parse_held(R->parse, n, c->argc, c->argv); /* validates too (the check row) */
    if (rc != 0) {
        free(n);
        return qc_err_set(err, QC_EINVAL, rc == CLI_DONE_HELP || rc == CLI_DONE_CHECK
                                              ? "--check or --help has no meaning on a reload"
                                              : "see the message above");
    }
    *fresh = n->o;
    cli_flags_config_release(R->prev);
    R->prev = R->cur;
    R->cur = n->words;
    free(n);
    return 0;
}

/* ---- the controller as the group's one worker (live_serve.h): it
 * ends by itself after --duration; SIGTERM, SIGINT drain it (the apply
 * under way finishes, then --final), SIGHUP reloads ---- */

static int w_start(void *ctx, uv_loop_t *loop, unsigned index, void **h, qc_err *err)
{
    (void)index;
    return qc_control_start(loop, ctx, (qc_control **)h, err);
}

static void w_closed(qc_control *C, void *w)
{
    (void)C;
    cli_group_closed(w);
}

static void w_close(void *h, void *w) { qc_control_close(h, w_closed, w); }

static void w_drain(void *h, double timeout)
{
    (void)timeout; /* the controller's own --drain-timeout */
    qc_control_drain(h);
}

/* the series' writes failed (at close) */
static unsigned w_failed(void *h)
{
    qc_control_status st;
    qc_control_status_get(h, &st);
    return (unsigned)st.series_failed;
}

static void w_reload(void *h) { (void)qc_control_reload(h); /* a refusal is logged and counted */ }

static const cli_group_ops control_ops = {.start = w_start, .close = w_close, .ends_itself = 1,
                                          .drain = w_drain, .cut = w_failed, .reload = w_reload};

int control_main(int argc, char **argv, cli_reparse_fn parse)
{
    static control_cli c; /* the reload reads argv and the strings for the whole run */
    control_run R = {.parse = parse, .first = &c};
    control_defaults(&c);
    c.argc = argc;
    c.argv = argv;
    int rc = control_parse_held(parse, &c, argc, argv);
    if (rc != 0)
        return rc == CLI_DONE_HELP || rc == CLI_DONE_CHECK ? 0 : rc;
    c.o.reload = control_reload;
    c.o.reload_ctx = &R;
    cli_live_process(0);
    qc_err err = {0};
    unsigned failed = 0;
    rc = cli_group_run(&control_ops, &c.o, 1, 0, &failed, &err);
    if (rc == 0 && failed)
        rc = qc_err_set(&err, QC_EIO, "--series: %s: write failed", c.o.series);
    cli_flags_config_release(R.cur);
    cli_flags_config_release(R.prev);
    cli_flags_config_release(c.words);
    c.words = NULL;
    if (rc != 0) {
        cli_error("control: %s", err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}
