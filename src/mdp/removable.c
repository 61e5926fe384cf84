/* SPDX-License-Identifier: GPL-3.0-or-later */
/* removable.c: the M/M/1 queue with a removable server and finitely many
 * rates as an average-cost MDP; exact performance of its policies.
 *
 * The chain (qctl/removable.h, docs/energy-mdp.md). State index
 * s = 3 n + status, status OFF 0, SETUP 1, ON 2, levels n = 0..N, and
 * L = lambda + mu_max + alpha. Rows, with "up" = lambda/L when n < N and 0
 * at N (arrivals lost), the rest of each row a self-loop or the status
 * the decision switched to:
 *
 *   (n,OFF) stay off   cost (h n + P_off)/L        up -> (n+1,OFF)      rest -> (n,OFF)
 *   (n,OFF) switch on  cost (h n + P_setup)/L + K   up -> (n+1,SETUP),
 *                                                  alpha/L -> (n,ON)   rest -> (n,SETUP)
 *   (n,SETUP)           cost (h n + P_setup)/L       up -> (n+1,SETUP),
 *                                                  alpha/L -> (n,ON)   rest -> (n,SETUP)
 *   (n,ON) rate i      cost (h n + P_i)/L          up -> (n+1,ON),
 *                                                  mu_i/L -> (n-1,ON)  rest -> (n,ON)
 *   (n,ON) idle        cost (h n + P_idle)/L       up -> (n+1,ON)      rest -> (n,ON)
 *   (n,ON) off         cost (h n + P_off)/L        up -> (n+1,OFF)     rest -> (n,OFF)
 *
 * Rate actions exist for n >= 1 only; idling with jobs is allowed, so
 * that work conservation is something the solver finds, not something
 * the model imposes. A DelayedOff timer adds theta/L from (0,ON) idle to
 * (0,OFF), with L raised by theta.
 *
 * Performance of a policy comes from the stationary distribution pi of
 * its chain: each state's (state, action) pair has a status in force
 * (switch on counts as setup, switch off as off), a power cost rate, a
 * service rate; the switch-on rate is L times the mass of the pairs that
 * switch on, each of which lasts one step. Then E[N] = sum pi n, mean
 * power = sum pi P, throughput = sum pi mu (= lambda (1 - P(n = N))),
 * E[T] = E[N] / throughput by Little's law, and the average cost
 * h E[N] + mean power + K (switch-on rate) equals L sum pi c. */
#include "qctl/removable.h"
#include "core/names.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OFF = QC_SERVER_OFF, SETUP = QC_SERVER_SETUP, ON = QC_SERVER_ON };
#define PH QC_REMOVABLE_PHASES
#define BAND 4 /* largest |s' - s|: (n,OFF) switch on -> (n+1,SETUP) */

static inline size_t sidx(size_t n, int ph)
{
    return PH * n + (size_t)ph;
}

static double fastest(const qc_energy_cost *c)
{
    return c->rate[c->nrates - 1];
}

double qc_removable_unif(double lambda, const qc_energy_cost *c)
{
    return lambda + fastest(c) + c->setup_rate;
}

int qc_removable_check(double lambda, const qc_energy_cost *c, qc_err *err)
{
    if (!(lambda > 0 && isfinite(lambda)))
        return qc_err_set(err, QC_ERANGE, "lambda: arrival rate %g must be > 0", lambda);
    int rc = qc_energy_check(c, err);
    if (rc != 0)
        return rc;
    if (!(c->holding > 0))
        return qc_err_set(err, QC_ERANGE,
                          "holding cost must be > 0: with no cost on waiting, leaving the "
                          "server off forever is optimal and the queue has no steady state");
    double mx = fastest(c);
    if (!(lambda < mx))
        return qc_err_set(err, QC_EUNSTABLE,
                          "lambda = %g >= the fastest rate %g: the queue is unstable under "
                          "every policy",
                          lambda, mx);
    return 0;
}

/* ---- policies ------------------------------------------------------------ */

