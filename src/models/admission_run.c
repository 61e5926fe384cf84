/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission_run.c: the multi-class server in a loop with its admission
 * policy: per busy cycle, each bounded class's controller steps on its own
 * delay sample and sets its own priority (autonomic), or the priorities
 * stay fixed and a baseline decides (static, utilization test, concurrency
 * limiters).
 *
 * Measures, per replication, over [warmup, horizon]:
 *   - each class's mean delay per job, throughput and shed fraction;
 *   - the windows: [warmup + j w, warmup + (j+1) w); completions are
 *     counted in the window holding the cycle (or departure) at which they
 *     are read; a bounded class's excursion in a window is
 *     (mean delay - D) / D, counted only if it was admitted before the
 *     window began and never rejected; its worst excursion is the largest
 *     of these, and the replication's is the largest over classes;
 *   - when each candidate was admitted or rejected.
 * Each figure is then a t-interval over the replications, which are
 * independent (each uses its own streams: rep r of the seed). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/front.h"
#include "qctl/limiter.h"
#include "qctl/multiclass.h"
#include "reps.h"
#include "core/names.h"

static const char *const admitter_names[] = {"autonomic", "static", "utilization"};
QC__NAMES(qc_mc_admitter, qc_mc_admitter_name, qc_mc_admitter_parse, admitter_names)

/* The seven policies: each admitter alone, and the static one with each
 * limiter the run has parameters for. Their words are the admitter's or
 * the limiter's (qc_limiter_algo_name): no table of their own. */
static const qc_mc_policy policies[] = {
    {QC_MC_AUTONOMIC, 0, QC_LIMITER_FIXED},  {QC_MC_STATIC, 0, QC_LIMITER_FIXED},
    {QC_MC_UTILIZATION, 0, QC_LIMITER_FIXED}, {QC_MC_STATIC, 1, QC_LIMITER_GRADIENT2},
    {QC_MC_STATIC, 1, QC_LIMITER_VEGAS},     {QC_MC_STATIC, 1, QC_LIMITER_ENVOY},
    {QC_MC_STATIC, 1, QC_LIMITER_AIMD}};
enum { NPOLICIES = sizeof policies / sizeof *policies };

const qc_mc_policy *qc_mc_policies(unsigned *n)
{
    if (n)
        *n = NPOLICIES;
    return policies;
}

/* The index of p in policies, or -1. */
static int policy_index(qc_mc_policy p)
{
    for (int i = 0; i < NPOLICIES; i++)
        if (policies[i].admitter == p.admitter && !policies[i].limited == !p.limited &&
            (!p.limited || policies[i].limiter == p.limiter))
            return i;
    return -1;
}

const char *qc_mc_policy_name(qc_mc_policy p)
{
    const int i = policy_index(p);
    if (i < 0)
        return "?";
    return p.limited ? qc_limiter_algo_name(p.limiter) : qc_mc_admitter_name(p.admitter);
}

int qc_mc_policy_parse(const char *s, qc_mc_policy *v, qc_err *err)
{
    const char *words[NPOLICIES];
    for (int i = 0; i < NPOLICIES; i++)
        words[i] = qc_mc_policy_name(policies[i]);
    int i = 0;
    int rc = qc__name_parse(s, words, NPOLICIES, &i, err);
    if (rc == 0)
        *v = policies[i];
    return rc;
}

static const char *const discipline_names[] = {"dps", "dps-job", "weighted"};
QC__NAMES(qc_mc_discipline, qc_mc_discipline_name, qc_mc_discipline_parse, discipline_names)

void qc_mc_run_params_init(qc_mc_run_params *p)
{
    memset(p, 0, sizeof *p);
    p->discipline = QC_MC_DPS;
    p->policy = policies[0];
    qc_adm_params_init(&p->adm, 1, 0.1, 20, 0);
    p->be_floor = 0.01;
    p->min_completions = 20;
    p->cycle_max = 0;
    p->horizon = 1e5;
    p->warmup = 1e4;
    p->window = 5e3;
    p->reps = 10;
    p->seed = 1;
    p->level = 0.95;
    p->u_max = 0.9;
    qc_lim_gradient2_params_init(&p->g2);
    qc_lim_vegas_params_init(&p->vegas);
    qc_lim_envoy_params_init(&p->envoy);
    qc_lim_aimd_params_init(&p->aimd);
}

/* ---- validation ------------------------------------------------------------ */

static const char *cname(const qc_mc_run_class *c, unsigned k, char *buf, size_t n)
{
    if (c->c.name && *c->c.name)
        return c->c.name;
    snprintf(buf, n, "#%u", k + 1);
    return buf;
}

