/* SPDX-License-Identifier: GPL-3.0-or-later */
/* front.c: the admission front (qctl/front.h): the limiter, the class
 * waiting rooms with their deadlines, CoDel and SFQ, as one object that
 * takes events with their time and answers with decisions.
 *
 * The waiting room is an array of `queue` places allocated up front, each
 * class a doubly linked list of indices through it (the head the oldest,
 * the tail the newest: the LIFO end), and a free list. A handle is the
 * place's index and a generation bumped each time the place is freed, so
 * a stale handle is told apart from the request that took the place next.
 *
 * The order of the rules is the one the proxy ran (and the replay test
 * pins): an arrival goes straight in only when nothing waits (no
 * overtaking) and a slot is free; otherwise it waits if there is a place.
 * A pump, after every event that may free a slot, takes the backlogged
 * class with the least SFQ pass, checks CoDel's head first (a queue that
 * begins to stand refuses what waited past the target), takes that class's
 * head or, under LIFO, its tail, and lets it in if the limiter does (if
 * not, it goes back where it was and everyone waits). */
#include "qctl/front.h"
#include "qctl/sfq.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

void qc_lim_sampler_init(qc_lim_sampler *s, unsigned every, unsigned least)
{
    s->every = every;
    s->least = least;
    s->ticks = 0;
    s->count = 0;
}

int qc_lim_sampler_completion(qc_lim_sampler *s)
{
    s->count++;
    if (s->every == 0 || s->count < s->every)
        return 0;
    s->count = 0;
    return 1;
}

int qc_lim_sampler_tick(qc_lim_sampler *s, int failed)
{
    if (s->every != 0)
        return 0;
    if (++s->ticks < QC_LIM_SAMPLER_TICKS && s->count < s->least && !failed)
        return 0;
    s->ticks = 0;
    s->count = 0;
    return 1;
}

typedef struct place {
    uint64_t id;
    double t_arrive, deadline;
    int32_t prev, next; /* in its class's list, or the free list (next) */
    uint32_t gen;
    uint16_t cls;
    uint16_t used;
} place;

struct qc_front {
    pthread_mutex_t mu;
    qc_front_params p;
    qc_limiter *lim;
    qc_lim_sampler sampler;
    qc_codel codel;
    qc_sfq sfq;
    int codel_on;
    int draining;
    place *room;
    int32_t free_head;
    int32_t head[QC_FRONT_CLASSES_MAX], tail[QC_FRONT_CLASSES_MAX];
    unsigned qlen[QC_FRONT_CLASSES_MAX];
    unsigned waiting, inflight;
    unsigned carrying; /* admitted, their slots lent while their bodies move (qc_front_carry) */
    double deadline[QC_FRONT_CLASSES_MAX]; /* each class's wait deadline */
    double est[QC_FRONT_CLASSES_MAX];      /* SFQ: mean time at a backend */
    uint64_t admitted[QC_FRONT_CLASSES_MAX], refused[QC_FRONT_CLASSES_MAX];
    uint64_t refused_by[QC_FRONT_REASONS], cancelled;
    double last_head_wait;
    /* the sampler's window: a request found the limit full; failures;
     * the requests let in at the gate (with as many in flight, itself
     * included, as the gate in force lets in) and the sum of their times
     * at a backend */
    int win_bound;
    uint64_t win_drops;
    uint64_t win_fresh;
    double win_sum;
    uint32_t win_gate; /* the gate in force as the window closed */
    uint64_t win_n0;   /* n0 as the window opened */
    /* the no-load latency L0 (noload_sample): the requests let in with at
     * most half the knee in flight, their running mean; the knee (the
     * gate of the last fast verdict, 0: none yet); the requests of a
     * probe still to let in (at half the knee) */
    uint64_t n0;
    double mean0;
    double knee;
    unsigned probe;
    int wc_on;       /* the work-conserving rule applies (see qctl/front.h) */
    int watch;       /* overload judged (wc_on, or a fixed limit: CoDel only then) */
    int fast;        /* the last verdict: the backends answer at their no-load latency */
    int slack_only;  /* ... within the fast slack, not within L0 (1 + fast_rise) */
    double ssthresh; /* half the gate of the last slow verdict (INFINITY: none
                        since the limit last stopped binding): doubling stops there */
    unsigned slow_run, fast_run; /* slow / fast verdicts in a row */
    uint64_t win_arrived, win_done; /* the window's arrivals and completions */
    double run_arrived;     /* the arrivals summed over the slow run (excess_beyond_noise) */
    double run_held0, last_held; /* held at the run's start, at the last window's end */
    unsigned grow_run;      /* fixed_overload: windows in a row past the noise, growing */
    double held_conf;       /* fixed_overload: held when the overload was confirmed */
    unsigned brun;          /* bound_run: windows in a row in which the limit bound */
    double brun_arrived;    /* ... the arrivals over them */
    double brun_held0;      /* ... held at the start of the first */
    unsigned brun_past;     /* ... the last of them in a row growing past their noise */
    int suspect;            /* the bound run grew past its noise: LIFO until the
                               overload is confirmed or ended (suspect_lifo) */
    int dl_seen;            /* a request was refused at its class's deadline in the window */
    unsigned unbound_run;   /* windows in a row in which the limit did not bind */
    double good; /* the largest gate of a fast verdict (0: none yet) */
    int overload; /* confirmed: two slow verdicts in a row since the limit last
                     stopped binding (OVER_UNBOUND windows in a row) or the
                     backends were last fast for
                     FAST_FORGET windows in a row, or one on a bound run grown
                     past its noise or with deadline refusals (work_conserve;
                     CoDel judges only then) */
    int adm;   /* the ADMISSION limiter gates: bounded classes (qctl/front.h) */
    double now; /* the last event's time */
    double late[QC_FRONT_CLASSES_MAX];     /* the longest wait past a deadline: let in */
    double late_ref[QC_FRONT_CLASSES_MAX]; /* ... refused */
    /* ADMISSION's limit (adm_limit): the window's start, its completions
     * and their times at a backend, those of them sent with no more in
     * flight than the servers estimated in use; the backends' service
     * time S0 so estimated (NAN: none yet) */
    double adm_t0;
    uint64_t adm_n, adm_n0;
    double adm_sum, adm_sum0, adm_s0, adm_busy;
    unsigned adm_slow; /* windows in a row whose backends queued past S0 + w */
    uint64_t adm_kn[QC_FRONT_CLASSES_MAX]; /* the window's completions per class */
    double refuse_late; /* emit_refuse: how late past its deadline (refuse_place) */
    uint32_t cap;     /* the plant's own limit beside the limiter's (qc_front_set_cap) */
    unsigned places;  /* the waiting places allocated (qc_front_set_queue's most) */
};

static const char *const reason_names[] = {"none",     "full",     "deadline",
                                           "standing", "rejected", "draining"};

const char *qc_front_reason_name(qc_front_reason r)
{
    return (unsigned)r < QC_FRONT_REASONS ? reason_names[r] : "unknown";
}

void qc_front_params_init(qc_front_params *p, qc_limiter_algo algo)
{
    memset(p, 0, sizeof *p);
    p->control = 1;
    qc_limiter_params_init(&p->limiter, algo);
    p->classes = 1;
    p->queue = 1024;
    p->queue_timeout = 1;
    p->discipline = QC_FRONT_CODEL;
    qc_codel_params_init(&p->codel);
    p->sample_every = 0;
    p->sample_least = 32;
    p->est_init = 0.01;
    p->work_conserving = 1;
    p->fast_rise = 0.2;
    p->fast_slack = 0.02;
    p->adm_room = 1;
    p->adm_refusal_cost = 100;
    p->adm_backend_share = 0.25;
}

