/* SPDX-License-Identifier: GPL-3.0-or-later */
/* arx.c: ARX identification by least squares, order selection by an
 * information criterion, validation on held-out data, model I/O.
 *
 * With offsets u = U - u0, y = Y - y0 the model
 *
 *   y(k+1) = sum_{i=1..na} a_i y(k+1-i) + sum_{j=1..nb} b_j u(k+1-d-j)
 *
 * is linear in theta = (a_1..a_na, b_1..b_nb): stacking one row per k,
 * Y = X theta + e, and least squares gives theta^ = (X'X)^-1 X'Y with
 * covariance sigma^2 (X'X)^-1, sigma^2 estimated by RSS / (N - p). GSL
 * solves it by SVD (gsl_multifit_linear_tsvd), which also tells us the
 * rank: a constant input makes the b columns collinear with nothing to
 * learn, and that candidate is dropped instead of reported with huge
 * standard errors.
 *
 * Comparing orders needs the same targets for every candidate: a model
 * with more lags cannot predict the first samples, so all candidates are
 * fitted on rows k = k0 .. n_est - 2 with k0 the largest lag over the
 * whole candidate set. Then RSS values are comparable and
 *
 *   AIC = N ln(RSS/N) + 2p,    BIC = N ln(RSS/N) + p ln N
 *
 * (the Gaussian log-likelihood up to a constant) rank them. AIC tends to
 * over-fit slightly (a redundant parameter survives with probability
 * P(chi2_1 > 2) = 16%); BIC is consistent. Both are reported.
 *
 * Validation uses the last `holdout` fraction, never seen by the fit:
 * one-step-ahead R^2 (predictions from measured past outputs) and the
 * simulation fit 100 (1 - ||y - y_sim|| / ||y - mean y||), where y_sim is
 * driven by the input alone from measured initial conditions: the harder
 * test, since errors accumulate as they would in a closed loop. */
#include "qctl/arx.h"
#include "core/text.h"

#include <ctype.h>
#include <errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "control/arx_text.h"
#include "core/gsl_quiet.h"
#include "core/names.h"

/* Singular values below this fraction of the largest are treated as zero:
 * far above rounding (1e-16) and far below any real excitation. */
#define RANK_TOL 1e-10

struct qc_arx_ws {
    size_t n_max;
    double *du, *dy; /* offsets */
    gsl_matrix *X;   /* n_max x QC_ARX_MAX_PARAMS */
    gsl_vector *t;   /* targets */
    gsl_vector *c;
    gsl_matrix *cov;
    gsl_multifit_linear_workspace *mw;
};

void qc_arx_params_init(qc_arx_params *o)
{
    memset(o, 0, sizeof *o);
    o->na_min = 1;
    o->na_max = 3;
    o->nb_min = 1;
    o->nb_max = 3;
    o->tied = 1;
    o->d_min = 0;
    o->d_max = 2;
    o->criterion = QC_ARX_AIC;
    o->holdout = 0.3;
    o->demean = 1;
}

qc_arx_ws *qc_arx_alloc(size_t n_max, qc_err *err)
{
    if (n_max < 4) {
        qc_err_set(err, QC_EINVAL, "ARX workspace: n_max = %zu, need at least 4", n_max);
        return NULL;
    }
    qc_arx_ws *w = calloc(1, sizeof *w);
    if (w == NULL)
        goto err;
    w->n_max = n_max;
    /* a size whose bytes overflow is refused before anything asks for it;
     * GSL's allocations run with its handler off, so one that fails is a
     * NULL here, never the abort of GSL's default handler */
    if (n_max > SIZE_MAX / (QC_ARX_MAX_PARAMS * sizeof(double)))
        goto err;
    w->du = malloc(n_max * sizeof *w->du);
    w->dy = malloc(n_max * sizeof *w->dy);
    if (!w->du || !w->dy)
        goto err;
    gsl_error_handler_t *h = qc__gsl_quiet();
    w->X = gsl_matrix_alloc(n_max, QC_ARX_MAX_PARAMS);
    w->t = gsl_vector_alloc(n_max);
    w->c = gsl_vector_alloc(QC_ARX_MAX_PARAMS);
    w->cov = gsl_matrix_alloc(QC_ARX_MAX_PARAMS, QC_ARX_MAX_PARAMS);
    w->mw = gsl_multifit_linear_alloc(n_max, QC_ARX_MAX_PARAMS);
    qc__gsl_restore(h);
    if (!w->X || !w->t || !w->c || !w->cov || !w->mw)
        goto err;
    return w;
err:
    qc_arx_free(w);
    qc_err_set(err, QC_ENOMEM, "ARX workspace for %zu samples: out of memory", n_max);
    return NULL;
}

