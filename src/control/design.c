/* SPDX-License-Identifier: GPL-3.0-or-later */
/* design.c: closed-loop poles, stable gain range and pole placement for
 * integral and PI control of an ARX plant, with an optional sensor model.
 *
 * Everything rests on one fact: with the controller's gains entering
 * linearly, the closed-loop characteristic polynomial is affine in them,
 *
 *   P(z) = P0(z) + K_I PKI(z) + K_P PKP(z),
 *   P0 = (z - 1) A As,   PKI = z B Bs,   PKP = (z - 1) B Bs,
 *
 * where G = B/A is the plant and H = Bs/As the sensor (both polynomials in
 * z, from the ARX difference equations multiplied through by z^n). Once
 * the three polynomials are built, a gain pair costs one polynomial sum
 * and one root solve: the root locus, the stable range and the searches
 * below are loops over that.
 *
 * Placement: a wanted pole p* is a root of P when P(p*) = 0. For PI this
 * is two real linear equations in (K_I, K_P) (real and imaginary parts),
 * or P(r) = P'(r) = 0 for a double real pole. Integral control has one
 * gain, so it can put one real pole anywhere on the real axis but cannot
 * place a complex pair: then the gain is chosen whose dominant pole lies
 * closest to the target.
 *
 * Poles at z = 0 that every gain shares (from delays: A, B padded with
 * powers of z) are split off once, and a constant term that vanishes at
 * particular gains is deflated at each solve, so GSL always sees a
 * polynomial with a nonzero constant term (one solver workspace per
 * degree, allocated with the loop).
 *
 * The predictions (qc_design_predict) run the loop itself, not its poles:
 * the MaxUsers controller, the actuator's limits, the input's fall rate
 * and, for a loop closed on a sensor, either the sensor's linear model or
 * a Wiener sensor (its dynamics at unit DC gain, then a completion log's
 * curve), since a curved sensor puts the loop's steady state where the
 * curve, not its tangent, meets the reference. */
#include "qctl/design.h"
#include "qctl/controller.h"
#include "qctl/rng.h"
#include "qctl/rng_gsl.h"
#include "core/gsl_quiet.h"

#include <complex.h>
#include <gsl/gsl_poly.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NP (QC_DESIGN_MAX_POLES + 1) /* coefficients of P */
#define SCAN_DECADES 12              /* stable-range scan: 1e-6 .. 1e6 / |loop gain| */
#define SCAN_PER_DECADE 200
#define SEARCH_POINTS 2000
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

struct qc_design_ws {
    size_t deg;   /* degree of P */
    size_t zeros; /* roots at 0 shared by every gain */
    size_t m;     /* degree left for the solver: deg - zeros */
    double p0[NP], pki[NP], pkp[NP]; /* ascending powers of z */
    double coef[NP];
    double z[2 * NP];
    /* pw[k]: for k + 1 coefficients (degree k >= 2), so that a constant
     * term that vanishes at some gain (a root at 0) is deflated too */
    gsl_poly_complex_workspace *pw[NP];
    double loop_gain;
};

/* The ARX model as A(z), B(z), ascending powers; returns n = deg A. */
static size_t model_polys(const qc_arx_model *m, double *A, double *B)
{
    const int lu = m->delay + (int)m->nb;
    const size_t n = (size_t)((int)m->na > lu ? (int)m->na : lu);
    memset(A, 0, (n + 1) * sizeof *A);
    memset(B, 0, (n + 1) * sizeof *B);
    A[n] = 1;
    for (unsigned i = 1; i <= m->na; i++)
        A[n - i] = -m->a[i - 1];
    for (unsigned j = 1; j <= m->nb; j++)
        B[(size_t)((int)n - m->delay - (int)j)] += m->b[j - 1];
    return n;
}

/* out = a * b (degrees da, db); out has da + db + 1 entries. */
static void poly_mul(const double *a, size_t da, const double *b, size_t db, double *out)
{
    memset(out, 0, (da + db + 1) * sizeof *out);
    for (size_t i = 0; i <= da; i++)
        for (size_t j = 0; j <= db; j++)
            out[i + j] += a[i] * b[j];
}

