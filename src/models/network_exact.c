/* SPDX-License-Identifier: GPL-3.0-or-later */
/* network_exact.c: the analytic solution of a network of queues
 * (qctl/network.h), printed beside the simulation's estimates and alone
 * by `sim network --analytic`.
 *
 * Product form (Jackson 1963; Baskett, Chandy, Muntz and Palacios 1975):
 * stations PS (any service), IS (any service) or FCFS with exponential
 * service of one mean for every class, no capacity nor impatience, and
 * Poisson arrivals for the open classes. Then:
 *   - visits: each chain's (the class it enters as) visits to each
 *     (station, class) solve v = e + v P, class switching included;
 *   - open classes alone: each station is the M/M/c (or M/G/1-PS, or
 *     the delay) of its total offered load, its number split among the
 *     classes in proportion to their loads (Jackson, BCMP);
 *   - closed chains: exact MVA (Reiser and Lavenberg 1980) over the
 *     chains' population lattice, with a think time as a delay; a single
 *     chain with multi-server stations by load-dependent MVA;
 *   - mixed: the open classes' utilization inflates the closed chains'
 *     demands at the queueing stations (Lazowska et al. 1984, ch. 7), and
 *     an open class's time there is S (1 + Q_closed) / (1 - U_open).
 * Otherwise, a one-station network with open classes only has its own
 * closed form: sim queue's (qctl/exact.h: M/M/c/K, M/G/1, GI/M/1) for a
 * single class; a birth-death chain for balking and exponential patience
 * (Erlang-A, Garnett, Mandelbaum and Reiman 2002); M/G/1 priority,
 * preemptive-resume and non-preemptive (Kleinrock 1976, 3.6-3.7). A
 * single closed chain without an exact form gets balanced job bounds
 * (Zahorjan, Sevcik, Eager and Galler 1982). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/exact.h"
#include "qctl/network.h"

#define MS QC_NET_MAX_STATIONS
#define MC QC_NET_MAX_CLASSES

typedef struct ctx {
    const qc_network *n;
    unsigned S, C;
    double v[MC][MS * MC]; /* visits of chain c to (i, k), per entry */
    double svc[MS * MC];   /* mean service of (i, k) */
    double lam[MS * MC];   /* open classes: arrival rate at (i, k) */
    double lamc[MC];       /* open chain's rate */
} ctx;

static double *stv(qc_network_exact *ex, const qc_network *n, unsigned i, unsigned k, int m)
{
    return &ex->station[QC_NET_ROW(n, i, k) * QC_NM_COUNT + (size_t)m];
}

static double *e2v(qc_network_exact *ex, unsigned c, int m)
{
    return &ex->e2e[(size_t)c * QC_NE_COUNT + (size_t)m];
}

/* v = e + v P by iteration; 0, or -1 when the chain never leaves. */
static int visits(ctx *x, unsigned c)
{
    const qc_network *n = x->n;
    size_t ns = (size_t)x->S * x->C;
    double *v = x->v[c];
    for (size_t r = 0; r < ns; r++)
        v[r] = 0;
    for (int it = 0; it < 200000; it++) {
        double nx[MS * MC] = {0};
        for (unsigned i = 0; i < x->S; i++)
            nx[i * x->C + c] = n->cl[c].entry[i];
        for (size_t r = 0; r < ns; r++)
            for (unsigned h = 0; h < n->nroute[r]; h++) {
                const qc_net_hop *hp = &n->route[r][h];
                nx[(size_t)hp->station * x->C + (size_t)hp->cls] += v[r] * hp->p;
            }
        double d = 0, tot = 0;
        for (size_t r = 0; r < ns; r++) {
            d += fabs(nx[r] - v[r]);
            tot += nx[r];
            v[r] = nx[r];
        }
        if (!(tot < 1e9))
            return -1;
        if (d <= 1e-14 * tot)
            return 0;
    }
    return -1;
}

/* M/M/c mean number with offered load a < c (NAN otherwise). */
static double mmc_number(unsigned c, double a)
{
    if (!(a < c))
        return NAN;
    double C = qc_erlang_c(c, a);
    return a + C * a / (c - a);
}

