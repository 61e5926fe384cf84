/* SPDX-License-Identifier: GPL-3.0-or-later */
/* multiclass.c: one server shared by priority among several classes, DPS
 * or non-preemptive weighted, with busy-cycle delay samples (the model is
 * described in qctl/multiclass.h).
 *
 * Invariants between events:
 *   n_all = sum_k n_k jobs present; the server is busy iff n_all > 0;
 *   DPS: class k's jobs sit in a min-heap of virtual finish tags, V_k is
 *        its virtual time, valid at tlast; W_B = sum of the weights of the
 *        classes with n_k > 0; exactly one departure event is pending
 *        while n_all > 0 (dep_handle), for the class whose head tag is
 *        reached first at the current rates;
 *   weighted: at most one job in service (insvc, of class svc_cls), the
 *        others wait in their class's FIFO ring, and start-time fair
 *        queueing (qctl/sfq.h, in sfq) chooses the next: each job is
 *        charged its actual service time at its departure, before the
 *        next choice;
 *   measurement: acc_n[k], acc_sum[k] hold the completions not yet
 *        reported in a sample; cycle_t0 is the start of the current
 *        measurement cycle (meaningful while busy).
 * Weights change only through set_weights(), which first brings the DPS
 * virtual times up to now, so that a change of rates never applies to the
 * past. */
#include "qctl/multiclass.h"

#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/gsl_quiet.h"
#include "qctl/rng.h"
#include "qctl/sfq.h"
#include "qctl/sim.h"
#include "station.h"

_Static_assert(QC_MC_MAX_CLASSES <= QC_SFQ_MAX_CLASSES, "a class bit per class in qc_sfq_pick");

enum { EV_ARRIVAL = 0, EV_DEPART = 1, EV_START = 2, EV_CUT = 3 };

/* A job is the station's (station.h), its tag the jobs in the server just
 * after it was let in (qc_mc_report.inflight); the classes queue their
 * jobs in the station's containers: a heap by finish tag (DPS), a ring
 * (weighted). */

typedef struct mc_cls {
    const qc_mc_class *spec;
    qc_rng rarr, rsvc;
    qc_sampler sarr, ssvc;
    double p;        /* own priority */
    int on, stopped; /* switched on; stopped (rejected) */
    int64_t arr_handle;
    uint64_t n;      /* jobs present (waiting or in service) */
    /* DPS */
    qc__psjob *heap;
    size_t cap;
    double V;
    /* weighted */
    qc__job *ring;
    size_t rcap, rhead, rlen;
    /* measurement */
    double acc_sum;
    uint64_t acc_n;
    qc_mc_totals tot;
} mc_cls;

struct qc_mc {
    qc_mc_params p;
    qc_sim sim;
    unsigned K;
    int be;                   /* index of the best-effort class, or -1 */
    mc_cls c[QC_MC_MAX_CLASSES];
    double w[QC_MC_MAX_CLASSES];
    uint64_t n_all;
    double limit;
    /* DPS */
    double tlast, WB;
    int64_t dep_handle;
    /* weighted */
    int busy;
    unsigned svc_cls;
    qc__job insvc;
    qc_sfq sfq;
    /* busy cycles */
    double cycle_t0;
    int64_t cut_handle;
};

void qc_mc_params_init(qc_mc_params *p)
{
    memset(p, 0, sizeof *p);
    p->discipline = QC_MC_DPS;
    p->be_floor = 0.01;
    p->min_completions = 20;
    p->cycle_max = INFINITY;
    p->seed = 1;
}

/* ---- weights ------------------------------------------------------------- */

static int is_dps(const qc_mc *m)
{
    return m->p.discipline != QC_MC_WEIGHTED;
}

/* Rate at which each job of class k (n_k > 0) is served now. */
static inline double job_rate(const qc_mc *m, unsigned k)
{
    if (m->p.discipline == QC_MC_DPS_JOB)
        return m->w[k] / m->WB;
    return m->w[k] / ((double)m->c[k].n * m->WB);
}

static void dps_advance(qc_mc *m, double t)
{
    double dt = t - m->tlast;
    if (dt > 0 && m->n_all > 0 && is_dps(m)) {
        for (unsigned k = 0; k < m->K; k++)
            if (m->c[k].n)
                m->c[k].V += dt * job_rate(m, k);
    }
    m->tlast = t;
}

/* W_B: sum of w_k over backlogged classes (DPS by class), or
 * sum_k n_k w_k (DPS by job). */