static qc_adm_params class_adm(const qc_mc_run_params *p, unsigned k)
{
    const qc_mc_run_class *c = &p->cls[k];
    qc_adm_params a = p->adm;
    a.bound = c->bound;
    a.admitted = !c->candidate;
    a.ref_count = p->min_completions;
    if (!c->candidate)
        a.p_init = c->c.priority > 0 ? c->c.priority : 0.1;
    /* a candidate starts at the template's p_init (a slow start) */
    if (a.p_init < a.p_min)
        a.p_init = a.p_min;
    if (a.p_init > a.p_max)
        a.p_init = a.p_max;
    return a;
}

static int check(const qc_mc_run_params *p, qc_mc_class *plant, qc_err *err)
{
    char nb[32];
    if (p->nclass == 0 || p->cls == NULL)
        return qc_err_set(err, QC_EINVAL, "no classes: give at least one delay-bounded class");
    if (p->nclass > QC_MC_MAX_CLASSES)
        return qc_err_set(err, QC_EINVAL, "%u classes: at most %d", p->nclass, QC_MC_MAX_CLASSES);
    if (p->adm.epsilon < 0)
        return qc_err_set(err, QC_EINVAL, "epsilon: %g is negative; it must be in [0, 1)",
                          p->adm.epsilon);
    if (!(p->adm.epsilon < 1))
        return qc_err_set(err, QC_EINVAL, "epsilon: %g must be < 1", p->adm.epsilon);
    if (!(p->adm.alpha > 0) || !isfinite(p->adm.alpha))
        return qc_err_set(err, QC_EINVAL, "alpha: %g must be > 0", p->adm.alpha);
    if (!(p->horizon > 0) || !isfinite(p->horizon))
        return qc_err_set(err, QC_EINVAL, "time: %g is not a positive time", p->horizon);
    if (!(p->warmup >= 0 && p->warmup < p->horizon))
        return qc_err_set(err, QC_EINVAL, "warmup: %g is not in [0, time %g)", p->warmup,
                          p->horizon);
    if (!(p->window > 0) || (p->horizon - p->warmup) / p->window > 10000)
        return qc_err_set(err, QC_EINVAL, "window: %g is not a positive time giving at most "
                          "10000 windows", p->window);
    if (p->reps < 1 || p->reps > 100000)
        return qc_err_set(err, QC_EINVAL, "reps: %u is not in [1, 100000]", p->reps);
    if (!(p->level > 0 && p->level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence level %g is not in (0, 1)", p->level);
    if (!(p->cycle_max >= 0))
        return qc_err_set(err, QC_EINVAL, "cycle_max: %g must be > 0", p->cycle_max);
    if (policy_index(p->policy) < 0)
        return qc_err_set(err, QC_EINVAL,
                          "policy: admitter %s with limiter %s is none of the policies "
                          "(a limiter goes with the static admitter: gradient2, vegas, envoy "
                          "or aimd)",
                          qc_mc_admitter_name(p->policy.admitter),
                          p->policy.limited ? qc_limiter_algo_name(p->policy.limiter) : "none");
    unsigned bounded = 0;
    for (unsigned k = 0; k < p->nclass; k++)
        plant[k] = p->cls[k].c;
    for (unsigned k = 0; k < p->nclass; k++) {
        const qc_mc_run_class *c = &p->cls[k];
        const char *nm = cname(c, k, nb, sizeof nb);
        if (c->c.best_effort)
            continue;
        bounded++;
        if (!(c->bound > 0) || !isfinite(c->bound))
            return qc_err_set(err, QC_EINVAL, "class %s: bound %g must be a positive time", nm,
                              c->bound);
        if (!c->c.service || !c->c.arrival)
            return qc_err_set(err, QC_EINVAL, "class %s: no arrival or service law", nm);
        double dmin = qc_mc_min_delay(p->discipline, p->nclass, plant, k);
        double es = qc_dist_mean(c->c.service);
        if (!(c->bound > es))
            return qc_err_set(err, QC_ERANGE,
                              "class %s: bound %g is not above its own mean service time %g: "
                              "no priority can meet it, even on an idle server",
                              nm, c->bound, es);
        if (!(c->bound > dmin))
            return qc_err_set(err, QC_ERANGE,
                              "class %s: bound %g cannot be met by any priority: with absolute "
                              "priority its mean delay under %s is still %g",
                              nm, c->bound, qc_mc_discipline_name(p->discipline), dmin);
        double T = (1 - p->adm.epsilon) * c->bound;
        if (p->policy.admitter == QC_MC_AUTONOMIC && !(T > dmin))
            return qc_err_set(err, QC_ERANGE,
                              "class %s: target (1 - epsilon) D = %g is below %g, the least mean "
                              "delay any priority gives it under %s: lower epsilon",
                              nm, T, dmin, qc_mc_discipline_name(p->discipline));
        qc_adm a;
        qc_adm_params ap = class_adm(p, k);
        int rc = qc_adm_init(&a, &ap, err);
        if (rc != 0) {
            qc_err_prefix(err, "class %s", nm);
            return rc;
        }
    }
    if (bounded == 0)
        return qc_err_set(err, QC_EINVAL,
                          "no delay-bounded class: the scenario has only a best-effort class");
    return 0;
}

/* ---- one replication ------------------------------------------------------------ */

typedef struct rep_state {
    const qc_mc_run_params *p;
    unsigned K;
    double cycle_max;
    qc_mc *m;
    qc_adm adm[QC_MC_MAX_CLASSES];
    int bounded[QC_MC_MAX_CLASSES];
    int state[QC_MC_MAX_CLASSES];       /* qc_adm_state; admitted at start for non-autonomic */
    double t_admit[QC_MC_MAX_CLASSES];  /* time admitted (INFINITY: not yet) */
    double t_reject[QC_MC_MAX_CLASSES]; /* time rejected (INFINITY: not) */
    int rejected[QC_MC_MAX_CLASSES];
    qc_lim_util util;
    qc_limiter *lim;     /* the live proxy's limiter object (qctl/limiter.h) */
    qc_lim_sampler samp; /* and its sampler: one window per completion */
    int has_lim;
    /* windows */
    size_t nwin;
    double *wsum, *wn;                  /* [nwin][K] */
    qc_mc_totals last[QC_MC_MAX_CLASSES];
    qc_mc_totals at_warm[QC_MC_MAX_CLASSES];
    int warm_taken;
    /* series (replication 1) */
    qc_mc_series_row *series;
    size_t slen, scap;
    int series_on, oom;
    qc_mc_class plant[QC_MC_MAX_CLASSES]; /* the classes as the server reads them */
} rep_state;

/* Moves each class's completions since the last read into the window
 * holding time t. */
static void account(rep_state *r, double t)
{
    const qc_mc_run_params *p = r->p;
    if (!r->warm_taken && t >= p->warmup) {
        for (unsigned k = 0; k < r->K; k++) {
            r->at_warm[k] = *qc_mc_totals_of(r->m, k);
            r->last[k] = r->at_warm[k];
        }
        r->warm_taken = 1;
        return;
    }
    if (!r->warm_taken)
        return;
    size_t j = (size_t)((t - p->warmup) / p->window);
    if (j >= r->nwin)
        j = r->nwin - 1;
    for (unsigned k = 0; k < r->K; k++) {
        const qc_mc_totals *tt = qc_mc_totals_of(r->m, k);
        r->wsum[j * r->K + k] += tt->delay_sum - r->last[k].delay_sum;
        r->wn[j * r->K + k] += (double)(tt->completions - r->last[k].completions);
        r->last[k] = *tt;
    }
}

static void series_push(rep_state *r, const qc_mc_report *rep)
{
    if (qc__grow((void **)&r->series, &r->scap, r->slen, sizeof *r->series) != 0) {
        r->oom = 1;
        r->series_on = 0;
        return;
    }
    qc_mc_series_row *row = &r->series[r->slen++];
    memset(row, 0, sizeof *row);
    row->t = rep->t;
    for (unsigned k = 0; k < r->K; k++) {
        row->delay[k] = rep->sample[k].count ? rep->sample[k].delay : NAN;
        row->priority[k] = r->p->cls[k].c.best_effort ? NAN
                           : r->p->policy.admitter == QC_MC_AUTONOMIC
                               ? qc_adm_priority(&r->adm[k])
                               : r->p->cls[k].c.priority;
        row->weight[k] = qc_mc_weight(r->m, k);
        row->state[k] = (unsigned char)r->state[k];
    }
    row->limit = r->has_lim ? qc_limiter_limit_real(r->lim) : INFINITY;
}

static int on_cycle(rep_state *r, const qc_mc_report *rep)
{
    const qc_mc_run_params *p = r->p;
    int any = 0;
    for (unsigned k = 0; k < r->K; k++) {
        if (rep->sample[k].count == 0)
            continue;
        any = 1;
        if (p->policy.admitter != QC_MC_AUTONOMIC || !r->bounded[k] || r->rejected[k])
            continue;
        /* The weights the admitted classes have now: what a candidate
         * may see of the others (the server applies them), no more. */
        double peer[QC_MC_MAX_CLASSES];
        unsigned np = 0;
        for (unsigned j = 0; j < r->K; j++)
            if (j != k && r->bounded[j] && !r->rejected[j] && r->state[j] == QC_ADM_ADMITTED)
                peer[np++] = qc_adm_priority(&r->adm[j]);
        qc_adm_act act;
        qc_adm_sense in = {rep->sample[k].delay, (double)rep->sample[k].count, peer, np};
        qc_adm_step(&r->adm[k], &in, &act);
        r->state[k] = act.state;
        int rc = qc_mc_set_priority(r->m, k, act.priority);
        if (rc != 0)
            return rc;
        if (act.event == QC_ADM_EV_ADMIT)
            r->t_admit[k] = rep->t;
        if (act.event == QC_ADM_EV_REJECT) {
            r->rejected[k] = 1;
            r->t_reject[k] = rep->t;
            rc = qc_mc_stop_class(r->m, k);
            if (rc != 0)
                return rc;
        }
    }
    if (any && r->series_on)
        series_push(r, rep);
    return 0;
}

static int on_start(rep_state *r, unsigned k, double t)
{
    const qc_mc_run_params *p = r->p;
    if (p->policy.admitter == QC_MC_UTILIZATION && !p->cls[k].c.best_effort &&
        p->cls[k].c.start > 0) {
        qc_lim_util_act act;
        double load = qc_dist_mean(p->cls[k].c.service) / qc_dist_mean(p->cls[k].c.arrival);
        qc_lim_util_step(&r->util, &(qc_lim_util_sense){QC_LIM_JOIN, load}, &act);
        if (!act.admit) {
            r->rejected[k] = 1;
            r->t_reject[k] = t;
            r->state[k] = QC_ADM_REJECTED;
            return qc_mc_stop_class(r->m, k);
        }
        r->state[k] = QC_ADM_ADMITTED;
        r->t_admit[k] = t;
    }
    return 0;
}

/* A completion (s->rtt its delay) or a clock tick (s->rtt NaN) for the
 * limiter, through the sampler the proxy runs (qctl/front.h): the same
 * limiter object, fed the same way, at the cadence declared here (per
 * completion: one sample each, the step objects' own rule). */
static int lim_step(rep_state *r, const qc_lim_sample *s, double *next_tick)
{
    int close;
    if (s->rtt == s->rtt) {
        qc_limiter_record(r->lim, 0, s->rtt, s->inflight, s->dropped ? QC_LIMITER_DROPPED : QC_LIMITER_OK);
        close = qc_lim_sampler_completion(&r->samp);
    } else {
        close = 1; /* a clock tick the step object asked for */
    }
    if (close)
        qc_limiter_tick(r->lim, s->t);
    qc_mc_set_limit(r->m, qc_limiter_limit_real(r->lim));
    *next_tick = qc_limiter_next_tick(r->lim);
    return 0;
}

/* The limiter's parameters for a step object's: the same limits. */
static qc_limiter_params lim_config(const qc_mc_run_params *p, unsigned rep)
{
    qc_limiter_params lc;
    switch (p->policy.limiter) {
    case QC_LIMITER_GRADIENT2:
        qc_limiter_params_init(&lc, QC_LIMITER_GRADIENT2);
        lc.gradient2 = p->g2;
        lc.initial_limit = p->g2.initial_limit;
        lc.min_limit = p->g2.min_limit;
        lc.max_limit = p->g2.max_limit;
        break;
    case QC_LIMITER_VEGAS:
        qc_limiter_params_init(&lc, QC_LIMITER_VEGAS);
        lc.vegas = p->vegas;
        lc.vegas.seed = p->seed + rep;
        lc.initial_limit = p->vegas.initial_limit;
        lc.max_limit = p->vegas.max_limit;
        break;
    case QC_LIMITER_ENVOY:
        qc_limiter_params_init(&lc, QC_LIMITER_ENVOY);
        lc.envoy = p->envoy;
        lc.envoy.seed = p->seed + rep;
        lc.max_limit = p->envoy.max_limit;
        lc.initial_limit = lc.max_limit < 20 ? lc.max_limit : 20;
        break;
    default:
        qc_limiter_params_init(&lc, QC_LIMITER_AIMD);
        lc.initial_limit = p->aimd.initial_limit;
        lc.min_limit = p->aimd.min_limit;
        lc.max_limit = p->aimd.max_limit;
        lc.aimd_backoff = p->aimd.backoff;
        lc.aimd_timeout = p->aimd.timeout;
        break;
    }
    return lc;
}

static int rep_init(rep_state *r, unsigned rep, qc_mc_class *plant, qc_err *err)
{
    const qc_mc_run_params *p = r->p;
    qc_mc_params mp;
    qc_mc_params_init(&mp);
    mp.nclass = p->nclass;
    mp.cls = plant;
    mp.discipline = p->discipline;
    mp.be_floor = p->be_floor;
    mp.min_completions = p->min_completions;
    mp.cycle_max = r->cycle_max;
    mp.seed = p->seed;
    mp.rep = rep;
    double u0 = 0;
    for (unsigned k = 0; k < r->K; k++) {
        const qc_mc_run_class *c = &p->cls[k];
        r->bounded[k] = !c->c.best_effort;
        r->t_admit[k] = INFINITY;
        r->t_reject[k] = INFINITY;
        r->rejected[k] = 0;
        r->state[k] = QC_ADM_ADMITTED;
        if (r->bounded[k]) {
            qc_adm_params ap = class_adm(p, k);
            int rc = qc_adm_init(&r->adm[k], &ap, err);
            if (rc != 0)
                return rc;
            if (p->policy.admitter == QC_MC_AUTONOMIC) {
                plant[k].priority = ap.p_init;
                r->state[k] = c->candidate ? QC_ADM_CANDIDATE : QC_ADM_ADMITTED;
                if (!c->candidate)
                    r->t_admit[k] = c->c.start;
            } else {
                if (!(plant[k].priority > 0))
                    plant[k].priority = 0.1;
                r->t_admit[k] = c->c.start;
                if (p->policy.admitter == QC_MC_UTILIZATION && c->c.start > 0) {
                    r->state[k] = QC_ADM_CANDIDATE;
                    r->t_admit[k] = INFINITY;
                } else {
                    u0 += qc_dist_mean(c->c.service) / qc_dist_mean(c->c.arrival);
                }
            }
        }
    }
    if (p->policy.admitter == QC_MC_UTILIZATION &&
        qc_lim_util_init(&r->util, p->u_max, u0, err) != 0)
        return err ? err->code : QC_EINVAL;
    r->m = qc_mc_alloc(&mp, err);
    if (r->m == NULL)
        return err && err->code ? err->code : QC_ENOMEM;
    r->has_lim = 0;
    int rc = 0;
    if (p->policy.limited) {
        qc_limiter_params lc = lim_config(p, rep);
        r->lim = qc_limiter_alloc(&lc, 0, err);
        if (!r->lim)
            return err && err->code ? err->code : QC_ENOMEM;
        qc_lim_sampler_init(&r->samp, 1, 0);
        r->has_lim = 1;
        qc_mc_set_limit(r->m, qc_limiter_limit_real(r->lim));
    }
    return rc;
}

static void rep_free(rep_state *r)
{
    qc_limiter_free(r->lim);
    r->lim = NULL;
    r->has_lim = 0;
    qc_mc_free(r->m);
    r->m = NULL;
}

static int rep_run(rep_state *r, double *done, double total)
{
    const qc_mc_run_params *p = r->p;
    unsigned stop_on = QC_MC_EV_CYCLE | QC_MC_EV_START;
    if (r->has_lim)
        stop_on |= QC_MC_EV_DEPART;
    double next_tick = INFINITY;
    if (r->has_lim) {
        qc_lim_sample tick = {0, NAN, 0, 0, 0};
        lim_step(r, &tick, &next_tick);
    }
    double warm_mark = p->warmup;
    uint64_t steps = 0;
    for (;;) {
        double t_stop = p->horizon;
        if (next_tick < t_stop)
            t_stop = next_tick;
        if (!r->warm_taken && warm_mark < t_stop)
            t_stop = warm_mark;
        qc_mc_report rep;
        int rc = qc_mc_advance(r->m, t_stop, stop_on, &rep);
        if (rc != 0)
            return rc;
        double t = rep.t;
        if (!r->warm_taken && t >= warm_mark)
            account(r, t);
        if (rep.what & QC_MC_EV_START && (rc = on_start(r, rep.started, t)) != 0)
            return rc;
        if (r->has_lim && (rep.what & QC_MC_EV_DEPART)) {
            qc_lim_sample s = {t, rep.delay, rep.arrival, rep.inflight, 0};
            lim_step(r, &s, &next_tick);
        } else if (r->has_lim && (rep.what & QC_MC_EV_TIME) && t >= next_tick) {
            qc_lim_sample tick = {t, NAN, t, 0, 0};
            lim_step(r, &tick, &next_tick);
        }
        if (rep.what & QC_MC_EV_CYCLE) {
            if ((rc = on_cycle(r, &rep)) != 0)
                return rc;
            account(r, t);
        }
        if (r->oom)
            return QC_ENOMEM;
        if ((++steps & 0xfff) == 0) {
            if (qc_cancel_requested(p->cancel))
                return QC_ECANCELED;
            if (p->progress)
                p->progress(p->progress_ctx, (*done + t / p->horizon) / total);
        }
        if ((rep.what & QC_MC_EV_TIME) && t >= p->horizon)
            break;
    }
    account(r, p->horizon);
    *done += 1;
    return 0;
}

/* ---- summary ---------------------------------------------------------------------- */

/* Per replication figures, [rep][field][class]. */
enum { F_DELAY, F_THR, F_SHED, F_WORST, F_PRIO, F_ADMIT, F_ADELAY, F_DECIDE, F_COUNT };

static void rep_summary(rep_state *r, double *f /* [F_COUNT][K] */, double *worst_rep,
                        int *final_state, double *wx /* [nwin][K], NAN: not admitted */)
{
    const qc_mc_run_params *p = r->p;
    unsigned K = r->K;
    double span = p->horizon - p->warmup;
    *worst_rep = -INFINITY;
    for (unsigned k = 0; k < K; k++) {
        const qc_mc_totals *t = qc_mc_totals_of(r->m, k);
        const qc_mc_totals *w = &r->at_warm[k];
        double n = (double)(t->completions - w->completions);
        double arr = (double)(t->arrivals - w->arrivals);
        f[F_DELAY * K + k] = n > 0 ? (t->delay_sum - w->delay_sum) / n : NAN;
        f[F_THR * K + k] = n / span;
        f[F_SHED * K + k] = arr > 0 ? (double)(t->shed - w->shed) / arr : NAN;
        f[F_PRIO * K + k] = p->cls[k].c.best_effort ? qc_mc_weight(r->m, k)
                            : p->policy.admitter == QC_MC_AUTONOMIC
                                ? qc_adm_priority(&r->adm[k])
                                : p->cls[k].c.priority;
        f[F_ADMIT * K + k] = isfinite(r->t_admit[k]) && p->cls[k].candidate
                                 ? r->t_admit[k] - p->cls[k].c.start
                                 : NAN;
        double td = isfinite(r->t_admit[k]) ? r->t_admit[k] : r->t_reject[k];
        f[F_DECIDE * K + k] = isfinite(td) && p->cls[k].candidate ? td - p->cls[k].c.start : NAN;
        final_state[k] = r->state[k];
        double worst = -INFINITY, asum = 0, an = 0;
        for (size_t j = 0; j < r->nwin; j++)
            wx[j * K + k] = NAN;
        if (r->bounded[k] && !r->rejected[k]) {
            double D = p->cls[k].bound;
            for (size_t j = 0; j < r->nwin; j++) {
                double ws = p->warmup + (double)j * p->window;
                if (r->t_admit[k] > ws || r->wn[j * K + k] == 0)
                    continue;
                double x = (r->wsum[j * K + k] / r->wn[j * K + k] - D) / D;
                wx[j * K + k] = x;
                if (x > worst)
                    worst = x;
                asum += r->wsum[j * K + k];
                an += r->wn[j * K + k];
            }
        }
        f[F_ADELAY * K + k] = an > 0 ? asum / an : NAN;
        f[F_WORST * K + k] = isfinite(worst) ? worst : NAN;
        if (isfinite(worst) && worst > *worst_rep)
            *worst_rep = worst;
    }
    if (!isfinite(*worst_rep))
        *worst_rep = NAN;
}

/* t-interval of the finite values among x[0..n-1] (NAN interval if none). */
static void ci_finite(const double *x, size_t n, size_t stride, double level, double *tmp,
                      qc_ci *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i * stride]))
            tmp[m++] = x[i * stride];
    if (m == 0) {
        *out = (qc_ci){NAN, NAN, NAN, NAN, level, 0};
        return;
    }
    if (m == 1) {
        *out = (qc_ci){tmp[0], NAN, NAN, NAN, level, 1};
        return;
    }
    qc_ci_t(tmp, m, level, out, NULL);
}

