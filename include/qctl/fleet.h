/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/fleet.h: delay-JSQ routing over removable servers, the one rule
 * that both the simulated pool (`qctl sim pool --policy djsq`) and the
 * live proxy's fleet (`qctl proxy --route djsq`) apply.
 *
 * The caller describes each server by its power state, the requests it
 * holds (in service, queued, or waiting for its setup) and when it last
 * fell idle; the rule picks the server for one new request:
 *
 *   1. the shortest non-empty queue, while it holds at most T requests
 *      with the new one (ties: ON before SETUP, then the lowest index);
 *   2. else the idle ON server that fell idle last (its idle timer is the
 *      furthest from firing, which leaves the others free to switch off;
 *      ties: the lowest index);
 *   3. else a SETUP server with an empty queue (turned on for another
 *      reason, such as a minimum number on: better to wait for it than to
 *      turn on one more);
 *   4. else the first OFF server, when the caller allows one more on;
 *   5. else plain JSQ: the shortest non-empty queue.
 *
 * A server marked QC_DJSQ_SKIP takes no new request (switching off, or
 * avoided by the caller). The result is an index, or -1 when no server
 * can take the request. The caller then applies it: an OFF server chosen
 * is to be turned on and the request waits for it.
 *
 * No state, no clock and no allocation: the simulation fills the array
 * from its servers at each arrival, the proxy from its backends, and a
 * test from a hand-written sequence; the answer depends only on the
 * array. */
#ifndef QCTL_FLEET_H
#define QCTL_FLEET_H

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_djsq_state {
    QC_DJSQ_OFF = 0,
    QC_DJSQ_SETUP = 1,
    QC_DJSQ_ON = 2,
    QC_DJSQ_SKIP = 3
} qc_djsq_state;
const char *qc_djsq_state_name(qc_djsq_state v);
int qc_djsq_state_parse(const char *s, qc_djsq_state *v, qc_err *err);

typedef struct qc_djsq_server {
    qc_djsq_state state;
    unsigned queue;    /* requests it holds (in service, queued, waiting) */
    double idle_since; /* ON with an empty queue: since when */
} qc_djsq_server;

/* The server for one new request among s[0..n), with threshold T >= 1;
 * may_turn_on = 0 forbids choosing an OFF server (step 4). Returns its
 * index, or -1 when every server is OFF or SKIP and none may be turned
 * on (or n = 0). */
int qc_djsq_route(const qc_djsq_server *s, unsigned n, unsigned threshold, int may_turn_on);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
