/* SPDX-License-Identifier: GPL-3.0-or-later */
/* removable_sim.c: a discrete-event simulation of one removable server
 * under a policy table, on the qctl kernel: the independent check of the
 * exact chain in src/mdp/removable.c.
 *
 * The plant. Poisson arrivals (a kernel source), FCFS, at most nmax jobs
 * (later arrivals are lost, as in the chain). The server is OFF, SETUP
 * or ON. After every event the policy is applied at once:
 *   OFF:  switch_on[n] ? start the setup (count a switch-on, draw an
 *         exponential setup of rate alpha) : stay off;
 *   ON:   on_action[n] = rate i: serve at mu_i; IDLE: stop serving (and,
 *         at n = 0 with a timer, arm it); OFF: switch off, then apply the
 *         OFF decision (a coherent policy stays off).
 * The job in service is served at the rate in force; when the rate
 * changes its remaining time is drawn afresh from Exp(new rate), which is
 * exact because the exponential law forgets the time already served. So
 * at most one departure, one setup end and one timer are pending.
 *
 * Measures per replication, over [warmup, warmup + horizon]: the time
 * integrals of n, of the power cost rate in force and of the time
 * in setup; switch-ons and departures counted; each departing job's
 * response time (its own clock, not Little's law). Replications start
 * empty and off, use their own streams (arrivals, services, setups,
 * timer) derived from the seed, and give Student-t intervals. */
#include "qctl/removable_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/rng.h"
#include "qctl/sim.h"

enum { EV_ARRIVAL = 0, EV_DEPART, EV_SETUP, EV_TIMER, EV_START, EV_END };
enum { M_JOBS = 0, M_RESP, M_POWER, M_SWITCH, M_SETUP, M_COST, M_THR, M_COUNT };

typedef struct srun {
    const qc_removable_sim_params *p;
    const qc_energy_cost *c;
    const qc_removable_policy *pol;
    qc_sim sim;
    qc_rng rarr, rsvc, rsetup, rtimer;
    size_t n;
    int status;       /* QC_SERVER_* */
    int rate;         /* rate index being served, or -1 */
    int64_t dep, tim; /* pending departure and timer handles, or -1 */
    double *ring;     /* arrival times of the jobs present, FCFS */
    size_t cap, head;
    int measuring, done;
    double tlast;
    double area_n, area_power, area_setup, sum_resp;
    uint64_t switch_ons, departures;
} srun;

static double power_now(const srun *r)
{
    switch (r->status) {
    case QC_SERVER_OFF:
        return r->c->off_power;
    case QC_SERVER_SETUP:
        return r->c->setup_power;
    default:
        return r->rate >= 0 ? r->c->power[r->rate] : r->c->idle_power;
    }
}

static inline void advance(srun *r, double t)
{
    if (r->measuring) {
        double dt = t - r->tlast;
        r->area_n += (double)r->n * dt;
        r->area_power += power_now(r) * dt;
        if (r->status == QC_SERVER_SETUP)
            r->area_setup += dt;
    }
    r->tlast = t;
}

static int cancel(srun *r, int64_t *h)
{
    int rc = *h >= 0 ? qc_sim_cancel(&r->sim, *h) : 0;
    *h = -1;
    return rc;
}

static int schedule(srun *r, double delay, uint32_t type, int64_t *h)
{
    int64_t x = qc_sim_after(&r->sim, delay, type, 0);
    if (x < 0)
        return (int)x;
    *h = x;
    return 0;
}

