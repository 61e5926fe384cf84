/* SPDX-License-Identifier: GPL-3.0-or-later */
/* queue.c: the G/G/c/K queue (FCFS and processor sharing) with output
 * analysis in chunks.
 *
 * The service station (FCFS or PS, c servers) is station.c; this file
 * adds arrivals, blocking and the output analysis. Between events:
 *   areas in chunk `cur` cover [its t_start, tlast], tlast <= now;
 *   measured_out = customers that arrived inside the window and have not
 *                  left yet; the run ends when the window has closed and
 *                  measured_out is 0, so every measured customer's response
 *                  time is seen (no bias against long sojourns at the end).
 */
#include "qctl/queue.h"
#include "qctl/exact.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/rng.h"
#include "qctl/sim.h"
#include "station.h"
#include "reps.h"
#include "units.h"
#include "core/names.h"

enum { EV_ARRIVAL = 0, EV_DEPART = 1, EV_TICK = 2 };

/* The event handlers are one loop with the kernel's inline parts: kept
 * inline, the run's state stays in registers across an event. */
#if defined(__GNUC__)
#define HOT static inline __attribute__((always_inline))
#else
#define HOT static inline
#endif

#define NOT_MEASURED 0 /* a customer's tag outside the window */
#define QC_QUEUE_SECTIONS 10 /* percentile sections of grouped replications */
#define PROGRESS_EVERY (1u << 18)
/* What an event handler returns when the run is over (errors are < 0). */
#define STOP 1

/* Per chunk, plain sums: a chunk only contributes its totals to the
 * estimates (the spread comes from replications or batches), and a sum
 * costs no division on the hot path where Welford's update costs two. */
typedef struct chunk {
    uint64_t done;             /* measured customers that departed */
    uint64_t waited;           /* of them, those who waited at all */
    double sum_resp, sum_wait;
    /* arrivals and departures are counted at the chunk's ends, from the
     * run's arrival index and number in system there (chunk_close): not
     * once per customer on the hot path */
    uint64_t arrivals, blocked, departures;
    uint64_t a_start, n_start; /* arrival index, number in system at t_start */
    double area_n, area_busy;
    double t_start, t_end;
    qc_hist *hist;
} chunk;

/* The chunks and their sums as the harness (reps.h) sees them: below. */
static const qc__summary_model summary_model;

typedef struct run {
    const qc_queue_params *p;
    qc_sim sim;
    qc_rng rarr, rsvc;
    qc_arrivals renewal;  /* wraps p->arrival when no process is given */
    const qc_arrivals *arr;
    qc_arrivals_gen garr;
    qc_sampler ssvc;
    chunk chunks[QC_QUEUE_CHUNKS];
    int cur; /* chunk in force: -1 before the window, CHUNKS after */
    /* The hot path's view of cur, kept by set_chunk: the chunk whose areas
     * and departures accrue (&sink outside the window, so that accruing
     * needs no test; sink is never read), and the tag of an arrival now
     * (the address of chunk cur inside the window, so that its departure
     * finds the chunk without an index, else NOT_MEASURED). */
    chunk *in_force;
    uint64_t tag;
    chunk sink;

    unsigned c;
    double tlast;
    uint64_t left;         /* arrivals until the one of index mark,
                              counted down: the arrivals so far are
                              mark + 1 - left (mod 2^64, as mark may be
                              UINT64_MAX), arrivals_of() */
    uint64_t measured_out; /* measured customers still in system */
    uint64_t warm_n;       /* FIXED warm-up in customers (customers run) */
    uint64_t next_bound;   /* measured index where the next chunk starts */
    uint64_t chunk_at;     /* arrival index at which cur changes next
                              (customers run; UINT64_MAX: never) */
    uint64_t progress_at;  /* arrival index of the next progress report and
                              cancel check (ONE; else UINT64_MAX: the loop
                              counts events) */
    uint64_t mark;         /* min(chunk_at, progress_at): one compare per
                              arrival finds both */
    double win_start, win_end;
    int done;

    qc__station st;
    uint64_t nmax; /* most customers in system at once */
    /* The common case, run by its own instance of the event loop (ONE
     * below): one FCFS server, renewal arrivals, a run in customers with
     * no series. Its departures are then a kernel source too, index 0
     * (ahead of the arrivals, as a scheduled event would be). */
    int one;
    /* LINDLEY: the one-server case without a capacity, run without the
     * event loop (lindley_events below); its customers drawn ahead */
    int lind;
    double *ta, *td;       /* arrival and departure times of customers
                              [j, gen) at [j - cbase, gen - cbase) */
    uint64_t cbase;        /* customer at ta[0], td[0] */
    size_t ccap;           /* room in ta and td */
    uint64_t gen;          /* customers drawn */
    uint64_t inf_at;       /* first customer whose arrival time is infinite
                              (the arrivals stopped), or UINT64_MAX */
    double dprev;          /* departure time of customer gen - 1 */
    int svc0;              /* a service time of 0 was drawn */
    int gk;                /* chunk of customer gen (-1 before the window) */
    chunk *gch;            /* it, or NULL outside the window */
    uint64_t gnext;        /* customer where gk changes next */
    unsigned asrc; /* the arrivals' source: 1 when one, else 0 */
    uint64_t cap;  /* most in system: the capacity, or UINT64_MAX */

    /* series of replication 1 */
    int series_on;
    double s_next, s_area;
    qc_series_point *series;
    size_t slen, scap;
    int oom;
} run;

static const char *const metric_names[QC_QM_COUNT] = {
    "response_time", "waiting_time", "number_in_system",
    "utilization",   "throughput",   "blocking_probability",
    "response_time_p50", "response_time_p95", "response_time_p99"};
QC__NAMES(qc_queue_metric, qc_queue_metric_name, qc_queue_metric_parse, metric_names)

static const char *const discipline_names[] = {"fcfs", "ps"};
QC__NAMES(qc_discipline, qc_discipline_name, qc_discipline_parse, discipline_names)


void qc_queue_params_init(qc_queue_params *p)
{
    memset(p, 0, sizeof *p);
    p->servers = 1;
    p->discipline = QC_FCFS;
    p->warmup_mode = QC_WARMUP_MSER5;
    p->reps = 1;
    p->seed = 1;
    p->level = 0.95;
}

/* ---- validation ---------------------------------------------------- */

static int check_params(const qc_queue_params *p, double *load, qc_err *err)
{
    if (p->arrivals == NULL && (p->arrival == NULL || p->arrival->kind == QC_DIST_NONE))
        return qc_err_set(err, QC_EINVAL, "arrival: no distribution given");
    if (p->arrivals != NULL && p->arrivals->kind == QC_ARRIVALS_NONE)
        return qc_err_set(err, QC_EINVAL, "arrival: empty arrival process");
    if (p->service == NULL || p->service->kind == QC_DIST_NONE)
        return qc_err_set(err, QC_EINVAL, "service: no distribution given");
    if (p->servers < 1 || p->servers > 1000000)
        return qc_err_set(err, QC_EINVAL, "servers: %u is not in [1, 1000000]", p->servers);
    if (p->capacity != 0 && p->capacity < p->servers)
        return qc_err_set(err, QC_EINVAL,
                          "capacity: K = %llu is less than the %u servers",
                          (unsigned long long)p->capacity, p->servers);
    int rc = qc__check_run(p->customers, p->horizon, p->reps, p->level, QC_QUEUE_CHUNKS, err);
    if (rc != 0)
        return rc;
    if (p->warmup_mode == QC_WARMUP_FIXED && !(p->warmup >= 0 && isfinite(p->warmup) && p->warmup < 1e15))
        return qc_err_set(err, QC_EINVAL, "warmup: %g is not a non-negative finite amount", p->warmup);
    if (!(p->series_dt >= 0) || !isfinite(p->series_dt))
        return qc_err_set(err, QC_EINVAL, "series interval: %g is not >= 0", p->series_dt);

    double ms = qc_dist_mean(p->service);
    double ma = p->arrivals ? 1.0 / qc_arrivals_mean_rate(p->arrivals) : qc_dist_mean(p->arrival);
    if (p->arrivals && p->arrivals->kind == QC_ARRIVALS_TRACE) {
        if (!(p->arrivals->n >= 2))
            return qc_err_set(err, QC_EINVAL, "arrival: a trace needs at least 2 arrivals");
        if (p->customers > 0 && p->customers + (uint64_t)(p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0) > p->arrivals->n)
            return qc_err_set(err, QC_EINVAL,
                              "customers: the trace has %zu arrivals, fewer than the %llu "
                              "asked for (plus warm-up); use --time or fewer customers",
                              p->arrivals->n, (unsigned long long)p->customers);
    }
    if (!(ma > 0))
        return qc_err_set(err, QC_EINVAL,
                          "arrival: mean inter-arrival time is %g; it must be > 0", ma);
    *load = ms / ((double)p->servers * ma);
    int finite = p->arrivals && p->arrivals->kind == QC_ARRIVALS_TRACE;
    if (!finite) {
        double warm = p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0;
        double span = p->customers ? ((double)p->customers + warm) * ma : p->horizon + warm;
        if (p->precision > 0) /* the rounds may run up to max_customers */
            span = (double)(p->max_customers ? p->max_customers : p->customers) * ma;
        rc = qc__check_time_scale(ma, ms, span, err);
        if (rc != 0)
            return rc;
    }
    if (p->capacity == 0 && !isfinite(ms)) {
        char spec[QC_DIST_FORMAT_MAX];
        qc_dist_format(p->service, spec, sizeof spec);
        return qc_err_set(err, QC_EUNSTABLE,
                          "service: %s has an infinite mean, so the mean response time is "
                          "infinite and, without a capacity, the queue grows without bound",
                          spec);
    }
    if (p->capacity == 0 && !(*load < 1.0) && !finite)
        return qc_err_set(err, QC_EUNSTABLE,
                          "offered load rho = E[S]/(c E[A]) = %.6g >= 1 with unlimited capacity: "
                          "the queue grows without bound and has no steady state; lower the "
                          "load, add servers, or set --capacity",
                          *load);
    return 0;
}

