/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxysim.c: `qctl sim proxy`, the proxy's admission front in front of
 * simulated backends and clients, on the event kernel.
 *
 * The idea: the live proxy is an I/O shell around its front (limiter,
 * waiting rooms, discipline, SFQ, class admission); replace the sockets
 * by events and the front's decisions are the proxy's, so what the
 * simulation shows is what the proxy does, up to what the sockets add
 * (the `overhead`) and the backends' own noise.
 *
 * The model moves requests and time, and the front (qctl/front.h, the
 * object the live proxy holds) decides. A request (a slot of one array
 * with a free list, so no event allocates) is, in turn: arriving (the
 * front says admit, wait or refuse); WAITING in the front's room, with an
 * EXPIRE event at the deadline the front gave (the proxy's per-request
 * timer); SENT to a backend, queued there FCFS or in service at one of
 * its c workers (a DONE event at the end of its service); on its way
 * back (a BACK event after the `transit`, its slot still held: what the
 * proxy's own clock sees beyond the service, the loopback both ways and
 * the backend's timer, measured at no load); answered. Each
 * answer goes back to its client: a closed-loop user thinks and sends
 * again, an open-loop class ignores it. Every event the proxy reports to
 * its front is reported here with the simulated time (arrive, done with
 * the time at the backend, tick every control interval, expire), and the
 * decisions that come back are carried out in their order, as
 * src/live/proxy.c carries them out on sockets.
 *
 * Measurement: replication r runs warmup + horizon seconds; a request
 * arriving in the measured window counts for its class (offered, its
 * outcome, its latency into the class's histogram); goodput counts the
 * answers (not refusals) given in the window. The per-replication
 * figures give the Student-t intervals over replications. */
#include "qctl/proxysim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/fleet.h"
#include "qctl/front.h"
#include "qctl/rng.h"
#include "qctl/sim.h"
#include "core/names.h"
#include "reps.h"

enum { EV_ARRIVE = 0, EV_DONE = 1, EV_EXPIRE = 2, EV_TICK = 3, EV_THINK = 4, EV_BACK = 5 };
enum { R_FREE = 0, R_NEW, R_WAITING, R_SENT };

#define NIL UINT32_MAX
#define PROGRESS_EVERY (1u << 16)

static const char *const route_names[] = {"jsq", "djsq"};
QC__NAMES(qc_psim_route, qc_psim_route_name, qc_psim_route_parse, route_names)
static const char *const disc_names[] = {"fifo", "codel"};
QC__NAMES(qc_psim_discipline, qc_psim_discipline_name, qc_psim_discipline_parse, disc_names)

static const char *const reason_names[QC_PSIM_NREASONS] = {"full", "deadline", "standing",
                                                           "rejected"};
const char *qc_psim_reason_name(qc_psim_reason v)
{
    return (unsigned)v < QC_PSIM_NREASONS ? reason_names[v] : "?";
}

static const char *const metric_names[QC_PSIM_NMETRICS] = {
    "offered",         "goodput",          "latency",          "latency_p50",
    "latency_p95",     "latency_p99",      "wait",             "refused",
    "refused_full",    "refused_deadline", "refused_standing", "refused_rejected"};
const char *qc_psim_metric_name(qc_psim_metric v)
{
    return (unsigned)v < QC_PSIM_NMETRICS ? metric_names[v] : "?";
}

void qc_psim_params_init(qc_psim_params *p)
{
    memset(p, 0, sizeof *p);
    p->backends = 1;
    p->workers = 1;
    p->route = QC_PSIM_JSQ;
    p->threshold = 4;
    p->control = 1;
    qc_limiter_params_init(&p->limiter, QC_LIMITER_MAXUSERS);
    p->interval = 0.1;
    p->sample_least = 32;
    p->queue = 1024;
    p->queue_timeout = 1;
    p->discipline = QC_PSIM_CODEL;
    p->horizon = 60;
    p->warmup = 5;
    p->reps = 10;
    p->seed = 1;
    p->level = 0.95;
}

/* ---- the replication's state --------------------------------------------- */

typedef struct req {
    double t_arr, t_adm;
    uint32_t next; /* its backend's queue, or the free list */
    uint16_t cls, backend;
    uint8_t state, measured;
    int64_t expire;     /* the pending EXPIRE while WAITING, else -1 */
    qc_front_token tok; /* admitted: its slot */
} req;

typedef struct backend {
    uint32_t head, tail, queued; /* FCFS queue (not yet in service) */
    unsigned busy;               /* workers serving */
    unsigned inflight;           /* sent by the proxy, not yet answered */
    double idle_since;
} backend;

/* A replication's figures, per class k (index nclasses: all). */
typedef struct tally {
    uint64_t offered, answered, good, refused[QC_PSIM_NREASONS], admitted;
    double lat_sum, wait_sum;
    qc_hist *hist;
} tally;

typedef struct run {
    const qc_psim_params *p;
    unsigned K, B;
    qc_sim sim;
    qc_rng rarr[QC_PSIM_CLASSES_MAX], rsvc[QC_PSIM_CLASSES_MAX + 1];
    qc_rng ruser[QC_PSIM_CLASSES_MAX];
    qc_arrivals_gen gen[QC_PSIM_CLASSES_MAX];
    qc_sampler svc[QC_PSIM_CLASSES_MAX];
    qc_sampler think[QC_PSIM_CLASSES_MAX];
    qc_rng rover, rtransit;
    qc_sampler over;    /* the overhead, when p->overhead */
    qc_sampler transit; /* the transit, when p->transit */
    req *rq;
    uint32_t cap, free_head;
    backend bk[QC_PSIM_BACKENDS_MAX];
    unsigned rr; /* jsq's rotating start */
    /* the front */
    qc_front *front;
    qc_front_decision *dec; /* ndec of them: the most one event returns */
    size_t ndec;
    unsigned qlen, inflight; /* waiting, admitted and not answered */
    /* measurement */
    double t_on, t_end;
    tally t[QC_PSIM_CLASSES_MAX + 1];
    double busy_area, busy_t;
    double lim_sum;
    uint64_t lim_n;
    uint64_t goodput_n[QC_PSIM_CLASSES_MAX + 1];
    int rejected[QC_PSIM_CLASSES_MAX];
    qc_psim_series_point *series;
    size_t slen, scap;
    double next_series;
    int oom;
} run;

/* ---- requests -------------------------------------------------------------- */

static uint32_t req_new(run *r)
{
    if (r->free_head == NIL) {
        uint32_t old = r->cap, cap = old ? old * 2 : 1024;
        req *n = realloc(r->rq, (size_t)cap * sizeof *n);
        if (n == NULL)
            return NIL;
        r->rq = n;
        for (uint32_t i = old; i < cap; i++)
            r->rq[i].next = i + 1 < cap ? i + 1 : NIL;
        r->cap = cap;
        r->free_head = old;
    }
    uint32_t i = r->free_head;
    r->free_head = r->rq[i].next;
    memset(&r->rq[i], 0, sizeof r->rq[i]);
    r->rq[i].next = NIL;
    r->rq[i].state = R_NEW;
    r->rq[i].expire = -1;
    return i;
}

static void req_free(run *r, uint32_t i)
{
    r->rq[i].state = R_FREE;
    r->rq[i].next = r->free_head;
    r->free_head = i;
}

/* ---- clients --------------------------------------------------------------- */

static int in_window(const run *r, double t)
{
    return t >= r->t_on && t < r->t_end;
}

/* The client of class k got its answer: a closed-loop user thinks and
 * sends again. */
static void client_answered(run *r, unsigned k)
{
    if (r->p->cls[k].users == 0)
        return;
    double th = r->p->cls[k].think ? qc_sampler_next(&r->think[k]) : 0;
    if (qc_sim_after(&r->sim, th, EV_THINK, k) < 0)
        r->oom = 1;
}

static void count_answer(run *r, unsigned k, int good)
{
    if (!good || !in_window(r, r->sim.now))
        return;
    r->goodput_n[k]++;
    r->goodput_n[r->K]++;
}

/* Request i is refused for reason why. */
static void refuse(run *r, uint32_t i, qc_psim_reason why)
{
    req *x = &r->rq[i];
    unsigned k = x->cls;
    if (x->measured) {
        r->t[k].answered++;
        r->t[k].refused[why]++;
        r->t[r->K].answered++;
        r->t[r->K].refused[why]++;
    }
    if (x->expire >= 0) {
        qc_sim_cancel(&r->sim, x->expire);
        x->expire = -1;
    }
    req_free(r, i);
    client_answered(r, k);
}

/* ---- backends -------------------------------------------------------------- */

static double service_of(run *r, unsigned k)
{
    /* with a service seed, one sequence for all, as the live backend
     * draws it (class 0's sampler holds it) */
    return qc_sampler_next(&r->svc[r->p->service_seed ? 0 : k]);
}

static void busy_mark(run *r)
{
    double now = r->sim.now;
    if (now > r->t_on) {
        double from = r->busy_t > r->t_on ? r->busy_t : r->t_on;
        double to = now < r->t_end ? now : r->t_end;
        if (to > from) {
            unsigned busy = 0;
            for (unsigned b = 0; b < r->B; b++)
                busy += r->bk[b].busy;
            r->busy_area += busy * (to - from);
        }
    }
    r->busy_t = now;
}

static void start_service(run *r, unsigned b, uint32_t i)
{
    busy_mark(r);
    r->bk[b].busy++;
    if (qc_sim_after(&r->sim, service_of(r, r->rq[i].cls), EV_DONE, i) < 0)
        r->oom = 1;
}

static unsigned route(run *r)
{
    if (r->p->route == QC_PSIM_DJSQ) {
        qc_djsq_server view[QC_PSIM_BACKENDS_MAX];
        for (unsigned b = 0; b < r->B; b++)
            view[b] = (qc_djsq_server){QC_DJSQ_ON, r->bk[b].inflight, r->bk[b].idle_since};
        int i = qc_djsq_route(view, r->B, r->p->threshold, 0);
        return i >= 0 ? (unsigned)i : 0;
    }
    /* fewest in flight from a rotating start, as the live fleet routes */
    unsigned best = r->rr % r->B;
    for (unsigned j = 1; j < r->B; j++) {
        unsigned b = (r->rr + j) % r->B;
        if (r->bk[b].inflight < r->bk[best].inflight)
            best = b;
    }
    r->rr++;
    return best;
}

static void send_to_backend(run *r, uint32_t i)
{
    unsigned b = route(r);
    backend *bk = &r->bk[b];
    r->rq[i].backend = (uint16_t)b;
    r->rq[i].state = R_SENT;
    bk->inflight++;
    if (bk->busy < r->p->workers) {
        start_service(r, b, i);
    } else {
        req *x = &r->rq[i];
        x->next = NIL;
        if (bk->tail != NIL)
            r->rq[bk->tail].next = i;
        else
            bk->head = i;
        bk->tail = i;
        bk->queued++;
    }
}

/* ---- the front -------------------------------------------------------------
 *
 * Every decision is the front's (qctl/front.h), the object `qctl proxy`
 * runs: this section tells it the events with the simulated time and
 * carries out what it answers, as src/live/proxy.c does with sockets. A
 * request is named to the front by its slot's index; a slot is not reused
 * while the front may still name it (waiting, or admitted until done). */

static qc_psim_reason reason_of(qc_front_reason why)
{
    switch (why) {
    case QC_FRONT_DEADLINE:
        return QC_PSIM_DEADLINE;
    case QC_FRONT_STANDING:
        return QC_PSIM_STANDING;
    case QC_FRONT_REJECTED:
        return QC_PSIM_REJECTED;
    default: /* FULL; DRAINING never happens: the simulation does not drain */
        return QC_PSIM_FULL;
    }
}

static void apply(run *r, const qc_front_decision *d)
{
    uint32_t i = (uint32_t)d->id;
    req *x = &r->rq[i];
    if (x->state == R_WAITING) { /* decided while waiting: its timer goes */
        r->qlen--;
        x->state = R_NEW;
        if (x->expire >= 0) {
            qc_sim_cancel(&r->sim, x->expire);
            x->expire = -1;
        }
    }
    switch (d->act) {
    case QC_FRONT_ADMIT:
        x->tok = d->tok;
        x->t_adm = r->sim.now;
        r->inflight++;
        send_to_backend(r, i);
        break;
    case QC_FRONT_WAIT: {
        x->state = R_WAITING;
        r->qlen++;
        double t = d->deadline > r->sim.now ? d->deadline : r->sim.now;
        if (isfinite(t)) {
            int64_t h = qc_sim_at(&r->sim, t, EV_EXPIRE, i);
            if (h < 0)
                r->oom = 1;
            x->expire = h;
        }
        break;
    }
    case QC_FRONT_REFUSE:
        refuse(r, i, reason_of(d->reason));
        break;
    }
}

static void apply_all(run *r, int n)
{
    if (n < 0) { /* the decision array is sized by the front: not reached */
        r->oom = 1;
        return;
    }
    for (int j = 0; j < n; j++)
        apply(r, &r->dec[j]);
}

static void front_arrive(run *r, uint32_t i)
{
    apply_all(r, qc_front_arrive_n(r->front, r->sim.now, r->rq[i].cls, i, r->dec, r->ndec));
}

/* The answer of request i left its backend after `service` seconds there. */
static void front_done(run *r, uint32_t i, double service)
{
    req *x = &r->rq[i];
    r->inflight--;
    qc_front_token tok = x->tok;
    req_free(r, i); /* before the decisions: the front no longer names it */
    apply_all(r, qc_front_done(r->front, r->sim.now, &tok, service, QC_FRONT_OK, r->dec,
                               r->ndec));
}

static void front_tick(run *r)
{
    apply_all(r, qc_front_tick(r->front, r->sim.now, r->dec, r->ndec));
}

static void front_expire(run *r)
{
    apply_all(r, qc_front_expire(r->front, r->sim.now, r->dec, r->ndec));
}

static uint32_t front_limit(run *r)
{
    return qc_limiter_limit(qc_front_limiter(r->front));
}

/* ---- events ------------------------------------------------------------- */

static void arrive(run *r, unsigned k)
{
    uint32_t i = req_new(r);
    if (i == NIL) {
        r->oom = 1;
        return;
    }
    req *x = &r->rq[i];
    x->cls = (uint16_t)k;
    x->t_arr = r->sim.now;
    x->measured = (uint8_t)in_window(r, r->sim.now);
    if (x->measured) {
        r->t[k].offered++;
        r->t[r->K].offered++;
    }
    front_arrive(r, i);
}

/* Request i's answer reached the proxy: its client gets it, and the front
 * is told, with the time since the request was sent (the proxy's measure:
 * the service, the backend's queue and the transit). */
static void back(run *r, uint32_t i)
{
    req *x = &r->rq[i];
    unsigned k = x->cls;
    backend *bk = &r->bk[x->backend];
    bk->inflight--;
    if (bk->inflight == 0)
        bk->idle_since = r->sim.now;
    double lat = r->sim.now - x->t_arr + (r->p->overhead ? qc_sampler_next(&r->over) : 0);
    if (x->measured) {
        tally *t[2] = {&r->t[k], &r->t[r->K]};
        for (int j = 0; j < 2; j++) {
            t[j]->answered++;
            t[j]->admitted++;
            t[j]->lat_sum += lat;
            t[j]->wait_sum += x->t_adm - x->t_arr;
            qc_hist_add(t[j]->hist, lat);
        }
    }
    count_answer(r, k, 1);
    /* the time at the backend as the proxy measures it: sent to answered */
    front_done(r, i, r->sim.now - x->t_adm);
    client_answered(r, k);
}

/* Request i's service ended: its worker is free at once (the next in the
 * backend's queue starts, as `qctl backend` starts it at the nominal end
 * of the one before), and its answer reaches the proxy after the transit
 * (at once without one), holding its slot until then. */
static void done(run *r, uint32_t i)
{
    unsigned b = r->rq[i].backend;
    backend *bk = &r->bk[b];
    busy_mark(r);
    bk->busy--;
    if (bk->head != NIL) {
        uint32_t j = bk->head;
        bk->head = r->rq[j].next;
        if (bk->head == NIL)
            bk->tail = NIL;
        bk->queued--;
        start_service(r, b, j);
    }
    if (r->p->transit) {
        double t = qc_sampler_next(&r->transit);
        if (qc_sim_after(&r->sim, t > 0 && isfinite(t) ? t : 0, EV_BACK, i) < 0)
            r->oom = 1;
        return;
    }
    back(r, i);
}

/* A deadline the front gave came: it refuses what is past its own. */
static void expire(run *r, uint32_t i)
{
    r->rq[i].expire = -1;
    front_expire(r);
}

static int series_add(run *r)
{
    if (r->slen == r->scap && qc__grow((void **)&r->series, &r->scap, r->slen,
                                        sizeof *r->series) != 0)
        return QC_ENOMEM;
    r->series[r->slen++] = (qc_psim_series_point){
        r->sim.now, r->p->control ? (double)front_limit(r) : NAN,
        (double)r->inflight, (double)r->qlen};
    return 0;
}

/* ---- a replication ---- */

/* The front the proxy would build from its flags (src/live/proxy.c's
 * proxy_front_config): the named classes, then best effort last, which
 * the proxy always has (here no client sends to it). */
static qc_front_params front_config(const qc_psim_params *p, unsigned rep)
{
    qc_front_params fp;
    qc_front_params_init(&fp, p->limiter.algo);
    fp.control = p->control;
    fp.limiter = p->limiter;
    fp.limiter.vegas.seed = p->limiter.vegas.seed + rep;
    fp.limiter.envoy.seed = p->limiter.envoy.seed + rep;
    fp.classes = p->nclasses + 1;
    fp.candidates = 0;
    for (unsigned k = 0; k < fp.classes; k++) {
        fp.bound[k] = k < p->nclasses ? p->cls[k].bound : 0;
        if (k < p->nclasses && p->cls[k].candidate)
            fp.candidates |= 1u << k;
    }
    fp.queue = p->queue;
    fp.queue_timeout = p->queue_timeout;
    fp.discipline = p->discipline == QC_PSIM_CODEL ? QC_FRONT_CODEL : QC_FRONT_FIFO;
    fp.codel.target = p->queue_target;
    fp.codel.interval = p->interval;
    fp.sample_every = p->sample_every;
    fp.sample_least = p->sample_least;
    return fp;
}

/* ---- (the replication) -------------------------------------------------------- */

typedef struct ws {
    run r;
    const qc_psim_params *p;
    int want_series;
} ws;

static void run_clear(run *r)
{
    for (unsigned k = 0; k <= r->K; k++) {
        qc_hist *h = r->t[k].hist;
        memset(&r->t[k], 0, sizeof r->t[k]);
        r->t[k].hist = h;
        if (h)
            qc_hist_reset(h);
    }
}

static int rep_setup(run *r, unsigned rep, qc_err *err)
{
    const qc_psim_params *p = r->p;
    qc_sim_reset(&r->sim);
    run_clear(r);
    r->free_head = NIL;
    if (r->cap) { /* every slot free again */
        for (uint32_t i = 0; i < r->cap; i++)
            r->rq[i].next = i + 1 < r->cap ? i + 1 : NIL;
        r->free_head = 0;
    }
    memset(r->bk, 0, sizeof r->bk);
    for (unsigned b = 0; b < r->B; b++)
        r->bk[b].head = r->bk[b].tail = NIL;
    r->rr = 0;
    r->qlen = r->inflight = 0;
    r->t_on = p->warmup;
    r->t_end = p->warmup + p->horizon;
    r->busy_area = 0;
    r->busy_t = 0;
    r->lim_sum = 0;
    r->lim_n = 0;
    memset(r->goodput_n, 0, sizeof r->goodput_n);
    memset(r->rejected, 0, sizeof r->rejected);
    r->slen = 0;
    r->next_series = 0;
    r->oom = 0;

    qc_front_free(r->front);
    qc_front_params fp = front_config(p, rep);
    if ((r->front = qc_front_alloc(&fp, 0, err)) == NULL)
        return err->code ? err->code : QC_ENOMEM;

    if (p->overhead) {
        qc_rng_init(&r->rover, p->seed, qc_rng_stream(rep, QC_STREAM_MISC, 0));
        qc_sampler_init(&r->over, p->overhead, &r->rover);
    }
    if (p->transit) {
        qc_rng_init(&r->rtransit, p->seed, qc_rng_stream(rep, QC_STREAM_MISC, 1));
        qc_sampler_init(&r->transit, p->transit, &r->rtransit);
    }
    for (unsigned k = 0; k < r->K; k++) {
        const qc_psim_class *c = &p->cls[k];
        qc_rng_init(&r->rarr[k], p->seed, qc_rng_stream(rep, QC_STREAM_ARRIVAL, k));
        if (p->service_seed) /* `qctl backend --seed S`'s stream, whatever rep */
            qc_rng_init(&r->rsvc[k], p->service_seed, qc_rng_stream(0, QC_STREAM_SERVICE, 0));
        else
            qc_rng_init(&r->rsvc[k], p->seed, qc_rng_stream(rep, QC_STREAM_SERVICE, k));
        qc_rng_init(&r->ruser[k], p->seed, qc_rng_stream(rep, QC_STREAM_USER, k));
        qc_sampler_init(&r->svc[k], c->service ? c->service : p->service, &r->rsvc[k]);
        if (c->users > 0) {
            if (c->think)
                qc_sampler_init(&r->think[k], c->think, &r->ruser[k]);
            /* the users start thinking at time 0, so they do not all
             * send at once */
            for (unsigned u = 0; u < c->users; u++) {
                double th = c->think ? qc_sampler_next(&r->think[k]) : 0;
                if (qc_sim_after(&r->sim, th, EV_THINK, k) < 0)
                    return QC_ENOMEM;
            }
        } else {
            qc_arrivals_gen_init(&r->gen[k], c->arrival, &r->rarr[k]);
            double t = qc_arrivals_next(&r->gen[k]);
            if (isfinite(t) && qc_sim_at(&r->sim, t, EV_ARRIVE, k) < 0)
                return QC_ENOMEM;
        }
    }
    if (qc_sim_after(&r->sim, p->interval, EV_TICK, 0) < 0)
        return QC_ENOMEM;
    return 0;
}

static int rep_run(void *ctx, void *wsv, unsigned rep, qc__reps_worker *w, qc_err *err)
{
    (void)ctx;
    ws *W = wsv;
    run *r = &W->r;
    const qc_psim_params *p = r->p;
    int rc = rep_setup(r, rep, err);
    if (rc != 0)
        return rc;
    int series = W->want_series && rep == 0 && p->series_dt > 0;
    qc_event ev;
    uint64_t n = 0;
    while (qc_sim_next(&r->sim, &ev) == 0) {
        if (r->sim.now >= r->t_end)
            break;
        switch (ev.type) {
        case EV_ARRIVE: {
            unsigned k = (unsigned)ev.data;
            arrive(r, k);
            double t = qc_arrivals_next(&r->gen[k]);
            if (isfinite(t) && qc_sim_at(&r->sim, t, EV_ARRIVE, k) < 0)
                r->oom = 1;
            break;
        }
        case EV_THINK:
            arrive(r, (unsigned)ev.data);
            break;
        case EV_DONE:
            done(r, (uint32_t)ev.data);
            break;
        case EV_BACK:
            back(r, (uint32_t)ev.data);
            break;
        case EV_EXPIRE:
            expire(r, (uint32_t)ev.data);
            break;
        case EV_TICK:
            front_tick(r);
            if (p->control && in_window(r, r->sim.now)) {
                r->lim_sum += front_limit(r);
                r->lim_n++;
            }
            if (series && r->sim.now + 1e-9 >= r->next_series) {
                if (series_add(r) != 0)
                    r->oom = 1;
                r->next_series = r->sim.now + p->series_dt;
            }
            if (qc_sim_after(&r->sim, p->interval, EV_TICK, 0) < 0)
                r->oom = 1;
            break;
        default:
            break;
        }
        if (r->oom)
            return qc_err_set(err, QC_ENOMEM, "out of memory");
        if ((++n & (PROGRESS_EVERY - 1)) == 0) {
            qc__reps_progress(w, r->sim.now / r->t_end);
            if (p->cancel && qc_cancel_requested(p->cancel))
                return qc_err_set(err, QC_ECANCELED, "cancelled");
        }
    }
    r->sim.now = r->t_end;
    busy_mark(r);
    if (p->control) {
        qc_limiter_stats st;
        qc_limiter_get_stats(qc_front_limiter(r->front), &st);
        for (unsigned k = 0; k < r->K; k++)
            r->rejected[k] = p->limiter.algo == QC_LIMITER_ADMISSION &&
                             st.class_state[k] == QC_ADM_REJECTED;
    }
    return 0;
}

/* ---- the run ----------------------------------------------------------------- */

typedef struct shared {
    const qc_psim_params *p;
    unsigned K;
    double *val; /* [rep][K + 1][metric], then [rep] limit, [rep] utilization */
    qc_psim_result *res;
    qc_hist *all;
    uint64_t events;
} shared;

static size_t val_at(const shared *s, unsigned rep, unsigned k, unsigned m)
{
    return ((size_t)rep * (s->K + 1) + k) * QC_PSIM_NMETRICS + m;
}

static int rep_merge(void *ctx, void *wsv, unsigned rep, qc_err *err)
{
    (void)err;
    shared *s = ctx;
    ws *W = wsv;
    run *r = &W->r;
    const qc_psim_params *p = s->p;
    for (unsigned k = 0; k <= s->K; k++) {
        const tally *t = &r->t[k];
        double *v = &s->val[val_at(s, rep, k, 0)];
        v[QC_PSIM_OFFERED] = (double)t->offered / p->horizon;
        v[QC_PSIM_GOODPUT] = (double)r->goodput_n[k] / p->horizon;
        if (t->admitted > 0) {
            v[QC_PSIM_LATENCY] = t->lat_sum / (double)t->admitted;
            v[QC_PSIM_WAIT] = t->wait_sum / (double)t->admitted;
            static const double q[3] = {0.5, 0.95, 0.99};
            qc_hist_quantiles_interp(t->hist, q, 3, &v[QC_PSIM_P50]);
        } else {
            v[QC_PSIM_LATENCY] = v[QC_PSIM_WAIT] = NAN;
            v[QC_PSIM_P50] = v[QC_PSIM_P95] = v[QC_PSIM_P99] = NAN;
        }
        uint64_t refused = 0;
        for (int j = 0; j < QC_PSIM_NREASONS; j++)
            refused += t->refused[j];
        double ans = (double)t->answered;
        v[QC_PSIM_REFUSED] = t->answered ? (double)refused / ans : NAN;
        for (int j = 0; j < QC_PSIM_NREASONS; j++)
            v[QC_PSIM_REFUSED_FULL + j] = t->answered ? (double)t->refused[j] / ans : NAN;
        if (k == s->K)
            qc_hist_merge(s->all, t->hist);
        s->res->requests += k == s->K ? t->offered : 0;
    }
    double *tail = &s->val[val_at(s, p->reps, 0, 0)];
    tail[rep] = r->lim_n ? r->lim_sum / (double)r->lim_n : NAN;
    tail[p->reps + rep] = r->busy_area / (p->horizon * r->B * p->workers);
    for (unsigned k = 0; k < s->K; k++)
        s->res->rejected[k] += r->rejected[k];
    s->events += r->sim.events;
    if (rep == 0 && r->slen) {
        s->res->series = r->series;
        s->res->series_len = r->slen;
        r->series = NULL;
        r->slen = r->scap = 0;
    }
    return 0;
}

/* A t-interval over the finite values of x[0..n) (stride apart); none:
 * NAN with n = 0. One: the value, no interval. */
static void ci_of(const double *x, size_t n, size_t stride, double level, qc_ci *out)
{
    double buf[4096];
    size_t m = 0;
    for (size_t i = 0; i < n && m < sizeof buf / sizeof buf[0]; i++)
        if (isfinite(x[i * stride]))
            buf[m++] = x[i * stride];
    *out = (qc_ci){NAN, NAN, NAN, NAN, level, 0};
    if (m == 0)
        return;
    if (m == 1) {
        *out = (qc_ci){buf[0], NAN, NAN, NAN, level, 1};
        return;
    }
    qc_ci_t(buf, m, level, out, NULL);
}

static int check(const qc_psim_params *p, qc_err *err)
{
    if (p->backends < 1 || p->backends > QC_PSIM_BACKENDS_MAX)
        return qc_err_set(err, QC_EINVAL, "backends: %u is not in [1, %d]", p->backends,
                          QC_PSIM_BACKENDS_MAX);
    if (p->workers < 1 || p->workers > 100000)
        return qc_err_set(err, QC_EINVAL, "workers: %u is not in [1, 100000]", p->workers);
    if (p->route == QC_PSIM_DJSQ && p->threshold < 1)
        return qc_err_set(err, QC_EINVAL, "threshold: T = %u; delay-JSQ needs T >= 1",
                          p->threshold);
    if ((unsigned)p->route > QC_PSIM_DJSQ)
        return qc_err_set(err, QC_EINVAL, "route: %d is not a routing", (int)p->route);
    if ((unsigned)p->discipline > QC_PSIM_CODEL)
        return qc_err_set(err, QC_EINVAL, "queue discipline: %d is not one", (int)p->discipline);
    if (p->service_seed) {
        if (p->backends != 1)
            return qc_err_set(err, QC_EINVAL,
                              "service seed: one backend's sequence, but %u backends",
                              p->backends);
        for (unsigned k = 0; k < p->nclasses && k < QC_PSIM_CLASSES_MAX; k++)
            if (p->cls[k].service)
                return qc_err_set(err, QC_EINVAL,
                                  "service seed: one sequence of one law, but class %s has "
                                  "its own service",
                                  p->cls[k].name ? p->cls[k].name : "?");
    }
    if (p->overhead) {
        double m = qc_dist_mean(p->overhead);
        if (!(m >= 0 && isfinite(m)))
            return qc_err_set(err, QC_EINVAL, "overhead: mean %g is not >= 0", m);
    }
    if (p->transit) {
        double m = qc_dist_mean(p->transit);
        if (!(m >= 0 && isfinite(m)))
            return qc_err_set(err, QC_EINVAL, "transit: mean %g is not >= 0", m);
    }
    if (!(p->interval > 0 && isfinite(p->interval)))
        return qc_err_set(err, QC_EINVAL, "interval: %g is not > 0", p->interval);
    if (!(p->queue_timeout > 0 && isfinite(p->queue_timeout)))
        return qc_err_set(err, QC_EINVAL, "queue timeout: %g is not a positive time",
                          p->queue_timeout);
    if (!(p->queue_target >= 0 && isfinite(p->queue_target)))
        return qc_err_set(err, QC_EINVAL, "queue target: %g is not >= 0", p->queue_target);
    if (p->queue > (1u << 24))
        return qc_err_set(err, QC_EINVAL, "queue: %u places is too many", p->queue);
    if (p->nclasses < 1 || p->nclasses > QC_PSIM_CLASSES_MAX)
        return qc_err_set(err, QC_EINVAL, "classes: %u is not in [1, %d]", p->nclasses,
                          QC_PSIM_CLASSES_MAX);
    int need_service = 0;
    for (unsigned k = 0; k < p->nclasses; k++) {
        const qc_psim_class *c = &p->cls[k];
        const char *nm = c->name ? c->name : "?";
        int open = c->arrival != NULL && c->arrival->kind != QC_ARRIVALS_NONE;
        if (open == (c->users > 0))
            return qc_err_set(err, QC_EINVAL,
                              "class %s: give an arrival process or users, one of them", nm);
        if (c->users > QC_PSIM_USERS_MAX)
            return qc_err_set(err, QC_EINVAL, "class %s: users %u is above %d", nm, c->users,
                              QC_PSIM_USERS_MAX);
        if (c->think && !(qc_dist_mean(c->think) >= 0))
            return qc_err_set(err, QC_EINVAL, "class %s: think time has no mean >= 0", nm);
        if (!(c->bound >= 0 && isfinite(c->bound)))
            return qc_err_set(err, QC_EINVAL, "class %s: bound %g is not >= 0", nm, c->bound);
        if (c->service) {
            double m = qc_dist_mean(c->service);
            if (!(m > 0 && isfinite(m)))
                return qc_err_set(err, QC_EINVAL, "class %s: service mean %g is not > 0", nm, m);
        } else {
            need_service = 1;
        }
    }
    if (need_service) {
        if (p->service == NULL || p->service->kind == QC_DIST_NONE)
            return qc_err_set(err, QC_EINVAL, "service: no distribution given");
        double m = qc_dist_mean(p->service);
        if (!(m > 0 && isfinite(m)))
            return qc_err_set(err, QC_EINVAL, "service: mean %g is not > 0", m);
    }
    if (!(p->horizon > 0 && isfinite(p->horizon)))
        return qc_err_set(err, QC_EINVAL, "time: %g is not > 0", p->horizon);
    if (!(p->warmup >= 0 && isfinite(p->warmup)))
        return qc_err_set(err, QC_EINVAL, "warmup: %g is not >= 0", p->warmup);
    if (p->reps < 1 || p->reps > 4096)
        return qc_err_set(err, QC_EINVAL, "reps: %u is not in [1, 4096]", p->reps);
    if (!(p->level > 0 && p->level < 1))
        return qc_err_set(err, QC_EINVAL, "confidence: %g is not in (0, 1)", p->level);
    if (!(p->series_dt >= 0 && isfinite(p->series_dt)))
        return qc_err_set(err, QC_EINVAL, "series interval: %g is not >= 0", p->series_dt);
    if (p->series_dt > 0 && (p->warmup + p->horizon) / p->series_dt > 1e7)
        return qc_err_set(err, QC_EINVAL, "series interval: %g gives over 1e7 points",
                          p->series_dt);
    qc_front_params fp = front_config(p, 0);
    qc_front *f = qc_front_alloc(&fp, 0, err);
    if (f == NULL)
        return err && err->code ? err->code : QC_EINVAL;
    qc_front_free(f);
    return 0;
}

static void ws_free(ws *W)
{
    if (W == NULL)
        return;
    run *r = &W->r;
    qc_sim_free(&r->sim);
    free(r->rq);
    qc_front_free(r->front);
    free(r->dec);
    for (unsigned k = 0; k <= QC_PSIM_CLASSES_MAX; k++)
        qc_hist_free(r->t[k].hist);
    free(r->series);
    free(W);
}

static ws *ws_new(const qc_psim_params *p, int want_series)
{
    ws *W = calloc(1, sizeof *W);
    if (W == NULL)
        return NULL;
    run *r = &W->r;
    r->p = W->p = p;
    r->K = p->nclasses;
    r->B = p->backends;
    W->want_series = want_series;
    r->free_head = NIL;
    r->ndec = (size_t)p->queue + 1; /* qc_front_max_decisions */
    if (qc_sim_init(&r->sim, 1024, NULL) != 0 ||
        (r->dec = calloc(r->ndec, sizeof *r->dec)) == NULL)
        goto fail;
    for (unsigned k = 0; k <= r->K; k++)
        if ((r->t[k].hist = qc_hist_alloc(NULL)) == NULL)
            goto fail;
    return W;
fail:
    ws_free(W);
    return NULL;
}

int qc_psim_params_check(const qc_psim_params *p, qc_err *err)
{
    return check(p, err);
}

int qc_psim_run(const qc_psim_params *p, qc_psim_result *res, qc_err *err)
{
    memset(res, 0, sizeof *res);
    int rc = check(p, err);
    if (rc != 0)
        return rc;
    unsigned jobs = qc__workers_count(p->jobs, p->reps, 256);
    shared s = {.p = p, .K = p->nclasses, .res = res};
    size_t nval = (size_t)p->reps * (p->nclasses + 1) * QC_PSIM_NMETRICS + 2 * (size_t)p->reps;
    ws *wss[256] = {0};
    void *wsp[256];
    s.val = malloc(nval * sizeof *s.val);
    s.all = qc_hist_alloc(NULL);
    if (s.val == NULL || s.all == NULL) {
        rc = qc_err_set(err, QC_ENOMEM, "out of memory");
        goto out;
    }
    for (unsigned j = 0; j < jobs; j++) {
        if ((wss[j] = ws_new(p, 1)) == NULL) {
            rc = qc_err_set(err, QC_ENOMEM, "out of memory");
            goto out;
        }
        wsp[j] = wss[j];
    }
    qc__reps h = {.jobs = jobs,
                  .ws = wsp,
                  .run = rep_run,
                  .merge = rep_merge,
                  .ctx = &s,
                  .progress = p->progress,
                  .progress_ctx = p->progress_ctx,
                  .total = p->reps,
                  .cancel = p->cancel};
    unsigned failed = 0;
    if ((rc = qc__reps_run(&h, 0, p->reps, &failed, err)) != 0)
        goto out;
    for (unsigned k = 0; k <= p->nclasses; k++) {
        qc_ci *dst = k < p->nclasses ? res->cls[k] : res->all;
        for (unsigned m = 0; m < QC_PSIM_NMETRICS; m++)
            ci_of(&s.val[val_at(&s, 0, k, m)], p->reps, (size_t)(p->nclasses + 1) * QC_PSIM_NMETRICS,
                  p->level, &dst[m]);
    }
    double *tail = &s.val[val_at(&s, p->reps, 0, 0)];
    ci_of(tail, p->reps, 1, p->level, &res->limit);
    ci_of(tail + p->reps, p->reps, 1, p->level, &res->utilization);
    double open_rate = 0, load_work = 0;
    int closed = 0;
    for (unsigned k = 0; k < p->nclasses; k++) {
        const qc_psim_class *c = &p->cls[k];
        if (c->users > 0) {
            closed = 1;
            continue;
        }
        double lam = qc_arrivals_mean_rate(c->arrival);
        open_rate += lam;
        load_work += lam * qc_dist_mean(c->service ? c->service : p->service);
    }
    res->offered_load = closed || !isfinite(open_rate) ? NAN
                                                       : load_work / (p->backends * p->workers);
    res->events = s.events;
    res->latency_hist = s.all;
    s.all = NULL;
out:
    for (unsigned j = 0; j < jobs && j < 256; j++)
        ws_free(wss[j]);
    free(s.val);
    qc_hist_free(s.all);
    if (rc != 0)
        qc_psim_result_free(res);
    return rc;
}

void qc_psim_result_free(qc_psim_result *r)
{
    if (r == NULL)
        return;
    qc_hist_free(r->latency_hist);
    free(r->series);
    r->latency_hist = NULL;
    r->series = NULL;
    r->series_len = 0;
}
