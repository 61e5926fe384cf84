/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_run.c: the parameters of `qctl gen` and their one check
 * (app/gen_run.h): generation needs models, a length and an output;
 * validation a capture and at most one model. */
#include "app/gen_run.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void qc_app_gen_params_init(qc_app_gen_params *a)
{
    memset(a, 0, sizeof *a);
    qc_traffic_gen_params_init(&a->o);
    qc_traffic_fit_params_init(&a->fo);
    a->format = -1;
    a->approach = a->o.approach;
    a->snaplen = 65535;
    a->realisations = 10;
}

int qc_app_gen_params_check(qc_app_gen_params *a, qc_err *err)
{
    a->o.approach = (qc_traffic_approach)a->approach;
    const char *g = a->gap_threshold;
    if (g == NULL || strcmp(g, "auto") == 0) {
        a->fo.threshold = -1;
    } else if (strcmp(g, "none") == 0) {
        a->fo.threshold = INFINITY;
    } else {
        char *end;
        errno = 0;
        double x = strtod(g, &end);
        if (end == g || *end != '\0' || !isfinite(x) || errno == ERANGE)
            return qc_err_set(err, QC_EINVAL, "gap_threshold: '%s' is not auto, none or a number",
                              g);
        if (!(x > 0))
            return qc_err_set(err, QC_EINVAL, "gap_threshold: must be auto, none or a time > 0");
        a->fo.threshold = x;
    }
    if (a->validate) {
        if (a->nmodels > 1)
            return qc_err_set(err, QC_EINVAL, "validate: give at most one model");
        a->fo.fit.threads = a->jobs; /* the in-sample fit too */
        return 0;
    }
    if (a->nmodels == 0)
        return qc_err_set(err, QC_EINVAL, "models: a model file is required (see 'qctl gen --help')");
    if (a->output == NULL)
        return qc_err_set(err, QC_EINVAL, "output: required (see 'qctl gen --help')");
    if (a->o.duration == 0 && a->o.packets == 0)
        return qc_err_set(err, QC_EINVAL, "duration: give a duration or a number of packets");
    const size_t ol = strlen(a->output);
    a->fmt = (a->format >= 0 ? a->format == 1 : (ol > 4 && strcmp(a->output + ol - 4, ".csv") == 0))
                 ? QC_TRAFFIC_CSV
                 : QC_TRAFFIC_PCAP;
    return 0;
}
