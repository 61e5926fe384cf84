/* SPDX-License-Identifier: GPL-3.0-or-later */
/* model.c: learning a traffic model from packets (on/off split, marginal
 * fits, copula) and reading and writing model files.
 *
 * The split into sessions is the first step because it decides which
 * gaps are "in-session" and which are idle periods: fitting one family to
 * both mixes two populations that differ by orders of magnitude (a page's
 * objects milliseconds apart, pages seconds apart), and no single family
 * fits that. With the split, the in-session packets get the marginal fits
 * and the copula; the idle gaps get their own distribution; sessions
 * their length in packets. The automatic threshold is the Bayes boundary
 * of a two-component lognormal mixture of all gaps (equation in
 * traffic.h), which is where a gap becomes more likely idle than not.
 *
 * Empirical marginals are kept as tables of distinct values with
 * cumulative fractions; above table_max distinct values they are cut to
 * table_max evenly spaced quantiles, which changes any quantile by less
 * than one table step. Copula states are stored as pseudo-observations
 * rounded to 1e-6, well below the 1/n of a rank for n up to 10^5.
 *
 * A model file is checked field by field when read: every number finite
 * and in range, tables increasing, copula points in [0, 1]; a message
 * names the file and the field path (e.g. "gap.params.sigma"). */
#include "qctl/traffic.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gsl_quiet.h"
#include "core/thread.h"
#include "qctl/output.h"
#include "traffic/copula_uv.h"
#include "traffic/fit_given.h"
#include "traffic/sort.h"

/* ------------------------------------------------------------------ */
/* Tables                                                             */
/* ------------------------------------------------------------------ */

static void table_free(qc_traffic_table *t)
{
    free(t->v);
    free(t->cum);
    memset(t, 0, sizeof *t);
}

/* The empirical table of the sorted s[0..n-1]. */
static int table_sorted(qc_traffic_table *t, const double *s, size_t n, size_t max, qc_err *err)
{
    memset(t, 0, sizeof *t);
    if (n == 0)
        return qc_err_set(err, QC_EEMPTY, "no values for an empirical table");
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        m += s[i] != s[i - 1];
    if (max < 2)
        max = 2;
    const size_t cap = m < max ? m : max;
    t->v = malloc(cap * sizeof *t->v);
    t->cum = malloc(cap * sizeof *t->cum);
    if (!t->v || !t->cum) {
        table_free(t);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    if (m <= max) {
        for (size_t i = 0; i < n; i++) {
            if (t->m > 0 && t->v[t->m - 1] == s[i]) {
                t->cum[t->m - 1] = (double)(i + 1) / (double)n;
                continue;
            }
            t->v[t->m] = s[i];
            t->cum[t->m++] = (double)(i + 1) / (double)n;
        }
    } else {
        /* max evenly spaced quantiles, equally likely, ties merged */
        for (size_t k = 0; k < max; k++) {
            size_t i = (size_t)(((double)k + 0.5) * (double)n / (double)max);
            if (i >= n)
                i = n - 1;
            const double c = (double)(k + 1) / (double)max;
            if (t->m > 0 && t->v[t->m - 1] == s[i]) {
                t->cum[t->m - 1] = c;
                continue;
            }
            t->v[t->m] = s[i];
            t->cum[t->m++] = c;
        }
    }
    t->cum[t->m - 1] = 1;
    return 0;
}

/* The empirical table of x[0..n-1] (copied and sorted). */
static int table_from(qc_traffic_table *t, const double *x, size_t n, size_t max, qc_err *err)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (s == NULL) {
        memset(t, 0, sizeof *t);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    memcpy(s, x, n * sizeof *s);
    qc__sort_doubles(s, n);
    const int rc = table_sorted(t, s, n, max, err);
    free(s);
    return rc;
}

static double table_mean(const qc_traffic_table *t)
{
    double s = 0, prev = 0;
    for (size_t j = 0; j < t->m; j++) {
        s += t->v[j] * (t->cum[j] - prev);
        prev = t->cum[j];
    }
    return s;
}

/* ------------------------------------------------------------------ */
/* Fitting                                                            */
/* ------------------------------------------------------------------ */

void qc_traffic_fit_params_init(qc_traffic_fit_params *o)
{
    o->threshold = -1;
    qc_fit_params_init(&o->fit);
    o->families = 0;
    o->copula_points = 10000;
    o->table_max = 20000;
    o->segment_gap = 3600;
    o->mean_tol = 0.02;
}

void qc_traffic_model_free(qc_traffic_model *m)
{
    qc_fit_dist_free(&m->size.fitted);
    qc_fit_dist_free(&m->gap.fitted);
    qc_fit_dist_free(&m->off.fitted);
    qc_fit_dist_free(&m->opener.fitted);
    table_free(&m->opener.emp);
    table_free(&m->size.emp);
    table_free(&m->gap.emp);
    table_free(&m->off.emp);
    table_free(&m->session);
    qc_copula_free(&m->copula);
    memset(m, 0, sizeof *m);
}

static void fits_free(qc_traffic_fits *f)
{
    for (int i = 0; i < QC_FIT_NFAMILIES; i++)
        qc_fit_result_free(&f->r[i]);
    free(f->x);
    memset(f, 0, sizeof *f);
}

void qc_traffic_report_free(qc_traffic_report *r)
{
    fits_free(&r->size);
    fits_free(&r->gap);
    fits_free(&r->off);
    fits_free(&r->opener);
    free(r->u);
    free(r->v);
    memset(r, 0, sizeof *r);
}

/* fit_marginal, with the fit data of x already built (gd, or NULL) and
 * the families of given_mask already fitted (see traffic/fit_given.h). */
static int fit_marginal_given(const double *x, size_t n, unsigned mask, const qc_fit_params *o,
                              double tol, qc_fit_dist *best, qc_traffic_fits *fits,
                              const char *what, const qc_fit_data *gd, qc_fit_result *given,
                              unsigned given_mask, qc_err *err)
{
    qc_fit_data own = {0};
    int rc = gd ? 0 : qc_fit_data_init(&own, x, n, err);
    if (rc != 0) {
        qc_err_prefix(err, "%s", what);
        return rc;
    }
    const qc_fit_data *d = gd ? gd : &own;
    qc_traffic_fits local;
    qc_traffic_fits *f = fits ? fits : &local;
    memset(f, 0, sizeof *f);
    rc = qc__fit_all_given(d, mask, o, f->r, f->order, &f->nranked, given, given_mask, err);
    qc_fit_data_free(&own);
    if (rc != 0) {
        qc_err_prefix(err, "%s", what);
        return rc;
    }
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i] / (double)n;
    const qc_fit_dist *src = NULL;
    for (size_t i = 0; i < f->nranked && src == NULL; i++) {
        const qc_fit_dist *c = &f->r[f->order[i]].dist;
        const double cm = qc_fit_mean(c);
        if (isfinite(cm) && fabs(cm - mean) <= tol * mean)
            src = c;
    }
    if (src == NULL && f->nranked > 0 && !(tol >= 0))
        src = &f->r[f->order[0]].dist;
    if (src == NULL) {
        /* Nothing parametric fits (e.g. one repeated value) or none keeps
         * the mean: an exponential with the sample mean keeps the rate. */
        const double p[1] = {1 / (mean > 0 ? mean : 1e-9)};
        rc = qc_fit_dist_set(best, QC_FIT_EXP, p, 1, err);
    } else {
        rc = qc_fit_dist_set(best, src->family, src->p, qc_fit_nstored(src->family), err);
    }
    if (fits == NULL)
        fits_free(&local);
    else if ((f->x = malloc(n * sizeof *f->x)) != NULL) {
        memcpy(f->x, x, n * sizeof *x);
        f->n = n;
    }
    return rc;
}