int qc_removable_policy_init(qc_removable_policy *p, size_t nmax, qc_err *err)
{
    memset(p, 0, sizeof *p);
    p->switch_on = calloc(nmax + 1, 1);
    p->on_action = calloc(nmax + 1, sizeof *p->on_action);
    if (!p->switch_on || !p->on_action) {
        qc_removable_policy_free(p);
        return qc_err_set(err, QC_ENOMEM, "policy of %zu levels: out of memory", nmax + 1);
    }
    p->nmax = nmax;
    return 0;
}

void qc_removable_policy_free(qc_removable_policy *p)
{
    free(p->switch_on);
    free(p->on_action);
    memset(p, 0, sizeof *p);
}

void qc_removable_policy_npolicy(qc_removable_policy *p, const qc_energy_cost *c, size_t k)
{
    int top = (int)c->nrates - 1;
    for (size_t n = 0; n <= p->nmax; n++) {
        p->switch_on[n] = n >= k;
        p->on_action[n] = n == 0 ? QC_REMOVABLE_OFF : top;
    }
    p->timer = 0;
}

void qc_removable_policy_always_on(qc_removable_policy *p, const qc_energy_cost *c)
{
    qc_removable_policy_npolicy(p, c, 0);
    p->on_action[0] = QC_REMOVABLE_IDLE;
}

void qc_removable_policy_delayed_off(qc_removable_policy *p, const qc_energy_cost *c,
                                     double theta)
{
    qc_removable_policy_npolicy(p, c, 1);
    p->on_action[0] = QC_REMOVABLE_IDLE;
    p->timer = theta;
}

int qc_removable_policy_check(const qc_removable_policy *p, const qc_energy_cost *c,
                              qc_err *err)
{
    if (p->nmax < 1 || !p->switch_on || !p->on_action)
        return qc_err_set(err, QC_EINVAL, "policy: empty (need levels 0..N with N >= 1)");
    for (size_t n = 0; n <= p->nmax; n++) {
        int a = p->on_action[n];
        if (a >= (int)c->nrates || a < QC_REMOVABLE_OFF || (n == 0 && a >= 0))
            return qc_err_set(err, QC_EINVAL, "policy: n = %zu: action %d when on is not %s", n,
                              a, n == 0 ? "idle or off" : "a rate index, idle or off");
        if (a == QC_REMOVABLE_OFF && p->switch_on[n])
            return qc_err_set(err, QC_EINVAL, "policy: n = %zu: it switches off when on and "
                              "straight back on when off", n);
    }
    if (!(p->timer >= 0 && isfinite(p->timer)))
        return qc_err_set(err, QC_EINVAL, "policy: timer rate %g must be >= 0", p->timer);
    if (p->timer > 0 && p->on_action[0] != QC_REMOVABLE_IDLE)
        return qc_err_set(err, QC_EINVAL, "policy: a switch-off timer needs the server to idle "
                          "when empty");
    return 0;
}

/* ---- the chain ------------------------------------------------------------- */

typedef struct model {
    double lambda, L, timer;
    const qc_energy_cost *c;
    size_t N;
} model;

/* Adds one (state, action) row: moves at the given rates to the given
 * states, the rest of the probability to `rest`. */
static void add_row(qc_mdp *m, size_t s, int label, double cost, double L, const size_t *to,
                    const double *rate, int k, size_t rest)
{
    qc_mdp_add_action(m, s, label, cost);
    double used = 0;
    for (int i = 0; i < k; i++) {
        if (rate[i] > 0) {
            qc_mdp_add_trans(m, to[i], rate[i] / L);
            used += rate[i] / L;
        }
    }
    qc_mdp_add_trans(m, rest, 1 - used);
}

/* Adds the pair (n, ph) with action label (OFF: 0 stay, 1 switch on;
 * SETUP: 0; ON: rate index, IDLE or OFF). */
