/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_mdp.c: solving the removable-server MDP at 10^4 and 10^5 states,
 * and the sparse value-iteration sweep against a dense one.
 *
 * Solve times. The MDP of `qctl mdp removable` (lambda 0.7, rates 0.5, 1,
 * 1.5, powers 1, 2, 4, idle 1, setup 2 at rate 1, switch-on 3, holding
 * 0.3) is built with a forced truncation of N levels (3 (N+1) states) and
 * solved by policy iteration (banded direct evaluation) and by relative
 * value iteration (Gauss-Seidel, Jacobi bounds, span below 1e-9 times the
 * always-on cost, or the rounding floor 64 eps max |h| when the relative
 * values are so large that T v - v is not known better), each timed with
 * its iteration count. Value iteration
 * needs a number of sweeps that grows like N: what the lowest levels
 * decide reaches level n only after about n L / (mu - lambda) sweeps, a
 * front moving up the queue. At 10^5 states that is minutes, so by
 * default it is capped (QC_BENCH_MDP_SWEEPS, default 40000) and reported
 * with the span reached; QC_BENCH_MDP_SWEEPS=0 lifts the cap.
 *
 * Sweep speed. One Jacobi sweep (T v over every (state, action) pair) on
 * the sparse CSR model, against the same sweep with each pair's row stored
 * dense (length S), on the same chain at about 2000 states where the dense
 * rows (pairs x S doubles, ~85 MB) fit in memory. Both compute the same
 * T v (checked) and are timed in this process, best of three; states per
 * second and their ratio are printed, and the sparse sweep's rate at 10^4
 * and 10^5 states shows how it scales.
 *
 * usage: bench_mdp   (environment: QC_BENCH_MDP_SWEEPS) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qctl/mdp.h"
#include "qctl/removable.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static qc_energy_cost model(void)
{
    qc_energy_cost c;
    memset(&c, 0, sizeof c);
    c.nrates = 3;
    c.rate[0] = 0.5, c.rate[1] = 1.0, c.rate[2] = 1.5;
    c.power[0] = 1, c.power[1] = 2, c.power[2] = 4;
    c.idle_power = 1, c.setup_power = 2, c.setup_rate = 1, c.switch_cost = 3;
    c.holding = 0.3;
    return c;
}

#define LAMBDA 0.7

static qc_mdp *build(size_t N)
{
    qc_energy_cost c = model();
    size_t S = 3 * (N + 1), P = (c.nrates + 5) * (N + 1);
    qc_mdp *m = qc_mdp_alloc(S, P, 3 * P, NULL);
    qc_err err = {0};
    if (m == NULL || qc_removable_build(m, LAMBDA, &c, N, &err) != 0) {
        fprintf(stderr, "bench: build: %s\n", m ? err.msg : "out of memory");
        exit(1);
    }
    return m;
}

/* Always on at the fastest rate, in the action order of qc_removable_build. */
static void always_on(size_t N, unsigned *pol)
{
    for (size_t n = 0; n <= N; n++) {
        pol[3 * n] = 1;
        pol[3 * n + 1] = 0;
        pol[3 * n + 2] = n == 0 ? 0 : 2;
    }
}

