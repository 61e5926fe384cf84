/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sysid_run.c: the work of `qctl sysid` (app/sysid_run.h): ARX
 * identification of a system from a CSV file. Reads (time, u, y) columns,
 * calls qc_arx_fit for the plant (and for a sensor from (time, y, measured
 * y) when asked), and keeps what the outputs read: the candidate table,
 * the chosen models, the model JSON built once, the plots. */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/plot.h"
#include "app/sysid_run.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/output.h"

/* Number of comma-separated entries of s. */
static size_t count_list(const char *s)
{
    size_t n = 1;
    for (; *s; s++)
        n += *s == ',';
    return n;
}

/* Reads 2 or 3 columns: (time,) input, output. t is NULL without time. */
typedef struct series {
    double *t, *u, *y;
    size_t n;
} series;

static void series_free(series *s)
{
    free(s->t);
    free(s->u);
    free(s->y);
    memset(s, 0, sizeof *s);
}

static int read_series(const char *path, const char *select, const char *def, size_t skip,
                       size_t lag, series *s, qc_err *err)
{
    memset(s, 0, sizeof *s);
    const char *sel = select ? select : def;
    const size_t k = count_list(sel);
    if (k != 2 && k != 3)
        return qc_err_set(err, QC_EINVAL, "columns '%s': give T,U,Y or U,Y", sel);
    double *cols[3] = {0};
    unsigned flags = (select ? 0 : QC_ARX_CSV_POSITIONAL) | (k == 3 ? QC_ARX_CSV_TIME : 0);
    int rc = qc_arx_read_csv(path, sel, k, flags, cols, &s->n, err);
    if (rc != 0)
        return rc;
    if (k == 3) {
        s->t = cols[0];
        s->u = cols[1];
        s->y = cols[2];
    } else {
        s->u = cols[0];
        s->y = cols[1];
    }
    if (skip >= s->n) {
        const size_t n = s->n;
        series_free(s);
        return qc_err_set(err, QC_EINVAL, "%s: --skip %zu drops all %zu rows", path, skip, n);
    }
    if (skip > 0) {
        double *c[3] = {s->t, s->u, s->y};
        for (int i = 0; i < 3; i++)
            if (c[i])
                memmove(c[i], c[i] + skip, (s->n - skip) * sizeof *c[i]);
        s->n -= skip;
    }
    if (lag > 0) {
        /* u(k) is on row k + lag: pair it with y(k), drop the last rows */
        if (lag + 4 > s->n) {
            const size_t n = s->n;
            series_free(s);
            return qc_err_set(err, QC_EINVAL, "%s: --input-lag %zu leaves too few of %zu rows",
                              path, lag, n);
        }
        memmove(s->u, s->u + lag, (s->n - lag) * sizeof *s->u);
        s->n -= lag;
    }
    return 0;
}

/* The value V of a comment line "# KEY=V" in path; NAN if none. */
static double comment_value(const char *path, const char *key)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NAN;
    char line[1024];
    double v = NAN;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        const char *p = line;
        if (*p != '#')
            break;
        p++;
        while (*p == ' ')
            p++;
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            char *end;
            double x = strtod(p + kl + 1, &end);
            if (end != p + kl + 1 && isfinite(x))
                v = x;
            break;
        }
    }
    fclose(f);
    return v;
}

/* The last name of a T,Y,M column selection (the measured column). */
static void last_column(const char *sel, char *out, size_t n)
{
    const char *c = strrchr(sel, ',');
    snprintf(out, n, "%s", c ? c + 1 : sel);
}

/* The mean sample interval from the time column; 0 without one. */
static double sample_interval(const series *s)
{
    if (s->t == NULL || s->n < 2)
        return 0;
    return (s->t[s->n - 1] - s->t[0]) / (double)(s->n - 1);
}

static int fit_series(const char *path, const series *s, qc_arx_params *o, qc_arx_result *res,
                      qc_err *err)
{
    qc_arx_ws *w = qc_arx_alloc(s->n < 4 ? 4 : s->n, err);
    if (w == NULL)
        return err->code;
    int rc = qc_arx_fit(w, s->u, s->y, s->n, o, res, err);
    qc_arx_free(w);
    if (rc != 0) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return qc_err_set(err, rc, "%s: %s", path, msg);
    }
    return 0;
}

