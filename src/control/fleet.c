/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fleet.c: delay-JSQ routing (the rule is stated in qctl/fleet.h).
 *
 * One scan classifies every server: the shortest non-empty queue, the
 * idle ON server idle last, the first SETUP server with an empty queue
 * and the first OFF server; the order of the rule's steps then picks. */
#include "qctl/fleet.h"
#include "core/names.h"

int qc_djsq_route(const qc_djsq_server *s, unsigned n, unsigned threshold, int may_turn_on)
{
    int best = -1, idle = -1, setup = -1, off = -1;
    unsigned bestq = 0;
    int best_on = 0;
    for (unsigned i = 0; i < n; i++) {
        const qc_djsq_server *v = &s[i];
        int on = v->state == QC_DJSQ_ON;
        if (v->state == QC_DJSQ_SKIP) {
            continue;
        } else if (v->state == QC_DJSQ_OFF) {
            if (off < 0)
                off = (int)i;
        } else if (v->queue > 0) {
            if (best < 0 || v->queue < bestq || (v->queue == bestq && on && !best_on)) {
                best = (int)i;
                bestq = v->queue;
                best_on = on;
            }
        } else if (!on) {
            if (setup < 0)
                setup = (int)i;
        } else if (idle < 0 || v->idle_since > s[idle].idle_since) {
            idle = (int)i;
        }
    }
    if (best >= 0 && bestq < threshold) /* with the new one: bestq + 1 <= T */
        return best;
    if (idle >= 0)
        return idle;
    if (setup >= 0)
        return setup;
    if (off >= 0 && may_turn_on)
        return off;
    return best;
}

static const char *const djsq_state_names[] = {"off", "setup", "on", "skip"};
QC__NAMES(qc_djsq_state, qc_djsq_state_name, qc_djsq_state_parse, djsq_state_names)
