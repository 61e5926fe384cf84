/* SPDX-License-Identifier: GPL-3.0-or-later */
/* pool.c: K removable servers with routing and on/off policies, on the
 * event kernel, with output analysis in chunks.
 *
 * State between events (see qctl/pool.h for the policies):
 *   n       = jobs in system = sum over servers of q.len (+ central.len
 *             + jobs in service, for central);
 *   n_on    = servers ON, n_busy of them serving, n_setup SETUP;
 *   a per-server policy's SETUP server has q.len >= 1, an ON one is busy
 *   iff q.len >= 1 (its head is in service);
 *   central: setups n_setup = min(central.len, K - n_on), and no ON server
 *   idles while a job waits.
 * Each server has at most one pending setup or idle-timer event, whose
 * handle it keeps so that the event can be cancelled (a job reaching an
 * idle server cancels its timer; central cancels surplus setups).
 *
 * Jobs live in one slot array with a free list, each queue being a linked
 * list of slots, so K queues cost one allocation that only grows when the
 * number in system reaches a new maximum: no event allocates otherwise.
 * A job's service time is drawn at its arrival from the service stream,
 * so two policies run with the same seed see the same jobs (common random
 * numbers) and differences between them are not sampling noise.
 *
 * Routing scans the K servers once per arrival, O(K): simple, and at the
 * sizes the pool is meant for (K up to a few hundred) cheaper than the
 * bookkeeping of a heap of queue lengths. */
#include "qctl/pool.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/fleet.h"
#include "qctl/rng.h"
#include "qctl/sim.h"
#include "reps.h"
#include "units.h"
#include "core/names.h"

enum { EV_ARRIVAL = 0, EV_DEPART = 1, EV_SETUP = 2, EV_TIMER = 3, EV_TICK = 4 };

#define NIL UINT32_MAX
#define NOT_MEASURED UINT32_MAX
#define PROGRESS_EVERY (1u << 18)

typedef struct job {
    double arr, svc;
    uint32_t chunk; /* chunk of its arrival, or NOT_MEASURED */
    uint32_t next;  /* next job in the same queue */
} job;

typedef struct fifo {
    uint32_t head, tail, len;
} fifo;

typedef struct server {
    uint8_t state;     /* qc_server_state */
    uint8_t busy;
    fifo q;            /* per-server policies: its jobs, head in service */
    uint32_t cur;      /* central: the job in service */
    int64_t handle;    /* pending EV_SETUP or EV_TIMER, or -1 */
    double setup_start; /* when its setup began (central cancels the latest) */
    double idle_since; /* when it last fell idle */
    uint32_t pend;     /* route_on, SETUP: the jobs that chose it (sent on to ON servers) */
} server;

/* Per chunk, plain sums (see queue.c for why not Welford). */
typedef struct chunk {
    uint64_t done;     /* measured jobs that departed */
    double sum_resp;
    uint64_t arrivals, departures, switch_ons;
    double area_n, area_busy, area_on, area_setup;
    double t_start, t_end;
    qc_hist *hist;
} chunk;

/* The chunks and their sums as the harness (reps.h) sees them: below. */
static const qc__summary_model summary_model;

/* Time averages over bins of width dt, for the series and the demand
 * correlation. */
typedef struct binner {
    double dt, next;
    double a_n, a_on, a_setup, a_busy;
    uint64_t arrivals;
    int in_window; /* the bin began inside the measured window */
} binner;

typedef struct run {
    const qc_pool_params *p;
    qc_energy_cost cost;
    unsigned K;
    double timer; /* idle timer in force (INFINITY for jsq) */
    qc_sim sim;
    qc_rng rarr, rsvc, rsetup, rroute;
    qc_arrivals_gen gen;
    qc_sampler ssvc, ssetup;
    qc_djsq_server *view; /* the servers as qc_djsq_route sees them */
    chunk chunks[QC_POOL_CHUNKS];
    int cur; /* chunk in force: -1 before the window, CHUNKS after */

    server *srv;
    job *jobs;
    uint32_t jcap, jfree;
    fifo central;

    uint64_t n;
    unsigned n_on, n_busy, n_setup;
    double tlast;
    uint64_t arrivals, measured_out, warm_n, next_bound;
    double win_start, win_end;
    int done;

    int series_on;
    binner sb;
    qc_pool_series_point *series;
    size_t slen, scap;

    int corr_on;
    binner cb;
    double cn, sx, sy, sxx, syy, sxy;
    int oom;
} run;

static const char *const policy_names[QC_POOL_NPOLICIES] = {"djsq", "jsq", "jsq-off", "random",
                                                            "central"};
QC__NAMES(qc_pool_policy, qc_pool_policy_name, qc_pool_policy_parse, policy_names)


static const char *const metric_names[QC_PM_COUNT] = {
    "mean_jobs",           "response_time",      "response_time_p50", "response_time_p95",
    "response_time_p99",   "throughput",         "mean_power",        "energy_per_job",
    "switch_ons_per_hour", "frac_setup",       "average_cost",      "holding_cost",
    "setup_cost",        "servers_on",         "servers_busy",      "servers_setup",
    "demand_correlation"};
QC__NAMES(qc_pool_metric, qc_pool_metric_name, qc_pool_metric_parse, metric_names)

void qc_pool_params_init(qc_pool_params *p)
{
    memset(p, 0, sizeof *p);
    p->servers = 1;
    p->policy = QC_POOL_DJSQ;
    p->threshold = QC_POOL_DEFAULT_THRESHOLD;
    p->cost.holding = QC_POOL_DEFAULT_HOLDING;
    p->cost.nrates = 1;
    p->cost.rate[0] = 1.0;
    p->cost.power[0] = QC_POOL_DEFAULT_BUSY_W;
    p->cost.idle_power = QC_POOL_DEFAULT_IDLE_W;
    p->cost.setup_power = QC_POOL_DEFAULT_SETUP_W;
    p->cost.off_power = QC_POOL_DEFAULT_OFF_W;
    p->cost.setup_rate = QC_POOL_DEFAULT_SETUP_RATE;
    p->reps = 10;
    p->seed = 1;
    p->level = 0.95;
}

