/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_mm1.c: the simulation kernel against its floor, on M/M/1 at 0.9.
 *
 * The floor is Lindley's recursion, W' = max(0, W + S - A'), a loop that
 * does nothing but draw two exponentials per customer from the same
 * generator and add: no event list, no statistics. The kernel run is
 * qc_queue_run, the code behind `qctl sim queue`, with its full output
 * analysis (chunks, histogram, MSER warm-up). Both are timed in this process,
 * best of three, and their time per customer compared. Peak RSS is read
 * from child processes that run 10^6 and 10^7 customers, to show memory
 * does not grow with the horizon.
 *
 * usage: bench_mm1 [customers]   (default 10^7) */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qctl/dist.h"
#include "qctl/queue.h"
#include "qctl/rng.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Mean response time by Lindley's recursion. */
static double lindley(uint64_t n, double lambda, double mu)
{
    qc_rng ra, rs;
    qc_rng_init(&ra, 1, qc_rng_stream(0, QC_STREAM_ARRIVAL, 0));
    qc_rng_init(&rs, 1, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
    double w = 0, sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        double s = qc_rng_exp(&rs, mu);
        sum += w + s;
        w += s - qc_rng_exp(&ra, lambda);
        if (w < 0)
            w = 0;
    }
    return sum / (double)n;
}

static int kernel(uint64_t n, qc_queue_result *res)
{
    qc_dist a = {QC_DIST_EXP, {0.9}, NULL, 0}, s = {QC_DIST_EXP, {1.0}, NULL, 0};
    qc_queue_params p;
    qc_queue_params_init(&p);
    p.arrival = &a;
    p.service = &s;
    p.customers = n;
    qc_err err = {0};
    int rc = qc_queue_run(&p, res, &err);
    if (rc != 0)
        fprintf(stderr, "bench: %s\n", err.msg);
    return rc;
}

/* Peak RSS (KiB) of a child that runs the kernel for n customers. */
static long child_rss(uint64_t n)
{
    pid_t pid = fork();
    if (pid == 0) {
        qc_queue_result r;
        int rc = kernel(n, &r);
        if (rc == 0)
            qc_queue_result_free(&r);
        _exit(rc == 0 ? 0 : 1);
    }
    int st;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--once") == 0) {
        /* one run of the floor or the kernel, for callgrind */
        uint64_t m = strtoull(argv[3], NULL, 10);
        if (strcmp(argv[2], "floor") == 0) {
            printf("%.6f\n", lindley(m, 0.9, 1.0));
            return 0;
        }
        qc_queue_result r;
        if (kernel(m, &r) != 0)
            return 1;
        printf("%.6f\n", r.metric[QC_QM_RESPONSE].mean);
        qc_queue_result_free(&r);
        return 0;
    }
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000ULL;
    double best_floor = INFINITY, best_kernel = INFINITY, floor_mean = 0;
    qc_queue_result res = {0};
    uint64_t events = 0;
    double kmean = 0;
    for (int rep = 0; rep < 3; rep++) {
        double t0 = now();
        floor_mean = lindley(n, 0.9, 1.0);
        double t1 = now();
        if (kernel(n, &res) != 0)
            return 1;
        double t2 = now();
        events = res.events;
        kmean = res.metric[QC_QM_RESPONSE].mean;
        qc_queue_result_free(&res);
        if (t1 - t0 < best_floor)
            best_floor = t1 - t0;
        if (t2 - t1 < best_kernel)
            best_kernel = t2 - t1;
    }
    double ratio = best_kernel / best_floor;
    printf("M/M/1 at load 0.9, %llu customers, best of 3 (one core)\n", (unsigned long long)n);
    printf("  floor  (Lindley loop):    %7.3f s  %6.1f ns/customer  E[T] = %.4f\n", best_floor,
           1e9 * best_floor / (double)n, floor_mean);
    printf("  kernel (qctl sim queue):  %7.3f s  %6.1f ns/customer  E[T] = %.4f  (theory 10)\n",
           best_kernel, 1e9 * best_kernel / (double)n, kmean);
    printf("  kernel events:            %llu  (%.1f million events/s; target >= 20)\n",
           (unsigned long long)events, (double)events / best_kernel / 1e6);
    printf("  time per customer ratio kernel/floor: %.2f  (target <= 3)\n", ratio);
    long r6 = child_rss(n / 10), r7 = child_rss(n);
    printf("  peak RSS: %llu customers %ld KiB, %llu customers %ld KiB (ratio %.2f)\n",
           (unsigned long long)(n / 10), r6, (unsigned long long)n, r7,
           r6 > 0 ? (double)r7 / (double)r6 : NAN);
    return 0;
}
