/* SPDX-License-Identifier: GPL-3.0-or-later */
/* design_run.c: the work of `qctl design` (app/design_run.h): integral and
 * PI controller design from an ARX model JSON: the stable range of K_I,
 * pole placement for a wanted settling time and overshoot, and a
 * root-locus table, for the loop on the plant output and, when the model
 * has a sensor block, for the loop that measures through the sensor. Each
 * prediction from the pole rules is shown beside a simulated step of the
 * model loop, so a user sees where the rules hold. The summary is built
 * once, at the end of the run, and every output reads it or the run. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/design_run.h"
#include "app/plot.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/controller.h"
#include "qctl/design.h"
#include "qctl/output.h"

#define MAX_GAINS QC_APP_DESIGN_MAX_GAINS

typedef qc_app_design_params opts;

/* One loop: the plant alone, or the plant measured through the sensor. */
typedef struct loop {
    const char *name;
    const qc_arx_model *plant, *sensor;
    qc_design_ws *w;
    qc_design_range range;
    int have_i, have_pi;
    qc_design_result di, dpi;
    double gains[MAX_GAINS];
    size_t ngains;
    qc_design_poles rows[MAX_GAINS];
} loop;

/* Simulated step of the model loop: settling and overshoot of what the
 * controller measures. NaN when the loop is unstable. */
static void simulate(const loop *L, double kp, double ki, const qc_design_poles *p,
                     unsigned steps, double *ks, double *mp)
{
    *ks = *mp = NAN;
    if (!p->stable)
        return;
    size_t n = steps;
    if (n == 0) {
        double guess = 20 * (isfinite(p->settling) ? p->settling : 100);
        n = guess < 200 ? 200 : guess > 100000 ? 100000 : (size_t)guess;
    }
    double *ym = malloc(n * sizeof *ym);
    if (ym == NULL)
        return;
    qc_design_step_response(L->plant, L->sensor, kp, ki, n, NULL, ym, NULL);
    qc_design_step_metrics(ym, n, 0, 1, ks, mp);
    free(ym);
}

static json_t *poles_json(const qc_design_poles *p)
{
    json_t *a = json_array();
    for (size_t i = 0; i < p->n; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "re", qc_json_real_new(p->re[i]));
        json_object_set_new(e, "im", qc_json_real_new(p->im[i]));
        json_object_set_new(e, "modulus", qc_json_real_new(hypot(p->re[i], p->im[i])));
        json_array_append_new(a, e);
    }
    return a;
}

static json_t *response_json(const loop *L, const qc_design_poles *p, unsigned steps, double dt)
{
    json_t *o = json_object();
    json_object_set_new(o, "poles", poles_json(p));
    json_object_set_new(o, "max_modulus", qc_json_real_new(p->max_modulus));
    json_object_set_new(o, "stable", json_boolean(p->stable));
    json_t *pred = json_object();
    json_object_set_new(pred, "settling_samples", qc_json_real_new(p->settling));
    if (dt > 0)
        json_object_set_new(pred, "settling_seconds", qc_json_real_new(p->settling * dt));
    json_object_set_new(pred, "overshoot", qc_json_real_new(p->overshoot));
    json_object_set_new(o, "predicted", pred);
    double ks, mp;
    simulate(L, p->kp, p->ki, p, steps, &ks, &mp);
    json_t *sim = json_object();
    json_object_set_new(sim, "settling_samples", qc_json_real_new(ks));
    json_object_set_new(sim, "overshoot", qc_json_real_new(mp));
    json_object_set_new(o, "simulated", sim);
    return o;
}

static json_t *design_json(const loop *L, const qc_design_result *d, unsigned steps, double dt)
{
    json_t *o = json_object();
    json_object_set_new(o, "k_i", qc_json_real_new(d->ki));
    json_object_set_new(o, "k_p", qc_json_real_new(d->kp));
    json_object_set_new(o, "exact", json_boolean(d->exact));
    json_object_set_new(o, "target_dominant", json_boolean(d->dominant));
    /* PI: C(z) = ((K_P + K_I) z - K_P) / (z - 1) has its zero at K_P / (K_P + K_I) */
    json_object_set_new(o, "controller_zero",
                        d->kp != 0 ? qc_json_real_new(d->kp / (d->kp + d->ki)) : json_null());
    json_t *r = response_json(L, &d->poles, steps, dt);
    json_object_update(o, r);
    json_decref(r);
    return o;
}

static json_t *poly_json(const double *c, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, qc_json_real_new(c[i]));
    return a;
}

static json_t *loop_json(const loop *L, const opts *o, double dt)
{
    json_t *j = json_object();
    const size_t n = qc_design_order(L->w);
    double p0[QC_DESIGN_MAX_POLES + 1], pki[QC_DESIGN_MAX_POLES + 1], pkp[QC_DESIGN_MAX_POLES + 1];
    qc_design_charpoly_parts(L->w, p0, pki, pkp);
    json_object_set_new(j, "name", json_string(L->name));
    json_object_set_new(j, "includes_sensor", json_boolean(L->sensor != NULL));
    json_object_set_new(j, "order", json_integer((json_int_t)n));
    json_object_set_new(j, "loop_dc_gain", qc_json_real_new(qc_design_loop_gain(L->w)));
    json_t *cp = json_object();
    json_object_set_new(cp, "form", json_string("P(z) = P0(z) + K_I PKI(z) + K_P PKP(z), "
                                                "coefficients in descending powers of z"));
    json_object_set_new(cp, "p0", poly_json(p0, n + 1));
    json_object_set_new(cp, "pki", poly_json(pki, n + 1));
    json_object_set_new(cp, "pkp", poly_json(pkp, n + 1));
    json_object_set_new(j, "characteristic_polynomial", cp);
    json_t *sr = json_object();
    json_object_set_new(sr, "k_p", json_real(o->kp));
    json_object_set_new(sr, "lo", qc_json_real_new(L->range.lo));
    json_object_set_new(sr, "hi", qc_json_real_new(L->range.hi));
    json_t *iv = json_array();
    for (size_t i = 0; i < L->range.n; i++) {
        json_t *pair = json_array();
        json_array_append_new(pair, qc_json_real_new(L->range.ilo[i]));
        json_array_append_new(pair, qc_json_real_new(L->range.ihi[i]));
        json_array_append_new(iv, pair);
    }
    json_object_set_new(sr, "intervals", iv);
    json_object_set_new(sr, "scan_abs_min", qc_json_real_new(L->range.scan_lo));
    json_object_set_new(sr, "scan_abs_max", qc_json_real_new(L->range.scan_hi));
    json_object_set_new(j, "stable_range", sr);
    if (L->have_i)
        json_object_set_new(j, "integral", design_json(L, &L->di, o->steps, dt));
    if (L->have_pi)
        json_object_set_new(j, "pi", design_json(L, &L->dpi, o->steps, dt));
    json_t *rl = json_array();
    for (size_t i = 0; i < L->ngains; i++) {
        json_t *row = json_object();
        json_object_set_new(row, "k_i", qc_json_real_new(L->rows[i].ki));
        json_object_set_new(row, "k_p", qc_json_real_new(L->rows[i].kp));
        json_t *r = response_json(L, &L->rows[i], o->steps, dt);
        json_object_update(row, r);
        json_decref(r);
        json_array_append_new(rl, row);
    }
    json_object_set_new(j, "root_locus", rl);
    return j;
}

