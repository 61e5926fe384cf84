/* SPDX-License-Identifier: GPL-3.0-or-later */
/* units.h: the output analysis qctl's chunked simulation models share
 * (sim queue, sim pool); internal to src/models/.
 *
 * A replication's measured window is cut into nchunks chunks, and the
 * model knows how to summarize a range of consecutive chunks into its
 * metrics. It also gives, per chunk, one value of a warm-up series as a
 * ratio num/den (e.g. the sum of the chunk's response times over its
 * customers), which is what the warm-up cut is chosen on.
 *
 * Warm-up (automatic): MSER on the series averaged across replications
 * (ratio of the sums over replications, chunk by chunk), at most half the
 * window (White 1997; Hoad, Robinson and Davies 2010 for the
 * cross-replication mean). Each replication is cut where MSER puts the cut
 * on the mean series of the *other* replications: its cut is then
 * independent of its own data, so it cannot select on its excursions (a
 * cut chosen per replication, or on a mean that includes the replication,
 * removes early highs more often than early lows and biases the mean low,
 * badly so for heavy-tailed service). To allow any cut, each replication
 * keeps its summary for every candidate cut k0 = 0..nchunks/2.
 *
 * Intervals:
 *   - two or more replications: the Student-t interval over the
 *     replications' summaries of chunks [k0, nchunks);
 *   - one replication: batch means with the batch count chosen by
 *     Fishman's rule (LBATCH, Fishman 1978; Fishman and Yarberry 1997):
 *     starting from QC__UNITS_BMAX batches, the count is halved (batch
 *     size doubled) until von Neumann's ratio test does not reject
 *     independence of the batch means of the tested metric at level 0.10;
 *     if 8 batches still fail, 8 are used and independence is reported as
 *     not reached. The (kept % batches) chunks left over are dropped
 *     from the front.
 * An interval that cannot be formed (one unit, or a metric undefined in
 * every unit) has half = NAN; the caller says so in words.
 *
 * Ownership: qc__units_init allocates, qc__units_free releases (safe on a
 * zeroed value and after a failed init). */
#ifndef QCTL_MODELS_UNITS_H
#define QCTL_MODELS_UNITS_H

#include <stddef.h>

#include "qctl/stats.h"

#define QC__UNITS_BMAX 32
#define QC__UNITS_BMIN 8

/* Writes the metrics of chunks [first, last) to out[0..nmetrics). Called
 * for k0 = nchunks/2 down to 0 with the same `last`: a model may keep a
 * running suffix rather than summarize from scratch. */
typedef void (*qc__summarize_fn)(void *ctx, int first, int last, double *out);

typedef struct qc__units {
    int one_run;        /* batch means over one replication */
    int mser;           /* choose the cut by MSER (else k0 = 0) */
    size_t nchunks, ncand, nmetrics, nci;
    int tested;         /* metric the batch independence test is on */
    unsigned reps, cap; /* replications added, room for */
    double *rows;       /* reps x ncand x nmetrics (replications) */
    int *k0s;           /* reps: each replication's cut (after finish) */
    double *num, *den;  /* reps x nchunks: the warm-up series */
    double *brows;      /* QC__UNITS_BMAX x nmetrics (one run) */
    double *col;        /* scratch */
    /* results of qc__units_finish */
    int k0;             /* chunks cut: one run, or on all replications */
    size_t nbatches;    /* one run: batch count chosen */
    int independent;    /* one run: von Neumann test passed */
    double vn_stat;     /* one run: its statistic C / sd */
} qc__units;

/* one_run: one replication (batch means); mser: automatic cut; nmetrics
 * values per summary of which the first nci get intervals (the others are
 * sums the model reads with qc__units_sum); tested: the metric the batch
 * independence test looks at. QC_ENOMEM or 0. */
int qc__units_init(qc__units *u, int one_run, int mser, size_t nchunks, size_t nmetrics,
                   size_t nci, int tested);

/* Adds the next replication; num/den: its warm-up series (nchunks each).
 * QC_ENOMEM or 0. In one-run mode this chooses the cut and the batches at
 * once (the model's chunks are still there). */
int qc__units_add(qc__units *u, const double *num, const double *den, qc__summarize_fn f,
                  void *ctx);

/* Sets metric m of replication rep in every candidate summary (a value a
 * model computes beside the chunks). */
void qc__units_set(qc__units *u, unsigned rep, size_t m, double v);

/* The cut for the replication just added, from the mean series of the
 * replications before it (its own series when it is the first): a cut
 * independent of its data, for a histogram pooled over replications. */
