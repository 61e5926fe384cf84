/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_coverage.c: how often qctl's 95% intervals cover the exact value.
 *
 * For each case (a queue with closed forms, a run length and a way of
 * forming intervals) it runs independent experiments (seeds 1..N, each a
 * whole qc_queue_run as `qctl sim queue` does it) and counts, per metric
 * with a finite exact value (qctl/exact.h), the experiments whose interval
 * holds it. The fraction comes with its Wilson 95% interval. Targets:
 * means 0.93, percentiles 0.90 (the quantile estimator's bias leaves
 * percentiles a little below the nominal 0.95). Each case also counts the
 * runs flagged transient: every queue here is stationary, so each flag is
 * a false alarm. At the end, the counts as the README's markdown table.
 *
 * usage: bench_coverage [experiments] [case-substring]
 *            (default 100 experiments, every case; prints the table)
 *        bench_coverage --quick            (CTest: 20 fixed seeds on three
 *            short cases; exit 1 when a mean's coverage collapses, that is
 *            below 16 of 20, which a true 0.95 gives with probability 0.016
 *            and the 0.60 of a biased warm-up cut almost always) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qctl/dist.h"
#include "qctl/exact.h"
#include "qctl/queue.h"

typedef struct bcase {
    const char *name, *arr, *svc;
    unsigned c;
    uint64_t K;
    qc_discipline disc;
    uint64_t customers;
    unsigned reps;
    double precision; /* > 0: precision-driven */
    int quick;        /* in the CTest set, with quick_customers */
    uint64_t quick_customers;
} bcase;

/* lognormal with mean 1 and SCV 4: sigma^2 = ln 5, mu = -sigma^2 / 2;
 * H2 with mean 1, SCV 4 and balanced means: p = (1 + sqrt(3/5)) / 2,
 * rates 2p and 2(1-p). */
#define LOGN4 "lognormal:-0.8047189562170501,1.2686362411795196"
#define H2_4 "hyperexp:0.8872983346207417,1.7745966692414834,0.1127016653792583,0.2254033307585166"
/* H2 with mean 1, SCV 63, balanced means: p = (1 + sqrt(62/64)) / 2; a
 * long service (mean 63.5) one time in 127 */
#define H2_63 "hyperexp:0.9921254921257382,1.984250984251476,0.007874507874261805,0.01574901574852361"