static void add_pair(qc_mdp *m, const model *md, size_t n, int ph, int label)
{
    const qc_energy_cost *c = md->c;
    double L = md->L, hold = c->holding * (double)n;
    double up = n < md->N ? md->lambda : 0.0;
    size_t s = sidx(n, ph), nx = n < md->N ? n + 1 : n;
    size_t to[2];
    double r[2];
    if (ph == OFF && label == 0) {
        to[0] = sidx(nx, OFF), r[0] = up;
        add_row(m, s, 0, (hold + c->off_power) / L, L, to, r, 1, sidx(n, OFF));
    } else if (ph == OFF || ph == SETUP) {
        to[0] = sidx(nx, SETUP), r[0] = up;
        to[1] = sidx(n, ON), r[1] = c->setup_rate;
        double k = ph == OFF ? c->switch_cost : 0.0;
        add_row(m, s, ph == OFF ? 1 : 0, (hold + c->setup_power) / L + k, L, to, r, 2,
                sidx(n, SETUP));
    } else if (label >= 0) {
        to[0] = sidx(nx, ON), r[0] = up;
        to[1] = sidx(n - 1, ON), r[1] = c->rate[label];
        add_row(m, s, label, (hold + c->power[label]) / L, L, to, r, 2, s);
    } else if (label == QC_REMOVABLE_IDLE) {
        to[0] = sidx(nx, ON), r[0] = up;
        to[1] = sidx(0, OFF), r[1] = n == 0 ? md->timer : 0.0;
        add_row(m, s, label, (hold + c->idle_power) / L, L, to, r, 2, s);
    } else {
        to[0] = sidx(nx, OFF), r[0] = up;
        add_row(m, s, label, (hold + c->off_power) / L, L, to, r, 1, sidx(n, OFF));
    }
}

int qc_removable_build(qc_mdp *m, double lambda, const qc_energy_cost *c, size_t nmax,
                       qc_err *err)
{
    model md = {lambda, qc_removable_unif(lambda, c), 0.0, c, nmax};
    int rc = qc_mdp_reset(m, PH * (nmax + 1));
    if (rc != 0)
        return qc_err_set(err, rc, "removable: model has no room for %zu levels", nmax + 1);
    for (size_t n = 0; n <= nmax; n++) {
        add_pair(m, &md, n, OFF, 0);
        add_pair(m, &md, n, OFF, 1);
        add_pair(m, &md, n, SETUP, 0);
        if (n >= 1)
            for (size_t i = 0; i < c->nrates; i++)
                add_pair(m, &md, n, ON, (int)i);
        add_pair(m, &md, n, ON, QC_REMOVABLE_IDLE);
        add_pair(m, &md, n, ON, QC_REMOVABLE_OFF);
    }
    return qc_mdp_finish(m, err);
}

/* The chain of one policy: one action per state. */
static int build_policy_chain(qc_mdp *m, double lambda, const qc_energy_cost *c,
                              const qc_removable_policy *p, qc_err *err)
{
    model md = {lambda, qc_removable_unif(lambda, c) + p->timer, p->timer, c, p->nmax};
    int rc = qc_mdp_reset(m, PH * (p->nmax + 1));
    if (rc != 0)
        return qc_err_set(err, rc, "removable: chain has no room for %zu levels", p->nmax + 1);
    for (size_t n = 0; n <= p->nmax; n++) {
        add_pair(m, &md, n, OFF, p->switch_on[n] ? 1 : 0);
        add_pair(m, &md, n, SETUP, 0);
        add_pair(m, &md, n, ON, p->on_action[n]);
    }
    return qc_mdp_finish(m, err);
}

static size_t model_pairs(const qc_energy_cost *c, size_t nmax)
{
    return (c->nrates + 5) * (nmax + 1);
}

void qc_removable_policy_from_mdp(const qc_mdp *m, const unsigned *pol, qc_removable_policy *p)
{
    for (size_t n = 0; n <= p->nmax; n++) {
        p->switch_on[n] = (unsigned char)qc_mdp_label(m, sidx(n, OFF), pol[sidx(n, OFF)]);
        p->on_action[n] = qc_mdp_label(m, sidx(n, ON), pol[sidx(n, ON)]);
    }
    p->timer = 0;
}

/* ---- exact performance ------------------------------------------------------ */

/* Reusable memory for evaluating many policies on one truncation. */
typedef struct evaluator {
    qc_mdp *m;
    qc_mdp_ws *w;
    double *pi;
    unsigned *zero;
    size_t nmax;
} evaluator;

static void ev_free(evaluator *e)
{
    qc_mdp_free(e->m);
    qc_mdp_ws_free(e->w);
    free(e->pi);
    free(e->zero);
    memset(e, 0, sizeof *e);
}

