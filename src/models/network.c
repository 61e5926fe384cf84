/* SPDX-License-Identifier: GPL-3.0-or-later */
/* network.c: a network of queues on the simulation kernel
 * (qctl/network.h).
 *
 * One general event loop: every event is in the kernel's heap, typed by
 * what happens (an open class's arrival, a service completion, a
 * customer's patience or timeout running out, a think time ending, the
 * processor-sharing station's next completion, a chunk's end, a control
 * sample). Customers are slots of a pool that grows by doubling and is
 * reused, so after the first moments no event allocates.
 *
 * Invariants between events, per station: n customers present; FCFS and
 * priority: min(n, c) in service (a list, searched for the one to preempt),
 * the others in one FIFO list per priority level (FCFS: one level);
 * PS: all n share the c servers at rate min(1, c/n) each, run in virtual
 * time V (a customer arriving at V0 with requirement S finishes when
 * V = V0 + S; the earliest tag has the station's one pending event);
 * IS: every customer has its own completion event.
 *
 * Time integrals (number present, busy servers) are kept per station and
 * class and brought up to date at the station's every change (touch), so
 * that an event costs O(classes), never O(stations). They are written
 * into the chunk in force; at a chunk's end every station is touched, so
 * that a chunk's areas are exactly its own.
 *
 * One open class through FCFS stations with none of the general loop's
 * hooks runs instead on a station-specialized path (fast_*: a FIFO ring
 * and a sorted vector per station, no event list), chosen at setup, with
 * the same draws in the same order and so the same results; a chain of
 * single-server stations of that kind (a tandem) on the departure
 * recursion, customer by customer with no event order at all (tandem_*).
 *
 * Output analysis: units.h's, on summaries of chunk ranges computed here
 * (the chunked-run harness of reps.h fits one station; a network has a
 * row of sums per station and class). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/controller.h"
#include "qctl/network.h"
#include "qctl/rng.h"
#include "qctl/sim.h"
#include "reps.h"
#include "units.h"

#define NCH QC_NET_CHUNKS
#define NSECT 16 /* groups of replications for the percentiles' sections */
#define NIL UINT32_MAX
/* h_dep / ps_h of a departure held by a kernel source, not the heap */
#define HSRC (-2)

enum { EV_ARR = 1, EV_DEP, EV_REN, EV_TMO, EV_THINK, EV_PSDEP, EV_CHUNK, EV_CTL };
enum { J_FREE, J_WAIT, J_SVC, J_THINK, J_GATE, J_BLOCKED };

/* per station and class sums of a chunk (field-major: F * nsc + sc) */
enum { F_ARR, F_BLK, F_BALK, F_REN, F_TMO, F_DONE, F_RESP, F_WAIT, F_AN, F_AB, F_COUNT };
/* per chain */
enum { G_DONE, G_LOST, G_RESP, G_AREA, G_COUNT };
/* per chunk: t_start, t_end, exits */
enum { H_T0, H_T1, H_EXITS, H_COUNT };

typedef struct job {
    double t_net, t_adm, t_st, svc0, rem, dep_t, tag;
    int64_t h_dep, h_ren, h_tmo;
    uint32_t prev, next; /* a waiting list, the in-service list or PS's */
    uint32_t bprev, bnext; /* blocked: the list of those waiting for to_st */
    uint16_t cls, chain, st, to_st, to_cl;
    uint8_t state;
} job;

typedef struct list {
    uint32_t head, tail;
} list;

typedef struct strt {
    uint64_t n;
    unsigned busy;
    double tlast;
    list wait[QC_NET_MAX_CLASSES]; /* by level */
    list insvc;                    /* FCFS, priority; PS: all present */
    list blocked;                  /* served upstream, waiting for a place
                                      here (blocking after service) */
    double V, vlast;
    int64_t ps_h;
    uint32_t src_job; /* the customer whose departure the source holds */
} strt;

/* The station-specialized path (fast_eligible): one open class through
 * FCFS stations with no balking, timeout, patience nor blocking after
 * service (a capacity, with loss, is allowed), run in customers. A
 * customer is then two or four numbers, not a record: those waiting are
 * a FIFO ring of (entry time, arrival time here), those in service (at
 * most c) a small vector of (departure, entry, arrival here, service);
 * the next event is the least of the next arrival and each station's
 * earliest departure, with no event list. It draws what the general
 * loop draws, from the same streams, in the same order (a service time
 * at the start rather than at the arrival, which for FCFS is the same
 * sequence), and adds into the same sums in the same order: for the
 * same seed its results are the general loop's to the last bit, save
 * where two events fall at the same instant (then the order of a tie
 * may differ; never with continuous distributions). */
#define FAST_MAXC 16
typedef struct fwait {
    double t_net, t_st;
} fwait;
typedef struct fsvc {
    double dep, t_net, t_st, svc;
} fsvc;
typedef struct fst {
    fwait *q; /* ring of qcap (a power of 2) */
    uint32_t qcap, qhead, qn;
    unsigned busy; /* sv[0 .. busy), latest departure first: the last the next */
    unsigned servers;
    uint64_t cap;
    uint64_t done; /* completions so far: F_DONE at a chunk's ends */
    fsvc sv[FAST_MAXC];
} fst;

