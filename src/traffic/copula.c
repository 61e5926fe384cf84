/* SPDX-License-Identifier: GPL-3.0-or-later */
/* copula.c: Kendall's tau, Spearman's rho, pseudo-observations and the
 * empirical Markov copula of (size, gap) sequences.
 *
 * Knight's algorithm for tau-b. With n0 = n(n-1)/2 pairs, n1 and n2 the
 * pairs tied in x and in y, n3 those tied in both, and S the number of
 * discordant pairs,
 *   tau_b = (n0 - n1 - n2 + n3 - 2 S) / sqrt((n0 - n1)(n0 - n2)).
 * After sorting by (x, y), a pair i < j is discordant exactly when
 * y_i > y_j with x_i != x_j; a stable merge sort by y counts pairs with
 * y_i > y_j as it moves elements past each other, and pairs tied in x are
 * never out of order in y (the first sort put them in y order), so the
 * swap count is S. All of it runs on dense ranks (qc__sort_ranks): the
 * sort by (x, y) is a counting sort by y then a stable one by x, and the
 * merge sort moves 32-bit ranks, so a sample ranked once for its fits
 * needs no other sort here. S is counted in 64 bits; the tie counts in
 * doubles: n0 exceeds 2^53 only past 1.3e8 values, where the relative
 * error of a double is still 1e-16.
 *
 * The chain (see copula.h) picks among transitions with one uniform; all
 * its randomness comes from the caller's stream. */
#include "qctl/copula.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traffic/copula_uv.h"
#include "traffic/sort.h"

/* Inversions of y[0..n-1] (pairs i < j with y_i > y_j), by a bottom-up
 * merge sort that leaves y sorted (tmp: scratch of n). */
static uint64_t sort_count(uint32_t *y, uint32_t *tmp, size_t n)
{
    uint64_t swaps = 0;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            const size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) {
                if (y[j] < y[i]) {
                    swaps += mid - i;
                    tmp[k++] = y[j++];
                } else {
                    tmp[k++] = y[i++];
                }
            }
            while (i < mid)
                tmp[k++] = y[i++];
            while (j < hi)
                tmp[k++] = y[j++];
        }
        memcpy(y, tmp, n * sizeof *y);
    }
    return swaps;
}

/* Counts of each rank of r[0..n-1] (ranks below m) as starts: cnt[v] is
 * the number of ranks below v, cnt[m] = n. NULL when out of memory. */
static size_t *rank_starts(const uint32_t *r, size_t n, size_t m)
{
    size_t *cnt = calloc(m + 1, sizeof *cnt);
    if (cnt == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        cnt[r[i] + 1]++;
    for (size_t v = 1; v <= m; v++)
        cnt[v] += cnt[v - 1];
    return cnt;
}

/* Pairs pi(0), pi(1), ... with (rx, ry) ascending: a counting sort by ry,
 * then a stable one by rx. */
static int pair_order(const uint32_t *rx, size_t mx, const uint32_t *ry, size_t my, size_t n,
                      uint32_t *xs, uint32_t *ys)
{
    size_t *cy = rank_starts(ry, n, my), *cx = rank_starts(rx, n, mx);
    size_t *o = malloc(n * sizeof *o);
    if (!cy || !cx || !o) {
        free(cy);
        free(cx);
        free(o);
        return QC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        o[cy[ry[i]]++] = i;
    for (size_t k = 0; k < n; k++) {
        const size_t i = o[k], at = cx[rx[i]]++;
        xs[at] = rx[i];
        ys[at] = ry[i];
    }
    free(cy);
    free(cx);
    free(o);
    return 0;
}

int qc__copula_kendall_ranks(const uint32_t *rx, size_t mx, const uint32_t *ry, size_t my,
                             size_t n, double *tau)
{
    *tau = NAN;
    if (n < 2)
        return 0;
    uint32_t *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys);
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!xs || !ys || !tmp || pair_order(rx, mx, ry, my, n, xs, ys) != 0) {
        free(xs);
        free(ys);
        free(tmp);
        return QC_ENOMEM;
    }
    double n1 = 0, n3 = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && xs[j] == xs[i])
            j++;
        const double t = (double)(j - i);
        n1 += t * (t - 1) / 2;
        for (size_t a = i; a < j;) { /* joint ties inside the x block */
            size_t b = a;
            while (b < j && ys[b] == ys[a])
                b++;
            const double u = (double)(b - a);
            n3 += u * (u - 1) / 2;
            a = b;
        }
        i = j;
    }
    const double s = (double)sort_count(ys, tmp, n);
    double n2 = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && ys[j] == ys[i])
            j++;
        const double t = (double)(j - i);
        n2 += t * (t - 1) / 2;
        i = j;
    }
    free(xs);
    free(ys);
    free(tmp);
    const double n0 = (double)n * (double)(n - 1) / 2;
    const double den = sqrt((n0 - n1) * (n0 - n2));
    *tau = den > 0 ? (n0 - n1 - n2 + n3 - 2 * s) / den : NAN;
    return 0;
}

