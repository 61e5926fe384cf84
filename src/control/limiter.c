/* SPDX-License-Identifier: GPL-3.0-or-later */
/* limiter.c: the embeddable limiter: a lock-free gate in front of the
 * controllers of src/control/.
 *
 * The invariant is that the in-flight count n only ever grows by a CAS
 * from a value below the published gate G, so no interleaving of
 * acquires can take n past G. Everything else (aggregates, counters) is
 * relaxed atomics: they are statistics, and a tick that reads them a
 * request early or late does not break the gate. The controller state is
 * touched only by tick, under a mutex, so the step objects need not be
 * thread-safe.
 *
 * ADMISSION adds per-class busy-cycle aggregates: release adds a sample to
 * its class's cycle sums *before* it lowers the in-flight count, and the
 * release that takes the count to 0 moves every class's cycle sums into
 * the closed sums (a busy cycle ended). A completion racing that move from
 * another thread may land in the cycle before or after its own; the error
 * is one request per cycle boundary at most. The tick turns closed sums
 * into samples for the qc_adm controllers and publishes the weights, which
 * acquire and the server's scheduler read without a lock. */
#include "qctl/limiter.h"
#include "core/names.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct qc_limiter {
    /* hot: read by every acquire */
    _Atomic uint32_t gate;
    _Atomic uint32_t inflight;
    unsigned classes;
    /* aggregates since the last tick (latencies in nanoseconds) */
    _Atomic uint64_t agg_n, agg_sum_ns, agg_min_ns, agg_drops;
    _Atomic uint32_t agg_max_inflight;
    /* totals */
    _Atomic uint64_t admitted[QC_LIMITER_CLASSES_MAX];
    _Atomic uint64_t refused[QC_LIMITER_CLASSES_MAX];
    _Atomic uint64_t completed, dropped;
    _Atomic uint64_t noload_ns; /* least latency seen: see qc_limiter_noload */
    /* ADMISSION: published by tick, read lock-free */
    _Atomic uint32_t rejected[QC_LIMITER_CLASSES_MAX];
    _Atomic uint64_t weight_bits[QC_LIMITER_CLASSES_MAX]; /* a double's bits */
    /* ADMISSION: the current busy cycle's and the closed cycles' sums */
    _Atomic uint64_t cyc_n[QC_LIMITER_CLASSES_MAX], cyc_sum_ns[QC_LIMITER_CLASSES_MAX];
    _Atomic uint64_t closed_n[QC_LIMITER_CLASSES_MAX], closed_sum_ns[QC_LIMITER_CLASSES_MAX];
    _Atomic uint64_t cycles_ended;
    /* controller, under mu */
    pthread_mutex_t mu;
    qc_limiter_params cfg;
    double limit, last_tick, last_y, last_rtt, observed;
    double next_tick; /* the step object's next clock tick (Envoy), INFINITY: none */
    int have_observed;
    qc_mu_ctl mu_ctl; /* MAXUSERS: the controller of src/control */
    qc_knee knee;     /* the no-load latency and, with knee_on, the reference */
    int knee_on;      /* MAXUSERS with reference 0: the reference adapts */
    double conf_reference; /* the reference configured (cfg.reference moves with
                              the adaptation and the admin's changes) */
    int settling;     /* the limit was restarted: see tick_knee */
    qc_lim_conc conc;
    /* ADMISSION, under mu */
    qc_adm adm[QC_LIMITER_CLASSES_MAX];
    double pend_n[QC_LIMITER_CLASSES_MAX], pend_sum[QC_LIMITER_CLASSES_MAX];
    double new_bound[QC_LIMITER_CLASSES_MAX]; /* 0: no change pending */
    double last_delay[QC_LIMITER_CLASSES_MAX];
    uint64_t samples[QC_LIMITER_CLASSES_MAX];
    uint64_t cycles_seen;
    int busy_at_tick;
};

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* In the order of qc_limiter_algo. */
static const char *const algo_names[] = {"fixed",     "maxusers", "aimd",     "vegas",
                                         "gradient2", "envoy",    "admission"};
const char *qc_limiter_algo_name(qc_limiter_algo v)
{
    return qc__name_of(algo_names, sizeof algo_names / sizeof *algo_names, (int)v);
}

int qc_limiter_algo_parse(const char *s, qc_limiter_algo *v, qc_err *err)
{
    /* "static": the word `qctl control` and `qctl gate` use for a limit
     * held constant, the same algorithm */
    if (s != NULL && strcmp(s, "static") == 0) {
        *v = QC_LIMITER_FIXED;
        return 0;
    }
    int i = 0;
    int rc = qc__name_parse(s, algo_names, sizeof algo_names / sizeof *algo_names, &i, err);
    if (rc == 0)
        *v = (qc_limiter_algo)i;
    return rc;
}