/* One term " + c name(k+lag)" of the equation (no sign before the first). */
static void print_term(int first, double c, const char *name, int lag)
{
    if (first)
        printf(" %.6g %s(k", c, name);
    else
        printf(" %c %.6g %s(k", c < 0 ? '-' : '+', fabs(c), name);
    if (lag != 0)
        printf("%+d", lag);
    printf(")");
}

static void print_equation(const qc_arx_model *m, const char *yname, const char *uname)
{
    printf("    %s(k+1) =", yname);
    for (unsigned i = 1; i <= m->na; i++)
        print_term(i == 1, m->a[i - 1], yname, 1 - (int)i);
    for (unsigned j = 1; j <= m->nb; j++)
        print_term(m->na == 0 && j == 1, m->b[j - 1], uname, 1 - m->delay - (int)j);
    printf("\n");
}

static void print_result(const char *title, const char *path, const qc_arx_result *r,
                         const char *uname, const char *yname, int demean)
{
    const qc_arx_model *m = &r->model;
    printf("%s: %s, %zu samples (%zu estimation, %zu validation)\n", title, path, r->n, r->n_est,
           r->n_val);
    printf("  operating point %s = %.6g, %s = %.6g (%s)", uname, m->u0, yname, m->y0,
           demean ? "means of the estimation part" : "given");
    if (m->dt > 0)
        printf("; sample interval %.6g s", m->dt);
    printf("\n  %s = %s over N = %zu common rows\n\n",
           r->criterion == QC_ARX_BIC ? "BIC" : "AIC",
           r->criterion == QC_ARX_BIC ? "N ln(RSS/N) + p ln N" : "N ln(RSS/N) + 2p", r->rows);
    printf("  %3s %3s %5s %6s %14s %14s %14s %9s\n", "na", "nb", "delay", "params", "AIC", "BIC",
           "resid. var.", "R^2");
    for (size_t i = 0; i < r->ncand; i++) {
        const qc_arx_candidate *c = &r->cand[i];
        if (!c->usable) {
            printf("  %3u %3u %5d %6u   (rank deficient: not identifiable)\n", c->na, c->nb,
                   c->delay, c->params);
            continue;
        }
        printf("  %3u %3u %5d %6u %14.6g %14.6g %14.6g %9.5f%s\n", c->na, c->nb, c->delay,
               c->params, c->aic, c->bic, c->sigma2, c->r2, i == r->best ? "  <- chosen" : "");
    }
    printf("\n  chosen: na = %u, nb = %u, delay = %d (offsets)\n", m->na, m->nb, m->delay);
    print_equation(m, yname, uname);
    for (unsigned i = 0; i < m->na; i++)
        printf("    a%u = %12.6g +- %.3g (standard error)\n", i + 1, m->a[i], r->se_a[i]);
    for (unsigned j = 0; j < m->nb; j++)
        printf("    b%u = %12.6g +- %.3g (standard error)\n", j + 1, m->b[j], r->se_b[j]);
    printf("  estimation: R^2 = %.5f, residual variance = %.6g\n", r->r2, r->sigma2);
    const double g = qc_arx_dc_gain(m), gse = qc_arx_dc_gain_se(r);
    if (isfinite(gse)) {
        printf("  static (DC) gain = %.4g +- %.2g (95%%: %.4g .. %.4g)", g, 1.96 * gse,
               g - 1.96 * gse, g + 1.96 * gse);
        if (1.96 * gse > 0.15 * fabs(g))
            printf("  POORLY DETERMINED: hold the excitation longer or run longer");
        printf("\n");
    } else {
        printf("  static (DC) gain = %.6g (no interval: A(1) = 0)\n", g);
    }
    if (r->n_val >= 2)
        printf("  validation: one-step R^2 = %.5f, simulated fit = %.2f%%\n", r->val_r2,
               r->val_fit);
    else
        printf("  validation: none (no data held out)\n");
}


