/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sweep_report.c: the --report page of `qctl sweep`: each metric against
 * the numeric parameter with the most values, one line per value of the
 * others, beside the results with their units. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/plot.h"
#include "app/report.h"
#include "report_cli.h"
#include "sweep_master.h"

/* The x axis of the plots: of the parameters whose values are all
 * numbers, the one with the most values (the first of equals), so that the
 * lines are as long and as few as they can be; nparams if none. */
static size_t first_numeric(const qc_sweep *sw)
{
    size_t best = qc_sweep_nparams(sw), most = 0;
    for (size_t k = 0; k < qc_sweep_nparams(sw); k++) {
        size_t i, n = qc_sweep_param_nvalues(sw, k);
        for (i = 0; i < n; i++)
            if (!qc_sweep_param_is_number(sw, k, i))
                break;
        if (i < n)
            continue;
        if (best == qc_sweep_nparams(sw) || n > most) {
            best = k;
            most = n;
        }
    }
    return best;
}

/* Points sharing every parameter but x (a line of the plot) have the same
 * "rest" key; lines are drawn in canonical order of their first point. */
static int same_rest(const qc_sweep *sw, size_t a, size_t b, size_t x)
{
    for (size_t k = 0; k < qc_sweep_nparams(sw); k++)
        if (k != x && qc_sweep_point_index(sw, a, k) != qc_sweep_point_index(sw, b, k))
            return 0;
    return 1;
}

static int plot_metric(const qc_sweep *sw, const qc_sweep_point *pts, size_t m, size_t x,
                       const char *dir)
{
    const size_t np = qc_sweep_npoints(sw);
    const char *mname = qc_sweep_metric_name(sw, m);
    const char *xname = qc_sweep_param_name(sw, x);
    size_t plen = strlen(dir) + strlen(mname) + 16;
    char *dat = malloc(plen);
    unsigned char *seen = calloc(np ? np : 1, 1);
    size_t bcap = 4096, bn = 0;
    char *body = malloc(bcap);
    int rc = 0;
    if (dat == NULL || seen == NULL || body == NULL) {
        rc = QC_ENOMEM;
        goto out;
    }
    snprintf(dat, plen, "%s/%s.dat", dir, mname);
    qc_ofile f;
    qc_err err = {0};
    if ((rc = qc_ofile_open(&f, dat, &err)) != 0)
        goto out;
    double xmin = INFINITY, xmax = -INFINITY;
    for (size_t i = 0; i < qc_sweep_param_nvalues(sw, x); i++) {
        xmin = fmin(xmin, qc_sweep_param_value(sw, x, i));
        xmax = fmax(xmax, qc_sweep_param_value(sw, x, i));
    }
    /* A log range's points spread evenly on a log axis. */
    const int logx = xmin > 0 && xmax / xmin >= 100;
    bn = (size_t)snprintf(body, bcap,
                          "%sset key outside right noenhanced\nset xlabel '%s' noenhanced\n"
                          "set ylabel '%s' noenhanced\n"
                          "set title '%s against %s (%.0f%% intervals)' noenhanced\n"
                          "set bars small\n"
                          /* room around the points, so that no error bar
                           * lies on the frame and hides in it */
                          "set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.08\n",
                          logx ? "set logscale x\n" : "", xname, mname, mname, xname,
                          100 * qc_sweep_confidence(sw));
    size_t block = 0, rows = 0;
    for (size_t a = 0; a < np; a++) {
        if (seen[a])
            continue;
        /* One block per line: its points in canonical order (x ascending
         * as written). */
        char title[512] = "";
        size_t tn = 0;
        for (size_t k = 0; k < qc_sweep_nparams(sw); k++)
            if (k != x && tn < sizeof title)
                tn += (size_t)snprintf(title + tn, sizeof title - tn, "%s%s=%s", tn ? " " : "",
                                       qc_sweep_param_name(sw, k),
                                       qc_sweep_param_text(sw, k, qc_sweep_point_index(sw, a, k)));
        /* A value's quote would end gnuplot's string. */
        for (char *q = title; *q; q++)
            if (*q == '\'' || *q == '\\')
                *q = ' ';
        for (size_t b = a; b < np; b++) {
            if (seen[b] || !same_rest(sw, a, b, x))
                continue;
            seen[b] = 1;
            const double xv = qc_sweep_param_value(sw, x, qc_sweep_point_index(sw, b, x));
            if (pts[b].state != QC_SWEEP_DONE || !isfinite(pts[b].m[m].value))
                continue;
            const qc_sweep_val *v = &pts[b].m[m];
            rows++;
            fprintf(f.fp, "%.10g %.10g %.10g %.10g\n", xv, v->value,
                    isfinite(v->lo) ? v->lo : v->value, isfinite(v->hi) ? v->hi : v->value);
        }
        fputs("\n\n", f.fp);
        char line[1024];
        int ln = snprintf(line, sizeof line, "%s'%s' index %zu using 1:2:3:4 with yerrorlines "
                                             "title '%s'",
                          block ? ", " : "plot ", dat, block, tn ? title : mname);
        if (bn + (size_t)ln + 2 > bcap) {
            bcap = 2 * (bn + (size_t)ln + 2);
            char *nb = realloc(body, bcap);
            if (nb == NULL) {
                qc_ofile_abort(&f);
                rc = QC_ENOMEM;
                goto out;
            }
            body = nb;
        }
        memcpy(body + bn, line, (size_t)ln + 1);
        bn += (size_t)ln;
        block++;
    }
    if ((rc = qc_ofile_commit(&f, &err)) != 0)
        goto out;
    if (rows == 0) {
        rc = QC_EEMPTY; /* no point has a value: nothing to draw */
        goto out;
    }
    if (qc_plot(dir, mname, body, &err) != 0 && err.code != QC_ENOTSUP)
        cli_error("sweep: %s", err.msg);
out:
    if (rc == QC_ENOMEM)
        cli_error("out of memory");
    free(dat);
    free(seen);
    free(body);
    return rc;
}

