/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/results.h: a model's result as JSON, the one schema that `qctl ...
 * --json`, --output, --report, the sweep and the Python package all read.
 *
 * The writers live in the library so that everything that shows a result
 * shows the same document: the command prints it, Python parses the text
 * of qc_result_text (through cffi) and builds its result objects from its
 * keys, not from a list of fields per model.
 *
 * The one interval: every estimate is an object
 *
 *     {"value", "ci_low", "ci_high", "half_width", "level", "n"}
 *
 * (qc_json_ci_new, qctl/output.h), plus "exact" where a closed form gives
 * the figure; a non-finite number is null. An interval a run is too short
 * to support has null ends and half-width and a "reason", or, when the
 * caller allowed it, its ends and "unreliable": true (qc_result_ci_mark).
 *
 * Ownership: JSON values follow jansson's reference counts; the *_json
 * functions return a new reference (NULL only when out of memory). The
 * text of qc_result_text is the caller's, released with
 * qc_result_text_free. */
#ifndef QCTL_RESULTS_H
#define QCTL_RESULTS_H

#include <jansson.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/exact.h"
#include "qctl/maxusers.h"
#include "qctl/multiclass.h"
#include "qctl/pool.h"
#include "qctl/queue.h"
#include "qctl/removable.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* ---- the pieces every result shares ------------------------------------- */

/* A run's verdict on its intervals: the library decides from the run's
 * data whether it supports them (short_run; why, in words) and whether a
 * precision asked for was reached; allow_short: the caller asked to see
 * them anyway, marked unreliable. */
typedef struct qc_result_support {
    int short_run;
    const char *why;
    int allow_short;
    int precision_asked;
    int precision_met;
} qc_result_support;

/* The reason beside the null ends of a response-time percentile whose
 * interval a run withheld (too few response times beyond it, or one run's
 * batches cannot bound it). */
#define QC_RESULT_PCT_SHORT_REASON                                                                \
    "the run is too short for this percentile's interval: too few response times beyond it, "   \
    "or its batches cannot bound it; a longer run or replications"

/* Marks an interval object on a short run: "unreliable": true when
 * allowed, else its ends and half-width null and a "reason". Nothing on a
 * run that supports its intervals. */
void qc_result_ci_mark(const qc_result_support *s, json_t *ci);

/* qc_result_ci_mark on every interval object (one with "ci_low") in doc. */
void qc_result_mark_all(const qc_result_support *s, json_t *doc);

/* {"supported", "reason", "allowed_short"}: the run's "interval_support". */
json_t *qc_result_support_json(const qc_result_support *s);

/* The "run" object of a chunked simulation: its length (customers, or
 * simulated time when customers is 0), replications, seed, confidence
 * level and interval method. */
json_t *qc_result_run_json(uint64_t customers, double horizon, unsigned reps, uint64_t seed,
                           double level, const char *ci_method);

/* Ends that object with what the run did (measured customers, events,
 * simulated time, wall-clock seconds) and puts it in root as "run". */
void qc_result_run_done(json_t *root, json_t *run, uint64_t measured, uint64_t events,
                        double sim_time, double elapsed);

/* doc as compact JSON text with every real to 17 significant digits (a
 * double read back is the same double): the caller's, released with
 * qc_result_text_free; NULL when out of memory. doc is not released. */
char *qc_result_text(const json_t *doc);
void qc_result_text_free(char *text);

/* ---- sim queue ---------------------------------------------------------- */

/* What the caller said that the run does not hold. */
typedef struct qc_queue_json_opts {
    const char *arrival, *service; /* the specs as given */
    const char *curve_unit;        /* the unit asked of a rate curve, or NULL */
    int whole_periods;             /* the run was set to whole periods of the rate */
    int allow_short;               /* show a short run's intervals, marked unreliable */
} qc_queue_json_opts;

/* The run's verdict on its intervals. */
qc_result_support qc_queue_result_support(const qc_queue_params *p, const qc_queue_result *r,
                                          const qc_queue_json_opts *o);

/* The load offered over each replication's measured window (after the
 * warm-up): the rate's mean over it times E[S] / c; NAN for a trace. */
double qc_queue_window_load(const qc_queue_params *p, const qc_queue_result *r);

/* {"command": "sim queue", "model", "run", "metrics"}: each metric of
 * qc_queue_metric_name an interval with its exact value (ex: from
 * qc_queue_exact_values); elapsed: the run's wall-clock seconds. */
json_t *qc_queue_result_json(const qc_queue_params *p, const qc_queue_result *r,
                             const qc_queue_exact *ex, const qc_queue_json_opts *o,
                             double elapsed);

/* ---- sim pool ----------------------------------------------------------- */

typedef struct qc_pool_json_opts {
    const char *arrival, *service, *setup; /* the specs as given */
    int allow_short;                       /* as qc_queue_json_opts */
    double price;                          /* cost per joule: power in W = cost / price */
    double watts[4];                       /* busy, idle, setup, off */
} qc_pool_json_opts;

qc_result_support qc_pool_result_support(const qc_pool_result *r, const qc_pool_json_opts *o);

/* {"command": "sim pool", "model", "cost", "run", "metrics",
 * "energy_report"}: each metric of qc_pool_metric_name an interval (and
 * "mean_power_watts" when price > 0). */
json_t *qc_pool_result_json(const qc_pool_params *p, const qc_pool_result *r,
                            const qc_pool_json_opts *o, double elapsed);

/* ---- sim maxusers ------------------------------------------------------- */

/* Each reference step's settling time, overshoot and steady-state error
 * in every replication, and each replication's fractions of the run
 * saturated and held: the caller's arrays, [step * reps + rep] and [rep],
 * for up to 64 steps. bound: the logged sensor's reach
 * (qc_mu_logged_bound); ref_m, unreachable: each reference mapped into
 * the sensor, and whether the sensor can read it. */
typedef struct qc_mu_rep_stats {
    unsigned reps;
    double level;
    size_t nsteps;
    double *settling, *overshoot, *sse;
    double *sat, *held;
    double bound;
    double ref_m[64];
    int unreachable[64];
} qc_mu_rep_stats;

/* Replication k's step metrics and fractions into st: 0, or QC_EINVAL
 * when k >= st->reps. */
int qc_mu_rep_stats_add(qc_mu_rep_stats *st, unsigned k, const qc_mu_run_result *rk);

/* {"command": "sim maxusers", "run", "interval_support", "steps",
 * "summary"}: r is replication 1 (its throughput and response, its
 * second half's means), st the replications' step metrics (a t interval
 * over the finite values of each: null when there are none; a settling
 * time only when every replication settled), ctl the controller's name,
 * sup the verdict on the intervals (qc_mu_run_support). */
json_t *qc_mu_result_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                          const qc_mu_rep_stats *st, const char *ctl,
                          const qc_result_support *sup);

/* ---- sim admission ------------------------------------------------------ */

/* A class's role: "best-effort", "candidate" or "admitted". */
const char *qc_mc_class_role(const qc_mc_run_class *c);

/* {"command": "sim admission", "scenario": path, "model", "run",
 * "admissibility", then one policy's "policy", "classes", "summary" (npol
 * 1) or "policies": [...]} of the runs res[0..npol) of pols on the
 * scenario m (p: the first's parameters); each class's figures an
 * interval, null where nothing was measured. sup (NULL: left out): the
 * runs' verdict on their intervals, added as "interval_support" and
 * marked on every interval (qc_result_mark_all). */
json_t *qc_mc_result_json(const qc_mc_run_params *p, const qc_mc_scenario *m,
                          const char *path, const qc_mc_run_result *res,
                          const qc_mc_policy *pols, unsigned npol, const qc_result_support *sup,
                          double elapsed);

/* ---- mdp removable ------------------------------------------------------- */

/* {"command": "mdp removable", "model" (with the energy price per unit of
 * energy, price), "truncation", "solver" (elapsed: its wall-clock
 * seconds), "gain", "policy", "structure", "performance", "comparison"}
 * of the solved model r of p: exact figures, no interval. */
json_t *qc_removable_result_json(const qc_removable_params *p, const qc_removable_result *r,
                                 double price, double elapsed);

QC_API_END
#ifdef __cplusplus
}
#endif

#endif