static int write_plot(const char *dir, const char *name, const char *title, const series *s,
                      const qc_arx_result *r, const char *yname, qc_err *err)
{
    size_t n = s->n;
    double *one = malloc(n * sizeof *one), *sim = malloc(n * sizeof *sim);
    char file[256], path[4096];
    snprintf(file, sizeof file, "%s.csv", name);
    int rc = 0;
    if (!one || !sim) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto done;
    }
    qc_arx_predict(&r->model, s->u, s->y, n, 0, one, NULL);
    qc_arx_predict(&r->model, s->u, s->y, n, r->n_est, NULL, sim);
    qc_ofile f;
    if (qc_plot_data(&f, dir, file, path, sizeof path, err) == NULL) {
        rc = err->code;
        goto done;
    }
    fprintf(f.fp, "time,u,measured,one_step,simulated\n");
    for (size_t k = 0; k < n; k++) {
        fprintf(f.fp, "%.10g,%.10g,%.10g,", s->t ? s->t[k] : (double)k, s->u[k], s->y[k]);
        fprintf(f.fp, isnan(one[k]) ? "," : "%.10g,", one[k]);
        fprintf(f.fp, isnan(sim[k]) ? "\n" : "%.10g\n", sim[k]);
    }
    if ((rc = qc_ofile_commit(&f, err)) != 0)
        goto done;
    const double split = s->t ? s->t[r->n_est < n ? r->n_est : n - 1] : (double)r->n_est;
    rc = qc_plotf(
        dir, name, err,
        "set datafile separator ','\nset datafile missing ''\nset key outside bottom center horizontal\n"
        "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n"
        "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb 'gray40'\n"
        "set label 'validation' at %.10g, graph 0.95 offset 1,0\n"
        "plot '%s' using 1:3 every ::1 with lines lw 1.5 lc rgb '#1f77b4' title 'measured', "
        "'' using 1:4 every ::1 with lines lw 1 lc rgb '#ff7f0e' title 'one-step prediction', "
        "'' using 1:5 every ::1 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title 'simulated from u'",
        title, s->t ? "time (s)" : "sample", yname, split, split, split, path);
done:
    free(one);
    free(sim);
    return rc;
}

/* ---- the descriptor: parameters, check, run, outputs ---------------------- */

struct qc_app_sysid {
    qc_app_sysid_params p;
    series s, ss;
    qc_arx_result *pr, *sr;
    qc_arx_affine affine;
    int have_affine, fall_auto;
    qc_arx_curve curve;
    json_t *doc;
};

void qc_app_sysid_params_init(qc_app_sysid_params *p)
{
    memset(p, 0, sizeof *p);
    p->sensor_at = p->sensor_width = p->sensor_max = NAN;
    qc_arx_params_init(&p->plant);
    qc_arx_params_init(&p->sensor);
    p->sensor.na_min = 0;
    p->sensor.na_max = 2;
    p->sensor.nb_min = 1;
    p->sensor.nb_max = 2;
    p->sensor.tied = 0;
    p->sensor.d_min = -1;
    p->sensor.d_max = 1;
}

int qc_app_sysid_params_check(const qc_app_sysid_params *p, qc_err *err)
{
    if (p->csv == NULL)
        return qc_err_set(err, QC_EINVAL, "csv: a data file is required");
    if (p->operating_point && p->demean)
        return qc_err_set(err, QC_EINVAL, "demean: excludes a given operating point");
    if (p->orders && p->na_nb)
        return qc_err_set(err, QC_EINVAL, "orders: (na = nb) excludes na and nb chosen apart");
    if (!p->sensor_csv) {
        const struct {
            const char *field;
            int given;
        } need[] = {{"sensor_at", isfinite(p->sensor_at)},
                    {"sensor_width", isfinite(p->sensor_width)},
                    {"sensor_max", isfinite(p->sensor_max)},
                    {"sensor_curve", p->sensor_curve},
                    {"sensor_columns", p->sensor_columns != NULL}};
        for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
            if (need[i].given)
                return qc_err_set(err, QC_EINVAL, "%s: needs a sensor file", need[i].field);
    }
    if (isfinite(p->sensor_width) && !isfinite(p->sensor_at))
        return qc_err_set(err, QC_EINVAL, "sensor_width: needs the point of the map (sensor_at)");
    return 0;
}

/* The plant: its input in effect (the fall rate chosen with the model, or
 * the one given) and its fit. */
static int fit_plant(qc_app_sysid *d, qc_err *err)
{
    qc_app_sysid_params *o = &d->p;
    series *s = &d->s;
    if (!isnan(o->fall)) {
        qc_arx_fall_input(s->u, s->n, o->fall, s->u);
        return fit_series(o->csv, s, &o->plant, d->pr, err);
    }
    double *ueff = malloc(s->n * sizeof *ueff);
    qc_arx_ws *aw = ueff ? qc_arx_alloc(s->n < 4 ? 4 : s->n, err) : NULL;
    if (aw == NULL) {
        free(ueff);
        return ueff ? err->code : qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    int rc = qc_arx_fit_fall(aw, s->u, s->y, s->n, &o->plant, 0.5, ueff, &o->fall, d->pr, err);
    qc_arx_free(aw);
    if (rc != 0) {
        free(ueff);
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return qc_err_set(err, rc, "%s: %s", o->csv, msg);
    }
    free(s->u);
    s->u = ueff;
    d->fall_auto = 1;
    return 0;
}

/* A read error, with the flag of the columns when a name was not found. */
static int read_failed(int rc, const char *hint, qc_err *err)
{
    if (rc == QC_EPARSE && strstr(err->msg, "no column named")) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        qc_err_set(err, rc, "%s (see %s)", msg, hint);
    }
    return rc;
}

