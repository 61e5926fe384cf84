/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/fit_run.h (not installed): `qctl fit` as a descriptor: its
 * parameters with their defaults and one check (which the start and
 * --check both run; a message names the field, the command says it with
 * its flag), and what it shows of its fits (fit_out.c), written once for
 * the text, --json and the report page. */
#ifndef QCTL_APP_FIT_RUN_H
#define QCTL_APP_FIT_RUN_H

#include <stdint.h>

#include <jansson.h>

#include "qctl/error.h"
#include "qctl/trace.h"
#include "qctl/traffic.h"

typedef struct qc_app_fit_params {
    qc_traffic_fit_params fo;  /* what the fits take; check resolves
                                * threshold, families, criterion and
                                * copula_points into it */
    const char *capture;       /* the capture (or CSV) modelled */
    const char *column;        /* or FILE[:COL]: one sample to fit */
    const char *labels;        /* rules mapping flows to activities */
    const char *activity;      /* the one group fitted (or the model's name) */
    const char *out;           /* directory of the model files */
    const char *csv;           /* the decoded packets as CSV */
    const char *report;        /* the report's directory */
    const char *families;      /* "exp,gamma,...": the families tried; NULL all */
    const char *gap_threshold; /* auto (NULL), none or seconds > 0 */
    int split;                 /* qc_trace_split; -1: activity when labelled */
    int criterion;             /* qc_fit_criterion */
    uint64_t min_packets;      /* groups with fewer are skipped (50) */
    uint64_t copula_points;    /* transitions kept in the copula (10000) */
    int json, quiet, spec;     /* spec: the --column fit's spec alone */
} qc_app_fit_params;

void qc_app_fit_params_init(qc_app_fit_params *a);

/* The one check of the values (no file read): a capture or a column, not
 * both; the lists and words parsed into a->fo. 0 or QC_EINVAL with a
 * message naming the field. */
int qc_app_fit_params_check(qc_app_fit_params *a, qc_err *err);

/* The ranked fits of one part of a model, its text. */
void qc_app_fit_print_fits(const char *what, const qc_traffic_fits *f, const char *unit);
/* One group's model as text; file the model file written, or NULL. */
void qc_app_fit_print_group(const qc_trace_group *g, const qc_traffic_model *m,
                            const qc_traffic_report *rep, const char *file);
/* The summary form of a model: without the copula points and tables. */
json_t *qc_app_fit_summary_model(const qc_traffic_model *m, const qc_traffic_report *rep);
/* The summary as the report page shows it, in place (on a deep copy):
 * each list of candidates cut to one comparison table, intervals dropped,
 * a fit's mean named with its unit (mean: NULL at the top). */
void qc_app_fit_page(json_t *j, const char *mean);

#endif