/* Fits the families of mask to x and copies into *best the best one
 * whose mean is within tol (relative) of the sample mean (see traffic.h);
 * fits receives every result (or they are freed when fits is NULL). */
static int fit_marginal(const double *x, size_t n, unsigned mask, const qc_fit_params *o,
                        double tol, qc_fit_dist *best, qc_traffic_fits *fits, const char *what,
                        qc_err *err)
{
    return fit_marginal_given(x, n, mask, o, tol, best, fits, what, NULL, NULL, 0, err);
}

/* log of the density of log-gap y under components [a, b) of a fitted
 * lognormal mixture p (K components; weights, mus, sigmas). */
static double comp_logdens(const double *p, int K, int a, int b, double y)
{
    double mx = -INFINITY, l[3];
    for (int j = a; j < b; j++) {
        const double z = (y - p[K + j]) / p[2 * K + j];
        l[j] = log(p[j]) - log(p[2 * K + j]) - z * z / 2;
        if (l[j] > mx)
            mx = l[j];
    }
    double s = 0;
    for (int j = a; j < b; j++)
        s += exp(l[j] - mx);
    return mx + log(s);
}

/* An empty stretch in the sorted gaps s[0..n-1] (see traffic.h): the
 * largest ratio between consecutive distinct gaps above the floor in the
 * upper half, with at least 3 gaps above it; when that ratio is at least
 * 4 the threshold is its geometric middle. (Heavy-tailed gaps with no idle
 * population rarely show it: for Pareto gaps of index 1 the ratio of the
 * 3rd to the 4th largest exceeds 4 with probability 4^-3.) */
static double gap_jump(const double *s, size_t n, double floor_, double *ratio)
{
    double best = 0, th = INFINITY;
    for (size_t i = n / 2; i + 3 < n; i++) {
        if (!(s[i] > 0) || s[i + 1] == s[i] || !(s[i + 1] > floor_))
            continue;
        const double r = s[i + 1] / s[i];
        const double cand = sqrt(s[i] * s[i + 1]);
        if (r > best && cand >= floor_) {
            best = r;
            th = cand;
        }
    }
    *ratio = best;
    return best >= 4 ? th : INFINITY;
}

/* Gaps of the sorted s[0..n-1] above th. */
static size_t count_above(const double *s, size_t n, double th)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (s[mid] > th)
            hi = mid;
        else
            lo = mid + 1;
    }
    return n - lo;
}

/* The two- and three-component lognormal mixtures of d into mix[0] and
 * mix[1] (qc_fit_one's codes in rc), the second in a thread of its own
 * when d is large and a second core is there (the results are the same). */
typedef struct mix_job {
    const qc_fit_data *d;
    const qc_fit_params *o;
    qc_fit_result *r;
    int rc;
} mix_job;

static void *mix_worker(void *arg)
{
    mix_job *j = arg;
    j->rc = qc_fit_one(j->d, QC_FIT_LNMIX3, j->o, j->r, NULL);
    return NULL;
}

static void mix_pair(const qc_fit_data *d, const qc_fit_params *o, qc_fit_result *mix, int *rc)
{
    mix_job j = {d, o, &mix[1], -1};
    pthread_t th;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (d->n >= 20000 && o->threads != 1 && cores > 1) {
        gsl_error_handler_t *h = qc__gsl_quiet(); /* process-wide: off throughout */
        if (qc__thread_start(&th, mix_worker, &j) == 0) {
            rc[0] = qc_fit_one(d, QC_FIT_LNMIX2, o, &mix[0], NULL);
            pthread_join(th, NULL);
            rc[1] = j.rc;
            qc__gsl_restore(h);
            return;
        }
        qc__gsl_restore(h);
    }
    rc[0] = qc_fit_one(d, QC_FIT_LNMIX2, o, &mix[0], NULL);
    rc[1] = qc_fit_one(d, QC_FIT_LNMIX3, o, &mix[1], NULL);
}

/* The automatic idle threshold of the sorted gaps s[0..n-1] with time
 * resolution res (see traffic.h), or INFINITY; ev receives the evidence.
 * When the families were fitted (the mixture rule was tried), *kd
 * receives the fit data of the gaps and keep[f] the results (without GOF)
 * of the families in *kept, for the caller to reuse or free. */
static double auto_threshold(const double *s, size_t n, double res, const qc_fit_params *o,
                             qc_traffic_idle_evidence *ev, qc_fit_data *kd, qc_fit_result *keep,
                             unsigned *kept)
{
    *kept = 0;
    memset(kd, 0, sizeof *kd);
    memset(ev, 0, sizeof *ev);
    snprintf(ev->rule, sizeof ev->rule, "none");
    if (n < 20)
        return INFINITY;
    const double median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    ev->floor = fmax(1000 * res, 10 * median);
    const size_t max_idle = n / 5;
    double ratio = 0;
    double th = gap_jump(s, n, ev->floor, &ratio);
    size_t idle = isfinite(th) ? count_above(s, n, th) : 0;
    if (isfinite(th) && idle >= 2 && idle <= max_idle) {
        snprintf(ev->rule, sizeof ev->rule, "jump");
        ev->ratio = ratio;
        ev->idle_fraction = (double)idle / (double)n;
        return th;
    }
    th = INFINITY;
    qc_fit_data d;
    if (qc_fit_data_init(&d, s, n, NULL) != 0) /* s is sorted: no sort again */
        return INFINITY;
    qc_fit_params fo = *o;
    fo.gof = 0; /* only the likelihoods are compared here */
    fo.resolution = res;
    o = &fo;
    qc_fit_result one, mix[2];
    memset(mix, 0, sizeof mix);
    int best = -1;
    unsigned fitted = 0; /* families whose qc_fit_one succeeded */
    if (qc_fit_one(&d, QC_FIT_LOGNORMAL, o, &one, NULL) == 0) {
        fitted |= 1u << QC_FIT_LOGNORMAL;
        double bic = one.bic;
        int rcm[2] = {-1, -1};
        if (one.ok)
            mix_pair(&d, o, mix, rcm);
        for (int k = 0; k < 2 && one.ok; k++) {
            const qc_fit_family f = k ? QC_FIT_LNMIX3 : QC_FIT_LNMIX2;
            if (rcm[k] != 0)
                continue;
            fitted |= 1u << f;
            if (mix[k].ok && mix[k].bic < bic) {
                bic = mix[k].bic;
                best = k;
            }
        }
    }
    if (best >= 0) {
        const int K = best + 2;
        const double *p = mix[best].dist.p; /* components by increasing mean */
        const double m1 = p[K + K - 2], m2 = p[K + K - 1];
        if (m2 - m1 >= log(10.0) && p[K - 1] <= 0.2) {
            double lo = m1, hi = m2;
            for (int it = 0; it < 100; it++) {
                const double y = (lo + hi) / 2;
                if (comp_logdens(p, K, 0, K - 1, y) > comp_logdens(p, K, K - 1, K, y))
                    lo = y;
                else
                    hi = y;
            }
            const double cand = exp((lo + hi) / 2);
            idle = count_above(s, n, cand);
            if (cand >= ev->floor && idle >= 2 && idle <= max_idle) {
                th = cand;
                snprintf(ev->rule, sizeof ev->rule, "mixture");
                ev->busy_median = exp(m1);
                ev->idle_median = exp(m2);
                ev->idle_weight = p[K - 1];
                ev->idle_fraction = (double)idle / (double)n;
            }
        }
    }
    keep[QC_FIT_LOGNORMAL] = one;
    keep[QC_FIT_LNMIX2] = mix[0];
    keep[QC_FIT_LNMIX3] = mix[1];
    *kept = fitted;
    *kd = d;
    return th;
}

