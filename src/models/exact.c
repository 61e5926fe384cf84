/* SPDX-License-Identifier: GPL-3.0-or-later */
/* exact.c: closed forms of the open queue (see qctl/exact.h). */
#include "qctl/exact.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double qc_dist_lst(const qc_dist *a, double s)
{
    const double *p = a->p;
    if (!(s >= 0))
        return NAN;
    switch (a->kind) {
    case QC_DIST_EXP:
        return p[0] / (p[0] + s);
    case QC_DIST_DET:
        return exp(-s * p[0]);
    case QC_DIST_ERLANG:
        return pow(p[1] / (p[1] + s), p[0]);
    case QC_DIST_GAMMA:
        return pow(1 + p[1] * s, -p[0]);
    case QC_DIST_HYPEREXP:
        return p[0] * p[1] / (p[1] + s) + (1 - p[0]) * p[3] / (p[3] + s);
    case QC_DIST_UNIFORM:
        if (s == 0)
            return 1;
        return (exp(-s * p[0]) - exp(-s * p[1])) / (s * (p[1] - p[0]));
    default:
        return NAN;
    }
}

double qc_gm1_sigma(const qc_dist *a, double mu)
{
    if (isnan(qc_dist_lst(a, 1.0)) || !(mu * qc_dist_mean(a) > 1))
        return NAN;
    /* f(x) = A*(mu (1 - x)) - x is convex, > 0 at 0, 0 at 1 and < 0
     * just below 1 (f'(1) = mu E[A] - 1 > 0): bisection on [0, hi] with
     * f(hi) < 0. */
    double lo = 0, hi = 1;
    for (double d = 1e-3; d > 1e-15; d /= 10) {
        if (qc_dist_lst(a, mu * d) - (1 - d) < 0) {
            hi = 1 - d;
            break;
        }
    }
    if (hi == 1)
        return NAN;
    for (int i = 0; i < 200 && hi - lo > 1e-16; i++) {
        double x = 0.5 * (lo + hi);
        if (qc_dist_lst(a, mu * (1 - x)) - x > 0)
            lo = x;
        else
            hi = x;
    }
    return 0.5 * (lo + hi);
}

/* Terms of the M/M/c/K stationary distribution relative to n = c,
 * t_n = P(n) / P(c): t_{n-1} = t_n n / a below c, rho^(n-c) above. */
int qc_mmck(double lambda, double mu, unsigned c, uint64_t K, double *p_block, double *mean_n,
            double *mean_busy)
{
    double a = lambda / mu, rho = a / c;
    if (!(lambda > 0 && mu > 0 && c >= 1) || (K == 0 && !(rho < 1)))
        return -1;
    double s0 = 0, s1 = 0, sb = 0; /* sums of t_n, n t_n, min(n, c) t_n */
    double t = 1;
    for (unsigned n = c; n-- > 0;) {
        t *= (double)(n + 1) / a;
        s0 += t;
        s1 += n * t;
        sb += n * t;
    }
    double tK; /* t_K, the blocking term (0 when unlimited) */
    if (K == 0) {
        /* sum_{j>=0} rho^j (c + j) */
        s0 += 1 / (1 - rho);
        s1 += c / (1 - rho) + rho / ((1 - rho) * (1 - rho));
        sb += c / (1 - rho);
        tK = 0;
    } else {
        uint64_t M = K - c;
        if (M > 10000000 && rho >= 1)
            return -1;
        if (M <= 10000000) {
            double tj = 1, g0 = 0, g1 = 0;
            for (uint64_t j = 0; j <= M; j++) {
                g0 += tj;
                g1 += (double)j * tj;
                if (j < M)
                    tj *= rho;
            }
            tK = tj;
            s0 += g0;
            s1 += c * g0 + g1;
            sb += c * g0;
        } else {
            /* rho < 1 and M huge: rho^M is 0 to double precision */
            double g0 = 1 / (1 - rho), g1 = rho / ((1 - rho) * (1 - rho));
            tK = pow(rho, (double)M);
            s0 += g0;
            s1 += c * g0 + g1;
            sb += c * g0;
        }
    }
    *p_block = tK / s0;
    *mean_n = s1 / s0;
    *mean_busy = sb / s0;
    return 0;
}

double qc_erlang_c(unsigned c, double a)
{
    double rho = a / c;
    if (!(a > 0 && rho < 1 && c >= 1))
        return NAN;
    /* P(N >= c) = (t_c / (1 - rho)) / (sum_{n<c} t_n + t_c / (1 - rho)),
     * terms relative to t_c = 1 */
    double t = 1, below = 0;
    for (unsigned n = c; n-- > 0;) {
        t *= (double)(n + 1) / a;
        below += t;
    }
    double top = 1 / (1 - rho);
    return top / (below + top);
}

