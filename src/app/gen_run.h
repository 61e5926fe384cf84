/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/gen_run.h (not installed): the parameters of `qctl gen` as one
 * struct with its defaults and its one check of the values, which the
 * start and --check both run; a message names the field ("model: ...")
 * and the command says it with its flag. */
#ifndef QCTL_APP_GEN_RUN_H
#define QCTL_APP_GEN_RUN_H

#include <stdint.h>

#include "qctl/error.h"
#include "qctl/traffic.h"

#define QC_APP_GEN_MAX_MODELS 64

typedef struct qc_app_gen_params {
    qc_traffic_gen_params o;   /* duration, packets, seed; check sets approach */
    qc_traffic_fit_params fo;  /* the in-sample fit of --validate; check
                                * sets threshold and threads */
    const char *models[QC_APP_GEN_MAX_MODELS]; /* model files, one an activity */
    unsigned nmodels;
    const char *users;         /* "web=300,video=50": users per activity */
    const char *output;        /* pcap, or CSV when it ends in .csv; "-": stdout */
    const char *validate;      /* the capture compared with (validation) */
    const char *labels;        /* with activity: the capture's labels */
    const char *activity;      /* the activity compared */
    const char *plot;          /* the validation's plots */
    const char *report;        /* the report's directory */
    const char *gap_threshold; /* auto (NULL), none or seconds > 0 */
    int format;                /* -1: from the output's name; 0 pcap, 1 csv */
    int approach;              /* qc_traffic_approach */
    unsigned snaplen;          /* bytes kept of a frame (65535) */
    unsigned realisations;     /* sequences per approach in validation (10) */
    unsigned jobs;             /* threads (0: the cores) */
    int json, quiet;
    qc_traffic_format fmt;     /* resolved by check */
} qc_app_gen_params;

void qc_app_gen_params_init(qc_app_gen_params *a);

/* The one check of the values (no file read): what generation or
 * validation needs, the words parsed. 0 or QC_EINVAL naming the field. */
int qc_app_gen_params_check(qc_app_gen_params *a, qc_err *err);

#endif
