/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/sysid_run.h (not installed): `qctl sysid` as a descriptor: its
 * parameters (defaults, the one check), the run (ARX identification of the
 * plant from (time, u, y) columns and, when asked, of a sensor from (time,
 * y, measured y), its affine map and completion-log curve) and its
 * outputs, written once: the model JSON (--json, --output, the report's
 * summary, the input of 'qctl design'), the table, the plots. The command
 * (src/cli/sysid.c) is a flag table pointing at these fields and calls.
 * Errors as in app/design_run.h: a check names the field. */
#ifndef QCTL_APP_SYSID_RUN_H
#define QCTL_APP_SYSID_RUN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "qctl/arx.h"
#include "qctl/error.h"

typedef struct qc_app_sysid_params {
    const char *csv, *columns;               /* the plant's data (T,U,Y or U,Y) */
    const char *sensor_csv, *sensor_columns; /* the sensor's (T,Y,M), or NULL */
    double dt;                               /* sample interval (0: from the time column) */
    uint64_t skip, input_lag;                /* rows dropped; input rows late */
    double sensor_at, sensor_width;          /* the affine map's point (NaN: none) */
    double sensor_max;                       /* the sensor's reach (NaN: from its file) */
    double fall;                             /* input fall per sample (NaN: chosen) */
    int sensor_curve;                        /* fit the completion-log curve */
    qc_arx_params plant, sensor;             /* the fits' ranges, criterion, holdout */
    int operating_point;                     /* plant.u0, y0 given (else demeaned) */
    int demean;                              /* demeaning asked for explicitly */
    int orders;                              /* na = nb ranges given together */
    int na_nb;                               /* na or nb ranges given apart */
} qc_app_sysid_params;

/* The defaults: plant orders 1..3 tied, delays 0..2; sensor na 0..2, nb
 * 1..2, delays -1..1; no sensor point, width or reach; no fall. */
void qc_app_sysid_params_init(qc_app_sysid_params *p);

/* The checks that need no data (a file given, flags that exclude or need
 * each other). 0 or QC_EINVAL naming the field. */
int qc_app_sysid_params_check(const qc_app_sysid_params *p, qc_err *err);

typedef struct qc_app_sysid qc_app_sysid;

/* Reads the data and fits; NULL with err set (a message naming the file
 * and line for bad data). p is copied. */
qc_app_sysid *qc_app_sysid_run(const qc_app_sysid_params *p, qc_err *err);
void qc_app_sysid_free(qc_app_sysid *d);

/* The model JSON, owned by d. */
const json_t *qc_app_sysid_json(const qc_app_sysid *d);

/* The table on standard output; output, when not NULL, is where the model
 * was written (its next step is said). */
void qc_app_sysid_print(const qc_app_sysid *d, const char *output);

/* The plots' names and count; qc_app_sysid_plots draws them into the
 * existing dir (gnuplot needed). */
const char *const *qc_app_sysid_plot_names(const qc_app_sysid *d, size_t *n);
int qc_app_sysid_plots(const qc_app_sysid *d, const char *dir, qc_err *err);

#endif
