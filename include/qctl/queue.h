/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/queue.h: the open G/G/c/K queue, FCFS or processor sharing.
 *
 * Customers arrive by a renewal process (i.i.d. inter-arrival times from a
 * qc_dist) or any process of qctl/arrivals.h (time-varying Poisson, a
 * trace of arrival times), bring an i.i.d. service requirement, and find c servers and room
 * for K in system (K = 0: unlimited). An arrival that finds K in system is
 * blocked and lost. FCFS serves in arrival order on the first free server;
 * PS shares the c servers equally among the n present (each is served at
 * rate min(1, c/n)), simulated in virtual time so that one departure event
 * is pending at a time.
 *
 * Output analysis. A replication's measured window is cut into
 * QC_QUEUE_CHUNKS chunks (by arrival count, or by time for a timed run);
 * each chunk keeps mergeable statistics (counts, areas, Welford sums and a
 * response-time histogram). A customer's response time goes to the chunk of
 * its arrival; time areas and departures to the chunk in force.
 *
 * Warm-up: either a given number of customers (or a time) simulated before
 * the window opens, or MSER on the chunks' mean response times averaged
 * across the replications: one cut, in whole chunks (at most half of
 * them), for every replication. MSER needs a stationary output, so with a
 * time-varying rate or a trace it cuts nothing (a fixed warm-up still
 * applies). A trace ends the measured window when it runs out of arrivals.
 *
 * Confidence intervals: with R >= 2 replications, Student-t over the
 * replications' estimates; with one replication, batch means over groups
 * of consecutive kept chunks, as many batches (32, 16 or 8) as pass von
 * Neumann's test of independence (Fishman's LBATCH rule). The point
 * estimate is the mean over those units (replications or batches).
 * docs/output-analysis.md says why and what coverage this gives.
 *
 * Precision (precision > 0): after the run, while some mean's half-width
 * exceeds precision / (1 + precision) times its estimate, the replications
 * are doubled, or the one run is repeated with twice the customers, within
 * max_reps and max_customers (all rounds together).
 *
 * Threads (jobs > 1): replications run at the same time, each on its own
 * streams and workspace, and are folded into the result in replication
 * order, so the result is the same bytes for any number of threads.
 * Precision rounds are decided only on complete rounds. The progress
 * function is then called from the worker threads, one call at a time.
 *
 * Means that do not exist (an infinite mean service time, or FCFS with an
 * infinite second moment of service and no capacity) are INFINITY with
 * the reason in infinite_reason. A run whose offered load is >= 1 and
 * that never filled its buffer, or whose response times still rise over
 * the last half of the window (a slope significant at 0.001, one-sided,
 * and of 10% or more of the level), is flagged transient with the
 * evidence.
 *
 * Ownership: qc_queue_run fills a caller-owned result; the result holds a
 * histogram and a series that qc_queue_result_free releases. */
#ifndef QCTL_QUEUE_H
#define QCTL_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/hist.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_QUEUE_CHUNKS 128
#define QC_QUEUE_JOBS_MAX 256 /* most threads for replications */
/* Where the relaxation time tau is known (M/M/c): the intervals are
 * supported when the measured window holds at least QC_QUEUE_RELAX_ONE
 * tau in all, and, with replications, QC_QUEUE_RELAX_REP tau in each
 * (calibrated by bench/bench_coverage: docs/benchmarks.md). */
/* A blocking probability or mean wait is given an interval only when at
 * least this many blocked (waiting) customers were measured: from fewer,
 * a t-interval over replications or batches of mostly zeros covers far
 * less than its level (none seen: [0, 0]). */
#define QC_QUEUE_RARE_MIN 50
/* The utilization's interval: at least this many measured customers who
 * found a server free (each the end of an idle period; src/models/queue.c) */
#define QC_QUEUE_RARE_FREE_MIN 500
/* The least relative half-width of an interval: the rounding of
 * simulated instants (an interval of width 0 around a rounded value). */
