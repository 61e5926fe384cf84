/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/arx.h: ARX models of a system, identified by least squares.
 *
 * An ARX model relates an input u (e.g. MaxUsers) to an output y (e.g. the
 * number of RPCs in the server), both as offsets from an operating point
 * (u0, y0), one sample per control interval:
 *
 *   y(k+1) = a1 y(k) + ... + a_na y(k-na+1)
 *          + b1 u(k-d) + ... + b_nb u(k-d-nb+1)
 *
 * d >= 0 is the input delay in samples beyond the one every sampled plant
 * has. d = -1 is accepted for a sensor, where the measurement at k may see
 * the true value at k (a direct term b1 u(k+1)); a plant used in a loop
 * must have d >= 0. In the z domain the model is G(z) = B(z)/A(z) with
 * A(z^-1) = 1 - sum a_i z^-i and B(z^-1) = sum b_j z^-(d+j).
 *
 * qc_arx_fit estimates the coefficients of every candidate (na, nb, d) by
 * least squares on one common set of regression rows, ranks them by an
 * information criterion (AIC = N ln(RSS/N) + 2p by default) and validates
 * the chosen one on held-out data. docs/control.md has the equations.
 *
 * Ownership: models, results and states are plain values. A workspace
 * (qc_arx_ws) is allocated once for the largest data set and freed with
 * qc_arx_free (NULL is fine). qc_arx_read_csv returns malloc'ed columns the
 * caller frees with free(). The JSON forms of models and results are in
 * qctl/arx_json.h (this header needs no JSON library).
 *
 * Errors: 0 or a negative QC_E* code with a message naming the file, line
 * and column (CSV) or the key path (JSON, e.g. "sensor.b"). */
#ifndef QCTL_ARX_H
#define QCTL_ARX_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/error.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

#define QC_ARX_MAX_ORDER 5 /* largest na and nb */
#define QC_ARX_MAX_DELAY 5 /* largest d */
#define QC_ARX_MAX_PARAMS (2 * QC_ARX_MAX_ORDER)
#define QC_ARX_MAX_CANDIDATES \
    ((QC_ARX_MAX_ORDER + 1) * QC_ARX_MAX_ORDER * (QC_ARX_MAX_DELAY + 2))

typedef struct qc_arx_model {
    unsigned na;    /* 0..QC_ARX_MAX_ORDER (0: a pure delay line, FIR) */
    unsigned nb;    /* 1..QC_ARX_MAX_ORDER */
    int delay;      /* -1..QC_ARX_MAX_DELAY */
    double a[QC_ARX_MAX_ORDER];
    double b[QC_ARX_MAX_ORDER];
    double u0, y0;  /* operating point: the model is in u - u0, y - y0 */
    double dt;      /* sample interval in seconds; 0 when unknown */
} qc_arx_model;

/* The system a design works on: the plant, and optionally a sensor (an
 * ARX model whose input is the plant's true output and whose output is
 * what the controller measures, e.g. the RIS computed from a log). */
/* The sensor's static map around one operating point, ym = offset + gain y
 * (true y in, measured ym out), fitted by locally weighted least squares
 * near y = at. A sensor is rarely a pure gain: the logged RIS, for one, is
 * about 0.55 of the true RIS near 325 but not 0.55 y everywhere, so a
 * reference is compensated as r_m = offset + gain r, which is exact at
 * r = at and first-order accurate near it. */
typedef struct qc_arx_affine {
    double at;      /* the true output the map is centred on */
    double gain;    /* d ym / d y there */
    double offset;  /* ym at y = 0 of the tangent line */
    double width;   /* half-width of the neighbourhood used */
    size_t points;  /* samples in it */
} qc_arx_affine;

