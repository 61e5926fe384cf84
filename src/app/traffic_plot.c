/* SPDX-License-Identifier: GPL-3.0-or-later */
/* traffic_plot.c: the plots of `qctl fit --report` and `qctl gen
 * --validate --plot` (traffic_cmd.h). Plots are data files beside gnuplot
 * scripts (qc_plot): densities over histograms (gaps on a log10 axis,
 * where the density of y = log10 x is f(x) x ln 10), Q-Q plots of the
 * selected family against the data at 200 probabilities, and copula
 * scatters of pseudo-observations. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "qctl/output.h"
#include "result.h"
#include "traffic_cmd.h"


static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Starts the plots into dir (--report, --plot): 0, CLI_PLOTS_SKIPPED
 * without gnuplot (a notice printed), or an exit status after a message.
 * The data files are named in the scripts inside quotes, so a directory
 * name with a quote is refused. */
static int plots_open(cli_plots *pl, const char *dir, const char *flag, const char *skipped)
{
    if (strchr(dir, '\'')) {
        cli_error("%s: a directory name with a quote cannot be given to gnuplot", flag);
        return QC_EXIT_USAGE;
    }
    return cli_plots_open(pl, dir, skipped, 0);
}

/* Density over histogram and Q-Q plot of one marginal. */
static int marginal_plots(cli_plots *pl, const char *base, const char *what,
                          const qc_traffic_fits *f, int logx)
{
    if (f->n < 2 || f->nranked == 0)
        return 0;
    double *x = malloc(f->n * sizeof *x);
    if (x == NULL)
        return QC_EXIT_FAIL;
    memcpy(x, f->x, f->n * sizeof *x);
    qsort(x, f->n, sizeof *x, cmp_double);
    const size_t n = f->n;
    double lo = x[0], hi = x[(size_t)(0.999 * (double)(n - 1))];
    if (logx) {
        double pos = lo;
        for (size_t i = 0; i < n && !(pos > 0); i++)
            pos = x[i];
        lo = log10(pos > 0 ? pos : 1e-9);
        hi = log10(hi > 0 ? hi : 1);
    }
    if (!(hi > lo))
        hi = lo + 1;
    /* NP points a fitted curve: smooth at the page's width, and few enough
     * that the report page stays small */
    enum { NB = 60, NP = 120 };
    double h[NB] = {0};
    const double w = (hi - lo) / NB;
    for (size_t i = 0; i < n; i++) {
        const double y = logx ? (x[i] > 0 ? log10(x[i]) : lo) : x[i];
        long b = (long)floor((y - lo) / w);
        if (b >= 0 && b < NB)
            h[b] += 1;
    }
    char file[512], body[4096];
    qc_ofile of;
    int rc = 0;
    snprintf(file, sizeof file, "%s_%s.dat", base, what);
    FILE *fp = cli_plots_file(pl, &of, file);
    if (fp == NULL) {
        free(x);
        return QC_EXIT_FAIL;
    }
    const size_t top = f->nranked < 3 ? f->nranked : 3;
    fprintf(fp, "# histogram: center density\n");
    for (int b = 0; b < NB; b++)
        fprintf(fp, "%.10g %.10g\n", lo + (b + 0.5) * w, h[b] / ((double)n * w));
    fprintf(fp, "\n\n# fitted densities: x");
    for (size_t k = 0; k < top; k++)
        fprintf(fp, " %s", qc_fit_family_name(f->order[k]));
    fprintf(fp, "\n");
    for (int i = 0; i <= NP; i++) {
        const double y = lo + (hi - lo) * i / NP, xv = logx ? pow(10, y) : y;
        fprintf(fp, "%.10g", y);
        for (size_t k = 0; k < top; k++) {
            double d = qc_fit_pdf(&f->r[f->order[k]].dist, xv);
            if (logx)
                d *= xv * log(10.0);
            fprintf(fp, " %.10g", isfinite(d) ? d : 0.0);
        }
        fprintf(fp, "\n");
    }
    if ((rc = cli_file_commit(&of)) != 0) {
        free(x);
        return rc;
    }
    /* On a log axis the bins are equal in log10 x; the ticks are labelled
     * with the values themselves (1, 2, 5 times a power of ten). */
    char tics[1024] = "";
    if (logx) {
        int t = snprintf(tics, sizeof tics, "set xtics (");
        int first = 1;
        for (int k = (int)floor(lo); k <= (int)ceil(hi) && t < (int)sizeof tics - 64; k++)
            for (int m = 0; m < 3; m++) {
                const double v = (m == 0 ? 1 : m == 1 ? 2 : 5) * pow(10, k);
                if (log10(v) < lo || log10(v) > hi)
                    continue;
                t += snprintf(tics + t, sizeof tics - (size_t)t, "%s'%g' %.10g",
                              first ? "" : ", ", v, log10(v));
                first = 0;
            }
        if (first)
            tics[0] = '\0';
        else
            snprintf(tics + t, sizeof tics - (size_t)t, ")\n");
    }
    int o = snprintf(body, sizeof body,
                     "set xlabel '%s (%s%s)'\nset ylabel '%s'\n"
                     "set key below horizontal\n%s"
                     "unset grid\nset yrange [0:*]\n"
                     "plot '%s' index 0 using 1:2 with histeps lw 2 lc rgb '#999999' title 'data'",
                     what, strcmp(what, "size") == 0 ? "bytes" : "s",
                     logx ? ", log scale" : "",
                     logx ? "density (per unit of log10 x)" : "density", tics, pl->path);
    for (size_t k = 0; k < top; k++)
        o += snprintf(body + o, sizeof body - (size_t)o,
                      ", '' index 1 using 1:%zu with lines lw 2 title '%s'", k + 2,
                      qc_fit_family_name(f->order[k]));
    char name[512];
    snprintf(name, sizeof name, "%s_%s_density", base, what);
    if ((rc = cli_plots_draw(pl, name, "%s", body)) != 0) {
        free(x);
        return rc;
    }
    /* Q-Q of the selected family. */
    const qc_fit_dist *best = &f->r[f->order[0]].dist;
    snprintf(file, sizeof file, "%s_%s_qq.dat", base, what);
    if ((fp = cli_plots_file(pl, &of, file)) == NULL) {
        free(x);
        return QC_EXIT_FAIL;
    }
    const size_t K = n < 100 ? n : 100; /* quantiles shown */
    fprintf(fp, "# fitted quantile, data quantile\n");
    for (size_t i = 0; i < K; i++) {
        const double q = ((double)i + 0.5) / (double)K;
        size_t r = (size_t)(q * (double)n);
        if (r >= n)
            r = n - 1;
        fprintf(fp, "%.10g %.10g\n", qc_fit_quantile(best, q), x[r]);
    }
    free(x);
    if ((rc = cli_file_commit(&of)) != 0)
        return rc;
    snprintf(body, sizeof body,
             "set xlabel '%s quantile of %s (%s)'\nset ylabel 'data quantile (%s)'\n"
             "unset key\nunset grid\n%s"
             "plot '%s' using 1:2 with points pt 7 ps 0.5, x with lines lc rgb '#777777'",
             qc_fit_family_name(best->family), what, strcmp(what, "size") == 0 ? "bytes" : "s",
             strcmp(what, "size") == 0 ? "bytes" : "s",
             logx ? "set logscale xy\nset format x '10^{%L}'\nset format y '10^{%L}'\n" : "",
             pl->path);
    snprintf(name, sizeof name, "%s_%s_qq", base, what);
    return cli_plots_draw(pl, name, "%s", body);
}

