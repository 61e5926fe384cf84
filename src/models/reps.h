/* SPDX-License-Identifier: GPL-3.0-or-later */
/* reps.h: independent replications on several threads, merged in
 * replication order; internal to src/models/.
 *
 * A model's replication r draws only from its own streams (rep r of the
 * seed) and writes only its own workspace, so replications can run at
 * the same time. What a model does with a finished replication (add it
 * to the output analysis, merge histograms, keep replication 1's series)
 * is order-dependent, so it is done by `merge`, one replication at a
 * time, strictly in the order 0, 1, 2, ...: the result is then the same
 * bytes whatever the number of threads or the timing of the threads.
 *
 * Workers: `jobs` of them, the calling thread being one, and `nws`
 * workspaces (at least jobs). A worker takes the next replication not yet
 * taken and a workspace holding none, runs it (`run`, outside any lock,
 * concurrently with the others); if its turn has come it merges it
 * (`merge`, under the harness's lock) and then every finished replication
 * whose turn follows. If not, the replication waits in its workspace
 * (parked) for whoever merges the one before it, and the worker goes on
 * with the next replication while a workspace is free: with nws > jobs a
 * worker does not stand idle because a replication before its own took a
 * little longer. At most nws replications are in flight or parked.
 *
 * Errors: the first replication in replication order whose run or merge
 * fails stops the harness; later replications are not merged (those
 * already running finish first). The harness returns that replication's
 * code and index, and copies its worker's message, as a one-thread run
 * would have failed.
 *
 * Cancel: once h->cancel is requested, no replication starts; the run
 * returns QC_ECANCELED (a replication the model stopped inside returns
 * it too), its message saying how many replications were merged before
 * it stopped ("cancelled after 3 of 10 replications").
 *
 * Progress: `run` reports the fraction of its replication done through
 * qc__reps_progress; the harness adds the replications finished and
 * calls the caller's progress function (under its lock, so that function
 * needs no locking of its own) with the fraction of the whole.
 *
 * GSL's error handler is process-wide: the library turns it off around
 * its GSL calls (core/gsl_quiet.h). With more than one worker the harness
 * turns it off once before the workers start and puts it back after they
 * stop, so that no worker can save and later restore another worker's
 * "off" over the host's handler. */
#ifndef QCTL_MODELS_REPS_H
#define QCTL_MODELS_REPS_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/arrivals.h"
#include "qctl/hist.h"
#include "qctl/queue.h" /* qc_progress_fn */
#include "qctl/sim.h"
#include "units.h"

typedef struct qc__reps_worker qc__reps_worker;

typedef struct qc__reps {
    unsigned jobs;  /* workers (0 or 1: the calling thread alone) */
    void **ws;      /* ws[0..max(jobs, nws)): the workspaces */
    /* Runs replication rep in ws, touching nothing shared. err: the
     * worker's own message buffer. */
    int (*run)(void *ctx, void *ws, unsigned rep, qc__reps_worker *w, qc_err *err);
    /* Folds replication rep (in ws) into the shared result; called in
     * replication order, one at a time. May be NULL. */
    int (*merge)(void *ctx, void *ws, unsigned rep, qc_err *err);
    void *ctx;
    qc_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    double done, total; /* progress: the whole is (done + replications
                           finished here + fractions) / total */
    const qc_cancel *cancel; /* may be NULL; checked before each replication
                                starts (the model checks it inside one) */
    unsigned nws; /* workspaces in ws; 0 (or fewer than jobs): jobs */
    /* With more: ws[0..nready) are set up at the start (0: all nws), and
     * ws[i] for i >= nready is set up by more(ctx, i), unlocked, by a
     * worker that finds no workspace free (its first, or a spare when its
     * replication is parked): 0, or nonzero when it cannot be had (the run
     * goes on with those it has). */
    unsigned nready;
    int (*more)(void *ctx, unsigned i);
} qc__reps;