/* Mid-ranks (1-based) into out from ranks r below m. */
static int midranks(const uint32_t *r, size_t m, size_t n, double *out)
{
    size_t *cnt = rank_starts(r, n, m);
    if (cnt == NULL)
        return QC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        out[i] = ((double)cnt[r[i]] + 1 + (double)cnt[r[i] + 1]) / 2;
    free(cnt);
    return 0;
}

int qc__copula_pseudo_ranks(const uint32_t *r, size_t m, size_t n, double *u)
{
    if (n == 0)
        return 0;
    if (midranks(r, m, n, u) != 0)
        return QC_ENOMEM;
    for (size_t i = 0; i < n; i++)
        u[i] = (u[i] - 0.5) / (double)n;
    return 0;
}

int qc__copula_spearman_ranks(const uint32_t *rx, size_t mx, const uint32_t *ry, size_t my,
                              size_t n, double *rho)
{
    *rho = NAN;
    if (n < 2)
        return 0;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    if (a == NULL || b == NULL || midranks(rx, mx, n, a) != 0 || midranks(ry, my, n, b) != 0) {
        free(a);
        free(b);
        return QC_ENOMEM;
    }
    const double m = ((double)n + 1) / 2;
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        const double p = a[i] - m, q = b[i] - m;
        sxy += p * q;
        sxx += p * p;
        syy += q * q;
    }
    free(a);
    free(b);
    *rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    return 0;
}

/* The public forms: x (and y) ranked, then as above. */
typedef int (*pair_stat)(const uint32_t *, size_t, const uint32_t *, size_t, size_t, double *);

static int by_ranks(const double *x, const double *y, size_t n, double *out, pair_stat f,
                    qc_err *err)
{
    *out = NAN;
    if (n < 2)
        return 0;
    uint32_t *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    size_t mx = 0, my = 0;
    int rc = !rx || !ry || qc__sort_ranks(x, n, rx, NULL, &mx) != 0 ||
                     qc__sort_ranks(y, n, ry, NULL, &my) != 0
                 ? QC_ENOMEM
                 : f(rx, mx, ry, my, n, out);
    free(rx);
    free(ry);
    return rc ? qc_err_set(err, rc, "out of memory (%zu pairs)", n) : 0;
}

int qc_copula_kendall(const double *x, const double *y, size_t n, double *tau, qc_err *err)
{
    return by_ranks(x, y, n, tau, qc__copula_kendall_ranks, err);
}

int qc_copula_spearman(const double *x, const double *y, size_t n, double *rho, qc_err *err)
{
    return by_ranks(x, y, n, rho, qc__copula_spearman_ranks, err);
}

int qc_copula_pseudo(const double *x, size_t n, double *u, qc_err *err)
{
    if (n == 0)
        return 0;
    uint32_t *r = malloc(n * sizeof *r);
    size_t m = 0;
    int rc = !r || qc__sort_ranks(x, n, r, NULL, &m) != 0 ? QC_ENOMEM
                                                            : qc__copula_pseudo_ranks(r, m, n, u);
    free(r);
    return rc ? qc_err_set(err, rc, "out of memory (%zu values)", n) : 0;
}

/* ------------------------------------------------------------------ */
/* The Markov copula                                                  */
/* ------------------------------------------------------------------ */

void qc_copula_free(qc_copula *c)
{
    free(c->prev);
    free(c->next);
    free(c->mark);
    free(c->start);
    free(c->order);
    free(c->alias);
    memset(c, 0, sizeof *c);
}

static unsigned cell_of(const qc_copula *c, double u, double v)
{
    unsigned a = (unsigned)(u * c->grid), b = (unsigned)(v * c->grid);
    if (a >= c->grid)
        a = c->grid - 1;
    if (b >= c->grid)
        b = c->grid - 1;
    return a * c->grid + b;
}

/* The CSR index by cell of prev, and the alias of empty cells (nearest
 * non-empty cell in the max norm, ties to the lower index). */
static int index_build(qc_copula *c, qc_err *err)
{
    const size_t g2 = (size_t)c->grid * c->grid;
    c->start = calloc(g2 + 1, sizeof *c->start);
    c->order = malloc(c->n * sizeof *c->order);
    c->alias = malloc(g2 * sizeof *c->alias);
    size_t *fill = calloc(g2, sizeof *fill);
    if (!c->start || !c->order || !c->alias || !fill) {
        free(fill);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < c->n; i++)
        c->start[cell_of(c, c->prev[2 * i], c->prev[2 * i + 1]) + 1]++;
    for (size_t k = 0; k < g2; k++)
        c->start[k + 1] += c->start[k];
    for (size_t i = 0; i < c->n; i++) {
        const unsigned k = cell_of(c, c->prev[2 * i], c->prev[2 * i + 1]);
        c->order[c->start[k] + fill[k]++] = i;
    }
    free(fill);
    const int g = (int)c->grid;
    for (int a = 0; a < g; a++)
        for (int b = 0; b < g; b++) {
            const size_t k = (size_t)a * c->grid + (size_t)b;
            c->alias[k] = (uint32_t)k;
            if (c->start[k + 1] > c->start[k])
                continue;
            int found = 0;
            for (int rad = 1; rad < g && !found; rad++)
                for (int da = -rad; da <= rad && !found; da++)
                    for (int db = -rad; db <= rad && !found; db++) {
                        if (abs(da) != rad && abs(db) != rad)
                            continue;
                        const int x = a + da, y = b + db;
                        if (x < 0 || y < 0 || x >= g || y >= g)
                            continue;
                        const size_t kk = (size_t)x * c->grid + (size_t)y;
                        if (c->start[kk + 1] > c->start[kk]) {
                            c->alias[k] = (uint32_t)kk;
                            found = 1;
                        }
                    }
        }
    return 0;
}