/* ---- validation ---------------------------------------------------- */

static int check_params(const qc_pool_params *p, qc_energy_cost *cost, double *load, qc_err *err)
{
    if (p->arrival == NULL || p->arrival->kind == QC_ARRIVALS_NONE)
        return qc_err_set(err, QC_EINVAL, "arrival: no arrival process given");
    if (p->service == NULL || p->service->kind == QC_DIST_NONE)
        return qc_err_set(err, QC_EINVAL, "service: no distribution given");
    if (p->setup == NULL || p->setup->kind == QC_DIST_NONE)
        return qc_err_set(err, QC_EINVAL, "setup time: no distribution given");
    if (p->servers < 1 || p->servers > QC_POOL_MAX_SERVERS)
        return qc_err_set(err, QC_EINVAL, "servers: K = %u is not in [1, %d]", p->servers,
                          QC_POOL_MAX_SERVERS);
    if ((unsigned)p->policy >= QC_POOL_NPOLICIES)
        return qc_err_set(err, QC_EINVAL, "policy: %d is not a policy", (int)p->policy);
    if (p->policy == QC_POOL_DJSQ && p->threshold < 1)
        return qc_err_set(err, QC_EINVAL,
                          "threshold: T = %u; delay-JSQ needs T >= 1 (a job joins a non-empty "
                          "queue only if it then holds at most T jobs)",
                          p->threshold);
    if (!(p->idle_timer >= 0))
        return qc_err_set(err, QC_EINVAL, "idle timer: %g is not >= 0", p->idle_timer);
    if (p->route_on && p->policy != QC_POOL_DJSQ)
        return qc_err_set(err, QC_EINVAL, "route-on: only with the policy djsq (policy %s)",
                          qc_pool_policy_name(p->policy));
    int rc = qc__check_run(p->customers, p->horizon, p->reps, p->level, QC_POOL_CHUNKS, err);
    if (rc != 0)
        return rc;
    if (p->warmup_mode == QC_WARMUP_FIXED &&
        !(p->warmup >= 0 && isfinite(p->warmup) && p->warmup < 1e15))
        return qc_err_set(err, QC_EINVAL, "warmup: %g is not a non-negative finite amount",
                          p->warmup);
    if (!(p->series_dt >= 0) || !isfinite(p->series_dt))
        return qc_err_set(err, QC_EINVAL, "series interval: %g is not >= 0", p->series_dt);
    if (!(p->corr_dt >= 0) || !isfinite(p->corr_dt))
        return qc_err_set(err, QC_EINVAL, "correlation bin: %g is not >= 0", p->corr_dt);

    double es = qc_dist_mean(p->service), ew = qc_dist_mean(p->setup);
    if (!(es > 0 && isfinite(es)))
        return qc_err_set(err, QC_EINVAL, "service: mean service time is %g; it must be > 0", es);
    if (!(ew >= 0 && isfinite(ew)))
        return qc_err_set(err, QC_EINVAL, "setup time: mean %g must be >= 0 and finite", ew);
    if (p->cost.nrates != 1)
        return qc_err_set(err, QC_EINVAL,
                          "rates: the pool has one service speed; %zu rates given", p->cost.nrates);
    *cost = p->cost;
    cost->rate[0] = 1.0 / es;
    /* The setup law is p->setup; setup_rate only documents its mean. */
    cost->setup_rate = ew > 0 ? 1.0 / ew : 1.0;
    rc = qc_energy_check(cost, err);
    if (rc != 0)
        return rc;

    const qc_arrivals *a = p->arrival;
    double lam = qc_arrivals_mean_rate(a), cap = (double)p->servers / es;
    *load = lam / cap;
    if (a->kind == QC_ARRIVALS_TRACE) {
        uint64_t warm = p->warmup_mode == QC_WARMUP_FIXED && p->customers
                            ? (uint64_t)p->warmup
                            : 0;
        if (p->customers > 0 && p->customers + warm > a->n)
            return qc_err_set(err, QC_EINVAL,
                              "customers: the trace holds %zu arrivals, fewer than the %llu "
                              "asked for (with %llu cut as warm-up)",
                              a->n, (unsigned long long)(p->customers + warm),
                              (unsigned long long)warm);
        return 0;
    }
    double warm = p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0;
    double span = p->customers ? ((double)p->customers + warm) / lam : p->horizon + warm;
    if ((rc = qc__check_time_scale(1 / lam, es, span, err)) != 0)
        return rc;
    if (!(lam < cap))
        return qc_err_set(err, QC_EUNSTABLE,
                          "mean arrival rate lambda = %.6g >= K mu = %u x %.6g = %.6g: the "
                          "servers cannot keep up under any policy and the queues grow without "
                          "bound; lower the rate or add servers",
                          lam, p->servers, 1.0 / es, cap);
    return 0;
}

/* ---- workspace ------------------------------------------------------- */

static void run_free(void *ws)
{
    run *r = ws;
    qc__chunks_free(r->chunks, &summary_model);
    qc_sim_free(&r->sim);
    free(r->srv);
    free(r->view);
    free(r->jobs);
    free(r->series);
}

/* A workspace for the parameters (qc__workers_model.init); ctx: the
 * energy cost. */