/* Runs replications [from, to). Returns 0, or the first failing
 * replication's code with *failed set to its index and err holding its
 * message. Falls back to fewer threads when threads cannot be started
 * (the result does not depend on the count). */
int qc__reps_run(const qc__reps *h, unsigned from, unsigned to, unsigned *failed, qc_err *err);

/* The start of replication rep of an open model (sim queue, sim pool):
 * the kernel emptied, the arrival and service streams of rep drawn from
 * seed, and their samplers over arr and svc. */
void qc__reps_open_start(qc_sim *sim, uint64_t seed, unsigned rep, qc_rng *rarr,
                         qc_arrivals_gen *garr, const qc_arrivals *arr, qc_rng *rsvc,
                         qc_sampler *ssvc, const qc_dist *svc);

/* From inside `run`: the fraction of this replication done, in [0, 1]. */
void qc__reps_progress(qc__reps_worker *w, double fraction);

/* A qc_progress_fn to hand a model's own progress hook: ctx is the
 * worker. */
void qc__reps_progress_cb(void *ctx, double fraction);

/* ---- the run harness of the chunked models (sim queue, sim pool) ------ */

/* A run of sim queue or sim pool is: workers (below), each replication
 * run by the model in a worker's workspace, cut into chunks whose sums
 * the model names (qc__summary_model), and merged in replication order
 * into the output analysis (qc__analysis: units.h's warm-up cut and
 * intervals, the summaries of chunk ranges, the pooled histogram of the
 * percentiles). The model keeps only its own events and its own metrics.
 *
 * The workers of a run: ws[0..n) their workspaces (ws[0] the one the
 * caller may read before the run, e.g. for what run_alloc derived),
 * params[0..n) their own copies of the run's parameters, one per worker
 * so that each can carry its worker's progress hook. A model describes
 * its workspace to the harness by a qc__workers_model. */
typedef struct qc__workers_model {
    size_t ws_size;     /* sizeof the model's workspace */
    size_t params_size; /* sizeof the model's parameters */
    size_t params_at;   /* offset in the workspace of its parameters'
                           pointer (const params *) */
    size_t progress_at; /* offset in the parameters of their
                           qc_progress_fn, which a worker's copy sets to
                           qc__reps_progress_cb when the caller's is set */
    size_t progress_ctx_at; /* offset in the parameters of the progress
                               hook's context (a worker's copy: the
                               worker) */
    /* Sets up a workspace for the parameters: 0, or QC_ENOMEM with
     * nothing held; ctx: the model's, from qc__workers_init. */
    int (*init)(void *ws, const void *params, const void *ctx);
    void (*fini)(void *ws); /* frees what init set up */
    /* Runs replication rep in the workspace, touching nothing shared
     * but its own rows of ctx's (qc__workers_run's): 0, or a QC_E* code
     * with err set or (then "replication N: what") not. */
    int (*run)(void *ctx, void *ws, unsigned rep, qc_err *err);
} qc__workers_model;

typedef struct qc__workers {
    unsigned jobs; /* workers */
    unsigned n;    /* workspaces set up before the run: ws[0] */
    unsigned cap;  /* room in ws: two a worker when there are several */
    void **ws;     /* ws[i] NULL: not set up (yet) */
    unsigned char *params; /* cap x params_size */
    const qc__workers_model *m;
    const void *init_params, *init_ctx; /* qc__workers_init's */
    const void *bound;                  /* qc__workers_bind's */
    int progress;
} qc__workers;

/* n workers (at least 1). ws[0], which the model sets up for params now,
 * is the caller's to use first; QC_ENOMEM when it cannot be had. The
 * others are set up during the first run by the workers themselves, at
 * the same time: a worker's own, and, with n > 1, up to one more a worker
 * when a replication finishes before its turn and no workspace is free
 * (it is parked: qc__reps). Fewer when memory runs short: the result does
 * not depend on their count. */
int qc__workers_init(qc__workers *w, unsigned n, const qc__workers_model *m, const void *params,
                     const void *ctx);
