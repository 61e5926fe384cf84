/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/pool.h: a pool of K removable servers with routing and on/off
 * policies.
 *
 * Jobs arrive (qctl/arrivals.h), bring a service time S (one speed: every
 * server works at rate mu = 1/E[S]), and are served first-come
 * first-served. A server is OFF, SETUP (a setup of random
 * length after it is switched on) or ON (busy or idle). An ON server that
 * falls idle switches off at once, or after an idle timer t_wait (the
 * DelayedOff rule; a job that reaches it before the timer fires cancels
 * the timer). The policies (their rules in full in docs/pool.md):
 *
 *   djsq     delay-JSQ (Badian-Pessot, Lewis, Down): each server has its
 *            own queue; a job joins the shortest non-empty queue while that
 *            queue, with it, holds at most T jobs; when every non-empty
 *            queue would exceed T (or none is non-empty) it goes to an idle
 *            ON server, else switches one OFF server on and waits there
 *   jsq      join the shortest queue, every server ON all the time
 *   jsq-off  join the shortest queue counting an OFF server as empty (so a
 *            job that finds no idle ON server switches an OFF one on)
 *   random   a server chosen uniformly at random; an OFF one is switched on
 *   central  one central FCFS queue, the M/M/k/setup model of Gandhi,
 *            Harchol-Balter and Adan (2010): a job that finds no idle ON
 *            server waits and switches one OFF server on if one is left;
 *            a server ending its setup takes the head of the queue; when a
 *            job leaves and fewer jobs wait than servers are in setup, one
 *            setup is cancelled
 *
 * The invariants every event keeps: n = sum of jobs at the servers (and in
 * the central queue); a SETUP server of a per-server policy holds at
 * least one job (it was switched on for one, and jobs never move; with
 * route_on, only when no server was ON: else it holds none); an ON
 * server is busy exactly when a job is at it (central: when it holds one);
 * for central, setups = min(waiting, K - ON servers).
 *
 * Output analysis follows qctl/queue.h: a replication's measured window is
 * cut into QC_POOL_CHUNKS chunks (by arrivals, or by time for a timed
 * run); a job's response time goes to the chunk of its arrival, time
 * areas (jobs, servers busy, ON, setup) and counts (departures,
 * switch-ons) to the chunk in force. The warm-up is cut either as given
 * (customers, or time) or by MSER on the chunks' mean number of jobs
 * averaged across the replications, one cut for all of them (stationary
 * arrivals only; a time-varying or traced input has no steady state to
 * wait for, so nothing is cut unless asked). With R >= 2 replications the
 * intervals are Student-t over replications; with R = 1, batch means over
 * groups of chunks, as many batches (32, 16 or 8) as pass von Neumann's
 * independence test (docs/output-analysis.md).
 *
 * Costs use qctl/energy.h in cost rates (power already multiplied by the
 * energy price): holding h per job per unit time, power[0] while serving,
 * idle_power while ON and idle, setup_power while SETUP, off_power while
 * OFF, switch_cost per switch-on (a cancelled setup was still a
 * switch-on).
 *
 * Ownership: qc_pool_run fills a caller-owned result whose histogram and
 * series qc_pool_result_free releases. Errors: 0 or a negative QC_E* code;
 * the message names the parameter. */
#ifndef QCTL_POOL_H
#define QCTL_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/energy.h"
#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/hist.h"
#include "qctl/stats.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_POOL_CHUNKS 128
#define QC_POOL_MAX_SERVERS 100000

/* Default cost model (watts from the illustrative figures of the removable
 * server work: busy 240, idle 180, setup 240, off 0), energy price 1 per
 * watt-second, holding cost 1 per job per second, mean setup 10 s. */
#define QC_POOL_DEFAULT_BUSY_W 240.0
#define QC_POOL_DEFAULT_IDLE_W 180.0
#define QC_POOL_DEFAULT_SETUP_W 240.0
#define QC_POOL_DEFAULT_OFF_W 0.0
#define QC_POOL_DEFAULT_HOLDING 1.0
#define QC_POOL_DEFAULT_SETUP_RATE 0.1
#define QC_POOL_DEFAULT_THRESHOLD 4

typedef enum qc_pool_policy {
    QC_POOL_DJSQ = 0,
    QC_POOL_JSQ,
    QC_POOL_JSQ_OFF,
    QC_POOL_RANDOM,
    QC_POOL_CENTRAL,
    QC_POOL_NPOLICIES
} qc_pool_policy;

/* "djsq", "jsq", "jsq-off", "random", "central". */
const char *qc_pool_policy_name(qc_pool_policy p);
/* The policy named s into *p: 0, or QC_EINVAL (message listing the
 * names; *p unchanged). */
int qc_pool_policy_parse(const char *s, qc_pool_policy *p, qc_err *err);


typedef void (*qc_pool_progress_fn)(void *ctx, double fraction);