/* The largest over classes and windows of the mean excursion across the
 * replications in which the class was admitted throughout the window. */
static void ensemble_worst(const qc_mc_run_params *p, const double *wx, size_t nwin,
                           double *tmp, qc_mc_run_result *res)
{
    unsigned K = p->nclass, R = p->reps;
    unsigned need = R / 2 > 2 ? R / 2 : 2;
    const qc_ci none = {NAN, NAN, NAN, NAN, p->level, 0};
    res->worst_mean = none;
    res->worst_mean_t = NAN;
    res->worst_mean_class = 0;
    for (unsigned k = 0; k < K; k++) {
        qc_mc_run_class_result *c = &res->cls[k];
        c->worst_mean = none;
        c->worst_mean_t = NAN;
        for (size_t j = 0; j < nwin && R >= 2; j++) {
            size_t m = 0;
            for (unsigned rep = 0; rep < R; rep++) {
                double x = wx[((size_t)rep * nwin + j) * K + k];
                if (isfinite(x))
                    tmp[m++] = x;
            }
            qc_ci ci;
            if (m < need || qc_ci_t(tmp, m, p->level, &ci, NULL) != 0)
                continue;
            if (!(ci.mean <= c->worst_mean.mean)) {
                c->worst_mean = ci;
                c->worst_mean_t = p->warmup + (double)j * p->window;
            }
        }
        if (!(c->worst_mean.mean <= res->worst_mean.mean) && !isnan(c->worst_mean.mean)) {
            res->worst_mean = c->worst_mean;
            res->worst_mean_t = c->worst_mean_t;
            res->worst_mean_class = k;
        }
    }
}

