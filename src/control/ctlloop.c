/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ctlloop.c: the control loop of `qctl control` (see qctl/ctlloop.h).
 *
 * The invariant is that the setting a step returns is always one the
 * server could take: within [u_min, u_max] for the PI kinds, one of the
 * two levels for OPEN, and for PARK a fleet with at least min_on servers
 * ON or starting, whose every transition is OFF -> SETUP -> ON -> DRAIN
 * -> OFF (a server is never switched off with requests in it: it drains
 * first, and one drained while the load comes back is put back ON).
 * A hold keeps the state as it was, so the integrator only ever moves on
 * a sample taken under a setting the server actually applied. */
#include "qctl/ctlloop.h"

#include <math.h>
#include <string.h>

const char *qc_ctlloop_kind_name(qc_ctlloop_kind v)
{
    static const char *const n[] = {"static", "integral", "pi", "open", "park"};
    return (unsigned)v < 5 ? n[v] : "?";
}

const char *qc_park_state_name(qc_park_state v)
{
    static const char *const n[] = {"off", "setup", "on", "drain"};
    return (unsigned)v < 4 ? n[v] : "?";
}

void qc_ctlloop_params_init(qc_ctlloop_params *p)
{
    memset(p, 0, sizeof *p);
    p->kind = QC_CTLLOOP_STATIC;
    p->u_init = NAN;
    p->ki = 0.1;
    p->u_min = 1;
    p->u_max = 1000;
    p->aw = QC_AW_CONDITIONAL;
    p->k_aw = 1;
    p->levels[0] = p->levels[1] = NAN;
    p->hold = 3;
    p->seed = 1;
    p->min_on = 1;
    p->threshold = 4;
    p->idle_wait = 10;
    p->setup = 5;
}

static qc_pi_params pi_of(const qc_ctlloop_params *p)
{
    return (qc_pi_params){p->kind == QC_CTLLOOP_PI ? p->kp : 0,
                          p->ki,
                          p->u_min,
                          p->u_max,
                          isfinite(p->u_init) ? p->u_init : p->u_min,
                          p->aw,
                          p->k_aw};
}

int qc_ctlloop_init(qc_ctlloop *c, const qc_ctlloop_params *p, qc_err *err)
{
    memset(c, 0, sizeof *c);
    c->p = *p;
    if (!(p->control_from >= 0) || !isfinite(p->control_from))
        return qc_err_set(err, QC_ERANGE, "control_from: must be >= 0 seconds");
    switch (p->kind) {
    case QC_CTLLOOP_STATIC:
        if (!isfinite(p->u_init))
            return qc_err_set(err, QC_EINVAL, "u_init: the static setting is needed");
        c->u = p->u_init;
        break;
    case QC_CTLLOOP_INTEGRAL:
    case QC_CTLLOOP_PI: {
        if (p->nref == 0)
            return qc_err_set(err, QC_EINVAL, "reference: needed by the %s controller",
                              qc_ctlloop_kind_name(p->kind));
        if (p->kind == QC_CTLLOOP_INTEGRAL && p->kp != 0)
            return qc_err_set(err, QC_EINVAL, "kp: only with the pi controller");
        qc_pi_params pp = pi_of(p);
        int rc = qc_mu_ctl_init(&c->mu, &pp, err);
        if (rc)
            return rc;
        c->u = pp.u_init;
        break;
    }
    case QC_CTLLOOP_OPEN:
        if (!isfinite(p->levels[0]) || !isfinite(p->levels[1]))
            return qc_err_set(err, QC_EINVAL, "levels: the two settings of the excitation");
        if (p->hold < 1)
            return qc_err_set(err, QC_ERANGE, "hold: at least 1 interval");
        c->u = isfinite(p->u_init) ? p->u_init : p->levels[0];
        break;
    case QC_CTLLOOP_PARK:
        if (p->servers < 1 || p->servers > QC_CTLLOOP_SERVERS_MAX)
            return qc_err_set(err, QC_ERANGE, "servers: 1 to %d", QC_CTLLOOP_SERVERS_MAX);
        if (p->min_on < 1 || p->min_on > p->servers)
            return qc_err_set(err, QC_ERANGE, "min_on: 1 to the servers (%u)", p->servers);
        if (!(p->threshold > 0) || !isfinite(p->threshold))
            return qc_err_set(err, QC_ERANGE, "threshold: must be > 0");
        if (!(p->idle_wait >= 0) || !isfinite(p->idle_wait) || !(p->setup >= 0) ||
            !isfinite(p->setup))
            return qc_err_set(err, QC_ERANGE, "idle_wait, setup: must be >= 0 seconds");
        for (unsigned i = 0; i < p->servers; i++)
            c->state[i] = i < p->min_on ? QC_PARK_ON : QC_PARK_OFF;
        c->u = p->min_on;
        break;
    default: return qc_err_set(err, QC_EINVAL, "kind: unknown");
    }
    qc_rng_init(&c->rng, p->seed, qc_rng_stream(0, QC_STREAM_CONTROL, 0));
    c->applied = NAN;
    c->low_since = NAN;
    c->t_prev = NAN;
    return 0;
}

static unsigned count(const qc_ctlloop *c, qc_park_state s)
{
    unsigned n = 0;
    for (unsigned i = 0; i < c->p.servers; i++)
        n += c->state[i] == s;
    return n;
}

