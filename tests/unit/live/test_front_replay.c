/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_front_replay.c: one trace of arrivals, completions, departures of
 * clients and control ticks, replayed through the admission front
 * (qctl/front.h) by two plants, which must take the same decisions in the
 * same order at the same instants:
 *
 *   sim    a discrete-event simulation on the core event queue (qc_evq),
 *          as a model runs the front: one event for the earliest deadline
 *          (qc_front_next_deadline), a worklist of decisions;
 *   proxy  the proxy's own core (src/live/pcore.c, what `qctl proxy` runs
 *          on libuv) on a fake clock with no sockets: a timer per waiting
 *          request at the deadline the front gave, per admitted request
 *          at its completion, the control timer.
 *
 * The backends are the trace's: request i takes svc[i] (1 + n / 4) at a
 * backend, n the requests in flight when it was admitted (a server of
 * about 4 workers, so the latency rises with the load and every
 * controller moves both ways); some admitted requests find no backend and
 * give their slot back at once, some clients leave while they wait, and
 * some leave while a decision on them is pending behind the one being
 * carried out (it must be void: an admission's slot given back, a place
 * in the waiting room let go).
 * Every limiter kind, both disciplines, both sampler cadences for AIMD;
 * and the TCP gate's front (gate.c: no limiter, one FIFO class, the
 * gate's own controller setting the front's cap at each control
 * interval, qc_front_set_cap / qc__pcore_set_cap), its caps following a
 * schedule that both plants read (0 among them: nobody let in).
 *
 * The comparison can fail: the simulation fed differently (the whole delay
 * instead of the time at the backend, no control tick, every request in
 * one class) must differ from the proxy. Mutants of the proxy's core:
 * scripts/replay_mutants.sh re-runs them (listed in docs/live.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/pcore.h"
#include "qctl/evq.h"
#include "qctl/front.h"

#define NREQ 1500
#define TICK 0.1
#define HORIZON 6.0
#define MAXLOG (4 * NREQ)

/* ---- the trace ------------------------------------------------------------ */

typedef struct trace {
    double arr[NREQ], svc[NREQ], gone[NREQ]; /* gone: the client leaves then (INF: never) */
    unsigned cls[NREQ];
    int bounce[NREQ]; /* admitted, it finds no backend: its slot back at once (a
                         quarter of them: enough that a cascade runs while an
                         event's other decisions are pending, which the order
                         of pcore's ring must keep) */
    int kick[NREQ];   /* while a decision on it is carried out, the client of
                         the next decision pending leaves (as a proxy that,
                         writing one answer, finds another client closed) */
} trace;

/* Phases: 1 s at 60/s, 1.5 s at 3x a 4-worker backend's capacity (class
 * 0 a quarter of it), 1 s light, 1 s at 2x, light to the end. Gaps from an
 * LCG with an irrational offset so that no two events coincide. */
static void make_trace(trace *T)
{
    uint64_t s = 20260;
    double t = 0.00731;
    for (int i = 0; i < NREQ; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(s >> 11) / 9007199254740992.0;
        double rate = t < 1 ? 60 : t < 2.5 ? 600 : t < 3.5 ? 60 : t < 4.5 ? 400 : 60;
        t += -log(1 - u * 0.999) / rate + 1e-7 * sqrt(2.0);
        T->arr[i] = t;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        u = (double)(s >> 11) / 9007199254740992.0;
        T->svc[i] = 0.008 + 0.008 * u;
        T->cls[i] = (s >> 7) % 4 == 0 ? 0 : 1;
        T->bounce[i] = (s >> 13) % 4 == 0;
        T->gone[i] = (s >> 17) % 41 == 0 ? t + 0.02 + 0.03 * u : INFINITY;
        T->kick[i] = (s >> 23) % 6 == 0;
    }
}

/* ---- the log of decisions --------------------------------------------------- */

typedef struct rec {
    double t;
    uint64_t id;
    int act, reason;
    unsigned cls;
} rec;

typedef struct log_ {
    rec r[MAXLOG];
    size_t n;
} log_;

static void note(log_ *L, double t, const qc_front_decision *d)
{
    assert_true(L->n < MAXLOG);
    L->r[L->n++] = (rec){t, d->id, (int)d->act, (int)d->reason, d->cls};
}

/* ---- configurations ---------------------------------------------------- */

typedef struct conf {
    qc_limiter_algo algo;
    qc_front_discipline disc;
    unsigned every;
    int gate; /* the TCP gate's front: no limiter, one class, the cap at each tick */
} conf;

/* The gate's caps, one per control interval (as its controller would set
 * them: rising, falling below the sessions in, 0), the first at time 0. */
static uint32_t gate_cap(unsigned tick)
{
    static const uint32_t caps[] = {4, 2, 0, 6, 3, 8, 1, 5};
    return caps[tick % (sizeof caps / sizeof caps[0])];
}

static qc_front *make_front(const conf *C)
{
    qc_front_params p;
    qc_front_params_init(&p, C->algo);
    p.classes = 2;
    p.queue = 64;
    p.discipline = C->disc;
    p.sample_every = C->every;
    p.codel.interval = TICK;
    p.limiter.max_limit = 200;
    if (C->algo == QC_LIMITER_FIXED)
        p.limiter.initial_limit = 4;
    if (C->algo == QC_LIMITER_ADMISSION) {
        p.limiter.initial_limit = 4;
        p.limiter.adm_min_completions = 10;
        p.bound[0] = 0.05;
        p.bound[1] = 0; /* best effort */
    } else {
        p.bound[0] = 0.2; /* class 0's wait deadline; class 1 the queue_timeout */
    }
    if (C->gate) { /* gate.c's gate_front */
        p.control = 0;
        p.work_conserving = 0;
        p.classes = 1;
        p.queue_timeout = 0.2;
    }
    qc_err err = {0};
    qc_front *f = qc_front_alloc(&p, 0, &err);
    if (!f)
        fail_msg("front: %s", err.msg);
    if (C->gate) { /* the limit set at the start (the room is empty: no decision) */
        qc_front_decision *d = calloc(qc_front_max_decisions(f), sizeof *d);
        assert_int_equal(qc_front_set_cap(f, 0, gate_cap(0), d, qc_front_max_decisions(f)), 0);
        free(d);
    }
    return f;
}

/* in flight at a backend: what sets a request's time there */
static double backend_time(const trace *T, int i, unsigned inflight)
{
    return T->svc[i] * (1 + inflight / 4.0);
}

/* ---- the simulation ------------------------------------------------------- */

/* How the simulation feeds the front (0: as it must; the others are
 * faults the comparison must catch). */
enum { SIM_OK = 0, SIM_FEED_DELAY, SIM_NO_TICK, SIM_ONE_CLASS };

enum { EV_ARRIVE, EV_DEPART, EV_TICK, EV_DEADLINE, EV_GONE };

typedef struct sim {
    const trace *T;
    qc_front *f;
    qc_evq *ev;
    log_ *L;
    int fault;
    int gate;
    unsigned ticks;
    unsigned inflight;
    qc_front_token tok[NREQ];
    qc_front_handle h[NREQ];
    int state[NREQ]; /* 0 not yet, 1 waiting, 2 in service, 3 over */
    int64_t dl_ev;   /* the deadline event pending (-1: none) */
    double dl_at;
    qc_front_decision *work;
    size_t nwork, cap;
    qc_front_decision *buf;
    unsigned kicked[4]; /* departures with a decision pending, by its act (0: none pending) */
} sim;

static void sim_push(sim *S, const qc_front_decision *d, int n)
{
    for (int i = 0; i < n; i++) {
        assert_true(S->nwork < S->cap);
        S->work[S->nwork++] = d[i];
    }
}

/* Carries out the worklist in order; what it leads to joins its end. */
/* The client of the first decision pending after work[k] (not on request
 * i, not void) leaves: that decision is void (an admission gives its slot
 * back when its turn comes; a wait lets its place go now). */
static void sim_kick(sim *S, size_t k, int i)
{
    size_t m = k + 1;
    while (m < S->nwork && (S->work[m].id == 0 || (int)S->work[m].id - 1 == i))
        m++;
    if (m >= S->nwork) {
        S->kicked[0]++;
        return;
    }
    qc_front_decision *p = &S->work[m];
    int j = (int)p->id - 1;
    S->kicked[p->act + 1]++;
    if (S->state[j] == 1)
        qc_front_cancel(S->f, S->h[j]);
    if (p->act == QC_FRONT_WAIT)
        qc_front_cancel(S->f, p->handle);
    S->state[j] = 3;
    p->id = 0;
}

static void sim_run(sim *S, double now)
{
    for (size_t k = 0; k < S->nwork; k++) {
        qc_front_decision d = S->work[k];
        if (d.id == 0) { /* its client left: an admission's slot back */
            if (d.act == QC_FRONT_ADMIT)
                sim_push(S, S->buf,
                         qc_front_done(S->f, now, &d.tok, NAN, QC_FRONT_IGNORE, S->buf, S->cap));
            continue;
        }
        int i = (int)d.id - 1;
        if (S->T->kick[i])
            sim_kick(S, k, i);
        d.cls = S->gate ? 0 : S->T->cls[i]; /* the class the trace gave (SIM_ONE_CLASS told the front otherwise) */
        note(S->L, now, &d);
        if (d.act == QC_FRONT_WAIT) {
            S->state[i] = 1;
            S->h[i] = d.handle;
        } else if (d.act == QC_FRONT_REFUSE) {
            S->state[i] = 3;
        } else if (S->T->bounce[i]) { /* no backend: the slot back at once */
            S->state[i] = 3;
            int n = qc_front_done(S->f, now, &d.tok, NAN, QC_FRONT_IGNORE, S->buf, S->cap);
            sim_push(S, S->buf, n);
        } else {
            S->state[i] = 2;
            S->tok[i] = d.tok;
            double svc = backend_time(S->T, i, S->inflight);
            S->inflight++;
            qc_evq_push(S->ev, now + svc, EV_DEPART, i);
        }
    }
    S->nwork = 0;
    /* one event for the earliest deadline */
    double next = qc_front_next_deadline(S->f);
    if (next != S->dl_at) {
        if (S->dl_ev >= 0)
            qc_evq_cancel(S->ev, S->dl_ev);
        S->dl_ev = isfinite(next) ? qc_evq_push(S->ev, next, EV_DEADLINE, 0) : -1;
        S->dl_at = next;
    }
}

static void run_sim(const trace *T, const conf *C, int fault, log_ *L, unsigned *kicked)
{
    sim S = {.T = T, .L = L, .fault = fault, .gate = C->gate, .dl_ev = -1, .dl_at = INFINITY};
    S.f = make_front(C);
    S.cap = qc_front_max_decisions(S.f) * 4;
    S.work = calloc(S.cap, sizeof *S.work);
    S.buf = calloc(S.cap, sizeof *S.buf);
    S.ev = qc_evq_alloc(NREQ * 4, NULL);
    assert_non_null(S.ev);
    for (int i = 0; i < NREQ; i++) {
        qc_evq_push(S.ev, T->arr[i], EV_ARRIVE, i);
        if (isfinite(T->gone[i]))
            qc_evq_push(S.ev, T->gone[i], EV_GONE, i);
    }
    if (fault != SIM_NO_TICK)
        qc_evq_push(S.ev, TICK, EV_TICK, 0);
    qc_event e;
    while (qc_evq_pop(S.ev, &e) == 0 && e.t < HORIZON) {
        int i = (int)e.data;
        int n = 0;
        switch (e.type) {
        case EV_ARRIVE:
            n = qc_front_arrive_n(S.f, e.t, fault == SIM_ONE_CLASS || C->gate ? 0 : T->cls[i],
                                  (uint64_t)i + 1, S.buf, S.cap);
            break;
        case EV_DEPART: {
            S.inflight--;
            S.state[i] = 3;
            double svc = fault == SIM_FEED_DELAY ? e.t - S.tok[i].t_arrive : e.t - S.tok[i].t_admit;
            n = qc_front_done(S.f, e.t, &S.tok[i], svc, QC_FRONT_OK, S.buf, S.cap);
            break;
        }
        case EV_TICK:
            if (C->gate) /* the gate's controller: a new cap */
                n = qc_front_set_cap(S.f, e.t, gate_cap(++S.ticks), S.buf, S.cap);
            else
                n = qc_front_tick(S.f, e.t, S.buf, S.cap);
            qc_evq_push(S.ev, e.t + TICK, EV_TICK, 0);
            break;
        case EV_DEADLINE:
            S.dl_ev = -1;
            S.dl_at = INFINITY;
            n = qc_front_expire(S.f, e.t, S.buf, S.cap);
            break;
        case EV_GONE:
            if (S.state[i] == 1 && qc_front_cancel(S.f, S.h[i]) == 0)
                S.state[i] = 3;
            break;
        }
        sim_push(&S, S.buf, n);
        sim_run(&S, e.t);
    }
    if (kicked)
        memcpy(kicked, S.kicked, sizeof S.kicked);
    qc_evq_free(S.ev);
    free(S.work);
    free(S.buf);
    qc_front_free(S.f);
}

/* ---- the proxy's core on a fake clock ------------------------------------- */

typedef struct fake {
    const trace *T;
    qc__pcore core;
    qc_front *f;
    log_ *L;
    double now;
    unsigned inflight;
    /* timers, as the proxy arms them: a waiting request's deadline, an
     * admitted one's completion (INF: none) */
    double t_deadline[NREQ], t_done[NREQ];
    int waiting[NREQ];
    qc_front_handle h[NREQ];
    qc_front_token tok[NREQ];
    int gone_done[NREQ];
    unsigned ticks;
    unsigned kicked[4];
} fake;

/* The client of the next decision pending in the core's ring (not on i,
 * not void) leaves, as the proxy's qc__proxy_forget tells the core. */
static void fake_kick(fake *F, int i)
{
    const qc__pcore *c = &F->core;
    const qc_front_decision *p = NULL;
    for (size_t m = 0; m < c->n && !p; m++) {
        const qc_front_decision *q = &c->pending[(c->head + m) % c->ndec];
        if (q->id != 0 && (int)q->id - 1 != i)
            p = q;
    }
    if (!p) {
        F->kicked[0]++;
        return;
    }
    int j = (int)p->id - 1;
    F->kicked[p->act + 1]++;
    F->gone_done[j] = 1;
    qc_front_handle h = F->waiting[j] ? F->h[j] : 0;
    F->waiting[j] = 0;
    F->t_deadline[j] = INFINITY;
    qc__pcore_gone(&F->core, (uint64_t)j + 1, h);
}

static void fake_apply(void *ctx, const qc_front_decision *d)
{
    fake *F = ctx;
    int i = (int)d->id - 1;
    if (F->T->kick[i])
        fake_kick(F, i);
    note(F->L, F->now, d);
    if (F->waiting[i]) { /* off the waiting list, its timer stopped */
        F->waiting[i] = 0;
        F->t_deadline[i] = INFINITY;
    }
    switch (d->act) {
    case QC_FRONT_WAIT:
        F->waiting[i] = 1;
        F->h[i] = d->handle;
        F->t_deadline[i] = d->deadline;
        break;
    case QC_FRONT_REFUSE:
        break;
    case QC_FRONT_ADMIT:
        if (F->T->bounce[i]) { /* forward finds no backend */
            qc_front_token t = d->tok;
            qc__pcore_done(&F->core, F->now, &t, NAN, QC_FRONT_IGNORE);
            break;
        }
        F->tok[i] = d->tok;
        F->t_done[i] = F->now + backend_time(F->T, i, F->inflight);
        F->inflight++;
        break;
    }
}

static void run_proxy(const trace *T, const conf *C, log_ *L, unsigned *kicked)
{
    fake *F = calloc(1, sizeof *F);
    assert_non_null(F);
    F->T = T;
    F->L = L;
    F->f = make_front(C);
    assert_int_equal(qc__pcore_init(&F->core, F->f, fake_apply, F), 0);
    for (int i = 0; i < NREQ; i++)
        F->t_deadline[i] = F->t_done[i] = INFINITY;
    int next_arr = 0;
    double next_tick = TICK;
    for (;;) {
        /* the earliest timer or arrival (a linear scan: a test) */
        double t = next_arr < NREQ ? T->arr[next_arr] : INFINITY;
        int what = 0, who = next_arr;
        if (next_tick < t) {
            t = next_tick;
            what = 1;
        }
        for (int i = 0; i < next_arr; i++) {
            if (F->t_done[i] < t) {
                t = F->t_done[i];
                what = 2;
                who = i;
            }
            if (F->t_deadline[i] < t) {
                t = F->t_deadline[i];
                what = 3;
                who = i;
            }
            if (!F->gone_done[i] && T->gone[i] < t) {
                t = T->gone[i];
                what = 4;
                who = i;
            }
        }
        if (!(t < HORIZON))
            break;
        F->now = t;
        switch (what) {
        case 0:
            qc__pcore_arrive(&F->core, t, C->gate ? 0 : T->cls[who], (uint64_t)who + 1);
            next_arr++;
            break;
        case 1:
            if (C->gate) /* as gate.c's set_limit */
                qc__pcore_set_cap(&F->core, t, gate_cap(++F->ticks));
            else
                qc__pcore_tick(&F->core, t);
            next_tick += TICK;
            break;
        case 2:
            F->t_done[who] = INFINITY;
            F->inflight--;
            qc__pcore_done(&F->core, t, &F->tok[who], t - F->tok[who].t_admit, QC_FRONT_OK);
            break;
        case 3: /* the deadline timer: the front refuses what is past its deadline */
            F->t_deadline[who] = INFINITY;
            qc__pcore_expire(&F->core, t);
            break;
        case 4: /* the client closes */
            F->gone_done[who] = 1;
            if (F->waiting[who]) {
                F->waiting[who] = 0;
                F->t_deadline[who] = INFINITY;
                qc__pcore_gone(&F->core, (uint64_t)who + 1, F->h[who]);
            } else {
                qc__pcore_gone(&F->core, (uint64_t)who + 1, 0);
            }
            break;
        }
    }
    if (kicked)
        memcpy(kicked, F->kicked, sizeof F->kicked);
    qc__pcore_free(&F->core);
    qc_front_free(F->f);
    free(F);
}

/* ---- the comparison ------------------------------------------------------ */

/* Index of the first decision that differs (n: none; the shorter's length
 * when one is a prefix of the other). */
static size_t first_difference(const log_ *a, const log_ *b)
{
    size_t n = a->n < b->n ? a->n : b->n;
    for (size_t i = 0; i < n; i++)
        if (a->r[i].t != b->r[i].t || a->r[i].id != b->r[i].id || a->r[i].act != b->r[i].act ||
            a->r[i].reason != b->r[i].reason || a->r[i].cls != b->r[i].cls)
            return i;
    return a->n == b->n ? (size_t)-1 : n;
}

static const conf CONFS[] = {
    {QC_LIMITER_FIXED, QC_FRONT_FIFO, 0, 0},      {QC_LIMITER_FIXED, QC_FRONT_CODEL, 0, 0},
    {QC_LIMITER_MAXUSERS, QC_FRONT_FIFO, 0, 0},   {QC_LIMITER_MAXUSERS, QC_FRONT_CODEL, 0, 0},
    {QC_LIMITER_AIMD, QC_FRONT_FIFO, 0, 0},       {QC_LIMITER_AIMD, QC_FRONT_CODEL, 0, 0},
    {QC_LIMITER_AIMD, QC_FRONT_CODEL, 1, 0},      {QC_LIMITER_VEGAS, QC_FRONT_FIFO, 0, 0},
    {QC_LIMITER_VEGAS, QC_FRONT_CODEL, 0, 0},     {QC_LIMITER_GRADIENT2, QC_FRONT_FIFO, 0, 0},
    {QC_LIMITER_GRADIENT2, QC_FRONT_CODEL, 0, 0}, {QC_LIMITER_ENVOY, QC_FRONT_FIFO, 0, 0},
    {QC_LIMITER_ENVOY, QC_FRONT_CODEL, 0, 0},     {QC_LIMITER_ADMISSION, QC_FRONT_FIFO, 0, 0},
    {QC_LIMITER_ADMISSION, QC_FRONT_CODEL, 0, 0},
    {QC_LIMITER_FIXED, QC_FRONT_FIFO, 0, 1}, /* the gate */
};

static trace TR;
static log_ LS, LP;

static int counts(const log_ *L, int act, int reason)
{
    int n = 0;
    for (size_t i = 0; i < L->n; i++)
        n += L->r[i].act == act && (act != QC_FRONT_REFUSE || L->r[i].reason == reason);
    return n;
}

static void test_same_decisions(void **state)
{
    (void)state;
    make_trace(&TR);
    unsigned kick_admit = 0, kick_wait = 0;
    for (size_t k = 0; k < sizeof CONFS / sizeof CONFS[0]; k++) {
        const conf *C = &CONFS[k];
        LS.n = LP.n = 0;
        unsigned ks[4], kp[4];
        run_sim(&TR, C, SIM_OK, &LS, ks);
        run_proxy(&TR, C, &LP, kp);
        size_t d = first_difference(&LS, &LP);
        if (d != (size_t)-1)
            fail_msg("%s/%s/every %u: decision %zu of %zu/%zu differs: sim t=%.9f id %llu act %d "
                     "reason %d, proxy t=%.9f id %llu act %d reason %d",
                     C->gate ? "gate" : qc_limiter_algo_name(C->algo), C->disc ? "codel" : "fifo",
                     C->every, d,
                     LS.n, LP.n, d < LS.n ? LS.r[d].t : NAN,
                     d < LS.n ? (unsigned long long)LS.r[d].id : 0ULL, d < LS.n ? LS.r[d].act : -1,
                     d < LS.n ? LS.r[d].reason : -1, d < LP.n ? LP.r[d].t : NAN,
                     d < LP.n ? (unsigned long long)LP.r[d].id : 0ULL, d < LP.n ? LP.r[d].act : -1,
                     d < LP.n ? LP.r[d].reason : -1);
        /* the trace exercises the rules: requests wait and are admitted
         * after waiting, and some are refused */
        int admits = counts(&LS, QC_FRONT_ADMIT, 0), waits = counts(&LS, QC_FRONT_WAIT, 0);
        int refused = 0;
        for (int r = 1; r < QC_FRONT_REASONS; r++)
            refused += counts(&LS, QC_FRONT_REFUSE, r);
        print_message("%-9s %-5s every %u%s: %zu decisions, %d admitted, %d waited, %d refused "
                      "(full %d, deadline %d, standing %d, rejected %d)\n",
                      C->gate ? "gate" : qc_limiter_algo_name(C->algo), C->disc ? "codel" : "fifo",
                      C->every, C->gate ? " (cap by tick)" : "", LS.n, admits, waits, refused, counts(&LS, QC_FRONT_REFUSE, QC_FRONT_FULL),
                      counts(&LS, QC_FRONT_REFUSE, QC_FRONT_DEADLINE),
                      counts(&LS, QC_FRONT_REFUSE, QC_FRONT_STANDING),
                      counts(&LS, QC_FRONT_REFUSE, QC_FRONT_REJECTED));
        assert_true(admits > NREQ / 3);
        assert_true(waits > 0);
        /* clients left with a decision pending on them, in both plants
         * alike (none pending, an admission, a wait, a refusal) */
        print_message("          departures with a decision pending: admit %u, wait %u, "
                      "refuse %u (none pending %u)\n", ks[1 + QC_FRONT_ADMIT],
                      ks[1 + QC_FRONT_WAIT], ks[1 + QC_FRONT_REFUSE], ks[0]);
        assert_memory_equal(ks, kp, sizeof ks);
        kick_admit += ks[1 + QC_FRONT_ADMIT];
        kick_wait += ks[1 + QC_FRONT_WAIT];
    }
    /* the step is taken: departures with an admission, and with a wait,
     * pending on them */
    assert_true(kick_admit > 10);
    assert_true(kick_wait > 10);
}

/* The comparison can fail: a simulation fed otherwise differs. */
static void test_faults_caught(void **state)
{
    (void)state;
    make_trace(&TR);
    static const struct {
        int fault;
        conf c;
        const char *what;
    } cases[] = {
        {SIM_FEED_DELAY, {QC_LIMITER_GRADIENT2, QC_FRONT_CODEL, 0, 0}, "Gradient2 fed the whole delay"},
        {SIM_FEED_DELAY, {QC_LIMITER_VEGAS, QC_FRONT_FIFO, 1, 0}, "Vegas per completion fed the whole delay"},
        {SIM_FEED_DELAY, {QC_LIMITER_MAXUSERS, QC_FRONT_CODEL, 0, 0}, "MaxUsers fed the whole delay"},
        {SIM_NO_TICK, {QC_LIMITER_AIMD, QC_FRONT_FIFO, 0, 0}, "AIMD never stepped"},
        /* the trace confirms no overload under a fixed limit (three growing
         * windows in a row): Envoy's is the CoDel that judges in it */
        {SIM_NO_TICK, {QC_LIMITER_ENVOY, QC_FRONT_CODEL, 0, 0}, "CoDel never ticked"},
        {SIM_ONE_CLASS, {QC_LIMITER_FIXED, QC_FRONT_FIFO, 0, 0}, "classes ignored"},
        {SIM_ONE_CLASS, {QC_LIMITER_ADMISSION, QC_FRONT_FIFO, 0, 0}, "SFQ weights ignored"},
        {SIM_NO_TICK, {QC_LIMITER_FIXED, QC_FRONT_FIFO, 0, 1}, "the gate's cap never changed"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        LS.n = LP.n = 0;
        run_sim(&TR, &cases[k].c, cases[k].fault, &LS, NULL);
        run_proxy(&TR, &cases[k].c, &LP, NULL);
        size_t d = first_difference(&LS, &LP);
        print_message("%s: first difference at decision %zu\n", cases[k].what, d);
        assert_true(d != (size_t)-1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_decisions),
        cmocka_unit_test(test_faults_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
