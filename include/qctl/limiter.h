/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/limiter.h: an embeddable concurrency limiter for a live server.
 *
 * A server asks qc_limiter_acquire before it starts a request, calls
 * qc_limiter_release with the measured latency when the request is done,
 * and calls qc_limiter_tick once per control interval from one thread of
 * its choice. The tick runs a controller (the step objects of
 * qctl/controller.h and qctl/limiters.h) and publishes the new limit.
 *
 * The admit path (acquire) takes no lock and allocates nothing: it reads
 * the published limit L and moves the in-flight count n from n to n + 1
 * with a compare-and-swap only while n < L. Since every increment is
 * checked against L by the CAS itself, n can never be raised past L; it
 * can exceed a limit only when the tick lowers L below requests already
 * admitted, which then finish normally (a limiter never cuts off work it
 * let in). Release is lock-free too: it adds the sample to atomic
 * aggregates (count, latency sum, minimum, largest in-flight, drops).
 *
 * The tick drains those aggregates into one sample per control interval,
 * as Netflix concurrency-limits' WindowedLimit does: the mean latency, the
 * largest in-flight seen at admission, and whether any request dropped.
 * Per algorithm:
 *
 *   FIXED      the limit never moves.
 *   MAXUSERS   the MaxUsers controller (qc_mu_ctl of qctl/controller.h, the
 *              same object `qctl sim maxusers` runs) on the number of
 *              requests in the
 *              server: y = (sum of the latencies completed in the
 *              interval) / interval, the "logged RIS" sensor of the
 *              MaxUsers work (by Little's law the time-average in flight),
 *              or the value given to qc_limiter_observe; limit(k+1) =
 *              limit(k) + K_I (r - y(k)), clamped with anti-windup; and
 *              held (its demand hold) while it asks for more but no
 *              request reached the limit in the interval (a limit nobody
 *              reaches is not what holds y down, and raising it only
 *              winds up a burst). The peak is the most requests in flight
 *              at once, from the completions of the interval.
 *   AIMD       Netflix AIMDLimit: dropped, or mean latency above
 *              aimd_timeout: limit *= aimd_backoff; else if in-flight * 2
 *              >= limit: limit += 1.
 *   GRADIENT2, VEGAS, ENVOY: the step objects of qctl/limiters.h, given
 *              the interval's sample (Envoy also gets a clock tick).
 *   ADMISSION  the autonomic multi-class admission control of
 *              qctl/admission.h on a live server: the limit starts at
 *              initial_limit (the backends' parallelism, so that the queue
 *              forms in front of them where priorities act) and changes
 *              only by qc_limiter_set_limit (the admission front's
 *              Little's-law rule, qctl/front.h), and each
 *              class with a bound D_i (bound[i] > 0) runs its own qc_adm
 *              controller on its own mean delay, measured per busy cycle:
 *              a busy cycle ends when the in-flight count returns to 0
 *              (the release that empties the server closes it), and one
 *              that outlasts a whole control interval is cut at the tick
 *              (sustained load: the interval is the measurement window).
 *              A class reports a sample once it holds adm_min_completions
 *              completions (fewer are carried over), as in the model.
 *              Admitted classes track (1 - eps) D_i with their priority;
 *              candidates (bit i of adm_candidates) grow theirs by slow
 *              start and are admitted or rejected. A rejected class is
 *              refused by acquire for good (QC_LIMITER_REJECTED); classes
 *              with bound 0 are best effort and share the weight left,
 *              max(1 - sum of the bounded classes' priorities, be_floor).
 *              The server dequeues its waiting requests by these weights
 *              (qc_limiter_weight); the latency given to release must be
 *              the request's whole delay (queue + service) for this one.
 *
 * A sample that straddles a tick may have its count in one interval and
 * its latency in the next: the aggregates are separate atomics, not one
 * snapshot. The error is one request per tick at most.
 *
 * Ownership: qc_limiter_alloc returns a limiter freed by qc_limiter_free
 * (NULL ok); no request may be in acquire or release during the free.
 * Errors: 0 or a negative QC_E* code, messages name the field. */
#ifndef QCTL_LIMITER_H
#define QCTL_LIMITER_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/admission.h"
#include "qctl/controller.h"
#include "qctl/error.h"
#include "qctl/limiters.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_LIMITER_CLASSES_MAX 16

/* qc_limiter_algo, the one enum of the limiter algorithms, is in
 * qctl/limiters.h (the step objects' qc_lim_conc holds one). */

typedef struct qc_limiter_params {
    qc_limiter_algo algo;
    double initial_limit; /* limit before the first tick (>= 1); 20,
                             MAXUSERS 10 (its least reference) */
    double min_limit;     /* floor (>= 1) */
    double max_limit;     /* ceiling (> min_limit) */
    unsigned classes;     /* 1..QC_LIMITER_CLASSES_MAX (counters per class) */
    /* MAXUSERS */
    double reference; /* r: requests in the server to hold; 0 (the default):
                         it adapts to the server, placed past the knee of
                         its latency curve, and 10 at least until a knee is
                         measured (qc_knee, qctl/controller.h) */
    double ki, kp;    /* gains (kp = 0: integral control) */
    /* AIMD */
    double aimd_backoff; /* in (0, 1), default 0.9 */
    double aimd_timeout; /* latency counted as a drop, seconds (default 5) */
    /* the step objects' own parameters (defaults from their _params_init) */
    qc_lim_gradient2_params gradient2;
    qc_lim_vegas_params vegas;
    qc_lim_envoy_params envoy;
    /* ADMISSION: bound[i] > 0 is class i's delay bound D_i in seconds,
     * 0 makes it best effort; bit i of adm_candidates: class i starts as
     * a candidate (else admitted). */
    double bound[QC_LIMITER_CLASSES_MAX];
    uint32_t adm_candidates;
    double adm_epsilon;            /* eps in [0, 1) (default 0.1) */
    double adm_alpha;              /* slow-start constant > 0 (default 20) */
    unsigned adm_min_completions;  /* m >= 1: completions per sample (20) */
    double be_floor;               /* least best-effort weight (0.01) */
} qc_limiter_params;

/* Defaults for algo: initial 20, min 1, max 1000, one class; MaxUsers
 * r adaptive (0), K_I = 0.5; AIMD 0.9 and 5 s; the step objects' defaults, with
 * Envoy's min_rtt_requests lowered to 5 since it sees one sample a tick. */
void qc_limiter_params_init(qc_limiter_params *c, qc_limiter_algo algo);

/* "fixed", "maxusers", "aimd", "vegas", "gradient2", "envoy", "admission". */
const char *qc_limiter_algo_name(qc_limiter_algo a);
/* The algorithm named s; QC_EINVAL (message lists the names) otherwise.
 * "static" is taken as "fixed" (the word of `qctl control` and
 * `qctl gate` for a limit held constant). */
int qc_limiter_algo_parse(const char *s, qc_limiter_algo *a, qc_err *err);

typedef struct qc_limiter qc_limiter;

/* What acquire hands back and release takes back. Plain value. */
typedef struct qc_limiter_token {
    uint32_t inflight; /* in flight once admitted, itself included */
    uint16_t cls;
    uint16_t live; /* 1 between acquire and release */
} qc_limiter_token;

/* What acquire answers: 0 when the request is admitted, a negative code
 * otherwise (so `if (qc_limiter_acquire(...) != 0) refuse();`).
 * REFUSE: no slot now (it may wait and ask again). REJECTED: the class
 * was rejected by admission control; refuse it now rather than let it
 * wait (it will not be let in). Both are QC_E* codes (qc_strerror). */
enum {
    QC_LIMITER_ADMIT = 0,
    QC_LIMITER_REFUSE = QC_EREFUSED,
    QC_LIMITER_REJECTED = QC_EREJECTED
};
/* Outcomes for release. */
enum { QC_LIMITER_OK = 0, QC_LIMITER_DROPPED = 1, QC_LIMITER_IGNORE = 2 };

/* Checks the parameters and builds a limiter; now is the caller's clock
 * in seconds (Envoy starts its first minRTT window there). NULL on error
 * with err set: QC_EINVAL or QC_ERANGE naming the field, QC_ENOMEM. */
qc_limiter *qc_limiter_alloc(const qc_limiter_params *c, double now, qc_err *err);
void qc_limiter_free(qc_limiter *l);

/* Admit (QC_LIMITER_ADMIT = 0, token filled) or refuse (the negative
 * QC_LIMITER_REFUSE, or QC_LIMITER_REJECTED for a class admission control
 * rejected; token untouched) one
 * request of class cls; a class beyond the configured ones counts as the
 * last class. Lock-free, allocation-free, thread-safe. */
int qc_limiter_acquire(qc_limiter *l, unsigned cls, qc_limiter_token *tok);

/* The request of tok is done after `latency` seconds; outcome is
 * QC_LIMITER_OK, QC_LIMITER_DROPPED (failed or timed out: a congestion
 * signal) or QC_LIMITER_IGNORE (not a sample, e.g. cancelled by the
 * client). Releasing a token twice is a no-op (its live flag is cleared).
 * Lock-free, thread-safe. */
void qc_limiter_release(qc_limiter *l, qc_limiter_token *tok, double latency, int outcome);

/* Sets the MaxUsers measurement y for the next tick (e.g. a queue length
 * the server measures itself) instead of the logged in-flight. */
void qc_limiter_observe(qc_limiter *l, double y);

/* Changes the MaxUsers reference r at run time (thread-safe); an
 * adaptive reference stops adapting and stays at r. */
void qc_limiter_set_reference(qc_limiter *l, double r);

/* ADMISSION: class cls's scheduling weight now (its priority, the
 * best-effort share, or 0 once rejected); 1 for the other algorithms.
 * Lock-free (published by tick). */
double qc_limiter_weight(const qc_limiter *l, unsigned cls);

/* ADMISSION: sets class cls's delay bound D (> 0, finite) from the next
 * tick on. QC_ERANGE for a class out of range or a class that is best
 * effort, QC_EINVAL for a bad D or another algorithm; nothing changes
 * then. Thread-safe. */
int qc_limiter_set_bound(qc_limiter *l, unsigned cls, double bound, qc_err *err);

/* Runs the controller on the samples since the last tick and publishes
 * the new limit. now is the caller's clock in seconds, non-decreasing.
 * Thread-safe (a mutex: it is not the admit path). Returns 0, or
 * QC_EINVAL for a clock that went backwards (nothing changes). */
int qc_limiter_tick(qc_limiter *l, double now);

typedef struct qc_limiter_stats {
    double limit;  /* the controller's limit (a real number) */
    uint32_t gate; /* the published integer limit */
    uint32_t inflight;
    uint64_t admitted, refused, completed, dropped;
    uint64_t class_admitted[QC_LIMITER_CLASSES_MAX];
    uint64_t class_refused[QC_LIMITER_CLASSES_MAX];
    double last_y;   /* MAXUSERS: the last measurement (NAN before) */
    double last_rtt; /* mean latency of the last interval (NAN: none) */
    /* ADMISSION, per class: weight, state (qc_adm_state; -1 best effort),
     * bound, the last sample's mean delay (NAN before) and samples so far */
    double class_weight[QC_LIMITER_CLASSES_MAX];
    int class_state[QC_LIMITER_CLASSES_MAX];
    double class_bound[QC_LIMITER_CLASSES_MAX];
    double class_delay[QC_LIMITER_CLASSES_MAX];
    uint64_t class_samples[QC_LIMITER_CLASSES_MAX];
    uint64_t busy_cycles; /* ended (by idle) since the start */
    double reference;     /* MAXUSERS: the reference in force (NAN otherwise) */
    double knee;          /* the knee's estimate (NAN before; see qc_knee) */
    double noload;        /* qc_limiter_noload */
} qc_limiter_stats;

/* A snapshot of the counters (each read atomically, not all at once). */
void qc_limiter_get_stats(qc_limiter *l, qc_limiter_stats *st);

/* The no-load latency of the server: the least latency given to release
 * (seconds; NAN before the first), raised only by the knee estimator's
 * probe (qc_knee); once the plant gave its mean no-load latency
 * (qc_limiter_set_noload), that. Lock-free. Not under ADMISSION (its latencies hold
 * the wait in the caller's queue). */
double qc_limiter_noload(const qc_limiter *l);
/* The plant's mean no-load latency for the knee estimator
 * (qc_knee_set_noload): the admission front gives its L0 at each window's
 * close. Ignored unless > 0 and finite. */
void qc_limiter_set_noload(qc_limiter *l, double l0);

/* The published integer limit. */
uint32_t qc_limiter_limit(const qc_limiter *l);

/* The controller's limit, a real number (the gate is its floor). */
double qc_limiter_limit_real(qc_limiter *l);

/* When the step object wants its next clock tick (Envoy's sample and
 * minRTT windows; INFINITY: none asked), as of the last tick. */
double qc_limiter_next_tick(qc_limiter *l);

/* Puts the limit at u (clamped to [min_limit, max_limit]) now and the
 * controller's state with it, as if it had arrived there (a bumpless
 * restart: MaxUsers' integrator, AIMD's, Gradient2's, Vegas' and Envoy's
 * limit, Envoy's limit to restore after its minRTT window). ADMISSION: the
 * limit becomes u and stays there (its controllers set weights, not the
 * limit; the admission front sets it from the backends' throughput,
 * qctl/front.h). Not under FIXED (nothing changes). Thread-safe. */
void qc_limiter_set_limit(qc_limiter *l, double u);

/* Takes new parameters c at run time (a configuration reloaded), keeping
 * the controller's state where its parameters did not change. c must
 * pass qc_limiter_alloc's checks and keep the algorithm and the number of
 * classes (QC_EINVAL naming the field otherwise; nothing changes then).
 * FIXED: the limit becomes c's initial_limit. The others: when only the
 * limits' range (min, max), the MaxUsers reference or the ADMISSION
 * bounds differ, the limit in force is kept (clamped to the new range),
 * the reference set (0: it adapts again) and the bounds taken at the
 * next tick; when a gain or a step object's own parameter differs, the
 * controller restarts bumplessly at the limit in force (as
 * qc_limiter_set_limit). ADMISSION's epsilon, alpha, completions per
 * sample and candidates cannot change (QC_EINVAL): the classes' admitted
 * or rejected states rest on them. Sets *changed (when not NULL) to 1 if
 * anything differed. Thread-safe. */
int qc_limiter_reconfigure(qc_limiter *l, const qc_limiter_params *c, double now, int *changed,
                           qc_err *err);

/* The request of tok stops holding its slot for a while (lend 1: the
 * slot is another's to take) or holds it again (lend 0: taken even past
 * the limit, as a request let in before a decrease; tok->inflight becomes
 * the count with it back in): for a plant whose admitted request is not
 * yet its backend's work (qctl/front.h, qc_front_carry). No sample and no
 * count: the release that ends the request is the one that counts, made
 * with the slot held. Lock-free. */
void qc_limiter_lend(qc_limiter *l, qc_limiter_token *tok, int lend);

/* A completion measured by a plant that keeps its own in-flight count (a
 * simulation gating by the published limit): the sample release would add
 * for a token of `inflight` (in flight once it was admitted, itself
 * included) without touching the in-flight count. Lock-free. */
void qc_limiter_record(qc_limiter *l, unsigned cls, double latency, uint32_t inflight, int outcome);

/* ADMISSION: a request of class cls was refused by the server in front
 * (its wait reached its class's target, or no place was left): it joins
 * its class's current busy cycle as a sample of delay `cost` seconds, a
 * miss, so that a class whose requests are turned away sees its delay
 * measured as over its target rather than as the delay of the requests
 * that got in (which the waiting room keeps below the bound). A no-op for
 * other limiters, an unbounded class, or a cost that is not a finite
 * time >= 0. Lock-free, as release. */
void qc_limiter_refused(qc_limiter *l, unsigned cls, double cost);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
