/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp.c: the finite average-cost MDP solver: sparse model, relative value
 * iteration, policy iteration, stationary distributions.
 *
 * Layout. Pairs (state, action) are numbered in state order; pairs of
 * state s are sfirst[s] .. sfirst[s+1]-1, transitions of pair k are
 * pfirst[k] .. pfirst[k+1]-1 in next[] (32-bit state numbers) and prob[].
 * A sweep of value iteration reads these arrays front to back once, plus
 * v at the next states; in a model ordered by level those are near s, so
 * the sweep streams through memory.
 *
 * Invariants the solvers rely on (checked by qc_mdp_finish): every state
 * has at least one action; every row sums to 1 within 1e-9; `band` is the
 * largest |s' - s| of any stored transition; `selfloops` is 1 when every
 * pair has P(s|s,a) > 0.
 *
 * Banded elimination (see qctl/mdp.h for the equations). A(i,j), |i-j| <=
 * b, is stored at band[i W + (j - i + b)], W = 2b + 1. Eliminating the
 * states from the highest index down, state k is removed from the chain
 * censored on the states below it: for i, j < k,
 *     A(i,j) += A(i,k) A(k,j) / S_k,   S_k = sum_{j<k} A(k,j) (+ killing),
 * which creates entries only between neighbours of k, all within b of k
 * and of each other, so the band holds. S_k is the probability of leaving
 * k for a lower state in the censored chain, a sum of non-negative terms:
 * no cancellation (Grassmann, Taksar and Heyman, 1985). S_k = 0 means k
 * cannot go down: for the stationary distribution on a closed class this
 * cannot happen; for the killed chain it means k cannot reach the
 * reference state. */
#include "qctl/mdp.h"
#include "core/names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define UNSEEN UINT32_MAX
#define ROW_TOL 1e-9
#define TIE_REL 1e-12
#define BAND_LIMIT_DEFAULT ((size_t)1 << 24)

struct qc_mdp {
    size_t ns, np, nt;          /* states; pairs and transitions added */
    size_t cap_s, cap_p, cap_t;
    size_t *sfirst;             /* [cap_s + 1] */
    size_t *pfirst;             /* [cap_p + 1] */
    double *cost;               /* [cap_p] */
    int *label;                 /* [cap_p] */
    uint32_t *next;             /* [cap_t] */
    double *prob;               /* [cap_t] */
    size_t cur;                 /* state receiving actions */
    size_t band;
    int selfloops;
    int finished;
    double cost_max;            /* max |cost|: the floor of the tie tolerance */
    qc_err err;                 /* first error while building */
};

struct qc_mdp_ws {
    size_t cap_s, cap_t, band;  /* what it was sized for */
    size_t W;                   /* 2 band + 1, or 0: no band storage */
    double *x, *y;              /* values, Tv */
    double *u, *wv;             /* evaluation: cost and time to ref */
    double *ru, *rw, *kill, *piv;
    double *bandm;
    int uw_warm;                /* u, wv hold a previous evaluation */
    uint32_t *idx, *low, *stk, *fstate, *comp, *map;
    size_t *fedge;
    size_t *rfirst;             /* reverse edges (make_unichain) */
    uint32_t *rsrc, *ract;
    unsigned char *flag;
};

/* ---- building ----------------------------------------------------------- */

qc_mdp *qc_mdp_alloc(size_t nstates, size_t max_pairs, size_t max_trans, qc_err *err)
{
    if (nstates == 0 || nstates >= UNSEEN || max_pairs < nstates) {
        qc_err_set(err, QC_EINVAL, "MDP: %zu states and %zu pairs (need 1 <= states <= pairs)",
                   nstates, max_pairs);
        return NULL;
    }
    qc_mdp *m = calloc(1, sizeof *m);
    if (m == NULL)
        goto oom;
    m->cap_s = nstates;
    m->cap_p = max_pairs;
    m->cap_t = max_trans;
    m->sfirst = malloc((nstates + 1) * sizeof *m->sfirst);
    m->pfirst = malloc((max_pairs + 1) * sizeof *m->pfirst);
    m->cost = malloc(max_pairs * sizeof *m->cost);
    m->label = malloc(max_pairs * sizeof *m->label);
    m->next = malloc((max_trans ? max_trans : 1) * sizeof *m->next);
    m->prob = malloc((max_trans ? max_trans : 1) * sizeof *m->prob);
    if (!m->sfirst || !m->pfirst || !m->cost || !m->label || !m->next || !m->prob)
        goto oom;
    qc_mdp_reset(m, nstates);
    return m;
oom:
    qc_mdp_free(m);
    qc_err_set(err, QC_ENOMEM, "MDP: out of memory for %zu states", nstates);
    return NULL;
}

void qc_mdp_free(qc_mdp *m)
{
    if (m == NULL)
        return;
    free(m->sfirst);
    free(m->pfirst);
    free(m->cost);
    free(m->label);
    free(m->next);
    free(m->prob);
    free(m);
}

int qc_mdp_reset(qc_mdp *m, size_t nstates)
{
    memset(&m->err, 0, sizeof m->err);
    m->np = m->nt = 0;
    m->cur = 0;
    m->band = 0;
    m->selfloops = 0;
    m->finished = 0;
    m->cost_max = 0;
    m->pfirst[0] = 0;
    if (nstates == 0 || nstates > m->cap_s) {
        m->ns = 0;
        return qc_err_set(&m->err, QC_ERANGE, "mdp: %zu states, room for 1 to %zu", nstates,
                          m->cap_s);
    }
    m->ns = nstates;
    return 0;
}