static const bcase cases[] = {
    {"M/M/1 0.9, 40 reps x 20000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 20000, 40, 0, 1, 20000},
    {"M/M/1 0.9, 10 reps x 200000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 200000, 10, 0, 0, 0},
    {"M/M/1 0.9, one run of 2e6", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 2000000, 1, 0, 1, 1000000},
    {"M/D/1 0.9, 10 reps x 100000", "exp:0.9", "det:1", 1, 0, QC_FCFS, 100000, 10, 0, 0, 0},
    {"M/G/1 lognormal SCV 4, 0.7, 10 x 1e5", "exp:0.7", LOGN4, 1, 0, QC_FCFS, 100000, 10, 0, 1, 100000},
    {"M/G/1 lognormal SCV 4, 0.7, 40 x 25000", "exp:0.7", LOGN4, 1, 0, QC_FCFS, 25000, 40, 0, 0, 0},
    {"M/H2/1-PS SCV 4, 0.7, 10 x 1e5", "exp:0.7", H2_4, 1, 0, QC_PS, 100000, 10, 0, 0, 0},
    {"M/M/4/10 0.9, 10 reps x 50000", "exp:3.6", "exp:1", 4, 10, QC_FCFS, 50000, 10, 0, 0, 0},
    {"D/M/1 0.8, 10 reps x 50000", "det:1.25", "exp:1", 1, 0, QC_FCFS, 50000, 10, 0, 0, 0},
    {"M/M/3 0.8, 10 reps x 50000", "exp:2.4", "exp:1", 3, 0, QC_FCFS, 50000, 10, 0, 0, 0},
    {"M/M/1 0.9, --precision 0.05, one run", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 100000, 1, 0.05, 0, 0},
    {"M/M/1 0.9, --precision 0.05, reps of 20000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 20000, 10, 0.05, 0, 0},
    /* short runs (issue 34): each must cover or be flagged short */
    {"M/M/1 0.9, one run of 1000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 1000, 1, 0, 0, 0},
    {"M/M/1 0.9, one run of 10000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 10000, 1, 0, 0, 0},
    {"M/M/1 0.9, one run of 30000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 30000, 1, 0, 0, 0},
    {"M/M/1 0.9, one run of 1e5", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 100000, 1, 0, 0, 0},
    {"M/M/1 0.9, 10 reps x 1000", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 1000, 10, 0, 0, 0},
    /* a very variable service (issue 34): M/G/1's relaxation from E[S^3], E[S^4] */
    {"M/H2/1 SCV 63, 0.4, 10 x 5000", "exp:0.4", H2_63, 1, 0, QC_FCFS, 5000, 10, 0, 0, 0},
    {"M/H2/1 SCV 63, 0.5, 10 x 5000", "exp:0.5", H2_63, 1, 0, QC_FCFS, 5000, 10, 0, 0, 0},
    {"M/H2/1 SCV 63, 0.5, 10 x 20000", "exp:0.5", H2_63, 1, 0, QC_FCFS, 20000, 10, 0, 0, 0},
    {"M/H2/1 SCV 63, 0.4, one run of 1e5", "exp:0.4", H2_63, 1, 0, QC_FCFS, 100000, 1, 0, 0, 0},
    /* the percentiles of one run, longer than the default */
    {"M/M/1 0.9, one run of 3e5", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 300000, 1, 0, 0, 0},
    {"M/M/1 0.9, one run of 1e6", "exp:0.9", "exp:1", 1, 0, QC_FCFS, 1000000, 1, 0, 0, 0},
};

/* What the markdown table at the end shows: covered counts per metric
 * (-1: no exact value to cover). */
typedef struct brow {
    const char *name;
    int cover[QC_QM_COUNT];
    unsigned nexp, reached, flagged;
    unsigned shortrun;             /* runs flagged too short for intervals */
    int cover_ok[QC_QM_COUNT];     /* covered among the runs not flagged */
    double cust;
    double precision;
} brow;
static brow rows[32];
static size_t nrows;

static int is_pct(int m)
{
    return m >= QC_QM_P50 && m <= QC_QM_P99;
}

/* Wilson score interval of k successes in n at 95%. */
static void wilson(unsigned k, unsigned n, double *lo, double *hi)
{
    const double z = 1.959964;
    double p = (double)k / n, z2 = z * z / n;
    double mid = (p + z2 / 2) / (1 + z2);
    double half = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / (1 + z2);
    *lo = mid - half;
    *hi = mid + half;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs one case; returns how many mean metrics fell below `collapse`
 * covered experiments (quick mode) or below target (full mode). */
static int run_case(const bcase *bc, unsigned nexp, int quick)
{
    qc_dist a = {0}, s = {0};
    if (qc_dist_parse(&a, bc->arr, NULL) != 0 || qc_dist_parse(&s, bc->svc, NULL) != 0) {
        fprintf(stderr, "bench_coverage: bad spec in case %s\n", bc->name);
        exit(2);
    }
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &s;
    p.servers = bc->c;
    p.capacity = bc->K;
    p.discipline = bc->disc;
    p.customers = quick ? bc->quick_customers : bc->customers;
    p.reps = bc->reps;
    p.precision = bc->precision;
    p.max_customers = bc->precision > 0 ? 200000000 : 0;
    p.max_reps = bc->precision > 0 ? 100000 : 0;
    qc_queue_exact ex;
    qc_queue_exact_values(&p, &ex);
    unsigned cover[QC_QM_COUNT] = {0};
    double sum_est[QC_QM_COUNT] = {0}, sum_est2[QC_QM_COUNT] = {0}, sum_half[QC_QM_COUNT] = {0};
    unsigned reached = 0, flagged = 0, shortrun = 0, cover_ok[QC_QM_COUNT] = {0};
    unsigned given[QC_QM_COUNT] = {0}; /* printed with an interval, unflagged */
    double neff_min = INFINITY, neff_max = 0, neff_sum = 0;
    double cust = 0, relw = 0;
    double t0 = now();
    for (unsigned e = 0; e < nexp; e++) {
        p.seed = 1 + e;
        qc_queue_result r;
        qc_err err = {0};
        if (qc_queue_run(&p, &r, &err) != 0) {
            fprintf(stderr, "bench_coverage: %s: %s\n", bc->name, err.msg);
            exit(1);
        }
        for (int m = 0; m < QC_QM_COUNT; m++) {
            const qc_ci *c = &r.metric[m];
            int in = c->lo <= ex.value[m] && ex.value[m] <= c->hi;
            cover[m] += (unsigned)in;
            /* an interval withheld (a percentile whose tail the run cannot
             * bound, a rare event) is no claim: not counted as printed */
            int shown = !r.short_run && isfinite(c->lo) && isfinite(c->hi);
            given[m] += (unsigned)shown;
            cover_ok[m] += (unsigned)(in && shown);
            sum_est[m] += c->mean;
            sum_est2[m] += c->mean * c->mean;
            sum_half[m] += isfinite(c->half) ? c->half : 0;
        }
        reached += (unsigned)r.precision_met;
        flagged += (unsigned)r.transient;
        shortrun += (unsigned)r.short_run;
        neff_min = fmin(neff_min, r.effective_obs);
        neff_max = fmax(neff_max, r.effective_obs);
        neff_sum += r.effective_obs;
        cust += (double)r.total_customers;
        relw += r.metric[QC_QM_RESPONSE].half / r.metric[QC_QM_RESPONSE].mean;
        qc_queue_result_free(&r);
    }
    double secs = now() - t0;
    int bad = 0;
    printf("%s  (%s; %u experiments, %.1f s", bc->name, ex.model, nexp, secs);
    if (bc->precision > 0)
        printf("; precision reached in %u, mean %.3g customers, mean relative half-width %.4f",
               reached, cust / nexp, relw / nexp);
    printf("; flagged transient in %u; flagged short in %u, effective observations %.3g to "
           "%.3g, mean %.3g)\n",
           flagged, shortrun, neff_min, neff_max, neff_sum / nexp);
    brow *row = nrows < sizeof rows / sizeof rows[0] ? &rows[nrows++] : NULL;
    if (row) {
        *row = (brow){.name = bc->name, .nexp = nexp, .reached = reached, .flagged = flagged,
                      .shortrun = shortrun, .cust = cust / nexp, .precision = bc->precision};
        for (int m = 0; m < QC_QM_COUNT; m++)
            row->cover[m] = -1;
    }
    for (int m = 0; m < QC_QM_COUNT; m++) {
        double x = ex.value[m];
        if (!isfinite(x))
            continue;
        if (m == QC_QM_BLOCKING && bc->K == 0)
            continue; /* 0 exactly, an interval [0, 0]: nothing to cover */
        double lo, hi;
        wilson(cover[m], nexp, &lo, &hi);
        if (row) {
            row->cover[m] = (int)cover[m];
            row->cover_ok[m] = (int)cover_ok[m];
        }
        double target = is_pct(m) ? 0.90 : 0.93;
        double frac = (double)cover[m] / nexp;
        int ok;
        if (quick)
            ok = is_pct(m) || cover[m] * 20 >= 16 * nexp;
        else
            ok = frac >= target;
        bad += !ok;
        /* bias of the mean estimate (relative), and the mean half-width
         * against 1.96 times the spread of the estimates over experiments
         * (about 1 when the intervals are as wide as they should be) */
        double me = sum_est[m] / nexp;
        double sd = sqrt(fmax(0, (sum_est2[m] - nexp * me * me) / (nexp - 1)));
        /* a row may instead be flagged short in 95% of its runs; what is
         * printed unflagged must cover on its own */
        unsigned nok = given[m];
        double lo2 = NAN, hi2 = NAN;
        if (nok > 0)
            wilson(cover_ok[m], nok, &lo2, &hi2);
        if (!quick && !ok && (nexp - nok) * 100 >= 95 * nexp)
            ok = 1; /* flagged (or withheld) in 95% of the runs or more */
        if (!quick && !ok && nok > 0 && (double)cover_ok[m] / nok >= target)
            ok = 1; /* what it prints unflagged covers */
        printf("  %-22s exact %-10.6g covered %3u/%-3u = %.2f  [%.2f, %.2f]  unflagged %3u/%-3u"
               " [%.2f, %.2f]  target %.2f  %-12s bias %+.2f%% (%+.1f se)  width ratio %.2f\n",
               qc_queue_metric_name(m), x, cover[m], nexp, frac, lo, hi, cover_ok[m], nok, lo2,
               hi2, target, ok ? "ok" : (quick ? "COLLAPSED" : "BELOW TARGET"),
               100 * (me - x) / x,
               sd > 0 ? (me - x) / (sd / sqrt(nexp)) : NAN,
               sd > 0 ? (sum_half[m] / nexp) / (1.959964 * sd) : NAN);
    }
    fflush(stdout);
    qc_dist_free(&a);
    qc_dist_free(&s);
    return bad;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    unsigned nexp = quick ? 20 : 100;
    const char *only = NULL;
    if (!quick && argc > 1) {
        char *end;
        unsigned long v = strtoul(argv[1], &end, 10);
        if (*end != '\0' || v < 2 || v > 100000) {
            fprintf(stderr, "usage: bench_coverage [experiments] [case-substring] | --quick\n");
            return 2;
        }
        nexp = (unsigned)v;
        if (argc > 2)
            only = argv[2];
    }
    printf("coverage of 95%% intervals, %u experiments per case (seeds 1..%u)%s\n\n", nexp, nexp,
           quick ? ", quick set" : "");
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (quick && !cases[i].quick)
            continue;
        if (only && strstr(cases[i].name, only) == NULL)
            continue;
        bad += run_case(&cases[i], nexp, quick);
    }
    /* the README's table: intervals that covered the exact value, out of
     * nexp; bold below target (means 0.93, percentiles 0.90) */
    if (!quick) {
        printf("\n| case | E[T] | E[W] | E[N] | util. | thr. | block. | p50 | p95 | p99 |"
               " transient |\n");
        printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    }
    for (size_t i = 0; i < (quick ? 0 : nrows); i++) {
        const brow *b = &rows[i];
        printf("| %s", b->name);
        if (b->precision > 0)
            printf(" (reached in %u/%u, mean %.3g customers)", b->reached, b->nexp, b->cust);
        printf(" |");
        for (int m = 0; m < QC_QM_COUNT; m++) {
            if (b->cover[m] < 0) {
                printf("  |");
                continue;
            }
            double target = is_pct(m) ? 0.90 : 0.93;
            int below = (double)b->cover[m] < target * b->nexp;
            printf(" %s%d%s |", below ? "**" : "", b->cover[m], below ? "**" : "");
        }
        printf(" %u |\n", b->flagged);
    }
    printf("\n%s\n", bad ? "some coverage below target" : "every coverage at its target");
    return quick && bad ? 1 : 0;
}