static void park_step(qc_ctlloop *c, const qc_ctlloop_sense *in, qc_ctlloop_act *out)
{
    const qc_ctlloop_params *p = &c->p;
    double t = in->t;
    /* the energy of the interval just ended, under the states it ran with */
    if (isfinite(c->t_prev) && t > c->t_prev)
        c->server_seconds += (t - c->t_prev) * (p->servers - count(c, QC_PARK_OFF));
    c->t_prev = t;
    for (unsigned i = 0; i < p->servers; i++)
        if (c->state[i] == QC_PARK_SETUP && t - c->since[i] >= p->setup - 1e-9)
            c->state[i] = QC_PARK_ON;
    if (!in->ok || !in->sessions || !isfinite(in->queue)) {
        c->held_missing++;
        out->held = 1;
        return;
    }
    double n = in->queue > 0 ? in->queue : 0;
    for (unsigned i = 0; i < p->servers; i++) {
        double s = in->sessions[i];
        if (isfinite(s) && s > 0)
            n += s;
        /* a drained server with nothing left is switched off */
        if (c->state[i] == QC_PARK_DRAIN && isfinite(s) && s <= 0) {
            c->state[i] = QC_PARK_OFF;
            c->stops++;
        }
    }
    unsigned on = count(c, QC_PARK_ON), setup = count(c, QC_PARK_SETUP);
    unsigned need = (unsigned)ceil(n / p->threshold - 1e-9);
    if (need < p->min_on)
        need = p->min_on;
    if (need > p->servers)
        need = p->servers;
    /* too few: a draining server back ON first (it is warm), then starts */
    for (unsigned i = 0; i < p->servers && on + setup < need; i++)
        if (c->state[i] == QC_PARK_DRAIN) {
            c->state[i] = QC_PARK_ON;
            on++;
        }
    for (unsigned i = 0; i < p->servers && on + setup < need; i++)
        if (c->state[i] == QC_PARK_OFF) {
            c->state[i] = p->setup > 0 ? QC_PARK_SETUP : QC_PARK_ON;
            c->since[i] = t;
            c->starts++;
            if (p->setup > 0)
                setup++;
            else
                on++;
        }
    /* too many for idle_wait: drain the least loaded ON server (the last
     * of equals, so the low indices stay on) */
    if (on > p->min_on && n <= p->threshold * (on - 1) && setup == 0) {
        if (!isfinite(c->low_since))
            c->low_since = t;
        if (t - c->low_since >= p->idle_wait - 1e-9) {
            int best = -1;
            for (unsigned i = 0; i < p->servers; i++)
                if (c->state[i] == QC_PARK_ON &&
                    (best < 0 || !(in->sessions[i] > in->sessions[best])))
                    best = (int)i;
            if (best >= 0) {
                double s = in->sessions[best];
                c->state[best] = isfinite(s) && s <= 0 ? QC_PARK_OFF : QC_PARK_DRAIN;
                if (c->state[best] == QC_PARK_OFF)
                    c->stops++;
                on--;
            }
            c->low_since = t; /* the next one waits idle_wait again */
        }
    } else {
        c->low_since = NAN;
    }
    c->u = on;
}

void qc_ctlloop_step(qc_ctlloop *c, const qc_ctlloop_sense *in, qc_ctlloop_act *out)
{
    const qc_ctlloop_params *p = &c->p;
    memset(out, 0, sizeof *out);
    out->r = NAN;
    int ok = in->ok && isfinite(in->y) && isfinite(in->t);
    double t = in->t;
    switch (p->kind) {
    case QC_CTLLOOP_STATIC: c->u = p->u_init; break;
    case QC_CTLLOOP_OPEN:
        if (t < p->control_from)
            break;
        if (c->k > 0 && c->k % p->hold == 0 && (p->steps || qc_rng_u01(&c->rng) < 0.5))
            c->level = !c->level;
        c->k++;
        c->u = p->levels[c->level];
        break;
    case QC_CTLLOOP_INTEGRAL:
    case QC_CTLLOOP_PI: {
        double r = qc_sched_at(p->ref, p->nref, t);
        out->r = r;
        if (t < p->control_from)
            break;
        if (!ok) {
            c->held_missing++;
            out->held = 1;
            break;
        }
        qc_mu_ctl_sense s = {r, in->y, in->peak};
        qc_mu_ctl_act a;
        qc_mu_ctl_step(&c->mu, &s, &a);
        c->u = a.u;
        c->k++;
        out->held = a.held;
        out->saturated = a.saturated;
        c->held_demand += (unsigned long long)a.held;
        c->saturated += a.saturated != 0;
        break;
    }
    case QC_CTLLOOP_PARK: {
        qc_ctlloop_sense s = *in;
        s.ok = in->ok && isfinite(t);
        park_step(c, &s, out);
        out->state = c->state;
        out->on = count(c, QC_PARK_ON);
        out->starting = count(c, QC_PARK_SETUP);
        break;
    }
    }
    out->u = c->u;
}

void qc_ctlloop_applied(qc_ctlloop *c, double u) { c->applied = u; }

void qc_ctlloop_refused(qc_ctlloop *c)
{
    c->held_refused++;
    /* only an integrator has a state that a setting never taken would
     * wind up; a fixed setting, the excitation and the parked fleet are
     * asked for again as they are at the next interval */
    if (!isfinite(c->applied))
        return;
    if (c->p.kind == QC_CTLLOOP_INTEGRAL || c->p.kind == QC_CTLLOOP_PI) {
        qc_mu_ctl_reset(&c->mu, c->applied);
        c->u = c->mu.u;
    }
}
