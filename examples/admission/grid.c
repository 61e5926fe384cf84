/* SPDX-License-Identifier: GPL-3.0-or-later */
/* grid.c: the property harness of autonomic admission control.
 *
 * Over a grid of epsilon x alpha x scenarios it runs many independent
 * seeds of the closed loop (qc_mc_run, one replication per seed) and
 * reports, per cell: how many runs ended with the candidate admitted,
 * rejected or undecided; each admitted bounded class's mean delay while
 * admitted, over its bound, as a mean over the runs with its t-interval
 * and the largest single run; and the time to decide. The baselines
 * (static priorities, the utilization test, Gradient2, Vegas, Envoy) run
 * on the same scenarios and seeds.
 *
 * Scenarios are built so that their admissibility is known independently
 * of the controller, from the achievable-region conditions
 * (qc_mc_region_admissible: Coffman and Mitrani's polytope for DPS with
 * exponential classes, Kleinrock's conservation law for the non-preemptive
 * weighted discipline with any service law of finite variance). A shape
 * (loads and relative bounds) is scaled: c* is the least factor c such
 * that c D is achievable, found by bisection on the verdict, and the
 * bounds are set to D c* / (1 - m) ("admissible with margin m": tightening
 * every bound by the factor 1 - m reaches the region's boundary) or
 * D c* / (1 + m) ("inadmissible by m": every bound must be loosened by
 * 1 + m to reach it).
 *
 *   shapes:  3 classes (gold admitted, silver a candidate, best effort)
 *            5 classes (three admitted, one candidate, best effort)
 *   service: exponential under DPS by class; Pareto (shape 2.5, finite
 *            variance, mean 1) under the weighted discipline, whose
 *            conservation law holds for any law
 *
 * Usage: adm_grid [--quick] [--seeds N] [--time T] [--baselines N]
 *                 [--out FILE]
 * --quick runs a small grid and exits 1 if a claim fails (the CTest
 * version); the full grid writes a Markdown report (stdout or --out).
 * Environment (experiments only): ADM_SHAPE, ADM_MARGIN select cells;
 * ADM_CONF, ADM_SETTLE, ADM_K, ADM_KMAX, ADM_RISE, ADM_PROBE, ADM_CEIL,
 * ADM_CARRY override controller parameters; ADM_DEBUG=1 names the seeds
 * of wrong admissions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qctl/dist.h"
#include "qctl/multiclass.h"
#include "qctl/stats.h"

typedef struct shape {
    const char *name;
    unsigned n;              /* classes, best effort last */
    double lambda[5];
    double dbase[5];         /* relative bounds (0: best effort) */
    double prio[5];          /* static priorities (baselines) */
    int heavy;               /* Pareto service, weighted discipline */
} shape;

static const shape SHAPES[] = {
    {"3 classes, exp", 3, {0.3, 0.25, 0.25}, {2.0, 2.6, 0}, {0.5, 0.3, 0}, 0},
    {"5 classes, exp", 5, {0.15, 0.15, 0.15, 0.15, 0.2}, {2.0, 2.5, 3.0, 2.5, 0},
     {0.3, 0.2, 0.15, 0.2, 0}, 0},
    {"3 classes, Pareto", 3, {0.3, 0.25, 0.25}, {2.0, 2.6, 0}, {0.5, 0.3, 0}, 1},
    {"5 classes, Pareto", 5, {0.15, 0.15, 0.15, 0.15, 0.2}, {2.0, 2.5, 3.0, 2.5, 0},
     {0.3, 0.2, 0.15, 0.2, 0}, 1},
};
#define NSHAPE (sizeof SHAPES / sizeof SHAPES[0])

typedef struct scen {
    const shape *sh;
    double margin;           /* > 0 admissible with margin, < 0 inadmissible by */
    double scale;            /* c* of the shape */
    qc_dist arr[5], svc;
    qc_mc_run_class cls[5];
    qc_mc_discipline disc;
} scen;

static double START = 20000;

