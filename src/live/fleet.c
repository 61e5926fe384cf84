/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fleet.c: power states, routing and the idle timer of the proxy's
 * backends (fleet.h has the rules).
 *
 * Every state change goes through set_state, which closes the time spent
 * in the old state, so the accounting is exact whatever order the I/O
 * layer reports events in. The invariant kept: a backend's queue
 * (inflight + waiting) is only nonzero in SETUP (waiting, never
 * inflight), ON and PARKING (inflight only); an OFF backend holds
 * nothing, so parking never drops a request. */
#include <math.h>

#include "live/fleet.h"
#include "qctl/fleet.h"

const double qc__fleet_setup_le[QC_FLEET_SETUP_BUCKETS] = {0.1, 0.25, 0.5, 1,       2.5,
                                                         5,   10,   30,  INFINITY};

const char *qc__fleet_state_name(qc__fleet_state s)
{
    static const char *const names[QC_FLEET_NSTATES] = {"off", "setup", "on", "parking"};
    return (unsigned)s < QC_FLEET_NSTATES ? names[s] : "?";
}

int qc__fleet_check(const qc__fleet_params *cfg, unsigned n, qc_err *err)
{
    if (n == 0 || n > QC_FLEET_MAX)
        return qc_err_set(err, QC_EINVAL, "backends: between 1 and %d", QC_FLEET_MAX);
    if (cfg->route == QC_FLEET_DJSQ && cfg->threshold < 1)
        return qc_err_set(err, QC_EINVAL, "djsq threshold: must be >= 1");
    if (!(cfg->idle_off > 0))
        return qc_err_set(err, QC_EINVAL, "idle-off: must be > 0");
    if (cfg->min_on < 1 || cfg->min_on > n)
        return qc_err_set(err, QC_EINVAL, "min-on: %u is not between 1 and the %u backends",
                          cfg->min_on, n);
    if (cfg->max_on && (cfg->max_on < cfg->min_on || cfg->max_on > n))
        return qc_err_set(err, QC_EINVAL, "max-on: %u is not between min-on %u and the %u backends",
                          cfg->max_on, cfg->min_on, n);
    if (cfg->initially_on && (cfg->initially_on < cfg->min_on || cfg->initially_on > n))
        return qc_err_set(err, QC_EINVAL,
                          "initially-on: %u is not between min-on %u and the %u backends",
                          cfg->initially_on, cfg->min_on, n);
    if (cfg->max_on && cfg->initially_on > cfg->max_on)
        return qc_err_set(err, QC_EINVAL, "initially-on: %u is above max-on %u", cfg->initially_on,
                          cfg->max_on);
    if (cfg->route == QC_FLEET_JSQ && cfg->initially_on && cfg->initially_on < n)
        return qc_err_set(err, QC_EINVAL, "initially-on: jsq keeps every backend on (use djsq)");
    return 0;
}

static void set_state(qc__fleet *f, unsigned i, qc__fleet_state s, double now)
{
    qc__fleet_backend *b = &f->b[i];
    b->time[b->state] += now - b->since;
    b->state = s;
    b->since = now;
}

void qc__fleet_init(qc__fleet *f, const qc__fleet_params *cfg, unsigned n, double now)
{
    *f = (qc__fleet){.cfg = *cfg, .n = n};
    if (cfg->route == QC_FLEET_JSQ) {
        f->cfg.idle_off = INFINITY;
        f->cfg.initially_on = n;
        f->cfg.min_on = n;
    }
    if (!f->cfg.max_on)
        f->cfg.max_on = n;
    if (!f->cfg.initially_on)
        f->cfg.initially_on = n;
    for (unsigned i = 0; i < n; i++) {
        qc__fleet_backend *b = &f->b[i];
        b->state = i < f->cfg.initially_on ? QC_FLEET_ON : QC_FLEET_OFF;
        b->since = b->idle_since = now;
        b->down_until = -INFINITY;
    }
}

unsigned qc__fleet_count(const qc__fleet *f, qc__fleet_state s)
{
    unsigned k = 0;
    for (unsigned i = 0; i < f->n; i++)
        k += f->b[i].state == s;
    return k;
}

static unsigned powered(const qc__fleet *f)
{
    return f->n - qc__fleet_count(f, QC_FLEET_OFF);
}

/* Fewest in flight among the ON backends, from a rotating start. */
static int route_jsq(qc__fleet *f, double now, int avoid_down)
{
    int best = -1;
    for (unsigned k = 0; k < f->n; k++) {
        unsigned i = (f->rr + k) % f->n;
        const qc__fleet_backend *b = &f->b[i];
        if (b->state != QC_FLEET_ON || (avoid_down && b->down_until > now))
            continue;
        if (best < 0 || b->inflight < f->b[best].inflight)
            best = (int)i;
    }
    return best;
}

/* delay-JSQ, the rule of qctl/fleet.h: a PARKING backend takes nothing
 * new, nor (avoid_down) one whose last connect or unpark failed a moment
 * ago; an OFF one may be unparked while fewer than max_on are powered. */
