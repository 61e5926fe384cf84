/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_removable.c: `qctl mdp removable`, the optimal on/off and speed
 * policy of an M/M/1 queue with a removable server: the flag table, whose
 * rows point at the fields of qc_app_mdp_params (app/mdp_run.h: defaults
 * and the one check, which --check and the start both run), the solver
 * call and the plots; the outputs are app/mdp_result.c's. The model and
 * its equations are in docs/energy-mdp.md. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"
#include "app/mdp_result.h"
#include "app/mdp_run.h"
#include "qctl/output.h"
#include "qctl/removable.h"

static const char synopsis[] =
    "qctl mdp removable --lambda X --rates R1,R2,.. --power P1,P2,.. --setup-rate A\n"
    "                          [options]";

static const char about[] =
    "Solves the average-cost optimal on/off and speed policy of an M/M/1 queue whose\n"
    "server can be switched off (and takes an exponential setup time to come back) and\n"
    "serves at one of finitely many rates; prints the policy, its exact performance,\n"
    "whether it is work conserving, has a switch-on threshold and a rate rising with\n"
    "the queue, and how simple policies compare on the same cost.\n";

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

/* The command's parameters, the flags' destinations (one run a process). */
static qc_app_mdp_params P;
static cli_outputs out = {.cmd = "mdp removable"}; /* --json, --output, --plot, --report */
static int help;
static const cli_flag *table;

/* Every check the run makes before solving: the library's one check,
 * then the memory the chain would take. */
static int mdp_validate(void *ctx)
{
    (void)ctx;
    int rc;
    if (out.report && (rc = cli_report_prepare(out.report)) != 0)
        return rc;
    qc_err err = {0};
    if ((rc = qc_app_mdp_params_check(&P, &err)) != 0)
        return cli_flags_error(table, NULL, rc, &err);
    /* the model, its workspaces and the 2N-level structure check take
     * about 420 bytes per state-action pair, (rates + 5) pairs a level */
    const qc_removable_params *p = &P.solve;
    char what[96];
    double per_level = 420.0 * (double)(p->cost.nrates + 5);
    if (P.levels) {
        snprintf(what, sizeof what, "a chain of %zu levels", p->levels);
        return cli_check_memory("--levels", per_level * (double)p->levels, what, cli_force);
    }
    if (P.max_states) {
        snprintf(what, sizeof what, "a chain of up to %zu states", p->max_states);
        return cli_check_memory("--max-states", per_level * (double)p->max_states / 3, what,
                                cli_force);
    }
    return 0;
}

/* The solver and the outputs (the parameters checked by mdp_validate). */
static int mdp_run(void *ctx, int argc, char **argv)
{
    (void)ctx;
    if (!P.quiet && P.solve.method == QC_REMOVABLE_BOTH && (cli_progress_forced || isatty(2)))
        fputs("qctl: mdp removable: policy iteration, then value iteration as a check "
              "(--method pi skips the check)\n", stderr);
    static const char *const names[] = {"policy", "costs"};
    mdp_out o = {.p = P.solve};
    cli_run run;
    cli_run_begin(&run, "mdp removable",
                  o.p.method == QC_REMOVABLE_PI ? NULL : "mdp removable: value iteration", P.quiet,
                  &o.p.progress, &o.p.progress_ctx);
    int rc = cli_run_end(&run, qc_removable_solve(&o.p, &o.r, &run.err));
    if (rc != 0)
        return rc;
    if (!P.quiet)
        fputs(qc_app_mdp_notices(&o.p, &o.r), stderr);
    cli_result res = {qc_app_mdp_json(&o.p, &o.r, P.price, run.elapsed), &o, mdp_table, NULL,
                      NULL, mdp_plots, names, 2};
    rc = cli_result_write(&out, &res, argc, argv);
    qc_removable_result_free(&o.r);
    return rc;
}

