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
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/gsl_quiet.h"
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
            while (!s->stop && s->nfree == 0 && s->next_merge <= rep)
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
    for (unsigned i = 0; i < nws; i++) {
        free_ws[i] = nws - 1 - i; /* workspace 0 on top: the one a one-thread run uses */
        park[i].ws = UINT_MAX;
    }
    s.nfree = nws;
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
                if (pthread_create(&tid[i - 1], NULL, work, &w[i]) != 0)
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

int qc__workers_init(qc__workers *w, unsigned n, void *first, const qc__workers_model *m,
                     const void *params, const void *ctx)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    if (n < 1)
        n = 1;
    w->ws = calloc(n, sizeof *w->ws);
    w->params = calloc(n, m->params_size);
    if (w->ws == NULL || w->params == NULL) {
        qc__workers_free(w);
        return QC_ENOMEM;
    }
    w->ws[0] = first;
    for (w->n = 1; w->n < n; w->n++) {
        void *x = malloc(m->ws_size);
        if (x == NULL || m->init(x, params, ctx) != 0) {
            free(x);
            break; /* fewer workers: the same result */
        }
        w->ws[w->n] = x;
    }
    return 0;
}

void qc__workers_bind(qc__workers *w, const void *params, int progress)
{
    const qc__workers_model *m = w->m;
    const qc_progress_fn hook = progress ? qc__reps_progress_cb : NULL;
    for (unsigned i = 0; i < w->n; i++) {
        void *own = w->params + (size_t)i * m->params_size;
        memcpy(own, params, m->params_size);
        memcpy((unsigned char *)own + m->progress_at, &hook, sizeof hook);
        memcpy((unsigned char *)w->ws[i] + m->params_at, &own, sizeof own);
    }
}

void qc__workers_free(qc__workers *w)
{
    for (unsigned i = 1; i < w->n; i++) {
        w->m->fini(w->ws[i]);
        free(w->ws[i]);
    }
    free(w->ws);
    free(w->params);
    w->ws = NULL;
    w->params = NULL;
    w->n = 0;
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

static qc_hist **chunk_hist(void *chunks, int k, size_t size, size_t hist_off)
{
    return (qc_hist **)((unsigned char *)chunks + (size_t)k * size + hist_off);
}

/* The chunks' histograms are one block (qc_hist_alloc_array), chunk 0's
 * pointer its start: the pages of a chunk's buckets that no response
 * time reaches are never touched. */
int qc__chunks_alloc(void *chunks, int n, size_t size, size_t hist_off)
{
    qc_hist *h = qc_hist_alloc_array((size_t)n, NULL);
    if (h == NULL)
        return QC_ENOMEM;
    for (int k = 0; k < n; k++)
        *chunk_hist(chunks, k, size, hist_off) = h + k;
    return 0;
}

void qc__chunks_free(void *chunks, int n, size_t size, size_t hist_off)
{
    if (n > 0)
        qc_hist_free(*chunk_hist(chunks, 0, size, hist_off));
    for (int k = 0; k < n; k++)
        *chunk_hist(chunks, k, size, hist_off) = NULL;
}

void qc__chunks_reset(void *chunks, int n, size_t size, size_t hist_off)
{
    for (int k = 0; k < n; k++) {
        qc_hist *h = *chunk_hist(chunks, k, size, hist_off);
        memset((unsigned char *)chunks + (size_t)k * size, 0, size);
        qc_hist_reset(h);
        *chunk_hist(chunks, k, size, hist_off) = h;
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