static int run_alloc(void *ws, const void *params, const void *ctx)
{
    run *r = ws;
    const qc_pool_params *p = params;
    const qc_energy_cost *cost = ctx;
    memset(r, 0, sizeof *r);
    r->p = p;
    r->cost = *cost;
    r->K = p->servers;
    if (qc_sim_init(&r->sim, 2 * (size_t)r->K + 16, NULL) != 0 ||
        qc_sim_source_add(&r->sim, EV_ARRIVAL) != 0)
        goto oom;
    if (qc__chunks_alloc(r->chunks, &summary_model, qc_dist_mean(p->service)) != 0)
        goto oom;
    r->srv = calloc(r->K, sizeof *r->srv);
    r->view = calloc(r->K, sizeof *r->view);
    r->jcap = 1024;
    r->jobs = malloc(r->jcap * sizeof *r->jobs);
    if (!r->srv || !r->view || !r->jobs)
        goto oom;
    return 0;
oom:
    run_free(r);
    return QC_ENOMEM;
}

/* Slots [from, jcap) onto the free list. */
static void jobs_link_free(run *r, uint32_t from)
{
    for (uint32_t i = from; i < r->jcap; i++)
        r->jobs[i].next = i + 1 < r->jcap ? i + 1 : NIL;
    r->jfree = from;
}

static void run_reset(run *r, unsigned rep)
{
    const qc_pool_params *p = r->p;
    qc__reps_open_start(&r->sim, p->seed, rep, &r->rarr, &r->gen, p->arrival, &r->rsvc, &r->ssvc,
                        p->service);
    qc_rng_init(&r->rsetup, p->seed, qc_rng_stream(rep, QC_STREAM_SERVER, 0));
    qc_rng_init(&r->rroute, p->seed, qc_rng_stream(rep, QC_STREAM_ROUTING, 0));
    qc_sampler_init(&r->ssetup, p->setup, &r->rsetup);
    qc__chunks_reset(r->chunks, &summary_model);
    r->cur = -1;
    r->timer = p->policy == QC_POOL_JSQ ? (double)INFINITY : p->idle_timer;
    int all_on = p->policy == QC_POOL_JSQ;
    for (unsigned i = 0; i < r->K; i++) {
        server *v = &r->srv[i];
        memset(v, 0, sizeof *v);
        v->state = all_on ? QC_SERVER_ON : QC_SERVER_OFF;
        v->q = (fifo){NIL, NIL, 0};
        v->cur = NIL;
        v->handle = -1;
    }
    r->central = (fifo){NIL, NIL, 0};
    jobs_link_free(r, 0);
    r->n = 0;
    r->n_on = all_on ? r->K : 0;
    r->n_busy = r->n_setup = 0;
    r->tlast = 0;
    r->arrivals = r->measured_out = r->next_bound = 0;
    r->warm_n = p->warmup_mode == QC_WARMUP_FIXED && p->customers
                    ? (uint64_t)p->warmup
                    : 0;
    r->win_start = r->win_end = 0;
    r->done = 0;

    r->series_on = rep == 0 && p->series_dt > 0;
    memset(&r->sb, 0, sizeof r->sb);
    r->sb.dt = p->series_dt;
    r->sb.next = p->series_dt;
    r->slen = 0;

    r->corr_on = qc_arrivals_varies(p->arrival);
    memset(&r->cb, 0, sizeof r->cb);
    r->cb.dt = p->corr_dt > 0 ? p->corr_dt : p->arrival->period / 100;
    r->cb.next = r->cb.dt;
    r->cn = r->sx = r->sy = r->sxx = r->syy = r->sxy = 0;
}

static int run_once(void *ctx, void *ws, unsigned rep, qc_err *err);

/* A worker's workspace, for the harness (reps.h). */
static const qc__workers_model workers_model = {
    sizeof(run), sizeof(qc_pool_params), offsetof(run, p), offsetof(qc_pool_params, progress),
    offsetof(qc_pool_params, progress_ctx), run_alloc, run_free, run_once};

/* ---- jobs and queues ------------------------------------------------- */

static int job_new(run *r, uint32_t *out)
{
    if (r->jfree == NIL) {
        if (r->jcap > UINT32_MAX / 2)
            return QC_ENOMEM;
        uint32_t cap = 2 * r->jcap;
        job *nj = realloc(r->jobs, (size_t)cap * sizeof *nj);
        if (nj == NULL)
            return QC_ENOMEM;
        r->jobs = nj;
        uint32_t old = r->jcap;
        r->jcap = cap;
        jobs_link_free(r, old);
    }
    *out = r->jfree;
    r->jfree = r->jobs[*out].next;
    return 0;
}

static inline void job_release(run *r, uint32_t j)
{
    r->jobs[j].next = r->jfree;
    r->jfree = j;
}

static inline void fifo_push(run *r, fifo *f, uint32_t j)
{
    r->jobs[j].next = NIL;
    if (f->len == 0)
        f->head = j;
    else
        r->jobs[f->tail].next = j;
    f->tail = j;
    f->len++;
}

static inline uint32_t fifo_pop(run *r, fifo *f)
{
    uint32_t j = f->head;
    f->head = r->jobs[j].next;
    if (--f->len == 0)
        f->head = f->tail = NIL;
    return j;
}

/* ---- time accounting ------------------------------------------------ */

static void bin_add(const run *r, binner *b, double d)
{
    b->a_n += (double)r->n * d;
    b->a_on += (double)r->n_on * d;
    b->a_setup += (double)r->n_setup * d;
    b->a_busy += (double)r->n_busy * d;
}

