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
    return qc_mc_class_role(c);
}

json_t *qc_app_adm_json(const qc_mc_run_params *p, const qc_app_adm_scenario *s,
                            const qc_mc_run_result *res, const qc_mc_policy *pols, unsigned npol,
                            double elapsed)
{
    return qc_mc_result_json(p, &s->m, s->path, res, pols, npol, NULL, elapsed);
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

void qc_app_adm_mark_short(json_t *o, const qc_app_support *sup, int depth)
{
    (void)depth;
    qc_result_mark_all(sup, o);
}

