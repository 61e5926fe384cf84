/* SPDX-License-Identifier: GPL-3.0-or-later */
/* traffic_cmd.h: what `qctl fit` and `qctl gen` share: loading a capture
 * with its labels and warnings, the capture summary, model file names
 * (traffic_cmd.c) and the fit report and validation plots
 * (traffic_plot.c). */
#ifndef QCTL_APP_TRAFFIC_CMD_H
#define QCTL_APP_TRAFFIC_CMD_H

#include <jansson.h>

#include "qctl/traffic.h"

typedef struct cli_groups {
    qc_trace_group *g;
    size_t n;
} cli_groups;

/* Reads path into tr and applies the label file (if not NULL); prints
 * the reader's warnings unless quiet. Returns 0 or an exit code (2 when
 * nothing usable was read, with the reason printed). */
int cli_load_trace(const char *path, const char *labels, int quiet, qc_trace *tr);

/* The capture's summary (format, link type, packets, flows, duration,
 * partial, warnings), as JSON and as text. */
json_t *cli_trace_json(const char *path, const qc_trace *tr);
void cli_print_trace(const char *path, const qc_trace *tr);

/* DIR/NAME.json with NAME made safe for a file name; malloc'd. */
char *cli_model_path(const char *dir, const char *name);

/* Plots of one model's fits into dir: densities over histograms, Q-Q
 * plots, the copula scatter. 0, or an exit code after a message. */
int cli_fit_report(const char *dir, const char *name, const qc_traffic_model *m,
                   const qc_traffic_report *rep);

/* The names of the plots cli_fit_report draws for one group (under the
 * same conditions), appended to *names (malloc'd strings; *n counts them),
 * for the HTML page of --report. 0, or QC_EXIT_FAIL when out of memory. */
int cli_fit_report_names(const char *name, const qc_traffic_report *rep, char ***names,
                         size_t *n);

/* Plots of a validation into dir. */
int cli_validation_plots(const char *dir, const qc_traffic_validation *v, const double *real_t,
                         size_t n);

#endif