static void update_wb(qc_mc *m)
{
    double s = 0;
    int per_job = m->p.discipline == QC_MC_DPS_JOB;
    for (unsigned k = 0; k < m->K; k++)
        if (m->c[k].n)
            s += per_job ? (double)m->c[k].n * m->w[k] : m->w[k];
    m->WB = s;
}

/* The weights from the priorities and the set of active classes. */
static void compute_weights(qc_mc *m)
{
    double mass = 0;
    for (unsigned k = 0; k < m->K; k++) {
        if ((int)k == m->be)
            continue;
        m->w[k] = m->c[k].p;
        if (m->c[k].on && !m->c[k].stopped)
            mass += m->c[k].p;
    }
    if (m->be >= 0) {
        double left = 1.0 - mass;
        m->w[m->be] = left > m->p.be_floor ? left : m->p.be_floor;
    }
    update_wb(m);
}

/* ---- DPS ------------------------------------------------------------------ */

/* Reschedules the one pending DPS departure at the current rates. */
static int dps_schedule(qc_mc *m)
{
    if (m->dep_handle >= 0) {
        int rc = qc_sim_cancel(&m->sim, m->dep_handle);
        m->dep_handle = -1;
        if (rc != 0)
            return rc;
    }
    if (m->n_all == 0)
        return 0;
    double best = INFINITY;
    unsigned bk = 0;
    for (unsigned k = 0; k < m->K; k++) {
        const mc_cls *c = &m->c[k];
        if (c->n == 0)
            continue;
        double left = c->heap[0].finish - c->V;
        if (left < 0)
            left = 0;
        double dt = left / job_rate(m, k);
        if (dt < best) {
            best = dt;
            bk = k;
        }
    }
    int64_t h = qc_sim_after(&m->sim, best, EV_DEPART, bk);
    if (h < 0)
        return (int)h;
    m->dep_handle = h;
    return 0;
}

static int dps_arrive(qc_mc *m, unsigned k, const qc__job *j)
{
    mc_cls *c = &m->c[k];
    if (qc__psheap_push(&c->heap, &c->cap, (size_t)c->n, c->V + j->svc, j) != 0)
        return QC_ENOMEM;
    c->n++;
    m->n_all++;
    update_wb(m);
    return dps_schedule(m);
}

static int dps_depart(qc_mc *m, unsigned k, qc__job *out)
{
    mc_cls *c = &m->c[k];
    m->dep_handle = -1;
    c->n--;
    m->n_all--;
    qc__psheap_pop(c->heap, (size_t)c->n, out);
    if (c->n == 0)
        c->V = 0; /* empty: restart its virtual time (no tags left) */
    update_wb(m);
    return dps_schedule(m);
}

/* ---- weighted (non-preemptive) ------------------------------------------- */

static int ring_push(mc_cls *c, const qc__job *j)
{
    if (c->rlen == c->rcap && qc__ring_grow(&c->ring, &c->rcap, &c->rhead, c->rlen) != 0)
        return QC_ENOMEM;
    size_t pos = (c->rhead + c->rlen) % c->rcap;
    c->ring[pos] = *j;
    c->rlen++;
    return 0;
}

static int wfq_start(qc_mc *m, unsigned k, const qc__job *j)
{
    m->busy = 1;
    m->svc_cls = k;
    m->insvc = *j;
    qc_sfq_start(&m->sfq, k);
    int64_t h = qc_sim_after(&m->sim, j->svc, EV_DEPART, k);
    return h < 0 ? (int)h : 0;
}

static int wfq_arrive(qc_mc *m, unsigned k, const qc__job *j)
{
    mc_cls *c = &m->c[k];
    /* Newly backlogged: no credit for the time it had nothing to send. */
    if (c->rlen == 0)
        qc_sfq_join(&m->sfq, k);
    c->n++;
    m->n_all++;
    if (!m->busy)
        return wfq_start(m, k, j);
    return ring_push(c, j);
}

static int wfq_depart(qc_mc *m, qc__job *out)
{
    unsigned k = m->svc_cls;
    mc_cls *c = &m->c[k];
    *out = m->insvc;
    qc_sfq_charge(&m->sfq, k, out->svc, m->w[k]);
    c->n--;
    m->n_all--;
    m->busy = 0;
    uint32_t backlogged = 0;
    for (unsigned i = 0; i < m->K; i++)
        backlogged |= (uint32_t)(m->c[i].rlen > 0) << i;
    int best = qc_sfq_pick(&m->sfq, backlogged);
    if (best < 0)
        return 0;
    mc_cls *cb = &m->c[best];
    qc__job next = cb->ring[cb->rhead];
    cb->rhead = (cb->rhead + 1) % cb->rcap;
    cb->rlen--;
    return wfq_start(m, (unsigned)best, &next);
}