/* ---- workspace ------------------------------------------------------- */

static void run_free(void *ws)
{
    run *r = ws;
    qc__chunks_free(r->chunks, &summary_model);
    qc__station_free(&r->st);
    free(r->series);
    free(r->ta);
    free(r->td);
    qc_sim_free(&r->sim);
}

/* A workspace for the parameters (qc__workers_model.init). */
static int run_alloc(void *ws, const void *params, const void *ctx)
{
    run *r = ws;
    const qc_queue_params *p = params;
    (void)ctx;
    memset(r, 0, sizeof *r);
    r->p = p;
    if (p->arrivals) {
        r->arr = p->arrivals;
    } else {
        /* a view of the caller's distribution: not owned, never freed */
        r->renewal.kind = QC_ARRIVALS_RENEWAL;
        r->renewal.gap = *p->arrival;
        r->arr = &r->renewal;
    }
    r->c = p->servers;
    r->one = r->c == 1 && p->discipline == QC_FCFS && r->arr->kind == QC_ARRIVALS_RENEWAL &&
             p->customers > 0 && !(p->series_dt > 0);
    if (qc_sim_init(&r->sim, 64, NULL) != 0 || (r->one && qc_sim_source_add(&r->sim, EV_DEPART) != 0))
        goto oom;
    int src = qc_sim_source_add(&r->sim, EV_ARRIVAL);
    if (src < 0)
        goto oom;
    r->asrc = (unsigned)src;
    r->cap = p->capacity ? p->capacity : UINT64_MAX;
    if (qc__chunks_alloc(r->chunks, &summary_model, qc_dist_mean(p->service)) != 0)
        goto oom;
    size_t start = 1024;
    if (p->capacity != 0 && p->capacity < start)
        start = (size_t)p->capacity;
    if (qc__station_init(&r->st, &r->sim, p->discipline, r->c, start, EV_DEPART) != 0 ||
        (r->one && qc__station_departures_source(&r->st, 0) != 0))
        goto oom;
    r->lind = r->one && p->capacity == 0;
    if (r->lind) {
        r->ccap = 1024;
        r->ta = malloc(r->ccap * sizeof *r->ta);
        r->td = malloc(r->ccap * sizeof *r->td);
        if (r->ta == NULL || r->td == NULL)
            goto oom;
    }
    return 0;
oom:
    run_free(r);
    return QC_ENOMEM;
}

static void run_reset(run *r, unsigned rep)
{
    const qc_queue_params *p = r->p;
    qc__reps_open_start(&r->sim, p->seed, rep, &r->rarr, &r->garr, r->arr, &r->rsvc, &r->ssvc,
                        p->service);
    qc__chunks_reset(r->chunks, &summary_model);
    r->cur = -1;
    r->in_force = &r->sink;
    r->tag = NOT_MEASURED;
    qc__station_reset(&r->st);
    r->tlast = 0;
    r->measured_out = 0;
    r->done = 0;
    r->win_start = r->win_end = 0;
    r->next_bound = 0;
    r->warm_n = p->warmup_mode == QC_WARMUP_FIXED && p->customers ? (uint64_t)p->warmup : 0;
    r->chunk_at = p->customers ? r->warm_n : UINT64_MAX;
    r->progress_at = r->one ? PROGRESS_EVERY : UINT64_MAX;
    r->mark = r->chunk_at < r->progress_at ? r->chunk_at : r->progress_at;
    r->left = r->mark + 1; /* no arrivals yet */
    r->nmax = 0;
    r->gen = 0;
    r->cbase = 0;
    r->inf_at = UINT64_MAX;
    r->dprev = 0;
    r->svc0 = 0;
    r->gk = -1;
    r->gch = NULL;
    r->gnext = r->warm_n;
    r->series_on = rep == 0 && p->series_dt > 0;
    r->s_next = p->series_dt;
    r->s_area = 0;
    r->slen = 0;
}

static int run_once(void *ctx, void *ws, unsigned rep, qc_err *err);

/* A worker's workspace, for the harness (reps.h). */
static const qc__workers_model workers_model = {
    sizeof(run), sizeof(qc_queue_params), offsetof(run, p), offsetof(qc_queue_params, progress),
    offsetof(qc_queue_params, progress_ctx), run_alloc, run_free, run_once};

/* ---- time accounting ------------------------------------------------ */

static void series_push(run *r, double t, double mean)
{
    if (qc__grow((void **)&r->series, &r->scap, r->slen, sizeof *r->series) != 0) {
        r->oom = 1;
        r->series_on = 0;
        return;
    }
    r->series[r->slen++] = (qc_series_point){t, mean, (uint32_t)(r->st.n > UINT32_MAX ? UINT32_MAX : r->st.n)};
}

/* Closes every series bin that ends at or before t, then accrues the
 * area of the open bin up to t. */
static void series_advance(run *r, double t)
{
    double dt = r->p->series_dt;
    double from = r->tlast;
    while (t >= r->s_next && r->series_on) {
        r->s_area += (double)r->st.n * (r->s_next - from);
        from = r->s_next;
        series_push(r, r->s_next, r->s_area / dt);
        r->s_area = 0;
        r->s_next += dt;
    }
    r->s_area += (double)r->st.n * (t - from);
}

/* Accrues the areas of the path over the dt since the last event. The
 * counts convert through int64_t (they are far below 2^53, so the value
 * is the same): x86-64 converts a signed integer in one instruction, an
 * unsigned 64-bit one in several. ONE: the loop of r->one, a constant
 * where it is called, so that each instance of the loop keeps only its
 * own case. */
HOT void accrue(run *r, double dt, const int ONE)
{
    chunk *ch = r->in_force;
    ch->area_n += (double)(int64_t)r->st.n * dt;
    if (ONE) /* 1 * dt or 0 * dt, exactly (dt >= 0) */
        ch->area_busy += r->st.n != 0 ? dt : 0.0;
    else
        ch->area_busy += (double)(int32_t)qc__station_busy(&r->st) * dt;
}

/* Accrues the areas (and the series) of the path up to time t. */
static inline void advance(run *r, double t)
{
    accrue(r, t - r->tlast, 0);
    if (r->series_on)
        series_advance(r, t);
    r->tlast = t;
}

/* Closes chunk ch at time t, where the arrival index is a and n are in
 * system: its arrivals are the indices since its start, and its
 * departures what came in (admitted arrivals) less what is still there,
 * exactly as counting each one would find. */
static void chunk_close(chunk *ch, double t, uint64_t a, uint64_t n)
{
    ch->t_end = t;
    ch->arrivals = a - ch->a_start;
    ch->departures = ch->n_start + (ch->arrivals - ch->blocked) - n;
}

/* Makes chunk k the one in force from time t (areas accrued up to t),
 * where a is the index of the first arrival that belongs to it. */
static void set_chunk(run *r, int k, double t, uint64_t a)
{
    if (r->cur >= 0 && r->cur < QC_QUEUE_CHUNKS)
        chunk_close(&r->chunks[r->cur], t, a, r->st.n);
    if (r->cur < 0)
        r->win_start = t;
    r->cur = k;
    r->in_force = k < QC_QUEUE_CHUNKS ? &r->chunks[k] : &r->sink;
    r->tag = k < QC_QUEUE_CHUNKS ? (uint64_t)(uintptr_t)&r->chunks[k] : NOT_MEASURED;
    if (k < QC_QUEUE_CHUNKS) {
        chunk *ch = &r->chunks[k];
        ch->t_start = t;
        ch->a_start = a;
        ch->n_start = r->st.n;
    } else {
        r->win_end = t;
        if (r->measured_out == 0)
            r->done = 1;
    }
}

/* ---- departures and their statistics --------------------------------- */

/* Returns STOP when this was the last measured customer out after the
 * window closed, else 0. */
HOT int depart_stats(run *r, const qc__job *c, double t)
{
    if (c->tag == NOT_MEASURED)
        return 0;
    chunk *ch = (chunk *)(uintptr_t)c->tag;
    double resp = t - c->arr;
    ch->done++;
    ch->sum_resp += resp;
    /* A wait is never negative; t - arr - svc can be, by a rounding of
     * the instants, for a customer who did not wait at all. */
    const double wait = resp - c->svc;
    /* and a few ulps of t above 0 for the same reason (K = c: nobody
     * waits, yet the mean was 7e-16 with an interval excluding 0): below
     * the clock's resolution a wait cannot be told from none */
    const int waited = wait > 4 * DBL_EPSILON * t;
    ch->sum_wait += waited ? wait : 0;
    ch->waited += (uint64_t)waited;
    qc_hist_add(ch->hist, resp);
    if (--r->measured_out == 0 && r->cur >= QC_QUEUE_CHUNKS) {
        r->done = 1;
        return STOP;
    }
    return 0;
}