static void series_emit(run *r, binner *b)
{
    if (qc__grow((void **)&r->series, &r->scap, r->slen, sizeof *r->series) != 0) {
        r->oom = 1;
        r->series_on = 0;
        return;
    }
    double dt = b->dt, mid = b->next - 0.5 * dt;
    r->series[r->slen++] = (qc_pool_series_point){
        b->next, b->a_n / dt, b->a_on / dt, b->a_setup / dt, b->a_busy / dt,
        qc_arrivals_rate_at(r->p->arrival, mid), (double)b->arrivals / dt};
}

static void corr_emit(run *r, binner *b)
{
    if (!b->in_window || r->cur >= QC_POOL_CHUNKS)
        return;
    double x = qc_arrivals_rate_at(r->p->arrival, b->next - 0.5 * b->dt);
    double y = b->a_on / b->dt;
    r->cn += 1;
    r->sx += x;
    r->sy += y;
    r->sxx += x * x;
    r->syy += y * y;
    r->sxy += x * y;
}

/* Closes every bin that ends at or before t, then accrues the open bin up
 * to t. */
static void bin_advance(run *r, binner *b, double t, int is_series)
{
    double from = r->tlast;
    while (t >= b->next) {
        bin_add(r, b, b->next - from);
        if (is_series)
            series_emit(r, b);
        else
            corr_emit(r, b);
        from = b->next;
        b->next += b->dt;
        b->a_n = b->a_on = b->a_setup = b->a_busy = 0;
        b->arrivals = 0;
        b->in_window = r->cur >= 0 && r->cur < QC_POOL_CHUNKS;
    }
    bin_add(r, b, t - from);
}

/* Accrues the areas of the path up to time t. */
static inline void advance(run *r, double t)
{
    double dt = t - r->tlast;
    if (r->cur >= 0 && r->cur < QC_POOL_CHUNKS) {
        chunk *ch = &r->chunks[r->cur];
        ch->area_n += (double)r->n * dt;
        ch->area_busy += (double)r->n_busy * dt;
        ch->area_on += (double)r->n_on * dt;
        ch->area_setup += (double)r->n_setup * dt;
    }
    if (r->series_on)
        bin_advance(r, &r->sb, t, 1);
    if (r->corr_on)
        bin_advance(r, &r->cb, t, 0);
    r->tlast = t;
}

static void set_chunk(run *r, int k, double t)
{
    if (r->cur >= 0 && r->cur < QC_POOL_CHUNKS)
        r->chunks[r->cur].t_end = t;
    if (r->cur < 0) {
        r->win_start = t;
        /* the open correlation bin counts only if it begins right here */
        r->cb.in_window = r->cb.next - r->cb.dt >= t;
    }
    r->cur = k;
    if (k < QC_POOL_CHUNKS) {
        r->chunks[k].t_start = t;
    } else {
        r->win_end = t;
        if (r->measured_out == 0)
            r->done = 1;
    }
}

static inline chunk *chunk_now(run *r)
{
    return r->cur >= 0 && r->cur < QC_POOL_CHUNKS ? &r->chunks[r->cur] : NULL;
}

/* ---- server transitions -------------------------------------------- */

static int start_setup(run *r, unsigned s)
{
    server *v = &r->srv[s];
    v->state = QC_SERVER_SETUP;
    r->n_setup++;
    chunk *ch = chunk_now(r);
    if (ch)
        ch->switch_ons++;
    double d = qc_sampler_next(&r->ssetup);
    int64_t h = qc_sim_after(&r->sim, d, EV_SETUP, s);
    if (h < 0)
        return (int)h;
    v->handle = h;
    v->setup_start = r->sim.now;
    return 0;
}

static int start_service(run *r, unsigned s, uint32_t j)
{
    server *v = &r->srv[s];
    v->busy = 1;
    r->n_busy++;
    int64_t h = qc_sim_after(&r->sim, r->jobs[j].svc, EV_DEPART, s);
    return h < 0 ? (int)h : 0;
}

static void switch_off(run *r, unsigned s)
{
    r->srv[s].state = QC_SERVER_OFF;
    r->n_on--;
}

/* Server s has nothing left to serve. */
static int go_idle(run *r, unsigned s)
{
    server *v = &r->srv[s];
    v->idle_since = r->sim.now;
    if (r->timer == 0) {
        switch_off(r, s);
        return 0;
    }
    if (isfinite(r->timer)) {
        int64_t h = qc_sim_after(&r->sim, r->timer, EV_TIMER, s);
        if (h < 0)
            return (int)h;
        v->handle = h;
    }
    return 0;
}

/* An idle ON server is given work: its idle timer no longer applies. */
static int wake(run *r, unsigned s)
{
    server *v = &r->srv[s];
    int rc = 0;
    if (v->handle >= 0) {
        rc = qc_sim_cancel(&r->sim, v->handle);
        v->handle = -1;
    }
    return rc;
}

/* ---- routing (per-server queues) ------------------------------------- */

/* delay-JSQ, the rule of qctl/fleet.h. A SETUP server here always
 * holds the job that turned it on, so the rule's third step (a SETUP
 * server with an empty queue) never applies, and there is no limit on
 * the servers on. */
static unsigned route_djsq(const run *r)
{
    static const qc_djsq_state as[3] = {
        [QC_SERVER_OFF] = QC_DJSQ_OFF, [QC_SERVER_SETUP] = QC_DJSQ_SETUP, [QC_SERVER_ON] = QC_DJSQ_ON};
    for (unsigned i = 0; i < r->K; i++) {
        const server *v = &r->srv[i];
        r->view[i] = (qc_djsq_server){as[v->state], v->q.len, v->idle_since};
    }
    return (unsigned)qc_djsq_route(r->view, r->K, r->p->threshold, 1);
}

/* JSQ counting an OFF server as an empty queue. Order: fewest jobs, then
 * ON before SETUP before OFF, then (idle ON servers) the one idle last,
 * then the lowest index. */
