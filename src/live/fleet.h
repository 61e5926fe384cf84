/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fleet.h: the proxy's backends as a fleet of removable servers: their
 * power states, the routing rule and the idle timer, apart from any I/O
 * so that the rules can be tested on synthetic sequences.
 *
 * A backend is OFF, SETUP (unparked: the unpark command has been run
 * and the proxy waits for its first healthy answer), ON, or PARKING (no
 * new requests; it goes OFF once its in-flight requests are answered and
 * the park command has run). This is the removable-server model of
 * qctl/pool.h, live: a backend's queue is what the proxy has in flight at
 * it plus the requests waiting for its setup to end.
 *
 *   jsq   every backend ON all the time; a request goes to the one with
 *         the fewest in flight (ties: round robin)
 *   djsq  delay-JSQ, pool.h's rule: the shortest non-empty queue while
 *         it holds at most T requests with the new one (ties: ON before
 *         SETUP, then the lowest index); else the idle ON backend that
 *         fell idle last; else an OFF backend is unparked (while fewer
 *         than max_on are ON or SETUP) and the request waits for it;
 *         else plain JSQ over the ON and SETUP backends
 *
 * An ON backend idle for idle_off seconds starts PARKING, unless that
 * would leave fewer than min_on backends ON or SETUP; the tick also
 * unparks OFF backends while fewer than min_on are ON or SETUP (after a
 * failed unpark a backend is not retried for a second). A backend whose
 * last connect failed is avoided for a second while another is eligible.
 *
 * The fleet keeps the accounting: seconds in each state per backend
 * (an energy-like total), unparks, and the setup durations measured
 * from the unpark to the first healthy answer.
 *
 * The caller owns the struct (no allocation); every function takes the
 * current time in seconds on one monotonic clock. Functions that change a
 * state return what the I/O layer must now do. */
#ifndef QCTL_LIVE_FLEET_H
#define QCTL_LIVE_FLEET_H

#include <stdint.h>

#include "qctl/error.h"
#include "qctl/live.h"

#define QC_FLEET_MAX 64

typedef enum { QC_FLEET_OFF = 0, QC_FLEET_SETUP, QC_FLEET_ON, QC_FLEET_PARKING } qc__fleet_state;
#define QC_FLEET_NSTATES 4

/* the routing and the parameters are the public ones (qctl/live.h) */
typedef qc_live_routing qc__fleet_routing;
typedef qc_live_fleet_params qc__fleet_params;

/* Upper bounds (seconds) of the setup histogram's buckets; +Inf last. */
#define QC_FLEET_SETUP_BUCKETS 9
extern const double qc__fleet_setup_le[QC_FLEET_SETUP_BUCKETS];

typedef struct qc__fleet_backend {
    qc__fleet_state state;
    unsigned inflight; /* sent and not yet answered */
    unsigned waiting;  /* routed here while SETUP, not yet sent */
    uint64_t answered, failed, unparks, parks, unpark_failures;
    double since;                  /* when the state began */
    double idle_since;             /* ON with an empty queue since */
    double unparked_at;            /* when the last unpark began */
    double down_until;             /* a failed connect or unpark: avoided until then */
    double time[QC_FLEET_NSTATES]; /* seconds in each state before `since` */
} qc__fleet_backend;

typedef struct qc__fleet {
    qc__fleet_params cfg;
    unsigned n, rr;
    qc__fleet_backend b[QC_FLEET_MAX];
    uint64_t setups;                            /* measured setups */
    double setup_sum, setup_max;                   /* their total and longest */
    uint64_t setup_bucket[QC_FLEET_SETUP_BUCKETS]; /* cumulative counts */
} qc__fleet;

const char *qc__fleet_state_name(qc__fleet_state s);

/* Checks cfg for n backends: QC_EINVAL naming the field, or 0. */
int qc__fleet_check(const qc__fleet_params *cfg, unsigned n, qc_err *err);

/* Starts the fleet: the first initially_on backends ON, the others OFF
 * (jsq: all ON). cfg must have passed qc__fleet_check. */
void qc__fleet_init(qc__fleet *f, const qc__fleet_params *cfg, unsigned n, double now);

/* Chooses the backend for a new request, or -1 when none can take it
 * (every backend OFF or PARKING and none may be unparked). When the
 * choice is an OFF backend it is unparked here (now SETUP) and
 * *unparked is set to 1: the caller runs the unpark. The caller then
 * calls qc__fleet_wait (SETUP) or qc__fleet_sent (ON). */
int qc__fleet_route(qc__fleet *f, double now, int *unparked);

/* How many backends are in state s. */
unsigned qc__fleet_count(const qc__fleet *f, qc__fleet_state s);

/* A request waits at SETUP backend i / leaves its wait (sent or gone). */
void qc__fleet_wait(qc__fleet *f, unsigned i);
void qc__fleet_unwait(qc__fleet *f, unsigned i, double now);
/* A request was sent to backend i. */
void qc__fleet_sent(qc__fleet *f, unsigned i);
/* A request sent to i ended (ok: answered, else failed). Returns 1 when
 * i is PARKING and now has nothing in flight: the caller parks it (runs
 * the park command, then qc__fleet_off). */
int qc__fleet_done(qc__fleet *f, unsigned i, int ok, double now);
/* A connect to i failed: avoid it for a second. */
void qc__fleet_connect_failed(qc__fleet *f, unsigned i, double now);

/* OFF -> SETUP (the caller runs the unpark). */
void qc__fleet_unpark(qc__fleet *f, unsigned i, double now);
/* SETUP -> ON at the first healthy answer; records the setup. */
void qc__fleet_ready(qc__fleet *f, unsigned i, double now);
/* SETUP -> OFF: the unpark failed or never became healthy. The caller
 * routes again the requests that waited at i. */
void qc__fleet_unpark_failed(qc__fleet *f, unsigned i, double now);
/* ON -> PARKING. Returns 1 when nothing is in flight at i (park now). */
int qc__fleet_park(qc__fleet *f, unsigned i, double now);
/* PARKING -> OFF, the park done. */
void qc__fleet_off(qc__fleet *f, unsigned i, double now);

/* The idle timer and min_on: parks the ON backends idle for idle_off (the
 * indices that must be parked now, nothing in flight, go to park[]) and
 * unparks OFF ones while fewer than min_on are ON or SETUP (to
 * unpark[]). Returns the counts in *npark and *nunpark. */
void qc__fleet_tick(qc__fleet *f, double now, unsigned *park, unsigned *npark, unsigned *unpark,
                    unsigned *nunpark);

/* Seconds backend i has spent in each state up to now. */
void qc__fleet_times(const qc__fleet *f, unsigned i, double now, double out[QC_FLEET_NSTATES]);

#endif