/* ---- the event loop ---------------------------------------------------- */

/* Arrivals so far in this replication. */
static inline uint64_t arrivals_of(const run *r)
{
    return r->mark + 1 - r->left;
}

/* Checks for a cancel and reports progress at time t, after `arrivals`
 * arrivals; QC_ECANCELED. */
static int progress(run *r, double t, uint64_t arrivals)
{
    const qc_queue_params *p = r->p;
    if (qc_cancel_requested(p->cancel))
        return QC_ECANCELED;
    if (p->progress) {
        double f = p->customers
                       ? (double)arrivals / ((double)p->customers + (double)r->warm_n)
                       : t / (p->horizon + (p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0));
        p->progress(p->progress_ctx, f < 1 ? f : 1);
    }
    return 0;
}

/* Arrival number i (from 0) of a customers run has reached r->mark: a
 * progress report (ONE), or the end of a fixed warm-up, a chunk boundary
 * or the end of the window, which moves the chunk in force. Sets the next
 * mark. Returns STOP when the run is over, a negative code on cancel. */
static int arrival_mark(run *r, uint64_t i, double t)
{
    const qc_queue_params *p = r->p;
    int rc = 0;
    if (i == r->progress_at) {
        r->progress_at += PROGRESS_EVERY;
        rc = progress(r, t, i + 1);
    }
    if (rc == 0 && i == r->chunk_at) {
        uint64_t j = i - r->warm_n;
        if (j >= p->customers) {
            if (r->cur < QC_QUEUE_CHUNKS)
                set_chunk(r, QC_QUEUE_CHUNKS, t, i);
            r->chunk_at = UINT64_MAX;
        } else {
            /* Chunk k holds indices [ceil(k N / C), ceil((k+1) N / C));
             * the boundary is computed once per chunk, not per arrival. */
            int k = r->cur + 1;
            set_chunk(r, k, t, i);
            r->next_bound = ((uint64_t)(k + 1) * p->customers + QC_QUEUE_CHUNKS - 1) / QC_QUEUE_CHUNKS;
            r->chunk_at = r->warm_n + r->next_bound;
        }
    }
    r->mark = r->chunk_at < r->progress_at ? r->chunk_at : r->progress_at;
    r->left = r->mark - i; /* i + 1 arrivals so far */
    return rc != 0 ? rc : r->done ? STOP : 0;
}

HOT int on_arrival(run *r, double t, const int ONE)
{
    /* a renewal stream never ends (an infinite gap leaves the source idle) */
    double next = ONE ? qc__arrivals_next_renewal(&r->garr) : qc_arrivals_next(&r->garr);
    int rc = ONE          ? qc__sim_source_set(&r->sim, 1, next)
             : isinf(next) ? 0
                           : qc_sim_source_at(&r->sim, r->asrc, next);
    if (rc != 0)
        return rc;
    /* The chunk of this arrival, or NOT_MEASURED (warm-up, after the
     * window): between marks it does not change, one compare. A timed
     * run has no chunk marks; its ticks move the chunks. */
    if (--r->left == 0 && (rc = arrival_mark(r, r->mark, t)) != 0)
        return rc;
    uint64_t k = r->tag;
    if (r->st.n >= r->cap) {
        r->in_force->blocked++; /* chunk k, or the sink when not measured */
        return 0;
    }
    qc__job c = {t, qc_sampler_next(&r->ssvc), k};
    r->measured_out += k != NOT_MEASURED;
    rc = ONE ? qc__station_one_arrive(&r->st, &c) : qc__station_arrive(&r->st, &c);
    if (r->st.n > r->nmax)
        r->nmax = r->st.n;
    return rc;
}

/* ev: the departure event (NULL with ONE, whose one server is known). */
HOT int on_depart(run *r, const qc_event *ev, double t, const int ONE)
{
    int rc;
    int stop;
    if (ONE) {
        const qc__job *j;
        rc = qc__station_one_depart(&r->st, &j);
        stop = depart_stats(r, j, t);
    } else {
        qc__job j;
        rc = qc__station_depart(&r->st, ev, &j);
        stop = depart_stats(r, &j, t);
    }
    return rc ? rc : stop;
}

static int on_tick(run *r, double t)
{
    int k = r->cur + 1;
    set_chunk(r, k, t, arrivals_of(r));
    if (k < QC_QUEUE_CHUNKS) {
        double next = r->win_start + r->p->horizon * (double)(k + 1) / QC_QUEUE_CHUNKS;
        int64_t h = qc_sim_at(&r->sim, next, EV_TICK, 0);
        if (h < 0)
            return (int)h;
    }
    return r->done ? STOP : 0;
}

/* The events of a replication until its window closes and its measured
 * customers have left. One source, two instances: ONE = r->one, or 0 for
 * every case. With ONE every event comes from the kernel's two sources
 * (departures 0, arrivals 1; nothing is scheduled), so the next event is
 * qc__sim_next2's compare, and the progress reports ride on the arrival
 * marks instead of a count of events. */
HOT int run_events(run *r, const int ONE)
{
    qc_event ev;
    uint32_t countdown = PROGRESS_EVERY;
    int rc = 0;
    double tlast = r->tlast; /* ONE: kept here, in a register */
    /* r->done is set only by the handlers, which then return STOP */
    for (;;) {
        int src = 0;
        double t;
        if (ONE) {
            if ((src = qc__sim_next2(&r->sim)) < 0)
                break;
            t = r->sim.now;
            accrue(r, t - tlast, 1);
            tlast = t;
        } else {
            if (qc_sim_next(&r->sim, &ev) != 0)
                break;
            t = ev.t;
            qc__station_advance(&r->st, t);
            advance(r, t);
        }
        /* Testing the handle rather than the type lets the compiler fold
         * this test into qc_sim_next's own source-or-heap branch: one
         * unpredictable branch per event instead of two. */
        if (ONE ? src == 1 : ev.handle == QC_SIM_SOURCE_HANDLE) {
            rc = on_arrival(r, t, ONE);
        } else if (ONE) {
            rc = on_depart(r, NULL, t, ONE);
        } else switch (ev.type) {
        case EV_DEPART:
            rc = on_depart(r, &ev, t, ONE);
            break;
        case EV_TICK:
            rc = on_tick(r, t);
            break;
        }
        if (rc != 0 || (!ONE && r->oom)) {
            if (rc < 0 || r->oom)
                return rc < 0 ? rc : QC_ENOMEM;
            break; /* STOP */
        }
        if (!ONE && --countdown == 0) {
            countdown = PROGRESS_EVERY;
            if ((rc = progress(r, t, arrivals_of(r))) != 0)
                return rc;
        }
    }
    if (ONE)
        r->tlast = tlast;
    return 0;
}

/* ---- one server without a capacity: Lindley's recursion ---------------- */

/* One FCFS server, renewal arrivals, no capacity, a run in customers and
 * no series (r->lind): customer i's departure is known when it arrives,
 *     D_i = max(A_i, D_{i-1}) + S_i      (Lindley),
 * the same double the event loop computes (A_i + S_i when the customer
 * finds the server idle, D_{i-1} + S_i when it starts at its
 * predecessor's departure; at a tie the departure goes first, so the
 * server is idle at A_i when D_{i-1} <= A_i). So the customers are drawn
 * ahead, GEN_BLOCK at a time (gen_block), into a ring of their two
 * times, and each measured one's response, wait and histogram entry go
 * into its chunk at once: FCFS makes the customers' order the order of
 * the departures, so every sum adds the same doubles in the same order.
 * What needs the time order is the area under the number in system: the
 * events are the merge of the arrival and the departure times, which
 * lindley_events walks with no branch on which comes next (the event
 * loop mispredicts about one such branch per customer), accruing the
 * areas event by event, in the same order and into the same chunk as
 * the event loop. The walk leaves its loop only at an arrival mark
 * (chunk, end of the window, progress report), at the end of the
 * customers drawn, and at the last measured departure. The ring holds
 * the customers in system and those drawn ahead: it grows with the
 * queue, never with the run. */
#define GEN_BLOCK 256

/* Moves the drawing to the next chunk: chunk k holds the measured
 * indices [ceil(k N / C), ceil((k+1) N / C)), as arrival_mark cuts them. */
static void gen_chunk_next(run *r)
{
    if (++r->gk < QC_QUEUE_CHUNKS) {
        r->gch = &r->chunks[r->gk];
        r->gnext = r->warm_n + ((uint64_t)(r->gk + 1) * r->p->customers + QC_QUEUE_CHUNKS - 1) /
                                   QC_QUEUE_CHUNKS;
    } else {
        r->gch = NULL;
        r->gnext = UINT64_MAX;
    }
}

/* Room for GEN_BLOCK more customers beside [j, gen): those moved to
 * the front, and the arrays twice as long when that is not enough.
 * QC_ENOMEM. */