/* "0.48+0.4468i" style, with conjugate pairs printed once as "±". */
static void print_poles(FILE *fp, const qc_design_poles *p)
{
    /* A double root comes back from the solver as a pair split by about
     * 1e-8: shown as the two real poles it is. */
    for (size_t i = 0; i < p->n; i++) {
        const double im = fabs(p->im[i]) < 1e-6 * fmax(1e-3, fabs(p->re[i])) ? 0 : p->im[i];
        if (i > 0 && im != 0 && p->im[i] == -p->im[i - 1] && p->re[i] == p->re[i - 1])
            continue;
        if (im != 0)
            fprintf(fp, "%s%.4g±%.4gi", i ? ", " : "", p->re[i], fabs(im));
        else
            fprintf(fp, "%s%.4g", i ? ", " : "", p->re[i]);
    }
}

static void print_charpoly(const loop *L)
{
    const size_t n = qc_design_order(L->w);
    double p0[QC_DESIGN_MAX_POLES + 1], pki[QC_DESIGN_MAX_POLES + 1], pkp[QC_DESIGN_MAX_POLES + 1];
    qc_design_charpoly_parts(L->w, p0, pki, pkp);
    printf("  characteristic polynomial: ");
    int first = 1;
    for (size_t i = 0; i <= n; i++) {
        const size_t pw = n - i;
        if (p0[i] == 0 && pki[i] == 0 && pkp[i] == 0)
            continue;
        printf("%s", first ? "" : " + ");
        first = 0;
        int parts = (p0[i] != 0) + (pki[i] != 0) + (pkp[i] != 0);
        if (parts > 1 || pw == 0)
            printf("(");
        int pf = 1; /* nothing of this term printed yet */
        if (p0[i] != 0 && !(parts == 1 && p0[i] == 1 && pw > 0)) {
            printf("%.6g", p0[i]);
            pf = 0;
        }
        if (pki[i] != 0) {
            printf("%s%.6g K_I", pf ? "" : (pki[i] < 0 ? " - " : " + "), pf ? pki[i] : fabs(pki[i]));
            pf = 0;
        }
        if (pkp[i] != 0)
            printf("%s%.6g K_P", pf ? "" : (pkp[i] < 0 ? " - " : " + "), pf ? pkp[i] : fabs(pkp[i]));
        if (parts > 1 || pw == 0)
            printf(")");
        if (pw >= 1)
            printf(pw == 1 ? "%sz" : "%sz^%zu", pf && parts == 1 ? "" : " ", pw);
    }
    printf("\n");
}

/* A number in a table column, or a word when there is none. */
static const char *num_or(char *buf, size_t n, double v, const char *none)
{
    if (isfinite(v))
        snprintf(buf, n, "%.4g", v);
    else
        snprintf(buf, n, "%s", none);
    return buf;
}

static void print_design(const loop *L, const char *what, const qc_design_result *d,
                         const opts *o, double dt)
{
    double ks, mp;
    simulate(L, d->kp, d->ki, &d->poles, o->steps, &ks, &mp);
    printf("  %s: K_I = %.6g", what, d->ki);
    if (d->kp != 0 || strcmp(what, "PI") == 0)
        printf(", K_P = %.6g", d->kp);
    printf("  (%s)\n", d->exact ? (d->dominant ? "target placed, dominant"
                                              : "target placed, but another pole is slower")
                               : "closest dominant pole one gain can reach");
    printf("    poles: ");
    print_poles(stdout, &d->poles);
    printf("%s\n", d->poles.stable ? "" : "  UNSTABLE");
    if (d->kp != 0) {
        const double zc = d->kp / (d->kp + d->ki);
        printf("    controller zero at z = %.4g%s\n", zc,
               fabs(zc) > 1 ? ": outside the unit circle, expect an inverse response" : "");
    }
    char b1[32], b2[32], b3[32];
    printf("    predicted: settling %s samples", num_or(b1, sizeof b1, d->poles.settling, "never"));
    if (dt > 0 && isfinite(d->poles.settling))
        printf(" (%.4g s)", d->poles.settling * dt);
    printf(", overshoot %s;  simulated step: settling %s, overshoot %s\n",
           num_or(b1, sizeof b1, d->poles.overshoot, "none (unstable)"),
           num_or(b2, sizeof b2, ks, "never"), num_or(b3, sizeof b3, mp, "-"));
    if (d->poles.stable && (fabs(ks - d->poles.settling) > 0.2 * d->poles.settling ||
                            fabs(mp - d->poles.overshoot) > 0.05))
        printf("    note: the pole rules and the simulated step differ: poles close together,\n"
               "    a negative real part or a zero near the poles make the rules approximate\n");
}

static void print_loop(const loop *L, const opts *o, double dt)
{
    printf("\n%s (%zu closed-loop poles, loop DC gain %.6g):\n", L->name, qc_design_order(L->w),
           qc_design_loop_gain(L->w));
    print_charpoly(L);
    if (L->range.n == 0)
        printf("  no K_I in the scanned range keeps the loop stable (K_P = %g)\n", o->kp);
    else {
        printf("  stable for %.6g < K_I < %.6g (K_P = %g)", L->range.lo, L->range.hi, o->kp);
        if (L->range.n > 1)
            printf(", and %zu more interval%s", L->range.n - 1, L->range.n > 2 ? "s" : "");
        printf("\n");
    }
    if (L->have_i)
        print_design(L, "integral", &L->di, o, dt);
    if (L->have_pi)
        print_design(L, "PI", &L->dpi, o, dt);
    if (L->ngains == 0)
        return;
    printf("  root locus (K_P = %g):\n", o->kp);
    printf("    %10s  %8s  %6s  %10s %10s  %10s %10s   %s\n", "K_I", "max|p|", "stable",
           "pred. k_s", "pred. M_p", "sim. k_s", "sim. M_p", "poles");
    for (size_t i = 0; i < L->ngains; i++) {
        const qc_design_poles *p = &L->rows[i];
        double ks, mp;
        simulate(L, p->kp, p->ki, p, o->steps, &ks, &mp);
        char b1[32], b2[32], b3[32], b4[32];
        printf("    %10.4g  %8.5f  %6s  %10s %10s  %10s %10s   ", p->ki, p->max_modulus,
               p->stable ? "yes" : "no", num_or(b1, sizeof b1, p->settling, "never"),
               num_or(b2, sizeof b2, p->overshoot, "-"), num_or(b3, sizeof b3, ks, "never"),
               num_or(b4, sizeof b4, mp, "-"));
        print_poles(stdout, p);
        printf("\n");
    }
}


/* The run: the model, both loops, the predictions and the summary built
 * from them; the page reads the same through page_in. */
struct qc_app_design {
    opts o;
    qc_arx_system sys;
    loop loops[2];
    size_t nl;
    double dt, ref_m;
    int use_curve, have_pred_s;
    double pk[MAX_GAINS];
    size_t npred;
    qc_design_prediction pred[MAX_GAINS], pred_s[MAX_GAINS];
    qc_design_predict_params pp;
    json_t *doc;
    char notices[1024];
};