void qc_arx_free(qc_arx_ws *w)
{
    if (w == NULL)
        return;
    free(w->du);
    free(w->dy);
    gsl_matrix_free(w->X);
    gsl_vector_free(w->t);
    gsl_vector_free(w->c);
    gsl_matrix_free(w->cov);
    if (w->mw)
        gsl_multifit_linear_free(w->mw);
    free(w);
}

/* The largest lag of an (na, nb, d) model: y(t) needs y(t - na) and
 * u(t - d - nb). The first predictable sample is this lag. */
static size_t max_lag(unsigned na, unsigned nb, int d)
{
    const int lu = d + (int)nb;
    return (size_t)((int)na > lu ? (int)na : lu);
}

static int check_options(const qc_arx_params *o, qc_err *err)
{
    if (o->na_min > o->na_max || o->na_max > QC_ARX_MAX_ORDER)
        return qc_err_set(err, QC_EINVAL, "na range %u..%u: must lie in 0..%d, low <= high",
                          o->na_min, o->na_max, QC_ARX_MAX_ORDER);
    if (o->nb_min < 1 || o->nb_min > o->nb_max || o->nb_max > QC_ARX_MAX_ORDER)
        return qc_err_set(err, QC_EINVAL, "nb range %u..%u: must lie in 1..%d, low <= high",
                          o->nb_min, o->nb_max, QC_ARX_MAX_ORDER);
    if (o->d_min < -1 || o->d_min > o->d_max || o->d_max > QC_ARX_MAX_DELAY)
        return qc_err_set(err, QC_EINVAL, "delay range %d..%d: must lie in -1..%d, low <= high",
                          o->d_min, o->d_max, QC_ARX_MAX_DELAY);
    if (o->tied && (o->na_max < o->nb_min || o->nb_max < o->na_min))
        return qc_err_set(err, QC_EINVAL,
                          "na = nb asked but the ranges %u..%u and %u..%u do not overlap",
                          o->na_min, o->na_max, o->nb_min, o->nb_max);
    if (!(o->holdout >= 0 && o->holdout <= 0.9))
        return qc_err_set(err, QC_EINVAL, "holdout %g: must lie in [0, 0.9]", o->holdout);
    if (!o->demean && !(isfinite(o->u0) && isfinite(o->y0)))
        return qc_err_set(err, QC_EINVAL, "operating point is not finite");
    if (!(o->dt >= 0 && isfinite(o->dt)))
        return qc_err_set(err, QC_EINVAL, "sample interval %g: must be >= 0", o->dt);
    return 0;
}

/* Fills the regression of candidate (na, nb, d) on rows k = k0 .. k0+N-1
 * into the N x p corner of X and the targets into t. */
static void fill_rows(qc_arx_ws *w, unsigned na, unsigned nb, int d, size_t k0, size_t N)
{
    for (size_t r = 0; r < N; r++) {
        const size_t k = k0 + r;
        for (unsigned i = 1; i <= na; i++)
            gsl_matrix_set(w->X, r, i - 1, w->dy[k + 1 - i]);
        for (unsigned j = 1; j <= nb; j++)
            gsl_matrix_set(w->X, r, na + j - 1, w->du[(size_t)((long)k + 1 - d - (long)j)]);
        gsl_vector_set(w->t, r, w->dy[k + 1]);
    }
}

/* Least squares for one candidate. Leaves theta in w->c and the
 * covariance in w->cov (their p-corner). Returns the rank. */
static size_t solve(qc_arx_ws *w, size_t N, unsigned p, double *rss)
{
    gsl_matrix_view X = gsl_matrix_submatrix(w->X, 0, 0, N, p);
    gsl_vector_view t = gsl_vector_subvector(w->t, 0, N);
    gsl_vector_view c = gsl_vector_subvector(w->c, 0, p);
    gsl_matrix_view cov = gsl_matrix_submatrix(w->cov, 0, 0, p, p);
    size_t rank = 0;
    double chisq = NAN;
    gsl_error_handler_t *h = qc__gsl_quiet();
    int rc = gsl_multifit_linear_tsvd(&X.matrix, &t.vector, RANK_TOL, &c.vector, &cov.matrix,
                                      &chisq, &rank, w->mw);
    qc__gsl_restore(h);
    if (rc != 0)
        return 0;
    *rss = chisq;
    return rank;
}

static void score(qc_arx_candidate *c, size_t N, double tss)
{
    const double n = (double)N, p = (double)c->params;
    /* A model that explains the data to rounding has RSS ~ 1e-32 TSS, and
     * ln(0) would make every such model tie at -inf. Flooring RSS far
     * above rounding and far below any noise lets the 2p term pick the
     * smallest exact model. */
    const double floor_rss = 1e-24 * (tss > 0 ? tss : 1.0);
    const double ll = n * log((c->rss > floor_rss ? c->rss : floor_rss) / n);
    c->sigma2 = c->rss / (n - p);
    c->r2 = tss > 0 ? 1 - c->rss / tss : NAN;
    c->aic = ll + 2 * p;
    c->bic = ll + p * log(n);
}