/* A sample ranked once (see traffic/copula_uv.h): its values in
 * ascending order, the dense rank of each value and the number of
 * distinct values. Its fits, empirical table, pseudo-observations and
 * rank correlations all come from it. */
typedef struct ranked {
    double *sorted;
    uint32_t *rank;
    size_t m;
} ranked;

static void ranked_free(ranked *r)
{
    free(r->sorted);
    free(r->rank);
    memset(r, 0, sizeof *r);
}

static int ranked_init(ranked *r, const double *x, size_t n, qc_err *err)
{
    memset(r, 0, sizeof *r);
    r->sorted = malloc((n ? n : 1) * sizeof *r->sorted);
    r->rank = malloc((n ? n : 1) * sizeof *r->rank);
    if (!r->sorted || !r->rank || qc__sort_ranks(x, n, r->rank, r->sorted, &r->m) != 0) {
        ranked_free(r);
        return qc_err_set(err, QC_ENOMEM, "out of memory (ranking %zu values)", n);
    }
    return 0;
}

/* Kendall and Spearman of the pairs (a[ia + i], b[ib + i]), i < n (a
 * sample against another, or against itself shifted by a lag); NAN on
 * error. Above 200000 pairs they are estimated on evenly spaced pairs (a
 * sample of the same pair population: the standard error at 2 10^5 pairs
 * is below 0.003), which keeps a 10^7-packet fit from spending most of
 * its time ranking. */
#define QC_DEP_MAX 200000

static void dependence(const ranked *a, size_t ia, const ranked *b, size_t ib, size_t n,
                       double *tau, double *rho)
{
    const uint32_t *x = a->rank + ia, *y = b->rank + ib;
    uint32_t *sx = NULL, *sy = NULL;
    if (n > QC_DEP_MAX) {
        sx = malloc(QC_DEP_MAX * sizeof *sx);
        sy = malloc(QC_DEP_MAX * sizeof *sy);
        if (!sx || !sy) {
            free(sx);
            free(sy);
            *tau = *rho = NAN;
            return;
        }
        for (size_t k = 0; k < QC_DEP_MAX; k++) {
            const size_t i = (size_t)((double)k * (double)n / QC_DEP_MAX);
            sx[k] = x[i];
            sy[k] = y[i];
        }
        x = sx;
        y = sy;
        n = QC_DEP_MAX;
    }
    if (qc__copula_kendall_ranks(x, a->m, y, b->m, n, tau) != 0)
        *tau = NAN;
    if (qc__copula_spearman_ranks(x, a->m, y, b->m, n, rho) != 0)
        *rho = NAN;
    free(sx);
    free(sy);
}

/* fit_marginal_given on the sample x ranked in r, with its fit data
 * built from r's sorted values unless gd is given; then its empirical
 * table into mg->emp. */
static int fit_marginal_ranked(const double *x, const ranked *r, size_t n, unsigned mask,
                               const qc_fit_params *o, double tol, size_t table_max,
                               qc_traffic_marginal *mg, qc_traffic_fits *fits, const char *what,
                               const qc_fit_data *gd, qc_fit_result *given, unsigned given_mask,
                               qc_err *err)
{
    qc_fit_data own = {0};
    int rc = gd ? 0 : qc_fit_data_init(&own, r->sorted, n, err);
    if (rc != 0) {
        qc_err_prefix(err, "%s", what);
        return rc;
    }
    rc = fit_marginal_given(x, n, mask, o, tol, &mg->fitted, fits, what, gd ? gd : &own, given,
                            given_mask, err);
    qc_fit_data_free(&own);
    return rc != 0 ? rc : table_sorted(&mg->emp, r->sorted, n, table_max, err);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        const uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void qc_traffic_join_segments(const int64_t *ns, size_t n, double segment_gap, double *t,
                              size_t *segments)
{
    int64_t acc = 0;
    size_t seg = n > 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0) {
            const int64_t g = ns[i] - ns[i - 1];
            if (1e-9 * (double)g > segment_gap)
                seg++;
            else
                acc += g;
        }
        t[i] = 1e-9 * (double)acc;
    }
    if (segments)
        *segments = seg;
}

