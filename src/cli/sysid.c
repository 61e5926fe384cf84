/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sysid.c: `qctl sysid`, ARX identification of a system from a CSV file.
 * Reads (time, u, y) columns, calls qc_arx_fit for the plant (and for a
 * sensor from (time, y, measured y) when asked), prints the candidate
 * table and the chosen model, writes the model JSON and the plots. */
#include <gsl/gsl_errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
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
#include "qctl/output.h"

static const char synopsis[] = "qctl sysid --csv FILE [options]";

static const char about[] =
    "Identifies an ARX model y(k+1) = a1 y(k) + ... + b1 u(k-d) + ... of a system\n"
    "from samples of its input u and output y (offsets from an operating point),\n"
    "by least squares for every candidate order and delay, chosen by AIC, and\n"
    "validated on the last part of the data.\n";

typedef struct opts {
    const char *csv, *columns, *sensor_csv, *sensor_columns, *output, *plot, *report;
    int json;
    double dt;
    uint64_t skip, input_lag;
    double sensor_at, sensor_width, sensor_max;
    double fall; /* NaN: auto */
    int fall_auto;
    int sensor_curve;
} opts;

/* "A..B" or "A" into [lo, hi], each within [min, max]. */
static int parse_range(const char *flag, const char *s, int min, int max, int *lo, int *hi)
{
    char *end;
    long a = strtol(s, &end, 10), b = a;
    if (end == s)
        goto bad;
    if (strncmp(end, "..", 2) == 0) {
        const char *t = end + 2;
        b = strtol(t, &end, 10);
        if (end == t)
            goto bad;
    }
    if (*end != '\0')
        goto bad;
    if (a > b || a < min || b > max) {
        cli_error("%s: '%s' must be A..B with %d <= A <= B <= %d", flag, s, min, max);
        return QC_EXIT_USAGE;
    }
    *lo = (int)a;
    *hi = (int)b;
    return 0;
bad:
    cli_error("%s: '%s' is not a range A..B of whole numbers (bad character at column %d)", flag,
              s, (int)(end - s) + 1);
    return QC_EXIT_USAGE;
}

static int parse_urange(const char *flag, const char *s, int min, int max, unsigned *lo,
                        unsigned *hi)
{
    int a, b;
    int rc = parse_range(flag, s, min, max, &a, &b);
    if (rc == 0) {
        *lo = (unsigned)a;
        *hi = (unsigned)b;
    }
    return rc;
}

static int parse_pair(const char *flag, const char *s, double *x, double *y)
{
    const char *comma = strchr(s, ',');
    if (comma == NULL || strchr(comma + 1, ',') != NULL) {
        cli_error("%s: '%s' must be two numbers U,Y", flag, s);
        return QC_EXIT_USAGE;
    }
    char first[128];
    size_t n = (size_t)(comma - s);
    if (n >= sizeof first) {
        cli_error("%s: '%s' is too long", flag, s);
        return QC_EXIT_USAGE;
    }
    memcpy(first, s, n);
    first[n] = '\0';
    if (cli_double(flag, first, x) != 0 || cli_double(flag, comma + 1, y) != 0)
        return QC_EXIT_USAGE;
    return 0;
}

/* CLI_FUNC parsers: a range A..B within [f->min, f->max] into the int[2]
 * or unsigned[2] at f->dest; U,Y into the double[2] at f->dest; --fall. */