void qc_limiter_params_init(qc_limiter_params *c, qc_limiter_algo algo)
{
    memset(c, 0, sizeof *c);
    c->algo = algo;
    /* MAXUSERS starts where its loop settles under overload, the limit
     * at its reference (the adaptive reference's least value, qc_knee's
     * r_init, until a knee is measured): the requests in the server are
     * then the limit. 20 was twice that: the first control interval of an
     * overload of a 4-worker backend ran 20 in it, 16 waiting inside it,
     * the tail of its admitted latencies (bench_live part 4). */
    qc_knee_params kp;
    qc_knee_params_init(&kp);
    c->initial_limit = algo == QC_LIMITER_MAXUSERS ? kp.r_init : 20;
    c->min_limit = 1;
    c->max_limit = 1000;
    c->classes = 1;
    c->reference = 0; /* MAXUSERS: adapts (qc_knee), 10 at least until the knee is measured */
    c->ki = 0.5;
    c->kp = 0;
    c->aimd_backoff = 0.9;
    c->aimd_timeout = 5;
    qc_lim_gradient2_params_init(&c->gradient2);
    qc_lim_vegas_params_init(&c->vegas);
    qc_lim_envoy_params_init(&c->envoy);
    c->envoy.min_rtt_requests = 5;
    c->adm_epsilon = 0.1;
    c->adm_alpha = 20;
    c->adm_min_completions = 20;
    c->be_floor = 0.01;
}

static uint32_t gate_of(double limit)
{
    double f = floor(limit);
    return f < 1 ? 1u : f > 4e9 ? 4000000000u : (uint32_t)f;
}

static int check_config(const qc_limiter_params *c, qc_err *err)
{
    if ((unsigned)c->algo > QC_LIMITER_ADMISSION)
        return qc_err_set(err, QC_EINVAL, "algo: %d is not a limiter", (int)c->algo);
    if (!(c->min_limit >= 1) || !isfinite(c->min_limit))
        return qc_err_set(err, QC_ERANGE, "min_limit: %g must be >= 1", c->min_limit);
    if (!(c->max_limit > c->min_limit) || !(c->max_limit <= 4e9))
        return qc_err_set(err, QC_ERANGE, "max_limit: %g must be > min_limit %g and <= 4e9",
                          c->max_limit, c->min_limit);
    if (!(c->initial_limit >= c->min_limit && c->initial_limit <= c->max_limit))
        return qc_err_set(err, QC_ERANGE, "initial_limit: %g is outside [%g, %g]", c->initial_limit,
                          c->min_limit, c->max_limit);
    if (c->classes < 1 || c->classes > QC_LIMITER_CLASSES_MAX)
        return qc_err_set(err, QC_ERANGE, "classes: %u must be in [1, %d]", c->classes,
                          QC_LIMITER_CLASSES_MAX);
    if (c->algo == QC_LIMITER_MAXUSERS && (!(c->reference >= 0) || !isfinite(c->reference)))
        return qc_err_set(err, QC_ERANGE, "reference: %g must be > 0 (0: adapts)", c->reference);
    if (c->algo == QC_LIMITER_AIMD) {
        if (!(c->aimd_backoff > 0 && c->aimd_backoff < 1))
            return qc_err_set(err, QC_ERANGE, "aimd_backoff: %g must be in (0, 1)",
                              c->aimd_backoff);
        if (!(c->aimd_timeout > 0))
            return qc_err_set(err, QC_ERANGE, "aimd_timeout: %g must be > 0", c->aimd_timeout);
    }
    if (c->algo == QC_LIMITER_ADMISSION) {
        if (!(c->be_floor > 0 && c->be_floor < 1))
            return qc_err_set(err, QC_ERANGE, "be_floor: %g must be in (0, 1)", c->be_floor);
        if (c->adm_min_completions < 1)
            return qc_err_set(err, QC_ERANGE, "adm_min_completions: must be >= 1");
        for (unsigned i = 0; i < c->classes; i++)
            if (!(c->bound[i] >= 0) || !isfinite(c->bound[i]))
                return qc_err_set(err, QC_ERANGE, "bound[%u]: %g must be >= 0 (0: best effort)",
                                  i, c->bound[i]);
    }
    return 0;
}

static void publish_weight(qc_limiter *l, unsigned i, double w)
{
    uint64_t b;
    memcpy(&b, &w, sizeof b);
    atomic_store_explicit(&l->weight_bits[i], b, memory_order_relaxed);
}

/* The weights the server schedules by: a bounded class its priority (0
 * once rejected), a best-effort class what is left of a unit of mass. */
static void publish_weights(qc_limiter *l)
{
    const qc_limiter_params *c = &l->cfg;
    double mass = 0;
    for (unsigned i = 0; i < c->classes; i++)
        if (c->bound[i] > 0 && l->adm[i].state != QC_ADM_REJECTED)
            mass += qc_adm_priority(&l->adm[i]);
    double be = 1 - mass > c->be_floor ? 1 - mass : c->be_floor;
    for (unsigned i = 0; i < c->classes; i++) {
        double w = c->bound[i] <= 0                        ? be
                   : l->adm[i].state == QC_ADM_REJECTED ? 0
                                                        : qc_adm_priority(&l->adm[i]);
        publish_weight(l, i, w);
        atomic_store_explicit(&l->rejected[i], l->adm[i].state == QC_ADM_REJECTED && c->bound[i] > 0,
                              memory_order_relaxed);
    }
}

static int init_admission(qc_limiter *l, qc_err *err)
{
    const qc_limiter_params *c = &l->cfg;
    for (unsigned i = 0; i < c->classes; i++) {
        l->last_delay[i] = NAN;
        if (!(c->bound[i] > 0))
            continue;
        qc_adm_params p;
        qc_adm_params_init(&p, c->bound[i], c->adm_epsilon, c->adm_alpha,
                           !(c->adm_candidates >> i & 1u));
        p.ref_count = c->adm_min_completions;
        int rc = qc_adm_init(&l->adm[i], &p, err);
        if (rc) {
            qc_err_prefix(err, "class %u", i);
            return rc;
        }
    }
    publish_weights(l);
    return 0;
}