/* Validation on [n_est, n) in offsets. */
static void validate(const qc_arx_ws *w, const qc_arx_model *m, size_t n_est, size_t n,
                     double *r2, double *fit)
{
    *r2 = *fit = NAN;
    if (n - n_est < 2)
        return;
    double mean = 0;
    for (size_t t = n_est; t < n; t++)
        mean += w->dy[t];
    mean /= (double)(n - n_est);
    double ss_one = 0, ss_sim = 0, ss_tot = 0;
    double ysim[QC_ARX_MAX_ORDER] = {0}; /* ysim(t-1), ysim(t-2), ... */
    for (unsigned i = 0; i < m->na; i++)
        ysim[i] = w->dy[n_est - 1 - i];
    for (size_t t = n_est; t < n; t++) {
        double one = 0, sim = 0;
        for (unsigned i = 1; i <= m->na; i++) {
            one += m->a[i - 1] * w->dy[t - i];
            sim += m->a[i - 1] * ysim[i - 1];
        }
        for (unsigned j = 1; j <= m->nb; j++) {
            const double x = w->du[(size_t)((long)t - m->delay - (long)j)];
            one += m->b[j - 1] * x;
            sim += m->b[j - 1] * x;
        }
        for (unsigned i = m->na; i > 1; i--)
            ysim[i - 1] = ysim[i - 2];
        if (m->na > 0)
            ysim[0] = sim;
        ss_one += (w->dy[t] - one) * (w->dy[t] - one);
        ss_sim += (w->dy[t] - sim) * (w->dy[t] - sim);
        ss_tot += (w->dy[t] - mean) * (w->dy[t] - mean);
    }
    if (ss_tot > 0) {
        *r2 = 1 - ss_one / ss_tot;
        *fit = 100 * (1 - sqrt(ss_sim / ss_tot));
    }
}

int qc_arx_fit(qc_arx_ws *w, const double *u, const double *y, size_t n,
               const qc_arx_params *o, qc_arx_result *res, qc_err *err)
{
    int rc = check_options(o, err);
    if (rc != 0)
        return rc;
    if (n > w->n_max)
        return qc_err_set(err, QC_EINVAL, "%zu samples exceed the workspace (%zu)", n, w->n_max);
    for (size_t k = 0; k < n; k++)
        if (!isfinite(u[k]) || !isfinite(y[k]))
            return qc_err_set(err, QC_EINVAL, "sample %zu: %s is not finite", k + 1,
                              isfinite(u[k]) ? "y" : "u");

    /* The candidate set, its largest lag and its largest parameter count. */
    size_t k0 = 0;
    unsigned pmax = 0;
    for (unsigned na = o->na_min; na <= o->na_max; na++)
        for (unsigned nb = o->nb_min; nb <= o->nb_max; nb++) {
            if (o->tied && na != nb)
                continue;
            for (int d = o->d_min; d <= o->d_max; d++) {
                const size_t lag = max_lag(na, nb, d);
                /* rows start at k with k + 1 >= lag, and k >= 0 */
                if (lag > 0 && lag - 1 > k0)
                    k0 = lag - 1;
                if (na + nb > pmax)
                    pmax = na + nb;
            }
        }

    const size_t n_val = (size_t)floor(o->holdout * (double)n + 0.5);
    const size_t n_est = n - (n_val < n ? n_val : n);
    /* Need N - p >= 2: a residual variance with some degrees of freedom. */
    const size_t need_rows = (size_t)pmax + 2;
    if (n_est < k0 + 1 + need_rows) {
        size_t need = n;
        while (need - (size_t)floor(o->holdout * (double)need + 0.5) < k0 + 1 + need_rows)
            need++;
        return qc_err_set(err, QC_EINVAL,
                          "%zu samples are too few to fit the candidates (up to %u parameters "
                          "and %zu samples of lag) with %.0f%% held out: need at least %zu",
                          n, pmax, k0 + 1, 100 * o->holdout, need);
    }
    const size_t N = n_est - 1 - k0;

    memset(res, 0, sizeof *res);
    double u0 = o->u0, y0 = o->y0;
    if (o->demean) {
        u0 = y0 = 0;
        for (size_t k = 0; k < n_est; k++) {
            u0 += u[k];
            y0 += y[k];
        }
        u0 /= (double)n_est;
        y0 /= (double)n_est;
    }
    for (size_t k = 0; k < n; k++) {
        w->du[k] = u[k] - u0;
        w->dy[k] = y[k] - y0;
    }
    double tmean = 0, tss = 0;
    for (size_t k = k0; k + 1 < n_est; k++)
        tmean += w->dy[k + 1];
    tmean /= (double)N;
    for (size_t k = k0; k + 1 < n_est; k++)
        tss += (w->dy[k + 1] - tmean) * (w->dy[k + 1] - tmean);

    size_t best = SIZE_MAX;
    for (unsigned na = o->na_min; na <= o->na_max; na++)
        for (unsigned nb = o->nb_min; nb <= o->nb_max; nb++) {
            if (o->tied && na != nb)
                continue;
            for (int d = o->d_min; d <= o->d_max; d++) {
                qc_arx_candidate *c = &res->cand[res->ncand];
                c->na = na;
                c->nb = nb;
                c->delay = d;
                c->params = na + nb;
                fill_rows(w, na, nb, d, k0, N);
                c->usable = solve(w, N, c->params, &c->rss) == c->params;
                if (c->usable)
                    score(c, N, tss);
                else
                    c->rss = c->sigma2 = c->r2 = c->aic = c->bic = NAN;
                const double s = o->criterion == QC_ARX_BIC ? c->bic : c->aic;
                if (c->usable && isfinite(s) &&
                    (best == SIZE_MAX ||
                     s < (o->criterion == QC_ARX_BIC ? res->cand[best].bic : res->cand[best].aic)))
                    best = res->ncand;
                res->ncand++;
            }
        }
    if (best == SIZE_MAX)
        return qc_err_set(err, QC_ERANGE,
                          "every candidate model is rank deficient: the input or the output "
                          "does not vary enough to identify anything");

    /* Refit the chosen candidate for its coefficients and covariance. */
    const qc_arx_candidate *bc = &res->cand[best];
    fill_rows(w, bc->na, bc->nb, bc->delay, k0, N);
    double rss = 0;
    solve(w, N, bc->params, &rss);
    qc_arx_model *m = &res->model;
    m->na = bc->na;
    m->nb = bc->nb;
    m->delay = bc->delay;
    m->u0 = u0;
    m->y0 = y0;
    m->dt = o->dt;
    for (unsigned i = 0; i < bc->params; i++) {
        const double v = gsl_vector_get(w->c, i);
        const double se = sqrt(gsl_matrix_get(w->cov, i, i));
        if (i < bc->na) {
            m->a[i] = v;
            res->se_a[i] = se;
        } else {
            m->b[i - bc->na] = v;
            res->se_b[i - bc->na] = se;
        }
        for (unsigned j = 0; j < bc->params; j++)
            res->cov[i][j] = gsl_matrix_get(w->cov, i, j);
    }
    res->criterion = o->criterion;
    res->n = n;
    res->n_est = n_est;
    res->n_val = n - n_est;
    res->rows = N;
    res->first_row = k0;
    res->best = best;
    res->rss = bc->rss;
    res->sigma2 = bc->sigma2;
    res->r2 = bc->r2;
    res->aic = bc->aic;
    res->bic = bc->bic;
    validate(w, m, n_est, n, &res->val_r2, &res->val_fit);
    return 0;
}