static int buf_room(run *r, uint64_t j)
{
    const size_t keep = (size_t)(r->gen - j);
    if (r->gen - r->cbase + GEN_BLOCK <= r->ccap)
        return 0;
    memmove(r->ta, r->ta + (j - r->cbase), keep * sizeof *r->ta);
    memmove(r->td, r->td + (j - r->cbase), keep * sizeof *r->td);
    r->cbase = j;
    size_t cap = r->ccap;
    while (keep + GEN_BLOCK > cap)
        cap *= 2;
    if (cap == r->ccap)
        return 0;
    double *ta = realloc(r->ta, cap * sizeof *ta);
    if (ta == NULL)
        return QC_ENOMEM;
    r->ta = ta;
    double *td = realloc(r->td, cap * sizeof *td);
    if (td == NULL)
        return QC_ENOMEM;
    r->td = td;
    r->ccap = cap;
    return 0;
}

/* Draws customers [gen, gen + GEN_BLOCK): their arrival times (the
 * arrival stream's draws in order), then their service times and
 * departures and, for the measured ones, their statistics. A customer
 * whose arrival time is infinite never comes (the stream stopped):
 * inf_at, and no statistics from it on. */
static void gen_block(run *r)
{
    double *ta = r->ta, *td = r->td;
    const uint64_t base = r->cbase;
    uint64_t k = r->gen;
    const uint64_t end = k + GEN_BLOCK;
    for (uint64_t i = k; i < end; i++)
        ta[i - base] = qc__arrivals_next_renewal(&r->garr);
    uint64_t come = end;
    if (!(ta[end - 1 - base] < (double)INFINITY)) {
        for (come = k; ta[come - base] < (double)INFINITY; come++)
            ;
        if (come < r->inf_at)
            r->inf_at = come;
    }
    double dprev = r->dprev;
    int zero = 0;
    while (k < come) {
        while (k == r->gnext)
            gen_chunk_next(r);
        const uint64_t stop = r->gnext < come ? r->gnext : come;
        chunk *ch = r->gch;
        if (ch == NULL) {
            for (; k < stop; k++) {
                const double a = ta[k - base], svc = qc_sampler_next(&r->ssvc);
                dprev = (a > dprev ? a : dprev) + svc;
                td[k - base] = dprev;
                zero |= svc == 0;
            }
            continue;
        }
        double sr = ch->sum_resp, sw = ch->sum_wait;
        uint64_t nw = 0;
        ch->done += stop - k;
        for (; k < stop; k++) {
            const double a = ta[k - base], svc = qc_sampler_next(&r->ssvc);
            const double start = a > dprev ? a : dprev;
            dprev = start + svc;
            td[k - base] = dprev;
            const double resp = dprev - a;
            sr += resp;
            sw += start - a; /* the wait, >= 0 exactly (resp - svc can round below 0) */
            nw += start > a;
            qc_hist_add(ch->hist, resp);
            zero |= svc == 0;
        }
        ch->sum_resp = sr;
        ch->sum_wait = sw;
        ch->waited += nw;
    }
    for (; k < end; k++)
        td[k - base] = (double)INFINITY;
    r->dprev = dprev;
    r->svc0 |= zero;
    r->gen = end;
}

/* The customers of the window that are in system when i have arrived
 * and j departed (FCFS: customers [j, i)). */
static uint64_t measured_in(const run *r, uint64_t i, uint64_t j)
{
    const uint64_t lo = j > r->warm_n ? j : r->warm_n;
    const uint64_t end = r->warm_n + r->p->customers;
    const uint64_t hi = i < end ? i : end;
    return hi > lo ? hi - lo : 0;
}

/* k events of the merge from arrival i and departure j (relative to the
 * arrays ta, td), none of them a stop: the areas, the clock and the most
 * in system before each event, with no branch on which event comes next.
 * Times are >= 0 (or INFINITY), so their bits order as they do and the
 * choice is made on integers (a conditional move). A tie: the departure.
 * Nobody in system: the arrival, which the compare alone finds when the
 * next customer's service is not 0 (its departure is then later than its
 * arrival); ZERO: a service time of 0 was drawn, the test is made. The
 * two areas are kept apart (a vector of both costs shuffles). */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#else
#define NO_SLP
#endif
/* A value the compiler must take as it is, not as the 0 or 1 it knows. */
#if defined(__GNUC__)
#define OPAQUE(x) __asm__("" : "+r"(x))
#else
#define OPAQUE(x) ((void)0)
#endif
NO_SLP HOT void walk(const double *ta, const double *td, uint64_t k, uint64_t *pi, uint64_t *pj,
                     double *tlast, double *an, double *ab, uint64_t *nmax, const int ZERO)
{
    uint64_t i = *pi, j = *pj, most = *nmax;
    double tl = *tlast, sn = *an, sb = *ab;
    for (; k > 0; k--) {
        uint64_t ab_, db;
        memcpy(&ab_, &ta[i], sizeof ab_);
        memcpy(&db, &td[j], sizeof db);
        const uint64_t arr = ZERO ? (uint64_t)(ab_ < db) | (uint64_t)(i == j) : (uint64_t)(ab_ < db);
        const uint64_t tb = arr ? ab_ : db;
        double t;
        memcpy(&t, &tb, sizeof t);
        const double dt = t - tl;
        const uint64_t n = i - j;
        const double nd = (double)(int64_t)n;
        sn += nd * dt;
        int64_t busy = n != 0;
        OPAQUE(busy); /* else GCC branches on it, a branch it mispredicts */
        sb += (double)busy * dt; /* dt or 0, exactly (dt >= 0) */
        most = n > most ? n : most;
        tl = t;
        i += arr;
        j += arr ^ 1;
    }
    *pi = i;
    *pj = j;
    *tlast = tl;
    *an = sn;
    *ab = sb;
    *nmax = most;
}

/* The two instances of walk, out of line: the option above is theirs. */
NO_SLP static void walk_any(const double *ta, const double *td, uint64_t k, uint64_t *pi,
                            uint64_t *pj, double *tlast, double *an, double *ab, uint64_t *nmax)
{
    walk(ta, td, k, pi, pj, tlast, an, ab, nmax, 1);
}

NO_SLP static void walk_pos(const double *ta, const double *td, uint64_t k, uint64_t *pi,
                            uint64_t *pj, double *tlast, double *an, double *ab, uint64_t *nmax)
{
    walk(ta, td, k, pi, pj, tlast, an, ab, nmax, 0);
}

/* The events of a LINDLEY replication: the same, in the same order, with
 * the same areas, clock, event count and most in system as run_events
 * finds for this case. */
static int lindley_events(run *r)
{
    const uint64_t last = r->warm_n + r->p->customers - 1; /* last measured */
    uint64_t i = 0, j = 0;        /* customers arrived, departed */
    uint64_t jstop = UINT64_MAX;  /* the departure that ends the run */
    uint64_t nmax = 0;
    uint64_t stopped = 0;         /* 1: an arrival ended the run */
    double tlast = 0;
    int rc = 0;
    for (;;) {
        if (r->gen <= i + 1) { /* arrival i + 1 known before i is handled */
            if ((rc = buf_room(r, j)) != 0)
                return rc;
            gen_block(r);
            continue;
        }
        /* the walk stops before arrival alim, or departure jstop */
        uint64_t alim = r->mark < r->gen - 1 ? r->mark : r->gen - 1;
        if (r->inf_at < alim)
            alim = r->inf_at;
        const uint64_t base = r->cbase;
        const double *ta = r->ta, *td = r->td;
        const double aa = ta[alim - base];
        /* the events before the stop: the arrivals before alim and the
         * departures no later than it (a tie: the departure first), or
         * the departures before jstop and the arrivals before it */
        int dstop = jstop != UINT64_MAX && !(aa < td[jstop - base]);
        uint64_t x = alim, y = alim;
        if (dstop) {
            const double dd = td[jstop - base];
            while (x > i && !(ta[x - 1 - base] < dd))
                x--;
            y = jstop;
        } else {
            while (y > j && td[y - 1 - base] > aa)
                y--;
        }
        uint64_t li = i - base, lj = j - base;
        chunk *ch = r->in_force;
        (r->svc0 ? walk_any : walk_pos)(ta, td, (x - i) + (y - j), &li, &lj, &tlast, &ch->area_n,
                                        &ch->area_busy, &nmax);
        i = li + base;
        j = lj + base;
        /* the walk took the most before each of its events: the most
         * after its last one is the most before the next */
        nmax = i - j > nmax ? i - j : nmax;
        /* the event the walk stopped before */
        if (!dstop && i == r->inf_at)
            break; /* nothing will happen any more */
        if (!dstop && i != r->mark)
            continue; /* i == gen - 1: draw more first */
        const double t = dstop ? td[j - base] : ta[i - base];
        const double dt = t - tlast;
        const double nd = (double)(int64_t)(i - j);
        ch->area_n += nd * dt;
        ch->area_busy += (nd < 1.0 ? nd : 1.0) * dt;
        tlast = t;
        if (dstop) { /* the last measured customer leaves */
            j++;
            break;
        }
        /* arrival i reached its mark; the arrival_mark of run_events, in
         * the state that loop would be in */
        r->st.n = i - j;
        r->measured_out = measured_in(r, i, j);
        rc = arrival_mark(r, i, t);
        if (rc != 0) {
            if (rc < 0)
                return rc;
            stopped = 1; /* the window closed with nobody measured left */
            break;
        }
        i++;
        nmax = i - j > nmax ? i - j : nmax;
        if (r->cur >= QC_QUEUE_CHUNKS)
            jstop = last;
    }
    r->sim.now = tlast;
    r->sim.events = i + j + stopped;
    r->tlast = tlast;
    r->nmax = nmax;
    r->st.n = i - j;
    r->left = r->mark + 1 - (i + stopped); /* arrivals_of() */
    return 0;
}

