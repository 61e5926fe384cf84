/* SPDX-License-Identifier: GPL-3.0-or-later */
/* design.c: `qctl design`, integral and PI controller design from an ARX
 * model JSON: the stable range of K_I, pole placement for a wanted
 * settling time and overshoot, and a root-locus table, for the loop on the
 * plant output and, when the model has a sensor block, for the loop that
 * measures through the sensor. Each prediction from the pole rules is
 * shown beside a simulated step of the model loop, so a user sees where
 * the rules hold. */
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "guard.h"
#include "report_cli.h"
#include "result.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/controller.h"
#include "qctl/design.h"
#include "qctl/output.h"

static const char synopsis[] = "qctl design --model FILE [options]";

static const char about[] =
    "Designs integral control u(k) = u(k-1) + K_I e(k) and PI control\n"
    "u(k) = u(k-1) + (K_P + K_I) e(k) - K_P e(k-1) for an ARX model written by\n"
    "'qctl sysid': the range of K_I that keeps the loop stable, gains placing the\n"
    "closed-loop poles for a wanted settling time and overshoot, and the poles for\n"
    "a list of gains (root locus). With a sensor block in the model the loop that\n"
    "measures through the sensor is designed too, and both are reported.\n";

#define MAX_GAINS 64

typedef struct opts {
    const char *model, *output, *plot, *report;
    int json, quiet, no_sensor, law_i, law_pi, have_spec;
    qc_design_spec spec;
    double gains[MAX_GAINS];
    size_t ngains;
    double kp;
    unsigned steps;
    double reference, from, u_min, u_max, band;
    int antiwindup, sensor_reference, sensor_linear;
    unsigned horizon;
    double fall;
    long noise_reps; /* -1: default */
} opts;

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

/* The CLI_FUNC parser of --gains: the list into the opts at f->dest. */
static int parse_gains(const cli_flag *f, const char *flag, const char *s)
{
    (void)flag;
    opts *o = f->dest;
    char buf[64];
    o->ngains = 0;
    while (*s) {
        size_t n = strcspn(s, ",");
        if (n == 0 || n >= sizeof buf) {
            cli_error("--gains: '%s': %s entry", s, n == 0 ? "empty" : "too long an");
            return QC_EXIT_USAGE;
        }
        if (o->ngains == MAX_GAINS) {
            cli_error("--gains: at most %d gains", MAX_GAINS);
            return QC_EXIT_USAGE;
        }
        memcpy(buf, s, n);
        buf[n] = '\0';
        if (cli_double("--gains", buf, &o->gains[o->ngains]) != 0)
            return QC_EXIT_USAGE;
        o->ngains++;
        s += n;
        if (*s == ',') {
            s++;
            if (*s == '\0') {
                cli_error("--gains: trailing comma");
                return QC_EXIT_USAGE;
            }
        }
    }
    if (o->ngains == 0) {
        cli_error("--gains: empty list");
        return QC_EXIT_USAGE;
    }
    return 0;
}

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

static double round3(double x)
{
    if (x == 0 || !isfinite(x))
        return x;
    const double e = pow(10, floor(log10(fabs(x))) - 2);
    return round(x / e) * e;
}

static int run_loop(loop *L, const opts *o)
{
    qc_err err = {0};
    L->w = qc_design_alloc(L->plant, L->sensor, &err);
    if (L->w == NULL) {
        cli_error("%s: %s: %s", o->model, L->name, err.msg);
        return cli_exit_code(err.code);
    }
    int rc = qc_design_stable_range(L->w, o->kp, &L->range, &err);
    if (rc == 0 && o->have_spec && o->law_i) {
        rc = qc_design_integral(L->w, &o->spec, &L->di, &err);
        L->have_i = rc == 0;
        if (rc == QC_EUNSTABLE) {
            if (!o->quiet) /* the result says it too: no integral design */
                fprintf(stderr, "qctl: %s: integral design: %s\n", L->name, err.msg);
            rc = 0;
        }
    }
    if (rc == 0 && o->have_spec && o->law_pi) {
        rc = qc_design_pi(L->w, &o->spec, &L->dpi, &err);
        L->have_pi = rc == 0;
        if (rc == QC_ERANGE) {
            if (!o->quiet)
                fprintf(stderr, "qctl: %s: PI design: %s\n", L->name, err.msg);
            rc = 0;
        }
    }
    if (rc != 0) {
        cli_error("%s: %s: %s", o->model, L->name, err.msg);
        return cli_exit_code(rc);
    }
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
        if ((rc = qc_design_poles_at(L->w, o->kp, L->gains[i], &L->rows[i], &err)) != 0) {
            cli_error("%s: %s: %s", o->model, L->name, err.msg);
            return cli_exit_code(rc);
        }
    return 0;
}

