/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_column.c: `qctl fit --column FILE[:COL]` (fit_cmd.h): the families
 * fitted to one sample, the ranking and the best as a distribution spec
 * every 'qctl sim' command takes. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "fit_cmd.h"
#include "qctl/output.h"
#include "result.h"

/* A column whose n values all equal v: the deterministic law det:v,
 * said in words (text), as the spec (--spec) or as JSON with best "det". */
static int fit_column_constant(const char *arg, size_t n, double v, int json, int spec_only)
{
    char spec[64], canon[QC_DIST_FORMAT_MAX];
    snprintf(spec, sizeof spec, "det:%.17g", v);
    qc_err err = {0};
    qc_dist det;
    if (qc_dist_parse(&det, spec, &err) != 0) {
        cli_error("--column %s: all %zu values equal %.17g, which is not a valid time or size "
                  "(%s)",
                  arg, n, v, err.msg);
        return QC_EXIT_USAGE;
    }
    const int fmt = qc_dist_format(&det, canon, sizeof canon);
    qc_dist_free(&det);
    if (fmt != 0)
        snprintf(canon, sizeof canon, "%s", spec);
    if (spec_only) {
        printf("%s\n", canon);
        return 0;
    }
    if (json) {
        json_t *o = json_object(), *c = json_array(), *e = json_object();
        json_object_set_new(o, "command", json_string("fit --column"));
        json_object_set_new(o, "column", json_string(arg));
        json_object_set_new(o, "values", json_integer((json_int_t)n));
        json_object_set_new(o, "mean", qc_json_real_new(v));
        json_object_set_new(o, "constant", json_true());
        json_object_set_new(o, "best", json_string("det"));
        json_object_set_new(o, "spec", json_string(canon));
        json_object_set_new(e, "family", json_string("det"));
        json_object_set_new(e, "spec", json_string(canon));
        json_object_set_new(e, "mean", qc_json_real_new(v));
        json_array_append_new(c, e);
        json_object_set_new(o, "candidates", c);
        return cli_json_print(o);
    }
    printf("%s: %zu values, all equal to %.6g: a deterministic law (no family with a spread "
           "fits a constant)\n",
           arg, n, v);
    printf("best: %s\n", canon);
    return 0;
}

/* (fit_cmd.h) `fit --column FILE[:COL]`, read: the column into *emp by the empirical
 * spec's reader (so its messages, FILE:LINE, are the same) and the data
 * the fits take into *d; 0 or the exit status after a message. */
int fit_column_load(const char *arg, qc_dist *emp, qc_fit_data *d)
{
    char spec[4200];
    const char *colon = strrchr(arg, ':'), *slash = strrchr(arg, '/');
    if (strlen(arg) > 4000) {
        cli_error("--column: file name too long");
        return QC_EXIT_USAGE;
    }
    if (colon && colon[1] != '\0' && (slash == NULL || colon > slash))
        snprintf(spec, sizeof spec, "empirical:%.*s,%s", (int)(colon - arg), arg, colon + 1);
    else
        snprintf(spec, sizeof spec, "empirical:%s", arg);
    qc_err err = {0};
    int rc = qc_dist_parse(emp, spec, &err);
    if (rc != 0) {
        cli_error("--column: %s", err.msg);
        return cli_input_exit(rc);
    }
    if ((rc = qc_fit_data_init(d, emp->samples, emp->n, &err)) != 0) {
        cli_error("--column %s: %s", arg, err.msg);
        qc_dist_free(emp);
        return cli_input_exit(rc);
    }
    return 0;
}

/* The families fitted to the column read by column_load (emp, d, both
 * freed here), the best printed as a qc_dist spec. */
