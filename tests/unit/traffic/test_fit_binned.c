/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_fit_binned.c: the lognormal mixtures of packet sizes against an
 * independent maximiser of the binned likelihood.
 *
 * Sizes are whole bytes, so a fit is ranked by the binned log-likelihood
 * sum_i c_i log sum_j w_j P_j([x_i - 1/2, x_i + 1/2]), which is bounded and
 * needs no floor on sigma: an atom (ACKs, full segments) is a component
 * whose bin holds all its mass. The reference here maximises that same
 * function with nothing from qctl's fitting code: GSL's Nelder-Mead
 * simplex (nmsimplex2) over (weight logits, mu, log sigma), from many
 * random starts (means on values drawn by count, sigmas log-uniform from
 * 1e-4 to 1.5, random weights), each run to convergence and restarted once
 * from where it stopped. qctl's default fit must come within the
 * project's tolerance of the best the reference finds: 20 units of
 * log-likelihood or 1% of it, whichever is larger (docs/traffic.md), on
 * every capture in tests/data/captures (synthetic and real; the real ones
 * are the shared captures, copied with their origin and license in the
 * README there). QC_BINNED_STARTS sets the number of starts (default 12;
 * the 200 of `make bench` find nothing better). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multimin.h>

#include "qctl/fit.h"
#include "qctl/rng.h"
#include "qctl/trace.h"

typedef struct sample {
    double *x, *c; /* distinct values and their counts */
    double *lo, *hi;
    size_t m;
    int k;
} sample;

/* A normal's mass on [a, b], differenced on the small side. */
static double mass(double a, double b)
{
    if (a > 0)
        return gsl_cdf_ugaussian_Q(a) - gsl_cdf_ugaussian_Q(b);
    return gsl_cdf_ugaussian_P(b) - gsl_cdf_ugaussian_P(a);
}

/* The binned log-likelihood of the mixture with weights w, log-means mu,
 * log-sds sg (k components). */
static double binned_ll(const sample *s, const double *w, const double *mu, const double *sg)
{
    double ll = 0;
    for (size_t i = 0; i < s->m; i++) {
        double p = 0;
        for (int j = 0; j < s->k; j++)
            p += w[j] * mass((s->lo[i] - mu[j]) / sg[j], (s->hi[i] - mu[j]) / sg[j]);
        ll += s->c[i] * (p > 1e-300 ? log(p) : -690.8);
    }
    return ll;
}

static void unpack(const gsl_vector *v, int k, double *w, double *mu, double *sg)
{
    double mx = 0, sum = 0;
    for (int j = 0; j < k - 1; j++)
        mx = fmax(mx, gsl_vector_get(v, (size_t)j));
    for (int j = 0; j < k; j++) {
        w[j] = exp((j < k - 1 ? gsl_vector_get(v, (size_t)j) : 0) - mx);
        sum += w[j];
    }
    for (int j = 0; j < k; j++) {
        w[j] /= sum;
        mu[j] = gsl_vector_get(v, (size_t)(k - 1 + j));
        sg[j] = exp(fmax(gsl_vector_get(v, (size_t)(2 * k - 1 + j)), log(1e-9)));
    }
}

static double objective(const gsl_vector *v, void *ctx)
{
    const sample *s = ctx;
    double w[3], mu[3], sg[3];
    unpack(v, s->k, w, mu, sg);
    const double ll = binned_ll(s, w, mu, sg);
    return isfinite(ll) ? -ll : 1e300;
}

/* Nelder-Mead from v (overwritten by the minimiser); the value there. */
static double simplex(sample *s, gsl_vector *v)
{
    const size_t np = (size_t)(3 * s->k - 1);
    gsl_multimin_function f = {objective, np, s};
    gsl_vector *step = gsl_vector_alloc(np);
    gsl_multimin_fminimizer *mz = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2,
                                                                np);
    double best = 0;
    for (int round = 0; round < 2; round++) { /* run, then restart where it stopped */
        gsl_vector_set_all(step, 0.5);
        gsl_multimin_fminimizer_set(mz, &f, v, step);
        for (int it = 0; it < 6000; it++) {
            if (gsl_multimin_fminimizer_iterate(mz) != 0)
                break;
            if (gsl_multimin_test_size(gsl_multimin_fminimizer_size(mz), 1e-7) == GSL_SUCCESS)
                break;
        }
        gsl_vector_memcpy(v, gsl_multimin_fminimizer_x(mz));
        best = gsl_multimin_fminimizer_minimum(mz);
    }
    gsl_multimin_fminimizer_free(mz);
    gsl_vector_free(step);
    return -best;
}