#define QC_QUEUE_NUMERIC_REL 1e-9
#define QC_QUEUE_RELAX_ONE 200
#define QC_QUEUE_RELAX_REP 25
/* An overloaded queue with a capacity: each replication (or the one run)
 * measures at least this many relaxation times of its buffer's empty
 * places (src/models/queue.c, relaxation_overloaded). */
#define QC_QUEUE_RELAX_OVER 600

typedef enum qc_discipline { QC_FCFS = 0, QC_PS = 1 } qc_discipline;
const char *qc_discipline_name(qc_discipline v);
int qc_discipline_parse(const char *s, qc_discipline *v, qc_err *err);

/* qc_warmup_mode (the warm-up cut: MSER or fixed) is in qctl/stats.h,
 * shared with the pool. */

/* Progress callback: fraction of the whole run done, in [0, 1]. Called
 * every few hundred thousand events, never per event. */
typedef void (*qc_progress_fn)(void *ctx, double fraction);

typedef struct qc_queue_params {
    const qc_dist *arrival; /* inter-arrival time (renewal arrivals) */
    const qc_arrivals *arrivals; /* or any arrival process (qctl/arrivals.h):
                                    time-varying rates, traces; overrides
                                    `arrival` when not NULL */
    const qc_dist *service; /* service requirement (time at rate 1) */
    unsigned servers;       /* c >= 1 */
    uint64_t capacity;      /* K >= c, or 0 for unlimited */
    qc_discipline discipline;
    uint64_t customers;     /* measured arrivals per replication, or 0 */
    double horizon;         /* measured time per replication, or 0 */
    qc_warmup_mode warmup_mode;
    double warmup;          /* FIXED: customers (customers run) or time */
    unsigned reps;          /* >= 1 */
    uint64_t seed;
    double level;           /* confidence level, e.g. 0.95 */
    double series_dt;       /* > 0: record N(t) of replication 1 in bins */
    double precision;       /* > 0: relative half-width to reach (customers
                               runs only); 0: run as given */
    uint64_t max_customers; /* precision: most customers, all rounds (0: no
                               bound) */
    unsigned max_reps;      /* precision: most replications (0: 1000000) */
    qc_progress_fn progress;
    void *progress_ctx;
    unsigned jobs;          /* replications run at once, on that many
                               threads (0 or 1: one at a time; at most
                               QC_QUEUE_JOBS_MAX); the result is the same
                               for any value */
    const qc_cancel *cancel; /* may be NULL; when requested (qctl/cancel.h)
                                the run stops at its next check and returns
                                QC_ECANCELED */
} qc_queue_params;

/* Fills p with defaults: c = 1, unlimited, FCFS, MSER-5, 1 replication,
 * seed 1, level 0.95, no series. */
void qc_queue_params_init(qc_queue_params *p);

/* The checks qc_queue_run makes before it simulates, alone: 0, or
 * QC_EINVAL (a value out of its range, named by its field) or
 * QC_EUNSTABLE (no steady state: load >= 1 without a capacity) with the
 * message in err. `qctl sim queue --check` answers from it, so the check
 * and the run cannot disagree. */
int qc_queue_params_check(const qc_queue_params *p, qc_err *err);

typedef enum qc_queue_metric {
    QC_QM_RESPONSE = 0,  /* mean response (sojourn) time */
    QC_QM_WAIT,          /* mean waiting time: response minus service */
    QC_QM_NUMBER,        /* time-average number in system */
    QC_QM_UTILIZATION,   /* time-average busy servers / c */
    QC_QM_THROUGHPUT,    /* departures per unit time */
    QC_QM_BLOCKING,      /* fraction of arrivals blocked */
    QC_QM_P50,           /* response-time percentiles */
    QC_QM_P95,
    QC_QM_P99,
    QC_QM_COUNT
} qc_queue_metric;

