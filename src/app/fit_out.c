/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fit_out.c: what `qctl fit` shows of its fits, written once for the
 * text, --json and the report page (app/fit_run.h): the ranked families
 * of each part of a model, the summary form of a model (without its
 * copula points and tables) and the page's one comparison table a list
 * of candidates. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/fit_run.h"
#include "qctl/output.h"

void qc_app_fit_print_fits(const char *what, const qc_traffic_fits *f, const char *unit)
{
    printf("  %s (%zu values%s%s), ranked:\n", what, f->n, unit[0] ? ", " : "", unit);
    printf("    %-9s %12s %12s %8s %9s  parameters [%s]\n", "family", "BIC", "AIC", "KS", "AD",
           "confidence interval");
    for (size_t i = 0; i < f->nranked; i++) {
        const qc_fit_result *r = &f->r[f->order[i]];
        printf("    %-9s %12.1f %12.1f %8.4f %9.2f ", qc_fit_family_name(r->dist.family), r->bic,
               r->aic, r->ks, r->ad);
        for (int j = 0; j < qc_fit_nstored(r->dist.family); j++) {
            if (isfinite(r->lo[j]) && isfinite(r->hi[j]))
                printf(" %s=%.4g[%.4g,%.4g]", qc_fit_param_name(r->dist.family, j), r->dist.p[j],
                       r->lo[j], r->hi[j]);
            else
                printf(" %s=%.4g[no interval]", qc_fit_param_name(r->dist.family, j),
                       r->dist.p[j]);
        }
        printf("  (%s)\n", r->ci_method);
    }
    const qc_fit_result *g = &f->r[QC_FIT_GPD];
    if (g->ok && isfinite(g->lo[0]) && isfinite(g->hi[0]))
        printf("    tail above %.4g (%.0f%% of values): generalized Pareto xi=%.3f[%.3f,%.3f] "
               "sigma=%.4g, KS %.4f\n",
               g->dist.p[2], 100 * g->dist.p[3], g->dist.p[0], g->lo[0], g->hi[0], g->dist.p[1],
               g->ks);
    else if (g->ok)
        printf("    tail above %.4g (%.0f%% of values): generalized Pareto xi=%.3f (no interval: "
               "the information matrix exists only for xi > -1/2) sigma=%.4g, KS %.4f\n",
               g->dist.p[2], 100 * g->dist.p[3], g->dist.p[0], g->dist.p[1], g->ks);
}

void qc_app_fit_print_group(const qc_trace_group *g, const qc_traffic_model *m,
                        const qc_traffic_report *rep, const char *file)
{
    printf("\n== %s: %zu packets, %s, server port %u\n", g->name, g->n,
           m->proto == 6 ? "tcp" : "udp", m->port);
    if (m->segments > 1)
        printf("  segments: %u (gaps over %g s split the capture; not counted as idle)\n",
               m->segments, m->segment_gap);
    if (isinf(m->threshold))
        printf("  on/off: none (one session%s)", m->segments > 1 ? " per segment" : "");
    else
        printf("  on/off: threshold %.6g s (%s), %zu sessions, %.3g packets per session",
               m->threshold, m->threshold_method, rep->sessions,
               (double)g->n / (double)rep->sessions);
    const qc_traffic_idle_evidence *ev = &m->idle;
    if (strcmp(ev->rule, "jump") == 0)
        printf("; rule: empty stretch, ratio %.3g, floor %.3g s, %.3g%% of gaps idle\n",
               ev->ratio, ev->floor, 100 * ev->idle_fraction);
    else if (strcmp(ev->rule, "mixture") == 0)
        printf("; rule: mixture, busy median %.3g s, idle median %.3g s (weight %.3g), floor "
               "%.3g s, %.3g%% of gaps idle\n",
               ev->busy_median, ev->idle_median, ev->idle_weight, ev->floor,
               100 * ev->idle_fraction);
    else if (strcmp(ev->rule, "none") == 0 && ev->floor > 0)
        printf("; no idle population above the floor %.3g s (1000 x resolution %.3g s, or 10 x "
               "median gap)\n",
               ev->floor, m->resolution);
    else
        printf("\n");
    if (m->opener.emp.m > 0) {
        double om = 0, prev = 0, im = 0, ip = 0;
        for (size_t j = 0; j < m->opener.emp.m; j++) {
            om += m->opener.emp.v[j] * (m->opener.emp.cum[j] - prev);
            prev = m->opener.emp.cum[j];
        }
        for (size_t j = 0; j < m->size.emp.m; j++) {
            im += m->size.emp.v[j] * (m->size.emp.cum[j] - ip);
            ip = m->size.emp.cum[j];
        }
        printf("  openers: %zu session-opening packets, mean size %.4g bytes (in-session %.4g)\n",
               rep->sessions, om, im);
    }
    printf("  rate: source %.6g packets/s, fitted model %.6g, copula model %.6g\n",
           m->src_duration > 0 ? (double)(m->src_packets - 1) / m->src_duration : NAN,
           qc_traffic_model_rate(m, QC_TRAFFIC_FITTED), qc_traffic_model_rate(m, QC_TRAFFIC_COPULA));
    qc_app_fit_print_fits("size", &rep->size, "bytes");
    qc_app_fit_print_fits("gap", &rep->gap, "seconds, in sessions");
    if (rep->off.n)
        qc_app_fit_print_fits("off period", &rep->off, "seconds");
    printf("  dependence (Kendall tau / Spearman rho): size-gap %.3f / %.3f, "
           "size lag 1 %.3f / %.3f, gap lag 1 %.3f / %.3f\n",
           rep->tau_sg, rep->rho_sg, rep->tau_ss, rep->rho_ss, rep->tau_gg, rep->rho_gg);
    printf("  copula: %zu transitions, %u x %u grid\n", m->copula.n, m->copula.grid,
           m->copula.grid);
    if (file)
        printf("  model: %s\n", file);
}