static void notice(qc_app_design *d, const char *loop_name, const char *law, const char *msg)
{
    size_t len = strlen(d->notices);
    if (!d->o.quiet)
        snprintf(d->notices + len, sizeof d->notices - len, "%s: %s design: %s\n", loop_name,
                 law, msg);
}

static double round3(double x)
{
    if (x == 0 || !isfinite(x))
        return x;
    const double e = pow(10, floor(log10(fabs(x))) - 2);
    return round(x / e) * e;
}

/* A loop's failure, "MODEL: LOOP: message", with the library's code. */
static int loop_error(const opts *o, const loop *L, int rc, qc_err *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return qc_err_set(err, rc, "%s: %s: %s", o->model, L->name, msg);
}

static int run_loop(qc_app_design *d, loop *L, qc_err *err)
{
    const opts *o = &d->o;
    L->w = qc_design_alloc(L->plant, L->sensor, err);
    if (L->w == NULL)
        return loop_error(o, L, err->code, err);
    int rc = qc_design_stable_range(L->w, o->kp, &L->range, err);
    if (rc == 0 && o->have_spec && o->law_i) {
        rc = qc_design_integral(L->w, &o->spec, &L->di, err);
        L->have_i = rc == 0;
        if (rc == QC_EUNSTABLE) { /* the result says it too: no integral design */
            notice(d, L->name, "integral", err->msg);
            rc = 0;
        }
    }
    if (rc == 0 && o->have_spec && o->law_pi) {
        rc = qc_design_pi(L->w, &o->spec, &L->dpi, err);
        L->have_pi = rc == 0;
        if (rc == QC_ERANGE) {
            notice(d, L->name, "PI", err->msg);
            rc = 0;
        }
    }
    if (rc != 0)
        return loop_error(o, L, rc, err);
    if (o->ngains) {
        L->ngains = o->ngains;
        memcpy(L->gains, o->gains, o->ngains * sizeof *o->gains);
    } else {
        /* Fractions of the stable range, and one gain past it. */
        static const double frac[] = {0.01, 0.05, 0.2, 0.5, 0.9, 1.1};
        const double g = qc_design_loop_gain(L->w);
        const double top = L->range.n && isfinite(L->range.hi) && L->range.hi > 0 ? L->range.hi
                           : L->range.n && isfinite(L->range.lo) && L->range.lo < 0
                               ? L->range.lo
                               : 10 / g;
        L->ngains = sizeof frac / sizeof *frac;
        for (size_t i = 0; i < L->ngains; i++)
            L->gains[i] = round3(frac[i] * top);
    }
    for (size_t i = 0; i < L->ngains; i++)
        if ((rc = qc_design_poles_at(L->w, o->kp, L->gains[i], &L->rows[i], err)) != 0)
            return loop_error(o, L, rc, err);
    return 0;
}

/* Root locus: every pole for a log grid of gains, the open-loop poles,
 * and the table's gains, on the complex plane with the unit circle. */
static int plot_locus(const char *dir, const loop *L, const opts *o, const char *name,
                      qc_err *err)
{
    const double g = qc_design_loop_gain(L->w), sgn = g > 0 ? 1 : -1;
    double top = L->range.n && isfinite(L->range.hi) ? 1.5 * fmax(fabs(L->range.hi), fabs(L->range.lo))
                                                     : 10 / fabs(g);
    for (size_t i = 0; i < L->ngains; i++)
        top = fmax(top, 1.2 * fabs(L->gains[i]));
    const double bottom = top * 1e-4;
    char file[256], path[4096];
    snprintf(file, sizeof file, "%s.dat", name);
    qc_ofile f;
    if (qc_plot_data(&f, dir, file, path, sizeof path, err) == NULL)
        return err->code;
    qc_design_poles p;
    qc_err ignored = {0};
    fprintf(f.fp, "# re im |K_I|  (K_P = %g)\n", o->kp);
    /* LOCUS_GAINS gains, four decades: enough for the branches to read
     * as curves at the page's width, few enough for the page to stay
     * light (the colours come in eight bands, so that the points of a
     * band are drawn as one path on the page) */
    enum { LOCUS_GAINS = 240 };
    for (int i = 0; i <= LOCUS_GAINS; i++) {
        const double k = sgn * bottom * pow(top / bottom, (double)i / LOCUS_GAINS);
        if (qc_design_poles_at(L->w, o->kp, k, &p, &ignored) != 0)
            continue;
        for (size_t j = 0; j < p.n; j++)
            fprintf(f.fp, "%.8g %.8g %.8g\n", p.re[j], p.im[j], fabs(k));
    }
    fprintf(f.fp, "\n\n# open loop (K_I = 0)\n");
    if (qc_design_poles_at(L->w, o->kp, 0, &p, &ignored) == 0)
        for (size_t j = 0; j < p.n; j++)
            fprintf(f.fp, "%.8g %.8g 0\n", p.re[j], p.im[j]);
    fprintf(f.fp, "\n\n# table gains\n");
    for (size_t i = 0; i < L->ngains; i++)
        for (size_t j = 0; j < L->rows[i].n; j++)
            fprintf(f.fp, "%.8g %.8g %.8g\n", L->rows[i].re[j], L->rows[i].im[j],
                    fabs(L->rows[i].ki));
    if (qc_ofile_commit(&f, err) != 0)
        return err->code;
    return qc_plotf(
        dir, name, err,
        "set title 'root locus: %s (K_P = %g)'\nset size ratio -1\n"
        "set xlabel 'Re z'\nset ylabel 'Im z'\nset key outside right top\n"
        "set logscale cb\nset cblabel '|K_I|'\nset palette rgbformulae 33,13,10 maxcolors 8\n"
        "set xrange [-1.6:1.6]\nset yrange [-1.3:1.3]\nset parametric\nset trange [0:2*pi]\n"
        "plot cos(t), sin(t) with lines lc rgb 'gray50' title 'unit circle', "
        "'%s' index 0 using 1:2:3 with points pt 7 ps 0.35 palette title 'closed-loop poles', "
        "'%s' index 1 using 1:2 with points pt 2 ps 2 lw 2 lc rgb 'black' title 'open loop', "
        "'%s' index 2 using 1:2 with points pt 6 ps 1.8 lw 1.5 lc rgb 'red' title 'table gains'",
        L->name, o->kp, path, path, path);
}

/* Step responses of the model loop (what the controller measures) for the
 * designs and the stable table gains. */
