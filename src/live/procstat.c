/* SPDX-License-Identifier: GPL-3.0-or-later */
/* procstat.c: the process metrics of /metrics, named as the Prometheus
 * client libraries name them (process_cpu_seconds_total,
 * process_resident_memory_bytes, ...), so that dashboards and alerts made
 * for any exporter read qctl's too.
 *
 * They come from /proc/self (Linux): stat's CPU times, virtual size and
 * resident pages, the entries of fd/, and the start time, which stat
 * gives in clock ticks since boot (btime of /proc/stat is the boot's
 * epoch time). A value that cannot be read is left out rather than
 * printed as 0. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "live/live.h"

/* The fields of /proc/self/stat after the command's name: utime and stime
 * (14, 15), starttime (22), vsize (23), rss (24), numbered from 1. */
static int self_stat(double *cpu, double *start_ticks, double *vsize, double *rss_pages)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    if (!p)
        return -1;
    unsigned long long v[24] = {0};
    int field = 3; /* p + 2 is field 3, the state */
    char *s = p + 2, *end;
    while (*s && field <= 24) {
        while (*s == ' ')
            s++;
        if (field == 3) {
            s++;
        } else {
            v[field - 1] = strtoull(s, &end, 10);
            if (end == s)
                return -1;
            s = end;
        }
        field++;
    }
    if (field <= 24)
        return -1;
    double tick = (double)sysconf(_SC_CLK_TCK);
    if (!(tick > 0))
        return -1;
    *cpu = (double)(v[13] + v[14]) / tick;
    *start_ticks = (double)v[21] / tick;
    *vsize = (double)v[22];
    *rss_pages = (double)v[23];
    return 0;
}

static double boot_time(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    char line[256];
    double bt = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "btime ", 6) == 0) {
            bt = strtod(line + 6, NULL);
            break;
        }
    fclose(f);
    return bt;
}

static long open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    long n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

size_t qc__process_metrics(char *buf, size_t size)
{
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    double cpu, start, vsize, rss;
    if (self_stat(&cpu, &start, &vsize, &rss) == 0) {
        double page = (double)sysconf(_SC_PAGESIZE), bt = boot_time();
        OUT("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
            "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.2f\n",
            cpu);
        OUT("# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
            "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %.0f\n",
            rss * page);
        OUT("# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
            "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %.0f\n",
            vsize);
        if (bt > 0)
            OUT("# HELP process_start_time_seconds Start time of the process since unix epoch "
                "in seconds.\n# TYPE process_start_time_seconds gauge\n"
                "process_start_time_seconds %.2f\n",
                bt + start);
    }
    long fds = open_fds();
    if (fds >= 0)
        OUT("# HELP process_open_fds Number of open file descriptors.\n"
            "# TYPE process_open_fds gauge\nprocess_open_fds %ld\n",
            fds);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        OUT("# HELP process_max_fds Maximum number of open file descriptors.\n"
            "# TYPE process_max_fds gauge\nprocess_max_fds %llu\n",
            (unsigned long long)rl.rlim_cur);
#undef OUT
    return n;
}
