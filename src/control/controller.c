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

static const char *const antiwindup_names[] = {"none", "conditional", "backcalc"};
QC__NAMES(qc_antiwindup, qc_antiwindup_name, qc_antiwindup_parse, antiwindup_names)