/* Gives every worker its own copy of params (a run that changes its
 * parameters between rounds binds again). progress: the caller's hook is
 * set. */
void qc__workers_bind(qc__workers *w, const void *params, int progress);
/* Frees the workers; safe on a zeroed value. */
void qc__workers_free(qc__workers *w);

/* Runs replications [from, to) on the workers (qc__reps_run): each
 * worker gets its own copy of params (qc__workers_bind) and runs
 * replication rep by m->run, its progress reported to the harness; merge
 * folds the replications into the result in replication order. The
 * progress hook and the cancel flag are params's (progress, progress_ctx,
 * cancel); done and total: the progress so far and the whole, in
 * replications. Returns as qc__reps_run, a failed replication's message
 * being "replication N: what". */
int qc__workers_run(qc__workers *w, const void *params, qc_progress_fn progress,
                    void *progress_ctx, const qc_cancel *cancel, double done, double total,
                    int (*merge)(void *ctx, void *ws, unsigned rep, qc_err *err), void *ctx,
                    unsigned from, unsigned to, qc_err *err);

/* Workers for a run: jobs asked (0: one), no more than the replications
 * that can run (most) nor than cap. */
unsigned qc__workers_count(unsigned jobs, unsigned most, unsigned cap);

/* The error of replication rep: "replication N: what" with code rc. */
int qc__reps_failed(qc_err *err, unsigned rep, int rc);

/* ---- the output analysis of a chunked run ------------------------------ */

/* What the output analysis (units.h) needs of a chunked model: where a
 * chunk keeps its histogram of response times, its arrivals and its ends,
 * which of its fields a range of chunks sums, and how the model turns
 * those sums into its metrics. The harness keeps the range, the time it
 * covers, its histogram and the sums of the warm-up cut; the model keeps
 * only its own physics (which sums, which metrics). */
#define QC__SUMS_MAX 8
typedef struct qc__summary_model {
    int nchunks;
    size_t size;                 /* sizeof a chunk */
    size_t hist_at;              /* offsets in a chunk: its qc_hist *, */
    size_t arrivals_at;          /* its uint64_t arrivals (the cut's customers), */
    size_t t_start_at, t_end_at; /* its ends (double) */
    /* The warm-up series: a chunk's value is the double at warm_num_at
     * over the count (uint64_t) at warm_den_at, or over the chunk's
     * length when warm_den_at is QC__BY_TIME. */
    size_t warm_num_at, warm_den_at;
    /* The sums of a range: the fields of a chunk at counts[0..ncounts)
     * (uint64_t) and at amounts[0..namounts) (double), each summed over
     * the range's chunks in their order; at most QC__SUMS_MAX of each. */
    const size_t *counts;
    size_t ncounts;
    const size_t *amounts;
    size_t namounts;
    size_t nmetrics; /* out[0..nmetrics): the metrics; then QC__X_* */
    size_t p50_at;   /* metric of the p50 (p95, p99 follow it) */
    /* The metrics of a range from its sums n[] and x[] (in the order of
     * counts and amounts) over `time` seconds, all but the percentiles
     * (the harness's); ws: the replication's workspace. Returns the
     * customers measured in the range. */
    double (*metrics)(const void *ws, const uint64_t *n, const double *x, double time,
                      double *out);
} qc__summary_model;

#define QC__BY_TIME SIZE_MAX

/* The first fields of a qc__summary_model for n chunks of type `type`,
 * whose fields hist, arrivals, t_start and t_end are as above. */
#define QC__CHUNKS(type, n)                                                                   \
    n, sizeof(type), offsetof(type, hist), offsetof(type, arrivals), offsetof(type, t_start),  \
        offsetof(type, t_end)

/* A replication's chunks (m->nchunks of them): allocate their histograms
 * (QC_ENOMEM), free them (safe on NULLs), and reset every chunk to zeros
 * with an empty histogram, keeping the memory. */
