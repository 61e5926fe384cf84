/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_removable.c: `qctl mdp removable`, the optimal on/off and speed
 * policy of an M/M/1 queue with a removable server: the flag table, whose
 * rows point at the fields of qc_app_mdp_params (app/mdp_run.h: defaults
 * and the one check, which --check and the start both run), and a call;
 * the solver call and the outputs are app/mdp_cmd.c's. The model and
 * its equations are in docs/energy-mdp.md. */
#include <math.h>

#include "app/mdp_cmd.h"
#include "cli.h"
#include "result.h"

static const char synopsis[] =
    "qctl mdp removable --lambda X --rates R1,R2,.. --power P1,P2,.. --setup-rate A\n"
    "                          [options]";

static const char about[] =
    "Solves the average-cost optimal on/off and speed policy of an M/M/1 queue whose\n"
    "server can be switched off (and takes an exponential setup time to come back) and\n"
    "serves at one of finitely many rates; prints the policy, its exact performance,\n"
    "whether it is work conserving, has a switch-on threshold and a rate rising with\n"
    "the queue, and how simple policies compare on the same cost.\n";

/* The command's state: the flag table below points into it, so both
 * live at file scope; the command sets every field before the flags are
 * read. */
static mdp_cli M;
static int help;

static const int methods[] = {QC_REMOVABLE_PI, QC_REMOVABLE_RVI, QC_REMOVABLE_BOTH};
static const cli_flag flags[] = {
    {"lambda", CLI_DOUBLE, CLI_AT(&M.p, p.lambda), .arg = "X", .unit = "jobs per unit time",
     .help = "arrival rate (must be below the fastest rate)"},
    {"rates", CLI_STR, CLI_AT(&M.p, rates), .arg = "R1,R2,..",
     .help = "service rates, strictly increasing"},
    {"power", CLI_STR, CLI_AT(&M.p, power), .arg = "P1,P2,..",
     .help = "power (cost rate) while serving at each rate"},
    {"idle-power", CLI_DOUBLE, CLI_AT(&M.p, p.cost.idle_power), .arg = "X", .unit = "power",
     .help = "power while on and idle (default 0: the cost model of the\n"
             "removable-server papers, which charge power by service\n"
             "rate; sim pool's defaults are a server's watts, 180 W\n"
             "idle, and `--idle-power 180 --setup-power 240\n"
             "--off-power 0` reproduces them)"},
    {"setup-power", CLI_DOUBLE, CLI_AT(&M.p, p.cost.setup_power), .alias = "warm-power", .arg = "X",
     .unit = "power", .help = "power during the setup time (default 0; --warm-power:\nold name)"},
    {"off-power", CLI_DOUBLE, CLI_AT(&M.p, p.cost.off_power), .arg = "X", .unit = "power",
     .help = "power while off (default 0)"},
    {"setup-rate", CLI_DOUBLE, CLI_AT(&M.p, p.cost.setup_rate), .alias = "warm-rate", .arg = "A",
     .unit = "per unit time",
     .help = "setup rate: setup times are exponential with mean 1/A\n(--warm-rate: old name)"},
    {"switch-cost", CLI_DOUBLE, CLI_AT(&M.p, p.cost.switch_cost), .arg = "K", .unit = "cost",
     .help = "fixed cost per switch-on (default 0)"},
    {"holding", CLI_DOUBLE, CLI_AT(&M.p, p.cost.holding), .arg = "H", .unit = "cost per job",
     .help = "cost per job per unit time (default 1; must be > 0)"},
    {"price", CLI_DOUBLE, CLI_AT(&M.p, price), .min = 0, .max = HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "P",
     .unit = "cost per unit of power",
     .help = "multiplies every power figure, e.g. watts to cost (default 1)"},
    {"tol", CLI_DOUBLE, CLI_AT(&M.p, p.tol), .arg = "T", .unit = "fraction",
     .help = "relative tolerance of the gain: value iteration stops when\n"
             "the span of Tv - v is below T times the always-on cost\n(default 1e-9)"},
    {"tail-tol", CLI_DOUBLE, CLI_AT(&M.p, p.tail_tol), .arg = "E", .unit = "probability",
     .help = "truncation: probability mass at and beyond the largest\n"
             "queue length kept must be below E (default 1e-8)"},
    {"max-states", CLI_U64, CLI_AT(&M.p, max_states), .min = 51, .max = 3e9, .arg = "S", .unit = "states",
     .zero_unset = 1, .help = "most states the truncation may use (default 3000000)"},
    {"levels", CLI_U64, CLI_AT(&M.p, levels), .min = 1, .max = 1e9, .arg = "N", .unit = "levels",
     .zero_unset = 1, .help = "use queue lengths 0..N exactly (no truncation search)"},
    {"method", CLI_CHOICE, CLI_AT(&M.p, method), .arg = "M", .choices = "pi,rvi,both",
     .values = methods,
     .help = "pi (default: policy iteration), rvi (relative value\n"
             "iteration) or both (policy iteration, then value\n"
             "iteration as a cross-check: they must agree)"},
    {"max-sweeps", CLI_U64, CLI_AT(&M.p, max_sweeps), .min = 1, .max = HUGE_VAL, .arg = "K", .unit = "sweeps",
     .zero_unset = 1,
     .help = "most value-iteration sweeps (default 200000 with\n"
             "--method rvi; 20000 with both: the cross-check is\n"
             "made only when value iteration converges that\n"
             "quickly, and said to be skipped otherwise); value\n"
             "iteration needs about 8 N sweeps for N levels, far\n"
             "more near saturation"},
    {"json", CLI_BOOL, &M.out.json, .help = "print the results as JSON"},
    {"output", CLI_STR, &M.out.output, .arg = "FILE", .help = "also write the JSON to FILE"},
    {"plot", CLI_STR, &M.out.plot, .arg = "DIR",
     .help = "draw the policy (switch-on decision and rate against the\n"
             "number of jobs) and the costs of the optimal and the simple\n"
             "policies into DIR as SVG and PNG (needs gnuplot)"},
    {"report", CLI_STR, &M.out.report, .arg = "DIR",
     .help = "write DIR/index.html: parameters, results tables and the\n"
             "plots of --plot, in one self-contained page"},
    {"quiet", CLI_BOOL, CLI_AT(&M.p, quiet), .help = "no notices on stderr"},
    CLI_ROWS_CONFIG_CHECK(&M, mdp_check),
    CLI_ROW_HELP(&help),
    {0}};

int cmd_mdp_removable(int argc, char **argv)
{
    M = (mdp_cli){.out = {.cmd = "mdp removable"}, .flags = flags};
    help = 0;
    qc_app_mdp_params_init(&M.p);
    return cli_command_main("mdp removable", synopsis, about, flags, NULL, mdp_run, &M, argc,
                            argv);
}