int fit_column(const char *arg, const qc_dist *empp, const qc_fit_data *dp,
               const qc_fit_params *fo, unsigned families, int json, int spec_only)
{
    qc_err err = {0};
    int rc;
    qc_dist emp = *empp;
    qc_fit_data d = *dp;
    if (d.m == 1 && d.raised == 0) {
        /* Every value the same: no family with a spread describes it (an
         * exponential of that mean would claim values near 0 and ten
         * times the mean); the law is the deterministic one. */
        rc = fit_column_constant(arg, emp.n, d.v[0], json, spec_only);
        qc_fit_data_free(&d);
        qc_dist_free(&emp);
        return rc;
    }
    qc_traffic_fits f;
    memset(&f, 0, sizeof f);
    const unsigned all = ((1u << QC_FIT_NFAMILIES) - 1) & ~(1u << QC_FIT_EMPIRICAL);
    const unsigned mask = families ? families | (1u << QC_FIT_GPD) : all;
    rc = qc_fit_all(&d, mask, fo, f.r, f.order, &f.nranked, &err);
    f.x = emp.samples;
    f.n = emp.n;
    if (rc != 0) {
        cli_error("--column %s: %s", arg, err.msg);
        rc = cli_exit_code(rc);
    } else if (f.nranked == 0) {
        cli_error("--column %s: no family fits these %zu values (%s)", arg, emp.n,
                  f.r[QC_FIT_LOGNORMAL].why[0] ? f.r[QC_FIT_LOGNORMAL].why : "see --families");
        rc = QC_EXIT_USAGE;
    }
    char best[QC_DIST_FORMAT_MAX] = "";
    if (rc == 0 && qc_dist_format(&f.r[f.order[0]].dist.d, best, sizeof best) != 0) {
        cli_error("--column %s: the best family has no spec", arg);
        rc = QC_EXIT_FAIL;
    }
    if (rc == 0 && spec_only) {
        printf("%s\n", best);
    } else if (rc == 0 && json) {
        json_t *o = json_object(), *c = json_array();
        json_object_set_new(o, "command", json_string("fit --column"));
        json_object_set_new(o, "column", json_string(arg));
        json_object_set_new(o, "values", json_integer((json_int_t)emp.n));
        json_object_set_new(o, "mean", qc_json_real_new(d.mean));
        json_object_set_new(o, "criterion", json_string(qc_fit_criterion_name(fo->crit)));
        json_object_set_new(o, "best", json_string(qc_fit_family_name(f.r[f.order[0]].dist.family)));
        json_object_set_new(o, "spec", json_string(best));
        for (size_t i = 0; i < f.nranked; i++) {
            const qc_fit_result *r = &f.r[f.order[i]];
            char sp[QC_DIST_FORMAT_MAX];
            json_t *e = json_object();
            json_object_set_new(e, "family", json_string(qc_fit_family_name(r->dist.family)));
            json_object_set_new(e, "spec", qc_dist_format(&r->dist.d, sp, sizeof sp) == 0
                                               ? json_string(sp)
                                               : json_null());
            json_object_set_new(e, "loglik", qc_json_real_new(r->loglik));
            json_object_set_new(e, "bic", qc_json_real_new(r->bic));
            json_object_set_new(e, "aic", qc_json_real_new(r->aic));
            json_object_set_new(e, "ks", qc_json_real_new(r->ks));
            json_object_set_new(e, "mean", qc_json_real_new(qc_fit_mean(&r->dist)));
            json_object_set_new(e, "ci_method", json_string(r->ci_method ? r->ci_method : "none"));
            json_array_append_new(c, e);
        }
        json_object_set_new(o, "candidates", c);
        rc = cli_json_print(o);
    } else if (rc == 0) {
        printf("%s: %zu values, mean %.6g\n", arg, emp.n, d.mean);
        qc_app_fit_print_fits("values", &f, "");
        printf("best by %s: %s\n", fo->crit == QC_FIT_AIC ? "AIC" : "BIC", best);
    }
    f.x = NULL;
    for (int i = 0; i < QC_FIT_NFAMILIES; i++)
        qc_fit_result_free(&f.r[i]);
    qc_fit_data_free(&d);
    qc_dist_free(&emp);
    return rc;
}
