/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maxusers_run.c: the MaxUsers plant in a loop: with the PI / integral
 * controller (closed loop) or with a MaxUsers schedule and an excitation
 * signal for identification (open loop), plus the step-response metrics.
 *
 * Sample instants (qctl/maxusers.h): at instant k the plant has reported
 * y(k); the controller (qc_mu_ctl, the same object the live limiter runs)
 * steps on the chosen sensor's y(k) and r(k) and sets u(k), in force over
 * (k, k+1]. With a warm-up the loop closes at instant 0 on the warm-up's
 * last sample; without one u(0) is the initial MaxUsers. This is the
 * pairing of the ARX model y(k+1) = a y(k) + b u(k) that `qctl sysid`
 * fits and `qctl design` designs for. */
#include "maxusers_int.h"
#include "qctl/maxusers.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/hist.h"
#include "qctl/rng.h"
#include "reps.h"
#include "core/names.h"

void qc_mu_run_result_free(qc_mu_run_result *res)
{
    free(res->samples);
    free(res->reference);
    free(res->steps);
    memset(res, 0, sizeof *res);
}

/* Metrics of one reference segment [a, b) of samples. */
static void segment_metrics(const qc_mu_run_result *res, size_t a, size_t b, double r,
                            double r_prev, double band, double dt, qc_mu_step_metrics *m)
{
    const qc_maxusers_sample *s = res->samples;
    m->t_start = a ? s[a - 1].t : 0;
    m->t_end = s[b - 1].t;
    m->r = r;
    m->r_prev = r_prev;
    /* settling: last index whose 5-sample moving average is outside the
     * band; settled from the next one, if any. */
    size_t last_out = a;
    int ever_out = 0;
    double step = r - r_prev, worst = 0;
    for (size_t k = a; k < b; k++) {
        size_t lo = k >= a + 4 ? k - 4 : a;
        double avg = 0;
        for (size_t j = lo; j <= k; j++)
            avg += s[j].ris;
        avg /= (double)(k - lo + 1);
        /* The moving average keeps the sampling noise of RIS (a few % per
         * interval) from passing for overshoot or for a lost settling. */
        double beyond = step >= 0 ? avg - r : r - avg;
        if (beyond > worst)
            worst = beyond;
        if (fabs(avg - r) > band * fabs(r)) {
            last_out = k;
            ever_out = 1;
        }
    }
    /* settled only if it then stays in the band for at least 5 samples
     * (else the segment ended before we could tell) */
    if (!ever_out)
        m->settling = dt;
    else if (last_out + 5 < b)
        m->settling = s[last_out + 1].t - m->t_start;
    else
        m->settling = NAN;
    /* a step smaller than the band is no step: its overshoot in % of the
     * step would be noise over a tiny number */
    m->overshoot = fabs(step) > band * fabs(r) ? 100 * worst / fabs(step) : NAN;
    size_t h = a + (b - a) / 2;
    double sum = 0;
    for (size_t k = h; k < b; k++)
        sum += s[k].ris;
    m->sse = (sum / (double)(b - h) - r) / r;
}

void qc_mu_run_params_init(qc_mu_run_params *p)
{
    memset(p, 0, sizeof *p);
    qc_maxusers_params_init(&p->plant);
    qc_pi_params_init(&p->pi);
    p->pi.u_max = p->plant.population;
    p->pi.u_init = p->plant.population; /* as MaxUsers starts: at its limit */
    p->sensor = QC_SENSOR_TRUE;
    p->sensor_gain = 1;
    p->sensor_offset = 0;
    p->excite = QC_EXCITE_NONE;
    p->excite_amp = 50;
    p->excite_hold = 3;
    p->duration = 14400;
    p->band = 0.1;
}

