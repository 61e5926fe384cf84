/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/design.h: integral and PI controller design for an ARX plant.
 *
 * The loop: the controller sees e(k) = r(k) - ym(k), where ym is the plant
 * output y, or the output of a sensor model fed by y; the plant is driven
 * by the controller's u. With plant G = B/A and sensor H = Bs/As (H = 1
 * without a sensor), both as polynomials in z, the controllers
 *
 *   integral: u(k) = u(k-1) + K_I e(k)                      C(z) = K_I z / (z - 1)
 *   PI:       u(k) = u(k-1) + (K_P + K_I) e(k) - K_P e(k-1)
 *                                              C(z) = ((K_P + K_I) z - K_P) / (z - 1)
 *
 * close the loop with characteristic polynomial
 *
 *   P(z) = (z - 1) A As + (K_I z + K_P (z - 1)) B Bs
 *        = P0(z) + K_I PI(z) + K_P PP(z),
 *
 * affine in the gains. The closed-loop poles are its roots (GSL's
 * gsl_poly_complex_solve). A pole p = r e^{j theta} is read through the
 * usual second-order rules, in samples:
 *
 *   settling time  k_s = -4 / ln r          (the envelope r^k falls to e^-4 ~ 1.8%)
 *   overshoot      M_p = r^(pi / theta)      (0 for a positive real pole)
 *
 * and a wanted (k_s, M_p) gives the target pole r = e^(-4/k_s),
 * theta = pi ln r / ln M_p. docs/control.md derives these.
 *
 * For y(k+1) = a y(k) + b u(k) under integral control P(z) =
 * z^2 - (1 + a - b K_I) z + a, stable (Jury) for 0 < K_I < 2 (1 + a) / b
 * when |a| < 1 and b > 0.
 *
 * Ownership: a qc_design_ws is allocated for one loop (plant and sensor)
 * and freed with qc_design_free (NULL is fine); results are plain values.
 * No allocation after qc_design_alloc.
 *
 * GSL: a root solve that fails to converge is reported through GSL's
 * error handler, which by default aborts. Programs should call
 * gsl_set_error_handler_off() (the qctl command does); these functions
 * then return QC_ERANGE with a message.
 *
 * Errors: 0 or a negative QC_E* code with a message. */
#ifndef QCTL_DESIGN_H
#define QCTL_DESIGN_H

#include <stddef.h>

#include <stdint.h>

#include "qctl/api.h"
#include "qctl/arx.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* Most closed-loop poles: 1 + plant order + sensor order. */
#define QC_DESIGN_MAX_POLES (1 + 2 * (QC_ARX_MAX_ORDER + QC_ARX_MAX_DELAY) + 1)
#define QC_DESIGN_MAX_INTERVALS 8

typedef struct qc_design_ws qc_design_ws;

/* The closed-loop poles at one pair of gains, and what they predict. */
typedef struct qc_design_poles {
    double kp, ki;
    size_t n;                       /* number of poles */
    double re[QC_DESIGN_MAX_POLES]; /* sorted by decreasing modulus */
    double im[QC_DESIGN_MAX_POLES];
    double max_modulus;             /* spectral radius */
    double dom_re, dom_im;          /* the dominant pole, im >= 0 */
    double settling;                /* -4 / ln(max_modulus), samples; INFINITY if >= 1 */
    double overshoot;               /* of the dominant pole; NaN when unstable */
    int stable;                     /* max_modulus < 1 */
} qc_design_poles;

/* Gains of one sign keeping every pole inside the unit circle. */
typedef struct qc_design_range {
    double lo, hi;   /* the interval next to 0 (or the first found); hi may be INFINITY */
    size_t n;        /* number of disjoint stable intervals found by the scan */
    double ilo[QC_DESIGN_MAX_INTERVALS], ihi[QC_DESIGN_MAX_INTERVALS];
    double scan_lo, scan_hi; /* |gain| range scanned */
} qc_design_range;

/* A wanted step response. */
typedef struct qc_design_spec {
    double settling;  /* k_s in samples, > 1 */
    double overshoot; /* M_p in [0, 1); 0 asks for a real dominant pole */
} qc_design_spec;

