/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_traffic.c: traffic fitting and generation speed, side by side with
 * tcpdump reading the same capture and D-ITG generating traffic.
 *
 * One run:
 *  1. learns a model from 20000 synthetic on/off packets (sizes depend on
 *     gaps), the input every later step reuses;
 *  2. generates N packets (default 10^7) from 1000 users to memory, with
 *     the fitted and with the copula approach (packets/s);
 *  3. generates N packets to a pcap file (snaplen 64: headers only, as a
 *     capture for traffic analysis would keep them) (packets/s, MB/s);
 *  4. reads that file back with qc_trace_read (s, MB/s), then fits a model
 *     to all N packets (s) - the work of `qctl fit`;
 *  5. times `tcpdump -nn -r FILE` (decode and print, output discarded)
 *     and `tcpdump -r FILE less 0` (read and filter only) on the same file;
 *  6. where D-ITG is installed, runs ITGRecv on 127.0.0.1 and ITGSend with
 *     exponential and Pareto inter-departure times asking for 10^6
 *     packets/s for 3 s, and reports the rate ITGDec measured. D-ITG sends
 *     real UDP packets through the kernel; qctl writes records: the
 *     comparison says how far a model-driven generator is from being the
 *     bottleneck, not that the two do the same work.
 *
 * usage: bench_traffic [packets]   (default 10^7; QC_BENCH_TRAFFIC_PACKETS) */
