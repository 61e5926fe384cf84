/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reps.c: replications on several threads, merged in order (reps.h).
 *
 * The invariant: replication r is merged only after replications
 * 0..r-1 (from..r-1) have been merged, and merges never overlap. A worker
 * holding a finished replication waits on `turn` until `next_merge`
 * reaches it; everything shared (the counters, the progress fractions,
 * the caller's result through `merge`) is touched only under `mu`. */
#include "reps.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_cdf.h>
#include <limits.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/gsl_quiet.h"
#include "core/thread.h"
#include "qctl/hist.h"

struct qc__reps_worker {
    struct shared *sh;
    unsigned id;
    double frac; /* of the replication in flight, under sh->mu */
    qc_err err;
};

/* A replication run to its end, waiting for its turn to be merged. */
typedef struct parked {
    unsigned rep, ws; /* ws: UINT_MAX when the slot is empty */
    int rc;
    qc_err err;
} parked;

typedef struct shared {
    const qc__reps *h;
    pthread_mutex_t mu;
    pthread_cond_t turn;
    unsigned next_take, next_merge, to;
    unsigned finished; /* replications run to the end (merged or not) */
    int stop;          /* a replication failed: take no more */
    int rc;            /* its code */
    unsigned failed;   /* its index */
    qc_err err;        /* its message */
    int threaded;
    qc__reps_worker *w;
    unsigned nws;             /* workspaces */
    unsigned nmade;           /* ws[0..nmade) set up or being set up */
    unsigned *free_ws, nfree; /* those holding no replication (a stack) */
    parked *park;             /* nws slots */
} shared;

static void lock(shared *s)
{
    if (s->threaded)
        pthread_mutex_lock(&s->mu);
}

static void unlock(shared *s)
{
    if (s->threaded)
        pthread_mutex_unlock(&s->mu);
}

static void report(shared *s)
{
    const qc__reps *h = s->h;
    if (!h->progress || !(h->total > 0))
        return;
    double f = h->done + (double)s->finished;
    for (unsigned i = 0; i < h->jobs; i++)
        f += s->w[i].frac;
    f /= h->total;
    h->progress(h->progress_ctx, f < 1 ? f : 1);
}

void qc__reps_progress(qc__reps_worker *w, double fraction)
{
    shared *s = w->sh;
    lock(s);
    w->frac = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    report(s);
    unlock(s);
}

void qc__reps_progress_cb(void *ctx, double fraction)
{
    qc__reps_progress(ctx, fraction);
}

static void fail(shared *s, int rc, unsigned rep, const qc_err *err)
{
    s->stop = 1;
    s->rc = rc;
    s->failed = rep;
    if (err)
        s->err = *err;
}

/* Takes out the parked replication whose turn it is, if there is one. */
static int unpark_next(shared *s, parked *out)
{
    for (unsigned i = 0; i < s->nws; i++)
        if (s->park[i].ws != UINT_MAX && s->park[i].rep == s->next_merge) {
            *out = s->park[i];
            s->park[i].ws = UINT_MAX;
            return 1;
        }
    return 0;
}

/* Merges cur, whose turn it is, then each parked replication whose turn
 * follows; frees their workspaces. Under the lock. */
static void merge_in_order(shared *s, parked *cur)
{
    const qc__reps *h = s->h;
    do {
        int rc = cur->rc;
        if (rc == 0 && h->merge)
            rc = h->merge(h->ctx, h->ws[cur->ws], cur->rep, &cur->err);
        if (rc != 0)
            fail(s, rc, cur->rep, &cur->err);
        s->next_merge++;
        s->free_ws[s->nfree++] = cur->ws;
    } while (!s->stop && unpark_next(s, cur));
}

static void *work(void *arg)
{
    qc__reps_worker *w = arg;
    shared *s = w->sh;
    const qc__reps *h = s->h;
    parked cur;
    lock(s);
    while (!s->stop && s->next_take < s->to) {
        if (s->nfree == 0) { /* every workspace holds a replication */
            if (h->more != NULL && s->nmade < s->nws) {
                const unsigned i = s->nmade++; /* set up one more, unlocked */
                unlock(s);
                const int made = h->more(h->ctx, i) == 0;
                lock(s);
                if (made)
                    s->free_ws[s->nfree++] = i;
                continue;
            }
            pthread_cond_wait(&s->turn, &s->mu); /* only reached when threaded */
            continue;
        }
        if (qc_cancel_requested(h->cancel)) {
            qc_err_set(&w->err, QC_ECANCELED, "cancelled");
            fail(s, QC_ECANCELED, s->next_take, &w->err);
            break;
        }
        const unsigned rep = s->next_take++;
        const unsigned ws = s->free_ws[--s->nfree];
        unlock(s);
        memset(&w->err, 0, sizeof w->err);
        const int rc = h->run(h->ctx, h->ws[ws], rep, w, &w->err);
        lock(s);
        w->frac = 0;
        if (rc == 0)
            s->finished++;
        cur.rep = rep;
        cur.ws = ws;
        cur.rc = rc;
        cur.err = w->err;
        if (s->stop)
            break;
        if (s->next_merge != rep) { /* only reached when threaded */
            /* Not its turn: it waits in its workspace, merged by whoever
             * merges the replication before it, while this worker takes
             * the next one if a workspace is free. */
            for (unsigned i = 0; i < s->nws; i++)
                if (s->park[i].ws == UINT_MAX) {
                    s->park[i] = cur;
                    break;
                }
            while (!s->stop && s->nfree == 0 && !(h->more != NULL && s->nmade < s->nws) &&
                   s->next_merge <= rep)
                pthread_cond_wait(&s->turn, &s->mu);
            continue;
        }
        merge_in_order(s, &cur);
        if (s->threaded)
            pthread_cond_broadcast(&s->turn);
        report(s);
    }
    if (s->threaded) /* a stop: the others waiting see it */
        pthread_cond_broadcast(&s->turn);
    unlock(s);
    return NULL;
}

int qc__reps_run(const qc__reps *h, unsigned from, unsigned to, unsigned *failed, qc_err *err)
{
    if (from >= to)
        return 0;
    unsigned jobs = h->jobs ? h->jobs : 1;
    if (jobs > to - from)
        jobs = to - from;
    const unsigned nws = h->nws > (h->jobs ? h->jobs : 1) ? h->nws : (h->jobs ? h->jobs : 1);
    qc__reps_worker *w = calloc(h->jobs ? h->jobs : 1, sizeof *w);
    unsigned *free_ws = malloc(nws * sizeof *free_ws);
    parked *park = malloc(nws * sizeof *park);
    if (w == NULL || free_ws == NULL || park == NULL) {
        free(w);
        free(free_ws);
        free(park);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    shared s;
    memset(&s, 0, sizeof s);
    s.h = h;
    s.next_take = s.next_merge = from;
    s.to = to;
    s.w = w;
    s.nws = nws;
    s.free_ws = free_ws;
    s.park = park;
    /* ready: ws[0..nmade); the others set up by h->more when needed */
    s.nmade = h->more != NULL && h->nready > 0 && h->nready < nws ? h->nready : nws;
    for (unsigned i = 0; i < nws; i++)
        park[i].ws = UINT_MAX;
    for (unsigned i = 0; i < s.nmade; i++)
        free_ws[i] = s.nmade - 1 - i; /* workspace 0 on top: the one a one-thread run uses */
    s.nfree = s.nmade;
    for (unsigned i = 0; i < (h->jobs ? h->jobs : 1); i++) {
        w[i].sh = &s;
        w[i].id = i;
    }
    pthread_t *tid = NULL;
    unsigned started = 0;
    gsl_error_handler_t *gh = NULL;
    if (jobs > 1 && pthread_mutex_init(&s.mu, NULL) == 0) {
        if (pthread_cond_init(&s.turn, NULL) != 0) {
            pthread_mutex_destroy(&s.mu);
        } else {
            s.threaded = 1;
            gh = qc__gsl_quiet();
            tid = calloc(jobs - 1, sizeof *tid);
            for (unsigned i = 1; tid && i < jobs; i++) {
                if (qc__thread_start(&tid[i - 1], work, &w[i]) != 0)
                    break;
                started++;
            }
        }
    }
    work(&w[0]);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    if (s.threaded) {
        qc__gsl_restore(gh);
        pthread_cond_destroy(&s.turn);
        pthread_mutex_destroy(&s.mu);
    }
    free(tid);
    free(w);
    free(free_ws);
    free(park);
    if (s.stop) {
        if (failed)
            *failed = s.failed;
        if (err)
            *err = s.err;
        if (s.rc == QC_ECANCELED) { /* what a user wants to know: how far it got */
            /* merged in order: those before the next to merge and before
             * the one that stopped */
            unsigned merged = s.next_merge < s.failed ? s.next_merge : s.failed;
            qc_err_set(err, QC_ECANCELED, "cancelled after %u of %u replication%s", merged, to,
                       to == 1 ? "" : "s");
        }
        return s.rc;
    }
    return 0;
}

/* ---- the run harness of the chunked models ------------------------------ */

int qc__workers_init(qc__workers *w, unsigned n, const qc__workers_model *m, const void *params,
                     const void *ctx)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    if (n < 1)
        n = 1;
    w->jobs = n;
    w->cap = n > 1 ? 2 * n : 1;
    w->init_params = params;
    w->init_ctx = ctx;
    w->ws = calloc(w->cap, sizeof *w->ws);
    w->params = calloc(w->cap, m->params_size);
    if (w->ws == NULL || w->params == NULL) {
        qc__workers_free(w);
        return QC_ENOMEM;
    }
    /* the caller's first workspace now; the others by the workers that
     * need them, at the same time (workers_more) */
    void *x = malloc(m->ws_size);
    if (x == NULL || m->init(x, params, ctx) != 0) {
        free(x);
        qc__workers_free(w);
        return QC_ENOMEM;
    }
    w->ws[0] = x;
    w->n = 1;
    return 0;
}

static void bind_one(qc__workers *w, unsigned i)
{
    const qc__workers_model *m = w->m;
    const qc_progress_fn hook = w->progress ? qc__reps_progress_cb : NULL;
    void *own = w->params + (size_t)i * m->params_size;
    memcpy(own, w->bound, m->params_size);
    memcpy((unsigned char *)own + m->progress_at, &hook, sizeof hook);
    memcpy((unsigned char *)w->ws[i] + m->params_at, &own, sizeof own);
}

void qc__workers_bind(qc__workers *w, const void *params, int progress)
{
    w->bound = params;
    w->progress = progress;
    for (unsigned i = 0; i < w->cap; i++)
        if (w->ws[i] != NULL)
            bind_one(w, i);
}

/* qc__reps's more: sets up workspace i (a spare) for the run. */
static int workers_more(qc__workers *w, unsigned i)
{
    if (w->ws[i] != NULL)
        return 0; /* set up in an earlier round (--precision), and bound */
    void *x = malloc(w->m->ws_size);
    if (x == NULL || w->m->init(x, w->init_params, w->init_ctx) != 0) {
        free(x);
        return QC_ENOMEM;
    }
    w->ws[i] = x;
    bind_one(w, i);
    return 0;
}

void qc__workers_free(qc__workers *w)
{
    for (unsigned i = 0; w->ws != NULL && i < w->cap; i++) {
        if (w->ws[i] == NULL)
            continue;
        w->m->fini(w->ws[i]);
        free(w->ws[i]);
    }
    free(w->ws);
    free(w->params);
    w->ws = NULL;
    w->params = NULL;
    w->n = w->cap = 0;
}

/* The run of a replication on a worker, for qc__reps: the worker's own
 * parameters carry the worker as their progress context. */
typedef struct workers_run {
    const qc__workers *w;
    int (*merge)(void *ctx, void *ws, unsigned rep, qc_err *err);
    void *ctx;
} workers_run;

static int workers_run_rep(void *ctx, void *ws, unsigned rep, qc__reps_worker *worker, qc_err *err)
{
    const workers_run *x = ctx;
    const qc__workers_model *m = x->w->m;
    unsigned char *own;
    memcpy(&own, (unsigned char *)ws + m->params_at, sizeof own);
    memcpy(own + m->progress_ctx_at, &worker, sizeof worker);
    int rc = m->run(x->ctx, ws, rep, err);
    if (rc == 0)
        return 0;
    return err->code != 0 ? err->code : qc__reps_failed(err, rep, rc);
}

static int workers_merge_rep(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    const workers_run *x = ctx;
    return x->merge(x->ctx, ws, rep, err);
}

static int workers_more_cb(void *ctx, unsigned i)
{
    const workers_run *x = ctx;
    return workers_more((qc__workers *)x->w, i);
}

int qc__workers_run(qc__workers *w, const void *params, qc_progress_fn progress,
                    void *progress_ctx, const qc_cancel *cancel, double done, double total,
                    int (*merge)(void *ctx, void *ws, unsigned rep, qc_err *err), void *ctx,
                    unsigned from, unsigned to, qc_err *err)
{
    qc__workers_bind(w, params, progress != NULL);
    workers_run x = {w, merge, ctx};
    /* ws[0] is set up; the others are set up by the workers when they
     * need one (a worker's first, or a spare when a replication is
     * parked), those of earlier rounds (--precision) kept */
    qc__reps h = {w->jobs, w->ws, workers_run_rep, workers_merge_rep, &x, progress, progress_ctx,
                  done,    total, cancel,          w->cap,            1,  workers_more_cb};
    return qc__reps_run(&h, from, to, NULL, err);
}

unsigned qc__workers_count(unsigned jobs, unsigned most, unsigned cap)
{
    unsigned n = jobs ? jobs : 1;
    if (n > most)
        n = most;
    return n > cap ? cap : n;
}

void qc__reps_open_start(qc_sim *sim, uint64_t seed, unsigned rep, qc_rng *rarr,
                         qc_arrivals_gen *garr, const qc_arrivals *arr, qc_rng *rsvc,
                         qc_sampler *ssvc, const qc_dist *svc)
{
    qc_sim_reset(sim);
    qc_rng_init(rarr, seed, qc_rng_stream(rep, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(rsvc, seed, qc_rng_stream(rep, QC_STREAM_SERVICE, 0));
    qc_arrivals_gen_init(garr, arr, rarr);
    qc_sampler_init(ssvc, svc, rsvc);
}

int qc__reps_failed(qc_err *err, unsigned rep, int rc)
{
    return qc_err_set(err, rc, "replication %u: %s", rep + 1, qc_strerror(rc));
}

static qc_hist **chunk_hist(void *chunks, int k, const qc__summary_model *m)
{
    return (qc_hist **)((unsigned char *)chunks + (size_t)k * m->size + m->hist_at);
}

/* The chunks' histograms are one block (qc_hist_alloc_array), chunk 0's
 * pointer its start: the pages of a chunk's buckets that no response
 * time reaches are never touched. */
int qc__chunks_alloc(void *chunks, const qc__summary_model *m, double unit)
{
    qc_hist *h = qc_hist_alloc_array((size_t)m->nchunks, NULL);
    if (h == NULL)
        return QC_ENOMEM;
    for (int k = 0; k < m->nchunks; k++) {
        qc_hist_set_unit(h + k, unit);
        *chunk_hist(chunks, k, m) = h + k;
    }
    return 0;
}

void qc__chunks_free(void *chunks, const qc__summary_model *m)
{
    if (m->nchunks > 0)
        qc_hist_free_array(*chunk_hist(chunks, 0, m), (size_t)m->nchunks);
    for (int k = 0; k < m->nchunks; k++)
        *chunk_hist(chunks, k, m) = NULL;
}

void qc__chunks_reset(void *chunks, const qc__summary_model *m)
{
    for (int k = 0; k < m->nchunks; k++) {
        qc_hist *h = *chunk_hist(chunks, k, m);
        memset((unsigned char *)chunks + (size_t)k * m->size, 0, m->size);
        qc_hist_reset(h);
        *chunk_hist(chunks, k, m) = h;
    }
}

int qc__grow(void **buf, size_t *cap, size_t len, size_t size)
{
    if (len < *cap)
        return 0;
    size_t n = *cap ? 2 * *cap : 1024;
    void *b = realloc(*buf, n * size);
    if (b == NULL)
        return QC_ENOMEM;
    *buf = b;
    *cap = n;
    return 0;
}


/* ---- the output analysis of a chunked run ------------------------------ */

static const unsigned char *chunk_at(const qc__summary *s, int k)
{
    return s->chunks + (size_t)k * s->m->size;
}

static double chunk_double(const qc__summary *s, int k, size_t at)
{
    double x;
    memcpy(&x, chunk_at(s, k) + at, sizeof x);
    return x;
}

static uint64_t chunk_count(const qc__summary *s, int k, size_t at)
{
    uint64_t n;
    memcpy(&n, chunk_at(s, k) + at, sizeof n);
    return n;
}

static qc_hist *chunk_hist_of(const qc__summary *s, int k)
{
    qc_hist *h;
    memcpy(&h, chunk_at(s, k) + s->m->hist_at, sizeof h);
    return h;
}

/* The customers that arrived in chunks [0, a): the warm-up cut at a. */
static double cut_customers(const qc__summary *s, int a)
{
    double cut = 0;
    for (int k = 0; k < a; k++)
        cut += (double)chunk_count(s, k, s->m->arrivals_at);
    return cut;
}

static void summary_acc(qc__summary *s, int k)
{
    const qc__summary_model *m = s->m;
    for (size_t i = 0; i < m->ncounts; i++)
        s->n[i] += chunk_count(s, k, m->counts[i]);
    for (size_t i = 0; i < m->namounts; i++)
        s->x[i] += chunk_double(s, k, m->amounts[i]);
    s->time += chunk_double(s, k, m->t_end_at) - chunk_double(s, k, m->t_start_at);
    qc_hist_merge(s->tmp, chunk_hist_of(s, k));
}

static void summarize(void *ctx, int a, int b, double *out)
{
    qc__summary *s = ctx;
    const qc__summary_model *m = s->m;
    if (!(b == s->b && a == s->a - 1)) {
        memset(s->n, 0, sizeof s->n);
        memset(s->x, 0, sizeof s->x);
        s->time = 0;
        qc_hist_reset(s->tmp);
        for (int k = a; k < b; k++)
            summary_acc(s, k);
    } else {
        summary_acc(s, a);
    }
    s->a = a;
    s->b = b;
    double done = m->metrics(s->ws, s->n, s->x, s->time, out);
    /* p50, p95, p99: one walk over the histogram */
    static const double pct[3] = {0.50, 0.95, 0.99};
    qc_hist_quantiles_interp(s->tmp, pct, 3, &out[m->p50_at]);
    out[m->nmetrics + QC__X_DONE] = done;
    out[m->nmetrics + QC__X_CUT_N] = cut_customers(s, a);
    out[m->nmetrics + QC__X_CUT_T] = chunk_double(s, a, m->t_start_at) - s->origin;
}

static int units_init(qc__analysis *a)
{
    const qc__summary_model *m = a->sum.m;
    return qc__units_init(&a->units, a->one_run, a->mser, (size_t)m->nchunks,
                          m->nmetrics + QC__X_COUNT, m->nmetrics, a->tested);
}

int qc__analysis_init(qc__analysis *a, const qc__summary_model *m, int one_run, int mser,
                      int tested)
{
    memset(a, 0, sizeof *a);
    if (m->ncounts > QC__SUMS_MAX || m->namounts > QC__SUMS_MAX)
        return QC_EINVAL;
    a->one_run = one_run;
    a->mser = mser;
    a->tested = tested;
    qc__summary *s = &a->sum;
    s->m = m;
    s->a = s->b = -1;
    s->tmp = qc_hist_alloc(NULL);
    s->num = calloc((size_t)m->nchunks, sizeof *s->num);
    s->den = calloc((size_t)m->nchunks, sizeof *s->den);
    a->all = qc_hist_alloc(NULL);
    a->below = calloc(3 * (size_t)m->nchunks, sizeof *a->below);
    a->cnt = calloc((size_t)m->nchunks, sizeof *a->cnt);
    if (!s->tmp || !s->num || !s->den || !a->all || !a->below || !a->cnt || units_init(a) != 0) {
        qc__analysis_free(a);
        return QC_ENOMEM;
    }
    return 0;
}

void qc__analysis_free(qc__analysis *a)
{
    qc__units_free(&a->units);
    qc_hist_free(a->sum.tmp);
    free(a->sum.num);
    free(a->sum.den);
    qc_hist_free(a->all);
    free(a->below);
    free(a->cnt);
    memset(a, 0, sizeof *a);
}

int qc__analysis_restart(qc__analysis *a)
{
    qc__units_free(&a->units);
    qc_hist_reset(a->all);
    return units_init(a);
}

double qc__analysis_sum(const qc__analysis *a, int x)
{
    return qc__units_sum(&a->units, a->sum.m->nmetrics + (size_t)x);
}

qc_hist *qc__analysis_take_hist(qc__analysis *a)
{
    qc_hist *h = a->all;
    a->all = NULL;
    return h;
}

static const double pct_levels[3] = {0.50, 0.95, 0.99};

/* One run: each kept chunk's count of values at or below the pooled
 * quantiles, then the batches of those counts by Fishman's rule (as
 * units.c's, on each quantile's own fraction). */
static void percentile_batches(qc__analysis *a, int kc)
{
    const qc__summary *s = &a->sum;
    const int n = s->m->nchunks;
    double q[3];
    qc_hist_quantiles_interp(a->all, pct_levels, 3, q);
    for (int k = kc; k < n; k++) {
        const qc_hist *h = chunk_hist_of(s, k);
        a->cnt[k] = (double)h->total;
        for (int j = 0; j < 3; j++)
            a->below[j * n + k] = isfinite(q[j]) ? qc_hist_below_interp(h, q[j]) : NAN;
    }
    const int kept = n - kc;
    for (int j = 0; j < 3; j++) {
        a->pnb[j] = 0;
        for (int b = QC__UNITS_BMAX; b >= QC__UNITS_BMIN; b /= 2) {
            int m = kept / b;
            if (m < 1)
                continue;
            int first = n - m * b;
            double col[QC__UNITS_BMAX];
            size_t nv = 0;
            for (int i = 0; i < b; i++) {
                double y = 0, t = 0;
                for (int k = first + i * m; k < first + (i + 1) * m; k++) {
                    y += a->below[j * n + k];
                    t += a->cnt[k];
                }
                if (t > 0)
                    col[nv++] = y / t;
            }
            memcpy(a->pfrac[j], col, nv * sizeof *col);
            a->pnb[j] = nv;
            double vn = qc_von_neumann(col, nv);
            a->pindep[j] = !(vn > gsl_cdf_ugaussian_Qinv(0.10));
            if (a->pindep[j])
                break;
        }
    }
}

int qc__pct_tail_short(const qc_hist *all, double q)
{
    return (1 - q) * (double)all->total < QC__PCT_TAIL_MIN;
}

void qc__analysis_percentiles(const qc__analysis *a, qc_ci *c, double level)
{
    for (int j = 0; j < 3; j++) {
        const double x = qc_hist_quantile_interp(a->all, pct_levels[j]);
        if (!isfinite(x))
            continue;
        c[j].mean = x;
        c[j].lo = c[j].hi = c[j].half = NAN;
        c[j].n = a->pnb[j];
        qc_ci g;
        if (a->pnb[j] < 2 || qc_ci_t(a->pfrac[j], a->pnb[j], level, &g, NULL) != 0 ||
            !isfinite(g.half))
            continue;
        const double p = pct_levels[j], plo = p - g.half, phi = p + g.half;
        if (qc__pct_tail_short(a->all, p))
            continue; /* too few values beyond it: its bias is not in the interval */
        /* the tail too thin for its batches: its fraction known to no
         * better than QC__PCT_TAIL_REL of itself (and the runs where the
         * batches happen to agree are those that saw few long busy
         * periods, whose quantile is low: a loose bound lets them through) */
        if (!(plo > 0) || !(phi < 1))
            continue; /* the tail is too thin for its batches: no interval */
        c[j].lo = qc_hist_quantile_interp(a->all, plo);
        c[j].hi = qc_hist_quantile_interp(a->all, phi);
        if (c[j].lo > x)
            c[j].lo = x;
        if (c[j].hi < x)
            c[j].hi = x;
        c[j].half = (c[j].hi - c[j].lo) / 2;
        c[j].level = level;
    }
}

int qc__analysis_add(qc__analysis *a, const void *ws, const void *chunks, double origin,
                     qc_hist *sect, double *cut_n, double *cut_t)
{
    qc__summary *s = &a->sum;
    const qc__summary_model *m = s->m;
    qc__units *u = &a->units;
    s->ws = ws;
    s->chunks = chunks;
    s->origin = origin;
    s->a = s->b = -1;
    for (int k = 0; k < m->nchunks; k++) {
        s->num[k] = chunk_double(s, k, m->warm_num_at);
        s->den[k] = m->warm_den_at == QC__BY_TIME
                        ? chunk_double(s, k, m->t_end_at) - chunk_double(s, k, m->t_start_at)
                        : (double)chunk_count(s, k, m->warm_den_at);
    }
    if (qc__units_add(u, s->num, s->den, summarize, s) != 0)
        return QC_ENOMEM;
    /* the histogram of the plots: the kept part by the cut so far */
    int kc = u->one_run ? u->k0 : qc__units_cut_last(u);
    for (int k = kc; k < m->nchunks; k++) {
        qc_hist_merge(a->all, chunk_hist_of(s, k));
        if (sect)
            qc_hist_merge(sect, chunk_hist_of(s, k));
    }
    if (u->one_run)
        percentile_batches(a, kc);
    if (u->one_run) {
        *cut_n = cut_customers(s, kc);
        *cut_t = chunk_double(s, kc, m->t_start_at) - origin;
    }
    return 0;
}

int qc__check_time_scale(double mean_gap, double mean_service, double span, qc_err *err)
{
    if (!(mean_gap > 0) || !(mean_service > 0) || !isfinite(mean_service) ||
        !isfinite(mean_gap))
        return 0; /* infinite means and the like: refused or said elsewhere */
    double s = mean_gap < mean_service ? mean_gap : mean_service;
    if (!(span * DBL_EPSILON <= QC__TIME_REL * s))
        return qc_err_set(err, QC_EINVAL,
                          "time scale: the run spans about %.3g s, where simulated time is "
                          "resolved only to %.3g s, yet the %s are %.3g s on average (ratio "
                          "of the two time scales %.3g): waiting and response times would "
                          "lose their digits. Run fewer customers (or a shorter --time), or "
                          "bring the arrival and service rates closer together (the offered "
                          "load lambda E[S] is %.3g)",
                          span, span * DBL_EPSILON,
                          s == mean_service ? "service times" : "inter-arrival times", s,
                          mean_gap > mean_service ? mean_gap / mean_service
                                                  : mean_service / mean_gap,
                          mean_service / mean_gap);
    const double lo = 1e-280, hi = 1e280;
    if (mean_gap < lo || mean_gap > hi || mean_service < lo || mean_service > hi)
        return qc_err_set(err, QC_EINVAL,
                          "time scale: a mean inter-arrival time of %g s and a mean service "
                          "time of %g s cannot be simulated in double precision (times "
                          "outside [1e-280, 1e280] s under- or overflow); express the rates "
                          "in another time unit",
                          mean_gap, mean_service);
    return 0;
}

int qc__check_run(uint64_t customers, double horizon, unsigned reps, double level, int nchunks,
                  qc_err *err)
{
    if ((customers > 0) == (horizon > 0))
        return qc_err_set(err, QC_EINVAL,
                          "run length: give either a number of customers or a time, not %s",
                          customers > 0 ? "both" : "neither");
    if (customers > 0 &&
        (customers < 2 * (uint64_t)nchunks || customers > 1000000000000000ULL))
        return qc_err_set(err, QC_EINVAL, "customers: %llu is not in [%d, 1e15]",
                          (unsigned long long)customers, 2 * nchunks);
    if (customers == 0 && !(horizon > 0 && isfinite(horizon)))
        return qc_err_set(err, QC_EINVAL, "time: %g is not a positive finite time", horizon);
    if (reps < 1 || reps > 1000000)
        return qc_err_set(err, QC_EINVAL, "reps: %u is not in [1, 1000000]", reps);
    if (!(level > 0 && level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence level %g is not in (0, 1)", level);
    return 0;
}

void qc__percentiles(qc_ci *c, const qc_hist *all, qc_hist *const *sect, int nsect, double level)
{
    static const double qs[3] = {0.50, 0.95, 0.99};
    for (int i = 0; i < 3; i++) {
        double x = qc_hist_quantile_interp(all, qs[i]);
        if (!isfinite(x))
            continue;
        c[i].mean = x;
        if (sect) {
            double v[64];
            qc_ci g;
            int n = nsect < 64 ? nsect : 64;
            for (int j = 0; j < n; j++)
                v[j] = qc_hist_quantile_interp(sect[j], qs[i]);
            if (qc_ci_t(v, (size_t)n, level, &g, NULL) == 0) {
                c[i].half = g.half;
                c[i].n = g.n;
            }
        }
        if (qc__pct_tail_short(all, qs[i])) {
            /* too few values beyond it: its bias is not in the interval */
            c[i].lo = c[i].hi = c[i].half = NAN;
            continue;
        }
        if (isfinite(c[i].half)) {
            c[i].lo = x - c[i].half;
            c[i].hi = x + c[i].half;
        }
    }
}
