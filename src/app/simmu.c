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


/* The interval of the finite values (qc_json_ci_new's one shape), or null
 * when there are none; on a run too short for its intervals the ends are
 * null (with the reason), or kept and marked unreliable with
 * --allow-short. */
static json_t *ci_json(const double *x, size_t n, double level, const qc_app_support *sup)
{
    qc_ci ci;
    if (qc_ci_t_finite(x, n, level, &ci, NULL) != 0 || ci.n == 0)
        return json_null();
    json_t *o = qc_json_ci_new(&ci);
    if (o && sup->short_run && sup->allow_short) {
        json_object_set_new(o, "unreliable", json_true());
    } else if (o && sup->short_run) {
        json_object_set_new(o, "half_width", json_null());
        json_object_set_new(o, "ci_low", json_null());
        json_object_set_new(o, "ci_high", json_null());
        json_object_set_new(o, "reason", json_string("run too short to support an interval"));
    }
    return o;
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
    qc_app_mu_stats *st = e->st;
    const unsigned reps = st->reps;
    st->nsteps = rk->nsteps;
    for (size_t i = 0; i < rk->nsteps; i++) {
        st->settling[i * reps + k] = rk->steps[i].settling;
        st->overshoot[i * reps + k] = rk->steps[i].overshoot;
        st->sse[i * reps + k] = rk->steps[i].sse;
    }
    st->sat[k] = rk->frac_saturated;
    st->held[k] = rk->frac_held;
    if (k == 0)
        *e->res0 = *rk;
    else
        qc_mu_run_result_free(rk);
    return 0;
}

json_t *qc_app_mu_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                       const qc_app_mu_stats *st, const char *ctl, const qc_app_support *sup)
{
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim maxusers"));
    json_t *run = json_object();
    json_object_set_new(run, "controller", json_string(ctl));
    if (p->closed_loop) {
        json_object_set_new(run, "ki", json_real(p->pi.ki));
        json_object_set_new(run, "kp", json_real(p->pi.kp));
        json_object_set_new(run, "sensor",
                            json_string(qc_mu_sensor_name(p->sensor)));
        json_object_set_new(run, "sensor_gain", json_real(p->sensor_gain > 0 ? p->sensor_gain : 1));
        json_object_set_new(run, "sensor_offset", json_real(p->sensor_offset));
    }
    json_object_set_new(run, "population", json_integer(p->plant.population));
    json_object_set_new(run, "interval", json_real(p->plant.interval));
    json_object_set_new(run, "intervals", json_integer((json_int_t)r->n));
    json_object_set_new(run, "seed", json_integer((json_int_t)p->plant.seed));
    json_object_set_new(run, "reps", json_integer((json_int_t)st->reps));
    json_object_set_new(run, "confidence", json_real(st->level));
    json_object_set_new(run, "band", json_real(p->band > 0 ? p->band : 0.1));
    json_object_set_new(run, "logged_ris_bound", qc_json_real_new(st->bound));
    json_object_set_new(root, "run", run);
    json_object_set_new(root, "interval_support", qc_app_support_json_run(sup));
    json_t *steps = json_array();
    const unsigned R = st->reps;
    for (size_t i = 0; i < st->nsteps; i++) {
        const qc_mu_step_metrics *m = &r->steps[i];
        const double *se = st->settling + i * R, *ov = st->overshoot + i * R,
                     *ss = st->sse + i * R;
        size_t settled = count_finite(se, R);
        json_t *o = json_object();
        json_object_set_new(o, "t_start", json_real(m->t_start));
        json_object_set_new(o, "reference", json_real(m->r));
        if (p->closed_loop) {
            json_object_set_new(o, "reference_measured", json_real(st->ref_m[i]));
            json_object_set_new(o, "reachable", json_boolean(!st->unreachable[i]));
        }
        json_object_set_new(o, "settled_reps", json_integer((json_int_t)settled));
        /* the mean settling time only when every replication settled */
        json_t *sci = ci_json(se, R, st->level, sup);
        json_object_set_new(o, "settling_time",
                            settled == R && json_is_object(sci)
                                ? json_real(json_number_value(json_object_get(sci, "value")))
                                : json_null());
        json_object_set_new(o, "settling_time_ci", settled == R ? sci : (json_decref(sci), json_null()));
        json_t *oci = ci_json(ov, R, st->level, sup);
        json_object_set_new(o, "overshoot_percent",
                            json_is_object(oci) ? json_real(json_number_value(json_object_get(oci, "value")))
                                                : json_null());
        json_object_set_new(o, "overshoot_percent_ci", oci);
        json_t *eci = ci_json(ss, R, st->level, sup);
        json_object_set_new(o, "steady_state_error",
                            json_is_object(eci) ? json_real(json_number_value(json_object_get(eci, "value")))
                                                : json_null());
        json_object_set_new(o, "steady_state_error_ci", eci);
        json_array_append_new(steps, o);
    }
    json_object_set_new(root, "steps", steps);
    json_t *s = json_object();
    json_t *sat = ci_json(st->sat, R, st->level, sup);
    json_object_set_new(s, "fraction_saturated",
                        json_real(json_number_value(json_object_get(sat, "value"))));
    json_object_set_new(s, "fraction_saturated_ci", sat);
    json_t *hl = ci_json(st->held, R, st->level, sup);
    json_object_set_new(s, "fraction_held",
                        json_real(json_number_value(json_object_get(hl, "value"))));
    json_object_set_new(s, "fraction_held_ci", hl);
    json_object_set_new(s, "throughput", qc_json_real_new(r->throughput));
    json_object_set_new(s, "response_mean", qc_json_real_new(r->response_mean));
    json_object_set_new(s, "response_p95", qc_json_real_new(r->response_p95));
    double ris = 0, mu = 0;
    size_t h = r->n / 2;
    for (size_t k = h; k < r->n; k++) {
        ris += r->samples[k].ris;
        mu += r->samples[k].maxusers;
    }
    json_object_set_new(s, "ris_mean_second_half", json_real(ris / (double)(r->n - h)));
    json_object_set_new(s, "maxusers_mean_second_half", json_real(mu / (double)(r->n - h)));
    json_object_set_new(root, "summary", s);
    return root;
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