/* c* of a 3-class shape with non-exponential service, by a search over
 * fixed priority vectors with the static policy: best effort at its
 * least weight (1e-2 against a bounded mass of 100, which is the most the
 * bounded classes can take from it), and the split r : 1 - r between the
 * two bounded classes found by bisection where the two delays over their
 * relative bounds cross. Class 0's delay falls and class 1's rises with r,
 * so max_k T_k(r) / D_k is least at the crossing: c* is that value. Long
 * runs (4 replications of 1e6) with common random numbers. */
static double static_scale(const scen *s)
{
    qc_mc_run_class cl[5];
    double lo = 0.02, hi = 0.98, c = NAN;
    for (int it = 0; it < 14; it++) {
        double r = (lo + hi) / 2;
        memcpy(cl, s->cls, sizeof cl);
        cl[0].c.priority = 100 * r;
        cl[1].c.priority = 100 * (1 - r);
        cl[1].c.start = 0;
        cl[1].candidate = 0;
        cl[0].bound = cl[1].bound = 1e3;
        qc_mc_run_params p;
        qc_mc_run_params_init(&p);
        p.nclass = 3;
        p.cls = cl;
        p.policy = (qc_mc_policy){.admitter = QC_MC_STATIC};
        p.horizon = 1e6;
        p.warmup = 1e4;
        p.window = 1e5;
        p.reps = 4;
        p.seed = 99;
        qc_mc_run_result res;
        qc_err err = {0};
        if (qc_mc_run(&p, &res, &err) != 0) {
            fprintf(stderr, "adm_grid: static search: %s\n", err.msg);
            return NAN;
        }
        double x0 = res.cls[0].delay.mean / s->sh->dbase[0];
        double x1 = res.cls[1].delay.mean / s->sh->dbase[1];
        qc_mc_run_result_free(&res);
        c = x0 > x1 ? x0 : x1;
        if (x0 > x1)
            lo = r;
        else
            hi = r;
    }
    return c;
}

/* c* of a shape with more than two bounded classes and non-exponential
 * service, by a search over fixed priority vectors with the static
 * policy: best effort at its least weight, the bounded weights (mass 100)
 * moved by w_k <- w_k (x_k / g)^1.5, x_k = T_k / D_k and g their geometric
 * mean, which drives the ratios to a common value (DPS: a class's delay
 * falls as its weight rises); c* is the least max_k x_k over the 16
 * vectors tried. It is an achievable value (a static vector meets c* D),
 * so margins above it are admissible; how close it is to the least such
 * value shows in the spread of the ratios at the best vector, which the
 * report prints. Runs as static_scale. */
static double static_scale_n(const scen *s, double *spread)
{
    unsigned n = s->sh->n, nb = n - 1;
    qc_mc_run_class cl[5];
    double w[5], best = INFINITY;
    *spread = NAN;
    for (unsigned k = 0; k < nb; k++)
        w[k] = 100.0 / nb;
    for (int it = 0; it < 16; it++) {
        memcpy(cl, s->cls, sizeof cl);
        for (unsigned k = 0; k < nb; k++) {
            cl[k].c.priority = w[k];
            cl[k].c.start = 0;
            cl[k].candidate = 0;
            cl[k].bound = 1e3;
        }
        qc_mc_run_params p;
        qc_mc_run_params_init(&p);
        p.nclass = n;
        p.cls = cl;
        p.policy = (qc_mc_policy){.admitter = QC_MC_STATIC};
        p.horizon = 1e6;
        p.warmup = 1e4;
        p.window = 1e5;
        p.reps = 4;
        p.seed = 99;
        qc_mc_run_result res;
        qc_err err = {0};
        if (qc_mc_run(&p, &res, &err) != 0) {
            fprintf(stderr, "adm_grid: static search: %s\n", err.msg);
            return NAN;
        }
        double x[5], mx = 0, mn = INFINITY, lg = 0;
        for (unsigned k = 0; k < nb; k++) {
            x[k] = res.cls[k].delay.mean / s->sh->dbase[k];
            mx = x[k] > mx ? x[k] : mx;
            mn = x[k] < mn ? x[k] : mn;
            lg += log(x[k]) / nb;
        }
        qc_mc_run_result_free(&res);
        if (mx < best) {
            best = mx;
            *spread = mx / mn - 1;
        }
        double sum = 0;
        for (unsigned k = 0; k < nb; k++) {
            w[k] *= pow(x[k] / exp(lg), 1.5);
            sum += w[k];
        }
        for (unsigned k = 0; k < nb; k++)
            w[k] *= 100 / sum;
    }
    return best;
}