/* Root locus: every pole for a log grid of gains, the open-loop poles,
 * and the table's gains, on the complex plane with the unit circle. */
static int plot_locus(const char *dir, const loop *L, const opts *o, const char *name)
{
    qc_err err = {0};
    int rc = 0;
    const double g = qc_design_loop_gain(L->w), sgn = g > 0 ? 1 : -1;
    double top = L->range.n && isfinite(L->range.hi) ? 1.5 * fmax(fabs(L->range.hi), fabs(L->range.lo))
                                                     : 10 / fabs(g);
    for (size_t i = 0; i < L->ngains; i++)
        top = fmax(top, 1.2 * fabs(L->gains[i]));
    const double bottom = top * 1e-4;
    cli_plots pl = {.dir = dir};
    char file[256];
    snprintf(file, sizeof file, "%s.dat", name);
    qc_ofile f;
    if (cli_plots_file(&pl, &f, file) == NULL)
        return QC_EXIT_FAIL;
    qc_design_poles p;
    fprintf(f.fp, "# re im |K_I|  (K_P = %g)\n", o->kp);
    /* LOCUS_GAINS gains, four decades: enough for the branches to read
     * as curves at the page's width, few enough for the page to stay
     * light (the colours come in eight bands, so that the points of a
     * band are drawn as one path on the page) */
    enum { LOCUS_GAINS = 240 };
    for (int i = 0; i <= LOCUS_GAINS && rc == 0; i++) {
        const double k = sgn * bottom * pow(top / bottom, (double)i / LOCUS_GAINS);
        if (qc_design_poles_at(L->w, o->kp, k, &p, &err) != 0)
            continue;
        for (size_t j = 0; j < p.n; j++)
            fprintf(f.fp, "%.8g %.8g %.8g\n", p.re[j], p.im[j], fabs(k));
    }
    fprintf(f.fp, "\n\n# open loop (K_I = 0)\n");
    if (qc_design_poles_at(L->w, o->kp, 0, &p, &err) == 0)
        for (size_t j = 0; j < p.n; j++)
            fprintf(f.fp, "%.8g %.8g 0\n", p.re[j], p.im[j]);
    fprintf(f.fp, "\n\n# table gains\n");
    for (size_t i = 0; i < L->ngains; i++)
        for (size_t j = 0; j < L->rows[i].n; j++)
            fprintf(f.fp, "%.8g %.8g %.8g\n", L->rows[i].re[j], L->rows[i].im[j],
                    fabs(L->rows[i].ki));
    if (cli_file_commit(&f) != 0)
        return QC_EXIT_FAIL;
    return cli_plots_draw(
        &pl, name,
        "set title 'root locus: %s (K_P = %g)'\nset size ratio -1\n"
        "set xlabel 'Re z'\nset ylabel 'Im z'\nset key outside right top\n"
        "set logscale cb\nset cblabel '|K_I|'\nset palette rgbformulae 33,13,10 maxcolors 8\n"
        "set xrange [-1.6:1.6]\nset yrange [-1.3:1.3]\nset parametric\nset trange [0:2*pi]\n"
        "plot cos(t), sin(t) with lines lc rgb 'gray50' title 'unit circle', "
        "'%s' index 0 using 1:2:3 with points pt 7 ps 0.35 palette title 'closed-loop poles', "
        "'%s' index 1 using 1:2 with points pt 2 ps 2 lw 2 lc rgb 'black' title 'open loop', "
        "'%s' index 2 using 1:2 with points pt 6 ps 1.8 lw 1.5 lc rgb 'red' title 'table gains'",
        L->name, o->kp, pl.path, pl.path, pl.path);
}