void qc_arx_predict(const qc_arx_model *m, const double *u, const double *y, size_t n,
                    size_t from, double *yhat1, double *ysim)
{
    size_t start = max_lag(m->na, m->nb, m->delay);
    if (start < from)
        start = from;
    for (size_t t = 0; t < n && t < start; t++) {
        if (yhat1)
            yhat1[t] = NAN;
        if (ysim)
            ysim[t] = NAN;
    }
    for (size_t t = start; t < n; t++) {
        double one = m->y0, sim = m->y0;
        for (unsigned i = 1; i <= m->na; i++) {
            one += m->a[i - 1] * (y[t - i] - m->y0);
            /* before `start` the simulation starts from measured outputs */
            const double ys = (ysim && t - i >= start) ? ysim[t - i] : y[t - i];
            sim += m->a[i - 1] * (ys - m->y0);
        }
        for (unsigned j = 1; j <= m->nb; j++) {
            const double x = u[(size_t)((long)t - m->delay - (long)j)] - m->u0;
            one += m->b[j - 1] * x;
            sim += m->b[j - 1] * x;
        }
        if (yhat1)
            yhat1[t] = one;
        if (ysim)
            ysim[t] = sim;
    }
}

void qc_arx_fall_input(const double *u, size_t n, double fall, double *out)
{
    double prev = 0;
    for (size_t k = 0; k < n; k++) {
        const double floor_ = (1 - fall) * prev;
        prev = k > 0 && fall > 0 && u[k] < floor_ ? floor_ : u[k];
        out[k] = prev;
    }
}

static double criterion_of(const qc_arx_result *r)
{
    return r->criterion == QC_ARX_BIC ? r->bic : r->aic;
}

