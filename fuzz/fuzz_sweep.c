/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_sweep.c: libFuzzer harness for sweep files and sweep journals.
 *
 * The input is a sweep file's text, parsed with two --set overrides taken
 * from a fixed list by the input's length. When it is accepted, the grid
 * must be consistent: at least one point, at most QC_SWEEP_MAX_POINTS;
 * for the first points, every parameter's index in range, a command line
 * ending in --seed S --json with S below 2^53, and a journal record that
 * reads back to the same values. The same input is then read as a journal
 * of a fixed sweep: it must be accepted or refused with a message, and the
 * length it keeps must end a line. A violation traps. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/app/sweep.h"

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_sweep.c:%d: check failed: %s\n", __LINE__, #cond);  \
            __builtin_trap();                                                         \
        }                                                                             \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const sets[][2] = {
    {"reps=2", "args.customers=100"},
    {"params.load=[0.5,0.9]", "seed=3"},
    {"params.x={\"from\":0,\"to\":1,\"points\":3,\"log\":false}", "metrics.m=\"a.0.b\""},
    {"args.a.b=1", "reps=0"},
};

static void check_sweep(const qc_sweep *s)
{
    const size_t np = qc_sweep_npoints(s);
    CHECK(np >= 1 && np <= QC_SWEEP_MAX_POINTS);
    CHECK(qc_sweep_nmetrics(s) >= 1);
    CHECK(strlen(qc_sweep_hash(s)) == 16);
    qc_sweep_point *pts = qc_sweep_points_new(s);
    qc_sweep_point *back = qc_sweep_points_new(s);
    CHECK(pts != NULL && back != NULL);
    qc_sweep_val *vals = calloc(qc_sweep_nmetrics(s), sizeof *vals);
    CHECK(vals != NULL);
    for (size_t m = 0; m < qc_sweep_nmetrics(s); m++) {
        vals[m].value = (double)m / 3.0;
        vals[m].lo = NAN;
        vals[m].hi = 1e300;
    }
    for (size_t i = 0; i < np && i < 32; i++) {
        for (size_t k = 0; k < qc_sweep_nparams(s); k++)
            CHECK(qc_sweep_point_index(s, i, k) < qc_sweep_param_nvalues(s, k));
        char **argv;
        size_t argc;
        CHECK(qc_sweep_argv(s, i, 1, &argv, &argc, NULL) == 0);
        CHECK(argc >= 4 && argv[argc] == NULL);
        CHECK(strcmp(argv[argc - 1], "--json") == 0 && strcmp(argv[argc - 3], "--seed") == 0);
        CHECK(strtoull(argv[argc - 2], NULL, 10) < (1ull << 53));
        qc_sweep_argv_free(argv);
        CHECK(qc_sweep_point_set(s, &pts[i], vals, NULL) == 0);
        char *rec = qc_sweep_journal_record(s, i, &pts[i]);
        CHECK(rec != NULL);
        size_t point = np;
        qc_err err = {0};
        CHECK(qc_sweep_journal_parse_record(s, rec, strlen(rec), back, &point, &err) == 0);
        CHECK(point == i && back[i].state == QC_SWEEP_DONE);
        for (size_t m = 0; m < qc_sweep_nmetrics(s); m++)
            CHECK(back[i].m[m].value == vals[m].value && isnan(back[i].m[m].lo));
        free(rec);
    }
    free(vals);
    qc_sweep_points_free(s, pts);
    qc_sweep_points_free(s, back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    qc_sweep *s = NULL;
    qc_err err = {0};
    const size_t which = size % (sizeof sets / sizeof sets[0]);
    for (size_t nsets = 0; nsets <= 2; nsets += 2) {
        memset(&err, 0, sizeof err);
        if (qc_sweep_parse(&s, text, size, "fuzz", sets[which], nsets, &err) == 0) {
            check_sweep(s);
            qc_sweep_free(s);
        } else {
            CHECK(s == NULL && err.msg[0] != '\0');
        }
    }
    /* The input as a journal of a fixed sweep. */
    static const char def[] = "{\"experiment\": \"sim queue\", \"params\": {\"load\": [0.5, "
                              "0.9]}, \"metrics\": {\"r\": \"metrics.response_time\"}}";
    CHECK(qc_sweep_parse(&s, def, sizeof def - 1, "def", NULL, 0, &err) == 0);
    qc_sweep_point *pts = qc_sweep_points_new(s);
    size_t good = 0, records = 0;
    memset(&err, 0, sizeof err);
    if (qc_sweep_journal_load(s, text, size, "journal", pts, &good, &records, &err) == 0)
        CHECK(good == 0 || (good <= size && text[good - 1] == '\n'));
    else
        CHECK(err.msg[0] != '\0');
    qc_sweep_points_free(s, pts);
    qc_sweep_free(s);
    return 0;
}