static int scen_build(scen *s, const shape *sh, double margin)
{
    memset(s, 0, sizeof *s);
    s->sh = sh;
    s->margin = margin;
    s->disc = QC_MC_DPS;
    char spec[64];
    if (qc_dist_parse(&s->svc, sh->heavy ? "pareto:2.5,0.6" : "exp:1", NULL) != 0)
        return -1;
    for (unsigned k = 0; k < sh->n; k++) {
        snprintf(spec, sizeof spec, "exp:%.17g", sh->lambda[k]);
        if (qc_dist_parse(&s->arr[k], spec, NULL) != 0)
            return -1;
        int be = sh->dbase[k] == 0;
        int cand = k == sh->n - 2;
        s->cls[k] = (qc_mc_run_class){
            {be ? "be" : cand ? "cand" : "adm", &s->arr[k], &s->svc, cand ? START : 0,
             sh->prio[k], be},
            sh->dbase[k], cand};
    }
    if (sh->heavy) {
        static const shape *cached;
        static double cached_c;
        if (cached != sh) {
            double spread = 0;
            cached_c = sh->n == 3 ? static_scale(s) : static_scale_n(s, &spread);
            cached = sh;
            fprintf(stderr, "adm_grid: %s: c* = %.4f (ratio spread at the best vector %.4f)\n",
                    sh->name, cached_c, spread);
        }
        double c = cached_c;
        if (!(c > 0))
            return -1;
        s->scale = c;
        double f = c / (1 - margin);
        for (unsigned k = 0; k < sh->n; k++)
            s->cls[k].bound = sh->dbase[k] * f;
        return 0;
    }
    /* c*: bisection on the region verdict for bounds c D. */
    qc_mc_class pc[5];
    double b[5];
    for (unsigned k = 0; k < sh->n; k++)
        pc[k] = s->cls[k].c;
    double lo = 0, hi = 1;
    for (;;) {
        int ok;
        double mg;
        unsigned w;
        for (unsigned k = 0; k < sh->n; k++)
            b[k] = hi * sh->dbase[k];
        if (qc_mc_region_admissible(s->disc, sh->n, pc, b, &ok, &mg, &w, NULL) != 0)
            return -1;
        if (ok)
            break;
        lo = hi;
        hi *= 2;
    }
    for (int it = 0; it < 60; it++) {
        double c = (lo + hi) / 2;
        int ok;
        double mg;
        unsigned w;
        for (unsigned k = 0; k < sh->n; k++)
            b[k] = c * sh->dbase[k];
        qc_mc_region_admissible(s->disc, sh->n, pc, b, &ok, &mg, &w, NULL);
        if (ok)
            hi = c;
        else
            lo = c;
    }
    s->scale = hi;
    double f = hi / (1 - margin); /* margin m < 0: hi / (1 + |m|) */
    for (unsigned k = 0; k < sh->n; k++)
        s->cls[k].bound = sh->dbase[k] * f;
    return 0;
}

static void scen_free(scen *s)
{
    for (unsigned k = 0; k < s->sh->n; k++)
        qc_dist_free(&s->arr[k]);
    qc_dist_free(&s->svc);
}

/* One cell's tallies. */
typedef struct cell {
    unsigned runs, adm, rej, und;
    double ratio[4096];      /* per run, largest admitted class delay / D */
    unsigned nratio;
    double cls_x[5][4096];   /* per class: delay / D in the runs it ended admitted */
    unsigned cls_n[5];
    double dec[4096];
    unsigned ndec;
    double worst_run;
    int bad_class;
    unsigned over;           /* runs in which some admitted class's mean is above its bound */
    double shed_adm, shed_cand; /* sums over runs of the shed fractions */
    unsigned nshed_adm, nshed_cand;
} cell;

