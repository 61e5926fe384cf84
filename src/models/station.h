/* SPDX-License-Identifier: GPL-3.0-or-later */
/* station.h: a service station of c servers, FCFS or processor sharing,
 * on the simulation kernel; shared by every model that has one (the open
 * queue, the MaxUsers server, ...). Internal to libqctl (qc__ prefix).
 *
 * Invariants between events: n jobs are present; FCFS: min(n, c) are in
 * service on distinct servers, the rest wait in arrival order in a ring;
 * PS: all n share the c servers, each served at rate r(n) = min(1, c/n).
 *
 * Processor sharing runs in virtual time: V grows at rate r(n), so a job
 * arriving at V0 with requirement S leaves when V = V0 + S. Jobs sit in a
 * min-heap of these finish tags and only the earliest has a pending
 * event, cancelled and rescheduled when n changes. V restarts at 0 when
 * the station empties, which keeps the tags small and exact.
 *
 * The caller must call qc__station_advance(st, now) at every event before
 * anything changes n (it moves PS virtual time), then deliver departures
 * of this station's event types to qc__station_depart. */
#ifndef QCTL_STATION_H
#define QCTL_STATION_H

#include <stdint.h>

#include "qctl/queue.h"
#include "qctl/sim.h"

typedef struct qc__job {
    double arr;    /* arrival time */
    double svc;    /* service requirement */
    uint64_t tag;  /* the model's own: a chunk, a user, a class */
} qc__job;

typedef struct qc__psjob {
    double finish; /* virtual finish tag */
    qc__job job;
} qc__psjob;

typedef struct qc__station {
    qc_sim *sim;
    qc_discipline disc;
    unsigned c;
    uint64_t n;
    uint32_t ev_depart; /* event type of a departure (FCFS data = server) */
    int dep_src;        /* >= 0: one FCFS server whose departures are this
                           kernel source (qc__station_departures_source) */
    /* FCFS */
    qc__job *insvc;
    unsigned *freesrv;
    unsigned nfree;
    qc__job *ring;
    size_t rcap, rhead, rlen;
    /* PS */
    qc__psjob *ps;
    size_t pscap;
    double V, vlast;
    int64_t ps_handle;
} qc__station;

/* Allocates the station (room for `hint` jobs before growing). QC_ENOMEM. */
int qc__station_init(qc__station *st, qc_sim *sim, qc_discipline disc, unsigned c,
                     size_t hint, uint32_t ev_depart);
void qc__station_free(qc__station *st);
/* Empty again (after qc_sim_reset), keeping the memory. */
void qc__station_reset(qc__station *st);

/* Makes the departures of a one-server FCFS station a source of the
 * kernel (qctl/sim.h), index src, declared by the caller with the type
 * ev_depart: a departure is then a compare, not a push and a pop. At
 * equal times a source of a lower index leaves first, as a scheduled
 * event leaves before every source: give the departures a lower index
 * than the arrivals and the order of events is the same as through the
 * heap. Its jobs then come and go through qc__station_one_arrive and
 * qc__station_one_depart only. QC_EINVAL unless FCFS with c = 1. */
int qc__station_departures_source(qc__station *st, int src);

/* Moves PS virtual time to now; call at every event before n changes. */
QC_HOT void qc__station_advance(qc__station *st, double now)
{
    if (st->disc == QC_PS) {
        double r = st->n <= st->c ? 1.0 : (double)st->c / (double)st->n;
        st->V += (now - st->vlast) * r;
        st->vlast = now;
    }
}

/* ---- the job containers (the station's, and multiclass.c's per class) --- */

/* A ring of jobs: len of them from *head in (*ring)[0..*cap). Twice the
 * room (64 when it has none), the jobs moved to the start (*head = 0).
 * QC_ENOMEM with the ring unchanged. */
int qc__ring_grow(qc__job **ring, size_t *cap, size_t *head, size_t len);

/* A binary heap of processor-sharing jobs by virtual finish tag, n of them
 * in (*h)[0..*cap): adds job, whose tag is finish, growing the heap as a
 * ring grows. QC_ENOMEM with the heap unchanged. */
int qc__psheap_push(qc__psjob **h, size_t *cap, size_t n, double finish, const qc__job *job);

/* Takes the job of the least finish tag into *out; n: the jobs left once
 * it is gone. */