/* ---- life cycle ------------------------------------------------------------- */

static int check_params(const qc_mc_params *p, qc_err *err)
{
    if (p->nclass < 1 || p->nclass > QC_MC_MAX_CLASSES)
        return qc_err_set(err, QC_EINVAL, "classes: %u is not in [1, %d]", p->nclass,
                          QC_MC_MAX_CLASSES);
    if (p->cls == NULL)
        return qc_err_set(err, QC_EINVAL, "classes: none given");
    if (p->discipline != QC_MC_DPS && p->discipline != QC_MC_DPS_JOB &&
        p->discipline != QC_MC_WEIGHTED)
        return qc_err_set(err, QC_EINVAL, "discipline: unknown (%d)", (int)p->discipline);
    if (!(p->be_floor > 0 && p->be_floor <= 1))
        return qc_err_set(err, QC_EINVAL, "best-effort floor %g is not in (0, 1]", p->be_floor);
    if (p->min_completions < 1)
        return qc_err_set(err, QC_EINVAL, "min_completions must be >= 1");
    if (!(p->cycle_max > 0))
        return qc_err_set(err, QC_EINVAL, "cycle_max %g is not > 0", p->cycle_max);
    int nbe = 0;
    for (unsigned k = 0; k < p->nclass; k++) {
        const qc_mc_class *c = &p->cls[k];
        const char *nm = c->name ? c->name : "?";
        if (!c->arrival || c->arrival->kind == QC_DIST_NONE)
            return qc_err_set(err, QC_EINVAL, "class %u (%s): no arrival distribution", k, nm);
        if (!c->service || c->service->kind == QC_DIST_NONE)
            return qc_err_set(err, QC_EINVAL, "class %u (%s): no service distribution", k, nm);
        if (!(qc_dist_mean(c->arrival) > 0))
            return qc_err_set(err, QC_EINVAL,
                              "class %u (%s): mean inter-arrival time must be > 0", k, nm);
        if (!(c->start >= 0) || !isfinite(c->start))
            return qc_err_set(err, QC_EINVAL, "class %u (%s): start %g is not a time >= 0", k,
                              nm, c->start);
        if (c->best_effort) {
            nbe++;
        } else if (!(c->priority > 0) || !isfinite(c->priority)) {
            return qc_err_set(err, QC_EINVAL, "class %u (%s): priority %g is not > 0", k, nm,
                              c->priority);
        }
    }
    if (nbe > 1)
        return qc_err_set(err, QC_EINVAL, "%d best-effort classes; at most one", nbe);
    return 0;
}

void qc_mc_free(qc_mc *m)
{
    if (m == NULL)
        return;
    for (unsigned k = 0; k < QC_MC_MAX_CLASSES; k++) {
        free(m->c[k].heap);
        free(m->c[k].ring);
    }
    qc_sim_free(&m->sim);
    free(m);
}

qc_mc *qc_mc_alloc(const qc_mc_params *p, qc_err *err)
{
    if (check_params(p, err) != 0)
        return NULL;
    qc_mc *m = calloc(1, sizeof *m);
    if (m == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        return NULL;
    }
    m->p = *p;
    m->K = p->nclass;
    m->be = -1;
    m->limit = INFINITY;
    m->dep_handle = -1;
    m->cut_handle = -1;
    if (qc_sfq_init(&m->sfq, m->K, err) != 0 || qc_sim_init(&m->sim, 64, err) != 0) {
        qc_mc_free(m);
        return NULL;
    }
    for (unsigned k = 0; k < m->K; k++) {
        mc_cls *c = &m->c[k];
        c->spec = &p->cls[k];
        c->p = c->spec->best_effort ? 0 : c->spec->priority;
        c->arr_handle = -1;
        if (c->spec->best_effort)
            m->be = (int)k;
        qc_rng_init(&c->rarr, p->seed, qc_rng_stream(p->rep, QC_STREAM_ARRIVAL, k));
        qc_rng_init(&c->rsvc, p->seed, qc_rng_stream(p->rep, QC_STREAM_SERVICE, k));
        qc_sampler_init(&c->sarr, c->spec->arrival, &c->rarr);
        qc_sampler_init(&c->ssvc, c->spec->service, &c->rsvc);
        /* Classes switch on through an event even at time 0, so that the
         * order of start-ups is the order of the classes. */
        if (qc_sim_at(&m->sim, c->spec->start, EV_START, k) < 0) {
            qc_mc_free(m);
            qc_err_set(err, QC_ENOMEM, "out of memory");
            return NULL;
        }
    }
    compute_weights(m);
    return m;
}