static void solve(size_t N, size_t cap)
{
    qc_mdp *m = build(N);
    size_t S = qc_mdp_nstates(m);
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    unsigned *pol = malloc(S * sizeof *pol), *pol2 = malloc(S * sizeof *pol2);
    double *h = malloc(S * sizeof *h), *v = calloc(S, sizeof *v);
    if (!w || !pol || !pol2 || !h || !v) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    qc_err err = {0};
    qc_mdp_result rp, rr;
    qc_energy_cost c = model();
    double L = qc_removable_unif(LAMBDA, &c);
    double g_ao, hmax = 0;
    always_on(N, pol);
    qc_mdp_evaluate(m, w, &o, pol, &g_ao, h, &err);
    for (size_t s = 0; s < S; s++)
        hmax = fmax(hmax, fabs(h[s]));
    /* As qc_removable_solve: 1e-9 of the always-on cost, or the rounding
     * floor of values of size max |h| if that is larger. */
    o.tol = fmax(1e-9 * g_ao, 64 * DBL_EPSILON * hmax);

    double t0 = now();
    if (qc_mdp_pi(m, w, &o, pol, h, &rp, &err) != 0) {
        fprintf(stderr, "bench: pi: %s\n", err.msg);
        exit(1);
    }
    double t1 = now();
    o.max_iter = cap ? cap : 100000000;
    int rc = qc_mdp_rvi(m, w, &o, v, pol2, &rr, &err);
    double t2 = now();
    if (rc != 0 && rc != QC_ERANGE) {
        fprintf(stderr, "bench: rvi: %s\n", err.msg);
        exit(1);
    }
    printf("  %7zu states (N = %5zu, %zu pairs, %zu transitions, bandwidth %zu)\n", S, N,
           qc_mdp_npairs(m), qc_mdp_ntrans(m), qc_mdp_bandwidth(m));
    printf("    policy iteration:          %8.3f s  %4zu steps       gain %.10f\n", t1 - t0,
           rp.iterations, L * rp.gain);
    printf("    relative value iteration:  %8.3f s  %6zu sweeps   bounds [%.10f, %.10f]%s\n",
           t2 - t1, rr.iterations, L * rr.gain_lo, L * rr.gain_hi,
           rr.converged ? "" : "  (capped: span not yet below tol)");
    printf("    span tolerance %.3g per unit time (%s)\n", L * o.tol,
           o.tol > 1e-9 * g_ao * (1 + 1e-12) ? "the rounding floor 64 eps max|h|"
                                            : "1e-9 of the always-on cost");
    size_t diff = 0;
    for (size_t s = 0; s < S; s++)
        diff += pol[s] != pol2[s];
    if (rr.converged)
        printf("    PI gain inside RVI bounds: %s; policies differ at %zu states\n",
               rp.gain >= rr.gain_lo - 1e-12 && rp.gain <= rr.gain_hi + 1e-12 ? "yes" : "NO",
               diff);
    free(pol);
    free(pol2);
    free(h);
    free(v);
    qc_mdp_ws_free(w);
    qc_mdp_free(m);
}

/* Seconds per sparse Jacobi sweep through the library (max_iter sweeps). */
static double sparse_sweep(const qc_mdp *m, qc_mdp_ws *w, double *v, unsigned *pol,
                           size_t sweeps)
{
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    o.sweep = QC_MDP_JACOBI;
    o.tau = 0;
    o.tol = 1e-300; /* never met: exactly max_iter sweeps */
    o.max_iter = sweeps;
    qc_mdp_result r;
    double t0 = now();
    qc_mdp_rvi(m, w, &o, v, pol, &r, NULL);
    return (now() - t0) / (double)sweeps;
}

typedef struct dense {
    size_t S, P;
    double *row;  /* P x S */
    double *cost; /* P */
    size_t *first;/* S + 1: pairs of state s */
} dense;

static void fill_row(void *ctx, size_t next, double prob)
{
    double *row = ctx;
    row[next] += prob;
}

static dense to_dense(const qc_mdp *m)
{
    dense d;
    d.S = qc_mdp_nstates(m);
    d.P = qc_mdp_npairs(m);
    d.row = calloc(d.P * d.S, sizeof *d.row);
    d.cost = malloc(d.P * sizeof *d.cost);
    d.first = malloc((d.S + 1) * sizeof *d.first);
    if (!d.row || !d.cost || !d.first) {
        fprintf(stderr, "bench: out of memory for the dense reference\n");
        exit(1);
    }
    size_t k = 0;
    for (size_t s = 0; s < d.S; s++) {
        d.first[s] = k;
        for (unsigned a = 0; a < qc_mdp_nactions(m, s); a++, k++) {
            d.cost[k] = qc_mdp_cost(m, s, a);
            qc_mdp_foreach_trans(m, s, a, fill_row, &d.row[k * d.S]);
        }
    }
    d.first[d.S] = k;
    return d;
}

