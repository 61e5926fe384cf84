/* SPDX-License-Identifier: GPL-3.0-or-later */
/* codel.c: the waiting room's discipline, CoDel's standing-queue test
 * with a short deadline and adaptive LIFO (the rule and why its target
 * and interval have floors are in qctl/codel.h). The state is one flag
 * (standing) and what the current control interval saw of the requests
 * let in; every decision is a function of it and of the waits the plant
 * passes. */
#include "qctl/codel.h"

#include <math.h>

void qc_codel_params_init(qc_codel_params *p)
{
    p->target = 0;
    p->floor = 0.005; /* CoDel's default target */
    p->k = 1;
    p->fallback = 0.05;
    p->interval = 0.1; /* CoDel's */
}

int qc_codel_init(qc_codel *c, const qc_codel_params *p, qc_err *err)
{
    if (!(p->target >= 0) || !isfinite(p->target))
        return qc_err_set(err, QC_ERANGE, "target: %g must be >= 0 (0: adaptive)", p->target);
    if (!(p->floor > 0) || !isfinite(p->floor))
        return qc_err_set(err, QC_ERANGE, "floor: %g must be > 0", p->floor);
    if (!(p->k > 0) || !isfinite(p->k))
        return qc_err_set(err, QC_ERANGE, "k: %g must be > 0", p->k);
    if (!(p->fallback > 0) || !isfinite(p->fallback))
        return qc_err_set(err, QC_ERANGE, "fallback: %g must be > 0", p->fallback);
    if (!(p->interval > 0) || !isfinite(p->interval))
        return qc_err_set(err, QC_ERANGE, "interval: %g must be > 0", p->interval);
    *c = (qc_codel){.p = *p, .q_min = INFINITY};
    qc_codel_set_noload(c, NAN);
    return 0;
}

double qc_codel_set_noload(qc_codel *c, double l0)
{
    const qc_codel_params *p = &c->p;
    double t = p->target;
    if (!(t > 0))
        t = l0 > 0 && isfinite(l0) ? fmax(p->floor, p->k * l0) : p->fallback;
    c->target = t;
    c->interval = p->interval;
    return t;
}

/* The queue stands from now: the plant refuses what qc_codel_expired says. */
int qc_codel_head(qc_codel *c, double head_wait)
{
    if (c->standing || !(head_wait > c->target + c->interval))
        return 0;
    c->standing = 1;
    return 1;
}

void qc_codel_admitted(qc_codel *c, double waited)
{
    if (waited < c->q_min)
        c->q_min = waited;
}

int qc_codel_tick(qc_codel *c, double head_wait)
{
    if (c->standing && c->q_min <= 0)
        c->standing = 0; /* a slot was free: the configured deadlines again */
    c->q_min = INFINITY;
    qc_codel_head(c, head_wait);
    return c->standing;
}

int qc_codel_expired(const qc_codel *c, double waited)
{
    return c->standing && waited > c->target;
}

double qc_codel_deadline(const qc_codel *c, double deadline)
{
    return c->standing && c->target < deadline ? c->target : deadline;
}

int qc_codel_lifo(const qc_codel *c, double head_wait)
{
    return c->standing || head_wait > c->target;
}
