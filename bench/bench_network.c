/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_network.c: the general event loop of sim network against its
 * floors, the recursions that compute the same queues with no event list.
 *
 *   M/M/1/10 at 0.9 as a one-station network  vs  Lindley's recursion on
 *       departure times with the K-th previous departure for the loss test
 *       (a customer is admitted when the one K places ahead has left);
 *   M/M/2 at 0.8 as a one-station network     vs  the Kiefer-Wolfowitz
 *       recursion on the sorted workload vector (W' = R(W + S e1 - A)^+);
 *   three M/M/1 in tandem (0.9, 0.8, 0.7)      vs  the tandem Lindley
 *       recursion D(n, j) = max(D(n, j-1), D(n-1, j)) + S(n, j).
 * The recursions draw the same exponentials from qctl's generator and sum
 * the response times; the network run is qc_network_run with its whole
 * output analysis (one replication, batch means, MSER). Each is timed in
 * this process, best of three, and the ratio of their times per customer
 * printed: the target is a ratio of 2 or less. The networks are
 * net_cases.h's, the ones test_network_paths runs on both paths. The
 * tandem runs on sim network's tandem recursion, the others on its
 * station-specialized event loop.
 *
 * usage: bench_network [customers [case]]   (default 2 10^6; case 1, 2 or 3
 * runs that one alone, e.g. under valgrind --tool=callgrind to count the
 * instructions of each side) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "qctl/network.h"
#include "qctl/rng.h"

#include "net_cases.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static volatile double sink;

static void floor_mm1k(uint64_t n)
{
    enum { K = 10 };
    qc_rng ra, rs;
    qc_rng_init(&ra, 1, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&rs, 1, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
    double dep[K] = {0}, a = 0, sum = 0;
    unsigned head = 0;
    uint64_t lost = 0;
    for (uint64_t i = 0; i < n; i++) {
        a += qc_rng_exp(&ra, 0.9);
        /* dep[head]: the departure of the customer K admissions back */
        if (dep[head] > a) {
            lost++;
            continue;
        }
        double last = dep[(head + K - 1) % K];
        double d = (a > last ? a : last) + qc_rng_exp(&rs, 1.0);
        sum += d - a;
        dep[head] = d;
        head = (head + 1) % K;
    }
    sink = sum + (double)lost;
}

static void floor_mm2(uint64_t n)
{
    qc_rng ra, rs;
    qc_rng_init(&ra, 1, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&rs, 1, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
    double w0 = 0, w1 = 0, sum = 0; /* w0 <= w1 */
    for (uint64_t i = 0; i < n; i++) {
        double s = qc_rng_exp(&rs, 1.0);
        sum += w0 + s;
        w0 += s;
        double a = qc_rng_exp(&ra, 1.6);
        w0 = w0 > a ? w0 - a : 0;
        w1 = w1 > a ? w1 - a : 0;
        if (w0 > w1) {
            double t = w0;
            w0 = w1;
            w1 = t;
        }
    }
    sink = sum;
}

static void floor_tandem(uint64_t n)
{
    qc_rng ra, rs;
    qc_rng_init(&ra, 1, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&rs, 1, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
    static const double mu[3] = {1 / 0.9, 1 / 0.8, 1 / 0.7};
    double d[3] = {0, 0, 0}, a = 0, sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        a += qc_rng_exp(&ra, 1.0);
        double t = a;
        for (int j = 0; j < 3; j++) {
            t = (t > d[j] ? t : d[j]) + qc_rng_exp(&rs, mu[j]);
            d[j] = t;
        }
        sum += t - a;
    }
    sink = sum;
}

static int run_net(const qc_network *net, uint64_t n)
{
    qc_network_params p;
    qc_network_params_init(&p);
    p.net = net;
    p.customers = n;
    qc_network_result r;
    qc_err err = {0};
    int rc = qc_network_run(&p, &r, &err);
    if (rc != 0) {
        fprintf(stderr, "bench_network: %s\n", err.msg);
        return rc;
    }
    sink = r.e2e[0].mean;
    qc_network_result_free(&r);
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 2000000;
    int only = argc > 2 ? atoi(argv[2]) : 0;
    static const char *const names[3] = {"M/M/1/10 at 0.9 vs Lindley with loss",
                                         "M/M/2 at 0.8 vs Kiefer-Wolfowitz",
                                         "3 M/M/1 in tandem vs tandem Lindley"};
    void (*floors[3])(uint64_t) = {floor_mm1k, floor_mm2, floor_tandem};
    printf("bench_network: %llu customers, best of 3\n", (unsigned long long)n);
    printf("%-40s %12s %12s %8s\n", "case", "floor ns/c", "network ns/c", "ratio");
    int worst = 0;
    for (int c = 0; c < 3; c++) {
        if (only && only != c + 1)
            continue;
        qc_network net;
        qc_err err = {0};
        if (net_case(&net, c, &err) != 0) {
            fprintf(stderr, "bench_network: %s\n", err.msg);
            return 1;
        }
        double tf = INFINITY, tn = INFINITY;
        for (int k = 0; k < 3; k++) {
            double t0 = now();
            floors[c](n);
            double t1 = now();
            if (run_net(&net, n) != 0)
                return 1;
            double t2 = now();
            if (t1 - t0 < tf)
                tf = t1 - t0;
            if (t2 - t1 < tn)
                tn = t2 - t1;
        }
        qc_network_free(&net);
        double ratio = tn / tf;
        printf("%-40s %12.1f %12.1f %8.2f\n", names[c], 1e9 * tf / (double)n,
               1e9 * tn / (double)n, ratio);
        worst |= ratio > 2;
    }
    printf("target: every ratio <= 2: %s\n", worst ? "NOT met" : "met");
    return 0;
}