/* Product form: why not, or NULL. */
static const char *not_product_form(const ctx *x, char *buf, size_t len)
{
    const qc_network *n = x->n;
    if (n->front >= 0)
        return "a controller at the front governs the admissions (no product form)";
    for (unsigned k = 0; k < x->C; k++) {
        const qc_net_class *c = &n->cl[k];
        if (!c->closed && !(c->arrivals.kind == QC_ARRIVALS_RENEWAL &&
                            c->arrivals.gap.kind == QC_DIST_EXP)) {
            snprintf(buf, len, "class \"%s\" does not arrive as a Poisson process", c->name);
            return buf;
        }
    }
    for (unsigned i = 0; i < x->S; i++) {
        const qc_net_station *s = &n->st[i];
        if (s->capacity || s->nbalk || s->patience.kind != QC_DIST_NONE || s->timeout > 0) {
            snprintf(buf, len, "station \"%s\" has a capacity, balking, patience or timeout",
                     s->name);
            return buf;
        }
        if (s->disc == QC_NET_PRIO || s->disc == QC_NET_PRIO_PR) {
            snprintf(buf, len, "station \"%s\" serves by priority", s->name);
            return buf;
        }
        if (s->disc != QC_NET_FCFS)
            continue;
        double mean = NAN;
        for (unsigned k = 0; k < x->C; k++) {
            if (!s->has_service[k])
                continue;
            int used = 0;
            for (unsigned c = 0; c < x->C; c++)
                used |= x->v[c][i * x->C + k] > 0;
            if (!used)
                continue;
            const qc_dist *d = &s->service[k];
            if (d->kind != QC_DIST_EXP || (!isnan(mean) && fabs(qc_dist_mean(d) - mean) >
                                                                1e-12 * mean)) {
                snprintf(buf, len,
                         "FCFS station \"%s\" needs exponential service of one mean for "
                         "every class",
                         s->name);
                return buf;
            }
            mean = qc_dist_mean(d);
        }
    }
    return NULL;
}

/* ---- MVA ----------------------------------------------------------------- */

/* Exact multi-chain MVA over the population lattice; R[c * nst + i]:
 * chain c's residence time at i (all its visits); X[c]; Q at N. */
static int mva_full(unsigned nst, unsigned nch, const int *is_delay, const double *D,
                    const double *Z, const unsigned *N, double *X, double *Q, double *R,
                    qc_err *err)
{
    size_t states = 1, mult[MC];
    for (unsigned c = 0; c < nch; c++) {
        mult[c] = states;
        states *= (size_t)N[c] + 1;
        if (states > 4000000)
            return qc_err_set(err, QC_ERANGE,
                              "exact MVA: the population lattice has more than 4e6 states");
    }
    double *q = calloc(states * nst, sizeof(double)); /* total queue at i, per state */
    if (q == NULL)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    unsigned n[MC] = {0};
    for (size_t s = 1; s < states; s++) {
        /* next population vector in the lattice order (mixed radix) */
        for (unsigned c = 0; c < nch; c++) {
            if (n[c] < N[c]) {
                n[c]++;
                break;
            }
            n[c] = 0;
        }
        double *qs = q + s * nst;
        for (unsigned c = 0; c < nch; c++) {
            if (n[c] == 0) {
                X[c] = 0;
                continue;
            }
            const double *qm = q + (s - mult[c]) * nst;
            double sum = Z[c];
            for (unsigned i = 0; i < nst; i++) {
                double d = D[c * nst + i];
                R[c * nst + i] = is_delay[i] ? d : d * (1 + qm[i]);
                sum += R[c * nst + i];
            }
            X[c] = sum > 0 ? n[c] / sum : INFINITY;
        }
        for (unsigned i = 0; i < nst; i++) {
            qs[i] = 0;
            for (unsigned c = 0; c < nch; c++)
                if (n[c] > 0)
                    qs[i] += X[c] * R[c * nst + i];
        }
    }
    for (unsigned c = 0; c < nch; c++)
        for (unsigned i = 0; i < nst; i++)
            Q[c * nst + i] = X[c] * R[c * nst + i];
    free(q);
    return 0;
}

int qc_mva(unsigned nst, unsigned nch, const int *is_delay, const double *D, const double *Z,
           const unsigned *N, double *X, double *Q, qc_err *err)
{
    if (nst == 0 || nst > MS || nch == 0 || nch > MC)
        return qc_err_set(err, QC_EINVAL, "mva: 1 to %d stations and 1 to %d chains", MS, MC);
    double R[MC * MS];
    return mva_full(nst, nch, is_delay, D, Z, N, X, Q, R, err);
}

/* Load-dependent MVA for one chain: station i has c[i] servers (0: a
 * delay); the residence R[i] at population N. */
