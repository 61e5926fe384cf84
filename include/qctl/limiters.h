/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/limiters.h: baseline admission rules and the adaptive concurrency
 * limiters that real proxies use, as step objects.
 *
 * Nothing here knows about simulation: a step is told what happened (a
 * completed request with its latency, the time on the caller's clock,
 * the requests in flight) and returns what to apply. The same objects
 * serve the simulated server of `qctl sim admission` and a live proxy.
 *
 * Static priorities (qc_lim_static): a class keeps the priority it was
 * given, whatever it measures.
 *
 * Utilization test (qc_lim_util): open loop; a class asking to join with
 * offered load rho_c (its declared E[S] / E[A]) is admitted iff
 *     U + rho_c <= u_max,
 * U the load of the classes admitted so far; a class that leaves gives its
 * load back. No measurement is used after the decision.
 *
 * Concurrency limiters. A request is let in iff the requests in flight
 * are fewer than floor(limit); each completed request is a sample
 * (rtt, inflight when it was let in, dropped or not). The limit follows:
 *
 *   Gradient2 (Netflix concurrency-limits, Gradient2Limit): per sample,
 *       long = EMA of rtt (mean of the first 10 samples, then factor
 *              2 / (long_window + 1)); if long / rtt > 2, long *= 0.95
 *       if inflight < limit / 2: no change (the application is the limit)
 *       gradient = max(0.5, min(1, tolerance * long / rtt))
 *       new = limit * gradient + queue_size
 *       limit = clamp(limit (1 - smoothing) + new * smoothing, min, max)
 *     defaults: initial 20, min 20, max 200, smoothing 0.2, queue_size 4,
 *     long_window 600, tolerance 1.5.
 *
 *   Vegas (Netflix concurrency-limits, VegasLimit): per sample, with
 *     f(L) = max(1, floor(log10(floor L))) for L < 1000 (floor(sqrt L) above),
 *       every probe_multiplier * limit * u samples (u ~ U[0.5, 1) drawn
 *       afresh each time) rtt_noload is reset to this rtt (a probe);
 *       a new minimum rtt becomes rtt_noload (no change to the limit);
 *       else queue = ceil(limit (1 - rtt_noload / rtt)) and
 *         dropped:                 new = limit - f(limit)
 *         inflight * 2 < limit:    no change
 *         queue <= f(limit):       new = limit + 6 f(limit)
 *         queue < 3 f(limit):      new = limit + f(limit)
 *         queue > 6 f(limit):      new = limit - f(limit)
 *         otherwise                no change
 *       limit = (1 - smoothing) limit + smoothing clamp(new, 1, max)
 *     defaults: initial 20, max 1000, smoothing 1, probe_multiplier 30.
 *
 *   Envoy adaptive concurrency (gradient controller), on the caller's
 *   clock: a minRTT window pins the limit to min_concurrency until
 *   min_rtt_requests samples (from requests let in after the window
 *   opened) are gathered, then minRTT = their q-quantile and the limit
 *   returns to its value before the window; the next window opens
 *   min_rtt_interval (plus a random jitter of up to jitter times it)
 *   later, or at once when the limit was min_concurrency for 5
 *   consecutive updates. Outside the window, every sample_interval the
 *   samples gathered since the last update give sampleRTT (their
 *   q-quantile) and
 *       gradient = clamp((minRTT (1 + buffer)) / sampleRTT, 0.5, 2)
 *       l = limit * gradient
 *       limit = clamp(floor(l + sqrt(l)), min_concurrency, max)
 *     defaults: q 0.5, min_rtt_interval 60, min_rtt_requests 50, jitter
 *     0.15, min_concurrency 3, buffer 0.25, max 1000, sample_interval 0.1
 *     (times in the caller's unit; Envoy's are seconds).
 *
 * Ownership: plain values, except qc_lim_envoy which holds a histogram
 * (qc_lim_envoy_init allocates it, qc_lim_envoy_free releases it; the
 * free is safe on a zeroed object). Steps never allocate. Errors: 0 or a
 * negative QC_E* code; init messages name the parameter. */
