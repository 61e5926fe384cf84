/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_admission.c: `qctl sim admission`, autonomic admission control of
 * delay-bounded classes on a shared server, and its baselines. Reads the
 * scenario (JSON), runs qc_mc_run for one policy or for all of them on the
 * same random numbers, writes the summary, the per-cycle series and plots.
 *
 * Scenario file:
 *   { "classes": [
 *       { "name": "gold", "arrival": "exp:0.2", "service": "exp:1",
 *         "bound": 2.0 },                            admitted from time 0
 *       { "name": "silver", "arrival": "exp:0.3", "service": "exp:1",
 *         "bound": 2.3, "start": 20000, "candidate": true },
 *       { "name": "web", "arrival": "exp:0.3", "service": "exp:1",
 *         "best_effort": true } ],
 *     "time": 200000, "warmup": 10000, "window": 10000,     optional
 *     "epsilon": 0.05, "alpha": 20, "discipline": "dps" }  optional
 * A class may also give "priority" (its static priority, and the starting
 * one of an admitted class); "candidate" defaults to start > 0. Flags
 * override the run fields. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"
#include "qctl/dist.h"
#include "qctl/multiclass.h"
#include "qctl/output.h"

static const char about[] =
    "Simulates one server shared by priority among delay-bounded classes and a\n"
    "best-effort class, where each bounded class sets its own priority from its\n"
    "own busy-cycle delay samples (autonomic admission control: admitted classes\n"
    "track (1 - epsilon) x bound, candidates slow-start and are admitted or\n"
    "rejected), or under a baseline policy. Prints each class's delay against\n"
    "its bound with confidence intervals over replications.\n";

/* The scenario (qc_mc_scenario, read by the library) and the file it
 * came from, which the outputs name. */
typedef struct scenario {
    qc_mc_scenario m;
    const char *path;
} scenario;

static void scenario_free(scenario *s)
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

/* ---- output ---------------------------------------------------------------- */

static const char *role(const qc_mc_run_class *c)
{
    return c->c.best_effort ? "best-effort" : c->candidate ? "candidate" : "admitted";
}

static json_t *ci_or_null(const qc_ci *ci)
{
    return isnan(ci->mean) ? json_null() : qc_json_ci_new(ci);
}

static json_t *result_json(const qc_mc_run_params *p, const scenario *s,
                           const qc_mc_run_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "policy", json_string(qc_mc_policy_name(p->policy)));
    json_t *cls = json_array();
    for (unsigned k = 0; k < s->m.n; k++) {
        const qc_mc_run_class_result *c = &r->cls[k];
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(s->m.cls[k].c.name));
        json_object_set_new(x, "role", json_string(role(&s->m.cls[k])));
        json_object_set_new(x, "bound", s->m.cls[k].c.best_effort ? json_null()
                                                                 : json_real(s->m.cls[k].bound));
        json_object_set_new(x, "delay", ci_or_null(&c->delay));
        json_object_set_new(x, "admitted_delay", ci_or_null(&c->admitted_delay));
        json_object_set_new(x, "worst_excursion", ci_or_null(&c->worst));
        json_t *ew = ci_or_null(&c->worst_mean);
        if (json_is_object(ew))
            json_object_set_new(ew, "window_start", qc_json_real_new(c->worst_mean_t));
        json_object_set_new(x, "expected_worst_excursion", ew);
        json_object_set_new(x, "throughput", ci_or_null(&c->throughput));
        json_object_set_new(x, "offered", qc_json_real_new(c->offered));
        json_object_set_new(x, "shed", ci_or_null(&c->shed));
        json_object_set_new(x, "priority", ci_or_null(&c->priority));
        json_object_set_new(x, "admit_time", ci_or_null(&c->admit_time));
        json_object_set_new(x, "admitted", json_integer(c->admitted));
        json_object_set_new(x, "rejected", json_integer(c->rejected));
        json_object_set_new(x, "undecided", json_integer(c->undecided));
        json_array_append_new(cls, x);
    }
    json_object_set_new(o, "classes", cls);
    json_t *sm = json_object();
    json_object_set_new(sm, "worst_excursion", ci_or_null(&r->worst));
    json_object_set_new(sm, "worst_excursion_max", qc_json_real_new(r->worst_max));
    json_t *em = ci_or_null(&r->worst_mean);
    if (json_is_object(em)) {
        json_object_set_new(em, "class", json_string(s->m.cls[r->worst_mean_class].c.name));
        json_object_set_new(em, "window_start", qc_json_real_new(r->worst_mean_t));
    }
    json_object_set_new(sm, "expected_worst_excursion", em);
    json_object_set_new(sm, "best_effort_throughput", ci_or_null(&r->be_throughput));
    json_object_set_new(sm, "best_effort_offered", qc_json_real_new(r->be_offered));
    json_object_set_new(sm, "events", json_integer((json_int_t)r->events));
    json_object_set_new(o, "summary", sm);
    return o;
}