static unsigned route_jsq_off(const run *r)
{
    static const int rank[3] = {[QC_SERVER_ON] = 0, [QC_SERVER_SETUP] = 1, [QC_SERVER_OFF] = 2};
    unsigned best = 0;
    const server *b = &r->srv[0];
    for (unsigned i = 1; i < r->K; i++) {
        const server *v = &r->srv[i];
        if (v->q.len != b->q.len) {
            if (v->q.len < b->q.len) {
                best = i;
                b = v;
            }
            continue;
        }
        int rv = rank[v->state], rb = rank[b->state];
        if (rv < rb || (rv == rb && v->q.len == 0 && v->state == QC_SERVER_ON &&
                        v->idle_since > b->idle_since)) {
            best = i;
            b = v;
        }
    }
    return best;
}

/* JSQ with every server ON: fewest jobs, lowest index. */
static unsigned route_jsq(const run *r)
{
    unsigned best = 0;
    uint32_t bq = r->srv[0].q.len;
    for (unsigned i = 1; i < r->K && bq > 0; i++) {
        if (r->srv[i].q.len < bq) {
            best = i;
            bq = r->srv[i].q.len;
        }
    }
    return best;
}

/* delay-JSQ through a balancer that sends work to ON servers only
 * (qc_pool_params.route_on): the rule sees a SETUP server holding the
 * jobs that chose it (pend), so it turns one more server on exactly when
 * djsq would, but the job joins the shortest ON queue (lowest index on
 * ties) rather than waiting for the setup; with no server ON it waits at
 * the one chosen. */
static int route_on(run *r, uint32_t j)
{
    static const qc_djsq_state as[3] = {
        [QC_SERVER_OFF] = QC_DJSQ_OFF, [QC_SERVER_SETUP] = QC_DJSQ_SETUP, [QC_SERVER_ON] = QC_DJSQ_ON};
    for (unsigned i = 0; i < r->K; i++) {
        const server *v = &r->srv[i];
        r->view[i] = (qc_djsq_server){as[v->state],
                                      v->state == QC_SERVER_SETUP ? v->q.len + v->pend : v->q.len,
                                      v->idle_since};
    }
    unsigned s = (unsigned)qc_djsq_route(r->view, r->K, r->p->threshold, 1);
    server *v = &r->srv[s];
    if (v->state != QC_SERVER_ON) {
        if (v->state == QC_SERVER_OFF) {
            int rc = start_setup(r, s);
            if (rc != 0)
                return rc;
        }
        unsigned best = r->K;
        for (unsigned i = 0; i < r->K; i++)
            if (r->srv[i].state == QC_SERVER_ON && (best == r->K || r->srv[i].q.len < r->srv[best].q.len))
                best = i;
        if (best == r->K) {
            fifo_push(r, &v->q, j); /* nobody ON: it waits for this setup */
            return 0;
        }
        v->pend++;
        s = best;
        v = &r->srv[s];
    }
    fifo_push(r, &v->q, j);
    if (!v->busy) {
        int rc = wake(r, s);
        return rc ? rc : start_service(r, s, j);
    }
    return 0;
}

static int route(run *r, uint32_t j)
{
    unsigned s;
    if (r->p->policy == QC_POOL_DJSQ && r->p->route_on)
        return route_on(r, j);
    switch (r->p->policy) {
    case QC_POOL_DJSQ: s = route_djsq(r); break;
    case QC_POOL_JSQ_OFF: s = route_jsq_off(r); break;
    case QC_POOL_RANDOM: {
        s = (unsigned)(qc_rng_u01(&r->rroute) * (double)r->K);
        if (s >= r->K)
            s = r->K - 1;
        break;
    }
    default: s = route_jsq(r); break;
    }
    server *v = &r->srv[s];
    fifo_push(r, &v->q, j);
    if (v->state == QC_SERVER_OFF)
        return start_setup(r, s);
    if (v->state == QC_SERVER_ON && !v->busy) {
        int rc = wake(r, s);
        return rc ? rc : start_service(r, s, j);
    }
    return 0;
}

/* ---- central queue: M/M/k/setup ---------------------------------------- */

static int central_arrive(run *r, uint32_t j)
{
    if (r->n_on > r->n_busy) {
        /* an idle ON server (idle timer pending): the one idle last */
        unsigned s = r->K;
        double last = -INFINITY;
        for (unsigned i = 0; i < r->K; i++) {
            const server *v = &r->srv[i];
            if (v->state == QC_SERVER_ON && !v->busy && v->idle_since > last) {
                s = i;
                last = v->idle_since;
            }
        }
        int rc = wake(r, s);
        if (rc != 0)
            return rc;
        r->srv[s].cur = j;
        return start_service(r, s, j);
    }
    fifo_push(r, &r->central, j);
    /* every waiting job has a server in setup while any is OFF */
    if (r->n_setup < r->central.len && r->n_on + r->n_setup < r->K) {
        for (unsigned i = 0; i < r->K; i++)
            if (r->srv[i].state == QC_SERVER_OFF)
                return start_setup(r, i);
    }
    return 0;
}

/* A setup is no longer needed: cancel the one begun last. The choice may
 * not look at when a setup is going to end: a simulator knows, a server
 * does not, and cancelling the setup due last would leave the survivors
 * biased short (with exponential setups the model's rate would then be
 * wrong: a first version did this and ran 1.3% fewer jobs than the CTMC
 * of test_pool.c). Begun last is also, for setups that are more likely to
 * end the longer they have run (deterministic ones, say), the one furthest
 * from done. */