static int check(const qc_front_params *p, qc_err *err)
{
    if (p->classes < 1 || p->classes > QC_FRONT_CLASSES_MAX)
        return qc_err_set(err, QC_ERANGE, "classes: %u must be in [1, %d]", p->classes,
                          QC_FRONT_CLASSES_MAX);
    if (p->queue > (1u << 30))
        return qc_err_set(err, QC_ERANGE, "queue: %u places is too many", p->queue);
    if (!(p->queue_timeout > 0) || !isfinite(p->queue_timeout))
        return qc_err_set(err, QC_ERANGE, "queue_timeout: %g must be a positive time",
                          p->queue_timeout);
    for (unsigned i = 0; i < p->classes; i++)
        if (!(p->bound[i] >= 0) || !isfinite(p->bound[i]))
            return qc_err_set(err, QC_ERANGE, "bound[%u]: %g must be >= 0 (0: best effort)", i,
                              p->bound[i]);
    if ((unsigned)p->discipline > QC_FRONT_CODEL)
        return qc_err_set(err, QC_EINVAL, "discipline: %d is not a discipline", (int)p->discipline);
    if (!(p->fast_rise >= 0) || !isfinite(p->fast_rise))
        return qc_err_set(err, QC_ERANGE, "fast_rise: %g must be >= 0", p->fast_rise);
    if (!(p->fast_slack >= 0) || !isfinite(p->fast_slack))
        return qc_err_set(err, QC_ERANGE, "fast_slack: %g must be >= 0 s", p->fast_slack);
    if (!(p->adm_room > 0) || !isfinite(p->adm_room))
        return qc_err_set(err, QC_ERANGE, "adm_room: %g must be > 0", p->adm_room);
    if (!(p->adm_refusal_cost >= 0) || !isfinite(p->adm_refusal_cost))
        return qc_err_set(err, QC_ERANGE, "adm_refusal_cost: %g must be >= 0",
                          p->adm_refusal_cost);
    if (!(p->adm_backend_share >= 0 && p->adm_backend_share < 1))
        return qc_err_set(err, QC_ERANGE, "adm_backend_share: %g must be in [0, 1)",
                          p->adm_backend_share);
    if (!(p->est_init > 0) || !isfinite(p->est_init))
        return qc_err_set(err, QC_ERANGE, "est_init: %g must be a positive time", p->est_init);
    return 0;
}

qc_front *qc_front_alloc(const qc_front_params *p, double now, qc_err *err)
{
    if (check(p, err) != 0)
        return NULL;
    qc_front *f = calloc(1, sizeof *f);
    if (!f) {
        qc_err_set(err, QC_ENOMEM, "front: out of memory");
        return NULL;
    }
    f->p = *p;
    qc_limiter_params lc = p->limiter;
    lc.classes = p->classes;
    int adm = lc.algo == QC_LIMITER_ADMISSION;
    for (unsigned i = 0; i < QC_FRONT_CLASSES_MAX; i++)
        lc.bound[i] = adm && i < p->classes ? p->bound[i] : 0;
    lc.adm_candidates = adm ? p->candidates : 0;
    if (!(f->lim = qc_limiter_alloc(&lc, now, err))) {
        qc_err_prefix(err, "limiter");
        free(f);
        return NULL;
    }
    if (qc_codel_init(&f->codel, &p->codel, err) != 0 || qc_sfq_init(&f->sfq, p->classes, err) != 0) {
        qc_limiter_free(f->lim);
        free(f);
        return NULL;
    }
    f->codel_on = p->discipline == QC_FRONT_CODEL && !(p->control && adm);
    f->wc_on = p->control && p->work_conserving && lc.algo != QC_LIMITER_FIXED && !adm;
    f->watch = p->control && p->work_conserving && !adm;
    f->adm = p->control && adm;
    f->now = now;
    f->adm_t0 = now;
    f->adm_s0 = NAN;
    /* ADMISSION's classes sample on their own count (adm_min_completions
     * per class, a busy cycle's): a window of 32 slowed a candidate's slow
     * start fourfold at 80/s */
    qc_lim_sampler_init(&f->sampler, p->sample_every, f->adm ? 0 : p->sample_least);
    if (p->queue && !(f->room = calloc(p->queue, sizeof *f->room))) {
        qc_limiter_free(f->lim);
        free(f);
        qc_err_set(err, QC_ENOMEM, "front: out of memory for %u waiting places", p->queue);
        return NULL;
    }
    for (unsigned i = 0; i < p->queue; i++)
        f->room[i].next = i + 1 < p->queue ? (int32_t)(i + 1) : -1;
    f->free_head = p->queue ? 0 : -1;
    f->places = p->queue;
    f->cap = UINT32_MAX;
    for (unsigned i = 0; i < QC_FRONT_CLASSES_MAX; i++) {
        f->head[i] = f->tail[i] = -1;
        f->est[i] = p->est_init;
        /* under ADMISSION a bound is a mean-delay target the controller
         * must see exceeded, not a cut-off: the common deadline */
        f->deadline[i] = adm && p->control ? p->queue_timeout
                         : i < p->classes && p->bound[i] > 0 ? p->bound[i]
                                                             : p->queue_timeout;
    }
    f->last_head_wait = NAN;
    f->ssthresh = INFINITY;
    if (pthread_mutex_init(&f->mu, NULL) != 0) {
        qc_limiter_free(f->lim);
        free(f->room);
        free(f);
        qc_err_set(err, QC_ENOMEM, "front: cannot create its mutex");
        return NULL;
    }
    return f;
}

void qc_front_free(qc_front *f)
{
    if (!f)
        return;
    pthread_mutex_destroy(&f->mu);
    qc_limiter_free(f->lim);
    free(f->room);
    free(f);
}

size_t qc_front_max_decisions(const qc_front *f)
{
    return (size_t)f->places + 1;
}

static double noload(const qc_front *f);

double qc_front_noload(qc_front *f)
{
    pthread_mutex_lock(&f->mu);
    double l0 = noload(f);
    pthread_mutex_unlock(&f->mu);
    return l0;
}

qc_limiter *qc_front_limiter(qc_front *f)
{
    return f->lim;
}

void qc_front_lock(qc_front *f)
{
    pthread_mutex_lock(&f->mu);
}

void qc_front_unlock(qc_front *f)
{
    pthread_mutex_unlock(&f->mu);
}

/* ---- the waiting room ----------------------------------------------------- */

static void unlink_place(qc_front *f, int32_t i)
{
    place *e = &f->room[i];
    unsigned k = e->cls;
    if (e->prev >= 0)
        f->room[e->prev].next = e->next;
    else
        f->head[k] = e->next;
    if (e->next >= 0)
        f->room[e->next].prev = e->prev;
    else
        f->tail[k] = e->prev;
    f->qlen[k]--;
    f->waiting--;
}

static void free_place(qc_front *f, int32_t i)
{
    place *e = &f->room[i];
    e->used = 0;
    e->gen++;
    e->next = f->free_head;
    f->free_head = i;
}

/* Links place i into its class's list, at the head or at the tail. */
static void link_place(qc_front *f, int32_t i, int at_head)
{
    place *e = &f->room[i];
    unsigned k = e->cls;
    if (at_head) {
        e->prev = -1;
        e->next = f->head[k];
        if (f->head[k] >= 0)
            f->room[f->head[k]].prev = i;
        else
            f->tail[k] = i;
        f->head[k] = i;
    } else {
        e->next = -1;
        e->prev = f->tail[k];
        if (f->tail[k] >= 0)
            f->room[f->tail[k]].next = i;
        else
            f->head[k] = i;
        f->tail[k] = i;
    }
    f->qlen[k]++;
    f->waiting++;
}

/* How long the oldest waiting request has waited (NAN: none waits). */
static double head_wait(qc_front *f, double now)
{
    double t = INFINITY;
    for (unsigned i = 0; i < f->p.classes; i++)
        if (f->head[i] >= 0 && f->room[f->head[i]].t_arrive < t)
            t = f->room[f->head[i]].t_arrive;
    double w = isfinite(t) ? now - t : NAN;
    f->last_head_wait = w;
    return w;
}

