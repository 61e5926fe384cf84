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

#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/arrivals.h"
#include "qctl/queue.h" /* qc_progress_fn */
#include "qctl/sim.h"

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

/* The workers of a run: ws[0..n) their workspaces (ws[0] the caller's),
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
    /* Sets up a workspace for the parameters: 0, or QC_ENOMEM with
     * nothing held; ctx: the model's, from qc__workers_init. */
    int (*init)(void *ws, const void *params, const void *ctx);
    void (*fini)(void *ws); /* frees what init set up */
} qc__workers_model;

typedef struct qc__workers {
    unsigned n;
    void **ws;
    unsigned char *params; /* n x params_size */
    const qc__workers_model *m;
} qc__workers;

/* Up to n workers (at least 1): ws[0] = first, the others allocated by
 * the model; fewer when memory runs short (the result does not depend on
 * their count). QC_ENOMEM when even the arrays cannot be had. */
int qc__workers_init(qc__workers *w, unsigned n, void *first, const qc__workers_model *m,
                     const void *params, const void *ctx);
/* Gives every worker its own copy of params (a run that changes its
 * parameters between rounds binds again). progress: the caller's hook is
 * set. */
void qc__workers_bind(qc__workers *w, const void *params, int progress);
/* Frees the workers but ws[0] (the caller's); safe on a zeroed value. */
void qc__workers_free(qc__workers *w);

/* The error of replication rep: "replication N: what" with code rc. */
int qc__reps_failed(qc_err *err, unsigned rep, int rc);

/* The chunks of a replication, each a struct of `size` bytes holding its
 * histogram at offset hist_off: allocate the histograms (QC_ENOMEM), free
 * them (safe on NULLs), and reset every chunk to zeros with an empty
 * histogram, keeping the memory. */
int qc__chunks_alloc(void *chunks, int n, size_t size, size_t hist_off);
void qc__chunks_free(void *chunks, int n, size_t size, size_t hist_off);
void qc__chunks_reset(void *chunks, int n, size_t size, size_t hist_off);

/* Room for element len of a growing array (*buf of *cap elements of
 * `size` bytes): twice the room (1024 at first) when it is full. 0, or
 * QC_ENOMEM with the array unchanged. */
int qc__grow(void **buf, size_t *cap, size_t len, size_t size);

#endif