/* The summary as the page shows it: each metric of a point named with
 * the unit of the summary key it reads ("response" reading
 * metrics.response_time is "response (s)"), the members kept in order. A
 * copy; the --results JSON is unchanged. */
static json_t *page_units(const json_t *summary)
{
    json_t *page = json_deep_copy(summary);
    const json_t *metrics = json_object_get(json_object_get(page, "sweep"), "metrics");
    json_t *pts = json_object_get(page, "points");
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        json_t *row = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(p, k, v)
        {
            const char *path = json_string_value(json_object_get(metrics, k));
            const char *leaf = path && strrchr(path, '.') ? strrchr(path, '.') + 1 : path;
            const char *unit = leaf ? qc__report_unit(leaf) : NULL;
            char name[256];
            if (unit != NULL && snprintf(name, sizeof name, "%s (%s)", k, unit) < (int)sizeof name)
                json_object_set(row, name, v);
            else
                json_object_set(row, k, v);
        }
        json_array_set_new(pts, i, row);
    }
    return page;
}

int sweep_write_report(const sweep_opts *o, const qc_sweep *sw, const qc_sweep_point *pts,
                       const json_t *summary)
{
    const size_t nm = qc_sweep_nmetrics(sw);
    const size_t x = first_numeric(sw);
    const char **plots = calloc(nm ? nm : 1, sizeof *plots);
    size_t nplots = 0;
    if (plots == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
    if (x < qc_sweep_nparams(sw))
        for (size_t m = 0; m < nm; m++)
            if (plot_metric(sw, pts, m, x, o->report) == 0)
                plots[nplots++] = qc_sweep_metric_name(sw, m);
    json_t *page = page_units(summary);
    int rc = page ? cli_report_write(o->report, "sweep", o->argc, o->argv, page, plots, nplots)
                  : QC_EXIT_FAIL;
    if (page == NULL)
        cli_error("out of memory");
    json_decref(page);
    free(plots);
    return rc;
}
