/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simmu.c: what `qctl sim maxusers` makes of its replications
 * (app/simmu.h): the step metrics over replications, the verdict on their
 * intervals, the JSON summary, the table and the series rows, written
 * once for --json, --report, the sweep and Python. */
#include "simmu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/output.h"
#include "qctl/stats.h"

/* One row per sample instant k = 0 .. n (qctl/maxusers.h): maxusers is
 * u(k), set at `time` and in force over (time, time + interval]; the
 * measurements are y(k), taken at `time` (RIS averaged over the interval
 * that ends there). So row k's RIS answers row k-1's MaxUsers, which is
 * the pairing y(k+1) = a y(k) + b u(k) that `qctl sysid` fits. */
void qc_app_mu_series_rows(FILE *fp, const void *ctx)
{
    const qc_mu_run_params *p = ((const qc_app_mu_out *)ctx)->p;
    const qc_mu_run_result *r = ((const qc_app_mu_out *)ctx)->r;
    fprintf(fp, "# qctl sim maxusers: one row per sample instant k (time = k x %g s). maxusers is "
                "u(k), set at time and in force until time + %g; the other columns are "
                "measured at time (RIS, throughput and response over the interval ending "
                "there).\n",
            p->plant.interval, p->plant.interval);
    fprintf(fp, "# ris_logged_bound=%.10g (the most the logged RIS can read: its closed form "
                "at the largest RIS the plant can hold)\n",
            r->logged_bound);
    fprintf(fp, "time,reference,maxusers,ris,ris_now,ris_logged,throughput,response,"
                "connected,waiting\n");
    double dt = p->plant.interval;
    for (size_t k = 0; k <= r->n; k++) {
        const qc_maxusers_sample *y = k ? &r->samples[k - 1] : &r->initial;
        double u = k < r->n ? r->samples[k].maxusers : r->u_next;
        double ref = p->closed_loop ? qc_sched_at(p->ref, p->nref, (double)k * dt) : NAN;
        fprintf(fp, "%.10g,", (double)k * dt);
        qc_app_csv_num(fp, ref, ",");
        qc_app_csv_num(fp, u, ",");
        qc_app_csv_num(fp, y->ris, ",");
        qc_app_csv_num(fp, y->ris_now, ",");
        qc_app_csv_num(fp, y->ris_logged, ",");
        qc_app_csv_num(fp, y->throughput, ",");
        qc_app_csv_num(fp, y->completed ? y->response : NAN, ",");
        qc_app_csv_num(fp, y->connected, ",");
        qc_app_csv_num(fp, y->waiting, "\n");
    }
}


/* "m" or "m +- h" of the finite values into out (scaled by f); the count.
 * A run too short for its intervals: "m" alone, or "m +- h" with
 * --allow-short (the table's first line says why, and that they are
 * unreliable). */
static size_t ci_text(const double *x, size_t n, double level, double f, const char *fmt,
                      const qc_app_support *sup, char *out, size_t len)
{
    qc_ci ci;
    if (qc_ci_t_finite(x, n, level, &ci, NULL) != 0 || ci.n == 0) {
        snprintf(out, len, "-");
        return 0;
    }
    const size_t k = ci.n;
    char m[64], h[64];
    snprintf(m, sizeof m, fmt, f * ci.mean);
    if (k >= 2 && isfinite(ci.half)) {
        char hf[16];
        snprintf(hf, sizeof hf, "%s", fmt);
        if (hf[1] == '+') /* a half-width has no sign */
            memmove(hf + 1, hf + 2, strlen(hf + 2) + 1);
        snprintf(h, sizeof h, hf, f * ci.half);
        if (sup->short_run && !sup->allow_short)
            snprintf(out, len, "%s", m); /* the table's first line says why */
        else
            snprintf(out, len, "%s +- %s", m, h);
    } else {
        snprintf(out, len, "%s", m);
    }
    return k;
}

static size_t count_finite(const double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(x[i]) != 0;
    return k;
}


int qc_app_mu_each(void *ctx, unsigned k, qc_mu_run_result *rk)
{
    qc_app_mu_each_ctx *e = ctx;
    qc_mu_rep_stats_add(e->st, k, rk);
    if (k == 0)
        *e->res0 = *rk;
    else
        qc_mu_run_result_free(rk);
    return 0;
}

json_t *qc_app_mu_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                       const qc_app_mu_stats *st, const char *ctl, const qc_app_support *sup)
{
    return qc_mu_result_json(p, r, st, ctl, sup);
}

void qc_app_mu_stats_free(qc_app_mu_stats *st)
{
    free(st->settling);
    free(st->overshoot);
    free(st->sse);
    free(st->sat);
    free(st->held);
}

/* The table: each step's settling, overshoot and steady-state error
 * (with intervals over replications), saturation and throughput. */
void qc_app_mu_table(const void *ctx)
{
    const qc_app_mu_out *q = ctx;
    const qc_mu_run_params *p = q->p;
    const qc_mu_run_result *r = q->r;
    const qc_app_mu_stats *st = q->st;
    const unsigned reps = st->reps;
    const double level = st->level;
    printf("MaxUsers server: %u users, %u threads, interval %g s, %s control", p->plant.population,
           p->plant.threads, p->plant.interval, q->ctl);
    if (reps > 1)
        printf(", %u replications (+- %g%% confidence half-widths)", reps, 100 * level);
    printf("\n");
    qc_app_support_print(q->sup);
    for (size_t i = 0; i < st->nsteps; i++) {
        const qc_mu_step_metrics *m = &r->steps[i];
        const double *se = st->settling + i * reps, *ov = st->overshoot + i * reps,
                     *ss = st->sse + i * reps;
        char a[128], b[128], e3[128];
        size_t settled = ci_text(se, reps, level, 1, "%.4g", q->sup, a, sizeof a);
        ci_text(ov, reps, level, 1, "%.1f", q->sup, b, sizeof b);
        ci_text(ss, reps, level, 100, "%+.2f", q->sup, e3, sizeof e3);
        printf("  step to %-8g at t=%-8g ", m->r, m->t_start);
        if (settled == reps)
            printf("settling %s s", a);
        else if (settled == 0)
            printf("never settles (not within %g%% of the reference to the end)",
                   100 * (p->band > 0 ? p->band : 0.1));
        else
            printf("settles in %zu of %u replications (%s s when it does)", settled, reps, a);
        if (count_finite(ov, reps) > 0)
            printf("  overshoot %s%%", b);
        else
            printf("  overshoot: no step (starts at the reference)");
        printf("  steady-state error %s%%", e3);
        if (p->closed_loop && st->unreachable[i])
            printf("  UNREACHABLE on the logged sensor (%g > %g)", st->ref_m[i], st->bound);
        printf("\n");
    }
    char a[128], b[128];
    ci_text(st->sat, reps, level, 100, "%.1f", q->sup, a, sizeof a);
    ci_text(st->held, reps, level, 100, "%.1f", q->sup, b, sizeof b);
    printf("  MaxUsers saturated %s%% of intervals, held by the demand hold %s%%; "
           "throughput %.4g RPC/s; ",
           a, b, r->throughput);
    if (isfinite(r->response_mean) && isfinite(r->response_p95))
        printf("response mean %.4g s, p95 %.4g s", r->response_mean, r->response_p95);
    else
        printf("no RPC completed: no response time");
    printf("%s\n", reps > 1 ? " (throughput and response: first replication)" : "");
}

