/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simadm.c: what `qctl sim admission` makes of its runs (app/simadm.h):
 * the JSON summary, the tables, the series rows and the verdict on the
 * intervals, written once for --json, --report, the sweep and Python. */
#include "simadm.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/dist.h"
#include "qctl/output.h"

/* ---- output ---------------------------------------------------------------- */

const char *qc_app_adm_role(const qc_mc_run_class *c)
{
    return c->c.best_effort ? "best-effort" : c->candidate ? "candidate" : "admitted";
}

static json_t *ci_or_null(const qc_ci *ci)
{
    return isnan(ci->mean) ? json_null() : qc_json_ci_new(ci);
}

static json_t *result_json(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
                           const qc_mc_run_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "policy", json_string(qc_mc_policy_name(p->policy)));
    json_t *cls = json_array();
    for (unsigned k = 0; k < s->m.n; k++) {
        const qc_mc_run_class_result *c = &r->cls[k];
        json_t *x = json_object();
        json_object_set_new(x, "name", json_string(s->m.cls[k].c.name));
        json_object_set_new(x, "role", json_string(qc_app_adm_role(&s->m.cls[k])));
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

static json_t *model_json(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
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
        json_object_set_new(x, "role", json_string(qc_app_adm_role(c)));
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

json_t *qc_app_adm_json(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
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
static void print_ci(const qc_ci *c, const qc_app_support *sup)
{
    if (isnan(c->mean))
        printf(" %22s", "-");
    else if (isnan(c->half) || (sup->short_run && !sup->allow_short))
        printf(" %10.4g %11s", c->mean, "");
    else
        printf(" %10.4g +- %-7.3g", c->mean, c->half);
}

void qc_app_adm_table_one(const qc_mc_run_params *p, const qc_app_adm_scenario *s, const qc_mc_run_result *r,
                      const qc_app_support *sup)
{
    printf("%s: %s, %s, epsilon %g, alpha %g; %u replications of time %g (warm-up %g); %g%% "
           "intervals\n",
           s->path, qc_mc_policy_name(p->policy), qc_mc_discipline_name(p->discipline),
           p->adm.epsilon, p->adm.alpha, p->reps, p->horizon, p->warmup, 100 * p->level);
    qc_app_support_print(sup);
    printf("admissible (achievable region): bounds %s, targets %s\n\n",
           r->region_bounds < 0 ? "unknown" : r->region_bounds ? "yes" : "no",
           r->region_targets < 0 ? "unknown" : r->region_targets ? "yes" : "no");
    printf("%-12s %-11s %7s %22s %22s %22s %5s %5s %22s %22s\n", "class", "role", "bound",
           "mean delay", "delay while admitted", "worst excursion", "adm", "rej",
           "time to admit", "throughput");
    for (unsigned k = 0; k < s->m.n; k++) {
        const qc_mc_run_class *c = &s->m.cls[k];
        const qc_mc_run_class_result *x = &r->cls[k];
        printf("%-12s %-11s ", c->c.name, qc_app_adm_role(c));
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

void qc_app_adm_table(const qc_mc_run_params *p, const qc_app_adm_scenario *s, const qc_mc_run_result *r,
                        const qc_mc_policy *pols, unsigned npol, const qc_app_support *sup)
{
    printf("%s: %s, epsilon %g, alpha %g; %u replications of time %g; %g%% intervals; same "
           "random numbers for every policy\n\n",
           s->path, qc_mc_discipline_name(p->discipline), p->adm.epsilon, p->adm.alpha, p->reps,
           p->horizon, 100 * p->level);
    qc_app_support_print(sup);
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

/* Replication 1 of the first policy, one row per busy cycle with a sample. */
void qc_app_adm_series_rows(FILE *fp, const qc_app_adm_scenario *s, const qc_mc_run_result *r)
{
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

/* Marks every interval object (qc_json_ci_new's, with "ci_low") of the
 * command's own JSON for a short run; depth bounded by its shape. */
void qc_app_adm_mark_short(json_t *o, const qc_app_support *sup, int depth)
{
    if (depth > 8)
        return;
    if (json_is_object(o)) {
        if (json_object_get(o, "ci_low"))
            qc_app_support_json(sup, o);
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v) qc_app_adm_mark_short(v, sup, depth + 1);
    } else if (json_is_array(o)) {
        size_t i;
        json_t *v;
        json_array_foreach(o, i, v) qc_app_adm_mark_short(v, sup, depth + 1);
    }
}