/* Replication rep in workspace ws (qc__workers_model.run). */
static int run_once(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    (void)ctx;
    (void)err;
    run *r = ws;
    const qc_queue_params *p = r->p;
    run_reset(r, rep);
    int rc;
    if (r->lind) {
        rc = lindley_events(r);
        goto ran;
    }
    int64_t h = qc_sim_source_at(&r->sim, r->asrc, qc_arrivals_next(&r->garr));
    if (h < 0)
        return (int)h;
    if (p->customers == 0) {
        double w = p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0.0;
        h = qc_sim_at(&r->sim, w, EV_TICK, 0);
        if (h < 0)
            return (int)h;
        r->win_start = w;
    }
    rc = r->one ? run_events(r, 1) : run_events(r, 0);
ran:
    if (rc != 0)
        return rc;
    if (r->cur < QC_QUEUE_CHUNKS) {
        /* a trace ran out before the window closed: it closes now, and
         * the chunks never reached stay empty (left out of the estimates) */
        advance(r, r->sim.now);
        int last = r->cur;
        set_chunk(r, QC_QUEUE_CHUNKS, r->sim.now, arrivals_of(r));
        for (int k = last + 1; k < QC_QUEUE_CHUNKS; k++)
            r->chunks[k].t_start = r->chunks[k].t_end = r->sim.now;
    }
    return 0;
}

/* ---- estimates ---------------------------------------------------------- */

/* What a range of chunks sums (qc__summary_model): counts, amounts. */
enum { N_DONE, N_ARRIVALS, N_BLOCKED, N_DEPARTURES };
/* (chunk.waited is summed by merge_rep, for the rare-event rule) */
static const size_t counts_at[] = {offsetof(chunk, done), offsetof(chunk, arrivals),
                                   offsetof(chunk, blocked), offsetof(chunk, departures)};
enum { A_RESP, A_WAIT, A_NUMBER, A_BUSY };
static const size_t amounts_at[] = {offsetof(chunk, sum_resp), offsetof(chunk, sum_wait),
                                    offsetof(chunk, area_n), offsetof(chunk, area_busy)};

static double range_metrics(const void *ws, const uint64_t *n, const double *x, double time,
                            double *out)
{
    const run *r = ws;
    double done = (double)n[N_DONE];
    out[QC_QM_RESPONSE] = n[N_DONE] ? x[A_RESP] / done : NAN;
    /* a range's sums are differences of running sums, which can round
     * below 0 where every wait was 0 (K = c) */
    out[QC_QM_WAIT] = n[N_DONE] ? fmax(x[A_WAIT] / done, 0) : NAN;
    out[QC_QM_NUMBER] = time > 0 ? x[A_NUMBER] / time : NAN;
    out[QC_QM_UTILIZATION] = time > 0 ? x[A_BUSY] / (time * (double)r->c) : NAN;
    out[QC_QM_THROUGHPUT] = time > 0 ? (double)n[N_DEPARTURES] / time : NAN;
    out[QC_QM_BLOCKING] =
        n[N_ARRIVALS] ? (double)n[N_BLOCKED] / (double)n[N_ARRIVALS] : NAN;
    return done;
}

/* The chunks of sim queue; the warm-up series: each chunk's mean response
 * time. */
static const qc__summary_model summary_model = {
    QC__CHUNKS(chunk, QC_QUEUE_CHUNKS), offsetof(chunk, sum_resp), offsetof(chunk, done), counts_at, 4, amounts_at, 4,
    QC_QM_COUNT, QC_QM_P50, range_metrics};

/* Means that do not exist, whatever a run prints: returns the reason or
 * NULL. E[S] = inf: no mean response time in any queue. FCFS without a
 * capacity and E[S^2] = inf: the mean wait is infinite in GI/G/1
 * (Kiefer and Wolfowitz 1956) and in GI/G/c when lambda E[S] > c - 1
 * (Scheller-Wolff and Sigman 1997). */
static const char *infinite_reason(const qc_queue_params *p, double load, char *buf, size_t n)
{
    double ms = qc_dist_mean(p->service);
    char spec[QC_DIST_FORMAT_MAX];
    qc_dist_format(p->service, spec, sizeof spec);
    if (!isfinite(ms)) {
        snprintf(buf, n, "the service time %s has an infinite mean, so the mean response "
                 "and waiting times are infinite", spec);
        return buf;
    }
    if (p->capacity == 0 && p->discipline == QC_FCFS && !isfinite(qc_dist_var(p->service)) &&
        (p->servers == 1 || load * p->servers > p->servers - 1)) {
        if (p->servers == 1)
            snprintf(buf, n, "the service time %s has an infinite second moment, so the mean "
                     "waiting time of a FCFS single-server queue is infinite "
                     "(Kiefer-Wolfowitz)", spec);
        else
            snprintf(buf, n, "the service time %s has an infinite second moment and "
                     "lambda E[S] = %.4g > c - 1 = %u, so the mean waiting time is infinite "
                     "(Scheller-Wolff and Sigman)", spec, load * p->servers, p->servers - 1);
        return buf;
    }
    return NULL;
}

/* Replications [0, reps) or one run of `customers` (or the horizon),
 * added to u. The replications run on up to `nw` workers, each with its
 * own workspace w[i] reading its own copy of the parameters pq[i] (whose
 * progress hook reports to the harness); merge_rep folds them into the
 * result in replication order (reps.h), so the result does not depend on
 * the number of workers. */
typedef struct state {
    qc__workers wk;          /* the workers' workspaces and parameters */
    qc__analysis *an;
    qc_hist *sect[QC_QUEUE_SECTIONS]; /* replication r goes to r % SECTIONS */
    double work_done, work_total;
    uint64_t nmax_min; /* least over replications of the most in system */
    uint64_t blocked;
    uint64_t rare_blocked, rare_waited; /* measured, in the current round */
    uint64_t rare_free;                 /* measured customers who did not wait */
    const qc_queue_params *p;
    qc_queue_result *res;
} state;

static int merge_rep(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    state *s = ctx;
    run *r = ws;
    const qc_queue_params *p = s->p;
    qc_queue_result *res = s->res;
    res->events += r->sim.events;
    res->sim_time += r->sim.now;
    if (rep == 0 && r->series_on) {
        free(res->series);
        res->series = r->series;
        res->series_len = r->slen;
        r->series = NULL;
        r->slen = r->scap = 0;
    }
    if (r->nmax < s->nmax_min)
        s->nmax_min = r->nmax;
    for (int k = 0; k < QC_QUEUE_CHUNKS; k++) {
        s->blocked += r->chunks[k].blocked;
        s->rare_blocked += r->chunks[k].blocked;
        s->rare_waited += r->chunks[k].waited;
        s->rare_free += r->chunks[k].done - r->chunks[k].waited;
    }
    double origin = p->warmup_mode == QC_WARMUP_MSER5 ? r->win_start : 0;
    qc_hist *sect = s->an->one_run ? NULL : s->sect[rep % QC_QUEUE_SECTIONS];
    if (qc__analysis_add(s->an, r, r->chunks, origin, sect, &res->warmup_customers,
                         &res->warmup_time) != 0)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    return 0;
}

static int run_reps(const qc_queue_params *p, state *s, qc_queue_result *res, unsigned from,
                    unsigned to, qc_err *err)
{
    s->p = p;
    s->res = res;
    int rc = qc__workers_run(&s->wk, p, p->progress, p->progress_ctx, p->cancel, s->work_done,
                             s->work_total, merge_rep, s, from, to, err);
    s->work_done += to - from;
    return rc;
}

/* Every reported mean (estimate > 0) within rel of its estimate. */
static int precise_enough(const qc_queue_params *p, const qc_ci *m)
{
    static const int means[] = {QC_QM_RESPONSE, QC_QM_WAIT, QC_QM_NUMBER, QC_QM_UTILIZATION,
                                QC_QM_THROUGHPUT, QC_QM_BLOCKING};
    for (size_t i = 0; i < sizeof means / sizeof means[0]; i++) {
        const qc_ci *c = &m[means[i]];
        if (means[i] == QC_QM_BLOCKING && p->capacity == 0)
            continue;
        if (!(c->mean > 0))
            continue; /* nothing measured, or exactly 0: nothing relative */
        /* relative to the estimate, the interval's end nearest 0 can be
         * off by the half-width itself: half <= REL |x| / (1 + REL) bounds
         * the relative error by REL (Law and Kelton, sequential procedure) */
        if (!(c->half <= p->precision / (1 + p->precision) * c->mean))
            return 0;
    }
    return 1;
}

/* The relaxation time where it is known: M/M/1 (FCFS, no capacity), whose
 * queue length approaches its steady state as e^{-t / tau}, tau = 1 /
 * (mu (1 - sqrt rho))^2 (Morse 1955; Cohen 1982, II.2.2), and M/M/c by
 * the same formula with c mu (the heavy-traffic approximation: a busy
 * M/M/c is an M/M/1 of rate c mu). NAN elsewhere. */
