/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_design.c: closed-loop polynomial, stable gain range, pole placement
 * and the step-response predictions, checked against closed forms and
 * against code written here independently of the library:
 *
 *  - the stable range of y(k+1) = a y(k) + b u(k) under integral control.
 *    P(z) = z^2 + c1 z + c0 with c1 = -(1 + a - b K), c0 = a. Jury's
 *    conditions for a second-order polynomial, |c0| < 1, P(1) > 0 and
 *    P(-1) > 0, read |a| < 1, P(1) = b K > 0 and P(-1) = 2 (1 + a) - b K
 *    > 0: so 0 < K < 2 (1 + a) / b for b > 0 (2 (1 + a) / b < K < 0 for
 *    b < 0). For a = 0.43, b = 0.47: 0 < K_I < 6.0851.
 *  - for other loops the characteristic polynomial is rebuilt here in the
 *    backward shift q = z^-1 (the library works in z), and the edge of
 *    stability is found by bisection on the Schur-Cohn test (no roots);
 *  - step responses come from a direct recursion of the difference
 *    equations here, not from the library's simulation.
 *
 * For every stable design of a grid of specifications (4 loops x 6
 * settling times x 5 overshoots x 2 laws), the simulated step response
 * is checked to follow the characteristic polynomial exactly: the
 * response is made of the predicted poles' modes and nothing else.
 *
 * The pole rules (settling k_s = -4 / ln r, overshoot M_p = r^(pi/theta))
 * are second-order approximations; they are checked where their premises
 * hold (see premises()):
 *  - a real dominant pole: measured 2% settling within 10% of k_s, no
 *    overshoot (within 0.02);
 *  - an underdamped complex pair: overshoot within 0.02 of the rule, and
 *    settling between k_s - pi/theta and k_s (1 + ln(A)/4), A = 1 /
 *    sqrt(1 - zeta^2) (plus one sample): the rule follows the envelope
 *    r^k, while the response has amplitude A and leaves the band at its
 *    last peak outside it, up to half an oscillation period earlier.
 * Designs breaking a premise (near-double poles, negative real parts,
 * zeros near the dominant poles, such as PI designs slower than the
 * plant, whose zero leaves the unit circle) are printed with their
 * errors, not asserted on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/controller.h"
#include "qctl/design.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define assert_close(a, b, tol) check_close((a), (b), (tol), #a, __FILE__, __LINE__)

static void check_close(double a, double b, double tol, const char *what, const char *file,
                        int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("%s = %.17g, expected %.17g within %g\n", what, a, b, tol);
        _fail(file, line);
    }
}

static qc_arx_model arx(unsigned na, unsigned nb, int d, const double *a, const double *b)
{
    qc_arx_model m;
    memset(&m, 0, sizeof m);
    m.na = na;
    m.nb = nb;
    m.delay = d;
    for (unsigned i = 0; i < na; i++)
        m.a[i] = a[i];
    for (unsigned j = 0; j < nb; j++)
        m.b[j] = b[j];
    return m;
}

static qc_design_ws *alloc_ok(const qc_arx_model *p, const qc_arx_model *s)
{
    qc_err err = {0};
    qc_design_ws *w = qc_design_alloc(p, s, &err);
    if (w == NULL)
        print_error("qc_design_alloc: %s\n", err.msg);
    assert_non_null(w);
    return w;
}

/* ---- independent machinery ---------------------------------------------- */

/* Schur-Cohn: all roots of c[0] + c[1] z + ... + c[n] z^n strictly inside
 * the unit circle. While |c0| < |cn|, p is stable iff (cn p - c0 p*)/z is
 * (p* the reversed polynomial). */
static int schur_stable(const double *c_in, size_t n)
{
    double c[64];
    memcpy(c, c_in, (n + 1) * sizeof *c);
    while (n > 0) {
        if (!(fabs(c[0]) < fabs(c[n])))
            return 0;
        double t[64];
        for (size_t i = 0; i < n; i++)
            t[i] = c[n] * c[i + 1] - c[0] * c[n - 1 - i];
        n--;
        memcpy(c, t, (n + 1) * sizeof *c);
    }
    return 1;
}

/* p(q) * r(q) in ascending powers of q. */
static size_t qmul(const double *p, size_t dp, const double *r, size_t dr, double *out)
{
    memset(out, 0, (dp + dr + 1) * sizeof *out);
    for (size_t i = 0; i <= dp; i++)
        for (size_t j = 0; j <= dr; j++)
            out[i + j] += p[i] * r[j];
    return dp + dr;
}

/* A(q) = 1 - sum a_i q^i and B(q) = sum b_j q^(d+j) of a model. */
static void qpolys(const qc_arx_model *m, double *A, size_t *da, double *B, size_t *db)
{
    memset(A, 0, 16 * sizeof *A);
    memset(B, 0, 16 * sizeof *B);
    A[0] = 1;
    for (unsigned i = 1; i <= m->na; i++)
        A[i] = -m->a[i - 1];
    *da = m->na;
    for (unsigned j = 1; j <= m->nb; j++)
        B[m->delay + (int)j] += m->b[j - 1];
    *db = (size_t)(m->delay + (int)m->nb);
}

/* The closed loop in q: (1 - q) A As + (K_I + K_P (1 - q)) B Bs, returned
 * as a polynomial in z (ascending), z^L P(1/z). */