int qc_traffic_fit(qc_traffic_model *m, const char *name, const double *t, const uint32_t *size,
                   const uint8_t *dir, size_t n, const qc_traffic_fit_params *o,
                   qc_traffic_report *rep, qc_err *err)
{
    memset(m, 0, sizeof *m);
    if (rep)
        memset(rep, 0, sizeof *rep);
    for (size_t i = 1; i < n; i++)
        if (!(t[i] >= t[i - 1]))
            return qc_err_set(err, QC_EINVAL, "%s: packet %zu is earlier than packet %zu", name,
                              i + 1, i);
    if (n > 0 && !(fabs(t[n - 1] - t[0]) < 9e9))
        return qc_err_set(err, QC_ERANGE, "%s: the packets span %g s; at most 9e9 s", name,
                          t[n - 1] - t[0]);
    int64_t *ns = malloc((n ? n : 1) * sizeof *ns);
    if (ns == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        ns[i] = (int64_t)llround((t[i] - t[0]) * 1e9);
    const int rc = qc_traffic_fit_ns(m, name, ns, size, dir, n, o, rep, err);
    free(ns);
    return rc;
}

int qc_traffic_fit_ns(qc_traffic_model *m, const char *name, const int64_t *ns,
                      const uint32_t *size, const uint8_t *dir, size_t n,
                      const qc_traffic_fit_params *o, qc_traffic_report *rep, qc_err *err)
{
    memset(m, 0, sizeof *m);
    if (rep)
        memset(rep, 0, sizeof *rep);
    if (n < 10)
        return qc_err_set(err, QC_EEMPTY, "%s: %zu packets; a model needs at least 10", name, n);
    for (size_t i = 1; i < n; i++)
        if (!(ns[i] >= ns[i - 1]))
            return qc_err_set(err, QC_EINVAL, "%s: packet %zu is earlier than packet %zu", name,
                              i + 1, i);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->proto = 17;
    m->src_packets = n;
    m->segment_gap = o->segment_gap;
    double *gaps = malloc((n - 1) * sizeof *gaps);
    double *sz = malloc(n * sizeof *sz), *gi = malloc(n * sizeof *gi);
    double *off = malloc(n * sizeof *off), *sess = malloc(n * sizeof *sess);
    double *op = malloc(n * sizeof *op);
    uint8_t *di = malloc(n), *brk = calloc(n, 1);
    int rc = 0;
    qc_fit_data kd = {0};
    qc_fit_result keep[QC_FIT_NFAMILIES];
    unsigned kept = 0;
    ranked rg = {0}, rs = {0}; /* gaps (all, then in-session), sizes */
    double *u = NULL, *v = NULL;
    memset(keep, 0, sizeof keep);
    if (!gaps || !sz || !gi || !off || !sess || !op || !di || !brk) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto done;
    }
    /* Gaps in seconds from exact integer differences; segment breaks
     * left out of them. */
    size_t ng = 0;
    uint64_t res = 0;
    int64_t span = 0;
    m->segments = 1;
    for (size_t i = 1; i < n; i++) {
        const int64_t g = ns[i] - ns[i - 1];
        if (1e-9 * (double)g > o->segment_gap) {
            brk[i] = 1;
            m->segments++;
            continue;
        }
        span += g;
        gaps[ng++] = 1e-9 * (double)g;
        if (g > 0)
            res = gcd64(res, (uint64_t)g);
    }
    m->src_duration = 1e-9 * (double)span;
    m->resolution = 1e-9 * (double)(res ? res : 1);
    size_t fwd = 0;
    for (size_t i = 0; i < n; i++)
        fwd += dir == NULL || dir[i] == 0;
    m->fwd_fraction = (double)fwd / (double)n;

    /* Threshold and sessions. */
    if (o->threshold < 0) {
        if (ng > 0 && (rc = ranked_init(&rg, gaps, ng, err)) != 0)
            goto done;
        m->threshold = ng > 0 ? auto_threshold(rg.sorted, ng, m->resolution, &o->fit, &m->idle,
                                               &kd, keep, &kept)
                              : INFINITY;
        snprintf(m->threshold_method, sizeof m->threshold_method, "%s",
                 isinf(m->threshold) ? "none" : "auto");
    } else {
        m->threshold = o->threshold;
        snprintf(m->threshold_method, sizeof m->threshold_method, "%s",
                 isinf(o->threshold) ? "none" : "given");
        snprintf(m->idle.rule, sizeof m->idle.rule, "%s", isinf(o->threshold) ? "none" : "given");
    }
    free(gaps); /* ranked in rg when the search needed them; the split reads ns */
    gaps = NULL;
    size_t nin = 0, noff = 0, nsess = 0, nop = 0, cur = 1;
    op[nop++] = size[0];
    for (size_t i = 1; i < n; i++) {
        const double g = 1e-9 * (double)(ns[i] - ns[i - 1]);
        if (brk[i] || g > m->threshold) {
            if (!brk[i])
                off[noff++] = g;
            sess[nsess++] = (double)cur;
            op[nop++] = size[i];
            cur = 1;
            continue;
        }
        cur++;
        sz[nin] = size[i];
        gi[nin] = g;
        di[nin++] = dir ? dir[i] : 0;
    }
    sess[nsess++] = (double)cur;
    if (noff > 0 && m->threshold_method[0] == 'a')
        m->idle.idle_fraction = (double)noff / (double)ng;
    if (nin < 10) {
        rc = qc_err_set(err, QC_EEMPTY,
                        "%s: only %zu packets inside sessions (threshold %g s); a model needs "
                        "at least 10",
                        name, nin, m->threshold);
        goto done;
    }
    if (noff == 0) {
        m->threshold = INFINITY;
        snprintf(m->threshold_method, sizeof m->threshold_method, "none");
    }

    /* Without idle gaps (and segment breaks only between), the in-session
     * gaps are the gaps the threshold search ranked and fitted: its ranks,
     * data and fits are taken over (same data, same options but for GOF:
     * same results). */
    const int same = noff == 0 && nin == ng && rg.rank != NULL;
    if (!same) {
        ranked_free(&rg);
        if ((rc = ranked_init(&rg, gi, nin, err)) != 0)
            goto done;
    }
    if ((rc = ranked_init(&rs, sz, nin, err)) != 0)
        goto done;

    /* Marginals. */
    /* Every family but the empirical one, whose table is kept apart. */
    const unsigned all = ((1u << QC_FIT_NFAMILIES) - 1) & ~(1u << QC_FIT_EMPIRICAL);
    const unsigned mask = o->families ? o->families | (1u << QC_FIT_GPD) : all;
    const double tol = o->mean_tol;
    if ((rc = fit_marginal_ranked(sz, &rs, nin, mask, &o->fit, tol, o->table_max, &m->size,
                                  rep ? &rep->size : NULL, "size", NULL, NULL, 0, err)) != 0)
        goto done;
    qc_fit_params tfo = o->fit; /* times: the sigma floor from the clock */
    tfo.resolution = m->resolution;
    if ((rc = fit_marginal_ranked(gi, &rg, nin, mask, &tfo, tol, o->table_max, &m->gap,
                                  rep ? &rep->gap : NULL, "gap", same && kd.m > 0 ? &kd : NULL,
                                  keep, same && kd.m > 0 ? kept & mask : 0, err)) != 0)
        goto done;
    const unsigned omask = (1u << QC_FIT_EXP) | (1u << QC_FIT_GAMMA) | (1u << QC_FIT_LOGNORMAL) |
                           (1u << QC_FIT_WEIBULL) | (1u << QC_FIT_PARETO) |
                           (1u << QC_FIT_LNMIX2) | (1u << QC_FIT_EXPMIX2);
    if (noff > 0) {
        if ((rc = fit_marginal(off, noff, omask, &tfo, tol, &m->off.fitted,
                               rep ? &rep->off : NULL, "off", err)) != 0 ||
            (rc = table_from(&m->off.emp, off, noff, o->table_max, err)) != 0)
            goto done;
    }
    /* Openers: fitted when there are enough of them to fit, else their
     * empirical distribution serves both approaches. */
    if (nop >= 20) {
        if ((rc = fit_marginal(op, nop, omask, &o->fit, tol, &m->opener.fitted,
                               rep ? &rep->opener : NULL, "opener", err)) != 0)
            goto done;
    } else {
        m->opener.fitted.family = QC_FIT_EMPIRICAL; /* drawn from opener.emp */
        m->opener.fitted.k = 1;
    }
    if ((rc = table_from(&m->opener.emp, op, nop, o->table_max, err)) != 0)
        goto done;
    if ((rc = table_from(&m->session, sess, nsess, o->table_max, err)) != 0)
        goto done;

    /* Copula of the in-session sequence, from the pseudo-observations
     * of the ranks (kept in the report when there is one). */
    u = malloc(nin * sizeof *u);
    v = malloc(nin * sizeof *v);
    if (!u || !v || qc__copula_pseudo_ranks(rs.rank, rs.m, nin, u) != 0 ||
        qc__copula_pseudo_ranks(rg.rank, rg.m, nin, v) != 0) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto done;
    }
    if ((rc = qc__copula_build_uv(&m->copula, u, v, di, nin, o->copula_points, err)) != 0)
        goto done;
    if (rep) {
        rep->u = u;
        rep->v = v;
        rep->n = nin;
        u = v = NULL;
        rep->sessions = nsess;
        dependence(&rs, 0, &rg, 0, nin, &rep->tau_sg, &rep->rho_sg);
        dependence(&rs, 0, &rs, 1, nin - 1, &rep->tau_ss, &rep->rho_ss);
        dependence(&rg, 0, &rg, 1, nin - 1, &rep->tau_gg, &rep->rho_gg);
    }