static int fit_sensor(qc_app_sysid *d, qc_err *err)
{
    qc_app_sysid_params *o = &d->p;
    int rc = read_series(o->sensor_csv, o->sensor_columns, "time,y,ym", (size_t)o->skip, 0,
                         &d->ss, err);
    if (rc != 0)
        return read_failed(rc, "--sensor-columns", err);
    /* The sensor maps true output offsets to measured ones: demeaned
     * from its own data, like the plant unless a point was given. */
    o->sensor.demean = 1;
    o->sensor.dt = o->dt > 0 ? o->dt : sample_interval(&d->ss);
    if ((d->sr = malloc(sizeof *d->sr)) == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    if ((rc = fit_series(o->sensor_csv, &d->ss, &o->sensor, d->sr, err)) != 0)
        return rc;
    char msg[sizeof err->msg];
    if (isfinite(o->sensor_at)) {
        double w = isfinite(o->sensor_width) ? o->sensor_width : 0.15 * fabs(o->sensor_at);
        if ((rc = qc_arx_affine_fit(d->ss.u, d->ss.y, d->ss.n, o->sensor_at, w,
                                     qc_arx_dc_gain(&d->sr->model), &d->affine, err)) != 0) {
            snprintf(msg, sizeof msg, "%s", err->msg);
            return qc_err_set(err, rc, "%s: --sensor-at %g: %s", o->sensor_csv, o->sensor_at,
                              msg);
        }
        d->have_affine = 1;
    }
    if (o->sensor_curve &&
        (rc = qc_arx_curve_fit(&d->sr->model, d->ss.u, d->ss.y, d->ss.n, &d->curve, err)) != 0) {
        snprintf(msg, sizeof msg, "%s", err->msg);
        return qc_err_set(err, rc, "%s: --sensor-curve: %s", o->sensor_csv, msg);
    }
    if (!isfinite(o->sensor_max)) {
        char name[128], key[160];
        last_column(o->sensor_columns ? o->sensor_columns : "time,y,ym", name, sizeof name);
        snprintf(key, sizeof key, "%s_bound", name);
        o->sensor_max = comment_value(o->sensor_csv, key);
    }
    return 0;
}

/* The model JSON: the plant's fit, its source, and the sensor's. */
static json_t *model_json(const qc_app_sysid *d)
{
    const qc_app_sysid_params *o = &d->p;
    json_t *doc = qc_arx_result_json(d->pr);
    json_t *src = json_object();
    json_object_set_new(src, "csv", json_string(o->csv));
    json_object_set_new(src, "columns", json_string(o->columns ? o->columns : "time,u,y"));
    json_object_set_new(src, "operating_point", json_string(o->plant.demean ? "demean" : "given"));
    json_object_set_new(doc, "source", src);
    if (o->fall > 0 || d->fall_auto)
        json_object_set_new(doc, "input_fall", json_real(o->fall));
    if (d->sr == NULL)
        return doc;
    json_t *sj = qc_arx_result_json(d->sr);
    json_t *ssrc = json_object();
    json_object_set_new(ssrc, "csv", json_string(o->sensor_csv));
    json_object_set_new(ssrc, "columns",
                        json_string(o->sensor_columns ? o->sensor_columns : "time,y,ym"));
    json_object_set_new(ssrc, "input", json_string("true output y"));
    json_object_set_new(ssrc, "output", json_string("measured output"));
    json_object_set_new(sj, "source", ssrc);
    if (d->have_affine)
        json_object_set_new(sj, "affine", qc_arx_affine_json(&d->affine));
    if (o->sensor_curve)
        json_object_set_new(sj, "curve", qc_arx_curve_json(&d->curve));
    if (isfinite(o->sensor_max))
        json_object_set_new(sj, "max", json_real(o->sensor_max));
    json_object_set_new(doc, "sensor", sj);
    return doc;
}

qc_app_sysid *qc_app_sysid_run(const qc_app_sysid_params *p, qc_err *err)
{
    if (qc_app_sysid_params_check(p, err) != 0)
        return NULL;
    qc_app_sysid *d = calloc(1, sizeof *d);
    if (d == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        return NULL;
    }
    d->p = *p;
    qc_app_sysid_params *o = &d->p;
    if (o->operating_point)
        o->plant.demean = 0;
    if (o->na_nb)
        o->plant.tied = 0;
    o->sensor.criterion = o->plant.criterion;
    o->sensor.holdout = o->plant.holdout;
    int rc = read_series(o->csv, o->columns, "time,u,y", (size_t)o->skip, (size_t)o->input_lag,
                         &d->s, err);
    if (rc != 0) {
        read_failed(rc, "--columns", err);
        goto fail;
    }
    o->plant.dt = o->dt > 0 ? o->dt : sample_interval(&d->s);
    if ((d->pr = malloc(sizeof *d->pr)) == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        goto fail;
    }
    if (fit_plant(d, err) != 0 || (o->sensor_csv && fit_sensor(d, err) != 0))
        goto fail;
    if ((d->doc = model_json(d)) == NULL) {
        qc_err_set(err, QC_ENOMEM, "out of memory");
        goto fail;
    }
    return d;
fail:
    qc_app_sysid_free(d);
    return NULL;
}

void qc_app_sysid_free(qc_app_sysid *d)
{
    if (d == NULL)
        return;
    json_decref(d->doc);
    free(d->pr);
    free(d->sr);
    series_free(&d->s);
    series_free(&d->ss);
    free(d);
}

const json_t *qc_app_sysid_json(const qc_app_sysid *d) { return d->doc; }

static void print_sensor(const qc_app_sysid *d)
{
    const qc_app_sysid_params *o = &d->p;
    const qc_arx_result *sr = d->sr;
    const qc_arx_affine *affine = &d->affine;
    printf("\n");
    print_result("Sensor (true y in, measured ym out)", o->sensor_csv, sr, "y", "ym", 1);
    if (d->have_affine)
        printf("  affine map near y = %g (%zu samples within %g): ym = %.6g + %.6g y "
               "(ym = %.6g at y = %g)\n",
               affine->at, affine->points, affine->width, affine->offset, affine->gain,
               affine->offset + affine->gain * affine->at, affine->at);
    if (o->sensor_curve) {
        const double y0 = sr->model.u0;
        const qc_arx_curve *curve = &d->curve;
        printf("  completion-log curve: ym = f(v), f(N) = N - (N^2/S)(1 - exp(-S/N)),\n"
               "  S = %.5g (%zu samples, residual sd %.3g, against %.3g for the linear\n"
               "  model); at the operating point f(%.4g) = %.4g; f rises toward S/2 = %.4g\n",
               curve->scale, curve->points, sqrt(curve->residual_variance), sqrt(sr->sigma2), y0,
               qc_arx_curve_at(curve->scale, y0), 0.5 * curve->scale);
    }
    if (isfinite(o->sensor_max))
        printf("  the sensor reads at most %g\n", o->sensor_max);
}

void qc_app_sysid_print(const qc_app_sysid *d, const char *output)
{
    const qc_app_sysid_params *o = &d->p;
    print_result("ARX identification", o->csv, d->pr, "u", "y", o->plant.demean);
    if (o->fall > 0 || d->fall_auto)
        printf("  input in effect: falls at most %.4g of itself per sample (%s); the model's u "
               "is that input\n",
               o->fall, d->fall_auto ? "chosen by the criterion" : "--fall");
    if (d->sr)
        print_sensor(d);
    if (output)
        printf("\nmodel written to %s (next: qctl design --model %s)\n", output, output);
}

static const char *const sysid_plots[] = {"sysid_fit", "sensor_fit"};

const char *const *qc_app_sysid_plot_names(const qc_app_sysid *d, size_t *n)
{
    *n = d->sr ? 2 : 1;
    return sysid_plots;
}

int qc_app_sysid_plots(const qc_app_sysid *d, const char *dir, qc_err *err)
{
    int rc = write_plot(dir, sysid_plots[0], "plant: measured vs ARX prediction", &d->s, d->pr,
                        "y", err);
    if (rc == 0 && d->sr)
        rc = write_plot(dir, sysid_plots[1], "sensor: measured vs ARX prediction", &d->ss,
                        d->sr, "measured y", err);
    return rc;
}