static size_t charpoly_q(const qc_arx_model *p, const qc_arx_model *s, double kp, double ki,
                         double *z)
{
    double A[16], B[16], As[16] = {1}, Bs[16] = {1}, AA[32], BB[32], t1[40], t2[40];
    size_t da, db, das = 0, dbs = 0;
    qpolys(p, A, &da, B, &db);
    if (s)
        qpolys(s, As, &das, Bs, &dbs);
    const size_t daa = qmul(A, da, As, das, AA);
    const size_t dbb = qmul(B, db, Bs, dbs, BB);
    const double omq[2] = {1, -1}, ctl[2] = {ki + kp, -kp};
    const size_t d1 = qmul(omq, 1, AA, daa, t1);
    const size_t d2 = qmul(ctl, 1, BB, dbb, t2);
    const size_t L = d1 > d2 ? d1 : d2;
    double P[40] = {0};
    for (size_t i = 0; i <= d1; i++)
        P[i] += t1[i];
    for (size_t i = 0; i <= d2; i++)
        P[i] += t2[i];
    for (size_t i = 0; i <= L; i++)
        z[i] = P[L - i];
    return L;
}

/* The edge of stability by bisection on Schur-Cohn, between a stable
 * and an unstable gain. */
static double schur_edge(const qc_arx_model *p, const qc_arx_model *s, double k_st, double k_un)
{
    double z[40];
    for (int it = 0; it < 200; it++) {
        const double mid = 0.5 * (k_st + k_un);
        const size_t L = charpoly_q(p, s, 0, mid, z);
        if (schur_stable(z, L))
            k_st = mid;
        else
            k_un = mid;
    }
    return k_st;
}

/* The loop by its difference equations: unit reference step at k = 0,
 * the plant output measured (through the sensor) before u(k) is set.
 * Returns the measured output in ym[0..n). */
static void closed_loop(const qc_arx_model *p, const qc_arx_model *s, double kp, double ki,
                        size_t n, double *ym)
{
    double *y = calloc(n, sizeof *y), *u = calloc(n, sizeof *u);
    assert_non_null(y);
    assert_non_null(u);
    double e_prev = 0, u_prev = 0;
    for (size_t k = 0; k < n; k++) {
        double v = 0;
        for (unsigned i = 1; i <= p->na; i++)
            if (k >= i)
                v += p->a[i - 1] * y[k - i];
        for (unsigned j = 1; j <= p->nb; j++) {
            const long idx = (long)k - p->delay - (long)j;
            if (idx >= 0)
                v += p->b[j - 1] * u[idx];
        }
        y[k] = v;
        double m = v;
        if (s) {
            m = 0;
            for (unsigned i = 1; i <= s->na; i++)
                if (k >= i)
                    m += s->a[i - 1] * ym[k - i];
            for (unsigned j = 1; j <= s->nb; j++) {
                const long idx = (long)k - s->delay - (long)j;
                if (idx >= 0)
                    m += s->b[j - 1] * y[idx];
            }
        }
        ym[k] = m;
        const double e = 1 - m;
        u[k] = u_prev + (kp + ki) * e - kp * e_prev;
        u_prev = u[k];
        e_prev = e;
    }
    free(y);
    free(u);
}

/* 2% settling (first sample after which |x - 1| <= 0.02 stays true) and
 * overshoot max(x) - 1 of a unit step response. */
static void measure(const double *x, size_t n, double *ks, double *mp)
{
    size_t last = 0;
    int any = 0;
    *mp = 0;
    for (size_t k = 0; k < n; k++) {
        if (fabs(x[k] - 1) > 0.02) {
            last = k;
            any = 1;
        }
        if (x[k] - 1 > *mp)
            *mp = x[k] - 1;
    }
    *ks = any ? (double)(last + 1) : 0;
}

/* ---- tests --------------------------------------------------------------- */

static void test_charpoly_first_order(void **state)
{
    (void)state;
    const double a = 0.43, b = 0.47;
    qc_arx_model m = arx(1, 1, 0, &a, &b);
    qc_design_ws *w = alloc_ok(&m, NULL);
    assert_int_equal(qc_design_order(w), 2);
    assert_close(qc_design_loop_gain(w), b / (1 - a), 1e-15);
    static const double K[] = {0.1, 1, 5};
    for (int i = 0; i < 3; i++) {
        double c[3];
        qc_design_charpoly(w, 0, K[i], c);
        assert_close(c[0], 1, 0);
        assert_close(c[1], -(1 + a - b * K[i]), 1e-15);
        assert_close(c[2], a, 1e-15);
    }
    /* PI: z^2 + (-(1 + a) + b (K_P + K_I)) z + (a - b K_P) */
    double c[3];
    qc_design_charpoly(w, 0.3, 0.2, c);
    assert_close(c[1], -(1 + a) + b * 0.5, 1e-15);
    assert_close(c[2], a - b * 0.3, 1e-15);
    qc_design_free(w);
    qc_design_free(NULL);
}

