/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maxusers_json.c: the replications of a MaxUsers run (qc_mu_run_reps) as
 * JSON (qctl/results.h), the summary `qctl sim maxusers --json` prints and
 * Python reads: the run, the verdict on its intervals, each reference
 * step's settling time, overshoot and steady-state error with their t
 * intervals over replications, and the fractions saturated and held. */
#include "qctl/results.h"

#include <math.h>

#include "qctl/output.h"
#include "qctl/stats.h"

int qc_mu_rep_stats_add(qc_mu_rep_stats *st, unsigned k, const qc_mu_run_result *rk)
{
    const unsigned reps = st->reps;
    if (k >= reps)
        return QC_EINVAL;
    st->nsteps = rk->nsteps;
    for (size_t i = 0; i < rk->nsteps; i++) {
        st->settling[i * reps + k] = rk->steps[i].settling;
        st->overshoot[i * reps + k] = rk->steps[i].overshoot;
        st->sse[i * reps + k] = rk->steps[i].sse;
    }
    st->sat[k] = rk->frac_saturated;
    st->held[k] = rk->frac_held;
    return 0;
}

/* The interval of the finite values (qc_json_ci_new's one shape), or null
 * when there are none; on a run too short for its intervals the ends are
 * null (with the reason), or kept and marked unreliable with
 * --allow-short. */
static json_t *ci_json(const double *x, size_t n, double level, const qc_result_support *sup)
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

static size_t count_finite(const double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(x[i]) != 0;
    return k;
}

json_t *qc_mu_result_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                          const qc_mu_rep_stats *st, const char *ctl,
                          const qc_result_support *sup)
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
    json_object_set_new(root, "interval_support", qc_result_support_json(sup));
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