static json_t *model_json(const qc_mc_run_params *p, const scenario *s,
                          const qc_mc_run_result *r)
{
    json_t *m = json_object();
    json_object_set_new(m, "discipline", json_string(qc_mc_discipline_name(p->discipline)));
    json_object_set_new(m, "be_floor", json_real(p->be_floor));
    json_object_set_new(m, "min_completions", json_integer(p->min_completions));
    json_object_set_new(m, "cycle_max", qc_json_real_new(r->cycle_max));
    double load = 0;
    json_t *cls = json_array();
    for (unsigned k = 0; k < s->m.n; k++) {
        json_t *x = json_object();
        const qc_mc_run_class *c = &s->m.cls[k];
        json_object_set_new(x, "name", json_string(c->c.name));
        json_object_set_new(x, "role", json_string(role(c)));
        json_object_set_new(x, "arrival", json_string(s->m.arr_spec[k]));
        json_object_set_new(x, "service", json_string(s->m.svc_spec[k]));
        json_object_set_new(x, "start", json_real(c->c.start));
        json_object_set_new(x, "bound", c->c.best_effort ? json_null() : json_real(c->bound));
        json_object_set_new(x, "target", c->c.best_effort
                                             ? json_null()
                                             : json_real((1 - p->adm.epsilon) * c->bound));
        json_object_set_new(x, "load", qc_json_real_new(r->cls[k].load));
        json_object_set_new(x, "least_delay", qc_json_real_new(r->cls[k].min_delay));
        load += r->cls[k].load;
        json_array_append_new(cls, x);
    }
    json_object_set_new(m, "classes", cls);
    json_object_set_new(m, "load", qc_json_real_new(load));
    return m;
}

static json_t *verdict(int v)
{
    return v < 0 ? json_null() : json_boolean(v);
}

static json_t *summary_json(const qc_mc_run_params *p, const scenario *s,
                            const qc_mc_run_result *res, const qc_mc_policy *pols, unsigned npol,
                            double elapsed)
{
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim admission"));
    json_object_set_new(root, "scenario", json_string(s->path));
    json_object_set_new(root, "model", model_json(p, s, &res[0]));
    json_t *run = json_object();
    json_object_set_new(run, "epsilon", json_real(p->adm.epsilon));
    json_object_set_new(run, "alpha", json_real(p->adm.alpha));
    json_object_set_new(run, "gain", json_real(p->adm.gain));
    json_object_set_new(run, "time", json_real(p->horizon));
    json_object_set_new(run, "warmup", json_real(p->warmup));
    json_object_set_new(run, "window", json_real(p->window));
    json_object_set_new(run, "reps", json_integer(p->reps));
    json_object_set_new(run, "seed", json_integer((json_int_t)p->seed));
    json_object_set_new(run, "confidence", json_real(p->level));
    json_object_set_new(run, "elapsed_seconds", json_real(elapsed));
    json_object_set_new(root, "run", run);
    json_t *adm = json_object();
    json_object_set_new(adm, "method",
                        json_string(p->discipline == QC_MC_WEIGHTED
                                        ? "achievable region, non-preemptive (Kleinrock)"
                                        : "achievable region, exponential classes "
                                          "(Coffman-Mitrani)"));
    json_object_set_new(adm, "bounds", verdict(res[0].region_bounds));
    json_object_set_new(adm, "targets", verdict(res[0].region_targets));
    json_object_set_new(adm, "margin", res[0].region_bounds < 0
                                           ? json_null()
                                           : qc_json_real_new(res[0].region_margin));
    json_object_set_new(root, "admissibility", adm);
    if (npol == 1) {
        json_t *one = result_json(p, s, &res[0]);
        json_object_update(root, one);
        json_decref(one);
    } else {
        json_t *arr = json_array();
        for (unsigned i = 0; i < npol; i++) {
            qc_mc_run_params q = *p;
            q.policy = pols[i];
            json_array_append_new(arr, result_json(&q, s, &res[i]));
        }
        json_object_set_new(root, "policies", arr);
    }
    return root;
}