/* The file-name stem of a group's plots: its model file name without
 * the directory and ".json". */
static int report_base(const char *name, char *base, size_t size)
{
    char *path = cli_model_path(".", name);
    if (path == NULL)
        return QC_EXIT_FAIL;
    snprintf(base, size, "%.*s", (int)(strlen(path) - 7), path + 2); /* drop "./" ".json" */
    free(path);
    return 0;
}

static int add_name(char ***names, size_t *n, const char *base, const char *suffix)
{
    char **nn = realloc(*names, (*n + 1) * sizeof **names);
    if (nn == NULL)
        return QC_EXIT_FAIL;
    *names = nn;
    size_t len = strlen(base) + strlen(suffix) + 1;
    if ((nn[*n] = malloc(len)) == NULL)
        return QC_EXIT_FAIL;
    snprintf(nn[*n], len, "%s%s", base, suffix);
    (*n)++;
    return 0;
}

int cli_fit_report_names(const char *name, const qc_traffic_report *rep, char ***names,
                         size_t *n)
{
    char base[256];
    int rc = report_base(name, base, sizeof base);
    /* as in marginal_plots and cli_fit_report below */
    const qc_traffic_fits *f[3] = {&rep->size, &rep->gap, &rep->off};
    static const char *const what[3][2] = {{"_size_density", "_size_qq"},
                                           {"_gap_density", "_gap_qq"},
                                           {"_off_density", "_off_qq"}};
    for (int i = 0; i < 3 && rc == 0; i++) {
        if (f[i]->n < 2 || f[i]->nranked == 0)
            continue;
        rc = add_name(names, n, base, what[i][0]);
        if (rc == 0)
            rc = add_name(names, n, base, what[i][1]);
    }
    if (rc == 0 && rep->n >= 2)
        rc = add_name(names, n, base, "_copula");
    if (rc == 0 && rep->n >= 2)
        rc = add_name(names, n, base, "_copula_lag1");
    return rc;
}

