/* SPDX-License-Identifier: GPL-3.0-or-later */
/* app/sweep.h (not installed): parameter sweeps: the sweep file, its grid, per-run seeds,
 * metric extraction, aggregation over replications, and the results
 * (journal, CSV, JSON).
 *
 * A sweep file names a qctl experiment ("sim pool"), its fixed flags, the
 * parameters to vary (lists, linear or log ranges), the replications per
 * point and the metrics to collect (paths into the experiment's --json
 * output). The grid is the Cartesian product of the parameters' values in
 * the order the parameters are written, the first one varying slowest (as
 * nested loops written in that order); a point is numbered by its rank in
 * that order. docs/sweep.md describes the format.
 *
 * Every value of a parameter is held as text (what goes on the command
 * line, in the CSV and into the seed); a range's values are rounded to 12
 * significant digits so that 0.5 + 9 x 0.05 is "0.95", not
 * "0.9500000000000001". The seed of a (point, replication) is a splitmix64
 * chain over the sweep seed, each parameter's name and value text, and the
 * replication index: it depends on what the point is, not on its rank,
 * on the order of execution or on which worker ran it.
 *
 * The journal is one JSON object per line: a header with the hash of the
 * expanded definition, then one record per finished point. Reals are
 * written with 17 significant digits, so a point read back from the
 * journal is the same double as the one computed, and the final CSV and
 * JSON do not depend on which run of an interrupted sweep computed what.
 *
 * Ownership: a qc_sweep is created by qc_sweep_parse and released by
 * qc_sweep_free (NULL is fine). Strings it returns belong to it. Functions
 * returning char * or json_t * give the caller a new allocation or
 * reference.
 *
 * Errors: 0 or a negative QC_E* code with a one-line message: jansson's
 * line:column for malformed JSON, the field path ("params.load.step") for
 * a semantic error, the flag for a bad --set. */
#ifndef QCTL_SWEEP_H
#define QCTL_SWEEP_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most points a grid may have. */
#define QC_SWEEP_MAX_POINTS 1000000u

typedef struct qc_sweep qc_sweep;

/* Parses a sweep file's text (name is used in messages), applies the
 * overrides sets[0..nsets-1], each "PATH=JSON" (PATH a dot-separated
 * chain of object keys from the top, e.g. "args.customers=2000"), and
 * expands the grid. QC_EPARSE for malformed JSON or a bad --set value,
 * QC_EINVAL for a field that is wrong, QC_ERANGE for a grid too large. */
int qc_sweep_parse(qc_sweep **out, const char *text, size_t len, const char *name,
                   const char *const *sets, size_t nsets, qc_err *err);
void qc_sweep_free(qc_sweep *s);

/* The experiment's command words, e.g. "sim pool". */
const char *qc_sweep_experiment(const qc_sweep *s);
size_t qc_sweep_npoints(const qc_sweep *s);
unsigned qc_sweep_reps(const qc_sweep *s);
/* Confidence level of the intervals across replications (default 0.95). */
double qc_sweep_confidence(const qc_sweep *s);
/* Hash of the expanded definition: 16 hex digits. */
const char *qc_sweep_hash(const qc_sweep *s);

size_t qc_sweep_nparams(const qc_sweep *s);
const char *qc_sweep_param_name(const qc_sweep *s, size_t k);
size_t qc_sweep_param_nvalues(const qc_sweep *s, size_t k);
/* Value i of parameter k: its text, whether it is a number, its number
 * (NAN for a string). */
const char *qc_sweep_param_text(const qc_sweep *s, size_t k, size_t i);
int qc_sweep_param_is_number(const qc_sweep *s, size_t k, size_t i);
double qc_sweep_param_value(const qc_sweep *s, size_t k, size_t i);
/* The index of parameter k's value at a point. */
size_t qc_sweep_point_index(const qc_sweep *s, size_t point, size_t k);
/* "name=value name=value" for a point (caller frees). */
char *qc_sweep_point_key(const qc_sweep *s, size_t point);

size_t qc_sweep_nmetrics(const qc_sweep *s);
const char *qc_sweep_metric_name(const qc_sweep *s, size_t m);
const char *qc_sweep_metric_path(const qc_sweep *s, size_t m);

/* The seed of replication rep of a point: below 2^53, so that every qctl
 * command accepts it. */
