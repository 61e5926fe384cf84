/* SPDX-License-Identifier: GPL-3.0-or-later */
/* fuzz_arx.c: libFuzzer harness for the identification inputs: CSV columns
 * (qc_arx_read_csv) and model JSON (qc_arx_system_read), and what reads
 * them downstream (qc_arx_fit, the design's closed-loop poles).
 *
 * The first byte chooses the parser: 'j' for a model JSON, anything else
 * for a CSV read as "time,u,y" (by position when there is no header, time
 * strictly increasing). The remaining bytes become the contents of a
 * private temporary file (a memfd, else a file under /tmp): no input can
 * name another file.
 *
 * Properties: a failed read returns a negative code with a one-line
 * message naming the file; a CSV read returns finite numbers with time
 * increasing, and a fit on them either fails cleanly or returns finite
 * coefficients; a model read returns orders and delays in range and
 * finite coefficients, and the design either refuses the model or gives
 * the right number of poles (or a clean error). GSL's error handler is
 * turned off as the qctl command does, so its failures come back as
 * codes; a trap is a finding. */
#define _GNU_SOURCE /* memfd_create */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/design.h"

/* The one temporary file, rewritten for each input (harness state). */
static int tmp_fd = -1;
static char tmp_path[64];

static void set_tmp_contents(const uint8_t *data, size_t size)
{
    if (tmp_fd < 0) {
        tmp_fd = memfd_create("fuzz_arx", 0);
        if (tmp_fd >= 0) {
            snprintf(tmp_path, sizeof tmp_path, "/proc/self/fd/%d", tmp_fd);
            if (access(tmp_path, R_OK) != 0) {
                close(tmp_fd);
                tmp_fd = -1;
            }
        }
        if (tmp_fd < 0) {
            snprintf(tmp_path, sizeof tmp_path, "/tmp/fuzz_arx.XXXXXX");
            tmp_fd = mkstemp(tmp_path);
            if (tmp_fd < 0)
                abort();
        }
    }
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

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz_arx.c:%d: check failed: %s\n", __LINE__, #cond); \
            __builtin_trap();                                                     \
        }                                                                         \
    } while (0)

static void check_error(int rc, const qc_err *err)
{
    CHECK(rc < 0 && err->code == rc);
    CHECK(memchr(err->msg, '\0', sizeof err->msg) != NULL);
    CHECK(err->msg[0] != '\0' && strchr(err->msg, '\n') == NULL);
    CHECK(strstr(err->msg, tmp_path) != NULL);
}

static void csv(void)
{
    double *c[3] = {0};
    size_t n = 0;
    qc_err err = {0};
    const int rc = qc_arx_read_csv(tmp_path, "time,u,y", 3,
                                   QC_ARX_CSV_POSITIONAL | QC_ARX_CSV_TIME, c, &n, &err);
    if (rc != 0) {
        check_error(rc, &err);
        return;
    }
    CHECK(n > 0);
    for (size_t k = 0; k < n; k++) {
        CHECK(isfinite(c[0][k]) && isfinite(c[1][k]) && isfinite(c[2][k]));
        CHECK(k == 0 || c[0][k] > c[0][k - 1]);
    }
    if (n <= 4096) {
        qc_arx_params o;
        qc_arx_params_init(&o);
        qc_arx_result *res = malloc(sizeof *res);
        qc_arx_ws *w = qc_arx_alloc(n < 4 ? 4 : n, &err);
        CHECK(res != NULL && w != NULL);
        const int frc = qc_arx_fit(w, c[1], c[2], n, &o, res, &err);
        if (frc == 0) {
            CHECK(res->model.na >= 1 && res->model.na <= 3 && res->model.na == res->model.nb);
            CHECK(res->model.delay >= 0 && res->model.delay <= 2);
            CHECK(res->rows >= res->model.na + res->model.nb + 2);
        } else {
            CHECK(frc < 0 && err.code == frc && err.msg[0] != '\0');
        }
        qc_arx_free(w);
        free(res);
    }
    for (int i = 0; i < 3; i++)
        free(c[i]);
}

static void model(void)
{
    qc_arx_system s;
    qc_err err = {0};
    const int rc = qc_arx_system_read(tmp_path, &s, &err);
    if (rc != 0) {
        check_error(rc, &err);
        return;
    }
    const qc_arx_model *ms[2] = {&s.plant, s.has_sensor ? &s.sensor : NULL};
    for (int i = 0; i < 2 && ms[i]; i++) {
        CHECK(ms[i]->na <= QC_ARX_MAX_ORDER && ms[i]->nb >= 1 && ms[i]->nb <= QC_ARX_MAX_ORDER);
        CHECK(ms[i]->delay >= -1 && ms[i]->delay <= QC_ARX_MAX_DELAY);
        for (unsigned j = 0; j < ms[i]->na; j++)
            CHECK(isfinite(ms[i]->a[j]));
        for (unsigned j = 0; j < ms[i]->nb; j++)
            CHECK(isfinite(ms[i]->b[j]));
    }
    qc_design_ws *w = qc_design_alloc(&s.plant, ms[1], &err);
    if (w == NULL) {
        CHECK(err.code < 0 && err.msg[0] != '\0');
        return;
    }
    static const double gains[] = {0, 1e-3, 0.1, 1, 5, 1e6};
    for (size_t i = 0; i < sizeof gains / sizeof gains[0]; i++) {
        qc_design_poles p;
        const int prc = qc_design_poles_at(w, 0.5 * gains[i], gains[i], &p, &err);
        if (prc == 0)
            CHECK(p.n == qc_design_order(w) && p.n <= QC_DESIGN_MAX_POLES);
        else
            CHECK(prc == QC_ERANGE);
    }
    qc_design_free(w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gsl_set_error_handler_off();
    if (size == 0)
        return 0;
    set_tmp_contents(data + 1, size - 1);
    if (data[0] == 'j')
        model();
    else
        csv();
    return 0;
}