/* The MaxUsers gains of the book, a = 0.43, b = 0.47. */
static void test_gains_0_1_5(void **state)
{
    (void)state;
    const double a = 0.43, b = 0.47;
    qc_arx_model m = arx(1, 1, 0, &a, &b);
    qc_design_ws *w = alloc_ok(&m, NULL);
    qc_err err = {0};
    qc_design_range r;
    assert_int_equal(qc_design_stable_range(w, 0, &r, &err), 0);
    printf("  stable K_I range [%.10g, %.10g] (Jury: 2 (1 + a) / b = %.10g)\n", r.lo, r.hi,
           2 * (1 + a) / b);
    assert_int_equal(r.n, 1);
    assert_close(r.lo, 0, 0);
    assert_close(r.hi, 2 * (1 + a) / b, 1e-10 * r.hi);
    static const double K[] = {0.1, 1, 5};
    for (int i = 0; i < 3; i++) {
        qc_design_poles p;
        assert_int_equal(qc_design_poles_at(w, 0, K[i], &p, &err), 0);
        const double c = 1 + a - b * K[i], disc = c * c - 4 * a;
        printf("  K_I = %g: poles %.5f%+.5fi, %.5f%+.5fi; |p| %.5f; k_s %.3f, M_p %.4f; %s\n",
               K[i], p.re[0], p.im[0], p.re[1], p.im[1], p.max_modulus, p.settling, p.overshoot,
               p.stable ? "stable" : "unstable");
        assert_true(p.stable); /* all three lie inside (0, 6.085) */
        if (disc >= 0) {       /* K = 0.1: real poles (c +- sqrt(disc)) / 2 */
            assert_close(p.re[0], (c + sqrt(disc)) / 2, 1e-12);
            assert_close(p.re[1], (c - sqrt(disc)) / 2, 1e-12);
            assert_close(p.overshoot, 0, 0);
        } else { /* K = 1, 5: a complex pair of modulus sqrt(a) (product a) */
            assert_close(p.max_modulus, sqrt(a), 1e-12);
            assert_close(p.re[0], c / 2, 1e-12);
            assert_close(fabs(p.im[0]), sqrt(-disc) / 2, 1e-12);
        }
    }
    /* just past the edge the loop is unstable, just inside stable */
    qc_design_poles p;
    assert_int_equal(qc_design_poles_at(w, 0, r.hi * (1 + 1e-7), &p, &err), 0);
    assert_false(p.stable);
    assert_int_equal(qc_design_poles_at(w, 0, r.hi * (1 - 1e-7), &p, &err), 0);
    assert_true(p.stable);
    qc_design_free(w);
}

static void test_stable_range_first_order_family(void **state)
{
    (void)state;
    static const double cases[][2] = {{0.43, 0.47}, {0.9, 0.1}, {0, 1}, {-0.5, 2}, {0.43, -0.47}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        qc_arx_model m = arx(1, 1, 0, &cases[i][0], &cases[i][1]);
        qc_design_ws *w = alloc_ok(&m, NULL);
        qc_err err = {0};
        qc_design_range r;
        assert_int_equal(qc_design_stable_range(w, 0, &r, &err), 0);
        const double edge = 2 * (1 + cases[i][0]) / cases[i][1];
        printf("  a = %g, b = %g: [%.8g, %.8g], Jury edge %.8g\n", cases[i][0], cases[i][1], r.lo,
               r.hi, edge);
        assert_int_equal(r.n, 1);
        if (cases[i][1] > 0) {
            assert_close(r.lo, 0, 0);
            assert_close(r.hi, edge, 1e-10 * fabs(edge));
        } else {
            assert_close(r.hi, 0, 0);
            assert_close(r.lo, edge, 1e-10 * fabs(edge));
        }
        qc_design_free(w);
    }
}

/* Higher orders, delays and sensors against Schur-Cohn on the polynomial
 * rebuilt in q. */