static int range_flag(const cli_flag *f, const char *flag, const char *s)
{
    int *v = f->dest;
    return parse_range(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

static int urange_flag(const cli_flag *f, const char *flag, const char *s)
{
    unsigned *v = f->dest;
    return parse_urange(flag, s, (int)f->min, (int)f->max, &v[0], &v[1]);
}

static int pair_flag(const cli_flag *f, const char *flag, const char *s)
{
    double *v = f->dest;
    return parse_pair(flag, s, &v[0], &v[1]);
}

static int fall_flag(const cli_flag *f, const char *flag, const char *s)
{
    double *fall = f->dest;
    if (strcmp(s, "auto") == 0) {
        *fall = NAN;
        return 0;
    }
    if (cli_double(flag, s, fall) != 0)
        return QC_EXIT_USAGE;
    if (!(*fall >= 0 && *fall < 1)) {
        cli_error("%s: %s is not in [0, 1) or 'auto'", flag, s);
        return QC_EXIT_USAGE;
    }
    return 0;
}

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

static int fit_series(const char *path, const series *s, qc_arx_params *o, qc_arx_result *res)
{
    qc_err err = {0};
    qc_arx_ws *w = qc_arx_alloc(s->n < 4 ? 4 : s->n, &err);
    if (w == NULL) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    int rc = qc_arx_fit(w, s->u, s->y, s->n, o, res, &err);
    qc_arx_free(w);
    if (rc != 0) {
        cli_error("%s: %s", path, err.msg);
        return cli_exit_code(rc);
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
                      const qc_arx_result *r, const char *yname)
{
    size_t n = s->n;
    double *one = malloc(n * sizeof *one), *sim = malloc(n * sizeof *sim);
    cli_plots pl = {.dir = dir};
    char file[256];
    snprintf(file, sizeof file, "%s.csv", name);
    int rc = 0;
    if (!one || !sim) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto done;
    }
    qc_arx_predict(&r->model, s->u, s->y, n, 0, one, NULL);
    qc_arx_predict(&r->model, s->u, s->y, n, r->n_est, NULL, sim);
    qc_ofile f;
    if (cli_plots_file(&pl, &f, file) == NULL) {
        rc = QC_EXIT_FAIL;
        goto done;
    }
    fprintf(f.fp, "time,u,measured,one_step,simulated\n");
    for (size_t k = 0; k < n; k++) {
        fprintf(f.fp, "%.10g,%.10g,%.10g,", s->t ? s->t[k] : (double)k, s->u[k], s->y[k]);
        fprintf(f.fp, isnan(one[k]) ? "," : "%.10g,", one[k]);
        fprintf(f.fp, isnan(sim[k]) ? "\n" : "%.10g\n", sim[k]);
    }
    if ((rc = cli_file_commit(&f)) != 0)
        goto done;
    const double split = s->t ? s->t[r->n_est < n ? r->n_est : n - 1] : (double)r->n_est;
    rc = cli_plots_draw(
        &pl, name,
        "set datafile separator ','\nset datafile missing ''\nset key outside bottom center horizontal\n"
        "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n"
        "set arrow from %.10g, graph 0 to %.10g, graph 1 nohead dt 2 lc rgb 'gray40'\n"
        "set label 'validation' at %.10g, graph 0.95 offset 1,0\n"
        "plot '%s' using 1:3 every ::1 with lines lw 1.5 lc rgb '#1f77b4' title 'measured', "
        "'' using 1:4 every ::1 with lines lw 1 lc rgb '#ff7f0e' title 'one-step prediction', "
        "'' using 1:5 every ::1 with lines lw 1.5 dt 3 lc rgb '#2ca02c' title 'simulated from u'",
        title, s->t ? "time (s)" : "sample", yname, split, split, split, pl.path);
done:
    free(one);
    free(sim);
    return rc;
}

static const char *const sysid_plots[] = {"sysid_fit", "sensor_fit"};

/* The plant's fit (and the sensor's, when sr is not NULL) into dir;
 * without gnuplot, a notice naming `skipped` ("--plot"), and 0. */
static int write_plots(const char *dir, const char *skipped, const series *s,
                       const qc_arx_result *pr, const series *ss, const qc_arx_result *sr)
{
    cli_plots pl;
    int rc = cli_plots_open(&pl, dir, skipped, 1);
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    rc = write_plot(dir, sysid_plots[0], "plant: measured vs ARX prediction", s, pr, "y");
    if (rc == 0 && sr)
        rc = write_plot(dir, sysid_plots[1], "sensor: measured vs ARX prediction", ss, sr,
                        "measured y");
    return rc;
}

int cmd_sysid(int argc, char **argv)
{
    opts o = {0};
    o.sensor_at = NAN;
    o.sensor_width = NAN;
    o.sensor_max = NAN;
    qc_arx_params po, so;
    qc_arx_params_init(&po);
    qc_arx_params_init(&so);
    so.na_min = 0;
    so.na_max = 2;
    so.nb_min = 1;
    so.nb_max = 2;
    so.tied = 0;
    so.d_min = -1;
    so.d_max = 1;
    /* the flags that set several fields, read into these first */
    double op[2] = {0, 0};
    unsigned orders[2], na[2], nb[2], sna[2], snb[2];
    int delays[2], sdelays[2], have_demean = 0, crit = po.criterion, help = 0, quiet = 0, rc;
    static const int crits[] = {QC_ARX_AIC, QC_ARX_BIC};
    const double mo = QC_ARX_MAX_ORDER, md = QC_ARX_MAX_DELAY;
    const cli_flag flags[] = {
        {"csv", CLI_STR, &o.csv, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "the data: one row per sample interval"},
        {"columns", CLI_STR, &o.columns, .arg = "T,U,Y",
         .help = "time, input and output columns: header names or\n"
                 "1-based numbers (default time,u,y; columns 1,2,3 when\n"
                 "the file has no header); U,Y alone: no time column"},
        {"operating-point", CLI_FUNC, op, .arg = "U,Y", .parse = pair_flag,
         .help = "model offsets from (U, Y)"},
        {"demean", CLI_BOOL, &have_demean,
         .help = "offsets from the means of the estimation part (default)"},
        {"orders", CLI_FUNC, orders, 1, mo, .arg = "A..B", .parse = urange_flag,
         .help = "na = nb in A..B (default 1..3)"},
        {"na", CLI_FUNC, na, 0, mo, .arg = "A..B", .parse = urange_flag,
         .help = "na chosen independently of nb"},
        {"nb", CLI_FUNC, nb, 1, mo, .arg = "A..B", .parse = urange_flag,
         .help = "nb chosen independently of na"},
        {"delays", CLI_FUNC, delays, -1, md, .arg = "A..B", .parse = range_flag,
         .help = "input delays d (default 0..2)"},
        {"criterion", CLI_CHOICE, &crit, .arg = "C", .choices = "aic,bic", .values = crits,
         .help = "aic (default): N ln(RSS/N) + 2p, or bic: N ln(RSS/N) + p ln N"},
        {"holdout", CLI_DOUBLE, &po.holdout, 0, 0.9, .arg = "F",
         .help = "fraction kept at the end for validation (default 0.3)"},
        {"dt", CLI_DOUBLE, &o.dt, 0, HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "SECONDS",
         .help = "sample interval (default: from the time column)"},
        {"skip", CLI_U64, &o.skip, .arg = "N",
         .help = "drop the first N rows (a warm-up from an empty system)"},
        {"input-lag", CLI_U64, &o.input_lag, 0, 100, .arg = "L",
         .help = "rows of the input column are L instants late: row k\n"
                 "holds u(k-L) (default 0; 1 for a log whose input on\n"
                 "each row is the one in force over the interval ending\n"
                 "at that row). The convention is u(k) set at instant k,\n"
                 "in force over (k, k+1], y(k) measured at instant k"},
        {"fall", CLI_FUNC, &o.fall, .arg = "F", .parse = fall_flag,
         .help = "the input in effect falls by at most the fraction F\n"
                 "per sample, ueff(k) = max(u(k), (1 - F) ueff(k-1)), and\n"
                 "the model is fitted from ueff to y (MaxUsers: lowering\n"
                 "it cuts nobody off, the connected users fall only as\n"
                 "sessions end); 'auto': F chosen with the model by the\n"
                 "criterion over 0..0.5. Written to the model as\n"
                 "input_fall, which 'qctl design' uses (default 0: none)"},
        {"sensor-csv", CLI_STR, &o.sensor_csv, .path = CLI_PATH_IN_NONEMPTY, .arg = "FILE",
         .help = "also fit a sensor model: true y in, measured y out"},
        {"sensor-columns", CLI_STR, &o.sensor_columns, .arg = "T,Y,M",
         .help = "its columns (default time,y,ym; 1,2,3 without header)"},
        {"sensor-na", CLI_FUNC, sna, 0, mo, .arg = "A..B", .parse = urange_flag,
         .help = "sensor na (default 0..2)"},
        {"sensor-nb", CLI_FUNC, snb, 1, mo, .arg = "A..B", .parse = urange_flag,
         .help = "sensor nb (default 1..2)"},
        {"sensor-delays", CLI_FUNC, sdelays, -1, md, .arg = "A..B", .parse = range_flag,
         .help = "sensor delays (default -1..1; -1: the measurement at k\n"
                 "sees the true output at k)"},
        {"sensor-at", CLI_DOUBLE, &o.sensor_at, .arg = "Y",
         .help = "also fit the sensor's affine map ym = offset + gain y\n"
                 "near the true output Y (the reference the loop will\n"
                 "track), for compensating the reference"},
        {"sensor-width", CLI_DOUBLE, &o.sensor_width, 0, HUGE_VAL, .open = CLI_OPEN_MIN,
         .arg = "W", .help = "half-width of that neighbourhood (default 0.15 |Y|)"},
        {"sensor-curve", CLI_BOOL, &o.sensor_curve,
         .help = "also fit the static curve of a sensor that reads a queue\n"
                 "from its completion log, ym = f(v), f(N) = N - (N^2/S)\n"
                 "(1 - exp(-S/N)), v the sensor model's output at unit DC\n"
                 "gain; the scale S (throughput x interval) goes into the\n"
                 "model, and 'qctl design' predicts the loop with it"},
        {"sensor-max", CLI_DOUBLE, &o.sensor_max, 0, HUGE_VAL, .open = CLI_OPEN_MIN, .arg = "V",
         .help = "the most the sensor can read (default: a comment\n"
                 "'# NAME_bound=V' in the sensor file, NAME its measured\n"
                 "column, as 'qctl sim maxusers --series' writes)"},
        {"output", CLI_STR, &o.output, .letter = 'o', .arg = "FILE",
         .help = "write the model JSON (the input of 'qctl design')"},
        {"json", CLI_BOOL, &o.json, .help = "print the model JSON instead of the table"},
        {"plot", CLI_STR, &o.plot, .arg = "DIR",
         .help = "draw measured vs predicted output into DIR (gnuplot)"},
        {"report", CLI_STR, &o.report, .arg = "DIR",
         .help = "write DIR/index.html: the fits, the model and the plots\n"
                 "of --plot, in one self-contained page"},
        {"quiet", CLI_BOOL, &quiet,
         .help = "no notices on standard error (sysid writes none but\nits errors: taken as "
                 "by every command)"},
        CLI_ROW_HELP(&help),
        {0}};
    unsigned given[sizeof flags / sizeof flags[0]];
    if ((rc = cli_flags_parse_command("sysid", synopsis, about, flags, argc, argv, given)) != 0)
        return rc == CLI_DONE_HELP ? 0 : rc;
    int have_op = cli_flag_given(flags, given, "operating-point") > 0;
    int have_orders = cli_flag_given(flags, given, "orders") > 0;
    int have_nanb = cli_flag_given(flags, given, "na") + cli_flag_given(flags, given, "nb") > 0;
    if (have_op) {
        po.demean = 0;
        po.u0 = op[0];
        po.y0 = op[1];
    }
    if (have_orders) {
        po.na_min = po.nb_min = orders[0];
        po.na_max = po.nb_max = orders[1];
    }
    /* each range flag given replaces its default pair */
    const struct {
        const char *flag;
        const unsigned *v;
        unsigned *lo, *hi;
    } ranges[] = {{"na", na, &po.na_min, &po.na_max},
                  {"nb", nb, &po.nb_min, &po.nb_max},
                  {"sensor-na", sna, &so.na_min, &so.na_max},
                  {"sensor-nb", snb, &so.nb_min, &so.nb_max}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (cli_flag_given(flags, given, ranges[i].flag)) {
            *ranges[i].lo = ranges[i].v[0];
            *ranges[i].hi = ranges[i].v[1];
        }
    if (cli_flag_given(flags, given, "delays")) {
        po.d_min = delays[0];
        po.d_max = delays[1];
    }
    if (cli_flag_given(flags, given, "sensor-delays")) {
        so.d_min = sdelays[0];
        so.d_max = sdelays[1];
    }
    po.criterion = so.criterion = (qc_arx_criterion)crit;
    so.holdout = po.holdout;
    if (o.report && (rc = cli_report_prepare(o.report)) != 0)
        return rc;
    if (o.csv == NULL) {
        cli_error("sysid: --csv is required (see 'qctl sysid --help')");
        return QC_EXIT_USAGE;
    }
    if (have_op && have_demean) {
        cli_error("sysid: --operating-point and --demean exclude each other");
        return QC_EXIT_USAGE;
    }
    if (have_orders && have_nanb) {
        cli_error("sysid: --orders (na = nb) and --na/--nb exclude each other");
        return QC_EXIT_USAGE;
    }
    if (have_nanb)
        po.tied = 0;
    if ((isfinite(o.sensor_at) || isfinite(o.sensor_width) || isfinite(o.sensor_max)) &&
        !o.sensor_csv) {
        cli_error("sysid: --sensor-at, --sensor-width and --sensor-max need --sensor-csv");
        return QC_EXIT_USAGE;
    }
    if (isfinite(o.sensor_width) && !isfinite(o.sensor_at)) {
        cli_error("sysid: --sensor-width needs --sensor-at");
        return QC_EXIT_USAGE;
    }
    if (o.sensor_curve && !o.sensor_csv) {
        cli_error("sysid: --sensor-curve needs --sensor-csv");
        return QC_EXIT_USAGE;
    }
    if (o.sensor_columns && !o.sensor_csv) {
        cli_error("sysid: --sensor-columns needs --sensor-csv");
        return QC_EXIT_USAGE;
    }
    /* A program owns GSL's error handler: report failures, do not abort. */
    gsl_set_error_handler_off();

    qc_err err = {0};
    series s, ss = {0};
    if ((rc = read_series(o.csv, o.columns, "time,u,y", (size_t)o.skip, (size_t)o.input_lag, &s,
                          &err)) != 0) {
        cli_error("%s%s", err.msg,
                  rc == QC_EPARSE && strstr(err.msg, "no column named") ? " (see --columns)" : "");
        return cli_exit_code(rc);
    }
    po.dt = o.dt > 0 ? o.dt : sample_interval(&s);
    qc_arx_result *pr = malloc(sizeof *pr), *sr = NULL;
    qc_arx_affine affine;
    int have_affine = 0;
    qc_arx_curve curve = {0};
    json_t *doc = NULL;
    if (pr == NULL) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
        goto done;
    }
    if (isnan(o.fall)) {
        /* the fall rate with the model; s.u becomes the input in effect */
        double *ueff = malloc(s.n * sizeof *ueff);
        qc_arx_ws *aw = ueff ? qc_arx_alloc(s.n < 4 ? 4 : s.n, &err) : NULL;
        if (aw == NULL) {
            cli_error("%s", ueff ? err.msg : "out of memory");
            free(ueff);
            rc = QC_EXIT_FAIL;
            goto done;
        }
        rc = qc_arx_fit_fall(aw, s.u, s.y, s.n, &po, 0.5, ueff, &o.fall, pr, &err);
        qc_arx_free(aw);
        if (rc != 0) {
            free(ueff);
            cli_error("%s: %s", o.csv, err.msg);
            rc = cli_exit_code(rc);
            goto done;
        }
        free(s.u);
        s.u = ueff;
        o.fall_auto = 1;
    } else {
        qc_arx_fall_input(s.u, s.n, o.fall, s.u);
        if ((rc = fit_series(o.csv, &s, &po, pr)) != 0)
            goto done;
    }
    if (o.sensor_csv) {
        if ((rc = read_series(o.sensor_csv, o.sensor_columns, "time,y,ym", (size_t)o.skip, 0,
                              &ss, &err)) != 0) {
            cli_error("%s%s", err.msg,
                      rc == QC_EPARSE && strstr(err.msg, "no column named")
                          ? " (see --sensor-columns)"
                          : "");
            rc = cli_exit_code(rc);
            goto done;
        }
        /* The sensor maps true output offsets to measured ones: demeaned
         * from its own data, like the plant unless a point was given. */
        so.demean = 1;
        so.dt = o.dt > 0 ? o.dt : sample_interval(&ss);
        sr = malloc(sizeof *sr);
        if (sr == NULL) {
            cli_error("out of memory");
            rc = QC_EXIT_FAIL;
            goto done;
        }
        if ((rc = fit_series(o.sensor_csv, &ss, &so, sr)) != 0)
            goto done;
        if (isfinite(o.sensor_at)) {
            double w = isfinite(o.sensor_width) ? o.sensor_width : 0.15 * fabs(o.sensor_at);
            if ((rc = qc_arx_affine_fit(ss.u, ss.y, ss.n, o.sensor_at, w,
                                         qc_arx_dc_gain(&sr->model), &affine, &err)) != 0) {
                cli_error("%s: --sensor-at %g: %s", o.sensor_csv, o.sensor_at, err.msg);
                rc = cli_exit_code(rc);
                goto done;
            }
            have_affine = 1;
        }
        if (o.sensor_curve &&
            (rc = qc_arx_curve_fit(&sr->model, ss.u, ss.y, ss.n, &curve, &err)) != 0) {
            cli_error("%s: --sensor-curve: %s", o.sensor_csv, err.msg);
            rc = cli_exit_code(rc);
            goto done;
        }
        if (!isfinite(o.sensor_max)) {
            char name[128], key[160];
            last_column(o.sensor_columns ? o.sensor_columns : "time,y,ym", name, sizeof name);
            snprintf(key, sizeof key, "%s_bound", name);
            o.sensor_max = comment_value(o.sensor_csv, key);
        }
    }

    doc = qc_arx_result_json(pr);
    json_t *src = json_object();
    json_object_set_new(src, "csv", json_string(o.csv));
    json_object_set_new(src, "columns", json_string(o.columns ? o.columns : "time,u,y"));
    json_object_set_new(src, "operating_point", json_string(po.demean ? "demean" : "given"));
    json_object_set_new(doc, "source", src);
    if (o.fall > 0 || o.fall_auto)
        json_object_set_new(doc, "input_fall", json_real(o.fall));
    if (sr) {
        json_t *sj = qc_arx_result_json(sr);
        json_t *ssrc = json_object();
        json_object_set_new(ssrc, "csv", json_string(o.sensor_csv));
        json_object_set_new(ssrc, "columns",
                            json_string(o.sensor_columns ? o.sensor_columns : "time,y,ym"));
        json_object_set_new(ssrc, "input", json_string("true output y"));
        json_object_set_new(ssrc, "output", json_string("measured output"));
        json_object_set_new(sj, "source", ssrc);
        if (have_affine)
            json_object_set_new(sj, "affine", qc_arx_affine_json(&affine));
        if (o.sensor_curve)
            json_object_set_new(sj, "curve", qc_arx_curve_json(&curve));
        if (isfinite(o.sensor_max))
            json_object_set_new(sj, "max", json_real(o.sensor_max));
        json_object_set_new(doc, "sensor", sj);
    }
    if (o.json) {
        if ((rc = cli_json_out(doc, NULL)) != 0)
            goto done;
    } else {
        print_result("ARX identification", o.csv, pr, "u", "y", po.demean);
        if (o.fall > 0 || o.fall_auto)
            printf("  input in effect: falls at most %.4g of itself per sample (%s); the model's u "
                   "is that input\n",
                   o.fall, o.fall_auto ? "chosen by the criterion" : "--fall");
        if (sr) {
            printf("\n");
            print_result("Sensor (true y in, measured ym out)", o.sensor_csv, sr, "y", "ym", 1);
            if (have_affine)
                printf("  affine map near y = %g (%zu samples within %g): ym = %.6g + %.6g y "
                       "(ym = %.6g at y = %g)\n",
                       affine.at, affine.points, affine.width, affine.offset, affine.gain,
                       affine.offset + affine.gain * affine.at, affine.at);
            if (o.sensor_curve) {
                const double y0 = sr->model.u0;
                printf("  completion-log curve: ym = f(v), f(N) = N - (N^2/S)(1 - exp(-S/N)),\n"
                       "  S = %.5g (%zu samples, residual sd %.3g, against %.3g for the linear\n"
                       "  model); at the operating point f(%.4g) = %.4g; f rises toward S/2 = %.4g\n",
                       curve.scale, curve.points, sqrt(curve.residual_variance),
                       sqrt(sr->sigma2), y0, qc_arx_curve_at(curve.scale, y0),
                       0.5 * curve.scale);
            }
            if (isfinite(o.sensor_max))
                printf("  the sensor reads at most %g\n", o.sensor_max);
        }
        if (o.output)
            printf("\nmodel written to %s (next: qctl design --model %s)\n", o.output, o.output);
    }
    if (o.output && (rc = cli_json_out(doc, o.output)) != 0)
        goto done;
    if (o.plot)
        rc = write_plots(o.plot, "--plot", &s, pr, &ss, sr);
    if (rc == 0 && o.report) {
        rc = write_plots(o.report, "--report plots", &s, pr, &ss, sr);
        if (rc == 0)
            rc = cli_report_write(o.report, "sysid", argc, argv, doc, sysid_plots, sr ? 2 : 1);
    }
done:
    json_decref(doc);
    free(pr);
    free(sr);
    series_free(&s);
    series_free(&ss);
    return rc;
}
