/* SPDX-License-Identifier: GPL-3.0-or-later */
/* maxusers.c: the closed-population MaxUsers server (model in
 * qctl/maxusers.h).
 *
 * Every user has its own random stream (think, service, session, off and
 * retry times all come from it), so two runs that differ only in how
 * MaxUsers moves see the same users behaving the same way for as long as
 * their histories agree: comparisons of controllers use common random
 * numbers without any extra work.
 *
 * Each user has at most one pending timer event (think end, off end or
 * retry); while its RPC is in the server it has none. The logged-RIS
 * sensor adds, at each completion, the time the RPC spent in the server
 * since the start of the current interval: RPCs still in the server at
 * the sample are missing from it, and what they spent in this interval is
 * never added later (a log line is not revised). */
#include "maxusers_int.h"
#include "qctl/maxusers.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/hist.h"
#include "qctl/rng.h"
#include "qctl/sim.h"
#include "station.h"

enum { EV_USER = 0, EV_DEPART = 1 };
enum { U_OFF = 0, U_RETRY = 1, U_THINK = 2, U_BUSY = 3 };

struct qc_maxusers {
    qc_maxusers_params p;
    qc_sim sim;
    qc__station st;
    qc_rng *rng;          /* one stream per user */
    uint8_t *state;
    double *session_end;
    uint32_t connected, waiting;
    uint32_t peak;        /* most connected at once in the interval */
    double maxusers;      /* in force */
    double t0;            /* start of the current interval */
    double tlast;         /* last time areas were updated */
    double area;          /* integral of RPCs in server over the interval */
    double logged;        /* logged time in server over the interval */
    double resp_sum;
    uint64_t done, connects;
    qc_hist *hist;
};

void qc_maxusers_params_init(qc_maxusers_params *p)
{
    memset(p, 0, sizeof *p);
    p->population = 1000;
    p->threads = 4;
    p->discipline = QC_PS;
    p->interval = 60;
    p->maxusers_max = -1; /* population */
    p->maxusers_init = -1; /* maxusers_max */
    p->seed = 1;
}

void qc_maxusers_free(qc_maxusers *m)
{
    if (m == NULL)
        return;
    qc__station_free(&m->st);
    qc_sim_free(&m->sim);
    free(m->rng);
    free(m->state);
    free(m->session_end);
    qc_hist_free(m->hist);
    free(m);
}

int qc__maxusers_check(const qc_maxusers_params *p, qc_err *err)
{
    if (p->population < 1 || p->population > 100000)
        return qc_err_set(err, QC_EINVAL, "population: %u is not in [1, 100000]", p->population);
    if (p->threads < 1 || p->threads > 100000)
        return qc_err_set(err, QC_EINVAL, "threads: %u is not in [1, 100000]", p->threads);
    const qc_dist *d[5] = {p->think, p->service, p->session, p->off, p->retry};
    static const char *const names[5] = {"think", "service", "session", "off", "retry"};
    for (int i = 0; i < 5; i++)
        if (d[i] == NULL || d[i]->kind == QC_DIST_NONE)
            return qc_err_set(err, QC_EINVAL, "%s: no distribution given", names[i]);
    if (!(qc_dist_mean(p->retry) > 0))
        return qc_err_set(err, QC_EINVAL, "retry: mean retry time must be > 0");
    if (!(qc_dist_mean(p->think) + qc_dist_mean(p->service) > 0))
        return qc_err_set(err, QC_EINVAL, "think and service times are both zero");
    if (!(p->interval > 0 && isfinite(p->interval)))
        return qc_err_set(err, QC_EINVAL, "interval: %g is not a positive time", p->interval);
    return 0;
}

static int user_timer(qc_maxusers *m, uint32_t u, double delay)
{
    int64_t h = qc_sim_after(&m->sim, delay, EV_USER, u);
    return h < 0 ? (int)h : 0;
}

qc_maxusers *qc_maxusers_alloc(const qc_maxusers_params *p, qc_err *err)
{
    if (qc__maxusers_check(p, err) != 0)
        return NULL;
    qc_maxusers *m = calloc(1, sizeof *m);
    if (m == NULL)
        goto oom;
    m->p = *p;
    if (m->p.maxusers_max < 0)
        m->p.maxusers_max = p->population;
    if (m->p.maxusers_init < 0)
        m->p.maxusers_init = m->p.maxusers_max;
    if (!(m->p.maxusers_max >= 0) || !(m->p.maxusers_init >= 0) ||
        m->p.maxusers_init > m->p.maxusers_max) {
        qc_err_set(err, QC_EINVAL, "MaxUsers: initial %g is not in [0, %g]", m->p.maxusers_init,
                   m->p.maxusers_max);
        qc_maxusers_free(m);
        return NULL;
    }
    uint32_t n = p->population;
    m->rng = malloc(n * sizeof *m->rng);
    m->state = malloc(n);
    m->session_end = malloc(n * sizeof *m->session_end);
    m->hist = qc_hist_alloc(err);
    if (!m->rng || !m->state || !m->session_end || !m->hist)
        goto oom;
    /* the histogram's range follows the service's time scale */
    qc_hist_set_unit(m->hist, qc_dist_mean(p->service) > 0 ? qc_dist_mean(p->service)
                                                            : qc_dist_mean(p->think));
    if (qc_sim_init(&m->sim, n + 16, err) != 0)
        goto oom;
    if (qc__station_init(&m->st, &m->sim, p->discipline, p->threads, 1024, EV_DEPART) != 0)
        goto oom;
    m->maxusers = m->p.maxusers_init;
    for (uint32_t u = 0; u < n; u++) {
        qc_rng_init(&m->rng[u], p->seed, qc_rng_stream(p->rep, QC_STREAM_USER, u));
        m->state[u] = U_OFF;
        if (user_timer(m, u, qc_dist_sample(p->off, &m->rng[u])) != 0)
            goto oom;
    }
    return m;
oom:
    qc_err_set(err, QC_ENOMEM, "out of memory for %u users", p->population);
    qc_maxusers_free(m);
    return NULL;
}

