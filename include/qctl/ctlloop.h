/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/ctlloop.h: the control loop of `qctl control`, a controller run
 * once per interval between a sensor and an actuator that belong to
 * another server (haproxy's maxconn or weight, pgbouncer's pool size, a
 * command), as a step object with no I/O, no clock and no allocation.
 *
 * At each sample instant the plant (the live loop of `qctl control`, or a
 * test) hands the step the sensor's value, or says it is missing; the
 * step returns the setting for the next interval and whether it was held.
 * The kinds:
 *
 *   STATIC    the setting stays at u_init (a hand-set maxconn, the
 *             reference a controlled run is compared with).
 *   INTEGRAL, PI  the MaxUsers controller (qc_mu_ctl of qctl/controller.h,
 *             the one `qctl sim maxusers`, `qctl gate` and the proxy run)
 *             with its anti-windup and demand hold, toward a reference
 *             schedule; u_init until control_from seconds.
 *   OPEN      identification: two levels switched by a PRBS (probability
 *             1/2 every `hold` intervals) or a square wave (every `hold`),
 *             from control_from on, so that `qctl sysid` fits a model of
 *             the real server and `qctl design` a gain.
 *   PARK      delay-JSQ parking of a fleet of servers behind a balancer
 *             whose routing is JSQ (haproxy's leastconn). Every interval
 *             the requests in the fleet n (in service and queued) set the
 *             servers needed, ceil(n / T) with T requests a server (the
 *             delay-JSQ threshold), at least min_on: when the servers on
 *             or starting are fewer, OFF servers are started (SETUP for
 *             `setup` seconds, then ON); when n has stayed within what one
 *             server fewer would hold (n <= T (on - 1)) for idle_wait
 *             seconds, the least loaded ON server is drained (no new
 *             request, its own finish) and switched OFF when empty. The
 *             job-level rule of qctl/fleet.h reads the same way at the
 *             scale of an interval: a server starts when every server on
 *             holds T, one stops after an idle timer.
 *
 * A missing sample (ok = 0) holds: the setting stays and, for the PI
 * kinds, the integrator does not move; so does an actuator that refused
 * the setting: qc_ctlloop_refused puts an integrating controller back on
 * the value last applied (a bumpless restart), so that it never
 * integrates toward a setting the server never took.
 *
 * Ownership: plain values; nothing to free. Errors: 0 or QC_EINVAL /
 * QC_ERANGE naming the parameter. */
#ifndef QCTL_CTLLOOP_H
#define QCTL_CTLLOOP_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/controller.h"
#include "qctl/error.h"
#include "qctl/rng.h"
#include "qctl/sched.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_ctlloop_kind {
    QC_CTLLOOP_STATIC = 0,
    QC_CTLLOOP_INTEGRAL = 1,
    QC_CTLLOOP_PI = 2,
    QC_CTLLOOP_OPEN = 3,
    QC_CTLLOOP_PARK = 4
} qc_ctlloop_kind;
const char *qc_ctlloop_kind_name(qc_ctlloop_kind v);

#define QC_CTLLOOP_REF_MAX 64
#define QC_CTLLOOP_SERVERS_MAX 64

/* A parked server's state, and what its balancer is told. */
typedef enum qc_park_state {
    QC_PARK_OFF = 0,   /* parked (haproxy: state maint) */
    QC_PARK_SETUP = 1, /* starting: still parked until its setup ends */
    QC_PARK_ON = 2,    /* taking requests (state ready) */
    QC_PARK_DRAIN = 3  /* finishing its requests, no new one (state drain) */
} qc_park_state;
const char *qc_park_state_name(qc_park_state v);

typedef struct qc_ctlloop_params {
    qc_ctlloop_kind kind;
    double u_init;                           /* the setting before control */
    qc_sched_point ref[QC_CTLLOOP_REF_MAX];  /* INTEGRAL, PI: the reference */
    size_t nref;
    double control_from; /* seconds at u_init before the loop or excitation */
    double ki, kp, u_min, u_max;
    qc_antiwindup aw;
    double k_aw;
    int steps;         /* OPEN: 1 a square wave, 0 a PRBS */
    double levels[2];  /* OPEN: the two settings, starting at levels[0] */
    unsigned hold;     /* OPEN: intervals between (possible) switches */
    uint64_t seed;     /* OPEN: the PRBS's seed */
    /* PARK */
    unsigned servers;  /* in the fleet, <= QC_CTLLOOP_SERVERS_MAX */
    unsigned min_on;   /* always on (>= 1) */
    double threshold;  /* T: requests a server holds before another starts */
    double idle_wait;  /* seconds of low load before one is drained */
    double setup;      /* seconds from start to taking requests */
} qc_ctlloop_params;

/* Defaults: STATIC, ki 0.1, limits [1, 1000], conditional anti-windup,
 * k_aw 1, hold 3, seed 1, T 4, idle_wait 10, setup 5, min_on 1. */
void qc_ctlloop_params_init(qc_ctlloop_params *p);

typedef struct qc_ctlloop {
    qc_ctlloop_params p;
    qc_mu_ctl mu;
    qc_rng rng;
    double u;          /* the setting in force */
    double applied;    /* the last setting the actuator took (NAN: none) */
    int level;
    unsigned long long k;           /* samples stepped */
    unsigned long long held_missing, held_refused, held_demand, saturated;
    /* PARK */
    qc_park_state state[QC_CTLLOOP_SERVERS_MAX];
    double since[QC_CTLLOOP_SERVERS_MAX]; /* SETUP: when it started */
    double low_since;  /* since when n <= T (on - 1) (NAN: not) */
    double t_prev;     /* the last instant (NAN: none) */
    double server_seconds; /* integral of the servers not OFF */
    unsigned long long starts, stops;
} qc_ctlloop;

typedef struct qc_ctlloop_sense {
    double t;    /* seconds from the start */
    int ok;      /* 0: the sample is missing (late, refused, unreachable) */
    double y;    /* the sensor's value */
    double peak; /* INTEGRAL, PI: the most admitted at once under the
                    setting in force (NAN: unknown, no demand hold) */
    /* PARK: the requests at each server and waiting in the balancer */
    const double *sessions;
    double queue;
} qc_ctlloop_sense;

typedef struct qc_ctlloop_act {
    double u;        /* the setting for the next interval */
    double r;        /* the reference in force (NAN: none) */
    int held;        /* 1: held (missing sample or the demand hold) */
    int saturated;   /* -1, 0, +1 as qc_mu_ctl_act */
    /* PARK: each server's state for the next interval, and how many on */
    const qc_park_state *state;
    unsigned on, starting;
} qc_ctlloop_act;

/* Checks p and starts the loop at u_init (PARK: min_on servers ON, the
 * others OFF). */
int qc_ctlloop_init(qc_ctlloop *c, const qc_ctlloop_params *p, qc_err *err);

/* One sample. Never fails; non-finite input counts as missing. */
void qc_ctlloop_step(qc_ctlloop *c, const qc_ctlloop_sense *in, qc_ctlloop_act *out);

/* The actuator took the setting u: it is the one to return to. */
void qc_ctlloop_applied(qc_ctlloop *c, double u);

/* The actuator refused (or could not be reached), counted as a hold: the
 * integral and PI controllers go back to the last setting applied (if
 * any); the others ask for their setting again at the next step. */
void qc_ctlloop_refused(qc_ctlloop *c);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
