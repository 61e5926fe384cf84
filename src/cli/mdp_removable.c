/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_removable.c: `qctl mdp removable`, the optimal on/off and speed
 * policy of an M/M/1 queue with a removable server. Parses flags, calls
 * qc_removable_solve, prints the policy, its exact performance, the
 * structural checks and the comparison with simple policies; writes JSON
 * and a plot. The model and its equations are in docs/energy-mdp.md. */
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
#include "qctl/output.h"
#include "qctl/removable.h"

/* --method both: value iteration's sweeps unless --max-sweeps says (the
 * cross-check is made only when it converges this quickly) */
#define QUICK_SWEEPS 20000

static const char synopsis[] =
    "qctl mdp removable --lambda X --rates R1,R2,.. --power P1,P2,.. --setup-rate A\n"
    "                          [options]";

static const char about[] =
    "Solves the average-cost optimal on/off and speed policy of an M/M/1 queue whose\n"
    "server can be switched off (and takes an exponential setup time to come back) and\n"
    "serves at one of finitely many rates; prints the policy, its exact performance,\n"
    "whether it is work conserving, has a switch-on threshold and a rate rising with\n"
    "the queue, and how simple policies compare on the same cost.\n";

#define MAXLIST QC_ENERGY_MAX_RATES

typedef struct opts {
    cli_outputs out; /* --json, --output, --plot, --report */
    int quiet;
    double price;
} opts;

/* Parses a comma-separated list of numbers for `flag`; prints which
 * element is wrong and returns QC_EXIT_USAGE, else 0. */