int qc_mdp_add_action(qc_mdp *m, size_t s, int label, double cost)
{
    if (m->err.code)
        return m->err.code;
    if (m->finished)
        return qc_err_set(&m->err, QC_EINVAL, "mdp: action added after finish");
    if (s >= m->ns)
        return qc_err_set(&m->err, QC_ERANGE, "mdp: state %zu out of range (%zu states)", s,
                          m->ns);
    if (m->np == 0 ? s != 0 : (s != m->cur && s != m->cur + 1))
        return qc_err_set(&m->err, QC_EINVAL,
                          "mdp: actions must be added state by state in order: state %zu "
                          "after state %zu",
                          s, m->cur);
    if (m->np == m->cap_p)
        return qc_err_set(&m->err, QC_ERANGE, "mdp: more than the %zu (state, action) pairs "
                          "allocated", m->cap_p);
    if (!isfinite(cost))
        return qc_err_set(&m->err, QC_EINVAL, "mdp: state %zu: cost %g is not finite", s, cost);
    if (m->np == 0 || s != m->cur)
        m->sfirst[s] = m->np;
    m->cur = s;
    m->cost[m->np] = cost;
    if (fabs(cost) > m->cost_max)
        m->cost_max = fabs(cost);
    m->label[m->np] = label;
    m->np++;
    m->pfirst[m->np] = m->nt;
    return 0;
}

int qc_mdp_add_trans(qc_mdp *m, size_t next, double prob)
{
    if (m->err.code)
        return m->err.code;
    if (m->np == 0 || m->finished)
        return qc_err_set(&m->err, QC_EINVAL, "mdp: transition added outside an action");
    if (next >= m->ns)
        return qc_err_set(&m->err, QC_ERANGE, "mdp: state %zu: next state %zu out of range",
                          m->cur, next);
    if (!(prob >= 0 && prob <= 1 + ROW_TOL))
        return qc_err_set(&m->err, QC_EINVAL, "mdp: state %zu: probability %g to %zu is not "
                          "in [0, 1]", m->cur, prob, next);
    if (prob == 0)
        return 0;
    if (m->nt == m->cap_t)
        return qc_err_set(&m->err, QC_ERANGE, "mdp: more than the %zu transitions allocated",
                          m->cap_t);
    m->next[m->nt] = (uint32_t)next;
    m->prob[m->nt] = prob;
    m->nt++;
    m->pfirst[m->np] = m->nt;
    return 0;
}

int qc_mdp_finish(qc_mdp *m, qc_err *err)
{
    if (m->err.code)
        return qc_err_set(err, m->err.code, "%s", m->err.msg);
    if (m->np == 0 || m->cur != m->ns - 1)
        return qc_err_set(err, QC_EINVAL, "mdp: state %zu has no action",
                          m->np == 0 ? (size_t)0 : m->cur + 1);
    m->sfirst[m->ns] = m->np;
    size_t band = 0;
    int loops = 1;
    for (size_t s = 0; s < m->ns; s++) {
        for (size_t k = m->sfirst[s]; k < m->sfirst[s + 1]; k++) {
            double sum = 0;
            int self = 0;
            for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++) {
                size_t t = m->next[j];
                sum += m->prob[j];
                size_t d = t > s ? t - s : s - t;
                if (d > band)
                    band = d;
                if (t == s)
                    self = 1;
            }
            if (!(fabs(sum - 1) <= ROW_TOL))
                return qc_err_set(err, QC_EINVAL,
                                  "mdp: state %zu, action %zu (label %d): probabilities sum "
                                  "to %.17g, not 1",
                                  s, k - m->sfirst[s], m->label[k], sum);
            loops &= self;
        }
    }
    m->band = band;
    m->selfloops = loops;
    m->finished = 1;
    return 0;
}

size_t qc_mdp_nstates(const qc_mdp *m) { return m->ns; }
size_t qc_mdp_npairs(const qc_mdp *m) { return m->np; }
size_t qc_mdp_ntrans(const qc_mdp *m) { return m->nt; }
size_t qc_mdp_bandwidth(const qc_mdp *m) { return m->band; }

unsigned qc_mdp_nactions(const qc_mdp *m, size_t s)
{
    return (unsigned)(m->sfirst[s + 1] - m->sfirst[s]);
}

int qc_mdp_label(const qc_mdp *m, size_t s, unsigned a)
{
    return m->label[m->sfirst[s] + a];
}

double qc_mdp_cost(const qc_mdp *m, size_t s, unsigned a)
{
    return m->cost[m->sfirst[s] + a];
}

static inline double row_dot(const qc_mdp *m, size_t k, const double *v)
{
    double acc = 0;
    for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
        acc += m->prob[j] * v[m->next[j]];
    return acc;
}

double qc_mdp_q(const qc_mdp *m, const double *v, size_t s, unsigned a)
{
    size_t k = m->sfirst[s] + a;
    return m->cost[k] + row_dot(m, k, v);
}

