/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_cmd.c: what `qctl mdp removable` does once its flags are read
 * (mdp_cmd.h): the check, the solver call, and the text table and plots
 * (the JSON is mdp_result.c's). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/mdp_result.h"
#include "cmdline.h"
#include "guard.h"
#include "mdp_cmd.h"
#include "qctl/output.h"
#include "qctl/removable.h"
#include "report_cli.h"
#include "result.h"

typedef struct mdp_out {
    qc_removable_params p;
    qc_removable_result r;
} mdp_out;

static void mdp_table(const void *ctx)
{
    const mdp_out *q = ctx;
    qc_app_mdp_print(&q->p, &q->r);
}

/* The policy at the levels where it changes, with room after the last
 * change; beyond it the policy stays the same up to N. */
static void policy_rows(FILE *fp, const void *ctx)
{
    const qc_removable_params *p = &((const mdp_out *)ctx)->p;
    const qc_removable_result *r = &((const mdp_out *)ctx)->r;
    size_t last = 0;
    for (size_t n = 1; n <= r->nmax; n++)
        if (r->policy.switch_on[n] != r->policy.switch_on[n - 1] ||
            r->policy.on_action[n] != r->policy.on_action[n - 1])
            last = n;
    size_t show = 2 * last + 5 > 20 ? 2 * last + 5 : 20;
    if (show > r->nmax)
        show = r->nmax;
    fprintf(fp, "# n switch_on_when_off rate_when_on (nan: idle or off)\n");
    for (size_t n = 0; n <= show; n++) {
        int a = r->policy.on_action[n];
        if (a >= 0)
            fprintf(fp, "%zu %d %.10g\n", n, r->policy.switch_on[n], p->cost.rate[a]);
        else
            fprintf(fp, "%zu %d NaN\n", n, r->policy.switch_on[n]);
    }
}

/* One row of costs.dat: a quoted label, then holding, power and switching
 * cost per unit time. */
static void cost_row(FILE *fp, const char *label, const qc_removable_perf *pf)
{
    fprintf(fp, "\"%s\" %.10g %.10g %.10g\n", label, pf->holding_cost, pf->power_cost,
            pf->switching_cost);
}

static void costs_rows(FILE *fp, const void *ctx)
{
    const qc_removable_result *r = &((const mdp_out *)ctx)->r;
    fprintf(fp, "# policy holding_cost power_cost switching_cost (per unit time)\n");
    cost_row(fp, "optimal", &r->perf);
    for (int i = 0; r->have_baselines && i < QC_RB_COUNT; i++) {
        const qc_removable_baseline *b = &r->baseline[i];
        char label[128];
        if (b->param_name && b->param_name[0])
            snprintf(label, sizeof label, "%s (%s = %g)", b->name, b->param_name, b->param);
        else
            snprintf(label, sizeof label, "%s", b->name);
        for (char *c = label; *c; c++)
            if (*c == '"')
                *c = '\'';
        cost_row(fp, label, &b->perf);
    }
}

/* The policy (switch-on decision and rate against the number of jobs),
 * and the costs of the optimal policy and of the simple ones side by
 * side, each bar split into holding, power and switching cost. */
static int mdp_plots(cli_plots *pl, const void *ctx)
{
    const qc_removable_params *p = &((const mdp_out *)ctx)->p;
    const qc_removable_structure *st = &((const mdp_out *)ctx)->r.structure;
    char thr[96] = "";
    if (st->threshold)
        snprintf(thr, sizeof thr,
                 "set arrow from %ld, graph 0 to %ld, graph 1 nohead dt 2 lc rgb '#888888'\n",
                 st->threshold_n, st->threshold_n);
    int rc = cli_plots_data(pl, "policy.dat", policy_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "policy",
                            "set xlabel 'number of jobs n'\nset ylabel 'service rate when on'\n"
                            "set y2label 'switch on when off (1 = yes)'\nset y2range [-0.1:1.1]\n"
                            "set y2tics (0, 1)\nset ytics nomirror\nset yrange [0:%g]\n"
                            "set key below horizontal\n%s"
                            "plot '%s' using 1:3 with steps lw 2 lc rgb '#1f77b4' title 'rate "
                            "when on', '' using 1:2 axes x1y2 with points pt 7 lc rgb '#d62728' "
                            "title 'switch on when off'",
                            1.15 * p->cost.rate[p->cost.nrates - 1], thr, pl->path);
    if (rc == 0)
        rc = cli_plots_data(pl, "costs.dat", costs_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(
            pl, "costs",
            /* horizontal stacked bars: the policy names read level on
             * the left, none rotated or cut */
            "set style fill solid 0.8 border -1\n"
            "set xlabel 'cost per unit time'\nset xrange [0:*]\nset key below horizontal\n"
            "set ytics noenhanced nomirror\nset yrange [*:*] reverse\nset offsets 0, 0, 0.3, 0.3\n"
            "set grid noytics\n"
            "plot '%s' using ($2/2):0:($2/2):(0.3):ytic(1) with boxxyerror title 'holding' "
            "lc rgb '#1f77b4', "
            "'' using ($2+$3/2):0:($3/2):(0.3) with boxxyerror title 'power' lc rgb '#ff7f0e', "
            "'' using ($2+$3+$4/2):0:($4/2):(0.3) with boxxyerror title 'switching' "
            "lc rgb '#2ca02c'",
            pl->path);
    return rc;
}

/* Every check the run makes before solving: the library's one check,
 * then the memory the chain would take. */
int mdp_check(void *ctx)
{
    mdp_cli *m = ctx;
    const qc_app_mdp_params *P = &m->p;
    int rc;
    if (m->out.report && (rc = cli_report_prepare(m->out.report)) != 0)
        return rc;
    qc_err err = {0};
    if ((rc = qc_app_mdp_params_check(&m->p, &err)) != 0)
        return cli_flags_error(m->flags, NULL, rc, &err);
    /* the model, its workspaces and the 2N-level structure check take
     * about 420 bytes per state-action pair, (rates + 5) pairs a level */
    const qc_removable_params *p = &P->solve;
    char what[96];
    double per_level = 420.0 * (double)(p->cost.nrates + 5);
    if (P->levels) {
        snprintf(what, sizeof what, "a chain of %zu levels", p->levels);
        return cli_check_memory("--levels", per_level * (double)p->levels, what, cli_force);
    }
    if (P->max_states) {
        snprintf(what, sizeof what, "a chain of up to %zu states", p->max_states);
        return cli_check_memory("--max-states", per_level * (double)p->max_states / 3, what,
                                cli_force);
    }
    return 0;
}

/* The solver and the outputs (the parameters checked by mdp_check). */
int mdp_run(void *ctx, int argc, char **argv)
{
    mdp_cli *m = ctx;
    const qc_app_mdp_params *P = &m->p;
    if (!P->quiet && P->solve.method == QC_REMOVABLE_BOTH && (cli_progress_forced || isatty(2)))
        fputs("qctl: mdp removable: policy iteration, then value iteration as a check "
              "(--method pi skips the check)\n", stderr);
    static const char *const names[] = {"policy", "costs"};
    mdp_out o = {.p = P->solve};
    cli_run run;
    cli_run_begin(&run, "mdp removable",
                  o.p.method == QC_REMOVABLE_PI ? NULL : "mdp removable: value iteration", P->quiet,
                  &o.p.progress, &o.p.progress_ctx);
    int rc = cli_run_end(&run, qc_removable_solve(&o.p, &o.r, &run.err));
    if (rc != 0)
        return rc;
    if (!P->quiet)
        fputs(qc_app_mdp_notices(&o.p, &o.r), stderr);
    cli_result res = {qc_app_mdp_json(&o.p, &o.r, P->price, run.elapsed), &o, mdp_table, NULL,
                      NULL, mdp_plots, names, 2};
    rc = cli_result_write(&m->out, &res, argc, argv);
    qc_removable_result_free(&o.r);
    return rc;
}