/* ---- events ------------------------------------------------------------------ */

static int schedule_arrival(qc_mc *m, unsigned k)
{
    mc_cls *c = &m->c[k];
    int64_t h = qc_sim_after(&m->sim, qc_sampler_next(&c->sarr), EV_ARRIVAL, k);
    if (h < 0)
        return (int)h;
    c->arr_handle = h;
    return 0;
}

static int reschedule(qc_mc *m)
{
    return is_dps(m) ? dps_schedule(m) : 0;
}

static int on_start(qc_mc *m, unsigned k)
{
    mc_cls *c = &m->c[k];
    if (c->stopped)
        return 0;
    c->on = 1;
    compute_weights(m);
    int rc = reschedule(m);
    return rc ? rc : schedule_arrival(m, k);
}

static int on_arrival(qc_mc *m, unsigned k)
{
    mc_cls *c = &m->c[k];
    c->arr_handle = -1;
    int rc = schedule_arrival(m, k);
    if (rc != 0)
        return rc;
    double svc = qc_sampler_next(&c->ssvc);
    c->tot.arrivals++;
    if ((double)m->n_all >= floor(m->limit)) {
        c->tot.shed++;
        return 0;
    }
    if (m->n_all == 0) {
        m->cycle_t0 = m->sim.now;
        if (isfinite(m->p.cycle_max)) {
            int64_t h = qc_sim_after(&m->sim, m->p.cycle_max, EV_CUT, 0);
            if (h < 0)
                return (int)h;
            m->cut_handle = h;
        }
    }
    qc__job j = {m->sim.now, svc, (uint32_t)(m->n_all + 1 > UINT32_MAX ? UINT32_MAX : m->n_all + 1)};
    return is_dps(m) ? dps_arrive(m, k, &j) : wfq_arrive(m, k, &j);
}

/* Fills the samples of a measurement cycle ending now. */
static void close_cycle(qc_mc *m, qc_mc_report *out, int cut)
{
    out->what |= QC_MC_EV_CYCLE;
    out->cycle_start = m->cycle_t0;
    out->cut = cut;
    for (unsigned k = 0; k < m->K; k++) {
        mc_cls *c = &m->c[k];
        if (c->acc_n >= m->p.min_completions) {
            out->sample[k].delay = c->acc_sum / (double)c->acc_n;
            out->sample[k].count = c->acc_n;
            c->acc_sum = 0;
            c->acc_n = 0;
        } else {
            out->sample[k].delay = NAN;
            out->sample[k].count = 0;
        }
    }
}

static int on_depart(qc_mc *m, const qc_event *ev, qc_mc_report *out)
{
    qc__job j;
    unsigned k = (unsigned)ev->data;
    int rc = is_dps(m) ? dps_depart(m, k, &j) : wfq_depart(m, &j);
    mc_cls *c = &m->c[k];
    double d = m->sim.now - j.arr;
    c->acc_sum += d;
    c->acc_n++;
    c->tot.completions++;
    c->tot.delay_sum += d;
    c->tot.work += j.svc;
    out->what |= QC_MC_EV_DEPART;
    out->cls = k;
    out->arrival = j.arr;
    out->service = j.svc;
    out->delay = d;
    out->inflight = (uint32_t)j.tag;
    if (m->n_all == 0) {
        if (m->cut_handle >= 0) {
            int crc = qc_sim_cancel(&m->sim, m->cut_handle);
            m->cut_handle = -1;
            if (crc != 0)
                return crc;
        }
        close_cycle(m, out, 0);
    }
    return rc;
}

static int on_cut(qc_mc *m, qc_mc_report *out)
{
    m->cut_handle = -1;
    close_cycle(m, out, 1);
    m->cycle_t0 = m->sim.now;
    int64_t h = qc_sim_after(&m->sim, m->p.cycle_max, EV_CUT, 0);
    if (h < 0)
        return (int)h;
    m->cut_handle = h;
    return 0;
}

