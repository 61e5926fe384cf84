/* SPDX-License-Identifier: GPL-3.0-or-later */
/* control.h: `qctl control`, a controller run every interval from a
 * sensor to an actuator of another server (haproxy, pgbouncer, a
 * program), outside its data path; internal to src/live/ and src/cli/.
 *
 * Every interval: a sample is started (sensor.h, or for PARK haproxy's
 * `show stat` of the backend) with a deadline of 0.7 interval; its
 * answer steps the loop (qctl/ctlloop.h) and the setting is applied
 * (actuator.h) within what is left until 0.95 interval (at least 0.25); the row of the interval is
 * written to the series when the actuator answers. A sample missing
 * (unreachable, refused, malformed, late) holds the controller; an apply
 * refused puts an integrating controller back on the setting last
 * applied (the others ask again). Both are counted, shown by the admin endpoint, and logged on standard error when they
 * start and when they end (not every interval, so a long outage is two
 * lines and a count).
 *
 * SIGHUP re-reads the configuration through the caller's reload function
 * and, when it checks, takes its reference, gains and limits at once
 * without a bump (the loop restarted at the setting in force); a bad file
 * is logged and the running configuration kept. SIGTERM/SIGINT (or the
 * duration) drains: no new step; the apply under way is let finish, then
 * the `final` setting is applied when one is given (PARK: every server
 * back to ready), within drain_timeout; a second signal stops at once. */
#ifndef QCTL_LIVE_CONTROL_H
#define QCTL_LIVE_CONTROL_H

#include <uv.h>

#include "qctl/ctlloop.h"
#include "qctl/error.h"

#include "live/sensor.h"

typedef struct qc_control_params qc_control_params;
/* Fills fresh from the configuration again (SIGHUP). 0 or an error. */
typedef int (*qc_control_reload_fn)(void *ctx, qc_control_params *fresh, qc_err *err);

struct qc_control_params {
    qc_ctlloop_params loop;
    qc__sensor_params sensor;   /* not for PARK (it reads the actuator's backend) */
    const char *actuator;       /* the spec (actuator.h) */
    double interval;            /* seconds */
    double duration;            /* > 0: drain after this many seconds */
    double drain_timeout;       /* seconds */
    double final;               /* applied on drain (NAN: none) */
    const char *admin, *admin_port_file;
    const char *series;
    int quiet;                  /* no log lines */
    /* The identified plant (`qctl sysid`'s model, --model): its static
     * gain and the gain's 95% interval (NAN: not known), and the sign the
     * plant's gain must have (+1, -1; 0: not said). An integral or PI loop
     * is not closed on a gain that is not finite, whose interval holds 0,
     * whose sign is not the one said, or whose sign is not K_I's (the loop
     * u += K_I (r - y) runs away unless K_I and the gain agree). */
    double gain, gain_lo, gain_hi;
    int gain_sign;
    const char *gain_from;      /* the file, for messages */
    qc_control_reload_fn reload;
    void *reload_ctx;
};

void qc_control_params_init(qc_control_params *o);

/* Every check qc_control_run makes before it opens anything. QC_EINVAL or
 * QC_ERANGE naming the flag. */
int qc_control_check(const qc_control_params *o, qc_err *err);
/* The one validation of a run, --check's: qc_control_check, then the dry
 * run of the admin endpoint's bind (qc__bind_probe), named as the run
 * names it. */
int qc_control_params_check(const qc_control_params *o, qc_err *err);

/* ---- on a host's loop ------------------------------------------------------
 *
 * The controller's life is libuv's, as the proxy's (live.h):
 *
 *     qc_control_start(loop, &params, &C, &err)  opens its sensor, actuator,
 *                          admin listener and timers on the host's loop and
 *                          returns at once (the first interval starts there)
 *     qc_control_drain(C)  what SIGTERM means: no new step, the apply under
 *                          way finishes, the final setting is applied within
 *                          drain_timeout, then it stops; a second call stops
 *                          at once (the command's second signal)
 *     qc_control_reload(C) what SIGHUP means (params.reload): 0 when taken
 *     qc_control_status_get(C, &st)  counts and state, from the loop's thread
 *     qc_control_close(C, on_closed, arg)  once C has stopped (its drain
 *                          over, or its duration's), its handles close and
 *                          on_closed(C, arg) is called from the loop -- the
 *                          last moment C may be read -- and C is freed. On a
 *                          controller still running it only registers: the
 *                          host stops it with qc_control_drain.
 *
 * No signal handler, no environment variable, nothing process-wide: the
 * command (control_cli.c) owns the loop and the signals. The host ignores
 * SIGPIPE. params is copied; the strings it points to must outlive C. A
 * failed start returns the error with *C NULL; what it had opened closes
 * on the loop's next turn. */
typedef struct ctl qc_control;

enum { QC_CONTROL_RUNNING = 0, QC_CONTROL_DRAINING, QC_CONTROL_STOPPED };

typedef struct qc_control_status {
    int state; /* QC_CONTROL_* */
    int admin_port; /* 0: none */
    unsigned long long intervals, missing, refused, applied, reloads, reload_failed;
    double setting; /* the last applied (NaN: none yet) */
    int series_failed; /* the series could not be written to its end */
} qc_control_status;

int qc_control_start(uv_loop_t *loop, const qc_control_params *o, qc_control **C, qc_err *err);
void qc_control_drain(qc_control *C);
int qc_control_reload(qc_control *C);
void qc_control_status_get(const qc_control *C, qc_control_status *st);
void qc_control_close(qc_control *C, void (*on_closed)(qc_control *C, void *arg), void *arg);

#endif