int qc_arx_fit_fall(qc_arx_ws *w, const double *u, const double *y, size_t n,
                    const qc_arx_params *o, double fall_max, double *ueff, double *fall,
                    qc_arx_result *res, qc_err *err)
{
    if (!(fall_max > 0 && fall_max < 1))
        return qc_err_set(err, QC_EINVAL, "fall rate bound %g is not in (0, 1)", fall_max);
    double best = NAN, best_c = INFINITY;
    int rc;
    /* coarse grid, then a fine one around the best point */
    for (int pass = 0; pass < 2; pass++) {
        const double step = pass == 0 ? fall_max / 100 : fall_max / 5000;
        const double lo = pass == 0 ? 0 : fmax(0, best - fall_max / 100);
        const double hi = pass == 0 ? fall_max : fmin(fall_max, best + fall_max / 100);
        const int npts = (int)lround((hi - lo) / step);
        for (int i = 0; i <= npts; i++) {
            const double f = lo + step * i;
            qc_arx_fall_input(u, n, f, ueff);
            if ((rc = qc_arx_fit(w, ueff, y, n, o, res, err)) != 0)
                return rc;
            const double c = criterion_of(res);
            if (c < best_c) {
                best_c = c;
                best = f;
            }
        }
    }
    *fall = best;
    qc_arx_fall_input(u, n, best, ueff);
    return qc_arx_fit(w, ueff, y, n, o, res, err);
}

/* A(1) = 1 - sum a_i and B(1) = sum b_j: the static gain is B(1) / A(1). */
static void ab_at_one(const qc_arx_model *m, double *a1, double *b1)
{
    *a1 = 1;
    *b1 = 0;
    for (unsigned i = 0; i < m->na; i++)
        *a1 -= m->a[i];
    for (unsigned j = 0; j < m->nb; j++)
        *b1 += m->b[j];
}

double qc_arx_dc_gain(const qc_arx_model *m)
{
    double a1, b1;
    ab_at_one(m, &a1, &b1);
    if (a1 == 0)
        return b1 == 0 ? NAN : copysign(INFINITY, b1);
    return b1 / a1;
}

double qc_arx_dc_gain_se(const qc_arx_result *r)
{
    const qc_arx_model *m = &r->model;
    double a1, b1;
    ab_at_one(m, &a1, &b1);
    if (a1 == 0)
        return NAN;
    /* g = B(1) / A(1): dg/da_i = B(1) / A(1)^2, dg/db_j = 1 / A(1) */
    double grad[QC_ARX_MAX_PARAMS];
    const unsigned p = m->na + m->nb;
    for (unsigned i = 0; i < m->na; i++)
        grad[i] = b1 / (a1 * a1);
    for (unsigned j = 0; j < m->nb; j++)
        grad[m->na + j] = 1 / a1;
    double v = 0;
    for (unsigned i = 0; i < p; i++)
        for (unsigned j = 0; j < p; j++)
            v += grad[i] * r->cov[i][j] * grad[j];
    return v >= 0 ? sqrt(v) : NAN;
}

void qc_arx_state_init(qc_arx_state *s)
{
    memset(s, 0, sizeof *s);
}

double qc_arx_state_output(const qc_arx_model *m, const qc_arx_state *s, double x_t)
{
    double v = 0;
    for (unsigned i = 1; i <= m->na; i++)
        v += m->a[i - 1] * s->y[i - 1];
    for (unsigned j = 1; j <= m->nb; j++) {
        /* y(t) uses x(t - d - j); lag 0 (d = -1, j = 1) is x(t) itself */
        const int lag = m->delay + (int)j;
        v += m->b[j - 1] * (lag == 0 ? x_t - m->u0 : s->x[lag - 1]);
    }
    return m->y0 + v;
}

void qc_arx_state_push(const qc_arx_model *m, qc_arx_state *s, double x_t, double y_t)
{
    const size_t nx = sizeof s->x / sizeof s->x[0], ny = sizeof s->y / sizeof s->y[0];
    memmove(s->x + 1, s->x, (nx - 1) * sizeof s->x[0]);
    memmove(s->y + 1, s->y, (ny - 1) * sizeof s->y[0]);
    s->x[0] = x_t - m->u0;
    s->y[0] = y_t - m->y0;
}

/* ---- CSV ---------------------------------------------------------------- */

#define CSV_MAX_COLS 8

typedef struct csv_sel {
    size_t num;       /* 1-based column, 0 while a name is unresolved */
    char name[64];
} csv_sel;

typedef struct span {
    size_t beg, end;
} span;

/* Splits line[0, len) at commas into at most max fields, each trimmed of
 * blanks and one pair of double quotes. Returns the number of fields. */
static size_t split_fields(const char *line, size_t len, span *f, size_t max)
{
    size_t k = 0, beg = 0;
    for (size_t i = 0; i <= len && k < max; i++) {
        if (i < len && line[i] != ',')
            continue;
        f[k].beg = beg;
        f[k].end = i;
        qc__field_trim(line, &f[k].beg, &f[k].end);
        k++;
        beg = i + 1;
    }
    return k;
}