typedef struct qc_design_result {
    double kp, ki;
    double target_re, target_im; /* the wanted pole, im >= 0 */
    int exact;                   /* the target pole (pair) is a closed-loop pole */
    int dominant;                /* ... and it is the dominant one */
    qc_design_poles poles;       /* achieved */
} qc_design_result;

/* The loop of plant (delay >= 0) with an optional sensor (NULL: the plant
 * output is measured). QC_EINVAL for a plant with delay -1 (an algebraic
 * loop with the controller's direct term) or a zero DC loop gain (integral
 * action could not remove an error); QC_ENOMEM. */
qc_design_ws *qc_design_alloc(const qc_arx_model *plant, const qc_arx_model *sensor,
                              qc_err *err);
void qc_design_free(qc_design_ws *w);

/* Number of closed-loop poles (degree of P). */
size_t qc_design_order(const qc_design_ws *w);

/* The DC gain of plant times sensor, G(1) H(1). */
double qc_design_loop_gain(const qc_design_ws *w);

/* The characteristic polynomial at (kp, ki): c[0..order], descending
 * powers of z (c[0] = 1). */
void qc_design_charpoly(const qc_design_ws *w, double kp, double ki, double *c);

/* The three parts of P = P0 + K_I PKI + K_P PKP, each order + 1
 * coefficients in descending powers of z. Any pointer may be NULL. */
void qc_design_charpoly_parts(const qc_design_ws *w, double *p0, double *pki, double *pkp);

/* The closed-loop poles at (kp, ki). QC_ERANGE if the root solver fails
 * (non-finite gains, or GSL did not converge). */
int qc_design_poles_at(qc_design_ws *w, double kp, double ki, qc_design_poles *out,
                       qc_err *err);

/* The range of K_I (at fixed K_P = kp; 0 for integral control) keeping
 * the loop stable. Gains take the sign of the loop's DC gain (the other
 * sign drives the integrator pole out through z = 1). The scan covers
 * |K_I| in [1e-6, 1e6] / |loop gain|, 200 points a decade, and each
 * crossing of the unit circle is refined by bisection to 1e-12 relative;
 * a stable interval narrower than a grid step could be missed. lo = 0
 * when the loop is stable for small gains: then the integrator pole
 * leaves z = 1 inward and every other pole starts inside. n = 0 when no
 * gain stabilizes the loop (lo = hi = NaN). */
int qc_design_stable_range(qc_design_ws *w, double kp, qc_design_range *out, qc_err *err);

/* The wanted dominant pole of spec: r = e^(-4/k_s), theta = pi ln r /
 * ln M_p (0 when M_p = 0). QC_ERANGE when M_p > r (theta would pass pi:
 * no pole decays that fast and overshoots that much). */
int qc_design_target(const qc_design_spec *spec, double *re, double *im, qc_err *err);

/* Integral control: one gain, so in general it cannot place a pole pair.
 * For a real target it first tries K_I = -P0(r) / PI(r), which puts a
 * pole exactly at r; that is kept when the loop is stable and r is the
 * dominant pole. Otherwise K_I minimizes |p_dom(K_I) - p*| over the
 * stable range (scan and golden-section search), p_dom the dominant
 * pole. The achieved poles and what they predict are in out->poles.
 * QC_EUNSTABLE when no gain is stable. */
int qc_design_integral(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out,
                       qc_err *err);

/* PI control: two gains place the target pair exactly: P(p*) = 0 (real
 * and imaginary parts) for a complex target; P(r) = P'(r) = 0 (a double
 * pole) for a real one. The other poles fall where they fall: out->dominant
 * says whether the placed pair dominates, out->poles.stable whether the
 * loop is stable. QC_ERANGE when the 2x2 system is singular. */
int qc_design_pi(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out,
                 qc_err *err);

/* The prediction rules above, for one pole. */
double qc_design_settling(double modulus);
double qc_design_overshoot(double re, double im);

/* Simulates the model loop for a unit reference step at k = 0 from rest
 * (offsets): y[k], ym[k] (measured) and u[k] for k < n; any may be NULL.
 * The plant output y(k) is measured, then u(k) is computed and applied. */
void qc_design_step_response(const qc_arx_model *plant, const qc_arx_model *sensor, double kp,
                             double ki, size_t n, double *y, double *ym, double *u);

