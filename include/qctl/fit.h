/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/fit.h: maximum-likelihood fits of distribution families to data,
 * goodness of fit, confidence intervals and model selection.
 *
 * Families (parameters in this order in qc_fit_dist.p):
 *   exp         rate                        f = r e^{-r x}
 *   gamma       shape k, scale s            f = x^{k-1} e^{-x/s} / (Gamma(k) s^k)
 *   lognormal   mu, sigma                   log X ~ N(mu, sigma^2)
 *   weibull     shape k, scale l            F = 1 - exp(-(x/l)^k)
 *   pareto      alpha, xm                   F = 1 - (xm/x)^alpha, x >= xm
 *   lnmix2/3    w_1..w_K, mu_1..mu_K, sigma_1..sigma_K   (K = 2, 3)
 *               f = sum_j w_j lognormal(mu_j, sigma_j)
 *   expmix2/3   w_1..w_K, r_1..r_K          f = sum_j w_j r_j e^{-r_j x}
 *   gpd         xi, sigma, u, P(X > u)      the tail: for X > u,
 *               P(X - u > y | X > u) = (1 + xi y / sigma)^{-1/xi}
 *   empirical   the data themselves
 * Mixture components are ordered by increasing mean.
 *
 * Estimation. Closed forms where they exist (exp, lognormal, pareto);
 * Newton's method on the profile equation for gamma (log k - psi(k) =
 * log mean - mean log) and a bracketed root for Weibull
 * (sum x^k log x / sum x^k - 1/k = mean log x); EM for mixtures; the
 * profile likelihood in tau = xi / sigma for the GPD, fitted to the
 * exceedances over the threshold u (by default the 0.9 quantile).
 *
 * Mixtures: EM from several deterministic starts, since one start is often
 * caught in a poor local optimum on real data (packet sizes with a few
 * sharp modes): equal-weight quantile groups, and em_starts - 1 k-means++
 * starts (centres drawn with probability proportional to the squared
 * distance to those chosen, then Lloyd passes), start i from stream i + 1
 * of the family under em_seed, so that the starts run on threads (from
 * 20000 values; qc_fit_params.threads) with the same result for any number
 * of threads. Every start runs 40 iterations, the two best run to
 * convergence, the higher likelihood wins. Above QC_FIT_EM_MAX values EM
 * iterates on that many evenly spaced order statistics (a stratified
 * subsample) before two steps over all the data. On more than 2000
 * values the starts' 40 iterations run on coarser log-scale bins (runs
 * within a factor 1 + em_coarse, default 1e-2, merged; a component at
 * least such a bin wide): a start only has to find its basin, and the
 * two best then converge on the data themselves (test_fit.c:
 * test_coarse_starts holds the result within a fraction of a standard
 * error of starts on the data). tests/unit/traffic/test_fit.c holds
 * the result within 1% (or 20 units) of a 40-start reference on real
 * captures.
 *
 * Data are sorted and their ties merged once (qc_fit_data), so that
 * integer-valued data (packet sizes) cost as many operations as they have
 * distinct values. Data that are not whole numbers with more than
 * QC_FIT_BIN_MIN distinct values (a million packet gaps on a nanosecond
 * clock) are binned on a log scale: each run of values within a factor
 * 1 + QC_FIT_BIN_WIDTH of its first becomes one value, the run's count-
 * weighted mean, so that no value moves by more than that factor (log x
 * by at most 1e-3) and every fit, likelihood and GOF pass costs at most
 * about log(max / min) / 1e-3 values instead of n. n, mean, mean_log and
 * var stay those of the exact values, so the closed-form and profile
 * estimates that use only them (exp, lognormal, gamma, pareto's alpha)
 * are unchanged; the others (Weibull, mixtures, GPD) move by a fraction
 * of the bin width (tests/unit/traffic/test_fit.c: within 2e-3 relative, measured at
 * most 6e-4, on 10^6 lognormal-mixture gaps, or within one standard error
 * along a flat likelihood where the binned fit's likelihood is the
 * higher), and KS by at most the mass of a bin (measured 2e-4). A
 * lognormal component is then also kept at least a bin wide (sigma >=
 * QC_FIT_BIN_WIDTH / sqrt(12)). Values of 0 (simultaneous timestamps) are raised to
 * half the smallest positive value, so that every family on (0, inf) has
 * a finite likelihood; qc_fit_data.raised counts them. For integer data
 * a lognormal component's sigma is kept >= 1 / (sqrt(12) e^mu) (the
 * spread of rounding to whole bytes), without which a component can sit
 * on one repeated value with an infinite likelihood; for other data the
 * same with the data's grid r (qc_fit_params.resolution: a capture's clock
 * resolution for gaps) in place of 1: sigma >= r / (sqrt(12) e^mu).
 *
 * Confidence intervals (level L, z its two-sided normal quantile):
 *   exp, pareto  exact: 2 r sum x ~ chi2(2n); 2 n alpha / alpha^ ~
 *                chi2(2(n-1)); xm in [min (1-L)^{1/(n alpha^)}, min]
 *   gamma, lognormal, weibull, gpd: the inverse of the expected Fisher
 *                information at the MLE (closed forms; gpd after Smith
 *                1987, valid for xi > -1/2)
 *   mixtures     the inverse of the empirical (outer product of scores)
 *                information, itself estimated on the EM subsample; when
 *                that is singular (a sigma at its floor, a component on
 *                one value) a percentile bootstrap: 60 resamples, each
 *                refitted by EM from the estimate ("bootstrap"), so every
 *                parameter has an interval (a resample of more than 10^5
 *                values is drawn as multinomial counts over the distinct
 *                values by conditional binomials, not value by value)
 * Positive parameters get intervals theta exp(+-z se / theta) (the Wald
 * interval of log theta), others theta +- z se.
 *
 * Likelihood: the density for continuous data; for whole-number data
 * (every value an integer: packet sizes) the binned likelihood, each
 * value x standing for [x - 1/2, x + 1/2] with probability
 * F(x + 1/2) - F(x - 1/2), which stays bounded on data with atoms. AIC =
 * 2p - 2 logL and BIC = p log n - 2 logL use it.
 *
 * Goodness of fit: Kolmogorov-Smirnov D = sup |F_n - F| and the
 * Anderson-Darling A^2 = n int (F_n - F)^2 / (F (1 - F)) dF, both against
 * the fitted F (so their textbook p-values, which assume F known, would
 * be too large: they are reported as statistics only). Ranking: by BIC
 * (default) or AIC, over the families with a likelihood (not gpd, which
 * models only the tail, nor the empirical distribution).
 *
 * Ownership: qc_fit_data and qc_fit_dist own arrays released by their
 * _free functions (safe on zeroed values). Errors: 0 or a negative QC_E*
 * code with a message. Nothing here keeps state between calls. */