/* Parses "a,b,c" into k selectors. */
static int parse_select(const char *select, size_t k, csv_sel *sel, qc_err *err)
{
    size_t len = strlen(select), got = 0;
    span f[CSV_MAX_COLS + 1];
    size_t nf = split_fields(select, len, f, CSV_MAX_COLS + 1);
    if (nf != k)
        return qc_err_set(err, QC_EINVAL, "columns \"%s\": expected %zu names or numbers, got %zu",
                          select, k, nf);
    for (got = 0; got < k; got++) {
        const char *s = select + f[got].beg;
        const size_t n = f[got].end - f[got].beg;
        if (n == 0 || n >= sizeof sel[got].name)
            return qc_err_set(err, QC_EINVAL, "columns \"%s\": selector %zu is %s", select,
                              got + 1, n == 0 ? "empty" : "too long");
        memcpy(sel[got].name, s, n);
        sel[got].name[n] = '\0';
        size_t i = 0;
        unsigned long num = 0;
        while (i < n && isdigit((unsigned char)s[i]) && num < 100000)
            num = num * 10 + (unsigned long)(s[i++] - '0');
        if (i == n) {
            if (num < 1 || num > 100000)
                return qc_err_set(err, QC_EINVAL, "columns \"%s\": column %s out of range",
                                  select, sel[got].name);
            sel[got].num = num;
        } else {
            sel[got].num = 0;
        }
    }
    return 0;
}

typedef struct colvec {
    double *v[CSV_MAX_COLS];
    size_t n, cap, k;
} colvec;

static int colvec_push(colvec *c, const double *row)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        for (size_t i = 0; i < c->k; i++) {
            double *p = realloc(c->v[i], cap * sizeof *p);
            if (p == NULL)
                return QC_ENOMEM;
            c->v[i] = p;
        }
        c->cap = cap;
    }
    for (size_t i = 0; i < c->k; i++)
        c->v[i][c->n] = row[i];
    c->n++;
    return 0;
}

/* Copies a field for messages, with non-printing bytes as '?'. */
/* Resolves name selectors against a header line. */
static int resolve_names(const char *path, size_t lineno, const char *line, const span *f,
                         size_t nf, csv_sel *sel, size_t k, qc_err *err)
{
    for (size_t i = 0; i < k; i++) {
        if (sel[i].num != 0)
            continue;
        const size_t ln = strlen(sel[i].name);
        for (size_t j = 0; j < nf; j++)
            if (f[j].end - f[j].beg == ln && memcmp(line + f[j].beg, sel[i].name, ln) == 0) {
                sel[i].num = j + 1;
                break;
            }
        if (sel[i].num == 0)
            return qc_err_set(err, QC_EPARSE, "%s:%zu:1: no column named \"%s\" in the header",
                              path, lineno, sel[i].name);
    }
    return 0;
}