done:
    for (int f = 0; f < QC_FIT_NFAMILIES; f++)
        qc_fit_result_free(&keep[f]);
    qc_fit_data_free(&kd);
    ranked_free(&rg);
    ranked_free(&rs);
    free(u);
    free(v);
    free(gaps);
    free(sz);
    free(gi);
    free(off);
    free(sess);
    free(op);
    free(di);
    free(brk);
    if (rc != 0) {
        qc_traffic_model_free(m);
        if (rep)
            qc_traffic_report_free(rep);
    }
    return rc;
}

int qc_traffic_fit_group(qc_traffic_model *m, const qc_trace *tr, const qc_trace_group *g,
                         const qc_traffic_fit_params *o, qc_traffic_report *rep, qc_err *err)
{
    const size_t n = g->n;
    int64_t *t = malloc((n ? n : 1) * sizeof *t);
    uint32_t *s = malloc((n ? n : 1) * sizeof *s);
    uint8_t *d = malloc(n ? n : 1);
    if (!t || !s || !d) {
        free(t);
        free(s);
        free(d);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    /* The most common protocol and responder port, by packets. */
    size_t ntcp = 0, nudp = 0;
    uint16_t port = 0;
    uint64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        const qc_trace_pkt *p = &tr->pkt[g->idx[i]];
        t[i] = p->ns;
        s[i] = p->size;
        d[i] = p->dir;
        ntcp += p->proto == 6;
        nudp += p->proto == 17;
    }
    for (size_t f = 0; f < tr->nflows; f++) {
        const qc_trace_flow *fl = &tr->flows[f];
        if (fl->af != 0 && fl->packets > best) {
            int in_group = 0; /* only flows with packets in this group count */
            for (size_t i = 0; i < n && !in_group; i++)
                in_group = tr->pkt[g->idx[i]].flow == f;
            if (in_group) {
                best = fl->packets;
                port = fl->dport;
            }
        }
    }
    int rc = qc_traffic_fit_ns(m, g->name, t, s, d, n, o, rep, err);
    if (rc == 0) {
        m->proto = ntcp > nudp ? 6 : 17;
        m->port = port;
    }
    free(t);
    free(s);
    free(d);
    return rc;
}

static double marginal_mean(const qc_traffic_marginal *mg, qc_traffic_approach a)
{
    return a == QC_TRAFFIC_COPULA || mg->fitted.family == QC_FIT_EMPIRICAL
               ? table_mean(&mg->emp)
               : qc_fit_mean(&mg->fitted);
}

double qc_traffic_model_mean_size(const qc_traffic_model *m, qc_traffic_approach a)
{
    const double s = marginal_mean(&m->size, a);
    if (m->opener.emp.m == 0 || m->session.m == 0)
        return s;
    const double en =
        isinf(m->threshold) || m->off.emp.m == 0 ? INFINITY : table_mean(&m->session);
    if (!isfinite(en) || !(en >= 1))
        return s;
    return (marginal_mean(&m->opener, a) + (en - 1) * s) / en;
}

double qc_traffic_model_rate(const qc_traffic_model *m, qc_traffic_approach a)
{
    const double eg = marginal_mean(&m->gap, a);
    if (isinf(m->threshold) || m->off.emp.m == 0)
        return 1 / eg;
    const double en = table_mean(&m->session);
    const double eoff = marginal_mean(&m->off, a);
    return en / ((en - 1) * eg + eoff);
}

/* ------------------------------------------------------------------ */
/* JSON out                                                           */
/* ------------------------------------------------------------------ */

static json_t *num(double x)
{
    return qc_json_real_new(x);
}

static json_t *table_json(const qc_traffic_table *t)
{
    json_t *o = json_object(), *v = json_array(), *c = json_array();
    for (size_t j = 0; j < t->m; j++) {
        json_array_append_new(v, json_real(t->v[j]));
        json_array_append_new(c, json_real(t->cum[j]));
    }
    json_object_set_new(o, "values", v);
    json_object_set_new(o, "cum", c);
    return o;
}

static json_t *dist_json(const qc_fit_dist *d)
{
    json_t *o = json_object(), *p = json_object();
    if (d->family == QC_FIT_EMPIRICAL) { /* its values are the table beside */
        json_object_set_new(o, "family", json_string("empirical"));
        json_object_set_new(o, "params", p);
        return o;
    }
    json_object_set_new(o, "family", json_string(qc_fit_family_name(d->family)));
    for (int i = 0; i < qc_fit_nstored(d->family); i++)
        json_object_set_new(p, qc_fit_param_name(d->family, i), num(d->p[i]));
    json_object_set_new(o, "params", p);
    json_object_set_new(o, "mean", num(qc_fit_mean(d)));
    return o;
}

static json_t *result_json(const qc_fit_result *r)
{
    json_t *o = dist_json(&r->dist), *ci = json_object(), *se = json_object();
    for (int i = 0; i < qc_fit_nstored(r->dist.family); i++) {
        const char *pn = qc_fit_param_name(r->dist.family, i);
        json_t *a = json_array();
        json_array_append_new(a, num(r->lo[i]));
        json_array_append_new(a, num(r->hi[i]));
        json_object_set_new(ci, pn, a);
        json_object_set_new(se, pn, num(r->se[i]));
    }
    json_object_set_new(o, "se", se);
    json_object_set_new(o, "ci", ci);
    json_object_set_new(o, "ci_method", json_string(r->ci_method ? r->ci_method : "none"));
    json_object_set_new(o, "loglik", num(r->loglik));
    json_object_set_new(o, "aic", num(r->aic));
    json_object_set_new(o, "bic", num(r->bic));
    json_object_set_new(o, "ks", num(r->ks));
    json_object_set_new(o, "ad", num(r->ad));
    json_object_set_new(o, "n", json_integer((json_int_t)r->nfit));
    json_object_set_new(o, "converged", json_boolean(r->converged));
    return o;
}

static json_t *marginal_json(const qc_traffic_marginal *mg, const qc_traffic_fits *f,
                             const qc_fit_params *fo)
{
    json_t *o = dist_json(&mg->fitted);
    json_object_set_new(o, "empirical", table_json(&mg->emp));
    if (f) {
        json_t *c = json_array();
        for (size_t i = 0; i < f->nranked; i++)
            json_array_append_new(c, result_json(&f->r[f->order[i]]));
        json_object_set_new(o, "criterion", json_string(fo && fo->crit == QC_FIT_AIC ? "aic" : "bic"));
        json_object_set_new(o, "candidates", c);
        const qc_fit_result *g = &f->r[QC_FIT_GPD];
        json_object_set_new(o, "gpd_tail", g->ok ? result_json(g) : json_null());
    }
    return o;
}

static double round6(double x)
{
    return round(x * 1e6) / 1e6;
}

static json_t *dep_json(double tau, double rho)
{
    json_t *o = json_object();
    json_object_set_new(o, "kendall", num(tau));
    json_object_set_new(o, "spearman", num(rho));
    return o;
}

