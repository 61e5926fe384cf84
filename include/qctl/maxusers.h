/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/maxusers.h: the closed-population server whose MaxUsers is the
 * control input (the mail-server plant of the MaxUsers feedback work).
 *
 * M users cycle through:
 *
 *   OFF --(off time)--> wants to connect
 *       connected < floor(MaxUsers): connect, session of random length
 *       else: wait a retry time and try again
 *   CONNECTED: think --(think time)--> send an RPC to the server
 *              --(response)--> think ...; the first think that ends after
 *              the session is over disconnects the user --> OFF
 *
 * The server is T worker threads, FCFS or processor sharing (the station
 * of qctl's queue model). Lowering MaxUsers does not cut anyone off: it
 * stops new connections, and the connected count falls as sessions end;
 * raising it admits waiting users as they retry. That asymmetry and the
 * retry and session times are the plant's dynamics.
 *
 * Sampled every control interval Delta (default 60 s), the plant reports
 * RIS, the number of RPCs in the server (queued plus in service), through
 * two sensors:
 *   true RIS     the time-average over the interval of RPCs in server
 *                (and its value at the sample instant);
 *   logged RIS   what a server computing RIS from its completion log sees:
 *                an RPC is logged only when it completes, so at the sample
 *                instant the RPCs still in the server are missing. Logged
 *                RIS(k) = (1/Delta) * sum over RPCs completed by t_k of the
 *                time each spent in the server during (t_{k-1}, t_k].
 * and throughput, mean response time of the RPCs completed in the
 * interval, and connected users.
 *
 * Ownership: qc_maxusers_alloc returns a plant freed by qc_maxusers_free
 * (NULL ok). The distributions it is given must outlive it. */
#ifndef QCTL_MAXUSERS_H
#define QCTL_MAXUSERS_H

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/dist.h"
#include "qctl/cancel.h"
#include "qctl/error.h"
#include "qctl/queue.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef struct qc_maxusers qc_maxusers;

typedef struct qc_maxusers_params {
    uint32_t population;    /* M users, 1 .. 100000 (default 1000) */
    unsigned threads;       /* T worker threads (default 4) */
    qc_discipline discipline;
    const qc_dist *think;   /* between a response and the next RPC */
    const qc_dist *service; /* RPC service requirement */
    const qc_dist *session; /* connected time of a session */
    const qc_dist *off;     /* offline time between sessions */
    const qc_dist *retry;   /* wait before retrying a refused connection */
    double interval;        /* control interval Delta (default 60) */
    double maxusers_max;    /* upper limit of MaxUsers (default M) */
    double maxusers_init;   /* MaxUsers before the first interval */
    uint64_t seed;
    uint32_t rep;           /* replication: selects the streams */
} qc_maxusers_params;

/* Defaults for every field but the distributions (left NULL). */
void qc_maxusers_params_init(qc_maxusers_params *p);

/* The sample instants: MaxUsers u(k) is set at instant k = k Delta and is
 * in force over (k, k+1]; a measurement y(k) is taken at instant k (for
 * RIS, averaged over (k-1, k]). qc_maxusers_step(m, u(k)) simulates
 * (k, k+1] and returns the sample of instant k+1: its `maxusers` is u(k),
 * the value that produced it, and its RIS fields are y(k+1). The ARX model
 * y(k+1) = a y(k) + b u(k) pairs them the same way. */
typedef struct qc_maxusers_sample {
    double t;            /* end of the interval: the instant k+1 */
    double maxusers;     /* u(k): MaxUsers in force during the interval */
    double ris;          /* true RIS, time-average over the interval */
    double ris_now;      /* true RIS at the sample instant */
    double ris_logged;   /* logged RIS (completed RPCs only) */
    double throughput;   /* RPCs completed per unit time */
    double response;     /* mean response of RPCs completed (NAN if none) */
    double connected;    /* users connected at the sample instant */
    double connected_peak; /* most users connected at once in the interval */
    double waiting;      /* users refused and waiting to retry */
    uint64_t completed;  /* RPCs completed in the interval */
    uint64_t connects;   /* sessions started in the interval */
} qc_maxusers_sample;

/* A plant at time 0 with every user offline-then-arriving: each user's
 * first attempt to connect is drawn from the off-time distribution. */
qc_maxusers *qc_maxusers_alloc(const qc_maxusers_params *p, qc_err *err);
void qc_maxusers_free(qc_maxusers *m);

/* Simulates one control interval with MaxUsers = maxusers (saturated to
 * [0, maxusers_max]) and reports the sample at its end. */
int qc_maxusers_step(qc_maxusers *m, double maxusers, qc_maxusers_sample *out);

/* Response times of every RPC completed so far (for percentiles). */
const qc_hist *qc_maxusers_response_hist(const qc_maxusers *m);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif

/* ---- closed-loop and open-loop runs ---------------------------------- */

#include "qctl/controller.h"
#include "qctl/sched.h"

#ifndef QCTL_MAXUSERS_RUN_H
#define QCTL_MAXUSERS_RUN_H
#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_mu_sensor { QC_SENSOR_TRUE = 0, QC_SENSOR_LOGGED = 1 } qc_mu_sensor;
const char *qc_mu_sensor_name(qc_mu_sensor v);
int qc_mu_sensor_parse(const char *s, qc_mu_sensor *v, qc_err *err);

typedef enum qc_excite_kind {
    QC_EXCITE_NONE = 0,
    QC_EXCITE_PRBS,    /* +-A, switching with probability 1/2 every hold */
    QC_EXCITE_UNIFORM, /* uniform in [-A, A], redrawn every hold */
    QC_EXCITE_STEPS    /* +A, -A, +A ... every hold */
} qc_excite_kind;
const char *qc_excite_kind_name(qc_excite_kind v);
int qc_excite_kind_parse(const char *s, qc_excite_kind *v, qc_err *err);

typedef struct qc_mu_run_params {
    qc_maxusers_params plant;
    int closed_loop;          /* 0: MaxUsers follows `input` (+ excitation) */
    qc_pi_params pi;          /* closed loop: the controller */
    qc_mu_sensor sensor;      /* which RIS the controller sees */
    double sensor_gain;       /* closed loop: the reference r is mapped into */
    double sensor_offset;     /* the sensor's units as offset + gain * r
                                 (gain 1, offset 0: none) */
    const qc_sched_point *ref;   /* reference schedule (closed loop) */
    size_t nref;
    const qc_sched_point *input; /* MaxUsers schedule (open loop) */
    size_t ninput;
    qc_excite_kind excite;
    double excite_amp;        /* A */
    unsigned excite_hold;     /* intervals between changes (>= 1) */
    double duration;          /* simulated time */
    double warmup;            /* time run open loop at the initial MaxUsers
                                 before the loop closes (not recorded), so
                                 that steps start from a steady state */
    double band;              /* settling band, fraction of r (default 0.1) */
    const qc_cancel *cancel; /* may be NULL; when requested (qctl/cancel.h)
                                the run stops at its next check and returns
                                QC_ECANCELED */
} qc_mu_run_params;

/* Defaults, those of `qctl sim maxusers`: the plant's
 * (qc_maxusers_params_init), open loop with no schedule (ref and input
 * are the caller's), the controller qc_pi_params_init's with its upper
 * limit at the population (and starting there), the true sensor with gain 1 and offset 0, no
 * excitation (amplitude 50 and hold 3 when one is chosen), 14400 s of
 * simulated time, no warm-up, settling band 0.1, no cancel. */
void qc_mu_run_params_init(qc_mu_run_params *p);

/* What happened after one reference step (or the start of the run). */
typedef struct qc_mu_step_metrics {
    double t_start, t_end; /* the segment */
    double r, r_prev;
    double settling;       /* time from t_start until the 5-sample moving
                              average of true RIS stays within r(1 +- band)
                              (for 5 samples at least); NAN if it never does */
    double overshoot;      /* % of the step size that the 5-sample moving
                              average goes beyond r (>= 0); NAN when the
                              step is smaller than the band (no step) */
    double sse;            /* (mean RIS over the last half - r) / r */
} qc_mu_step_metrics;

typedef struct qc_mu_run_result {
    qc_maxusers_sample *samples; /* one per interval */
    double *reference;           /* r(k) per interval (closed loop) */
    size_t n;
    qc_mu_step_metrics *steps;
    size_t nsteps;
    qc_maxusers_sample initial;  /* the measurement y(0) at the instant the
                                    run starts (the warm-up's last sample;
                                    an empty server without warm-up) */
    double u_next;               /* u(n): what the controller (or schedule)
                                    sets at the last instant */
    double frac_saturated;       /* intervals with MaxUsers at a limit */
    double frac_held;            /* intervals the demand hold kept MaxUsers */
    double logged_bound;         /* qc_mu_logged_bound of the plant */
    double throughput;           /* mean RPCs per unit time */
    double response_mean;        /* over all RPCs completed */
    double response_p95;
} qc_mu_run_result;

/* Runs the plant for duration / interval intervals, with the controller
 * (closed loop) or the schedule plus excitation (open loop). Excitation
 * draws from its own stream (QC_STREAM_CONTROL). */
int qc_mu_run(const qc_mu_run_params *p, qc_mu_run_result *res, qc_err *err);

/* The checks qc_mu_run makes before it simulates (the run's length and
 * interval, the controller's gains and limits, the plant's sizes), alone:
 * 0, or QC_EINVAL with the field named in err. `qctl sim maxusers
 * --check` answers from it. */
int qc_mu_run_params_check(const qc_mu_run_params *p, qc_err *err);

/* Called once per replication, in replication order (0, 1, ...), one call
 * at a time, with its result, which the callee then owns (it frees it
 * with qc_mu_run_result_free or keeps it). A non-zero return stops the
 * replications and is returned by qc_mu_run_reps. */
typedef int (*qc_mu_rep_fn)(void *ctx, unsigned rep, qc_mu_run_result *res);

/* Replications 0..reps-1 of qc_mu_run (replication k: p with plant.rep =
 * k), `jobs` of them at once on that many threads (0 or 1: one at a time;
 * at most 256). Each is handed to `each` in replication order, so what
 * the caller builds is the same for any `jobs`. progress (may be NULL):
 * the fraction of replications finished, called one call at a time.
 * Errors: those of qc_mu_run, for the first failing replication in
 * order (*failed: its index; may be NULL), or each's code. */
int qc_mu_run_reps(const qc_mu_run_params *p, unsigned reps, unsigned jobs, qc_mu_rep_fn each,
                   void *ctx, qc_progress_fn progress, void *progress_ctx, unsigned *failed,
                   qc_err *err);

/* Whether a run of `reps` replications supports the intervals over them,
 * from its data (the verdict of `qctl sim maxusers`): each step's
 * steady-state error is the mean RIS over the last half of its segment,
 * so that half must hold at least QC_MU_TAIL_MIN control intervals and
 * come after the step has settled in every replication that settles;
 * else a step's error and settling times measure the transient the next
 * step cuts short, and their intervals cover nothing. r0: replication
 * 0's result (its steps); settling[i * reps + k]: step i's settling time
 * in replication k (NAN: never), for i < nsteps. Returns 1 (too short,
 * the reason in why[0..n)) or 0; one replication has no interval to
 * support (0). */
#define QC_MU_TAIL_MIN 20
int qc_mu_run_support(const qc_mu_run_params *p, const qc_mu_run_result *r0,
                      const double *settling, size_t nsteps, unsigned reps, char *why,
                      size_t n);

/* What the logged-RIS sensor reads in steady state with `ris` RPCs in the
 * server. An RPC still in the server at the sample instant is missing from
 * the log, with the time it spent in the interval, min(age, Delta); with
 * N in the server at throughput X_max = threads / E[service], the ages of
 * those present are exponential with mean N / X_max under processor
 * sharing with exponential service (each completes at rate X_max / N),
 * and uniform on [0, N / X_max] under FCFS. So
 *   PS:   f(N) = N - (N^2 / (X_max Delta)) (1 - exp(-X_max Delta / N))
 *   FCFS: f(N) = N - N^2 / (2 X_max Delta)  (N <= X_max Delta; then X_max Delta / 2)
 * increasing in N, with the limit X_max Delta / 2 however long the queue. */
double qc_mu_logged_at(const qc_maxusers_params *p, double ris);

/* The most the logged-RIS sensor can read: f at the largest RIS the plant
 * can hold, N_max = min(MaxUsers' limit, M E[session] / (E[session] +
 * E[off])) - X_max E[think] (Little's law with the server saturated: the
 * connected users are in the server or thinking). A reference mapped
 * above this is unreachable on that sensor. INFINITY without a service
 * distribution. */
double qc_mu_logged_bound(const qc_maxusers_params *p);
void qc_mu_run_result_free(qc_mu_run_result *res);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