static const int methods[] = {QC_REMOVABLE_PI, QC_REMOVABLE_RVI, QC_REMOVABLE_BOTH};
static const cli_flag flags[] = {
    {"lambda", CLI_DOUBLE, CLI_AT(&P, p.lambda), .arg = "X", .unit = "jobs per unit time",
     .help = "arrival rate (must be below the fastest rate)"},
    {"rates", CLI_STR, CLI_AT(&P, rates), .arg = "R1,R2,..",
     .help = "service rates, strictly increasing"},
    {"power", CLI_STR, CLI_AT(&P, power), .arg = "P1,P2,..",
     .help = "power (cost rate) while serving at each rate"},
    {"idle-power", CLI_DOUBLE, CLI_AT(&P, p.cost.idle_power), .arg = "X", .unit = "power",
     .help = "power while on and idle (default 0: the cost model of the\n"
             "removable-server papers, which charge power by service\n"
             "rate; sim pool's defaults are a server's watts, 180 W\n"
             "idle, and `--idle-power 180 --setup-power 240\n"
             "--off-power 0` reproduces them)"},
    {"setup-power", CLI_DOUBLE, CLI_AT(&P, p.cost.setup_power), .alias = "warm-power", .arg = "X",
     .unit = "power", .help = "power during the setup time (default 0; --warm-power:\nold name)"},
    {"off-power", CLI_DOUBLE, CLI_AT(&P, p.cost.off_power), .arg = "X", .unit = "power",
     .help = "power while off (default 0)"},
    {"setup-rate", CLI_DOUBLE, CLI_AT(&P, p.cost.setup_rate), .alias = "warm-rate", .arg = "A",
     .unit = "per unit time",
     .help = "setup rate: setup times are exponential with mean 1/A\n(--warm-rate: old name)"},
    {"switch-cost", CLI_DOUBLE, CLI_AT(&P, p.cost.switch_cost), .arg = "K", .unit = "cost",
     .help = "fixed cost per switch-on (default 0)"},
    {"holding", CLI_DOUBLE, CLI_AT(&P, p.cost.holding), .arg = "H", .unit = "cost per job",
     .help = "cost per job per unit time (default 1; must be > 0)"},
    {"price", CLI_DOUBLE, CLI_AT(&P, price), .min = 0, .max = HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "P",
     .unit = "cost per unit of power",
     .help = "multiplies every power figure, e.g. watts to cost (default 1)"},
    {"tol", CLI_DOUBLE, CLI_AT(&P, p.tol), .arg = "T", .unit = "fraction",
     .help = "relative tolerance of the gain: value iteration stops when\n"
             "the span of Tv - v is below T times the always-on cost\n(default 1e-9)"},
    {"tail-tol", CLI_DOUBLE, CLI_AT(&P, p.tail_tol), .arg = "E", .unit = "probability",
     .help = "truncation: probability mass at and beyond the largest\n"
             "queue length kept must be below E (default 1e-8)"},
    {"max-states", CLI_U64, CLI_AT(&P, max_states), .min = 51, .max = 3e9, .arg = "S", .unit = "states",
     .zero_unset = 1, .help = "most states the truncation may use (default 3000000)"},
    {"levels", CLI_U64, CLI_AT(&P, levels), .min = 1, .max = 1e9, .arg = "N", .unit = "levels",
     .zero_unset = 1, .help = "use queue lengths 0..N exactly (no truncation search)"},
    {"method", CLI_CHOICE, CLI_AT(&P, method), .arg = "M", .choices = "pi,rvi,both",
     .values = methods,
     .help = "pi (default: policy iteration), rvi (relative value\n"
             "iteration) or both (policy iteration, then value\n"
             "iteration as a cross-check: they must agree)"},
    {"max-sweeps", CLI_U64, CLI_AT(&P, max_sweeps), .min = 1, .max = HUGE_VAL, .arg = "K", .unit = "sweeps",
     .zero_unset = 1,
     .help = "most value-iteration sweeps (default 200000 with\n"
             "--method rvi; 20000 with both: the cross-check is\n"
             "made only when value iteration converges that\n"
             "quickly, and said to be skipped otherwise); value\n"
             "iteration needs about 8 N sweeps for N levels, far\n"
             "more near saturation"},
    {"json", CLI_BOOL, &out.json, .help = "print the results as JSON"},
    {"output", CLI_STR, &out.output, .arg = "FILE", .help = "also write the JSON to FILE"},
    {"plot", CLI_STR, &out.plot, .arg = "DIR",
     .help = "draw the policy (switch-on decision and rate against the\n"
             "number of jobs) and the costs of the optimal and the simple\n"
             "policies into DIR as SVG and PNG (needs gnuplot)"},
    {"report", CLI_STR, &out.report, .arg = "DIR",
     .help = "write DIR/index.html: parameters, results tables and the\n"
             "plots of --plot, in one self-contained page"},
    {"quiet", CLI_BOOL, CLI_AT(&P, quiet), .help = "no notices on stderr"},
    CLI_ROWS_CONFIG_CHECK(NULL, mdp_validate),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_mdp_removable(int argc, char **argv)
{
    qc_app_mdp_params_init(&P);
    out = (cli_outputs){.cmd = "mdp removable"};
    table = flags;
    return cli_command_main("mdp removable", synopsis, about, flags, NULL, mdp_run, NULL, argc,
                            argv);
}