/* Step responses of the model loop (what the controller measures) for the
 * designs and the stable table gains. */
static int plot_steps(const char *dir, const loop *L, const opts *o, const char *name)
{
    qc_err err = {0};
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
    for (size_t c = 0; c < nc; c++) {
        qc_design_poles p;
        if (qc_design_poles_at(L->w, kp[c], ki[c], &p, &err) == 0 && isfinite(p.settling))
            horizon = fmax(horizon, 2 * p.settling);
    }
    const size_t n = horizon > 5000 ? 5000 : (size_t)horizon;
    double *ym = malloc(nc * n * sizeof *ym);
    cli_plots pl = {.dir = dir};
    char file[256];
    snprintf(file, sizeof file, "%s.csv", name);
    int rc = 0;
    if (!ym) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto done;
    }
    for (size_t c = 0; c < nc; c++)
        qc_design_step_response(L->plant, L->sensor, kp[c], ki[c], n, NULL, ym + c * n, NULL);
    qc_ofile f;
    if (cli_plots_file(&pl, &f, file) == NULL) {
        rc = QC_EXIT_FAIL;
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
    if ((rc = cli_file_commit(&f)) != 0)
        goto done;
    rc = cli_plots_draw(
        &pl, name,
        "set datafile separator ','\nset key autotitle columnhead outside bottom center\n"
        "set title 'unit reference step, model loop: %s'\n"
        "set xlabel 'samples after the step'\nset ylabel 'measured output (offset)'\n"
        "set arrow from graph 0, first 1.02 to graph 1, first 1.02 nohead dt 3 lc rgb 'gray60'\n"
        "set arrow from graph 0, first 0.98 to graph 1, first 0.98 nohead dt 3 lc rgb 'gray60'\n"
        "plot for [i=2:%zu] '%s' using 1:i with steps lw 1.5",
        L->name, nc + 1, pl.path);
done:
    free(ym);
    return rc;
}

/* The root locus and the step responses of each loop into dir; the
 * names are those of design_plots below. */
static const char *const design_plots[] = {"root_locus", "step_response", "root_locus_sensor",
                                           "step_response_sensor"};

