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
 * applied at a bounded rate with the remainder carried (never dropped):
 *
 *     a(k)   = r(k-1) + (n(k) / m) (d(k) - T) / T
 *     u(k)   = clip( a(k), -x_sat, x_sat ),
 *     r(k)   = clip( a(k) - u(k), -r_max, r_max )
 *     p(k+1) = clip( p(k) exp(g u(k)), p_min, p_max ).
 *
 *   With no cap (r_max = INFINITY, the default), log p(k) - log p(0) =
 *   g (sum_jobs (d_j - T) / (m T) - r(k)): a priority that stays inside
 *   (p_min, p_max) forces the mean delay per job to T whatever the
 *   sample size. A finite r_max smooths p after a very long busy cycle
 *   at the price of a bias (docs/admission.md).
 *
 * Candidate class: Reno-like slow start, with a smoothed delay
 * s(k) = (1 - lambda) s(k-1) + lambda d(k) (s(1) = d(1)), and the weights
 * the admitted classes publish (the server applies them, so they are
 * known without any signalling):
 *
 *   - it grows while s > T_p = (1 - max(eps, eps_p)) D: slow start
 *     p <- p (1 + 1/alpha) until its first back-off, then congestion
 *     avoidance p <- p + ssthresh / alpha (larger alpha: gentler);
 *   - once p >= p_arm it backs off (p <- beta p, ssthresh <- p) when its
 *     own delay is not improving: at the end of each epoch of
 *     ceil(alpha) growth samples s has not fallen below (1 - delta) of its
 *     value at the epoch's start, or at any sample s rose above
 *     (1 + theta) of it; after more than F back-offs it is rejected;
 *   - when s <= T_p it freezes its priority (probation): S samples let
 *     the admitted classes settle, then a test window gathers its own
 *     samples and the admitted weights. At K, 2K, 4K ... K_max samples
 *     (the looks) it computes the mean delay per job mu of the window and
 *     its standard error se by batch means: B' batches of consecutive
 *     samples, B' the most of B, 2B, 4B (<= 32) with batches no shorter
 *     than K / B samples whose batch ratios von Neumann's test does not
 *     find correlated at 0.10 (else B), so that slow swings of the
 *     admitted weights widen the interval; se is then floored at
 *     mu sqrt(q / N), q the mean relative variance per completion
 *     (N se^2 / mu^2) of the windows this class ended before (a window
 *     that missed the rare long cycles of a heavy-tailed delay shows a
 *     small spread; the spread seen before is not forgotten). For each
 *     admitted class it fits the B batch means of log w on the sample
 *     index: the rise r_j over the window and its standard error s_j.
 *     It is ADMITTED when mu + z se <= D and no admitted weight is shown
 *     to move: |r_j| - z_r s_j <= log(1 + eta) for every j; the test
 *     FAILS when mu - z se > D, or at K_max with the weights steady (the
 *     window restarts, still frozen, if one moved); a failed test makes
 *     it grow for at least one epoch before it may freeze again. z is the
 *     one-sided Student-t quantile (B' - 1 degrees of freedom) of the
 *     confidence split over the looks (Bonferroni); z_r the two-sided
 *     t quantile (B - 2 degrees of freedom) of rise_confidence;
 *   - it is REJECTED at once when an admitted class's weight reaches the
 *     ceiling W (that class can only keep its bound by near-absolute
 *     priority, which the candidate is contesting), or after F back-offs.
 *     A rejected class holds p_min and the plant stops its traffic.
 *
 * Ownership: plain values; nothing to free. Errors: 0 or a negative
 * QC_E* code; init messages name the parameter. */
#ifndef QCTL_ADMISSION_H
#define QCTL_ADMISSION_H

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_ADM_PEERS_MAX 16
#define QC_ADM_WINDOW_MAX 512
#define QC_ADM_BATCHES_MAX 32

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
    QC_ADM_EV_REJECT,   /* candidate rejected at this sample */
    QC_ADM_EV_RETRY     /* candidate's test failed: it grew again */
} qc_adm_event;
const char *qc_adm_event_name(qc_adm_event v);
int qc_adm_event_parse(const char *s, qc_adm_event *v, qc_err *err);