#ifndef QCTL_LIMITERS_H
#define QCTL_LIMITERS_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/aimd.h"
#include "qctl/error.h"
#include "qctl/hist.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* ---- static priority ---------------------------------------------------- */

typedef struct qc_lim_static {
    double priority;
} qc_lim_static;

typedef struct qc_lim_static_sense {
    double delay, count; /* ignored: the rule is open loop */
} qc_lim_static_sense;

typedef struct qc_lim_static_act {
    double priority;
} qc_lim_static_act;

int qc_lim_static_init(qc_lim_static *c, double priority, qc_err *err);
int qc_lim_static_step(qc_lim_static *c, const qc_lim_static_sense *in, qc_lim_static_act *out);

/* ---- utilization test --------------------------------------------------- */

typedef struct qc_lim_util {
    double u_max;     /* admit while U + rho_c <= u_max */
    double admitted;  /* U */
} qc_lim_util;

enum { QC_LIM_JOIN = 1, QC_LIM_LEAVE = 2 };

typedef struct qc_lim_util_sense {
    int event;   /* QC_LIM_JOIN or QC_LIM_LEAVE */
    double load; /* the class's offered load rho_c >= 0 */
} qc_lim_util_sense;

typedef struct qc_lim_util_act {
    int admit;       /* JOIN: 1 admitted, 0 refused; LEAVE: 1 */
    double admitted; /* U after the step */
} qc_lim_util_act;

/* u_max > 0; u0 >= 0 the load of the classes admitted from the start. */
int qc_lim_util_init(qc_lim_util *c, double u_max, double u0, qc_err *err);
int qc_lim_util_step(qc_lim_util *c, const qc_lim_util_sense *in, qc_lim_util_act *out);

/* ---- concurrency limiters ----------------------------------------------- */

/* A completed request, or (rtt = NAN) a tick of the caller's clock. */
typedef struct qc_lim_sample {
    double t;          /* now, on the caller's clock */
    double rtt;        /* latency of the request (> 0), NAN for a tick */
    double t_start;    /* when it was let in */
    uint32_t inflight; /* in flight when it was let in, itself included */
    int dropped;       /* it was dropped or timed out */
} qc_lim_sample;

typedef struct qc_lim_act {
    double limit;     /* let a request in iff in flight < floor(limit) */
    double next_tick; /* step again by this time even without a sample
                         (INFINITY: not needed) */
} qc_lim_act;

/* Let a request in? (the rule shared by the three limiters) */
static inline int qc_lim_allows(double limit, uint64_t inflight)
{
    return (double)inflight < floor(limit);
}

typedef struct qc_lim_gradient2_params {
    double initial_limit, min_limit, max_limit;
    double smoothing, queue_size, tolerance;
    unsigned long_window;
} qc_lim_gradient2_params;

typedef struct qc_lim_gradient2 {
    qc_lim_gradient2_params p;
    double limit;
    double long_rtt;
    unsigned warm; /* samples averaged before the EMA starts (up to 10) */
} qc_lim_gradient2;

void qc_lim_gradient2_params_init(qc_lim_gradient2_params *p);
int qc_lim_gradient2_init(qc_lim_gradient2 *c, const qc_lim_gradient2_params *p, qc_err *err);
int qc_lim_gradient2_step(qc_lim_gradient2 *c, const qc_lim_sample *in, qc_lim_act *out);

typedef struct qc_lim_vegas_params {
    double initial_limit, max_limit, smoothing;
    unsigned probe_multiplier;
    uint64_t seed; /* of the probe jitter */
} qc_lim_vegas_params;

typedef struct qc_lim_vegas {
    qc_lim_vegas_params p;
    double limit;
    double rtt_noload; /* 0 until the first sample */
    unsigned long probe_count;
    double probe_jitter;
    qc_rng rng;
} qc_lim_vegas;