int qc_mc_advance(qc_mc *m, double t_stop, unsigned stop_on, qc_mc_report *out)
{
    out->what = 0;
    if (!(t_stop >= m->sim.now))
        t_stop = m->sim.now;
    while (qc_evq_peek_time(m->sim.evq) <= t_stop) {
        qc_event ev;
        if (qc_sim_next(&m->sim, &ev) != 0)
            break;
        dps_advance(m, ev.t);
        int rc = 0;
        switch (ev.type) {
        case EV_ARRIVAL:
            rc = on_arrival(m, (unsigned)ev.data);
            break;
        case EV_DEPART:
            rc = on_depart(m, &ev, out);
            break;
        case EV_START:
            rc = on_start(m, (unsigned)ev.data);
            out->what |= QC_MC_EV_START;
            out->started = (unsigned)ev.data;
            break;
        case EV_CUT:
            rc = on_cut(m, out);
            break;
        }
        if (rc != 0)
            return rc;
        if (out->what & stop_on) {
            out->t = m->sim.now;
            return 0;
        }
        out->what = 0;
    }
    dps_advance(m, t_stop);
    m->sim.now = t_stop;
    out->what = QC_MC_EV_TIME;
    out->t = t_stop;
    return 0;
}

/* ---- control inputs and observation ----------------------------------------- */

int qc_mc_set_priority(qc_mc *m, unsigned k, double p)
{
    if (k >= m->K || (int)k == m->be || !(p > 0) || !isfinite(p))
        return QC_EINVAL;
    if (m->c[k].p == p)
        return 0;
    dps_advance(m, m->sim.now);
    m->c[k].p = p;
    compute_weights(m);
    return reschedule(m);
}

int qc_mc_stop_class(qc_mc *m, unsigned k)
{
    if (k >= m->K)
        return QC_EINVAL;
    mc_cls *c = &m->c[k];
    if (c->stopped)
        return 0;
    c->stopped = 1;
    if (c->arr_handle >= 0) {
        int rc = qc_sim_cancel(&m->sim, c->arr_handle);
        c->arr_handle = -1;
        if (rc != 0)
            return rc;
    }
    dps_advance(m, m->sim.now);
    compute_weights(m);
    return reschedule(m);
}

void qc_mc_set_limit(qc_mc *m, double limit)
{
    m->limit = limit >= 0 ? limit : 0;
}

double qc_mc_now(const qc_mc *m)
{
    return m->sim.now;
}

double qc_mc_weight(const qc_mc *m, unsigned k)
{
    return k < m->K ? m->w[k] : NAN;
}

uint64_t qc_mc_present(const qc_mc *m, unsigned k)
{
    return k < m->K ? m->c[k].n : m->n_all;
}

const qc_mc_totals *qc_mc_totals_of(const qc_mc *m, unsigned k)
{
    return k < m->K ? &m->c[k].tot : NULL;
}

uint64_t qc_mc_events(const qc_mc *m)
{
    return m->sim.events;
}

/* ---- exact results ------------------------------------------------------------ */

int qc_mc_dps_exp_delays(unsigned K, const double *lambda, const double *mu, const double *w,
                         double *T, qc_err *err)
{
    if (K < 1 || K > QC_MC_MAX_CLASSES)
        return qc_err_set(err, QC_EINVAL, "classes: %u is not in [1, %d]", K, QC_MC_MAX_CLASSES);
    double rho = 0;
    for (unsigned k = 0; k < K; k++) {
        if (!(lambda[k] >= 0) || !(mu[k] > 0) || !(w[k] > 0) || !isfinite(lambda[k]) ||
            !isfinite(mu[k]) || !isfinite(w[k]))
            return qc_err_set(err, QC_EINVAL,
                              "class %u: need lambda >= 0, mu > 0, weight > 0 (got %g, %g, %g)",
                              k, lambda[k], mu[k], w[k]);
        rho += lambda[k] / mu[k];
    }
    if (!(rho < 1))
        return qc_err_set(err, QC_EUNSTABLE, "load %g >= 1: no steady state", rho);
    double a[QC_MC_MAX_CLASSES * QC_MC_MAX_CLASSES], b[QC_MC_MAX_CLASSES];
    double x[QC_MC_MAX_CLASSES];
    size_t perm_data[QC_MC_MAX_CLASSES];
    for (unsigned k = 0; k < K; k++) {
        double diag = 1;
        for (unsigned j = 0; j < K; j++) {
            double f = lambda[j] * w[j] / (w[j] * mu[j] + w[k] * mu[k]);
            diag -= f;
            a[k * K + j] = -f;
        }
        a[k * K + k] += diag;
        b[k] = 1 / mu[k];
    }
    gsl_matrix_view A = gsl_matrix_view_array(a, K, K);
    gsl_vector_view B = gsl_vector_view_array(b, K);
    gsl_vector_view X = gsl_vector_view_array(x, K);
    gsl_permutation perm = {K, perm_data};
    int sign;
    gsl_error_handler_t *h = qc__gsl_quiet();
    int rc = gsl_linalg_LU_decomp(&A.matrix, &perm, &sign);
    if (rc == 0)
        rc = gsl_linalg_LU_solve(&A.matrix, &perm, &B.vector, &X.vector);
    qc__gsl_restore(h);
    if (rc != 0)
        return qc_err_set(err, QC_ERANGE, "DPS delay system is singular");
    for (unsigned k = 0; k < K; k++)
        T[k] = x[k];
    return 0;
}