static int central_cancel_setup(run *r)
{
    unsigned s = r->K;
    double latest = -INFINITY;
    for (unsigned i = 0; i < r->K; i++) {
        const server *v = &r->srv[i];
        if (v->state == QC_SERVER_SETUP && v->setup_start >= latest) {
            s = i;
            latest = v->setup_start;
        }
    }
    server *v = &r->srv[s];
    int rc = qc_sim_cancel(&r->sim, v->handle);
    v->handle = -1;
    v->state = QC_SERVER_OFF;
    r->n_setup--;
    return rc;
}

/* ---- events ------------------------------------------------------------ */

static uint32_t arrival_chunk(run *r, double t)
{
    const qc_pool_params *p = r->p;
    uint64_t i = r->arrivals++;
    if (p->customers == 0)
        return r->cur >= 0 && r->cur < QC_POOL_CHUNKS ? (uint32_t)r->cur : NOT_MEASURED;
    if (i < r->warm_n)
        return NOT_MEASURED;
    uint64_t j = i - r->warm_n;
    if (j >= p->customers) {
        if (r->cur < QC_POOL_CHUNKS)
            set_chunk(r, QC_POOL_CHUNKS, t);
        return NOT_MEASURED;
    }
    if (j == r->next_bound) {
        int k = r->cur + 1;
        set_chunk(r, k, t);
        r->next_bound = ((uint64_t)(k + 1) * p->customers + QC_POOL_CHUNKS - 1) / QC_POOL_CHUNKS;
    }
    return (uint32_t)r->cur;
}

static int on_arrival(run *r, double t)
{
    double next = qc_arrivals_next(&r->gen);
    if (next < INFINITY) {
        int rc = qc_sim_source_at(&r->sim, 0, next);
        if (rc != 0)
            return rc;
    }
    uint32_t k = arrival_chunk(r, t);
    if (r->done)
        return 0;
    if (k != NOT_MEASURED) {
        r->chunks[k].arrivals++;
        r->measured_out++;
    }
    r->sb.arrivals++;
    uint32_t j;
    if (job_new(r, &j) != 0)
        return QC_ENOMEM;
    r->jobs[j].arr = t;
    r->jobs[j].svc = qc_sampler_next(&r->ssvc);
    r->jobs[j].chunk = k;
    r->n++;
    int rc = r->p->policy == QC_POOL_CENTRAL ? central_arrive(r, j) : route(r, j);
    /* A trace that ends has no arrival N + 1 to close the window: it
     * closes at the last arrival (the jobs still in system are followed
     * to their departures as usual). */
    if (rc == 0 && isinf(next) && r->p->customers > 0 && r->cur >= 0 && r->cur < QC_POOL_CHUNKS)
        set_chunk(r, QC_POOL_CHUNKS, t);
    return rc;
}

static void depart_stats(run *r, uint32_t j, double t)
{
    chunk *now = chunk_now(r);
    if (now)
        now->departures++;
    const job *b = &r->jobs[j];
    if (b->chunk == NOT_MEASURED)
        return;
    chunk *ch = &r->chunks[b->chunk];
    double resp = t - b->arr;
    ch->done++;
    ch->sum_resp += resp;
    qc_hist_add(ch->hist, resp);
    if (--r->measured_out == 0 && r->cur >= QC_POOL_CHUNKS)
        r->done = 1;
}

static int on_depart(run *r, unsigned s, double t)
{
    server *v = &r->srv[s];
    v->busy = 0;
    r->n_busy--;
    r->n--;
    if (r->p->policy == QC_POOL_CENTRAL) {
        uint32_t j = v->cur;
        v->cur = NIL;
        depart_stats(r, j, t);
        job_release(r, j);
        if (r->central.len == 0)
            return go_idle(r, s);
        uint32_t nx = fifo_pop(r, &r->central);
        v->cur = nx;
        int rc = start_service(r, s, nx);
        if (rc == 0 && r->n_setup > r->central.len)
            rc = central_cancel_setup(r);
        return rc;
    }
    uint32_t j = fifo_pop(r, &v->q);
    depart_stats(r, j, t);
    job_release(r, j);
    if (v->q.len > 0)
        return start_service(r, s, v->q.head);
    return go_idle(r, s);
}

static int on_setup(run *r, unsigned s)
{
    server *v = &r->srv[s];
    v->handle = -1;
    v->state = QC_SERVER_ON;
    r->n_setup--;
    r->n_on++;
    if (r->p->policy == QC_POOL_CENTRAL) {
        /* setups <= waiting jobs, so one is there to take */
        uint32_t j = fifo_pop(r, &r->central);
        v->cur = j;
        return start_service(r, s, j);
    }
    v->pend = 0;
    if (v->q.len == 0)
        return go_idle(r, s); /* route_on: its jobs went to ON servers */
    return start_service(r, s, v->q.head);
}

static int on_timer(run *r, unsigned s)
{
    r->srv[s].handle = -1;
    switch_off(r, s);
    return 0;
}

static int on_tick(run *r, double t)
{
    int k = r->cur + 1;
    set_chunk(r, k, t);
    if (k < QC_POOL_CHUNKS) {
        double next = r->win_start + r->p->horizon * (double)(k + 1) / QC_POOL_CHUNKS;
        int64_t h = qc_sim_at(&r->sim, next, EV_TICK, 0);
        if (h < 0)
            return (int)h;
    }
    return 0;
}

static double warmup_time(const qc_pool_params *p)
{
    return p->customers == 0 && p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0;
}