/* Settling time (samples, 2% band: the first k after which |x - ref|
 * stays within 0.02 |ref - x0|; INFINITY if the last sample is outside)
 * and overshoot (max (x - ref) / (ref - x0), at least 0) of a step
 * response x[0..n) from x0 to ref. */
void qc_design_step_metrics(const double *x, size_t n, double x0, double ref, double *settling,
                            double *overshoot);

/* What the loop will do for one reference step, in the plant's absolute
 * units and with the actuator's limits: the model plant driven by the
 * MaxUsers controller (qc_mu_ctl of qctl/controller.h, the object `qctl sim
 * maxusers` and the live limiter run; without a demand peak its hold never
 * applies) from rest at y_start to the reference r, sampled as the
 * simulation is (u(k) from y(k), in force over (k, k+1]). Settling and
 * overshoot are measured as `qctl sim maxusers` measures them: on the
 * 5-sample moving average of y, settled from the first sample after which
 * it stays within r (1 +- band) (for 5 samples at least, else not settled),
 * overshoot in % of the step beyond r; so a prediction and a measurement
 * compare in the same band. */
typedef struct qc_design_predict_params {
    double kp, ki;
    double u_min, u_max;   /* actuator limits (absolute) */
    int antiwindup;        /* a qc_antiwindup */
    double y_start, r;     /* from rest at y_start to the reference r */
    double band;           /* settling band, fraction of r (e.g. 0.1) */
    size_t horizon;        /* samples simulated, >= 10 */
    double fall;           /* the most the input in effect can fall per sample,
                              as a fraction of itself (0: no limit). MaxUsers
                              cuts nobody off: connections end only as
                              sessions do, so the connected count falls by at
                              most about interval / mean session per interval
                              however low MaxUsers goes */
    const qc_arx_model *sensor; /* NULL: the controller measures y. Else it
                              measures the sensor's output driven by y, and
                              is given r_m; settling and overshoot are still
                              of y against r, as 'sim maxusers' measures a
                              loop closed on the logged RIS */
    double r_m;            /* the reference in the sensor's units */
    double sensor_max;     /* the most the sensor reads (> 0), else no bound */
    double sensor_curve;   /* > 0: a Wiener sensor, the sensor model's dynamics
                              at unit DC gain followed by the completion-log
                              curve with this scale (qc_arx_curve_at); its
                              offset and slope are then the curve's, and the
                              sensor model's operating point is not used.
                              0: the sensor model as it is (linear) */
    double sensor_noise_cv; /* with a curve and > 0: the sensor's noise sd is
                              this fraction of v (it grows with the queue),
                              instead of sensor_noise_sd */
    /* Noise: with reps > 0, the loop is run reps times with white Gaussian
     * equation errors of these standard deviations added to the plant's
     * and the sensor's outputs (their fits' residuals), and the figures
     * are over the realisations. The measured overshoot of a loop with
     * none is its noise's excursion, which a noiseless run cannot show. */
    double noise_sd, sensor_noise_sd;
    unsigned reps;         /* 0: one noiseless run */
    uint64_t seed;
} qc_design_predict_params;

/* Defaults: integral control (kp 0, ki 0.1) with conditional
 * anti-windup and no actuator limits (-1e9, 1e9), a step from 0 to r = 1,
 * band 0.1, 200 samples, no limit on the fall, no sensor, no noise, one
 * noiseless run, seed 1. The gains, limits and the step are the caller's
 * to set. */
void qc_design_predict_params_init(qc_design_predict_params *p);

typedef struct qc_design_prediction {
    int stable;            /* the linear loop's poles inside the unit circle */
    int settled;           /* settled within the horizon (every realisation) */
    unsigned reps, reps_settled; /* realisations run (1 without noise), settled */
    double settling;       /* samples (as sim: (first settled sample + 1)); mean over
                              the realisations that settled; NAN if none did */
    double overshoot;      /* % of the step, mean; NAN when the step is below the band */
    double frac_saturated; /* samples with u at a limit (mean) */
    double u_start;        /* u at rest at y_start (u0 + (y_start - y0) / G, clamped) */
    double y_end;          /* y at the horizon */
} qc_design_prediction;

int qc_design_predict(qc_design_ws *w, const qc_arx_model *plant,
                      const qc_design_predict_params *p, qc_design_prediction *out, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