qc_design_ws *qc_design_alloc(const qc_arx_model *plant, const qc_arx_model *sensor,
                              qc_err *err)
{
    if (plant->delay < 0) {
        qc_err_set(err, QC_EINVAL,
                   "plant delay %d: a plant in a loop needs delay >= 0 (a direct term would "
                   "make an algebraic loop with the controller)",
                   plant->delay);
        return NULL;
    }
    const double g = qc_arx_dc_gain(plant) * (sensor ? qc_arx_dc_gain(sensor) : 1.0);
    if (!(g != 0) || !isfinite(g)) {
        qc_err_set(err, QC_EINVAL,
                   "loop DC gain %g: integral control needs a finite, nonzero static gain "
                   "(B(1) != 0 and A(1) != 0)",
                   g);
        return NULL;
    }
    qc_design_ws *w = calloc(1, sizeof *w);
    if (w == NULL) {
        qc_err_set(err, QC_ENOMEM, "design workspace: out of memory");
        return NULL;
    }
    w->loop_gain = g;
    double A[NP], B[NP], As[NP] = {1}, Bs[NP] = {1}, AA[NP], BB[NP];
    const size_t n = model_polys(plant, A, B);
    const size_t ns = sensor ? model_polys(sensor, As, Bs) : 0;
    poly_mul(A, n, As, ns, AA);
    poly_mul(B, n, Bs, ns, BB);
    const double zm1[2] = {-1, 1}, z1[2] = {0, 1};
    w->deg = n + ns + 1;
    poly_mul(zm1, 1, AA, n + ns, w->p0);
    poly_mul(z1, 1, BB, n + ns, w->pki);
    poly_mul(zm1, 1, BB, n + ns, w->pkp);
    while (w->zeros < w->deg && w->p0[w->zeros] == 0 && w->pki[w->zeros] == 0 &&
           w->pkp[w->zeros] == 0)
        w->zeros++;
    w->m = w->deg - w->zeros;
    gsl_error_handler_t *h = qc__gsl_quiet(); /* a failed allocation is NULL, not an abort */
    for (size_t k = 2; k <= w->m; k++)
        if ((w->pw[k] = gsl_poly_complex_workspace_alloc(k + 1)) == NULL) {
            qc__gsl_restore(h);
            qc_design_free(w);
            qc_err_set(err, QC_ENOMEM, "design workspace: out of memory");
            return NULL;
        }
    qc__gsl_restore(h);
    return w;
}

void qc_design_free(qc_design_ws *w)
{
    if (w == NULL)
        return;
    for (size_t k = 0; k < NP; k++)
        if (w->pw[k])
            gsl_poly_complex_workspace_free(w->pw[k]);
    free(w);
}

size_t qc_design_order(const qc_design_ws *w)
{
    return w->deg;
}

double qc_design_loop_gain(const qc_design_ws *w)
{
    return w->loop_gain;
}

void qc_design_charpoly(const qc_design_ws *w, double kp, double ki, double *c)
{
    for (size_t i = 0; i <= w->deg; i++)
        c[w->deg - i] = w->p0[i] + ki * w->pki[i] + kp * w->pkp[i];
}

void qc_design_charpoly_parts(const qc_design_ws *w, double *p0, double *pki, double *pkp)
{
    for (size_t i = 0; i <= w->deg; i++) {
        if (p0)
            p0[w->deg - i] = w->p0[i];
        if (pki)
            pki[w->deg - i] = w->pki[i];
        if (pkp)
            pkp[w->deg - i] = w->pkp[i];
    }
}

double qc_design_settling(double modulus)
{
    if (!(modulus < 1))
        return INFINITY;
    if (modulus <= 0)
        return 0;
    return -4 / log(modulus);
}

double qc_design_overshoot(double re, double im)
{
    const double r = hypot(re, im);
    if (!(r < 1))
        return NAN;
    if (r == 0)
        return 0;
    const double theta = atan2(fabs(im), re);
    if (theta == 0)
        return 0;
    return pow(r, M_PI / theta);
}

