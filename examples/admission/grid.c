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
        p.policy = QC_POL_STATIC;
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
            cached_c = static_scale(s);
            cached = sh;
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

int main(int argc, char **argv)
{
    int quick = 0;
    unsigned seeds = 0, bseeds = 10;
    double horizon = 0;
    const char *outp = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
            seeds = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--baselines") && i + 1 < argc)
            bseeds = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc)
            horizon = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            outp = argv[++i];
        else {
            fprintf(stderr, "usage: adm_grid [--quick] [--seeds N] [--baselines N] [--time T] "
                            "[--out FILE]\n");
            return 2;
        }
    }
    if (seeds == 0)
        seeds = quick ? 10 : 30;
    if (seeds > 4096 || bseeds > 4096) {
        fprintf(stderr, "adm_grid: --seeds and --baselines: at most 4096\n");
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
    const double *margins = quick ? quick_margins : full_margins;
    size_t nm = quick ? 2 : 7;
    const double *epss = quick ? quick_eps : full_eps;
    const double *alphas = quick ? quick_alpha : full_alpha;
    size_t ne = quick ? 1 : 2, na = quick ? 1 : 2;
    size_t nshape = quick ? 2 : NSHAPE;

    fprintf(o, "Autonomic admission, %u seeds per cell, time %g per run (candidate from %g).\n\n",
            seeds, horizon, START);
    fprintf(o, "| scenario | margin | ε | α | admitted | rejected | undecided | "
               "worst class delay/D (mean ± 95%%) | largest run | time to decide |\n");
    fprintf(o, "|---|---|---|---|---|---|---|---|---|---|\n");
    unsigned fails = 0;
    unsigned tot_inad = 0, tot_inad_adm = 0, tot_adm10 = 0, tot_adm10_in = 0;
    cell *c = malloc(sizeof *c);
    if (c == NULL)
        return 1;
    int only_shape = getenv("ADM_SHAPE") ? atoi(getenv("ADM_SHAPE")) : -1;
    double only_margin = getenv("ADM_MARGIN") ? atof(getenv("ADM_MARGIN")) : NAN;
    for (size_t si = 0; si < nshape; si++) {
        if (only_shape >= 0 && (size_t)only_shape != si)
            continue;
        for (size_t mi = 0; mi < nm; mi++) {
            if (isfinite(only_margin) && fabs(only_margin - margins[mi]) > 1e-9)
                continue;
            scen s;
            if (scen_build(&s, &SHAPES[si], margins[mi]) != 0) {
                fprintf(stderr, "adm_grid: cannot build scenario\n");
                return 1;
            }
            for (size_t ei = 0; ei < ne; ei++) {
                for (size_t ai = 0; ai < na; ai++) {
                    if (getenv("ADM_EPS") && fabs(atof(getenv("ADM_EPS")) - epss[ei]) > 1e-9)
                        continue;
                    if (getenv("ADM_ALPHA") && fabs(atof(getenv("ADM_ALPHA")) - alphas[ai]) > 1e-9)
                        continue;
                    if (run_cell(&s, QC_POL_AUTONOMIC, epss[ei], alphas[ai], seeds, horizon, c))
                        return 1;
                    double wm, wh;
                    int wc;
                    cell_worst_class(c, s.sh->n, &wm, &wh, &wc);
                    char rb[64], db[64], lr[32];
                    fmt_ratio(rb, sizeof rb, wm, wh);
                    fmt_decide(db, sizeof db, c);
                    if (isfinite(c->worst_run))
                        snprintf(lr, sizeof lr, "%.3f", c->worst_run);
                    else
                        snprintf(lr, sizeof lr, "none admitted");
                    fprintf(o, "| %s | %s%.0f%% | %.2f | %.0f | %u | %u | %u | %s | %s | %s |\n",
                            s.sh->name, s.margin > 0 ? "+" : "−", fabs(100 * s.margin),
                            epss[ei], alphas[ai], c->adm, c->rej, c->und, rb, lr, db);
                    fflush(o);
                    /* the claims */
                    if (s.margin < 0) {
                        tot_inad += c->runs;
                        tot_inad_adm += c->adm;
                        if (c->adm > 0)
                            fails++;
                    }
                    if (s.margin >= 0.10 - 1e-9) {
                        tot_adm10 += c->runs;
                        tot_adm10_in += c->adm;
                        if (c->adm < 0.95 * c->runs)
                            fails++;
                    }
                    if (isfinite(wm) && wm > 1)
                        fails++;
                }
            }
            scen_free(&s);
        }
    }
    fprintf(o, "\nInadmissible candidates admitted: %u of %u runs. Admissible with margin >= "
               "10%%: admitted in %u of %u runs.\n",
            tot_inad_adm, tot_inad, tot_adm10_in, tot_adm10);
    if (!quick && bseeds > 0) {
        static const qc_mc_policy pols[] = {QC_POL_STATIC, QC_POL_UTILIZATION, QC_POL_GRADIENT2,
                                            QC_POL_VEGAS, QC_POL_ENVOY};
        static const double bmargins[] = {0.20, 0.10, -0.15};
        fprintf(o, "\nBaselines (%u seeds per cell, same scenarios; the candidate is let in "
                   "unless the policy refuses it):\n\n",
                bseeds);
        fprintf(o, "| scenario | margin | policy | let in | worst class delay/D (mean ± 95%%) "
                   "| largest run |\n|---|---|---|---|---|---|\n");
        for (size_t si = 0; si < NSHAPE; si++) {
            if (only_shape >= 0 && (size_t)only_shape != si)
                continue;
            for (size_t mi = 0; mi < 3; mi++) {
                scen s;
                if (scen_build(&s, &SHAPES[si], bmargins[mi]) != 0)
                    return 1;
                for (size_t pi = 0; pi < 5; pi++) {
                    if (run_cell(&s, pols[pi], 0.05, 20, bseeds, horizon, c))
                        return 1;
                    double wm, wh;
                    int wc;
                    cell_worst_class(c, s.sh->n, &wm, &wh, &wc);
                    char rb[64], lr[32];
                    fmt_ratio(rb, sizeof rb, wm, wh);
                    if (isfinite(c->worst_run))
                        snprintf(lr, sizeof lr, "%.3f", c->worst_run);
                    else
                        snprintf(lr, sizeof lr, "none admitted");
                    fprintf(o, "| %s | %s%.0f%% | %s | %u/%u | %s | %s |\n", s.sh->name,
                            s.margin > 0 ? "+" : "−", fabs(100 * s.margin),
                            qc_mc_policy_name(pols[pi]), c->adm, c->runs, rb, lr);
                    fflush(o);
                }
                scen_free(&s);
            }
        }
    }
    free(c);
    if (o != stdout)
        fclose(o);
    if (fails) {
        fprintf(stderr, "adm_grid: %u cell(s) break a claim\n", fails);
        return 1;
    }
    return 0;
}