/* The best binned log-likelihood of a k-lognormal mixture from `starts`
 * random starts. */
static double reference(sample *s, int starts, uint64_t seed)
{
    const size_t np = (size_t)(3 * s->k - 1);
    qc_rng r;
    qc_rng_init(&r, seed, 5);
    double total = 0;
    for (size_t i = 0; i < s->m; i++)
        total += s->c[i];
    gsl_vector *v = gsl_vector_alloc(np);
    double best = -INFINITY;
    for (int st = 0; st < starts; st++) {
        for (int j = 0; j < s->k; j++) {
            if (j < s->k - 1)
                gsl_vector_set(v, (size_t)j, 2 * qc_rng_u01(&r) - 1);
            double u = qc_rng_u01(&r) * total, acc = 0;
            size_t pick = s->m - 1;
            for (size_t i = 0; i < s->m; i++)
                if ((acc += s->c[i]) >= u) {
                    pick = i;
                    break;
                }
            gsl_vector_set(v, (size_t)(s->k - 1 + j), log(s->x[pick]));
            gsl_vector_set(v, (size_t)(2 * s->k - 1 + j),
                           log(1e-4) + qc_rng_u01(&r) * (log(1.5) - log(1e-4)));
        }
        const double ll = simplex(s, v);
        if (ll > best) {
            best = ll;
            if (getenv("QC_BINNED_VERBOSE")) {
                double w[3], mu[3], sg[3];
                unpack(v, s->k, w, mu, sg);
                for (int j = 0; j < s->k; j++)
                    print_message("  start %d: w %.4f exp(mu) %.2f sigma %.4g\n", st, w[j],
                                  exp(mu[j]), sg[j]);
            }
        }
    }
    gsl_vector_free(v);
    return best;
}

static void sizes_of(const char *file, double **out, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/captures/%s", QC_TEST_DATA, file);
    qc_trace tr;
    qc_err err = {0};
    assert_int_equal(qc_trace_read(&tr, path, &err), 0);
    double *x = malloc(tr.n * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < tr.n; i++)
        x[i] = tr.pkt[i].size;
    *out = x;
    *n = tr.n;
    qc_trace_free(&tr);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check_capture(const char *file, int starts)
{
    double *x;
    size_t n;
    sizes_of(file, &x, &n);
    double *srt = malloc(n * sizeof *srt);
    assert_non_null(srt);
    memcpy(srt, x, n * sizeof *srt);
    qsort(srt, n, sizeof *srt, cmp_double);
    sample s = {0};
    s.x = malloc(4 * n * sizeof *s.x);
    assert_non_null(s.x);
    s.c = s.x + n;
    s.lo = s.c + n;
    s.hi = s.lo + n;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && srt[j] == srt[i])
            j++;
        s.x[s.m] = srt[i];
        s.c[s.m] = (double)(j - i);
        s.lo[s.m] = log(srt[i] - 0.5);
        s.hi[s.m] = log(srt[i] + 0.5);
        s.m++;
        i = j;
    }
    qc_fit_data d;
    assert_int_equal(qc_fit_data_init(&d, x, n, NULL), 0);
    assert_true(d.integer);
    static const qc_fit_family fams[] = {QC_FIT_LNMIX2, QC_FIT_LNMIX3};
    for (int q = 0; q < 2; q++) {
        s.k = q + 2;
        if (s.m < (size_t)(2 * s.k))
            continue;
        qc_fit_params o;
        qc_fit_params_init(&o);
        o.gof = 0;
        qc_fit_result a;
        assert_int_equal(qc_fit_one(&d, fams[q], &o, &a, NULL), 0);
        const double ref = reference(&s, starts, 20261202);
        if (!a.ok) {
            print_message("%-16s %s: no fit (%s)\n", file, qc_fit_family_name(fams[q]), a.why);
            fail();
        }
        /* qctl's reported value is the binned likelihood of its parameters */
        double w[3], mu[3], sg[3];
        for (int j = 0; j < s.k; j++) {
            w[j] = a.dist.p[j];
            mu[j] = a.dist.p[s.k + j];
            sg[j] = a.dist.p[2 * s.k + j];
        }
        const double mine = binned_ll(&s, w, mu, sg);
        const double tol = fmax(20, 0.01 * fabs(ref));
        print_message("%-16s %-7s qctl %11.2f (recomputed %11.2f)  reference %11.2f  gap %7.2f\n",
                      file, qc_fit_family_name(fams[q]), a.loglik, mine, ref, ref - a.loglik);
        assert_true(fabs(mine - a.loglik) <= 1e-6 * fabs(mine) + 1e-6);
        assert_true(a.loglik >= ref - tol);
        qc_fit_result_free(&a);
    }
    qc_fit_data_free(&d);
    free(s.x);
    free(srt);
    free(x);
}