int qc_design_poles_at(qc_design_ws *w, double kp, double ki, qc_design_poles *out,
                       qc_err *err)
{
    if (!isfinite(kp) || !isfinite(ki))
        return qc_err_set(err, QC_ERANGE, "gains K_P = %g, K_I = %g: not finite", kp, ki);
    size_t m = w->m, s = w->zeros;
    for (size_t i = 0; i <= m; i++)
        w->coef[i] = w->p0[s + i] + ki * w->pki[s + i] + kp * w->pkp[s + i];
    /* roots at exactly 0 for these gains (the leading coefficient is 1) */
    size_t extra = 0;
    while (extra < m && w->coef[extra] == 0)
        extra++;
    m -= extra;
    out->kp = kp;
    out->ki = ki;
    out->n = w->deg;
    if (m == 1) {
        w->z[0] = -w->coef[extra] / w->coef[extra + 1];
        w->z[1] = 0;
    } else if (m >= 2) {
        gsl_error_handler_t *h = qc__gsl_quiet();
        int rc = gsl_poly_complex_solve(w->coef + extra, m + 1, w->pw[m], w->z);
        qc__gsl_restore(h);
        if (rc != 0)
            return qc_err_set(err, QC_ERANGE,
                              "closed-loop poles at K_P = %g, K_I = %g: the root solver did "
                              "not converge",
                              kp, ki);
    }
    for (size_t i = 0; i < m; i++) {
        out->re[i] = w->z[2 * i];
        out->im[i] = w->z[2 * i + 1];
    }
    for (size_t i = m; i < w->deg; i++)
        out->re[i] = out->im[i] = 0;
    /* Sort by decreasing modulus; conjugates stay adjacent, + first. */
    for (size_t i = 1; i < w->deg; i++) {
        const double re = out->re[i], im = out->im[i], r = hypot(re, im);
        size_t j = i;
        while (j > 0) {
            const double rj = hypot(out->re[j - 1], out->im[j - 1]);
            if (rj > r || (rj == r && out->im[j - 1] >= im))
                break;
            out->re[j] = out->re[j - 1];
            out->im[j] = out->im[j - 1];
            j--;
        }
        out->re[j] = re;
        out->im[j] = im;
    }
    out->max_modulus = hypot(out->re[0], out->im[0]);
    out->dom_re = out->re[0];
    out->dom_im = fabs(out->im[0]);
    out->stable = out->max_modulus < 1;
    out->settling = qc_design_settling(out->max_modulus);
    out->overshoot = qc_design_overshoot(out->dom_re, out->dom_im);
    return 0;
}

/* Spectral radius at (kp, ki), or NaN on a solver failure (err set). */
static double radius(qc_design_ws *w, double kp, double ki, qc_err *err)
{
    qc_design_poles p;
    if (qc_design_poles_at(w, kp, ki, &p, err) != 0)
        return NAN;
    return p.max_modulus;
}

/* Bisection on |K| between a stable and an unstable gain (same sign). */
static int crossing(qc_design_ws *w, double kp, double k_st, double k_un, double *out,
                    qc_err *err)
{
    for (int it = 0; it < 200 && fabs(k_st - k_un) > 1e-12 * fabs(k_st); it++) {
        const double mid = 0.5 * (k_st + k_un);
        const double r = radius(w, kp, mid, err);
        if (isnan(r))
            return QC_ERANGE;
        if (r < 1)
            k_st = mid;
        else
            k_un = mid;
    }
    *out = k_st;
    return 0;
}

