/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simproxy_cmd.c: what `qctl sim proxy` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simproxy_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simproxy_cmd.h"



/* ---- flags ------------------------------------------------------------------ */

/* Splits "NAME=VALUE" at its first '='; the class index of NAME, or -1
 * after a message. */
static int class_value(psim_cli *q, const char *flag, const char *s, const char **value)
{
    const char *eq = strchr(s, '=');
    if (eq == NULL || eq == s || eq[1] == '\0') {
        cli_error("%s: '%s' is not NAME=VALUE", flag, s);
        return -1;
    }
    for (unsigned k = 0; k < q->p.nclasses; k++)
        if (strlen(q->names[k]) == (size_t)(eq - s) && strncmp(q->names[k], s, (size_t)(eq - s)) == 0) {
            *value = eq + 1;
            return (int)k;
        }
    cli_error("%s: '%.*s' is no class named by --class", flag, (int)(eq - s), s);
    return -1;
}

static int parse_classes(psim_cli *q)
{
    qc_psim_params *p = &q->p;
    if (q->classes.n == 0) {
        if (q->c_arr.n || q->c_users.n || q->c_think.n || q->c_svc.n ||
            q->candidates.n) {
            cli_error("sim proxy: --class-* and --candidate need --class NAME=BOUND");
            return QC_EXIT_USAGE;
        }
        p->nclasses = 1;
        snprintf(q->names[0], sizeof q->names[0], "all");
        q->arr_spec[0] = q->arrival;
        p->cls[0].users = q->users;
        q->think_spec[0] = q->think;
        return 0;
    }
    if (q->arrival || q->users || q->think) {
        cli_error("sim proxy: with --class, give each class's clients by --class-arrival or "
                  "--class-users (not --arrival, --users, --think)");
        return QC_EXIT_USAGE;
    }
    p->nclasses = q->classes.n;
    for (unsigned k = 0; k < q->classes.n; k++) {
        const char *s = q->classes.v[k], *eq = strchr(s, '=');
        if (eq == NULL || eq == s || (size_t)(eq - s) >= sizeof q->names[k]) {
            cli_error("--class: '%s' is not NAME=BOUND", s);
            return QC_EXIT_USAGE;
        }
        snprintf(q->names[k], sizeof q->names[k], "%.*s", (int)(eq - s), s);
        for (unsigned j = 0; j < k; j++)
            if (strcmp(q->names[j], q->names[k]) == 0) {
                cli_error("--class: '%s' is named twice", q->names[k]);
                return QC_EXIT_USAGE;
            }
        if (cli_double("--class", eq + 1, &p->cls[k].bound) != 0)
            return QC_EXIT_USAGE;
        if (!(p->cls[k].bound >= 0)) {
            cli_error("--class: bound '%s' must be >= 0", eq + 1);
            return QC_EXIT_USAGE;
        }
    }
    const char *v;
    int k;
    for (unsigned i = 0; i < q->c_arr.n; i++) {
        if ((k = class_value(q, "--class-arrival", q->c_arr.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->arr_spec[k] = v;
    }
    for (unsigned i = 0; i < q->c_users.n; i++) {
        if ((k = class_value(q, "--class-users", q->c_users.v[i], &v)) < 0 ||
            cli_uint("--class-users", v, &p->cls[k].users) != 0)
            return QC_EXIT_USAGE;
    }
    for (unsigned i = 0; i < q->c_think.n; i++) {
        if ((k = class_value(q, "--class-think", q->c_think.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->think_spec[k] = v;
    }
    for (unsigned i = 0; i < q->c_svc.n; i++) {
        if ((k = class_value(q, "--class-service", q->c_svc.v[i], &v)) < 0)
            return QC_EXIT_USAGE;
        q->svc_spec[k] = v;
    }
    for (unsigned i = 0; i < q->candidates.n; i++) {
        unsigned j;
        for (j = 0; j < p->nclasses; j++)
            if (strcmp(q->names[j], q->candidates.v[i]) == 0)
                break;
        if (j == p->nclasses) {
            cli_error("--candidate: '%s' is no class named by --class", q->candidates.v[i]);
            return QC_EXIT_USAGE;
        }
        p->cls[j].candidate = 1;
    }
    return 0;
}

static int parse_clients(psim_cli *q)
{
    qc_psim_params *p = &q->p;
    qc_err err = {0};
    for (unsigned k = 0; k < p->nclasses; k++) {
        qc_psim_class *c = &p->cls[k];
        c->name = q->names[k];
        int open = q->arr_spec[k] != NULL, closed = c->users > 0;
        if (open == closed) {
            if (q->classes.n == 0)
                cli_error("sim proxy: give --arrival SPEC (open loop) or --users N (closed "
                          "loop), one of them");
            else
                cli_error("sim proxy: class %s: give --class-arrival %s=SPEC or --class-users "
                          "%s=N, one of them",
                          c->name, c->name, c->name);
            return QC_EXIT_USAGE;
        }
        if (open) {
            if (qc_arrivals_parse(&q->arr[k], q->arr_spec[k], &err) != 0) {
                cli_error("%s: %s", q->classes.n ? "--class-arrival" : "--arrival", err.msg);
                return QC_EXIT_USAGE;
            }
            c->arrival = &q->arr[k];
        }
        if (q->think_spec[k]) {
            if (!closed) {
                cli_error("%s: a think time needs users (closed loop)",
                          q->classes.n ? "--class-think" : "--think");
                return QC_EXIT_USAGE;
            }
            if (qc_dist_parse(&q->thk[k], q->think_spec[k], &err) != 0) {
                cli_error("%s: %s", q->classes.n ? "--class-think" : "--think", err.msg);
                return QC_EXIT_USAGE;
            }
            c->think = &q->thk[k];
        }
        if (q->svc_spec[k]) {
            if (qc_dist_parse(&q->csvc[k], q->svc_spec[k], &err) != 0) {
                cli_error("--class-service: %s", err.msg);
                return QC_EXIT_USAGE;
            }
            c->service = &q->csvc[k];
        }
    }
    return 0;
}

int psim_validate(void *ctx)
{
    psim_cli *q = ctx;
    qc_psim_params *p = &q->p;
    qc_err err = {0};
    int rc;
    if ((rc = parse_classes(q)) != 0)
        return rc;
    if (strcmp(q->limiter, "none") == 0) {
        p->control = 0;
    } else {
        qc_limiter_algo a;
        if (qc_limiter_algo_parse(q->limiter, &a, &err) != 0) {
            cli_error("--limiter: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        p->control = 1;
        qc_limiter_params_init(&p->limiter, a);
    }
    qc_limiter_params *l = &p->limiter;
    if (!isnan(q->limit))
        l->initial_limit = q->limit;
    if (!isnan(q->minl))
        l->min_limit = q->minl;
    if (!isnan(q->maxl))
        l->max_limit = q->maxl;
    if (!isnan(q->ref))
        l->reference = q->ref;
    if (!isnan(q->gain))
        l->ki = q->gain;
    if (!isnan(q->backoff))
        l->aimd_backoff = q->backoff;
    if (!isnan(q->timeout))
        l->aimd_timeout = q->timeout;
    int admission = p->control && l->algo == QC_LIMITER_ADMISSION;
    if (admission) {
        if (!isnan(q->eps))
            l->adm_epsilon = q->eps;
        if (!isnan(q->alpha))
            l->adm_alpha = q->alpha;
        if (q->minc)
            l->adm_min_completions = q->minc;
        if (q->classes.n == 0) {
            cli_error("sim proxy: --limiter admission needs at least one --class NAME=BOUND");
            return QC_EXIT_USAGE;
        }
    } else if (!isnan(q->eps) || !isnan(q->alpha) || q->minc || q->candidates.n) {
        cli_error("sim proxy: --epsilon, --alpha, --min-completions and --candidate need "
                  "--limiter admission");
        return QC_EXIT_USAGE;
    }
    if (q->route && qc_psim_route_parse(q->route, &p->route, &err) != 0) {
        cli_error("--route: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (q->discipline && qc_psim_discipline_parse(q->discipline, &p->discipline, &err) != 0) {
        cli_error("--queue-discipline: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    if (qc_dist_parse(&q->svc, q->service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->service = &q->svc;
    if (q->overhead) {
        if (qc_dist_parse(&q->over, q->overhead, &err) != 0) {
            cli_error("--overhead: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        p->overhead = &q->over;
    }
    if (q->transit) {
        if (qc_dist_parse(&q->trans, q->transit, &err) != 0) {
            cli_error("--transit: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        p->transit = &q->trans;
    }
    if ((rc = parse_clients(q)) != 0)
        return rc;
    if (q->out.series || q->out.plot || q->out.report)
        p->series_dt = q->series_dt > 0 ? q->series_dt : p->interval;
    /* the limiter's own checks (limits, gains, bounds), before the run */
    if (p->control) {
        qc_limiter_params lc = *l;
        lc.classes = p->nclasses;
        if (admission)
            for (unsigned k = 0; k < p->nclasses; k++) {
                lc.bound[k] = p->cls[k].bound;
                if (p->cls[k].candidate)
                    lc.adm_candidates |= 1u << k;
            }
        qc_limiter *lim = qc_limiter_alloc(&lc, 0, &err);
        if (lim == NULL) {
            cli_error("sim proxy: limiter: %s", err.msg);
            return QC_EXIT_USAGE;
        }
        qc_limiter_free(lim);
    }
    q->route = qc_psim_route_name(p->route);
    q->discipline = qc_psim_discipline_name(p->discipline);
    /* the run's own checks, so that --check answers what the start would */
    int crc = qc_psim_params_check(p, &err);
    if (crc != 0) {
        cli_error("sim proxy: %s", err.msg);
        return cli_exit_code(crc);
    }
    return 0;
}

/* ---- output ------------------------------------------------------------------ */
typedef struct psim_out {
    const psim_cli *q;
    const qc_psim_params *p; /* the run's (q->p with its hooks) */
    const qc_psim_result *r;
} psim_out;

static void psim_table(const void *ctx)
{
    const psim_out *o = ctx;
    qc_app_psim_table(o->p, o->q->service, o->r);
}

static void psim_series(FILE *fp, const void *ctx)
{
    qc_app_psim_series_rows(fp, ((const psim_out *)ctx)->r);
}

static int psim_plots(cli_plots *pl, const void *ctx)
{
    int rc = cli_plots_data(pl, "proxy_series.csv", psim_series, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "limit",
                            "set datafile separator ','\nset key below horizontal\n"
                            "set xlabel 'time (s)'\nset ylabel 'requests'\n"
                            "plot '%s' using 1:2 every ::1 with lines lw 2 title 'limit', "
                            "'' using 1:3 every ::1 with lines title 'in flight', "
                            "'' using 1:4 every ::1 with lines title 'waiting'",
                            pl->path);
    return rc;
}

int psim_run(void *ctx, int argc, char **argv)
{
    psim_cli *q = ctx;
    static const char *const names[] = {"limit"};
    qc_psim_params p = q->p;
    qc_psim_result r;
    cli_run run;
    cli_run_begin(&run, "sim proxy", NULL, q->quiet, &p.progress, &p.progress_ctx);
    cli_run_cancellable(&run, &p.cancel);
    int rc = cli_run_end(&run, qc_psim_run(&p, &r, &run.err));
    if (rc != 0)
        return rc;
    const psim_out out = {q, &q->p, &r};
    json_t *js = qc_app_psim_json(&q->p, q->service, q->overhead, q->transit, &r, run.elapsed);
    cli_result res = {js, &out, psim_table, NULL, psim_series, psim_plots, names, 1};
    rc = cli_result_write(&q->out, &res, argc, argv);
    qc_psim_result_free(&r);
    return rc;
}