static double relaxation_time(const qc_queue_params *p)
{
    const qc_dist *a = p->arrivals ? (p->arrivals->kind == QC_ARRIVALS_RENEWAL
                                          ? &p->arrivals->gap : NULL)
                                   : p->arrival;
    if (a == NULL || a->kind != QC_DIST_EXP || p->service->kind != QC_DIST_EXP ||
        p->discipline != QC_FCFS || p->capacity != 0)
        return NAN;
    double lambda = 1 / qc_dist_mean(a), mu = p->servers / qc_dist_mean(p->service);
    double rho = lambda / mu;
    if (!(rho > 0 && rho < 1) || !isfinite(mu))
        return NAN;
    double d = 1 - sqrt(rho);
    return 1 / (mu * d * d);
}

/* E[(S / E[S])^k] for k = 2, 3, 4 (scale-free, so that no rate from 1e-12
 * to 1e12 overflows), in m[0..2]; 0 where a law has no closed form here or
 * a moment is infinite (the caller then keeps the heavy-traffic factor). */
static int norm_moments(const qc_dist *d, double m[3])
{
    const double *p = d->p;
    double mean = qc_dist_mean(d);
    if (!(mean > 0 && isfinite(mean)))
        return 0;
    for (int k = 2; k <= 4; k++) {
        double v = NAN;
        switch (d->kind) {
        case QC_DIST_EXP:
            v = tgamma(k + 1);
            break;
        case QC_DIST_DET:
            v = 1;
            break;
        case QC_DIST_UNIFORM: { /* (b^{k+1} - a^{k+1}) / ((k+1)(b-a)), a, b over the mean */
            double a = p[0] / mean, b = p[1] / mean;
            v = b - a > 1e-12 ? (pow(b, k + 1) - pow(a, k + 1)) / ((k + 1) * (b - a)) : 1;
            break;
        }
        case QC_DIST_ERLANG:
        case QC_DIST_GAMMA: { /* shape n: n (n+1) ... (n+k-1) / n^k */
            double n = p[0];
            v = 1;
            for (int j = 0; j < k; j++)
                v *= (n + j) / n;
            break;
        }
        case QC_DIST_HYPEREXP: { /* sum P_i k! (m_i / mean)^k */
            double q = 1 - p[0];
            v = (p[0] > 0 ? p[0] * pow(1 / (p[1] * mean), k) : 0) +
                (q > 0 ? q * pow(1 / (p[3] * mean), k) : 0);
            v *= tgamma(k + 1);
            break;
        }
        case QC_DIST_LOGNORMAL: /* e^{k (k-1) sigma^2 / 2} */
            v = exp(k * (k - 1) * p[1] * p[1] / 2);
            break;
        case QC_DIST_WEIBULL:
            v = tgamma(1 + k / p[0]) / pow(tgamma(1 + 1 / p[0]), k);
            break;
        case QC_DIST_PARETO: /* alpha (alpha-1)^k / ((alpha-k) alpha^k) */
            if (p[0] > k)
                v = p[0] / (p[0] - k) * pow((p[0] - 1) / p[0], k);
            break;
        default:
            break;
        }
        if (!(v > 0 && isfinite(v)))
            return 0;
        m[k - 2] = v;
    }
    return 1;
}

/* The integrated correlation time of an M/G/1 queue's workload V, in mean
 * service times, at load rho: the asymptotic variance of its time average
 * is Cov(V, V^2) / (1 - rho) (the Poisson equation of the workload: from
 * v, the area until empty is v^2 / (2 (1 - rho)) + E[V] v / (1 - rho)),
 * and V's moments are Takacs's recursion on E[S^2], E[S^3], E[S^4]; the
 * time is that variance over 2 Var V. NAN where a moment is unknown. */
static double mg1_corr_time(const qc_dist *s, double rho)
{
    double m[3];
    if (!(rho > 0 && rho < 1) || !norm_moments(s, m))
        return NAN;
    double c = rho / (1 - rho); /* lambda / (1 - rho), time in mean services */
    double v1 = c * m[0] / 2;
    double v2 = c * (m[0] * v1 + m[1] / 3);
    double v3 = c * (1.5 * m[0] * v2 + m[1] * v1 + m[2] / 4);
    double var = v2 - v1 * v1, cov = v3 - v1 * v2;
    double t = cov / (1 - rho) / (2 * var);
    return t > 0 && isfinite(t) ? t : NAN;
}

/* How much slower than with exponential service of the same mean an
 * M/G/1 queue at load rho relaxes: the ratio of mg1_corr_time. In heavy
 * traffic it tends to (1 + c_s^2) / 2, the factor of relaxation_approx;
 * away from it a very variable service's rare long times weigh through
 * E[S^3] and E[S^4] (balanced H2 of SCV 63 at load 0.5: 46 against 32,
 * where 10 x 5000 customers covered E[T] in 69 of 75 runs unflagged).
 * NAN where not known. */
static double mg1_relax_factor(const qc_dist *s, double rho)
{
    static const qc_dist expo = {.kind = QC_DIST_EXP, .p = {1}};
    double t = mg1_corr_time(s, rho), te = mg1_corr_time(&expo, rho);
    return t / te;
}

/* Where no exact relaxation time is known, the heavy-traffic one of
 * GI/G/c without a buffer: the M/M/c value 1 / (c mu (1 - sqrt rho)^2)
 * scaled by (c_a^2 + c_s^2) / 2, as the diffusion limit's variance
 * scales (Whitt 1989): exact for M/M/c, and a variable service slows the
 * relaxation as much as it widens the queue (M/H2/2-PS at 0.78, SCV 18,
 * 10 x 5000 customers: the number in system covered 32 of 40). The
 * workload it rests on is the same under PS. NAN where it does not
 * apply (a capacity, an infinite variance, a time-varying rate). */
static double relaxation_approx(const qc_queue_params *p, const char **how)
{
    const qc_dist *a = p->arrivals ? (p->arrivals->kind == QC_ARRIVALS_RENEWAL
                                          ? &p->arrivals->gap : NULL)
                                   : p->arrival;
    if (a == NULL || p->capacity != 0)
        return NAN;
    double ma = qc_dist_mean(a), ms = qc_dist_mean(p->service);
    double va = qc_dist_var(a), vs = qc_dist_var(p->service);
    if (!(ma > 0 && ms > 0 && isfinite(va) && isfinite(vs) && isfinite(ma) && isfinite(ms)))
        return NAN;
    double mu = p->servers / ms, rho = 1 / (ma * mu);
    if (!(rho > 0 && rho < 1))
        return NAN;
    double d = 1 - sqrt(rho), k = (va / (ma * ma) + vs / (ms * ms)) / 2;
    /* away from heavy traffic, the M/G/1 factor at the servers' load
     * (the arrivals' own variability added as in heavy traffic); only
     * ever slower than the heavy-traffic one */
    double f = mg1_relax_factor(p->service, rho);
    if (isfinite(f) && f > k) {
        /* the rare long services that make f exceed the heavy-traffic k
         * also skew the replications' means, which a t-interval over a few
         * of them does not survive at the same length: their excess counts
         * twice (balanced H2, SCV 63, load 0.4, 10 x 5000 customers: 34
         * relaxation times of f each, E[T] covered in 85 of 94 runs
         * unflagged; the excess squared flags it) */
        double k2 = (va / (ma * ma) - 1) / 2 + f * (f / k);
        if (k2 > k)
            k = k2;
    }
    double tau = k / (mu * d * d);
    *how = "GI/G/c heavy-traffic approximation";
    /* GI/M/1: an arrival finds a geometric number of sigma in system
     * (sigma = A*(mu (1 - sigma))), and the waiting time is exponential
     * of rate mu (1 - sigma), as in an M/M/1 of load sigma; that queue's
     * relaxation time 1 / (mu (1 - sqrt sigma))^2 is exact for M/M/1
     * (sigma = rho), and for bursty arrivals grows as the square of the
     * arrivals' variability where the heavy-traffic factor grows as its
     * first power (H2/M/1 at load 0.73, SCV 7.8, sigma 0.935: 925 against
     * 211, where 10 x 5000 customers covered E[T] in 33 of 38 runs and the
     * p99 in 25 of 38 unflagged). The slower of the two is kept. */
    if (p->servers == 1 && p->service->kind == QC_DIST_EXP) {
        double sigma = qc_gm1_sigma(a, mu);
        if (sigma > 0 && sigma < 1) {
            double ds = 1 - sqrt(sigma), ts = 1 / (mu * ds * ds);
            if (ts > tau) {
                tau = ts;
                *how = "GI/M/1, an M/M/1 at the arrivals' root sigma";
            }
        }
    }
    return tau;
}

/* An overloaded queue with a buffer (offered load >= 1, capacity K)
 * sits near full, and its empty places ("holes", K - N) make a queue of
 * their own: a hole is made at each departure (rate c mu while the
 * servers are busy) and filled by each arrival (rate lambda), an M/M/1
 * of load c mu / lambda <= 1 for exponential times. Its relaxation time
 * 1 / (lambda (1 - sqrt(c mu / lambda)))^2, scaled by (c_a^2 + c_s^2) / 2
 * as in relaxation_approx, is that of what such a run measures: the
 * number in system, and the utilization's idle time, which comes from the
 * holes' rare deep excursions (K - c + 1 of them). Those tails relax far
 * more slowly than the mean: M/M/8/28 at load 1.3, 10 replications,
 * 100 seeds, covered the utilization in 78 and the number in system in
 * 88 with 75 of these relaxation times per replication, 88 and 88 with
 * 300, 93 and 96 with 750; hence QC_QUEUE_RELAX_OVER per replication.
 * NAN where it does not apply. */