static int parse_list(const char *flag, const char *s, double *out, size_t *n)
{
    *n = 0;
    if (*s == '\0') {
        cli_error("%s: empty list", flag);
        return QC_EXIT_USAGE;
    }
    const char *p = s;
    for (size_t i = 1;; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            cli_error("%s: element %zu is empty in '%s'", flag, i, s);
            return QC_EXIT_USAGE;
        }
        if (i > MAXLIST) {
            cli_error("%s: more than %d values in '%s'", flag, MAXLIST, s);
            return QC_EXIT_USAGE;
        }
        char buf[64];
        if (len >= sizeof buf) {
            cli_error("%s: element %zu is not a number", flag, i);
            return QC_EXIT_USAGE;
        }
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *end;
        errno = 0;
        double x = strtod(buf, &end);
        if (*end != '\0' || end == buf || !isfinite(x) || errno == ERANGE) {
            cli_error("%s: element %zu ('%s') is not a finite number", flag, i, buf);
            return QC_EXIT_USAGE;
        }
        out[(*n)++] = x;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

/* Where a list flag's values go (CLI_FUNC rows of --rates, --power). */
typedef struct list_dest {
    double *v;
    size_t *n;
} list_dest;

static int list_flag(const cli_flag *f, const char *flag, const char *arg)
{
    const list_dest *d = f->dest;
    return parse_list(flag, arg, d->v, d->n);
}

static int nonneg(const char *flag, double x)
{
    if (x < 0) {
        cli_error("%s: %g is negative; costs must be >= 0", flag, x);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* Flag-level checks, so that a message names the flag; the library checks
 * the same again. */
static int check_inputs(const qc_removable_params *p, size_t npower, const opts *o)
{
    const qc_energy_cost *c = &p->cost;
    if (c->nrates == 0) {
        cli_error("--rates: required (a comma-separated list of service rates)");
        return QC_EXIT_USAGE;
    }
    for (size_t i = 0; i < c->nrates; i++) {
        if (!(c->rate[i] > 0)) {
            cli_error("--rates: element %zu (%g) must be > 0", i + 1, c->rate[i]);
            return QC_EXIT_USAGE;
        }
        if (i > 0 && !(c->rate[i] > c->rate[i - 1])) {
            cli_error("--rates: rates must increase strictly: element %zu (%g) is not above "
                      "element %zu (%g)",
                      i + 1, c->rate[i], i, c->rate[i - 1]);
            return QC_EXIT_USAGE;
        }
    }
    if (npower == 0) {
        cli_error("--power: required (one power figure per rate)");
        return QC_EXIT_USAGE;
    }
    if (npower != c->nrates) {
        cli_error("--power: %zu value%s for %zu rate%s; give one per rate", npower,
                  npower == 1 ? "" : "s", c->nrates, c->nrates == 1 ? "" : "s");
        return QC_EXIT_USAGE;
    }
    for (size_t i = 0; i < npower; i++) {
        if (c->power[i] < 0) {
            cli_error("--power: element %zu (%g) is negative; costs must be >= 0", i + 1,
                      c->power[i] / o->price);
            return QC_EXIT_USAGE;
        }
    }
    int rc;
    if ((rc = nonneg("--idle-power", c->idle_power)) || (rc = nonneg("--setup-power", c->setup_power)) ||
        (rc = nonneg("--off-power", c->off_power)) || (rc = nonneg("--switch-cost", c->switch_cost)) ||
        (rc = nonneg("--holding", c->holding)))
        return rc;
    if (!(c->holding > 0)) {
        cli_error("--holding: must be > 0: with no cost on waiting, leaving the server off "
                  "forever is optimal and the queue has no steady state");
        return QC_EXIT_USAGE;
    }
    if (!(c->setup_rate > 0)) {
        cli_error(c->setup_rate == 0 ? "--setup-rate: required and > 0 (setup times have mean "
                                      "1/A)"
                                    : "--setup-rate: must be > 0");
        return QC_EXIT_USAGE;
    }
    if (!(p->lambda > 0)) {
        cli_error("--lambda: required and > 0 (the arrival rate)");
        return QC_EXIT_USAGE;
    }
    double mx = c->rate[c->nrates - 1];
    if (!(p->lambda < mx)) {
        cli_error("--lambda: %g >= the fastest rate %g (--rates): the queue is unstable under "
                  "every policy",
                  p->lambda, mx);
        return QC_EXIT_USAGE;
    }
    if (!(p->tol > 0 && p->tol < 1)) {
        cli_error("--tol: %g is not in (0, 1)", p->tol);
        return QC_EXIT_USAGE;
    }
    if (!(p->tail_tol >= 0 && p->tail_tol < 1)) {
        cli_error("--tail-tol: %g is not in [0, 1)", p->tail_tol);
        return QC_EXIT_USAGE;
    }
    return 0;
}

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

/* What the solver's result leaves to a reader's judgement, on stderr. */
static void notices(const qc_removable_params *p, const qc_removable_result *r)
{
    if (!r->tail_ok)
        fprintf(stderr, "qctl: mdp removable: the tail target %g was not met within %zu "
                "states (mass at N %.3g); raise --max-states\n",
                p->tail_tol, r->states, r->perf.blocking);
    if (p->method == QC_REMOVABLE_BOTH && !r->rvi_converged)
        fprintf(stderr, "qctl: mdp removable: cross-check skipped: value iteration did not "
                "converge within %zu sweeps (span %.3g); the policy-iteration result stands "
                "unchecked; raise --max-sweeps to make the check\n",
                r->rvi_iterations, r->gain_hi - r->gain_lo);
    else if ((p->method & QC_REMOVABLE_RVI) && !r->rvi_converged)
        fprintf(stderr, "qctl: mdp removable: value iteration did not reach the tolerance in "
                "%zu sweeps (span %.3g); its bounds are still valid; raise --max-sweeps or use "
                "--method pi\n",
                r->rvi_iterations, r->gain_hi - r->gain_lo);
    else if (p->method == QC_REMOVABLE_BOTH && !r->policies_agree)
        fprintf(stderr, "qctl: mdp removable: value iteration and policy iteration disagree "
                "(see solver.agreement)\n");
}

/* The flags' destinations. */
typedef struct mdp_cli {
    qc_removable_params p;
    opts o;
    size_t npower;
    uint64_t levels, max_states, sweeps; /* 0: not given */
    int method;
} mdp_cli;

/* The checks, the solver and the outputs. */
static int mdp_run(void *ctx, int argc, char **argv)
{
    mdp_cli *q = ctx;
    qc_removable_params p = q->p;
    qc_energy_cost *c = &p.cost;
    opts o = q->o;
    const size_t npower = q->npower;
    const uint64_t levels = q->levels, max_states = q->max_states, sweeps = q->sweeps;
    const int method = q->method;
    int rc;
    p.method = (qc_removable_method)method;
    int max_states_given = max_states != 0, sweeps_given = sweeps != 0;
    if (max_states_given)
        p.max_states = (size_t)max_states;
    if (levels)
        p.levels = (size_t)levels;
    if (sweeps_given)
        p.max_iter = (size_t)sweeps;
    if (o.out.report && (rc = cli_report_prepare(o.out.report)) != 0)
        return rc;
    qc_energy_scale_power(c, o.price);
    if ((rc = check_inputs(&p, npower, &o)) != 0)
        return rc;
    /* the model, its workspaces and the 2N-level structure check take
     * about 420 bytes per state-action pair, (rates + 5) pairs a level */
    {
        char what[96];
        double per_level = 420.0 * (double)(c->nrates + 5);
        if (p.levels) {
            snprintf(what, sizeof what, "a chain of %zu levels", p.levels);
            if ((rc = cli_check_memory("--levels", per_level * (double)p.levels, what,
                                       cli_force)) != 0)
                return rc;
        } else if (max_states_given) {
            snprintf(what, sizeof what, "a chain of up to %zu states", p.max_states);
            if ((rc = cli_check_memory("--max-states", per_level * (double)p.max_states / 3, what,
                                       cli_force)) != 0)
                return rc;
        }
    }
    /* the cross-check is worth its time only when value iteration
     * converges quickly: at most QUICK_SWEEPS sweeps unless asked */
    if (p.method == QC_REMOVABLE_BOTH && !sweeps_given)
        p.max_iter = QUICK_SWEEPS;
    if (!o.quiet && p.method == QC_REMOVABLE_BOTH && (cli_progress_forced || isatty(2)))
        fputs("qctl: mdp removable: policy iteration, then value iteration as a check "
              "(--method pi skips the check)\n", stderr);

    static const char *const names[] = {"policy", "costs"};
    mdp_out out = {.p = p};
    cli_run run;
    cli_run_begin(&run, "mdp removable",
                  p.method == QC_REMOVABLE_PI ? NULL : "mdp removable: value iteration", o.quiet,
                  &out.p.progress, &out.p.progress_ctx);
    if ((rc = cli_run_end(&run, qc_removable_solve(&out.p, &out.r, &run.err))) != 0)
        return rc;
    if (!o.quiet)
        notices(&out.p, &out.r);
    cli_result res = {qc_app_mdp_json(&out.p, &out.r, o.price, run.elapsed), &out, mdp_table, NULL, NULL,
                      mdp_plots, names, 2};
    rc = cli_result_write(&o.out, &res, argc, argv);
    qc_removable_result_free(&out.r);
    return rc;
}

int cmd_mdp_removable(int argc, char **argv)
{
    mdp_cli q = {.o = {.out.cmd = "mdp removable", .price = 1}, .method = QC_REMOVABLE_PI};
    qc_removable_params_init(&q.p);
    q.p.method = QC_REMOVABLE_PI; /* value iteration only on request */
    q.p.cost.holding = 1;
    int help = 0;
    static const int methods[] = {QC_REMOVABLE_PI, QC_REMOVABLE_RVI, QC_REMOVABLE_BOTH};
    list_dest rates = {q.p.cost.rate, &q.p.cost.nrates}, power = {q.p.cost.power, &q.npower};
    const cli_flag flags[] = {
        {"lambda", CLI_DOUBLE, &q.p.lambda, .arg = "X",
         .help = "arrival rate (must be below the fastest rate)"},
        {"rates", CLI_FUNC, &rates, .arg = "R1,R2,..", .parse = list_flag,
         .help = "service rates, strictly increasing"},
        {"power", CLI_FUNC, &power, .arg = "P1,P2,..", .parse = list_flag,
         .help = "power (cost rate) while serving at each rate"},
        {"idle-power", CLI_DOUBLE, &q.p.cost.idle_power, .arg = "X",
         .help = "power while on and idle (default 0: the cost model of the\n"
                 "removable-server papers, which charge power by service\n"
                 "rate; sim pool's defaults are a server's watts, 180 W\n"
                 "idle, and `--idle-power 180 --setup-power 240\n"
                 "--off-power 0` reproduces them)"},
        {"setup-power", CLI_DOUBLE, &q.p.cost.setup_power, .alias = "warm-power", .arg = "X",
         .help = "power during the setup time (default 0; --warm-power:\nold name)"},
        {"off-power", CLI_DOUBLE, &q.p.cost.off_power, .arg = "X", .help = "power while off (default 0)"},
        {"setup-rate", CLI_DOUBLE, &q.p.cost.setup_rate, .alias = "warm-rate", .arg = "A",
         .help = "setup rate: setup times are exponential with mean 1/A\n(--warm-rate: old name)"},
        {"switch-cost", CLI_DOUBLE, &q.p.cost.switch_cost, .arg = "K",
         .help = "fixed cost per switch-on (default 0)"},
        {"holding", CLI_DOUBLE, &q.p.cost.holding, .arg = "H",
         .help = "cost per job per unit time (default 1; must be > 0)"},
        {"price", CLI_DOUBLE, &q.o.price, 0, HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "P",
         .help = "multiplies every power figure, e.g. watts to cost (default 1)"},
        {"tol", CLI_DOUBLE, &q.p.tol, .arg = "T",
         .help = "relative tolerance of the gain: value iteration stops when\n"
                 "the span of Tv - v is below T times the always-on cost\n(default 1e-9)"},
        {"tail-tol", CLI_DOUBLE, &q.p.tail_tol, .arg = "E",
         .help = "truncation: probability mass at and beyond the largest\n"
                 "queue length kept must be below E (default 1e-8)"},
        {"max-states", CLI_U64, &q.max_states, 51, 3e9, .arg = "S",
         .help = "most states the truncation may use (default 3000000)"},
        {"levels", CLI_U64, &q.levels, 1, 1e9, .arg = "N",
         .help = "use queue lengths 0..N exactly (no truncation search)"},
        {"method", CLI_CHOICE, &q.method, .arg = "M", .choices = "pi,rvi,both", .values = methods,
         .help = "pi (default: policy iteration), rvi (relative value\n"
                 "iteration) or both (policy iteration, then value\n"
                 "iteration as a cross-check: they must agree)"},
        {"max-sweeps", CLI_U64, &q.sweeps, 1, HUGE_VAL, .arg = "K",
         .help = "most value-iteration sweeps (default 200000 with\n"
                 "--method rvi; 20000 with both: the cross-check is\n"
                 "made only when value iteration converges that\n"
                 "quickly, and said to be skipped otherwise); value\n"
                 "iteration needs about 8 N sweeps for N levels, far\n"
                 "more near saturation"},
        {"json", CLI_BOOL, &q.o.out.json, .help = "print the results as JSON"},
        {"output", CLI_STR, &q.o.out.output, .arg = "FILE", .help = "also write the JSON to FILE"},
        {"plot", CLI_STR, &q.o.out.plot, .arg = "DIR",
         .help = "draw the policy (switch-on decision and rate against the\n"
                 "number of jobs) and the costs of the optimal and the simple\n"
                 "policies into DIR as SVG and PNG (needs gnuplot)"},
        {"report", CLI_STR, &q.o.out.report, .arg = "DIR",
         .help = "write DIR/index.html: parameters, results tables and the\n"
                 "plots of --plot, in one self-contained page"},
        {"quiet", CLI_BOOL, &q.o.quiet, .help = "no notices on stderr"},
        CLI_ROW_HELP(&help),
        /* the old names, still accepted ("setup" is a server's start-up
         * time in every command) */
        {0}};
    return cli_command_main("mdp removable", synopsis, about, flags, NULL, mdp_run, &q, argc,
                            argv);
}