static int ev_init(evaluator *e, size_t nmax, qc_err *err)
{
    memset(e, 0, sizeof *e);
    size_t S = PH * (nmax + 1);
    e->nmax = nmax;
    if ((e->m = qc_mdp_alloc(S, S, 3 * S, err)) == NULL ||
        (e->w = qc_mdp_ws_alloc_for(S, 3 * S, BAND, 0, err)) == NULL) {
        ev_free(e);
        return err && err->code ? err->code : QC_ENOMEM;
    }
    e->pi = malloc(S * sizeof *e->pi);
    e->zero = calloc(S, sizeof *e->zero);
    if (!e->pi || !e->zero) {
        ev_free(e);
        return qc_err_set(err, QC_ENOMEM, "removable: out of memory for %zu levels", nmax + 1);
    }
    return 0;
}

static int ev_run(evaluator *e, double lambda, const qc_energy_cost *c,
                  const qc_removable_policy *p, qc_removable_perf *out, qc_err *err)
{
    int rc;
    if ((rc = qc_removable_policy_check(p, c, err)) != 0)
        return rc;
    if (p->nmax != e->nmax)
        return qc_err_set(err, QC_EINVAL, "removable: policy on %zu levels, evaluator on %zu",
                          p->nmax + 1, e->nmax + 1);
    if ((rc = build_policy_chain(e->m, lambda, c, p, err)) != 0)
        return rc;
    if ((rc = qc_mdp_stationary(e->m, e->w, e->zero, e->pi, err)) != 0)
        return rc;
    double L = qc_removable_unif(lambda, c) + p->timer;
    double en = 0, pw = 0, thr = 0, sw = 0, setup = 0, off = 0, idle = 0, serve = 0, top = 0;
    for (size_t n = 0; n <= p->nmax; n++) {
        for (int ph = 0; ph < PH; ph++) {
            size_t s = sidx(n, ph);
            double q = e->pi[s];
            int lab = qc_mdp_label(e->m, s, 0);
            double power;
            en += q * (double)n;
            if (n == p->nmax)
                top += q;
            if ((ph == OFF && lab == 0) || (ph == ON && lab == QC_REMOVABLE_OFF)) {
                power = c->off_power;
                off += q;
            } else if (ph == OFF || ph == SETUP) {
                power = c->setup_power;
                setup += q;
                if (ph == OFF)
                    sw += q;
            } else if (lab == QC_REMOVABLE_IDLE) {
                power = c->idle_power;
                idle += q;
            } else {
                power = c->power[lab];
                thr += q * c->rate[lab];
                serve += q;
            }
            pw += q * power;
        }
    }
    memset(out, 0, sizeof *out);
    out->switch_on_rate = L * sw;
    out->throughput = thr;
    out->blocking = top;
    out->holding_cost = c->holding * en;
    out->power_cost = pw;
    out->switching_cost = c->switch_cost * out->switch_on_rate;
    out->frac_off = off;
    out->frac_idle = idle;
    out->frac_serving = serve;
    int a = p->on_action[p->nmax];
    if (top == 0)
        out->tail_mass = 0;
    else if (a >= 0 && c->rate[a] > lambda)
        out->tail_mass = top * (lambda / c->rate[a]) / (1 - lambda / c->rate[a]);
    else
        out->tail_mass = INFINITY;
    qc_energy_report *r = &out->e;
    r->mean_jobs = en;
    r->mean_response = thr > 0 ? en / thr : INFINITY;
    r->mean_power = pw;
    r->energy_per_job = thr > 0 ? pw / thr : INFINITY;
    r->switch_ons_per_hour = 3600 * out->switch_on_rate;
    r->frac_setup = setup;
    r->average_cost = out->holding_cost + pw + out->switching_cost;
    return 0;
}

int qc_removable_evaluate(double lambda, const qc_energy_cost *c,
                          const qc_removable_policy *pol, qc_removable_perf *out, qc_err *err)
{
    int rc = qc_removable_check(lambda, c, err);
    if (rc != 0)
        return rc;
    if ((rc = qc_removable_policy_check(pol, c, err)) != 0)
        return rc;
    evaluator e;
    if ((rc = ev_init(&e, pol->nmax, err)) != 0)
        return rc;
    rc = ev_run(&e, lambda, c, pol, out, err);
    ev_free(&e);
    return rc;
}

