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

/* Defaults: integral control (kp 0, ki 0.1) on [0, 1000] from u_init 0,
 * conditional anti-windup, back-calculation gain 1 (used only with
 * QC_AW_BACKCALC). The limits and gains are the plant's to set. */
void qc_pi_params_init(qc_pi_params *p);

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

/* Puts the limit at u (clamped to the limits) and the integrator with
 * it, as if the controller had arrived there: a bumpless restart, used
 * when the reference is first estimated (qc_knee, below). */
void qc_mu_ctl_reset(qc_mu_ctl *c, double u);

/* The knee of a server's latency curve, and the MaxUsers reference placed
 * just past it (in the spirit of TCP Vegas and Netflix's Gradient2: track
 * the no-load latency, and hold the concurrency where latency starts to
 * rise).
 *
 * Below its knee a server runs each request at once and its latency is
 * the no-load latency L0; beyond it requests queue inside the server and
 * the latency grows, L = y / X (Little: y in flight, X completions a
 * second), while the throughput stays at the capacity. The knee is the
 * concurrency where the two meet: n* = X L0. So each interval with
 * completions gives the sample n = X L0:
 *
 *   measured (the latency rose, mean > L0 (1 + rise), while the interval
 *       held y = X mean >= max(1, knee) requests on average, its gate
 *       was full at some instant, peak >= limit, and n >= 1, a knee a
 *       server can have): the server queues and X is its capacity, so n
 *       is the knee: knee += gain (n - knee);
 *       Only while the throughput is within 10% of its best of late
 *       (decaying 1% an interval): latency that rose while throughput fell
 *       is not the server's capacity (a host short of CPU, or a limit
 *       already below the knee), and lowering the knee on it would spiral
 *       the limit down; the knee is then kept;
 *   not measured: n = X L0 is at most the workers busy, so it is a lower
 *       bound: knee = max(knee, n), the estimate only grows (a slow start:
 *       the reference grows by (1 + headroom) an interval while the
 *       latency stays flat). A latency risen at a light load is not a
 *       measure: an M/M/1 server's L = L0 / (1 - rho) is 20% above L0 from
 *       rho = 1/6 on, and host jitter raises any server's; n = rho c there
 *       is the knee scaled down by the load, and the other conditions
 *       (the workers busy on average, the demand above the limit, n >= 1)
 *       reject it; n < 1 also rejects an interval in which a loaded host
 *       stalled the server, and an interval under half the one before
 *       (a plant's timer catching up after a stall, its completions
 *       bunched) is no measure either.
 *
 * The reference is r = knee (1 + headroom), clamped to [r_min, r_max];
 * until a knee is measured it is r_init at least (the light-load floor: a
 * reference on the lower bound of a light load would queue in front of
 * the server what the server would run at once), and no probe runs:
 * in a saturated server it holds headroom x knee requests queued inside
 * it, so its workers never idle between two requests (throughput stays
 * at the capacity) while the latency stays at L0 (1 + headroom).
 *
 * L0 is the least latency seen. Under sustained overload every request
 * queues in the server, so its least latency is above L0; L0 is then
 * kept, never raised by it (raising it would raise the knee, which raises
 * the queue and the least latency: a ratchet). A server that became
 * slower for good would be under-estimated for ever and the reference
 * would fall with it (X L0 shrinks as the limit does), so every
 * probe_period seconds the reference is lowered to knee / 2 until an
 * interval ran with at most knee requests at once (no queue inside the
 * server): its least latency is then the new L0 (a probe lasts at most
 * 10 intervals; BBR's ProbeRTT and Vegas' probe do the same).
 * A plant that knows the mean time of the requests that met the servers
 * idle gives it instead (qc_knee_set_noload; the admission front does):
 * the least latency is the mean only of deterministic services, and of
 * exponential ones a few per cent of it.
 *
 * The no-load latency also scales the queue in front of the server: see
 * qc_knee_queue_target. */
typedef struct qc_knee_params {
    double headroom;     /* r = knee (1 + headroom); default 0.5 */
    double rise;         /* latency above L0 (1 + rise) is queueing; 0.2 */
    double gain;         /* smoothing of the knee samples while queueing; 0.3 */
    double r_min, r_max; /* bounds of the reference; 1 and 1000 */
    double r_init;       /* the least reference until a knee is measured; 10 */
    double probe_period; /* seconds between probes of L0 (0: none); 10 */
} qc_knee_params;

typedef struct qc_knee {
    qc_knee_params p;
    double l0;         /* the no-load latency (NAN before a sample) */
    double knee;       /* the knee (NAN before a sample) */
    double r;          /* the reference in force */
    double next_probe; /* the instant of the next probe (NAN: not set) */
    double probe_min;  /* least latency seen while probing */
    int probing;       /* intervals probed so far (0: not probing) */
    double x_max;      /* the best throughput of late (decays 1% an interval) */
    int found;         /* the knee was measured once (not a lower bound) */
    double dt_prev;    /* the last interval's length (0: none yet) */
    int l0_given;      /* l0 is the plant's (qc_knee_set_noload): kept */
} qc_knee;

typedef struct qc_knee_sense {
    double t;    /* the instant, seconds */
    double dt;   /* the interval's length, seconds */
    double n;    /* completions in the interval */
    double mean; /* their mean latency, seconds */
    double min;  /* their least latency, seconds */
    double peak; /* the most in flight at once during the interval */
    double limit; /* the limit in force during it (0: not known, not checked) */
} qc_knee_sense;

typedef struct qc_knee_act {
    double r;    /* the reference for the next interval */
    int first;   /* 1: the first interval that measured the knee: r is
                    the knee's measure, no longer a lower bound */
    int probing; /* 1: a probe of L0 is under way */
} qc_knee_act;

/* Defaults above. */
void qc_knee_params_init(qc_knee_params *p);
/* Checks p (QC_ERANGE naming the field) and starts with r = r_init. */
int qc_knee_init(qc_knee *k, const qc_knee_params *p, qc_err *err);
/* One interval. An interval without completions (n < 1, or a latency
 * that is not a number >= 0) changes nothing. Never fails. */
void qc_knee_step(qc_knee *k, const qc_knee_sense *in, qc_knee_act *out);
/* The least latency of a live sample, folded into L0 at once (between
 * steps), so a plant has L0 from the first completion. */
void qc_knee_observe_min(qc_knee *k, double latency);
/* The plant's own no-load latency: the mean time of the requests that met
 * the servers idle (the admission front's L0, qc_front_noload). From then
 * on it is L0, and neither the least latency seen nor a probe replaces
 * it: the least of exponential services is a few microseconds, and n = X
 * L0 then put the knee of 4 workers of exp:20 far under one and MaxUsers'
 * reference at its floor. Ignored unless > 0 and finite. */
void qc_knee_set_noload(qc_knee *k, double l0);

/* The target wait of a queue in front of the server (CoDel's target):
 * one no-load latency, so that a request let in after waiting it spends
 * at most twice the server's own time in the system before it starts; at
 * least lo, at most hi; `fallback` before L0 is known (l0 not > 0). */
double qc_knee_queue_target(double l0, double lo, double hi, double fallback);
/* CoDel's interval for a target: how long the head of the queue may wait
 * beyond the target before the queue is declared standing. 4 targets: a
 * burst of 4 service times' work per slot is absorbed. */
double qc_knee_queue_interval(double target);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
