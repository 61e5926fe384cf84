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
 * Where the instructions go: when valgrind is installed, the benchmark
 * runs itself under callgrind (`bench_mm1 --once floor|kernel N`) for
 * N = 2 10^5 and 4 10^5 customers and prints, per component, the
 * instructions per customer: the difference of the two runs divided by
 * 2 10^5, so the set-up and the final analysis (constant in N) drop out.
 * An instruction counts to the source file it comes from, inlined code
 * to its header (rng.h, evq.h, hist.h, ...), by the debug line table;
 * link-time optimisation can move a few instructions between files. The
 * counts do not depend on the machine's load, the times above do.
 * QC_BENCH_CALLGRIND=0 skips this part. docs/benchmarks.md keeps the
 * counts of earlier versions of the kernel, component by component.
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

/* ---- instructions per customer by component (callgrind) ---------------- */

enum { C_FLOOR, C_RNG, C_LOG, C_DIST, C_ARR, C_EVQ, C_SIM, C_STATION, C_MODEL, C_HIST,
       C_OTHER, C_COUNT };

static const char *const comp_name[C_COUNT] = {
    "Lindley loop (bench)",
    "RNG: xoshiro256**, uniform, divide",
    "log() (libm)",
    "sampler: distribution dispatch, buffer",
    "arrival process dispatch",
    "event list (heap, slots, handles)",
    "kernel: next event, clock, source",
    "station: FCFS servers and queue",
    "model: draw ahead, merge walk, areas, sums",
    "histogram",
    "other",
};

static int comp_of(const char *file)
{
    static const struct { const char *pat; int c; } map[] = {
        {"bench_mm1.c", C_FLOOR}, {"qctl/rng.h", C_RNG}, {"core/rng.c", C_RNG},
        {"e_log", C_LOG}, {"w_log", C_LOG}, {"math_config", C_LOG},
        {"qctl/dist.h", C_DIST}, {"core/dist.c", C_DIST}, {"arrivals", C_ARR},
        {"evq.", C_EVQ}, {"qctl/sim.h", C_SIM}, {"core/sim.c", C_SIM},
        {"station.", C_STATION}, {"models/queue.c", C_MODEL}, {"hist.", C_HIST},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strstr(file, map[i].pat) != NULL)
            return map[i].c;
    return C_OTHER;
}

/* Instructions of `bench_mm1 --once what n` under callgrind, by
 * component, into ir[]; total into *all. -1 when a tool fails. */
static int callgrind_run(const char *what, uint64_t n, double ir[C_COUNT], double *all)
{
    char out[] = "/tmp/bench_mm1_cg_XXXXXX", cmd[1024], line[4096];
    int fd = mkstemp(out);
    if (fd < 0)
        return -1;
    close(fd);
    snprintf(cmd, sizeof cmd,
             "valgrind --tool=callgrind --callgrind-out-file=%s /proc/%ld/exe --once %s %llu "
             ">/dev/null 2>&1 && callgrind_annotate --inclusive=no --auto=no --threshold=100 %s "
             "2>/dev/null",
             out, (long)getpid(), what, (unsigned long long)n, out);
    FILE *f = popen(cmd, "r");
    if (f == NULL) {
        remove(out);
        return -1;
    }
    for (int c = 0; c < C_COUNT; c++)
        ir[c] = 0;
    *all = 0;
    int seen = 0;
    while (fgets(line, sizeof line, f)) {
        /* "  12,345 (1.23%)  FILE:FUNCTION [OBJECT]" */
        char *p = line, num[64];
        size_t k = 0;
        while (*p == ' ')
            p++;
        while ((*p >= '0' && *p <= '9') || *p == ',') {
            if (*p != ',' && k + 1 < sizeof num)
                num[k++] = *p;
            p++;
        }
        num[k] = 0;
        if (k == 0 || *p != ' ')
            continue;
        while (*p == ' ')
            p++;
        if (*p == '(') {
            p = strchr(p, ')');
            if (p == NULL)
                continue;
            p++;
            while (*p == ' ')
                p++;
        }
        if (strncmp(p, "PROGRAM TOTALS", 14) == 0) {
            *all = strtod(num, NULL);
            seen = 1;
            continue;
        }
        char *colon = strchr(p, ':');
        if (colon == NULL)
            continue;
        *colon = 0;
        ir[comp_of(p)] += strtod(num, NULL);
    }
    int st = pclose(f);
    remove(out);
    return seen && st == 0 ? 0 : -1;
}

/* Instructions per customer by component: (I(2m) - I(m)) / m. */
static int callgrind_per_customer(const char *what, uint64_t m, double pc[C_COUNT],
                                  double *total)
{
    double a[C_COUNT], b[C_COUNT], ta, tb;
    if (callgrind_run(what, m, a, &ta) != 0 || callgrind_run(what, 2 * m, b, &tb) != 0)
        return -1;
    for (int c = 0; c < C_COUNT; c++)
        pc[c] = (b[c] - a[c]) / (double)m;
    *total = (tb - ta) / (double)m;
    return 0;
}

static void breakdown(void)
{
    const char *env = getenv("QC_BENCH_CALLGRIND");
    if (env != NULL && strcmp(env, "0") == 0)
        return;
    if (system("valgrind --version >/dev/null 2>&1 && "
               "command -v callgrind_annotate >/dev/null 2>&1") != 0) {
        printf("  instructions by component: skipped (valgrind's callgrind is not installed)\n");
        return;
    }
    const uint64_t m = 200000;
    double fl[C_COUNT], kn[C_COUNT], tf, tk;
    if (callgrind_per_customer("floor", m, fl, &tf) != 0 ||
        callgrind_per_customer("kernel", m, kn, &tk) != 0) {
        printf("  instructions by component: callgrind failed, no figures\n");
        return;
    }
    printf("  instructions per customer by callgrind (runs of %llu and %llu customers,\n"
           "  the difference over %llu; load-independent):\n",
           (unsigned long long)m, (unsigned long long)(2 * m), (unsigned long long)m);
    printf("    %-42s %8s %8s\n", "component (source of the instructions)", "floor", "kernel");
    for (int c = 0; c < C_COUNT; c++) {
        if (fabs(fl[c]) < 0.05 && fabs(kn[c]) < 0.05)
            continue;
        printf("    %-42s %8.1f %8.1f\n", comp_name[c], fl[c], kn[c]);
    }
    printf("    %-42s %8.1f %8.1f\n", "total", tf, tk);
    printf("  instruction ratio kernel/floor: %.2f  (target <= 2; the kernel at most %.1f)\n",
           tk / tf, 2 * tf);
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
    if (argc == 2 && strcmp(argv[1], "--breakdown") == 0) {
        breakdown();
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
    printf("  time per customer ratio kernel/floor: %.2f  (target <= 2)\n", ratio);
    long r6 = child_rss(n / 10), r7 = child_rss(n);
    if (r6 > 0 && r7 > 0)
        printf("  peak RSS: %llu customers %ld KiB, %llu customers %ld KiB (ratio %.2f; "
               "target 1)\n",
               (unsigned long long)(n / 10), r6, (unsigned long long)n, r7,
               (double)r7 / (double)r6);
    else
        printf("  peak RSS: a child run failed, not measured\n");
    fflush(stdout);
    breakdown();
    return 0;
}