int qc_design_stable_range(qc_design_ws *w, double kp, qc_design_range *out, qc_err *err)
{
    memset(out, 0, sizeof *out);
    out->lo = out->hi = NAN;
    const double sgn = w->loop_gain > 0 ? 1.0 : -1.0;
    const double ref = 1 / fabs(w->loop_gain);
    const int npts = SCAN_DECADES * SCAN_PER_DECADE + 1;
    out->scan_lo = ref * pow(10, -SCAN_DECADES / 2.0);
    out->scan_hi = ref * pow(10, SCAN_DECADES / 2.0);
    double prev_k = 0;
    int prev_st = 0;
    double open_lo = NAN; /* start of the interval being traced */
    for (int i = 0; i < npts; i++) {
        const double k = sgn * ref * pow(10, -SCAN_DECADES / 2.0 + (double)i / SCAN_PER_DECADE);
        const double r = radius(w, kp, k, err);
        if (isnan(r))
            return QC_ERANGE;
        const int st = r < 1;
        if (i == 0 && st) {
            /* Stable at the smallest gain: is it stable down to 0? At
             * K_I = 0 the poles are z = 1 and the roots of A As + K_P B Bs;
             * if those are inside, the pole at 1 moves inward for small
             * gains of this sign (dz/dK_I = -G(1)H(1) sign) and nothing
             * crosses the circle on the way. */
            qc_design_poles p0;
            if (qc_design_poles_at(w, kp, 0, &p0, err) != 0)
                return QC_ERANGE;
            size_t one = 0;
            for (size_t j = 1; j < p0.n; j++)
                if (hypot(p0.re[j] - 1, p0.im[j]) < hypot(p0.re[one] - 1, p0.im[one]))
                    one = j;
            double rest = 0;
            for (size_t j = 0; j < p0.n; j++)
                if (j != one && hypot(p0.re[j], p0.im[j]) > rest)
                    rest = hypot(p0.re[j], p0.im[j]);
            open_lo = rest < 1 ? 0 : k;
        } else if (st && !prev_st) {
            if (crossing(w, kp, k, prev_k, &open_lo, err) != 0)
                return QC_ERANGE;
        } else if (!st && prev_st) {
            double hi;
            if (crossing(w, kp, prev_k, k, &hi, err) != 0)
                return QC_ERANGE;
            if (out->n < QC_DESIGN_MAX_INTERVALS) {
                out->ilo[out->n] = open_lo;
                out->ihi[out->n] = hi;
                out->n++;
            }
        }
        prev_k = k;
        prev_st = st;
    }
    if (prev_st && out->n < QC_DESIGN_MAX_INTERVALS) {
        out->ilo[out->n] = open_lo;
        out->ihi[out->n] = sgn * INFINITY;
        out->n++;
    }
    for (size_t i = 0; i < out->n; i++)
        if (out->ilo[i] > out->ihi[i]) {
            const double t = out->ilo[i];
            out->ilo[i] = out->ihi[i];
            out->ihi[i] = t;
        }
    if (out->n > 0) {
        out->lo = out->ilo[0];
        out->hi = out->ihi[0];
    }
    return 0;
}

int qc_design_target(const qc_design_spec *spec, double *re, double *im, qc_err *err)
{
    if (!(spec->settling > 1) || !isfinite(spec->settling))
        return qc_err_set(err, QC_ERANGE, "settling time %g samples: must be > 1",
                          spec->settling);
    if (!(spec->overshoot >= 0 && spec->overshoot < 1))
        return qc_err_set(err, QC_ERANGE, "overshoot %g: must lie in [0, 1)", spec->overshoot);
    const double r = exp(-4 / spec->settling);
    double theta = 0;
    if (spec->overshoot > 0) {
        if (spec->overshoot > r)
            return qc_err_set(err, QC_ERANGE,
                              "overshoot %g with settling time %g samples: a pole of modulus "
                              "%.4g overshoots at most %.4g (a negative real pole)",
                              spec->overshoot, spec->settling, r, r);
        theta = M_PI * log(r) / log(spec->overshoot);
    }
    *re = r * cos(theta);
    *im = r * sin(theta);
    return 0;
}

/* P and its derivative at a complex point, from ascending coefficients. */
static void horner(const double *c, size_t deg, double complex z, double complex *v,
                   double complex *dv)
{
    double complex p = c[deg], d = 0;
    for (size_t i = deg; i-- > 0;) {
        d = d * z + p;
        p = p * z + c[i];
    }
    *v = p;
    if (dv)
        *dv = d;
}

static double dom_distance(const qc_design_poles *p, double tr, double ti)
{
    return hypot(p->dom_re - tr, p->dom_im - ti);
}

/* A control law's design: the gains that place the dominant pole at the
 * target (tr, ti) of modulus r, in out (which holds the target). */
typedef int (*design_law)(qc_design_ws *w, qc_design_result *out, double tr, double ti, double r,
                          qc_err *err);

/* A design: clears out, puts the target pole of the spec in it and lets
 * the law find the gains. */
static int design(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out,
                  design_law law, qc_err *err)
{
    memset(out, 0, sizeof *out);
    double tr, ti;
    int rc = qc_design_target(spec, &tr, &ti, err);
    if (rc != 0)
        return rc;
    out->target_re = tr;
    out->target_im = ti;
    return law(w, out, tr, ti, hypot(tr, ti), err);
}

