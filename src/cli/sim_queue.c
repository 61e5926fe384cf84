/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_queue.c: `qctl sim queue`, the G/G/c/K queue from the command line.
 * Parses flags, runs qc_queue_run, writes the summary, series and plots. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/simqueue.h"
#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/exact.h"
#include "qctl/hist.h"
#include "qctl/output.h"
#include "qctl/queue.h"
#include "report_cli.h"
#include "result.h"

static const char about[] =
    "Simulates an open G/G/c/K queue (FCFS or processor sharing) and prints\n"
    "its steady-state measures with confidence intervals.\n";

static const char epilogue[] =
    "\n"
    "A run with no steady state (offered load >= 1 and a buffer it never\n"
    "filled, or response times that still trend over the last half of the\n"
    "window) is printed marked TRANSIENT with the evidence, and exits 1.\n"
    "\n"
    "Distribution specs: exp:RATE det:VALUE uniform:A,B erlang:K,RATE\n"
    "  hyperexp:P1,R1,P2,R2 gamma:SHAPE,SCALE lognormal:MU,SIGMA\n"
    "  weibull:SHAPE,SCALE pareto:ALPHA,XM bpareto:ALPHA,L,H empirical:FILE[,COL]\n"
    "  lnmix:W1,MU1,SIGMA1,W2,MU2,SIGMA2[,W3,MU3,SIGMA3] expmix:W1,R1,W2,R2[,W3,R3]\n"
    "  gpd:XI,SIGMA,U (a fitted one: qctl fit --column FILE[:COL] --spec)";

typedef struct opts {
    qc_app_queue_opts a; /* what the summary shows of the command line */
    cli_outputs out;     /* --json, --output, --series, --plot, --report */
    int quiet;
    double series_dt;
} opts;

/* The run (qc_queue_run on the validated parameters) and what the
 * outputs are made of. */
typedef struct queue_out {
    qc_queue_params p;
    qc_queue_result r;
    qc_queue_exact ex;
    const opts *o;
} queue_out;

static void queue_table(const void *ctx)
{
    const queue_out *q = ctx;
    qc_app_queue_table(&q->p, &q->r, &q->ex, &q->o->a);
}

static void series_rows(FILE *fp, const void *ctx)
{
    qc_app_queue_series_rows(fp, &((const queue_out *)ctx)->r);
}

static void response_rows(FILE *fp, const void *ctx)
{
    qc_app_queue_response_rows(fp, &((const queue_out *)ctx)->r);
}

static int queue_verdict(const void *ctx)
{
    const queue_out *q = ctx;
    if (!q->r.transient) {
        const qc_app_support s = qc_app_queue_support(&q->p, &q->r, &q->o->a);
        const cli_support sup = {s.short_run, s.why, s.allow_short, s.precision_asked,
                                 s.precision_met};
        return cli_support_verdict(&sup, "sim queue");
    }
    cli_error("sim queue: no steady state: %s", q->r.transient_reason);
    return QC_EXIT_FAIL;
}


static int queue_plots(cli_plots *pl, const void *ctx)
{
    int rc = cli_plots_data(pl, "number_in_system.csv", series_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "number_in_system",
                            "set datafile separator ','\nset key below horizontal\n"
                            "set xlabel 'time (s)'\nset ylabel 'number in system'\n"
                            "plot '%s' using 1:2 every ::1 with lines lw 1 title "
                            "'time-average per bin'",
                            pl->path);
    if (rc == 0)
        rc = cli_plots_data(pl, "response_time.dat", response_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "response_time_hist",
                            "set xlabel 'response time (s)'\nset ylabel 'density'\nunset key\n"
                            "set style fill solid 0.5 border\nset yrange [0:*]\n"
                            "plot '%s' using 1:2 with boxes lc rgb '#1f77b4'",
                            pl->path);
    if (rc == 0)
        rc = cli_plots_draw(pl, "response_time_ccdf",
                            "set xlabel 'response time t (s)'\nset ylabel 'P(T > t)'\nunset key\n"
                            "set logscale y\nset format y '10^{%%L}'\n"
                            "plot '%s' using 1:($3 > 0 ? $3 : 1/0) with linespoints pt 7 ps "
                            "0.4 lc rgb '#d62728'",
                            pl->path);
    return rc;
}