/* P(T > t) of FCFS M/M/c: e^{-mu t} + C mu (e^{-mu t} - e^{-theta t}) /
 * (theta - mu), theta = c mu - lambda (t e^{-mu t} C mu when equal). */
static double mmc_tail(double mu, double theta, double C, double t)
{
    double d = theta - mu;
    double f = fabs(d * t) < 1e-12 ? t : -expm1(-d * t) / d;
    return exp(-mu * t) * (1 + C * mu * f);
}

double qc_mmc_response_quantile(double lambda, double mu, unsigned c, double q)
{
    double C = qc_erlang_c(c, lambda / mu);
    if (isnan(C) || !(q > 0 && q < 1))
        return NAN;
    double theta = c * mu - lambda;
    double lo = 0, hi = 1 / mu;
    while (mmc_tail(mu, theta, C, hi) > 1 - q)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double x = 0.5 * (lo + hi);
        if (mmc_tail(mu, theta, C, x) > 1 - q)
            lo = x;
        else
            hi = x;
    }
    return 0.5 * (lo + hi);
}

static const double quant[3] = {0.50, 0.95, 0.99};

int qc_queue_exact_values(const qc_queue_params *p, qc_queue_exact *out)
{
    for (int i = 0; i < QC_QM_COUNT; i++)
        out->value[i] = NAN;
    out->model[0] = '\0';
    const qc_dist *A = NULL;
    if (p->arrivals == NULL)
        A = p->arrival;
    else if (p->arrivals->kind == QC_ARRIVALS_RENEWAL)
        A = &p->arrivals->gap;
    const qc_dist *S = p->service;
    if (A == NULL || S == NULL || S->kind == QC_DIST_NONE)
        return 0;
    double ma = qc_dist_mean(A), ms = qc_dist_mean(S);
    if (!(ma > 0 && ms > 0 && isfinite(ma) && isfinite(ms)))
        return 0;
    double lambda = 1 / ma, mu = 1 / ms;
    unsigned c = p->servers;
    double *v = out->value;
    int poisson = A->kind == QC_DIST_EXP;
    int expsvc = S->kind == QC_DIST_EXP;
    if (poisson && (expsvc || p->discipline == QC_PS)) {
        double pb, n, busy;
        if (qc_mmck(lambda, mu, c, p->capacity, &pb, &n, &busy) != 0)
            return 0;
        double thr = lambda * (1 - pb);
        v[QC_QM_NUMBER] = n;
        v[QC_QM_THROUGHPUT] = thr;
        v[QC_QM_UTILIZATION] = busy / c;
        v[QC_QM_BLOCKING] = pb;
        v[QC_QM_RESPONSE] = n / thr;
        v[QC_QM_WAIT] = n / thr - ms;
        snprintf(out->model, sizeof out->model, "%s/%s/%u%s%s", "M", expsvc ? "M" : "G", c,
                 p->capacity ? "/K" : "", p->discipline == QC_PS ? "-PS" : "");
        if (expsvc && p->discipline == QC_FCFS && p->capacity == 0)
            for (int i = 0; i < 3; i++)
                v[QC_QM_P50 + i] = qc_mmc_response_quantile(lambda, mu, c, quant[i]);
    } else if (poisson && c == 1 && p->capacity == 0 && p->discipline == QC_FCFS) {
        double rho = lambda * ms;
        if (!(rho < 1))
            return 0;
        double m2 = qc_dist_var(S) + ms * ms;
        double w = isfinite(m2) ? lambda * m2 / (2 * (1 - rho)) : INFINITY;
        v[QC_QM_WAIT] = w;
        v[QC_QM_RESPONSE] = w + ms;
        v[QC_QM_NUMBER] = lambda * (w + ms);
        v[QC_QM_UTILIZATION] = rho;
        v[QC_QM_THROUGHPUT] = lambda;
        v[QC_QM_BLOCKING] = 0;
        snprintf(out->model, sizeof out->model, "M/G/1 (P-K)");
    } else if (expsvc && c == 1 && p->capacity == 0 && p->discipline == QC_FCFS) {
        double sigma = qc_gm1_sigma(A, mu);
        if (isnan(sigma))
            return 0;
        double rate = mu * (1 - sigma);
        v[QC_QM_RESPONSE] = 1 / rate;
        v[QC_QM_WAIT] = sigma / rate;
        v[QC_QM_NUMBER] = lambda / rate;
        v[QC_QM_UTILIZATION] = lambda / mu;
        v[QC_QM_THROUGHPUT] = lambda;
        v[QC_QM_BLOCKING] = 0;
        for (int i = 0; i < 3; i++)
            v[QC_QM_P50 + i] = -log1p(-quant[i]) / rate;
        snprintf(out->model, sizeof out->model, "GI/M/1");
    } else {
        return 0;
    }
    int k = 0;
    for (int i = 0; i < QC_QM_COUNT; i++)
        k += !isnan(v[i]);
    return k;
}