/* A run too short for its intervals prints the means alone (the first
 * line says why), or with --allow-short the intervals under that line's
 * UNRELIABLE. */
static void print_ci(const qc_ci *c, const cli_support *sup)
{
    if (isnan(c->mean))
        printf(" %22s", "-");
    else if (isnan(c->half) || (sup->short_run && !sup->allow_short))
        printf(" %10.4g %11s", c->mean, "");
    else
        printf(" %10.4g +- %-7.3g", c->mean, c->half);
}

static void print_one(const qc_mc_run_params *p, const scenario *s, const qc_mc_run_result *r,
                      const cli_support *sup)
{
    printf("%s: %s, %s, epsilon %g, alpha %g; %u replications of time %g (warm-up %g); %g%% "
           "intervals\n",
           s->path, qc_mc_policy_name(p->policy), qc_mc_discipline_name(p->discipline),
           p->adm.epsilon, p->adm.alpha, p->reps, p->horizon, p->warmup, 100 * p->level);
    cli_support_print(sup);
    printf("admissible (achievable region): bounds %s, targets %s\n\n",
           r->region_bounds < 0 ? "unknown" : r->region_bounds ? "yes" : "no",
           r->region_targets < 0 ? "unknown" : r->region_targets ? "yes" : "no");
    printf("%-12s %-11s %7s %22s %22s %22s %5s %5s %22s %22s\n", "class", "role", "bound",
           "mean delay", "delay while admitted", "worst excursion", "adm", "rej",
           "time to admit", "throughput");
    for (unsigned k = 0; k < s->m.n; k++) {
        const qc_mc_run_class *c = &s->m.cls[k];
        const qc_mc_run_class_result *x = &r->cls[k];
        printf("%-12s %-11s ", c->c.name, role(c));
        if (c->c.best_effort)
            printf("%7s", "-");
        else
            printf("%7.4g", c->bound);
        print_ci(&x->delay, sup);
        print_ci(&x->admitted_delay, sup);
        print_ci(&x->worst, sup);
        printf(" %5u %5u", x->admitted, x->rejected);
        print_ci(&x->admit_time, sup);
        print_ci(&x->throughput, sup);
        printf("\n");
    }
    printf("\nworst excursion of an admitted class above its bound, (delay - D)/D over "
           "windows of %g:\n", p->window);
    if (sup->short_run && !sup->allow_short)
        printf("  per replication (largest): %.4g, largest of all %.4g\n", r->worst.mean,
               r->worst_max);
    else
        printf("  per replication (largest): %.4g, CI [%.4g, %.4g], largest of all %.4g\n",
               r->worst.mean, r->worst.lo, r->worst.hi, r->worst_max);
    if (!isnan(r->worst_mean.mean) && sup->short_run && !sup->allow_short)
        printf("  of the mean over replications: %.4g (%s, window at %g)\n", r->worst_mean.mean,
               s->m.cls[r->worst_mean_class].c.name, r->worst_mean_t);
    else if (!isnan(r->worst_mean.mean))
        printf("  of the mean over replications: %.4g, CI [%.4g, %.4g] (%s, window at %g)\n",
               r->worst_mean.mean, r->worst_mean.lo, r->worst_mean.hi,
               s->m.cls[r->worst_mean_class].c.name, r->worst_mean_t);
    if (!isnan(r->be_offered) && sup->short_run && !sup->allow_short)
        printf("best-effort throughput %.4g (offered %.4g)\n", r->be_throughput.mean,
               r->be_offered);
    else if (!isnan(r->be_offered))
        printf("best-effort throughput %.4g +- %.3g (offered %.4g)\n", r->be_throughput.mean,
               r->be_throughput.half, r->be_offered);
}