/* ---- decisions ------------------------------------------------------------ */

typedef struct outbuf {
    qc_front_decision *d;
    size_t n, cap;
} outbuf;

static int bounded(const qc_front *f, unsigned cls);
static double sfq_weight(qc_front *f, unsigned cls);

static void emit_refuse(qc_front *f, outbuf *o, uint64_t id, unsigned cls, double waited,
                        qc_front_reason why)
{
    f->refused[cls]++;
    f->refused_by[why]++;
    /* a miss for the class's controller (qctl/front.h); not a class
     * already rejected, nor one refused because the front drains */
    if (bounded(f, cls) && (why == QC_FRONT_FULL || why == QC_FRONT_DEADLINE ||
                            why == QC_FRONT_STANDING)) {
        /* a refusal made later than a tenth of the bound past its
         * deadline was the plant's lag (its loop stalled), not the
         * class's priority: it counts as the delay it had, not as the
         * penalty (a stall of a loaded host refusing a few gold requests
         * at 100 D each sent gold's priority up by orders of magnitude
         * and an admissible candidate beside it was rejected) */
        double cost = f->refuse_late > 0.1 * f->p.bound[cls]
                          ? waited + f->est[cls]
                          : f->p.adm_refusal_cost * f->p.bound[cls];
        qc_limiter_refused(f->lim, cls, cost);
    }
    if (o->n < o->cap)
        o->d[o->n++] = (qc_front_decision){
            .id = id, .act = QC_FRONT_REFUSE, .reason = why, .cls = cls, .waited = waited};
}

/* Refuses waiting place i (taken off its list) for why. */
static void refuse_place(qc_front *f, outbuf *o, int32_t i, double now, qc_front_reason why)
{
    place *e = &f->room[i];
    unlink_place(f, i);
    f->refuse_late = now - e->deadline;
    emit_refuse(f, o, e->id, e->cls, now - e->t_arrive, why);
    f->refuse_late = 0;
    free_place(f, i);
}

/* ---- the no-load latency ------------------------------------------------ */

/* L0, the backends' time for a request that meets them idle, as the
 * work-conserving verdict needs it: the running mean of the times at a
 * backend of the last NOLOAD_N requests let in while at most half the
 * knee were in flight (itself included; the knee the gate of the last
 * fast verdict, or the gate in force when lower or before any): below
 * the knee the backends run each request at once, and half of it leaves
 * room for a knee judged a little high. Not the least time ever seen: of
 * exponential services (4 workers of exp:100) that is a few microseconds,
 * no window's requests come near it, every verdict read slow and the
 * limit fell to 1.6 on 6 seeds of 20 (goodput 168 of 400/s at 3x). Not
 * the least of requests that waited behind others inside the backends
 * either: it rises with the load it should be measured without.
 *
 * Until NOLOAD_N such requests were seen, a window that brought none
 * and ended with the limit binding (an overload, or a closed loop at the
 * gate, where none goes in at half the knee) starts a probe: the next
 * PROBE_N requests are let in each once fewer than half the knee are in
 * flight, so that each is a sample. One at a time, each once no other
 * was in flight, cost the backends a few service times at one in flight
 * a probe, and at exactly their capacity that lost work is never made
 * up (4 workers of det:0.01 at 1x: admitted p50 203 ms against 184 ms;
 * 185 ms at half the knee). The estimate is used from NOLOAD_USE samples
 * on (one probe). */
#define NOLOAD_N 32  /* the running mean's length */
#define NOLOAD_USE 4 /* samples before the verdict uses it */
#define PROBE_N 4    /* the requests of a probe */

static double knee_level(const qc_front *f)
{
    double g = (double)qc_limiter_limit(f->lim);
    double k = f->knee > 0 && f->knee < g ? f->knee : g;
    return k / 2 >= 1 ? floor(k / 2) : 1;
}

/* A completion let in with `inflight` in flight (itself included). */
static void noload_sample(qc_front *f, uint32_t inflight, double service)
{
    if (!(service >= 0) || !isfinite(service) || (double)inflight > knee_level(f))
        return;
    f->n0++;
    f->mean0 += (service - f->mean0) / (double)(f->n0 < NOLOAD_N ? f->n0 : NOLOAD_N);
}

/* L0 for the verdict (NAN: not yet known). */
static double noload(const qc_front *f)
{
    return f->n0 >= NOLOAD_USE ? f->mean0 : NAN;
}

/* A probe holds the backends to half the knee in flight: 1 when the
 * request now asking must wait for that. */
static int probe_holds(const qc_front *f)
{
    return f->probe && (double)(f->inflight - f->carrying) >= knee_level(f);
}

/* Asks the limiter for a slot for class cls: 1 admitted (tok filled), 0 no
 * slot, -1 its class was rejected by admission control. */
static int try_admit(qc_front *f, unsigned cls, double t_arrive, double now, qc_front_token *tok)
{
    memset(tok, 0, sizeof *tok);
    if (f->inflight >= f->cap)
        return 0; /* the plant's own limit (qc_front_set_cap) */
    if (f->p.control && probe_holds(f))
        return 0;
    if (f->p.control) {
        int rc = qc_limiter_acquire(f->lim, cls, &tok->lt);
        if (rc != QC_LIMITER_ADMIT)
            return rc == QC_LIMITER_REJECTED ? -1 : 0;
    }
    if (f->probe)
        f->probe--; /* one request of the probe in */
    double w = sfq_weight(f, cls);
    qc_sfq_start(&f->sfq, cls);
    qc_sfq_charge(&f->sfq, cls, f->est[cls], w);
    f->admitted[cls]++;
    f->inflight++;
    tok->t_arrive = t_arrive;
    tok->t_admit = now;
    tok->cls = (uint16_t)cls;
    tok->live = 1;
    return 1;
}

static int class_rejected(qc_front *f, unsigned cls)
{
    return f->p.control && qc_limiter_weight(f->lim, cls) <= 0;
}

/* ADMISSION: class cls has a bound (else best effort, or another limiter). */
static int bounded(const qc_front *f, unsigned cls)
{
    return f->adm && f->p.bound[cls] > 0;
}

/* ADMISSION: class cls's wait target W_i = adm_room T_i - S_i (>= 0),
 * T_i = (1 - eps) D_i the class's tracking target. */
static double wait_target(const qc_front *f, unsigned cls)
{
    double w = f->p.adm_room * (1 - f->p.limiter.adm_epsilon) * f->p.bound[cls] - f->est[cls];
    return w > 0 ? w : 0;
}

/* The wait a request of class cls arriving now is given. */
static double class_wait(qc_front *f, unsigned cls)
{
    if (bounded(f, cls))
        return wait_target(f, cls);
    return qc_codel_deadline(&f->codel, f->deadline[cls]);
}

/* Its SFQ weight: the limiter's (the class's priority under ADMISSION),
 * per second of bound for a bounded class (qctl/front.h). */
static double sfq_weight(qc_front *f, unsigned cls)
{
    double w = qc_limiter_weight(f->lim, cls);
    return bounded(f, cls) ? w / f->p.bound[cls] : w;
}

/* The queue stands: what already waited past the target is refused. */
static void codel_shed(qc_front *f, outbuf *o, double now)
{
    for (unsigned i = 0; i < f->p.classes; i++)
        while (f->head[i] >= 0 &&
               qc_codel_expired(&f->codel, now - f->room[f->head[i]].t_arrive))
            refuse_place(f, o, f->head[i], now, QC_FRONT_STANDING);
}

static void set_target(qc_front *f)
{
    qc_codel_set_noload(&f->codel, qc_limiter_noload(f->lim));
}

