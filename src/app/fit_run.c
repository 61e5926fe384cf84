/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_run.c: the parameters of `qctl fit` and their one check
 * (app/fit_run.h): the words and lists read before any capture is, so a
 * mistyped family or threshold is refused before the long work. */
#include "app/fit_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void qc_app_fit_params_init(qc_app_fit_params *a)
{
    memset(a, 0, sizeof *a);
    qc_traffic_fit_params_init(&a->fo);
    a->split = -1;
    a->criterion = a->fo.fit.crit;
    a->min_packets = 50;
    a->copula_points = 10000;
}

static int parse_families(const char *s, unsigned *mask, qc_err *err)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    *mask = 0;
    for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        qc_fit_family f;
        if (qc_fit_family_parse(w, &f, NULL) != 0 || f == QC_FIT_GPD || f == QC_FIT_EMPIRICAL)
            return qc_err_set(err, QC_EINVAL,
                              "families: unknown family '%s' (exp, gamma, lognormal, weibull, "
                              "pareto, lnmix2, lnmix3, expmix2, expmix3)",
                              w);
        *mask |= 1u << f;
    }
    if (*mask == 0)
        return qc_err_set(err, QC_EINVAL, "families: empty list");
    return 0;
}

static int parse_threshold(const char *s, double *out, qc_err *err)
{
    if (s == NULL || strcmp(s, "auto") == 0) {
        *out = -1;
        return 0;
    }
    if (strcmp(s, "none") == 0) {
        *out = INFINITY;
        return 0;
    }
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end != '\0' || !isfinite(x) || errno == ERANGE)
        return qc_err_set(err, QC_EINVAL, "gap_threshold: '%s' is not auto, none or a number",
                          s);
    if (!(x > 0))
        return qc_err_set(err, QC_EINVAL, "gap_threshold: must be auto, none or a time > 0");
    *out = x;
    return 0;
}

int qc_app_fit_params_check(qc_app_fit_params *a, qc_err *err)
{
    int rc;
    a->fo.families = 0;
    if (a->families && (rc = parse_families(a->families, &a->fo.families, err)) != 0)
        return rc;
    if ((rc = parse_threshold(a->gap_threshold, &a->fo.threshold, err)) != 0)
        return rc;
    a->fo.fit.crit = (qc_fit_criterion)a->criterion;
    a->fo.copula_points = (size_t)a->copula_points;
    if (a->column && a->capture)
        return qc_err_set(err, QC_EINVAL,
                          "capture: '%s' with a column to fit: give one or the other",
                          a->capture);
    if (!a->column && a->spec)
        return qc_err_set(err, QC_EINVAL, "spec: only with a column to fit");
    if (!a->column && !a->capture)
        return qc_err_set(err, QC_EINVAL,
                          "capture: a CAPTURE file is required (see 'qctl fit --help')");
    return 0;
}