void qc_mdp_foreach_trans(const qc_mdp *m, size_t s, unsigned a,
                          void (*fn)(void *ctx, size_t next, double prob), void *ctx)
{
    size_t k = m->sfirst[s] + a;
    for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
        fn(ctx, m->next[j], m->prob[j]);
}

/* ---- workspace ------------------------------------------------------------ */

void qc_mdp_params_init(qc_mdp_params *o)
{
    memset(o, 0, sizeof *o);
    o->tol = 1e-9;
    o->tau = -1;
    o->max_iter = 1000000;
    o->sweep = QC_MDP_GAUSS_SEIDEL;
    o->eval = QC_MDP_EVAL_AUTO;
    o->eval_tol = 1e-13;
    o->eval_max = 1000000;
    o->ref = 0;
    o->omega = 1.0;
}

void qc_mdp_ws_free(qc_mdp_ws *w)
{
    if (w == NULL)
        return;
    free(w->x);
    free(w->y);
    free(w->u);
    free(w->wv);
    free(w->ru);
    free(w->rw);
    free(w->kill);
    free(w->piv);
    free(w->bandm);
    free(w->idx);
    free(w->low);
    free(w->stk);
    free(w->fstate);
    free(w->comp);
    free(w->map);
    free(w->fedge);
    free(w->flag);
    free(w->rfirst);
    free(w->rsrc);
    free(w->ract);
    free(w);
}

qc_mdp_ws *qc_mdp_ws_alloc(const qc_mdp *m, size_t band_limit, qc_err *err)
{
    if (!m->finished) {
        qc_err_set(err, QC_EINVAL, "MDP workspace: the model is not finished");
        return NULL;
    }
    return qc_mdp_ws_alloc_for(m->ns, m->nt, m->band, band_limit, err);
}

qc_mdp_ws *qc_mdp_ws_alloc_for(size_t S, size_t ntrans, size_t band, size_t band_limit,
                               qc_err *err)
{
    if (S == 0 || S >= UNSEEN) {
        qc_err_set(err, QC_EINVAL, "MDP workspace: %zu states", S);
        return NULL;
    }
    qc_mdp_ws *w = calloc(1, sizeof *w);
    if (w == NULL)
        goto oom;
    w->cap_s = S;
    w->cap_t = ntrans;
    w->band = band;
    if (band_limit == 0)
        band_limit = BAND_LIMIT_DEFAULT;
    size_t W = 2 * band + 1;
    if (W <= band_limit / S)
        w->W = W;
    size_t d = S * sizeof(double), u32 = S * sizeof(uint32_t);
    w->x = malloc(d);
    w->y = malloc(d);
    w->u = calloc(S, sizeof(double));
    w->wv = calloc(S, sizeof(double));
    w->ru = malloc(d);
    w->rw = malloc(d);
    w->kill = malloc(d);
    w->piv = malloc(d);
    w->idx = malloc(u32);
    w->low = malloc(u32);
    w->stk = malloc(u32);
    w->fstate = malloc(u32);
    w->comp = malloc(u32);
    w->map = malloc(u32);
    w->fedge = malloc(S * sizeof(size_t));
    w->flag = malloc(S);
    w->rfirst = malloc((S + 1) * sizeof(size_t));
    w->rsrc = malloc((ntrans ? ntrans : 1) * sizeof(uint32_t));
    w->ract = malloc((ntrans ? ntrans : 1) * sizeof(uint32_t));
    if (w->W)
        w->bandm = malloc(S * w->W * sizeof(double));
    if (!w->x || !w->y || !w->u || !w->wv || !w->ru || !w->rw || !w->kill || !w->piv ||
        !w->idx || !w->low || !w->stk || !w->fstate || !w->comp || !w->map || !w->fedge ||
        !w->flag || !w->rfirst || !w->rsrc || !w->ract || (w->W && !w->bandm))
        goto oom;
    return w;
oom:
    qc_mdp_ws_free(w);
    qc_err_set(err, QC_ENOMEM, "MDP workspace: out of memory for %zu states", S);
    return NULL;
}

static int check_call(const qc_mdp *m, const qc_mdp_ws *w, qc_err *err)
{
    if (!m->finished)
        return qc_err_set(err, QC_EINVAL, "mdp: model not finished");
    if (m->ns > w->cap_s || m->nt > w->cap_t || m->band > w->band)
        return qc_err_set(err, QC_EINVAL, "mdp: workspace too small for this model "
                          "(%zu states, bandwidth %zu)", m->ns, m->band);
    return 0;
}

static int check_policy(const qc_mdp *m, const unsigned *pol, qc_err *err)
{
    for (size_t s = 0; s < m->ns; s++)
        if (pol[s] >= qc_mdp_nactions(m, s))
            return qc_err_set(err, QC_EINVAL, "mdp: policy: state %zu has no action %u "
                              "(%u actions)", s, pol[s], qc_mdp_nactions(m, s));
    return 0;
}

static double pick_tau(const qc_mdp *m, const qc_mdp_params *o)
{
    if (o->tau >= 0 && o->tau < 1)
        return o->tau;
    return m->selfloops ? 0.0 : 0.5;
}

/* Two action values within this of each other are a tie. Relative to the
 * value, with a floor at the model's largest one-step cost rather than at
 * 1: a model whose costs per step are tiny (a removable server at rates of
 * 1e11 after uniformization: 1e-12 per step) would otherwise see every
 * difference as a tie and keep its first policy. */
