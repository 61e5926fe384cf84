/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/simqueue.h (not installed): what `qctl sim queue` makes of a run of
 * qc_queue_run: the JSON summary (one schema for --json, --report, the
 * sweep and Python), the table on stdout, and the rows of its series and
 * plots. The command (src/cli/sim_queue.c) is its flag table and a call. */
#ifndef QCTL_APP_SIMQUEUE_H
#define QCTL_APP_SIMQUEUE_H

#include <jansson.h>
#include <stdio.h>

#include "qctl/exact.h"
#include "qctl/queue.h"
#include "qctl/results.h"
#include "simout.h"

/* What the command line said that the run does not hold (--arrival,
 * --service, --curve-unit, --allow-short): the library's (qctl/results.h). */
typedef qc_queue_json_opts qc_app_queue_opts;

/* The run's verdict on its intervals. */
qc_app_support qc_app_queue_support(const qc_queue_params *p, const qc_queue_result *r,
                                    const qc_app_queue_opts *o);

/* The JSON summary (qc_queue_result_json); elapsed: the run's wall-clock
 * seconds. */
json_t *qc_app_queue_json(const qc_queue_params *p, const qc_queue_result *r,
                          const qc_queue_exact *ex, const qc_app_queue_opts *o, double elapsed);

/* The summary as a table on stdout. */
void qc_app_queue_table(const qc_queue_params *p, const qc_queue_result *r,
                        const qc_queue_exact *ex, const qc_app_queue_opts *o);

/* CSV of replication 1's number in system over time (--series). */
void qc_app_queue_series_rows(FILE *fp, const qc_queue_result *r);

/* The response time's density in 80 bins up to its 99.9th percentile and
 * its complementary CDF (gnuplot data: time density P(T>time)). */
void qc_app_queue_response_rows(FILE *fp, const qc_queue_result *r);

#endif