void qc__psheap_pop(qc__psjob *h, size_t n, qc__job *out);

/* Out-of-line parts of the two below: doubling the FCFS ring when it is
 * full (QC_ENOMEM), and every processor-sharing arrival and departure. */
int qc__station_grow(qc__station *st);
int qc__station_ps_arrive(qc__station *st, const qc__job *job);
int qc__station_ps_depart(qc__station *st, qc__job *out);

/* Starts job j on free FCFS server s: schedules its departure. */
QC_HOT int qc__station_start(qc__station *st, unsigned s, const qc__job *j)
{
    st->insvc[s] = *j;
    int64_t h = qc_sim_after(st->sim, j->svc, st->ev_depart, s);
    return h < 0 ? (int)h : 0;
}

/* A job arrives now at a FCFS station; schedules what it must. QC_ENOMEM. */
QC_HOT int qc__station_fcfs_arrive(qc__station *st, const qc__job *job)
{
    st->n++;
    if (st->nfree > 0)
        return qc__station_start(st, st->freesrv[--st->nfree], job);
    if (st->rlen == st->rcap && qc__station_grow(st) != 0)
        return QC_ENOMEM;
    size_t pos = st->rhead + st->rlen;
    if (pos >= st->rcap)
        pos -= st->rcap;
    st->ring[pos] = *job;
    st->rlen++;
    return 0;
}

/* A job arrives now; schedules what it must. QC_ENOMEM. FCFS is inline
 * here: it is every event of the common open queue. */
QC_HOT int qc__station_arrive(qc__station *st, const qc__job *job)
{
    if (st->disc != QC_FCFS)
        return qc__station_ps_arrive(st, job);
    return qc__station_fcfs_arrive(st, job);
}

/* Server s of a FCFS station finished its job, now in *out; starts the
 * next waiting one there. */
QC_HOT int qc__station_fcfs_depart(qc__station *st, unsigned s, qc__job *out)
{
    st->n--;
    *out = st->insvc[s];
    if (st->rlen > 0) {
        const qc__job *next = &st->ring[st->rhead];
        if (++st->rhead == st->rcap)
            st->rhead = 0;
        st->rlen--;
        return qc__station_start(st, s, next);
    }
    st->freesrv[st->nfree++] = s;
    return 0;
}

/* Handles this station's departure event ev; *out is the job that left.
 * Starts the next job (FCFS) or reschedules (PS). */
QC_HOT int qc__station_depart(qc__station *st, const qc_event *ev, qc__job *out)
{
    if (st->disc != QC_FCFS)
        return qc__station_ps_depart(st, out);
    return qc__station_fcfs_depart(st, (unsigned)ev->data, out);
}

/* The one-server station of qc__station_departures_source keeps every
 * job in the ring, the one in service at its head, and the ring's length
 * in n alone: a job is copied once, into the ring, where the path above
 * copies it to its server and back out, and no server is looked for. */

/* A job arrives now; starts it at once when the server is idle.
 * QC_ENOMEM. */
QC_HOT int qc__station_one_arrive(qc__station *st, const qc__job *job)
{
    if (st->n == st->rcap) {
        st->rlen = st->n;
        if (qc__station_grow(st) != 0)
            return QC_ENOMEM;
    }
    size_t pos = st->rhead + st->n;
    if (pos >= st->rcap)
        pos -= st->rcap;
    st->ring[pos] = *job;
    if (st->n++ != 0)
        return 0;
    return qc__sim_source_set(st->sim, (unsigned)st->dep_src, st->sim->now + job->svc);
}

/* The job in service leaves now: *out points to it (valid until the next
 * arrival); the next waiting one, if any, starts, else the departures'
 * source goes idle (for qc__sim_next2, which leaves that to the model). */
QC_HOT int qc__station_one_depart(qc__station *st, const qc__job **out)
{
    *out = &st->ring[st->rhead];
    if (++st->rhead == st->rcap)
        st->rhead = 0;
    double next = --st->n == 0 ? (double)INFINITY : st->sim->now + st->ring[st->rhead].svc;
    return qc__sim_source_set(st->sim, (unsigned)st->dep_src, next);
}

/* Number of busy servers: min(n, c). */
QC_HOT unsigned qc__station_busy(const qc__station *st)
{
    return st->n < st->c ? (unsigned)st->n : st->c;
}

#endif