int qc__units_cut_last(qc__units *u);

/* Chooses the cut (replications) and forms every interval into
 * out[0..nci). */
void qc__units_finish(qc__units *u, double level, qc_ci *out);

/* After finish: metric m summed over the replications, each at its cut
 * (or over the batches of the one run). */
double qc__units_sum(const qc__units *u, size_t m);

/* A trend across the run (after add, at any time): the warm-up series
 * (num/den per chunk) over the last half of the window, which every
 * automatic cut leaves in and which a stationary run has long settled
 * into. With replications, each one's OLS slope over those chunks, and
 * the t statistic of the slopes' mean (R - 1 degrees of freedom: the
 * replications are independent, so nothing about the dependence inside a
 * run needs modelling). With one run, the OLS slope of
 * QC__UNITS_TREND_BATCHES batch means over the last half and its t
 * statistic (batches - 2 degrees of freedom). `rise` is the fitted change
 * across the half window relative to its mean level. A trend is reported
 * when the slope is positive, significant at QC__UNITS_TREND_LEVEL
 * (one-sided) and at least QC__UNITS_TREND_RISE of the level. One-sided:
 * the run starts empty, and from an empty start a queue's waiting time is
 * stochastically increasing (Loynes 1962), so a run still short of its
 * steady state shows a rise; a fall is chance. Many replications make even
 * the few-percent residue of a start from empty significant, which is
 * not what a run with no steady state looks like. Returns -1 (t untested)
 * when the series has a gap (a chunk with nothing in it). */
#define QC__UNITS_TREND_BATCHES 16
#define QC__UNITS_TREND_LEVEL 0.001
#define QC__UNITS_TREND_RISE 0.10
typedef struct qc__trend {
    double stat;  /* t statistic of the slope */
    unsigned df;  /* its degrees of freedom */
    double p;     /* one-sided p-value (a rise) */
    double rise;  /* fitted change over the half window / mean level */
    int detected;
} qc__trend;
int qc__units_trend(qc__units *u, qc__trend *t);

/* Whether the run supports its intervals, decided from its data (after
 * qc__units_finish). The tested metric's chunk series over the kept
 * chunks gives the integrated autocorrelation time tau (in chunks) by
 * Geyer's initial positive sequence (Geyer 1992) on the autocovariances
 * pooled over the replications (each about its own mean), and the
 * effective number of independent observations neff = kept / tau (per
 * replication; one run: of the run). An interval rests on units that are
 * averages of its observations: a t-interval is only as good as those
 * averages are independent and near normal, which needs each unit to
 * span several correlation times, and the warm-up cut to have found the
 * stationary part. So the run is not supported when
 *   - one run: neff < QC__UNITS_NEFF_ONE (the batches, at least 8 of
 *     them, cannot each span QC__UNITS_NEFF_ONE / 8 correlation times);
 *   - replications: each one's neff < QC__UNITS_NEFF_REP (its mean is
 *     still skewed and carries the start's bias);
 *   - the automatic cut is at its limit (half the window): the run may
 *     not have reached its steady state at all;
 *   - the tested series has no spread to measure (every chunk empty).
 * (Fewer batches when neff is small did not help: over 100 runs of
 * M/M/1 at 0.9 and 3e4 customers it lowered the coverage from 85 to 78,
 * the variance of 8 batch means being too often small with their mean.)
 * The thresholds are calibrated
 * by bench/bench_coverage (docs/benchmarks.md): runs they pass cover. */
#define QC__UNITS_NEFF_ONE 30.0
#define QC__UNITS_NEFF_REP 8.0
#define QC__UNITS_MAXLAG 256
typedef struct qc__support {
    int supported;
    double tau;       /* integrated autocorrelation time, in chunks */
    double neff;      /* effective independent observations (one run:
                         of the run; replications: of each one, mean) */
    double kept;      /* chunks kept per replication (mean) */
    int cut_at_limit; /* the automatic cut went to half the window */
} qc__support;
void qc__units_support(qc__units *u, qc__support *s);

/* The verdict of s in words: 1 with buf set to why the run does not
 * support its intervals (what: the series tested, e.g. "the response
 * times"; per_chunk: customers per chunk, to say the correlation time
 * in customers), or 0 when it does. */
int qc__units_short(const qc__units *u, const qc__support *s, const char *what,
                    double per_chunk, char *buf, size_t n);

void qc__units_free(qc__units *u);

#endif
