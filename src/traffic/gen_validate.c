/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_validate.c: the realisations of a validation on several threads
 * (qc_traffic_validate_n).
 *
 * Realisation k is qc_traffic_validate with seed + k: its generators draw
 * only from the streams of that seed, and it writes only v[k], so the
 * realisations run in any order on any number of threads and v is the
 * same bytes as on one (traffic/par.h). */
#include "qctl/traffic.h"

#include <stdlib.h>
#include <string.h>

#include "traffic/par.h"

typedef struct vjob {
    const qc_traffic_model *m;
    const double *t;
    const uint32_t *size;
    size_t n;
    uint64_t seed;
    unsigned count;
    qc_traffic_validation *v;
    int *rc;
    qc_err *err;
    void (*progress)(void *ctx, double fraction);
    void *progress_ctx;
} vjob;

static void one(void *ctx, unsigned k)
{
    vjob *j = ctx;
    qc_traffic_validation *v = &j->v[k];
    j->rc[k] = qc_traffic_validate(j->m, j->t, j->size, j->n, j->seed + k, v, &j->err[k]);
    if (j->rc[k] == 0 && k > 0)
        for (int a = 0; a < 2; a++) { /* only the first realisation's are kept */
            free(v->gen_t[a]);
            free(v->gen_size[a]);
            v->gen_t[a] = v->gen_size[a] = NULL;
        }
}

static void done(void *ctx, unsigned finished)
{
    const vjob *j = ctx;
    if (j->progress)
        j->progress(j->progress_ctx, (double)finished / j->count);
}

int qc_traffic_validate_n(const qc_traffic_model *m, const double *t, const uint32_t *size,
                          size_t n, uint64_t seed, unsigned count, unsigned threads,
                          void (*progress)(void *ctx, double fraction), void *progress_ctx,
                          qc_traffic_validation *v, qc_err *err)
{
    memset(v, 0, count * sizeof *v);
    if (count == 0)
        return 0;
    int *rc = calloc(count, sizeof *rc);
    qc_err *e = calloc(count, sizeof *e);
    if (rc == NULL || e == NULL) {
        free(rc);
        free(e);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    vjob j = {m, t, size, n, seed, count, v, rc, e, progress, progress_ctx};
    const qc__par par = {count, one, &j, done};
    qc__par_run(&par, qc__par_threads(threads, count));
    int first = 0;
    for (unsigned k = 0; k < count; k++)
        if (rc[k] != 0) { /* the first failure in realisation order */
            first = rc[k];
            if (err)
                *err = e[k];
            break;
        }
    if (first != 0)
        for (unsigned k = 0; k < count; k++)
            qc_traffic_validation_free(&v[k]);
    free(rc);
    free(e);
    return first;
}