static int plot_steps(const char *dir, const loop *L, const opts *o, const char *name,
                      qc_err *err)
{
    enum { MAXC = MAX_GAINS + 2 };
    double kp[MAXC], ki[MAXC];
    char label[MAXC][48];
    size_t nc = 0;
    double horizon = 20;
    if (L->have_i && L->di.poles.stable) {
        kp[nc] = 0;
        ki[nc] = L->di.ki;
        snprintf(label[nc++], sizeof label[0], "integral design K_I=%.3g", L->di.ki);
    }
    if (L->have_pi && L->dpi.poles.stable) {
        kp[nc] = L->dpi.kp;
        ki[nc] = L->dpi.ki;
        snprintf(label[nc++], sizeof label[0], "PI design K_P=%.3g K_I=%.3g", L->dpi.kp,
                 L->dpi.ki);
    }
    for (size_t i = 0; i < L->ngains; i++)
        if (L->rows[i].stable) {
            kp[nc] = o->kp;
            ki[nc] = L->rows[i].ki;
            snprintf(label[nc++], sizeof label[0], "K_I=%.3g", L->rows[i].ki);
        }
    if (nc == 0)
        return 0;
    qc_err ignored = {0};
    for (size_t c = 0; c < nc; c++) {
        qc_design_poles p;
        if (qc_design_poles_at(L->w, kp[c], ki[c], &p, &ignored) == 0 && isfinite(p.settling))
            horizon = fmax(horizon, 2 * p.settling);
    }
    const size_t n = horizon > 5000 ? 5000 : (size_t)horizon;
    double *ym = malloc(nc * n * sizeof *ym);
    char file[256], path[4096];
    snprintf(file, sizeof file, "%s.csv", name);
    int rc = 0;
    qc_ofile f;
    if (!ym) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t c = 0; c < nc; c++)
        qc_design_step_response(L->plant, L->sensor, kp[c], ki[c], n, NULL, ym + c * n, NULL);
    if (qc_plot_data(&f, dir, file, path, sizeof path, err) == NULL) {
        rc = err->code;
        goto done;
    }
    fprintf(f.fp, "k");
    for (size_t c = 0; c < nc; c++)
        fprintf(f.fp, ",%s", label[c]);
    fprintf(f.fp, "\n");
    for (size_t k = 0; k < n; k++) {
        fprintf(f.fp, "%zu", k);
        for (size_t c = 0; c < nc; c++)
            fprintf(f.fp, ",%.8g", ym[c * n + k]);
        fprintf(f.fp, "\n");
    }
    if ((rc = qc_ofile_commit(&f, err)) != 0)
        goto done;
    rc = qc_plotf(
        dir, name, err,
        "set datafile separator ','\nset key autotitle columnhead outside bottom center\n"
        "set title 'unit reference step, model loop: %s'\n"
        "set xlabel 'samples after the step'\nset ylabel 'measured output (offset)'\n"
        "set arrow from graph 0, first 1.02 to graph 1, first 1.02 nohead dt 3 lc rgb 'gray60'\n"
        "set arrow from graph 0, first 0.98 to graph 1, first 0.98 nohead dt 3 lc rgb 'gray60'\n"
        "plot for [i=2:%zu] '%s' using 1:i with steps lw 1.5",
        L->name, nc + 1, path);
done:
    free(ym);
    return rc;
}

/* The root locus and the step responses of each loop; the names are those
 * of design_plots. */
static const char *const design_plots[] = {"root_locus", "step_response", "root_locus_sensor",
                                           "step_response_sensor"};

const char *const *qc_app_design_plot_names(const qc_app_design *d, size_t *n)
{
    *n = 2 * d->nl;
    return design_plots;
}

int qc_app_design_plots(const qc_app_design *d, const char *dir, qc_err *err)
{
    int rc = 0;
    for (size_t i = 0; i < d->nl && rc == 0; i++) {
        rc = plot_locus(dir, &d->loops[i], &d->o, design_plots[2 * i], err);
        if (rc == 0)
            rc = plot_steps(dir, &d->loops[i], &d->o, design_plots[2 * i + 1], err);
    }
    return rc;
}

static const char *verdict(const qc_design_prediction *q, int words)
{
    if (!q->stable)
        return "unstable";
    if (q->frac_saturated > 0.05)
        return words ? "saturates: the linear prediction does not hold" : "saturates";
    return q->settled ? "settles" : "does not settle";
}

/* The loop's step predicted at each of the n gains pk into out[] (pp's
 * K_I set to each in turn): 0, or the exit status after a message naming
 * the gain, "prediction WHERE at K_I = ...". */

/* The loop's step predicted at each of the n gains pk into out[] (pp's
 * K_I set to each in turn): 0, or the code with a message naming the
 * gain, "prediction WHERE at K_I = ...". */
static int predict_gains(qc_design_ws *w, const qc_arx_model *plant, qc_design_predict_params *pp,
                         const double *pk, size_t n, qc_design_prediction *out, const char *where,
                         qc_err *err)
{
    for (size_t i = 0; i < n; i++) {
        pp->ki = pk[i];
        int rc = qc_design_predict(w, plant, pp, &out[i], err);
        if (rc != 0) {
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            return qc_err_set(err, rc, "prediction%s at K_I = %g: %s", where, pk[i], msg);
        }
    }
    return 0;
}

static json_t *prediction_rows(const qc_design_prediction *pred, const double *pk, size_t n,
                               double dt)
{
    json_t *rows = json_array();
    for (size_t i = 0; i < n; i++) {
        const qc_design_prediction *q = &pred[i];
        json_t *r = json_object();
        json_object_set_new(r, "ki", json_real(pk[i]));
        json_object_set_new(r, "stable", json_boolean(q->stable));
        json_object_set_new(r, "settled", json_boolean(q->settled));
        json_object_set_new(r, "realisations", json_integer(q->reps));
        json_object_set_new(r, "realisations_settled", json_integer(q->reps_settled));
        json_object_set_new(r, "settling_samples", qc_json_real_new(q->settling));
        json_object_set_new(r, "settling_time",
                            dt > 0 ? qc_json_real_new(q->settling * dt) : json_null());
        json_object_set_new(r, "overshoot_percent", qc_json_real_new(q->overshoot));
        json_object_set_new(r, "fraction_saturated", json_real(q->frac_saturated));
        json_object_set_new(r, "verdict", json_string(verdict(q, 0)));
        json_array_append_new(rows, r);
    }
    return rows;
}

static void print_predictions(const qc_design_prediction *pred, const double *pk, size_t n,
                              double dt)
{
    printf("  %10s  %8s  %14s  %10s  %10s  %s\n", "K_I", "linear", "settling (s)", "overshoot",
           "saturated", "verdict");
    for (size_t i = 0; i < n; i++) {
        const qc_design_prediction *q = &pred[i];
        char st[32], ov[32];
        if (q->settled)
            snprintf(st, sizeof st, "%.4g", dt > 0 ? q->settling * dt : q->settling);
        else if (q->reps_settled > 0)
            snprintf(st, sizeof st, "%u/%u", q->reps_settled, q->reps);
        else
            snprintf(st, sizeof st, "never");
        if (isfinite(q->overshoot))
            snprintf(ov, sizeof ov, "%.1f%%", q->overshoot);
        else
            snprintf(ov, sizeof ov, "no step");
        printf("  %10.4g  %8s  %14s  %10s  %9.1f%%  %s\n", pk[i], q->stable ? "stable" : "UNSTABLE",
               st, ov, 100 * q->frac_saturated, verdict(q, 1));
    }
}

/* ---- the report page --------------------------------------------------
 *
 * The page is written for a control engineer: sentences on the model,
 * the design and what it predicts, then a few tables, one row per loop
 * and gain, headed in words with their units, then the root locus and
 * step plots. design.json beside the page holds the whole --json
 * document (characteristic polynomials, every pole, the rules). */