static double relaxation_overloaded(const qc_queue_params *p)
{
    const qc_dist *a = p->arrivals ? (p->arrivals->kind == QC_ARRIVALS_RENEWAL
                                          ? &p->arrivals->gap : NULL)
                                   : p->arrival;
    if (a == NULL || p->capacity == 0)
        return NAN;
    double ma = qc_dist_mean(a), ms = qc_dist_mean(p->service);
    double va = qc_dist_var(a), vs = qc_dist_var(p->service);
    if (!(ma > 0 && ms > 0 && isfinite(va) && isfinite(vs) && isfinite(ma) && isfinite(ms)))
        return NAN;
    double lambda = 1 / ma, cmu = p->servers / ms, rh = cmu / lambda;
    if (!(rh > 0 && rh <= 1))
        return NAN;
    double d = 1 - sqrt(rh), k = (va / (ma * ma) + vs / (ms * ms)) / 2;
    if (!(k > 0))
        k = 1e-3; /* deterministic times: still no faster than this */
    return d > 0 ? k / (lambda * d * d) : INFINITY;
}

/* Whether the run supports its intervals (units.h's rule on its data),
 * in res: the effective observations, the correlation time in customers
 * and, when it does not, why in words. Only a stationary run is judged:
 * a time-varying rate or a trace has no steady state to be short of (its
 * intervals are of that run's own average), and a run flagged transient
 * says so already. */
static void support_verdict(const qc_queue_params *p, const qc_queue_params *q,
                            const qc__units *units, const qc__support *sup, int mser,
                            qc_queue_result *res)
{
    double per_chunk = q->customers ? (double)q->customers / QC_QUEUE_CHUNKS
                                    : (double)res->measured / (double)q->reps /
                                          (sup->kept > 0 ? sup->kept : 1);
    res->effective_obs = sup->neff;
    res->corr_customers = isfinite(sup->tau) ? sup->tau * per_chunk : NAN;
    res->relaxation_time = relaxation_time(p);
    if (!mser || res->transient)
        return;
    int one = units->one_run;
    char *b = res->short_reason;
    size_t n = sizeof res->short_reason;
    /* the window each replication measured (time), against the known
     * relaxation time: the data's own correlation estimate cannot see
     * excursions longer than the run, the closed form can */
    double window = res->sim_time / q->reps - res->warmup_time;
    double tr = res->relaxation_time;
    const char *how = p->servers == 1 ? "M/M/1, exact" : "M/M/c, heavy-traffic";
    /* Where it is not known, no queue relaxes faster than its servers
     * turn over: the mean service time is a lower bound (a run of a few
     * services per server, as c = 64 servers filling up over 256
     * customers, measured the start, not a steady state) */
    if (!(tr > 0)) {
        tr = relaxation_approx(p, &how);
    }
    double es = qc_dist_mean(p->service);
    if (!(tr >= es) && es > 0 && isfinite(es)) {
        tr = es;
        how = "at least the mean service time";
    }
    /* an overloaded queue with a buffer: its holes' relaxation time */
    double to = relaxation_overloaded(p);
    if (to > 0 && !(window >= QC_QUEUE_RELAX_OVER * to)) {
        if (isinf(to))
            snprintf(b, n, "the offered load is 1 exactly: the buffer's empty places make a "
                     "queue at load 1, which never relaxes to a steady state");
        else
            snprintf(b, n, "the queue is overloaded and sits near its capacity; the empty "
                     "places of its buffer relax in %.3g (an M/M/1 of holes, approximation), "
                     "and %s measured only %.3g of it (at least %d are needed for the interval "
                     "of a quantity near its bound, the number in system or the utilization, "
                     "to cover)",
                     to, one ? "the run" : "each replication", window / to,
                     QC_QUEUE_RELAX_OVER);
        res->short_run = 1;
        return;
    }
    double need = one ? QC_QUEUE_RELAX_ONE : QC_QUEUE_RELAX_REP;
    if (isfinite(tr) && tr > 0 && (window < need * tr ||
                                   window * q->reps < QC_QUEUE_RELAX_ONE * tr)) {
        if (one)
            snprintf(b, n, "the queue's relaxation time is %.3g (%s), and the run measured "
                     "only %.3g of it (at least %d are needed for the interval to cover)",
                     tr, how, window / tr, QC_QUEUE_RELAX_ONE);
        else
            snprintf(b, n, "the queue's relaxation time is %.3g (%s), and each replication "
                     "measured only %.3g of it, %.3g in all (at least %d each and %d in all "
                     "are needed for the interval to cover)",
                     tr, how, window / tr, window * q->reps / tr, QC_QUEUE_RELAX_REP,
                     QC_QUEUE_RELAX_ONE);
        res->short_run = 1;
        return;
    }
    res->short_run = qc__units_short(units, sup, "the response times", per_chunk, b, n);
}

int qc_queue_params_check(const qc_queue_params *p, qc_err *err)
{
    double load = 0;
    int rc = check_params(p, &load, err);
    if (rc != 0)
        return rc;
    if (!(p->precision >= 0 && p->precision < 1))
        return qc_err_set(err, QC_EINVAL, "precision: %g is not in (0, 1)", p->precision);
    if (p->precision > 0 && p->customers == 0)
        return qc_err_set(err, QC_EINVAL,
                          "precision: a precision-driven run needs its length in customers, "
                          "not in time");
    return 0;
}