/* ---- structure ---------------------------------------------------------------- */

void qc_removable_structure_check(const qc_removable_policy *p, size_t upto,
                                  qc_removable_structure *st)
{
    if (upto > p->nmax)
        upto = p->nmax;
    memset(st, 0, sizeof *st);
    st->upto = upto;
    st->boundary = -1;
    st->violation[0] = st->violation[1] = st->violation[2] = -1;
    st->threshold_n = -1;
    st->off_when_idle = p->on_action[0] == QC_REMOVABLE_OFF;
    for (size_t n = 1; n <= upto && st->violation[0] < 0; n++)
        if (p->on_action[n] < 0)
            st->violation[0] = (long)n;
    for (size_t n = 0; n <= upto; n++) {
        if (p->switch_on[n] && st->threshold_n < 0)
            st->threshold_n = (long)n;
        if (!p->switch_on[n] && st->threshold_n >= 0 && st->violation[1] < 0)
            st->violation[1] = (long)n;
    }
    int last = -1;
    for (size_t n = 1; n <= upto && st->violation[2] < 0; n++) {
        int a = p->on_action[n];
        if (a < 0)
            continue;
        if (a < last)
            st->violation[2] = (long)n;
        last = a;
    }
    st->work_conserving = st->violation[0] < 0;
    st->threshold = st->threshold_n >= 0 && st->violation[1] < 0;
    st->monotone_rate = st->violation[2] < 0;
}

/* ---- solving ---------------------------------------------------------------------- */

void qc_removable_params_init(qc_removable_params *p)
{
    memset(p, 0, sizeof *p);
    p->tol = 1e-9;
    p->tail_tol = 1e-8;
    p->max_states = 3000000;
    p->method = QC_REMOVABLE_BOTH;
    p->sweep = QC_MDP_GAUSS_SEIDEL;
    p->max_iter = 200000;
    p->baselines = 1;
}

void qc_removable_result_free(qc_removable_result *r)
{
    qc_removable_policy_free(&r->policy);
    memset(r, 0, sizeof *r);
}

/* Memory of one truncation: the full MDP and the solver arrays. */
typedef struct level_ws {
    qc_mdp *m;
    qc_mdp_ws *w;
    unsigned *pol, *pol2;
    double *h, *v;
} level_ws;

static void lw_free(level_ws *l)
{
    qc_mdp_free(l->m);
    qc_mdp_ws_free(l->w);
    free(l->pol);
    free(l->pol2);
    free(l->h);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int lw_init(level_ws *l, double lambda, const qc_energy_cost *c, size_t nmax,
                   qc_err *err)
{
    memset(l, 0, sizeof *l);
    size_t S = PH * (nmax + 1), P = model_pairs(c, nmax);
    if ((l->m = qc_mdp_alloc(S, P, 3 * P, err)) == NULL)
        return err && err->code ? err->code : QC_ENOMEM;
    l->pol = malloc(S * sizeof *l->pol);
    l->pol2 = malloc(S * sizeof *l->pol2);
    l->h = malloc(S * sizeof *l->h);
    l->v = malloc(S * sizeof *l->v);
    if (!l->pol || !l->pol2 || !l->h || !l->v) {
        lw_free(l);
        return qc_err_set(err, QC_ENOMEM, "removable: out of memory for %zu states", S);
    }
    int rc = qc_removable_build(l->m, lambda, c, nmax, err);
    if (rc == 0 && (l->w = qc_mdp_ws_alloc(l->m, 0, err)) == NULL)
        rc = err && err->code ? err->code : QC_ENOMEM;
    if (rc != 0)
        lw_free(l);
    return rc;
}

/* The always-on policy as MDP action numbers (see qc_removable_build). */
static void mdp_always_on(const qc_energy_cost *c, size_t nmax, unsigned *pol)
{
    for (size_t n = 0; n <= nmax; n++) {
        pol[sidx(n, OFF)] = 1;
        pol[sidx(n, SETUP)] = 0;
        pol[sidx(n, ON)] = n == 0 ? 0 : (unsigned)(c->nrates - 1);
    }
}

static int check_params(const qc_removable_params *p, qc_err *err)
{
    int rc = qc_removable_check(p->lambda, &p->cost, err);
    if (rc != 0)
        return rc;
    if (!(p->tol > 0 && p->tol < 1))
        return qc_err_set(err, QC_ERANGE, "tol: %g is not in (0, 1)", p->tol);
    if (!(p->tail_tol >= 0 && p->tail_tol < 1))
        return qc_err_set(err, QC_ERANGE, "tail tolerance %g is not in [0, 1)", p->tail_tol);
    if (p->method < QC_REMOVABLE_RVI || p->method > QC_REMOVABLE_BOTH)
        return qc_err_set(err, QC_EINVAL, "method: %d is not rvi, pi or both", (int)p->method);
    if (p->levels == 0 && p->max_states < PH * 17)
        return qc_err_set(err, QC_ERANGE, "max states: %zu is below the smallest truncation "
                          "(%d states)", p->max_states, PH * 17);
    if (p->levels > 0 && p->levels > (size_t)UINT32_MAX / PH - 1)
        return qc_err_set(err, QC_ERANGE, "levels: %zu is too many", p->levels);
    if (p->max_iter < 1)
        return qc_err_set(err, QC_ERANGE, "max iterations must be >= 1");
    return 0;
}

static void set_baseline(qc_removable_baseline *b, const char *name, const char *param_name,
                         double param)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    b->param_name = param_name;
    b->param = param;
}