/* unit: the time scale of what the chunks' histograms hold (the mean
 * service time), so that their range follows it (qc_hist_set_unit). */
int qc__chunks_alloc(void *chunks, const qc__summary_model *m, double unit);
void qc__chunks_free(void *chunks, const qc__summary_model *m);
void qc__chunks_reset(void *chunks, const qc__summary_model *m);

/* Beside the metrics, each summary carries sums the run reports: at
 * out[nmetrics + QC__X_*], the customers measured, and the customers
 * and the time cut as warm-up (before the range). */
enum { QC__X_DONE, QC__X_CUT_N, QC__X_CUT_T, QC__X_COUNT };

/* The summary of chunks [a, b) of one replication (a qc__summarize_fn).
 * Called for a = C/2 down to 0 with the same b, it adds chunk a to the
 * running suffix instead of starting over (one histogram merge per
 * chunk, not per chunk and cut). */
typedef struct qc__summary {
    const qc__summary_model *m;
    const void *ws;              /* the replication summarized */
    const unsigned char *chunks; /* its chunks */
    double origin;               /* the cut's time is counted from it */
    qc_hist *tmp;                /* the range's response times */
    uint64_t n[QC__SUMS_MAX];    /* the range's sums */
    double x[QC__SUMS_MAX];
    double time;                 /* the range's length */
    int a, b;                    /* the range held; -1: none */
    double *num, *den;           /* the warm-up series */
} qc__summary;

/* A chunked run's output analysis: the units, the summary of a
 * replication's chunks, and the histogram of every replication's kept
 * response times (for the percentiles and the plots). */
typedef struct qc__analysis {
    qc__units units;
    qc__summary sum;
    qc_hist *all;
    int one_run, mser, tested; /* as qc__units_init */
    /* one run: the percentiles' batches (qc__analysis_percentiles) */
    double pfrac[3][QC__UNITS_BMAX]; /* fraction of a batch <= the pooled quantile */
    size_t pnb[3];                   /* batches of each */
    int pindep[3];                   /* von Neumann's test passed */
    double *below, *cnt;             /* per chunk (scratch) */
} qc__analysis;

/* One run's percentiles (after qc__analysis_add): c[0..3), the p50, p95
 * and p99, each the quantile of the pooled kept response times, with an
 * interval that inverts one for the fraction of values below it (Hsu
 * and Nelson's batch-means interval for a quantile, by way of the
 * indicator's batch means; Chen and Kelton 2006). Each batch's fraction
 * of values at or below the pooled quantile q is an average of
 * indicators, unbiased for F(q) whatever its length, which a batch's own
 * quantile is not (a short stretch of correlated response times puts
 * its p99 low, and the spread of those quantiles understates the error:
 * p99 of one run of 10^5 at M/M/1 0.9 covered 44 of 100). The batch count
 * is Fishman's rule on that fraction's batch means; the t-interval
 * [p - h, p + h] for F(q) maps through the pooled quantile function to
 * [Q(p - h), Q(p + h)]. Where p + h >= 1 or p - h <= 0 (too few values
 * in the tail for its batches to measure), no interval is given. */
/* Nor where fewer than QC__PCT_TAIL_MIN kept values lie beyond the
 * quantile: the pooled quantile of a correlated run is biased low by
 * more than its interval sees (p99 of one run of 10^5 at M/M/1 0.9, 900
 * values beyond it: -5% bias, 33 of 41 printed intervals covered; with
 * 2700 beyond, 84 of 90; bench_coverage, docs/benchmarks.md). Choosing
 * on the interval's own width (printing only the narrow ones) was worse:
 * the runs whose batches agree are those that saw few long busy periods,
 * whose quantile is low. */
#define QC__PCT_TAIL_MIN 2000
/* Whether fewer than QC__PCT_TAIL_MIN of the values in all lie beyond
 * the q-quantile (0 < q < 1): the one test of that rule, for one run's
 * percentiles and for replications' alike. */
