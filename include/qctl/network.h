/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/network.h: networks of queues, simulated on the kernel with the
 * exact solution beside the estimate wherever theory gives one.
 *
 * A network is stations and classes. A station has c servers (or
 * infinitely many: a delay), a discipline (FCFS, processor sharing,
 * infinite server, non-preemptive or preemptive-resume priority), a
 * capacity K (an arrival finding K there is lost), a service distribution
 * per class, and may make customers balk (a probability by the number
 * found), renege (a patience distribution while waiting) or time out (a
 * fixed most time at the station, service included). A class is open
 * (an arrival process of qctl/arrivals.h: renewal, time-varying, trace)
 * or closed (a population that thinks, then enters). After service a
 * customer of class k at station i goes to station j as class l with
 * probability P[(i,k) -> (j,l)], or leaves; a closed customer who leaves
 * (served, lost, balked, reneged, timed out) thinks and enters again.
 * The customer's chain is the class it entered as: end-to-end figures
 * are per chain.
 *
 * Output analysis is sim queue's (docs/output-analysis.md): a
 * replication's measured window cut into chunks (by customers leaving the
 * network, or by time), the warm-up fixed or cut by MSER on the other
 * replications' mean series, intervals by replications (Student t) or
 * batch means of one run, and --precision doubling the replications.
 * Percentiles of the end-to-end response time come from the last half of
 * each replication's window (past any MSER cut), their interval by
 * sectioning over groups of replications.
 *
 * Exact values (qc_network_exact): open networks of FCFS exponential,
 * PS and IS stations with Poisson arrivals (Jackson / BCMP product
 * form); closed and mixed networks of such stations by exact MVA over
 * the chains (load-dependent for a single chain with multi-server
 * stations); and for a station whose arrivals are external Poisson only
 * (a one-station network, or the first station of a feed-forward line),
 * its own closed form: M/M/c/K, balking and Erlang-A as a birth-death
 * chain, M/G/1 priority (preemptive-resume and non-preemptive). Where no
 * exact form exists, a single closed chain gets balanced job bounds.
 *
 * Ownership: qc_network_load fills a caller-owned qc_network released by
 * qc_network_free; a result by qc_network_result_free. Errors: 0 or a
 * negative QC_E* code with a message naming FILE:LINE:COLUMN (malformed
 * JSON) or FILE: the field (e.g. "net.json: stations[1].servers: must
 * be an integer >= 1"). */
#ifndef QCTL_NETWORK_H
#define QCTL_NETWORK_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/arrivals.h"
#include "qctl/cancel.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/hist.h"
#include "qctl/queue.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_NET_MAX_STATIONS 32
#define QC_NET_MAX_CLASSES 8
#define QC_NET_NAME 32
#define QC_NET_CHUNKS 64

typedef enum qc_net_disc {
    QC_NET_FCFS = 0,
    QC_NET_PS,
    QC_NET_IS,      /* infinite server: a delay */
    QC_NET_PRIO,    /* non-preemptive priority, FCFS within a level */
    QC_NET_PRIO_PR  /* preemptive-resume priority */
} qc_net_disc;
const char *qc_net_disc_name(qc_net_disc d);

typedef struct qc_net_hop {
    double p;       /* probability */
    int station;    /* -1: leave the network */
    int cls;        /* class on arrival there */
} qc_net_hop;

typedef struct qc_net_station {
    char name[QC_NET_NAME];
    qc_net_disc disc;
    unsigned servers;           /* c; IS: 0 */
    uint64_t capacity;          /* K (0: unlimited) */
    /* when full: 0, an arrival is lost; 1, blocking after service: a
     * customer served at an FCFS or priority station upstream stays
     * there, holding its server, until a place here is free (FIFO among
     * the blocked); external arrivals and those from PS or IS stations
     * are still lost */
    int bas;
    qc_dist service[QC_NET_MAX_CLASSES];
    int has_service[QC_NET_MAX_CLASSES];
    double *balk;               /* balk[n]: probability of balking on
                                   finding n (the last for more) */
    size_t nbalk;
    qc_dist patience;           /* while waiting; kind NONE: none */
    double timeout;             /* most time at the station (0: none) */
} qc_net_station;

typedef struct qc_net_class {
    char name[QC_NET_NAME];
    int closed;
    qc_arrivals arrivals;       /* open */
    char arrival_spec[128];
    unsigned population;        /* closed */
    qc_dist think;              /* closed; kind NONE: no think time */
    int priority;               /* lower is served first */
    double entry[QC_NET_MAX_STATIONS]; /* where it enters (sums to 1) */
} qc_net_class;

typedef struct qc_network {
    unsigned nst, ncl;
    qc_net_station st[QC_NET_MAX_STATIONS];
    qc_net_class cl[QC_NET_MAX_CLASSES];
    /* routing of (station i, class k) at route[i * ncl + k]: its hops,
     * probabilities summing to at most 1, the rest leaving */
    qc_net_hop *route[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    unsigned nroute[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    /* MaxUsers on the front (optional, qctl/maxusers.h's step object):
     * the customers admitted behind front_station are at most the
     * controller's limit; those beyond wait at the front, FCFS. */
    int front;                   /* station index, or -1 */
    double ctl_reference;        /* target mean response behind the front */
    double ctl_dt;               /* sample interval */
    double ctl_gain;             /* integral gain (limit per s of error) */
    unsigned ctl_init, ctl_min, ctl_max;
} qc_network;

/* Reads the network from the JSON file at path (the format:
 * docs/networks.md), checking every field before anything runs. */
int qc_network_load(qc_network *net, const char *path, qc_err *err);
/* The same from text; name is used in messages. */
int qc_network_parse(qc_network *net, const char *text, const char *name, qc_err *err);
void qc_network_free(qc_network *net);

/* Per (station, class) and per station (class index ncl: all). */
typedef enum qc_net_metric {
    QC_NM_RESPONSE = 0, /* mean time at the station of those served */
    QC_NM_WAIT,         /* of those served: response minus service */
    QC_NM_NUMBER,       /* time-average number there */
    QC_NM_UTILIZATION,  /* time-average busy servers / c (IS: busy) */
    QC_NM_THROUGHPUT,   /* service completions per unit time */
    QC_NM_LOSS,         /* fraction of arrivals lost (capacity) */
    QC_NM_BALK,         /* fraction of arrivals that balked */
    QC_NM_RENEGE,       /* fraction of arrivals that reneged */
    QC_NM_TIMEOUT,      /* fraction of arrivals that timed out */
    QC_NM_COUNT
} qc_net_metric;
const char *qc_net_metric_name(qc_net_metric m);

/* End to end, per chain (index ncl: all). */
typedef enum qc_net_e2e {
    QC_NE_RESPONSE = 0, /* entry to exit, of those served to the end */
    QC_NE_NUMBER,       /* time-average number in the network */
    QC_NE_THROUGHPUT,   /* served exits per unit time */
    QC_NE_LOST,         /* fraction of exits not served to the end */
    QC_NE_P50,
    QC_NE_P95,
    QC_NE_P99,
    QC_NE_COUNT
} qc_net_e2e;
const char *qc_net_e2e_name(qc_net_e2e m);

typedef struct qc_network_params {
    const qc_network *net;
    uint64_t customers;     /* measured exits per replication, or 0 */
    double horizon;         /* measured time per replication, or 0 */
    qc_warmup_mode warmup_mode;
    double warmup;          /* FIXED: exits or time before the window */
    unsigned reps;
    uint64_t seed;
    double level;
    double precision;       /* > 0: double the replications until every
                               mean's half-width is within it */
    unsigned max_reps;      /* precision: most replications (0: 10000) */
    unsigned jobs;
    double ctl_reference;   /* > 0: the front's MaxUsers reference instead
                               of the file's (a sweep's variable) */
    const qc_cancel *cancel;
    qc_progress_fn progress;
    void *progress_ctx;
    int general;            /* 1: the general event loop even where the
                               station-specialized one applies (one open
                               class through FCFS stations), to compare
                               them; 0 (default): the faster that applies */
} qc_network_params;

void qc_network_params_init(qc_network_params *p);

/* Index of (station i, class k) rows; k == ncl: the station's total. */
#define QC_NET_ROW(net, i, k) ((size_t)(i) * ((net)->ncl + 1) + (size_t)(k))

typedef struct qc_network_result {
    qc_ci *station;         /* [row * QC_NM_COUNT + metric] */
    qc_ci *e2e;             /* [(chain) * QC_NE_COUNT + metric] */
    const char *ci_method;
    unsigned reps;
    uint64_t customers;
    double warmup_customers, warmup_time;
    int warmup_chunks;
    size_t batches;
    int batches_independent;
    int precision_met;
    uint64_t events, measured;
    double sim_time;
    /* the front's controller: mean of its limit over the windows */
    double ctl_limit_mean;
    /* and the mean time behind the front of those served (what it
     * controls), NAN without a controller */
    double ctl_behind_mean;
    int transient;
    char transient_reason[512];
} qc_network_result;

int qc_network_run(const qc_network_params *p, qc_network_result *res, qc_err *err);

/* The checks qc_network_run makes before it simulates (the run's length,
 * replications, level, every open station stable), alone: 0, or
 * QC_EINVAL / QC_EUNSTABLE with the message in err. `qctl sim network
 * --check` answers from it. */
int qc_network_params_check(const qc_network_params *p, qc_err *err);
void qc_network_result_free(qc_network_result *res);

/* ---- the analytic solution -------------------------------------------- */

typedef struct qc_network_exact {
    double *station;        /* as qc_network_result's; NAN: none */
    double *e2e;
    /* bounds (balanced job bounds) where there is no exact value:
     * throughput and response of each chain, lo and hi; NAN: none */
    double *e2e_lo, *e2e_hi;
    char method[160];       /* what gave them, "" when nothing */
    char why_not[256];      /* why the network as a whole has no exact */
} qc_network_exact;

/* Fills ex (allocating its arrays: qc_network_exact_free) with every value
 * theory gives for net. 0, or QC_ENOMEM. */
int qc_network_exact_solve(const qc_network *net, qc_network_exact *ex, qc_err *err);
void qc_network_exact_free(qc_network_exact *ex);

/* Exact MVA for closed product-form chains (exposed for tests and for
 * users): nst stations of kind is_delay[i] (1: IS, 0: one server),
 * demand D[c * nst + i] of chain c at i, think time Z[c], populations
 * N[c]. Writes X[c] and the mean number Q[c * nst + i]. QC_ERANGE when
 * the population lattice is beyond 4e6 states. */
int qc_mva(unsigned nst, unsigned nch, const int *is_delay, const double *D, const double *Z,
           const unsigned *N, double *X, double *Q, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