static unsigned choose_grid(size_t n)
{
    unsigned g = (unsigned)floor(sqrt((double)n / 20));
    return g < 1 ? 1 : g > 16 ? 16 : g;
}

int qc_copula_from_points(qc_copula *c, const double *prev, const double *next,
                          const uint8_t *mark, size_t n, unsigned grid, qc_err *err)
{
    memset(c, 0, sizeof *c);
    if (n == 0)
        return qc_err_set(err, QC_EEMPTY, "copula: no transitions");
    for (size_t i = 0; i < 2 * n; i++)
        if (!(prev[i] >= 0 && prev[i] <= 1) || !(next[i] >= 0 && next[i] <= 1))
            return qc_err_set(err, QC_ERANGE,
                              "copula: point %zu has a coordinate outside [0, 1]", i / 2 + 1);
    if (grid > 64)
        return qc_err_set(err, QC_ERANGE, "copula: grid %u is larger than 64", grid);
    c->n = n;
    c->grid = grid ? grid : choose_grid(n);
    c->prev = malloc(2 * n * sizeof *c->prev);
    c->next = malloc(2 * n * sizeof *c->next);
    c->mark = calloc(n, 1);
    if (!c->prev || !c->next || !c->mark) {
        qc_copula_free(c);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    memcpy(c->prev, prev, 2 * n * sizeof *prev);
    memcpy(c->next, next, 2 * n * sizeof *next);
    if (mark)
        memcpy(c->mark, mark, n);
    if (index_build(c, err) != 0) {
        qc_copula_free(c);
        return QC_ENOMEM;
    }
    return 0;
}

int qc__copula_build_uv(qc_copula *c, const double *u, const double *v, const uint8_t *mark,
                        size_t n, size_t max_points, qc_err *err)
{
    memset(c, 0, sizeof *c);
    if (n < 2)
        return qc_err_set(err, QC_EEMPTY, "copula: needs at least 2 packets, got %zu", n);
    const size_t nt = n - 1;
    const size_t keep = max_points && nt > max_points ? max_points : nt;
    double *prev = malloc(2 * keep * sizeof *prev), *next = malloc(2 * keep * sizeof *next);
    uint8_t *mk = malloc(keep);
    int rc = 0;
    if (!prev || !next || !mk) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
    } else {
        for (size_t k = 0; k < keep; k++) {
            /* Evenly spaced transitions over the whole sequence. */
            const size_t t = keep == nt ? k : (size_t)((double)k * (double)nt / (double)keep);
            prev[2 * k] = u[t];
            prev[2 * k + 1] = v[t];
            next[2 * k] = u[t + 1];
            next[2 * k + 1] = v[t + 1];
            mk[k] = mark ? mark[t + 1] : 0;
        }
        rc = qc_copula_from_points(c, prev, next, mk, keep, 0, err);
    }
    free(prev);
    free(next);
    free(mk);
    return rc;
}

int qc_copula_build(qc_copula *c, const double *a, const double *b, const uint8_t *mark,
                    size_t n, size_t max_points, qc_err *err)
{
    memset(c, 0, sizeof *c);
    if (n < 2)
        return qc_err_set(err, QC_EEMPTY, "copula: needs at least 2 packets, got %zu", n);
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    if (!u || !v || qc_copula_pseudo(a, n, u, err) != 0 || qc_copula_pseudo(b, n, v, err) != 0) {
        free(u);
        free(v);
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    }
    const int rc = qc__copula_build_uv(c, u, v, mark, n, max_points, err);
    free(u);
    free(v);
    return rc;
}

static size_t pick_index(qc_rng *r, size_t n)
{
    size_t i = (size_t)(qc_rng_u01(r) * (double)n);
    return i < n ? i : n - 1;
}

void qc_copula_walk_init(qc_copula_walk *w, const qc_copula *c, qc_rng *r)
{
    w->c = c;
    w->r = r;
    w->cur = pick_index(r, c->n);
}

void qc_copula_walk_next(qc_copula_walk *w, double *u, double *v, uint8_t *mark)
{
    const qc_copula *c = w->c;
    const double *z = c->next + 2 * w->cur;
    const uint32_t k = c->alias[cell_of(c, z[0], z[1])];
    const size_t lo = c->start[k], cnt = c->start[k + 1] - lo;
    w->cur = c->order[lo + pick_index(w->r, cnt)];
    *u = c->next[2 * w->cur];
    *v = c->next[2 * w->cur + 1];
    *mark = c->mark[w->cur];
}