int cli_fit_report(const char *dir, const char *name, const qc_traffic_model *m,
                   const qc_traffic_report *rep)
{
    (void)m;
    cli_plots pl;
    int rc = plots_open(&pl, dir, "--report", "--report plots");
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    char base[256];
    if (report_base(name, base, sizeof base) != 0)
        return QC_EXIT_FAIL;
    rc = marginal_plots(&pl, base, "size", &rep->size, 1);
    if (rc == 0)
        rc = marginal_plots(&pl, base, "gap", &rep->gap, 1);
    if (rc == 0 && rep->off.n >= 2)
        rc = marginal_plots(&pl, base, "off", &rep->off, 1);
    if (rc != 0 || rep->n < 2)
        return rc;
    char file[512], body[2048], pname[512];
    qc_ofile of;
    snprintf(file, sizeof file, "%s_copula.dat", base);
    FILE *fp = cli_plots_file(&pl, &of, file);
    if (fp == NULL)
        return QC_EXIT_FAIL;
    const size_t step = rep->n > 5000 ? rep->n / 5000 : 1;
    size_t rows = 0;
    fprintf(fp, "# u(size) v(gap) u(next size)\n");
    for (size_t i = 0; i + 1 < rep->n; i += step, rows++)
        fprintf(fp, "%.6f %.6f %.6f\n", rep->u[i], rep->v[i], rep->u[i + 1]);
    /* the scatter shows at most COPULA_SHOWN of the rows (every k-th), so
     * that the page stays small; the file keeps them all */
    enum { COPULA_SHOWN = 120 };
    const size_t every = rows > COPULA_SHOWN ? (rows + COPULA_SHOWN - 1) / COPULA_SHOWN : 1;
    if ((rc = cli_file_commit(&of)) != 0)
        return rc;
    /* Two plots, not a multiplot: qc_plot redraws the PNG with 'replot',
     * which repeats only the last plot of a multiplot. */
    static const struct {
        const char *suffix, *title, *ylabel;
        int column;
    } scatter[] = {{"_copula", "copula of size and gap", "gap rank", 2},
                   {"_copula_lag1", "copula of consecutive sizes", "next size rank", 3}};
    const double tau[] = {rep->tau_sg, rep->tau_ss};
    for (size_t k = 0; k < sizeof scatter / sizeof scatter[0] && rc == 0; k++) {
        snprintf(body, sizeof body,
                 "set size ratio -1\nunset key\nunset grid\n"
                 "set xrange [0:1]\nset yrange [0:1]\nset title '%s (Kendall tau %.3f)'\n"
                 "set xlabel 'size rank'\nset ylabel '%s'\n"
                 "plot '%s/%s' every %zu using 1:%d with points pt 7 ps 0.5",
                 scatter[k].title, tau[k], scatter[k].ylabel, dir, file, every,
                 scatter[k].column);
        snprintf(pname, sizeof pname, "%s%s", base, scatter[k].suffix);
        rc = cli_plots_draw(&pl, pname, "%s", body);
    }
    return rc;
}

