/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simqueue_cmd.c: what `qctl sim queue` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simqueue_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simqueue_cmd.h"


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

/* Every check before the run (the table's, then these), the defaults
 * that depend on other flags resolved. */
int queue_validate(void *ctx)
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

int queue_run(void *ctx, int argc, char **argv)
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