/* What one call of the page needs beside the loops. */
typedef struct page_in {
    const opts *o;
    const qc_arx_system *sys;
    size_t nl;
    double dt, ref_m;
    const double *pk;
    size_t npred;
    const qc_design_prediction *pred, *pred_s; /* pred_s NULL: no sensor loop */
    unsigned reps;
} page_in;

/* The factor by which K_I can grow (or shrink towards the lower end) before
 * the loop loses stability: hi/K_I for a positive gain inside the stable
 * interval that holds it, lo/K_I for a negative one. NaN outside. */
static double gain_margin(const loop *L, double ki)
{
    for (size_t i = 0; i < L->range.n; i++) {
        const double lo = L->range.ilo[i], hi = L->range.ihi[i];
        if (!(ki > lo && ki < hi))
            continue;
        if (ki > 0 && isfinite(hi))
            return hi / ki;
        if (ki < 0 && isfinite(lo))
            return lo / ki;
    }
    return NAN;
}

static char *poles_text(const qc_design_poles *p)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    if (fp == NULL)
        return NULL;
    print_poles(fp, p);
    fclose(fp);
    return buf;
}

static void set_num(json_t *o, const char *k, double v)
{
    json_object_set_new(o, k, qc_json_real_new(v));
}

/* One row of a gains table: a loop at (K_P, K_I) with its poles. */
static json_t *gain_row(const loop *L, const char *law, const qc_design_poles *p, const opts *o,
                        double dt)
{
    double ks, mp;
    simulate(L, p->kp, p->ki, p, o->steps, &ks, &mp);
    json_t *r = json_object();
    json_object_set_new(r, "loop", json_string(L->name));
    if (law)
        json_object_set_new(r, "controller", json_string(law));
    set_num(r, "K_I", p->ki);
    set_num(r, "K_P", p->kp);
    json_object_set_new(r, "stable", json_string(p->stable ? "yes" : "no"));
    set_num(r, "largest pole modulus", p->max_modulus);
    set_num(r, "gain margin (factor on K_I)", gain_margin(L, p->ki));
    set_num(r, "predicted settling (samples)", p->settling);
    if (dt > 0)
        set_num(r, "predicted settling (s)", p->settling * dt);
    set_num(r, "predicted overshoot (%)", 100 * p->overshoot);
    set_num(r, "simulated settling (samples)", ks);
    set_num(r, "simulated overshoot (%)", 100 * mp);
    char *t = poles_text(p);
    json_object_set_new(r, "closed-loop poles", t ? json_string(t) : json_null());
    free(t);
    return r;
}

static json_t *prediction_page_rows(json_t *rows, const char *name, const qc_design_prediction *q,
                                    const double *pk, size_t n, double dt)
{
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_object();
        json_object_set_new(r, "loop", json_string(name));
        set_num(r, "K_I", pk[i]);
        json_object_set_new(r, "linear loop", json_string(q[i].stable ? "stable" : "unstable"));
        if (dt > 0)
            set_num(r, "settling (s)", q[i].settling * dt);
        else
            set_num(r, "settling (samples)", q[i].settling);
        json_object_set_new(r, "runs settled", json_integer(q[i].reps_settled));
        json_object_set_new(r, "runs", json_integer(q[i].reps));
        set_num(r, "overshoot (%)", q[i].overshoot);
        set_num(r, "time at an actuator limit (%)", 100 * q[i].frac_saturated);
        json_object_set_new(r, "verdict", json_string(verdict(&q[i], 1)));
        json_array_append_new(rows, r);
    }
    return rows;
}

static json_t *page_json(const loop *loops, const page_in *in)
{
    const qc_arx_model *m = &in->sys->plant;
    json_t *page = json_object(), *model = json_object();
    json_object_set_new(model, "model file", json_string(in->o->model));
    json_object_set_new(model, "past outputs (n_a)", json_integer(m->na));
    json_object_set_new(model, "past inputs (n_b)", json_integer(m->nb));
    json_object_set_new(model, "input delay (samples)", json_integer(m->delay));
    set_num(model, "DC gain (output per unit input)", qc_arx_dc_gain(m));
    set_num(model, "operating point: input", m->u0);
    set_num(model, "operating point: output", m->y0);
    if (in->dt > 0)
        set_num(model, "sample interval (s)", in->dt);
    if (in->nl == 2)
        set_num(model, "sensor DC gain (reading per unit output)", qc_arx_dc_gain(&in->sys->sensor));
    json_object_set_new(page, "plant model", model);
    json_t *range = json_array();
    for (size_t i = 0; i < in->nl; i++) {
        const loop *L = &loops[i];
        json_t *r = json_object();
        json_object_set_new(r, "loop", json_string(L->name));
        set_num(r, "K_P", in->o->kp);
        set_num(r, "stable from K_I", L->range.n ? L->range.lo : NAN);
        set_num(r, "stable up to K_I", L->range.n ? L->range.hi : NAN);
        json_object_set_new(r, "stable intervals", json_integer((json_int_t)L->range.n));
        set_num(r, "loop DC gain", qc_design_loop_gain(L->w));
        json_object_set_new(r, "closed-loop poles", json_integer((json_int_t)qc_design_order(L->w)));
        json_array_append_new(range, r);
    }
    json_object_set_new(page, "stability", range);
    json_t *designs = json_array();
    for (size_t i = 0; i < in->nl; i++) {
        if (loops[i].have_i)
            json_array_append_new(designs, gain_row(&loops[i], "integral", &loops[i].di.poles,
                                                    in->o, in->dt));
        if (loops[i].have_pi)
            json_array_append_new(designs, gain_row(&loops[i], "PI", &loops[i].dpi.poles, in->o,
                                                    in->dt));
    }
    if (json_array_size(designs) > 0)
        json_object_set_new(page, "designed controllers", designs);
    else
        json_decref(designs);
    json_t *locus = json_array();
    for (size_t i = 0; i < in->nl; i++)
        for (size_t g = 0; g < loops[i].ngains; g++)
            json_array_append_new(locus, gain_row(&loops[i], NULL, &loops[i].rows[g], in->o,
                                                  in->dt));
    json_object_set_new(page, "gains on the root locus", locus);
    if (in->npred > 0) {
        json_t *rows = json_array();
        prediction_page_rows(rows, loops[0].name, in->pred, in->pk, in->npred, in->dt);
        if (in->pred_s)
            prediction_page_rows(rows, loops[1].name, in->pred_s, in->pk, in->npred, in->dt);
        json_object_set_new(page, "step to the reference with actuator limits", rows);
    }
    return page;
}

/* "What it shows": the model, each design and what it predicts, the
 * root-locus gains, the step to the reference, in sentences. */