/* Applies the policy to the current state. */
static int apply(srun *r)
{
    const qc_removable_policy *pol = r->pol;
    int rc;
    for (int pass = 0; pass < 2; pass++) {
        if (r->status == QC_SERVER_OFF) {
            if (!pol->switch_on[r->n])
                return 0;
            r->status = QC_SERVER_SETUP;
            if (r->measuring)
                r->switch_ons++;
            int64_t h;
            return schedule(r, qc_rng_exp(&r->rsetup, r->c->setup_rate), EV_SETUP, &h);
        }
        if (r->status == QC_SERVER_SETUP)
            return 0;
        int a = pol->on_action[r->n];
        if (a == QC_REMOVABLE_OFF) {
            if ((rc = cancel(r, &r->dep)) != 0 || (rc = cancel(r, &r->tim)) != 0)
                return rc;
            r->rate = -1;
            r->status = QC_SERVER_OFF;
            continue;
        }
        if (a == QC_REMOVABLE_IDLE) {
            if ((rc = cancel(r, &r->dep)) != 0)
                return rc;
            r->rate = -1;
            if (r->n == 0 && pol->timer > 0 && r->tim < 0) {
                double d = r->p->timer_deterministic ? 1 / pol->timer
                                                      : qc_rng_exp(&r->rtimer, pol->timer);
                return schedule(r, d, EV_TIMER, &r->tim);
            }
            return 0;
        }
        if ((rc = cancel(r, &r->tim)) != 0)
            return rc;
        if (a != r->rate || r->dep < 0) {
            if ((rc = cancel(r, &r->dep)) != 0)
                return rc;
            r->rate = a;
            return schedule(r, qc_rng_exp(&r->rsvc, r->c->rate[a]), EV_DEPART, &r->dep);
        }
        return 0;
    }
    return 0;
}

static int on_event(srun *r, const qc_event *ev)
{
    double t = ev->t;
    advance(r, t);
    if (ev->handle == QC_SIM_SOURCE_HANDLE) {
        int rc = qc_sim_source_at(&r->sim, 0, t + qc_rng_exp(&r->rarr, r->p->lambda));
        if (rc != 0)
            return rc;
        if (r->n < r->pol->nmax) {
            size_t pos = (r->head + r->n) % r->cap;
            r->ring[pos] = t;
            r->n++;
            rc = cancel(r, &r->tim); /* the timer runs only while empty */
            if (rc != 0)
                return rc;
        }
        return apply(r);
    }
    switch (ev->type) {
    case EV_DEPART:
        r->dep = -1;
        if (r->measuring) {
            r->sum_resp += t - r->ring[r->head];
            r->departures++;
        }
        r->head = (r->head + 1) % r->cap;
        r->n--;
        return apply(r);
    case EV_SETUP:
        r->status = QC_SERVER_ON;
        r->rate = -1;
        return apply(r);
    case EV_TIMER:
        r->tim = -1;
        if (r->status == QC_SERVER_ON && r->n == 0) {
            r->status = QC_SERVER_OFF;
            r->rate = -1;
        }
        return apply(r);
    case EV_START:
        r->measuring = 1;
        return 0;
    case EV_END:
        r->done = 1;
        return 0;
    }
    return 0;
}