static inline double tie_eps(const qc_mdp *m, double q)
{
    const double fl = m->cost_max > 0 ? m->cost_max : 1.0;
    return TIE_REL * (fabs(q) > fl ? fabs(q) : fl);
}

/* ---- recurrent class (Tarjan, without recursion) --------------------------- */

/* Strongly connected components of the policy's chain into w->comp;
 * returns their number. */
static uint32_t tarjan(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol)
{
    size_t S = m->ns;
    uint32_t *idx = w->idx, *low = w->low, *stk = w->stk, *fs = w->fstate, *comp = w->comp;
    size_t *fe = w->fedge;
    unsigned char *on = w->flag;
    for (size_t s = 0; s < S; s++) {
        idx[s] = UNSEEN;
        on[s] = 0;
    }
    uint32_t counter = 0, ncomp = 0;
    size_t sp = 0, fp = 0;
    for (size_t root = 0; root < S; root++) {
        if (idx[root] != UNSEEN)
            continue;
        idx[root] = low[root] = counter++;
        stk[sp++] = (uint32_t)root;
        on[root] = 1;
        fs[fp] = (uint32_t)root;
        fe[fp] = m->pfirst[m->sfirst[root] + pol[root]];
        fp++;
        while (fp > 0) {
            uint32_t v = fs[fp - 1];
            size_t end = m->pfirst[m->sfirst[v] + pol[v] + 1];
            if (fe[fp - 1] < end) {
                uint32_t t = m->next[fe[fp - 1]++];
                if (idx[t] == UNSEEN) {
                    idx[t] = low[t] = counter++;
                    stk[sp++] = t;
                    on[t] = 1;
                    fs[fp] = t;
                    fe[fp] = m->pfirst[m->sfirst[t] + pol[t]];
                    fp++;
                } else if (on[t] && idx[t] < low[v]) {
                    low[v] = idx[t];
                }
            } else {
                fp--;
                if (low[v] == idx[v]) {
                    uint32_t x;
                    do {
                        x = stk[--sp];
                        on[x] = 0;
                        comp[x] = ncomp;
                    } while (x != v);
                    ncomp++;
                }
                if (fp > 0 && low[v] < low[fs[fp - 1]])
                    low[fs[fp - 1]] = low[v];
            }
        }
    }
    return ncomp;
}

/* After tarjan: w->flag[c] = 1 for each closed component c (no
 * transition leaves it), else 0. Returns the number of closed ones. */
static size_t mark_closed(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol, uint32_t ncomp)
{
    unsigned char *closed = w->flag;
    const uint32_t *comp = w->comp;
    for (uint32_t c = 0; c < ncomp; c++)
        closed[c] = 1;
    for (size_t s = 0; s < m->ns; s++) {
        size_t k = m->sfirst[s] + pol[s];
        for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
            if (comp[m->next[j]] != comp[s])
                closed[comp[s]] = 0;
    }
    size_t n = 0;
    for (uint32_t c = 0; c < ncomp; c++)
        n += closed[c];
    return n;
}

/* The one closed class of a unichain policy: its component number and
 * lowest state. QC_EINVAL naming two states when there are two. */
static int closed_class(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol, uint32_t *cid,
                        size_t *first, qc_err *err)
{
    uint32_t ncomp = tarjan(m, w, pol);
    mark_closed(m, w, pol, ncomp);
    size_t firsts[2] = {0, 0};
    unsigned nclosed = 0;
    for (size_t s = 0; s < m->ns && nclosed < 2; s++) {
        uint32_t c = w->comp[s];
        if (w->flag[c] == 1) {
            firsts[nclosed++] = s;
            if (nclosed == 1)
                *cid = c;
            w->flag[c] = 2; /* counted */
        }
    }
    if (nclosed != 1)
        return qc_err_set(err, QC_EINVAL,
                          "mdp: the policy's chain is not unichain: states %zu and %zu lie in "
                          "different closed classes",
                          firsts[0], firsts[1]);
    *first = firsts[0];
    return 0;
}

/* ---- stationary distribution ------------------------------------------------ */

#define BA(i, j) band[(i) * W + ((j) + b - (i))]

/* The pivot of state k in banded GTH elimination: s0 (the rate at which
 * k leaves the chain) plus k's rates to the lower states lo..k-1. */
static double band_pivot(const double *band, size_t b, size_t k, size_t lo, double s0)
{
    const size_t W = 2 * b + 1;
    for (size_t j = lo; j < k; j++)
        s0 += BA(k, j);
    return s0;
}

/* Eliminates state k (pivot sk): every lower state i that reaches k
 * takes k's rates to the others in proportion, and, when kill is not
 * NULL, k's rate of leaving the chain and its rewards ru and rw. */
static void band_fold(double *band, size_t b, size_t k, size_t lo, double sk, double *kill,
                      double *ru, double *rw)
{
    const size_t W = 2 * b + 1;
    for (size_t i = lo; i < k; i++) {
        double a = BA(i, k);
        if (a == 0)
            continue;
        double f = a / sk;
        for (size_t j = lo; j < k; j++)
            if (j != i)
                BA(i, j) += f * BA(k, j);
        if (kill) {
            kill[i] += f * kill[k];
            ru[i] += f * ru[k];
            rw[i] += f * rw[k];
        }
    }
}