double qc_mc_min_delay(qc_mc_discipline d, unsigned K, const qc_mc_class *cls, unsigned k)
{
    if (k >= K)
        return NAN;
    double es = qc_dist_mean(cls[k].service);
    double rho_k = es / qc_dist_mean(cls[k].arrival);
    if (!(rho_k < 1))
        return INFINITY;
    if (d != QC_MC_WEIGHTED)
        return es / (1 - rho_k);
    double R = 0;
    for (unsigned j = 0; j < K; j++) {
        double m = qc_dist_mean(cls[j].service), v = qc_dist_var(cls[j].service);
        R += (v + m * m) / (2 * qc_dist_mean(cls[j].arrival));
    }
    return es + R / (1 - rho_k);
}

int qc_mc_region_admissible(qc_mc_discipline d, unsigned K, const qc_mc_class *cls,
                            const double *bound, int *ok, double *margin, unsigned *worst,
                            qc_err *err)
{
    if (K < 1 || K > QC_MC_MAX_CLASSES)
        return qc_err_set(err, QC_EINVAL, "classes: %u is not in [1, %d]", K, QC_MC_MAX_CLASSES);
    double rho[QC_MC_MAX_CLASSES], es[QC_MC_MAX_CLASSES], rho_all = 0, w0 = 0;
    unsigned idx[QC_MC_MAX_CLASSES], nb = 0;
    for (unsigned k = 0; k < K; k++) {
        double ea = qc_dist_mean(cls[k].arrival), m = qc_dist_mean(cls[k].service);
        double v = qc_dist_var(cls[k].service);
        es[k] = m;
        rho[k] = m / ea;
        rho_all += rho[k];
        w0 += (v + m * m) / (2 * ea);
        if (d != QC_MC_WEIGHTED && cls[k].service->kind != QC_DIST_EXP)
            return qc_err_set(err, QC_ENOTSUP,
                              "class %u (%s): the DPS region conditions need exponential "
                              "service", k, cls[k].name ? cls[k].name : "?");
        if (bound[k] > 0)
            idx[nb++] = k;
    }
    if (d == QC_MC_WEIGHTED && !isfinite(w0))
        return qc_err_set(err, QC_ENOTSUP, "a service law has no finite second moment");
    *ok = rho_all < 1;
    *margin = INFINITY;
    *worst = 0;
    if (nb == 0)
        return 0;
    for (unsigned set = 1; set < (1u << nb); set++) {
        double ra = 0, lhs = 0, rhs = 0;
        unsigned bits = 0;
        for (unsigned i = 0; i < nb; i++) {
            if (!(set & (1u << i)))
                continue;
            unsigned k = idx[i];
            bits |= 1u << k;
            ra += rho[k];
            lhs += d == QC_MC_WEIGHTED ? rho[k] * (bound[k] - es[k]) : rho[k] * bound[k];
            rhs += d == QC_MC_WEIGHTED ? 0 : rho[k] * es[k];
        }
        rhs = ra < 1 ? (d == QC_MC_WEIGHTED ? ra * w0 : rhs) / (1 - ra) : INFINITY;
        double mg = rhs > 0 ? (lhs - rhs) / rhs : INFINITY;
        if (mg < *margin) {
            *margin = mg;
            *worst = bits;
        }
        if (!(lhs >= rhs))
            *ok = 0;
    }
    return 0;
}