static int run_once(srun *r, unsigned rep, double out[M_COUNT])
{
    const qc_removable_sim_params *p = r->p;
    qc_sim_reset(&r->sim);
    qc_rng_init(&r->rarr, p->seed, qc_rng_stream(rep, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&r->rsvc, p->seed, qc_rng_stream(rep, QC_STREAM_SERVICE, 0));
    qc_rng_init(&r->rsetup, p->seed, qc_rng_stream(rep, QC_STREAM_SERVER, 0));
    qc_rng_init(&r->rtimer, p->seed, qc_rng_stream(rep, QC_STREAM_CONTROL, 0));
    r->n = 0;
    r->head = 0;
    r->status = QC_SERVER_OFF;
    r->rate = -1;
    r->dep = r->tim = -1;
    r->measuring = r->done = 0;
    r->tlast = 0;
    r->area_n = r->area_power = r->area_setup = r->sum_resp = 0;
    r->switch_ons = r->departures = 0;
    int rc;
    if ((rc = qc_sim_source_at(&r->sim, 0, qc_rng_exp(&r->rarr, p->lambda))) != 0)
        return rc;
    int64_t h;
    if ((rc = schedule(r, p->warmup, EV_START, &h)) != 0 ||
        (rc = schedule(r, p->warmup + p->horizon, EV_END, &h)) != 0 || (rc = apply(r)) != 0)
        return rc;
    qc_event ev;
    while (!r->done && qc_sim_next(&r->sim, &ev) == 0)
        if ((rc = on_event(r, &ev)) != 0)
            return rc;
    double H = p->horizon;
    out[M_JOBS] = r->area_n / H;
    out[M_RESP] = r->departures ? r->sum_resp / (double)r->departures : NAN;
    out[M_POWER] = r->area_power / H;
    out[M_SWITCH] = (double)r->switch_ons / H;
    out[M_SETUP] = r->area_setup / H;
    out[M_THR] = (double)r->departures / H;
    out[M_COST] = r->c->holding * out[M_JOBS] + out[M_POWER] + r->c->switch_cost * out[M_SWITCH];
    return 0;
}

void qc_removable_sim_params_init(qc_removable_sim_params *p)
{
    memset(p, 0, sizeof *p);
    p->lambda = 1;
    p->horizon = 10000;
    p->warmup = 1000;
    p->reps = 10;
    p->seed = 1;
    p->level = 0.99;
}

int qc_removable_simulate(const qc_removable_sim_params *p, qc_removable_sim_result *res,
                          qc_err *err)
{
    memset(res, 0, sizeof *res);
    if (p->cost == NULL || p->policy == NULL)
        return qc_err_set(err, QC_EINVAL, "simulate: cost model and policy are required");
    int rc = qc_energy_check(p->cost, err);
    if (rc != 0)
        return rc;
    if ((rc = qc_removable_policy_check(p->policy, p->cost, err)) != 0)
        return rc;
    if (!(p->lambda > 0 && isfinite(p->lambda)))
        return qc_err_set(err, QC_ERANGE, "lambda: arrival rate %g must be > 0", p->lambda);
    if (!(p->horizon > 0 && isfinite(p->horizon)) || !(p->warmup >= 0 && isfinite(p->warmup)))
        return qc_err_set(err, QC_ERANGE, "simulate: horizon %g must be > 0 and warm-up %g "
                          ">= 0", p->horizon, p->warmup);
    if (p->reps < 2)
        return qc_err_set(err, QC_EINVAL, "simulate: %u replications; need >= 2 for an "
                          "interval", p->reps);
    if (!(p->level > 0 && p->level < 1))
        return qc_err_set(err, QC_EINVAL, "simulate: confidence level %g is not in (0, 1)",
                          p->level);
    srun r;
    memset(&r, 0, sizeof r);
    r.p = p;
    r.c = p->cost;
    r.pol = p->policy;
    r.cap = p->policy->nmax + 1;
    r.ring = malloc(r.cap * sizeof *r.ring);
    double *vals = malloc((size_t)p->reps * M_COUNT * sizeof *vals);
    double *col = malloc((size_t)p->reps * sizeof *col);
    if (!r.ring || !vals || !col || qc_sim_init(&r.sim, 16, err) != 0 ||
        qc_sim_source_add(&r.sim, EV_ARRIVAL) < 0) {
        rc = qc_err_set(err, QC_ENOMEM, "simulate: out of memory");
        goto out;
    }
    for (unsigned rep = 0; rep < p->reps; rep++) {
        if ((rc = run_once(&r, rep, &vals[(size_t)rep * M_COUNT])) != 0) {
            qc_err_set(err, rc, "simulate: replication %u: %s", rep + 1, qc_strerror(rc));
            goto out;
        }
        res->events += r.sim.events;
    }
    qc_ci *dst[M_COUNT] = {&res->mean_jobs,    &res->mean_response, &res->mean_power,
                           &res->switch_on_rate, &res->frac_setup, &res->average_cost,
                           &res->throughput};
    for (int m = 0; m < M_COUNT; m++) {
        for (unsigned rep = 0; rep < p->reps; rep++)
            col[rep] = vals[(size_t)rep * M_COUNT + m];
        if ((rc = qc_ci_t(col, p->reps, p->level, dst[m], err)) != 0)
            goto out;
    }
out:
    qc_sim_free(&r.sim);
    free(r.ring);
    free(vals);
    free(col);
    return rc;
}