uint64_t qc_sweep_seed(const qc_sweep *s, size_t point, unsigned rep);

/* The command line of a run, without the program name: the experiment's
 * words, the fixed flags (templates substituted), the parameters that no
 * template uses as --name value, then --seed S --json. NULL-terminated;
 * free with qc_sweep_argv_free. */
int qc_sweep_argv(const qc_sweep *s, size_t point, unsigned rep, char ***argv, size_t *argc,
                  qc_err *err);
void qc_sweep_argv_free(char **argv);

/* A metric's value with its interval; NAN where there is none. */
typedef struct qc_sweep_val {
    double value, lo, hi;
} qc_sweep_val;

/* Reads metric m from a run's JSON output. A number gives its value; an
 * interval object {"value","ci_low","ci_high"} its value and interval;
 * null gives NAN. QC_EINVAL when the path does not exist (the message
 * names the metric and the path) or leads to something else. */
int qc_sweep_extract(const qc_sweep *s, const json_t *output, size_t m, qc_sweep_val *out,
                     qc_err *err);

/* Aggregates the replications v[0..n-1] of metric m: with n == 1 the
 * value and its own interval (a fraction's clamped to 1); else the mean
 * of the finite values and its Student-t interval at the sweep's level
 * (NAN with fewer than 2), carried to the log scale when every value is
 * positive, to the logit scale when the metric is a fraction
 * (utilization, a probability, frac_*) and every value is inside (0, 1),
 * so that a positive quantity's interval stays positive and a
 * fraction's inside [0, 1]. */
void qc_sweep_aggregate(const qc_sweep *s, size_t m, const qc_sweep_val *v, size_t n,
                        qc_sweep_val *out);

/* A point's result. */
typedef enum { QC_SWEEP_PENDING = 0, QC_SWEEP_DONE, QC_SWEEP_FAILED } qc_sweep_state;
typedef struct qc_sweep_point {
    qc_sweep_state state;
    char *error;      /* FAILED: the first line of the failing run's stderr */
    qc_sweep_val *m;  /* nmetrics values (DONE) */
} qc_sweep_point;

/* All points PENDING; free with qc_sweep_points_free. */
qc_sweep_point *qc_sweep_points_new(const qc_sweep *s);
void qc_sweep_points_free(const qc_sweep *s, qc_sweep_point *p);
/* Sets a point's result (copies vals, or error when not NULL). */
int qc_sweep_point_set(const qc_sweep *s, qc_sweep_point *p, const qc_sweep_val *vals,
                       const char *error);

/* The journal's first line, and the line of a finished point (each ends
 * with '\n'; caller frees). */
char *qc_sweep_journal_header(const qc_sweep *s);
char *qc_sweep_journal_record(const qc_sweep *s, size_t point, const qc_sweep_point *p);
/* Parses one record line into pts[point] (the last record of a point
 * wins). QC_EPARSE when it is not a record of this sweep. */
int qc_sweep_journal_parse_record(const qc_sweep *s, const char *line, size_t len,
                                  qc_sweep_point *pts, size_t *point, qc_err *err);
/* Reads a journal's text into pts. *good is set to the length of its
 * complete lines (a last line without '\n', cut by an interruption, is
 * dropped, and the caller truncates the file there); *records to the
 * number of records read. An empty text is a fresh journal (*good = 0).
 * QC_ERANGE when the header's hash is not this sweep's; QC_EPARSE with
 * name:line for a damaged line. */
int qc_sweep_journal_load(const qc_sweep *s, const char *text, size_t len, const char *name,
                          qc_sweep_point *pts, size_t *good, size_t *records, qc_err *err);

/* The results table: a header, then one row per point in canonical order:
 * the parameters, then for each metric its value, ci_low and ci_high, then
 * reps and error. Written atomically. */
int qc_sweep_write_csv(const qc_sweep *s, const qc_sweep_point *pts, const char *path,
                       qc_err *err);
/* The results as JSON: {"sweep": {...}, "points": [{params..., metric:
 * {"value","ci_low","ci_high","half_width","level","n"}, ..., "reps",
 * "error"}]}: the one interval shape (qctl/output.h). */
json_t *qc_sweep_results_json(const qc_sweep *s, const qc_sweep_point *pts);

#ifdef __cplusplus
}
#endif
#endif