json_t *qc_traffic_model_json(const qc_traffic_model *m, const qc_traffic_report *rep)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    json_object_set_new(o, "format", json_string("qctl-traffic-model"));
    json_object_set_new(o, "version", json_integer(1));
    json_object_set_new(o, "activity", json_string(m->name));
    json_t *src = json_object();
    json_object_set_new(src, "packets", json_integer((json_int_t)m->src_packets));
    json_object_set_new(src, "duration", num(m->src_duration));
    json_object_set_new(src, "resolution", m->resolution > 0 ? num(m->resolution) : json_null());
    json_object_set_new(src, "segments", json_integer((json_int_t)m->segments));
    json_object_set_new(src, "segment_gap", num(m->segment_gap));
    json_object_set_new(o, "source", src);
    json_t *tp = json_object();
    json_object_set_new(tp, "protocol", json_string(m->proto == 6 ? "tcp" : "udp"));
    json_object_set_new(tp, "server_port", json_integer(m->port));
    json_object_set_new(o, "transport", tp);
    json_object_set_new(o, "forward_fraction", num(m->fwd_fraction));
    json_t *rate = json_object();
    json_object_set_new(rate, "fitted", num(qc_traffic_model_rate(m, QC_TRAFFIC_FITTED)));
    json_object_set_new(rate, "copula", num(qc_traffic_model_rate(m, QC_TRAFFIC_COPULA)));
    json_object_set_new(rate, "source",
                        num(m->src_duration > 0 ? (double)(m->src_packets - 1) / m->src_duration : NAN));
    json_object_set_new(o, "packets_per_second", rate);
    json_t *oo = json_object();
    json_object_set_new(oo, "method", json_string(m->threshold_method));
    json_object_set_new(oo, "threshold", num(m->threshold));
    json_t *ev = json_object();
    json_object_set_new(ev, "rule", json_string(m->idle.rule[0] ? m->idle.rule : "none"));
    json_object_set_new(ev, "floor", m->idle.floor > 0 ? num(m->idle.floor) : json_null());
    json_object_set_new(ev, "ratio", m->idle.ratio > 0 ? num(m->idle.ratio) : json_null());
    json_object_set_new(ev, "busy_median",
                        m->idle.busy_median > 0 ? num(m->idle.busy_median) : json_null());
    json_object_set_new(ev, "idle_median",
                        m->idle.idle_median > 0 ? num(m->idle.idle_median) : json_null());
    json_object_set_new(ev, "idle_weight",
                        m->idle.idle_weight > 0 ? num(m->idle.idle_weight) : json_null());
    json_object_set_new(ev, "idle_fraction", num(m->idle.idle_fraction));
    json_object_set_new(oo, "evidence", ev);
    json_object_set_new(oo, "session_packets", table_json(&m->session));
    json_object_set_new(oo, "opener",
                        m->opener.emp.m ? marginal_json(&m->opener, rep ? &rep->opener : NULL, NULL)
                                        : json_null());
    json_object_set_new(oo, "off", m->off.emp.m ? marginal_json(&m->off, rep ? &rep->off : NULL, NULL)
                                                : json_null());
    json_object_set_new(o, "onoff", oo);
    json_object_set_new(o, "size", marginal_json(&m->size, rep ? &rep->size : NULL, NULL));
    json_object_set_new(o, "gap", marginal_json(&m->gap, rep ? &rep->gap : NULL, NULL));
    if (rep) {
        json_t *dep = json_object();
        json_object_set_new(dep, "size_gap", dep_json(rep->tau_sg, rep->rho_sg));
        json_object_set_new(dep, "size_lag1", dep_json(rep->tau_ss, rep->rho_ss));
        json_object_set_new(dep, "gap_lag1", dep_json(rep->tau_gg, rep->rho_gg));
        json_object_set_new(o, "dependence", dep);
    }
    const qc_copula *c = &m->copula;
    json_t *cj = json_object(), *pv = json_array(), *nx = json_array(), *mk = json_array();
    for (size_t i = 0; i < 2 * c->n; i++) {
        json_array_append_new(pv, json_real(round6(c->prev[i])));
        json_array_append_new(nx, json_real(round6(c->next[i])));
    }
    for (size_t i = 0; i < c->n; i++)
        json_array_append_new(mk, json_integer(c->mark[i]));
    json_object_set_new(cj, "grid", json_integer(c->grid));
    json_object_set_new(cj, "transitions", json_integer((json_int_t)c->n));
    json_object_set_new(cj, "prev", pv);
    json_object_set_new(cj, "next", nx);
    json_object_set_new(cj, "mark", mk);
    json_object_set_new(o, "copula", cj);
    return o;
}

/* Two levels of indentation, then compact: readable at the top, and a
 * copula of 10^4 points stays a few lines rather than 10^5. */
static int dump_value(FILE *fp, const json_t *v)
{
    /* 17 digits: a double read back is the same double, so tables stay
     * strictly increasing and a saved model generates what it did. */
    char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY |
                                JSON_REAL_PRECISION(17));
    if (s == NULL)
        return -1;
    fputs(s, fp);
    free(s);
    return 0;
}

static int dump_model(FILE *fp, const json_t *o)
{
    const char *k;
    json_t *v;
    size_t i = 0, n = json_object_size(o);
    fputs("{\n", fp);
    json_object_foreach((json_t *)o, k, v)
    {
        json_t *key = json_string(k);
        fputs("  ", fp);
        dump_value(fp, key);
        json_decref(key);
        fputs(": ", fp);
        if (json_is_object(v) && json_object_size(v) > 0) {
            const char *k2;
            json_t *v2;
            size_t j = 0, n2 = json_object_size(v);
            fputs("{\n", fp);
            json_object_foreach(v, k2, v2)
            {
                json_t *key2 = json_string(k2);
                fputs("    ", fp);
                dump_value(fp, key2);
                json_decref(key2);
                fputs(": ", fp);
                if (dump_value(fp, v2) != 0)
                    return -1;
                fputs(++j < n2 ? ",\n" : "\n", fp);
            }
            fputs("  }", fp);
        } else if (dump_value(fp, v) != 0) {
            return -1;
        }
        fputs(++i < n ? ",\n" : "\n", fp);
    }
    fputs("}\n", fp);
    return 0;
}

int qc_traffic_model_save(const qc_traffic_model *m, const qc_traffic_report *rep,
                          const char *path, qc_err *err)
{
    json_t *o = qc_traffic_model_json(m, rep);
    if (o == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    qc_ofile f;
    int rc = qc_ofile_open(&f, path, err);
    if (rc == 0) {
        if (dump_model(f.fp, o) != 0) {
            qc_ofile_abort(&f);
            rc = qc_err_set(err, QC_ENOMEM, "%s: out of memory while writing", path);
        } else {
            rc = qc_ofile_commit(&f, err);
        }
    }
    json_decref(o);
    return rc;
}

/* ------------------------------------------------------------------ */
/* JSON in                                                            */
/* ------------------------------------------------------------------ */

typedef struct rd {
    const char *name;
    qc_err *err;
} rd;

static int bad(const rd *r, const char *path, const char *what)
{
    return qc_err_set(r->err, QC_EPARSE, "%s: field '%s': %s", r->name, path, what);
}

static const json_t *member(const rd *r, const json_t *o, const char *key, const char *path,
                            int *rc)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (v == NULL)
        *rc = bad(r, path, "missing");
    return v;
}