static char *page_story(const loop *loops, const page_in *in)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (fp == NULL)
        return NULL;
    const qc_arx_model *m = &in->sys->plant;
    const opts *o = in->o;
    const double dt = in->dt;
    fprintf(fp, "The plant is an ARX model read from %s (identified by 'qctl sysid' or given): "
                "%u past output%s, %u past input%s, an input delay of %d sample%s, DC gain %.4g",
            o->model, m->na, m->na == 1 ? "" : "s", m->nb, m->nb == 1 ? "" : "s", m->delay,
            m->delay == 1 ? "" : "s", qc_arx_dc_gain(m));
    if (dt > 0)
        fprintf(fp, ", sampled every %.4g s", dt);
    fprintf(fp, ".%s Controllers are integral, u(k) = u(k-1) + K_I e(k), or PI "
                "with K_P; settling is counted in samples to the 2%% band, overshoot in %% of "
                "the step.",
            in->nl == 2 ? " The model has a sensor block, so the loop measured through the "
                          "sensor is designed too."
                        : "");
    for (size_t i = 0; i < in->nl; i++) {
        const loop *L = &loops[i];
        fprintf(fp, "\n\nThe %s (K_P = %g) ", L->name, o->kp);
        if (L->range.n == 0)
            fprintf(fp, "is unstable for every K_I scanned.");
        else
            fprintf(fp, "is stable for %.4g < K_I < %.4g%s.", L->range.lo, L->range.hi,
                    L->range.n > 1 ? " (and in other intervals)" : "");
        const qc_design_result *d[2] = {L->have_i ? &L->di : NULL, L->have_pi ? &L->dpi : NULL};
        for (int k = 0; k < 2; k++) {
            if (d[k] == NULL)
                continue;
            const qc_design_poles *p = &d[k]->poles;
            double ks, mp;
            simulate(L, p->kp, p->ki, p, o->steps, &ks, &mp);
            fprintf(fp, " For a settling time of %g samples and an overshoot of at most %g%%, the "
                        "%s design is K_I = %.4g",
                    o->spec.settling, 100 * o->spec.overshoot, k ? "PI" : "integral", d[k]->ki);
            if (k)
                fprintf(fp, ", K_P = %.4g", d[k]->kp);
            fprintf(fp, " (%s): the pole rules predict settling in %.3g samples",
                    d[k]->exact ? "the target poles placed" : "the closest one gain can reach",
                    p->settling);
            if (dt > 0)
                fprintf(fp, " (%.3g s)", p->settling * dt);
            fprintf(fp, " with %.3g%% overshoot", 100 * p->overshoot);
            if (isfinite(ks))
                fprintf(fp, ", and a simulated unit step settles in %.3g samples with %.3g%% "
                            "overshoot",
                        ks, 100 * mp);
            const double gm = gain_margin(L, d[k]->ki);
            if (isfinite(gm))
                fprintf(fp, "; K_I can grow by a factor %.3g before the loop is unstable", gm);
            fprintf(fp, ".");
        }
        size_t stable = 0;
        for (size_t g = 0; g < L->ngains; g++)
            stable += L->rows[g].stable != 0;
        fprintf(fp, " Of the %zu gains on the root locus, %zu keep%s the loop stable.", L->ngains,
                stable, stable == 1 ? "s" : "");
    }
    if (in->npred > 0) {
        fprintf(fp, "\n\nA step of the reference from %g to %g with the actuator held in "
                    "[%g, %g] (settling within %g%% of the reference, as 'qctl sim maxusers' "
                    "measures it%s):",
                isfinite(o->from) ? o->from : m->y0, o->reference, o->u_min, o->u_max,
                100 * o->band, in->reps > 0 ? "; means over noisy runs" : "");
        for (size_t i = 0; i < in->npred; i++) {
            const qc_design_prediction *q = &in->pred[i];
            fprintf(fp, "%s K_I = %.4g %s", i ? ";" : "", in->pk[i], verdict(q, 0));
            if (q->settled)
                fprintf(fp, " in %.3g %s", dt > 0 ? q->settling * dt : q->settling,
                        dt > 0 ? "s" : "samples");
            if (isfinite(q->overshoot))
                fprintf(fp, " with %.3g%% overshoot", q->overshoot);
            fprintf(fp, ", at an actuator limit %.3g%% of the time", 100 * q->frac_saturated);
        }
        fprintf(fp, ".");
    }
    fprintf(fp, "\n\nThe tables below give one row per loop and gain; design.json beside this "
                "page holds everything 'qctl design --json' prints (the characteristic "
                "polynomials, every pole and the rules).");
    if (fclose(fp) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}


/* ---- the descriptor: parameters, check, run, outputs ---------------------- */

void qc_app_design_params_init(qc_app_design_params *p)
{
    memset(p, 0, sizeof *p);
    p->law_i = p->law_pi = 1;
    p->reference = NAN;
    p->from = NAN;
    p->u_min = 0;
    p->u_max = 1e9;
    p->band = 0.1;
    p->antiwindup = QC_AW_CONDITIONAL;
    p->horizon = 180;
    p->fall = NAN;
    p->noise_reps = -1;
}

int qc_app_design_params_check(const qc_app_design_params *p, qc_err *err)
{
    if (p->model == NULL)
        return qc_err_set(err, QC_EINVAL, "model: a model file is required");
    if (!(p->u_min < p->u_max))
        return qc_err_set(err, QC_EINVAL, "u_min: %g is not below the upper limit %g", p->u_min,
                          p->u_max);
    if (p->sensor_reference && !isfinite(p->reference))
        return qc_err_set(err, QC_EINVAL, "sensor_reference: needs a reference");
    if (isfinite(p->from) && !isfinite(p->reference))
        return qc_err_set(err, QC_EINVAL, "from: needs a reference");
    if (p->have_overshoot && !p->have_spec)
        return qc_err_set(err, QC_EINVAL, "overshoot: needs a settling time");
    double re, im;
    if (p->have_spec && qc_design_target(&p->spec, &re, &im, err) != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return qc_err_set(err, QC_EINVAL, "overshoot: %s", msg);
    }
    return 0;
}

/* The reference measured through the sensor (ref_m), refused when the
 * sensor cannot read it. */
static int sensor_reference(qc_app_design *d, qc_err *err)
{
    const opts *o = &d->o;
    const qc_arx_system *sys = &d->sys;
    double g, off;
    if (sys->has_affine) {
        g = sys->affine.gain;
        off = sys->affine.offset;
    } else {
        g = qc_arx_dc_gain(&sys->sensor);
        off = sys->sensor.y0 - g * sys->sensor.u0;
    }
    d->ref_m = o->sensor_reference ? o->reference : off + g * o->reference;
    if (d->ref_m < sys->sensor_max)
        return 0;
    if (o->sensor_reference)
        return qc_err_set(err, QC_EINVAL,
                          "reference: %g is not reachable: the sensor cannot read more than %g",
                          o->reference, sys->sensor_max);
    return qc_err_set(err, QC_EINVAL,
                      "reference: %g is not reachable through the sensor: it maps to %g (%s), "
                      "and the sensor cannot read more than %g; the largest reference it can "
                      "hold is below %g",
                      o->reference, d->ref_m,
                      sys->has_affine ? "its affine map" : "its DC-gain tangent",
                      sys->sensor_max, (sys->sensor_max - off) / g);
}

/* The step to the reference predicted on each loop with the actuator
 * limits, at the gains of the table (or the designed K_I). */