int qc_mu_run_params_check(const qc_mu_run_params *p, qc_err *err)
{
    if (!(p->warmup >= 0) || !isfinite(p->warmup))
        return qc_err_set(err, QC_EINVAL, "warm-up: %g is not a non-negative time", p->warmup);
    if (!(p->duration > 0) || !isfinite(p->duration))
        return qc_err_set(err, QC_EINVAL, "duration: %g is not a positive time", p->duration);
    double dt = p->plant.interval;
    if (!(dt > 0))
        return qc_err_set(err, QC_EINVAL, "interval: %g is not a positive time", dt);
    size_t n = (size_t)ceil(p->duration / dt);
    if (n < 2 || n > 10000000)
        return qc_err_set(err, QC_EINVAL, "duration / interval = %zu intervals; need 2 .. 1e7", n);
    if (p->closed_loop && (p->ref == NULL || p->nref == 0))
        return qc_err_set(err, QC_EINVAL, "closed loop: no reference given");
    if (!p->closed_loop && (p->input == NULL || p->ninput == 0))
        return qc_err_set(err, QC_EINVAL, "open loop: no MaxUsers schedule given");
    if (p->excite != QC_EXCITE_NONE && (p->excite_hold < 1 || !(p->excite_amp >= 0)))
        return qc_err_set(err, QC_EINVAL, "excitation: amplitude must be >= 0 and hold >= 1");
    if (p->closed_loop) {
        qc_mu_ctl ctl;
        int rc = qc_mu_ctl_init(&ctl, &p->pi, err);
        if (rc != 0)
            return rc;
    }
    return qc__maxusers_check(&p->plant, err);
}

int qc_mu_run(const qc_mu_run_params *p, qc_mu_run_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    int rc0 = qc_mu_run_params_check(p, err);
    if (rc0 != 0)
        return rc0;
    double dt = p->plant.interval;
    size_t n = (size_t)ceil(p->duration / dt);
    double band = p->band > 0 ? p->band : 0.10;
    double sgain = p->sensor_gain > 0 ? p->sensor_gain : 1.0;

    qc_mu_ctl ctl;
    if (p->closed_loop) {
        int rc = qc_mu_ctl_init(&ctl, &p->pi, err);
        if (rc != 0)
            return rc;
    }
    qc_maxusers_params pp = p->plant;
    double umax = pp.maxusers_max >= 0 ? pp.maxusers_max : (double)pp.population;
    if (p->closed_loop)
        pp.maxusers_init = p->pi.u_init;
    else
        pp.maxusers_init = qc_sched_at(p->input, p->ninput, 0);
    if (pp.maxusers_init < 0)
        pp.maxusers_init = 0;
    if (pp.maxusers_max >= 0 && pp.maxusers_init > pp.maxusers_max)
        pp.maxusers_init = pp.maxusers_max;
    qc_maxusers *m = qc_maxusers_alloc(&pp, err);
    if (m == NULL)
        return err ? err->code : QC_EINVAL;
    res->samples = malloc(n * sizeof *res->samples);
    res->reference = malloc(n * sizeof *res->reference);
    res->steps = malloc((p->closed_loop ? p->nref : 1) * sizeof *res->steps);
    if (!res->samples || !res->reference || !res->steps) {
        qc_maxusers_free(m);
        qc_mu_run_result_free(res);
        return qc_err_set(err, QC_ENOMEM, "out of memory for %zu intervals", n);
    }
    qc_rng ex;
    qc_rng_init(&ex, pp.seed, qc_rng_stream(pp.rep, QC_STREAM_CONTROL, 0));
    double u = pp.maxusers_init, dev = 0;
    memset(&res->initial, 0, sizeof res->initial);
    res->initial.maxusers = u;
    for (double tw = 0; tw < p->warmup; tw += dt) {
        qc_maxusers_sample *w = &res->initial;
        int rc = qc_cancel_requested(p->cancel) ? QC_ECANCELED : qc_maxusers_step(m, u, w);
        if (rc != 0) {
            qc_maxusers_free(m);
            qc_mu_run_result_free(res);
            return qc_err_set(err, rc, "plant failed during the warm-up: %s", qc_strerror(rc));
        }
    }
    res->initial.t = 0;
    size_t saturated = 0, held = 0;
    if (p->closed_loop && p->warmup > 0) {
        /* the loop closes at instant 0 on the warm-up's last measurement */
        double r0 = qc_sched_at(p->ref, p->nref, 0);
        qc_mu_ctl_sense in = {p->sensor_offset + r0 * sgain,
                              p->sensor == QC_SENSOR_LOGGED ? res->initial.ris_logged
                                                            : res->initial.ris,
                              res->initial.connected_peak};
        qc_mu_ctl_act act;
        qc_mu_ctl_step(&ctl, &in, &act);
        u = act.u;
    }
    for (size_t k = 0; k < n; k++) {
        double t = (double)k * dt; /* time since the loop started */
        if (!p->closed_loop) {
            if (p->excite != QC_EXCITE_NONE && k % p->excite_hold == 0) {
                double a = p->excite_amp;
                switch (p->excite) {
                case QC_EXCITE_PRBS:
                    if (k == 0)
                        dev = a;
                    else if (qc_rng_u01(&ex) < 0.5)
                        dev = -dev;
                    break;
                case QC_EXCITE_UNIFORM:
                    dev = a * (2 * qc_rng_u01(&ex) - 1);
                    break;
                case QC_EXCITE_STEPS:
                    dev = (k / p->excite_hold) % 2 == 0 ? a : -a;
                    break;
                default:
                    break;
                }
            }
            u = qc_sched_at(p->input, p->ninput, t) + dev;
        }
        qc_maxusers_sample *s = &res->samples[k];
        int rc = qc_cancel_requested(p->cancel) ? QC_ECANCELED : qc_maxusers_step(m, u, s);
        if (rc != 0) {
            qc_maxusers_free(m);
            qc_mu_run_result_free(res);
            return qc_err_set(err, rc, "plant failed at interval %zu: %s", k, qc_strerror(rc));
        }
        s->t = (double)(k + 1) * dt; /* times count from the end of the warm-up */
        double r = p->closed_loop ? qc_sched_at(p->ref, p->nref, s->t) : NAN;
        res->reference[k] = r;
        if (p->closed_loop) {
            qc_mu_ctl_sense in = {p->sensor_offset + r * sgain,
                                  p->sensor == QC_SENSOR_LOGGED ? s->ris_logged : s->ris,
                                  s->connected_peak};
            qc_mu_ctl_act act;
            qc_mu_ctl_step(&ctl, &in, &act);
            u = act.u;
            held += act.held;
        }
        saturated += s->maxusers <= 0 || s->maxusers >= umax;
    }
    if (!p->closed_loop) /* the excitation's next switch is not drawn */
        u = qc_sched_at(p->input, p->ninput, (double)n * dt) + dev;
    res->u_next = u < 0 ? 0 : u > umax ? umax : u;
    res->n = n;
    /* Step metrics: one segment per reference point (closed loop). */
    if (p->closed_loop) {
        size_t a = 0;
        double r_prev = res->samples[0].ris;
        for (size_t i = 0; i < p->nref; i++) {
            double tend = i + 1 < p->nref ? p->ref[i + 1].t : INFINITY;
            size_t b = a;
            while (b < n && res->samples[b].t <= tend)
                b++;
            if (b <= a)
                continue;
            segment_metrics(res, a, b, p->ref[i].v, r_prev, band, dt, &res->steps[res->nsteps++]);
            r_prev = p->ref[i].v;
            a = b;
        }
    }
    double thr = 0;
    for (size_t k = 0; k < n; k++)
        thr += res->samples[k].throughput;
    res->throughput = thr / (double)n;
    const qc_hist *h = qc_maxusers_response_hist(m);
    double rsum = 0;
    uint64_t rn = 0;
    for (size_t k = 0; k < n; k++)
        if (res->samples[k].completed) {
            rsum += res->samples[k].response * (double)res->samples[k].completed;
            rn += res->samples[k].completed;
        }
    res->response_mean = rn ? rsum / (double)rn : NAN;
    res->response_p95 = qc_hist_quantile(h, 0.95);
    res->frac_saturated = (double)saturated / (double)n;
    res->frac_held = (double)held / (double)n;
    res->logged_bound = qc_mu_logged_bound(&pp);
    qc_maxusers_free(m);
    return 0;
}

