/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/proxysim.h: the simulated twin of `qctl proxy`: the proxy's
 * admission front in front of simulated backends, driven by simulated
 * clients, so that a user can tell what the proxy will do to their
 * traffic before running it.
 *
 * The plant is what the live proxy sits between:
 *   clients   per class, open loop (any arrival spec of qctl/arrivals.h:
 *             renewal, Poisson, sin/curve/steps rate schedules, traces,
 *             hence traffic models turned into traces) or closed loop
 *             (users that think, send, wait for the answer, think again);
 *   backends  B of them, each a FCFS queue with c workers and a service
 *             law (any qc_dist), as `qctl backend --workers c --service`;
 *             a request the proxy lets in goes to one of them by the
 *             proxy's routing: jsq (fewest in flight, ties taken in
 *             turn, as the live fleet does) or delay-JSQ (qc_djsq_route
 *             of qctl/fleet.h, every backend on);
 *   the proxy's control-interval timer, every `interval` seconds.
 * What decides (admit, wait, refuse with a reason, which waiting request
 * goes next, which expired ones are refused, the limit) is the proxy's
 * admission front, the qc_front object of qctl/front.h that `qctl proxy`
 * holds, built from the same parameters: the limiter of qctl/limiter.h
 * stepped on its declared cadence, the class waiting rooms with their
 * deadlines, the discipline of qctl/codel.h (FIFO, or CoDel's standing
 * test with adaptive LIFO), SFQ between classes (qctl/sfq.h) and, under
 * the admission limiter, the classes' admission control. The model only
 * moves requests and time, and tells the front the events.
 *
 * What it reports is what the proxy reports, measured from the client:
 * goodput (answers that were not refusals, per second), the admitted
 * requests' latency (arrival at the proxy to answer: wait + time at the
 * backend) mean and p50/p95/p99, the fraction refused in all and by
 * reason, the time in the waiting room, the mean limit, per class and in
 * all; every figure over R independent replications with a Student-t
 * interval (R = 1: the value alone, no interval). Each replication runs
 * `warmup` seconds unmeasured, then `horizon` seconds measured; a request
 * counts in the window it arrived in; those still unanswered at the end
 * are left out of the fractions.
 *
 * Ownership: qc_psim_run fills a caller-owned result that
 * qc_psim_result_free releases; the parameters point to caller-owned
 * distributions and arrival processes. Errors: 0 or a negative QC_E*
 * code with a message naming the field. */
#ifndef QCTL_PROXYSIM_H
#define QCTL_PROXYSIM_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/arrivals.h"
#include "qctl/cancel.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/hist.h"
#include "qctl/limiter.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_PSIM_CLASSES_MAX 8
#define QC_PSIM_BACKENDS_MAX 64
#define QC_PSIM_USERS_MAX 1000000

typedef enum qc_psim_route { QC_PSIM_JSQ = 0, QC_PSIM_DJSQ } qc_psim_route;
const char *qc_psim_route_name(qc_psim_route v);
int qc_psim_route_parse(const char *s, qc_psim_route *v, qc_err *err);

/* The waiting room's discipline, the proxy's --queue-discipline. */
typedef enum qc_psim_discipline { QC_PSIM_FIFO = 0, QC_PSIM_CODEL } qc_psim_discipline;
const char *qc_psim_discipline_name(qc_psim_discipline v);
int qc_psim_discipline_parse(const char *s, qc_psim_discipline *v, qc_err *err);

/* Why a request was refused (the proxy's 503s). */
typedef enum qc_psim_reason {
    QC_PSIM_FULL = 0, /* no slot and the waiting room full */
    QC_PSIM_DEADLINE, /* waited its class's deadline out */
    QC_PSIM_STANDING, /* the queue stood (CoDel) and it had waited past the target */
    QC_PSIM_REJECTED, /* its class was rejected by admission control */
    QC_PSIM_NREASONS
} qc_psim_reason;
/* "full", "deadline", "standing", "rejected" (the front's words). */
const char *qc_psim_reason_name(qc_psim_reason v);

typedef struct qc_psim_class {
    const char *name;
    const qc_arrivals *arrival; /* open loop; NULL with users > 0 */
    unsigned users;             /* closed loop: users (arrival NULL) */
    const qc_dist *think;       /* closed loop: think time (NULL: none) */
    const qc_dist *service;     /* its own service law, or NULL: the backends' */
    double bound;               /* its wait deadline, s (0: queue_timeout);
                                   under the admission limiter its delay
                                   bound (0: best effort) */
    int candidate;              /* admission limiter: starts a candidate */
} qc_psim_class;

typedef void (*qc_psim_progress_fn)(void *ctx, double fraction);