static void test_captures(void **state)
{
    (void)state;
    static const char *const caps[] = {"netflix.pcap", "reddit.pcap", "nintendo.pcap",
                                       "1kxun.pcap",   "teams.pcap",  "gaming.pcap",
                                       "gaming.pcapng", "video.pcap", "web.pcap",
                                       "gaming_sll.pcap", "gaming_sll2.pcap"};
    const char *env = getenv("QC_BINNED_STARTS");
    const int starts = env && atoi(env) > 0 ? atoi(env) : 12;
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
        check_capture(caps[c], starts);
}

/* An atom: 40% of the values at exactly 52 bytes, the rest lognormal.
 * The binned maximum puts a component on 52 with its whole mass in the
 * bin (sigma far below the density's floor of 1 / (sqrt 12 x 52) =
 * 0.0056), and its weight is the atom's share. */
static void test_atom_collapses(void **state)
{
    (void)state;
    const size_t n = 4000;
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    qc_rng r;
    qc_rng_init(&r, 7, 1);
    size_t atoms = 0;
    for (size_t i = 0; i < n; i++) {
        if (qc_rng_u01(&r) < 0.4) {
            x[i] = 52;
            atoms++;
        } else {
            const double u = qc_rng_u01(&r), v = qc_rng_u01(&r);
            x[i] = round(exp(6.5 + 0.5 * sqrt(-2 * log(u)) * cos(6.283185307179586 * v)));
            atoms += x[i] == 52;
        }
    }
    qc_fit_data d;
    assert_int_equal(qc_fit_data_init(&d, x, n, NULL), 0);
    qc_fit_params o;
    qc_fit_params_init(&o);
    o.gof = 0;
    qc_fit_result a;
    assert_int_equal(qc_fit_one(&d, QC_FIT_LNMIX2, &o, &a, NULL), 0);
    assert_true(a.ok);
    const int j = fabs(a.dist.p[2] - log(52)) < fabs(a.dist.p[3] - log(52)) ? 0 : 1;
    print_message("atom: weight %.4f (share %.4f), mu %.6f, sigma %.3g\n", a.dist.p[j],
                  (double)atoms / n, exp(a.dist.p[2 + j]), a.dist.p[4 + j]);
    assert_true(fabs(exp(a.dist.p[2 + j]) - 52) < 0.01);
    assert_true(a.dist.p[4 + j] < 0.0056 / 2);
    /* the bin of 52 holds the component's mass: P(|Z| < 0.5 / (52 sigma))
     * > 1 - 1e-4, where the density's floor left 0.917 */
    assert_true(0.5 / (52 * a.dist.p[4 + j]) > 3.9);
    assert_true(fabs(a.dist.p[j] - (double)atoms / n) < 0.01);
    qc_fit_result_free(&a);
    qc_fit_data_free(&d);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_atom_collapses),
        cmocka_unit_test(test_captures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