double qc_mu_logged_at(const qc_maxusers_params *p, double ris)
{
    const double es = p->service ? qc_dist_mean(p->service) : NAN;
    if (!(es > 0) || !(ris > 0))
        return ris > 0 ? INFINITY : 0;
    const double xd = (double)p->threads / es * p->interval; /* X_max Delta */
    if (p->discipline == QC_FCFS)
        return ris < xd ? ris - ris * ris / (2 * xd) : xd / 2;
    /* PS: N - (N^2 / X Delta)(1 - e^{-X Delta / N}), written so that
     * large N loses no digits: (N^2/xd)(1 - e^-x) = N (1 - e^-x) / x */
    const double x = xd / ris;
    return ris * (1 - (-expm1(-x)) / x);
}

double qc_mu_logged_bound(const qc_maxusers_params *p)
{
    const double es = p->service ? qc_dist_mean(p->service) : NAN;
    if (!(es > 0))
        return INFINITY;
    const double xmax = (double)p->threads / es;
    /* the most users that can be connected: MaxUsers' limit, or the
     * users whose sessions want to be (M E[session] / (E[session] +
     * E[off])), whichever is less; the rest think */
    double umax = p->maxusers_max > 0 ? p->maxusers_max : (double)p->population;
    const double sess = p->session ? qc_dist_mean(p->session) : NAN;
    const double off = p->off ? qc_dist_mean(p->off) : NAN;
    if (sess > 0 && off >= 0 && isfinite(sess) && isfinite(off)) {
        const double want = (double)p->population * sess / (sess + off);
        if (want < umax)
            umax = want;
    }
    const double think = p->think ? qc_dist_mean(p->think) : 0;
    double n = umax - xmax * (think > 0 ? think : 0);
    if (!(n > 0))
        n = umax; /* the server is not saturated: RIS below the connected count */
    return qc_mu_logged_at(p, n);
}