static void test_stable_range_vs_schur(void **state)
{
    (void)state;
    const double a2[] = {1.2, -0.5}, b2[] = {0.3, 0.2};
    const double a1[] = {0.43}, b1[] = {0.47}, b3[] = {0.2, 0.3, 0.1};
    const double sa[] = {0.3}, sb[] = {0.5, 0.1}, one[] = {1}, g[] = {0.6};
    struct {
        const char *name;
        qc_arx_model p, s;
        int has_s;
    } cases[] = {
        {"second order", arx(2, 2, 0, a2, b2), {0}, 0},
        {"first order, delay 2", arx(1, 1, 2, a1, b1), {0}, 0},
        {"na=2 nb=3 delay 1", arx(2, 3, 1, a2, b3), {0}, 0},
        {"sensor ym(k) = y(k-1)", arx(1, 1, 0, a1, b1), arx(0, 1, 0, NULL, one), 1},
        {"sensor 0.3 ym + 0.5 y(k) + 0.1 y(k-1)", arx(1, 1, 0, a1, b1), arx(1, 2, -1, sa, sb), 1},
        {"static sensor 0.6 y(k)", arx(1, 1, 0, a1, b1), arx(0, 1, -1, NULL, g), 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const qc_arx_model *s = cases[i].has_s ? &cases[i].s : NULL;
        qc_design_ws *w = alloc_ok(&cases[i].p, s);
        /* the library's polynomial equals the one built here */
        double zl[40], zq[40];
        const size_t L = charpoly_q(&cases[i].p, s, 0.2, 0.7, zq);
        assert_int_equal(qc_design_order(w), L);
        qc_design_charpoly(w, 0.2, 0.7, zl);
        for (size_t j = 0; j <= L; j++)
            assert_close(zl[L - j], zq[j], 1e-14);
        qc_err err = {0};
        qc_design_range r;
        assert_int_equal(qc_design_stable_range(w, 0, &r, &err), 0);
        assert_true(r.n >= 1);
        assert_true(isfinite(r.hi));
        const double edge = schur_edge(&cases[i].p, s, r.hi * 0.5, r.hi * 2);
        printf("  %-40s stable (%.8g, %.8g); Schur-Cohn edge %.8g\n", cases[i].name, r.lo, r.hi,
               edge);
        assert_close(r.lo, 0, 0);
        assert_close(r.hi, edge, 1e-9 * edge);
        /* and the static sensor scales the edge by 1/g exactly */
        if (i == 5)
            assert_close(r.hi, 2 * (1 + 0.43) / (0.47 * 0.6), 1e-9);
        qc_design_free(w);
    }
}

/* Every reported pole is a root, the count is the order, and delays give
 * poles at 0. */
static void test_poles_are_roots(void **state)
{
    (void)state;
    const double a2[] = {1.2, -0.5}, b3[] = {0.2, 0.3, 0.1};
    qc_arx_model m = arx(2, 3, 2, a2, b3);
    qc_design_ws *w = alloc_ok(&m, NULL);
    qc_err err = {0};
    qc_design_poles p;
    /* K_P = 0: P = (z - 1) A + K_I z B has a root at 0 (A = z^3 (...)) */
    assert_int_equal(qc_design_poles_at(w, 0, 0.3, &p, &err), 0);
    const size_t n = qc_design_order(w);
    assert_int_equal(p.n, n);
    double c[QC_DESIGN_MAX_POLES + 1];
    qc_design_charpoly(w, 0, 0.3, c);
    size_t zeros = 0;
    for (size_t i = 0; i < p.n; i++) {
        double complex z = p.re[i] + p.im[i] * I, v = 0;
        for (size_t j = 0; j <= n; j++)
            v = v * z + c[j];
        assert_true(cabs(v) < 1e-10);
        zeros += p.re[i] == 0 && p.im[i] == 0;
        if (i > 0) /* sorted by decreasing modulus */
            assert_true(hypot(p.re[i], p.im[i]) <= hypot(p.re[i - 1], p.im[i - 1]) + 1e-15);
    }
    assert_true(zeros >= 1);
    qc_design_free(w);
}

static void test_target_rules(void **state)
{
    (void)state;
    qc_err err = {0};
    double re, im;
    qc_design_spec s = {20, 0.1};
    assert_int_equal(qc_design_target(&s, &re, &im, &err), 0);
    const double r = exp(-4.0 / 20);
    assert_close(hypot(re, im), r, 1e-15);
    assert_close(atan2(im, re), M_PI * log(r) / log(0.1), 1e-15);
    /* the rules read back what was asked */
    assert_close(qc_design_settling(hypot(re, im)), 20, 1e-12);
    assert_close(qc_design_overshoot(re, im), 0.1, 1e-12);
    s.overshoot = 0;
    assert_int_equal(qc_design_target(&s, &re, &im, &err), 0);
    assert_close(im, 0, 0);
    /* a pole of modulus 0.67 overshoots at most 0.67 */
    s.settling = 10;
    s.overshoot = 0.8;
    assert_int_equal(qc_design_target(&s, &re, &im, &err), QC_ERANGE);
    printf("  %s\n", err.msg);
    s.settling = 0.5;
    s.overshoot = 0;
    assert_int_equal(qc_design_target(&s, &re, &im, &err), QC_ERANGE);
    assert_true(isinf(qc_design_settling(1.0)));
    assert_close(qc_design_overshoot(-0.5, 0), 0.5, 1e-15);
}

static void test_pi_places_poles(void **state)
{
    (void)state;
    const double a2[] = {1.2, -0.5}, b2[] = {0.3, 0.2}, a1[] = {0.43}, b1[] = {0.47};
    qc_arx_model ms[] = {arx(1, 1, 0, a1, b1), arx(2, 2, 0, a2, b2), arx(1, 1, 1, a1, b1)};
    static const qc_design_spec specs[] = {{15, 0.1}, {20, 0}, {10, 0.05}};
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < 3; j++) {
            qc_design_ws *w = alloc_ok(&ms[i], NULL);
            qc_err err = {0};
            qc_design_result d;
            assert_int_equal(qc_design_pi(w, &specs[j], &d, &err), 0);
            const size_t n = qc_design_order(w);
            double c[QC_DESIGN_MAX_POLES + 1];
            qc_design_charpoly(w, d.kp, d.ki, c);
            double complex z = d.target_re + d.target_im * I, v = 0, dv = 0;
            for (size_t k = 0; k <= n; k++) {
                dv = dv * z + v;
                v = v * z + c[k];
            }
            assert_true(cabs(v) < 1e-12);
            if (specs[j].overshoot == 0) /* a double real pole */
                assert_true(cabs(dv) < 1e-12);
            qc_design_free(w);
        }
}

/* Integral control of the first-order plant: the real target is placed
 * exactly; a complex one is approached as closely as one gain can, which
 * a brute-force grid must not beat. */