/* The dense reference: y = T v, each pair's row a full dot product. */
static void dense_sweep(const dense *d, const double *v, double *y)
{
    for (size_t s = 0; s < d->S; s++) {
        double best = INFINITY;
        for (size_t k = d->first[s]; k < d->first[s + 1]; k++) {
            const double *r = &d->row[k * d->S];
            double acc = 0;
            for (size_t j = 0; j < d->S; j++)
                acc += r[j] * v[j];
            acc += d->cost[k];
            if (acc < best)
                best = acc;
        }
        y[s] = best;
    }
}

static void sweeps(void)
{
    size_t N = 666;
    qc_mdp *m = build(N);
    size_t S = qc_mdp_nstates(m);
    qc_mdp_ws *w = qc_mdp_ws_alloc(m, 0, NULL);
    dense d = to_dense(m);
    double *v = malloc(S * sizeof *v), *y = malloc(S * sizeof *y), *v0 = malloc(S * sizeof *v0);
    unsigned *pol = malloc(S * sizeof *pol);
    for (size_t s = 0; s < S; s++)
        v0[s] = 0.01 * (double)(s / 3) * (double)(s / 3);

    /* The same T v both ways (the library's Jacobi step subtracts y(0)). */
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    o.sweep = QC_MDP_JACOBI;
    o.tau = 0;
    o.tol = 1e-300;
    o.max_iter = 1;
    qc_mdp_result r;
    memcpy(v, v0, S * sizeof *v);
    dense_sweep(&d, v0, y);
    qc_mdp_rvi(m, w, &o, v, pol, &r, NULL);
    double maxd = 0;
    for (size_t s = 0; s < S; s++) {
        double e = fabs((v[s] + y[0]) - y[s]);
        if (e > maxd)
            maxd = e;
    }

    double best_s = INFINITY, best_d = INFINITY;
    for (int rep = 0; rep < 3; rep++) {
        memcpy(v, v0, S * sizeof *v);
        double ts = sparse_sweep(m, w, v, pol, 2000);
        double t0 = now();
        for (int i = 0; i < 3; i++)
            dense_sweep(&d, v0, y);
        double td = (now() - t0) / 3;
        if (ts < best_s)
            best_s = ts;
        if (td < best_d)
            best_d = td;
    }
    printf("  one Jacobi sweep of T v on %zu states (%zu pairs), best of 3; max |dense - sparse| "
           "%.2g\n",
           S, d.P, maxd);
    printf("    sparse (CSR, the library):   %10.3f us  %8.3g states/s\n", 1e6 * best_s,
           (double)S / best_s);
    printf("    dense rows (reference):      %10.3f us  %8.3g states/s  (%.0f MB of rows)\n",
           1e6 * best_d, (double)S / best_d, (double)(d.P * d.S * sizeof(double)) / 1e6);
    printf("    states per second, sparse / dense: %.0f\n", best_d / best_s);
    free(d.row);
    free(d.cost);
    free(d.first);
    free(v);
    free(y);
    free(v0);
    free(pol);
    qc_mdp_ws_free(w);
    qc_mdp_free(m);

    for (size_t n = 3333; n <= 33333; n = n * 10 + 3) {
        m = build(n);
        S = qc_mdp_nstates(m);
        w = qc_mdp_ws_alloc(m, 0, NULL);
        v = calloc(S, sizeof *v);
        pol = malloc(S * sizeof *pol);
        double t = INFINITY;
        for (int rep = 0; rep < 3; rep++) {
            double x = sparse_sweep(m, w, v, pol, n > 10000 ? 50 : 500);
            if (x < t)
                t = x;
        }
        printf("    sparse sweep at %6zu states: %10.3f us  %8.3g states/s\n", S, 1e6 * t,
               (double)S / t);
        free(v);
        free(pol);
        qc_mdp_ws_free(w);
        qc_mdp_free(m);
    }
}

int main(void)
{
    const char *e = getenv("QC_BENCH_MDP_SWEEPS");
    size_t cap = e ? (size_t)strtoull(e, NULL, 10) : 40000;
    printf("removable-server MDP (lambda %.1f, rates 0.5/1/1.5), forced truncation, one core\n",
           LAMBDA);
    solve(3333, 0);
    solve(33333, cap);
    sweeps();
    return 0;
}