/* Whether CoDel judges the waiting room now: only in a confirmed overload
 * (work_conserve), since a queue the limit holds in front of backends that
 * are not overloaded drains by the limit rising (the work-conserving rule,
 * one window at a time), not by refusals: a closed loop of 256 clients in
 * front of a backend that answers at once was otherwise refused while the
 * limit climbed back to them after a stall of the host. */
static int codel_judges(const qc_front *f)
{
    return f->codel_on && (!f->watch || f->overload);
}

/* The requests held: in flight (less those carrying a body, qc_front_carry)
 * and waiting. */
static double held_now(const qc_front *f)
{
    return (double)(f->inflight - f->carrying) + (double)f->waiting;
}

/* Whether the requests held (in flight and waiting) grew beyond what
 * chance makes of a backend loaded just to its capacity: their growth
 * over the slow run (from the start of its first slow window) above
 * EXCESS_SIGMAS standard deviations of the run's arrivals' count (sqrt(A)
 * for Poisson arrivals; the completions of a saturated backend vary
 * less). The growth, not arrivals against completions: a refused client
 * that sends again is one more arrival, not more held. A window's own
 * excess (arrived > 1.05 done) was chance at exactly 100% of a backend's
 * capacity (one of two backends killed at 50% of their total load: 40 +-
 * 6 arrivals a 0.1 s window against 40 completions): CoDel then judged
 * and refused 0.9 to 12% of a load nginx and haproxy serve whole. A 3x
 * overload (120 against 40) is confirmed in its first window, 1.5x (60
 * against 40) in its third. */
#define EXCESS_SIGMAS 4

/* Whether the room serves its newest first before CoDel judges: the
 * limit bound and the requests held grew past their noise over the bound
 * run (bound_run) in the last window, an overload suspected but not yet
 * confirmed. CoDel's LIFO, taken before its proof: LIFO refuses nothing,
 * and a room served oldest first while the evidence accumulated let
 * every request admitted meanwhile wait as long as the queue had grown
 * (sim proxy, 4 workers of det:0.01 from cold into 3x, --limiter fixed
 * --limit 4: admitted p99 139 ms, 19 ms with it). A closed loop's first
 * burst grows the run once, then holds it, and the suspicion ends with
 * the first window that does not grow: its oldest are not left to their
 * deadline. */
static int suspect_lifo(const qc_front *f)
{
    if (!f->codel_on || !f->watch || f->overload)
        return 0;
    if (f->suspect)
        return 1;
    /* or the window open now grew so already: the second window of a cold
     * 3x overload (4 workers of det:0.01) grew its room from 13 to 108
     * served oldest first, and its requests were 42 of the 43 the live
     * proxy answered in over 40 ms in a 10 s run (bench_live part 4) */
    return f->win_bound &&
           held_now(f) - f->last_held > EXCESS_SIGMAS * sqrt((double)f->win_arrived) + 1;
}

/* Lets waiting requests in while there are slots: the backlogged class
 * with the least pass first. */
static void purge(qc_front *f, outbuf *o, double now);

/* Each backlogged class's lead over SFQ's virtual time re-expressed at
 * its weight in force (qc_sfq_reweigh): the admission controller moves
 * the weights by orders of magnitude, and a lead left from the old ones
 * made the overload bistable (gold refused 15% or 94% of the time at
 * 1.5x, by which class was behind when both priorities climbed). */
static void sfq_reweigh(qc_front *f, uint32_t backlogged)
{
    for (unsigned i = 0; i < f->p.classes; i++)
        if (backlogged >> i & 1u)
            qc_sfq_reweigh(&f->sfq, i, f->est[i] / sfq_weight(f, i));
}

static void pump(qc_front *f, outbuf *o, double now)
{
    purge(f, o, now);
    while (f->waiting) {
        if ((f->p.control && qc_limiter_limit(f->lim) <= f->inflight - f->carrying) ||
            f->inflight >= f->cap) {
            f->win_bound = 1;
            return; /* no slot: everyone waits */
        }
        uint32_t backlogged = 0;
        for (unsigned i = 0; i < f->p.classes; i++) {
            if (f->head[i] < 0)
                continue;
            if (class_rejected(f, i)) { /* rejected meanwhile */
                while (f->head[i] >= 0)
                    refuse_place(f, o, f->head[i], now, QC_FRONT_REJECTED);
                continue;
            }
            backlogged |= 1u << i;
        }
        sfq_reweigh(f, backlogged);
        int pick = qc_sfq_pick(&f->sfq, backlogged);
        if (pick < 0)
            return;
        unsigned best = (unsigned)pick;
        if (codel_judges(f)) {
            set_target(f);
            if (qc_codel_head(&f->codel, head_wait(f, now)))
                codel_shed(f, o, now); /* above the target for an interval */
            if (f->head[best] < 0)
                continue; /* codel_shed emptied the class */
        }
        int lifo = codel_judges(f) ? qc_codel_lifo(&f->codel, head_wait(f, now))
                                   : suspect_lifo(f);
        int32_t i = lifo ? f->tail[best] : f->head[best];
        place *e = &f->room[i];
        double waited = now - e->t_arrive;
        if (qc_codel_expired(&f->codel, waited)) {
            refuse_place(f, o, i, now, QC_FRONT_STANDING);
            continue;
        }
        qc_front_token tok;
        int rc = try_admit(f, best, e->t_arrive, now, &tok);
        if (rc == 0) {
            f->win_bound = 1;
            return; /* refused after all: it stays where it was */
        }
        uint64_t id = e->id;
        double late = now - e->deadline;
        unlink_place(f, i);
        free_place(f, i);
        if (rc < 0) {
            emit_refuse(f, o, id, best, waited, QC_FRONT_REJECTED);
            continue;
        }
        qc_codel_admitted(&f->codel, waited);
        if (late > f->late[best])
            f->late[best] = late;
        if (o->n < o->cap)
            o->d[o->n++] = (qc_front_decision){
                .id = id, .act = QC_FRONT_ADMIT, .cls = best, .waited = waited, .tok = tok};
    }
}

/* ---- events ------------------------------------------------------------- */

/* The waiting request past its deadline that arrived first, or -1. */
static int32_t oldest_overdue(const qc_front *f, double now)
{
    int32_t best = -1;
    for (unsigned k = 0; k < f->p.classes; k++)
        for (int32_t i = f->head[k]; i >= 0; i = f->room[i].next)
            if (f->room[i].deadline <= now &&
                (best < 0 || f->room[i].t_arrive < f->room[best].t_arrive))
                best = i;
    return best;
}

/* ADMISSION: refuses (DEADLINE) every waiting request whose deadline
 * has come, in arrival order across the classes, before anything else
 * is decided: none is let in past its class's target because its timer
 * is late, and the room never stands past its target at an event. */
static void purge(qc_front *f, outbuf *o, double now)
{
    if (!f->adm)
        return;
    for (;;) {
        int32_t best = oldest_overdue(f, now);
        if (best < 0)
            return;
        place *e = &f->room[best];
        if (now - e->deadline > f->late_ref[e->cls])
            f->late_ref[e->cls] = now - e->deadline;
        refuse_place(f, o, best, now, QC_FRONT_DEADLINE);
    }
}

/* ADMISSION, the room full: the class holding the most places per unit
 * of its SFQ weight (the arriving request counted in its own class) gives
 * up its newest (longest queue drop, by weight): the arrival's class
 * itself, or another, whose newest is refused (FULL) to make a place. 1
 * when a place was made. */
static int push_out(qc_front *f, outbuf *o, unsigned cls, double now)
{
    int best = -1;
    double most = -1;
    for (unsigned k = 0; k < f->p.classes; k++) {
        double n = f->qlen[k] + (k == cls);
        double w = sfq_weight(f, k);
        double per = n > 0 ? (w > 0 ? n / w : INFINITY) : -1;
        if (per > most) {
            most = per;
            best = (int)k;
        }
    }
    if (best < 0 || (unsigned)best == cls || f->tail[best] < 0)
        return 0;
    refuse_place(f, o, f->tail[best], now, QC_FRONT_FULL);
    return 1;
}