int qc__pct_tail_short(const qc_hist *all, double q);
void qc__analysis_percentiles(const qc__analysis *a, qc_ci *c, double level);

/* QC_ENOMEM (or QC_EINVAL: more sums than QC__SUMS_MAX) or 0;
 * qc__analysis_free is safe on a zeroed or failed one. */
int qc__analysis_init(qc__analysis *a, const qc__summary_model *m, int one_run, int mser,
                      int tested);
void qc__analysis_free(qc__analysis *a);
/* Empty again, for a run started over: QC_ENOMEM or 0. */
int qc__analysis_restart(qc__analysis *a);
/* After qc__units_finish: the run's sum x (QC__X_*), qc__units_sum. */
double qc__analysis_sum(const qc__analysis *a, int x);
/* The histogram of all kept response times, now the caller's. */
qc_hist *qc__analysis_take_hist(qc__analysis *a);

/* Adds a finished replication (workspace ws, its chunks, the cut's time
 * counted from origin): its warm-up series and summaries to the units;
 * then its response times from the cut on (qc__units_cut_last, or the
 * one run's cut) to all and, unless NULL, to sect. One run: *cut_n and
 * *cut_t become the customers and the time cut as warm-up (else
 * untouched). QC_ENOMEM or 0. */
int qc__analysis_add(qc__analysis *a, const void *ws, const void *chunks, double origin,
                     qc_hist *sect, double *cut_n, double *cut_t);

/* The checks of a chunked run's length the models share: customers or a
 * horizon (one of them), at least 2 per chunk, reps and the confidence
 * level. QC_EINVAL naming the field, or 0. */
int qc__check_run(uint64_t customers, double horizon, unsigned reps, double level, int nchunks,
                  qc_err *err);

/* Simulated time is a double counted from the run's start, so an instant
 * late in a run of span seconds is known to about span * DBL_EPSILON;
 * the difference of two nearby instants (a waiting time, a service) is
 * known no better. A run whose span is so long against its shortest
 * time scale (the smaller of the mean inter-arrival and mean service
 * times) that this error passes QC__TIME_REL of that scale would print
 * waiting times of 0 or below, and is refused up front, with the reason
 * and what to change: QC_EINVAL naming the scales, or 0. span: the
 * run's expected length (customers times the mean gap, or the
 * horizon, plus a fixed warm-up); what: "service" or the like. Also
 * refused: scales outside [1e-280, 1e280], where the samplers' own
 * arithmetic under- or overflows. */
#define QC__TIME_REL 1e-5
int qc__check_time_scale(double mean_gap, double mean_service, double span, qc_err *err);

/* Percentiles by sectioning (Asmussen and Glynn 2007, III.5a; Nakayama
 * 2014): c[0..3), the p50, p95 and p99, centred on the quantiles of all
 * the kept response times pooled, with the half-width the units gave
 * them or, given sect[0..nsect) (nsect <= 64), that of the sections' own
 * quantiles. A percentile that all has none of is left as it is.
 * Where fewer than QC__PCT_TAIL_MIN values of all lie beyond a
 * percentile (qc__pct_tail_short), its interval is withheld (lo, hi and
 * half NAN), as for one run: the sections' or replications' own
 * quantiles rest on a fraction of those each and are biased low by more
 * than their spread shows (H2/M/1 at 0.73, arrivals of SCV 7.8, 10 x
 * 20000 customers, about 1900 beyond the p99: 84 of 95 unflagged runs
 * covered it). sim queue, sim pool and sim network share this rule. */
void qc__percentiles(qc_ci *c, const qc_hist *all, qc_hist *const *sect, int nsect, double level);

/* Room for element len of a growing array (*buf of *cap elements of
 * `size` bytes): twice the room (1024 at first) when it is full. 0, or
 * QC_ENOMEM with the array unchanged. */
int qc__grow(void **buf, size_t *cap, size_t len, size_t size);

#endif