static void run_baselines(evaluator *e, const qc_removable_params *p, qc_removable_result *r,
                          qc_removable_policy *tmp, qc_err *err)
{
    const qc_energy_cost *c = &p->cost;
    qc_removable_baseline *b = r->baseline;
    set_baseline(&b[QC_RB_ALWAYS_ON], "always on", "rate", fastest(c));
    qc_removable_policy_always_on(tmp, c);
    ev_run(e, p->lambda, c, tmp, &b[QC_RB_ALWAYS_ON].perf, err);

    set_baseline(&b[QC_RB_OFF_IDLE], "switch off when idle", "N", 1);
    qc_removable_policy_npolicy(tmp, c, 1);
    ev_run(e, p->lambda, c, tmp, &b[QC_RB_OFF_IDLE].perf, err);

    /* N-policy: its cost is unimodal in N in the cases known in closed
     * form (a switching term falling like 1/N, a holding term rising like
     * N); search N = 1, 2, ... until N is twice the best plus 10, or half
     * the truncation. */
    b[QC_RB_NPOLICY] = b[QC_RB_OFF_IDLE];
    b[QC_RB_NPOLICY].name = "N-policy, best N";
    size_t best = 1;
    for (size_t k = 2; k <= r->nmax / 2 && k <= 2 * best + 10; k++) {
        qc_removable_perf pf;
        qc_removable_policy_npolicy(tmp, c, k);
        if (ev_run(e, p->lambda, c, tmp, &pf, err) != 0)
            break;
        if (pf.e.average_cost < b[QC_RB_NPOLICY].perf.e.average_cost) {
            b[QC_RB_NPOLICY].perf = pf;
            b[QC_RB_NPOLICY].param = (double)k;
            best = k;
        }
    }

    /* DelayedOff: theta = lambda 10^(j/10), j = -40..30. */
    set_baseline(&b[QC_RB_DELAYED_OFF], "DelayedOff, best timer", "theta", NAN);
    b[QC_RB_DELAYED_OFF].perf.e.average_cost = INFINITY;
    for (int j = -40; j <= 30; j++) {
        double th = p->lambda * pow(10.0, j / 10.0);
        qc_removable_perf pf;
        qc_removable_policy_delayed_off(tmp, c, th);
        if (ev_run(e, p->lambda, c, tmp, &pf, err) != 0)
            continue;
        if (pf.e.average_cost < b[QC_RB_DELAYED_OFF].perf.e.average_cost) {
            b[QC_RB_DELAYED_OFF].perf = pf;
            b[QC_RB_DELAYED_OFF].param = th;
        }
    }
    r->have_baselines = 1;
}

/* Compares the RVI and PI policies at every state: a difference counts as
 * a tie when the two actions' Q values under PI's relative values differ
 * by at most tie (per step). */