static int run_cell(const scen *s, qc_mc_policy pol, double eps, double alpha, unsigned seeds,
                    double horizon, cell *out)
{
    memset(out, 0, sizeof *out);
    out->worst_run = -INFINITY;
    unsigned n = s->sh->n, cand = n - 2;
    for (unsigned seed = 1; seed <= seeds; seed++) {
        qc_mc_run_params p;
        qc_mc_run_params_init(&p);
        p.nclass = n;
        p.cls = s->cls;
        p.discipline = s->disc;
        p.policy = pol;
        p.adm.epsilon = eps;
        p.adm.alpha = alpha;
        p.horizon = horizon;
        p.warmup = 10000;
        p.window = 5000;
        p.reps = 1;
        p.seed = 1000003u * seed + 17;
        const char *ev;
        if ((ev = getenv("ADM_CONF")))
            p.adm.confidence = atof(ev);
        if ((ev = getenv("ADM_SETTLE")))
            p.adm.settle = (unsigned)atoi(ev);
        if ((ev = getenv("ADM_K")))
            p.adm.admit_window = (unsigned)atoi(ev);
        if ((ev = getenv("ADM_KMAX")))
            p.adm.window_max = (unsigned)atoi(ev);
        if ((ev = getenv("ADM_RISE")))
            p.adm.peer_rise = atof(ev);
        if ((ev = getenv("ADM_CEIL")))
            p.adm.peer_ceiling = atof(ev);
        if ((ev = getenv("ADM_CARRY")))
            p.adm.carry_max = atof(ev);
        if ((ev = getenv("ADM_PROBE")))
            p.adm.probe = atof(ev);
        qc_mc_run_result r;
        qc_err err = {0};
        if (qc_mc_run(&p, &r, &err) != 0) {
            fprintf(stderr, "adm_grid: %s\n", err.msg);
            return -1;
        }
        const qc_mc_run_class_result *c = &r.cls[cand];
        if (getenv("ADM_DEBUG") && c->admitted && s->margin < 0) {
            fprintf(stderr, "seed %llu admitted at %g; bounds", (unsigned long long)p.seed,
                    c->admit_time.mean);
            for (unsigned k = 0; k < n; k++)
                fprintf(stderr, " %.17g", s->cls[k].bound);
            fprintf(stderr, "\n");
        }
        out->runs++;
        out->adm += c->admitted;
        out->rej += c->rejected;
        out->und += c->undecided;
        if (isfinite(c->decide_time.mean))
            out->dec[out->ndec++] = c->decide_time.mean;
        double worst = -INFINITY;
        for (unsigned k = 0; k + 1 < n; k++) {
            const qc_mc_run_class_result *ck = &r.cls[k];
            if (ck->admitted == 0 || !isfinite(ck->admitted_delay.mean))
                continue;
            double x = ck->admitted_delay.mean / s->cls[k].bound;
            out->cls_x[k][out->cls_n[k]++] = x;
            if (x > worst)
                worst = x;
            if (x > out->worst_run) {
                out->worst_run = x;
                out->bad_class = (int)k;
            }
        }
        if (isfinite(worst))
            out->ratio[out->nratio++] = worst;
        if (isfinite(worst) && worst > 1)
            out->over++;
        for (unsigned k = 0; k + 1 < n; k++) {
            double f = r.cls[k].shed.mean;
            if (!isfinite(f))
                continue;
            if (k == cand) {
                out->shed_cand += f;
                out->nshed_cand++;
            } else {
                out->shed_adm += f;
                out->nshed_adm++;
            }
        }
        qc_mc_run_result_free(&r);
    }
    return 0;
}

/* The class with the largest mean delay / D over the runs it was admitted
 * in: its mean and 95% t half-width. */
static void cell_worst_class(const cell *c, unsigned n, double *mean, double *half, int *cls)
{
    *mean = NAN;
    *half = NAN;
    *cls = -1;
    for (unsigned k = 0; k + 1 < n; k++) {
        if (c->cls_n[k] == 0)
            continue;
        double m = 0;
        for (unsigned i = 0; i < c->cls_n[k]; i++)
            m += c->cls_x[k][i];
        m /= c->cls_n[k];
        if (*cls >= 0 && !(m > *mean))
            continue;
        *mean = m;
        *cls = (int)k;
        *half = NAN;
        qc_ci ci;
        if (c->cls_n[k] >= 2 && qc_ci_t(c->cls_x[k], c->cls_n[k], 0.95, &ci, NULL) == 0)
            *half = ci.half;
    }
}