static void region(const qc_mc_run_params *p, const qc_mc_class *plant, qc_mc_run_result *res)
{
    double b[QC_MC_MAX_CLASSES], bt[QC_MC_MAX_CLASSES];
    for (unsigned k = 0; k < p->nclass; k++) {
        b[k] = p->cls[k].c.best_effort ? 0 : p->cls[k].bound;
        bt[k] = b[k] * (1 - p->adm.epsilon);
    }
    int ok;
    unsigned worst;
    double margin;
    res->region_bounds = res->region_targets = -1;
    res->region_margin = NAN;
    if (qc_mc_region_admissible(p->discipline, p->nclass, plant, b, &ok, &margin, &worst, NULL) == 0) {
        res->region_bounds = ok;
        res->region_margin = margin;
    }
    if (qc_mc_region_admissible(p->discipline, p->nclass, plant, bt, &ok, &margin, &worst, NULL) == 0)
        res->region_targets = ok;
}

/* Replications on the workers of reps.h. A worker's workspace is a
 * replication state, with its own parameters (whose progress hook reports
 * to the harness) and plant classes (the multi-class server reads them
 * during a run); adm_run_rep writes only the replication's own rows of the
 * per-replication arrays, adm_merge_rep does what depends on order. */
typedef struct adm_state {
    const qc_mc_run_params *p;
    qc_mc_run_result *res;
    qc_mc_class *plant; /* the caller's: the last replication's, as run */
    double *f, *wr;
    int *fs;
    double *wx;
    size_t nwin;
} adm_state;

