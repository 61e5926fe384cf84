/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_dist.c: libFuzzer harness for distribution specs and empirical files.
 *
 * The input is a spec, NUL-terminated. A spec that names a file would let
 * the fuzzer read any file on the machine, so an input that starts with
 * "empirical:" is read differently: an optional first line ",COL" (up to
 * the first newline or second comma) chooses the column, and every byte
 * after it becomes the contents of a private temporary file (a memfd, else
 * a file under /tmp), which is then parsed as "empirical:PATH,COL". That
 * fuzzes the CSV reader as well, and no other input can reach fopen: only
 * a spec that starts with "empirical:" opens a file.
 *
 * A parsed distribution must then behave: mean and variance not NaN and
 * >= 0, the CDF in [0, 1] and non-decreasing on the probes, quantiles and
 * samples >= 0 and not NaN, and (except for empirical) the formatted spec
 * parses back to the same parameters, bit for bit. A violation traps.
 * GSL's error handler is left at its default (abort), so a call into GSL
 * that reports an error is a finding too. */
#define _GNU_SOURCE /* memfd_create */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qctl/dist.h"

static const char empirical_prefix[] = "empirical:";
#define PREFIX_LEN (sizeof empirical_prefix - 1)

/* The one temporary file, created once per process and rewritten for
 * each input (harness state; the library has none). */
static int tmp_fd = -1;
static char tmp_path[64];

static void open_tmp(void)
{
    if (tmp_fd >= 0)
        return;
    tmp_fd = memfd_create("fuzz_dist", 0);
    if (tmp_fd >= 0) {
        snprintf(tmp_path, sizeof tmp_path, "/proc/self/fd/%d", tmp_fd);
        if (access(tmp_path, R_OK) == 0)
            return;
        close(tmp_fd); /* no /proc: fall back to a real file */
    }
    snprintf(tmp_path, sizeof tmp_path, "/tmp/fuzz_dist.XXXXXX");
    tmp_fd = mkstemp(tmp_path);
    if (tmp_fd < 0)
        abort();
}

static void set_tmp_contents(const uint8_t *data, size_t size)
{
    open_tmp();
    if (ftruncate(tmp_fd, 0) != 0)
        abort();
    size_t off = 0;
    while (off < size) {
        const ssize_t w = pwrite(tmp_fd, data + off, size - off, (off_t)off);
        if (w <= 0)
            abort();
        off += (size_t)w;
    }
}

/* Builds the spec for an input: a copy, or for "empirical:" the temp file
 * plus the optional column. Returns malloc'd text. */
static char *make_spec(const uint8_t *data, size_t size)
{
    if (size >= PREFIX_LEN && memcmp(data, empirical_prefix, PREFIX_LEN) == 0) {
        const uint8_t *rest = data + PREFIX_LEN;
        size_t rlen = size - PREFIX_LEN;
        size_t col_len = 0;
        if (rlen > 0 && rest[0] == ',') {
            col_len = 1;
            while (col_len < rlen && rest[col_len] != '\n' && rest[col_len] != ',' &&
                   rest[col_len] != '\0')
                col_len++;
        }
        const size_t skip = col_len + (col_len < rlen && rest[col_len] == '\n');
        set_tmp_contents(rest + skip, rlen - skip);
        const size_t n = PREFIX_LEN + strlen(tmp_path) + col_len + 1;
        char *spec = malloc(n);
        if (spec == NULL)
            abort();
        snprintf(spec, n, "%s%s%.*s", empirical_prefix, tmp_path, (int)col_len,
                 (const char *)rest);
        return spec;
    }
    char *spec = malloc(size + 1);
    if (spec == NULL)
        abort();
    memcpy(spec, data, size);
    spec[size] = '\0';
    return spec;
}

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fuzz_dist.c:%d: check failed: %s\n", __LINE__, #cond); \
            __builtin_trap();                                                  \
        }                                                                      \
    } while (0)

static void exercise(const qc_dist *d)
{
    const double mean = qc_dist_mean(d), var = qc_dist_var(d);
    CHECK(!isnan(mean) && mean >= 0);
    CHECK(!isnan(var) && var >= 0);

    static const double qs[] = {0, 1e-300, 1e-9, 0.001, 0.25, 0.5, 0.75, 0.999, 1 - 1e-12, 1};
    double last_x = 0;
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        const double x = qc_dist_quantile(d, qs[i]);
        CHECK(!isnan(x) && x >= 0);
        CHECK(x >= last_x); /* quantiles are non-decreasing in q */
        last_x = x;
    }
    static const double xs[] = {-1, 0, 1e-300, 1e-3, 0.5, 1, 1e6, 1e300, INFINITY};
    double last_f = 0;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        const double f = qc_dist_cdf(d, xs[i]);
        CHECK(f >= last_f && f <= 1); /* in [0, 1] and non-decreasing */
        last_f = f;
    }
    const double fm = qc_dist_cdf(d, mean);
    CHECK(fm >= 0 && fm <= 1);
    CHECK(qc_dist_cdf(d, INFINITY) == 1);
    CHECK(qc_dist_cdf(d, -1) == 0);

    qc_rng r;
    qc_rng_init(&r, 1, 2);
    for (int i = 0; i < 8; i++) {
        const double x = qc_dist_sample(d, &r);
        CHECK(!isnan(x) && x >= 0);
    }

    char buf[128], tiny[6];
    CHECK(qc_dist_format(d, buf, sizeof buf) == 0);
    const int rc = qc_dist_format(d, tiny, sizeof tiny);
    CHECK((rc == 0 || rc == QC_ERANGE) && strlen(tiny) < sizeof tiny);
    if (d->kind != QC_DIST_EMPIRICAL) {
        qc_dist e;
        qc_err err = {0};
        CHECK(qc_dist_parse(&e, buf, &err) == 0);
        CHECK(e.kind == d->kind && memcmp(e.p, d->p, sizeof e.p) == 0);
        qc_dist_free(&e);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = make_spec(data, size);
    qc_dist d;
    qc_err err = {0};
    const int rc = qc_dist_parse(&d, spec, &err);
    if (rc == 0) {
        exercise(&d);
    } else {
        /* A failed parse leaves d zeroed, with a message and its code. */
        static const qc_dist zero;
        CHECK(memcmp(&d, &zero, sizeof d) == 0);
        CHECK(err.code == rc && err.msg[0] != '\0');
        CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
    }
    qc_dist_free(&d);
    free(spec);
    return 0;
}
