/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simadm_cmd.c: what `qctl sim admission` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simadm_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simadm_cmd.h"

/* The scenario (qc_mc_scenario, read by the library) and the file it
 * came from, which the outputs name. */

void scenario_free(scenario *s)
{
    qc_mc_scenario_free(&s->m);
}

static int scenario_load(scenario *s, const char *path)
{
    qc_err err = {0};
    s->path = path;
    if (qc_mc_scenario_load(&s->m, path, &err) != 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}

/* ---- series and plots ---------------------------------------------------------- */

/* What the outputs are made of: the results of npol policies. */
typedef struct adm_out {
    qc_mc_run_params p; /* the first policy's */
    const scenario *s;
    qc_mc_run_result r[7];
    const qc_mc_policy *pols;
    unsigned npol;
    qc_app_support sup; /* whether the run supports its intervals */
} adm_out;

static void adm_table(const void *ctx)
{
    const adm_out *q = ctx;
    if (q->npol == 1)
        qc_app_adm_table_one(&q->p, q->s, &q->r[0], &q->sup);
    else
        qc_app_adm_table(&q->p, q->s, q->r, q->pols, q->npol, &q->sup);
}

/* One policy's plots: each bounded class's delay samples, bound, target
 * and priority; every class's weight. */
static void series_rows(FILE *fp, const void *ctx)
{
    const adm_out *q = ctx;
    qc_app_adm_series_rows(fp, q->s, q->r);
}

static int adm_plots(cli_plots *pl, const void *ctx)
{
    const qc_mc_run_params *p = &((const adm_out *)ctx)->p;
    const scenario *s = ((const adm_out *)ctx)->s;
    int rc = cli_plots_data(pl, "admission.csv", series_rows, ctx);
    /* columns: 1 time, then 5 per class: delay, bound, priority, weight, state */
    for (unsigned k = 0; k < s->m.n && rc == 0; k++) {
        const qc_mc_run_class *c = &s->m.cls[k];
        if (c->c.best_effort)
            continue;
        unsigned col = 2 + 5 * k;
        char name[96];
        snprintf(name, sizeof name, "class_%s", c->c.name);
        rc = cli_plots_draw(
            pl, name,
            "set datafile separator ','\nset datafile missing ''\nset key below horizontal\n"
            "set xlabel 'time (s; end of busy cycle)'\nset ylabel 'mean delay of the sample (s)'\n"
            "set y2label 'priority'\nset logscale y2\nset y2tics\nset ytics nomirror\n"
            "set yrange [0:%g]\n"
            "set title '%s (%s, %s): delay samples, bound and target; priority'\n"
            "plot '%s' every ::1 using 1:%u with points pt 7 ps 0.25 lc rgb '#9ecae1' "
            "title 'delay sample', "
            "'' every ::1 using 1:%u with lines lw 2 lc rgb '#d62728' title 'bound D', "
            "'' every ::1 using 1:($%u*%.10g) with lines lw 1 dt 2 lc rgb '#ff7f0e' "
            "title 'target (1-eps) D', "
            "'' every ::1 using 1:%u axes x1y2 with steps lw 1.5 lc rgb '#2ca02c' "
            "title 'priority'",
            3 * c->bound, c->c.name, qc_app_adm_role(c), qc_mc_policy_name(p->policy), pl->path,
            col, col + 1, col + 1, 1 - p->adm.epsilon, col + 2);
    }
    if (rc != 0)
        return rc;
    size_t bn = 256;
    for (unsigned k = 0; k < s->m.n; k++)
        bn += strlen(pl->path) + strlen(s->m.cls[k].c.name) + 64;
    char *body = malloc(bn);
    if (body == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    size_t off = (size_t)snprintf(body, bn,
                                  "set datafile separator ','\nset datafile missing ''\n"
                                  "set key below horizontal\nset xlabel 'time (s)'\n"
                                  "set ylabel 'weight in the discipline'\nset logscale y\n"
                                  "plot ");
    for (unsigned k = 0; k < s->m.n; k++)
        off += (size_t)snprintf(body + off, bn - off,
                                "%s'%s' every ::1 using 1:%u with steps lw 1.5 title '%s'",
                                k ? ", " : "", pl->path, 2 + 5 * k + 3, s->m.cls[k].c.name);
    rc = cli_plots_draw(pl, "weights", "%s", body);
    free(body);
    return rc;
}

/* ---- the command ----------------------------------------------------------------- */

/* The flags' destinations, the scenario the validation loads (owned
 * here) and the policies to run. */

/* Every check before the run (the table's, then these); the values
 * taken from the scenario or defaulted are set back into the flags, for
 * --check. */
int adm_validate(void *ctx)
{
    adm_cli *q = ctx;
    qc_mc_run_params *p = &q->p;
    int rc;
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    if (!q->scen) {
        cli_error("sim admission: --scenario is required (see 'qctl sim admission --help')");
        return QC_EXIT_USAGE;
    }
    q->npol = 1;
    if (strcmp(q->pol, "all") == 0) {
        const qc_mc_policy *all = qc_mc_policies(&q->npol);
        memcpy(q->pols, all, q->npol * sizeof *all);
        if (q->out.series || q->out.plot) {
            cli_error("--policy all: --series and --plot need a single policy");
            return QC_EXIT_USAGE;
        }
    } else if (qc_mc_policy_parse(q->pol, &q->pols[0], NULL) != 0) {
        cli_error("--policy: '%s' is not autonomic, static, utilization, gradient2, vegas, "
                  "envoy, aimd or all", q->pol);
        return QC_EXIT_USAGE;
    }
    if (!isnan(q->eps) && q->eps < 0) {
        cli_error("--epsilon: %g is negative; it must be in [0, 1)", q->eps);
        return QC_EXIT_USAGE;
    }
    if (!isnan(q->eps) && !(q->eps < 1)) {
        cli_error("--epsilon: %g must be < 1", q->eps);
        return QC_EXIT_USAGE;
    }
    if (!isnan(q->alpha) && !(q->alpha > 0)) {
        cli_error("--alpha: %g must be > 0 (larger is a gentler slow start)", q->alpha);
        return QC_EXIT_USAGE;
    }
    if (p->reps < 1) {
        cli_error("--reps: must be >= 1");
        return QC_EXIT_USAGE;
    }
    if (p->min_completions < 1) {
        cli_error("--min-completions: must be >= 1");
        return QC_EXIT_USAGE;
    }
    if (scenario_load(&q->s, q->scen) != 0)
        return QC_EXIT_USAGE;
    const char *dname = q->disc ? q->disc : q->s.m.discipline ? q->s.m.discipline : "dps";
    if (qc_mc_discipline_parse(dname, &p->discipline, NULL) != 0) {
        cli_error("%s: '%s' is not dps, dps-job or weighted", q->disc ? "--discipline" : q->scen,
                  dname);
        return QC_EXIT_USAGE;
    }
    p->adm.epsilon = !isnan(q->eps) ? q->eps : !isnan(q->s.m.epsilon) ? q->s.m.epsilon : 0.1;
    p->adm.alpha = !isnan(q->alpha) ? q->alpha : !isnan(q->s.m.alpha) ? q->s.m.alpha : 20;
    p->horizon = !isnan(q->horizon) ? q->horizon : !isnan(q->s.m.time) ? q->s.m.time : 1e5;
    p->warmup = !isnan(q->warm) ? q->warm : !isnan(q->s.m.warmup) ? q->s.m.warmup : p->horizon / 10;
    p->window = !isnan(q->win) ? q->win : !isnan(q->s.m.window) ? q->s.m.window : (p->horizon - p->warmup) / 20;
    qc_mc_scenario_apply(&q->s.m, p);
    p->series = q->out.series != NULL || q->out.plot != NULL || (q->out.report != NULL && q->npol == 1);

    /* the effective values, for --check */
    q->disc = dname;
    q->eps = p->adm.epsilon;
    q->alpha = p->adm.alpha;
    q->horizon = p->horizon;
    q->warm = p->warmup;
    q->win = p->window;
    /* the run's own checks (each policy's), so that --check answers what
     * the start would */
    for (unsigned i = 0; i < q->npol; i++) {
        qc_mc_run_params one = *p;
        one.policy = q->pols[i];
        qc_err err = {0};
        if ((rc = qc_mc_run_params_check(&one, &err)) != 0) {
            cli_error("%s: %s", q->scen, err.msg);
            return cli_exit_code(rc);
        }
    }
    return 0;
}

int adm_run(void *ctx, int argc, char **argv)
{
    adm_cli *a = ctx;
    const scenario *sc = &a->s;
    /* the policies one after the other, on the same random numbers */
    adm_out j = {.p = a->p, .s = sc, .pols = a->pols, .npol = a->npol};
    cli_run run;
    cli_run_begin(&run, a->scen, "sim admission", a->quiet, NULL, NULL);
    cli_run_cancellable(&run, &j.p.cancel);
    int lrc = 0;
    for (unsigned i = 0; i < j.npol && lrc == 0; i++) {
        qc_mc_run_params q = j.p;
        q.policy = j.pols[i];
        q.progress = cli_progress_update;
        q.progress_ctx = &run.prog;
        lrc = qc_mc_run(&q, &j.r[i], &run.err);
    }
    int rc = cli_run_end(&run, lrc);
    /* the page of --report: the plots of one policy (none for several) */
    char(*names)[96] = malloc((sc->m.n + 1) * sizeof *names);
    const char **ptrs = malloc((sc->m.n + 1) * sizeof *ptrs);
    size_t n = 0;
    if (rc == 0 && (!names || !ptrs)) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    }
    for (unsigned k = 0; rc == 0 && j.npol == 1 && k <= sc->m.n; k++) {
        if (k == sc->m.n)
            snprintf(names[n], sizeof names[0], "weights");
        else if (!sc->m.cls[k].c.best_effort)
            snprintf(names[n], sizeof names[0], "class_%s", sc->m.cls[k].c.name);
        else
            continue;
        ptrs[n] = names[n];
        n++;
    }
    static char why[512];
    if (rc == 0)
        j.sup = (qc_app_support){
            qc_mc_run_support(&j.p, j.r, j.pols, j.npol, why, sizeof why), why,
            a->allow_short, 0, 1};
    json_t *sum = NULL;
    if (rc == 0) {
        j.p.policy = j.pols[0];
        sum = qc_app_adm_json(&j.p, sc, j.r, j.pols, j.npol, run.elapsed);
        json_object_set_new(sum, "interval_support", qc_app_support_json_run(&j.sup));
        qc_app_adm_mark_short(sum, &j.sup, 0);
    }
    if (rc == 0) {
        cli_result r = {sum,
                        &j,
                        adm_table,
                        NULL,
                        series_rows,
                        j.npol == 1 ? adm_plots : NULL,
                        ptrs,
                        n};
        rc = cli_result_write(&a->out, &r, argc, argv);
        if (rc == 0)
            {
            const cli_support v = {j.sup.short_run, j.sup.why, j.sup.allow_short,
                                   j.sup.precision_asked, j.sup.precision_met};
            rc = cli_support_verdict(&v, "sim admission");
        }
    }
    free(names);
    free(ptrs);
    for (unsigned i = 0; i < j.npol; i++)
        qc_mc_run_result_free(&j.r[i]);
    return rc;
}