const qc_hist *qc_maxusers_response_hist(const qc_maxusers *m)
{
    return m->hist;
}

static inline void accrue(qc_maxusers *m, double t)
{
    m->area += (double)m->st.n * (t - m->tlast);
    m->tlast = t;
}

static int try_connect(qc_maxusers *m, uint32_t u)
{
    qc_rng *r = &m->rng[u];
    if ((double)m->connected < floor(m->maxusers)) {
        if (m->state[u] == U_RETRY)
            m->waiting--;
        m->connected++;
        if (m->connected > m->peak)
            m->peak = m->connected;
        m->connects++;
        m->state[u] = U_THINK;
        m->session_end[u] = m->sim.now + qc_dist_sample(m->p.session, r);
        return user_timer(m, u, qc_dist_sample(m->p.think, r));
    }
    if (m->state[u] != U_RETRY)
        m->waiting++;
    m->state[u] = U_RETRY;
    return user_timer(m, u, qc_dist_sample(m->p.retry, r));
}

static int on_user(qc_maxusers *m, uint32_t u)
{
    qc_rng *r = &m->rng[u];
    switch (m->state[u]) {
    case U_OFF:
    case U_RETRY:
        return try_connect(m, u);
    case U_THINK:
        if (m->sim.now >= m->session_end[u]) {
            m->connected--;
            m->state[u] = U_OFF;
            return user_timer(m, u, qc_dist_sample(m->p.off, r));
        } else {
            qc__job j = {m->sim.now, qc_dist_sample(m->p.service, r), u};
            m->state[u] = U_BUSY;
            return qc__station_arrive(&m->st, &j);
        }
    default:
        return QC_EINVAL; /* a busy user has no timer */
    }
}

static int on_depart(qc_maxusers *m, const qc_event *ev)
{
    qc__job j;
    int rc = qc__station_depart(&m->st, ev, &j);
    if (rc != 0)
        return rc;
    double t = m->sim.now, resp = t - j.arr;
    m->logged += t - (j.arr > m->t0 ? j.arr : m->t0);
    m->resp_sum += resp;
    m->done++;
    qc_hist_add(m->hist, resp);
    uint32_t u = (uint32_t)j.tag;
    m->state[u] = U_THINK;
    return user_timer(m, u, qc_dist_sample(m->p.think, &m->rng[u]));
}

int qc_maxusers_step(qc_maxusers *m, double maxusers, qc_maxusers_sample *out)
{
    if (isnan(maxusers))
        return QC_EINVAL;
    if (maxusers < 0)
        maxusers = 0;
    if (maxusers > m->p.maxusers_max)
        maxusers = m->p.maxusers_max;
    m->maxusers = maxusers;
    double t0 = m->sim.now, t1 = t0 + m->p.interval;
    m->t0 = t0;
    m->tlast = t0;
    m->area = 0;
    m->logged = 0;
    m->resp_sum = 0;
    m->done = 0;
    m->connects = 0;
    m->peak = m->connected;
    /* Users refused under the old limit try again on their own schedule. */
    while (qc_evq_peek_time(m->sim.evq) <= t1) {
        qc_event ev;
        if (qc_sim_next(&m->sim, &ev) != 0)
            break;
        qc__station_advance(&m->st, ev.t);
        accrue(m, ev.t);
        int rc = ev.type == EV_USER ? on_user(m, (uint32_t)ev.data) : on_depart(m, &ev);
        if (rc != 0)
            return rc;
    }
    qc__station_advance(&m->st, t1);
    accrue(m, t1);
    m->sim.now = t1;
    double d = m->p.interval;
    out->t = t1;
    out->maxusers = maxusers;
    out->ris = m->area / d;
    out->ris_now = (double)m->st.n;
    out->ris_logged = m->logged / d;
    out->throughput = (double)m->done / d;
    out->response = m->done ? m->resp_sum / (double)m->done : NAN;
    out->connected = m->connected;
    out->connected_peak = m->peak;
    out->waiting = m->waiting;
    out->completed = m->done;
    out->connects = m->connects;
    return 0;
}