static int stationary_band(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol, uint32_t cid,
                           double *pi, qc_err *err)
{
    size_t S = m->ns, b = m->band, W = 2 * b + 1;
    double *band = w->bandm, *piv = w->piv, *pk = w->x;
    uint32_t *map = w->map;
    size_t nc = 0;
    for (size_t s = 0; s < S; s++)
        map[s] = w->comp[s] == cid ? (uint32_t)nc++ : UNSEEN;
    memset(band, 0, nc * W * sizeof *band);
    for (size_t s = 0; s < S; s++) {
        if (map[s] == UNSEEN)
            continue;
        size_t i = map[s], k = m->sfirst[s] + pol[s];
        for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++) {
            size_t t = m->next[j];
            if (t != s)
                BA(i, (size_t)map[t]) += m->prob[j];
        }
    }
    for (size_t k = nc; k-- > 1;) {
        size_t lo = k > b ? k - b : 0;
        double sk = band_pivot(band, b, k, lo, 0);
        if (!(sk > 0))
            return qc_err_set(err, QC_EINVAL, "mdp: stationary: recurrent state %zu cannot "
                              "reach lower states (numerical breakdown)", k);
        piv[k] = sk;
        band_fold(band, b, k, lo, sk, NULL, NULL, NULL);
    }
    pk[0] = 1;
    double total = 1;
    for (size_t k = 1; k < nc; k++) {
        size_t lo = k > b ? k - b : 0;
        double acc = 0;
        for (size_t i = lo; i < k; i++)
            acc += pk[i] * BA(i, k);
        pk[k] = acc / piv[k];
        total += pk[k];
    }
    for (size_t s = 0; s < S; s++)
        pi[s] = map[s] == UNSEEN ? 0.0 : pk[map[s]] / total;
    return 0;
}

/* Power iteration on the chain tau I + (1 - tau) P, tau = 1/2, which is
 * aperiodic whatever P is. */
static int stationary_power(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol, uint32_t cid,
                            double *pi, qc_err *err)
{
    size_t S = m->ns, nc = 0;
    double *y = w->y;
    for (size_t s = 0; s < S; s++)
        nc += w->comp[s] == cid;
    /* Start on the class: it is closed, so the mass stays there. */
    for (size_t s = 0; s < S; s++)
        pi[s] = w->comp[s] == cid ? 1.0 / (double)nc : 0.0;
    for (size_t it = 0; it < 10000000; it++) {
        for (size_t s = 0; s < S; s++)
            y[s] = 0.5 * pi[s];
        for (size_t s = 0; s < S; s++) {
            size_t k = m->sfirst[s] + pol[s];
            double ps = 0.5 * pi[s];
            for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
                y[m->next[j]] += ps * m->prob[j];
        }
        double diff = 0, tot = 0;
        for (size_t s = 0; s < S; s++)
            tot += y[s];
        for (size_t s = 0; s < S; s++) {
            y[s] /= tot;
            diff += fabs(y[s] - pi[s]);
            pi[s] = y[s];
        }
        if (diff < 1e-15)
            return 0;
    }
    return qc_err_set(err, QC_ERANGE, "mdp: stationary: power iteration did not converge");
}

int qc_mdp_stationary(const qc_mdp *m, qc_mdp_ws *w, const unsigned *policy, double *pi,
                      qc_err *err)
{
    int rc;
    if ((rc = check_call(m, w, err)) != 0 || (rc = check_policy(m, policy, err)) != 0)
        return rc;
    uint32_t cid;
    size_t first;
    if ((rc = closed_class(m, w, policy, &cid, &first, err)) != 0)
        return rc;
    if (w->W)
        return stationary_band(m, w, policy, cid, pi, err);
    return stationary_power(m, w, policy, cid, pi, err);
}

/* ---- keeping policies unichain -------------------------------------------------- */

/* Policy improvement can produce a policy with two closed classes in a
 * model that is only communicating (every state reachable from every
 * other under some policy), which the unichain evaluation cannot handle.
 * The remedy for communicating models (Puterman, Markov Decision
 * Processes, section 9.5): keep the policy on its closed class C of least
 * gain and, elsewhere, choose actions that lead into C, found by a
 * breadth-first search backwards from C over all actions. The result is
 * unichain with gain g(C), which is no more than the gain of the policy
 * it was improved from (each closed class of an improved policy gains no
 * more). Returns QC_EINVAL when some state cannot reach C under any
 * action (the model is not communicating). *changed is set when the
 * policy was modified. */