#ifndef QCTL_FIT_H
#define QCTL_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_fit_family {
    QC_FIT_EXP = 0,
    QC_FIT_GAMMA,
    QC_FIT_LOGNORMAL,
    QC_FIT_WEIBULL,
    QC_FIT_PARETO,
    QC_FIT_LNMIX2,
    QC_FIT_LNMIX3,
    QC_FIT_EXPMIX2,
    QC_FIT_EXPMIX3,
    QC_FIT_GPD,
    QC_FIT_EMPIRICAL,
    QC_FIT_NFAMILIES
} qc_fit_family;

#define QC_FIT_MAXPAR 9
#define QC_FIT_EM_MAX 20000
#define QC_FIT_BIN_MIN 20000   /* distinct values above which data are binned */
#define QC_FIT_BIN_WIDTH 1e-3  /* relative width of those bins */

/* Data prepared for fitting: sorted distinct values with counts. */
typedef struct qc_fit_data {
    double *v;      /* distinct values, ascending (zeros raised) */
    double *c;      /* their counts */
    size_t m;       /* number of distinct values */
    double n;       /* number of values */
    double mean, mean_log, var;
    int integer;    /* 1 when every value is a whole number */
    size_t raised;  /* zeros raised to half the smallest positive value */
    double step;    /* the smallest difference between distinct values
                       (before binning; 0 for one value) */
    double binned;  /* relative width of the log-scale bins merged
                       (QC_FIT_BIN_WIDTH), or 0: v holds the exact values */
} qc_fit_data;

/* Prepares x[0..n-1] (n >= 1, values >= 0 and finite). QC_EINVAL names
 * the index of a negative or non-finite value; QC_EEMPTY for n == 0 or
 * when every value is 0. */
int qc_fit_data_init(qc_fit_data *d, const double *x, size_t n, qc_err *err);
void qc_fit_data_free(qc_fit_data *d);

/* A distribution of one of the families. */
typedef struct qc_fit_dist {
    qc_fit_family family;
    int k;                   /* mixture components (else 1) */
    double p[QC_FIT_MAXPAR]; /* parameters, in the order above */
    qc_dist d;               /* the same distribution as a qc_dist (every
                                family; gpd: the tail given X > u), which
                                does its CDF, quantile, mean and sampling:
                                qc_dist_format(&d) is its spec */
} qc_fit_dist;

/* Fills m for family f with parameters p (count by family; an empirical
 * one takes values x[0..n-1] instead). Checks the parameters. */