typedef struct qc_psim_params {
    /* the backends */
    unsigned backends;       /* B >= 1 */
    unsigned workers;        /* c >= 1 per backend */
    const qc_dist *service;  /* service time at a backend */
    qc_psim_route route;
    unsigned threshold;      /* delay-JSQ's T >= 1 */
    const qc_dist *overhead; /* added to every answer's latency as its
                                client sees it, drawn per answer: the time
                                the proxy, the network and the client's
                                host add (NULL: none). det:X, or
                                empirical:FILE of latencies measured at no
                                load; the front does not see it */
    const qc_dist *transit;  /* the time an answer takes from the end of
                                its service (its worker free at once) to
                                the proxy, its slot still held: what the
                                proxy measures at a backend beyond the
                                service itself (the network both ways, the
                                backend's timer and loop), drawn per
                                answer (NULL: none). The front sees it (in
                                the slot's time and in the time at the
                                backend it is told), and so does the
                                client's latency */
    /* the proxy (the flags of `qctl proxy`) */
    int control;                /* 0: --limiter none (every request let in) */
    qc_limiter_params limiter;  /* as the proxy's --limiter and its flags */
    double interval;            /* control interval, s (0.1) */
    unsigned queue;             /* waiting room (128; 0: refuse at once) */
    double queue_timeout;       /* default wait deadline, s (1; INFINITY: none) */
    qc_psim_discipline discipline; /* CODEL (the proxy's default) */
    double queue_target;        /* codel target, s (0: adaptive) */
    unsigned sample_every;      /* the limiter's sampler: 0, one sample per
                                   interval (the proxy's); N, per N completions */
    unsigned sample_least;      /* sample_every = 0: completions a window holds
                                   at least (32, the proxy's; qctl/front.h) */
    /* the clients */
    qc_psim_class cls[QC_PSIM_CLASSES_MAX];
    unsigned nclasses; /* >= 1 */
    /* the run */
    double horizon; /* measured seconds per replication, > 0 */
    double warmup;  /* unmeasured seconds first, >= 0 */
    unsigned reps;  /* >= 1 */
    uint64_t seed;
    double level;
    double series_dt; /* > 0: the limit, in flight and waiting of
                         replication 1 every series_dt (a multiple of the
                         interval is what the proxy's --series shows) */
    unsigned jobs;    /* replications at once on that many threads; the
                         result is the same for any value */
    qc_psim_progress_fn progress;
    void *progress_ctx;
    const qc_cancel *cancel;
    uint64_t service_seed;   /* 0: each replication draws its own service
                                times. S > 0: every replication serves the
                                one sequence `qctl backend --seed S` draws
                                (its stream, shared by the classes in the
                                order services start; one backend, one
                                service law): the twin of one live run,
                                dice included, as a trace: arrival is of
                                its instants */
} qc_psim_params;

/* The proxy's defaults (limiter maxusers with its own defaults, interval
 * 0.1 s, room 128, deadline 1 s, codel with an adaptive target), one
 * backend of 1 worker, jsq with T = 4, no overhead, 10 replications of
 * 60 s after 5 s, seed 1, level 0.95. The classes and the service law
 * are left for the caller (nclasses 0). */
void qc_psim_params_init(qc_psim_params *p);

typedef enum qc_psim_metric {
    QC_PSIM_OFFERED = 0, /* arrivals per second */
    QC_PSIM_GOODPUT,     /* answered, not refused, per second */
    QC_PSIM_LATENCY,     /* admitted: mean arrival-to-answer */
    QC_PSIM_P50,
    QC_PSIM_P95,
    QC_PSIM_P99,
    QC_PSIM_WAIT,        /* admitted: mean time in the waiting room */
    QC_PSIM_REFUSED,     /* fraction of the answered arrivals refused */
    QC_PSIM_REFUSED_FULL, /* the same by reason, in qc_psim_reason order */
    QC_PSIM_REFUSED_DEADLINE,
    QC_PSIM_REFUSED_STANDING,
    QC_PSIM_REFUSED_REJECTED,
    QC_PSIM_NMETRICS
} qc_psim_metric;
/* "offered", "goodput", "latency", "latency_p50", ... */
const char *qc_psim_metric_name(qc_psim_metric v);

typedef struct qc_psim_series_point {
    double t, limit; /* limit: the published one (NAN: no control) */
    double inflight, waiting;
} qc_psim_series_point;

typedef struct qc_psim_result {
    qc_ci all[QC_PSIM_NMETRICS];
    qc_ci cls[QC_PSIM_CLASSES_MAX][QC_PSIM_NMETRICS];
    qc_ci limit;        /* the published limit, mean over the ticks (NAN: none) */
    qc_ci utilization;  /* the backends' workers busy, fraction */
    double offered_load; /* open-loop mean rate x mean service / (B c) (NAN: closed) */
    int rejected[QC_PSIM_CLASSES_MAX]; /* replications in which the class ended rejected */
    uint64_t requests;  /* arrivals measured, all replications */
    uint64_t events;
    qc_hist *latency_hist; /* admitted latencies, all replications, all classes */
    qc_psim_series_point *series;
    size_t series_len;
} qc_psim_result;

/* Runs the replications. QC_EINVAL naming the field for a bad parameter
 * (checked before anything runs), QC_ENOMEM, QC_ECANCELED. On error the
 * result holds nothing to free. */
int qc_psim_run(const qc_psim_params *p, qc_psim_result *r, qc_err *err);

/* The checks qc_psim_run makes before it simulates, alone: 0, or
 * QC_EINVAL with the field named in err. `qctl sim proxy --check`
 * answers from it. */
int qc_psim_params_check(const qc_psim_params *p, qc_err *err);
void qc_psim_result_free(qc_psim_result *r);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