static int make_unichain(const qc_mdp *m, qc_mdp_ws *w, unsigned *pol, int *changed,
                         qc_err *err)
{
    size_t S = m->ns;
    *changed = 0;
    uint32_t ncomp = tarjan(m, w, pol);
    if (mark_closed(m, w, pol, ncomp) <= 1)
        return 0;
    /* The least gain among the closed classes. w->flag is per component
     * here and stationary_* do not touch it. */
    double best = INFINITY, *pi = w->ru;
    uint32_t cbest = UNSEEN;
    for (uint32_t c = 0; c < ncomp; c++) {
        if (!w->flag[c])
            continue;
        int rc = w->W ? stationary_band(m, w, pol, c, pi, err)
                      : stationary_power(m, w, pol, c, pi, err);
        if (rc != 0)
            return rc;
        double g = 0;
        for (size_t s = 0; s < S; s++)
            if (w->comp[s] == c)
                g += pi[s] * m->cost[m->sfirst[s] + pol[s]];
        if (g < best) {
            best = g;
            cbest = c;
        }
    }
    /* Reverse edges over all (state, action) pairs. */
    size_t *rf = w->rfirst;
    memset(rf, 0, (S + 1) * sizeof *rf);
    for (size_t k = 0; k < m->np; k++)
        for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
            rf[m->next[j] + 1]++;
    for (size_t s = 0; s < S; s++)
        rf[s + 1] += rf[s];
    size_t *pos = w->fedge;
    for (size_t s = 0; s < S; s++)
        pos[s] = rf[s];
    for (size_t s = 0; s < S; s++) {
        for (size_t k = m->sfirst[s]; k < m->sfirst[s + 1]; k++) {
            for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++) {
                size_t e = pos[m->next[j]]++;
                w->rsrc[e] = (uint32_t)s;
                w->ract[e] = (uint32_t)(k - m->sfirst[s]);
            }
        }
    }
    uint32_t *queue = w->stk, *seen = w->idx;
    size_t head = 0, tail = 0;
    for (size_t s = 0; s < S; s++) {
        seen[s] = w->comp[s] == cbest;
        if (seen[s])
            queue[tail++] = (uint32_t)s;
    }
    while (head < tail) {
        uint32_t t = queue[head++];
        for (size_t e = rf[t]; e < rf[t + 1]; e++) {
            uint32_t s = w->rsrc[e];
            if (seen[s])
                continue;
            seen[s] = 1;
            pol[s] = w->ract[e];
            queue[tail++] = s;
        }
    }
    for (size_t s = 0; s < S; s++)
        if (!seen[s])
            return qc_err_set(err, QC_EINVAL, "mdp: state %zu cannot reach the recurrent class "
                              "of least gain under any action (the model is not "
                              "communicating)", s);
    w->uw_warm = 0;
    *changed = 1;
    return 0;
}

/* ---- policy evaluation --------------------------------------------------------- */

/* u = expected cost, wv = expected steps, until the chain reaches ref;
 * banded GTH elimination of the chain killed at ref. */
static int eval_band(const qc_mdp *m, qc_mdp_ws *w, const unsigned *pol, size_t ref,
                     qc_err *err)
{
    size_t S = m->ns, b = m->band, W = 2 * b + 1;
    double *band = w->bandm, *kill = w->kill, *ru = w->ru, *rw = w->rw, *piv = w->piv;
    double *u = w->u, *wv = w->wv;
    memset(band, 0, S * W * sizeof *band);
    for (size_t s = 0; s < S; s++) {
        kill[s] = 0;
        ru[s] = rw[s] = 0;
        if (s == ref)
            continue;
        size_t k = m->sfirst[s] + pol[s];
        ru[s] = m->cost[k];
        rw[s] = 1;
        for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++) {
            size_t t = m->next[j];
            if (t == s)
                continue;
            if (t == ref)
                kill[s] += m->prob[j];
            else
                BA(s, t) += m->prob[j];
        }
    }
    for (size_t k = S; k-- > 0;) {
        if (k == ref)
            continue;
        size_t lo = k > b ? k - b : 0;
        double sk = band_pivot(band, b, k, lo, kill[k]);
        if (!(sk > 0))
            return qc_err_set(err, QC_EINVAL,
                              "mdp: policy evaluation: state %zu cannot reach the recurrent "
                              "state %zu (the policy is not unichain)",
                              k, ref);
        piv[k] = sk;
        band_fold(band, b, k, lo, sk, kill, ru, rw);
    }
    u[ref] = wv[ref] = 0;
    for (size_t k = 0; k < S; k++) {
        if (k == ref)
            continue;
        size_t lo = k > b ? k - b : 0;
        double su = ru[k], sw = rw[k];
        for (size_t j = lo; j < k; j++) {
            double a = BA(k, j);
            su += a * u[j];
            sw += a * wv[j];
        }
        u[k] = su / piv[k];
        wv[k] = sw / piv[k];
    }
    return 0;
}

/* The same by symmetric Gauss-Seidel sweeps, from the previous solution
 * when there is one. */
static int eval_iter(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, const unsigned *pol,
                     size_t ref, size_t *sweeps, qc_err *err)
{
    size_t S = m->ns;
    double *u = w->u, *wv = w->wv, *den = w->piv;
    for (size_t s = 0; s < S; s++) {
        size_t k = m->sfirst[s] + pol[s];
        double d = 0;
        for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++)
            if (m->next[j] != s)
                d += m->prob[j];
        den[s] = d;
        if (s != ref && !(d > 0))
            return qc_err_set(err, QC_EINVAL, "mdp: policy evaluation: state %zu is absorbing "
                              "(the policy is not unichain)", s);
        if (!w->uw_warm || s == ref)
            u[s] = wv[s] = 0;
    }
    for (size_t it = 0; it < o->eval_max; it++) {
        double du = 0, dw = 0, mu = 1, mw = 1;
        for (int dir = 0; dir < 2; dir++) {
            for (size_t i = 0; i < S; i++) {
                size_t s = dir == 0 ? i : S - 1 - i;
                if (s == ref)
                    continue;
                size_t k = m->sfirst[s] + pol[s];
                double su = m->cost[k], sw = 1;
                for (size_t j = m->pfirst[k]; j < m->pfirst[k + 1]; j++) {
                    size_t t = m->next[j];
                    if (t != s) {
                        su += m->prob[j] * u[t];
                        sw += m->prob[j] * wv[t];
                    }
                }
                su /= den[s];
                sw /= den[s];
                double a = fabs(su - u[s]), c = fabs(sw - wv[s]);
                if (a > du)
                    du = a;
                if (c > dw)
                    dw = c;
                if (fabs(su) > mu)
                    mu = fabs(su);
                if (fabs(sw) > mw)
                    mw = fabs(sw);
                u[s] = su;
                wv[s] = sw;
            }
        }
        *sweeps += 2;
        if (!isfinite(du) || !isfinite(dw))
            break;
        if (du <= o->eval_tol * mu && dw <= o->eval_tol * mw)
            return 0;
    }
    w->uw_warm = 0;
    return qc_err_set(err, QC_ERANGE, "mdp: policy evaluation did not converge in %zu "
                      "Gauss-Seidel sweeps (tolerance %g)", o->eval_max, o->eval_tol);
}