/* The static curve of a sensor that reads a queue from its completion log
 * (a Wiener sensor: the sensor model's dynamics scaled to unit DC gain,
 * then this curve). With N in the server, service completing at a total
 * rate X (processor sharing, exponential work: the ages of those present
 * are exponential with mean N / X) and a log interval D, the interval's
 * log misses the time of those still in the server,
 *
 *   f(N) = N - (N^2 / S) (1 - e^(-S / N)),   S = X D,
 *
 * concave, increasing from 0 toward S / 2. One affine map follows it only
 * near its centre: the slope is 0.33 at N = 250 and 0.25 at 325 for S =
 * 600. */
typedef struct qc_arx_curve {
    double scale;             /* S = X D */
    double residual_variance; /* of ym - f(v) over the fit's samples */
    double residual_cv;       /* sqrt(mean((ym - f(v))^2 / v^2)): the residual's sd
                                 in proportion to v (a completion log's sampling
                                 noise grows with the queue: sd 5.7 near v = 290,
                                 7.4 near 350 in the example's data) */
    size_t points;            /* samples fitted */
} qc_arx_curve;

typedef struct qc_arx_system {
    qc_arx_model plant;
    int has_sensor;
    qc_arx_model sensor;
    int has_affine;      /* "sensor": {"affine": {at, gain, offset, ...}} */
    qc_arx_affine affine;
    double sensor_max;   /* "sensor": {"max": V}: the most the sensor can
                            read (INFINITY when not given) */
    double input_fall;   /* "input_fall": F: the plant sees the input in
                            effect of qc_arx_fall_input (0 when not given) */
    double plant_noise_var, sensor_noise_var; /* "fit": {"residual_variance"}
                            of the plant and the sensor (NAN when absent) */
    int has_curve;       /* "sensor": {"curve": {"form": "completion_log", "scale", ...}} */
    qc_arx_curve curve;
} qc_arx_system;

/* The affine map of ym on y near y = at, with slope `gain` (the sensor
 * model's DC gain: the dynamics are in the ARX model, a regression of ym
 * on y over transients would not give the steady-state slope): the value
 * at `at` is the tricube-weighted mean of ym - gain (y - at) over the
 * samples with |y - at| < width. QC_ERANGE when fewer than 10 samples fall
 * in the neighbourhood (the data do not reach that operating point). */
int qc_arx_affine_fit(const double *y, const double *ym, size_t n, double at, double width,
                      double gain, qc_arx_affine *out, qc_err *err);

/* f(y) of qc_arx_curve with scale S > 0; y itself for y <= 0. */
double qc_arx_curve_at(double scale, double y);

/* The linear part of a Wiener sensor at one instant: the sensor model's
 * output moved to unit DC gain, v = u0 + (ym_lin - y0) / DC gain, so that
 * v = y at rest. The caller runs the model's state on (y, ym_lin). */
double qc_arx_wiener_input(const qc_arx_model *sensor, double ym_lin);

/* Fits the scale S of the completion-log curve to a sensor's data: the
 * true output y[0..n) drives the sensor model (from rest at y[0]), its
 * output at unit DC gain is v, and S minimises the sum of (ym - f_S(v))^2
 * (a log-grid scan over S in [max ym, 1e4 max v], then golden section).
 * QC_EINVAL for a sensor model whose DC gain is not positive and finite,
 * QC_ERANGE for fewer than 10 usable samples (finite, v > 0). */
int qc_arx_curve_fit(const qc_arx_model *sensor, const double *y, const double *ym, size_t n,
                     qc_arx_curve *out, qc_err *err);

typedef enum qc_arx_criterion { QC_ARX_AIC = 0, QC_ARX_BIC = 1 } qc_arx_criterion;
const char *qc_arx_criterion_name(qc_arx_criterion v);
int qc_arx_criterion_parse(const char *s, qc_arx_criterion *v, qc_err *err);