/* The arrival: its decision into *d; the refusals that precede it
 * (purge, push_out) into o when o is given, else none are made. */
static void arrive(qc_front *f, double now, unsigned cls, uint64_t id, qc_front_decision *d,
                   outbuf *o)
{
    memset(d, 0, sizeof *d);
    d->id = id;
    d->cls = cls;
    outbuf self = {d, 0, 1};
    if (f->draining) {
        emit_refuse(f, &self, id, cls, 0, QC_FRONT_DRAINING);
        return;
    }
    f->win_arrived++;
    if (o)
        purge(f, o, now);
    int adm;
    if (f->waiting) /* no overtaking: it waits behind them */
        adm = class_rejected(f, cls) ? -1 : 0;
    else
        adm = try_admit(f, cls, now, now, &d->tok);
    if (adm > 0) {
        qc_codel_admitted(&f->codel, 0); /* in without waiting: not standing */
        d->act = QC_FRONT_ADMIT;
        return;
    }
    if (adm < 0) {
        emit_refuse(f, &self, id, cls, 0, QC_FRONT_REJECTED);
        return;
    }
    f->win_bound = 1; /* no slot for it */
    if ((f->waiting >= f->p.queue || f->free_head < 0) &&
        !(o && f->adm && f->p.queue && push_out(f, o, cls, now))) {
        emit_refuse(f, &self, id, cls, 0, QC_FRONT_FULL);
        return;
    }
    int32_t i = f->free_head;
    place *e = &f->room[i];
    f->free_head = e->next;
    if (f->head[cls] < 0)
        qc_sfq_join(&f->sfq, cls); /* newly backlogged: no credit for idling */
    e->id = id;
    e->cls = (uint16_t)cls;
    e->used = 1;
    e->t_arrive = now;
    e->deadline = now + class_wait(f, cls);
    link_place(f, i, 0);
    d->act = QC_FRONT_WAIT;
    d->deadline = e->deadline;
    d->handle = (uint64_t)e->gen << 32 | (uint64_t)(i + 1);
}

int qc_front_arrive(qc_front *f, double now, unsigned cls, uint64_t id, qc_front_decision *d)
{
    if (cls >= f->p.classes)
        cls = f->p.classes - 1;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    arrive(f, now, cls, id, d, NULL);
    pthread_mutex_unlock(&f->mu);
    return (int)d->act;
}

int qc_front_arrive_n(qc_front *f, double now, unsigned cls, uint64_t id, qc_front_decision *out,
                      size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    if (cls >= f->p.classes)
        cls = f->p.classes - 1;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap - 1};
    qc_front_decision d;
    arrive(f, now, cls, id, &d, &o);
    out[o.n++] = d;
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

/* The work-conserving rule (qctl/front.h). The verdict on a window is
 * read off the mean time at a backend of the requests let in at the gate
 * (each went in with as many requests in flight, itself included, as the
 * gate in force lets in), against the no-load latency L0 (noload): a
 * backend that runs them at once answers them in L0 on average, one
 * whose own queue stands at that level makes them wait on top of it. Not
 * the least of the window: of exponential services (4 workers of
 * exp:100, 40 a window) the least says nothing about queueing, it sits
 * far under the mean whether the workers queue or not. Not every sample:
 * those let in under a higher gate before a decrease say nothing of the
 * new one (they only make the verdict slower, which is safe), and those
 * let in below the gate, after a decrease while the backend drained, find
 * it emptier than the gate will keep it and read fast: doubling on them
 * was the limit cycle 1 to 18 of a 3x overload of 4 workers of det:0.05.
 * A fast verdict records its gate as the knee (knee_level). Until L0 has
 * NOLOAD_N samples, a window that brought none while the limit bound
 * starts a probe (noload).
 * Returns 1 fast, 0 slow, -1 no evidence. */
static int verdict(qc_front *f, uint64_t drops)
{
    if (f->wc_on && f->n0 < NOLOAD_N && f->n0 == f->win_n0 && f->win_bound && !f->probe)
        f->probe = PROBE_N;
    f->win_n0 = f->n0;
    if (drops)
        return 0;
    if (!f->win_fresh)
        return -1;
    double l0 = noload(f);
    if (!(l0 >= 0))
        return -1;
    double fast = l0 * (1 + f->p.fast_rise);
    /* The slack is for a host's scheduling delays, absolute; in front of
     * a backend of some milliseconds it is also requests queued in it: at
     * 3x on 4 workers of det:0.01 (L0 10 ms, slack 20 ms) a gate of 10 to
     * 12 read fast, so the rule raised the limit every window past the
     * MaxUsers reference (6) and it cycled 10 to 13 whatever the
     * reference. Once an overload is confirmed (a slow verdict and the
     * requests held growing beyond chance, which a closed loop or a host
     * stall does not make), only the relative test judges, and the
     * controller's reference holds. */
    double mean = f->win_sum / (double)f->win_fresh;
    f->slack_only = mean > fast;
    if (!f->overload && l0 + f->p.fast_slack > fast)
        fast = l0 + f->p.fast_slack;
    int v = mean <= fast;
    if (v)
        f->knee = (double)f->win_gate;
    return v;
}

/* After the controller stepped (gate was the gate before it): while the
 * backends are fast, the controller may not lower the limit, and a limit
 * that kept a request out goes up: doubling (a slow start: the next
 * window, on samples at the new gate, shows whether the backends are
 * still fast there) up to half the gate of the last slow verdict (TCP's
 * ssthresh), then by an eighth, so that a limit held just under the
 * backends' knee (the controller lowering on a slow window, the rule
 * raising on a fast one) moves by steps of an eighth, not by doublings;
 * never past the demand (in flight + waiting). A slow verdict leaves the
 * controller's rule in force (MaxUsers its reference, AIMD its backoff),
 * but the first one after fast ones lowers by half at most; a window in
 * which the limit never bound forgets where doubling stops. A confirmed
 * overload ends after OVER_UNBOUND such windows in a row (the overload,
 * if any, is over), or FAST_FORGET fast verdicts in a row (the slow one
 * was a stall: 3 cut the 3x overload of test_front_wc down to a limit of
 * 1), which forget where doubling stops too. Not on one window without
 * the limit binding: once CoDel sheds, the room holds a few requests, and
 * a lull of a moderate overload's Poisson arrivals (35 in a window where
 * 4 workers of det:0.01 complete 40, at 1.2x) let a window pass with the
 * limit never full; the overload ended there, the fast slack came back
 * into the verdict, the limit cycled past the knee again and the room
 * stood for the seconds its re-confirmation took at 1.2x (each of
 * BRUN_PAST windows growing past its noise, about 8 a window against a
 * bar of 8): 889 of 7895 admitted requests took over 10 service times
 * (test_front_wc), 10 with three windows. Keeping it over a lull costs
 * nothing: CoDel judges only requests that wait, and none waits while the
 * limit does not bind. */
#define FAST_FORGET 5 /* fast verdicts in a row that end an overload */
#define OVER_UNBOUND 3 /* windows in a row without the limit binding that end one */

static int excess_beyond_noise(qc_front *f, int v, uint64_t arrived, double held, double prev)
{
    if (v != 0) {
        if (v == 1)
            f->run_arrived = 0;
        return 0;
    }
    if (f->slow_run == 1) {
        f->run_arrived = 0;
        f->run_held0 = prev;
    }
    f->run_arrived += (double)arrived;
    return held - f->run_held0 > EXCESS_SIGMAS * sqrt(f->run_arrived) + 1;
}