/* What the flags set, and what the validation makes of them (the
 * arrival process and the service distribution, owned here). */
typedef struct queue_cli {
    qc_queue_params p;
    opts o;
    const char *warm, *capacity;
    qc_arrivals arr;
    qc_dist svc;
    const cli_flag *flags;
    unsigned given[64];
} queue_cli;

/* Every check before the run (the table's, then these), the defaults
 * that depend on other flags resolved. */
static int queue_validate(void *ctx)
{
    queue_cli *q = ctx;
    qc_queue_params *p = &q->p;
    opts *o = &q->o;
    int rc;
    if (q->capacity) {
        if (strcmp(q->capacity, "inf") == 0 || strcmp(q->capacity, "unlimited") == 0)
            p->capacity = 0;
        else if ((rc = cli_u64("--capacity", q->capacity, &p->capacity)) != 0)
            return rc;
        else if (p->capacity == 0) {
            cli_error("--capacity: must be at least the number of servers (or 'inf')");
            return QC_EXIT_USAGE;
        }
    }
    if (o->out.report && (rc = cli_report_prepare(o->out.report)) != 0)
        return rc;
    if (!o->a.arrival || !o->a.service) {
        cli_error("sim queue: --%s is required (see 'qctl sim queue --help')",
                  o->a.arrival ? "service" : "arrival");
        return QC_EXIT_USAGE;
    }
    if (cli_flag_given(q->flags, q->given, "customers") && p->customers == 0) {
        cli_error("--customers: must be at least 1 (or give --time for a run in time)");
        return QC_EXIT_USAGE;
    }
    if (p->precision != 0 && !(p->precision > 0 && p->precision < 1)) {
        cli_error("--precision: %g is not a relative half-width in (0, 1), e.g. 0.01",
                  p->precision);
        return QC_EXIT_USAGE;
    }
    int no_length = p->customers == 0 && p->horizon == 0;
    if (no_length)
        p->customers = 100000;
    if ((p->max_customers || p->max_reps) && p->precision == 0) {
        cli_error("--%s: only with --precision", p->max_customers ? "max-customers" : "max-reps");
        return QC_EXIT_USAGE;
    }
    if (p->precision > 0) {
        if (p->horizon > 0) {
            cli_error("--precision: needs the run length in customers (--customers), not --time");
            return QC_EXIT_USAGE;
        }
        if (p->max_customers == 0)
            p->max_customers = 1000000000;
        if (p->max_reps == 0)
            p->max_reps = 10000;
        if (p->max_reps < p->reps) {
            cli_error("--max-reps: %u is fewer than the %u replications of --reps", p->max_reps, p->reps);
            return QC_EXIT_USAGE;
        }
        if (p->max_customers < p->customers * p->reps) {
            cli_error("--max-customers: %llu is fewer than the first round's %llu",
                      (unsigned long long)p->max_customers,
                      (unsigned long long)(p->customers * p->reps));
            return QC_EXIT_USAGE;
        }
    }
    if (p->horizon < 0) {
        cli_error("--time: must be > 0");
        return QC_EXIT_USAGE;
    }
    int fixed;
    if ((rc = cli_warmup_parse(q->warm, 1, p->customers != 0, &fixed, &p->warmup)) != 0)
        return rc;
    p->warmup_mode = fixed ? QC_WARMUP_FIXED : QC_WARMUP_MSER5;
    if (fixed && (rc = cli_check_warmup("--warmup", p->warmup,
                                        p->customers ? (double)p->customers : p->horizon,
                                        p->customers ? "customers" : "s")) != 0)
        return rc;
    if (o->series_dt < 0) {
        cli_error("--series-dt: must be > 0");
        return QC_EXIT_USAGE;
    }

    qc_err err = {0};
    if ((rc = qc_arrivals_parse(&q->arr, o->a.arrival, &err)) != 0) {
        cli_error("--arrival: %s", err.msg);
        return QC_EXIT_USAGE; /* a bad spec or an unreadable file: input */
    }
    p->arrivals = &q->arr;
    if (o->a.curve_unit) {
        double u = strcmp(o->a.curve_unit, "s") == 0     ? 1
                   : strcmp(o->a.curve_unit, "min") == 0 ? 60
                   : strcmp(o->a.curve_unit, "h") == 0   ? 3600
                                                       : 0;
        if (u == 0) {
            cli_error("--curve-unit: '%s' is not s, min or h", o->a.curve_unit);
            return QC_EXIT_USAGE;
        }
        if (q->arr.unit > 0 && q->arr.unit != u) {
            /* the file states its own unit: two answers to one question */
            const char *fu = q->arr.unit == 1 ? "s" : q->arr.unit == 60 ? "min" : "h";
            cli_error("--curve-unit %s: the curve file %s states its unit as %s (its '# unit: "
                      "%s' line); they disagree: drop --curve-unit or correct the file",
                      o->a.curve_unit, o->a.arrival + 6, fu, fu);
            return QC_EXIT_USAGE;
        }
        if (q->arr.unit > 0) {
            /* the same unit as the file's, which is applied already */
        } else if ((rc = qc_arrivals_set_time_unit(&q->arr, u, &err)) != 0) {
            cli_error("--curve-unit: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    /* A time-varying rate with no run length given: whole periods, as
     * many as the default 10^5 customers take (at least one), so that the
     * window offers the curve's mean load (10^5 customers of a 24-hour
     * curve covered 2 of its hours) */
    if (no_length && qc_arrivals_varies(&q->arr) && p->precision == 0) {
        double per = q->arr.period, avg = qc_arrivals_mean_rate(&q->arr);
        double k = ceil(100000.0 / (avg * per));
        p->customers = 0;
        p->horizon = (k >= 1 ? k : 1) * per;
        o->a.whole_periods = 1;
    }
    if ((rc = qc_dist_parse(&q->svc, o->a.service, &err)) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->service = &q->svc;
    /* the run's own checks, so that --check answers what the start would */
    if ((rc = qc_queue_params_check(p, &err)) != 0) {
        cli_error("sim queue: %s", err.msg);
        return cli_exit_code(rc);
    }
    /* the simulated time: measured customers (or time) and a fixed warm-up */
    double warm = fixed ? p->warmup : 0;
    double span = p->customers ? ((double)p->customers + warm) * (1.0 / qc_arrivals_mean_rate(&q->arr))
                               : p->horizon + warm;
    return cli_series_bins(&o->out, span, &o->series_dt, &p->series_dt, sizeof(qc_series_point));
}

static int queue_run(void *ctx, int argc, char **argv)
{
    queue_cli *q = ctx;
    static const char *const names[] = {"number_in_system", "response_time_hist",
                                        "response_time_ccdf"};
    queue_out out = {.p = q->p, .o = &q->o};
    cli_run run;
    cli_run_begin(&run, "sim queue", NULL, q->o.quiet, &out.p.progress, &out.p.progress_ctx);
    cli_run_cancellable(&run, &out.p.cancel);
    int rc = cli_run_end(&run, qc_queue_run(&out.p, &out.r, &run.err));
    if (rc != 0)
        return rc;
    qc_queue_exact_values(&out.p, &out.ex);
    cli_result r = {qc_app_queue_json(&out.p, &out.r, &out.ex, &q->o.a, run.elapsed),
                    &out, queue_table, queue_verdict, series_rows, queue_plots, names, 3};
    rc = cli_result_write(&q->o.out, &r, argc, argv);
    qc_queue_result_free(&out.r);
    return rc;
}

int cmd_sim_queue(int argc, char **argv)
{
    queue_cli q = {.warm = "auto", .o.out.cmd = "sim queue"};
    qc_queue_params *p = &q.p;
    opts *o = &q.o;
    qc_queue_params_init(p);
    p->jobs = cli_jobs_default();
    int help = 0;
    const cli_flag flags[] = {
        {"arrival", CLI_STR, &o->a.arrival, .arg = "SPEC",
         .help = "inter-arrival time distribution (e.g. exp:0.9), or\nsin:MEAN,AMP,PERIOD, "
                 "curve:FILE or steps:T0:R0,...\n(Poisson with a time-varying rate), or "
                 "trace:FILE\n(arrival times)"},
        {"service", CLI_STR, &o->a.service, .arg = "SPEC",
         .help = "service time distribution (e.g. exp:1)"},
        {"curve-unit", CLI_STR, &o->a.curve_unit, .arg = "s|min|h",
         .help = "the unit of the times in a curve:, steps: or sin:\narrival (its rates are per "
                 "that unit; default s)"},
        {"servers", CLI_UINT, &p->servers, .arg = "C", .help = "number of servers (default 1)"},
        {"capacity", CLI_STR, &q.capacity, .arg = "K",
         .help = "most customers in system, K >= C (default: unlimited)"},
        {"discipline", CLI_CHOICE, &p->discipline, .arg = "D", .choices = "fcfs,ps",
         .help = "fcfs (default) or ps (processor sharing)"},
        {"customers", CLI_U64, &p->customers, .arg = "N",
         .help = "measured arrivals per replication (default 100000)", .zero_unset = 1},
        CLI_ROW_TIME(&p->horizon),
        {"warmup", CLI_STR, &q.warm, .arg = "W",
         .help = "auto (default: MSER on the other replications' mean\nseries, "
                 "docs/output-analysis.md), or customers (with\n--customers) or time (with "
                 "--time) simulated before\nmeasuring"},
        {"reps", CLI_UINT, &p->reps, .arg = "R",
         .help = "independent replications (default 1: batch means)"},
        {"precision", CLI_DOUBLE, &p->precision, .arg = "REL",
         .help = "run until every mean's half-width is at most REL times\nits estimate: twice the "
                 "replications each round, or\nwith one replication the run repeated with "
                 "twice the\ncustomers; says whether it got there",
         .zero_unset = 1},
        {"max-customers", CLI_U64, &p->max_customers, .arg = "N",
         .help = "with --precision: most customers in all rounds\n(default 1e9)", .zero_unset = 1},
        {"max-reps", CLI_UINT, &p->max_reps, .arg = "R",
         .help = "with --precision: most replications (default 10000)", .zero_unset = 1},
        CLI_ROW_JOBS(&p->jobs),
        CLI_ROW_SEED(&p->seed),
        CLI_ROW_CONFIDENCE(&p->level),
        CLI_ROW_JSON(&o->out.json),
        CLI_ROW_OUTPUT(&o->out.output),
        {"series", CLI_STR, &o->out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "write number in system over time (replication 1) as CSV"},
        CLI_ROW_SERIES_DT(&o->series_dt),
        {"plot", CLI_STR, &o->out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "draw number in system and the response-time histogram\ninto DIR as SVG and PNG "
                 "(needs gnuplot)"},
        CLI_ROW_REPORT(&o->out.report),
        CLI_ROW_QUIET(&o->quiet),
        CLI_ROW_ALLOW_SHORT(&o->a.allow_short),
        CLI_ROWS_CONFIG_CHECK(&q, queue_validate),
        CLI_ROW_HELP(&help),
        {"", CLI_NOTE, NULL, .help = epilogue},
        {0}};
    q.flags = flags;
    int rc = cli_command_main("sim queue", "qctl sim queue --arrival SPEC --service SPEC [options]",
                              about, flags, q.given, queue_run, &q, argc, argv);
    qc_arrivals_free(&q.arr);
    qc_dist_free(&q.svc);
    return rc;
}