typedef struct qc_arx_params {
    unsigned na_min, na_max; /* default 1..3 */
    unsigned nb_min, nb_max; /* default 1..3 */
    int tied;                /* 1 (default): only na == nb */
    int d_min, d_max;        /* default 0..2 */
    qc_arx_criterion criterion; /* default AIC */
    double holdout;          /* fraction at the end kept for validation, [0, 0.9]; 0.3 */
    int demean;              /* 1 (default): (u0, y0) = means of the estimation part */
    double u0, y0;           /* the operating point when demean is 0 */
    double dt;               /* sample interval stored in the model (0 unknown) */
} qc_arx_params;

/* One candidate of the order search, fitted on the common rows. */
typedef struct qc_arx_candidate {
    unsigned na, nb;
    int delay;
    unsigned params;   /* na + nb */
    int usable;        /* 0 when its regressors were rank deficient */
    double rss;        /* residual sum of squares */
    double sigma2;     /* RSS / (N - p): unbiased residual variance */
    double r2;         /* 1 - RSS / TSS (TSS about the mean of the targets) */
    double aic;        /* N ln(RSS/N) + 2p */
    double bic;        /* N ln(RSS/N) + p ln N */
} qc_arx_candidate;

typedef struct qc_arx_result {
    qc_arx_model model;          /* the chosen model */
    qc_arx_criterion criterion;
    size_t n;                    /* samples given */
    size_t n_est, n_val;         /* estimation part [0, n_est), validation [n_est, n) */
    size_t rows;                 /* regression rows N, common to every candidate */
    size_t first_row;            /* the first row predicts y(first_row + 1) */
    double rss, sigma2, r2, aic, bic;   /* of the chosen model */
    double se_a[QC_ARX_MAX_ORDER];      /* standard errors, sqrt(diag(cov)) */
    double se_b[QC_ARX_MAX_ORDER];
    /* cov = sigma2 (X^T X)^-1, parameters in the order a1..a_na, b1..b_nb */
    double cov[QC_ARX_MAX_PARAMS][QC_ARX_MAX_PARAMS];
    double val_r2;    /* one-step-ahead R^2 on the validation part (NaN if none) */
    double val_fit;   /* simulated output fit, percent (NaN if none) */
    size_t ncand, best;
    qc_arx_candidate cand[QC_ARX_MAX_CANDIDATES];
} qc_arx_result;

typedef struct qc_arx_ws qc_arx_ws;

/* Defaults above. */
void qc_arx_params_init(qc_arx_params *o);

/* A workspace for data sets of up to n_max samples (n_max >= 4). NULL on
 * allocation failure (err says so). */
qc_arx_ws *qc_arx_alloc(size_t n_max, qc_err *err);
void qc_arx_free(qc_arx_ws *w);

/* Identifies an ARX model of y driven by u (n samples each, absolute
 * units). Every candidate (na, nb, d) of o is fitted by least squares on
 * the same rows of the estimation part, the one with the smallest
 * criterion is chosen, and it is validated on the last o->holdout of the
 * data: one-step-ahead R^2, and the fit of its simulation driven by u
 * alone, 100 (1 - ||y - y_sim|| / ||y - mean(y)||).
 * QC_EINVAL for bad options, non-finite data, or too few samples for the
 * largest candidate (the message says how many are needed); QC_EUNSTABLE
 * never; QC_ERANGE when every candidate is rank deficient (u constant or
 * y constant: nothing to identify). On error *res is unspecified. */
int qc_arx_fit(qc_arx_ws *w, const double *u, const double *y, size_t n,
               const qc_arx_params *o, qc_arx_result *res, qc_err *err);

/* One-step-ahead predictions and free simulation of m over samples
 * [from, n), absolute units. yhat1[k] uses measured y before k; ysim[k]
 * uses its own past outputs, started from measured y before `from`. Either
 * output may be NULL. Entries before from (or before the first predictable
 * sample) are set to NaN. */
void qc_arx_predict(const qc_arx_model *m, const double *u, const double *y, size_t n,
                    size_t from, double *yhat1, double *ysim);

/* The DC gain B(1) / A(1): the change of y per unit change of u at rest.
 * Infinite when A(1) = 0 (an integrator). */