static int get_num(const rd *r, const json_t *o, const char *key, const char *path, double *out)
{
    int rc = 0;
    const json_t *v = member(r, o, key, path, &rc);
    if (rc)
        return rc;
    if (!json_is_number(v))
        return bad(r, path, "not a number");
    *out = json_number_value(v);
    if (!isfinite(*out))
        return bad(r, path, "not finite");
    return 0;
}

static int read_table(const rd *r, const json_t *o, const char *path, qc_traffic_table *t)
{
    char p[128];
    memset(t, 0, sizeof *t);
    if (!json_is_object(o))
        return bad(r, path, "not an object with 'values' and 'cum'");
    const json_t *v = json_object_get(o, "values"), *c = json_object_get(o, "cum");
    snprintf(p, sizeof p, "%s.values", path);
    if (!json_is_array(v) || json_array_size(v) == 0)
        return bad(r, p, "missing or not a non-empty array");
    snprintf(p, sizeof p, "%s.cum", path);
    if (!json_is_array(c) || json_array_size(c) != json_array_size(v))
        return bad(r, p, "missing, or not as long as 'values'");
    const size_t m = json_array_size(v);
    t->v = malloc(m * sizeof *t->v);
    t->cum = malloc(m * sizeof *t->cum);
    if (!t->v || !t->cum) {
        table_free(t);
        return qc_err_set(r->err, QC_ENOMEM, "out of memory");
    }
    t->m = m;
    for (size_t j = 0; j < m; j++) {
        const json_t *a = json_array_get(v, j), *b = json_array_get(c, j);
        const double x = json_number_value(a), q = json_number_value(b);
        char what[96];
        if (!json_is_number(a) || !isfinite(x) || x < 0 || (j > 0 && !(x > t->v[j - 1]))) {
            snprintf(p, sizeof p, "%s.values.%zu", path, j);
            table_free(t);
            return bad(r, p, "values must be finite, >= 0 and increasing");
        }
        if (!json_is_number(b) || !(q > 0 && q <= 1 + 1e-9) || (j > 0 && !(q >= t->cum[j - 1]))) {
            snprintf(p, sizeof p, "%s.cum.%zu", path, j);
            snprintf(what, sizeof what, "cumulative fractions must be in (0, 1] and non-decreasing");
            table_free(t);
            return bad(r, p, what);
        }
        t->v[j] = x;
        t->cum[j] = q;
    }
    if (fabs(t->cum[m - 1] - 1) > 1e-6) {
        snprintf(p, sizeof p, "%s.cum.%zu", path, m - 1);
        table_free(t);
        return bad(r, p, "the last cumulative fraction must be 1");
    }
    t->cum[m - 1] = 1;
    return 0;
}

static int read_dist(const rd *r, const json_t *o, const char *path, qc_fit_dist *d)
{
    char p[128];
    int rc = 0;
    snprintf(p, sizeof p, "%s.family", path);
    const json_t *fam = member(r, o, "family", p, &rc);
    if (rc)
        return rc;
    qc_fit_family f;
    if (!json_is_string(fam) || qc_fit_family_parse(json_string_value(fam), &f, NULL) != 0 ||
        f == QC_FIT_EMPIRICAL)
        return bad(r, p, "not a family name (exp, gamma, lognormal, weibull, pareto, lnmix2, "
                         "lnmix3, expmix2, expmix3, gpd)");
    snprintf(p, sizeof p, "%s.params", path);
    const json_t *ps = member(r, o, "params", p, &rc);
    if (rc)
        return rc;
    double v[QC_FIT_MAXPAR];
    const int np = qc_fit_nstored(f);
    for (int i = 0; i < np; i++) {
        char pp[160];
        snprintf(pp, sizeof pp, "%s.params.%s", path, qc_fit_param_name(f, i));
        if ((rc = get_num(r, ps, qc_fit_param_name(f, i), pp, &v[i])) != 0)
            return rc;
    }
    qc_err e = {0};
    if (qc_fit_dist_set(d, f, v, np, &e) != 0)
        return bad(r, p, e.msg);
    return 0;
}

static int read_marginal(const rd *r, const json_t *o, const char *path, qc_traffic_marginal *mg)
{
    char p[128];
    int rc;
    if (!json_is_object(o))
        return bad(r, path, "missing or not an object");
    const json_t *fam = json_object_get(o, "family");
    if (json_is_string(fam) && strcmp(json_string_value(fam), "empirical") == 0) {
        memset(&mg->fitted, 0, sizeof mg->fitted);
        mg->fitted.family = QC_FIT_EMPIRICAL; /* drawn from the table */
        mg->fitted.k = 1;
    } else if ((rc = read_dist(r, o, path, &mg->fitted)) != 0) {
        return rc;
    }
    snprintf(p, sizeof p, "%s.empirical", path);
    return read_table(r, json_object_get(o, "empirical"), p, &mg->emp);
}

static int read_points(const rd *r, const json_t *a, const char *path, size_t n, double **out)
{
    if (!json_is_array(a) || json_array_size(a) != 2 * n)
        return bad(r, path, "must be an array of 2 x transitions numbers");
    double *x = malloc(2 * n * sizeof *x);
    if (x == NULL)
        return qc_err_set(r->err, QC_ENOMEM, "out of memory");
    for (size_t i = 0; i < 2 * n; i++) {
        const json_t *e = json_array_get(a, i);
        x[i] = json_number_value(e);
        if (!json_is_number(e) || !(x[i] >= 0 && x[i] <= 1)) {
            char p[128];
            snprintf(p, sizeof p, "%s.%zu", path, i);
            free(x);
            return bad(r, p, "must be a number in [0, 1]");
        }
    }
    *out = x;
    return 0;
}

static int read_copula(const rd *r, const json_t *o, qc_copula *c)
{
    int rc = 0;
    double grid = 0, nt = 0;
    if (!json_is_object(o))
        return bad(r, "copula", "missing or not an object");
    if ((rc = get_num(r, o, "grid", "copula.grid", &grid)) != 0 ||
        (rc = get_num(r, o, "transitions", "copula.transitions", &nt)) != 0)
        return rc;
    if (!(grid >= 1 && grid <= 64 && grid == floor(grid)))
        return bad(r, "copula.grid", "must be a whole number in [1, 64]");
    if (!(nt >= 1 && nt <= 1e7 && nt == floor(nt)))
        return bad(r, "copula.transitions", "must be a whole number in [1, 10^7]");
    const size_t n = (size_t)nt;
    double *prev = NULL, *next = NULL;
    uint8_t *mark = calloc(n, 1);
    if (mark == NULL)
        return qc_err_set(r->err, QC_ENOMEM, "out of memory");
    if ((rc = read_points(r, json_object_get(o, "prev"), "copula.prev", n, &prev)) == 0 &&
        (rc = read_points(r, json_object_get(o, "next"), "copula.next", n, &next)) == 0) {
        const json_t *mk = json_object_get(o, "mark");
        if (mk != NULL) {
            if (!json_is_array(mk) || json_array_size(mk) != n)
                rc = bad(r, "copula.mark", "must be an array of one 0 or 1 per transition");
            for (size_t i = 0; rc == 0 && i < n; i++) {
                const json_t *e = json_array_get(mk, i);
                if (!json_is_integer(e) || (json_integer_value(e) != 0 && json_integer_value(e) != 1))
                    rc = bad(r, "copula.mark", "must be an array of one 0 or 1 per transition");
                else
                    mark[i] = (uint8_t)json_integer_value(e);
            }
        }
        if (rc == 0)
            rc = qc_copula_from_points(c, prev, next, mark, n, (unsigned)grid, r->err);
    }
    free(prev);
    free(next);
    free(mark);
    return rc;
}

