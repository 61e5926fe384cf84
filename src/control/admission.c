/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission.c: the per-class admission controller (delay tracking for an
 * admitted class, Reno-like slow start for a candidate); the rules are in
 * qctl/admission.h and docs/admission.md.
 *
 * Invariants between steps: p_min <= prio <= p_max; a rejected class has
 * prio = p_min and never changes again; while a candidate is frozen
 * (probation), win_* hold its win_len < K samples since it froze (sum of
 * delays, count); epoch_on only once the candidate is armed, and epoch_n
 * counts its growth samples in the epoch. */
#include "qctl/admission.h"

#include <math.h>
#include <string.h>

void qc_adm_params_init(qc_adm_params *p, double bound, double epsilon, double alpha,
                        int admitted)
{
    memset(p, 0, sizeof *p);
    p->bound = bound;
    p->epsilon = epsilon;
    p->alpha = alpha;
    p->gain = 0.3;
    p->ref_count = 20;
    p->x_sat = 2;
    p->p_min = 1e-3;
    p->p_max = 1e6;
    p->p_init = admitted ? 0.1 : 0.01;
    p->backoff = 0.5;
    p->p_arm = 1;
    p->stall = 0.05;
    p->worsen = 0.5;
    p->max_backoffs = 3;
    p->admit_window = 40;
    p->settle = 20;
    p->smoothing = 0.2;
    p->admitted = admitted;
}

const char *qc_adm_state_name(qc_adm_state s)
{
    switch (s) {
    case QC_ADM_CANDIDATE:
        return "candidate";
    case QC_ADM_ADMITTED:
        return "admitted";
    case QC_ADM_REJECTED:
        return "rejected";
    }
    return "?";
}