/* The bound run: the windows in a row in which the limit kept a request
 * out (the gate bound), whatever the verdicts. Returns whether the
 * requests held (in flight and waiting) grew over the run beyond chance,
 * as excess_beyond_noise reads a slow run: more than EXCESS_SIGMAS
 * standard deviations of the run's arrivals, plus one. A moderate
 * overload (1.2x to 1.5x) grows them by a fifth to a third of its
 * arrivals, window after window, while the verdicts alternate (the rule
 * raises a limit judged fast into the backends' queue, the next window
 * reads slow and the limit halves): two slow verdicts in a row came late
 * or never, and the room stood to its 1 s deadline (sim proxy, 4 workers
 * of det:0.01 at 1.5x: admitted p50 646 ms over seeds, +-440; 1.2x 1.02
 * s). The run's growth alone is not enough: a closed loop held by the
 * limit grows them once, by its clients, then holds them (256 clients
 * without think time in front of 4 workers of det:0.01, their whole
 * burst in one window, were confirmed by it and refused 97% of their
 * tries, to no gain: refusals only make them send again), so the last
 * BRUN_PAST windows must each grow past one standard deviation of their
 * own arrivals too; the survivor of two backends at exactly its capacity
 * grows them as a random walk, within the noise. Sets f->suspect
 * (suspect_lifo) from a window grown past both noises on, while the run
 * stays grown and its windows keep growing; a window in which the limit
 * did not bind ends the run. */
#define BRUN_PAST 3 /* windows in a row growing past their noise that confirm */
static int bound_run(qc_front *f, int bound, uint64_t arrived, double held, double prev)
{
    if (!bound) {
        f->brun = 0;
        f->brun_arrived = 0;
        f->brun_past = 0;
        f->suspect = 0;
        return 0;
    }
    if (f->brun++ == 0) {
        f->brun_held0 = prev;
        f->brun_arrived = 0;
    }
    f->brun_arrived += (double)arrived;
    int grown = held - f->brun_held0 > EXCESS_SIGMAS * sqrt(f->brun_arrived) + 1;
    /* the window's own growth past one standard deviation of its arrivals:
     * a closed loop's burst is one such window (two when it reaches the
     * front over two), an overload one after another */
    int past = held - prev > sqrt((double)arrived) + 1;
    f->brun_past = past ? f->brun_past + 1 : 0;
    f->suspect = grown && (past || (f->suspect && held > prev));
    return grown && f->brun_past >= BRUN_PAST;
}

/* A fixed limit is the capacity its user declared, whatever the
 * backends' latency: it is overloaded when, while it binds, the requests
 * held grow beyond chance (as excess_beyond_noise, since it began to
 * bind) in FIXED_GROW_RUN windows in a row, each growing past its own
 * noise (a closed loop's first burst grows them once, then holds them),
 * and its CoDel judges only then, as the others' does. The overload ends
 * when the limit stops binding, or when the growth over the run is
 * chance's again while the requests held stay above half what they were
 * at the confirmation: a closed loop whose refused clients send again at
 * once holds as many whatever CoDel sheds (shedding frees nothing there),
 * where an open-loop overload's held requests fall as CoDel sheds them.
 * Ending on the plateau alone ended every open-loop overload as soon as
 * CoDel had drained it: the room then grew again until the run's growth
 * passed its noise once more, a threshold rising with the run (sim proxy,
 * 4 workers of det:0.01 at 3x, --limiter fixed --limit 4: admitted wait
 * mean 271 ms, p99 684 ms). 256 closed-loop clients held by the limit
 * in front of a backend that answers at once, or the survivor of two
 * backends at its capacity, are not shed. */
#define FIXED_GROW_RUN 3 /* growing windows in a row that confirm (wrk's 256
                            connections reached a loaded host's proxy over two) */
static void fixed_overload(qc_front *f, int bound, uint64_t arrived, double held, double prev)
{
    if (!bound) {
        f->run_arrived = 0;
        f->grow_run = 0;
        f->overload = 0;
    } else {
        if (f->run_arrived == 0)
            f->run_held0 = prev;
        f->run_arrived += (double)arrived;
        /* each window's own growth beyond one standard deviation of its
         * arrivals: wrk's 256 connections reach the proxy over two
         * windows, the second growing by a few (held 250 -> 256 with 500
         * arrivals), and "held > prev" confirmed an overload there that
         * shed 60% of a load the backend served at once; 1.5x of 40 a
         * window grows by 20 a window against sqrt(60) + 1 = 8.7 */
        int excess = held - f->run_held0 > EXCESS_SIGMAS * sqrt(f->run_arrived) + 1;
        int past = excess && held - prev > sqrt((double)arrived) + 1;
        f->grow_run = past ? f->grow_run + 1 : 0;
        if (f->grow_run >= FIXED_GROW_RUN) {
            if (!f->overload)
                f->held_conf = held;
            f->overload = 1;
        } else if (!excess && (!f->overload || held > f->held_conf / 2))
            f->overload = 0; /* the growth is chance's over the run: a plateau */
    }
    if (!f->overload)
        f->codel.standing = 0;
}

static void work_conserve(qc_front *f, uint32_t gate)
{
    int bound = f->win_bound;
    uint64_t drops = f->win_drops;
    uint64_t arrived = f->win_arrived;
    f->win_arrived = f->win_done = 0;
    int v = verdict(f, drops);
    f->win_bound = 0;
    f->win_drops = 0;
    f->win_fresh = 0;
    f->win_sum = 0;
    int dl = f->dl_seen;
    f->dl_seen = 0;
    if (!f->watch)
        return;
    double held = held_now(f), prev = f->last_held;
    f->last_held = held;
    int grown = bound_run(f, bound, arrived, held, prev);
    if (!f->wc_on) {
        fixed_overload(f, bound, arrived, held, prev);
        if (f->overload)
            f->brun = 0; /* the suspicion's run, counted from the end */
        return;
    }
    if (v == 1 && f->slack_only && grown)
        v = 0; /* within the slack only, while the room grows past its noise window after window */
    if (v == 0) {
        f->slow_run++;
        f->fast_run = 0;
    } else if (v == 1) {
        f->fast_run++;
        f->slow_run = 0;
    }
    f->unbound_run = bound ? 0 : f->unbound_run + 1;
    if (!bound)
        f->ssthresh = INFINITY;
    if (f->unbound_run >= OVER_UNBOUND || f->fast_run >= FAST_FORGET) {
        f->ssthresh = INFINITY;
        f->overload = 0;
    }
    /* an overload is confirmed by a slow verdict while more requests came
     * than were answered, and either the second slow one in a row or more
     * held than twice the largest gate judged fast (a queue growing past
     * anything the backends were seen to handle: without it the room
     * stood to its 1 s deadline at 3x on 4 workers of det:0.01, sim proxy
     * p99 1.04 s, now 78 ms): a closed loop of clients (each
     * sends its next request when answered) has as many arrivals as
     * completions however slow the backends, and refusing some of them
     * frees nothing (refusals only make them send again); a stall of the
     * host, a backend starved of CPU, is then waited out, not shed */
    if (v == 1 && (double)gate > f->good)
        f->good = (double)gate;
    int excess = excess_beyond_noise(f, v, arrived, held, prev); /* every window: it sums the run */
    if (v == 0 && excess &&
        (f->slow_run >= 2 || (f->good > 0 && held > 2 * f->good)))
        f->overload = 1;
    /* or by a slow verdict on a bound run grown past its noise
     * (bound_run), or while requests are refused at their deadline (the
     * room stood a whole deadline while the limit bound): a moderate
     * overload, whose verdicts alternate, is confirmed within a second or
     * so (1.5x of 4 workers of det:0.01: its third to fifth window)
     * instead of late or never */
    if (v == 0 && (grown || (bound && dl > 0)))
        f->overload = 1;
    if (f->overload)
        f->brun = 0; /* once it ends, the growth is counted from then */
    if (v == 0 && (double)gate / 2 < f->ssthresh)
        f->ssthresh = gate / 2 > 1 ? (double)gate / 2 : 1;
    if (v == 0 && f->slow_run == 1 && bound) {
        /* the first slow verdict after fast ones (or none) may be a stall
         * of the host, not the backends (qctl/front.h): the limit falls
         * by half at most, as TCP's on a loss, whatever the controller's
         * rule said (MaxUsers's knee estimate restarted on the stall's
         * window put it at 1 to 3 with 256 clients waiting); a second
         * slow verdict in a row leaves the controller free */
        double half = (double)gate / 2;
        if ((double)qc_limiter_limit(f->lim) < half)
            qc_limiter_set_limit(f->lim, half);
    }
    f->fast = v == 1 && (double)gate < floor(f->p.limiter.max_limit);
    if (!f->overload)
        f->codel.standing = 0; /* the queue is the limit's: it drains by rising */
    if (!f->fast)
        return;
    double want = (double)qc_limiter_limit(f->lim);
    if (want < gate)
        want = gate; /* not lowered while the backends are fast */
    if (bound) {
        double g = (double)gate;
        double up = g < f->ssthresh && !f->slack_only
                        ? (2 * g < f->ssthresh ? 2 * g : f->ssthresh)
                        : g + (g / 8 > 1 ? g / 8 : 1);
        double demand = held_now(f);
        if (up > demand)
            up = demand;
        if (up > want)
            want = up;
    }
    if (want != (double)qc_limiter_limit(f->lim))
        qc_limiter_set_limit(f->lim, want);
}

