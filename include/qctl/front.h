/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/front.h: the admission front of a server: every decision on who
 * is let in, who waits, who goes next and who is refused, as one object
 * with no I/O and no clock, that a live proxy, a TCP gate and a
 * simulation all run alike.
 *
 * The idea: a plant (the proxy's event loop, the gate's, or a discrete-
 * event simulation) only reports events, with its own clock's time as an
 * argument, and carries out the decisions it gets back. The same trace of
 * events then gives the same decisions in the same order whoever runs it
 * (tests/unit/control/test_front_replay.c replays one through a simulation
 * and through the proxy's core and compares them).
 *
 * What the front holds:
 *   - the limiter (qctl/limiter.h): how many requests may be in the
 *     backends at once, stepped by a sampler with a declared cadence
 *     (qc_lim_sampler below: one sample per control interval, or per N
 *     completions; one rule, one cadence, whoever runs it);
 *   - a waiting room of `queue` places shared by the classes, one FIFO per
 *     class with each request's deadline (its class's, shortened to the
 *     queue target while the queue stands);
 *   - the queue discipline: FIFO, or CoDel's standing-queue test with
 *     adaptive LIFO (qctl/codel.h);
 *   - start-time fair queueing between the classes (qctl/sfq.h) by the
 *     limiter's weights (all 1 but under ADMISSION, where the admission
 *     controller of qctl/admission.h sets them per class).
 *
 * Work-conserving: a limiter may keep requests waiting, and so refuse
 * some, only while the backends behind it are overloaded. At each close
 * of the sampler's window the front gives a verdict on the backends from
 * the requests let in at the gate (with as many in flight, itself
 * included, as the gate in force lets in): fast when the mean of their
 * times at a backend is within max(L0 (1 + fast_rise), L0 + fast_slack)
 * (fast_slack left out while an overload is confirmed: with L0 = 10 ms
 * its 20 ms are two service times of queueing, and the rule held
 * MaxUsers' limit near 11.5 against a reference of 6 at 3x load), and
 * nothing failed; slow otherwise (CoDel's standing-queue test applied to
 * the backends: a backend whose own queue stands at that level makes
 * every such request wait). L0 is the no-load latency: the running mean
 * of the times at a backend of the last 32 requests let in with at most
 * half the knee in flight (itself included; the knee the gate of the
 * last fast verdict, or the gate in force when lower): requests that met
 * the backends idle. Until 32 such requests were seen, a window that
 * brought none while the limit bound starts a probe: the next 4 requests
 * are let in each once fewer than half the knee are in flight. No
 * verdict before 4 such samples (qc_front_noload; n0 and mean0 in
 * qc_front_stats). Not the least latency ever seen: of exponential
 * services it is a few microseconds, and no window's mean comes near it.
 * While fast, the controller may not lower the limit, and a limit that
 * kept a request out
 * doubles (up to the demand, in flight + waiting; from half the gate of
 * the last slow verdict on, by an eighth), the controller restarted there
 * (qc_limiter_set_limit). A verdict fast only by the slack (the mean past
 * L0 (1 + fast_rise)) may be backends queueing as well as a host's
 * delays: the limit then rises by an eighth, not doubling, and it reads
 * slow once the bound run has grown past its noise window after window
 * (the cold start of a 3x overload of 4 workers of det:0.01 read 25 to
 * 35 ms at the backends as fast, doubled the limit, and the gates it went
 * through raised L0 to 14 ms: live admitted p99 53 to 96 ms, now 33 to
 * 36). Once slow, each controller keeps its own rule
 * (MaxUsers its reference, AIMD its backoff), except that the first slow
 * verdict after fast ones lowers the limit by half at most (it may be a
 * stall of the host, not the backends). CoDel judges the waiting room
 * only in a confirmed overload: a slow verdict on a window with more
 * arrivals than completions (a closed loop of clients, however slow the
 * backends, has as many of each, and refusing them frees nothing), the
 * second slow one in a row or one with more requests held (in flight and
 * waiting) than twice the largest gate ever judged fast; or a slow
 * verdict on a bound run (the windows in a row in which the limit kept a
 * request out) whose requests held grew by more than 4 standard
 * deviations of its arrivals plus one, the last three windows each
 * growing past one of their own (a moderate overload, 1.2x to 1.5x, whose
 * verdicts alternate; a closed loop's burst grows one or two windows,
 * then holds); or a slow verdict while the limit binds and requests are
 * refused at their deadline. Five fast verdicts in a row, or three
 * windows in a row in which the limit never bound (one may be a lull of
 * the arrivals while CoDel keeps the room short), end it (the waiting
 * room is then the limit's and drains by its rising). From a bound run's first window
 * grown past its noise (or from the moment the window open now has grown
 * so) until the overload is confirmed or ended, the
 * waiting room serves its newest first (CoDel's LIFO, which refuses
 * nothing), under a fixed limit too. The time at a backend is the plant's to measure: the proxy
 * takes its own event loop's delays out of it (a proxy short of CPU is not
 * a backend overloaded). Not under FIXED or ADMISSION, whose limits are
 * the user's.
 *
 * Bounded classes (under the ADMISSION limiter: the autonomic admission
 * control of qctl/admission.h, the seed's rules). Each class with a
 * bound D_i runs its own controller on its own mean delay, measured per
 * busy cycle (the limiter): admitted classes track T_i = (1 - eps) D_i,
 * candidates slow-start. The waiting room keeps every admitted request's
 * delay within its target: class i's requests wait at most their class's
 * target W_i = adm_room T_i - S_i (S_i its mean time at a backend, as
 * measured), and one that reaches it is refused (DEADLINE): the room never
 * stands past its target, so no queue builds for CoDel to find (CoDel is
 * off here). A refusal counts for the class's controller as a delay of
 * adm_refusal_cost D_i (a miss): a class refused at its target sees its
 * delay over its target and raises its priority, as it would if its
 * requests had waited. The classes share the slots by start-time fair
 * queueing with weights p_i / D_i: priority per second of bound, so that
 * at equal priorities the tighter class is favoured (under an overload
 * that no priorities can serve, every class's priority runs to its
 * ceiling and the slots go in proportion to 1 / D_i: the looser class
 * takes the refusals). Best effort (bound 0) has the weight the limiter
 * leaves it and waits up to queue_timeout. The limit is the front's to
 * set (qc_limiter_set_limit), at the end of each window, so that the
 * backends do not queue past the bounds where no weight acts: with S0
 * the backends' service time (the mean time at a backend of requests sent
 * with no more in flight than the servers in use) and X the window's
 * throughput, the servers in use are X S0 (Little's law) and the backends
 * may queue for w = adm_backend_share (T - S0), T the tightest admitted
 * class's target; a window whose mean time at a backend passes S0 + w
 * sets the limit to X (S0 + w) (from the second such window in a row,
 * by a quarter at most), one within it whose limit kept a request out
 * raises it by one (never past the demand). It
 * starts at the limiter's initial_limit, which is also its most.
 *
 * Events in, decisions out:
 *   qc_front_arrive    a request arrives: ADMIT now, WAIT (with a handle
 *                      and a deadline), or REFUSE with a reason;
 *   qc_front_done      a slot frees: the request's token comes back with
 *                      the time it spent at its backend and its outcome;
 *                      decisions follow for the waiting requests (which
 *                      ones go next, which are refused);
 *   qc_front_tick      a control interval ends: the limiter's controller
 *                      steps (per-interval cadence), CoDel's state moves,
 *                      and decisions follow as for done;
 *   qc_front_expire    a deadline the front gave has come: the requests
 *                      whose deadline passed are refused (REFUSE,
 *                      QC_FRONT_DEADLINE); call it at or after
 *                      qc_front_next_deadline;
 *   qc_front_cancel    a waiting request went away (its client closed);
 *   qc_front_drain     stop: every waiting request and every later
 *                      arrival is refused (QC_FRONT_DRAINING).
 * Decisions name requests by the caller's 64-bit id (a pointer cast to
 * uintptr_t, an index: anything), given at arrival.
 *
 * Embedding. The front allocates everything in qc_front_alloc (the
 * waiting room's `queue` places included); no event allocates. The
 * decision arrays are the caller's: an event returns at most
 * qc_front_max_decisions(f) decisions (the waiting room's places plus
 * one), so one array of that length per calling thread, allocated once,
 * is enough. Every event function takes the front's own mutex for its
 * whole run, so several event-loop threads may share one front with no
 * lock of their own: the decisions of one event come back together, in
 * order, consistent with every other thread's. A decision may name a
 * request another thread owns (a slot freed on loop A lets in a request
 * waiting on loop B); the caller hands it over (e.g. uv_async) and must
 * carry it out even if it arrives late. qc_front_lock/unlock let a caller
 * read several statistics at once consistently.
 *
 * Admitted requests hold a qc_front_token (plain value, the caller's) that
 * goes back to qc_front_done exactly once (a second time is a no-op). A
 * request admitted and then not sent (no backend up) goes back with
 * QC_FRONT_IGNORE, which frees its slot without making a sample.
 *
 * Time: seconds on any clock that does not go backwards, the same for
 * every call on one front. Errors: 0 or a negative QC_E* code, messages
 * naming the field. */
#ifndef QCTL_FRONT_H
#define QCTL_FRONT_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/codel.h"
#include "qctl/error.h"
#include "qctl/limiter.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_FRONT_CLASSES_MAX QC_LIMITER_CLASSES_MAX

/* ---- the sampler -----------------------------------------------------------
 * When a limiter's window of samples closes and its controller steps:
 * every = 0, at the end of a control interval (a tick) once the window
 * holds `least` completions, or holds a failure, or has lasted
 * QC_LIM_SAMPLER_TICKS intervals (a window spans intervals until then);
 * every = N >= 1, once per N completions (N = 1: per completion, as
 * `qctl sim admission` steps its limiters). The front runs one; a
 * simulation that gates by itself runs the same with qc_limiter_record.
 * Why `least`: a window's verdict is a mean of the times at a backend of
 * its requests, and of 8 exponential times (4 workers of exp:20 in a
 * 0.1 s interval) its standard error is a third of the mean, so verdicts
 * against L0 (1 + 0.2) were coin flips and the limit walked: one live
 * run's p50 at 3x moved between 108 and 169 ms, and runs on the same
 * arrivals and service draws differing only in the host's timing spread
 * by 10% (qctl sim proxy, its transit redrawn). With 32 (a standard
 * error of 18%) they spread by 3%. */
#define QC_LIM_SAMPLER_TICKS 10 /* intervals a window lasts at most (every = 0) */
typedef struct qc_lim_sampler {
    unsigned every; /* 0: per interval; N: per N completions */
    unsigned least; /* every = 0: completions a window holds at least (0, 1: any) */
    unsigned ticks; /* every = 0: intervals in the open window */
    uint64_t count; /* completions in the open window */
} qc_lim_sampler;

void qc_lim_sampler_init(qc_lim_sampler *s, unsigned every, unsigned least);
/* A completion; 1 when the window closes now (step the controller). */
int qc_lim_sampler_completion(qc_lim_sampler *s);
/* A control interval ended; 1 when the window closes now. failed: the
 * open window holds a failure (a timeout, an error), which closes it. */
int qc_lim_sampler_tick(qc_lim_sampler *s, int failed);

/* ---- the front ---------------------------------------------------------- */

typedef enum qc_front_discipline {
    QC_FRONT_FIFO = 0, /* first come first served, each its class's deadline */
    QC_FRONT_CODEL     /* CoDel's standing test and adaptive LIFO (qctl/codel.h);
                          FIFO under the ADMISSION limiter, whose weights order
                          the queue and whose controller must see the waits */
} qc_front_discipline;

typedef struct qc_front_params {
    int control;               /* 1: the limiter gates (default); 0: no limiter,
                                  every request admitted at once */
    qc_limiter_params limiter; /* algo and its parameters; its classes,
                                  bounds and candidates are set from below */
    unsigned classes;          /* 1..QC_FRONT_CLASSES_MAX (default 1) */
    double bound[QC_FRONT_CLASSES_MAX]; /* class i's delay bound, s: its wait
                                  deadline, and under ADMISSION the mean-delay
                                  bound D_i; 0: best effort (queue_timeout) */
    uint32_t candidates;       /* ADMISSION: bit i, class i starts a candidate */
    unsigned queue;            /* waiting places, all classes (default 1024) */
    double queue_timeout;      /* the wait deadline of best effort, and of every
                                  class under ADMISSION (default 1 s) */
    qc_front_discipline discipline; /* default QC_FRONT_CODEL */
    qc_codel_params codel;     /* qc_codel_params_init's defaults */
    unsigned sample_every;     /* the sampler's cadence (0: per interval, the default) */
    unsigned sample_least;     /* sample_every = 0: completions a window holds
                                  at least (default 32; the sampler above;
                                  not ADMISSION, which counts per class) */
    double est_init;           /* SFQ: first guess of a request's time at a
                                  backend, s (default 0.01) */
    int work_conserving;       /* 1 (default): the limit follows the demand
                                  while the backends are fast (below) */
    double fast_rise;          /* fast: the mean time at the backends of a
                                  window's requests let in at the gate within
                                  L0 (1 + fast_rise) (default 0.2) ... */
    double fast_slack;         /* ... or within L0 + fast_slack, s (default
                                  0.02: a loaded host's scheduling delays; at
                                  256 connections to a backend answering at
                                  once the least was 1.5 to 3 ms, with
                                  stalls of 8 to 15 ms at load 13 on 2 cores) */
    /* ADMISSION's waiting room (see "Bounded classes" above) */
    double adm_room;           /* class i's wait target: adm_room T_i less its
                                  mean time at a backend, T_i = (1 - eps) D_i
                                  (default 1: a request that would miss its
                                  class's target is refused) */
    double adm_refusal_cost;   /* a refused request of class i counts in its
                                  delay samples as adm_refusal_cost D_i
                                  (default 100: a miss that outweighs the
                                  admitted requests' delays, so that the
                                  class refused raises its priority); one
                                  refused more than 0.1 D_i past its
                                  deadline (the plant's loop stalled)
                                  counts as the delay it had */
    double adm_backend_share;  /* the share in [0, 1) of the tightest class's
                                  slack T - S0 the backends may queue for
                                  (the limit, see "Bounded classes";
                                  default 0.25) */
} qc_front_params;

/* Defaults above, with limiter algo algo (qc_limiter_params_init). */
void qc_front_params_init(qc_front_params *p, qc_limiter_algo algo);

typedef enum qc_front_act {
    QC_FRONT_ADMIT = 0, /* send it now; its token is in the decision */
    QC_FRONT_WAIT,      /* it waits (arrive only): handle and deadline given */
    QC_FRONT_REFUSE     /* answer it refused (503); the reason is given */
} qc_front_act;

typedef enum qc_front_reason {
    QC_FRONT_NONE = 0,   /* admitted or waiting */
    QC_FRONT_FULL,       /* no slot and no waiting place */
    QC_FRONT_DEADLINE,   /* waited until its deadline */
    QC_FRONT_STANDING,   /* the queue stands and it waited past the target */
    QC_FRONT_REJECTED,   /* its class was rejected by admission control */
    QC_FRONT_DRAINING,   /* the front drains */
    QC_FRONT_REASONS
} qc_front_reason;

/* "none", "full", "deadline", "standing", "rejected", "draining". */
const char *qc_front_reason_name(qc_front_reason r);

/* Outcomes for qc_front_done (the limiter's). */
enum { QC_FRONT_OK = QC_LIMITER_OK, QC_FRONT_DROPPED = QC_LIMITER_DROPPED,
       QC_FRONT_IGNORE = QC_LIMITER_IGNORE };

/* An admitted request's slot. Plain value, the caller's. */
typedef struct qc_front_token {
    qc_limiter_token lt;
    double t_arrive, t_admit;
    uint16_t cls;
    uint16_t live;  /* 1 until given back */
    uint16_t carry; /* 1 while its body is carried to its backend, 2 once
                       carried (qc_front_carry) */
} qc_front_token;

/* A waiting request's place: for qc_front_cancel (0: none). */
typedef uint64_t qc_front_handle;

typedef struct qc_front_decision {
    uint64_t id;            /* the caller's id of the request */
    qc_front_act act;
    qc_front_reason reason; /* REFUSE: why */
    unsigned cls;
    double waited;          /* s in the waiting room (0: decided at arrival) */
    double deadline;        /* WAIT: when it is refused if still waiting */
    qc_front_handle handle; /* WAIT: its place */
    qc_front_token tok;     /* ADMIT: its slot, for qc_front_done */
} qc_front_decision;

typedef struct qc_front qc_front;

/* Checks p and builds a front at time now. NULL on error with err set
 * (QC_EINVAL or QC_ERANGE naming the field, QC_ENOMEM). */
qc_front *qc_front_alloc(const qc_front_params *p, double now, qc_err *err);
void qc_front_free(qc_front *f);

/* The most decisions one event returns: the length of the caller's array. */
size_t qc_front_max_decisions(const qc_front *f);

/* A request of class cls (beyond the classes: the last) arrives: *d says
 * ADMIT, WAIT or REFUSE. Returns d->act. */
int qc_front_arrive(qc_front *f, double now, unsigned cls, uint64_t id, qc_front_decision *d);

/* The same arrival, with the decisions that come before its own under
 * ADMISSION: waiting requests past their deadline are refused (DEADLINE)
 * first, and when the room is full the class holding the most places per
 * unit of weight gives up its newest (FULL) to make a place (see
 * "Bounded classes"). Writes them into out[0..cap), the arrival's own
 * decision last, and returns their number (QC_EINVAL when cap <
 * qc_front_max_decisions). Without ADMISSION, one decision, as
 * qc_front_arrive. A plant that uses this must use it for every arrival. */
int qc_front_arrive_n(qc_front *f, double now, unsigned cls, uint64_t id, qc_front_decision *out,
                      size_t cap);

/* The admitted request of tok is over: service is its time at the backend
 * as the plant measured it (NaN: now - tok->t_admit), outcome QC_FRONT_OK,
 * _DROPPED (failed, timed out: a congestion signal) or _IGNORE (not a
 * sample). Writes the decisions that follow into out[0..cap) and returns
 * their number, or QC_EINVAL when cap < qc_front_max_decisions. */
int qc_front_done(qc_front *f, double now, qc_front_token *tok, double service, int outcome,
                  qc_front_decision *out, size_t cap);

/* The admitted request of tok is carrying its body to its backend (on 1)
 * or has it whole there (on 0). While it carries, its slot is lent: the
 * limit counts the requests that are their backends' work, and a body on
 * its way (8 MiB take one to three seconds through a loaded host) is the
 * network's. Without it, 40 concurrent 8 MiB uploads to a backend that
 * answers at once held the slots while they moved, the rest waited past
 * their 1 s deadline in the room, and 4 to 35 of 40 were refused by every
 * limiter, a backend overloaded by nothing. On 0 (the proxy: the
 * response's first byte) it takes its slot back even past the limit (as
 * requests let in before a decrease; the next ones wait until the count
 * is under it again). A request that carried a body makes no sample (its
 * time includes the transfer, not queueing alone; it still counts as a
 * failure). A second call with the same on is a no-op; done on a carrying
 * token ends it. The cost: a backend slow to answer large bodies is not
 * limited while it reads them (a limit of requests, not of bytes). Decisions as qc_front_done (the lent slot may
 * let a waiting request in). */
int qc_front_carry(qc_front *f, double now, qc_front_token *tok, int on, qc_front_decision *out,
                   size_t cap);

/* The end of a control interval: as qc_front_done. Also QC_EINVAL (and
 * nothing changes) for a clock that went backwards. */
int qc_front_tick(qc_front *f, double now, qc_front_decision *out, size_t cap);

/* Refuses (QC_FRONT_DEADLINE) the waiting requests whose deadline is at
 * or before now: as qc_front_done. */
int qc_front_expire(qc_front *f, double now, qc_front_decision *out, size_t cap);

/* Lets waiting requests in while there are slots (e.g. after the limit or
 * a bound was changed by hand): as qc_front_done. */
int qc_front_pump(qc_front *f, double now, qc_front_decision *out, size_t cap);

/* The earliest deadline of a waiting request (INFINITY: none waits). */
double qc_front_next_deadline(qc_front *f);

/* The waiting request of handle h leaves unanswered by the front (its
 * client went away). 0, or QC_EEMPTY when h waits no more (it was decided:
 * the decision stands). */
int qc_front_cancel(qc_front *f, qc_front_handle h);

/* Refuses every waiting request (QC_FRONT_DRAINING) and, from now on,
 * every arrival: as qc_front_done. */
int qc_front_drain(qc_front *f, double now, qc_front_decision *out, size_t cap);

/* The wait a request of class cls arriving now would be given (its
 * class's deadline, or the queue target while the queue stands; under
 * ADMISSION a bounded class's wait target W_i), s. */
double qc_front_class_deadline(qc_front *f, unsigned cls);

/* A request admitted but waiting for its backend's setup (a parked
 * backend switched on for it): how long it may still wait at now, s,
 * having arrived at t_arrive: its class's wait deadline counted from its
 * arrival, as in the waiting room (a setup is waited out like a queue,
 * not refused at once); 0: past it, refuse it now. */
double qc_front_setup_wait(qc_front *f, unsigned cls, double t_arrive, double now);

/* Sets class cls's wait deadline (> 0, finite) for requests arriving
 * from now on (not under ADMISSION, where it is queue_timeout: set the
 * limiter's bound there). QC_ERANGE for a class out of range, QC_EINVAL
 * for a bad d. */
int qc_front_set_deadline(qc_front *f, unsigned cls, double d, qc_err *err);

/* An outer limit of the plant's own, beside the limiter's: at most cap
 * requests admitted at once (UINT32_MAX, the default: none; 0 lets none
 * in). For a plant that runs a controller of its own on a measure the
 * front does not see (the TCP gate's MaxUsers on a sensor), with the
 * limiter off (control 0) or not. A lower cap never refuses a request
 * already in; a higher one lets the waiting in now, the decisions
 * written as qc_front_done's. */
int qc_front_set_cap(qc_front *f, double now, uint32_t cap, qc_front_decision *out, size_t n);

/* The waiting room's bound from now on: at most the places allocated by
 * qc_front_alloc (QC_ERANGE beyond: allocate the most a reload may ask
 * for); requests already waiting beyond a lower bound stay. */
int qc_front_set_queue(qc_front *f, unsigned queue, qc_err *err);

/* The CoDel target in force (adaptive: from the backends' no-load
 * latency as measured now), s; under ADMISSION the tightest bounded
 * class's wait target W_i (NAN: no bounded class). */
double qc_front_queue_target(qc_front *f);

typedef struct qc_front_stats {
    uint32_t limit;     /* the published limit (UINT32_MAX: no limiter) */
    unsigned inflight;  /* admitted and not yet done */
    unsigned waiting;   /* in the waiting room */
    unsigned class_waiting[QC_FRONT_CLASSES_MAX];
    uint64_t class_admitted[QC_FRONT_CLASSES_MAX];
    uint64_t class_refused[QC_FRONT_CLASSES_MAX];
    uint64_t refused_by[QC_FRONT_REASONS]; /* by reason, all classes */
    uint64_t cancelled;
    int standing;       /* CoDel: the queue stands */
    double target;      /* CoDel: the target wait in force, s */
    double head_wait;   /* the oldest waiting request's wait at the last event (NAN: none) */
    /* ADMISSION: each class's wait target W_i now (NAN: best effort, or
     * another limiter); the longest any of its requests waited past its
     * deadline and was still let in (0 by the rule: the front refuses
     * what is past its deadline before it lets anyone in), and the
     * longest one waited past it before it was refused (how late the
     * plant reported the events: its timers' and its loop's lag), s */
    double class_target[QC_FRONT_CLASSES_MAX];
    double class_late[QC_FRONT_CLASSES_MAX];
    double class_late_refused[QC_FRONT_CLASSES_MAX];
    /* the no-load latency L0 of the work-conserving verdict (above): the
     * requests let in with at most half the knee in flight so far (n0),
     * and the running mean of the last 32 of their times at a backend,
     * s (mean0; 0 while n0 is 0) */
    uint64_t n0;
    double mean0;
} qc_front_stats;

void qc_front_get_stats(qc_front *f, qc_front_stats *st);

/* The no-load latency L0 the work-conserving verdict judges by (s; NAN
 * until 4 requests were let in at half the knee): read-only, for a
 * status page. Thread-safe. */
double qc_front_noload(qc_front *f);

/* The limiter inside (for qc_limiter_get_stats, _set_bound,
 * _set_reference, _weight: each thread-safe on its own). */
qc_limiter *qc_front_limiter(qc_front *f);

/* The front's mutex, for a caller reading several things at once; never
 * held across an event call (the events take it themselves). */
void qc_front_lock(qc_front *f);
void qc_front_unlock(qc_front *f);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
