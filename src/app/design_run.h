/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/design_run.h (not installed): `qctl design` as a descriptor: its
 * parameters (with their defaults and the one check of them), the run
 * (integral and PI design of an ARX model's loops, the root locus, the
 * predicted step to a reference) and its outputs, written once: the JSON
 * summary that --json, --output and --report's design.json print, the
 * table on standard output, the plots, and the report page's rows and
 * story. The command (src/cli/design.c) is its flag table, whose rows point
 * at the fields below, and calls of these functions.
 *
 * Errors: QC_EINVAL (and the others of qctl/error.h) with a message in err
 * that names the field as it is spelt here ("u_min: 5 is not below u_max
 * 3"), which the command maps back to its flag (cli_flags_error). */
#ifndef QCTL_APP_DESIGN_RUN_H
#define QCTL_APP_DESIGN_RUN_H

#include <jansson.h>

#include "qctl/design.h"
#include "qctl/error.h"

#define QC_APP_DESIGN_MAX_GAINS 64

typedef struct qc_app_design_params {
    const char *model;                  /* the ARX model JSON ('qctl sysid') */
    int no_sensor;                      /* ignore the model's sensor block */
    int law_i, law_pi;                  /* the laws designed */
    int have_spec;                      /* spec given (settling set) */
    int have_overshoot;                 /* overshoot given: needs the settling */
    qc_design_spec spec;                /* settling (samples), overshoot */
    double gains[QC_APP_DESIGN_MAX_GAINS]; /* root-locus K_I (ngains 0: automatic) */
    size_t ngains;
    double kp;                          /* K_P of the table and the range */
    unsigned steps;                     /* simulated response length (0: automatic) */
    double reference, from;             /* the predicted step (NaN: none; from NaN: y0) */
    double u_min, u_max, band;          /* actuator limits, settling band */
    int antiwindup;                     /* QC_AW_* */
    int sensor_reference, sensor_linear;
    unsigned horizon;                   /* samples predicted */
    double fall;                        /* input fall per sample (NaN: the model's) */
    long noise_reps;                    /* -1: 20 with residual variances, else 0 */
    int quiet;                          /* no notices in the result */
} qc_app_design_params;

/* The defaults: no spec, both laws, reference none, limits [0, 1e9], band
 * 0.1, conditional anti-windup, horizon 180, fall and noise from the model. */
void qc_app_design_params_init(qc_app_design_params *p);

/* The one validation of p before any work, the checks that need no model
 * (combinations, the target pole of the spec). 0 or QC_EINVAL naming the
 * field. */
int qc_app_design_params_check(const qc_app_design_params *p, qc_err *err);

typedef struct qc_app_design qc_app_design;

/* Reads the model, checks what needs it (delay, a reference the sensor
 * cannot reach), designs each loop and predicts the step. NULL with err
 * set on failure (QC_EINVAL/QC_EPARSE for bad input). p is copied. */
qc_app_design *qc_app_design_run(const qc_app_design_params *p, qc_err *err);
void qc_app_design_free(qc_app_design *d);

/* The summary (the schema of `qctl design --json`), owned by d. */
const json_t *qc_app_design_json(const qc_app_design *d);

/* The notices of the run (a spec no design meets), "LOOP: LAW design:
 * why", one a line, or "" (none, or quiet). */
const char *qc_app_design_notices(const qc_app_design *d);

/* The summary as the command's table on standard output. */
void qc_app_design_print(const qc_app_design *d);

/* The plots' names (root locus and step response of each loop) and their
 * count for d; qc_app_design_plots draws them into the existing dir
 * (gnuplot needed: the caller checks qc_plot_available). */
const char *const *qc_app_design_plot_names(const qc_app_design *d, size_t *n);
int qc_app_design_plots(const qc_app_design *d, const char *dir, qc_err *err);

/* The report page: its tables (a JSON object, the caller's) and its story
 * (malloc'd text, the caller's); NULL when out of memory. */
json_t *qc_app_design_page(const qc_app_design *d);
char *qc_app_design_story(const qc_app_design *d);

#endif