static int integral_gain(qc_design_ws *w, qc_design_result *out, double tr, double ti, double r,
                         qc_err *err)
{
    int rc;
    qc_design_range range;
    if ((rc = qc_design_stable_range(w, 0, &range, err)) != 0)
        return rc;
    if (range.n == 0)
        return qc_err_set(err, QC_EUNSTABLE, "no integral gain makes this loop stable");

    if (ti == 0) {
        /* One real pole exactly at r: P0(r) + K_I PKI(r) = 0. */
        double complex v0, vi;
        horner(w->p0, w->deg, r, &v0, NULL);
        horner(w->pki, w->deg, r, &vi, NULL);
        const double k = -creal(v0) / creal(vi);
        if (isfinite(k) && k != 0 && qc_design_poles_at(w, 0, k, &out->poles, err) == 0 &&
            out->poles.stable && out->poles.max_modulus <= r * (1 + 1e-9)) {
            out->ki = k;
            out->exact = out->dominant = 1;
            return 0;
        }
    }

    /* Search |K_I| over the stable interval next to zero, on a log grid,
     * then refine the best point by golden section between its
     * neighbours. */
    const double sgn = range.hi > 0 ? 1.0 : -1.0;
    double a = fmin(fabs(range.lo), fabs(range.hi)), b = fmax(fabs(range.lo), fabs(range.hi));
    if (a == 0)
        a = (isfinite(b) ? b : range.scan_hi) * 1e-6;
    if (!isfinite(b))
        b = range.scan_hi;
    a *= 1 + 1e-9;
    b *= 1 - 1e-9;
    double best_k = a, best_d = INFINITY;
    int best_i = 0;
    qc_design_poles p;
    for (int i = 0; i < SEARCH_POINTS; i++) {
        const double k = a * pow(b / a, (double)i / (SEARCH_POINTS - 1));
        if (qc_design_poles_at(w, 0, sgn * k, &p, err) != 0)
            return QC_ERANGE;
        const double dist = p.stable ? dom_distance(&p, tr, ti) : INFINITY;
        if (dist < best_d) {
            best_d = dist;
            best_k = k;
            best_i = i;
        }
    }
    if (!isfinite(best_d))
        return qc_err_set(err, QC_EUNSTABLE, "no stable integral gain found by the search");
    double lo = a * pow(b / a, (double)(best_i > 0 ? best_i - 1 : 0) / (SEARCH_POINTS - 1));
    double hi = a * pow(b / a, (double)(best_i < SEARCH_POINTS - 1 ? best_i + 1 : best_i) /
                                   (SEARCH_POINTS - 1));
    const double g = (sqrt(5.0) - 1) / 2;
    for (int it = 0; it < 100 && hi - lo > 1e-13 * hi; it++) {
        const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
        qc_design_poles p1, p2;
        if (qc_design_poles_at(w, 0, sgn * x1, &p1, err) != 0 ||
            qc_design_poles_at(w, 0, sgn * x2, &p2, err) != 0)
            return QC_ERANGE;
        const double d1 = p1.stable ? dom_distance(&p1, tr, ti) : INFINITY;
        const double d2 = p2.stable ? dom_distance(&p2, tr, ti) : INFINITY;
        if (d1 < best_d) {
            best_d = d1;
            best_k = x1;
        }
        if (d2 < best_d) {
            best_d = d2;
            best_k = x2;
        }
        if (d1 <= d2)
            hi = x2;
        else
            lo = x1;
    }
    out->ki = sgn * best_k;
    if ((rc = qc_design_poles_at(w, 0, out->ki, &out->poles, err)) != 0)
        return rc;
    out->exact = out->dominant = best_d <= 1e-6 * fmax(r, 1e-3);
    return 0;
}

int qc_design_integral(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out,
                       qc_err *err)
{
    return design(w, spec, out, integral_gain, err);
}