static void test_integral_design(void **state)
{
    (void)state;
    const double a = 0.43, b = 0.47;
    qc_arx_model m = arx(1, 1, 0, &a, &b);
    qc_design_ws *w = alloc_ok(&m, NULL);
    qc_err err = {0};
    qc_design_result d;
    qc_design_spec s = {30, 0};
    assert_int_equal(qc_design_integral(w, &s, &d, &err), 0);
    const double r = exp(-4.0 / 30);
    /* pole at r: r^2 - (1 + a - b K) r + a = 0 */
    assert_close(d.ki, (1 + a - r - a / r) / b, 1e-12);
    assert_true(d.exact && d.dominant);
    s.overshoot = 0.1;
    assert_int_equal(qc_design_integral(w, &s, &d, &err), 0);
    const double dist = hypot(d.poles.dom_re - d.target_re, d.poles.dom_im - d.target_im);
    double best = INFINITY;
    for (int i = 1; i < 60000; i++) {
        qc_design_poles p;
        assert_int_equal(qc_design_poles_at(w, 0, 6.0851 * i / 60000.0, &p, &err), 0);
        const double dd = hypot(p.dom_re - d.target_re, p.dom_im - d.target_im);
        if (p.stable && dd < best)
            best = dd;
    }
    printf("  integral, k_s = 30, M_p = 0.1: K_I = %.6g, dominant %.5f%+.5fi, distance %.6g "
           "(grid best %.6g)\n",
           d.ki, d.poles.dom_re, d.poles.dom_im, dist, best);
    assert_true(dist <= best + 1e-9);
    assert_false(d.exact);
    qc_design_free(w);
}

/* The prediction rules against the loop simulated here. */
typedef struct rule_case {
    const char *plant;
    qc_arx_model p, s;
    int has_s;
} rule_case;

typedef struct tally {
    int exact;   /* responses checked against the characteristic recurrence */
    int real;    /* real dominant pole: settling within 10% asserted */
    int pair;    /* complex pair: overshoot and settling bracket asserted */
    int skipped; /* premises broken: printed only */
} tally;

/* Which rule applies: 1 real dominant pole, 2 complex pair, 0 none (why
 * says which premise fails). The rules describe a second-order response
 * without zeros, hence:
 *  - the dominant pole (pair) has a positive real part (a negative real
 *    part alternates sample to sample, with no continuous analogue);
 *  - a real dominant pole is well separated: the other poles have at
 *    most 0.65 of its modulus, so the dominant mode's amplitude stays
 *    near 1 (at 0.73, in the first-order loop, it is 1.6 and adds two
 *    samples to k_s = 15);
 *  - a complex pair is underdamped, zeta = -ln r / sqrt(ln^2 r +
 *    theta^2) <= 0.7 (nearer critical damping the overshoot falls into
 *    the 2% band, and a tiny angle is a near-double real pole), and the
 *    other poles have at most 0.8 of its modulus;
 *  - the PI zero K_P / (K_P + K_I) lies within half the dominant modulus
 *    of the origin. */
static int premises(const qc_design_poles *p, double kp, double ki, char *why, size_t size)
{
    if (!p->stable)
        return snprintf(why, size, "unstable"), 0;
    if (p->dom_re <= 0)
        return snprintf(why, size, "dominant pole has Re <= 0"), 0;
    const double r = p->max_modulus, theta = atan2(p->dom_im, p->dom_re);
    const int pair = p->dom_im > 0;
    if (pair && -log(r) / hypot(log(r), theta) > 0.7)
        return snprintf(why, size, "damping ratio %.2f > 0.7", -log(r) / hypot(log(r), theta)),
               0;
    const double sep = pair ? 0.8 : 0.65;
    for (size_t i = pair ? 2 : 1; i < p->n; i++)
        if (hypot(p->re[i], p->im[i]) > sep * r)
            return snprintf(why, size, "pole %zu at %.2f of the dominant modulus", i + 1,
                            hypot(p->re[i], p->im[i]) / r),
                   0;
    if (kp != 0 && fabs(kp / (kp + ki)) > 0.5 * r)
        return snprintf(why, size, "controller zero %.3g, over half the dominant modulus",
                        kp / (kp + ki)),
               0;
    return pair ? 2 : 1;
}

static void check_rule(const rule_case *c, qc_design_ws *w, const char *what, double kp,
                       double ki, const qc_design_poles *p, tally *t)
{
    enum { N = 3000 };
    static double ym[N];
    const qc_arx_model *s = c->has_s ? &c->s : NULL;
    closed_loop(&c->p, s, kp, ki, N, ym);
    /* Exact: every loop signal obeys P(q) x(k) = 0 once the step's
     * transient has passed, with x = ym - 1, P the characteristic
     * polynomial whose roots are the predicted poles. */
    if (p->stable) {
        const size_t L = qc_design_order(w);
        double cp[QC_DESIGN_MAX_POLES + 1];
        qc_design_charpoly(w, kp, ki, cp);
        for (size_t k = 2 * L + 2; k < 300; k++) {
            double v = 0;
            for (size_t i = 0; i <= L; i++)
                v += cp[i] * (ym[k - i] - 1);
            if (!(fabs(v) <= 1e-12))
                fail_msg("%s %s: the response does not follow P(q): residual %g at k = %zu",
                         c->plant, what, v, k);
        }
        t->exact++;
    }
    double ks, mp;
    measure(ym, N, &ks, &mp);
    char why[96] = "";
    const int rule = premises(p, kp, ki, why, sizeof why);
    printf("    %-22s K_P %8.4f K_I %8.4f | k_s pred %7.3f meas %4.0f | M_p pred %.4f meas %.4f"
           "%s%s%s\n",
           what, kp, ki, p->settling, ks, p->overshoot, mp, rule ? "" : "  (rules not asserted: ",
           why, rule ? "" : ")");
    if (rule == 0) {
        t->skipped++;
        return;
    }
    if (!(fabs(mp - p->overshoot) <= 0.02))
        fail_msg("%s %s: overshoot measured %g, predicted %g", c->plant, what, mp, p->overshoot);
    if (rule == 1) {
        t->real++;
        if (!(fabs(ks - p->settling) <= 0.10 * p->settling))
            fail_msg("%s %s: settling measured %g, predicted %g (more than 10%% apart)",
                     c->plant, what, ks, p->settling);
    } else {
        /* The error of an underdamped second-order step response is
         * A r^k cos(theta k + phi) with A = 1 / sqrt(1 - zeta^2): it stays
         * within the band from k_s + ln A / -ln r = k_s (1 + ln(A) / 4) at
         * the latest, and leaves it for the last time at a peak at most
         * half a period (pi / theta) before the envelope r^k enters it.
         * One sample more either way for sampling. */
        t->pair++;
        const double r = p->max_modulus, theta = atan2(p->dom_im, p->dom_re);
        const double zeta = -log(r) / hypot(log(r), theta);
        const double hi = p->settling * (1 + log(1 / sqrt(1 - zeta * zeta)) / 4) + 1;
        const double lo = p->settling - M_PI / theta - 1;
        if (!(ks <= hi && ks >= lo))
            fail_msg("%s %s: settling measured %g outside [%g, %g] around predicted %g",
                     c->plant, what, ks, lo, hi, p->settling);
    }
}