/* ADMISSION's limit (qctl/front.h, "Bounded classes"), at the end of
 * each window: the backends' service time S0 is the mean time at a backend
 * of the requests sent with no more in flight than the servers in use
 * (none queues inside a backend then; the first window's, sent with one
 * in flight, start it), smoothed over windows; the servers in use are X S0
 * by Little's law, X the window's throughput. The backends may keep a
 * queue of their own for a share (adm_backend_share) of the tightest
 * admitted class's slack T - S0, T = (1 - eps) D: a wait w there. When the
 * window's mean time at a backend R passes S0 + w, the backends queue past
 * that: the limit becomes X (S0 + w), the requests in flight that give
 * them that time at that throughput (Little's law), by a quarter at most
 * per window and from the second such window in a row on (one window may
 * be a stall of a loaded host: the limit halved on each fell to 2 under 4
 * workers and gold was refused 8% where the twin said 2%); while R stays
 * within it and the limit kept a request out, the
 * limit rises by one (to X (S0 + w) at once if that is more, doubling at
 * most), never past the demand. Never past the limiter's initial_limit
 * either: the user's limit (the backends' parallelism when known) is the
 * most, the rule only lowers the limit below it when the backends queue
 * (a limit raised past one worker's 1 kept an admissible candidate from
 * showing its delay fall with its priority: the backend's FIFO does not
 * weigh classes). The rest of the queue stays in the front,
 * where the class weights and wait targets act. */
static void adm_limit(qc_front *f, double now, uint32_t gate)
{
    double dt = now - f->adm_t0;
    if (!(dt > 0))
        return;
    uint64_t n = f->adm_n, n0 = f->adm_n0;
    double sum = f->adm_sum, sum0 = f->adm_sum0;
    f->adm_t0 = now;
    f->adm_n = f->adm_n0 = 0;
    f->adm_sum = f->adm_sum0 = 0;
    if (n0)
        f->adm_s0 = isnan(f->adm_s0) ? sum0 / (double)n0
                                     : f->adm_s0 + 0.2 * (sum0 / (double)n0 - f->adm_s0);
    double s0 = f->adm_s0;
    if (!n || !(s0 > 0)) {
        memset(f->adm_kn, 0, sizeof f->adm_kn);
        return;
    }
    double x = (double)n / dt, r = sum / (double)n;
    f->adm_busy = x * s0;
    for (unsigned k = 0; k < f->p.classes; k++) {
        /* a class none of whose requests came back in the window keeps an
         * old time at a backend: one from when the backends queued more
         * (the limit still high at the start) made its wait target 0, so
         * that none of its requests waited, none came back, and the
         * estimate never fell (gold refused 100% at 3x): it takes the
         * backends' time now when that is less */
        if (!f->adm_kn[k] && f->est[k] > r)
            f->est[k] = r;
        f->adm_kn[k] = 0;
    }
    double t = INFINITY;
    for (unsigned k = 0; k < f->p.classes; k++)
        if (bounded(f, k) && !class_rejected(f, k) &&
            (1 - f->p.limiter.adm_epsilon) * f->p.bound[k] < t)
            t = (1 - f->p.limiter.adm_epsilon) * f->p.bound[k];
    if (!isfinite(t))
        return;
    double w = t > s0 ? f->p.adm_backend_share * (t - s0) : 0;
    double want = x * (s0 + w); /* servers in use + throughput x the backends' wait */
    double g = (double)gate;
    f->adm_slow = r > s0 + w ? f->adm_slow + 1 : 0;
    if (r > s0 + w) {
        if (f->adm_slow < 2)
            return; /* one window may be a stall of the host: two in a row */
        if (want < 0.75 * g)
            want = 0.75 * g;
    } else if (f->win_bound) {
        double demand = held_now(f);
        if (want > 2 * g)
            want = 2 * g;
        if (want < g + 1)
            want = g + 1;
        if (want > demand)
            want = demand > g ? demand : g;
    } else {
        return;
    }
    if (want > f->p.limiter.initial_limit)
        want = f->p.limiter.initial_limit; /* the user's limit: the most */
    if (want < 1)
        want = 1;
    if (floor(want) != (double)qc_limiter_limit(f->lim))
        qc_limiter_set_limit(f->lim, want);
}

/* Steps the limiter's controller: a window of the sampler closed. */
static void close_window(qc_front *f, double now)
{
    if (!f->p.control)
        return;
    uint32_t gate = qc_limiter_limit(f->lim);
    f->win_gate = gate;
    qc_limiter_set_noload(f->lim, noload(f)); /* the knee's L0: the mean, not the least */
    qc_limiter_tick(f->lim, now);
    if (f->adm)
        adm_limit(f, now, gate);
    work_conserve(f, gate);
}