/* What every worker's state is set up with. */
typedef struct adm_shape {
    unsigned K;
    double cycle_max;
    size_t nwin;
} adm_shape;

static int adm_ws_init(void *ws, const void *params, const void *ctx)
{
    rep_state *r = ws;
    const adm_shape *sh = ctx;
    memset(r, 0, sizeof *r);
    r->p = params;
    r->K = sh->K;
    r->cycle_max = sh->cycle_max;
    r->nwin = sh->nwin;
    r->wsum = malloc(r->nwin * r->K * sizeof *r->wsum);
    r->wn = malloc(r->nwin * r->K * sizeof *r->wn);
    if (!r->wsum || !r->wn) {
        free(r->wsum);
        free(r->wn);
        return QC_ENOMEM;
    }
    return 0;
}

static void adm_ws_fini(void *ws)
{
    rep_state *r = ws;
    rep_free(r); /* a replication run but not merged */
    free(r->series);
    free(r->wsum);
    free(r->wn);
}

static int adm_run_rep(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    adm_state *s = ctx;
    rep_state *r = ws;
    const qc_mc_run_params *p = s->p;
    unsigned K = p->nclass;
    memset(r->wsum, 0, r->nwin * K * sizeof *r->wsum);
    memset(r->wn, 0, r->nwin * K * sizeof *r->wn);
    r->warm_taken = 0;
    r->series_on = rep == 0 && p->series;
    for (unsigned k = 0; k < K; k++)
        r->plant[k] = p->cls[k].c;
    double done = 0;
    int rc = rep_init(r, rep, r->plant, err);
    if (rc == 0)
        rc = rep_run(r, &done, 1.0);
    if (rc != 0) {
        rep_free(r);
        return rc;
    }
    rep_summary(r, &s->f[(size_t)rep * F_COUNT * K], &s->wr[rep], &s->fs[(size_t)rep * K],
                &s->wx[(size_t)rep * s->nwin * K]);
    return 0;
}

