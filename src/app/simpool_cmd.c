/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simpool_cmd.c: what `qctl sim pool` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simpool_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simpool_cmd.h"



/* --compare: the same arrivals, service, setup and costs under every
 * policy, with the same seed (common random numbers, so that the
 * differences are the policies' and not the samples'); the run's own
 * policy first. */
typedef qc_app_pool_cmp pool_cmp;

static void pool_cmp_free(pool_cmp *c)
{
    qc_pool_comparison_free(&c->other);
    c->n = 0;
}

static int run_comparison(const qc_pool_params *p, const qc_pool_result *own, pool_cmp *c,
                          qc_err *err)
{
    c->pol[0] = p->policy;
    c->r[0] = own;
    c->n = 1;
    int rc = qc_pool_compare(p, &c->other, err);
    if (rc != 0) {
        qc_err_prefix(err, "--compare");
        return rc;
    }
    for (size_t i = 0; i < c->other.n; i++) {
        c->pol[c->n] = c->other.policy[i];
        c->r[c->n++] = &c->other.result[i];
    }
    return 0;
}

/* The metrics compared, as JSON keys (qc_pool_metric_name) and columns. */

/* What the outputs are made of. */
typedef struct pool_out {
    qc_pool_params p;
    qc_pool_result r;
    const opts *o;
    const pool_cmp *cmp;
    double mean_service;
} pool_out;

static void pool_table(const void *ctx)
{
    const pool_out *q = ctx;
    qc_app_pool_table(&q->p, &q->r, &q->o->a);
    if (q->o->compare)
        qc_app_pool_comparison_table(q->cmp, q->p.level);
}

static int pool_verdict(const void *ctx)
{
    const pool_out *q = ctx;
    const qc_app_support s = qc_app_pool_support(&q->r, &q->o->a);
    const cli_support sup = {s.short_run, s.why, s.allow_short, s.precision_asked,
                             s.precision_met};
    return cli_support_verdict(&sup, "sim pool");
}

static void pool_series(FILE *fp, const void *ctx)
{
    qc_app_pool_series_rows(fp, &((const pool_out *)ctx)->r);
}

static int pool_plots(cli_plots *pl, const void *ctx)
{
    const pool_out *q = ctx;
    int rc = cli_plots_data(pl, "pool_series.csv", qc_app_pool_plot_rows, &q->r);
    /* Demand in servers: lambda(t) E[S] (the measured rate for a trace). */
    if (rc == 0)
        rc = cli_plots_draw(
            pl, "servers",
            "set datafile separator ','\nset key below horizontal\nset xlabel 'time (s)'\n"
            "set ylabel 'servers'\nset y2label 'jobs in system'\nset ytics nomirror\n"
            "set y2tics\n"
            "plot '%s' using 1:3 every ::1 with lines lw 2 lc rgb '#1f77b4' title 'servers on', "
            "'' using 1:4 every ::1 with lines lc rgb '#ff7f0e' title 'servers in setup', "
            "'' using 1:(($6 == $6 ? $6 : $7) * %.10g) every ::1 with lines lc rgb '#2ca02c' "
            "title 'demand (rate x E[S])', "
            "'' using 1:2 every ::1 axes x1y2 with lines lc rgb '#999999' title 'jobs'",
            pl->path, q->mean_service);
    if (rc == 0)
        rc = cli_plots_data(pl, "response_time_ccdf.dat", qc_app_pool_ccdf_rows, &q->r);
    if (rc == 0)
        rc = cli_plots_draw(pl, "response_time_ccdf",
                            "set xlabel 'response time t (s)'\nset ylabel 'P(T > t)'\nunset key\n"
                            "set logscale y\nset format y '10^{%%L}'\n"
                            "plot '%s' using 1:2 with lines lw 2 lc rgb '#d62728'",
                            pl->path);
    if (rc != 0 || q->cmp->n <= 1)
        return rc;
    /* The average cost of each policy with its interval, the holding part
     * shaded inside it (the rest is power and switching). */
    rc = cli_plots_data(pl, "policy_comparison.dat", qc_app_pool_comparison_rows, q->cmp);
    if (rc == 0)
        rc = cli_plots_draw(pl, "policy_comparison",
                            "set style fill solid 0.7 border -1\nset boxwidth 0.6\nset yrange "
                            "[0:*]\nset xrange [-0.6:%zu.6]\nset ylabel 'average cost per unit "
                            "time'\nset key below\n"
                            "plot '%s' using 0:2:xtic(1) with boxes lc rgb '#ff7f0e' "
                            "title 'power and switching', "
                            "'' using 0:3 with boxes lc rgb '#1f77b4' title 'holding', "
                            "'' using 0:2:4:5 with yerrorbars lc rgb 'black' pt 7 ps 0.5 "
                            "title 'average cost (interval)'",
                            q->cmp->n - 1, pl->path);
    return rc;
}