double qc_arx_dc_gain(const qc_arx_model *m);

/* Standard error of the DC gain of a fitted model, by the delta method on
 * the coefficient covariance: grad' cov grad with dg/da_i = B(1)/A(1)^2,
 * dg/db_j = 1/A(1). NaN when A(1) = 0. The covariance assumes white
 * residuals; correlated residuals make it optimistic. */
double qc_arx_dc_gain_se(const qc_arx_result *r);

/* The input in effect of a plant whose input acts at once upward but can
 * fall by at most the fraction `fall` of itself per sample (MaxUsers: a
 * lower limit refuses new connections, and the connected count falls only
 * as sessions end, by about interval / mean session a sample):
 *   out(0) = u(0),  out(k) = max(u(k), (1 - fall) out(k-1)).
 * The rate limit is the plant's nonlinearity; the ARX model is fitted
 * from out to y (a Hammerstein model), so that a first-order model need
 * not average a fast rise and a slow fall into one time constant. out may
 * be u. fall = 0 copies u. */
void qc_arx_fall_input(const double *u, size_t n, double fall, double *out);

/* Identifies the fall rate with the model: qc_arx_fit on
 * qc_arx_fall_input(u, F) for F on a grid over [0, fall_max] (steps of
 * fall_max / 100, then refined to fall_max / 5000 around the best), F
 * chosen by the criterion of o on the estimation part (the same rows for
 * every F; F is one more parameter for all of them). *fall is the chosen
 * F, ueff (n entries) its input in effect, res its fit. Errors as
 * qc_arx_fit; QC_EINVAL when fall_max is not in (0, 1). */
int qc_arx_fit_fall(qc_arx_ws *w, const double *u, const double *y, size_t n,
                    const qc_arx_params *o, double fall_max, double *ueff, double *fall,
                    qc_arx_result *res, qc_err *err);

/* Running a model sample by sample, e.g. as a plant or a sensor in a loop.
 * The state keeps past inputs and outputs (offsets). */
typedef struct qc_arx_state {
    double y[QC_ARX_MAX_ORDER];                        /* y(t-1), y(t-2), ... */
    double x[QC_ARX_MAX_ORDER + QC_ARX_MAX_DELAY + 1]; /* x(t-1), x(t-2), ... */
} qc_arx_state;

/* At rest at the operating point. */
void qc_arx_state_init(qc_arx_state *s);
/* y(t) (absolute) from the past and the input x(t) (absolute); x(t)
 * matters only when delay = -1, otherwise pass anything. */
double qc_arx_state_output(const qc_arx_model *m, const qc_arx_state *s, double x_t);
/* Records x(t) and y(t) (absolute); time moves to t + 1. */
void qc_arx_state_push(const qc_arx_model *m, qc_arx_state *s, double x_t, double y_t);

/* Flags of qc_arx_read_csv. */
enum {
    /* With no header line, read columns 1..k by position instead of
     * failing on name selectors (for a default selection). */
    QC_ARX_CSV_POSITIONAL = 1,
    /* The first selected column is time: strictly increasing. */
    QC_ARX_CSV_TIME = 2
};

/* Reads k numeric columns of a CSV file. `select` lists k selectors
 * separated by commas, each a header name or a 1-based column number.
 * Blank lines and lines starting with '#' are skipped; the first other
 * line is a header when any field of it does not start like a number.
 * CRLF line ends and a UTF-8 byte order mark are accepted.
 * On success cols[0..k-1] are malloc'ed arrays of *n values (free them).
 * Errors name FILE:LINE:COLUMN (COLUMN counts characters) and say what is
 * wrong: QC_EIO (cannot open), QC_EPARSE (not a number, too few fields,
 * no such header name), QC_EEMPTY (no data rows), QC_EINVAL (bad select). */
int qc_arx_read_csv(const char *path, const char *select, size_t k, unsigned flags,
                    double *cols[], size_t *n, qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