/* ---- replications on threads (reps.h) ---------------------------------- */

typedef struct mu_reps {
    const qc_mu_run_params *p;
    qc_mu_rep_fn each;
    void *ctx;
} mu_reps;

typedef struct mu_slot {
    qc_mu_run_result res; /* the replication run here, until merged */
    int held;
} mu_slot;

static int mu_run_rep(void *ctx, void *ws, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    (void)w;
    const mu_reps *m = ctx;
    mu_slot *slot = ws;
    qc_mu_run_params pk = *m->p;
    pk.plant.rep = rep;
    int rc = qc_mu_run(&pk, &slot->res, err);
    slot->held = rc == 0;
    return rc;
}

static int mu_merge_rep(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    const mu_reps *m = ctx;
    mu_slot *slot = ws;
    slot->held = 0;
    int rc = m->each(m->ctx, rep, &slot->res);
    if (rc != 0)
        return qc_err_set(err, rc, "replication %u: %s", rep + 1, qc_strerror(rc));
    return 0;
}

int qc_mu_run_reps(const qc_mu_run_params *p, unsigned reps, unsigned jobs, qc_mu_rep_fn each,
                   void *ctx, qc_progress_fn progress, void *progress_ctx, unsigned *failed,
                   qc_err *err)
{
    if (each == NULL)
        return qc_err_set(err, QC_EINVAL, "qc_mu_run_reps: no callback");
    if (jobs == 0)
        jobs = 1;
    if (jobs > reps)
        jobs = reps;
    if (jobs > 256)
        jobs = 256;
    if (reps == 0)
        return 0;
    /* two workspaces a worker when there are several (reps.h) */
    unsigned nws = jobs > 1 ? 2 * jobs : 1;
    if (nws > reps)
        nws = reps;
    mu_slot *slot = calloc(nws, sizeof *slot);
    void **ws = calloc(nws, sizeof *ws);
    if (slot == NULL || ws == NULL) {
        free(slot);
        free(ws);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < nws; i++)
        ws[i] = &slot[i];
    mu_reps m = {p, each, ctx};
    qc__reps h = {jobs, ws, mu_run_rep, mu_merge_rep, &m, progress, progress_ctx, 0, reps,
                  p->cancel, nws, 0, NULL};
    int rc = qc__reps_run(&h, 0, reps, failed, err);
    for (unsigned i = 0; i < nws; i++)
        if (slot[i].held) /* run, but not merged: a replication before it failed */
            qc_mu_run_result_free(&slot[i].res);
    free(slot);
    free(ws);
    return rc;
}

static const char *const sensor_names[] = {"true", "logged"};
QC__NAMES(qc_mu_sensor, qc_mu_sensor_name, qc_mu_sensor_parse, sensor_names)

static const char *const excite_names[] = {"none", "prbs", "uniform", "steps"};
QC__NAMES(qc_excite_kind, qc_excite_kind_name, qc_excite_kind_parse, excite_names)

int qc_mu_run_support(const qc_mu_run_params *p, const qc_mu_run_result *r0,
                      const double *settling, size_t nsteps, unsigned reps, char *why,
                      size_t n)
{
    const double dt = p->plant.interval;
    if (reps < 2 || r0->steps == NULL || settling == NULL || !(dt > 0))
        return 0;
    for (size_t i = 0; i < nsteps && i < r0->nsteps; i++) {
        const qc_mu_step_metrics *m = &r0->steps[i];
        double len = m->t_end - m->t_start, tail = len / 2 / dt;
        if (!(tail >= QC_MU_TAIL_MIN)) {
            snprintf(why, n, "the step to %g at t = %g lasts %g s, so its steady-state error "
                     "averages %.3g control intervals (at least %d are needed for it to "
                     "measure a steady state)", m->r, m->t_start, len, tail, QC_MU_TAIL_MIN);
            return 1;
        }
        for (unsigned k = 0; k < reps; k++) {
            double se = settling[i * reps + k];
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