static int route_djsq(qc__fleet *f, double now, int avoid_down)
{
    static const qc_djsq_state as[QC_FLEET_NSTATES] = {
        [QC_FLEET_OFF] = QC_DJSQ_OFF, [QC_FLEET_SETUP] = QC_DJSQ_SETUP,
        [QC_FLEET_ON] = QC_DJSQ_ON, [QC_FLEET_PARKING] = QC_DJSQ_SKIP};
    qc_djsq_server view[QC_FLEET_MAX];
    for (unsigned i = 0; i < f->n; i++) {
        const qc__fleet_backend *b = &f->b[i];
        int skip = avoid_down && b->down_until > now;
        view[i] = (qc_djsq_server){skip ? QC_DJSQ_SKIP : as[b->state], b->inflight + b->waiting,
                                   b->idle_since};
    }
    return qc_djsq_route(view, f->n, f->cfg.threshold, powered(f) < f->cfg.max_on);
}

int qc__fleet_route(qc__fleet *f, double now, int *unparked)
{
    *unparked = 0;
    int i;
    if (f->cfg.route == QC_FLEET_JSQ) {
        if ((i = route_jsq(f, now, 1)) < 0)
            i = route_jsq(f, now, 0);
        f->rr++;
    } else if ((i = route_djsq(f, now, 1)) < 0) {
        i = route_djsq(f, now, 0);
    }
    if (i >= 0 && f->b[i].state == QC_FLEET_OFF) {
        qc__fleet_unpark(f, (unsigned)i, now);
        *unparked = 1;
    }
    return i;
}

void qc__fleet_wait(qc__fleet *f, unsigned i)
{
    f->b[i].waiting++;
}

void qc__fleet_unwait(qc__fleet *f, unsigned i, double now)
{
    qc__fleet_backend *b = &f->b[i];
    if (b->waiting)
        b->waiting--;
    if (b->state == QC_FLEET_ON && b->waiting + b->inflight == 0)
        b->idle_since = now;
}

void qc__fleet_sent(qc__fleet *f, unsigned i)
{
    f->b[i].inflight++;
}

int qc__fleet_done(qc__fleet *f, unsigned i, int ok, double now)
{
    qc__fleet_backend *b = &f->b[i];
    if (b->inflight)
        b->inflight--;
    if (ok)
        b->answered++;
    else
        b->failed++;
    if (b->inflight + b->waiting > 0)
        return 0;
    if (b->state == QC_FLEET_ON)
        b->idle_since = now;
    return b->state == QC_FLEET_PARKING;
}

void qc__fleet_connect_failed(qc__fleet *f, unsigned i, double now)
{
    f->b[i].down_until = now + 1;
}

void qc__fleet_unpark(qc__fleet *f, unsigned i, double now)
{
    qc__fleet_backend *b = &f->b[i];
    b->unparks++;
    b->unparked_at = now;
    set_state(f, i, QC_FLEET_SETUP, now);
}

void qc__fleet_ready(qc__fleet *f, unsigned i, double now)
{
    qc__fleet_backend *b = &f->b[i];
    double w = now - b->unparked_at;
    f->setups++;
    f->setup_sum += w;
    if (w > f->setup_max)
        f->setup_max = w;
    for (unsigned k = 0; k < QC_FLEET_SETUP_BUCKETS; k++)
        f->setup_bucket[k] += w <= qc__fleet_setup_le[k];
    set_state(f, i, QC_FLEET_ON, now);
    b->idle_since = now;
    b->down_until = -INFINITY;
}

void qc__fleet_unpark_failed(qc__fleet *f, unsigned i, double now)
{
    qc__fleet_backend *b = &f->b[i];
    b->unpark_failures++;
    b->waiting = 0; /* the caller routes them again */
    b->down_until = now + 1;
    set_state(f, i, QC_FLEET_OFF, now);
}

int qc__fleet_park(qc__fleet *f, unsigned i, double now)
{
    qc__fleet_backend *b = &f->b[i];
    b->parks++;
    set_state(f, i, QC_FLEET_PARKING, now);
    return b->inflight == 0;
}

void qc__fleet_off(qc__fleet *f, unsigned i, double now)
{
    set_state(f, i, QC_FLEET_OFF, now);
}

void qc__fleet_tick(qc__fleet *f, double now, unsigned *park, unsigned *npark, unsigned *unpark,
                    unsigned *nunpark)
{
    *npark = *nunpark = 0;
    unsigned up = qc__fleet_count(f, QC_FLEET_ON) + qc__fleet_count(f, QC_FLEET_SETUP);
    for (unsigned i = 0; i < f->n && up > f->cfg.min_on; i++) {
        qc__fleet_backend *b = &f->b[i];
        if (b->state != QC_FLEET_ON || b->inflight + b->waiting > 0 ||
            now - b->idle_since < f->cfg.idle_off)
            continue;
        up--;
        if (qc__fleet_park(f, i, now))
            park[(*npark)++] = i;
    }
    for (unsigned i = 0; i < f->n && up < f->cfg.min_on; i++) {
        qc__fleet_backend *b = &f->b[i];
        if (b->state != QC_FLEET_OFF || b->down_until > now)
            continue;
        up++;
        qc__fleet_unpark(f, i, now);
        unpark[(*nunpark)++] = i;
    }
}

void qc__fleet_times(const qc__fleet *f, unsigned i, double now, double out[QC_FLEET_NSTATES])
{
    const qc__fleet_backend *b = &f->b[i];
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
        out[s] = b->time[s];
    out[b->state] += now - b->since;
}