/* Replication rep in workspace ws (qc__workers_model.run). */
static int run_once(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    (void)ctx;
    (void)err;
    run *r = ws;
    const qc_pool_params *p = r->p;
    run_reset(r, rep);
    double first = qc_arrivals_next(&r->gen);
    if (first < INFINITY && qc_sim_source_at(&r->sim, 0, first) != 0)
        return QC_EINVAL;
    if (p->customers == 0) {
        double w = warmup_time(p);
        int64_t h = qc_sim_at(&r->sim, w, EV_TICK, 0);
        if (h < 0)
            return (int)h;
        r->win_start = w;
    }
    qc_event ev;
    uint32_t countdown = PROGRESS_EVERY;
    int rc = 0;
    while (!r->done && qc_sim_next(&r->sim, &ev) == 0) {
        double t = ev.t;
        advance(r, t);
        if (ev.handle == QC_SIM_SOURCE_HANDLE) {
            rc = on_arrival(r, t);
        } else {
            switch (ev.type) {
            case EV_DEPART: rc = on_depart(r, (unsigned)ev.data, t); break;
            case EV_SETUP: rc = on_setup(r, (unsigned)ev.data); break;
            case EV_TIMER: rc = on_timer(r, (unsigned)ev.data); break;
            case EV_TICK: rc = on_tick(r, t); break;
            }
        }
        if (rc != 0 || r->oom)
            return rc ? rc : QC_ENOMEM;
        if (--countdown == 0) {
            countdown = PROGRESS_EVERY;
            if (qc_cancel_requested(p->cancel))
                return QC_ECANCELED;
            if (p->progress) {
                double f = p->customers ? (double)r->arrivals /
                                              ((double)p->customers + (double)r->warm_n)
                                        : t / (p->horizon + warmup_time(p));
                p->progress(p->progress_ctx, f < 1 ? f : 1);
            }
        }
    }
    return 0;
}

/* ---- estimates ----------------------------------------------------------- */

/* What a range of chunks sums (qc__summary_model): counts, amounts. */
enum { N_DONE, N_DEPARTURES, N_SWITCH_ONS };
static const size_t counts_at[] = {offsetof(chunk, done), offsetof(chunk, departures),
                                   offsetof(chunk, switch_ons)};
enum { A_RESP, A_JOBS, A_BUSY, A_ON, A_SETUP };
static const size_t amounts_at[] = {offsetof(chunk, sum_resp), offsetof(chunk, area_n),
                                    offsetof(chunk, area_busy), offsetof(chunk, area_on),
                                    offsetof(chunk, area_setup)};

static double range_metrics(const void *ws, const uint64_t *n, const double *x, double time,
                            double *out)
{
    const run *r = ws;
    const qc_energy_cost *c = &r->cost;
    double jobs = x[A_JOBS] / time, busy = x[A_BUSY] / time, on = x[A_ON] / time,
           setup = x[A_SETUP] / time, K = (double)r->K;
    double power = c->power[0] * busy + c->idle_power * (on - busy) + c->setup_power * setup +
                   c->off_power * (K - on - setup);
    double sw = (double)n[N_SWITCH_ONS] / time;
    out[QC_PM_JOBS] = jobs;
    out[QC_PM_RESPONSE] = n[N_DONE] ? x[A_RESP] / (double)n[N_DONE] : NAN;
    out[QC_PM_THROUGHPUT] = (double)n[N_DEPARTURES] / time;
    out[QC_PM_POWER] = power;
    out[QC_PM_ENERGY_PER_JOB] = n[N_DEPARTURES] ? power * time / (double)n[N_DEPARTURES] : NAN;
    out[QC_PM_SWITCH_ONS_PER_HOUR] = 3600.0 * sw;
    out[QC_PM_FRAC_SETUP] = setup / K;
    out[QC_PM_HOLDING_COST] = c->holding * jobs;
    out[QC_PM_SETUP_COST] = c->setup_power * setup + c->switch_cost * sw;
    out[QC_PM_COST] = c->holding * jobs + power + c->switch_cost * sw;
    out[QC_PM_SERVERS_ON] = on;
    out[QC_PM_SERVERS_BUSY] = busy;
    out[QC_PM_SERVERS_SETUP] = setup;
    out[QC_PM_DEMAND_CORR] = NAN;
    return (double)n[N_DONE];
}

/* The chunks of sim pool; the warm-up series: each chunk's time-average
 * number of jobs. */
static const qc__summary_model summary_model = {
    QC__CHUNKS(chunk, QC_POOL_CHUNKS), offsetof(chunk, area_n), QC__BY_TIME, counts_at, 3, amounts_at, 5,
    QC_PM_COUNT, QC_PM_P50, range_metrics};

static double corr_value(const run *r)
{
    if (r->cn < 3)
        return NAN;
    double vx = r->cn * r->sxx - r->sx * r->sx, vy = r->cn * r->syy - r->sy * r->sy;
    if (!(vx > 0 && vy > 0))
        return NAN;
    return (r->cn * r->sxy - r->sx * r->sy) / sqrt(vx * vy);
}

/* Replications on the workers of reps.h: pool_run_rep runs one in a
 * worker's workspace, pool_merge_rep folds it into the result in
 * replication order. */
typedef struct pool_state {
    const qc_pool_params *p;
    qc_pool_result *res;
    qc__analysis *an;
    double corr1;
} pool_state;

static int pool_merge_rep(void *ctx, void *wsp, unsigned rep, qc_err *err)
{
    pool_state *s = ctx;
    run *r = wsp;
    qc_pool_result *res = s->res;
    res->events += r->sim.events;
    res->sim_time += r->sim.now;
    if (rep == 0 && r->series_on) {
        res->series = r->series;
        res->series_len = r->slen;
        r->series = NULL;
        r->slen = r->scap = 0;
    }
    if (qc__analysis_add(s->an, r, r->chunks, 0, NULL, &res->warmup_customers,
                         &res->warmup_time) != 0)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    if (s->an->one_run) {
        s->corr1 = corr_value(r);
    } else {
        qc__units_set(&s->an->units, rep, QC_PM_DEMAND_CORR, corr_value(r));
    }
    return 0;
}