/* Name of a metric as used in JSON ("response_time", ...). */
const char *qc_queue_metric_name(qc_queue_metric metric);
int qc_queue_metric_parse(const char *s, qc_queue_metric *v, qc_err *err);

typedef struct qc_series_point {
    double t;     /* end of the bin */
    double mean;  /* time-average number in system over the bin */
    uint32_t n;   /* number in system at the end of the bin */
} qc_series_point;

typedef struct qc_queue_result {
    qc_ci metric[QC_QM_COUNT];
    const char *ci_method;      /* "replications" or "batch-means" */
    double load;                /* offered load rho = E[S] / (c E[A]) */
    double warmup_customers;    /* mean per replication of customers cut */
    double warmup_time;         /* mean per replication of time cut */
    uint64_t measured;          /* customers measured, all replications */
    uint64_t events;            /* events simulated, all replications */
    double sim_time;            /* simulated time, all replications */
    qc_hist *response_hist;     /* response times, kept part, all reps */
    qc_series_point *series;    /* replication 1, when series_dt > 0 */
    size_t series_len;
    unsigned reps;              /* replications run (precision may add) */
    uint64_t customers;         /* customers per replication, as run */
    uint64_t total_customers;   /* customers simulated in all rounds */
    int precision_met;          /* precision > 0: every mean within it */
    int warmup_chunks;          /* MSER: chunks cut (of QC_QUEUE_CHUNKS) */
    size_t batches;             /* one run: batch count chosen */
    int batches_independent;    /* one run: von Neumann test passed */
    double von_neumann;         /* one run: its statistic (NAN: untested) */
    int transient;              /* the run shows no steady state */
    char transient_reason[768];
    /* The trend test (docs/output-analysis.md): the response time's OLS
     * slope over the last half of the window, per replication (t over the
     * replications) or over 16 batch means of one run. trend_tested 0:
     * not tested (arrivals that vary or a trace, a gap in the series). */
    int trend_tested;
    int trend_detected;         /* a rise: one-sided p < 0.001 and a
                                   change of +10% or more */
    double trend_t;             /* t statistic of the slope */
    unsigned trend_df;          /* its degrees of freedom */
    double trend_p;             /* one-sided p-value (of a rise) */
    double trend_change;        /* fitted change over the half window,
                                   relative to its mean level */
    char infinite_reason[256];  /* set when some mean is INFINITY */
    /* Whether the run is long enough for its intervals, decided from its
     * data (docs/output-analysis.md): the response times' integrated
     * autocorrelation time, the effective number of independent
     * observations it leaves (of the one run, or of each replication),
     * and the warm-up cut's share of the window. short_run: the
     * intervals are not supported (short_reason says why in words); the
     * CLI then prints none and exits 1 unless told otherwise. */
    int short_run;
    double effective_obs;       /* independent observations (NAN: unknown) */
    double corr_customers;      /* correlation time in customers (NAN) */
    double relaxation_time;     /* where known (M/M/c), else NAN */
    char short_reason[512];
    /* Rare events: the blocked and the waiting customers measured (all
     * replications); rare[m] = 1 when metric m's interval was withheld
     * because fewer than QC_QUEUE_RARE_MIN of them stand behind it
     * (blocking probability, waiting time). */
    uint64_t rare_blocked, rare_waited;
    int rare[QC_QM_COUNT];
    /* and the utilization's: the measured customers who found a server
     * free (did not wait), each the end of an idle period; rare[
     * QC_QM_UTILIZATION] when fewer than QC_QUEUE_RARE_MIN */
    uint64_t rare_free;
} qc_queue_result;

/* Runs the replications. Errors: QC_EINVAL for bad parameters (message
 * names the parameter), QC_EUNSTABLE for load >= 1 with unlimited
 * capacity (the queue would grow without bound: no steady state to
 * estimate), QC_ENOMEM. On error the result holds nothing to free. */
int qc_queue_run(const qc_queue_params *p, qc_queue_result *res, qc_err *err);

void qc_queue_result_free(qc_queue_result *res);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