/* Wilson score interval of x successes in n at 95%. */
static void wilson(unsigned x, unsigned n, double *lo, double *hi)
{
    const double z = 1.959963984540054;
    if (n == 0) {
        *lo = 0;
        *hi = 1;
        return;
    }
    double p = (double)x / n, d = 1 + z * z / n;
    double c = (p + z * z / (2.0 * n)) / d;
    double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n)) / d;
    *lo = c - h < 0 ? 0 : c - h;
    *hi = c + h > 1 ? 1 : c + h;
}

static void fmt_ratio(char *buf, size_t len, double mean, double half)
{
    if (!isfinite(mean))
        snprintf(buf, len, "none admitted");
    else if (!isfinite(half))
        snprintf(buf, len, "%.3f (one run)", mean);
    else
        snprintf(buf, len, "%.3f ± %.3f", mean, half);
}

static void fmt_decide(char *buf, size_t len, const cell *c)
{
    if (c->ndec == 0) {
        snprintf(buf, len, "no decision");
        return;
    }
    double s = 0;
    for (unsigned i = 0; i < c->ndec; i++)
        s += c->dec[i];
    snprintf(buf, len, "%.0f", s / c->ndec);
}

typedef struct grid_cfg {
    int quick;
    unsigned seeds, bseeds;
    double horizon;
    const double *margins, *epss, *alphas, *bmargins;
    size_t nm, ne, na, nbm;
} grid_cfg;

/* Parses "--margins 0.1,-0.05": at most 16 values in (-1, 1), not 0. */
static int parse_margins(const char *arg, double *m, size_t *n)
{
    *n = 0;
    const char *p = arg;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v > -1 && v < 1) || v == 0 || *n == 16)
            return -1;
        m[(*n)++] = v;
        p = end;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return *n > 0 ? 0 : -1;
}

/* What one shape's grid adds to the claims. */
typedef struct totals {
    unsigned fails;          /* cells that break a claim */
    unsigned inad, inad_adm; /* inadmissible runs, and those admitted */
    unsigned adm10, adm10_in; /* margin >= 10%: runs, and those admitted */
    unsigned low_x, low_n;   /* margin >= 10%: the cell with the least share */
    unsigned cells, cells_over; /* cells with an admitted class; over its bound on average */
    unsigned runs_over;      /* single runs with an admitted class over its bound */
} totals;

static void fmt_share(char *buf, size_t len, unsigned x, unsigned n)
{
    double lo, hi;
    wilson(x, n, &lo, &hi);
    snprintf(buf, len, "%.0f%% [%.0f, %.0f]", 100.0 * x / n, 100 * lo, 100 * hi);
}