/* Without gnuplot: a notice naming `skipped` ("--plot"), and 0. */
static int write_plots(const char *dir, const char *skipped, const loop *loops, size_t nl,
                       const opts *o)
{
    cli_plots pl;
    int rc = cli_plots_open(&pl, dir, skipped, 1);
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    for (size_t i = 0; i < nl && rc == 0; i++) {
        rc = plot_locus(dir, &loops[i], o, design_plots[2 * i]);
        if (rc == 0)
            rc = plot_steps(dir, &loops[i], o, design_plots[2 * i + 1]);
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
static int predict_gains(qc_design_ws *w, const qc_arx_model *plant, qc_design_predict_params *pp,
                         const double *pk, size_t n, qc_design_prediction *out, const char *where)
{
    qc_err err = {0};
    for (size_t i = 0; i < n; i++) {
        pp->ki = pk[i];
        int rc = qc_design_predict(w, plant, pp, &out[i], &err);
        if (rc != 0) {
            cli_error("prediction%s at K_I = %g: %s", where, pk[i], err.msg);
            return cli_exit_code(rc);
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

/* The page: plots, design.json, index.html. */
static int write_page(const loop *loops, const page_in *in, const json_t *doc, int argc,
                      char **argv)
{
    const char *dir = in->o->report;
    int rc = write_plots(dir, "--report plots", loops, in->nl, in->o);
    if (rc != 0)
        return rc;
    qc_err err = {0};
    size_t n = strlen(dir) + 16;
    char *path = malloc(n);
    json_t *page = page_json(loops, in);
    char *story = page_story(loops, in);
    if (path == NULL || page == NULL || story == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    } else {
        snprintf(path, n, "%s/design.json", dir);
        if (qc_json_write(doc, path, &err) != 0) {
            cli_error("--report: %s", err.msg);
            rc = QC_EXIT_FAIL;
        }
    }
    if (rc == 0)
        rc = cli_report_write_story(dir, "design", story, argc, argv, page, design_plots,
                                    2 * in->nl);
    free(path);
    free(story);
    json_decref(page);
    return rc;
}

int cmd_design(int argc, char **argv)
{
    opts o = {0};
    o.reference = NAN;
    o.from = NAN;
    o.u_min = 0;
    o.u_max = 1e9;
    o.band = 0.1;
    o.antiwindup = QC_AW_CONDITIONAL;
    o.horizon = 180;
    o.fall = NAN;
    o.noise_reps = -1;
    enum { LAW_INTEGRAL, LAW_PI, LAW_BOTH };
    static const int laws[] = {LAW_INTEGRAL, LAW_INTEGRAL, LAW_PI, LAW_BOTH};
    static const int aws[] = {QC_AW_NONE, QC_AW_CONDITIONAL, QC_AW_BACKCALC};
    int law = LAW_BOTH, help = 0, rc;
    uint64_t noise_reps = 0;
    const cli_flag flags[] = {
        {"model", CLI_STR, &o.model, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "the model JSON"},
        {"settling", CLI_DOUBLE, &o.spec.settling, 1, HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "K",
         .help = "wanted settling time, in samples (2%: pole modulus e^(-4/K))"},
        {"overshoot", CLI_DOUBLE, &o.spec.overshoot, 0, 1, .open = CLI_OPEN_MAX, .arg = "M",
         .help = "wanted maximum overshoot in [0, 1) (default 0)"},
        {"law", CLI_CHOICE, &law, .arg = "L", .choices = "integral,i,pi,both", .values = laws,
         .help = "integral, pi or both (default both)"},
        {"gains", CLI_FUNC, &o, .arg = "K1,K2,...", .parse = parse_gains,
         .help = "K_I values for the root-locus table (default: fractions\n"
                 "of the stable range)"},
        {"kp", CLI_DOUBLE, &o.kp, .arg = "KP",
         .help = "K_P for the table and the stable range (default 0)"},
        {"no-sensor", CLI_BOOL, &o.no_sensor, .help = "ignore the model's sensor block"},
        {"reference", CLI_DOUBLE, &o.reference, .arg = "R",
         .help = "predict the step to R (plant units) for each gain of\n"
                 "--gains (or the designed K_I): the model loop run with the\n"
                 "actuator limits, settling and overshoot measured as 'qctl\n"
                 "sim maxusers' measures them, and a verdict. With a sensor\n"
                 "that has a reach ('max'), a reference it cannot reach is\n"
                 "refused (exit 2) with the bound"},
        {"from", CLI_DOUBLE, &o.from, .arg = "Y",
         .help = "the step starts at rest at Y (default: the operating point)"},
        {"u-min", CLI_DOUBLE, &o.u_min, .arg = "U", .help = "actuator's lower limit (default 0)"},
        {"u-max", CLI_DOUBLE, &o.u_max, .arg = "U", .help = "actuator's upper limit (default 1e9)"},
        {"antiwindup", CLI_CHOICE, &o.antiwindup, .arg = "A",
         .choices = "none,conditional,backcalc", .values = aws,
         .help = "none, conditional (default) or backcalc, as in sim"},
        {"band", CLI_DOUBLE, &o.band, 0, 1, .open = CLI_OPEN_MIN | CLI_OPEN_MAX, .arg = "F",
         .help = "settling band, fraction of R (default 0.1, as in sim)"},
        {"horizon", CLI_UINT, &o.horizon, 10, 1e7, .arg = "N",
         .help = "samples predicted (default 180)"},
        {"fall", CLI_DOUBLE, &o.fall, 0, 1, .open = CLI_OPEN_MAX, .arg = "F",
         .help = "the input in effect falls by at most the fraction F per\n"
                 "sample (MaxUsers: connections end only as sessions do);\n"
                 "default: the model's input_fall ('qctl sysid --fall'),\n"
                 "else 0. The model's u is then the input in effect"},
        {"noise-reps", CLI_U64, &noise_reps, 0, 10000, .arg = "N",
         .help = "realisations of the prediction with the fits' residual\n"
                 "noise added to the plant's and the sensor's outputs\n"
                 "(default 20 when the model has residual variances; 0:\n"
                 "one noiseless run). A loop without overshoot still\n"
                 "measures the excursions of its noise; figures are means"},
        {"sensor-reference", CLI_BOOL, &o.sensor_reference,
         .help = "the reference is in the sensor's units (compared with the\n"
                 "measurement as is, not compensated)"},
        {"sensor-linear", CLI_BOOL, &o.sensor_linear,
         .help = "predict the loop through the sensor with its linear model\n"
                 "on the affine map even when the model has the sensor's\n"
                 "completion-log curve ('qctl sysid --sensor-curve'; with\n"
                 "the curve the sensor model's dynamics at unit DC gain\n"
                 "are followed by the curve)"},
        {"steps", CLI_UINT, &o.steps, 2, 1e7, .arg = "N",
         .help = "length of the simulated step responses (default: automatic)"},
        {"json", CLI_BOOL, &o.json, .help = "print the results as JSON"},
        {"output", CLI_STR, &o.output, .arg = "FILE", .help = "also write the JSON to FILE"},
        {"plot", CLI_STR, &o.plot, .arg = "DIR",
         .help = "draw the root locus and step responses into DIR (gnuplot)"},
        {"report", CLI_STR, &o.report, .arg = "DIR",
         .help = "write DIR/index.html: model, design tables and the plots of\n"
                 "--plot, in one self-contained page"},
        {"quiet", CLI_BOOL, &o.quiet,
         .help = "no notices on standard error (a specification no\ndesign meets is still "
                 "said in the results)"},
        CLI_ROW_HELP(&help),
        {0}};
    unsigned given[sizeof flags / sizeof flags[0]];
    if ((rc = cli_flags_parse_command("design", synopsis, about, flags, argc, argv, given)) != 0)
        return rc == CLI_DONE_HELP ? 0 : rc;
    o.law_i = law != LAW_PI;
    o.law_pi = law != LAW_INTEGRAL;
    o.have_spec = cli_flag_given(flags, given, "settling") > 0;
    int have_over = cli_flag_given(flags, given, "overshoot") > 0;
    if (cli_flag_given(flags, given, "noise-reps"))
        o.noise_reps = (long)noise_reps;
    if (o.report && (rc = cli_report_prepare(o.report)) != 0)
        return rc;
    if (o.model == NULL) {
        cli_error("design: --model is required (see 'qctl design --help')");
        return QC_EXIT_USAGE;
    }
    if (!(o.u_min < o.u_max)) {
        cli_error("design: --u-min %g is not below --u-max %g", o.u_min, o.u_max);
        return QC_EXIT_USAGE;
    }
    if (o.sensor_reference && !isfinite(o.reference)) {
        cli_error("design: --sensor-reference needs --reference");
        return QC_EXIT_USAGE;
    }
    if (isfinite(o.from) && !isfinite(o.reference)) {
        cli_error("design: --from needs --reference");
        return QC_EXIT_USAGE;
    }
    if (have_over && !o.have_spec) {
        cli_error("design: --overshoot needs --settling");
        return QC_EXIT_USAGE;
    }
    qc_err err = {0};
    if (o.have_spec) {
        double re, im;
        if (qc_design_target(&o.spec, &re, &im, &err) != 0) {
            cli_error("--overshoot: %s", err.msg);
            return QC_EXIT_USAGE;
        }
    }
    /* A program owns GSL's error handler: report failures, do not abort. */
    gsl_set_error_handler_off();

    qc_arx_system sys;
    if ((rc = qc_arx_system_read(o.model, &sys, &err)) != 0) {
        cli_error("%s", err.msg);
        return cli_exit_code(rc);
    }
    if (isnan(o.fall))
        o.fall = sys.input_fall;
    if (sys.plant.delay < 0) {
        cli_error("%s: delay: %d: the plant needs delay >= 0 to be closed by a controller",
                  o.model, sys.plant.delay);
        return QC_EXIT_USAGE;
    }
    /* A reference the sensor cannot reach: refused before any design. */
    double ref_m = NAN;
    if (isfinite(o.reference) && sys.has_sensor && !o.no_sensor) {
        double g, off;
        if (sys.has_affine) {
            g = sys.affine.gain;
            off = sys.affine.offset;
        } else {
            g = qc_arx_dc_gain(&sys.sensor);
            off = sys.sensor.y0 - g * sys.sensor.u0;
        }
        ref_m = o.sensor_reference ? o.reference : off + g * o.reference;
        if (!(ref_m < sys.sensor_max)) {
            if (o.sensor_reference)
                cli_error("--reference %g is not reachable: the sensor cannot read more than %g",
                          o.reference, sys.sensor_max);
            else
                cli_error("--reference %g is not reachable through the sensor: it maps to %g "
                          "(%s), and the sensor cannot read more than %g; the largest reference "
                          "it can hold is below %g",
                          o.reference, ref_m,
                          sys.has_affine ? "its affine map" : "its DC-gain tangent",
                          sys.sensor_max, (sys.sensor_max - off) / g);
            return QC_EXIT_USAGE;
        }
    }
    loop *loops = calloc(2, sizeof *loops);
    if (loops == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    size_t nl = 1;
    loops[0].name = "loop on the plant output";
    loops[0].plant = &sys.plant;
    if (sys.has_sensor && !o.no_sensor) {
        loops[1].name = "loop measured through the sensor";
        loops[1].plant = &sys.plant;
        loops[1].sensor = &sys.sensor;
        nl = 2;
    }
    json_t *doc = NULL;
    for (size_t i = 0; i < nl && rc == 0; i++)
        rc = run_loop(&loops[i], &o);
    if (rc != 0)
        goto done;

    const double dt = sys.plant.dt;
    const int use_curve = nl == 2 && sys.has_curve && !o.sensor_linear;
    /* Predictions for a reference step with the actuator limits. */
    size_t npred = 0;
    double pk[MAX_GAINS];
    qc_design_prediction pred[MAX_GAINS], pred_s[MAX_GAINS];
    int have_pred_s = 0;
    qc_design_predict_params pp = {0};
    if (isfinite(o.reference)) {
        if (o.ngains > 0)
            for (size_t i = 0; i < o.ngains; i++)
                pk[npred++] = o.gains[i];
        else if (loops[0].have_i)
            pk[npred++] = loops[0].di.ki;
        else
            for (size_t i = 0; i < loops[0].ngains; i++)
                pk[npred++] = loops[0].gains[i];
        pp.kp = o.kp;
        pp.u_min = o.u_min;
        pp.u_max = o.u_max;
        pp.antiwindup = o.antiwindup;
        pp.y_start = isfinite(o.from) ? o.from : sys.plant.y0;
        pp.r = o.reference;
        pp.band = o.band;
        pp.horizon = o.horizon;
        pp.fall = o.fall;
        const int have_var = isfinite(sys.plant_noise_var) &&
                             (!(nl == 2) || isfinite(sys.sensor_noise_var));
        pp.reps = o.noise_reps >= 0 ? (unsigned)o.noise_reps : have_var ? 20 : 0;
        pp.noise_sd = isfinite(sys.plant_noise_var) ? sqrt(sys.plant_noise_var) : 0;
        pp.seed = 1;
        if ((rc = predict_gains(loops[0].w, &sys.plant, &pp, pk, npred, pred, "")) != 0)
            goto done;
        if (nl == 2) {
            /* the loop closed on the sensor: its model, moved onto the
             * affine map near the reference when there is one (the same
             * slope, the sensor's DC gain), given the reference r_m */
            qc_arx_model sens = sys.sensor;
            if (sys.has_affine)
                sens.y0 = sys.affine.offset + sys.affine.gain * sens.u0;
            qc_design_predict_params sp = pp;
            sp.sensor = &sens;
            sp.r_m = ref_m;
            sp.sensor_max = isfinite(sys.sensor_max) ? sys.sensor_max : 0;
            sp.sensor_noise_sd = isfinite(sys.sensor_noise_var) ? sqrt(sys.sensor_noise_var) : 0;
            if (use_curve) {
                sp.sensor_curve = sys.curve.scale;
                if (isfinite(sys.curve.residual_variance))
                    sp.sensor_noise_sd = sqrt(sys.curve.residual_variance);
                if (isfinite(sys.curve.residual_cv))
                    sp.sensor_noise_cv = sys.curve.residual_cv;
            }
            rc = predict_gains(loops[1].w, &sys.plant, &sp, pk, npred, pred_s,
                               " through the sensor");
            if (rc != 0)
                goto done;
            have_pred_s = 1;
        }
    }
    doc = json_object();
    json_object_set_new(doc, "command", json_string("design"));
    json_object_set_new(doc, "model_file", json_string(o.model));
    json_t *pm = qc_arx_model_json(&sys.plant);
    json_object_set_new(pm, "dc_gain", qc_json_real_new(qc_arx_dc_gain(&sys.plant)));
    json_object_set_new(doc, "plant", pm);
    if (nl == 2) {
        json_t *sm = qc_arx_model_json(&sys.sensor);
        json_object_set_new(sm, "dc_gain", qc_json_real_new(qc_arx_dc_gain(&sys.sensor)));
        json_object_set_new(sm, "curve", sys.has_curve ? qc_arx_curve_json(&sys.curve) : json_null());
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
    if (o.have_spec) {
        double re, im;
        qc_design_target(&o.spec, &re, &im, &err);
        json_t *sp = json_object();
        json_object_set_new(sp, "settling_samples", json_real(o.spec.settling));
        json_object_set_new(sp, "overshoot", json_real(o.spec.overshoot));
        json_t *tp = json_object();
        json_object_set_new(tp, "re", json_real(re));
        json_object_set_new(tp, "im", json_real(im));
        json_object_set_new(tp, "modulus", json_real(hypot(re, im)));
        json_object_set_new(tp, "angle", json_real(atan2(im, re)));
        json_object_set_new(sp, "target_pole", tp);
        json_object_set_new(doc, "spec", sp);
    } else {
        json_object_set_new(doc, "spec", json_null());
    }
    json_t *lj = json_array();
    for (size_t i = 0; i < nl; i++)
        json_array_append_new(lj, loop_json(&loops[i], &o, dt));
    json_object_set_new(doc, "loops", lj);
    if (isfinite(o.reference)) {
        json_t *pj = json_object();
        json_object_set_new(pj, "reference", json_real(o.reference));
        json_object_set_new(pj, "reference_measured", qc_json_real_new(ref_m));
        json_object_set_new(pj, "from", json_real(pp.y_start));
        json_object_set_new(pj, "u_min", json_real(o.u_min));
        json_object_set_new(pj, "u_max", json_real(o.u_max));
        json_object_set_new(pj, "band", json_real(o.band));
        json_object_set_new(pj, "horizon", json_integer(o.horizon));
        json_object_set_new(pj, "fall", json_real(o.fall));
        json_object_set_new(pj, "noise_realisations", json_integer(pp.reps));
        json_object_set_new(pj, "noise_sd", json_real(pp.reps > 0 ? pp.noise_sd : 0));
        json_object_set_new(pj, "gains", prediction_rows(pred, pk, npred, dt));
        json_object_set_new(pj, "sensor_model",
                            nl != 2 ? json_null()
                                    : json_string(use_curve ? "wiener_completion_log" : "linear"));
        json_object_set_new(pj, "gains_through_sensor",
                            have_pred_s ? prediction_rows(pred_s, pk, npred, dt) : json_null());
        json_object_set_new(doc, "prediction", pj);
    }

    if (o.json) {
        if ((rc = cli_json_out(doc, NULL)) != 0)
            goto done;
    } else {
        const qc_arx_model *m = &sys.plant;
        printf("Controller design for %s: ARX na = %u, nb = %u, delay = %d, DC gain %.6g\n",
               o.model, m->na, m->nb, m->delay, qc_arx_dc_gain(m));
        printf("  operating point u = %.6g, y = %.6g", m->u0, m->y0);
        if (dt > 0)
            printf(", sample interval %.6g s", dt);
        printf("\n");
        if (nl == 2) {
            printf("  sensor: ARX na = %u, nb = %u, delay = %d, DC gain %.6g\n", sys.sensor.na,
                   sys.sensor.nb, sys.sensor.delay, qc_arx_dc_gain(&sys.sensor));
            if (sys.has_affine)
                printf("  sensor affine map near y = %g: ym = %.6g + %.6g y; a loop on the sensor\n"
                       "  holds the true output at r when given the reference %.6g + %.6g r\n",
                       sys.affine.at, sys.affine.offset, sys.affine.gain, sys.affine.offset,
                       sys.affine.gain);
            else
                printf("  (in offsets from the operating point: true y - %.6g = (ym - %.6g) / %.6g;\n"
                       "  identify with --sensor-at R for the map around a reference)\n",
                       sys.sensor.u0, sys.sensor.y0, qc_arx_dc_gain(&sys.sensor));
            if (sys.has_curve)
                printf("  sensor completion-log curve: ym = f(v), f(N) = N - (N^2/S)(1 - exp(-S/N)),\n"
                       "  S = %.5g, v the sensor model's output at unit DC gain%s\n",
                       sys.curve.scale, o.sensor_linear ? " (not used: --sensor-linear)" : "");
            if (isfinite(sys.sensor_max))
                printf("  the sensor reads at most %g\n", sys.sensor_max);
        }
        if (o.have_spec) {
            double re, im;
            qc_design_target(&o.spec, &re, &im, &err);
            printf("  wanted: settling %g samples, overshoot %g -> target pole %.4g%+.4gi "
                   "(modulus %.4g)\n",
                   o.spec.settling, o.spec.overshoot, re, im, hypot(re, im));
        }
        printf("  rules: k_s = -4/ln r (r the largest pole modulus); M_p = r^(pi/theta) of the\n"
               "  dominant pole; 'simulated' is a unit step on the model loop (2%% band)\n");
        for (size_t i = 0; i < nl; i++)
            print_loop(&loops[i], &o, dt);
        if (isfinite(o.reference)) {
            printf("\nprediction: step from %g to %g on the plant loop, MaxUsers controller with\n"
                   "limits [%g, %g] and %s anti-windup; settling on the 5-sample moving average\n"
                   "within %g%% of the reference, as 'qctl sim maxusers' measures it; input in\n"
                   "effect falling at most %g a sample; ",
                   pp.y_start, o.reference, o.u_min, o.u_max,
                   o.antiwindup == QC_AW_NONE ? "no" : o.antiwindup == QC_AW_BACKCALC ? "back-calculation" : "conditional",
                   100 * o.band, o.fall);
            if (pp.reps > 0)
                printf("means over %u realisations with the fit's residual noise (sd %.3g)\n"
                       "added to the output (settling 'k/n': settled in k of n):\n",
                       pp.reps, pp.noise_sd);
            else
                printf("one noiseless run:\n");
            print_predictions(pred, pk, npred, dt);
            if (have_pred_s) {
                char cap[64] = "";
                if (isfinite(sys.sensor_max))
                    snprintf(cap, sizeof cap, ", capped at %g,", sys.sensor_max);
                if (use_curve)
                    printf("\nprediction through the sensor: the controller measures the sensor model's\n"
                           "dynamics at unit DC gain followed by its completion-log curve (S = %.5g)%s\n"
                           "against %g; settling and overshoot of the plant output against %g%s:\n",
                           sys.curve.scale, cap, ref_m, o.reference,
                           pp.reps > 0 ? "; the curve fit's residual noise added too" : "");
                else
                    printf("\nprediction through the sensor: the controller measures the sensor model's\n"
                           "output%s%s against %g; settling and overshoot of the plant output\n"
                           "against %g%s:\n",
                           sys.has_affine ? " (on its affine map near the reference)" : "", cap, ref_m,
                           o.reference, pp.reps > 0 ? "; the sensor's residual noise added too" : "");
                print_predictions(pred_s, pk, npred, dt);
            }
        }
    }
    if (o.output && (rc = cli_json_out(doc, o.output)) != 0)
        goto done;
    if (o.plot)
        rc = write_plots(o.plot, "--plot", loops, nl, &o);
    if (rc == 0 && o.report) {
        const page_in in = {&o, &sys, nl, dt, ref_m, pk, npred, pred, have_pred_s ? pred_s : NULL,
                            pp.reps};
        rc = write_page(loops, &in, doc, argc, argv);
    }
done:
    json_decref(doc);
    for (size_t i = 0; i < 2; i++)
        qc_design_free(loops[i].w);
    free(loops);
    return rc;
}