static int pi_gains(qc_design_ws *w, qc_design_result *out, double tr, double ti, double r,
                    qc_err *err)
{
    int rc;
    /* Rows of [PKI PKP] [K_I K_P]' = -P0: real and imaginary parts of
     * P(p*) = 0, or P(r) = 0 and P'(r) = 0 when a real (double) pole is
     * wanted, since a near-zero angle makes the imaginary row vanish. */
    double m11, m12, m21, m22, r1, r2;
    double complex v0, vi, vp, d0, di, dp;
    if (ti > 1e-6 * r) {
        const double complex z = tr + ti * I;
        horner(w->p0, w->deg, z, &v0, NULL);
        horner(w->pki, w->deg, z, &vi, NULL);
        horner(w->pkp, w->deg, z, &vp, NULL);
        m11 = creal(vi), m12 = creal(vp), r1 = -creal(v0);
        m21 = cimag(vi), m22 = cimag(vp), r2 = -cimag(v0);
    } else {
        out->target_re = r;
        out->target_im = 0;
        horner(w->p0, w->deg, r, &v0, &d0);
        horner(w->pki, w->deg, r, &vi, &di);
        horner(w->pkp, w->deg, r, &vp, &dp);
        m11 = creal(vi), m12 = creal(vp), r1 = -creal(v0);
        m21 = creal(di), m22 = creal(dp), r2 = -creal(d0);
    }
    const double det = m11 * m22 - m12 * m21;
    const double scale = fmax(fabs(m11), fabs(m21)) * fmax(fabs(m12), fabs(m22));
    if (!(fabs(det) > 1e-12 * scale))
        return qc_err_set(err, QC_ERANGE,
                          "PI gains cannot place the pole pair %.4g%+.4gi for this model "
                          "(singular equations)",
                          tr, ti);
    out->ki = (r1 * m22 - m12 * r2) / det;
    out->kp = (m11 * r2 - r1 * m21) / det;
    if ((rc = qc_design_poles_at(w, out->kp, out->ki, &out->poles, err)) != 0)
        return rc;
    out->exact = 1;
    /* A double root comes back split by ~sqrt(eps) relative: tolerate it. */
    out->dominant = out->poles.max_modulus <= r * (1 + 1e-6) + 1e-9;
    return 0;
}

int qc_design_pi(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out,
                 qc_err *err)
{
    return design(w, spec, out, pi_gains, err);
}

void qc_design_step_response(const qc_arx_model *plant, const qc_arx_model *sensor, double kp,
                             double ki, size_t n, double *y, double *ym, double *u)
{
    /* Offsets: run copies of the models around a zero operating point. */
    qc_arx_model pm = *plant, sm;
    pm.u0 = pm.y0 = 0;
    if (sensor) {
        sm = *sensor;
        sm.u0 = sm.y0 = 0;
    }
    qc_arx_state ps, ss;
    qc_arx_state_init(&ps);
    qc_arx_state_init(&ss);
    double u_prev = 0, e_prev = 0;
    for (size_t k = 0; k < n; k++) {
        const double yk = qc_arx_state_output(&pm, &ps, 0);
        const double mk = sensor ? qc_arx_state_output(&sm, &ss, yk) : yk;
        const double e = 1 - mk;
        const double uk = u_prev + (kp + ki) * e - kp * e_prev;
        qc_arx_state_push(&pm, &ps, uk, yk);
        if (sensor)
            qc_arx_state_push(&sm, &ss, yk, mk);
        u_prev = uk;
        e_prev = e;
        if (y)
            y[k] = yk;
        if (ym)
            ym[k] = mk;
        if (u)
            u[k] = uk;
    }
}

void qc_design_step_metrics(const double *x, size_t n, double x0, double ref, double *settling,
                            double *overshoot)
{
    const double span = ref - x0;
    *settling = 0;
    *overshoot = 0;
    if (span == 0 || n == 0)
        return;
    const double band = 0.02 * fabs(span);
    size_t last_out = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        if (!(fabs(x[k] - ref) <= band))
            last_out = k;
        const double os = (x[k] - ref) / span;
        if (os > *overshoot)
            *overshoot = os;
    }
    /* rounding leaves ~1e-16 above a monotone response's target */
    if (*overshoot < 1e-12)
        *overshoot = 0;
    if (last_out == SIZE_MAX)
        *settling = 0;
    else if (last_out == n - 1)
        *settling = INFINITY;
    else
        *settling = (double)(last_out + 1);
}