#define _DEFAULT_SOURCE 1
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "qctl/traffic.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[4096];
    while (path && *path) {
        const size_t n = strcspn(path, ":");
        if (n > 0 && n + strlen(prog) + 2 < sizeof buf) {
            memcpy(buf, path, n);
            buf[n] = '/';
            strcpy(buf + n + 1, prog);
            if (access(buf, X_OK) == 0)
                return 1;
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

/* Runs argv with stdout and stderr to /dev/null; wall time, or -1. */
static double run_timed(char *const argv[])
{
    const double t0 = now();
    const pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        const int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return -1;
    return now() - t0;
}

static void synthetic_model(qc_traffic_model *m)
{
    const size_t n = 20000;
    double *t = malloc(n * sizeof *t);
    uint32_t *s = malloc(n * sizeof *s);
    uint8_t *d = malloc(n);
    qc_rng r;
    qc_rng_init(&r, 1, 0);
    double tt = 0;
    for (size_t i = 0; i < n; i++) {
        double g = qc_rng_exp(&r, 200);
        if (i && qc_rng_u01(&r) < 0.05)
            g = 0.5 + qc_rng_exp(&r, 0.5);
        tt += i ? g : 0;
        t[i] = tt;
        s[i] = qc_rng_u01(&r) < 0.4 ? 52 : (uint32_t)(100 + 1340 * fmin(g, 0.02) / 0.02);
        d[i] = s[i] == 52;
    }
    qc_traffic_fit_params o;
    qc_traffic_fit_params_init(&o);
    qc_err err = {0};
    if (qc_traffic_fit(m, "bench", t, s, d, n, &o, NULL, &err) != 0) {
        fprintf(stderr, "bench_traffic: %s\n", err.msg);
        exit(1);
    }
    m->proto = 6;
    free(t);
    free(s);
    free(d);
}

static double gen_memory(const qc_traffic_model *m, qc_traffic_approach a, uint64_t n)
{
    qc_traffic_gen_params o;
    qc_traffic_gen_params_init(&o);
    o.approach = a;
    o.packets = n;
    const uint32_t users = 1000;
    qc_traffic_gen *g;
    qc_err err = {0};
    if ((g = qc_traffic_gen_alloc(&m, &users, 1, &o, &err)) == NULL)
        return -1;
    double *t = malloc(n * sizeof *t);
    uint32_t *s = malloc(n * sizeof *s);
    if (!t || !s) {
        free(t);
        free(s);
        qc_traffic_gen_free(g);
        return -1;
    }
    const double t0 = now();
    qc_traffic_pkt p;
    uint64_t k = 0;
    while (qc_traffic_gen_next(g, &p)) {
        t[k] = p.t;
        s[k++] = p.size;
    }
    const double el = now() - t0;
    qc_traffic_gen_free(g);
    free(t);
    free(s);
    return el;
}

static void ditg(const char *tmp, double qctl_mem_rate, double qctl_file_rate)
{
    if (!on_path("ITGSend") || !on_path("ITGRecv") || !on_path("ITGDec")) {
        printf("  D-ITG: not installed (Debian package d-itg); comparison skipped\n");
        return;
    }
    const pid_t recv = fork();
    if (recv == 0) {
        const int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execlp("ITGRecv", "ITGRecv", "-Sp", "9150", "-a", "127.0.0.1", "-Si", "lo", (char *)NULL);
        _exit(127);
    }
    if (recv < 0) {
        printf("  D-ITG: cannot start ITGRecv\n");
        return;
    }
    sleep(1);
    static const char *const names[2] = {"exponential", "Pareto"};
    for (int k = 0; k < 2; k++) {
        char log[512], cmd[1024];
        snprintf(log, sizeof log, "%s/itg_%d.log", tmp, k);
        char *argv_e[] = {"ITGSend", "-a", "127.0.0.1", "-Sdp", "9150", "-rp", "9151", "-E",
                          "1000000", "-c", "512", "-t", "3000", "-l", log, NULL};
        /* Pareto shape 1.5 with the scale (ms) that makes the mean 1 us. */
        char *argv_p[] = {"ITGSend", "-a", "127.0.0.1", "-Sdp", "9150", "-rp", "9151", "-v",
                          "1.5", "0.000333", "-c", "512", "-t", "3000", "-l", log, NULL};
        if (run_timed(k ? argv_p : argv_e) < 0) {
            printf("  D-ITG %s: ITGSend failed\n", names[k]);
            continue;
        }
        snprintf(cmd, sizeof cmd, "ITGDec '%s' 2>/dev/null | grep -m1 'Average packet rate'", log);
        FILE *p = popen(cmd, "r");
        double rate = NAN;
        if (p) {
            char line[256];
            if (fgets(line, sizeof line, p)) {
                const char *eq = strchr(line, '=');
                if (eq)
                    rate = atof(eq + 1);
            }
            pclose(p);
        }
        remove(log);
        printf("  D-ITG %-11s (asked 10^6 pkt/s, 3 s, UDP on loopback): %10.0f packets/s sent;"
               " qctl/D-ITG: %.1f x to memory, %.1f x to pcap\n",
               names[k], rate, qctl_mem_rate / rate, qctl_file_rate / rate);
    }
    kill(recv, SIGTERM);
    waitpid(recv, NULL, 0);
}

int main(int argc, char **argv)
{
    uint64_t n = 10000000ULL;
    const char *env = getenv("QC_BENCH_TRAFFIC_PACKETS");
    if (argc > 1)
        n = strtoull(argv[1], NULL, 10);
    else if (env)
        n = strtoull(env, NULL, 10);
    if (n < 1000)
        n = 1000;
    const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char tmp[512], pcap[600];
    snprintf(tmp, sizeof tmp, "%s/qctl_bench_traffic_%ld", tmpdir, (long)getpid());
    if (mkdir(tmp, 0700) != 0) {
        perror(tmp);
        return 1;
    }
    snprintf(pcap, sizeof pcap, "%s/gen.pcap", tmp);

    printf("traffic: %llu packets, 1000 users (one core)\n", (unsigned long long)n);
    qc_traffic_model m;
    double t0 = now();
    synthetic_model(&m);
    printf("  model from 20000 packets:            %8.3f s\n", now() - t0);

    const double el_fit = gen_memory(&m, QC_TRAFFIC_FITTED, n);
    const double el_cop = gen_memory(&m, QC_TRAFFIC_COPULA, n);
    printf("  generate to memory, fitted:          %8.3f s  %12.0f packets/s\n", el_fit,
           (double)n / el_fit);
    printf("  generate to memory, copula:          %8.3f s  %12.0f packets/s\n", el_cop,
           (double)n / el_cop);

    qc_traffic_gen_params o;
    qc_traffic_gen_params_init(&o);
    o.packets = n;
    const qc_traffic_model *mp = &m;
    const uint32_t users = 1000;
    qc_traffic_gen *g;
    qc_err err = {0};
    if ((g = qc_traffic_gen_alloc(&mp, &users, 1, &o, &err)) == NULL) {
        fprintf(stderr, "bench_traffic: %s\n", err.msg);
        return 1;
    }
    uint64_t count = 0;
    t0 = now();
    if (qc_traffic_write(g, pcap, QC_TRAFFIC_PCAP, 64, &count, &err) != 0) {
        fprintf(stderr, "bench_traffic: %s\n", err.msg);
        return 1;
    }
    const double el_w = now() - t0;
    qc_traffic_gen_free(g);
    struct stat st;
    stat(pcap, &st);
    const double mb = (double)st.st_size / 1e6;
    printf("  generate to pcap (snaplen 64):       %8.3f s  %12.0f packets/s  %7.1f MB/s  (%.0f MB)\n",
           el_w, (double)count / el_w, mb / el_w, mb);

    qc_trace tr;
    t0 = now();
    if (qc_trace_read(&tr, pcap, &err) != 0) {
        fprintf(stderr, "bench_traffic: %s\n", err.msg);
        return 1;
    }
    const double el_r = now() - t0;
    printf("  qctl read pcap:                      %8.3f s  %12.0f packets/s  %7.1f MB/s\n", el_r,
           (double)tr.n / el_r, mb / el_r);
    qc_trace_group *groups;
    size_t ng;
    qc_trace_split_groups(&tr, QC_SPLIT_NONE, &groups, &ng, &err);
    qc_traffic_fit_params fo;
    qc_traffic_fit_params_init(&fo);
    qc_traffic_model fitted;
    qc_traffic_report rep;
    t0 = now();
    if (qc_traffic_fit_group(&fitted, &tr, &groups[0], &fo, &rep, &err) != 0) {
        fprintf(stderr, "bench_traffic: %s\n", err.msg);
        return 1;
    }
    const double el_f = now() - t0;
    printf("  qctl fit (all families, copula):     %8.3f s  %12.0f packets/s\n", el_f,
           (double)tr.n / el_f);
    printf("  qctl read + fit:                     %8.3f s  %7.1f MB/s of pcap\n", el_r + el_f,
           mb / (el_r + el_f));
    printf("    selected: size %s, gap %s; idle threshold %.4g s (1000 users merged leave no idle gaps)\n",
           qc_fit_family_name(fitted.size.fitted.family), qc_fit_family_name(fitted.gap.fitted.family),
           fitted.threshold);
    qc_traffic_model_free(&fitted);
    qc_traffic_report_free(&rep);
    qc_trace_groups_free(groups, ng);
    qc_trace_free(&tr);

    if (on_path("tcpdump")) {
        char *a1[] = {"tcpdump", "-nn", "-r", pcap, NULL};
        char *a2[] = {"tcpdump", "-r", pcap, "less", "0", NULL};
        const double e1 = run_timed(a1), e2 = run_timed(a2);
        printf("  tcpdump -nn -r (decode, print):      %8.3f s  %12.0f packets/s  %7.1f MB/s"
               "  (qctl read: %.1f x faster)\n",
               e1, (double)count / e1, mb / e1, e1 / el_r);
        printf("  tcpdump -r 'less 0' (read, filter):  %8.3f s  %12.0f packets/s  %7.1f MB/s"
               "  (qctl read: %.2f x its time)\n",
               e2, (double)count / e2, mb / e2, el_r / e2);
    } else {
        printf("  tcpdump: not installed; comparison skipped\n");
    }
    ditg(tmp, (double)n / el_cop, (double)count / el_w);
    remove(pcap);
    rmdir(tmp);
    qc_traffic_model_free(&m);
    return 0;
}