typedef struct run {
    const qc_network_params *p;
    const qc_network *net;
    qc_sim sim;
    unsigned S, C, nsc;
    job *jobs;
    size_t njobs, jcap;
    uint32_t jfree;
    strt st[QC_NET_MAX_STATIONS];
    int level[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES]; /* level of (i, k) */
    uint64_t nsc_n[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    double nsc_b[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    uint64_t nnet[QC_NET_MAX_CLASSES];
    double tnet;
    /* randomness */
    qc_rng rarr[QC_NET_MAX_CLASSES], rsvc[QC_NET_MAX_STATIONS], rroute, rpat, rthink;
    qc_arrivals_gen garr[QC_NET_MAX_CLASSES];
    qc_sampler ssvc[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    /* kernel sources: each open class's next arrival, then the next
     * departure of single-server and PS stations (one pending at most,
     * replaced or idled, never searched for in the heap) */
    int arr_src[QC_NET_MAX_CLASSES];  /* source index or -1 */
    int dep_src[QC_NET_MAX_STATIONS]; /* source index or -1 */
    uint8_t src_dep[QC_SIM_MAX_SOURCES]; /* 1: a departure source */
    uint16_t src_id[QC_SIM_MAX_SOURCES]; /* its class or station */
    /* routing rows and entries without a draw: the one certain hop */
    int one_st[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES]; /* -2: draw; -1: out */
    int one_cl[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
    int entry_one[QC_NET_MAX_CLASSES]; /* station, or -1: draw */
    int bas_any; /* a station blocks after service */
    uint8_t plain[QC_NET_MAX_STATIONS]; /* no balking, capacity, timeout, patience */
    uint8_t plain_but_capacity[QC_NET_MAX_STATIONS]; /* no balking, timeout, patience */
    /* the station-specialized path */
    int fast;
    uint64_t fleft, fbatch; /* exits to the next that matters, of a batch of */
    size_t goff; /* F_COUNT * nsc: where the chains' sums start */
    int hist_on; /* in the window's last half: in_window && k in [NCH/2, NCH) */
    fst *fs;                          /* [S] */
    double fnt[QC_NET_MAX_STATIONS]; /* each station's next departure */
    /* the tandem recursion (tandem_eligible): the chunks in force in time
     * order, segment s from seg_t0[s] (seg_t0[nseg] = INFINITY) */
    int tandem;
    unsigned nseg;
    double seg_t0[NCH + 3];
    int seg_k[NCH + 2];
    /* chunks */
    size_t stride;
    double *chunks; /* (NCH + 1) x stride: the last one the warm-up's scratch */
    double *cur;
    int k;          /* chunk in force (NCH: warm-up) */
    int in_window;
    uint64_t exits, warm_exits, next_exits;
    double win_start;
    int done;
    qc_hist *hist; /* [C + 1]: end-to-end response, last half of the window */
    /* the front's MaxUsers loop */
    qc_mu_ctl ctl;
    double limit, ctl_sum_limit;
    uint64_t ctl_samples, admitted, peak;
    list gate;
    double ctl_resp;
    uint64_t ctl_done;
    double behind_sum; /* in the window: time behind the front, served */
    uint64_t behind_n;
    uint64_t events_at_check;
    qc__reps_worker *w;
    int err;
} run;

/* ---- sums of a chunk ---------------------------------------------------- */

static inline double *SCF(run *r, double *ch, int f, unsigned sc)
{
    return ch + (size_t)f * r->nsc + sc;
}
static inline double *GF(run *r, double *ch, int f, unsigned k)
{
    return ch + (size_t)F_COUNT * r->nsc + (size_t)f * r->C + k;
}
static inline double *HF(run *r, double *ch, int f)
{
    return ch + (size_t)F_COUNT * r->nsc + (size_t)G_COUNT * r->C + f;
}

/* ---- the customer pool -------------------------------------------------- */

static uint32_t job_new(run *r)
{
    if (r->jfree == NIL) {
        size_t cap = r->jcap ? 2 * r->jcap : 1024;
        if (cap > NIL - 1)
            return NIL;
        job *nj = realloc(r->jobs, cap * sizeof *nj);
        if (nj == NULL)
            return NIL;
        r->jobs = nj;
        for (size_t j = cap; j-- > r->jcap;) {
            nj[j].state = J_FREE;
            nj[j].next = r->jfree;
            r->jfree = (uint32_t)j;
        }
        r->jcap = cap;
    }
    uint32_t j = r->jfree;
    r->jfree = r->jobs[j].next;
    job *b = &r->jobs[j];
    b->h_dep = b->h_ren = b->h_tmo = -1;
    b->prev = b->next = NIL;
    return j;
}

static void job_free(run *r, uint32_t j)
{
    r->jobs[j].state = J_FREE;
    r->jobs[j].next = r->jfree;
    r->jfree = j;
}

static void list_push(run *r, list *l, uint32_t j, int front)
{
    job *b = &r->jobs[j];
    if (l->head == NIL) {
        b->prev = b->next = NIL;
        l->head = l->tail = j;
    } else if (front) {
        b->prev = NIL;
        b->next = l->head;
        r->jobs[l->head].prev = j;
        l->head = j;
    } else {
        b->next = NIL;
        b->prev = l->tail;
        r->jobs[l->tail].next = j;
        l->tail = j;
    }
}

static void list_del(run *r, list *l, uint32_t j)
{
    job *b = &r->jobs[j];
    if (b->prev != NIL)
        r->jobs[b->prev].next = b->next;
    else
        l->head = b->next;
    if (b->next != NIL)
        r->jobs[b->next].prev = b->prev;
    else
        l->tail = b->prev;
    b->prev = b->next = NIL;
}

/* the blocked lists link through bprev/bnext: a blocked customer is also
 * in its own station's in-service list */
static void blist_push(run *r, list *l, uint32_t j)
{
    job *b = &r->jobs[j];
    b->bnext = NIL;
    b->bprev = l->tail;
    if (l->tail == NIL)
        l->head = j;
    else
        r->jobs[l->tail].bnext = j;
    l->tail = j;
}

static void blist_del(run *r, list *l, uint32_t j)
{
    job *b = &r->jobs[j];
    if (b->bprev != NIL)
        r->jobs[b->bprev].bnext = b->bnext;
    else
        l->head = b->bnext;
    if (b->bnext != NIL)
        r->jobs[b->bnext].bprev = b->bprev;
    else
        l->tail = b->bprev;
    b->bprev = b->bnext = NIL;
}

/* ---- time integrals ----------------------------------------------------- */

/* A count that moves by one at a time has its time integral over a chunk
 * as the sum of -t at each rise and +t at each fall, plus n t at the
 * chunk's close and minus n t at its open (chunk_close, chunk_open): one
 * add per change, with no last-change time to keep. The busy servers of a
 * PS station move by fractions at every change there, so they alone are
 * integrated the usual way, area += b dt (touch). */
static inline void n_up(run *r, unsigned sc)
{
    r->nsc_n[sc]++;
    *SCF(r, r->cur, F_AN, sc) -= r->sim.now;
}
static inline void n_down(run *r, unsigned sc)
{
    r->nsc_n[sc]--;
    *SCF(r, r->cur, F_AN, sc) += r->sim.now;
}
static inline void b_up(run *r, unsigned sc)
{
    r->nsc_b[sc] += 1;
    *SCF(r, r->cur, F_AB, sc) -= r->sim.now;
}
static inline void b_down(run *r, unsigned sc)
{
    r->nsc_b[sc] -= 1;
    *SCF(r, r->cur, F_AB, sc) += r->sim.now;
}
static inline void net_up(run *r, unsigned k)
{
    r->nnet[k]++;
    *GF(r, r->cur, G_AREA, k) -= r->sim.now;
}
static inline void net_down(run *r, unsigned k)
{
    r->nnet[k]--;
    *GF(r, r->cur, G_AREA, k) += r->sim.now;
}

/* PS only: the busy servers' integral up to now */
static void touch(run *r, unsigned i)
{
    strt *s = &r->st[i];
    double dt = r->sim.now - s->tlast;
    if (dt > 0) {
        for (unsigned k = 0; k < r->C; k++) {
            unsigned sc = i * r->C + k;
            *SCF(r, r->cur, F_AB, sc) += r->nsc_b[sc] * dt;
        }
    }
    s->tlast = r->sim.now;
}

/* PS: each of the n present is served at min(1, c/n) */
static double ps_rate(const strt *s, unsigned c)
{
    return s->n <= c ? 1.0 : (double)c / (double)s->n;
}

static void ps_busy(run *r, unsigned i)
{
    double rate = ps_rate(&r->st[i], r->net->st[i].servers);
    for (unsigned k = 0; k < r->C; k++) {
        unsigned sc = i * r->C + k;
        r->nsc_b[sc] = (double)r->nsc_n[sc] * rate;
    }
}

static void ps_advance(run *r, unsigned i)
{
    strt *s = &r->st[i];
    s->V += (r->sim.now - s->vlast) * ps_rate(s, r->net->st[i].servers);
    s->vlast = r->sim.now;
}

/* The earliest finish tag gets the station's one event. */
static int ps_schedule(run *r, unsigned i)
{
    strt *s = &r->st[i];
    if (s->ps_h >= 0)
        qc_sim_cancel(&r->sim, s->ps_h);
    else if (s->ps_h == HSRC)
        r->sim.src_t[r->dep_src[i]] = INFINITY;
    s->ps_h = -1;
    if (s->n == 0) {
        s->V = 0; /* small, exact tags */
        return 0;
    }
    uint32_t best = NIL;
    double bt = INFINITY;
    for (uint32_t j = s->insvc.head; j != NIL; j = r->jobs[j].next)
        if (r->jobs[j].tag < bt) {
            bt = r->jobs[j].tag;
            best = j;
        }
    double dt = (bt - s->V) / ps_rate(s, r->net->st[i].servers);
    if (dt < 0)
        dt = 0;
    if (r->dep_src[i] >= 0) {
        s->src_job = best;
        s->ps_h = HSRC;
        r->sim.src_t[r->dep_src[i]] = r->sim.now + dt;
        return 0;
    }
    s->ps_h = qc_sim_after(&r->sim, dt, EV_PSDEP, best);
    return s->ps_h < 0 ? (int)s->ps_h : 0;
}

/* ---- moving customers --------------------------------------------------- */

static int enter(run *r, uint32_t j);
static int arrive(run *r, uint32_t j, unsigned i, unsigned k);

static void fast_chunk_close(run *r, double t);
static void fast_chunk_open(run *r, double t);

static void chunk_close(run *r, double t)
{
    if (r->tandem) { /* the sums are closed at the run's end */
        *HF(r, r->cur, H_T1) = t;
        return;
    }
    if (r->fast) {
        fast_chunk_close(r, t);
        return;
    }
    for (unsigned i = 0; i < r->S; i++) {
        int ps = r->net->st[i].disc == QC_NET_PS;
        if (ps)
            touch(r, i);
        for (unsigned k = 0; k < r->C; k++) {
            unsigned sc = i * r->C + k;
            *SCF(r, r->cur, F_AN, sc) += (double)r->nsc_n[sc] * t;
            if (!ps)
                *SCF(r, r->cur, F_AB, sc) += r->nsc_b[sc] * t;
        }
    }
    for (unsigned k = 0; k < r->C; k++)
        *GF(r, r->cur, G_AREA, k) += (double)r->nnet[k] * t;
    *HF(r, r->cur, H_T1) = t;
}

static void chunk_open(run *r, int k, double t)
{
    r->k = k;
    r->hist_on = r->in_window && k >= NCH / 2 && k < NCH;
    r->cur = r->chunks + (size_t)k * r->stride;
    memset(r->cur, 0, r->stride * sizeof(double));
    if (r->tandem) {
        *HF(r, r->cur, H_T0) = t;
        r->seg_k[r->nseg] = k;
        r->seg_t0[r->nseg++] = t;
        r->seg_t0[r->nseg] = INFINITY;
        return;
    }
    if (r->fast) {
        fast_chunk_open(r, t);
        return;
    }
    for (unsigned i = 0; i < r->S; i++) {
        int ps = r->net->st[i].disc == QC_NET_PS;
        for (unsigned c = 0; c < r->C; c++) {
            unsigned sc = i * r->C + c;
            *SCF(r, r->cur, F_AN, sc) -= (double)r->nsc_n[sc] * t;
            if (!ps)
                *SCF(r, r->cur, F_AB, sc) -= r->nsc_b[sc] * t;
        }
    }
    for (unsigned c = 0; c < r->C; c++)
        *GF(r, r->cur, G_AREA, c) -= (double)r->nnet[c] * t;
    *HF(r, r->cur, H_T0) = t;
}

static void window_open(run *r)
{
    chunk_close(r, r->sim.now);
    r->in_window = 1;
    r->win_start = r->sim.now;
    r->exits = 0;
    r->next_exits = 0;
    chunk_open(r, 0, r->sim.now);
    if (r->p->horizon > 0)
        qc_sim_after(&r->sim, r->p->horizon / NCH, EV_CHUNK, 1);
}

static inline void count_exit(run *r);

/* A customer leaves the network (served: through to the end). */
static int leave(run *r, uint32_t j, int served)
{
    job *b = &r->jobs[j];
    unsigned k = b->chain;
    net_down(r, k);
    if (r->net->front >= 0 && r->admitted > 0)
        r->admitted--;
    double resp = r->sim.now - b->t_net;
    if (served) {
        *GF(r, r->cur, G_DONE, k) += 1;
        *GF(r, r->cur, G_RESP, k) += resp;
        if (r->in_window && r->k >= NCH / 2 && r->k < NCH) {
            qc_hist_add(&r->hist[k], resp);
            qc_hist_add(&r->hist[r->C], resp);
        }
        /* the controller sees the time behind the front, not at its gate */
        if (r->net->front >= 0) {
            r->ctl_resp += r->sim.now - b->t_adm;
            r->ctl_done++;
            if (r->in_window) {
                r->behind_sum += r->sim.now - b->t_adm;
                r->behind_n++;
            }
        }
    } else {
        *GF(r, r->cur, G_LOST, k) += 1;
    }
    *HF(r, r->cur, H_EXITS) += 1;
    const qc_net_class *c = &r->net->cl[k];
    if (c->closed) {
        /* thinks, then enters again; an event even for no think time, so
         * that a customer refused at once cannot loop without the clock */
        b->state = J_THINK;
        b->cls = (uint16_t)k;
        double z = c->think.kind != QC_DIST_NONE ? qc_dist_sample(&c->think, &r->rthink) : 0;
        int64_t h = qc_sim_after(&r->sim, z, EV_THINK, j);
        if (h < 0)
            return (int)h;
    } else {
        job_free(r, j);
    }
    count_exit(r);
    return 0;
}

/* One more exit: where the window stands, in exits (the warm-up's end,
 * the next chunk, the run's end). */
static inline void count_exit(run *r)
{
    if (!r->in_window) {
        if (r->p->warmup_mode == QC_WARMUP_FIXED && r->p->customers &&
            ++r->warm_exits >= (uint64_t)r->p->warmup)
            window_open(r);
        return;
    }
    if (r->p->customers) {
        r->exits++;
        if (r->exits >= r->p->customers) {
            chunk_close(r, r->sim.now);
            r->done = 1;
            return;
        }
        if (r->exits >= r->next_exits) {
            int nk = (int)(r->exits * NCH / r->p->customers);
            if (nk != r->k) {
                chunk_close(r, r->sim.now);
                chunk_open(r, nk, r->sim.now);
            }
            /* the first exit count that falls in a later chunk */
            r->next_exits = (((uint64_t)nk + 1) * r->p->customers + NCH - 1) / NCH;
        }
    }
}

static int release_gate(run *r)
{
    while (r->gate.head != NIL && (double)r->admitted < floor(r->limit)) {
        uint32_t g = r->gate.head;
        list_del(r, &r->gate, g);
        r->admitted++;
        if (r->admitted > r->peak)
            r->peak = r->admitted;
        const qc_net_class *c = &r->net->cl[r->jobs[g].chain];
        r->jobs[g].t_adm = r->sim.now;
        double u = qc_rng_u01(&r->rroute), acc = 0;
        unsigned i = 0;
        for (; i + 1 < r->S; i++) {
            acc += c->entry[i];
            if (u < acc)
                break;
        }
        int rc = arrive(r, g, i, r->jobs[g].chain);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Starts service of j at station i (a free server is there). */
static int start(run *r, uint32_t j, unsigned i)
{
    job *b = &r->jobs[j];
    strt *s = &r->st[i];
    if (b->h_ren >= 0) {
        qc_sim_cancel(&r->sim, b->h_ren);
        b->h_ren = -1;
    }
    s->busy++;
    b_up(r, i * r->C + b->cls);
    b->state = J_SVC;
    list_push(r, &s->insvc, j, 0);
    b->dep_t = r->sim.now + b->rem;
    if (r->dep_src[i] >= 0) {
        s->src_job = j;
        b->h_dep = HSRC;
        r->sim.src_t[r->dep_src[i]] = b->dep_t;
        return 0;
    }
    b->h_dep = qc_sim_at(&r->sim, b->dep_t, EV_DEP, j);
    return b->h_dep < 0 ? (int)b->h_dep : 0;
}

/* The next waiting customer, highest priority level first. */
static int start_next(run *r, unsigned i)
{
    strt *s = &r->st[i];
    const qc_net_station *ns = &r->net->st[i];
    while (s->busy < ns->servers) {
        uint32_t j = NIL;
        for (unsigned l = 0; l < r->C && j == NIL; l++)
            if (s->wait[l].head != NIL) {
                j = s->wait[l].head;
                list_del(r, &s->wait[l], j);
            }
        if (j == NIL)
            return 0;
        int rc = start(r, j, i);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static inline int depart_station(run *r, uint32_t j, unsigned i);

/* Service of j at its station is over: counted there as it leaves. */
static inline void record_done(run *r, uint32_t j)
{
    job *b = &r->jobs[j];
    unsigned i = b->st, sc = i * r->C + b->cls;
    double resp = r->sim.now - b->t_st;
    *SCF(r, r->cur, F_DONE, sc) += 1;
    *SCF(r, r->cur, F_RESP, sc) += resp;
    /* a delay has no wait, nor has a customer served at once: resp -
     * svc0 is then the rounding of (t + s) - t, a few ulps of the clock;
     * 1e-12 of the clock is some 4500 ulps of it */
    if (r->net->st[i].disc != QC_NET_IS && resp - b->svc0 > 1e-12 * r->sim.now)
        *SCF(r, r->cur, F_WAIT, sc) += resp - b->svc0;
}

/* A place is free at station i: the first customer blocked for it leaves
 * its own station (whose server it held) and arrives here. */
static int unblock(run *r, unsigned i)
{
    strt *s = &r->st[i];
    const qc_net_station *ns = &r->net->st[i];
    while (s->blocked.head != NIL && s->n < ns->capacity) {
        uint32_t g = s->blocked.head;
        job *b = &r->jobs[g];
        unsigned to_cl = b->to_cl;
        record_done(r, g);
        int rc = depart_station(r, g, b->st); /* takes it off the list */
        if (rc == 0)
            rc = arrive(r, g, i, to_cl);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int depart_station0(run *r, uint32_t j, unsigned i);

/* Takes j, present at station i, out of it (served or not), and lets in
 * the first customer blocked for a place here. */
static inline int depart_station(run *r, uint32_t j, unsigned i)
{
    int rc = depart_station0(r, j, i);
    if (r->bas_any && rc == 0 && r->st[i].blocked.head != NIL)
        rc = unblock(r, i);
    return rc;
}

static int depart_station0(run *r, uint32_t j, unsigned i)
{
    job *b = &r->jobs[j];
    strt *s = &r->st[i];
    const qc_net_station *ns = &r->net->st[i];
    unsigned sc = i * r->C + b->cls;
    if (b->h_tmo >= 0) {
        qc_sim_cancel(&r->sim, b->h_tmo);
        b->h_tmo = -1;
    }
    if (b->h_ren >= 0) {
        qc_sim_cancel(&r->sim, b->h_ren);
        b->h_ren = -1;
    }
    int rc = 0;
    switch (ns->disc) {
    case QC_NET_PS:
        touch(r, i);
        ps_advance(r, i);
        list_del(r, &s->insvc, j);
        s->n--;
        n_down(r, sc);
        ps_busy(r, i);
        return ps_schedule(r, i);
    case QC_NET_IS:
        if (b->h_dep >= 0)
            qc_sim_cancel(&r->sim, b->h_dep);
        b->h_dep = -1;
        s->n--;
        n_down(r, sc);
        b_down(r, sc);
        return 0;
    default:
        s->n--;
        n_down(r, sc);
        if (b->state == J_BLOCKED)
            blist_del(r, &r->st[b->to_st].blocked, j);
        if (b->state == J_SVC || b->state == J_BLOCKED) {
            if (b->h_dep >= 0)
                qc_sim_cancel(&r->sim, b->h_dep);
            else if (b->h_dep == HSRC)
                r->sim.src_t[r->dep_src[i]] = INFINITY;
            b->h_dep = -1;
            list_del(r, &s->insvc, j);
            s->busy--;
            b_down(r, sc);
            rc = start_next(r, i);
        } else {
            list_del(r, &s->wait[r->level[sc]], j);
        }
        return rc;
    }
}

/* j (class k now) arrives at station i. */
static int arrive(run *r, uint32_t j, unsigned i, unsigned k)
{
    job *b = &r->jobs[j];
    strt *s = &r->st[i];
    const qc_net_station *ns = &r->net->st[i];
    unsigned sc = i * r->C + k;
    b->cls = (uint16_t)k;
    b->st = (uint16_t)i;
    *SCF(r, r->cur, F_ARR, sc) += 1;
    if (r->plain[i]) {
        /* no balking, capacity, timeout nor patience here */
        b->t_st = r->sim.now;
        b->svc0 = b->rem = qc_sampler_next(&r->ssvc[sc]);
        if (ns->disc == QC_NET_FCFS) {
            b->h_ren = b->h_tmo = -1;
            s->n++;
            n_up(r, sc);
            if (s->busy < ns->servers)
                return start(r, j, i);
            b->state = J_WAIT;
            list_push(r, &s->wait[0], j, 0);
            return 0;
        }
    } else if (ns->nbalk) {
        double pb = ns->balk[s->n < ns->nbalk ? s->n : ns->nbalk - 1];
        if (pb > 0 && qc_rng_u01(&r->rroute) < pb) {
            *SCF(r, r->cur, F_BALK, sc) += 1;
            return leave(r, j, 0);
        }
    }
    if (ns->capacity && s->n >= ns->capacity) {
        *SCF(r, r->cur, F_BLK, sc) += 1;
        return leave(r, j, 0);
    }
    if (!r->plain[i]) {
        b->t_st = r->sim.now;
        b->svc0 = b->rem = qc_sampler_next(&r->ssvc[sc]);
    }
    b->h_dep = b->h_ren = b->h_tmo = -1;
    if (ns->timeout > 0) {
        b->h_tmo = qc_sim_after(&r->sim, ns->timeout, EV_TMO, j);
        if (b->h_tmo < 0)
            return (int)b->h_tmo;
    }
    switch (ns->disc) {
    case QC_NET_PS:
        touch(r, i);
        ps_advance(r, i);
        s->n++;
        n_up(r, sc);
        b->state = J_SVC;
        b->tag = s->V + b->rem;
        list_push(r, &s->insvc, j, 0);
        ps_busy(r, i);
        return ps_schedule(r, i);
    case QC_NET_IS:
        s->n++;
        n_up(r, sc);
        b_up(r, sc);
        b->state = J_SVC;
        b->h_dep = qc_sim_after(&r->sim, b->rem, EV_DEP, j);
        return b->h_dep < 0 ? (int)b->h_dep : 0;
    default:
        break;
    }
    s->n++;
    n_up(r, sc);
    if (s->busy < ns->servers)
        return start(r, j, i);
    if (ns->disc == QC_NET_PRIO_PR) {
        /* the lowest-priority customer in service, the latest started
         * among equals, if below this one's level */
        uint32_t v = NIL;
        int lv = r->level[sc];
        for (uint32_t x = s->insvc.head; x != NIL; x = r->jobs[x].next) {
            int lx = r->level[i * r->C + r->jobs[x].cls];
            if (r->jobs[x].state == J_SVC && lx > lv && (v == NIL || lx >= r->level[i * r->C + r->jobs[v].cls]))
                v = x;
        }
        if (v != NIL) {
            job *bv = &r->jobs[v];
            unsigned scv = i * r->C + bv->cls;
            if (bv->h_dep >= 0)
                qc_sim_cancel(&r->sim, bv->h_dep);
            else if (bv->h_dep == HSRC)
                r->sim.src_t[r->dep_src[i]] = INFINITY;
            bv->h_dep = -1;
            bv->rem = bv->dep_t - r->sim.now; /* preemptive resume */
            list_del(r, &s->insvc, v);
            s->busy--;
            b_down(r, scv);
            bv->state = J_WAIT;
            list_push(r, &s->wait[r->level[scv]], v, 1);
            return start(r, j, i);
        }
    }
    b->state = J_WAIT;
    list_push(r, &s->wait[r->level[sc]], j, 0);
    if (ns->patience.kind != QC_DIST_NONE) {
        b->h_ren = qc_sim_after(&r->sim, qc_dist_sample(&ns->patience, &r->rpat), EV_REN, j);
        if (b->h_ren < 0)
            return (int)b->h_ren;
    }
    return 0;
}

/* j enters the network as its chain (through the gate when there is one). */
static int enter(run *r, uint32_t j)
{
    job *b = &r->jobs[j];
    unsigned k = b->chain;
    net_up(r, k);
    b->t_net = b->t_adm = r->sim.now;
    if (r->net->front >= 0) {
        b->state = J_GATE;
        list_push(r, &r->gate, j, 0);
        return release_gate(r);
    }
    if (r->entry_one[k] >= 0)
        return arrive(r, j, (unsigned)r->entry_one[k], k);
    const qc_net_class *c = &r->net->cl[k];
    double u = qc_rng_u01(&r->rroute), acc = 0;
    unsigned i = 0;
    for (; i + 1 < r->S; i++) {
        acc += c->entry[i];
        if (u < acc)
            break;
    }
    return arrive(r, j, i, k);
}

/* Service done at station i: record, then route. */
static int complete(run *r, uint32_t j)
{
    job *b = &r->jobs[j];
    unsigned i = b->st, k = b->cls;
    b->h_dep = -1;
    size_t row = (size_t)i * r->C + k;
    int to = r->one_st[row], tc = r->one_cl[row];
    if (to == -2) {
        to = -1;
        unsigned nh = r->net->nroute[row];
        double u = qc_rng_u01(&r->rroute), acc = 0;
        const qc_net_hop *h = r->net->route[row];
        for (unsigned x = 0; x < nh; x++) {
            acc += h[x].p;
            if (u < acc) {
                to = h[x].station;
                tc = h[x].cls;
                break;
            }
        }
    }
    if (to >= 0 && r->bas_any) {
        const qc_net_station *nt = &r->net->st[to];
        qc_net_disc d = r->net->st[i].disc;
        if (nt->bas && r->st[to].n >= nt->capacity && d != QC_NET_PS && d != QC_NET_IS) {
            /* blocked after service: it keeps its server here */
            b->state = J_BLOCKED;
            b->to_st = (uint16_t)to;
            b->to_cl = (uint16_t)tc;
            blist_push(r, &r->st[to].blocked, j);
            return 0;
        }
    }
    record_done(r, j);
    int rc = depart_station(r, j, i);
    if (rc != 0)
        return rc;
    if (to >= 0)
        return arrive(r, j, (unsigned)to, (unsigned)tc);
    return leave(r, j, 1);
}

/* ---- the station-specialized path -------------------------------------- */

static int fast_eligible(const run *r)
{
    const qc_network_params *p = r->p;
    const qc_network *n = r->net;
    if (p->general || r->C != 1 || n->cl[0].closed || n->front >= 0 || p->customers == 0 ||
        r->arr_src[0] < 0)
        return 0;
    for (unsigned i = 0; i < r->S; i++) {
        const qc_net_station *ns = &n->st[i];
        if (ns->disc != QC_NET_FCFS || ns->servers < 1 || ns->servers > FAST_MAXC ||
            !r->plain_but_capacity[i] || ns->bas || !ns->has_service[0])
            return 0;
    }
    return 1;
}

/* the earliest departure of station f (sv is sorted, latest first) */
QC_HOT double fast_next(const fst *f)
{
    return f->busy ? f->sv[f->busy - 1].dep : INFINITY;
}

/* The sums of a chunk are written through a local pointer and the clock
 * passed as a value: stores through a double * could otherwise be the
 * clock or the counts for the compiler, reloaded after every one. The
 * order of the additions into each sum is the general loop's. */
#define FS(f, i) cur[(size_t)(f) * ns + (i)]

QC_HOT void fast_start(run *r, fst *f, unsigned i, double now, double *cur, size_t ns,
                              double t_net, double t_st)
{
    (void)cur;
    (void)ns;
    double svc = qc_sampler_next(&r->ssvc[i]), dep = now + svc;
    /* into its place by departure, latest first (the next to leave is
     * the last, taken off with no copy; after its equals) */
    unsigned x = f->busy++;
    for (; x > 0 && f->sv[x - 1].dep <= dep; x--)
        f->sv[x] = f->sv[x - 1];
    fsvc *e = &f->sv[x];
    e->t_net = t_net;
    e->t_st = t_st;
    e->svc = svc;
    e->dep = dep;
}

/* The exits of the specialized path are counted down to the next one
 * that changes something (the warm-up's end, a chunk's, the run's):
 * those before it only add to the count, applied there at once. */
static void fast_exit_plan(run *r)
{
    uint64_t d = UINT64_MAX;
    if (!r->in_window) {
        if (r->p->warmup_mode == QC_WARMUP_FIXED) {
            uint64_t w = (uint64_t)r->p->warmup;
            d = w > r->warm_exits ? w - r->warm_exits : 1;
        }
    } else {
        uint64_t m = r->next_exits < r->p->customers ? r->next_exits : r->p->customers;
        d = m > r->exits ? m - r->exits : 1;
    }
    r->fbatch = r->fleft = d;
}

static void fast_exit(run *r)
{
    uint64_t quiet = r->fbatch - 1;
    if (!r->in_window)
        r->warm_exits += quiet;
    else
        r->exits += quiet;
    count_exit(r);
    fast_exit_plan(r);
}

/* as leave, for the one open class (its histogram alone: the total's is
 * the same, copied at the end); 1 when that was the run's last exit */
QC_HOT int fast_leave(run *r, double now, double t_net, int served)
{
    double *cur = r->cur + r->goff; /* the class's sums, C = 1 */
    if (served) {
        double resp = now - t_net;
        cur[G_DONE] += 1;
        cur[G_RESP] += resp;
        if (r->hist_on)
            qc_hist_add(&r->hist[0], resp);
    } else {
        cur[G_LOST] += 1;
    }
    if (--r->fleft == 0) { /* H_EXITS: at the chunk's close */
        r->sim.now = now; /* the loop keeps the clock in a local */
        fast_exit(r);
        return r->done; /* 1: the run is over */
    }
    return 0;
}

QC_HOT int fast_arrive(run *r, unsigned i, double now, double t_net)
{
    fst *f = &r->fs[i];
    double *cur = r->cur;
    size_t ns = r->nsc;
    if (r->nsc_n[i] >= f->cap) {
        FS(F_BLK, i) += 1;
        return fast_leave(r, now, t_net, 0);
    }
    r->nsc_n[i]++;
    if (f->busy < f->servers) {
        fast_start(r, f, i, now, cur, ns, t_net, now);
        r->fnt[i] = fast_next(f);
        return 0;
    }
    if (f->qn == f->qcap) {
        /* grows by doubling, the ring unrolled from its head */
        uint32_t cap = f->qcap ? 2 * f->qcap : 64;
        if (cap <= f->qcap)
            return QC_ENOMEM;
        fwait *nq = malloc((size_t)cap * sizeof *nq);
        if (nq == NULL)
            return QC_ENOMEM;
        for (uint32_t x = 0; x < f->qn; x++)
            nq[x] = f->q[(f->qhead + x) & (f->qcap - 1)];
        free(f->q);
        f->q = nq;
        f->qcap = cap;
        f->qhead = 0;
    }
    fwait *w = &f->q[(f->qhead + f->qn++) & (f->qcap - 1)];
    w->t_net = t_net;
    w->t_st = now;
    return 0;
}

/* the earliest in service at station i is done: as complete */
QC_HOT int fast_depart(run *r, unsigned i, double now)
{
    fst *f = &r->fs[i];
    double *cur = r->cur;
    size_t ns = r->nsc;
    const fsvc *e = &f->sv[f->busy - 1];
    double t_net = e->t_net, resp = now - e->t_st, svc = e->svc;
    int to = r->one_st[i];
    if (to == -2) {
        to = -1;
        unsigned nh = r->net->nroute[i];
        double u = qc_rng_u01(&r->rroute), acc = 0;
        const qc_net_hop *h = r->net->route[i];
        for (unsigned x = 0; x < nh; x++) {
            acc += h[x].p;
            if (u < acc) {
                to = h[x].station;
                break;
            }
        }
    }
    f->done++; /* record_done (F_DONE: at the chunk's ends) */
    FS(F_RESP, i) += resp;
    if (resp - svc > 1e-12 * now)
        FS(F_WAIT, i) += resp - svc;
    FS(F_AB, i) += svc;
    r->nsc_n[i]--;
    f->busy--;
    if (f->qn) {
        fwait w = f->q[f->qhead];
        f->qhead = (f->qhead + 1) & (f->qcap - 1);
        f->qn--;
        fast_start(r, f, i, now, cur, ns, w.t_net, w.t_st);
    }
    r->fnt[i] = fast_next(f);
    if (to >= 0)
        return fast_arrive(r, (unsigned)to, now, t_net);
    return fast_leave(r, now, t_net, 1);
}
#undef FS

/* The specialized path's time integrals, from the sums of those who
 * left and the ages of those present at the chunk's ends. Over a chunk
 * [T0, T1], with A(T) the sum of T - (arrival here) over those present at
 * T, the number's integral is the sum of the responses completed in it
 * plus A(T1) - A(T0) (by customer: a whole stay inside, d - a; one across
 * T0, d - T0; across T1, T1 - a; across both, T1 - T0); the busy
 * servers' likewise, from the service times completed and the ages in
 * service; the arrivals are those done, lost and the change in number;
 * the number in the network is the sum over the stations (every customer
 * of this path is at one). Per event then only the completions are
 * summed. The same integrals as the general loop's, added in another
 * order: equal to rounding. */
static void fast_ages(const run *r, unsigned i, double t, double *a, double *b)
{
    const fst *f = &r->fs[i];
    double sa = 0, sb = 0;
    for (unsigned x = 0; x < f->busy; x++) {
        sa += t - f->sv[x].t_st;
        sb += t - (f->sv[x].dep - f->sv[x].svc);
    }
    for (uint32_t x = 0; x < f->qn; x++)
        sa += t - f->q[(f->qhead + x) & (f->qcap - 1)].t_st;
    *a = sa;
    *b = sb;
}

static void fast_chunk_open(run *r, double t)
{
    double *cur = r->cur;
    for (unsigned i = 0; i < r->S; i++) {
        double a, b;
        fast_ages(r, i, t, &a, &b);
        *SCF(r, cur, F_AN, i) -= a;
        *SCF(r, cur, F_AB, i) -= b;
        *SCF(r, cur, F_ARR, i) -= (double)r->nsc_n[i];
        *SCF(r, cur, F_DONE, i) -= (double)r->fs[i].done;
    }
    *HF(r, cur, H_T0) = t;
}

static void fast_chunk_close(run *r, double t)
{
    double *cur = r->cur, net = 0;
    for (unsigned i = 0; i < r->S; i++) {
        double a, b;
        fast_ages(r, i, t, &a, &b);
        *SCF(r, cur, F_AN, i) += *SCF(r, cur, F_RESP, i) + a;
        *SCF(r, cur, F_AB, i) += b;
        *SCF(r, cur, F_DONE, i) += (double)r->fs[i].done;
        *SCF(r, cur, F_ARR, i) +=
            *SCF(r, cur, F_DONE, i) + *SCF(r, cur, F_BLK, i) + (double)r->nsc_n[i];
        net += *SCF(r, cur, F_AN, i);
    }
    *GF(r, cur, G_AREA, 0) = net;
    *HF(r, cur, H_EXITS) = *GF(r, cur, G_DONE, 0) + *GF(r, cur, G_LOST, 0);
    *HF(r, cur, H_T1) = t;
}

/* the event loop of the specialized path: the least of S + 1 times (the
 * arrival first on a tie, then the lower station, as the kernel's
 * sources) */
QC_HOT int fast_loop_s(run *r, unsigned S)
{
    const qc_network_params *p = r->p;
    double *ta = &r->sim.src_t[r->arr_src[0]];
    unsigned left = 262144;
    for (unsigned i = 0; i < S; i++) {
        const qc_net_station *ns = &r->net->st[i];
        r->fs[i].servers = ns->servers;
        r->fs[i].cap = ns->capacity ? ns->capacity : UINT64_MAX;
    }
    fast_exit_plan(r);
    const double *fnt = r->fnt;
    uint64_t events = r->sim.events;
    double last = r->sim.now; /* the clock, stored at the exits that need it */
    int renewal = r->net->cl[0].arrivals.kind == QC_ARRIVALS_RENEWAL;
    for (;;) {
        double t = *ta;
        int who = -1;
        if (S == 1) {
            if (fnt[0] < t) {
                t = fnt[0];
                who = 0;
            }
        } else {
            for (unsigned i = 0; i < S; i++) {
                double x = fnt[i];
                int lt = x < t;
                t = lt ? x : t;
                who = lt ? (int)i : who;
            }
        }
        int rc;
        if (who < 0) {
            if (!(t < INFINITY))
                break; /* nothing left to happen */
            last = t;
            events++;
            /* INFINITY when a trace ends */
            *ta = renewal ? qc__arrivals_next_renewal(&r->garr[0]) : qc_arrivals_next(&r->garr[0]);
            int i = r->entry_one[0];
            if (i < 0) {
                const qc_net_class *c = &r->net->cl[0];
                double u = qc_rng_u01(&r->rroute), acc = 0;
                for (i = 0; (unsigned)i + 1 < S; i++) {
                    acc += c->entry[i];
                    if (u < acc)
                        break;
                }
            }
            rc = fast_arrive(r, (unsigned)i, t, t);
        } else {
            last = t;
            events++;
            rc = fast_depart(r, (unsigned)who, t);
        }
        if (rc != 0) {
            r->sim.events = events;
            r->sim.now = last;
            if (rc > 0) /* the run is over */
                break;
            return rc;
        }
        if (--left == 0) {
            left = 262144;
            r->sim.events = events;
            if (p->cancel && qc_cancel_requested(p->cancel))
                return QC_ECANCELED;
            if (r->w) {
                double fr = (double)r->exits / (double)p->customers;
                qc__reps_progress(r->w, r->in_window && fr >= 0 && fr <= 1 ? fr : 0);
            }
        }
    }
    r->sim.events = events;
    r->sim.now = last;
    /* the total's histogram: the one class's */
    qc_hist_reset(&r->hist[1]);
    qc_hist_merge(&r->hist[1], &r->hist[0]);
    return 0;
}

/* one station's loop compiled apart: its next event is one comparison */
static int fast_loop(run *r)
{
    return r->S == 1 ? fast_loop_s(r, 1) : fast_loop_s(r, r->S);
}


/* ---- the tandem recursion ---------------------------------------------- */

/* Single-server FCFS stations of unbounded room in a chain, every hop
 * certain, renewal arrivals into the first: a customer's departures are
 * then the recursion D(n, j) = max(D(n, j-1), D(n-1, j)) + S(n, j), one
 * customer after another with no event list. Each station's service
 * stream is its own and drawn in the same order (FIFO), the arrivals'
 * too, and there is no routing draw: the general loop's numbers. What the
 * event loop adds by time is added here by the chunk in force at that
 * time: the chunks change at exits, and customer n's departures precede
 * its exit, so every change before them is known when n is computed (the
 * exits leave in customer order). A stay across a change is split there;
 * at the run's end those who arrived before it are followed up to it. The
 * sums of the number and busy servers are those of the completed stays
 * (response and service), with corrections only for the stays across a
 * change, added at the end: the same integrals, in another order. */
static int tandem_eligible(const run *r)
{
    const qc_network *n = r->net;
    if (r->entry_one[0] != 0 || n->cl[0].arrivals.kind != QC_ARRIVALS_RENEWAL)
        return 0;
    for (unsigned i = 0; i < r->S; i++)
        if (n->st[i].servers != 1 || n->st[i].capacity ||
            r->one_st[i] != (i + 1 < r->S ? (int)i + 1 : -1))
            return 0;
    return 1;
}

/* the segment of time x, from segment s on */
QC_HOT unsigned seg_of(const run *r, unsigned s, double x)
{
    while (x >= r->seg_t0[s + 1])
        s++;
    return s;
}

/* adds to field f of station i the overlap of [x0, x1] with each
 * segment, from segment s (the one of x0) on */
static void seg_overlap(run *r, int f, unsigned i, double x0, double x1, unsigned s)
{
    for (; s < r->nseg && r->seg_t0[s] < x1; s++) {
        double lo = x0 > r->seg_t0[s] ? x0 : r->seg_t0[s];
        double hi = x1 < r->seg_t0[s + 1] ? x1 : r->seg_t0[s + 1];
        if (hi > lo)
            *SCF(r, r->chunks + (size_t)r->seg_k[s] * r->stride, f, i) += hi - lo;
    }
}

/* A tandem's stay at station j from its arrival t (service from st, of
 * svc, to its departure d): counted in the chunk of its departure, the
 * next station's arrival with it, and a stay across a change of chunk
 * spread over the segments it overlaps. cs[j] is the arrival's segment
 * cursor; cs[j + 1] moves to the departure's. */
static inline void tandem_stay(run *r, unsigned *cs, unsigned j, double t, double st, double svc,
                               double d)
{
    const size_t ns = r->nsc;
    unsigned sa = cs[j], sd = cs[j + 1] = seg_of(r, cs[j + 1], d);
    double *ch = r->chunks + (size_t)r->seg_k[sd] * r->stride;
    double resp = d - t;
    ch[(size_t)F_DONE * ns + j] += 1;
    ch[(size_t)F_RESP * ns + j] += resp;
    if (resp - svc > 1e-12 * d)
        ch[(size_t)F_WAIT * ns + j] += resp - svc;
    ch[(size_t)F_AB * ns + j] += svc;
    if (j + 1 < r->S)
        ch[(size_t)F_ARR * ns + j + 1] += 1;
    if (sa != sd) {
        ch[(size_t)F_AN * ns + j] -= resp;
        ch[(size_t)F_AB * ns + j] -= svc;
        seg_overlap(r, F_AN, j, t, d, sa);
        seg_overlap(r, F_AB, j, st, d, seg_of(r, sa, st));
    }
}

static int tandem_loop(run *r)
{
    const qc_network_params *p = r->p;
    const unsigned S = r->S;
    const size_t stride = r->stride;
    double *const chunks = r->chunks;
    double dprev[QC_NET_MAX_STATIONS];
    unsigned cs[QC_NET_MAX_STATIONS + 1]; /* segment cursors: arrivals, then departures */
    for (unsigned i = 0; i < S; i++)
        dprev[i] = 0;
    for (unsigned i = 0; i <= S; i++)
        cs[i] = 0;
    double A = r->sim.src_t[r->arr_src[0]];
    qc_arrivals_gen *ga = &r->garr[0];
    uint64_t events = r->sim.events;
    unsigned left = 65536;
    fast_exit_plan(r);
    while (!r->done) {
        double a = A;
        A = qc__arrivals_next_renewal(ga);
        cs[0] = seg_of(r, cs[0], a);
        *SCF(r, chunks + (size_t)r->seg_k[cs[0]] * stride, F_ARR, 0) += 1;
        double t = a;
        for (unsigned j = 0; j < S; j++) {
            double st = t > dprev[j] ? t : dprev[j];
            double svc = qc_sampler_next(&r->ssvc[j]), d = st + svc;
            dprev[j] = d;
            tandem_stay(r, cs, j, t, st, svc, d);
            t = d;
        }
        events += S + 1;
        /* the exit, at t (as fast_leave) */
        double *g = r->cur + r->goff;
        g[G_DONE] += 1;
        g[G_RESP] += t - a;
        if (r->hist_on)
            qc_hist_add(&r->hist[0], t - a);
        if (--r->fleft == 0) {
            r->sim.now = t;
            fast_exit(r);
        }
        if (--left == 0) {
            left = 65536;
            r->sim.events = events;
            if (p->cancel && qc_cancel_requested(p->cancel))
                return QC_ECANCELED;
            if (r->w) {
                double fr = (double)r->exits / (double)p->customers;
                qc__reps_progress(r->w, r->in_window && fr >= 0 && fr <= 1 ? fr : 0);
            }
        }
    }
    /* the run ends at the last exit, T: those who arrived by then, up to T */
    const double T = r->sim.now;
    while (A <= T) {
        double a = A;
        A = qc__arrivals_next_renewal(ga);
        events++;
        cs[0] = seg_of(r, cs[0], a);
        *SCF(r, chunks + (size_t)r->seg_k[cs[0]] * stride, F_ARR, 0) += 1;
        double t = a;
        for (unsigned j = 0; j < S; j++) {
            double st = t > dprev[j] ? t : dprev[j];
            double svc = qc_sampler_next(&r->ssvc[j]), d = st + svc;
            dprev[j] = d;
            unsigned sa = cs[j];
            if (d > T) { /* still here at T */
                seg_overlap(r, F_AN, j, t, T, sa);
                if (st < T)
                    seg_overlap(r, F_AB, j, st, T, seg_of(r, sa, st));
                break;
            }
            events++;
            tandem_stay(r, cs, j, t, st, svc, d);
            t = d;
        }
    }
    r->sim.events = events;
    /* each chunk's sums closed: the number's integral is the responses
     * completed in it plus the corrections */
    for (unsigned s = 0; s < r->nseg; s++) {
        double *ch = chunks + (size_t)r->seg_k[s] * stride, net = 0;
        for (unsigned i = 0; i < S; i++) {
            *SCF(r, ch, F_AN, i) += *SCF(r, ch, F_RESP, i);
            net += *SCF(r, ch, F_AN, i);
        }
        *GF(r, ch, G_AREA, 0) = net;
        *HF(r, ch, H_EXITS) = *GF(r, ch, G_DONE, 0) + *GF(r, ch, G_LOST, 0);
    }
    qc_hist_reset(&r->hist[1]);
    qc_hist_merge(&r->hist[1], &r->hist[0]);
    return 0;
}

static int ctl_sample(run *r)
{
    double y = r->ctl_done ? r->ctl_resp / (double)r->ctl_done : NAN;
    double ref = r->p->ctl_reference > 0 ? r->p->ctl_reference : r->net->ctl_reference;
    qc_mu_ctl_sense in = {ref, y, (double)r->peak};
    qc_mu_ctl_act out;
    if (isfinite(y)) {
        qc_mu_ctl_step(&r->ctl, &in, &out);
        r->limit = out.u;
    }
    r->ctl_resp = 0;
    r->ctl_done = 0;
    r->peak = r->admitted;
    if (r->in_window) {
        r->ctl_sum_limit += r->limit;
        r->ctl_samples++;
    }
    int rc = release_gate(r);
    if (rc != 0)
        return rc;
    int64_t h = qc_sim_after(&r->sim, r->net->ctl_dt, EV_CTL, 0);
    return h < 0 ? (int)h : 0;
}

/* ---- one replication ---------------------------------------------------- */

static int run_alloc(run *r, const qc_network_params *p)
{
    memset(r, 0, sizeof *r);
    const qc_network *n = p->net;
    r->p = p;
    r->net = n;
    r->S = n->nst;
    r->C = n->ncl;
    r->nsc = r->S * r->C;
    r->stride = (size_t)F_COUNT * r->nsc + (size_t)G_COUNT * r->C + H_COUNT;
    r->chunks = calloc((size_t)(NCH + 1) * r->stride, sizeof(double));
    r->hist = qc_hist_alloc_array(r->C + 1, NULL);
    r->jfree = NIL;
    if (r->chunks == NULL || r->hist == NULL || qc_sim_init(&r->sim, 1024, NULL) != 0)
        return QC_ENOMEM;
    /* sources: the open classes' arrivals first (the most frequent
     * events), then the departures of stations that have at most one
     * pending (one server, or PS), while there is room */
    for (unsigned k = 0; k < r->C; k++) {
        r->arr_src[k] = -1;
        if (!n->cl[k].closed) {
            int x = qc_sim_source_add(&r->sim, EV_ARR);
            if (x >= 0) {
                r->arr_src[k] = x;
                r->src_dep[x] = 0;
                r->src_id[x] = (uint16_t)k;
            }
        }
    }
    for (unsigned i = 0; i < r->S; i++) {
        r->dep_src[i] = -1;
        const qc_net_station *ns = &n->st[i];
        if (ns->disc == QC_NET_PS || (ns->disc != QC_NET_IS && ns->servers == 1)) {
            int x = qc_sim_source_add(&r->sim, EV_DEP);
            if (x >= 0) {
                r->dep_src[i] = x;
                r->src_dep[x] = 1;
                r->src_id[x] = (uint16_t)i;
            }
        }
    }
    /* certain hops: no draw for them */
    for (unsigned i = 0; i < r->S; i++)
        for (unsigned k = 0; k < r->C; k++) {
            size_t row = (size_t)i * r->C + k;
            r->one_st[row] = -2;
            if (n->nroute[row] == 0) {
                r->one_st[row] = -1;
            } else if (n->nroute[row] == 1 && n->route[row][0].p >= 1.0) {
                r->one_st[row] = n->route[row][0].station;
                r->one_cl[row] = n->route[row][0].cls;
            }
        }
    for (unsigned i = 0; i < r->S; i++) {
        const qc_net_station *ns = &n->st[i];
        r->bas_any |= ns->bas;
        r->plain[i] = !ns->nbalk && !ns->capacity && !(ns->timeout > 0) &&
                      ns->patience.kind == QC_DIST_NONE;
        r->plain_but_capacity[i] = !ns->nbalk && !(ns->timeout > 0) &&
                                   ns->patience.kind == QC_DIST_NONE;
    }
    for (unsigned k = 0; k < r->C; k++) {
        r->entry_one[k] = -1;
        for (unsigned i = 0; i < r->S; i++)
            if (n->cl[k].entry[i] >= 1.0)
                r->entry_one[k] = (int)i;
    }
    /* priority levels: the distinct priorities, in order, at priority
     * stations; one level elsewhere */
    for (unsigned i = 0; i < r->S; i++)
        for (unsigned k = 0; k < r->C; k++) {
            int lv = 0;
            if (n->st[i].disc == QC_NET_PRIO || n->st[i].disc == QC_NET_PRIO_PR)
                for (unsigned m = 0; m < r->C; m++)
                    lv += n->cl[m].priority < n->cl[k].priority;
            r->level[i * r->C + k] = lv;
        }
    r->goff = (size_t)F_COUNT * r->nsc;
    r->fast = fast_eligible(r);
    r->tandem = r->fast && tandem_eligible(r);
    if (r->fast) {
        r->fs = calloc(r->S, sizeof *r->fs);
        if (r->fs == NULL)
            return QC_ENOMEM;
    }
    return 0;
}

static void run_free(run *r)
{
    if (r->fs)
        for (unsigned i = 0; i < r->S; i++)
            free(r->fs[i].q);
    free(r->fs);
    free(r->chunks);
    free(r->jobs);
    if (r->hist)
        qc_hist_free_array(r->hist, r->C + 1);
    qc_sim_free(&r->sim);
    memset(r, 0, sizeof *r);
}

static int run_one(run *r, unsigned rep)
{
    const qc_network_params *p = r->p;
    const qc_network *n = r->net;
    qc_sim_reset(&r->sim);
    r->jfree = NIL;
    for (size_t j = r->jcap; j-- > 0;) {
        r->jobs[j].state = J_FREE;
        r->jobs[j].next = r->jfree;
        r->jfree = (uint32_t)j;
    }
    memset(r->nsc_n, 0, sizeof r->nsc_n);
    memset(r->nsc_b, 0, sizeof r->nsc_b);
    memset(r->nnet, 0, sizeof r->nnet);
    for (unsigned i = 0; i < r->S; i++) {
        strt *s = &r->st[i];
        memset(s, 0, sizeof *s);
        s->insvc.head = s->insvc.tail = NIL;
        s->blocked.head = s->blocked.tail = NIL;
        for (unsigned l = 0; l < QC_NET_MAX_CLASSES; l++)
            s->wait[l].head = s->wait[l].tail = NIL;
        s->ps_h = -1;
        r->fnt[i] = INFINITY;
        if (r->fs) {
            r->fs[i].qhead = r->fs[i].qn = 0;
            r->fs[i].busy = 0;
            r->fs[i].done = 0;
        }
    }
    for (unsigned k = 0; k <= r->C; k++)
        qc_hist_reset(&r->hist[k]);
    r->gate.head = r->gate.tail = NIL;
    r->tnet = 0;
    r->exits = r->warm_exits = r->next_exits = 0;
    r->done = 0;
    r->nseg = 0;
    r->in_window = 0;
    r->ctl_sum_limit = 0;
    r->ctl_samples = 0;
    r->admitted = r->peak = 0;
    r->ctl_resp = 0;
    r->ctl_done = 0;
    r->behind_sum = 0;
    r->behind_n = 0;
    uint64_t seed = p->seed;
    qc_rng_init(&r->rroute, seed, qc_rng_stream(rep, QC_STREAM_ROUTING, 0));
    qc_rng_init(&r->rpat, seed, qc_rng_stream(rep, QC_STREAM_MISC, 1));
    qc_rng_init(&r->rthink, seed, qc_rng_stream(rep, QC_STREAM_USER, 0));
    for (unsigned i = 0; i < r->S; i++) {
        qc_rng_init(&r->rsvc[i], seed, qc_rng_stream(rep, QC_STREAM_SERVICE, i));
        for (unsigned k = 0; k < r->C; k++)
            if (n->st[i].has_service[k])
                qc_sampler_init(&r->ssvc[i * r->C + k], &n->st[i].service[k], &r->rsvc[i]);
    }
    /* the warm-up (fixed) writes into the scratch chunk, the window from 0
     * otherwise */
    if (p->warmup_mode == QC_WARMUP_FIXED && p->warmup > 0) {
        chunk_open(r, NCH, 0);
        if (!p->customers && qc_sim_after(&r->sim, p->warmup, EV_CHUNK, 0) < 0)
            return QC_ENOMEM;
    } else {
        r->in_window = 1;
        chunk_open(r, 0, 0);
        if (p->horizon > 0 && qc_sim_after(&r->sim, p->horizon / NCH, EV_CHUNK, 1) < 0)
            return QC_ENOMEM;
    }
    if (n->front >= 0) {
        qc_pi_params pp = {0, n->ctl_gain, n->ctl_min, n->ctl_max, n->ctl_init, QC_AW_CONDITIONAL,
                           1};
        qc_mu_ctl_init(&r->ctl, &pp, NULL);
        r->limit = n->ctl_init;
        if (qc_sim_after(&r->sim, n->ctl_dt, EV_CTL, 0) < 0)
            return QC_ENOMEM;
    }
    for (unsigned k = 0; k < r->C; k++) {
        const qc_net_class *c = &n->cl[k];
        if (!c->closed) {
            qc_rng_init(&r->rarr[k], seed, qc_rng_stream(rep, QC_STREAM_ARRIVAL, k));
            qc_arrivals_gen_init(&r->garr[k], &c->arrivals, &r->rarr[k]);
            double t = qc_arrivals_next(&r->garr[k]);
            if (isfinite(t)) {
                if (r->arr_src[k] >= 0)
                    r->sim.src_t[r->arr_src[k]] = t;
                else if (qc_sim_at(&r->sim, t, EV_ARR, k) < 0)
                    return QC_ENOMEM;
            }
            continue;
        }
        for (unsigned u = 0; u < c->population; u++) {
            uint32_t j = job_new(r);
            if (j == NIL)
                return QC_ENOMEM;
            r->jobs[j].chain = (uint16_t)k;
            r->jobs[j].cls = (uint16_t)k;
            r->jobs[j].state = J_THINK;
            /* everyone starts thinking: the first entries are spread
             * over a think time as in the steady state's cycle */
            double z = c->think.kind != QC_DIST_NONE ? qc_dist_sample(&c->think, &r->rthink) : 0;
            if (qc_sim_after(&r->sim, z, EV_THINK, j) < 0)
                return QC_ENOMEM;
        }
    }
    qc_event ev;
    int rc = 0;
    uint64_t check = 0;
    if (r->fast) {
        rc = r->tandem ? tandem_loop(r) : fast_loop(r);
        if (rc != 0)
            return rc;
    }
    while (!r->fast && !r->done && qc_sim_next(&r->sim, &ev) == 0) {
        if (ev.handle == QC_SIM_SOURCE_HANDLE && r->src_dep[ev.data]) {
            /* a departure held by a source: the station says whose */
            unsigned i = r->src_id[ev.data];
            strt *s = &r->st[i];
            if (s->ps_h == HSRC)
                s->ps_h = -1;
            rc = complete(r, s->src_job);
            goto checked;
        }
        switch (ev.type) {
        case EV_ARR: {
            unsigned k = ev.handle == QC_SIM_SOURCE_HANDLE ? r->src_id[ev.data]
                                                           : (unsigned)ev.data;
            double t = qc_arrivals_next(&r->garr[k]);
            if (isfinite(t)) {
                if (r->arr_src[k] >= 0)
                    r->sim.src_t[r->arr_src[k]] = t;
                else if (qc_sim_at(&r->sim, t, EV_ARR, k) < 0)
                    return QC_ENOMEM;
            }
            uint32_t j = job_new(r);
            if (j == NIL)
                return QC_ENOMEM;
            r->jobs[j].chain = (uint16_t)k;
            rc = enter(r, j);
            break;
        }
        case EV_DEP:
            rc = complete(r, (uint32_t)ev.data);
            break;
        case EV_PSDEP: {
            uint32_t j = (uint32_t)ev.data;
            r->st[r->jobs[j].st].ps_h = -1;
            rc = complete(r, j);
            break;
        }
        case EV_REN: {
            uint32_t j = (uint32_t)ev.data;
            job *b = &r->jobs[j];
            b->h_ren = -1;
            *SCF(r, r->cur, F_REN, b->st * r->C + b->cls) += 1;
            rc = depart_station(r, j, b->st);
            if (rc == 0)
                rc = leave(r, j, 0);
            break;
        }
        case EV_TMO: {
            uint32_t j = (uint32_t)ev.data;
            job *b = &r->jobs[j];
            b->h_tmo = -1;
            *SCF(r, r->cur, F_TMO, b->st * r->C + b->cls) += 1;
            rc = depart_station(r, j, b->st);
            if (rc == 0)
                rc = leave(r, j, 0);
            break;
        }
        case EV_THINK:
            rc = enter(r, (uint32_t)ev.data);
            break;
        case EV_CHUNK:
            if (!r->in_window) {
                window_open(r);
            } else if (r->k + 1 >= NCH) {
                chunk_close(r, r->sim.now);
                r->done = 1;
            } else {
                chunk_close(r, r->sim.now);
                chunk_open(r, r->k + 1, r->sim.now);
                qc_sim_at(&r->sim, r->win_start + (r->k + 1) * (p->horizon / NCH), EV_CHUNK, 1);
            }
            break;
        case EV_CTL:
            rc = ctl_sample(r);
            break;
        default:
            break;
        }
    checked:
        if (rc != 0)
            return rc;
        if (r->sim.events - check >= 262144) {
            check = r->sim.events;
            if (p->cancel && qc_cancel_requested(p->cancel))
                return QC_ECANCELED;
            if (r->w) {
                double f = p->customers ? (double)r->exits / (double)p->customers
                                        : (r->sim.now - r->win_start) / p->horizon;
                qc__reps_progress(r->w, r->in_window && f >= 0 && f <= 1 ? f : 0);
            }
        }
    }
    if (!r->done) {
        /* nothing left to happen (a trace ran out): the window ends here */
        chunk_close(r, r->sim.now);
        for (int k = r->k + 1; k < NCH; k++) {
            chunk_open(r, k, r->sim.now);
            *HF(r, r->cur, H_T1) = r->sim.now;
        }
    }
    return 0;
}

/* ---- output analysis ---------------------------------------------------- */

static size_t n_station_metrics(const qc_network *n)
{
    return (size_t)n->nst * (n->ncl + 1) * QC_NM_COUNT;
}

static size_t n_metrics(const qc_network *n)
{
    return n_station_metrics(n) + (size_t)(n->ncl + 1) * 4;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : NAN;
}

typedef struct sumctx {
    run *r;
    double *acc; /* one chunk's worth of sums */
} sumctx;

static void station_row(const qc_network_params *p, unsigned i, const double *x, double T,
                        double *out)
{
    /* x: the row's sums in F_* order */
    double c = p->net->st[i].disc == QC_NET_IS ? 1 : p->net->st[i].servers;
    out[QC_NM_RESPONSE] = ratio(x[F_RESP], x[F_DONE]);
    out[QC_NM_WAIT] = ratio(x[F_WAIT], x[F_DONE]);
    out[QC_NM_NUMBER] = ratio(x[F_AN], T);
    out[QC_NM_UTILIZATION] = ratio(x[F_AB], c * T);
    out[QC_NM_THROUGHPUT] = ratio(x[F_DONE], T);
    out[QC_NM_LOSS] = ratio(x[F_BLK], x[F_ARR]);
    out[QC_NM_BALK] = ratio(x[F_BALK], x[F_ARR]);
    out[QC_NM_RENEGE] = ratio(x[F_REN], x[F_ARR]);
    out[QC_NM_TIMEOUT] = ratio(x[F_TMO], x[F_ARR]);
}

static void summarize(void *ctx, int first, int last, double *out)
{
    sumctx *s = ctx;
    run *r = s->r;
    memset(s->acc, 0, r->stride * sizeof(double));
    double T = 0;
    for (int k = first; k < last; k++) {
        const double *ch = r->chunks + (size_t)k * r->stride;
        for (size_t f = 0; f < r->stride; f++)
            s->acc[f] += ch[f];
        T += ch[(size_t)F_COUNT * r->nsc + (size_t)G_COUNT * r->C + H_T1] -
             ch[(size_t)F_COUNT * r->nsc + (size_t)G_COUNT * r->C + H_T0];
    }
    const qc_network *n = r->net;
    for (unsigned i = 0; i < r->S; i++) {
        double tot[F_COUNT] = {0};
        for (unsigned k = 0; k <= r->C; k++) {
            double x[F_COUNT];
            for (int f = 0; f < F_COUNT; f++) {
                x[f] = k < r->C ? *SCF(r, s->acc, f, i * r->C + k) : tot[f];
                if (k < r->C)
                    tot[f] += x[f];
            }
            station_row(r->p, i, x, T, out + QC_NET_ROW(n, i, k) * QC_NM_COUNT);
        }
    }
    double *e = out + n_station_metrics(n);
    double t[G_COUNT] = {0};
    for (unsigned k = 0; k <= r->C; k++) {
        double g[G_COUNT];
        for (int f = 0; f < G_COUNT; f++) {
            g[f] = k < r->C ? *GF(r, s->acc, f, k) : t[f];
            if (k < r->C)
                t[f] += g[f];
        }
        e[k * 4 + 0] = ratio(g[G_RESP], g[G_DONE]);
        e[k * 4 + 1] = ratio(g[G_AREA], T);
        e[k * 4 + 2] = ratio(g[G_DONE], T);
        e[k * 4 + 3] = ratio(g[G_LOST], g[G_DONE] + g[G_LOST]);
    }
}

typedef struct state {
    const qc_network_params *p;
    qc_network_result *res;
    qc__units units;
    run **ws;
    unsigned nws;
    double *acc;
    qc_hist *all;  /* [C + 1] */
    qc_hist *sect; /* [NSECT * (C + 1)] */
    double *num, *den;
    double limit_sum, behind_sum;
    uint64_t limit_n, behind_n;
} state;

static int rep_run(void *ctx, void *ws, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    (void)ctx;
    run *r = ws;
    r->w = w;
    int rc = run_one(r, rep);
    if (rc != 0)
        return qc__reps_failed(err, rep, rc);
    return 0;
}

static int rep_merge(void *ctx, void *ws, unsigned rep, qc_err *err)
{
    state *s = ctx;
    run *r = ws;
    s->res->events += r->sim.events;
    s->res->sim_time += r->sim.now;
    size_t hoff = (size_t)F_COUNT * r->nsc + (size_t)G_COUNT * r->C;
    for (int k = 0; k < NCH; k++) {
        const double *ch = r->chunks + (size_t)k * r->stride;
        double d = 0, x = 0;
        for (unsigned c = 0; c < r->C; c++) {
            d += ch[(size_t)F_COUNT * r->nsc + (size_t)G_DONE * r->C + c];
            x += ch[(size_t)F_COUNT * r->nsc + (size_t)G_RESP * r->C + c];
        }
        s->num[k] = x;
        s->den[k] = d;
        s->res->measured += (uint64_t)ch[hoff + H_EXITS];
    }
    sumctx sc = {r, s->acc};
    if (qc__units_add(&s->units, s->num, s->den, summarize, &sc) != 0)
        return qc_err_set(err, QC_ENOMEM, "out of memory");
    for (unsigned k = 0; k <= r->C; k++) {
        qc_hist_merge(&s->all[k], &r->hist[k]);
        qc_hist_merge(&s->sect[(rep % NSECT) * (r->C + 1) + k], &r->hist[k]);
    }
    s->limit_sum += r->ctl_sum_limit;
    s->limit_n += r->ctl_samples;
    s->behind_sum += r->behind_sum;
    s->behind_n += r->behind_n;
    return 0;
}

void qc_network_params_init(qc_network_params *p)
{
    memset(p, 0, sizeof *p);
    p->warmup_mode = QC_WARMUP_MSER5;
    p->reps = 1;
    p->seed = 1;
    p->level = 0.95;
}

static int precise_enough(const qc_network_params *p, const qc_network_result *res)
{
    const qc_network *n = p->net;
    size_t ns = (size_t)n->nst * (n->ncl + 1);
    for (size_t row = 0; row < ns; row++)
        for (int m = 0; m <= QC_NM_THROUGHPUT; m++) {
            const qc_ci *c = &res->station[row * QC_NM_COUNT + m];
            if (c->mean > 0 && !(c->half <= p->precision / (1 + p->precision) * c->mean))
                return 0;
        }
    for (unsigned k = 0; k <= n->ncl; k++)
        for (int m = 0; m <= QC_NE_THROUGHPUT; m++) {
            const qc_ci *c = &res->e2e[k * QC_NE_COUNT + m];
            if (c->mean > 0 && !(c->half <= p->precision / (1 + p->precision) * c->mean))
                return 0;
        }
    return 1;
}

/* Open classes' traffic: a station whose offered load reaches its
 * servers with nothing to bound it (no capacity, no abandonment) has no
 * steady state. */
static int check_stable(const qc_network *n, qc_err *err)
{
    double lam[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES] = {0};
    int any = 0;
    for (unsigned k = 0; k < n->ncl; k++)
        if (!n->cl[k].closed && !qc_arrivals_varies(&n->cl[k].arrivals) &&
            n->cl[k].arrivals.kind != QC_ARRIVALS_TRACE)
            any = 1;
    if (!any)
        return 0;
    /* visits by iteration of lambda = lambda0 + lambda P (converges for an
     * open network: every customer leaves eventually) */
    double l0[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES] = {0};
    for (unsigned k = 0; k < n->ncl; k++)
        if (!n->cl[k].closed) {
            double a = qc_arrivals_mean_rate(&n->cl[k].arrivals);
            if (!isfinite(a))
                continue;
            for (unsigned i = 0; i < n->nst; i++)
                l0[i * n->ncl + k] = a * n->cl[k].entry[i];
        }
    size_t ns = (size_t)n->nst * n->ncl;
    for (int it = 0; it < 100000; it++) {
        double nx[QC_NET_MAX_STATIONS * QC_NET_MAX_CLASSES];
        memcpy(nx, l0, sizeof nx);
        for (size_t row = 0; row < ns; row++)
            for (unsigned h = 0; h < n->nroute[row]; h++) {
                const qc_net_hop *hp = &n->route[row][h];
                if (n->cl[hp->cls].closed)
                    continue;
                nx[(size_t)hp->station * n->ncl + (size_t)hp->cls] += lam[row] * hp->p;
            }
        double d = 0;
        for (size_t x = 0; x < ns; x++) {
            d += fabs(nx[x] - lam[x]);
            lam[x] = nx[x];
        }
        if (d < 1e-13 * (1 + lam[0]))
            break;
    }
    for (unsigned i = 0; i < n->nst; i++) {
        const qc_net_station *s = &n->st[i];
        if (s->disc == QC_NET_IS || s->capacity || s->patience.kind != QC_DIST_NONE ||
            s->timeout > 0 || s->nbalk)
            continue;
        double a = 0;
        for (unsigned k = 0; k < n->ncl; k++)
            if (!n->cl[k].closed && s->has_service[k])
                a += lam[i * n->ncl + k] * qc_dist_mean(&s->service[k]);
        if (n->front < 0 && a >= s->servers)
            return qc_err_set(err, QC_EUNSTABLE,
                              "station \"%s\": the open classes offer a load of %.4g to its %u "
                              "server%s, so its queue would grow without bound (no steady "
                              "state); give it more servers, a capacity or a patience",
                              s->name, a, s->servers, s->servers == 1 ? "" : "s");
    }
    return 0;
}

int qc_network_params_check(const qc_network_params *p, qc_err *err)
{
    const qc_network *n = p->net;
    if (n == NULL || n->nst == 0)
        return qc_err_set(err, QC_EINVAL, "no network");
    if ((p->customers == 0) == (p->horizon <= 0))
        return qc_err_set(err, QC_EINVAL, "give the run's length in customers or in time");
    if (p->customers && p->customers < 2 * NCH)
        return qc_err_set(err, QC_EINVAL, "customers: at least %d", 2 * NCH);
    if (p->reps < 1)
        return qc_err_set(err, QC_EINVAL, "reps: at least 1");
    if (!(p->level > 0 && p->level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence level: %g is not in (0, 1)", p->level);
    if (!(p->precision >= 0 && p->precision < 1))
        return qc_err_set(err, QC_EINVAL, "precision: %g is not in (0, 1)", p->precision);
    if (p->precision > 0 && p->reps < 2)
        return qc_err_set(err, QC_EINVAL, "precision: needs at least 2 replications");
    return check_stable(n, err);
}

int qc_network_run(const qc_network_params *p, qc_network_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = qc_network_params_check(p, err);
    if (rc != 0)
        return rc;
    const qc_network *n = p->net;
    int one_run = p->reps < 2;
    unsigned max_reps = p->precision > 0 ? (p->max_reps ? p->max_reps : 10000) : p->reps;
    unsigned jobs = qc__workers_count(p->jobs, max_reps, QC_QUEUE_JOBS_MAX);
    state s;
    memset(&s, 0, sizeof s);
    s.p = p;
    s.res = res;
    size_t nm = n_metrics(n);
    size_t nrows = (size_t)n->nst * (n->ncl + 1);
    res->station = calloc(nrows * QC_NM_COUNT, sizeof(qc_ci));
    res->e2e = calloc((size_t)(n->ncl + 1) * QC_NE_COUNT, sizeof(qc_ci));
    double *ci_all = calloc(nm, sizeof(qc_ci));
    qc_ci *cis = (qc_ci *)ci_all;
    s.num = calloc(2 * NCH, sizeof(double));
    s.den = s.num ? s.num + NCH : NULL;
    s.all = qc_hist_alloc_array(n->ncl + 1, NULL);
    s.sect = qc_hist_alloc_array((size_t)NSECT * (n->ncl + 1), NULL);
    s.ws = calloc(jobs, sizeof(run *));
    s.nws = jobs;
    int mser = p->warmup_mode == QC_WARMUP_MSER5;
    for (unsigned k = 0; k < n->ncl; k++)
        if (!n->cl[k].closed && (qc_arrivals_varies(&n->cl[k].arrivals) ||
                                 n->cl[k].arrivals.kind == QC_ARRIVALS_TRACE))
            mser = 0;
    rc = QC_ENOMEM;
    if (!res->station || !res->e2e || !ci_all || !s.num || !s.all || !s.sect || !s.ws ||
        qc__units_init(&s.units, one_run, mser, NCH, nm, nm, (int)(n_station_metrics(n) +
                                                                   (size_t)n->ncl * 4)) != 0)
        goto out;
    for (unsigned w = 0; w < jobs; w++) {
        s.ws[w] = malloc(sizeof(run));
        if (s.ws[w] == NULL || run_alloc(s.ws[w], p) != 0)
            goto out;
    }
    s.acc = calloc(s.ws[0]->stride, sizeof(double));
    if (s.acc == NULL)
        goto out;
    qc__reps h = {.jobs = jobs, .ws = (void **)s.ws, .run = rep_run, .merge = rep_merge,
                  .ctx = &s, .progress = p->progress, .progress_ctx = p->progress_ctx,
                  .done = 0, .total = p->reps, .cancel = p->cancel};
    unsigned reps = p->reps, from = 0;
    for (;;) {
        unsigned failed = 0;
        h.total = reps;
        h.done = from;
        rc = qc__reps_run(&h, from, reps, &failed, err);
        if (rc != 0)
            goto out;
        from = reps;
        qc__units_finish(&s.units, p->level, cis);
        /* scatter the intervals */
        for (size_t x = 0; x < nrows * QC_NM_COUNT; x++)
            res->station[x] = cis[x];
        for (unsigned k = 0; k <= n->ncl; k++)
            for (int m = 0; m < 4; m++)
                res->e2e[k * QC_NE_COUNT + m] = cis[n_station_metrics(n) + k * 4 + (size_t)m];
        if (p->precision <= 0)
            break;
        res->precision_met = precise_enough(p, res);
        if (res->precision_met || reps >= max_reps)
            break;
        reps = 2 * reps > max_reps ? max_reps : 2 * reps;
    }
    res->reps = reps;
    res->customers = p->customers;
    res->ci_method = one_run ? "batch-means" : "replications";
    res->warmup_chunks = s.units.k0;
    res->batches = one_run ? s.units.nbatches : 0;
    res->batches_independent = one_run ? s.units.independent : 1;
    res->ctl_limit_mean = s.limit_n ? s.limit_sum / (double)s.limit_n : NAN;
    res->ctl_behind_mean = s.behind_n ? s.behind_sum / (double)s.behind_n : NAN;
    if (p->warmup_mode == QC_WARMUP_FIXED) {
        if (p->customers)
            res->warmup_customers = p->warmup;
        else
            res->warmup_time = p->warmup;
    }
    /* percentiles: the pooled last halves, sectioned over the
     * replications (groups of them beyond NSECT) */
    int nsect = one_run ? 0 : reps < NSECT ? (int)reps : NSECT;
    for (unsigned k = 0; k <= n->ncl; k++) {
        qc_hist *sect[NSECT];
        for (int g = 0; g < NSECT; g++)
            sect[g] = &s.sect[(size_t)g * (n->ncl + 1) + k];
        qc_ci *c = &res->e2e[k * QC_NE_COUNT + QC_NE_P50];
        for (int m = 0; m < 3; m++)
            c[m] = (qc_ci){NAN, NAN, NAN, NAN, p->level, 0};
        qc__percentiles(c, &s.all[k], nsect >= 2 ? sect : NULL, nsect, p->level);
    }
    {
        qc__trend tr;
        if (mser && qc__units_trend(&s.units, &tr) == 0 && tr.detected) {
            res->transient = 1;
            snprintf(res->transient_reason, sizeof res->transient_reason,
                     "a trend across the run: over the last half of the window the mean "
                     "end-to-end response time rises by %.3g%% (t = %.3g on %u degrees of "
                     "freedom, one-sided p = %.2g); a longer run or a lighter load reaches a "
                     "steady state",
                     100 * tr.rise, tr.stat, tr.df, tr.p);
        }
    }
    rc = 0;
out:
    if (rc == QC_ENOMEM && err && err->code == 0)
        qc_err_set(err, QC_ENOMEM, "out of memory");
    if (s.ws)
        for (unsigned w = 0; w < s.nws; w++)
            if (s.ws[w]) {
                run_free(s.ws[w]);
                free(s.ws[w]);
            }
    free(s.ws);
    free(s.acc);
    free(ci_all);
    free(s.num);
    if (s.all)
        qc_hist_free_array(s.all, n->ncl + 1);
    if (s.sect)
        qc_hist_free_array(s.sect, (size_t)NSECT * (n->ncl + 1));
    qc__units_free(&s.units);
    if (rc != 0)
        qc_network_result_free(res);
    return rc;
}

void qc_network_result_free(qc_network_result *res)
{
    free(res->station);
    free(res->e2e);
    memset(res, 0, sizeof *res);
}

const char *qc_net_metric_name(qc_net_metric m)
{
    static const char *const names[] = {"response_time", "waiting_time", "number",
                                        "utilization",   "throughput",   "loss",
                                        "balking",       "reneging",     "timeout"};
    return (unsigned)m < QC_NM_COUNT ? names[m] : "?";
}

const char *qc_net_e2e_name(qc_net_e2e m)
{
    static const char *const names[] = {"response_time", "number", "throughput", "lost",
                                        "response_time_p50", "response_time_p95",
                                        "response_time_p99"};
    return (unsigned)m < QC_NE_COUNT ? names[m] : "?";
}