static int init_controller(qc_limiter *l, double now, qc_err *err)
{
    const qc_limiter_params *c = &l->cfg;
    qc_knee_params kp;
    qc_knee_params_init(&kp);
    l->knee_on = c->algo == QC_LIMITER_MAXUSERS && c->reference == 0;
    kp.r_min = c->min_limit;
    kp.r_max = c->max_limit;
    kp.r_init = clampd(kp.r_init, kp.r_min, kp.r_max);
    if (!l->knee_on)
        kp.probe_period = 0; /* the no-load latency only, for the queue in front */
    int rc = qc_knee_init(&l->knee, &kp, err);
    if (rc)
        return rc;
    switch (c->algo) {
    case QC_LIMITER_FIXED:
        return 0;
    case QC_LIMITER_AIMD: {
        qc_lim_aimd_params p = {.initial_limit = c->initial_limit,
                                .min_limit = c->min_limit,
                                .max_limit = c->max_limit,
                                .backoff = c->aimd_backoff,
                                .timeout = c->aimd_timeout};
        l->conc.kind = QC_LIM_AIMD;
        return qc_lim_aimd_init(&l->conc.u.aimd, &p, err);
    }
    case QC_LIMITER_ADMISSION:
        return init_admission(l, err);
    case QC_LIMITER_MAXUSERS: {
        qc_pi_params p = {.kp = c->kp,
                          .ki = c->ki,
                          .u_min = c->min_limit,
                          .u_max = c->max_limit,
                          .u_init = c->initial_limit,
                          .aw = QC_AW_CONDITIONAL,
                          .k_aw = 1};
        return qc_mu_ctl_init(&l->mu_ctl, &p, err);
    }
    case QC_LIMITER_GRADIENT2: {
        qc_lim_gradient2_params p = c->gradient2;
        p.initial_limit = c->initial_limit;
        p.min_limit = c->min_limit;
        p.max_limit = c->max_limit;
        l->conc.kind = QC_LIM_GRADIENT2;
        return qc_lim_gradient2_init(&l->conc.u.g2, &p, err);
    }
    case QC_LIMITER_VEGAS: {
        qc_lim_vegas_params p = c->vegas;
        p.initial_limit = c->initial_limit;
        p.max_limit = c->max_limit;
        l->conc.kind = QC_LIM_VEGAS;
        return qc_lim_vegas_init(&l->conc.u.vegas, &p, err);
    }
    case QC_LIMITER_ENVOY: {
        qc_lim_envoy_params p = c->envoy;
        p.max_limit = c->max_limit;
        l->conc.kind = QC_LIM_ENVOY;
        return qc_lim_envoy_init(&l->conc.u.envoy, &p, now, err);
    }
    }
    return QC_EINVAL;
}

static int limiter_build(const qc_limiter_params *c, double now, qc_limiter **out, qc_err *err)
{
    *out = NULL;
    int rc = check_config(c, err);
    if (rc)
        return rc;
    qc_limiter *l = calloc(1, sizeof *l);
    if (!l)
        return qc_err_set(err, QC_ENOMEM, "limiter: out of memory");
    l->cfg = *c;
    l->conf_reference = c->reference;
    l->classes = c->classes;
    l->limit = c->initial_limit;
    l->last_tick = now;
    l->last_y = NAN;
    l->last_rtt = NAN;
    l->next_tick = INFINITY;
    for (unsigned i = 0; i < QC_LIMITER_CLASSES_MAX; i++)
        l->last_delay[i] = NAN;
    rc = init_controller(l, now, err);
    if (rc) {
        free(l);
        return rc;
    }
    if (c->algo == QC_LIMITER_ENVOY)
        l->limit = l->conc.u.envoy.limit;
    atomic_init(&l->gate, gate_of(l->limit));
    atomic_init(&l->inflight, 0);
    atomic_init(&l->agg_min_ns, UINT64_MAX);
    atomic_init(&l->noload_ns, UINT64_MAX);
    if (pthread_mutex_init(&l->mu, NULL) != 0) {
        if (c->algo == QC_LIMITER_ENVOY)
            qc_lim_envoy_free(&l->conc.u.envoy);
        free(l);
        return qc_err_set(err, QC_ENOMEM, "limiter: cannot create its mutex");
    }
    *out = l;
    return 0;
}

qc_limiter *qc_limiter_alloc(const qc_limiter_params *c, double now, qc_err *err)
{
    qc_limiter *l = NULL;
    return limiter_build(c, now, &l, err) == 0 ? l : NULL;
}

