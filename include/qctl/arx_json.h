/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/arx_json.h: ARX models, identification results and affine sensor
 * maps (qctl/arx.h) as JSON, and model files read back.
 *
 * Kept apart from qctl/arx.h so that identification and design need no
 * JSON library (libqctl-control does not link jansson).
 *
 * Ownership: JSON values follow jansson's reference counts; *_json
 * functions return a new reference.
 *
 * Errors: 0 or a negative QC_E* code with a message naming the key path
 * (e.g. "sensor.b") or the file, line and column of a JSON syntax error. */
#ifndef QCTL_ARX_JSON_H
#define QCTL_ARX_JSON_H

#include <jansson.h>

#include "qctl/api.h"
#include "qctl/arx.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* {"type":"arx","na","nb","delay","a":[],"b":[],"operating_point":{"u","y"},
 *  "sample_interval"} */
json_t *qc_arx_model_json(const qc_arx_model *m);
/* The model JSON with "fit": {criterion, R^2, residual variance, standard
 * errors, validation, the candidate table}. */
json_t *qc_arx_result_json(const qc_arx_result *r);

/* Reads a model object. `where` is the key path of v for messages ("" at
 * the top, "sensor" for the sensor block). Every field is checked: a
 * missing field, a wrong type, an array of the wrong length, an order or
 * delay out of range, a non-finite coefficient: QC_EPARSE with the path,
 * e.g. "sensor.b: expected an array of 2 numbers (nb = 2), got 1". */
int qc_arx_model_from_json(const json_t *v, const char *where, qc_arx_model *m, qc_err *err);

/* Reads a model file: the plant at the top level, an optional "sensor"
 * block. Messages start with the file name (and line:column for JSON
 * syntax errors). */
int qc_arx_system_read(const char *path, qc_arx_system *s, qc_err *err);

json_t *qc_arx_affine_json(const qc_arx_affine *a);
/* The sensor's completion-log curve as {"form": "completion_log", "scale",
 * "residual_variance", "points"}, the "curve" member of a model's sensor. */
json_t *qc_arx_curve_json(const qc_arx_curve *c);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