void qc_lim_vegas_params_init(qc_lim_vegas_params *p);
int qc_lim_vegas_init(qc_lim_vegas *c, const qc_lim_vegas_params *p, qc_err *err);
int qc_lim_vegas_step(qc_lim_vegas *c, const qc_lim_sample *in, qc_lim_act *out);

typedef struct qc_lim_envoy_params {
    double sample_interval;   /* concurrency_update_interval */
    double quantile;          /* sample_aggregate_percentile / 100, in (0, 1] */
    double min_rtt_interval;
    unsigned min_rtt_requests;
    double jitter;            /* fraction of min_rtt_interval, [0, 1] */
    double min_concurrency;   /* limit while measuring minRTT, and floor */
    double buffer;            /* fraction of minRTT */
    double max_limit;
    uint64_t seed;            /* of the jitter */
} qc_lim_envoy_params;

typedef struct qc_lim_envoy {
    qc_lim_envoy_params p;
    double limit;
    int in_window;          /* measuring minRTT */
    double deferred;        /* limit to restore after the window */
    double min_rtt, sample_rtt;
    double epoch;           /* when the current minRTT window opened */
    double next_update;     /* end of the current sample window */
    double next_window;     /* when the next minRTT window opens */
    unsigned at_min;        /* consecutive updates that set min_concurrency */
    qc_hist *h;
    qc_rng rng;
} qc_lim_envoy;

void qc_lim_envoy_params_init(qc_lim_envoy_params *p);
/* Starts at time t0 in a minRTT window (as Envoy does). QC_ENOMEM. */
int qc_lim_envoy_init(qc_lim_envoy *c, const qc_lim_envoy_params *p, double t0, qc_err *err);
void qc_lim_envoy_free(qc_lim_envoy *c);
int qc_lim_envoy_step(qc_lim_envoy *c, const qc_lim_sample *in, qc_lim_act *out);

/* The limiter algorithms: one enum for the concept, whether the
 * algorithm runs in the embeddable limiter (qctl/limiter.h: every value),
 * in qc_lim_conc below (the four that are step objects here: GRADIENT2,
 * VEGAS, ENVOY, AIMD) or in the proxy. Words: qc_limiter_algo_name. */
typedef enum qc_limiter_algo {
    QC_LIMITER_FIXED = 0,
    QC_LIMITER_MAXUSERS,
    QC_LIMITER_AIMD,
    QC_LIMITER_VEGAS,
    QC_LIMITER_GRADIENT2,
    QC_LIMITER_ENVOY,
    QC_LIMITER_ADMISSION
} qc_limiter_algo;

/* One of the three, or AIMD (qctl/aimd.h), chosen at run time. The kind
 * is a qc_limiter_algo; qc_lim_kind and its QC_LIM_ names are the earlier
 * spellings of the same values, kept for existing code. */
typedef qc_limiter_algo qc_lim_kind;
#define QC_LIM_GRADIENT2 QC_LIMITER_GRADIENT2
#define QC_LIM_VEGAS QC_LIMITER_VEGAS
#define QC_LIM_ENVOY QC_LIMITER_ENVOY
#define QC_LIM_AIMD QC_LIMITER_AIMD

typedef struct qc_lim_conc {
    qc_lim_kind kind;
    union {
        qc_lim_gradient2 g2;
        qc_lim_vegas vegas;
        qc_lim_envoy envoy;
        qc_lim_aimd aimd;
    } u;
} qc_lim_conc;

int qc_lim_conc_step(qc_lim_conc *c, const qc_lim_sample *in, qc_lim_act *out);
double qc_lim_conc_limit(const qc_lim_conc *c);
/* The word of one of the four kinds (qc_limiter_algo_name's), "?" for
 * another algorithm; the parse takes only the four. */
const char *qc_lim_kind_name(qc_lim_kind k);
int qc_lim_kind_parse(const char *s, qc_lim_kind *v, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
