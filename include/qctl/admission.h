/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/admission.h: autonomic admission control, one step object per class.
 *
 * A server is shared by priority among N delay-bounded classes and one
 * best-effort class (qctl/multiclass.h). Each bounded class i runs its own
 * controller on its own measurement only: at each sample k it is told the
 * mean delay d(k) of n(k) of its completions (gathered over busy cycles of
 * the server) and returns its priority p(k+1). No controller sees another's
 * state; the best-effort class gets what is left of a unit of priority
 * mass. The rules (equations and the argument for their properties in
 * docs/admission.md):
 *
 * Admitted class: tracks the target T = (1 - eps) D below its bound D
 * with a multiplicative integral law on the completion-weighted error,
 *
 *     x(k) = sat( (n(k) / m) (d(k) - T) / T, x_sat )
 *     p(k+1) = clip( p(k) exp(g x(k)), p_min, p_max ).
 *
 *   The law is scale free (only ratios of priorities matter to the
 *   server), and its drift is zero only when sum n (d - T) = 0 on average,
 *   i.e. when the mean delay per job (not per sample) equals T.
 *
 * Candidate class: Reno-like slow start, with a smoothed delay
 * s(k) = (1 - lambda) s(k-1) + lambda d(k) (s(1) = d(1)):
 *
 *   - when s <= T it freezes its priority for S + K samples (probation):
 *     the first S let the admitted classes answer; it is admitted if its
 *     mean delay per job over the last K is at most D, else it grows
 *     again;
 *   - while s > T (and not on probation) it grows: slow start
 *     p <- p (1 + 1/alpha) until its first back-off, then congestion
 *     avoidance p <- p + ssthresh / alpha (larger alpha: gentler);
 *   - once p >= p_arm (a share no best-effort class can outweigh), it
 *     backs off, p <- beta p and ssthresh <- p, when its own delay is not
 *     improving: at the end of each epoch of ceil(alpha) growth samples
 *     s has not fallen below (1 - delta) of its value at the epoch's
 *     start, or at any sample s rose above (1 + theta) of it. Both mean
 *     the admitted classes are answering its growth with theirs, which is
 *     what they do when it hurts them;
 *   - after more than F back-offs it is rejected: p <- p_min for good,
 *     and the plant stops its traffic.
 *
 * Ownership: plain values; nothing to free. Errors: 0 or a negative
 * QC_E* code; init messages name the parameter. */
#ifndef QCTL_ADMISSION_H
#define QCTL_ADMISSION_H

#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define QC_ADM_WINDOW_MAX 64

typedef enum qc_adm_state {
    QC_ADM_CANDIDATE = 0,
    QC_ADM_ADMITTED = 1,
    QC_ADM_REJECTED = 2
} qc_adm_state;

/* What a step did. */
typedef enum qc_adm_event {
    QC_ADM_EV_NONE = 0, /* nothing (rejected, or a lost sample) */
    QC_ADM_EV_TRACK,    /* tracking law applied */
    QC_ADM_EV_GROW,     /* candidate grew */
    QC_ADM_EV_HOLD,     /* candidate on probation, priority frozen */
    QC_ADM_EV_BACKOFF,  /* candidate backed off */
    QC_ADM_EV_ADMIT,    /* candidate admitted at this sample */
    QC_ADM_EV_REJECT    /* candidate rejected at this sample */
} qc_adm_event;

typedef struct qc_adm_params {
    double bound;           /* D > 0: bound on the class's mean delay */
    double epsilon;         /* eps in [0, 1): target T = (1 - eps) D */
    double alpha;           /* alpha > 0: slow-start constant */
    double gain;            /* g in (0, 4]: tracking gain (default 0.3) */
    unsigned ref_count;     /* m >= 1: completions of a nominal sample (20) */
    double x_sat;           /* saturation of the tracking error (2) */
    double p_min, p_max;    /* priority limits, 0 < p_min < p_max (1e-3, 1e6) */
    double p_init;          /* priority at start (0.01 for a candidate,
                               0.1 for an admitted class) */
    double backoff;         /* beta in (0, 1): back-off factor (0.5) */
    double p_arm;           /* p_arm >= p_min: back-off tests armed (1) */
    double stall;           /* delta in [0, 1): least improvement per epoch (0.05) */
    double worsen;          /* theta > 0: rise that backs off at once (0.5) */
    unsigned max_backoffs;  /* F: rejected after more back-offs (3) */
    unsigned settle;        /* S: probation samples before the test (20) */
    unsigned admit_window;  /* K in [1, QC_ADM_WINDOW_MAX]: test samples (40) */
    double smoothing;       /* lambda in (0, 1]: smoothing of s (0.2) */
    int admitted;           /* 1: starts admitted; 0: a candidate */
} qc_adm_params;

/* Fills p with the defaults above for a class with bound D, eps and
 * alpha, admitted or candidate. */
void qc_adm_params_init(qc_adm_params *p, double bound, double epsilon, double alpha,
                        int admitted);

typedef struct qc_adm {
    qc_adm_params p;
    qc_adm_state state;
    double prio;
    int avoid;              /* 0: slow start, 1: congestion avoidance */
    double ssthresh;
    double s;               /* smoothed delay (NAN before the first sample) */
    int epoch_on;           /* an epoch is running (armed) */
    double s_ref;           /* s at the epoch's start */
    unsigned epoch_n;       /* growth samples in the epoch */
    unsigned backoffs;
    int frozen;             /* candidate on probation */
    unsigned held;          /* probation samples so far */
    double win_sum[QC_ADM_WINDOW_MAX], win_n[QC_ADM_WINDOW_MAX];
    unsigned win_len;
    unsigned long samples;
} qc_adm;

typedef struct qc_adm_sense {
    double delay; /* mean delay over the sample */
    double count; /* completions in it (> 0) */
} qc_adm_sense;

typedef struct qc_adm_act {
    double priority;    /* to apply from now on */
    qc_adm_state state; /* after this step */
    qc_adm_event event;
    double target;      /* T = (1 - eps) D */
    double smoothed;    /* s after this step */
} qc_adm_act;

/* Checks the parameters (messages name them: "epsilon: -0.1 is
 * negative", "alpha: 0 must be > 0", ...) and starts the controller. */
int qc_adm_init(qc_adm *c, const qc_adm_params *p, qc_err *err);

/* One sample. A sample with count <= 0 or a non-finite delay is lost: the
 * priority is held, event NONE, QC_EINVAL. A rejected class holds p_min. */
int qc_adm_step(qc_adm *c, const qc_adm_sense *in, qc_adm_act *out);

/* Priority and state now (before the next step). */
static inline double qc_adm_priority(const qc_adm *c)
{
    return c->prio;
}

const char *qc_adm_state_name(qc_adm_state s);

#ifdef __cplusplus
}
#endif
#endif