static int mva_ld(unsigned nst, const unsigned *c, const double *D, double Z, unsigned N,
                  double *X, double *R, qc_err *err)
{
    double *p = calloc((size_t)nst * (N + 1), sizeof(double)); /* p_i(j | n) */
    double *pn = calloc((size_t)nst * (N + 1), sizeof(double));
    if (p == NULL || pn == NULL) {
        free(p);
        free(pn);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (unsigned i = 0; i < nst; i++)
        p[i * (N + 1)] = 1;
    double x = 0;
    for (unsigned n = 1; n <= N; n++) {
        double sum = Z;
        for (unsigned i = 0; i < nst; i++) {
            if (c[i] == 0) {
                R[i] = D[i];
            } else {
                double r = 0;
                for (unsigned j = 1; j <= n; j++)
                    r += (double)j / (j < c[i] ? j : c[i]) * p[i * (N + 1) + j - 1];
                R[i] = D[i] * r;
            }
            sum += R[i];
        }
        x = n / sum;
        for (unsigned i = 0; i < nst; i++) {
            if (c[i] == 0)
                continue;
            double *pi = p + i * (N + 1), *qi = pn + i * (N + 1);
            double s0 = 0;
            for (unsigned j = n; j >= 1; j--) {
                qi[j] = x * D[i] / (j < c[i] ? j : c[i]) * pi[j - 1];
                s0 += qi[j];
            }
            qi[0] = 1 - s0 > 0 ? 1 - s0 : 0;
            memcpy(pi, qi, (N + 1) * sizeof(double));
        }
    }
    *X = x;
    free(p);
    free(pn);
    return 0;
}

/* ---- one-station closed forms ------------------------------------------- */

/* A one-station network with open Poisson classes (for the birth-death
 * and priority forms) and no routing. */
static int one_station_open(const qc_network *n)
{
    if (n->nst != 1 || n->front >= 0)
        return 0;
    for (unsigned k = 0; k < n->ncl; k++)
        if (n->cl[k].closed || n->nroute[k] > 0)
            return 0;
    return 1;
}

static int poisson(const qc_net_class *c)
{
    return !c->closed && c->arrivals.kind == QC_ARRIVALS_RENEWAL &&
           c->arrivals.gap.kind == QC_DIST_EXP;
}

/* Birth-death: balking, capacity, exponential patience, c servers, one
 * exponential service rate for all classes. */
static int birth_death(const qc_network *n, qc_network_exact *ex)
{
    const qc_net_station *s = &n->st[0];
    if (s->disc != QC_NET_FCFS || s->timeout > 0)
        return 0;
    if (s->patience.kind != QC_DIST_NONE && s->patience.kind != QC_DIST_EXP)
        return 0;
    double mu = NAN, L = 0;
    for (unsigned k = 0; k < n->ncl; k++) {
        if (!poisson(&n->cl[k]) || s->service[k].kind != QC_DIST_EXP)
            return 0;
        double m = 1 / qc_dist_mean(&s->service[k]);
        if (!isnan(mu) && fabs(m - mu) > 1e-12 * mu)
            return 0;
        mu = m;
        L += qc_arrivals_mean_rate(&n->cl[k].arrivals);
    }
    double th = s->patience.kind == QC_DIST_EXP ? 1 / qc_dist_mean(&s->patience) : 0;
    unsigned c = s->servers;
    uint64_t K = s->capacity;
    /* unnormalized pi_n, in logs-free form with rescaling */
    size_t nmax = K ? (size_t)K : 2000000;
    double pi = 1, Z = 0, N = 0, B = 0, balk = 0, ren = 0, loss = 0;
    for (size_t m = 0; m <= nmax; m++) {
        double b = s->nbalk ? s->balk[m < s->nbalk ? m : s->nbalk - 1] : 0;
        Z += pi;
        N += pi * (double)m;
        B += pi * (double)(m < c ? m : c);
        ren += pi * (m > c ? (double)(m - c) * th : 0);
        balk += pi * b;
        if (K && m == K) {
            loss = pi * (1 - b);
            break;
        }
        double up = L * (1 - b);
        double down = (double)(m + 1 < c ? m + 1 : c) * mu + (m + 1 > c ? (double)(m + 1 - c) * th : 0);
        pi *= up / down;
        if (pi == 0 || (m > c && pi < 1e-18 * Z && up < down))
            break;
        if (m == nmax - 1 && !K && pi > 1e-12 * Z)
            return 0; /* no stationary distribution found */
    }
    N /= Z;
    B /= Z;
    ren /= Z;
    balk /= Z;
    loss /= Z;
    double X = B * mu;
    for (unsigned k = 0; k <= n->ncl; k++) {
        double f = k < n->ncl ? qc_arrivals_mean_rate(&n->cl[k].arrivals) / L : 1;
        *stv(ex, n, 0, k, QC_NM_NUMBER) = N * f;
        *stv(ex, n, 0, k, QC_NM_UTILIZATION) = B / c * f;
        *stv(ex, n, 0, k, QC_NM_THROUGHPUT) = X * f;
        *stv(ex, n, 0, k, QC_NM_LOSS) = loss;
        *stv(ex, n, 0, k, QC_NM_BALK) = balk;
        *stv(ex, n, 0, k, QC_NM_RENEGE) = ren / L;
        *stv(ex, n, 0, k, QC_NM_TIMEOUT) = 0;
        if (th == 0) {
            *stv(ex, n, 0, k, QC_NM_RESPONSE) = N / X;
            *stv(ex, n, 0, k, QC_NM_WAIT) = N / X - 1 / mu;
            *e2v(ex, k, QC_NE_RESPONSE) = N / X;
        }
        *e2v(ex, k, QC_NE_NUMBER) = N * f;
        *e2v(ex, k, QC_NE_THROUGHPUT) = X * f;
        *e2v(ex, k, QC_NE_LOST) = loss + balk + ren / L;
    }
    snprintf(ex->method, sizeof ex->method, "%s",
             th > 0 ? (s->nbalk ? "birth-death chain (balking, Erlang-A)" : "Erlang-A (M/M/c+M)")
                    : "birth-death chain (M/M/c/K with balking)");
    return 1;
}

/* M/G/1 with priority classes: level l holds the classes of the l-th
 * priority; sigma_l the load of the levels up to l. */
static int priority_one(const qc_network *n, qc_network_exact *ex)
{
    const qc_net_station *s = &n->st[0];
    if ((s->disc != QC_NET_PRIO && s->disc != QC_NET_PRIO_PR) || s->servers != 1 ||
        s->capacity || s->nbalk || s->patience.kind != QC_DIST_NONE || s->timeout > 0)
        return 0;
    double lam[MC], es[MC], es2[MC];
    for (unsigned k = 0; k < n->ncl; k++) {
        if (!poisson(&n->cl[k]))
            return 0;
        lam[k] = qc_arrivals_mean_rate(&n->cl[k].arrivals);
        es[k] = qc_dist_mean(&s->service[k]);
        es2[k] = qc_dist_var(&s->service[k]) + es[k] * es[k];
        if (!isfinite(es2[k]))
            return 0;
    }
    double Xt = 0, Nt = 0, Ut = 0;
    for (unsigned k = 0; k < n->ncl; k++) {
        int pk = n->cl[k].priority;
        double above = 0, upto = 0, r_upto = 0, r_all = 0;
        for (unsigned j = 0; j < n->ncl; j++) {
            double rho = lam[j] * es[j], r0 = lam[j] * es2[j] / 2;
            r_all += r0;
            if (n->cl[j].priority < pk)
                above += rho;
            if (n->cl[j].priority <= pk) {
                upto += rho;
                r_upto += r0;
            }
        }
        if (!(upto < 1))
            return 0;
        double T = s->disc == QC_NET_PRIO_PR
                       ? es[k] / (1 - above) + r_upto / ((1 - above) * (1 - upto))
                       : es[k] + r_all / ((1 - above) * (1 - upto));
        *stv(ex, n, 0, k, QC_NM_RESPONSE) = T;
        *stv(ex, n, 0, k, QC_NM_WAIT) = T - es[k];
        *stv(ex, n, 0, k, QC_NM_NUMBER) = lam[k] * T;
        *stv(ex, n, 0, k, QC_NM_UTILIZATION) = lam[k] * es[k];
        *stv(ex, n, 0, k, QC_NM_THROUGHPUT) = lam[k];
        *e2v(ex, k, QC_NE_RESPONSE) = T;
        *e2v(ex, k, QC_NE_NUMBER) = lam[k] * T;
        *e2v(ex, k, QC_NE_THROUGHPUT) = lam[k];
        *e2v(ex, k, QC_NE_LOST) = 0;
        for (int m = QC_NM_LOSS; m <= QC_NM_TIMEOUT; m++)
            *stv(ex, n, 0, k, m) = 0;
        Xt += lam[k];
        Nt += lam[k] * T;
        Ut += lam[k] * es[k];
    }
    unsigned a = n->ncl;
    *stv(ex, n, 0, a, QC_NM_RESPONSE) = Nt / Xt;
    *stv(ex, n, 0, a, QC_NM_NUMBER) = Nt;
    *stv(ex, n, 0, a, QC_NM_UTILIZATION) = Ut;
    *stv(ex, n, 0, a, QC_NM_THROUGHPUT) = Xt;
    *e2v(ex, a, QC_NE_RESPONSE) = Nt / Xt;
    *e2v(ex, a, QC_NE_NUMBER) = Nt;
    *e2v(ex, a, QC_NE_THROUGHPUT) = Xt;
    *e2v(ex, a, QC_NE_LOST) = 0;
    snprintf(ex->method, sizeof ex->method, "M/G/1 %s priority (Kleinrock)",
             s->disc == QC_NET_PRIO_PR ? "preemptive-resume" : "non-preemptive");
    return 1;
}

/* One station, one open class: sim queue's closed forms. */
static int queue_one(const qc_network *n, qc_network_exact *ex)
{
    const qc_net_station *s = &n->st[0];
    if (n->ncl != 1 || s->nbalk || s->patience.kind != QC_DIST_NONE || s->timeout > 0 ||
        s->disc == QC_NET_IS || s->disc == QC_NET_PRIO || s->disc == QC_NET_PRIO_PR)
        return 0;
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrivals = &n->cl[0].arrivals;
    p.arrival = &n->cl[0].arrivals.gap;
    p.service = &s->service[0];
    p.servers = s->servers;
    p.capacity = s->capacity;
    p.discipline = s->disc == QC_NET_PS ? QC_PS : QC_FCFS;
    qc_queue_exact q;
    if (qc_queue_exact_values(&p, &q) == 0)
        return 0;
    double lam = qc_arrivals_mean_rate(&n->cl[0].arrivals);
    for (unsigned k = 0; k <= 1; k++) {
        *stv(ex, n, 0, k, QC_NM_RESPONSE) = q.value[QC_QM_RESPONSE];
        *stv(ex, n, 0, k, QC_NM_WAIT) = q.value[QC_QM_WAIT];
        *stv(ex, n, 0, k, QC_NM_NUMBER) = q.value[QC_QM_NUMBER];
        *stv(ex, n, 0, k, QC_NM_UTILIZATION) = q.value[QC_QM_UTILIZATION];
        *stv(ex, n, 0, k, QC_NM_THROUGHPUT) = q.value[QC_QM_THROUGHPUT];
        *stv(ex, n, 0, k, QC_NM_LOSS) = s->capacity ? q.value[QC_QM_BLOCKING] : 0;
        *stv(ex, n, 0, k, QC_NM_BALK) = 0;
        *stv(ex, n, 0, k, QC_NM_RENEGE) = 0;
        *stv(ex, n, 0, k, QC_NM_TIMEOUT) = 0;
        *e2v(ex, k, QC_NE_RESPONSE) = q.value[QC_QM_RESPONSE];
        *e2v(ex, k, QC_NE_NUMBER) = q.value[QC_QM_NUMBER];
        *e2v(ex, k, QC_NE_THROUGHPUT) = q.value[QC_QM_THROUGHPUT];
        *e2v(ex, k, QC_NE_LOST) = s->capacity ? q.value[QC_QM_BLOCKING] : 0;
        *e2v(ex, k, QC_NE_P50) = q.value[QC_QM_P50];
        *e2v(ex, k, QC_NE_P95) = q.value[QC_QM_P95];
        *e2v(ex, k, QC_NE_P99) = q.value[QC_QM_P99];
    }
    (void)lam;
    snprintf(ex->method, sizeof ex->method, "%s closed form (as sim queue)", q.model);
    return 1;
}

/* ---- product form ------------------------------------------------------- */

/* Fills the station rows from per-(i, k) throughput X and response R
 * (per visit); per-station totals by Little. */
static void fill_rows(ctx *x, qc_network_exact *ex, const double *X, const double *R)
{
    const qc_network *n = x->n;
    for (unsigned i = 0; i < x->S; i++) {
        const qc_net_station *s = &n->st[i];
        double c = s->disc == QC_NET_IS ? 1 : s->servers;
        double Xt = 0, Nt = 0, Ut = 0, St = 0;
        for (unsigned k = 0; k < x->C; k++) {
            size_t sc = (size_t)i * x->C + k;
            double Xk = X[sc], Rk = Xk > 0 ? R[sc] : NAN;
            double U = Xk * x->svc[sc] / c;
            *stv(ex, n, i, k, QC_NM_THROUGHPUT) = Xk;
            *stv(ex, n, i, k, QC_NM_RESPONSE) = Rk;
            *stv(ex, n, i, k, QC_NM_WAIT) = Rk - x->svc[sc];
            *stv(ex, n, i, k, QC_NM_NUMBER) = Xk > 0 ? Xk * Rk : 0;
            *stv(ex, n, i, k, QC_NM_UTILIZATION) = Xk > 0 ? U : 0;
            for (int m = QC_NM_LOSS; m <= QC_NM_TIMEOUT; m++)
                *stv(ex, n, i, k, m) = Xk > 0 ? 0 : NAN;
            if (Xk > 0) {
                Xt += Xk;
                Nt += Xk * Rk;
                Ut += U;
                St += Xk * x->svc[sc];
            }
        }
        *stv(ex, n, i, x->C, QC_NM_THROUGHPUT) = Xt;
        *stv(ex, n, i, x->C, QC_NM_RESPONSE) = Xt > 0 ? Nt / Xt : NAN;
        *stv(ex, n, i, x->C, QC_NM_WAIT) = Xt > 0 ? (Nt - St) / Xt : NAN;
        *stv(ex, n, i, x->C, QC_NM_NUMBER) = Nt;
        *stv(ex, n, i, x->C, QC_NM_UTILIZATION) = Ut;
        for (int m = QC_NM_LOSS; m <= QC_NM_TIMEOUT; m++)
            *stv(ex, n, i, x->C, m) = Xt > 0 ? 0 : NAN;
    }
}

static int product_form(ctx *x, qc_network_exact *ex, qc_err *err)
{
    const qc_network *n = x->n;
    unsigned S = x->S, C = x->C;
    double Xsc[MS * MC] = {0}, Rsc[MS * MC] = {0};
    /* open: utilization per station */
    double Uo[MS] = {0};
    unsigned nclosed = 0, ch[MC];
    for (unsigned c = 0; c < C; c++) {
        if (n->cl[c].closed) {
            ch[nclosed++] = c;
            continue;
        }
        double lam = qc_arrivals_mean_rate(&n->cl[c].arrivals);
        x->lamc[c] = lam;
        for (size_t sc = 0; sc < (size_t)S * C; sc++) {
            x->lam[sc] += lam * x->v[c][sc];
            Uo[sc / C] += lam * x->v[c][sc] * x->svc[sc];
        }
    }
    int multi = 0;
    for (unsigned i = 0; i < S; i++) {
        const qc_net_station *s = &n->st[i];
        if (s->disc != QC_NET_IS && s->servers > 1)
            multi = 1;
        if (s->disc != QC_NET_IS && !(Uo[i] < s->servers)) {
            snprintf(ex->why_not, sizeof ex->why_not,
                     "station \"%s\" is saturated by the open classes (load %.4g on %u "
                     "server%s)",
                     s->name, Uo[i], s->servers, s->servers == 1 ? "" : "s");
            return 0;
        }
    }
    /* closed chains */
    double Xc[MC] = {0}, Qc[MS] = {0};
    double fac[MC][MS]; /* per-visit factor of the chain's time at i over S */
    if (nclosed) {
        int anyopen = 0;
        for (unsigned i = 0; i < S; i++)
            anyopen |= Uo[i] > 0;
        if (multi && (nclosed > 1 || anyopen)) {
            snprintf(ex->why_not, sizeof ex->why_not,
                     "exact MVA here covers multi-server stations with one closed chain "
                     "and no open class");
            return 0;
        }
        double D[MC * MS], Z[MC];
        unsigned N[MC];
        int isd[MS];
        unsigned cs[MS];
        for (unsigned i = 0; i < S; i++) {
            isd[i] = n->st[i].disc == QC_NET_IS;
            cs[i] = isd[i] ? 0 : n->st[i].servers;
        }
        for (unsigned a = 0; a < nclosed; a++) {
            unsigned c = ch[a];
            N[a] = n->cl[c].population;
            Z[a] = n->cl[c].think.kind != QC_DIST_NONE ? qc_dist_mean(&n->cl[c].think) : 0;
            for (unsigned i = 0; i < S; i++) {
                double d = 0;
                for (unsigned k = 0; k < C; k++)
                    d += x->v[c][i * C + k] * x->svc[i * C + k];
                /* the open classes take their share of a queueing station */
                D[a * S + i] = isd[i] ? d : d / (1 - Uo[i]);
            }
        }
        double Xa[MC], Qa[MC * MS], Ra[MC * MS];
        int rc;
        if (multi) {
            rc = mva_ld(S, cs, D, Z[0], N[0], &Xa[0], Ra, err);
            for (unsigned i = 0; i < S; i++)
                Qa[i] = Xa[0] * Ra[i];
        } else {
            rc = mva_full(S, nclosed, isd, D, Z, N, Xa, Qa, Ra, err);
        }
        if (rc != 0) {
            snprintf(ex->why_not, sizeof ex->why_not, "%s", err ? err->msg : "MVA failed");
            return 0;
        }
        for (unsigned a = 0; a < nclosed; a++) {
            unsigned c = ch[a];
            Xc[c] = Xa[a];
            for (unsigned i = 0; i < S; i++) {
                Qc[i] += Qa[a * S + i];
                double d = 0;
                for (unsigned k = 0; k < C; k++)
                    d += x->v[c][i * C + k] * x->svc[i * C + k];
                /* time per unit of service: the same for every class of the
                 * chain at i (product form) */
                fac[c][i] = d > 0 ? Ra[a * S + i] / d : 1;
            }
        }
    }
    /* per (i, k): throughput and time per visit, summed over chains */
    for (unsigned i = 0; i < S; i++) {
        const qc_net_station *s = &n->st[i];
        int delay = s->disc == QC_NET_IS;
        for (unsigned k = 0; k < C; k++) {
            size_t sc = (size_t)i * C + k;
            double X = 0, W = 0;
            for (unsigned c = 0; c < C; c++) {
                double vc = x->v[c][sc];
                if (vc <= 0)
                    continue;
                double xc = n->cl[c].closed ? Xc[c] * vc : x->lamc[c] * vc;
                double r;
                if (delay) {
                    r = x->svc[sc];
                } else if (n->cl[c].closed) {
                    r = x->svc[sc] * fac[c][i];
                } else if (nclosed) {
                    r = x->svc[sc] * (1 + Qc[i]) / (1 - Uo[i]);
                } else if (s->servers == 1) {
                    r = x->svc[sc] / (1 - Uo[i]);
                } else {
                    /* M/M/c (FCFS, one mean) or the symmetric PS queue:
                     * the number is M/M/c's for the total load, split in
                     * proportion to the loads */
                    double Nq = mmc_number(s->servers, Uo[i]);
                    r = x->svc[sc] * Nq / Uo[i];
                }
                X += xc;
                W += xc * r;
            }
            Xsc[sc] = X;
            Rsc[sc] = X > 0 ? W / X : NAN;
        }
    }
    fill_rows(x, ex, Xsc, Rsc);
    /* end to end, per chain: the sum of its visits' times */
    double Nall = 0, Xall = 0;
    for (unsigned c = 0; c < C; c++) {
        double R = 0;
        for (unsigned i = 0; i < S; i++)
            for (unsigned k = 0; k < C; k++) {
                size_t sc = (size_t)i * C + k;
                if (x->v[c][sc] <= 0)
                    continue;
                double r;
                const qc_net_station *s = &n->st[i];
                if (s->disc == QC_NET_IS)
                    r = x->svc[sc];
                else if (n->cl[c].closed)
                    r = x->svc[sc] * fac[c][i];
                else if (nclosed)
                    r = x->svc[sc] * (1 + Qc[i]) / (1 - Uo[i]);
                else if (s->servers == 1)
                    r = x->svc[sc] / (1 - Uo[i]);
                else
                    r = x->svc[sc] * mmc_number(s->servers, Uo[i]) / Uo[i];
                R += x->v[c][sc] * r;
            }
        double X = n->cl[c].closed ? Xc[c] : x->lamc[c];
        *e2v(ex, c, QC_NE_RESPONSE) = R;
        *e2v(ex, c, QC_NE_THROUGHPUT) = X;
        *e2v(ex, c, QC_NE_NUMBER) = X * R;
        *e2v(ex, c, QC_NE_LOST) = 0;
        Nall += X * R;
        Xall += X;
    }
    *e2v(ex, C, QC_NE_RESPONSE) = Nall / Xall;
    *e2v(ex, C, QC_NE_THROUGHPUT) = Xall;
    *e2v(ex, C, QC_NE_NUMBER) = Nall;
    *e2v(ex, C, QC_NE_LOST) = 0;
    /* the percentiles of one open chain through M/M/1 stations in series
     * without feedback would be known; not attempted here */
    int anyopen = 0;
    for (unsigned c = 0; c < C; c++)
        anyopen |= !n->cl[c].closed;
    snprintf(ex->method, sizeof ex->method, "%s",
             !nclosed ? "open product form (Jackson/BCMP)"
             : anyopen ? "mixed BCMP: exact MVA of the closed chains, open classes by "
                         "utilization"
             : multi   ? "exact load-dependent MVA (one closed chain)"
                       : "exact MVA over the closed chains");
    return 1;
}

/* Balanced job bounds for one closed chain (any network, as demands). */
static void bounds(ctx *x, qc_network_exact *ex)
{
    const qc_network *n = x->n;
    unsigned c = 0, nclosed = 0;
    if (n->front >= 0)
        return; /* the gate changes the population behind it */
    for (unsigned k = 0; k < x->C; k++)
        if (n->cl[k].closed) {
            c = k;
            nclosed++;
        } else {
            return;
        }
    if (nclosed != 1)
        return;
    double D = 0, Dmax = 0;
    unsigned M = 0;
    for (unsigned i = 0; i < x->S; i++) {
        double d = 0;
        for (unsigned k = 0; k < x->C; k++)
            d += x->v[c][i * x->C + k] * x->svc[i * x->C + k];
        if (n->st[i].disc == QC_NET_IS) {
            D += d; /* a delay adds to every bound's D only */
            continue;
        }
        double dq = d / n->st[i].servers;
        D += d;
        if (dq > Dmax)
            Dmax = dq;
        M++;
    }
    if (M == 0 || D <= 0)
        return;
    double N = n->cl[c].population;
    double Z = n->cl[c].think.kind != QC_DIST_NONE ? qc_dist_mean(&n->cl[c].think) : 0;
    double Davg = D / M;
    double xlo = N / (D + Z + (N - 1) * Dmax / (1 + Z / (N * D)));
    double xhi = N / (D + Z + (N - 1) * Davg / (1 + Z / D));
    if (1 / Dmax < xhi)
        xhi = 1 / Dmax;
    ex->e2e_lo[c * QC_NE_COUNT + QC_NE_THROUGHPUT] = xlo;
    ex->e2e_hi[c * QC_NE_COUNT + QC_NE_THROUGHPUT] = xhi;
    ex->e2e_lo[c * QC_NE_COUNT + QC_NE_RESPONSE] = N / xhi - Z;
    ex->e2e_hi[c * QC_NE_COUNT + QC_NE_RESPONSE] = N / xlo - Z;
    snprintf(ex->method, sizeof ex->method, "balanced job bounds (no exact form)");
}

int qc_network_exact_solve(const qc_network *n, qc_network_exact *ex, qc_err *err)
{
    memset(ex, 0, sizeof *ex);
    size_t ns = (size_t)n->nst * (n->ncl + 1) * QC_NM_COUNT;
    size_t ne = (size_t)(n->ncl + 1) * QC_NE_COUNT;
    ex->station = malloc(ns * sizeof(double));
    ex->e2e = malloc(ne * sizeof(double));
    ex->e2e_lo = malloc(ne * sizeof(double));
    ex->e2e_hi = malloc(ne * sizeof(double));
    if (!ex->station || !ex->e2e || !ex->e2e_lo || !ex->e2e_hi) {
        qc_network_exact_free(ex);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (size_t a = 0; a < ns; a++)
        ex->station[a] = NAN;
    for (size_t a = 0; a < ne; a++)
        ex->e2e[a] = ex->e2e_lo[a] = ex->e2e_hi[a] = NAN;
    ctx *x = calloc(1, sizeof *x);
    if (x == NULL) {
        qc_network_exact_free(ex);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    x->n = n;
    x->S = n->nst;
    x->C = n->ncl;
    for (unsigned i = 0; i < x->S; i++)
        for (unsigned k = 0; k < x->C; k++)
            x->svc[i * x->C + k] =
                n->st[i].has_service[k] ? qc_dist_mean(&n->st[i].service[k]) : 0;
    int ok = 1;
    for (unsigned c = 0; c < x->C; c++)
        if (visits(x, c) != 0) {
            snprintf(ex->why_not, sizeof ex->why_not,
                     "class \"%s\" never leaves the network (its visits do not converge)",
                     n->cl[c].name);
            ok = 0;
        }
    char buf[200];
    const char *why = ok ? not_product_form(x, buf, sizeof buf) : ex->why_not;
    qc_err e2 = {0};
    int done = 0;
    /* one station, one open class: exactly what sim queue prints */
    if (one_station_open(n) && queue_one(n, ex))
        done = 1;
    else if (ok && why == NULL)
        done = product_form(x, ex, &e2);
    else if (why != ex->why_not)
        snprintf(ex->why_not, sizeof ex->why_not, "%s", why);
    if (!done && one_station_open(n)) {
        done = queue_one(n, ex) || priority_one(n, ex) || birth_death(n, ex);
        if (done)
            ex->why_not[0] = 0;
    }
    if (!done && ok)
        bounds(x, ex);
    free(x);
    return 0;
}

void qc_network_exact_free(qc_network_exact *ex)
{
    free(ex->station);
    free(ex->e2e);
    free(ex->e2e_lo);
    free(ex->e2e_hi);
    memset(ex, 0, sizeof *ex);
}
