/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_maxusers.c: `qctl sim maxusers`, the MaxUsers server under integral
 * or PI control, or open loop with an excitation for identification. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/maxusers.h"
#include "qctl/output.h"
#include "qctl/stats.h"
#include "report_cli.h"
#include "result.h"

static const char about[] =
    "Simulates a closed population of users on a server whose MaxUsers (the\n"
    "most users connected at once) is set each control interval by an integral\n"
    "or PI controller tracking a reference RIS (RPCs in server), or follows a\n"
    "schedule plus an excitation (open loop, for identification).\n";

static int parse_sched(const char *flag, const char *s, qc_sched_point *pts, size_t *n)
{
    qc_err err = {0};
    if (qc_sched_parse(s, pts, 64, n, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

static int parse_dist(const char *flag, const char *s, qc_dist *d)
{
    qc_err err = {0};
    if (qc_dist_parse(d, s, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* What the outputs are made of. */
typedef struct mu_out {
    const qc_mu_run_params *p;
    const qc_mu_run_result *r;
    const struct reps_stats *st;
    const char *ctl;
    const cli_support *sup; /* whether the run supports its intervals */
} mu_out;

/* One row per sample instant k = 0 .. n (qctl/maxusers.h): maxusers is
 * u(k), set at `time` and in force over (time, time + interval]; the
 * measurements are y(k), taken at `time` (RIS averaged over the interval
 * that ends there). So row k's RIS answers row k-1's MaxUsers, which is
 * the pairing y(k+1) = a y(k) + b u(k) that `qctl sysid` fits. */
static void series_rows(FILE *fp, const void *ctx)
{
    const qc_mu_run_params *p = ((const mu_out *)ctx)->p;
    const qc_mu_run_result *r = ((const mu_out *)ctx)->r;
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
        cli_csv_num(fp, ref, ",");
        cli_csv_num(fp, u, ",");
        cli_csv_num(fp, y->ris, ",");
        cli_csv_num(fp, y->ris_now, ",");
        cli_csv_num(fp, y->ris_logged, ",");
        cli_csv_num(fp, y->throughput, ",");
        cli_csv_num(fp, y->completed ? y->response : NAN, ",");
        cli_csv_num(fp, y->connected, ",");
        cli_csv_num(fp, y->waiting, "\n");
    }
}

static int mu_plots(cli_plots *pl, const void *ctx)
{
    const qc_mu_run_params *p = ((const mu_out *)ctx)->p;
    int rc = cli_plots_data(pl, "maxusers.csv", series_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "ris",
                            "set datafile separator ','\nset key below horizontal\nset xlabel "
                            "'time (s)'\nset ylabel 'RPCs in server (RIS)'\n"
                            "plot '%s' every ::1 using 1:4 with lines lw 1.5 title 'RIS (true)', "
                            "'' every ::1 using 1:6 with lines lw 1 dt 2 title 'RIS (logged)'%s",
                            pl->path,
                            p->closed_loop ? ", '' every ::1 using 1:2 with steps lw 2 lc rgb "
                                             "'black' title 'reference'"
                                           : "");
    if (rc == 0)
        rc = cli_plots_draw(pl, "maxusers",
                            "set datafile separator ','\nset key below horizontal\nset xlabel "
                            "'time (s)'\nset ylabel 'users'\n"
                            "plot '%s' every ::1 using 1:3 with steps lw 1.5 title 'MaxUsers', "
                            "'' every ::1 using 1:9 with lines lw 1 title 'connected'",
                            pl->path);
    return rc;
}

/* Step metrics and saturation over replications: the result of rep 0
 * (series, plots) plus, per step, the values of every replication. */
typedef struct reps_stats {
    unsigned reps;
    double level;
    size_t nsteps;
    double *settling, *overshoot, *sse; /* [step * reps + rep] */
    double *sat, *held;                 /* [rep] */
    double bound;                       /* logged sensor's reach */
    double ref_m[64];                   /* references mapped into the sensor */
    int unreachable[64];
} reps_stats;

/* The interval of the finite values (qc_json_ci_new's one shape), or null
 * when there are none; on a run too short for its intervals the ends are
 * null (with the reason), or kept and marked unreliable with
 * --allow-short. */
static json_t *ci_json(const double *x, size_t n, double level, const cli_support *sup)
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
                      const cli_support *sup, char *out, size_t len)
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

/* One replication's result, in replication order: its step metrics into
 * st; replication 0's result kept whole in *res0 (series, plots). */
typedef struct mu_each_ctx {
    reps_stats *st;
    qc_mu_run_result *res0;
} mu_each_ctx;

static int mu_each(void *ctx, unsigned k, qc_mu_run_result *rk)
{
    mu_each_ctx *e = ctx;
    reps_stats *st = e->st;
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

static json_t *summary(const qc_mu_run_params *p, const qc_mu_run_result *r,
                       const reps_stats *st, const char *ctl, const cli_support *sup)
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
    json_object_set_new(root, "interval_support", cli_support_json_run(sup));
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

/* The flags' destinations, what the validation makes of them (the
 * schedules and distributions, owned here), and which were given. */
typedef struct mu_cli {
    qc_mu_run_params p;
    const char *spec[5], *ref, *mu, *sensor_model;
    cli_outputs out; /* --json, --series, --plot, --report */
    double ki, kp, kaw, umax, level;
    int quiet, ctl, aw;
    int allow_short; /* --allow-short */
    unsigned reps, jobs;
    qc_sched_point refs[64], mus[64];
    size_t nref, nmu;
    qc_dist d[5];
    const cli_flag *flags;
    unsigned given[64];
} mu_cli;

static const char *const ctl_names[] = {"integral", "pi", "open"};

/* --sensor-model FILE: the sensor map from a sysid model. */
static int sensor_model(qc_mu_run_params *p, const char *path)
{
    qc_arx_system sys;
    qc_err e = {0};
    if (qc_arx_system_read(path, &sys, &e) != 0) {
        cli_error("--sensor-model: %s", e.msg);
        return QC_EXIT_USAGE;
    }
    if (!sys.has_sensor) {
        cli_error("--sensor-model: %s has no sensor block", path);
        return QC_EXIT_USAGE;
    }
    if (sys.has_affine) {
        /* the affine map identified around the reference */
        p->sensor_gain = sys.affine.gain;
        p->sensor_offset = sys.affine.offset;
        return 0;
    }
    double g = qc_arx_dc_gain(&sys.sensor);
    if (!(g > 0) || !isfinite(g)) {
        cli_error("--sensor-model: sensor DC gain %g is not positive and finite", g);
        return QC_EXIT_USAGE;
    }
    /* tangent at the identification's operating point */
    p->sensor_gain = g;
    p->sensor_offset = sys.sensor.y0 - g * sys.sensor.u0;
    return 0;
}

/* Every check before the run (the table's, then these). */
static int mu_validate(void *ctx)
{
    mu_cli *q = ctx;
    qc_mu_run_params *p = &q->p;
    int rc;
    if (!(q->ki > 0 && q->ki <= 1e6)) {
        cli_error("--ki: %g is not in (0, 1e6]: a gain <= 0 is no control or positive "
                  "feedback (--controller open runs without one), a larger one moves "
                  "MaxUsers across any population in one interval ('qctl design' gives "
                  "stable gains)", q->ki);
        return QC_EXIT_USAGE;
    }
    if (!(q->kp >= 0 && q->kp <= 1e6)) {
        cli_error("--kp: %g is not in [0, 1e6]", q->kp);
        return QC_EXIT_USAGE;
    }
    if (cli_flag_given(q->flags, q->given, "band") && !(p->band > 0 && p->band < 1)) {
        cli_error("--band: %g is not in (0, 1)", p->band);
        return QC_EXIT_USAGE;
    }
    if (q->reps < 1 || q->reps > 1000) {
        cli_error("--reps: %u is not in 1..1000", q->reps);
        return QC_EXIT_USAGE;
    }
    if (!(q->level > 0 && q->level < 1)) {
        cli_error("--confidence: %g is not in (0, 1)", q->level);
        return QC_EXIT_USAGE;
    }
    if (q->sensor_model && (rc = sensor_model(p, q->sensor_model)) != 0)
        return rc;
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    p->closed_loop = q->ctl != 2;
    if (q->ctl == 0)
        q->kp = 0;
    if (!(p->excite_amp >= 0)) {
        cli_error("--amplitude: must be >= 0");
        return QC_EXIT_USAGE;
    }
    if (!(p->sensor_gain > 0)) {
        cli_error("--sensor-gain: must be > 0");
        return QC_EXIT_USAGE;
    }
    if (p->excite != QC_EXCITE_NONE && p->closed_loop) {
        cli_error("--excite: only with --controller open");
        return QC_EXIT_USAGE;
    }
    if ((rc = parse_sched("--reference", q->ref, q->refs, &q->nref)) != 0 ||
        (rc = parse_sched("--maxusers", q->mu, q->mus, &q->nmu)) != 0)
        return rc;
    static const char *const flags[5] = {"--think", "--service", "--session", "--off", "--retry"};
    for (int i = 0; i < 5; i++)
        if ((rc = parse_dist(flags[i], q->spec[i], &q->d[i])) != 0)
            return rc;
    p->plant.think = &q->d[0];
    p->plant.service = &q->d[1];
    p->plant.session = &q->d[2];
    p->plant.off = &q->d[3];
    p->plant.retry = &q->d[4];
    p->plant.maxusers_max = isnan(q->umax) ? -1 : q->umax;
    double top = p->plant.maxusers_max >= 0 ? p->plant.maxusers_max : (double)p->plant.population;
    for (size_t i = 0; i < q->nref; i++)
        if (!(q->refs[i].v > 0) || q->refs[i].v > top) {
            cli_error("--reference: %g is not reachable: RIS cannot exceed MaxUsers' limit %g "
                      "(nor be <= 0)", q->refs[i].v, top);
            return QC_EXIT_USAGE;
        }
    p->ref = q->refs;
    p->nref = q->nref;
    p->input = q->mus;
    p->ninput = q->nmu;
    p->pi = (qc_pi_params){q->kp, q->ki, 0, top, q->mus[0].v < top ? q->mus[0].v : top,
                           (qc_antiwindup)q->aw, q->kaw};
    /* the run's own checks, so that --check answers what the start would */
    qc_err err = {0};
    if ((rc = qc_mu_run_params_check(p, &err)) != 0) {
        cli_error("sim maxusers: %s", err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}

static void reps_stats_free(reps_stats *st)
{
    free(st->settling);
    free(st->overshoot);
    free(st->sse);
    free(st->sat);
    free(st->held);
}

/* The table: each step's settling, overshoot and steady-state error
 * (with intervals over replications), saturation and throughput. */
static void mu_table(const void *ctx)
{
    const mu_out *q = ctx;
    const qc_mu_run_params *p = q->p;
    const qc_mu_run_result *r = q->r;
    const reps_stats *st = q->st;
    const unsigned reps = st->reps;
    const double level = st->level;
    printf("MaxUsers server: %u users, %u threads, interval %g s, %s control", p->plant.population,
           p->plant.threads, p->plant.interval, q->ctl);
    if (reps > 1)
        printf(", %u replications (+- %g%% confidence half-widths)", reps, 100 * level);
    printf("\n");
    cli_support_print(q->sup);
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

/* Whether the run supports the intervals over its replications, from its
 * data: each step's steady-state error is the mean RIS over the last half
 * of its segment, so that half must hold enough control intervals
 * (MU_TAIL_MIN) and come after the step has settled in every replication
 * that settles; else a step's error and settling times measure the
 * transient the next step cuts short, and their intervals cover nothing.
 * One replication has no interval to support. */
#define MU_TAIL_MIN 20
static int mu_support(const qc_mu_run_params *p, const qc_mu_run_result *r0,
                      const reps_stats *st, char *why, size_t n)
{
    const unsigned R = st->reps;
    const double dt = p->plant.interval;
    if (R < 2 || r0->steps == NULL || !(dt > 0))
        return 0;
    for (size_t i = 0; i < st->nsteps && i < r0->nsteps; i++) {
        const qc_mu_step_metrics *m = &r0->steps[i];
        double len = m->t_end - m->t_start, tail = len / 2 / dt;
        if (!(tail >= MU_TAIL_MIN)) {
            snprintf(why, n, "the step to %g at t = %g lasts %g s, so its steady-state error "
                     "averages %.3g control intervals (at least %d are needed for it to "
                     "measure a steady state)", m->r, m->t_start, len, tail, MU_TAIL_MIN);
            return 1;
        }
        for (unsigned k = 0; k < R; k++) {
            double se = st->settling[i * R + k];
            if (isfinite(se) && se > len / 2) {
                snprintf(why, n, "the step to %g at t = %g settles only after %.4g s in "
                         "replication %u, past half its segment of %g s, so its steady-state "
                         "error (the last half's mean) measures the transient",
                         m->r, m->t_start, se, k + 1, len);
                return 1;
            }
        }
    }
    return 0;
}

static int mu_run(void *ctx, int argc, char **argv)
{
    mu_cli *q = ctx;
    static const char *const names[] = {"ris", "maxusers"};
    const qc_mu_run_params *p = &q->p;
    const unsigned reps = q->reps;
    int rc = 0;
    reps_stats st;
    memset(&st, 0, sizeof st);
    st.reps = reps;
    st.level = q->level;
    st.bound = qc_mu_logged_bound(&p->plant);
    double sg = p->sensor_gain > 0 ? p->sensor_gain : 1;
    for (size_t i = 0; i < q->nref && p->closed_loop; i++) {
        st.ref_m[i] = p->sensor_offset + sg * q->refs[i].v;
        if (p->sensor == QC_SENSOR_LOGGED && !(st.ref_m[i] < st.bound)) {
            st.unreachable[i] = 1;
            fprintf(stderr,
                    "qctl: warning: --reference %g is %g on the logged sensor, which cannot read "
                    "more than %g (its closed form at the largest RIS the plant holds): "
                    "unreachable; the "
                    "controller will raise MaxUsers until it no longer binds, and the true RIS "
                    "will be far above the reference\n",
                    q->refs[i].v, st.ref_m[i], st.bound);
        }
    }
    qc_mu_run_result res;
    memset(&res, 0, sizeof res);
    size_t nref = q->nref;
    st.settling = malloc((nref + 1) * reps * sizeof(double));
    st.overshoot = malloc((nref + 1) * reps * sizeof(double));
    st.sse = malloc((nref + 1) * reps * sizeof(double));
    st.sat = malloc(reps * sizeof(double));
    st.held = malloc(reps * sizeof(double));
    if (!st.settling || !st.overshoot || !st.sse || !st.sat || !st.held) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    }
    /* the progress goes by replication: each is one run of the loop */
    mu_each_ctx ec = {&st, &res};
    unsigned failed = 0;
    cli_run run;
    cli_run_begin(&run, "sim maxusers", NULL, q->quiet, NULL, NULL);
    cli_run_cancellable(&run, &q->p.cancel);
    if (rc == 0) {
        int lrc = qc_mu_run_reps(p, reps, q->jobs, mu_each, &ec, cli_progress_update, &run.prog,
                                 &failed, &run.err);
        if (lrc != 0 && lrc != QC_ECANCELED)
            qc_err_prefix(&run.err, "replication %u", failed);
        rc = cli_run_end(&run, lrc);
    }
    if (rc == 0) {
        static char why[512];
        cli_support sup = {mu_support(p, &res, &st, why, sizeof why), why, q->allow_short, 0, 1};
        mu_out out = {p, &res, &st, ctl_names[q->ctl], &sup};
        cli_result r = {summary(p, &res, &st, out.ctl, &sup), &out, mu_table, NULL, series_rows,
                        mu_plots, names, 2};
        rc = cli_result_write(&q->out, &r, argc, argv);
        if (rc == 0)
            rc = cli_support_verdict(&sup, "sim maxusers");
    }
    qc_mu_run_result_free(&res);
    reps_stats_free(&st);
    return rc;
}

int cmd_sim_maxusers(int argc, char **argv)
{
    mu_cli q = {.out.cmd = "sim maxusers", .spec = {"exp:0.2", "exp:2.5", "exp:0.0008333", "exp:0.0016667", "det:30"},
                .ref = "325", .mu = "375", .ki = 0.1, .kaw = 1, .umax = NAN, .level = 0.95,
                .aw = QC_AW_CONDITIONAL, .reps = 1, .jobs = cli_jobs_default()};
    qc_mu_run_params *p = &q.p;
    qc_maxusers_params_init(&p->plant);
    p->duration = 14400;
    p->excite_amp = 50;
    p->excite_hold = 3;
    p->sensor_gain = 1;
    int help = 0;
    const cli_flag flags[] = {
        {"", CLI_NOTE, NULL, .help = "Plant:"},
        {"population", CLI_UINT, &p->plant.population, .arg = "M", .help = "users (default 1000)"},
        {"threads", CLI_UINT, &p->plant.threads, .arg = "T",
         .help = "server worker threads (default 4)"},
        {"discipline", CLI_CHOICE, &p->plant.discipline, .arg = "D", .choices = "fcfs,ps",
         .help = "ps (default) or fcfs"},
        {"think", CLI_STR, &q.spec[0], .arg = "SPEC",
         .help = "think time between RPCs (default exp:0.2)"},
        {"service", CLI_STR, &q.spec[1], .arg = "SPEC",
         .help = "RPC service time (default exp:2.5)"},
        {"session", CLI_STR, &q.spec[2], .arg = "SPEC",
         .help = "connected time of a session (default exp:0.0008333)"},
        {"off", CLI_STR, &q.spec[3], .arg = "SPEC",
         .help = "offline time between sessions (default exp:0.0016667)"},
        {"retry", CLI_STR, &q.spec[4], .arg = "SPEC",
         .help = "wait before retrying a refused connection (default det:30)"},
        {"interval", CLI_DOUBLE, &p->plant.interval, .arg = "DT",
         .help = "control interval (default 60)"},
        {"maxusers-max", CLI_DOUBLE, &q.umax, .arg = "U",
         .help = "upper limit of MaxUsers (default M)"},
        {"", CLI_NOTE, NULL, .help = "Control:"},
        {"controller", CLI_CHOICE, &q.ctl, .arg = "C", .choices = "integral,pi,open",
         .help = "integral (default), pi, or open"},
        {"ki", CLI_DOUBLE, &q.ki, .arg = "K", .help = "integral gain (default 0.1)"},
        {"kp", CLI_DOUBLE, &q.kp, .arg = "K", .help = "proportional gain (default 0; pi only)"},
        {"antiwindup", CLI_CHOICE, &q.aw, .arg = "A", .choices = "none,conditional,backcalc",
         .help = "none, conditional (default) or backcalc"},
        {"kaw", CLI_DOUBLE, &q.kaw, .arg = "K", .help = "back-calculation gain (default 1)"},
        {"sensor", CLI_CHOICE, &p->sensor, .arg = "S", .choices = "true,logged",
         .help = "true (default) or logged RIS for the controller"},
        {"sensor-gain", CLI_DOUBLE, &p->sensor_gain, .arg = "G",
         .help = "map the reference into the sensor's units as"},
        {"sensor-offset", CLI_DOUBLE, &p->sensor_offset, .arg = "C",
         .help = "r_m = C + G r (default 1 and 0: the sensor reads y)"},
        {"sensor-model", CLI_STR, &q.sensor_model, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "take C and G from the sensor block of a model from\n'qctl sysid': its affine "
                 "map (sysid --sensor-at R, the\nmap around the reference), else the tangent at "
                 "the\nidentification's mean (ym0 + G (r - y0), G its DC gain).\nA reference that "
                 "maps above what the logged sensor can\nread is flagged: the logged RIS of N in "
                 "the server is\nN - (N^2/X D)(1 - exp(-X D/N)) (PS; X = threads / mean\nservice, "
                 "D the interval), at the largest N the plant\nholds (MaxUsers' limit or the users "
                 "who want a session,\nless X x mean think)"},
        {"reference", CLI_STR, &q.ref, .arg = "SCHED",
         .help = "RIS reference: V or V@T,V@T,... (default 325)"},
        {"maxusers", CLI_STR, &q.mu, .arg = "SCHED",
         .help = "MaxUsers: the schedule (open) or the start (closed;\ndefault 375)"},
        {"excite", CLI_CHOICE, &p->excite, .arg = "E", .choices = "none,prbs,uniform,steps",
         .help = "open loop: prbs, uniform or steps around --maxusers\n(default none)"},
        {"amplitude", CLI_DOUBLE, &p->excite_amp, .arg = "A",
         .help = "excitation amplitude (default 50)"},
        {"hold", CLI_UINT, &p->excite_hold, .arg = "H",
         .help = "intervals between excitation changes (default 3). Rule:\nat least the plant's "
                 "time constant in intervals,\n-1 / ln a of a first fit (a = 0.66: 2.4 for the "
                 "default\nplant), so each level shows the static gain"},
        {"", CLI_NOTE, NULL, .help = "Run and output:"},
        {"duration", CLI_DOUBLE, &p->duration, .arg = "T",
         .help = "simulated time (default 14400)"},
        {"warmup", CLI_DOUBLE, &p->warmup, .arg = "T",
         .help = "first run open loop at --maxusers for T (not recorded),\nso that steps start "
                 "from a steady state (default 0)"},
        {"band", CLI_DOUBLE, &p->band, .arg = "F",
         .help = "settling band, fraction of the reference (default 0.1)", .zero_unset = 1},
        {"seed", CLI_U64, &p->plant.seed, .arg = "S", .help = "(default 1)"},
        {"reps", CLI_UINT, &q.reps, .arg = "R",
         .help = "independent replications (default 1); the summary gives\nmeans with t "
                 "confidence intervals over them"},
        CLI_ROW_JOBS(&q.jobs),
        CLI_ROW_CONFIDENCE(&q.level),
        CLI_ROW_ALLOW_SHORT(&q.allow_short),
        CLI_ROW_JSON(&q.out.json),
        {"series", CLI_STR, &q.out.series, .path = CLI_PATH_OUT, .arg = "FILE",
         .help = "one row per sample instant k (time = k interval):\ntime,reference,maxusers,ris,"
                 "ris_now,ris_logged,\nthroughput,response,connected,waiting; maxusers is\nu(k), "
                 "set at time and in force until the next row,\nthe rest y(k), measured at time "
                 "(over the interval\nending there); '#' comment lines state it and the\nlogged "
                 "sensor's bound (ris_logged_bound=V)"},
        {"plot", CLI_STR, &q.out.plot, .path = CLI_PATH_OUT_DIR, .arg = "DIR",
         .help = "RIS and reference, and MaxUsers, over time"},
        CLI_ROW_REPORT(&q.out.report),
        CLI_ROW_QUIET(&q.quiet),
        CLI_ROWS_CONFIG_CHECK(&q, mu_validate),
        CLI_ROW_HELP(&help),
        {0}};
    q.flags = flags;
    int rc = cli_command_main("sim maxusers", "qctl sim maxusers [options]", about, flags,
                              q.given, mu_run, &q, argc, argv);
    for (int i = 0; i < 5; i++)
        qc_dist_free(&q.d[i]);
    return rc;
}