/* One run of the prediction loop; g NULL: noiseless. */
static void predict_once(const qc_arx_model *plant, const qc_design_predict_params *p,
                         double u_start, gsl_rng *g, qc_design_prediction *out)
{
    qc_pi_params pp = {p->kp, p->ki, p->u_min, p->u_max, u_start, (qc_antiwindup)p->antiwindup, 1};
    qc_mu_ctl c;
    qc_mu_ctl_init(&c, &pp, NULL); /* checked by the caller */
    qc_arx_state st, ss;
    qc_arx_state_init(&st);
    qc_arx_state_init(&ss);
    for (size_t i = 0; i < sizeof st.y / sizeof st.y[0]; i++)
        st.y[i] = p->y_start - plant->y0;
    for (size_t i = 0; i < sizeof st.x / sizeof st.x[0]; i++)
        st.x[i] = u_start - plant->u0;
    const qc_arx_model *sm = p->sensor;
    if (sm) {
        /* at rest at y_start: the sensor reads its static map there */
        const double gs = qc_arx_dc_gain(sm);
        for (size_t i = 0; i < sizeof ss.y / sizeof ss.y[0]; i++)
            ss.y[i] = gs * (p->y_start - sm->u0);
        for (size_t i = 0; i < sizeof ss.x / sizeof ss.x[0]; i++)
            ss.x[i] = p->y_start - sm->u0;
    }
    const double r_ctl = sm ? p->r_m : p->r;
    const size_t n = p->horizon;
    double u_eff = u_start;
    double y = p->y_start, step = p->r - p->y_start, worst = 0;
    double hist[5] = {0};
    size_t last_out = 0, sat = 0;
    int ever_out = 0;
    for (size_t k = 0; k < n; k++) {
        double meas = y;
        if (sm && p->sensor_curve > 0) {
            /* Wiener: the dynamics at unit DC gain, then the curve; the
             * noise is the curve fit's, on the output */
            const double lin = qc_arx_state_output(sm, &ss, y);
            qc_arx_state_push(sm, &ss, y, lin);
            const double v = qc_arx_wiener_input(sm, lin);
            meas = qc_arx_curve_at(p->sensor_curve, v);
            const double sd = p->sensor_noise_cv > 0 ? p->sensor_noise_cv * fabs(v)
                                                     : p->sensor_noise_sd;
            if (g && sd > 0)
                meas += gsl_ran_gaussian(g, sd);
            if (p->sensor_max > 0 && meas > p->sensor_max)
                meas = p->sensor_max;
        } else if (sm) {
            meas = qc_arx_state_output(sm, &ss, y);
            if (g && p->sensor_noise_sd > 0)
                meas += gsl_ran_gaussian(g, p->sensor_noise_sd);
            qc_arx_state_push(sm, &ss, y, meas);
            if (p->sensor_max > 0 && meas > p->sensor_max)
                meas = p->sensor_max;
        }
        qc_mu_ctl_sense in = {r_ctl, meas, NAN};
        qc_mu_ctl_act act;
        qc_mu_ctl_step(&c, &in, &act);
        sat += act.u <= p->u_min || act.u >= p->u_max;
        /* the input in effect: it follows u up at once, down at most by
         * the fall rate */
        double floor_ = u_eff * (1 - p->fall);
        u_eff = p->fall > 0 && act.u < floor_ ? floor_ : act.u;
        qc_arx_state_push(plant, &st, u_eff, y);
        y = qc_arx_state_output(plant, &st, 0);
        if (g && p->noise_sd > 0)
            y += gsl_ran_gaussian(g, p->noise_sd);
        if (!isfinite(y) || fabs(y) > 1e12) { /* diverged */
            ever_out = 1;
            last_out = n;
            break;
        }
        /* sample k of the run is y(k+1): the same moving average */
        hist[k % 5] = y;
        size_t m = k + 1 < 5 ? k + 1 : 5;
        double avg = 0;
        for (size_t j = 0; j < m; j++)
            avg += hist[j];
        avg /= (double)m;
        double beyond = step >= 0 ? avg - p->r : p->r - avg;
        if (beyond > worst)
            worst = beyond;
        if (fabs(avg - p->r) > p->band * fabs(p->r)) {
            last_out = k;
            ever_out = 1;
        }
    }
    out->y_end = y;
    out->frac_saturated = (double)sat / (double)n;
    if (!ever_out) {
        out->settled = 1;
        out->settling = 1;
    } else if (last_out + 5 < n) {
        out->settled = 1;
        out->settling = (double)last_out + 2;
    } else {
        out->settled = 0;
        out->settling = NAN;
    }
    out->overshoot = fabs(step) > p->band * fabs(p->r) ? 100 * worst / fabs(step) : NAN;
}