void qc_limiter_free(qc_limiter *l)
{
    if (!l)
        return;
    if (l->cfg.algo == QC_LIMITER_ENVOY)
        qc_lim_envoy_free(&l->conc.u.envoy);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

int qc_limiter_acquire(qc_limiter *l, unsigned cls, qc_limiter_token *tok)
{
    if (cls >= l->classes)
        cls = l->classes - 1;
    if (atomic_load_explicit(&l->rejected[cls], memory_order_relaxed)) {
        atomic_fetch_add_explicit(&l->refused[cls], 1, memory_order_relaxed);
        return QC_LIMITER_REJECTED;
    }
    uint32_t gate = atomic_load_explicit(&l->gate, memory_order_relaxed);
    uint32_t n = atomic_load_explicit(&l->inflight, memory_order_relaxed);
    do {
        if (n >= gate) {
            atomic_fetch_add_explicit(&l->refused[cls], 1, memory_order_relaxed);
            return QC_LIMITER_REFUSE;
        }
    } while (!atomic_compare_exchange_weak_explicit(&l->inflight, &n, n + 1, memory_order_acquire,
                                                    memory_order_relaxed));
    atomic_fetch_add_explicit(&l->admitted[cls], 1, memory_order_relaxed);
    tok->inflight = n + 1;
    tok->cls = (uint16_t)cls;
    tok->live = 1;
    return QC_LIMITER_ADMIT;
}

static void atomic_max32(_Atomic uint32_t *a, uint32_t v)
{
    uint32_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

static void atomic_min64(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (cur > v && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* Adds the delay to its class's cycle, then leaves; the release that
 * empties the server closes the busy cycle for every class. */
static void release_admission(qc_limiter *l, const qc_limiter_token *tok, double latency,
                              int outcome)
{
    unsigned k = tok->cls;
    if (outcome != QC_LIMITER_IGNORE && latency >= 0 && isfinite(latency)) {
        double ns = latency * 1e9;
        uint64_t v = ns > 1.8e19 ? UINT64_MAX / 2 : (uint64_t)ns;
        atomic_fetch_add_explicit(&l->cyc_sum_ns[k], v, memory_order_relaxed);
        atomic_fetch_add_explicit(&l->cyc_n[k], 1, memory_order_relaxed);
    }
    if (atomic_fetch_sub_explicit(&l->inflight, 1, memory_order_acq_rel) != 1)
        return;
    for (unsigned i = 0; i < l->classes; i++) {
        uint64_t n = atomic_exchange_explicit(&l->cyc_n[i], 0, memory_order_relaxed);
        uint64_t s = atomic_exchange_explicit(&l->cyc_sum_ns[i], 0, memory_order_relaxed);
        if (n) {
            atomic_fetch_add_explicit(&l->closed_sum_ns[i], s, memory_order_relaxed);
            atomic_fetch_add_explicit(&l->closed_n[i], n, memory_order_relaxed);
        }
    }
    atomic_fetch_add_explicit(&l->cycles_ended, 1, memory_order_release);
}

void qc_limiter_release(qc_limiter *l, qc_limiter_token *tok, double latency, int outcome)
{
    if (!tok->live)
        return;
    tok->live = 0;
    if (l->cfg.algo == QC_LIMITER_ADMISSION) {
        release_admission(l, tok, latency, outcome);
    } else {
        atomic_fetch_sub_explicit(&l->inflight, 1, memory_order_release);
    }
    atomic_fetch_add_explicit(&l->completed, 1, memory_order_relaxed);
    if (outcome == QC_LIMITER_DROPPED)
        atomic_fetch_add_explicit(&l->dropped, 1, memory_order_relaxed);
    if (outcome == QC_LIMITER_IGNORE || !(latency >= 0) || !isfinite(latency))
        return;
    double ns = latency * 1e9;
    uint64_t v = ns > 1.8e19 ? UINT64_MAX / 2 : (uint64_t)ns;
    atomic_fetch_add_explicit(&l->agg_sum_ns, v, memory_order_relaxed);
    atomic_min64(&l->agg_min_ns, v);
    if (v > 0)
        atomic_min64(&l->noload_ns, v);
    atomic_max32(&l->agg_max_inflight, tok->inflight);
    if (outcome == QC_LIMITER_DROPPED)
        atomic_fetch_add_explicit(&l->agg_drops, 1, memory_order_relaxed);
    /* The count last: a tick that sees it has (almost always) the sum. */
    atomic_fetch_add_explicit(&l->agg_n, 1, memory_order_release);
}

void qc_limiter_lend(qc_limiter *l, qc_limiter_token *tok, int lend)
{
    if (!tok->live)
        return;
    if (lend)
        atomic_fetch_sub_explicit(&l->inflight, 1, memory_order_release);
    else
        tok->inflight = atomic_fetch_add_explicit(&l->inflight, 1, memory_order_acquire) + 1;
}

void qc_limiter_observe(qc_limiter *l, double y)
{
    pthread_mutex_lock(&l->mu);
    l->observed = y;
    l->have_observed = 1;
    pthread_mutex_unlock(&l->mu);
}

void qc_limiter_set_reference(qc_limiter *l, double r)
{
    pthread_mutex_lock(&l->mu);
    if (r > 0 && isfinite(r)) {
        l->cfg.reference = r;
        l->knee_on = 0; /* a reference set by hand stays */
    }
    pthread_mutex_unlock(&l->mu);
}

double qc_limiter_noload(const qc_limiter *l)
{
    uint64_t v = atomic_load_explicit(&((qc_limiter *)l)->noload_ns, memory_order_relaxed);
    return v == UINT64_MAX ? NAN : (double)v / 1e9;
}

void qc_limiter_set_noload(qc_limiter *l, double l0)
{
    pthread_mutex_lock(&l->mu);
    qc_knee_set_noload(&l->knee, l0);
    pthread_mutex_unlock(&l->mu);
}

/* The knee estimator's interval (every limiter but ADMISSION, whose
 * latencies include the wait in the queue): the no-load latency for
 * qc_limiter_noload, and under MAXUSERS with knee_on the reference. */
static int tick_knee(qc_limiter *l, double now, double dt, uint64_t n, double rtt, uint64_t mn,
                     uint32_t peak)
{
    if (l->cfg.algo == QC_LIMITER_ADMISSION)
        return 0;
    qc_knee_sense in = {.t = now,
                        .dt = dt,
                        .n = (double)n,
                        .mean = rtt,
                        .min = mn == UINT64_MAX ? NAN : (double)mn / 1e9,
                        .peak = (double)peak,
                        .limit = (double)atomic_load_explicit(&l->gate, memory_order_relaxed)};
    qc_knee_act act;
    qc_knee_step(&l->knee, &in, &act);
    if (isfinite(l->knee.l0)) /* a probe may have raised it */
        atomic_store_explicit(&l->noload_ns, (uint64_t)(l->knee.l0 * 1e9), memory_order_relaxed);
    if (!l->knee_on)
        return 0;
    l->cfg.reference = act.r;
    if (!act.first || !(l->mu_ctl.u > act.r))
        return 0;
    /* The first estimate: the limit starts from it rather than from the
     * guess it was given. The requests let in under the guess are still
     * in flight and make y until they are out: the controller waits for
     * an interval whose peak in flight was within the new limit. The
     * restart lowers the limit by half at most: the interval that
     * measured the knee may be a stall of the host (a knee of 1 to 3 for
     * a backend that answers at once, 256 clients then waiting in front
     * of it); the controller goes on from there at its own pace. */
    double floor_ = (double)atomic_load_explicit(&l->gate, memory_order_relaxed) / 2;
    qc_mu_ctl_reset(&l->mu_ctl, act.r > floor_ ? act.r : floor_);
    l->limit = l->mu_ctl.u;
    l->settling = 1;
    return 1;
}

double qc_limiter_weight(const qc_limiter *l, unsigned cls)
{
    if (l->cfg.algo != QC_LIMITER_ADMISSION)
        return 1;
    if (cls >= l->classes)
        cls = l->classes - 1;
    uint64_t b = atomic_load_explicit(&((qc_limiter *)l)->weight_bits[cls], memory_order_relaxed);
    double w;
    memcpy(&w, &b, sizeof w);
    return w;
}

int qc_limiter_set_bound(qc_limiter *l, unsigned cls, double bound, qc_err *err)
{
    if (l->cfg.algo != QC_LIMITER_ADMISSION)
        return qc_err_set(err, QC_EINVAL, "bound: the %s limiter has no class bounds",
                          qc_limiter_algo_name(l->cfg.algo));
    if (cls >= l->classes)
        return qc_err_set(err, QC_ERANGE, "class %u: no such class", cls);
    if (!(bound > 0) || !isfinite(bound))
        return qc_err_set(err, QC_EINVAL, "bound: %g must be a positive time", bound);
    pthread_mutex_lock(&l->mu);
    int bounded = l->cfg.bound[cls] > 0;
    if (bounded)
        l->new_bound[cls] = bound;
    pthread_mutex_unlock(&l->mu);
    if (!bounded)
        return qc_err_set(err, QC_ERANGE, "class %u: best effort has no bound", cls);
    return 0;
}

/* One control interval of ADMISSION: close the busy cycles (cut one that
 * lasted the whole interval), turn each class's closed completions into a
 * sample once it holds m of them, step its controller, publish weights. */
static void tick_admission(qc_limiter *l)
{
    qc_limiter_params *c = &l->cfg;
    uint64_t ended = atomic_load_explicit(&l->cycles_ended, memory_order_acquire);
    uint32_t cur = atomic_load_explicit(&l->inflight, memory_order_relaxed);
    int cut = ended == l->cycles_seen && cur > 0 && l->busy_at_tick;
    l->cycles_seen = ended;
    l->busy_at_tick = cur > 0;
    for (unsigned i = 0; i < c->classes; i++) {
        if (cut) {
            l->pend_n[i] += (double)atomic_exchange_explicit(&l->cyc_n[i], 0, memory_order_relaxed);
            l->pend_sum[i] +=
                (double)atomic_exchange_explicit(&l->cyc_sum_ns[i], 0, memory_order_relaxed) / 1e9;
        }
        l->pend_n[i] += (double)atomic_exchange_explicit(&l->closed_n[i], 0, memory_order_relaxed);
        l->pend_sum[i] +=
            (double)atomic_exchange_explicit(&l->closed_sum_ns[i], 0, memory_order_relaxed) / 1e9;
        if (l->new_bound[i] > 0) {
            c->bound[i] = l->adm[i].p.bound = l->new_bound[i];
            l->new_bound[i] = 0;
        }
        if (l->pend_n[i] < (double)c->adm_min_completions)
            continue;
        l->last_delay[i] = l->pend_sum[i] / l->pend_n[i];
        l->samples[i]++;
        if (c->bound[i] > 0) {
            /* the weights the admitted classes publish: all a candidate sees of them */
            double peer[QC_LIMITER_CLASSES_MAX];
            unsigned np = 0;
            for (unsigned j = 0; j < c->classes; j++)
                if (j != i && c->bound[j] > 0 && l->adm[j].state == QC_ADM_ADMITTED)
                    peer[np++] = qc_adm_priority(&l->adm[j]);
            qc_adm_sense in = {.delay = l->last_delay[i], .count = l->pend_n[i], .peer = peer,
                               .npeer = np};
            qc_adm_act act;
            qc_adm_step(&l->adm[i], &in, &act);
        }
        l->pend_n[i] = l->pend_sum[i] = 0;
    }
    publish_weights(l);
}

int qc_limiter_tick(qc_limiter *l, double now)
{
    pthread_mutex_lock(&l->mu);
    if (!(now >= l->last_tick)) {
        pthread_mutex_unlock(&l->mu);
        return QC_EINVAL;
    }
    double dt = now - l->last_tick;
    uint64_t n = atomic_exchange_explicit(&l->agg_n, 0, memory_order_acquire);
    uint64_t sum = atomic_exchange_explicit(&l->agg_sum_ns, 0, memory_order_relaxed);
    uint64_t mn = atomic_exchange_explicit(&l->agg_min_ns, UINT64_MAX, memory_order_relaxed);
    uint64_t drops = atomic_exchange_explicit(&l->agg_drops, 0, memory_order_relaxed);
    uint32_t maxin = atomic_exchange_explicit(&l->agg_max_inflight, 0, memory_order_relaxed);
    uint32_t cur = atomic_load_explicit(&l->inflight, memory_order_relaxed);
    double rtt = n ? (double)sum / 1e9 / (double)n : NAN;
    l->last_rtt = rtt;
    uint32_t peak_all = maxin > cur ? maxin : cur;
    int restarted = tick_knee(l, now, dt, n, rtt, mn, peak_all);
    if (!restarted && l->settling) {
        restarted = 1;
        l->settling = peak_all > gate_of(l->limit);
    }
    const qc_limiter_params *c = &l->cfg;
    switch (c->algo) {
    case QC_LIMITER_FIXED:
        break;
    case QC_LIMITER_ADMISSION:
        tick_admission(l);
        break;
    case QC_LIMITER_MAXUSERS: {
        double y = l->have_observed ? l->observed : dt > 0 ? (double)sum / 1e9 / dt : NAN;
        l->have_observed = 0;
        /* The MaxUsers controller with its demand hold (qctl/controller.h):
         * the peak in flight says whether the gate was binding. */
        uint32_t peak = maxin > cur ? maxin : cur;
        qc_mu_ctl_sense in = {.r = c->reference, .y = y, .peak = (double)peak};
        qc_mu_ctl_act act;
        /* Anti-windup on the way down: more in flight now than the gate
         * lets in means the last decrease has not taken effect yet (the
         * requests let in under a higher limit are still out), and y,
         * made of their latencies, still says "too many". Lowering again
         * on it winds the integrator down past the level that holds the
         * reference, to the floor once those requests are out: the limit
         * cycle of a 3x overload (1 to 18 on 4 workers of det:0.05, qctl
         * sim proxy). Hold until the requests in flight are within it. */
        int draining = cur > gate_of(l->limit) && isfinite(y) && y > c->reference;
        if (!restarted && !draining && qc_mu_ctl_step(&l->mu_ctl, &in, &act) == 0)
            l->limit = act.u;
        if (isfinite(y))
            l->last_y = y;
        break;
    }
    case QC_LIMITER_AIMD:
        if (n) { /* one sample per interval: its mean latency, its peak in flight */
            qc_lim_sample s = {
                .t = now, .rtt = rtt, .t_start = now - rtt, .inflight = maxin, .dropped = drops > 0};
            qc_lim_act act;
            qc_lim_aimd_step(&l->conc.u.aimd, &s, &act);
            l->limit = act.limit;
            l->next_tick = act.next_tick;
        }
        break;
    case QC_LIMITER_GRADIENT2:
    case QC_LIMITER_VEGAS:
    case QC_LIMITER_ENVOY: {
        qc_lim_act act;
        qc_lim_sample s = {
            .t = now, .rtt = NAN, .t_start = now, .inflight = maxin, .dropped = drops > 0};
        if (n && rtt > 0) {
            s.rtt = rtt;
            s.t_start = now - rtt;
            qc_lim_conc_step(&l->conc, &s, &act);
            l->next_tick = act.next_tick;
        } else if (c->algo == QC_LIMITER_ENVOY) {
            qc_lim_conc_step(&l->conc, &s, &act); /* a clock tick */
            l->next_tick = act.next_tick;
        }
        l->limit = clampd(qc_lim_conc_limit(&l->conc), 1, c->max_limit);
        break;
    }
    }
    l->last_tick = now;
    atomic_store_explicit(&l->gate, gate_of(l->limit), memory_order_relaxed);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void qc_limiter_set_limit(qc_limiter *l, double u)
{
    if (!(u == u))
        return;
    pthread_mutex_lock(&l->mu);
    const qc_limiter_params *c = &l->cfg;
    u = clampd(u, c->min_limit, c->max_limit);
    switch (c->algo) {
    case QC_LIMITER_FIXED:
        pthread_mutex_unlock(&l->mu);
        return;
    case QC_LIMITER_ADMISSION:
        break; /* the limit is its plant's to set (qctl/front.h); no state follows it */
    case QC_LIMITER_MAXUSERS:
        qc_mu_ctl_reset(&l->mu_ctl, u);
        u = l->mu_ctl.u;
        l->settling = 0;
        break;
    case QC_LIMITER_AIMD:
        l->conc.u.aimd.limit = u;
        break;
    case QC_LIMITER_GRADIENT2:
        l->conc.u.g2.limit = u;
        break;
    case QC_LIMITER_VEGAS:
        l->conc.u.vegas.limit = u;
        break;
    case QC_LIMITER_ENVOY:
        l->conc.u.envoy.limit = u;
        if (l->conc.u.envoy.in_window && l->conc.u.envoy.deferred < u)
            l->conc.u.envoy.deferred = u;
        break;
    }
    l->limit = u;
    atomic_store_explicit(&l->gate, gate_of(u), memory_order_relaxed);
    pthread_mutex_unlock(&l->mu);
}

/* Whether a and b differ in what the controller's step object is built
 * from (not the range, the reference or the bounds: those are set in
 * place by qc_limiter_reconfigure). */
static int controller_differs(const qc_limiter_params *a, const qc_limiter_params *b)
{
    switch (a->algo) {
    case QC_LIMITER_MAXUSERS: return a->ki != b->ki || a->kp != b->kp;
    case QC_LIMITER_AIMD:
        return a->aimd_backoff != b->aimd_backoff || a->aimd_timeout != b->aimd_timeout;
    case QC_LIMITER_GRADIENT2: return memcmp(&a->gradient2, &b->gradient2, sizeof a->gradient2) != 0;
    case QC_LIMITER_VEGAS: return memcmp(&a->vegas, &b->vegas, sizeof a->vegas) != 0;
    case QC_LIMITER_ENVOY: return memcmp(&a->envoy, &b->envoy, sizeof a->envoy) != 0;
    case QC_LIMITER_FIXED:
    case QC_LIMITER_ADMISSION: return 0;
    }
    return 1;
}

int qc_limiter_reconfigure(qc_limiter *l, const qc_limiter_params *c, double now, int *changed,
                           qc_err *err)
{
    int rc = check_config(c, err);
    if (rc)
        return rc;
    if (changed)
        *changed = 0;
    pthread_mutex_lock(&l->mu);
    qc_limiter_params old = l->cfg;
    const double ref_now = l->cfg.reference;
    old.reference = l->conf_reference;
    if (c->algo != old.algo) {
        pthread_mutex_unlock(&l->mu);
        return qc_err_set(err, QC_EINVAL, "algo: the limiter cannot change from %s to %s in place",
                          qc_limiter_algo_name(old.algo), qc_limiter_algo_name(c->algo));
    }
    if (c->classes != old.classes) {
        pthread_mutex_unlock(&l->mu);
        return qc_err_set(err, QC_EINVAL, "classes: %u cannot change to %u in place", old.classes,
                          c->classes);
    }
    if (c->algo == QC_LIMITER_ADMISSION) {
        int same = c->adm_epsilon == old.adm_epsilon && c->adm_alpha == old.adm_alpha &&
                   c->adm_min_completions == old.adm_min_completions &&
                   c->adm_candidates == old.adm_candidates && c->be_floor == old.be_floor;
        for (unsigned i = 0; i < c->classes; i++)
            same &= (c->bound[i] > 0) == (old.bound[i] > 0);
        if (!same) {
            pthread_mutex_unlock(&l->mu);
            return qc_err_set(err, QC_EINVAL,
                              "admission: epsilon, alpha, completions per sample, candidates and "
                              "which classes are bounded cannot change in place");
        }
        for (unsigned i = 0; i < c->classes; i++)
            if (c->bound[i] != old.bound[i]) {
                l->new_bound[i] = c->bound[i]; /* taken at the next tick */
                if (changed)
                    *changed = 1;
            }
        pthread_mutex_unlock(&l->mu);
        return 0;
    }
    int differs = memcmp(c, &old, sizeof *c) != 0;
    if (changed)
        *changed = differs;
    if (!differs) {
        pthread_mutex_unlock(&l->mu);
        return 0;
    }
    int range = c->min_limit != old.min_limit || c->max_limit != old.max_limit;
    int restart = controller_differs(c, &old) || range;
    double u = c->algo == QC_LIMITER_FIXED ? c->initial_limit
                                           : clampd(l->limit, c->min_limit, c->max_limit);
    double reference = l->cfg.reference; /* as set in force (admin, adaptation) */
    int knee_on = l->knee_on;
    const int knee_on_was = l->knee_on;
    l->cfg = *c;
    if (c->reference != old.reference) { /* the file's new reference, or adapting again */
        reference = c->reference;
        l->conf_reference = c->reference;
        knee_on = c->algo == QC_LIMITER_MAXUSERS && c->reference == 0;
    }
    if (restart && c->algo != QC_LIMITER_FIXED) {
        qc_knee knee = l->knee; /* the no-load latency measured so far stays */
        qc_err e2 = {0};
        l->cfg.initial_limit = u;
        if (l->cfg.algo == QC_LIMITER_ENVOY)
            qc_lim_envoy_free(&l->conc.u.envoy);
        if ((rc = init_controller(l, now, &e2)) != 0) {
            /* the parameters passed check_config, so the step objects'
             * own checks refused them: back to the old ones */
            l->cfg = old;
            l->cfg.initial_limit = l->limit;
            init_controller(l, now, NULL);
            l->cfg.reference = ref_now;
            l->conf_reference = old.reference;
            l->knee = knee;
            l->knee_on = knee_on_was;
            pthread_mutex_unlock(&l->mu);
            return qc_err_set(err, rc, "%s", e2.msg);
        }
        l->cfg.initial_limit = c->initial_limit;
        if (!range)
            l->knee = knee;
        l->settling = 0;
    }
    l->cfg.reference = reference;
    l->knee_on = knee_on && reference == 0;
    if (c->algo == QC_LIMITER_MAXUSERS)
        qc_mu_ctl_reset(&l->mu_ctl, u), u = l->mu_ctl.u;
    else if (c->algo == QC_LIMITER_AIMD)
        l->conc.u.aimd.limit = u;
    else if (c->algo == QC_LIMITER_GRADIENT2)
        l->conc.u.g2.limit = u;
    else if (c->algo == QC_LIMITER_VEGAS)
        l->conc.u.vegas.limit = u;
    else if (c->algo == QC_LIMITER_ENVOY)
        l->conc.u.envoy.limit = u;
    l->limit = u;
    atomic_store_explicit(&l->gate, gate_of(u), memory_order_relaxed);
    pthread_mutex_unlock(&l->mu);
    return 0;
}

void qc_limiter_record(qc_limiter *l, unsigned cls, double latency, uint32_t inflight, int outcome)
{
    if (cls >= l->classes)
        cls = l->classes - 1;
    /* a token counted in flight: release takes it out again */
    atomic_fetch_add_explicit(&l->inflight, 1, memory_order_relaxed);
    qc_limiter_token tok = {.inflight = inflight, .cls = (uint16_t)cls, .live = 1};
    qc_limiter_release(l, &tok, latency, outcome);
}

double qc_limiter_next_tick(qc_limiter *l)
{
    pthread_mutex_lock(&l->mu);
    double t = l->next_tick;
    pthread_mutex_unlock(&l->mu);
    return t;
}

double qc_limiter_limit_real(qc_limiter *l)
{
    pthread_mutex_lock(&l->mu);
    double u = l->limit;
    pthread_mutex_unlock(&l->mu);
    return u;
}

uint32_t qc_limiter_limit(const qc_limiter *l)
{
    return atomic_load_explicit(&((qc_limiter *)l)->gate, memory_order_relaxed);
}

void qc_limiter_get_stats(qc_limiter *l, qc_limiter_stats *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&l->mu);
    st->limit = l->limit;
    st->last_y = l->last_y;
    st->last_rtt = l->last_rtt;
    for (unsigned i = 0; i < l->classes; i++) {
        int adm = l->cfg.algo == QC_LIMITER_ADMISSION;
        st->class_weight[i] = qc_limiter_weight(l, i);
        st->class_bound[i] = adm ? l->cfg.bound[i] : NAN;
        st->class_state[i] = adm && l->cfg.bound[i] > 0 ? (int)l->adm[i].state : -1;
        st->class_delay[i] = l->last_delay[i];
        st->class_samples[i] = l->samples[i];
    }
    st->busy_cycles = atomic_load(&l->cycles_ended);
    st->reference = l->cfg.algo == QC_LIMITER_MAXUSERS ? l->cfg.reference : NAN;
    st->knee = l->knee.knee;
    st->noload = qc_limiter_noload(l);
    pthread_mutex_unlock(&l->mu);
    st->gate = atomic_load(&l->gate);
    st->inflight = atomic_load(&l->inflight);
    for (unsigned i = 0; i < l->classes; i++) {
        st->class_admitted[i] = atomic_load(&l->admitted[i]);
        st->class_refused[i] = atomic_load(&l->refused[i]);
        st->admitted += st->class_admitted[i];
        st->refused += st->class_refused[i];
    }
    st->completed = atomic_load(&l->completed);
    st->dropped = atomic_load(&l->dropped);
}

void qc_limiter_refused(qc_limiter *l, unsigned cls, double cost)
{
    if (l->cfg.algo != QC_LIMITER_ADMISSION || cls >= l->classes || !(l->cfg.bound[cls] > 0) ||
        !(cost >= 0) || !isfinite(cost))
        return;
    double ns = cost * 1e9;
    uint64_t v = ns > 1.8e19 ? UINT64_MAX / 2 : (uint64_t)ns;
    atomic_fetch_add_explicit(&l->cyc_sum_ns[cls], v, memory_order_relaxed);
    atomic_fetch_add_explicit(&l->cyc_n[cls], 1, memory_order_relaxed);
    /* an idle server has no open cycle: the sample is closed at once */
    if (atomic_load_explicit(&l->inflight, memory_order_acquire) == 0) {
        uint64_t n = atomic_exchange_explicit(&l->cyc_n[cls], 0, memory_order_relaxed);
        uint64_t s = atomic_exchange_explicit(&l->cyc_sum_ns[cls], 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&l->closed_sum_ns[cls], s, memory_order_relaxed);
        atomic_fetch_add_explicit(&l->closed_n[cls], n, memory_order_relaxed);
    }
}