static void test_step_response_matches_poles(void **state)
{
    (void)state;
    const double a1[] = {0.43}, b1[] = {0.47}, a2[] = {1.2, -0.5}, b2[] = {0.3, 0.2};
    const double a3[] = {0.8}, b3[] = {0.5}, one[] = {1};
    rule_case cases[] = {
        {"a=0.43 b=0.47", arx(1, 1, 0, a1, b1), {0}, 0},
        {"a=0.8 b=0.5", arx(1, 1, 0, a3, b3), {0}, 0},
        {"second order", arx(2, 2, 0, a2, b2), {0}, 0},
        {"a=0.43 b=0.47, sensor y(k-1)", arx(1, 1, 0, a1, b1), arx(0, 1, 0, NULL, one), 1},
    };
    static const double ks[] = {10, 15, 20, 30, 40, 60};
    static const double mp[] = {0, 0.02, 0.05, 0.1, 0.2};
    tally t = {0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const rule_case *c = &cases[i];
        qc_design_ws *w = alloc_ok(&c->p, c->has_s ? &c->s : NULL);
        printf("  %s\n", c->plant);
        /* the root-locus gains of the book for the MaxUsers plant */
        if (i == 0) {
            static const double K[] = {0.1, 1, 5};
            for (int g = 0; g < 3; g++) {
                qc_design_poles p;
                qc_err err = {0};
                assert_int_equal(qc_design_poles_at(w, 0, K[g], &p, &err), 0);
                char what[64];
                snprintf(what, sizeof what, "I  K_I=%g", K[g]);
                check_rule(c, w, what, 0, K[g], &p, &t);
            }
        }
        for (size_t j = 0; j < sizeof ks / sizeof *ks; j++)
            for (size_t k = 0; k < sizeof mp / sizeof *mp; k++) {
                qc_design_spec sp = {ks[j], mp[k]};
                qc_err err = {0};
                double re, im;
                if (qc_design_target(&sp, &re, &im, &err) != 0)
                    continue;
                char what[64];
                qc_design_result d;
                if (qc_design_integral(w, &sp, &d, &err) == 0) {
                    snprintf(what, sizeof what, "I  k_s=%g M_p=%g", ks[j], mp[k]);
                    check_rule(c, w, what, 0, d.ki, &d.poles, &t);
                }
                if (qc_design_pi(w, &sp, &d, &err) == 0) {
                    snprintf(what, sizeof what, "PI k_s=%g M_p=%g", ks[j], mp[k]);
                    check_rule(c, w, what, d.kp, d.ki, &d.poles, &t);
                }
            }
        qc_design_free(w);
    }
    printf("  %d responses follow their characteristic polynomial exactly; rules asserted on "
           "%d real-pole and %d complex-pair designs; %d designs outside the rules' premises\n",
           t.exact, t.real, t.pair, t.skipped);
    assert_true(t.real >= 20);
    assert_true(t.pair >= 20);
}

/* The library's step simulation equals the recursion here. */
static void test_library_step_response(void **state)
{
    (void)state;
    enum { N = 200 };
    const double a1[] = {0.43}, b1[] = {0.47}, sa[] = {0.3}, sb[] = {0.5, 0.1};
    qc_arx_model p = arx(1, 1, 1, a1, b1), s = arx(1, 2, -1, sa, sb);
    p.u0 = 375; /* operating points do not matter: offsets */
    p.y0 = 325;
    double mine[N], lib[N], y[N], u[N];
    closed_loop(&p, &s, 0.2, 0.4, N, mine);
    qc_design_step_response(&p, &s, 0.2, 0.4, N, y, lib, u);
    for (size_t k = 0; k < N; k++)
        assert_close(lib[k], mine[k], 1e-12);
    double ks, mp, ks2, mp2;
    measure(mine, N, &ks, &mp);
    qc_design_step_metrics(lib, N, 0, 1, &ks2, &mp2);
    assert_close(ks2, ks, 0);
    assert_close(mp2, mp, 1e-15);
}

/* The saturation-aware prediction: with limits that never bind it is the
 * linear loop's step response (qc_design_step_response, scaled), and its
 * settling and overshoot are the 5-sample moving-average metrics computed
 * here from that response; limits and the fall rate only slow it. */
