/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/controller.h: discrete-time controllers as step objects.
 *
 * A controller is sampled once per control interval: the plant measures,
 * calls qc_pi_step with the reference and the measurement, and applies the
 * actuation it returns. No clock, no I/O and no allocation in the step, so
 * the same object drives a simulated plant, the live proxy, or a user's
 * own server.
 *
 * The PI law in positional form, with e(k) = r(k) - y(k):
 *
 *     I(k) = I(k-1) + K_I e(k)                 (integrator)
 *     v(k) = K_P e(k) + I(k)                   (unsaturated actuation)
 *     u(k) = min(max(v(k), u_min), u_max)      (what is applied)
 *
 * With K_P = 0 this is the integral controller of the MaxUsers work,
 * u(k) = u(k-1) + K_I e(k), for as long as u stays inside its limits.
 * When it does not, the integrator winds up: it keeps accumulating error
 * that the saturated actuator cannot act on, and the loop overshoots when
 * it comes back. Two standard cures are offered:
 *
 *   conditional integration (clamping): when e(k) pushes v beyond a limit,
 *       the integrator moves only as far as the value that puts v at that
 *       limit (it integrates freely inside the limits and stops at them);
 *   back-calculation: I(k) = I(k-1) + K_I e(k) + K_AW (u(k) - v(k)), so
 *       that the integrator is pulled back toward the limit at rate K_AW
 *       (K_AW = 1 makes I track the limit exactly).
 *
 * Ownership: plain values; nothing to free. */
#ifndef QCTL_CONTROLLER_H
#define QCTL_CONTROLLER_H

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_antiwindup {
    QC_AW_NONE = 0,
    QC_AW_CONDITIONAL = 1,
    QC_AW_BACKCALC = 2
} qc_antiwindup;
const char *qc_antiwindup_name(qc_antiwindup v);
int qc_antiwindup_parse(const char *s, qc_antiwindup *v, qc_err *err);

typedef struct qc_pi_params {
    double kp, ki;       /* gains; kp = 0 gives integral control */
    double u_min, u_max; /* actuator limits, u_min < u_max */
    double u_init;       /* actuation before the first step */
    qc_antiwindup aw;
    double k_aw;         /* back-calculation gain, in (0, 1] */
} qc_pi_params;

typedef struct qc_pi {
    qc_pi_params p;
    double integ; /* I(k-1) */
} qc_pi;

typedef struct qc_pi_sense {
    double r; /* reference */
    double y; /* measurement */
} qc_pi_sense;

typedef struct qc_pi_act {
    double u;      /* actuation to apply, within the limits */
    double v;      /* what the law asked for before saturation */
    int saturated; /* -1 at u_min, +1 at u_max (as asked or beyond), 0 inside */
} qc_pi_act;

/* Checks the parameters (finite gains, u_min < u_max, u_init within the
 * limits, k_aw in (0, 1] for back-calculation) and starts the integrator
 * at u_init. */
int qc_pi_init(qc_pi *c, const qc_pi_params *p, qc_err *err);

/* One sample of the law. Never fails on finite input; a NaN measurement
 * holds the previous actuation (a lost sample) and returns QC_EINVAL. */
int qc_pi_step(qc_pi *c, const qc_pi_sense *in, qc_pi_act *out);

/* The MaxUsers controller: the PI law above on a limit u (MaxUsers, or
 * the gate of a limiter) with a demand hold. It is the one controller
 * `qctl sim maxusers` runs on the simulated server and the MAXUSERS
 * limiter runs in `qctl proxy` and in a user's server.
 *
 * Sampled at instant k, it sees the reference r(k), the measurement y(k)
 * and `peak`, the most users (or requests) admitted at once during
 * (k-1, k] under the limit u(k-1) then in force. When
 *
 *     peak < floor(u(k-1))   and   y(k) < r(k)
 *
 * the limit was not binding (nobody was refused) and the error asks for
 * a higher one: raising it would change nothing now, and the integrator
 * would wind up above the demand (up to u_max), so that when the demand
 * returns the limit lets a burst through and takes many intervals to come
 * back down. The controller then holds: u(k) = u(k-1) and the integrator
 * does not move. This is conditional integration for an actuator that the
 * demand, not u_max, saturates. In every other case it is qc_pi_step.
 * A NaN peak means "unknown" and never holds. */
typedef struct qc_mu_ctl {
    qc_pi pi;
    double u; /* the limit in force, u(k-1) */
} qc_mu_ctl;

typedef struct qc_mu_ctl_sense {
    double r, y;  /* reference and measurement at the instant */
    double peak;  /* most admitted at once under the limit in force (NaN: unknown) */
} qc_mu_ctl_sense;

typedef struct qc_mu_ctl_act {
    double u;      /* the limit for the next interval */
    int saturated; /* as qc_pi_act: -1 at u_min, +1 at u_max, 0 inside */
    int held;      /* 1: the demand hold applied (u unchanged) */
} qc_mu_ctl_act;

/* qc_pi_init, and u = u_init. */
int qc_mu_ctl_init(qc_mu_ctl *c, const qc_pi_params *p, qc_err *err);

/* One sample. A non-finite y or r holds u and returns QC_EINVAL. */
int qc_mu_ctl_step(qc_mu_ctl *c, const qc_mu_ctl_sense *in, qc_mu_ctl_act *out);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