static void print_table(const qc_mc_run_params *p, const scenario *s, const qc_mc_run_result *r,
                        const qc_mc_policy *pols, unsigned npol, const cli_support *sup)
{
    printf("%s: %s, epsilon %g, alpha %g; %u replications of time %g; %g%% intervals; same "
           "random numbers for every policy\n\n",
           s->path, qc_mc_discipline_name(p->discipline), p->adm.epsilon, p->adm.alpha, p->reps,
           p->horizon, 100 * p->level);
    cli_support_print(sup);
    printf("%-12s", "policy");
    for (unsigned k = 0; k < s->m.n; k++)
        if (!s->m.cls[k].c.best_effort)
            printf(" %14s %5s", s->m.cls[k].c.name, "in");
    printf(" %18s %14s %8s\n", "worst excursion", "BE throughput", "shed");
    printf("%-12s", "");
    for (unsigned k = 0; k < s->m.n; k++)
        if (!s->m.cls[k].c.best_effort)
            printf(" %14s %5s", "delay/bound", "");
    printf(" %18s %14s %8s\n", "(mean, CI high)", "", "");
    for (unsigned i = 0; i < npol; i++) {
        const qc_mc_run_result *x = &r[i];
        printf("%-12s", qc_mc_policy_name(pols[i]));
        double shed = 0, arr = 0;
        for (unsigned k = 0; k < s->m.n; k++) {
            const qc_mc_run_class_result *c = &x->cls[k];
            if (!isnan(c->shed.mean)) {
                shed += c->shed.mean * c->offered;
                arr += c->offered;
            }
            if (s->m.cls[k].c.best_effort)
                continue;
            double d = !isnan(c->admitted_delay.mean) ? c->admitted_delay.mean : c->delay.mean;
            printf(" %14.3f %2u/%-2u", d / s->m.cls[k].bound, c->admitted, p->reps);
        }
        if (sup->short_run && !sup->allow_short)
            printf(" %8.3f %8s", x->worst_mean.mean, "-");
        else
            printf(" %8.3f %8.3f", x->worst_mean.mean, x->worst_mean.hi);
        if (!isnan(x->be_offered))
            printf(" %14.4g", x->be_throughput.mean);
        else
            printf(" %14s", "-");
        printf(" %7.2f%%\n", arr > 0 ? 100 * shed / arr : 0);
    }
    printf("\ndelay/bound: mean delay per job while admitted (or over the run if never), over "
           "the bound; in: replications that ended with the class admitted; worst excursion: "
           "largest over classes and windows of the mean over replications of (delay - D)/D\n");
}

/* ---- series and plots ---------------------------------------------------------- */

/* What the outputs are made of: the results of npol policies. */
typedef struct adm_out {
    qc_mc_run_params p; /* the first policy's */
    const scenario *s;
    qc_mc_run_result r[7];
    const qc_mc_policy *pols;
    unsigned npol;
    cli_support sup; /* whether the run supports its intervals */
} adm_out;

static void adm_table(const void *ctx)
{
    const adm_out *q = ctx;
    if (q->npol == 1)
        print_one(&q->p, q->s, &q->r[0], &q->sup);
    else
        print_table(&q->p, q->s, q->r, q->pols, q->npol, &q->sup);
}

/* Replication 1 of the first policy, one row per busy cycle with a sample. */
static void series_rows(FILE *fp, const void *ctx)
{
    const scenario *s = ((const adm_out *)ctx)->s;
    const qc_mc_run_result *r = ((const adm_out *)ctx)->r;
    fprintf(fp, "time");
    for (unsigned k = 0; k < s->m.n; k++) {
        const char *nm = s->m.cls[k].c.name;
        fprintf(fp, ",delay_%s,bound_%s,priority_%s,weight_%s,state_%s", nm, nm, nm, nm, nm);
    }
    fprintf(fp, ",limit\n");
    for (size_t i = 0; i < r->series_len; i++) {
        const qc_mc_series_row *w = &r->series[i];
        fprintf(fp, "%.10g", w->t);
        for (unsigned k = 0; k < s->m.n; k++) {
            const qc_mc_run_class *c = &s->m.cls[k];
            fprintf(fp, ",");
            if (!isnan(w->delay[k]))
                fprintf(fp, "%.8g", w->delay[k]);
            fprintf(fp, ",");
            if (!c->c.best_effort)
                fprintf(fp, "%.8g", c->bound);
            fprintf(fp, ",");
            if (!isnan(w->priority[k]))
                fprintf(fp, "%.8g", w->priority[k]);
            fprintf(fp, ",%.8g,%s", w->weight[k], qc_adm_state_name((qc_adm_state)w->state[k]));
        }
        fprintf(fp, ",");
        if (isfinite(w->limit))
            fprintf(fp, "%.8g", w->limit);
        fprintf(fp, "\n");
    }
}

