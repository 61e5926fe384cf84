/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_arrivals.c: libFuzzer harness for arrival-process specs (renewal
 * distributions, sin:, steps:).
 *
 * The input is a spec, NUL-terminated. Specs that name a file (curve:,
 * trace:, empirical:) are skipped: the files' reader is fuzzed by
 * fuzz_dist, and a fuzzer must not open arbitrary paths.
 *
 * A failed parse must leave the process zeroed with a message; a parsed
 * one must behave: a mean rate that is not NaN for the model kinds, a
 * period > 0 when the rate varies, rates
 * >= 0 at probe times, a formatted description that fits any buffer, and
 * a stream of arrival times that never decreases and is never NaN. A
 * violation traps. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/arrivals.h"

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "fuzz_arrivals.c:%d: check failed: %s\n", __LINE__, #cond); \
            __builtin_trap();                                                          \
        }                                                                              \
    } while (0)

static void exercise(const qc_arrivals *a)
{
    CHECK(!isnan(qc_arrivals_mean_rate(a)) && qc_arrivals_mean_rate(a) >= 0);
    /* a time-varying rate has a time scale: sim pool bins by it */
    CHECK(!qc_arrivals_varies(a) || (a->period > 0 && isfinite(a->period)));
    static const double ts[] = {0, 1e-9, 0.5, 1, 10, 1e6, 1e300};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        double r = qc_arrivals_rate_at(a, ts[i]);
        CHECK(!isnan(r) && r >= 0);
    }
    char buf[256], tiny[7];
    int n = qc_arrivals_format(a, buf, sizeof buf);
    CHECK(n > 0 && strlen(buf) < sizeof buf);
    CHECK(qc_arrivals_format(a, tiny, sizeof tiny) == n && strlen(tiny) < sizeof tiny);
    qc_rng r;
    qc_rng_init(&r, 1, 2);
    qc_arrivals_gen g;
    qc_arrivals_gen_init(&g, a, &r);
    double last = 0;
    /* bounded: thinning (sin) draws lambda* / lambda(t) candidates per
     * arrival, at most a few per arrival on average */
    for (int i = 0; i < 64; i++) {
        double t = qc_arrivals_next(&g);
        CHECK(!isnan(t) && t >= last);
        last = t;
        if (isinf(t))
            break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const files[] = {"curve:", "trace:", "empirical:"};
    for (size_t i = 0; i < 3; i++)
        if (size >= strlen(files[i]) && memcmp(data, files[i], strlen(files[i])) == 0)
            return 0;
    char *spec = malloc(size + 1);
    if (spec == NULL)
        abort();
    memcpy(spec, data, size);
    spec[size] = '\0';
    if (strstr(spec, "empirical:")) { /* e.g. a renewal spec naming a file */
        free(spec);
        return 0;
    }
    qc_arrivals a;
    qc_err err = {0};
    int rc = qc_arrivals_parse(&a, spec, &err);
    if (rc == 0) {
        exercise(&a);
    } else {
        static const qc_arrivals zero;
        CHECK(memcmp(&a, &zero, sizeof a) == 0);
        CHECK(err.code == rc && err.msg[0] != '\0');
    }
    qc_arrivals_free(&a);
    free(spec);
    return 0;
}