typedef struct qc_pool_params {
    unsigned servers;          /* K >= 1 */
    qc_pool_policy policy;
    unsigned threshold;        /* djsq: T >= 1 */
    const qc_arrivals *arrival;
    const qc_dist *service;    /* service time S */
    const qc_dist *setup;     /* setup time */
    double idle_timer;         /* t_wait >= 0; INFINITY: never switch off */
    qc_energy_cost cost;       /* cost rates; nrates 1, rate[0] = 1/E[S] */
    uint64_t customers;        /* measured arrivals per replication, or 0 */
    double horizon;            /* measured time per replication, or 0 */
    qc_warmup_mode warmup_mode; /* the statistical warm-up cut (qctl/stats.h) */
    double warmup;             /* FIXED: customers (customers run) or time */
    unsigned reps;             /* >= 1 */
    uint64_t seed;
    double level;              /* confidence level */
    double series_dt;          /* > 0: record replication 1 in bins of dt */
    double corr_dt;            /* bin of the demand correlation; 0: period/100 */
    qc_pool_progress_fn progress; /* with jobs > 1, called from the worker
                                     threads, one call at a time */
    void *progress_ctx;
    unsigned jobs;             /* replications run at once on that many
                                  threads (0 or 1: one at a time, at most
                                  256); folded into the result in
                                  replication order, so the result is the
                                  same for any value */
    const qc_cancel *cancel; /* may be NULL; when requested (qctl/cancel.h)
                                the run stops at its next check and returns
                                QC_ECANCELED */
    int route_on;            /* djsq only, 1: a balancer in front of
                                servers parked and unparked (haproxy's
                                leastconn over the servers `ready`): the
                                rule counts a SETUP server as holding the
                                jobs that chose it, as djsq does, but those
                                jobs join the shortest ON queue instead of
                                waiting for the setup (only with no server
                                ON do they wait at it); 0 (default): djsq
                                as above */
} qc_pool_params;

/* Defaults: K = 1, djsq with T = QC_POOL_DEFAULT_THRESHOLD, idle timer 0,
 * the default cost model at price 1 (setup_rate 0.1), 10 replications,
 * seed 1, level 0.95, MSER warm-up, no series. arrival, service,
 * setup and the run length are left for the caller. */
void qc_pool_params_init(qc_pool_params *p);

typedef enum qc_pool_metric {
    QC_PM_JOBS = 0,          /* time-average number of jobs in system */
    QC_PM_RESPONSE,          /* mean response time */
    QC_PM_P50,               /* response-time percentiles */
    QC_PM_P95,
    QC_PM_P99,
    QC_PM_THROUGHPUT,        /* departures per unit time */
    QC_PM_POWER,             /* mean power cost rate */
    QC_PM_ENERGY_PER_JOB,    /* power cost per departed job */
    QC_PM_SWITCH_ONS_PER_HOUR,
    QC_PM_FRAC_SETUP,      /* setup server-time / (K x time) */
    QC_PM_COST,              /* average cost: holding + power + switching */
    QC_PM_HOLDING_COST,      /* h x mean jobs */
    QC_PM_SETUP_COST,      /* setup power x mean servers in setup + switch cost rate */
    QC_PM_SERVERS_ON,        /* mean servers ON (busy or idle) */
    QC_PM_SERVERS_BUSY,
    QC_PM_SERVERS_SETUP,
    QC_PM_DEMAND_CORR,       /* corr(servers ON, lambda(t)) over bins; time-varying input */
    QC_PM_COUNT
} qc_pool_metric;

/* Name of a metric in JSON ("mean_jobs", ...). */
const char *qc_pool_metric_name(qc_pool_metric metric);
int qc_pool_metric_parse(const char *s, qc_pool_metric *v, qc_err *err);

typedef struct qc_pool_series_point {
    double t;             /* end of the bin */
    double jobs;          /* time averages over the bin */
    double on, setup, busy;
    double rate;          /* model arrival rate at the bin's middle (NAN: trace) */
    double arrivals;      /* arrivals in the bin / bin width */
} qc_pool_series_point;

typedef struct qc_pool_result {
    qc_ci metric[QC_PM_COUNT];
    qc_energy_report report;    /* the point estimates, as the MDP reports them */
    const char *ci_method;      /* "replications" or "batch-means" */
    double load;                /* mean arrival rate / (K mu) (NAN: trace) */
    double warmup_customers;    /* mean per replication cut */
    double warmup_time;
    uint64_t measured;          /* jobs measured, all replications */
    uint64_t events;
    double sim_time;
    qc_hist *response_hist;     /* kept part, all replications */
    qc_pool_series_point *series; /* replication 1, when series_dt > 0 */
    size_t series_len;
    /* Whether the run is long enough for its intervals, decided from its
     * data as in sim queue (qctl/queue.h): short_run with the reason in
     * words; effective_obs, the independent observations of the number
     * of jobs (of the run, or of each replication). */
    int short_run;
    double effective_obs;
    char short_reason[512];
} qc_pool_result;

/* Runs the replications. Errors: QC_EINVAL for a bad parameter (the
 * message names it), QC_EUNSTABLE when the mean arrival rate is at least
 * K mu (no policy can keep up; a trace is finite and not checked),
 * QC_ENOMEM. On error the result holds nothing to free. */
int qc_pool_run(const qc_pool_params *p, qc_pool_result *res, qc_err *err);

void qc_pool_result_free(qc_pool_result *res);

/* The same arrivals, service, setup and costs under every other policy
 * than p->policy, with the same seed (common random numbers, so that the
 * differences between the runs are the policies', not the samples'): what
 * `qctl sim pool --compare` sets beside the run of p. */
typedef struct qc_pool_comparison {
    size_t n;                                      /* QC_POOL_NPOLICIES - 1 */
    qc_pool_policy policy[QC_POOL_NPOLICIES - 1];  /* in qc_pool_policy order */
    qc_pool_result result[QC_POOL_NPOLICIES - 1];  /* as qc_pool_run's, with
                                                      no series */
} qc_pool_comparison;

/* Runs p once per other policy (series off, no progress hook; p->cancel
 * is obeyed). Errors: those of qc_pool_run for the first policy that
 * fails, the message prefixed with "policy NAME: "; c then holds nothing
 * to free. */
int qc_pool_compare(const qc_pool_params *p, qc_pool_comparison *c, qc_err *err);

void qc_pool_comparison_free(qc_pool_comparison *c);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