/* One policy's plots: each bounded class's delay samples, bound, target
 * and priority; every class's weight. */
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
            3 * c->bound, c->c.name, role(c), qc_mc_policy_name(p->policy), pl->path, col,
            col + 1, col + 1, 1 - p->adm.epsilon, col + 2);
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
typedef struct adm_cli {
    qc_mc_run_params p;
    const char *scen, *pol, *disc;
    cli_outputs out; /* --json, --output, --series, --plot, --report */
    double eps, alpha, horizon, warm, win;
    int quiet;
    int allow_short; /* --allow-short */
    scenario s;
    qc_mc_policy pols[7];
    unsigned npol;
} adm_cli;

/* Every check before the run (the table's, then these); the values
 * taken from the scenario or defaulted are set back into the flags, for
 * --check. */
static int adm_validate(void *ctx)
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
        static const qc_mc_policy all[7] = {QC_POL_AUTONOMIC, QC_POL_STATIC, QC_POL_UTILIZATION,
                                            QC_POL_GRADIENT2, QC_POL_VEGAS, QC_POL_ENVOY,
                                            QC_POL_AIMD};
        memcpy(q->pols, all, sizeof all);
        q->npol = 7;
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

/* Whether the run supports its intervals over replications, from its
 * data: each bounded class's mean delay is a mean over the jobs it
 * completed in each replication's measured window, and a few dozen of
 * them (a short horizon, a rare class) make each replication's mean
 * skewed and its start's bias a large share of it. At least ADM_JOBS_MIN
 * per replication on average, under every policy run; one replication has
 * no interval to support. */
#define ADM_JOBS_MIN 200
static int adm_support(const qc_mc_run_params *p, const scenario *s, const qc_mc_run_result *r,
                       const qc_mc_policy *pols, unsigned npol, char *why, size_t n)
{
    if (p->reps < 2)
        return 0;
    double w = p->horizon - p->warmup;
    for (unsigned i = 0; i < npol; i++)
        for (unsigned k = 0; k < s->m.n; k++) {
            const qc_mc_run_class_result *c = &r[i].cls[k];
            if (s->m.cls[k].c.best_effort || isnan(c->delay.half) || isnan(c->throughput.mean))
                continue;
            double jobs = c->throughput.mean * w;
            if (!(jobs >= ADM_JOBS_MIN)) {
                snprintf(why, n, "class %s completed about %.3g jobs per replication in the "
                         "measured window of %g (policy %s; at least %d are needed for its "
                         "delay's interval to cover)", s->m.cls[k].c.name, jobs, w,
                         qc_mc_policy_name(pols[i]), ADM_JOBS_MIN);
                return 1;
            }
        }
    return 0;
}

/* Marks every interval object (qc_json_ci_new's, with "ci_low") of the
 * command's own JSON for a short run; depth bounded by its shape. */
static void mark_short(json_t *o, const cli_support *sup, int depth)
{
    if (depth > 8)
        return;
    if (json_is_object(o)) {
        if (json_object_get(o, "ci_low"))
            cli_support_json(sup, o);
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v) mark_short(v, sup, depth + 1);
    } else if (json_is_array(o)) {
        size_t i;
        json_t *v;
        json_array_foreach(o, i, v) mark_short(v, sup, depth + 1);
    }
}