static const qc__workers_model adm_workers = {
    sizeof(rep_state), sizeof(qc_mc_run_params), offsetof(rep_state, p),
    offsetof(qc_mc_run_params, progress), offsetof(qc_mc_run_params, progress_ctx),
    adm_ws_init, adm_ws_fini, adm_run_rep};

static int adm_merge_rep(void *ctx, void *wsp, unsigned rep, qc_err *err)
{
    (void)err;
    adm_state *s = ctx;
    rep_state *r = wsp;
    s->res->events += qc_mc_events(r->m);
    s->res->sim_time += s->p->horizon;
    rep_free(r);
    memcpy(s->plant, r->plant, s->p->nclass * sizeof *s->plant);
    if (rep == 0 && r->series) {
        s->res->series = r->series;
        s->res->series_len = r->slen;
        r->series = NULL;
        r->slen = r->scap = 0;
    }
    return 0;
}

int qc_mc_run_params_check(const qc_mc_run_params *p, qc_err *err)
{
    qc_mc_class plant[QC_MC_MAX_CLASSES];
    memset(plant, 0, sizeof plant);
    return check(p, plant, err);
}

int qc_mc_run(const qc_mc_run_params *p, qc_mc_run_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    qc_mc_class plant[QC_MC_MAX_CLASSES];
    memset(plant, 0, sizeof plant);
    int rc = check(p, plant, err);
    if (rc != 0)
        return rc;
    unsigned K = p->nclass, R = p->reps;
    double cycle_max = p->cycle_max;
    if (cycle_max == 0) {
        double es = 0;
        for (unsigned k = 0; k < K; k++) {
            double m = qc_dist_mean(p->cls[k].c.service);
            if (m > es)
                es = m;
        }
        cycle_max = 1000 * es;
    }
    qc__workers wk = {0};
    double *f = calloc((size_t)R * F_COUNT * K, sizeof *f);
    double *wr = calloc(R, sizeof *wr), *tmp = calloc(R, sizeof *tmp);
    int *fs = calloc((size_t)R * K, sizeof *fs);
    size_t nwin = (size_t)ceil((p->horizon - p->warmup) / p->window);
    if (nwin == 0)
        nwin = 1;
    double *wx = malloc((size_t)R * nwin * K * sizeof *wx);
    if (!f || !wr || !tmp || !fs || !wx) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    adm_shape shape = {K, cycle_max, nwin};
    if (qc__workers_init(&wk, qc__workers_count(p->jobs, R, 256), &adm_workers, p, &shape) != 0) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory for %zu windows", nwin);
        goto out;
    }
    adm_state st = {p, res, plant, f, wr, fs, wx, nwin};
    rc = qc__workers_run(&wk, p, p->progress, p->progress_ctx, p->cancel, 0, (double)R,
                         adm_merge_rep, &st, 0, R, err);
    if (rc != 0)
        goto out;
    res->nclass = K;
    res->cycle_max = cycle_max;
    res->be_offered = NAN;
    size_t stride = (size_t)F_COUNT * K;
    for (unsigned k = 0; k < K; k++) {
        qc_mc_run_class_result *c = &res->cls[k];
        ci_finite(&f[F_DELAY * K + k], R, stride, p->level, tmp, &c->delay);
        ci_finite(&f[F_THR * K + k], R, stride, p->level, tmp, &c->throughput);
        ci_finite(&f[F_SHED * K + k], R, stride, p->level, tmp, &c->shed);
        ci_finite(&f[F_WORST * K + k], R, stride, p->level, tmp, &c->worst);
        ci_finite(&f[F_PRIO * K + k], R, stride, p->level, tmp, &c->priority);
        ci_finite(&f[F_ADMIT * K + k], R, stride, p->level, tmp, &c->admit_time);
        ci_finite(&f[F_DECIDE * K + k], R, stride, p->level, tmp, &c->decide_time);
        ci_finite(&f[F_ADELAY * K + k], R, stride, p->level, tmp, &c->admitted_delay);
        for (unsigned rep = 0; rep < R; rep++) {
            int s = fs[(size_t)rep * K + k];
            c->admitted += s == QC_ADM_ADMITTED;
            c->rejected += s == QC_ADM_REJECTED;
            c->undecided += s == QC_ADM_CANDIDATE;
        }
        c->offered = 1 / qc_dist_mean(p->cls[k].c.arrival);
        c->load = qc_dist_mean(p->cls[k].c.service) * c->offered;
        c->min_delay = qc_mc_min_delay(p->discipline, K, plant, k);
        if (p->cls[k].c.best_effort) {
            res->be_throughput = c->throughput;
            res->be_offered = c->offered;
        }
    }
    ci_finite(wr, R, 1, p->level, tmp, &res->worst);
    res->worst_max = NAN;
    for (unsigned rep = 0; rep < R; rep++)
        if (isfinite(wr[rep]) && !(wr[rep] <= res->worst_max))
            res->worst_max = wr[rep];
    ensemble_worst(p, wx, nwin, tmp, res);
    region(p, plant, res);
    rc = 0;