int qc_arx_read_csv(const char *path, const char *select, size_t k, unsigned flags,
                    double *cols[], size_t *n, qc_err *err)
{
    if (k == 0 || k > CSV_MAX_COLS)
        return qc_err_set(err, QC_EINVAL, "%zu columns asked, at most %d", k, CSV_MAX_COLS);
    csv_sel sel[CSV_MAX_COLS];
    int rc = parse_select(select, k, sel, err);
    if (rc != 0)
        return rc;
    size_t maxcol = 0;
    for (size_t i = 0; i < k; i++)
        if (sel[i].num > maxcol)
            maxcol = sel[i].num;
    qc__lines rd;
    if (qc__lines_open(&rd, path) != 0)
        return qc_err_set(err, QC_EIO, "%s: cannot open: %s", path, strerror(errno));

    enum { MAXF = 4096 };
    span *f = malloc(MAXF * sizeof *f);
    colvec cv = {.k = k};
    const char *line;
    size_t len, start;
    int seen_first = 0;
    double prev_t = -INFINITY;
    if (f == NULL) {
        rc = qc_err_set(err, QC_ENOMEM, "%s: out of memory", path);
        goto done;
    }
    while (qc__lines_next(&rd, &line, &len, &start)) {
        const size_t lineno = rd.lineno;
        const size_t nf = split_fields(line, len, f, MAXF);
        if (!seen_first) {
            seen_first = 1;
            int header = 0;
            for (size_t j = 0; j < nf; j++)
                if (f[j].end > f[j].beg && !qc__starts_number(line[f[j].beg]))
                    header = 1;
            int names = 0;
            for (size_t i = 0; i < k; i++)
                names |= sel[i].num == 0;
            if (header && names) {
                if ((rc = resolve_names(path, lineno, line, f, nf, sel, k, err)) != 0)
                    goto done;
            } else if (names && (flags & QC_ARX_CSV_POSITIONAL)) {
                for (size_t i = 0; i < k; i++)
                    sel[i].num = i + 1;
            } else if (names) {
                for (size_t i = 0; i < k; i++)
                    if (sel[i].num == 0) {
                        rc = qc_err_set(err, QC_EPARSE,
                                        "%s:%zu:1: no header line to find column \"%s\" in; "
                                        "select columns by number",
                                        path, lineno, sel[i].name);
                        goto done;
                    }
            }
            maxcol = 0;
            for (size_t i = 0; i < k; i++)
                if (sel[i].num > maxcol)
                    maxcol = sel[i].num;
            if (header)
                continue;
        }
        if (nf < maxcol) {
            size_t i = 0;
            while (sel[i].num <= nf)
                i++;
            rc = qc_err_set(err, QC_EPARSE,
                            "%s:%zu:%zu: %zu field%s, column %zu (\"%s\") is missing", path,
                            lineno, len + 1, nf, nf == 1 ? "" : "s", sel[i].num, sel[i].name);
            goto done;
        }
        double row[CSV_MAX_COLS];
        for (size_t i = 0; i < k; i++) {
            const span s = f[sel[i].num - 1];
            const size_t fl = s.end - s.beg;
            char num[80], shown[48];
            qc__field_text(shown, sizeof shown, line + s.beg, fl);
            if (fl == 0) {
                rc = qc_err_set(err, QC_EPARSE, "%s:%zu:%zu: column %zu (\"%s\") is empty", path,
                                lineno, s.beg + 1, sel[i].num, sel[i].name);
                goto done;
            }
            char *end = NULL;
            double x = NAN;
            if (fl < sizeof num) {
                memcpy(num, line + s.beg, fl);
                num[fl] = '\0';
                errno = 0;
                x = strtod(num, &end);
            }
            if (fl >= sizeof num || end == num || *end != '\0') {
                const size_t at = (fl < sizeof num && end != NULL) ? (size_t)(end - num) : 0;
                rc = qc_err_set(err, QC_EPARSE,
                                "%s:%zu:%zu: column %zu (\"%s\"): \"%s\" is not a number", path,
                                lineno, s.beg + at + 1, sel[i].num, sel[i].name, shown);
                goto done;
            }
            if (!isfinite(x)) {
                rc = qc_err_set(err, QC_EPARSE,
                                "%s:%zu:%zu: column %zu (\"%s\"): \"%s\" is not a finite number",
                                path, lineno, s.beg + 1, sel[i].num, sel[i].name, shown);
                goto done;
            }
            row[i] = x;
        }
        if (flags & QC_ARX_CSV_TIME) {
            if (!(row[0] > prev_t)) {
                rc = qc_err_set(err, QC_EPARSE,
                                "%s:%zu:%zu: time %.10g is not after the previous time %.10g",
                                path, lineno, f[sel[0].num - 1].beg + 1, row[0], prev_t);
                goto done;
            }
            prev_t = row[0];
        }
        if (colvec_push(&cv, row) != 0) {
            rc = qc_err_set(err, QC_ENOMEM, "%s:%zu: out of memory", path, lineno);
            goto done;
        }
    }
    if (qc__lines_error(&rd))
        rc = qc_err_set(err, QC_EIO, "%s: read error: %s", path, strerror(errno));
    else if (cv.n == 0)
        rc = qc_err_set(err, QC_EEMPTY, "%s: no data rows", path);
done:
    free(f);
    qc__lines_close(&rd);
    if (rc != 0) {
        for (size_t i = 0; i < k; i++)
            free(cv.v[i]);
        return rc;
    }
    for (size_t i = 0; i < k; i++)
        cols[i] = cv.v[i];
    *n = cv.n;
    return 0;
}

int qc_arx_affine_fit(const double *y, const double *ym, size_t n, double at, double width,
                      double gain, qc_arx_affine *out, qc_err *err)
{
    if (!isfinite(at) || !(width > 0) || !(gain > 0) || !isfinite(gain))
        return qc_err_set(err, QC_EINVAL, "affine sensor map: centre %g, half-width %g, gain %g",
                          at, width, gain);
    /* the value at `at`: tricube-weighted mean of ym - gain (y - at) */
    double sw = 0, sv = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (y[i] - at) / width;
        if (!(fabs(d) < 1) || !isfinite(ym[i]))
            continue;
        double t = 1 - fabs(d) * fabs(d) * fabs(d);
        double w = t * t * t;
        sw += w;
        sv += w * (ym[i] - gain * (y[i] - at));
        k++;
    }
    if (k < 10)
        return qc_err_set(err, QC_ERANGE,
                          "affine sensor map: only %zu samples within %g of %g (need 10): the "
                          "data do not reach that operating point",
                          k, width, at);
    out->at = at;
    out->gain = gain;
    out->offset = sv / sw - gain * at;
    out->width = width;
    out->points = k;
    return 0;
}

double qc_arx_curve_at(double scale, double y)
{
    if (!(y > 0))
        return y;
    return y - (y * y / scale) * -expm1(-scale / y);
}