int qc_traffic_model_from_json(qc_traffic_model *m, const json_t *j, const char *name,
                               qc_err *err)
{
    memset(m, 0, sizeof *m);
    rd r = {name, err};
    int rc = 0;
    const json_t *v;
    if (!json_is_object(j))
        return qc_err_set(err, QC_EPARSE, "%s: not a JSON object", name);
    v = json_object_get(j, "format");
    if (!json_is_string(v) || strcmp(json_string_value(v), "qctl-traffic-model") != 0)
        return bad(&r, "format", "must be \"qctl-traffic-model\"");
    double ver = 0;
    if ((rc = get_num(&r, j, "version", "version", &ver)) != 0)
        return rc;
    if (ver != 1)
        return bad(&r, "version", "only version 1 is known");
    v = json_object_get(j, "activity");
    if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) >= sizeof m->name)
        return bad(&r, "activity", "must be a name of 1 to 63 characters");
    snprintf(m->name, sizeof m->name, "%s", json_string_value(v));
    m->proto = 17;
    const json_t *tp = json_object_get(j, "transport");
    if (tp) {
        const json_t *pr = json_object_get(tp, "protocol"), *po = json_object_get(tp, "server_port");
        if (pr) {
            if (!json_is_string(pr) || (strcmp(json_string_value(pr), "tcp") != 0 &&
                                        strcmp(json_string_value(pr), "udp") != 0))
                return bad(&r, "transport.protocol", "must be \"tcp\" or \"udp\"");
            m->proto = json_string_value(pr)[0] == 't' ? 6 : 17;
        }
        if (po) {
            if (!json_is_integer(po) || json_integer_value(po) < 0 || json_integer_value(po) > 65535)
                return bad(&r, "transport.server_port", "must be a port number in [0, 65535]");
            m->port = (uint16_t)json_integer_value(po);
        }
    }
    const json_t *src = json_object_get(j, "source");
    if (json_is_object(src)) {
        const json_t *a = json_object_get(src, "packets"), *b = json_object_get(src, "duration");
        if (json_is_integer(a) && json_integer_value(a) >= 0)
            m->src_packets = (uint64_t)json_integer_value(a);
        if (json_is_number(b) && isfinite(json_number_value(b)))
            m->src_duration = json_number_value(b);
        const json_t *rs = json_object_get(src, "resolution"), *sg = json_object_get(src, "segments");
        if (json_is_number(rs) && json_number_value(rs) > 0 && isfinite(json_number_value(rs)))
            m->resolution = json_number_value(rs);
        if (json_is_integer(sg) && json_integer_value(sg) >= 1 && json_integer_value(sg) < (1LL << 32))
            m->segments = (uint32_t)json_integer_value(sg);
    }
    if ((rc = get_num(&r, j, "forward_fraction", "forward_fraction", &m->fwd_fraction)) != 0)
        goto fail;
    if (!(m->fwd_fraction >= 0 && m->fwd_fraction <= 1)) {
        rc = bad(&r, "forward_fraction", "must be in [0, 1]");
        goto fail;
    }
    const json_t *oo = json_object_get(j, "onoff");
    if (!json_is_object(oo)) {
        rc = bad(&r, "onoff", "missing or not an object");
        goto fail;
    }
    const json_t *th = json_object_get(oo, "threshold");
    const json_t *off = json_object_get(oo, "off");
    if (th == NULL || json_is_null(th) || off == NULL || json_is_null(off)) {
        m->threshold = INFINITY;
        snprintf(m->threshold_method, sizeof m->threshold_method, "none");
    } else {
        if ((rc = get_num(&r, oo, "threshold", "onoff.threshold", &m->threshold)) != 0)
            goto fail;
        if (!(m->threshold >= 0)) {
            rc = bad(&r, "onoff.threshold", "must be >= 0 (or null for no on/off)");
            goto fail;
        }
        const json_t *me = json_object_get(oo, "method");
        snprintf(m->threshold_method, sizeof m->threshold_method, "%s",
                 json_is_string(me) ? json_string_value(me) : "given");
        if ((rc = read_marginal(&r, off, "onoff.off", &m->off)) != 0)
            goto fail;
    }
    if ((rc = read_table(&r, json_object_get(oo, "session_packets"), "onoff.session_packets",
                         &m->session)) != 0)
        goto fail;
    if (m->session.v[0] < 1) {
        rc = bad(&r, "onoff.session_packets.values", "sessions have at least 1 packet");
        goto fail;
    }
    const json_t *opj = json_object_get(oo, "opener");
    if (opj != NULL && !json_is_null(opj) &&
        (rc = read_marginal(&r, opj, "onoff.opener", &m->opener)) != 0)
        goto fail;
    const json_t *evj = json_object_get(oo, "evidence");
    if (json_is_object(evj)) {
        const json_t *ru = json_object_get(evj, "rule");
        if (json_is_string(ru))
            snprintf(m->idle.rule, sizeof m->idle.rule, "%s", json_string_value(ru));
        const char *keys[] = {"floor", "ratio", "busy_median", "idle_median", "idle_weight",
                              "idle_fraction"};
        double *dst[] = {&m->idle.floor, &m->idle.ratio, &m->idle.busy_median,
                         &m->idle.idle_median, &m->idle.idle_weight, &m->idle.idle_fraction};
        for (int q = 0; q < 6; q++) {
            const json_t *e = json_object_get(evj, keys[q]);
            if (json_is_number(e) && isfinite(json_number_value(e)))
                *dst[q] = json_number_value(e);
        }
    }
    if ((rc = read_marginal(&r, json_object_get(j, "size"), "size", &m->size)) != 0 ||
        (rc = read_marginal(&r, json_object_get(j, "gap"), "gap", &m->gap)) != 0 ||
        (rc = read_copula(&r, json_object_get(j, "copula"), &m->copula)) != 0)
        goto fail;
    if (m->size.emp.v[m->size.emp.m - 1] > 4294967295.0) {
        rc = bad(&r, "size.empirical.values", "sizes must be below 2^32");
        goto fail;
    }
    return 0;
fail:
    qc_traffic_model_free(m);
    return rc;
}

int qc_traffic_model_load_mem(qc_traffic_model *m, const char *buf, size_t len, const char *name,
                              qc_err *err)
{
    memset(m, 0, sizeof *m);
    json_error_t je;
    json_t *j = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL)
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", name, je.line, je.column, je.text);
    const int rc = qc_traffic_model_from_json(m, j, name, err);
    json_decref(j);
    return rc;
}

int qc_traffic_model_load(qc_traffic_model *m, const char *path, qc_err *err)
{
    memset(m, 0, sizeof *m);
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (j == NULL) {
        if (je.line <= 0)
            return qc_err_set(err, QC_EIO, "%s: %s", path, je.text);
        return qc_err_set(err, QC_EPARSE, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    const int rc = qc_traffic_model_from_json(m, j, path, err);
    json_decref(j);
    return rc;
}