static void ma_metrics(const double *x, size_t n, double y0, double r, double band, double *ks,
                       double *mp)
{
    size_t last_out = 0;
    int out = 0;
    double worst = 0, step = r - y0;
    for (size_t k = 0; k < n; k++) {
        size_t lo = k >= 4 ? k - 4 : 0;
        double avg = 0;
        for (size_t j = lo; j <= k; j++)
            avg += x[j];
        avg /= (double)(k - lo + 1);
        double beyond = step >= 0 ? avg - r : r - avg;
        if (beyond > worst)
            worst = beyond;
        if (fabs(avg - r) > band * fabs(r)) {
            last_out = k;
            out = 1;
        }
    }
    *ks = !out ? 1 : last_out + 5 < n ? (double)last_out + 2 : NAN;
    *mp = 100 * worst / fabs(step);
}

static void test_predict(void **state)
{
    (void)state;
    enum { N = 150 };
    const double a1[] = {0.66}, b1[] = {0.34};
    qc_arx_model p = arx(1, 1, 0, a1, b1);
    p.u0 = 375;
    p.y0 = 325;
    qc_design_ws *w = alloc_ok(&p, NULL);
    qc_err err = {0};
    const double kis[] = {0.1, 1, 3};
    for (size_t i = 0; i < 3; i++) {
        double y[N + 1];
        qc_design_step_response(&p, NULL, 0, kis[i], N + 1, y, NULL, NULL);
        double x[N];
        for (size_t k = 0; k < N; k++) /* run sample k is y(k+1) */
            x[k] = 325 + (250 - 325) * y[k + 1];
        double ks, mp;
        ma_metrics(x, N, 325, 250, 0.1, &ks, &mp);
        qc_design_predict_params pp = {.kp = 0, .ki = kis[i], .u_min = -1e9, .u_max = 1e9,
                                       .antiwindup = QC_AW_NONE, .y_start = 325, .r = 250,
                                       .band = 0.1, .horizon = N};
        qc_design_prediction q;
        assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), 0);
        printf("  K_I = %g: settling %g (independent %g), overshoot %.3f%% (%.3f%%)\n", kis[i],
               q.settling, ks, q.overshoot, mp);
        assert_true(q.stable);
        assert_close(q.u_start, 375, 1e-9);
        assert_close(q.settling, ks, 0);
        assert_close(q.overshoot, mp, 1e-9);
        assert_close(q.y_end, x[N - 1], 1e-9);
        assert_close(q.frac_saturated, 0, 0);
        /* MaxUsers cannot fall faster than 5% a sample: later, and
         * beyond some gain the actuator sits at its limit */
        pp.u_min = 0;
        pp.u_max = 1000;
        pp.fall = 0.05;
        qc_design_prediction f;
        assert_int_equal(qc_design_predict(w, &p, &pp, &f, &err), 0);
        assert_true(!f.settled || f.settling >= q.settling);
    }
    qc_design_predict_params pp = {.kp = 0, .ki = 5, .u_min = 0, .u_max = 1000,
                                   .antiwindup = QC_AW_NONE, .y_start = 325, .r = 250,
                                   .band = 0.1, .horizon = N, .fall = 0.05};
    qc_design_prediction q;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), 0);
    assert_true(q.stable);         /* in the linear model */
    assert_true(q.frac_saturated > 0.5); /* but a limit cycle on the limits */
    assert_false(q.settled);
    pp.horizon = 5;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), QC_EINVAL);
    pp.horizon = N;
    pp.fall = 1;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), QC_EINVAL);
    qc_design_free(w);
}

/* The defaults predict: a step from 0 to 1 on y(k) = 0.3 y(k-1) +
 * 0.7 u(k-1) (DC gain 1) under integral control with ki 0.1 settles (the
 * loop's pole 1 - 0.07 is inside the unit circle, 1 + 0.3 - 0.07 ...: the
 * linear loop is stable), with no saturation on limits of +-1e9; a
 * horizon below 10 is refused, so the default is the one the check
 * takes. */
static void test_predict_params_init(void **state)
{
    (void)state;
    const double a1[] = {0.3}, b1[] = {0.7};
    qc_arx_model p = arx(1, 1, 0, a1, b1);
    qc_design_ws *w = alloc_ok(&p, NULL);
    qc_design_predict_params pp;
    memset(&pp, 0xff, sizeof pp);
    qc_design_predict_params_init(&pp);
    assert_true(pp.kp == 0 && pp.ki == 0.1 && pp.r == 1 && pp.y_start == 0 && pp.band == 0.1);
    assert_int_equal(pp.horizon, 200);
    assert_null(pp.sensor);
    qc_design_prediction q;
    qc_err err = {0};
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), 0);
    assert_true(q.stable);
    assert_true(q.settled);
    assert_true(q.frac_saturated == 0);
    assert_true(fabs(q.y_end - 1) < 0.01);
    pp.horizon = 9;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), QC_EINVAL);
    qc_design_free(w);
}

/* The loop closed on a sensor: a static affine sensor ym = 100 + 0.5 y,
 * given r_m = 100 + 0.5 r, with K_I = 2 is the plant loop with K_I = 1
 * exactly (e_m = 0.5 (r - y)), limits and fall rate included; a sensor
 * capped below r_m can never read it, and the loop never settles. */