static void compare_policies(const qc_mdp *m, const unsigned *rvi, const unsigned *pi,
                             const double *h, double tie, qc_removable_result *r)
{
    r->policy_diffs = r->policy_ties = 0;
    for (size_t s = 0; s < qc_mdp_nstates(m); s++) {
        if (rvi[s] == pi[s])
            continue;
        r->policy_diffs++;
        double d = qc_mdp_q(m, h, s, rvi[s]) - qc_mdp_q(m, h, s, pi[s]);
        if (fabs(d) <= tie)
            r->policy_ties++;
    }
}

/* The structure on the levels whose decisions do not depend on where the
 * chain is cut: solve again with 2N levels and stop the checks at the
 * first n that decides differently. */
static int check_structure(const qc_removable_params *p, qc_removable_result *r, qc_err *err)
{
    const qc_energy_cost *c = &p->cost;
    size_t N = r->nmax, N2 = 2 * N;
    long boundary = -2;
    if (PH * (N2 + 1) <= (p->levels ? PH * (N2 + 1) : p->max_states)) {
        level_ws lw;
        qc_removable_policy p2;
        int rc = lw_init(&lw, p->lambda, c, N2, err);
        if (rc != 0)
            return rc;
        if ((rc = qc_removable_policy_init(&p2, N2, err)) != 0) {
            lw_free(&lw);
            return rc;
        }
        qc_mdp_params o;
        qc_mdp_params_init(&o);
        qc_mdp_result res;
        mdp_always_on(c, N2, lw.pol);
        rc = qc_mdp_pi(lw.m, lw.w, &o, lw.pol, lw.h, &res, err);
        if (rc == 0) {
            qc_removable_policy_from_mdp(lw.m, lw.pol, &p2);
            boundary = -1;
            for (size_t n = 0; n <= N && boundary < 0; n++)
                if (p2.switch_on[n] != r->policy.switch_on[n] ||
                    p2.on_action[n] != r->policy.on_action[n])
                    boundary = (long)n;
        }
        qc_removable_policy_free(&p2);
        lw_free(&lw);
        if (rc != 0)
            return rc;
    }
    size_t upto = boundary > 0 ? (size_t)boundary - 1 : N;
    qc_removable_structure_check(&r->policy, upto, &r->structure);
    r->structure.boundary = boundary;
    return 0;
}