double qc_arx_wiener_input(const qc_arx_model *sensor, double ym_lin)
{
    return sensor->u0 + (ym_lin - sensor->y0) / qc_arx_dc_gain(sensor);
}

/* Sum of squares of ym - f_S(v) over the usable samples. */
static double curve_sse(double scale, const double *v, const double *ym, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > 0 && isfinite(ym[i])) {
            const double d = ym[i] - qc_arx_curve_at(scale, v[i]);
            s += d * d;
        }
    return s;
}

#define CURVE_BURN 5        /* samples while the sensor state leaves its rest */
#define CURVE_GRID 400

int qc_arx_curve_fit(const qc_arx_model *sensor, const double *y, const double *ym, size_t n,
                     qc_arx_curve *out, qc_err *err)
{
    memset(out, 0, sizeof *out);
    const double gs = qc_arx_dc_gain(sensor);
    if (!(gs > 0) || !isfinite(gs))
        return qc_err_set(err, QC_EINVAL,
                          "sensor curve: the sensor model's DC gain %g is not positive", gs);
    if (n <= CURVE_BURN)
        return qc_err_set(err, QC_ERANGE, "sensor curve: %zu samples (need at least %d)", n,
                          CURVE_BURN + 10);
    double *v = malloc((n - CURVE_BURN) * sizeof *v);
    if (v == NULL)
        return qc_err_set(err, QC_ENOMEM, "sensor curve: out of memory");
    /* the sensor's dynamics from rest at y[0], moved to unit DC gain */
    qc_arx_state st;
    qc_arx_state_init(&st);
    const double y_init = isfinite(y[0]) ? y[0] : sensor->u0;
    for (size_t i = 0; i < sizeof st.y / sizeof st.y[0]; i++)
        st.y[i] = gs * (y_init - sensor->u0);
    for (size_t i = 0; i < sizeof st.x / sizeof st.x[0]; i++)
        st.x[i] = y_init - sensor->u0;
    size_t usable = 0;
    double vmax = 0, ymax = 0;
    for (size_t k = 0; k < n; k++) {
        const double yk = isfinite(y[k]) ? y[k] : sensor->u0 + st.x[0];
        const double lin = qc_arx_state_output(sensor, &st, yk);
        qc_arx_state_push(sensor, &st, yk, lin);
        if (k < CURVE_BURN)
            continue;
        const double vk = isfinite(y[k]) ? qc_arx_wiener_input(sensor, lin) : NAN;
        v[k - CURVE_BURN] = vk;
        if (vk > 0 && isfinite(vk) && isfinite(ym[k])) {
            usable++;
            vmax = fmax(vmax, vk);
            ymax = fmax(ymax, ym[k]);
        }
    }
    const double *m = ym + CURVE_BURN;
    const size_t nv = n - CURVE_BURN;
    if (usable < 10 || !(ymax > 0)) {
        free(v);
        return qc_err_set(err, QC_ERANGE,
                          "sensor curve: %zu usable samples (need 10 with a positive true and "
                          "measured output)",
                          usable);
    }
    /* f_S < S / 2: S below 2 max ym cannot reach the data */
    const double lo = ymax, hi = 1e4 * fmax(vmax, ymax);
    double best = INFINITY;
    int bi = 0;
    for (int i = 0; i < CURVE_GRID; i++) {
        const double sc = lo * pow(hi / lo, (double)i / (CURVE_GRID - 1));
        const double e = curve_sse(sc, v, m, nv);
        if (e < best) {
            best = e;
            bi = i;
        }
    }
    double a = log(lo) + log(hi / lo) * (double)(bi > 0 ? bi - 1 : 0) / (CURVE_GRID - 1);
    double b = log(lo) + log(hi / lo) * (double)(bi < CURVE_GRID - 1 ? bi + 1 : bi) /
                             (CURVE_GRID - 1);
    const double g = (sqrt(5.0) - 1) / 2;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = curve_sse(exp(x1), v, m, nv), f2 = curve_sse(exp(x2), v, m, nv);
    for (int it = 0; it < 200 && b - a > 1e-12; it++) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = curve_sse(exp(x1), v, m, nv);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = curve_sse(exp(x2), v, m, nv);
        }
    }
    const double sc = exp(0.5 * (a + b));
    out->scale = sc;
    out->points = usable;
    out->residual_variance = curve_sse(sc, v, m, nv) / (double)(usable - 1);
    double rel = 0;
    for (size_t i = 0; i < nv; i++)
        if (v[i] > 0 && isfinite(m[i])) {
            const double d = (m[i] - qc_arx_curve_at(sc, v[i])) / v[i];
            rel += d * d;
        }
    out->residual_cv = sqrt(rel / (double)(usable - 1));
    free(v);
    return 0;
}

static const char *const arx_criterion_names[] = {"aic", "bic"};
QC__NAMES(qc_arx_criterion, qc_arx_criterion_name, qc_arx_criterion_parse, arx_criterion_names)