out:
    qc__workers_free(&wk);
    free(f);
    free(wr);
    free(wx);
    free(tmp);
    free(fs);
    if (rc != 0)
        qc_mc_run_result_free(res);
    return rc;
}

void qc_mc_run_result_free(qc_mc_run_result *res)
{
    free(res->series);
    memset(res, 0, sizeof *res);
}

int qc_mc_run_support(const qc_mc_run_params *p, const qc_mc_run_result *r,
                      const qc_mc_policy *pols, unsigned npol, char *why, size_t n)
{
    if (p->reps < 2 || p->cls == NULL)
        return 0;
    double w = p->horizon - p->warmup;
    for (unsigned i = 0; i < npol; i++)
        for (unsigned k = 0; k < p->nclass && k < r[i].nclass; k++) {
            const qc_mc_run_class_result *c = &r[i].cls[k];
            if (p->cls[k].c.best_effort || isnan(c->delay.half) || isnan(c->throughput.mean))
                continue;
            double jobs = c->throughput.mean * w;
            if (!(jobs >= QC_MC_JOBS_MIN)) {
                snprintf(why, n, "class %s completed about %.3g jobs per replication in the "
                         "measured window of %g (policy %s; at least %d are needed for its "
                         "delay's interval to cover)", p->cls[k].c.name, jobs, w,
                         qc_mc_policy_name(pols[i]), QC_MC_JOBS_MIN);
                return 1;
            }
        }
    return 0;
}