static int grid_shape(FILE *o, size_t si, const grid_cfg *g, totals *t, cell *c)
{
    double only_margin = getenv("ADM_MARGIN") ? atof(getenv("ADM_MARGIN")) : NAN;
    for (size_t mi = 0; mi < g->nm; mi++) {
        if (isfinite(only_margin) && fabs(only_margin - g->margins[mi]) > 1e-9)
            continue;
        scen s;
        if (scen_build(&s, &SHAPES[si], g->margins[mi]) != 0) {
            fprintf(stderr, "adm_grid: cannot build scenario\n");
            return -1;
        }
        for (size_t ei = 0; ei < g->ne; ei++) {
            for (size_t ai = 0; ai < g->na; ai++) {
                if (getenv("ADM_EPS") && fabs(atof(getenv("ADM_EPS")) - g->epss[ei]) > 1e-9)
                    continue;
                if (getenv("ADM_ALPHA") && fabs(atof(getenv("ADM_ALPHA")) - g->alphas[ai]) > 1e-9)
                    continue;
                const qc_mc_policy autonomic = {.admitter = QC_MC_AUTONOMIC};
                if (run_cell(&s, autonomic, g->epss[ei], g->alphas[ai], g->seeds, g->horizon, c))
                    return -1;
                double wm, wh;
                int wc;
                cell_worst_class(c, s.sh->n, &wm, &wh, &wc);
                char rb[64], db[64], lr[32], sh[48];
                fmt_ratio(rb, sizeof rb, wm, wh);
                fmt_decide(db, sizeof db, c);
                fmt_share(sh, sizeof sh, c->adm, c->runs);
                if (isfinite(c->worst_run))
                    snprintf(lr, sizeof lr, "%.3f", c->worst_run);
                else
                    snprintf(lr, sizeof lr, "none admitted");
                fprintf(o, "| %s | %s%.0f%% | %.2f | %.0f | %u | %s | %u | %u | %s | %s | %s |\n",
                        s.sh->name, s.margin > 0 ? "+" : "−", fabs(100 * s.margin), g->epss[ei],
                        g->alphas[ai], c->adm, sh, c->rej, c->und, rb, lr, db);
                fflush(o);
                /* the claims */
                if (s.margin < 0) {
                    t->inad += c->runs;
                    t->inad_adm += c->adm;
                    if (c->adm > 0)
                        t->fails++;
                }
                if (s.margin >= 0.10 - 1e-9) {
                    t->adm10 += c->runs;
                    t->adm10_in += c->adm;
                    if (t->low_n == 0 || (double)c->adm / c->runs < (double)t->low_x / t->low_n) {
                        t->low_x = c->adm;
                        t->low_n = c->runs;
                    }
                    if (c->adm < 0.95 * c->runs)
                        t->fails++;
                }
                if (isfinite(wm)) {
                    t->cells++;
                    if (wm > 1) {
                        t->cells_over++;
                        t->fails++;
                    }
                }
                t->runs_over += c->over;
            }
        }
        scen_free(&s);
    }
    return 0;
}

static int baselines_shape(FILE *o, size_t si, const grid_cfg *g, cell *c)
{
    unsigned npols;
    const qc_mc_policy *pols = qc_mc_policies(&npols);
    for (size_t mi = 0; mi < g->nbm; mi++) {
        scen s;
        if (scen_build(&s, &SHAPES[si], g->bmargins[mi]) != 0)
            return -1;
        for (size_t pi = 0; pi < npols; pi++) {
            if (run_cell(&s, pols[pi], 0.05, 20, g->bseeds, g->horizon, c))
                return -1;
            double wm, wh;
            int wc;
            cell_worst_class(c, s.sh->n, &wm, &wh, &wc);
            char rb[64], lr[32], sa[32], sc[32];
            fmt_ratio(rb, sizeof rb, wm, wh);
            if (isfinite(c->worst_run))
                snprintf(lr, sizeof lr, "%.3f", c->worst_run);
            else
                snprintf(lr, sizeof lr, "none admitted");
            if (c->nshed_adm)
                snprintf(sa, sizeof sa, "%.1f%%", 100 * c->shed_adm / c->nshed_adm);
            else
                snprintf(sa, sizeof sa, "no value (no traffic)");
            if (c->nshed_cand)
                snprintf(sc, sizeof sc, "%.1f%%", 100 * c->shed_cand / c->nshed_cand);
            else
                snprintf(sc, sizeof sc, "no value (no traffic)");
            fprintf(o, "| %s | %s%.0f%% | %s | %u/%u | %s | %s | %u/%u | %s | %s |\n",
                    s.sh->name, s.margin > 0 ? "+" : "−", fabs(100 * s.margin),
                    qc_mc_policy_name(pols[pi]), c->adm, c->runs, sa, sc, c->over, c->runs, rb,
                    lr);
            fflush(o);
        }
        scen_free(&s);
    }
    return 0;
}

/* One shape's share of the work, into its own files (a child process
 * when --jobs > 1). */
static int shape_work(size_t si, const grid_cfg *g, FILE *rows, FILE *brows, FILE *tots)
{
    cell *c = malloc(sizeof *c);
    if (c == NULL)
        return -1;
    totals t = {0};
    int rc = grid_shape(rows, si, g, &t, c);
    if (rc == 0 && !g->quick && g->bseeds > 0)
        rc = baselines_shape(brows, si, g, c);
    free(c);
    if (rc == 0 && fwrite(&t, sizeof t, 1, tots) != 1)
        rc = -1;
    fflush(rows);
    fflush(brows);
    fflush(tots);
    return rc;
}