int qc_pool_run(const qc_pool_params *p, qc_pool_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    double load = 0;
    qc_energy_cost cost;
    int rc = check_params(p, &cost, &load, err);
    if (rc != 0)
        return rc;

    qc__workers wk; /* the workers' workspaces and parameters */
    if (qc__workers_init(&wk, qc__workers_count(p->jobs, p->reps, 256), &workers_model, p,
                         &cost) != 0)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    int mser = p->warmup_mode == QC_WARMUP_MSER5 && !qc_arrivals_varies(p->arrival) &&
               p->arrival->kind != QC_ARRIVALS_TRACE;
    qc__analysis an;
    if (qc__analysis_init(&an, &summary_model, p->reps < 2, mser, QC_PM_JOBS) != 0) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    qc__units *const units = &an.units;
    pool_state st = {p, res, &an, NAN};
    if ((rc = qc__workers_run(&wk, p, p->progress, p->progress_ctx, p->cancel, 0,
                              (double)p->reps, pool_merge_rep, &st, 0, p->reps, err)) != 0)
        goto out;
    double corr1 = st.corr1;
    res->load = p->arrival->kind == QC_ARRIVALS_TRACE ? NAN : load;
    qc__units_finish(units, p->level, res->metric);
    /* Percentiles by sectioning, as in sim queue: centred on the quantile
     * of all kept response times, with the units' spread for half-width. */
    if (an.one_run)
        qc__analysis_percentiles(&an, &res->metric[QC_PM_P50], p->level);
    else
        qc__percentiles(&res->metric[QC_PM_P50], an.all, NULL, 0, p->level);
    /* A t-interval over a few replications reaches below 0 for a measure
     * that cannot (times, counts, power, cost): its part below 0 holds no
     * possible value, so it is cut there, as is a fraction's above 1;
     * only the demand correlation is signed. */
    for (int m = 0; m < QC_PM_COUNT; m++) {
        qc_ci *c = &res->metric[m];
        if (m == QC_PM_DEMAND_CORR)
            continue;
        if (c->lo < 0 && c->mean >= 0)
            c->lo = 0;
        if (m == QC_PM_FRAC_SETUP && c->hi > 1 && c->mean <= 1)
            c->hi = 1;
    }
    if (!units->one_run) {
        res->warmup_customers = qc__analysis_sum(&an, QC__X_CUT_N) / p->reps;
        res->warmup_time = qc__analysis_sum(&an, QC__X_CUT_T) / p->reps;
    }
    if (p->warmup_mode == QC_WARMUP_FIXED)
        res->warmup_customers = p->customers ? p->warmup : 0;
    res->measured = (uint64_t)qc__analysis_sum(&an, QC__X_DONE);
    res->ci_method = p->reps >= 2 ? "replications" : "batch-means";
    if (p->reps < 2) {
        /* one replication: its correlation, without an interval */
        qc_ci *c = &res->metric[QC_PM_DEMAND_CORR];
        *c = (qc_ci){corr1, NAN, NAN, NAN, p->level, 1};
    }
    if (!qc_arrivals_varies(p->arrival))
        res->metric[QC_PM_DEMAND_CORR] = (qc_ci){NAN, NAN, NAN, NAN, p->level, 0};
    qc_energy_report *e = &res->report;
    e->mean_jobs = res->metric[QC_PM_JOBS].mean;
    e->mean_response = res->metric[QC_PM_RESPONSE].mean;
    e->mean_power = res->metric[QC_PM_POWER].mean;
    e->energy_per_job = res->metric[QC_PM_ENERGY_PER_JOB].mean;
    e->switch_ons_per_hour = res->metric[QC_PM_SWITCH_ONS_PER_HOUR].mean;
    e->frac_setup = res->metric[QC_PM_FRAC_SETUP].mean;
    e->average_cost = res->metric[QC_PM_COST].mean;
    /* whether the run supports its intervals (units.h), judged where
     * there is a steady state to be short of (an automatic cut) */
    qc__support sup;
    qc__units_support(units, &sup);
    res->effective_obs = sup.neff;
    if (mser)
        res->short_run = qc__units_short(units, &sup, "the numbers of jobs",
                                         p->customers ? (double)p->customers / units->nchunks
                                                      : NAN,
                                         res->short_reason, sizeof res->short_reason);
    res->response_hist = qc__analysis_take_hist(&an);
    rc = 0;
out:
    if (rc != 0)
        qc_pool_result_free(res);
    qc__analysis_free(&an);
    qc__workers_free(&wk);
    return rc;
}

void qc_pool_result_free(qc_pool_result *res)
{
    qc_hist_free(res->response_hist);
    free(res->series);
    memset(res, 0, sizeof *res);
}

int qc_pool_compare(const qc_pool_params *p, qc_pool_comparison *c, qc_err *err)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < QC_POOL_NPOLICIES; k++) {
        if (k == (int)p->policy)
            continue;
        qc_pool_params q = *p;
        q.policy = (qc_pool_policy)k;
        q.series_dt = 0;
        q.progress = NULL;
        q.progress_ctx = NULL;
        int rc = qc_pool_run(&q, &c->result[c->n], err);
        if (rc != 0) {
            qc_err_prefix(err, "policy %s", qc_pool_policy_name(q.policy));
            qc_pool_comparison_free(c);
            return rc;
        }
        c->policy[c->n++] = q.policy;
    }
    return 0;
}

void qc_pool_comparison_free(qc_pool_comparison *c)
{
    for (size_t i = 0; i < c->n; i++)
        qc_pool_result_free(&c->result[i]);
    c->n = 0;
}