int qc_queue_run(const qc_queue_params *p, qc_queue_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    double load = 0;
    int rc = qc_queue_params_check(p, err);
    if (rc != 0)
        return rc;
    check_params(p, &load, err); /* the load, from the checks that passed */

    int one_run = p->reps < 2;
    /* workers: as many as asked, but no more than replications can run */
    unsigned most = p->precision > 0 && !one_run ? (p->max_reps ? p->max_reps : 1000000) : p->reps;
    state st = {{0}, NULL, {0}, 0, (double)p->reps, UINT64_MAX, 0, 0, 0, 0, p, res};
    if (qc__workers_init(&st.wk, qc__workers_count(p->jobs, most, QC_QUEUE_JOBS_MAX),
                         &workers_model, p, NULL) != 0)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    const run *r = st.wk.ws[0];
    int mser = p->warmup_mode == QC_WARMUP_MSER5 && !qc_arrivals_varies(r->arr) &&
               r->arr->kind != QC_ARRIVALS_TRACE;
    qc__analysis an;
    int urc = qc__analysis_init(&an, &summary_model, one_run, mser, QC_QM_RESPONSE);
    qc__units *const units = &an.units;
    st.an = &an;
    /* one block (qc_hist_alloc_array): only the pages the merged
     * replications' buckets reach are ever mapped in, and that during the
     * merges, not before the first replication starts */
    qc_hist *sect = qc_hist_alloc_array(QC_QUEUE_SECTIONS, NULL);
    for (int j = 0; j < QC_QUEUE_SECTIONS; j++)
        st.sect[j] = sect ? sect + j : NULL;
    if (sect == NULL)
        urc = QC_ENOMEM;
    qc_queue_params q = *p; /* the run as extended by --precision */
    if (urc != 0) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    uint64_t max_cust = p->max_customers ? p->max_customers : UINT64_MAX;
    unsigned max_reps = p->max_reps ? p->max_reps : 1000000;
    uint64_t total = 0;
    unsigned done_reps = 0;
    qc__support sup = {0};
    for (;;) {
        rc = run_reps(&q, &st, res, done_reps, q.reps, err);
        if (rc != 0)
            goto out;
        total += (uint64_t)(q.reps - done_reps) * q.customers;
        done_reps = q.reps;
        qc__units_finish(units, p->level, res->metric);
        qc__units_support(units, &sup);
        if (p->precision <= 0)
            break;
        /* an interval the run does not support is not precise, however
         * narrow: the run goes on (longer, or more replications) */
        res->precision_met = precise_enough(p, res->metric) && sup.supported;
        if (res->precision_met)
            break;
        if (one_run) {
            /* a longer run: twice the customers, from the start */
            if (q.customers > max_cust / 2 || total + 2 * q.customers > max_cust)
                break;
            q.customers *= 2;
            for (int j = 0; j < QC_QUEUE_SECTIONS; j++)
                qc_hist_reset(st.sect[j]);
            if (qc__analysis_restart(&an) != 0) {
                rc = qc_err_set(err, QC_ENOMEM, "out of memory");
                goto out;
            }
            done_reps = 0;
            st.work_done = 0;
            st.rare_blocked = st.rare_waited = st.rare_free = 0;
        } else {
            /* twice the replications, within the bounds: few looks at the
             * data, as each look that may stop lowers the coverage */
            unsigned next = 2 * q.reps;
            if (next > max_reps)
                next = max_reps;
            uint64_t room = (max_cust - total) / q.customers;
            if (max_cust != UINT64_MAX && next - q.reps > room)
                next = q.reps + (unsigned)room;
            if (next <= q.reps)
                break;
            q.reps = next;
            st.work_total = next;
        }
    }
    res->reps = q.reps;
    res->customers = q.customers;
    res->total_customers = total;
    res->load = load;
    res->warmup_chunks = units->k0;
    res->batches = one_run ? units->nbatches : 0;
    res->batches_independent = one_run ? units->independent : 1;
    res->von_neumann = one_run ? units->vn_stat : NAN;
    if (!one_run) {
        res->warmup_customers = qc__analysis_sum(&an, QC__X_CUT_N) / q.reps;
        res->warmup_time = qc__analysis_sum(&an, QC__X_CUT_T) / q.reps;
    }
    if (p->warmup_mode == QC_WARMUP_FIXED)
        res->warmup_customers = q.customers ? p->warmup : 0;
    res->measured = (uint64_t)qc__analysis_sum(&an, QC__X_DONE);
    res->ci_method = one_run ? "batch-means" : "replications";

    /* Percentiles by sectioning (Asmussen and Glynn 2007, III.5a;
     * Nakayama 2014): the point estimate is the quantile of all the kept
     * response times pooled, the half-width that of the replications' (or
     * batches') own quantiles. A quantile of a short stretch of correlated
     * values is biased (low for a high percentile); the pooled one is far
     * less so, and the spread of the sections still measures its error. */
    /* With 2 SECTIONS or more replications, the sections are groups of
     * replications (replication r in group r % SECTIONS): a short
     * replication's own quantile is biased and its spread understates the
     * pooled quantile's error (p99 of M/M/1 at 0.9, 40 x 20000: 0.85 of
     * the width needed); groups of 2 or more are long enough. */
    int grouped = !one_run && q.reps >= 2 * QC_QUEUE_SECTIONS;
    if (one_run)
        qc__analysis_percentiles(&an, &res->metric[QC_QM_P50], p->level);
    else
        qc__percentiles(&res->metric[QC_QM_P50], an.all, grouped ? st.sect : NULL,
                        QC_QUEUE_SECTIONS, p->level);
    /* Replications too: fewer than QC__PCT_TAIL_MIN kept values beyond a
     * percentile (all replications together) and qc__percentiles
     * withholds its interval, as for one run (reps.h). */
    /* A percentile is never below the least possible response time (the
     * least service requirement), nor any interval of a non-negative
     * measure below 0. */
    double least = qc_dist_quantile(p->service, 0);
    if (!(least >= 0))
        least = 0;
    for (int m = 0; m < QC_QM_COUNT; m++) {
        qc_ci *c = &res->metric[m];
        double floor_m = (m >= QC_QM_P50 && m <= QC_QM_P99) ? least : 0;
        if (floor_m > c->mean)
            floor_m = c->mean > 0 ? 0 : floor_m;
        if (c->lo < floor_m)
            c->lo = floor_m;
        /* and a fraction's interval never above 1 */
        if ((m == QC_QM_UTILIZATION || m == QC_QM_BLOCKING) && c->hi > 1)
            c->hi = c->mean <= 1 ? 1 : c->hi;
        /* An interval is no narrower than the arithmetic that made it:
         * deterministic arrivals give every replication the same
         * throughput up to the rounding of its instants, and an interval
         * of zero width around a rounded value misses the exact one. */
        double res_m = QC_QUEUE_NUMERIC_REL * fabs(c->mean);
        if (isfinite(c->half) && isfinite(c->mean) && c->hi - c->mean < res_m) {
            c->hi = c->mean + res_m;
            if (c->mean - c->lo < res_m && c->mean - res_m >= floor_m)
                c->lo = c->mean - res_m;
        }
    }
    /* Rare events: a blocking probability or a mean wait that rests on
     * a few blocked or waiting customers has an interval from those few
     * (none seen: [0, 0]) that covers far less than it says. Below
     * QC_QUEUE_RARE_MIN of them measured, no interval is given, and the
     * count says why. Where the quantity is 0 by construction (no
     * capacity: no blocking; K = c: no wait) the [0, 0] is exact. */
    res->rare_blocked = st.rare_blocked;
    res->rare_waited = st.rare_waited;
    if (p->capacity != 0 && st.rare_blocked < QC_QUEUE_RARE_MIN) {
        qc_ci *c = &res->metric[QC_QM_BLOCKING];
        c->lo = c->hi = c->half = NAN;
        res->rare[QC_QM_BLOCKING] = 1;
    }
    if (!(p->capacity != 0 && p->capacity == p->servers) && st.rare_waited < QC_QUEUE_RARE_MIN) {
        qc_ci *c = &res->metric[QC_QM_WAIT];
        c->lo = c->hi = c->half = NAN;
        res->rare[QC_QM_WAIT] = 1;
    }
    /* The same for the utilization near 1: its complement, the idle
     * capacity, rests on the idle periods, and each server's idle period
     * ends with a customer who finds it free and does not wait. Fewer
     * than QC_QUEUE_RARE_MIN of them (an overloaded M/M/8/28, utilization
     * 0.9999: replications most of which never saw a server idle, so
     * intervals of width ~0 at 1; 26 of 40 covered) and the interval is
     * withheld. Under PS a customer who found a server free may still
     * share later, so the count is low, never high: it withholds more.
     * Idle periods come in bursts (one excursion of the number in system
     * below c holds many), so more of them are needed than of blocked
     * customers: M/M/8/28 at load 1.5, 10 x 20000 customers, about 50 of
     * them per run, covered the utilization 0.99997 in 70 of 100 seeds. */
    res->rare_free = st.rare_free;
    if (st.rare_free < QC_QUEUE_RARE_FREE_MIN) {
        qc_ci *c = &res->metric[QC_QM_UTILIZATION];
        c->lo = c->hi = c->half = NAN;
        res->rare[QC_QM_UTILIZATION] = 1;
    }
    const char *why = infinite_reason(p, load, res->infinite_reason, sizeof res->infinite_reason);
    if (why != NULL) {
        static const int inf[] = {QC_QM_RESPONSE, QC_QM_WAIT, QC_QM_NUMBER};
        for (size_t i = 0; i < 3; i++) {
            qc_ci *c = &res->metric[inf[i]];
            if (inf[i] == QC_QM_NUMBER && p->capacity)
                continue; /* at most K in system */
            *c = (qc_ci){INFINITY, NAN, NAN, NAN, p->level, c->n};
        }
    }
    if (!isfinite(qc_dist_mean(p->service))) {
        res->transient = 1;
        snprintf(res->transient_reason, sizeof res->transient_reason,
                 "the service time has an infinite mean: in the long run the throughput is 0 "
                 "and the blocking probability 1, so what a finite run measures depends on its "
                 "length, not on a steady state");
    }
    /* Offered load at or above what the servers can do: the steady state
     * has the buffer full part of the time. A run that never filled it in
     * some replication was still filling up: what it measured is the
     * transient, not a steady state. */
    if (load >= 1 && p->capacity != 0 && st.nmax_min < p->capacity &&
        r->arr->kind != QC_ARRIVALS_TRACE && !qc_arrivals_varies(r->arr)) {
        res->transient = 1;
        snprintf(res->transient_reason, sizeof res->transient_reason,
                 "offered load %.4g >= 1, yet a replication never filled the buffer of "
                 "K = %llu (at most %llu in system, %llu arrivals blocked in all): the queue "
                 "was still filling up when the run ended, so these are not steady-state "
                 "values; a run long enough to fill the buffer, or a smaller --capacity, "
                 "reaches the steady state",
                 load, (unsigned long long)p->capacity, (unsigned long long)st.nmax_min,
                 (unsigned long long)st.blocked);
    }
    /* A trend across the run: the response times of the window's last
     * half still rising is what a queue with no steady state, or one far
     * from it for the run's length, looks like. */
    if (r->arr->kind != QC_ARRIVALS_TRACE && !qc_arrivals_varies(r->arr) &&
        isfinite(qc_dist_mean(p->service))) {
        qc__trend tr;
        if (qc__units_trend(units, &tr) == 0) {
            res->trend_tested = 1;
            res->trend_detected = tr.detected;
            res->trend_t = tr.stat;
            res->trend_df = tr.df;
            res->trend_p = tr.p;
            res->trend_change = tr.rise;
        }
        if (res->trend_detected) {
            size_t len = res->transient ? strlen(res->transient_reason) : 0;
            char cut[128] = "";
            if (mser && units->k0 >= (int)units->ncand - 1)
                snprintf(cut, sizeof cut, "; the warm-up cut is at its limit, half the window "
                         "(%d of %d chunks)", units->k0, QC_QUEUE_CHUNKS);
            snprintf(res->transient_reason + len, sizeof res->transient_reason - len,
                     "%sa trend across the run: over the last half of the window the mean "
                     "response time rises by %.3g%% (slope t = %.3g on %u degrees of "
                     "freedom, one-sided p = %.2g, over %s)%s; a longer run, or a load "
                     "further below 1, reaches a steady state",
                     len ? "; also " : "", 100 * tr.rise, tr.stat, tr.df, tr.p,
                     one_run ? "16 batch means of the run" : "the replications' slopes", cut);
            res->transient = 1;
        }
    }
    support_verdict(p, &q, units, &sup, mser, res);
    res->response_hist = qc__analysis_take_hist(&an);
    rc = 0;
out:
    if (rc != 0)
        qc_queue_result_free(res);
    qc__analysis_free(&an);
    qc_hist_free_array(st.sect[0], QC_QUEUE_SECTIONS); /* the block */
    qc__workers_free(&st.wk);
    return rc;
}

void qc_queue_result_free(qc_queue_result *res)
{
    qc_hist_free(res->response_hist);
    free(res->series);
    memset(res, 0, sizeof *res);
}
