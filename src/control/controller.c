/* SPDX-License-Identifier: GPL-3.0-or-later */
/* controller.c: the PI / integral step object with actuator saturation and
 * anti-windup (equations in qctl/controller.h). */
#include "qctl/controller.h"
#include "core/names.h"

#include <math.h>

static double clamp(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

void qc_pi_params_init(qc_pi_params *p)
{
    *p = (qc_pi_params){.kp = 0,
                        .ki = 0.1,
                        .u_min = 0,
                        .u_max = 1000,
                        .u_init = 0,
                        .aw = QC_AW_CONDITIONAL,
                        .k_aw = 1};
}

int qc_pi_init(qc_pi *c, const qc_pi_params *p, qc_err *err)
{
    if (!isfinite(p->kp) || !isfinite(p->ki))
        return qc_err_set(err, QC_EINVAL, "controller gains must be finite (K_P = %g, K_I = %g)",
                          p->kp, p->ki);
    if (!(p->u_min < p->u_max) || !isfinite(p->u_min) || !isfinite(p->u_max))
        return qc_err_set(err, QC_EINVAL, "actuator limits [%g, %g] are not an interval", p->u_min,
                          p->u_max);
    if (!(p->u_init >= p->u_min && p->u_init <= p->u_max))
        return qc_err_set(err, QC_ERANGE, "initial actuation %g is outside [%g, %g]", p->u_init,
                          p->u_min, p->u_max);
    if (p->aw == QC_AW_BACKCALC && !(p->k_aw > 0 && p->k_aw <= 1))
        return qc_err_set(err, QC_ERANGE, "back-calculation gain %g is not in (0, 1]", p->k_aw);
    if (p->aw != QC_AW_NONE && p->aw != QC_AW_CONDITIONAL && p->aw != QC_AW_BACKCALC)
        return qc_err_set(err, QC_EINVAL, "unknown anti-windup mode %d", (int)p->aw);
    c->p = *p;
    c->integ = p->u_init;
    return 0;
}

int qc_pi_step(qc_pi *c, const qc_pi_sense *in, qc_pi_act *out)
{
    const qc_pi_params *p = &c->p;
    if (!isfinite(in->y) || !isfinite(in->r)) {
        out->u = clamp(c->integ, p->u_min, p->u_max);
        out->v = c->integ;
        out->saturated = out->u <= p->u_min ? -1 : out->u >= p->u_max ? 1 : 0;
        return QC_EINVAL;
    }
    double e = in->r - in->y;
    double integ = c->integ + p->ki * e;
    double v = p->kp * e + integ;
    double u = clamp(v, p->u_min, p->u_max);
    switch (p->aw) {
    case QC_AW_NONE:
        break;
    case QC_AW_CONDITIONAL:
        /* Integrate only as far as the limit that the new error pushes
         * toward: the integrator may reach the value that puts v at the
         * limit, never beyond it (and is not pulled back if it already
         * was beyond, which only a change of limits can cause). */
        if (v > p->u_max && p->ki * e > 0) {
            double cap = p->u_max - p->kp * e;
            integ = c->integ > cap ? c->integ : cap;
        } else if (v < p->u_min && p->ki * e < 0) {
            double floor_ = p->u_min - p->kp * e;
            integ = c->integ < floor_ ? c->integ : floor_;
        }
        v = p->kp * e + integ;
        u = clamp(v, p->u_min, p->u_max);
        break;
    case QC_AW_BACKCALC:
        integ += p->k_aw * (u - v);
        break;
    }
    c->integ = integ;
    out->u = u;
    out->v = v;
    /* at a limit, whether the law asked for more or exactly that */
    out->saturated = (u <= p->u_min && v <= p->u_min) ? -1 : (u >= p->u_max && v >= p->u_max) ? 1 : 0;
    return 0;
}

int qc_mu_ctl_init(qc_mu_ctl *c, const qc_pi_params *p, qc_err *err)
{
    int rc = qc_pi_init(&c->pi, p, err);
    if (rc == 0)
        c->u = p->u_init;
    return rc;
}

int qc_mu_ctl_step(qc_mu_ctl *c, const qc_mu_ctl_sense *in, qc_mu_ctl_act *out)
{
    const qc_pi_params *p = &c->pi.p;
    out->held = 0;
    if (!isfinite(in->y) || !isfinite(in->r)) {
        out->u = c->u;
        out->saturated = c->u <= p->u_min ? -1 : c->u >= p->u_max ? 1 : 0;
        return QC_EINVAL;
    }
    if (in->peak < floor(c->u) && in->y < in->r) {
        out->u = c->u;
        out->saturated = 0;
        out->held = 1;
        return 0;
    }
    qc_pi_sense s = {in->r, in->y};
    qc_pi_act a;
    int rc = qc_pi_step(&c->pi, &s, &a);
    c->u = a.u;
    out->u = a.u;
    out->saturated = a.saturated;
    return rc;
}

void qc_mu_ctl_reset(qc_mu_ctl *c, double u)
{
    const qc_pi_params *p = &c->pi.p;
    u = clamp(u, p->u_min, p->u_max);
    c->u = u;
    c->pi.integ = u;
}

/* ---- the knee of the latency curve (qctl/controller.h) ---------------- */

void qc_knee_params_init(qc_knee_params *p)
{
    p->headroom = 0.5;
    p->rise = 0.2;
    p->gain = 0.3;
    p->r_min = 1;
    p->r_max = 1000;
    p->r_init = 10;
    p->probe_period = 10;
}

int qc_knee_init(qc_knee *k, const qc_knee_params *p, qc_err *err)
{
    if (!(p->headroom > 0) || !isfinite(p->headroom))
        return qc_err_set(err, QC_ERANGE, "headroom: %g must be > 0", p->headroom);
    if (!(p->rise > 0) || !isfinite(p->rise))
        return qc_err_set(err, QC_ERANGE, "rise: %g must be > 0", p->rise);
    if (!(p->gain > 0 && p->gain <= 1))
        return qc_err_set(err, QC_ERANGE, "gain: %g is not in (0, 1]", p->gain);
    if (!(p->r_min > 0) || !(p->r_max >= p->r_min) || !isfinite(p->r_max))
        return qc_err_set(err, QC_ERANGE, "r_min, r_max: [%g, %g] is not an interval above 0",
                          p->r_min, p->r_max);
    if (!(p->r_init >= p->r_min && p->r_init <= p->r_max))
        return qc_err_set(err, QC_ERANGE, "r_init: %g is outside [%g, %g]", p->r_init, p->r_min,
                          p->r_max);
    if (!(p->probe_period >= 0) || !isfinite(p->probe_period))
        return qc_err_set(err, QC_ERANGE, "probe_period: %g must be >= 0 (0: none)",
                          p->probe_period);
    k->p = *p;
    k->l0 = NAN;
    k->knee = NAN;
    k->r = p->r_init;
    k->next_probe = NAN;
    k->probe_min = INFINITY;
    k->probing = 0;
    k->x_max = 0;
    k->found = 0;
    k->l0_given = 0;
    k->dt_prev = 0;
    return 0;
}

void qc_knee_observe_min(qc_knee *k, double latency)
{
    if (latency > 0 && isfinite(latency) && !(latency >= k->l0)) /* l0 NAN: taken */
        k->l0 = latency;
}

void qc_knee_set_noload(qc_knee *k, double l0)
{
    if (!(l0 > 0) || !isfinite(l0))
        return;
    k->l0 = l0;
    k->l0_given = 1;
}

/* The probe of L0: started every probe_period; ends at the first interval
 * that ran at most knee requests at once (its least latency is L0 then),
 * or after 10 intervals without one (L0 kept). */
static void knee_probe(qc_knee *k, const qc_knee_sense *in)
{
    const double max_intervals = 10;
    if (!(k->p.probe_period > 0) || !k->found)
        return; /* before a knee is measured the reference is not on it */
    if (!k->probing) {
        if (isnan(k->next_probe))
            k->next_probe = in->t + k->p.probe_period;
        if (in->t >= k->next_probe) {
            k->probing = 1;
            k->probe_min = INFINITY;
        }
        return;
    }
    if (in->peak <= floor(k->knee) && in->min < k->probe_min)
        k->probe_min = in->min;
    if (isfinite(k->probe_min) || k->probing >= max_intervals) {
        if (isfinite(k->probe_min) && !k->l0_given)
            k->l0 = k->probe_min; /* may rise: a server that became slower */
        k->probing = 0;
        k->next_probe = in->t + k->p.probe_period;
        return;
    }
    k->probing++;
}

/* Whether an interval measured the knee, not merely a lower bound of it.
 * Its latency must have risen, and from the server's own queueing: a
 * server of c workers queues only while it holds more than c requests,
 * and its knee X_max L0 is c >= 1. At a light load the latency rises
 * without that: in an M/M/1 server L = L0 / (1 - rho), 20% above L0 from
 * rho = 1/6 on, and host jitter does the same to any server; the sample
 * n = X L0 = rho c is then the knee scaled down by the load (0.2 for a
 * one-worker 1 ms backend at 200/s, where the adaptive settings once
 * refused 1 to 2% of the requests). So the interval must also have held
 * y = X mean >= max(1, knee) requests on average (Little: the workers
 * were busy), and its gate must have been full at some instant (peak >=
 * limit, when the plant says what the limit was): the demand exceeded what
 * was let in, so X is what the server gives, not what the clients ask.
 * And the sample itself must be a possible knee, n = X L0 >= 1: a
 * saturated server keeps X S >= 1 workers busy (S >= L0 its mean
 * service); an interval under one is a host that stalled the server (or
 * the plant) for a while, every request of the interval late by the
 * stall, which measured the host, not the server (seen on a loaded
 * machine: one 0.5 s control interval put the knee of a one-worker 1 ms
 * backend at 0.12 and its limit at 1). */
static int knee_measured(const qc_knee *k, const qc_knee_sense *in, double n, int risen)
{
    double y = in->n * in->mean / in->dt, floor_ = isfinite(k->knee) && k->knee > 1 ? k->knee : 1;
    /* An interval under half the one before is a timer that caught up
     * after a stall: its X counts the completions the stall bunched (seen:
     * a knee of 4.9 for a one-worker 1 ms backend at 200/s). */
    int whole = !(in->dt < 0.5 * k->dt_prev);
    return risen && whole && n >= 1 && y >= floor_ && !(in->limit > 0 && in->peak < in->limit);
}

void qc_knee_step(qc_knee *k, const qc_knee_sense *in, qc_knee_act *out)
{
    const qc_knee_params *p = &k->p;
    out->first = 0;
    if (in->n >= 1 && in->dt > 0 && in->mean >= 0 && in->min > 0 && isfinite(in->mean) &&
        isfinite(in->min) && isfinite(in->dt)) {
        int had = isfinite(k->knee);
        if (!k->probing) { /* a probe's interval runs below the knee: no sample of it */
            if (!k->l0_given)
                qc_knee_observe_min(k, in->min);
            double x = in->n / in->dt, n = x * k->l0;
            /* the best throughput of late (decaying 1% an interval) */
            k->x_max = x > k->x_max * 0.99 ? x : k->x_max * 0.99;
            int risen = in->mean > k->l0 * (1 + p->rise);
            int measured = knee_measured(k, in, n, risen);
            if (!had || (measured && !k->found))
                k->knee = n;
            else if (measured && x >= 0.9 * k->x_max)
                k->knee += p->gain * (n - k->knee);
            else if (measured)
                ; /* latency rose while the throughput fell: not the server's
                     capacity (a slower host, or a limit below the knee); kept */
            else if (n > k->knee)
                k->knee = n; /* n = X L0 <= c whatever the load: a lower bound */
            /* Until a knee is measured the reference stays at r_init at
             * least (the light-load floor): the lower bound of a light load
             * is far below the knee, and a reference on it would queue the
             * requests that the server would have run at once. */
            double r = k->knee * (1 + p->headroom);
            if (!(k->found || measured) && r < p->r_init)
                r = p->r_init;
            k->r = clamp(r, p->r_min, p->r_max);
            /* the first interval that measured the knee: not a bound */
            out->first = measured && !k->found;
            k->found |= measured;
        }
        knee_probe(k, in);
    }
    if (in->dt > 0 && isfinite(in->dt))
        k->dt_prev = in->dt;
    out->probing = k->probing > 0;
    out->r = k->probing ? clamp(k->knee / 2, p->r_min, p->r_max) : k->r;
}

double qc_knee_queue_target(double l0, double lo, double hi, double fallback)
{
    if (!(l0 > 0) || !isfinite(l0))
        return fallback;
    return clamp(l0, lo, hi);
}

double qc_knee_queue_interval(double target)
{
    return 4 * target;
}

static const char *const antiwindup_names[] = {"none", "conditional", "backcalc"};
QC__NAMES(qc_antiwindup, qc_antiwindup_name, qc_antiwindup_parse, antiwindup_names)
