/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sensor.h: measurements taken from outside the data path, once per
 * control interval, on a libuv loop (internal to src/live/ and src/cli/).
 *
 * Three kinds, one sample each interval:
 *   CMD  a program run without a shell (the command line split on spaces,
 *        execvp'd), killed when the sample's time is up; the value is the
 *        first number on its standard output; a failed exit is no sample.
 *   URL  GET http://HOST:PORT/PATH (HTTP/1.0, connection closed by the
 *        server); the value is the Prometheus text metric NAME (the first
 *        line "NAME value" or "NAME{labels} value"), or with no metric
 *        the first number of the body. A non-200 answer is no sample.
 *   LOG  a file followed like `tail -F` from its end at the start: the
 *        lines appended since the last sample that match a POSIX extended
 *        regular expression are counted, or, when the expression has a
 *        group, the numbers its first group captures are summed (a
 *        completion log's durations summed over an interval, divided by
 *        it, are the requests in the server by Little's law: the "logged"
 *        measurement). Truncation starts over at the top; a new file at
 *        the path (rotation) is read from its top once what was left in
 *        the old one is read.
 * Each value is multiplied by `scale`.
 *
 * A sample is started by qc__sensor_start and answered exactly once by the
 * callback, with ok = 0 when it failed or was late (the program killed,
 * the connection cut): the caller then holds its controller. A LOG sample
 * is answered inside qc__sensor_start.
 *
 * Ownership: qc__sensor_new allocates; qc__sensor_close closes its
 * handles (a running program is killed) and the memory goes with the
 * last close callback, so the loop must run after it. Bounds: a program's
 * output is read up to 4 KiB, an HTTP answer up to 1 MiB, a log line up
 * to 4 KiB (longer ones are matched on their first 4 KiB), a log sample
 * reads at most 64 MiB (the rest is read by the next). */
#ifndef QCTL_LIVE_SENSOR_H
#define QCTL_LIVE_SENSOR_H

#include <uv.h>

#include "qctl/error.h"
#include "qctl/live.h"

typedef enum qc__sensor_kind {
    QC__SENSOR_NONE = 0, /* none configured (the caller's own measurement) */
    QC__SENSOR_CMD,
    QC__SENSOR_URL,
    QC__SENSOR_LOG
} qc__sensor_kind;

typedef qc_live_sensor_params qc__sensor_params; /* public: qctl/live.h */

/* The kind o configures, or QC__SENSOR_NONE. */
qc__sensor_kind qc__sensor_kind_of(const qc__sensor_params *o);

/* Answers a sample: ok = 1 with its value, or ok = 0 (failed or late). */
typedef void (*qc__sensor_cb)(void *ctx, int ok, double value);

typedef struct qc__sensor qc__sensor;

/* Checks o (one kind; the program found on PATH; the URL's form and
 * address; the expression compiles; a metric needs a URL, a pattern a
 * log) with messages naming the flag (--sensor-cmd, ...). loop NULL: only
 * checks (nothing opened, *out untouched). QC_EINVAL, QC_ENOMEM. */
int qc__sensor_new(uv_loop_t *loop, const qc__sensor_params *o, qc__sensor_cb cb, void *ctx,
                   qc__sensor **out, qc_err *err);

/* Starts a sample that must be answered within timeout seconds (a later
 * one is killed and answered ok = 0). A sample still running is killed
 * and counted as failed, without a callback: the caller, who starts a new
 * one, has already given up on it. */
void qc__sensor_start(qc__sensor *s, double timeout);

/* Samples answered and, of them, failed or late; the last failure's
 * reason (a constant string, "" before any). */
void qc__sensor_counts(const qc__sensor *s, unsigned long long *samples,
                       unsigned long long *failed, const char **why);

/* Closes everything (see the ownership rule above); NULL does nothing. */
void qc__sensor_close(qc__sensor *s);

/* The first number in p[0..n) (an optional sign, digits, a point, an
 * exponent), into *v; 0 when there is none, or it is not finite. */
int qc__first_number(const char *p, size_t n, double *v);

/* The value of the Prometheus text metric `name` in p[0..n) (the first
 * sample line whose name is name, with or without labels; a name given
 * with its labels matches exactly), into *v; 0 when absent or not finite. */
int qc__prom_metric(const char *p, size_t n, const char *name, double *v);

#endif