int qc_adm_init(qc_adm *c, const qc_adm_params *p, qc_err *err)
{
    if (!(p->bound > 0) || !isfinite(p->bound))
        return qc_err_set(err, QC_EINVAL, "bound: %g must be a positive time", p->bound);
    if (p->epsilon < 0)
        return qc_err_set(err, QC_EINVAL, "epsilon: %g is negative; it must be in [0, 1)",
                          p->epsilon);
    if (!(p->epsilon < 1))
        return qc_err_set(err, QC_EINVAL, "epsilon: %g must be < 1 (target (1 - eps) D > 0)",
                          p->epsilon);
    if (!(p->alpha > 0) || !isfinite(p->alpha))
        return qc_err_set(err, QC_EINVAL, "alpha: %g must be > 0", p->alpha);
    if (!(p->gain > 0 && p->gain <= 4))
        return qc_err_set(err, QC_EINVAL, "gain: %g is not in (0, 4]", p->gain);
    if (p->ref_count < 1)
        return qc_err_set(err, QC_EINVAL, "ref_count: must be >= 1");
    if (!(p->x_sat > 0))
        return qc_err_set(err, QC_EINVAL, "x_sat: %g must be > 0", p->x_sat);
    if (!(p->p_min > 0 && p->p_min < p->p_max) || !isfinite(p->p_max))
        return qc_err_set(err, QC_EINVAL, "priority limits [%g, %g] are not 0 < p_min < p_max",
                          p->p_min, p->p_max);
    if (!(p->p_init >= p->p_min && p->p_init <= p->p_max))
        return qc_err_set(err, QC_ERANGE, "p_init: %g is outside [%g, %g]", p->p_init,
                          p->p_min, p->p_max);
    if (!(p->backoff > 0 && p->backoff < 1))
        return qc_err_set(err, QC_EINVAL, "backoff: %g is not in (0, 1)", p->backoff);
    if (!(p->p_arm >= p->p_min) || !isfinite(p->p_arm))
        return qc_err_set(err, QC_EINVAL, "p_arm: %g is below p_min %g", p->p_arm, p->p_min);
    if (!(p->stall >= 0 && p->stall < 1))
        return qc_err_set(err, QC_EINVAL, "stall: %g is not in [0, 1)", p->stall);
    if (!(p->worsen > 0))
        return qc_err_set(err, QC_EINVAL, "worsen: %g must be > 0", p->worsen);
    if (p->settle > 100000)
        return qc_err_set(err, QC_EINVAL, "settle: %u is more than 100000 samples", p->settle);
    if (p->admit_window < 1 || p->admit_window > QC_ADM_WINDOW_MAX)
        return qc_err_set(err, QC_EINVAL, "admit_window: %u is not in [1, %d]", p->admit_window,
                          QC_ADM_WINDOW_MAX);
    if (!(p->smoothing > 0 && p->smoothing <= 1))
        return qc_err_set(err, QC_EINVAL, "smoothing: %g is not in (0, 1]", p->smoothing);
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->state = p->admitted ? QC_ADM_ADMITTED : QC_ADM_CANDIDATE;
    c->prio = p->p_init;
    c->ssthresh = INFINITY;
    c->s = NAN;
    return 0;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static double target(const qc_adm *c)
{
    return (1 - c->p.epsilon) * c->p.bound;
}

/* The tracking law: p <- p exp(g sat((n/m)(d - T)/T)). */
static void track(qc_adm *c, const qc_adm_sense *in)
{
    double T = target(c);
    double x = (in->count / c->p.ref_count) * (in->delay - T) / T;
    x = clampd(x, -c->p.x_sat, c->p.x_sat);
    c->prio = clampd(c->prio * exp(c->p.gain * x), c->p.p_min, c->p.p_max);
}

/* Multiplicative back-off; rejection after max_backoffs of them. */
static qc_adm_event back_off(qc_adm *c)
{
    c->backoffs++;
    c->epoch_on = 0;
    if (c->backoffs > c->p.max_backoffs) {
        c->state = QC_ADM_REJECTED;
        c->prio = c->p.p_min;
        return QC_ADM_EV_REJECT;
    }
    c->prio = clampd(c->p.backoff * c->prio, c->p.p_min, c->p.p_max);
    c->ssthresh = c->prio;
    c->avoid = 1;
    /* The next epoch starts now, with s still showing the priority it had
     * before: to pass, the delay must improve on what it was at the old
     * priority once the candidate is back there. */
    if (c->prio >= c->p.p_arm) {
        c->epoch_on = 1;
        c->s_ref = c->s;
        c->epoch_n = 0;
    }
    return QC_ADM_EV_BACKOFF;
}

static qc_adm_event grow(qc_adm *c)
{
    const qc_adm_params *p = &c->p;
    if (c->prio >= p->p_arm) {
        if (!c->epoch_on) {
            c->epoch_on = 1;
            c->s_ref = c->s;
            c->epoch_n = 0;
        } else {
            if (c->s > (1 + p->worsen) * c->s_ref)
                return back_off(c);
            if (++c->epoch_n >= (unsigned)ceil(p->alpha)) {
                if (c->s > (1 - p->stall) * c->s_ref)
                    return back_off(c);
                c->s_ref = c->s;
                c->epoch_n = 0;
            }
        }
    }
    if (c->avoid)
        c->prio += c->ssthresh / p->alpha;
    else
        c->prio *= 1 + 1 / p->alpha;
    c->prio = clampd(c->prio, p->p_min, p->p_max);
    return QC_ADM_EV_GROW;
}

int qc_adm_step(qc_adm *c, const qc_adm_sense *in, qc_adm_act *out)
{
    int rc = 0;
    out->event = QC_ADM_EV_NONE;
    if (!(in->count > 0) || !isfinite(in->delay) || !isfinite(in->count) || in->delay < 0) {
        rc = QC_EINVAL;
    } else if (c->state != QC_ADM_REJECTED) {
        c->samples++;
        double lam = c->p.smoothing;
        c->s = isnan(c->s) ? in->delay : (1 - lam) * c->s + lam * in->delay;
        if (c->state == QC_ADM_ADMITTED) {
            track(c, in);
            out->event = QC_ADM_EV_TRACK;
        } else if (c->frozen || c->s <= target(c)) {
            /* Probation: the candidate reached its target and freezes its
             * priority for S + K samples: the first S give the admitted
             * classes time to answer the priority it took (they raise
             * theirs if it hurt them, which raises its delay), the last K
             * are the test: it is admitted if its mean delay per job over
             * them is within its bound, else it grows again. Freezing,
             * rather than tracking, keeps it from pushing while the
             * admitted classes settle. */
            if (!c->frozen) {
                c->frozen = 1;
                c->held = 0;
                c->win_len = 0;
            }
            out->event = QC_ADM_EV_HOLD;
            if (++c->held > c->p.settle) {
                c->win_sum[c->win_len] = in->delay * in->count;
                c->win_n[c->win_len] = in->count;
                c->win_len++;
            }
            if (c->win_len == c->p.admit_window) {
                double sum = 0, n = 0;
                for (unsigned i = 0; i < c->win_len; i++) {
                    sum += c->win_sum[i];
                    n += c->win_n[i];
                }
                c->frozen = 0;
                c->win_len = 0;
                if (sum / n <= c->p.bound) {
                    c->state = QC_ADM_ADMITTED;
                    out->event = QC_ADM_EV_ADMIT;
                }
            }
        } else {
            out->event = grow(c);
        }
    }
    out->priority = c->prio;
    out->state = c->state;
    out->target = target(c);
    out->smoothed = c->s;
    return rc;
}