/* The summary form of a model: without the copula points and tables. */
json_t *qc_app_fit_summary_model(const qc_traffic_model *m, const qc_traffic_report *rep)
{
    json_t *j = qc_traffic_model_json(m, rep);
    if (j == NULL)
        return NULL;
    json_t *c = json_object_get(j, "copula");
    json_object_del(c, "prev");
    json_object_del(c, "next");
    json_object_del(c, "mark");
    static const char *const parts[] = {"size", "gap"};
    for (int i = 0; i < 2; i++)
        json_object_del(json_object_get(j, parts[i]), "empirical");
    json_t *oo = json_object_get(j, "onoff");
    json_object_del(oo, "session_packets");
    json_t *off = json_object_get(oo, "off");
    if (json_is_object(off))
        json_object_del(off, "empirical");
    return j;
}

/* One candidate fit as a row of the report's comparison table: its
 * family and goodness of fit, without the parameters, standard errors
 * and intervals (fit.json beside the page has them). */
static json_t *candidate_row(const json_t *c, const char *mean)
{
    static const char *const keys[][2] = {
        {"family", "family"},         {"mean", "mean"},          {"loglik", "log-likelihood"},
        {"aic", "AIC"},               {"bic", "BIC"},            {"ks", "KS distance"},
        {"ad", "Anderson-Darling"},   {"converged", "converged"}};
    json_t *r = json_object();
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        json_t *v = json_object_get(c, keys[i][0]);
        if (v)
            json_object_set(r, i == 1 && mean ? mean : keys[i][1], v);
    }
    return r;
}

/* The summary as the report page shows it: every list of candidate fits
 * cut to one comparison table (candidate_row), the intervals of a fit
 * that has none dropped, a fit's mean named with its unit (`mean`: bytes
 * under a packet size, seconds under a gap; NULL above both). A deep
 * copy; the --json summary is unchanged. */
void qc_app_fit_page(json_t *j, const char *mean)
{
    if (json_is_array(j)) {
        size_t i;
        json_t *v;
        json_array_foreach(j, i, v) qc_app_fit_page(v, mean);
        return;
    }
    if (!json_is_object(j))
        return;
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(j, tmp, k, v) {
        if (strcmp(k, "candidates") == 0 && json_is_array(v)) {
            json_t *rows = json_array();
            size_t i;
            json_t *c;
            json_array_foreach(v, i, c) json_array_append_new(rows, candidate_row(c, mean));
            json_object_set_new(j, k, rows);
        } else if ((strcmp(k, "se") == 0 || strcmp(k, "ci") == 0) && json_is_object(v)) {
            json_object_del(j, k);
        } else if (strcmp(k, "mean") == 0 && mean != NULL && json_is_number(v)) {
            json_object_set(j, mean, v);
            json_object_del(j, k);
        } else {
            const int size = strcmp(k, "size") == 0 || strcmp(k, "opener") == 0;
            const int gap = strcmp(k, "gap") == 0 || strcmp(k, "off") == 0 ||
                            strcmp(k, "on") == 0;
            qc_app_fit_page(v, size ? "mean (bytes)" : gap ? "mean (s)" : mean);
        }
    }
}