static int copy_file(FILE *from, FILE *to)
{
    char buf[4096];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        if (fwrite(buf, 1, n, to) != n)
            return -1;
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0;
    unsigned seeds = 0, bseeds = 10, jobs = 1;
    double user_m[16];
    size_t n_user_m = 0;
    double horizon = 0;
    const char *outp = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--baselines") && i + 1 < argc)
            bseeds = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--jobs") && i + 1 < argc)
            jobs = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc)
            horizon = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outp = argv[++i];
        else if (!strcmp(argv[i], "--margins") && i + 1 < argc) {
            if (parse_margins(argv[++i], user_m, &n_user_m) != 0) {
                fprintf(stderr, "adm_grid: --margins: %s is not a list of at most 16 values in "
                                "(-1, 1), none 0 (e.g. 0.1,-0.05)\n",
                        argv[i]);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: adm_grid [--quick] [--seeds N] [--baselines N] [--time T] "
                            "[--jobs N] [--margins LIST] [--out FILE]\n");
            return 2;
        }
    }
    if (seeds == 0)
        seeds = quick ? 10 : 30;
    if (seeds > 4096 || bseeds > 4096) {
        fprintf(stderr, "adm_grid: --seeds and --baselines: at most 4096\n");
        return 2;
    }
    if (jobs < 1 || jobs > 8) {
        fprintf(stderr, "adm_grid: --jobs: 1 to 8\n");
        return 2;
    }
    if (horizon == 0)
        horizon = quick ? 1000000 : 1500000;
    if (!(horizon > START + 10000)) {
        fprintf(stderr, "adm_grid: --time: must be above %g\n", START + 10000);
        return 2;
    }
    FILE *o = outp ? fopen(outp, "w") : stdout;
    if (o == NULL) {
        perror(outp);
        return 2;
    }
    static const double full_margins[] = {0.30, 0.20, 0.10, 0.05, -0.05, -0.15, -0.30};
    static const double quick_margins[] = {0.20, -0.10};
    static const double full_eps[] = {0.02, 0.05};
    static const double full_alpha[] = {5, 20};
    static const double quick_eps[] = {0.02};
    static const double quick_alpha[] = {5};
    static const double base_margins[] = {0.20, 0.10, -0.05, -0.15};
    grid_cfg g = {quick,
                  seeds,
                  bseeds,
                  horizon,
                  n_user_m ? user_m : quick ? quick_margins : full_margins,
                  quick ? quick_eps : full_eps,
                  quick ? quick_alpha : full_alpha,
                  n_user_m ? user_m : base_margins,
                  n_user_m ? n_user_m : quick ? 2 : 7,
                  quick ? 1 : 2,
                  quick ? 1 : 2,
                  n_user_m ? n_user_m : 4};
    size_t nshape = quick ? 2 : NSHAPE;
    int only_shape = getenv("ADM_SHAPE") ? atoi(getenv("ADM_SHAPE")) : -1;

    /* Each shape into its own temporary files, up to `jobs` shapes at a
     * time in child processes; the report is assembled in shape order. */
    FILE *rows[NSHAPE] = {0}, *brows[NSHAPE] = {0}, *tots[NSHAPE] = {0};
    pid_t pid[NSHAPE];
    unsigned running = 0;
    int failed = 0;
    for (size_t si = 0; si < nshape; si++) {
        pid[si] = 0;
        if (only_shape >= 0 && (size_t)only_shape != si)
            continue;
        rows[si] = tmpfile();
        brows[si] = tmpfile();
        tots[si] = tmpfile();
        if (!rows[si] || !brows[si] || !tots[si]) {
            perror("adm_grid: tmpfile");
            return 1;
        }
        if (jobs == 1) {
            if (shape_work(si, &g, rows[si], brows[si], tots[si]) != 0)
                return 1;
            continue;
        }
        if (running == jobs) {
            int st;
            if (wait(&st) > 0) {
                running--;
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                    failed = 1;
            }
        }
        fflush(NULL);
        pid[si] = fork();
        if (pid[si] < 0) {
            perror("adm_grid: fork");
            return 1;
        }
        if (pid[si] == 0)
            _exit(shape_work(si, &g, rows[si], brows[si], tots[si]) == 0 ? 0 : 1);
        running++;
    }
    while (running > 0) {
        int st;
        if (wait(&st) <= 0)
            break;
        running--;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed = 1;
    }
    if (failed) {
        fprintf(stderr, "adm_grid: a shape's run failed\n");
        return 1;
    }

    fprintf(o, "Autonomic admission, %u seeds per cell, time %g per run (candidate from %g).\n\n",
            seeds, horizon, START);
    fprintf(o, "| scenario | margin | ε | α | admitted | admitted share [95%% Wilson] | rejected | "
               "undecided | worst class delay/D (mean ± 95%%) | largest run | time to decide |\n");
    fprintf(o, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    totals t = {0};
    for (size_t si = 0; si < nshape; si++) {
        if (!rows[si])
            continue;
        totals ts;
        rewind(tots[si]);
        if (copy_file(rows[si], o) != 0 || fread(&ts, sizeof ts, 1, tots[si]) != 1) {
            fprintf(stderr, "adm_grid: lost a shape's results\n");
            return 1;
        }
        t.fails += ts.fails;
        t.inad += ts.inad;
        t.inad_adm += ts.inad_adm;
        t.adm10 += ts.adm10;
        t.adm10_in += ts.adm10_in;
        if (ts.low_n && (t.low_n == 0 || (double)ts.low_x / ts.low_n < (double)t.low_x / t.low_n)) {
            t.low_x = ts.low_x;
            t.low_n = ts.low_n;
        }
        t.cells += ts.cells;
        t.cells_over += ts.cells_over;
        t.runs_over += ts.runs_over;
    }
    double lo, hi;
    wilson(t.inad_adm, t.inad, &lo, &hi);
    fprintf(o, "\nInadmissible candidates admitted: %u of %u runs", t.inad_adm, t.inad);
    if (t.inad > 0) {
        fprintf(o, " (95%% upper bound on the rate: Wilson %.2f%%", 100 * hi);
        if (t.inad_adm == 0)
            fprintf(o, ", rule of three %.2f%%", 300.0 / t.inad);
        fprintf(o, ")");
    }
    fprintf(o, ". Admissible with margin >= 10%%: admitted in %u of %u runs", t.adm10_in, t.adm10);
    if (t.adm10 > 0) {
        char sh[48];
        fmt_share(sh, sizeof sh, t.adm10_in, t.adm10);
        fprintf(o, " (%s)", sh);
    }
    if (t.low_n > 0) {
        char sh[48];
        fmt_share(sh, sizeof sh, t.low_x, t.low_n);
        fprintf(o, "; the least cell %u of %u (%s)", t.low_x, t.low_n, sh);
    }
    fprintf(o, ". Cells whose worst admitted class has a mean delay above its bound: %u of %u; "
               "single runs with an admitted class above its bound: %u.\n",
            t.cells_over, t.cells, t.runs_over);
    if (!quick && bseeds > 0) {
        fprintf(o, "\nBaselines and the autonomic rule (ε 0.05, α 20), %u seeds per cell, same "
                   "scenarios and time. *let in*: runs whose candidate ended admitted (the "
                   "baselines let it in unless their test refuses it); *refused*: mean fraction "
                   "of requests the policy's gate turned away, admitted classes and candidate; "
                   "*over bound*: runs in which an admitted class's mean delay was above its "
                   "bound.\n\n",
                bseeds);
        fprintf(o, "| scenario | margin | policy | let in | refused (admitted) | refused "
                   "(candidate) | over bound | worst class delay/D (mean ± 95%%) | largest run "
                   "|\n|---|---|---|---|---|---|---|---|---|\n");
        for (size_t si = 0; si < nshape; si++)
            if (brows[si] && copy_file(brows[si], o) != 0)
                return 1;
    }
    for (size_t si = 0; si < nshape; si++) {
        if (rows[si]) {
            fclose(rows[si]);
            fclose(brows[si]);
            fclose(tots[si]);
        }
    }
    if (o != stdout)
        fclose(o);
    if (t.fails) {
        fprintf(stderr, "adm_grid: %u cell(s) break a claim\n", t.fails);
        return 1;
    }
    return 0;
}