int qc_fit_dist_set(qc_fit_dist *m, qc_fit_family f, const double *p, int np, qc_err *err);
int qc_fit_dist_empirical(qc_fit_dist *m, const double *x, size_t n, qc_err *err);
void qc_fit_dist_free(qc_fit_dist *m);

double qc_fit_pdf(const qc_fit_dist *m, double x);
double qc_fit_cdf(const qc_fit_dist *m, double x);
double qc_fit_quantile(const qc_fit_dist *m, double q);
double qc_fit_mean(const qc_fit_dist *m);
double qc_fit_sample(const qc_fit_dist *m, qc_rng *r);

/* Number of free parameters (mixture weights sum to 1; gpd: xi, sigma). */
int qc_fit_npar(qc_fit_family f);
const char *qc_fit_family_name(qc_fit_family f);
/* Parameter names, e.g. "shape", "w1", "mu2". */
const char *qc_fit_param_name(qc_fit_family f, int i);
/* Number of stored parameters of f (p[0..count-1]). */
int qc_fit_nstored(qc_fit_family f);
/* The family named s into *f: 0, or QC_EINVAL (message naming s; *f
 * unchanged). err may be NULL. */
int qc_fit_family_parse(const char *s, qc_fit_family *f, qc_err *err);

typedef enum qc_fit_criterion { QC_FIT_BIC = 0, QC_FIT_AIC } qc_fit_criterion;
const char *qc_fit_criterion_name(qc_fit_criterion v);
int qc_fit_criterion_parse(const char *s, qc_fit_criterion *v, qc_err *err);

typedef struct qc_fit_params {
    double level;          /* confidence level (default 0.95) */
    double gpd_quantile;   /* threshold u as a quantile (default 0.9) */
    qc_fit_criterion crit; /* ranking (default BIC) */
    int gof;               /* 1 (default): compute KS and AD; 0 skips that pass */
    unsigned em_max_iter;  /* default 300 */
    double em_tol;         /* relative log-likelihood change (default 1e-8) */
    unsigned em_starts;    /* EM starts for mixtures (default 8; see above) */
    uint64_t em_seed;      /* seed of the k-means++ starts and the bootstrap (1) */
    double em_coarse;      /* relative width of the log-scale bins on which the
                              starts of EM explore data of more than 2000
                              distinct values before the two best converge on
                              the data (default 1e-2; 0: on the data) */
    double resolution;     /* grid of non-integer data, for the sigma floor
                              (0: the smallest step between values) */
    unsigned threads;      /* threads fitting families at once in qc_fit_all
                              (default 0: one per online core, at most 4; 1:
                              none), and running a mixture's EM starts (0:
                              one per online core); the results do not
                              depend on it */
} qc_fit_params;

void qc_fit_params_init(qc_fit_params *o);

/* One fit. */
typedef struct qc_fit_result {
    qc_fit_dist dist;
    int ok;                      /* 1 when fitted */
    char why[160];               /* when not: why (e.g. "all values equal") */
    int npar;
    double loglik, aic, bic;     /* NAN when not defined */
    double ks, ad;               /* goodness of fit; gpd: on exceedances */
    size_t nfit;                 /* values the fit used (gpd: exceedances) */
    double se[QC_FIT_MAXPAR];    /* standard errors (NAN where not given) */
    double lo[QC_FIT_MAXPAR], hi[QC_FIT_MAXPAR]; /* confidence interval */
    const char *ci_method;       /* "exact", "fisher", "opg", "bootstrap", "bound",
                                    "none" */
    unsigned iterations;         /* EM or Newton iterations */
    int converged;
} qc_fit_result;

/* Fits family f to d. A family that cannot be fitted (all values equal,
 * no convergence) returns 0 with r->ok = 0 and r->why set; errors are
 * only for bad arguments or memory. */
int qc_fit_one(const qc_fit_data *d, qc_fit_family f, const qc_fit_params *o, qc_fit_result *r,
               qc_err *err);

/* Fits every family in `families` (a bit mask of 1u << f; 0 = all),
 * writes r[f] for each family f (r has QC_FIT_NFAMILIES entries) and the
 * ranked families (best first) to order[0..*nranked-1]. */
int qc_fit_all(const qc_fit_data *d, unsigned families, const qc_fit_params *o, qc_fit_result *r,
               qc_fit_family *order, size_t *nranked, qc_err *err);

void qc_fit_result_free(qc_fit_result *r);

/* KS and AD of d against m (F continuous). */
void qc_fit_gof(const qc_fit_data *d, const qc_fit_dist *m, double *ks, double *ad);

/* Two-sample Kolmogorov-Smirnov D between x and y (sorted copies are
 * made), and its asymptotic p-value. */
int qc_fit_ks2(const double *x, size_t nx, const double *y, size_t ny, double *d, double *p,
               qc_err *err);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