static int predict(qc_app_design *d, qc_err *err)
{
    const opts *o = &d->o;
    const qc_arx_system *sys = &d->sys;
    if (o->ngains > 0)
        for (size_t i = 0; i < o->ngains; i++)
            d->pk[d->npred++] = o->gains[i];
    else if (d->loops[0].have_i)
        d->pk[d->npred++] = d->loops[0].di.ki;
    else
        for (size_t i = 0; i < d->loops[0].ngains; i++)
            d->pk[d->npred++] = d->loops[0].gains[i];
    qc_design_predict_params *pp = &d->pp;
    pp->kp = o->kp;
    pp->u_min = o->u_min;
    pp->u_max = o->u_max;
    pp->antiwindup = o->antiwindup;
    pp->y_start = isfinite(o->from) ? o->from : sys->plant.y0;
    pp->r = o->reference;
    pp->band = o->band;
    pp->horizon = o->horizon;
    pp->fall = o->fall;
    const int have_var = isfinite(sys->plant_noise_var) &&
                         (!(d->nl == 2) || isfinite(sys->sensor_noise_var));
    pp->reps = o->noise_reps >= 0 ? (unsigned)o->noise_reps : have_var ? 20 : 0;
    pp->noise_sd = isfinite(sys->plant_noise_var) ? sqrt(sys->plant_noise_var) : 0;
    pp->seed = 1;
    int rc = predict_gains(d->loops[0].w, &sys->plant, pp, d->pk, d->npred, d->pred, "", err);
    if (rc != 0 || d->nl != 2)
        return rc;
    /* the loop closed on the sensor: its model, moved onto the affine map
     * near the reference when there is one (the same slope, the sensor's
     * DC gain), given the reference r_m */
    qc_arx_model sens = sys->sensor;
    if (sys->has_affine)
        sens.y0 = sys->affine.offset + sys->affine.gain * sens.u0;
    qc_design_predict_params sp = *pp;
    sp.sensor = &sens;
    sp.r_m = d->ref_m;
    sp.sensor_max = isfinite(sys->sensor_max) ? sys->sensor_max : 0;
    sp.sensor_noise_sd = isfinite(sys->sensor_noise_var) ? sqrt(sys->sensor_noise_var) : 0;
    if (d->use_curve) {
        sp.sensor_curve = sys->curve.scale;
        if (isfinite(sys->curve.residual_variance))
            sp.sensor_noise_sd = sqrt(sys->curve.residual_variance);
        if (isfinite(sys->curve.residual_cv))
            sp.sensor_noise_cv = sys->curve.residual_cv;
    }
    rc = predict_gains(d->loops[1].w, &sys->plant, &sp, d->pk, d->npred, d->pred_s,
                       " through the sensor", err);
    d->have_pred_s = rc == 0;
    return rc;
}

static json_t *model_json(const qc_arx_model *m)
{
    json_t *j = qc_arx_model_json(m);
    json_object_set_new(j, "dc_gain", qc_json_real_new(qc_arx_dc_gain(m)));
    return j;
}

static json_t *spec_json(const opts *o)
{
    double re, im;
    qc_err err = {0};
    qc_design_target(&o->spec, &re, &im, &err);
    json_t *sp = json_object();
    json_object_set_new(sp, "settling_samples", json_real(o->spec.settling));
    json_object_set_new(sp, "overshoot", json_real(o->spec.overshoot));
    json_t *tp = json_object();
    json_object_set_new(tp, "re", json_real(re));
    json_object_set_new(tp, "im", json_real(im));
    json_object_set_new(tp, "modulus", json_real(hypot(re, im)));
    json_object_set_new(tp, "angle", json_real(atan2(im, re)));
    json_object_set_new(sp, "target_pole", tp);
    return sp;
}

static json_t *prediction_json(const qc_app_design *d)
{
    const opts *o = &d->o;
    json_t *pj = json_object();
    json_object_set_new(pj, "reference", json_real(o->reference));
    json_object_set_new(pj, "reference_measured", qc_json_real_new(d->ref_m));
    json_object_set_new(pj, "from", json_real(d->pp.y_start));
    json_object_set_new(pj, "u_min", json_real(o->u_min));
    json_object_set_new(pj, "u_max", json_real(o->u_max));
    json_object_set_new(pj, "band", json_real(o->band));
    json_object_set_new(pj, "horizon", json_integer(o->horizon));
    json_object_set_new(pj, "fall", json_real(o->fall));
    json_object_set_new(pj, "noise_realisations", json_integer(d->pp.reps));
    json_object_set_new(pj, "noise_sd", json_real(d->pp.reps > 0 ? d->pp.noise_sd : 0));
    json_object_set_new(pj, "gains", prediction_rows(d->pred, d->pk, d->npred, d->dt));
    json_object_set_new(pj, "sensor_model",
                        d->nl != 2 ? json_null()
                                   : json_string(d->use_curve ? "wiener_completion_log" : "linear"));
    json_object_set_new(pj, "gains_through_sensor",
                        d->have_pred_s ? prediction_rows(d->pred_s, d->pk, d->npred, d->dt)
                                       : json_null());
    return pj;
}

/* The summary: the schema of `qctl design --json`, built once. */
static json_t *summary_json(const qc_app_design *d)
{
    const opts *o = &d->o;
    json_t *doc = json_object();
    json_object_set_new(doc, "command", json_string("design"));
    json_object_set_new(doc, "model_file", json_string(o->model));
    json_object_set_new(doc, "plant", model_json(&d->sys.plant));
    if (d->nl == 2) {
        json_t *sm = model_json(&d->sys.sensor);
        json_object_set_new(sm, "curve",
                            d->sys.has_curve ? qc_arx_curve_json(&d->sys.curve) : json_null());
        json_object_set_new(doc, "sensor", sm);
    } else {
        json_object_set_new(doc, "sensor", json_null());
    }
    json_t *rules = json_object();
    json_object_set_new(rules, "settling", json_string("k_s = -4 / ln r, r the largest pole modulus"));
    json_object_set_new(rules, "overshoot",
                        json_string("M_p = r^(pi/theta), dominant pole r e^(i theta); 0 if real positive"));
    json_object_set_new(rules, "simulated", json_string("unit step on the model loop; 2% band; measured output"));
    json_object_set_new(doc, "rules", rules);
    json_object_set_new(doc, "spec", o->have_spec ? spec_json(o) : json_null());
    json_t *lj = json_array();
    for (size_t i = 0; i < d->nl; i++)
        json_array_append_new(lj, loop_json(&d->loops[i], o, d->dt));
    json_object_set_new(doc, "loops", lj);
    if (isfinite(o->reference))
        json_object_set_new(doc, "prediction", prediction_json(d));
    return doc;
}

