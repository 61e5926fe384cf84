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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/rng.h"
#include "qctl/sim.h"
#include "station.h"
#include "units.h"

enum { EV_ARRIVAL = 0, EV_DEPART = 1, EV_TICK = 2 };

#define NOT_MEASURED UINT32_MAX
#define MSER_CAP 4096
#define PROGRESS_EVERY (1u << 18)

/* Per chunk, plain sums: a chunk only contributes its totals to the
 * estimates (the spread comes from replications or batches), and a sum
 * costs no division on the hot path where Welford's update costs two. */
typedef struct chunk {
    uint64_t done;             /* measured customers that departed */
    double sum_resp, sum_wait;
    uint64_t arrivals, blocked, departures;
    double area_n, area_busy;
    double t_start, t_end;
    qc_hist *hist;
} chunk;


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

    unsigned c;
    double tlast;
    uint64_t arrivals;     /* arrivals so far in this replication */
    uint64_t measured_out; /* measured customers still in system */
    uint64_t warm_n;       /* FIXED warm-up in customers (customers run) */
    uint64_t next_bound;   /* measured index where the next chunk starts */
    double win_start, win_end;
    int done;

    qc__station st;

    /* MSER: batch means of response times in departure order */
    double *mz, *mt;
    size_t mn;
    uint64_t mbsize, macc_n;
    double macc;

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