static void test_predict_sensor(void **state)
{
    (void)state;
    enum { N = 150 };
    const double a1[] = {0.3}, b1[] = {0.7}, bs[] = {0.5};
    qc_arx_model p = arx(1, 1, 0, a1, b1);
    p.u0 = 375;
    p.y0 = 325;
    qc_arx_model sen = arx(0, 1, -1, NULL, bs);
    sen.u0 = 325;
    sen.y0 = 100 + 0.5 * 325;
    qc_design_ws *w = alloc_ok(&p, NULL), *ws = alloc_ok(&p, &sen);
    qc_err err = {0};
    qc_design_predict_params pp = {.kp = 0, .ki = 1, .u_min = 0, .u_max = 1000,
                                   .antiwindup = QC_AW_NONE, .y_start = 325, .r = 250,
                                   .band = 0.1, .horizon = N, .fall = 0.05};
    qc_design_prediction q, qs;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), 0);
    qc_design_predict_params sp = pp;
    sp.ki = 2;
    sp.sensor = &sen;
    sp.r_m = 100 + 0.5 * 250;
    assert_int_equal(qc_design_predict(ws, &p, &sp, &qs, &err), 0);
    printf("  plant loop K_I 1: settling %g, overshoot %.3f%%; through the sensor K_I 2: %g, "
           "%.3f%%\n",
           q.settling, q.overshoot, qs.settling, qs.overshoot);
    assert_true(q.settled && qs.settled);
    assert_close(qs.settling, q.settling, 0);
    assert_close(qs.overshoot, q.overshoot, 1e-9);
    assert_close(qs.y_end, q.y_end, 1e-9);
    assert_int_equal(qs.stable, q.stable);
    sp.sensor_max = 200; /* below r_m = 225 */
    assert_int_equal(qc_design_predict(ws, &p, &sp, &qs, &err), 0);
    assert_false(qs.settled);
    assert_true(qs.frac_saturated > 0.5);
    sp.r_m = NAN;
    assert_int_equal(qc_design_predict(ws, &p, &sp, &qs, &err), QC_EINVAL);

    /* Noise realisations: with zero noise they repeat the noiseless run;
     * at K_I = 0.1 the noiseless loop does not overshoot, and with noise
     * of sd 5 on a step of 75 the 5-sample average's largest excursion
     * beyond the reference over 150 samples is positive in every
     * realisation; the same seed gives the same figures. */
    pp.ki = 0.1;
    assert_int_equal(qc_design_predict(w, &p, &pp, &q, &err), 0);
    assert_close(q.overshoot, 0, 0);
    assert_int_equal(q.reps, 1);
    pp.reps = 10;
    pp.seed = 3;
    qc_design_prediction z;
    assert_int_equal(qc_design_predict(w, &p, &pp, &z, &err), 0);
    assert_int_equal(z.reps, 10);
    assert_close(z.overshoot, q.overshoot, 1e-12);
    assert_close(z.settling, q.settling, 1e-12);
    pp.noise_sd = 5;
    qc_design_prediction n1, n2;
    assert_int_equal(qc_design_predict(w, &p, &pp, &n1, &err), 0);
    assert_int_equal(qc_design_predict(w, &p, &pp, &n2, &err), 0);
    printf("  K_I 0.1 with noise sd 5: overshoot %.2f%% (noiseless 0), settled %u of %u\n",
           n1.overshoot, n1.reps_settled, n1.reps);
    assert_true(n1.overshoot > 0);
    assert_close(n2.overshoot, n1.overshoot, 0);
    pp.noise_sd = -1;
    assert_int_equal(qc_design_predict(w, &p, &pp, &n1, &err), QC_EINVAL);
    qc_design_free(w);
    qc_design_free(ws);
}

static void test_bad_models(void **state)
{
    (void)state;
    qc_err err = {0};
    const double a[] = {0.43}, b[] = {0.47}, bz[] = {1, -1};
    qc_arx_model m = arx(1, 1, -1, a, b);
    assert_null(qc_design_alloc(&m, NULL, &err));
    assert_int_equal(err.code, QC_EINVAL);
    printf("  %s\n", err.msg);
    m = arx(1, 2, 0, a, bz); /* B(1) = 0: no static gain to integrate */
    assert_null(qc_design_alloc(&m, NULL, &err));
    assert_int_equal(err.code, QC_EINVAL);
    printf("  %s\n", err.msg);
    /* an unstable plant that integral control cannot stabilize:
     * y(k+1) = 1.5 y(k) + u(k) */
    const double au[] = {1.5}, bu[] = {1};
    m = arx(1, 1, 0, au, bu);
    qc_design_ws *w = alloc_ok(&m, NULL);
    qc_design_range r;
    assert_int_equal(qc_design_stable_range(w, 0, &r, &err), 0);
    assert_int_equal(r.n, 0);
    qc_design_result d;
    qc_design_spec s = {20, 0};
    assert_int_equal(qc_design_integral(w, &s, &d, &err), QC_EUNSTABLE);
    qc_design_poles p;
    assert_int_equal(qc_design_poles_at(w, 0, NAN, &p, &err), QC_ERANGE);
    qc_design_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_charpoly_first_order),
        cmocka_unit_test(test_gains_0_1_5),
        cmocka_unit_test(test_stable_range_first_order_family),
        cmocka_unit_test(test_stable_range_vs_schur),
        cmocka_unit_test(test_poles_are_roots),
        cmocka_unit_test(test_target_rules),
        cmocka_unit_test(test_pi_places_poles),
        cmocka_unit_test(test_integral_design),
        cmocka_unit_test(test_step_response_matches_poles),
        cmocka_unit_test(test_library_step_response),
        cmocka_unit_test(test_predict),
        cmocka_unit_test(test_predict_params_init),
        cmocka_unit_test(test_predict_sensor),
        cmocka_unit_test(test_bad_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