void qc_design_predict_params_init(qc_design_predict_params *p)
{
    memset(p, 0, sizeof *p);
    p->ki = 0.1;
    p->u_min = -1e9;
    p->u_max = 1e9;
    p->antiwindup = QC_AW_CONDITIONAL;
    p->r = 1;
    p->band = 0.1;
    p->horizon = 200;
    p->seed = 1;
}

int qc_design_predict(qc_design_ws *w, const qc_arx_model *plant,
                      const qc_design_predict_params *p, qc_design_prediction *out, qc_err *err)
{
    memset(out, 0, sizeof *out);
    if (p->horizon < 10 || p->horizon > 10000000)
        return qc_err_set(err, QC_EINVAL, "prediction horizon %zu is not in 10 .. 1e7", p->horizon);
    if (!(p->fall >= 0 && p->fall < 1))
        return qc_err_set(err, QC_EINVAL, "prediction: fall rate %g is not in [0, 1)", p->fall);
    if (!(p->band > 0 && p->band < 1) || !isfinite(p->r) || !isfinite(p->y_start))
        return qc_err_set(err, QC_EINVAL, "prediction: band %g, reference %g, start %g", p->band,
                          p->r, p->y_start);
    if (p->sensor && (!isfinite(p->r_m) || p->sensor->delay < -1))
        return qc_err_set(err, QC_EINVAL, "prediction: sensor reference %g", p->r_m);
    if (p->sensor && (!(p->sensor_curve >= 0) || !isfinite(p->sensor_curve) ||
                      !(p->sensor_noise_cv >= 0) || !isfinite(p->sensor_noise_cv) ||
                      (p->sensor_curve > 0 && !(qc_arx_dc_gain(p->sensor) > 0))))
        return qc_err_set(err, QC_EINVAL,
                          "prediction: sensor curve scale %g (needs a sensor model with a "
                          "positive DC gain)",
                          p->sensor_curve);
    if (p->reps > 100000 || !(p->noise_sd >= 0) || !(p->sensor_noise_sd >= 0) ||
        !isfinite(p->noise_sd) || !isfinite(p->sensor_noise_sd))
        return qc_err_set(err, QC_EINVAL, "prediction: %u realisations, noise sd %g and %g",
                          p->reps, p->noise_sd, p->sensor_noise_sd);
    qc_design_poles poles;
    int rc = qc_design_poles_at(w, p->kp, p->ki, &poles, err);
    if (rc != 0)
        return rc;
    double g = qc_arx_dc_gain(plant);
    double u_start = plant->u0 + (isfinite(g) && g != 0 ? (p->y_start - plant->y0) / g : 0);
    u_start = u_start < p->u_min ? p->u_min : u_start > p->u_max ? p->u_max : u_start;
    qc_pi_params pp = {p->kp, p->ki, p->u_min, p->u_max, u_start, (qc_antiwindup)p->antiwindup, 1};
    qc_mu_ctl c;
    if ((rc = qc_mu_ctl_init(&c, &pp, err)) != 0)
        return rc;
    const unsigned reps = p->reps > 0 ? p->reps : 1;
    qc_rng r;
    qc_rng_init(&r, p->seed, 0);
    double set_sum = 0, os_sum = 0, sat_sum = 0, y_sum = 0;
    unsigned settled = 0;
    for (unsigned i = 0; i < reps; i++) {
        qc_design_prediction one;
        predict_once(plant, p, u_start, p->reps > 0 ? qc_rng_gsl(&r) : NULL, &one);
        if (one.settled) {
            settled++;
            set_sum += one.settling;
        }
        os_sum += one.overshoot;
        sat_sum += one.frac_saturated;
        y_sum += one.y_end;
    }
    out->stable = poles.stable;
    out->u_start = u_start;
    out->reps = reps;
    out->reps_settled = settled;
    out->settled = settled == reps;
    out->settling = settled > 0 ? set_sum / settled : NAN;
    out->overshoot = os_sum / reps;
    out->frac_saturated = sat_sum / reps;
    out->y_end = y_sum / reps;
    return 0;
}