static int evaluate(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, const unsigned *pol,
                    double *gain, double *h, size_t *sweeps, qc_err *err)
{
    uint32_t cid;
    size_t ref;
    int rc = closed_class(m, w, pol, &cid, &ref, err);
    if (rc != 0)
        return rc;
    if (o->ref < m->ns && w->comp[o->ref] == cid)
        ref = o->ref;
    int direct = o->eval == QC_MDP_EVAL_DIRECT || (o->eval == QC_MDP_EVAL_AUTO && w->W);
    if (direct && !w->W)
        return qc_err_set(err, QC_ENOTSUP, "mdp: no room for banded evaluation "
                          "(bandwidth %zu, %zu states)", m->band, m->ns);
    rc = direct ? eval_band(m, w, pol, ref, err) : eval_iter(m, w, o, pol, ref, sweeps, err);
    if (rc != 0)
        return rc;
    w->uw_warm = 1;
    /* One renewal cycle from ref: a step there, then the way back. */
    size_t k = m->sfirst[ref] + pol[ref];
    double g = (m->cost[k] + row_dot(m, k, w->u)) / (1 + row_dot(m, k, w->wv));
    *gain = g;
    if (h)
        for (size_t s = 0; s < m->ns; s++)
            h[s] = w->u[s] - g * w->wv[s];
    return 0;
}

int qc_mdp_evaluate(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o,
                    const unsigned *policy, double *gain, double *h, qc_err *err)
{
    int rc;
    if ((rc = check_call(m, w, err)) != 0 || (rc = check_policy(m, policy, err)) != 0)
        return rc;
    size_t sweeps = 0;
    return evaluate(m, w, o, policy, gain, h, &sweeps, err);
}

/* ---- policy iteration ---------------------------------------------------------- */

int qc_mdp_pi(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, unsigned *policy,
              double *h, qc_mdp_result *res, qc_err *err)
{
    int rc;
    memset(res, 0, sizeof *res);
    if ((rc = check_call(m, w, err)) != 0 || (rc = check_policy(m, policy, err)) != 0)
        return rc;
    w->uw_warm = 0;
    int fixed;
    if ((rc = make_unichain(m, w, policy, &fixed, err)) != 0)
        return rc;
    for (size_t it = 1; it <= o->max_iter; it++) {
        double g;
        if ((rc = evaluate(m, w, o, policy, &g, h, &res->eval_sweeps, err)) != 0) {
            qc_err_prefix(err, "policy iteration step %zu", it);
            return rc;
        }
        res->gain = res->gain_lo = res->gain_hi = g;
        res->iterations = it;
        size_t changed = 0;
        for (size_t s = 0; s < m->ns; s++) {
            size_t k0 = m->sfirst[s], k1 = m->sfirst[s + 1];
            double qcur = m->cost[k0 + policy[s]] + row_dot(m, k0 + policy[s], h);
            double qmin = m->cost[k0] + row_dot(m, k0, h);
            unsigned amin = 0;
            for (size_t k = k0 + 1; k < k1; k++) {
                double q = m->cost[k] + row_dot(m, k, h);
                if (q < qmin - tie_eps(m, qmin)) {
                    qmin = q;
                    amin = (unsigned)(k - k0);
                } else if (q < qmin) {
                    qmin = q;
                }
            }
            if (qcur > qmin + tie_eps(m, qmin) && amin != policy[s]) {
                policy[s] = amin;
                changed++;
            }
        }
        if (changed > 0 && (rc = make_unichain(m, w, policy, &fixed, err)) != 0)
            return rc;
        if (changed == 0) {
            res->converged = 1;
            return 0;
        }
    }
    return qc_err_set(err, QC_ERANGE, "mdp: policy iteration did not settle in %zu steps",
                      o->max_iter);
}

/* ---- relative value iteration -------------------------------------------------- */

