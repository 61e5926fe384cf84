/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/multiclass.h: one server shared by several classes of traffic by
 * priority (the plant of autonomic admission control), its exact mean
 * delays where they are known, and the closed loop that runs admission
 * controllers or baseline limiters on it.
 *
 * The plant. Classes k = 0 .. K-1 each bring their own renewal arrivals
 * and i.i.d. service requirements (time at full capacity) and hold a
 * priority p_k > 0. At most one class is the best-effort "super-user": its
 * weight is not its own but what is left of a unit of priority mass,
 *
 *     w_be = max(1 - sum_{k active, not best-effort} p_k, be_floor),
 *
 * and w_k = p_k for the others ("active": switched on and not stopped).
 * A class can be switched on at a given time (a candidate) and stopped
 * (rejected: no more arrivals; the jobs it has in the server finish).
 *
 * Disciplines:
 *
 *   QC_MC_DPS       discriminatory processor sharing by class: while the
 *                   set B of classes with jobs present is not empty, class
 *                   k in B receives capacity w_k / sum_{j in B} w_j, split
 *                   equally among its n_k jobs. A weight ratio going to
 *                   infinity gives preemptive priority; equal weights give
 *                   each backlogged class an equal share (processor
 *                   sharing between classes, not between jobs).
 *
 *   QC_MC_DPS_JOB   discriminatory processor sharing by job (Kleinrock's
 *                   DPS): each job of class k is served at rate
 *                   w_k / sum_j n_j w_j. Equal weights give processor
 *                   sharing among all jobs; its mean delays for
 *                   exponential classes are known exactly
 *                   (qc_mc_dps_exp_delays).
 *
 *                   Both are simulated in per-class virtual time: V_k
 *                   grows at the rate each of class k's jobs is served
 *                   (w_k / (n_k W_B) or w_k / sum_j n_j w_j), a job
 *                   arriving at V_k = v with requirement S leaves when
 *                   V_k = v + S, and one departure event is pending.
 *
 *   QC_MC_WEIGHTED  non-preemptive, request granularity (what a proxy in
 *                   front of a server can do): each class is a FIFO queue;
 *                   whenever the server frees, it starts the head job of
 *                   the backlogged class with the smallest pass value, and
 *                   when that job completes after service s the class is
 *                   charged pass_k += s / w_k (start-time fair queueing
 *                   with the charge made after the fact, since a proxy
 *                   learns a request's cost only when it completes). A
 *                   class that becomes backlogged takes pass_k =
 *                   max(pass_k, v), v the pass of the job last started, so
 *                   idling earns no credit. Backlogged classes then share
 *                   the work in proportion to their weights, to within one
 *                   job each.
 *
 * Measurement. A busy cycle runs from the instant the server leaves idle
 * to the next instant it is idle. Each class accumulates the delays
 * (departure minus arrival) of its completions; at the end of a cycle,
 * every class holding at least min_completions of them reports a sample
 * (their mean and count) and starts over; a class with fewer carries them
 * into the next cycle. A busy cycle longer than cycle_max is cut there
 * (reported as a cycle with cut = 1) so that an overloaded server still
 * yields samples.
 *
 * Gate. An optional concurrency limit L: an arrival that finds
 * floor(L) or more jobs in the server is refused (shed), as a concurrency
 * limiter in front of the server would refuse it.
 *
 * Randomness: class k draws its arrivals from stream (rep, ARRIVAL, k) and
 * its services from (rep, SERVICE, k), so adding a class changes no other
 * class's traffic, and two policies run on the same seed see the same
 * arrivals and requirements (common random numbers).
 *
 * Ownership: qc_mc_alloc returns a plant freed by qc_mc_free (NULL ok);
 * the class specs and distributions it is given must outlive it. Errors:
 * 0 or a negative QC_E* code with a message naming the class and field. */
#ifndef QCTL_MULTICLASS_H
#define QCTL_MULTICLASS_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/admission.h"
#include "qctl/dist.h"
#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/limiters.h"
#include "qctl/queue.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_MC_MAX_CLASSES 16

typedef enum qc_mc_discipline {
    QC_MC_DPS = 0,      /* DPS by class (the default) */
    QC_MC_DPS_JOB = 1,  /* DPS by job (Kleinrock) */
    QC_MC_WEIGHTED = 2  /* non-preemptive weighted fair */
} qc_mc_discipline;

typedef struct qc_mc_class {
    const char *name;
    const qc_dist *arrival; /* inter-arrival time */
    const qc_dist *service; /* service requirement at full capacity */
    double start;           /* arrivals begin at this time (>= 0) */
    double priority;        /* p_k > 0 (ignored for the best-effort class) */
    int best_effort;        /* 1 for the super-user (at most one class) */
} qc_mc_class;

typedef struct qc_mc_params {
    unsigned nclass;          /* 1 .. QC_MC_MAX_CLASSES */
    const qc_mc_class *cls;
    qc_mc_discipline discipline;
    double be_floor;          /* least weight of the best-effort class, > 0 */
    unsigned min_completions; /* completions that make a delay sample, >= 1 */
    double cycle_max;         /* cut busy cycles longer than this (> 0, may be INFINITY) */
    uint64_t seed;
    uint32_t rep;             /* replication: selects the streams */
} qc_mc_params;

/* Defaults: DPS, be_floor 0.01, min_completions 20, cycle_max INFINITY,
 * seed 1, rep 0; no classes. */
void qc_mc_params_init(qc_mc_params *p);

typedef struct qc_mc qc_mc;

/* What qc_mc_advance stopped on (a bit set: a departure that empties the
 * server is both a departure and the end of a cycle). */
enum { QC_MC_EV_TIME = 1, QC_MC_EV_DEPART = 2, QC_MC_EV_CYCLE = 4, QC_MC_EV_START = 8 };

typedef struct qc_mc_sample {
    double delay;   /* mean delay of the completions in the sample; NAN if none */
    uint64_t count; /* completions in the sample; 0: no sample this cycle */
} qc_mc_sample;

typedef struct qc_mc_report {
    unsigned what;       /* QC_MC_EV_* bits */
    double t;            /* time of the stop */
    /* QC_MC_EV_CYCLE */
    double cycle_start;  /* when this measurement cycle began */
    int cut;             /* 1: cut at cycle_max, the server still busy */
    qc_mc_sample sample[QC_MC_MAX_CLASSES];
    /* QC_MC_EV_DEPART */
    unsigned cls;        /* class of the job that left */
    double arrival;      /* its arrival time */
    double service;      /* its requirement */
    double delay;        /* departure - arrival */
    uint32_t inflight;   /* jobs in the server just after it was let in */
    /* QC_MC_EV_START */
    unsigned started;    /* class switched on */
} qc_mc_report;

/* Cumulative counts of one class since time 0. */
typedef struct qc_mc_totals {
    uint64_t arrivals;   /* offered (including shed) */
    uint64_t shed;       /* refused by the gate */
    uint64_t completions;
    double delay_sum;    /* sum of delays of the completions */
    double work;         /* sum of requirements of the completions */
} qc_mc_totals;

/* A plant at time 0 with nobody present; a class whose start is 0 is on. */
qc_mc *qc_mc_alloc(const qc_mc_params *p, qc_err *err);
void qc_mc_free(qc_mc *m);

/* Simulates until the first of: an event of a kind in stop_on (bits
 * QC_MC_EV_DEPART, QC_MC_EV_CYCLE, QC_MC_EV_START), or time t_stop (>=
 * now), where the clock is left. Fills *out. QC_ENOMEM. */
int qc_mc_advance(qc_mc *m, double t_stop, unsigned stop_on, qc_mc_report *out);

/* Sets class k's priority from now on (p > 0 and finite; QC_EINVAL). The
 * best-effort class's own priority cannot be set (QC_EINVAL). */
int qc_mc_set_priority(qc_mc *m, unsigned k, double p);
/* Stops class k's arrivals from now on (a rejected candidate); its jobs
 * still present are served. Idempotent. */
int qc_mc_stop_class(qc_mc *m, unsigned k);
/* Sets the concurrency gate (INFINITY: none; else >= 0). */
void qc_mc_set_limit(qc_mc *m, double limit);

double qc_mc_now(const qc_mc *m);
/* Weight class k has now in the discipline (the best-effort one derived). */
double qc_mc_weight(const qc_mc *m, unsigned k);
/* Jobs present: of class k, or in all (k = QC_MC_MAX_CLASSES). */
uint64_t qc_mc_present(const qc_mc *m, unsigned k);
const qc_mc_totals *qc_mc_totals_of(const qc_mc *m, unsigned k);
/* Events simulated so far. */
uint64_t qc_mc_events(const qc_mc *m);

/* ---- exact results ---------------------------------------------------- */

/* Mean sojourn times T[k] of DPS by job (QC_MC_DPS_JOB) with weights w[k] for K Poisson classes
 * with exponential requirements of rate mu[k] (Fayolle, Mitrani and
 * Iasnogorodski, 1980): the linear system, for k = 1..K,
 *
 *   T_k (1 - sum_j lambda_j w_j / (w_j mu_j + w_k mu_k))
 *       - sum_j lambda_j w_j T_j / (w_j mu_j + w_k mu_k) = 1 / mu_k.
 *
 * QC_EUNSTABLE when sum lambda_k / mu_k >= 1; QC_EINVAL for bad input. */
int qc_mc_dps_exp_delays(unsigned K, const double *lambda, const double *mu, const double *w,
                         double *T, qc_err *err);

/* The least mean delay class k can have under the discipline, whatever the
 * priorities (all classes present): with absolute priority,
 *   DPS:       E[S_k] / (1 - rho_k)        (M/G/1-PS on its own load)
 *   weighted:  E[S_k] + R / (1 - rho_k),   R = sum_j lambda_j E[S_j^2] / 2
 *              (head-of-line priority, the best a non-preemptive
 *              discipline can do; INFINITY when some E[S_j^2] is).
 * The value is an infimum: no finite priority reaches it. INFINITY when
 * rho_k >= 1. */
double qc_mc_min_delay(qc_mc_discipline d, unsigned K, const qc_mc_class *cls, unsigned k);

/* Admissibility by the achievable-region conditions. Classes with
 * bound[k] > 0 are bounded (set B); the others (best effort) are free.
 * Under the work-conserving disciplines that do not anticipate service
 * times, the vectors of mean delays that can be achieved form a polytope
 * (Coffman and Mitrani, 1980): for every set A of classes, the work that A
 * holds is at least what it holds when A has absolute priority. Meeting
 * every bound is possible (by some mixture of priority orders, which DPS
 * weights approach) iff for every non-empty A in B
 *
 *   DPS (both kinds), exponential requirements (remaining work of a job
 *   present is Exp(mu_k) whatever it received, so E[work of A] =
 *   sum_{k in A} rho_k T_k):
 *       sum_{k in A} rho_k D_k >= sum_{k in A} (rho_k / mu_k) / (1 - rho_A)
 *   weighted (non-preemptive, FCFS within class, any requirement law with
 *   a finite second moment; W_0 = sum_{all j} lambda_j E[S_j^2] / 2):
 *       sum_{k in A} rho_k (D_k - E[S_k]) >= rho_A W_0 / (1 - rho_A)
 *
 * and the total load is below 1. *ok = 1 when every condition holds;
 * *margin is the least relative margin (lhs - rhs) / rhs over the sets,
 * *worst the bit set of classes where it is reached. QC_ENOTSUP for DPS
 * with a non-exponential requirement or an infinite second moment. */
int qc_mc_region_admissible(qc_mc_discipline d, unsigned K, const qc_mc_class *cls,
                            const double *bound, int *ok, double *margin, unsigned *worst,
                            qc_err *err);

/* ---- the closed loop (admission_run.c) --------------------------------- */

/* Who sets the priorities and admits the classes (the admitter):
 *   AUTONOMIC    one qc_adm controller per bounded class, stepped at each
 *                of its busy-cycle samples; a rejected class is stopped
 *   STATIC       every class keeps its scenario priority; all are let in
 *   UTILIZATION  static priorities; a class starting after time 0 is let
 *                in iff the utilization test admits it (qc_lim_util),
 *                else it never sends */
typedef enum qc_mc_admitter {
    QC_MC_AUTONOMIC = 0,
    QC_MC_STATIC,
    QC_MC_UTILIZATION
} qc_mc_admitter;

/* A policy: an admitter, and for the limited ones (with the STATIC
 * admitter) one concurrency limiter gating every request to the server
 * (stepped at each completion, and at its timers), its algorithm the
 * limiter's own enum: QC_LIMITER_GRADIENT2, _VEGAS, _ENVOY or _AIMD,
 * with the parameters of qc_mc_run_params. Seven policies, each named by
 * one word: its admitter's (autonomic, static, utilization) or its
 * limiter's (gradient2, vegas, envoy, aimd); qc_mc_policies lists them. */
typedef struct qc_mc_policy {
    qc_mc_admitter admitter;
    int limited;             /* 1: a limiter gates every request */
    qc_limiter_algo limiter; /* its algorithm (read only when limited) */
} qc_mc_policy;

/* The seven policies in the order of their words above; *n = 7. */
const qc_mc_policy *qc_mc_policies(unsigned *n);

const char *qc_mc_admitter_name(qc_mc_admitter a);
int qc_mc_admitter_parse(const char *s, qc_mc_admitter *v, qc_err *err);
/* The policy's word, or "?" for a pair no policy is (a limiter with
 * another admitter than STATIC, or an algorithm the run has no
 * parameters for). */
const char *qc_mc_policy_name(qc_mc_policy p);
const char *qc_mc_discipline_name(qc_mc_discipline d);
/* The policy / discipline named s into *v: 0, or QC_EINVAL (message
 * listing the names; *v unchanged). err may be NULL. */
int qc_mc_policy_parse(const char *s, qc_mc_policy *v, qc_err *err);
int qc_mc_discipline_parse(const char *s, qc_mc_discipline *v, qc_err *err);

typedef struct qc_mc_run_class {
    qc_mc_class c;   /* name, laws, start, priority (static, and the start of
                        an admitted class under AUTONOMIC), best effort */
    double bound;    /* D > 0 for a bounded class */
    int candidate;   /* 1: joins as a candidate; 0: admitted from its start */
} qc_mc_run_class;

typedef struct qc_mc_run_params {
    unsigned nclass;            /* bounded classes plus at most one best effort */
    const qc_mc_run_class *cls;
    qc_mc_discipline discipline;
    qc_mc_policy policy;
    qc_adm_params adm;          /* controller parameters for every class
                                   (bound, admitted and p_init are set per
                                   class); epsilon and alpha live here */
    double be_floor;            /* as in qc_mc_params */
    unsigned min_completions;
    double cycle_max;           /* 0: 1000 times the largest mean requirement */
    double horizon;             /* simulated time per replication */
    double warmup;              /* left out of whole-run means and windows */
    double window;              /* length of the windows of the excursion
                                   (at most 10000 windows) */
    unsigned reps;
    uint64_t seed;
    double level;               /* confidence level */
    double u_max;               /* utilization test threshold */
    qc_lim_gradient2_params g2;
    qc_lim_vegas_params vegas;
    qc_lim_envoy_params envoy;
    qc_lim_aimd_params aimd;
    int series;                 /* record replication 1, one row per cycle
                                   in which some class has a sample */
    qc_progress_fn progress;    /* with jobs > 1, called from the worker
                                   threads, one call at a time */
    void *progress_ctx;
    unsigned jobs;              /* replications run at once on that many
                                   threads (0 or 1: one at a time, at most
                                   256); the result is the same for any
                                   value (replications are folded in in
                                   order) */
    const qc_cancel *cancel; /* may be NULL; when requested (qctl/cancel.h)
                                the run stops at its next check and returns
                                QC_ECANCELED */
} qc_mc_run_params;

/* Defaults: DPS, AUTONOMIC, qc_adm_params_init(eps 0.1, alpha 20), the
 * plant's defaults, horizon 1e5, warmup 1e4, window 5e3, 10 replications,
 * seed 1, level 0.95, u_max 0.9, the limiters' defaults. */
void qc_mc_run_params_init(qc_mc_run_params *p);

typedef struct qc_mc_run_class_result {
    qc_ci delay;       /* mean delay per job over [warmup, horizon] */
    qc_ci throughput;  /* completions per unit time over [warmup, horizon] */
    qc_ci shed;        /* fraction of arrivals refused by a gate */
    qc_ci worst;       /* bounded: largest (window mean - D) / D over the
                          windows it was admitted throughout */
    qc_ci admitted_delay; /* bounded: mean delay per job over those windows */
    qc_ci worst_mean;  /* bounded: the largest over windows of the mean over
                          replications of the excursion (see below) */
    double worst_mean_t; /* start of that window */
    qc_ci priority;    /* priority at the end */
    qc_ci admit_time;  /* from its start to its admission (admitted reps) */
    qc_ci decide_time; /* candidate: from its start to its admission or
                          rejection (decided reps) */
    unsigned admitted, rejected, undecided; /* replications, by final state */
    double offered;    /* lambda = 1 / E[A] */
    double load;       /* rho = E[S] / E[A] */
    double min_delay;  /* qc_mc_min_delay */
} qc_mc_run_class_result;

typedef struct qc_mc_series_row {
    double t;                             /* end of the cycle */
    double delay[QC_MC_MAX_CLASSES];      /* sample (NAN: none this cycle) */
    double priority[QC_MC_MAX_CLASSES];   /* after the step */
    double weight[QC_MC_MAX_CLASSES];     /* in the discipline */
    unsigned char state[QC_MC_MAX_CLASSES];
    double limit;                         /* gate (INFINITY: none) */
} qc_mc_series_row;

typedef struct qc_mc_run_result {
    unsigned nclass;
    qc_mc_run_class_result cls[QC_MC_MAX_CLASSES];
    qc_ci worst;           /* per replication, max over the admitted
                              bounded classes of their worst excursion */
    double worst_max;      /* the largest over the replications */
    qc_ci worst_mean;      /* the expected delay through time: for each
                              bounded class and window, the mean over the
                              replications (those in which the class was
                              admitted throughout the window, at least half
                              of them) of the window's excursion; the
                              largest of these, with its t-interval */
    unsigned worst_mean_class;
    double worst_mean_t;   /* start of that window */
    qc_ci be_throughput;   /* best-effort completions per unit time */
    double be_offered;     /* its arrival rate (NAN without one) */
    int region_bounds;     /* achievable-region verdict for the bounds:
                              1 admissible, 0 not, -1 unknown */
    double region_margin;
    int region_targets;    /* the same for the targets (1 - eps) D */
    double cycle_max;      /* as used */
    uint64_t events;
    double sim_time;
    qc_mc_series_row *series;
    size_t series_len;
} qc_mc_run_result;

/* Checks the scenario and runs the replications. Bad input (each a
 * QC_EINVAL or QC_ERANGE with a message naming the class and field): no
 * bounded class; a bound <= 0; a bound no priority can meet (D at most
 * qc_mc_min_delay) or a target (1 - eps) D that none can; epsilon < 0 or
 * >= 1; alpha <= 0; a bad controller or limiter parameter. */
int qc_mc_run(const qc_mc_run_params *p, qc_mc_run_result *res, qc_err *err);

/* The checks qc_mc_run makes before it simulates (classes, bounds each
 * class can meet, gains, the run's length), alone: 0, or QC_EINVAL /
 * QC_ERANGE with the class and field named in err. `qctl sim admission
 * --check` answers from it. */
int qc_mc_run_params_check(const qc_mc_run_params *p, qc_err *err);
void qc_mc_run_result_free(qc_mc_run_result *res);

/* Whether the replications of p support their intervals, from the data
 * (the verdict of `qctl sim admission`): each bounded class's mean delay
 * is a mean over the jobs it completed in each replication's measured
 * window, and a few dozen of them (a short horizon, a rare class) make
 * each replication's mean skewed and its start's bias a large share of
 * it. At least QC_MC_JOBS_MIN per replication on average, under each of
 * the npol policies run (r[i] the result under pols[i], on p's classes).
 * Returns 1 (too short, the reason in why[0..n)) or 0; one replication
 * has no interval to support (0). */
#define QC_MC_JOBS_MIN 200
int qc_mc_run_support(const qc_mc_run_params *p, const qc_mc_run_result *r,
                      const qc_mc_policy *pols, unsigned npol, char *why, size_t n);

/* ---- scenarios (mc_scenario.c) ------------------------------------------ */

/* The scenario of `qctl sim admission` (docs/admission.md), read from JSON:
 *   { "classes": [ { "name": "gold", "arrival": "exp:0.2",
 *                    "service": "exp:1", "bound": 2.0,
 *                    "start": 0, "candidate": false, "admitted": true,
 *                    "priority": 1, "best_effort": false }, ... ],
 *     "time": ..., "warmup": ..., "window": ..., "epsilon": ...,
 *     "alpha": ..., "discipline": "dps", "description": "..." }
 * (every field of a class but name, arrival and service optional; bound
 * required unless best_effort; candidate defaults to start > 0). Unknown
 * fields, wrong types, a name used twice, a bad spec are QC_EPARSE errors
 * whose message starts with the scenario's name and names the class and
 * field ("FILE: classes[1] (silver): \"bound\" is -1; it must be > 0").
 *
 * Ownership: the scenario owns its distributions and the parsed document
 * that the class names and specs point into; qc_mc_scenario_free frees
 * them (and is safe on a zeroed or failed scenario). cls[] can be given
 * to qc_mc_run_params as it is (qc_mc_scenario_apply). */
typedef struct qc_mc_scenario {
    unsigned n; /* classes */
    qc_mc_run_class cls[QC_MC_MAX_CLASSES];
    qc_dist arr[QC_MC_MAX_CLASSES], svc[QC_MC_MAX_CLASSES];
    const char *arr_spec[QC_MC_MAX_CLASSES], *svc_spec[QC_MC_MAX_CLASSES];
    /* the optional run fields: NAN (NULL) when absent */
    double time, warmup, window, epsilon, alpha;
    const char *discipline;
    void *doc; /* the parsed document (private) */
} qc_mc_scenario;

/* Reads the scenario in file path (named by path in messages; a JSON
 * syntax error as "path:line:column: what"). */
int qc_mc_scenario_load(qc_mc_scenario *s, const char *path, qc_err *err);
/* The same from JSON text, named `name` in messages. */
int qc_mc_scenario_parse(qc_mc_scenario *s, const char *text, const char *name, qc_err *err);
void qc_mc_scenario_free(qc_mc_scenario *s);

/* Points p at s's classes and sets what `qctl sim admission` derives from
 * them: the limiters' clocks and limits in units of the classes' mean
 * service (the envoy limiter samples every 10 mean services and takes its
 * minimum RTT over 2000; Gradient2 and AIMD start at 10 and may go down
 * to 1, as the server serves one job at a time; AIMD's timeout is 5 mean
 * services, AIMDLimit's 5 s). The run fields (epsilon, time, ...) are
 * left to the caller, who chooses between its own and the scenario's. */
void qc_mc_scenario_apply(const qc_mc_scenario *s, qc_mc_run_params *p);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