int qc_front_done(qc_front *f, double now, qc_front_token *tok, double service, int outcome,
                  qc_front_decision *out, size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    if (tok->live) {
        tok->live = 0;
        if (tok->carry == 1) { /* it ends with its slot held, as any request */
            f->carrying--;
            if (f->p.control)
                qc_limiter_lend(f->lim, &tok->lt, 0);
        }
        /* a body carried: its time at the backend includes the body's
         * transfer (the backend reads what the link's buffers still held
         * once the write was done), which is no queueing: not a sample
         * (an 8 MiB body read in 20 to 300 ms on a loaded host lowered
         * the limit as a slow backend would) */
        if (tok->carry && outcome == QC_FRONT_OK)
            outcome = QC_FRONT_IGNORE;
        tok->carry = 0;
        if (!(service >= 0))
            service = now - tok->t_admit;
        unsigned k = tok->cls;
        if (f->p.control) {
            /* ADMISSION tracks the whole delay (wait + backend), the
             * others the backends' own time */
            int adm = f->p.limiter.algo == QC_LIMITER_ADMISSION;
            double lat = adm ? (tok->t_admit - tok->t_arrive) + service : service;
            qc_limiter_release(f->lim, &tok->lt, lat, outcome);
        }
        if (outcome == QC_FRONT_OK)
            f->est[k] += 0.1 * (service - f->est[k]);
        if (outcome == QC_FRONT_OK && f->adm) { /* adm_limit's window */
            f->adm_n++;
            f->adm_kn[k]++;
            f->adm_sum += service;
            if (tok->lt.inflight <= (f->adm_busy > 1 ? f->adm_busy : 1)) {
                f->adm_n0++;
                f->adm_sum0 += service;
            }
        }
        if (outcome == QC_FRONT_DROPPED)
            f->win_drops++;
        if (outcome == QC_FRONT_OK && f->p.control) {
            if (tok->lt.inflight >= qc_limiter_limit(f->lim)) {
                f->win_fresh++;
                f->win_sum += service;
            }
            noload_sample(f, tok->lt.inflight, service);
        }
        f->inflight--;
        f->win_done++;
        if (outcome != QC_FRONT_IGNORE && qc_lim_sampler_completion(&f->sampler))
            close_window(f, now);
        pump(f, &o, now);
    }
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

int qc_front_carry(qc_front *f, double now, qc_front_token *tok, int on, qc_front_decision *out,
                   size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    on = on != 0;
    if (tok->live && (tok->carry == 1) != on) {
        tok->carry = on ? 1 : 2; /* 2: carried, its sample is not taken */
        if (on)
            f->carrying++;
        else
            f->carrying--;
        if (f->p.control)
            qc_limiter_lend(f->lim, &tok->lt, on);
        if (on)
            pump(f, &o, now); /* its slot is free for the next */
    }
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

int qc_front_tick(qc_front *f, double now, qc_front_decision *out, size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    if (qc_lim_sampler_tick(&f->sampler, f->win_drops > 0))
        close_window(f, now);
    if (f->p.control)
        pump(f, &o, now);
    if (codel_judges(f)) {
        set_target(f);
        if (qc_codel_tick(&f->codel, head_wait(f, now)))
            codel_shed(f, &o, now);
    } else if (f->codel_on) {
        head_wait(f, now); /* for the statistics */
    }
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

int qc_front_expire(qc_front *f, double now, qc_front_decision *out, size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    /* in arrival order across the classes: the same order whoever runs it */
    for (;;) {
        int32_t best = oldest_overdue(f, now);
        if (best < 0)
            break;
        place *e = &f->room[best];
        if (now - e->deadline > f->late_ref[e->cls])
            f->late_ref[e->cls] = now - e->deadline;
        /* given its class's whole deadline (not CoDel's short one): the
         * room stood that long (work_conserve) */
        if (e->deadline - e->t_arrive >= f->deadline[e->cls] * (1 - 1e-9))
            f->dl_seen = 1;
        refuse_place(f, &o, best, now, QC_FRONT_DEADLINE);
    }
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

int qc_front_pump(qc_front *f, double now, qc_front_decision *out, size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    pump(f, &o, now);
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

double qc_front_next_deadline(qc_front *f)
{
    pthread_mutex_lock(&f->mu);
    double t = INFINITY;
    for (unsigned k = 0; k < f->p.classes; k++)
        for (int32_t i = f->head[k]; i >= 0; i = f->room[i].next)
            if (f->room[i].deadline < t)
                t = f->room[i].deadline;
    pthread_mutex_unlock(&f->mu);
    return t;
}

double qc_front_setup_wait(qc_front *f, unsigned cls, double t_arrive, double now)
{
    double left = t_arrive + qc_front_class_deadline(f, cls) - now;
    return left > 0 ? left : 0;
}

int qc_front_cancel(qc_front *f, qc_front_handle h)
{
    uint64_t idx = h & 0xffffffffu;
    uint32_t gen = (uint32_t)(h >> 32);
    int rc = QC_EEMPTY;
    pthread_mutex_lock(&f->mu);
    if (idx >= 1 && idx <= f->places) {
        int32_t i = (int32_t)(idx - 1);
        place *e = &f->room[i];
        if (e->used && e->gen == gen) {
            unlink_place(f, i);
            free_place(f, i);
            f->cancelled++;
            rc = 0;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

int qc_front_drain(qc_front *f, double now, qc_front_decision *out, size_t cap)
{
    if (cap < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    outbuf o = {out, 0, cap};
    f->draining = 1;
    for (unsigned k = 0; k < f->p.classes; k++)
        while (f->head[k] >= 0)
            refuse_place(f, &o, f->head[k], now, QC_FRONT_DRAINING);
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

double qc_front_class_deadline(qc_front *f, unsigned cls)
{
    if (cls >= f->p.classes)
        cls = f->p.classes - 1;
    pthread_mutex_lock(&f->mu);
    double d = class_wait(f, cls);
    pthread_mutex_unlock(&f->mu);
    return d;
}

int qc_front_set_deadline(qc_front *f, unsigned cls, double d, qc_err *err)
{
    if (cls >= f->p.classes)
        return qc_err_set(err, QC_ERANGE, "class %u: no such class", cls);
    if (!(d > 0) || !isfinite(d))
        return qc_err_set(err, QC_EINVAL, "deadline: %g must be a positive time", d);
    pthread_mutex_lock(&f->mu);
    if (!(f->p.control && f->p.limiter.algo == QC_LIMITER_ADMISSION))
        f->deadline[cls] = d;
    pthread_mutex_unlock(&f->mu);
    return 0;
}

int qc_front_set_cap(qc_front *f, double now, uint32_t cap, qc_front_decision *out, size_t n)
{
    if (n < qc_front_max_decisions(f))
        return QC_EINVAL;
    pthread_mutex_lock(&f->mu);
    f->now = now;
    f->cap = cap;
    outbuf o = {out, 0, n};
    pump(f, &o, now);
    pthread_mutex_unlock(&f->mu);
    return (int)o.n;
}

int qc_front_set_queue(qc_front *f, unsigned queue, qc_err *err)
{
    if (queue > f->places)
        return qc_err_set(err, QC_ERANGE,
                          "queue: %u places is more than the %u allocated at the start", queue,
                          f->places);
    pthread_mutex_lock(&f->mu);
    f->p.queue = queue; /* those already waiting beyond it stay */
    pthread_mutex_unlock(&f->mu);
    return 0;
}

double qc_front_queue_target(qc_front *f)
{
    pthread_mutex_lock(&f->mu);
    set_target(f);
    double t = f->codel.target;
    if (f->adm) { /* the tightest class's wait target (qctl/front.h) */
        t = NAN;
        for (unsigned k = 0; k < f->p.classes; k++)
            if (bounded(f, k) && !(t <= wait_target(f, k)))
                t = wait_target(f, k);
    }
    pthread_mutex_unlock(&f->mu);
    return t;
}

void qc_front_get_stats(qc_front *f, qc_front_stats *st)
{
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&f->mu);
    st->limit = f->p.control ? qc_limiter_limit(f->lim) : UINT32_MAX;
    st->inflight = f->inflight;
    st->waiting = f->waiting;
    for (unsigned k = 0; k < f->p.classes; k++) {
        st->class_waiting[k] = f->qlen[k];
        st->class_admitted[k] = f->admitted[k];
        st->class_refused[k] = f->refused[k];
    }
    memcpy(st->refused_by, f->refused_by, sizeof st->refused_by);
    st->n0 = f->n0;
    st->mean0 = f->mean0;
    st->cancelled = f->cancelled;
    st->standing = f->codel.standing;
    st->target = f->codel.target;
    st->head_wait = f->last_head_wait;
    for (unsigned k = 0; k < f->p.classes; k++) {
        st->class_target[k] = bounded(f, k) ? wait_target(f, k) : NAN;
        st->class_late[k] = f->late[k];
        st->class_late_refused[k] = f->late_ref[k];
    }
    if (f->adm) {
        /* the room stands when a request waits past its deadline (its
         * class's target when it came) as of the last event; the target
         * shown is the tightest class's now */
        st->standing = 0;
        st->target = NAN;
        for (unsigned k = 0; k < f->p.classes; k++) {
            if (!bounded(f, k))
                continue;
            double w = wait_target(f, k);
            if (!(st->target <= w))
                st->target = w;
            for (int32_t i = f->head[k]; i >= 0; i = f->room[i].next)
                if (f->room[i].deadline < f->now)
                    st->standing = 1;
        }
    }
    pthread_mutex_unlock(&f->mu);
}