/* (T v)(s) for the tau-mixed model and its greedy action. */
static inline double bellman(const qc_mdp *m, const double *v, size_t s, double tau, double sc,
                             unsigned *act)
{
    size_t k0 = m->sfirst[s], k1 = m->sfirst[s + 1];
    double vs = tau * v[s];
    double best = m->cost[k0] + sc * row_dot(m, k0, v) + vs, chosen = best;
    unsigned a = 0;
    for (size_t k = k0 + 1; k < k1; k++) {
        double q = m->cost[k] + sc * row_dot(m, k, v) + vs;
        if (q < chosen - tie_eps(m, chosen)) {
            chosen = q;
            a = (unsigned)(k - k0);
        }
        if (q < best)
            best = q;
    }
    *act = a;
    return best;
}

/* One Jacobi pass: y = T v, the greedy policy and the bounds. */
static void jacobi_pass(const qc_mdp *m, const double *v, double *y, unsigned *pol, double tau,
                        double *lo, double *hi)
{
    double sc = 1 - tau, mn = INFINITY, mx = -INFINITY;
    for (size_t s = 0; s < m->ns; s++) {
        y[s] = bellman(m, v, s, tau, sc, &pol[s]);
        double d = y[s] - v[s];
        if (d < mn)
            mn = d;
        if (d > mx)
            mx = d;
    }
    *lo = mn;
    *hi = mx;
}

/* The fraction of an RVI run done: the span's fall from its first value
 * towards tol, on a log scale (spans fall geometrically), or the sweeps
 * used of max_iter, whichever is further. */
static void rvi_progress(const qc_mdp_params *o, double span0, double span, size_t it)
{
    if (o->progress == NULL)
        return;
    double f = (double)it / (double)o->max_iter;
    if (span0 > o->tol && span > 0 && isfinite(span0) && isfinite(span))
        f = fmax(f, log(span0 / span) / log(span0 / o->tol));
    o->progress(o->progress_ctx, fmin(fmax(f, 0), 1));
}

int qc_mdp_rvi(const qc_mdp *m, qc_mdp_ws *w, const qc_mdp_params *o, double *v,
               unsigned *policy, qc_mdp_result *res, qc_err *err)
{
    double span0 = NAN;
    int rc;
    memset(res, 0, sizeof *res);
    if ((rc = check_call(m, w, err)) != 0)
        return rc;
    size_t S = m->ns;
    if (o->sweep == QC_MDP_JACOBI && o->ref >= S)
        return qc_err_set(err, QC_EINVAL, "mdp: reference state %zu out of range", o->ref);
    if (!(o->tol > 0))
        return qc_err_set(err, QC_EINVAL, "mdp: tolerance %g must be > 0", o->tol);
    double tau = pick_tau(m, o), sc = 1 - tau;
    size_t ref = o->sweep == QC_MDP_JACOBI ? o->ref : 0;
    double *y = w->y, lo = -INFINITY, hi = INFINITY;
    res->tau = tau;
    /* Work on the tau-scale values: h_tau = h / (1 - tau). */
    double r = v[ref];
    for (size_t s = 0; s < S; s++)
        v[s] = (v[s] - r) / sc;
    size_t it = 0;
    int done = 0;
    if (o->sweep == QC_MDP_JACOBI) {
        while (it < o->max_iter) {
            jacobi_pass(m, v, y, policy, tau, &lo, &hi);
            it++;
            if (isnan(span0))
                span0 = hi - lo;
            if ((it & 255) == 0)
                rvi_progress(o, span0, hi - lo, it);
            if (hi - lo <= o->tol) {
                done = 1;
                break;
            }
            double yr = y[ref];
            for (size_t s = 0; s < S; s++)
                v[s] = y[s] - yr;
        }
    } else {
        size_t since = 0;
        while (it < o->max_iter) {
            unsigned a;
            double gk = bellman(m, v, 0, tau, sc, &a) - v[0];
            double delta = 0;
            for (size_t s = 1; s < S; s++) {
                double nv = bellman(m, v, s, tau, sc, &a) - gk;
                nv = v[s] + o->omega * (nv - v[s]);
                double d = fabs(nv - v[s]);
                if (d > delta)
                    delta = d;
                v[s] = nv;
            }
            it++;
            since++;
            if (!isfinite(delta))
                break;
            if (delta <= o->tol || since >= 32) {
                since = 0;
                jacobi_pass(m, v, y, policy, tau, &lo, &hi);
                it++;
                if (isnan(span0))
                    span0 = hi - lo;
                rvi_progress(o, span0, hi - lo, it);
                if (hi - lo <= o->tol) {
                    done = 1;
                    break;
                }
            }
        }
        if (!done)
            jacobi_pass(m, v, y, policy, tau, &lo, &hi);
    }
    r = v[ref];
    for (size_t s = 0; s < S; s++)
        v[s] = sc * (v[s] - r);
    res->gain_lo = lo;
    res->gain_hi = hi;
    res->gain = 0.5 * (lo + hi);
    res->iterations = it;
    res->converged = done;
    if (!done)
        return qc_err_set(err, QC_ERANGE, "mdp: relative value iteration did not reach span "
                          "%g in %zu sweeps (span %g)", o->tol, it, hi - lo);
    return 0;
}

static const char *const mdp_sweep_names[] = {"jacobi", "gauss-seidel"};
QC__NAMES(qc_mdp_sweep, qc_mdp_sweep_name, qc_mdp_sweep_parse, mdp_sweep_names)

static const char *const mdp_eval_names[] = {"auto", "direct", "iterative"};
QC__NAMES(qc_mdp_eval, qc_mdp_eval_name, qc_mdp_eval_parse, mdp_eval_names)