qc_app_design *qc_app_design_run(const qc_app_design_params *p, qc_err *err)
{
    if (qc_app_design_params_check(p, err) != 0)
        return NULL;
    qc_app_design *d = calloc(1, sizeof *d);
    if (d == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        return NULL;
    }
    d->o = *p;
    d->ref_m = NAN;
    opts *o = &d->o;
    qc_arx_system *sys = &d->sys;
    int rc = qc_arx_system_read(o->model, sys, err);
    if (rc != 0)
        goto fail;
    if (isnan(o->fall))
        o->fall = sys->input_fall;
    if (sys->plant.delay < 0) {
        qc_err_set(err, QC_EINVAL,
                   "%s: delay: %d: the plant needs delay >= 0 to be closed by a controller",
                   o->model, sys->plant.delay);
        goto fail;
    }
    /* a reference the sensor cannot reach: refused before any design */
    if (isfinite(o->reference) && sys->has_sensor && !o->no_sensor &&
        sensor_reference(d, err) != 0)
        goto fail;
    d->nl = 1;
    d->loops[0].name = "loop on the plant output";
    d->loops[0].plant = &sys->plant;
    if (sys->has_sensor && !o->no_sensor) {
        d->loops[1].name = "loop measured through the sensor";
        d->loops[1].plant = &sys->plant;
        d->loops[1].sensor = &sys->sensor;
        d->nl = 2;
    }
    for (size_t i = 0; i < d->nl; i++)
        if (run_loop(d, &d->loops[i], err) != 0)
            goto fail;
    d->dt = sys->plant.dt;
    d->use_curve = d->nl == 2 && sys->has_curve && !o->sensor_linear;
    if (isfinite(o->reference) && predict(d, err) != 0)
        goto fail;
    if ((d->doc = summary_json(d)) == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        goto fail;
    }
    return d;
fail:
    qc_app_design_free(d);
    return NULL;
}

void qc_app_design_free(qc_app_design *d)
{
    if (d == NULL)
        return;
    json_decref(d->doc);
    for (size_t i = 0; i < 2; i++)
        qc_design_free(d->loops[i].w);
    free(d);
}

const json_t *qc_app_design_json(const qc_app_design *d) { return d->doc; }

const char *qc_app_design_notices(const qc_app_design *d) { return d->notices; }

static page_in page_of(const qc_app_design *d)
{
    return (page_in){&d->o, &d->sys, d->nl, d->dt, d->ref_m, d->pk, d->npred, d->pred,
                     d->have_pred_s ? d->pred_s : NULL, d->pp.reps};
}

json_t *qc_app_design_page(const qc_app_design *d)
{
    const page_in in = page_of(d);
    return page_json(d->loops, &in);
}

char *qc_app_design_story(const qc_app_design *d)
{
    const page_in in = page_of(d);
    return page_story(d->loops, &in);
}

static void print_sensor(const qc_app_design *d)
{
    const qc_arx_system *sys = &d->sys;
    printf("  sensor: ARX na = %u, nb = %u, delay = %d, DC gain %.6g\n", sys->sensor.na,
           sys->sensor.nb, sys->sensor.delay, qc_arx_dc_gain(&sys->sensor));
    if (sys->has_affine)
        printf("  sensor affine map near y = %g: ym = %.6g + %.6g y; a loop on the sensor\n"
               "  holds the true output at r when given the reference %.6g + %.6g r\n",
               sys->affine.at, sys->affine.offset, sys->affine.gain, sys->affine.offset,
               sys->affine.gain);
    else
        printf("  (in offsets from the operating point: true y - %.6g = (ym - %.6g) / %.6g;\n"
               "  identify with --sensor-at R for the map around a reference)\n",
               sys->sensor.u0, sys->sensor.y0, qc_arx_dc_gain(&sys->sensor));
    if (sys->has_curve)
        printf("  sensor completion-log curve: ym = f(v), f(N) = N - (N^2/S)(1 - exp(-S/N)),\n"
               "  S = %.5g, v the sensor model's output at unit DC gain%s\n",
               sys->curve.scale, d->o.sensor_linear ? " (not used: --sensor-linear)" : "");
    if (isfinite(sys->sensor_max))
        printf("  the sensor reads at most %g\n", sys->sensor_max);
}

static void print_prediction(const qc_app_design *d)
{
    const opts *o = &d->o;
    const qc_arx_system *sys = &d->sys;
    const qc_design_predict_params *pp = &d->pp;
    printf("\nprediction: step from %g to %g on the plant loop, MaxUsers controller with\n"
           "limits [%g, %g] and %s anti-windup; settling on the 5-sample moving average\n"
           "within %g%% of the reference, as 'qctl sim maxusers' measures it; input in\n"
           "effect falling at most %g a sample; ",
           pp->y_start, o->reference, o->u_min, o->u_max,
           o->antiwindup == QC_AW_NONE ? "no" : o->antiwindup == QC_AW_BACKCALC ? "back-calculation" : "conditional",
           100 * o->band, o->fall);
    if (pp->reps > 0)
        printf("means over %u realisations with the fit's residual noise (sd %.3g)\n"
               "added to the output (settling 'k/n': settled in k of n):\n",
               pp->reps, pp->noise_sd);
    else
        printf("one noiseless run:\n");
    print_predictions(d->pred, d->pk, d->npred, d->dt);
    if (!d->have_pred_s)
        return;
    char cap[64] = "";
    if (isfinite(sys->sensor_max))
        snprintf(cap, sizeof cap, ", capped at %g,", sys->sensor_max);
    if (d->use_curve)
        printf("\nprediction through the sensor: the controller measures the sensor model's\n"
               "dynamics at unit DC gain followed by its completion-log curve (S = %.5g)%s\n"
               "against %g; settling and overshoot of the plant output against %g%s:\n",
               sys->curve.scale, cap, d->ref_m, o->reference,
               pp->reps > 0 ? "; the curve fit's residual noise added too" : "");
    else
        printf("\nprediction through the sensor: the controller measures the sensor model's\n"
               "output%s%s against %g; settling and overshoot of the plant output\n"
               "against %g%s:\n",
               sys->has_affine ? " (on its affine map near the reference)" : "", cap, d->ref_m,
               o->reference, pp->reps > 0 ? "; the sensor's residual noise added too" : "");
    print_predictions(d->pred_s, d->pk, d->npred, d->dt);
}

void qc_app_design_print(const qc_app_design *d)
{
    const opts *o = &d->o;
    const qc_arx_model *m = &d->sys.plant;
    printf("Controller design for %s: ARX na = %u, nb = %u, delay = %d, DC gain %.6g\n",
           o->model, m->na, m->nb, m->delay, qc_arx_dc_gain(m));
    printf("  operating point u = %.6g, y = %.6g", m->u0, m->y0);
    if (d->dt > 0)
        printf(", sample interval %.6g s", d->dt);
    printf("\n");
    if (d->nl == 2)
        print_sensor(d);
    if (o->have_spec) {
        double re, im;
        qc_err err = {0};
        qc_design_target(&o->spec, &re, &im, &err);
        printf("  wanted: settling %g samples, overshoot %g -> target pole %.4g%+.4gi "
               "(modulus %.4g)\n",
               o->spec.settling, o->spec.overshoot, re, im, hypot(re, im));
    }
    printf("  rules: k_s = -4/ln r (r the largest pole modulus); M_p = r^(pi/theta) of the\n"
           "  dominant pole; 'simulated' is a unit step on the model loop (2%% band)\n");
    for (size_t i = 0; i < d->nl; i++)
        print_loop(&d->loops[i], o, d->dt);
    if (isfinite(o->reference))
        print_prediction(d);
}