typedef struct qc_adm_params {
    double bound;           /* D > 0: bound on the class's mean delay */
    double epsilon;         /* eps in [0, 1): target T = (1 - eps) D */
    double alpha;           /* alpha > 0: slow-start constant */
    double gain;            /* g in (0, 4]: tracking gain (default 0.3) */
    unsigned ref_count;     /* m >= 1: completions of a nominal sample (20) */
    double x_sat;           /* largest tracking step applied per sample; the
                               rest is carried (2) */
    double p_min, p_max;    /* priority limits, 0 < p_min < p_max (1e-3, 1e6) */
    double p_init;          /* priority at start (0.01 for a candidate,
                               0.1 for an admitted class) */
    double backoff;         /* beta in (0, 1): back-off factor (0.5) */
    double p_arm;           /* p_arm >= p_min: back-off tests armed (1) */
    double stall;           /* delta in [0, 1): least improvement per epoch (0.05) */
    double worsen;          /* theta > 0: rise that backs off at once (0.5) */
    unsigned max_backoffs;  /* F: rejected after more back-offs (3) */
    double probe;           /* eps_p in [0, 1): a candidate freezes when its
                               delay is below (1 - max(eps, eps_p)) D (0.05) */
    unsigned settle;        /* S: probation samples before the test (20) */
    unsigned admit_window;  /* K >= 2: samples at the first look (80) */
    unsigned window_max;    /* K_max in [K, QC_ADM_WINDOW_MAX]: samples at
                               the last look (320) */
    unsigned batches;       /* B in [3, 32]: batches of the window (8) */
    double carry_max;       /* largest |carried error| (INFINITY: none) */
    double confidence;      /* of the admission test, in (0.5, 1) (0.999) */
    double peer_rise;       /* eta > 0: an admitted weight shown to rise
                               more over the window has not settled (0.25) */
    double rise_confidence; /* in (0.5, 1): two-sided level at which a rise
                               beyond eta must be shown (0.9) */
    double peer_ceiling;    /* W > 0: an admitted weight this high rejects
                               the candidate (1e6, the default p_max) */
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
    double carry;           /* tracking error not yet applied (r above) */
    int avoid;              /* 0: slow start, 1: congestion avoidance */
    double ssthresh;
    double s;               /* smoothed delay (NAN before the first sample) */
    int epoch_on;           /* an epoch is running (armed) */
    double s_ref;           /* s at the epoch's start */
    unsigned epoch_n;       /* growth samples in the epoch */
    unsigned backoffs;
    unsigned must_grow;     /* growth samples owed after a failed test */
    int frozen;             /* candidate on probation */
    unsigned held;          /* probation samples so far */
    unsigned next_look;     /* window size of the next look */
    double z;               /* test quantile (per look; Student t, B - 1 df) */
    /* test window: own samples (count, count x delay) */
    unsigned win_len;
    double win_n[QC_ADM_WINDOW_MAX], win_nd[QC_ADM_WINDOW_MAX];
    double z_b[3];          /* the same for 2B and 4B batches (the batch
                               rule; entries past QC_ADM_BATCHES_MAX unused) */
    double z_rise;          /* rise quantile (Student t, B - 2 df) */
    /* admitted weights over the window: log w per sample */
    unsigned npeer;
    double win_y[QC_ADM_PEERS_MAX][QC_ADM_WINDOW_MAX];
    /* relative variance per completion, N se^2 / mu^2, of the windows
     * ended so far (their sum and number): the spread this class has
     * shown, which a later window's se is not allowed to forget */
    double q_sum;
    unsigned q_n;
    /* last test: mean, standard error (after the floor), the admitted
     * rise with the least evidence of steadiness, and its standard error */
    double test_mean, test_se, test_rise, test_rise_se;
    unsigned tests;         /* tests decided (admitted or failed) */
    unsigned long samples;
} qc_adm;

typedef struct qc_adm_sense {
    double delay; /* mean delay over the sample */
    double count; /* completions in it (> 0) */
    /* The weights the admitted classes (other than this one) have now, as
     * the server applies them; a candidate uses them, an admitted class
     * ignores them. npeer <= QC_ADM_PEERS_MAX (more are ignored); NULL
     * with npeer 0 when there are none. */
    const double *peer;
    unsigned npeer;
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
int qc_adm_state_parse(const char *s, qc_adm_state *v, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