const char *qc_queue_metric_name(int metric)
{
    return (metric >= 0 && metric < QC_QM_COUNT) ? metric_names[metric] : "?";
}

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
    if ((p->customers > 0) == (p->horizon > 0))
        return qc_err_set(err, QC_EINVAL,
                          "run length: give either a number of customers or a time, not %s",
                          p->customers > 0 ? "both" : "neither");
    if (p->customers > 0 && (p->customers < 2 * QC_QUEUE_CHUNKS || p->customers > 1000000000000000ULL))
        return qc_err_set(err, QC_EINVAL, "customers: %llu is not in [%d, 1e15]",
                          (unsigned long long)p->customers, 2 * QC_QUEUE_CHUNKS);
    if (p->customers == 0 && !(p->horizon > 0 && isfinite(p->horizon)))
        return qc_err_set(err, QC_EINVAL, "time: %g is not a positive finite time", p->horizon);
    if (p->reps < 1 || p->reps > 1000000)
        return qc_err_set(err, QC_EINVAL, "reps: %u is not in [1, 1000000]", p->reps);
    if (!(p->level > 0 && p->level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence level %g is not in (0, 1)", p->level);
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
    if (p->capacity == 0 && !(*load < 1.0) && !finite)
        return qc_err_set(err, QC_EUNSTABLE,
                          "offered load rho = E[S]/(c E[A]) = %.6g >= 1 with unlimited capacity: "
                          "the queue grows without bound and has no steady state; lower the "
                          "load, add servers, or set --capacity",
                          *load);
    return 0;
}

/* ---- workspace ------------------------------------------------------- */

static void run_free(run *r)
{
    for (int k = 0; k < QC_QUEUE_CHUNKS; k++)
        qc_hist_free(r->chunks[k].hist);
    qc__station_free(&r->st);
    qc_sim_destroy(&r->sim);
    free(r->mz);
    free(r->mt);
    free(r->series);
}

static int run_alloc(run *r, const qc_queue_params *p)
{
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
    if (qc_sim_init(&r->sim, 64) != 0 || qc_sim_source_add(&r->sim, EV_ARRIVAL) != 0)
        goto oom;
    for (int k = 0; k < QC_QUEUE_CHUNKS; k++)
        if ((r->chunks[k].hist = qc_hist_alloc()) == NULL)
            goto oom;
    size_t start = 1024;
    if (p->capacity != 0 && p->capacity < start)
        start = (size_t)p->capacity;
    if (qc__station_init(&r->st, &r->sim, p->discipline, r->c, start, EV_DEPART) != 0)
        goto oom;
    r->mz = malloc(MSER_CAP * sizeof *r->mz);
    r->mt = malloc(MSER_CAP * sizeof *r->mt);
    if (!r->mz || !r->mt)
        goto oom;
    return 0;
oom:
    run_free(r);
    return QC_ENOMEM;
}

static void run_reset(run *r, unsigned rep)
{
    const qc_queue_params *p = r->p;
    qc_sim_reset(&r->sim);
    qc_rng_init(&r->rarr, p->seed, qc_rng_stream(rep, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&r->rsvc, p->seed, qc_rng_stream(rep, QC_STREAM_SERVICE, 0));
    qc_arrivals_gen_init(&r->garr, r->arr, &r->rarr);
    qc_sampler_init(&r->ssvc, p->service, &r->rsvc);
    for (int k = 0; k < QC_QUEUE_CHUNKS; k++) {
        chunk *ch = &r->chunks[k];
        qc_hist *h = ch->hist;
        memset(ch, 0, sizeof *ch);
        qc_hist_reset(h);
        ch->hist = h;
    }
    r->cur = -1;
    qc__station_reset(&r->st);
    r->tlast = 0;
    r->arrivals = 0;
    r->measured_out = 0;
    r->done = 0;
    r->win_start = r->win_end = 0;
    r->next_bound = 0;
    r->warm_n = p->warmup_mode == QC_WARMUP_FIXED && p->customers ? (uint64_t)p->warmup : 0;
    r->mn = 0;
    r->mbsize = 5;
    r->macc = 0;
    r->macc_n = 0;
    r->series_on = rep == 0 && p->series_dt > 0;
    r->s_next = p->series_dt;
    r->s_area = 0;
    r->slen = 0;
}

/* ---- time accounting ------------------------------------------------ */

static void series_push(run *r, double t, double mean)
{
    if (r->slen == r->scap) {
        size_t cap = r->scap ? 2 * r->scap : 1024;
        qc_series_point *s = realloc(r->series, cap * sizeof *s);
        if (s == NULL) {
            r->oom = 1;
            r->series_on = 0;
            return;
        }
        r->series = s;
        r->scap = cap;
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

/* Accrues the areas of the path up to time t. */
static inline void advance(run *r, double t)
{
    double dt = t - r->tlast;
    if (r->cur >= 0 && r->cur < QC_QUEUE_CHUNKS) {
        chunk *ch = &r->chunks[r->cur];
        ch->area_n += (double)r->st.n * dt;
        ch->area_busy += (double)qc__station_busy(&r->st) * dt;
    }
    if (r->series_on)
        series_advance(r, t);
    r->tlast = t;
}

/* Makes chunk k the one in force from time t (areas accrued up to t). */
static void set_chunk(run *r, int k, double t)
{
    if (r->cur >= 0 && r->cur < QC_QUEUE_CHUNKS)
        r->chunks[r->cur].t_end = t;
    if (r->cur < 0)
        r->win_start = t;
    r->cur = k;
    if (k < QC_QUEUE_CHUNKS)
        r->chunks[k].t_start = t;
    else {
        r->win_end = t;
        if (r->measured_out == 0)
            r->done = 1;
    }
}

/* ---- departures and their statistics --------------------------------- */

static void mser_add(run *r, double resp, double t)
{
    r->macc += resp;
    if (++r->macc_n < r->mbsize)
        return;
    if (r->mn == MSER_CAP) {
        /* Full: halve by merging neighbours, doubling the batch size. */
        for (size_t i = 0; i < MSER_CAP / 2; i++) {
            r->mz[i] = 0.5 * (r->mz[2 * i] + r->mz[2 * i + 1]);
            r->mt[i] = r->mt[2 * i + 1];
        }
        r->mn = MSER_CAP / 2;
        r->mbsize *= 2;
        /* The batch just completed is of the old size: fold it into a
         * new, half-filled one of the new size. */
        r->macc_n = r->mbsize / 2;
        return;
    }
    r->mz[r->mn] = r->macc / (double)r->macc_n;
    r->mt[r->mn] = t;
    r->mn++;
    r->macc = 0;
    r->macc_n = 0;
}

static inline void depart_stats(run *r, const qc__job *c, double t)
{
    if (r->cur >= 0 && r->cur < QC_QUEUE_CHUNKS)
        r->chunks[r->cur].departures++;
    if (c->tag == NOT_MEASURED)
        return;
    chunk *ch = &r->chunks[c->tag];
    double resp = t - c->arr;
    ch->done++;
    ch->sum_resp += resp;
    ch->sum_wait += resp - c->svc;
    qc_hist_add(ch->hist, resp);
    if (r->p->warmup_mode == QC_WARMUP_MSER5)
        mser_add(r, resp, t);
    if (--r->measured_out == 0 && r->cur >= QC_QUEUE_CHUNKS)
        r->done = 1;
}

/* ---- the event loop ---------------------------------------------------- */

static uint32_t arrival_chunk(run *r, double t)
{
    const qc_queue_params *p = r->p;
    uint64_t i = r->arrivals++;
    if (p->customers == 0) /* timed run: ticks move the chunks */
        return r->cur >= 0 && r->cur < QC_QUEUE_CHUNKS ? (uint32_t)r->cur : NOT_MEASURED;
    if (i < r->warm_n)
        return NOT_MEASURED;
    uint64_t j = i - r->warm_n;
    if (j >= p->customers) {
        if (r->cur < QC_QUEUE_CHUNKS)
            set_chunk(r, QC_QUEUE_CHUNKS, t);
        return NOT_MEASURED;
    }
    if (j == r->next_bound) {
        /* Chunk k holds indices [ceil(k N / C), ceil((k+1) N / C)); the
         * boundary is computed once per chunk, not once per arrival. */
        int k = r->cur + 1;
        set_chunk(r, k, t);
        r->next_bound = ((uint64_t)(k + 1) * p->customers + QC_QUEUE_CHUNKS - 1) / QC_QUEUE_CHUNKS;
    }
    return (uint32_t)r->cur;
}

static int on_arrival(run *r, double t)
{
    const qc_queue_params *p = r->p;
    double next = qc_arrivals_next(&r->garr);
    int rc = isinf(next) ? 0 : qc_sim_source_at(&r->sim, 0, next);
    if (rc != 0)
        return rc;
    uint32_t k = arrival_chunk(r, t);
    if (r->done)
        return 0;
    if (k != NOT_MEASURED)
        r->chunks[k].arrivals++;
    if (p->capacity != 0 && r->st.n >= p->capacity) {
        if (k != NOT_MEASURED)
            r->chunks[k].blocked++;
        return 0;
    }
    qc__job c = {t, qc_sampler_next(&r->ssvc), k};
    if (k != NOT_MEASURED)
        r->measured_out++;
    return qc__station_arrive(&r->st, &c);
}

static int on_depart(run *r, const qc_event *ev)
{
    qc__job j;
    int rc = qc__station_depart(&r->st, ev, &j);
    depart_stats(r, &j, ev->t);
    return rc;
}

static int on_tick(run *r, double t)
{
    int k = r->cur + 1;
    set_chunk(r, k, t);
    if (k < QC_QUEUE_CHUNKS) {
        double next = r->win_start + r->p->horizon * (double)(k + 1) / QC_QUEUE_CHUNKS;
        int64_t h = qc_sim_at(&r->sim, next, EV_TICK, 0);
        if (h < 0)
            return (int)h;
    }
    return 0;
}

static int run_once(run *r, unsigned rep, double *work_done, double work_total)
{
    const qc_queue_params *p = r->p;
    run_reset(r, rep);
    int64_t h = qc_sim_source_at(&r->sim, 0, qc_arrivals_next(&r->garr));
    if (h < 0)
        return (int)h;
    if (p->customers == 0) {
        double w = p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0.0;
        h = qc_sim_at(&r->sim, w, EV_TICK, 0);
        if (h < 0)
            return (int)h;
        r->win_start = w;
    }
    qc_event ev;
    uint32_t countdown = PROGRESS_EVERY;
    int rc = 0;
    while (!r->done && qc_sim_next(&r->sim, &ev) == 0) {
        double t = ev.t;
        qc__station_advance(&r->st, t);
        advance(r, t);
        /* Testing the handle rather than the type lets the compiler fold
         * this test into qc_sim_next's own source-or-heap branch: one
         * unpredictable branch per event instead of two. */
        if (ev.handle == QC_SIM_SOURCE_HANDLE) {
            rc = on_arrival(r, t);
        } else switch (ev.type) {
        case EV_DEPART:
            rc = on_depart(r, &ev);
            break;
        case EV_TICK:
            rc = on_tick(r, t);
            break;
        }
        if (rc != 0 || r->oom)
            return rc ? rc : QC_ENOMEM;
        if (--countdown == 0) {
            countdown = PROGRESS_EVERY;
            if (p->progress) {
                double f = p->customers
                               ? (double)r->arrivals / ((double)p->customers + (double)r->warm_n)
                               : t / (p->horizon + (p->warmup_mode == QC_WARMUP_FIXED ? p->warmup : 0));
                p->progress(p->progress_ctx, (*work_done + (f < 1 ? f : 1)) / work_total);
            }
        }
    }
    if (r->cur < QC_QUEUE_CHUNKS) {
        /* a trace ran out before the window closed: it closes now, and
         * the chunks never reached stay empty (left out of the estimates) */
        advance(r, r->sim.now);
        int last = r->cur;
        set_chunk(r, QC_QUEUE_CHUNKS, r->sim.now);
        for (int k = last + 1; k < QC_QUEUE_CHUNKS; k++)
            r->chunks[k].t_start = r->chunks[k].t_end = r->sim.now;
    }
    *work_done += 1.0;
    return 0;
}

/* ---- estimates ---------------------------------------------------------- */

/* The estimates of every metric from chunks [a, b), merging their
 * histograms into tmp (which is reset first). */
static void summarize(const run *r, int a, int b, qc_hist *tmp, double out[QC_QM_COUNT])
{
    uint64_t done = 0;
    double sum_resp = 0, sum_wait = 0;
    double area_n = 0, area_busy = 0, time = 0;
    uint64_t arrivals = 0, blocked = 0, departures = 0;
    qc_hist_reset(tmp);
    for (int k = a; k < b; k++) {
        const chunk *ch = &r->chunks[k];
        done += ch->done;
        sum_resp += ch->sum_resp;
        sum_wait += ch->sum_wait;
        area_n += ch->area_n;
        area_busy += ch->area_busy;
        time += ch->t_end - ch->t_start;
        arrivals += ch->arrivals;
        blocked += ch->blocked;
        departures += ch->departures;
        qc_hist_merge(tmp, ch->hist);
    }
    out[QC_QM_RESPONSE] = done ? sum_resp / (double)done : NAN;
    out[QC_QM_WAIT] = done ? sum_wait / (double)done : NAN;
    out[QC_QM_NUMBER] = time > 0 ? area_n / time : NAN;
    out[QC_QM_UTILIZATION] = time > 0 ? area_busy / (time * (double)r->c) : NAN;
    out[QC_QM_THROUGHPUT] = time > 0 ? (double)departures / time : NAN;
    out[QC_QM_BLOCKING] = arrivals ? (double)blocked / (double)arrivals : NAN;
    out[QC_QM_P50] = qc_hist_quantile(tmp, 0.50);
    out[QC_QM_P95] = qc_hist_quantile(tmp, 0.95);
    out[QC_QM_P99] = qc_hist_quantile(tmp, 0.99);
}

typedef struct summary_ctx {
    const run *r;
    qc_hist *tmp;
} summary_ctx;

static void summarize_cb(void *ctx, int a, int b, double *out)
{
    summary_ctx *c = ctx;
    summarize(c->r, a, b, c->tmp, out);
}

/* First chunk kept after the MSER cut. */
static int mser_first_chunk(run *r, qc_err *err)
{
    if (r->p->warmup_mode != QC_WARMUP_MSER5 || r->mn < 10)
        return 0;
    if (qc_arrivals_varies(r->arr) || r->arr->kind == QC_ARRIVALS_TRACE)
        return 0; /* no stationary output to truncate toward */
    size_t d = 0;
    if (qc_mser_batches(r->mz, r->mn, &d, err) != 0 || d == 0)
        return 0;
    double tcut = r->mt[d - 1];
    int k = 0;
    while (k < QC_QUEUE_CHUNKS / 2 && r->chunks[k].t_start < tcut)
        k++;
    return k;
}

int qc_queue_run(const qc_queue_params *p, qc_queue_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    double load = 0;
    int rc = check_params(p, &load, err);
    if (rc != 0)
        return rc;

    run *r = malloc(sizeof *r);
    if (r == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    if (run_alloc(r, p) != 0) {
        free(r);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    qc__units units;
    int urc = qc__units_init(&units, p->reps, QC_QUEUE_BATCHES, QC_QM_COUNT);
    qc_hist *tmp = qc_hist_alloc();
    qc_hist *all = qc_hist_alloc();
    summary_ctx sc = {r, tmp};
    if (urc != 0 || !tmp || !all) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }

    double work_done = 0;
    double cut_n = 0, cut_t = 0;
    for (unsigned rep = 0; rep < p->reps; rep++) {
        rc = run_once(r, rep, &work_done, (double)p->reps);
        if (rc != 0) {
            qc_err_set(err, rc, "replication %u: %s", rep + 1, qc_strerror(rc));
            goto out;
        }
        res->events += r->sim.events;
        res->sim_time += r->sim.now;
        if (rep == 0 && r->series_on) {
            res->series = r->series;
            res->series_len = r->slen;
            r->series = NULL;
            r->slen = r->scap = 0;
        }
        int k0 = mser_first_chunk(r, err);
        for (int k = 0; k < k0; k++)
            cut_n += (double)r->chunks[k].arrivals;
        if (p->warmup_mode == QC_WARMUP_FIXED)
            cut_n += p->customers ? p->warmup : 0;
        cut_t += r->chunks[k0].t_start - (p->warmup_mode == QC_WARMUP_MSER5 ? r->win_start : 0);
        for (int k = k0; k < QC_QUEUE_CHUNKS; k++) {
            res->measured += r->chunks[k].done;
            qc_hist_merge(all, r->chunks[k].hist);
        }
        qc__units_add(&units, rep, k0, QC_QUEUE_CHUNKS, summarize_cb, &sc);
    }
    res->load = load;
    res->warmup_customers = cut_n / p->reps;
    res->warmup_time = cut_t / p->reps;
    res->ci_method = p->reps >= 2 ? "replications" : "batch-means";
    qc__units_ci(&units, p->level, res->metric);
    res->response_hist = all;
    all = NULL;
    rc = 0;
out:
    if (rc != 0)
        qc_queue_result_free(res);
    qc_hist_free(all);
    qc_hist_free(tmp);
    qc__units_free(&units);
    run_free(r);
    free(r);
    return rc;
}

void qc_queue_result_free(qc_queue_result *res)
{
    qc_hist_free(res->response_hist);
    free(res->series);
    memset(res, 0, sizeof *res);
}
