/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simout.h (not installed): the pieces of a simulation's result that
 * the sim commands share (sim queue, pool, maxusers, admission, proxy,
 * network): the "run" object of the JSON summary and the run's verdict on
 * its intervals, written once here so that --json, --report, the sweep
 * and Python read one schema.
 *
 * The verdict: the library decides from the run's data whether it
 * supports its intervals (short: it does not, why: in words); the user
 * may ask to see them anyway (--allow-short), marked unreliable. A short
 * run's intervals are withheld in JSON (null ends, a reason) and in the
 * table ("none: run too short") unless allowed. */
#ifndef QCTL_APP_SIMOUT_H
#define QCTL_APP_SIMOUT_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qctl/results.h"

/* A run's verdict on its intervals (qctl/results.h). */
typedef qc_result_support qc_app_support;

/* The table's line for a short run on stdout (nothing when not short),
 * to go before the table. */
void qc_app_support_print(const qc_app_support *s);

/* A metric's interval cell: "[lo, hi]", or on a short run "none: run too
 * short" (or "[lo, hi] unreliable" when allowed). */
void qc_app_support_cell(const qc_app_support *s, double lo, double hi, char *buf, size_t n);

/* Marks an interval object (qc_json_ci_new's) on a short run: "unreliable":
 * true when allowed, else its ends and half-width null and a reason. */
void qc_app_support_json(const qc_app_support *s, json_t *ci);

/* The run's "interval_support": {"supported", "reason", "allowed_short"}. */
json_t *qc_app_support_json_run(const qc_app_support *s);

/* A percentile whose interval the run withheld (too few kept response
 * times beyond it, or one run's batches cannot bound it: the models'
 * reps.h): the table's words and the JSON's reason beside null ends, one
 * text for sim queue, pool and network. */
#define QC_APP_PCT_SHORT_CELL "no interval: run too short"
#define QC_APP_PCT_SHORT_REASON QC_RESULT_PCT_SHORT_REASON

/* The summary's "run" object of a chunked simulation: its length
 * (customers, or simulated time when customers is 0), replications,
 * seed, confidence level and interval method. */
json_t *qc_app_json_run(uint64_t customers, double horizon, unsigned reps, uint64_t seed,
                        double level, const char *ci_method);

/* Ends that object with what the run did (measured customers, events,
 * simulated time, wall-clock seconds) and puts it in root as "run". */
void qc_app_json_run_done(json_t *root, json_t *run, uint64_t measured, uint64_t events,
                          double sim_time, double elapsed);

/* A number (%.10g) and sep, or sep alone when x is not finite (CSV has
 * no NaN). */
void qc_app_csv_num(FILE *fp, double x, const char *sep);

#endif