int qc_removable_solve(const qc_removable_params *p, qc_removable_result *r, qc_err *err)
{
    memset(r, 0, sizeof *r);
    r->gain_pi = r->gain_lo = r->gain_hi = NAN;
    int rc = check_params(p, err);
    if (rc != 0)
        return rc;
    const qc_energy_cost *c = &p->cost;
    double L = qc_removable_unif(p->lambda, c);
    r->unif = L;
    size_t maxn = p->levels ? p->levels : p->max_states / PH - 1, N;
    if (p->levels) {
        N = p->levels;
    } else {
        double rho = p->lambda / fastest(c);
        double n0 = p->tail_tol > 0 ? ceil(log(p->tail_tol) / log(rho)) : 16;
        N = n0 > 16 ? (n0 < (double)maxn ? (size_t)n0 : maxn) : 16;
    }
    qc_mdp_params o;
    qc_mdp_params_init(&o);
    o.max_iter = p->max_iter;
    o.sweep = p->sweep;
    o.progress = p->progress;
    o.progress_ctx = p->progress_ctx;
    int use_pi = (p->method & QC_REMOVABLE_PI) != 0;
    level_ws lw = {0};
    evaluator ev = {0};
    qc_removable_policy tmp = {0};
    for (;;) {
        r->rounds++;
        if ((rc = lw_init(&lw, p->lambda, c, N, err)) != 0)
            goto fail;
        size_t S = qc_mdp_nstates(lw.m);
        r->nmax = N;
        r->states = S;
        r->pairs = qc_mdp_npairs(lw.m);
        r->transitions = qc_mdp_ntrans(lw.m);
        /* The gain of always-on sets the scale of the tolerance; its
         * relative values set the rounding floor: T v - v is a difference
         * of numbers of size max |h|, known only to about eps max |h|, so
         * a span below a few times that cannot be certified. */
        double g_ao, hmax = 0;
        mdp_always_on(c, N, lw.pol);
        if ((rc = qc_mdp_evaluate(lw.m, lw.w, &o, lw.pol, &g_ao, lw.h, err)) != 0)
            goto fail;
        for (size_t s = 0; s < S; s++)
            hmax = fmax(hmax, fabs(lw.h[s]));
        o.tol = fmax(p->tol * g_ao, 64 * DBL_EPSILON * hmax);
        r->tol_abs = o.tol * L;
        r->tol_floored = o.tol > p->tol * g_ao;
        qc_mdp_result res;
        if (use_pi) {
            if ((rc = qc_mdp_pi(lw.m, lw.w, &o, lw.pol, lw.h, &res, err)) != 0)
                goto fail;
            r->gain_pi = L * res.gain;
            r->pi_iterations = res.iterations;
            r->gain = r->gain_pi;
        } else {
            memset(lw.v, 0, S * sizeof *lw.v);
            /* Stopping at max_iter still gives valid bounds and a greedy
             * policy: reported, with rvi_converged = 0. */
            rc = qc_mdp_rvi(lw.m, lw.w, &o, lw.v, lw.pol, &res, err);
            if (rc != 0 && rc != QC_ERANGE)
                goto fail;
            rc = 0;
            r->gain_lo = L * res.gain_lo;
            r->gain_hi = L * res.gain_hi;
            r->gain = L * res.gain;
            r->rvi_iterations = res.iterations;
            r->rvi_converged = res.converged;
            r->rvi_tau = res.tau;
        }
        qc_removable_policy_free(&r->policy);
        qc_removable_policy_free(&tmp);
        ev_free(&ev);
        if ((rc = qc_removable_policy_init(&r->policy, N, err)) != 0 ||
            (rc = qc_removable_policy_init(&tmp, N, err)) != 0 || (rc = ev_init(&ev, N, err)) != 0)
            goto fail;
        qc_removable_policy_from_mdp(lw.m, lw.pol, &r->policy);
        if ((rc = ev_run(&ev, p->lambda, c, &r->policy, &r->perf, err)) != 0)
            goto fail;
        r->tail_ok = r->perf.blocking <= p->tail_tol && r->perf.tail_mass <= p->tail_tol;
        if (p->levels || r->tail_ok || N >= maxn)
            break;
        lw_free(&lw);
        N = 2 * N < maxn ? 2 * N : maxn;
    }
    if (p->method == QC_REMOVABLE_BOTH) {
        qc_mdp_result res;
        memset(lw.v, 0, r->states * sizeof *lw.v);
        rc = qc_mdp_rvi(lw.m, lw.w, &o, lw.v, lw.pol2, &res, err);
        if (rc != 0 && rc != QC_ERANGE)
            goto fail;
        rc = 0;
        r->gain_lo = L * res.gain_lo;
        r->gain_hi = L * res.gain_hi;
        r->rvi_iterations = res.iterations;
        r->rvi_converged = res.converged;
        r->rvi_tau = res.tau;
        compare_policies(lw.m, lw.pol2, lw.pol, lw.h, 10 * o.tol, r);
        double slack = 1e-12 * fabs(r->gain_pi);
        r->bounds_contain_pi = r->gain_pi >= r->gain_lo - slack && r->gain_pi <= r->gain_hi + slack;
        r->policies_agree = res.converged && r->policy_diffs == r->policy_ties &&
                            r->bounds_contain_pi;
    }
    if ((rc = check_structure(p, r, err)) != 0)
        goto fail;
    if (p->baselines)
        run_baselines(&ev, p, r, &tmp, err);
    lw_free(&lw);
    ev_free(&ev);
    qc_removable_policy_free(&tmp);
    return 0;
fail:
    lw_free(&lw);
    ev_free(&ev);
    qc_removable_policy_free(&tmp);
    qc_removable_result_free(r);
    return rc;
}

/* Indexed by method (0 is none). */
static const char *const removable_method_names[] = {NULL, "rvi", "pi", "both"};
QC__NAMES(qc_removable_method, qc_removable_method_name,
          qc_removable_method_parse, removable_method_names)

static const char *const baseline_names[QC_RB_COUNT] = {"always-on", "off-idle", "npolicy",
    "delayed-off"};
QC__NAMES(qc_removable_baseline_kind, qc_removable_baseline_kind_name,
          qc_removable_baseline_kind_parse, baseline_names)