static int adm_run(void *ctx, int argc, char **argv)
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
        j.sup = (cli_support){adm_support(&j.p, sc, j.r, j.pols, j.npol, why, sizeof why), why,
                              a->allow_short, 0, 1};
    json_t *sum = NULL;
    if (rc == 0) {
        j.p.policy = j.pols[0];
        sum = summary_json(&j.p, sc, j.r, j.pols, j.npol, run.elapsed);
        json_object_set_new(sum, "interval_support", cli_support_json_run(&j.sup));
        mark_short(sum, &j.sup, 0);
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
            rc = cli_support_verdict(&j.sup, "sim admission");
    }
    free(names);
    free(ptrs);
    for (unsigned i = 0; i < j.npol; i++)
        qc_mc_run_result_free(&j.r[i]);
    return rc;
}

int cmd_sim_admission(int argc, char **argv)
{
    adm_cli q = {.out.cmd = "sim admission", .pol = "autonomic",
                 .eps = NAN, .alpha = NAN, .horizon = NAN, .warm = NAN, .win = NAN};
    qc_mc_run_params *p = &q.p;
    qc_mc_run_params_init(p);
    p->jobs = cli_jobs_default();
    int help = 0;
    const cli_flag flags[] = {
        {"scenario", CLI_STR, &q.scen, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "the classes (JSON; see docs/admission.md)"},
        {"policy", CLI_STR, &q.pol, .arg = "P",
         .help = "autonomic (default), static, utilization, gradient2,\nvegas, envoy, aimd, or "
                 "all (one comparison table)"},
        {"discipline", CLI_STR, &q.disc, .arg = "D",
         .help = "dps (default: DPS by class), dps-job (DPS by job), or\nweighted (non-preemptive, "
                 "request granularity)"},
        {"epsilon", CLI_DOUBLE, &q.eps, .arg = "E",
         .help = "target margin, 0 <= E < 1 (default 0.1)"},
        {"alpha", CLI_DOUBLE, &q.alpha, .arg = "A",
         .help = "slow-start constant, > 0; larger is gentler (default 20)"},
        {"gain", CLI_DOUBLE, &p->adm.gain, .arg = "G",
         .help = "tracking gain of the admitted classes (default 0.3)"},
        {"min-completions", CLI_UINT, &p->min_completions, .arg = "M",
         .help = "completions that make a delay sample (default 20)"},
        {"u-max", CLI_DOUBLE, &p->u_max, .arg = "U",
         .help = "utilization test threshold (default 0.9)"},
        {"time", CLI_DOUBLE, &q.horizon, .arg = "T",
         .help = "simulated time per replication (default 100000)"},
        {"warmup", CLI_DOUBLE, &q.warm, .arg = "W",
         .help = "time left out of the means (default T/10)"},
        {"window", CLI_DOUBLE, &q.win, .arg = "W",
         .help = "window of the delay excursions (default (T-W)/20)"},
        {"reps", CLI_UINT, &p->reps, .arg = "R", .help = "replications (default 10)"},
        CLI_ROW_JOBS(&p->jobs),
        CLI_ROW_SEED(&p->seed),
        {"confidence", CLI_DOUBLE, &p->level, .arg = "L",
         .help = "confidence level (default 0.95)"},
        CLI_ROW_JSON(&q.out.json),
        CLI_ROW_ALLOW_SHORT(&q.allow_short),
        CLI_ROW_OUTPUT(&q.out.output),
        {"series", CLI_STR, &q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "replication 1 per busy cycle with a sample: each class's\ndelay sample, bound, "
                 "priority, weight and state (CSV)"},
        {"plot", CLI_STR, &q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "each bounded class's delay, bound and priority over\nbusy cycles, as SVG and "
                 "PNG (needs gnuplot)"},
        {"report", CLI_STR, &q.out.report, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "write DIR/index.html: the scenario, the results tables and\n(one policy) the "
                 "plots of --plot, in one page"},
        CLI_ROW_QUIET(&q.quiet),
        CLI_ROWS_CONFIG_CHECK(&q, adm_validate),
        CLI_ROW_HELP(&help),
        {0}};
    int rc = cli_command_main("sim admission", "qctl sim admission --scenario FILE [options]",
                              about, flags, NULL, adm_run, &q, argc, argv);
    scenario_free(&q.s);
    return rc;
}
