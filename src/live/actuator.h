/* SPDX-License-Identifier: GPL-3.0-or-later */
/* actuator.h: settings applied to another server from outside its data
 * path, once per control interval, on a libuv loop (internal to src/live/
 * and src/cli/). The exact lines sent, with N the setting rounded down to
 * a whole number:
 *
 *   haproxy-maxconn:SOCKET:BACKEND/SERVER[,BACKEND/SERVER...]
 *        `set maxconn server BACKEND/SERVER N` (one per server, joined by
 *        ';' on one line) on haproxy's runtime API; N >= 1 (0 would mean
 *        no limit to haproxy).
 *   haproxy-weight:SOCKET:BACKEND/SERVER[,...]
 *        `set weight BACKEND/SERVER N`, N in 0..256.
 *   haproxy-park:SOCKET:BACKEND  (the PARK controller only)
 *        `set server BACKEND/SERVER state ready|drain|maint` for every
 *        server of the backend, one line.
 *   pgbouncer-pool:CONNINFO
 *        two exchanges on pgbouncer's admin console: `SHOW POOLS`, which
 *        gives C, the most server connections of a pool (sv_active +
 *        sv_idle + sv_used + sv_tested + sv_login), then
 *        `SET default_pool_size = N` (the server sessions a database/user
 *        pool may run at once; a database whose [databases] line sets its
 *        own pool_size keeps that), followed, when C > N, by
 *        `SET server_lifetime = 'L'` with L = N * interval / (C - N)
 *        seconds (three decimals): pgbouncer then closes a connection as
 *        it is released, at most one every L / N = interval / (C - N)
 *        seconds, so about the C - N too many go in the next interval as
 *        their users' sessions end; and, once C <= N again, by
 *        `SET server_lifetime = 'V'` when it was lowered, V the
 *        operator's value, read by a `SHOW CONFIG` sent after `SHOW
 *        POOLS` until it is known (3600, pgbouncer's default, when it
 *        cannot be read). The final setting of a drain restores it and lowers
 *        nothing.
 *   cmd:PROG ARGS
 *        the program run without a shell (split on spaces), every "{}"
 *        in its arguments replaced by N; exit status 0 is applied.
 * haproxy applied a line when it answers empty lines only; pgbouncer when
 * no ErrorResponse comes. Anything else (an error message, a connection
 * refused, no answer within the deadline) is refused, with the reason.
 *
 * Each apply is answered exactly once by the callback. An apply started
 * while one still runs gives up on the old one (counted as refused, no
 * callback). Ownership as sensor.h: close, then run the loop. */
#ifndef QCTL_LIVE_ACTUATOR_H
#define QCTL_LIVE_ACTUATOR_H

#include <uv.h>

#include "qctl/ctlloop.h"
#include "qctl/error.h"

#include "live/remote.h"

typedef enum qc__actuator_kind {
    QC__ACT_MAXCONN = 1,
    QC__ACT_WEIGHT,
    QC__ACT_PARK,
    QC__ACT_PGPOOL,
    QC__ACT_CMD
} qc__actuator_kind;

typedef void (*qc__actuator_cb)(void *ctx, int ok, const char *why);

typedef struct qc__actuator qc__actuator;

/* Parses spec (the forms above; flag names the flag for messages). loop
 * NULL: only checks. QC_EINVAL, QC_ENOMEM. */
int qc__actuator_new(uv_loop_t *loop, const char *spec, const char *flag, qc__actuator_cb cb,
                     void *ctx, qc__actuator **out, qc_err *err);

qc__actuator_kind qc__actuator_kind_of(const qc__actuator *a);
/* The least and largest N the actuator takes (maxconn 1.., weight 0..256). */
void qc__actuator_range(const qc__actuator *a, double *lo, double *hi);

/* The control interval (PGPOOL's server_lifetime rests on it; 1 s
 * unless set), the final apply (PGPOOL: restore server_lifetime, lower
 * nothing), and PGPOOL's last count C (-1 before the first). */
void qc__actuator_set_interval(qc__actuator *a, double interval);
void qc__actuator_final(qc__actuator *a);
double qc__actuator_pool_servers(const qc__actuator *a);
/* PGPOOL: 1 when server_lifetime is lowered (a drain without a final
 * setting restores it by applying the last size, qc__actuator_last). */
int qc__actuator_restore_due(const qc__actuator *a);
double qc__actuator_last(const qc__actuator *a);
/* PGPOOL: the server_lifetime restored (the operator's, "3600" before it
 * was read). */
const char *qc__actuator_lifetime(const qc__actuator *a);

/* Applies N = floor(u) within timeout seconds. */
void qc__actuator_apply(qc__actuator *a, double u, double timeout);

/* PARK: applies each server's state (names[i] for state[i], n of them). */
void qc__actuator_park(qc__actuator *a, char (*names)[QC__REMOTE_NAME_MAX],
                       const qc_park_state *state, unsigned n, double timeout);

/* PARK: the address and backend (the sensor reads `show stat` there). */
const qc__remote_addr *qc__actuator_addr(const qc__actuator *a);
const char *qc__actuator_backend(const qc__actuator *a);

/* Applies started and, of them, refused; the last refusal's reason. */
void qc__actuator_counts(const qc__actuator *a, unsigned long long *applies,
                         unsigned long long *refused, const char **why);

void qc__actuator_close(qc__actuator *a);

#endif