/* What the flags set, what the validation makes of them (the arrival
 * process and the distributions, owned here), and which were given. */

/* A flag that must be >= 0 (the cost flags). */
static int nonneg(const char *flag, double x)
{
    if (x < 0) {
        cli_error("%s: '%g' must be >= 0", flag, x);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* Every check before the run (the table's, then these), the defaults
 * that depend on other flags resolved. */
int pool_validate(void *ctx)
{
    pool_cli *q = ctx;
    qc_pool_params *p = &q->p;
    opts *o = &q->o;
    int rc;
    int have_servers = cli_flag_given(q->flags, q->given, "servers") > 0;
    if (q->policy) {
        qc_err perr = {0};
        if (qc_pool_policy_parse(q->policy, &p->policy, &perr) != 0) {
            cli_error("--policy: %s", perr.msg);
            return QC_EXIT_USAGE;
        }
    }
    if (p->threshold < 1) {
        cli_error("--threshold: T = %u; it must be >= 1 (a job joins a non-empty queue "
                  "only while that queue, with it, holds at most T jobs)",
                  p->threshold);
        return QC_EXIT_USAGE;
    }
    if (q->idle_timer) {
        if (strcmp(q->idle_timer, "inf") == 0 || strcmp(q->idle_timer, "never") == 0)
            p->idle_timer = (double)INFINITY;
        else if ((rc = cli_double("--idle-timer", q->idle_timer, &p->idle_timer)) != 0 ||
                 (rc = nonneg("--idle-timer", p->idle_timer)) != 0)
            return rc;
    }
    if (cli_flag_given(q->flags, q->given, "customers") && p->customers == 0) {
        cli_error("--customers: must be at least 1 (or give --time for a run in time)");
        return QC_EXIT_USAGE;
    }
    if (cli_flag_given(q->flags, q->given, "time") && !(p->horizon > 0)) {
        cli_error("--time: '%g' must be > 0", p->horizon);
        return QC_EXIT_USAGE;
    }
    if (p->reps < 1) {
        cli_error("--reps: must be >= 1");
        return QC_EXIT_USAGE;
    }
    if (!(p->level > 0 && p->level < 1)) {
        cli_error("--confidence: '%g' is not in (0, 1)", p->level);
        return QC_EXIT_USAGE;
    }
    if ((rc = nonneg("--holding", p->cost.holding)) != 0 ||
        (rc = nonneg("--busy-power", o->a.watts[0])) != 0 ||
        (rc = nonneg("--idle-power", o->a.watts[1])) != 0 ||
        (rc = nonneg("--setup-power", o->a.watts[2])) != 0 ||
        (rc = nonneg("--off-power", o->a.watts[3])) != 0 ||
        (rc = nonneg("--switch-cost", p->cost.switch_cost)) != 0 ||
        (rc = nonneg("--price", o->a.price)) != 0)
        return rc;
    if (cli_flag_given(q->flags, q->given, "series-dt") && !(o->series_dt > 0)) {
        cli_error("--series-dt: '%g' must be > 0", o->series_dt);
        return QC_EXIT_USAGE;
    }
    if (o->out.report && (rc = cli_report_prepare(o->out.report)) != 0)
        return rc;
    if (!have_servers || !o->a.arrival) {
        cli_error("sim pool: --%s is required (see 'qctl sim pool --help')",
                  have_servers ? "arrival" : "servers");
        return QC_EXIT_USAGE;
    }
    if (p->servers < 1 || p->servers > QC_POOL_MAX_SERVERS) {
        cli_error("--servers: K = %u is not in [1, %d]", p->servers, QC_POOL_MAX_SERVERS);
        return QC_EXIT_USAGE;
    }
    if (p->customers > 0 && p->horizon > 0) {
        cli_error("sim pool: give --customers or --time, not both");
        return QC_EXIT_USAGE;
    }
    int fixed;
    if ((rc = cli_warmup_parse(q->trans, 0, p->horizon == 0, &fixed, &p->warmup)) != 0)
        return rc;
    p->warmup_mode = fixed ? QC_WARMUP_FIXED : QC_WARMUP_MSER5;
    p->cost.power[0] = o->a.watts[0] * o->a.price;
    p->cost.idle_power = o->a.watts[1] * o->a.price;
    p->cost.setup_power = o->a.watts[2] * o->a.price;
    p->cost.off_power = o->a.watts[3] * o->a.price;

    qc_err err = {0};
    if (qc_arrivals_parse(&q->arr, o->a.arrival, &err) != 0) {
        cli_error("--arrival: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->arrival = &q->arr;
    if (qc_dist_parse(&q->svc, o->a.service, &err) != 0) {
        cli_error("--service: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->service = &q->svc;
    if (qc_dist_parse(&q->wup, o->a.setup, &err) != 0) {
        cli_error("--setup-time: %s", err.msg);
        return QC_EXIT_USAGE;
    }
    p->setup = &q->wup;
    if (p->customers == 0 && p->horizon == 0) {
        if (q->arr.kind == QC_ARRIVALS_TRACE) {
            uint64_t cut = fixed ? (uint64_t)p->warmup : 0;
            if (q->arr.n < cut + 2 * QC_POOL_CHUNKS) {
                cli_error("--arrival: the trace holds %zu arrivals; at least %llu are needed", q->arr.n,
                          (unsigned long long)(cut + 2 * QC_POOL_CHUNKS));
                return QC_EXIT_USAGE;
            }
            p->customers = q->arr.n - cut;
        } else {
            p->customers = 100000;
        }
    }
    double warm = fixed ? p->warmup : 0;
    double span = p->horizon > 0 ? p->horizon + warm
                                 : ((double)p->customers + warm) / qc_arrivals_mean_rate(&q->arr);
    if (q->arr.kind == QC_ARRIVALS_TRACE && q->arr.n > 0)
        span = q->arr.t[q->arr.n - 1];
    if ((rc = cli_series_bins(&o->out, span, &o->series_dt, &p->series_dt,
                              sizeof(qc_pool_series_point))) != 0)
        return rc;
    if (p->warmup_mode == QC_WARMUP_FIXED &&
        (rc = cli_check_warmup("--warmup", p->warmup,
                               p->horizon > 0 ? p->horizon : (double)p->customers,
                               p->horizon > 0 ? "s" : "customers")) != 0)
        return rc;
    /* the effective values of the flags read as words, for --check */
    q->policy = qc_pool_policy_name(p->policy);
    if (q->idle_timer == NULL) {
        snprintf(q->idle, sizeof q->idle, isinf(p->idle_timer) ? "inf" : "%.15g", p->idle_timer);
        if (isfinite(p->idle_timer) && strtod(q->idle, NULL) != p->idle_timer)
            snprintf(q->idle, sizeof q->idle, "%.17g", p->idle_timer);
        q->idle_timer = q->idle;
    }

    return 0;
}

/* The run, then with --compare the other policies. */
int pool_run(void *ctx, int argc, char **argv)
{
    pool_cli *q = ctx;
    static const char *const names[] = {"servers", "response_time_ccdf", "policy_comparison"};
    pool_cmp cmp = {0};
    pool_out out = {.p = q->p, .o = &q->o, .cmp = &cmp, .mean_service = qc_dist_mean(&q->svc)};
    cli_run run;
    cli_run_begin(&run, "sim pool", NULL, q->o.quiet, &out.p.progress, &out.p.progress_ctx);
    cli_run_cancellable(&run, &out.p.cancel);
    int rc = cli_run_end(&run, qc_pool_run(&out.p, &out.r, &run.err));
    if (rc != 0)
        return rc;
    qc_err err = {0};
    if (q->o.compare) { /* the other policies' runs check the stop flag too */
        cli_interrupt_hold(1);
        rc = run_comparison(&out.p, &out.r, &cmp, &err);
        cli_interrupt_hold(0);
    }
    if (cli_interrupted()) {
        rc = cli_interrupt_exit(rc == QC_ECANCELED ? err.msg : NULL);
    } else if (rc != 0) {
        cli_error("sim pool: %s", err.msg);
        rc = cli_exit_code(rc);
    } else {
        json_t *js = qc_app_pool_json(&out.p, &out.r, &q->o.a, run.elapsed);
        if (q->o.compare)
            json_object_set_new(js, "comparison", qc_app_pool_comparison_json(&cmp));
        cli_result r = {js,          &out, pool_table, pool_verdict, pool_series, pool_plots,
                        names, q->o.compare ? 3 : 2};
        rc = cli_result_write(&q->o.out, &r, argc, argv);
    }
    pool_cmp_free(&cmp);
    qc_pool_result_free(&out.r);
    return rc;
}