/* The ECDF of x (n values) at up to 400 points, into fp. */
static void ecdf(FILE *fp, const double *x, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (s == NULL)
        return;
    memcpy(s, x, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    const size_t step = n > 400 ? n / 400 : 1;
    for (size_t i = 0; i < n; i += step)
        fprintf(fp, "%.10g %.10g\n", s[i], (double)(i + 1) / (double)n);
    fprintf(fp, "\n\n");
    free(s);
}

int cli_validation_plots(const char *dir, const qc_traffic_validation *v, const double *real_t,
                         size_t n)
{
    cli_plots pl;
    int rc = plots_open(&pl, dir, "--plot", "--plot");
    if (rc != 0)
        return rc == CLI_PLOTS_SKIPPED ? 0 : rc;
    qc_ofile of;
    FILE *fp = cli_plots_file(&pl, &of, "validation.dat");
    if (fp == NULL)
        return QC_EXIT_FAIL;
    const qc_traffic_stats *st[3] = {&v->real, &v->gen[0], &v->gen[1]};
    fprintf(fp, "# blocks 0-2: variance-time (m, var) real, fitted, copula\n");
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < st[k]->nvt; i++)
            fprintf(fp, "%.10g %.10g\n", st[k]->vt_m[i], st[k]->vt_var[i]);
        fprintf(fp, "\n\n");
    }
    fprintf(fp, "# blocks 3-5: autocorrelation of counts (lag, acf)\n");
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i <= QC_TRAFFIC_ACF_LAGS; i++)
            fprintf(fp, "%d %.10g\n", i, st[k]->acf[i]);
        fprintf(fp, "\n\n");
    }
    fprintf(fp, "# blocks 6-8: ECDF of gaps real, fitted, copula\n");
    double *g = malloc((n > 1 ? n - 1 : 1) * sizeof *g);
    if (g) {
        for (size_t i = 1; i < n; i++)
            g[i - 1] = real_t[i] - real_t[i - 1];
        ecdf(fp, g, n - 1);
        for (int a = 0; a < 2; a++) {
            for (size_t i = 1; i < v->gen_n[a]; i++)
                g[i - 1] = v->gen_t[a][i] - v->gen_t[a][i - 1];
            ecdf(fp, g, v->gen_n[a] - 1);
        }
        free(g);
    }
    if ((rc = cli_file_commit(&of)) != 0)
        return rc;
    char body[2048];
    snprintf(body, sizeof body,
             "set logscale xy\nset format y '10^{%%L}'\nset xlabel 'aggregation m (bins of %.4g s)'\n"
             "set ylabel 'variance of the mean count'\nset key below horizontal\n"
             "plot '%s/validation.dat' index 0 with linespoints pt 7 title 'real (H %.2f)', "
             "'' index 1 with linespoints pt 5 title 'fitted (H %.2f)', "
             "'' index 2 with linespoints pt 9 title 'copula (H %.2f)'",
             v->real.bin, dir, v->real.hurst, v->gen[0].hurst, v->gen[1].hurst);
    if ((rc = cli_plots_draw(&pl, "variance_time", "%s", body)) != 0)
        return rc;
    snprintf(body, sizeof body,
             "set xlabel 'lag (bins of %.4g s)'\nset ylabel 'autocorrelation of counts'\n"
             "set key below horizontal\n"
             "plot '%s/validation.dat' index 3 with linespoints pt 7 title 'real', "
             "'' index 4 with linespoints pt 5 title 'fitted', "
             "'' index 5 with linespoints pt 9 title 'copula'",
             v->real.bin, dir);
    if ((rc = cli_plots_draw(&pl, "acf_counts", "%s", body)) != 0)
        return rc;
    snprintf(body, sizeof body,
             "set logscale x\nset format x '10^{%%L}'\nset xlabel 'gap (s)'\nset ylabel 'P(gap <= x)'\nset key below horizontal\n"
             "plot '%s/validation.dat' index 6 with lines lw 2 title 'real', "
             "'' index 7 with lines title 'fitted', '' index 8 with lines title 'copula'",
             dir);
    return cli_plots_draw(&pl, "gap_cdf", "%s", body);
}
