/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_codel.c: the queue discipline (qctl/codel.h) on its own, and driven
 * by one hand-written sequence of requests (arrival times and service
 * times, a light load, a 3x overload, a light load again) through two
 * harnesses that must take the same actions:
 *
 *   sim   a discrete-event simulation on the core event queue (qc_evq):
 *         arrivals, departures, reneging at the deadline in force when the
 *         request joined, control ticks, as a simulated plant runs it;
 *   live  the proxy's call order (src/live/proxy.c): a request let in at
 *         once only when nothing waits, a doubly linked waiting list (the
 *         LIFO end its tail), the head checked before each dequeue, a
 *         deadline timer per waiting request, the tick after the pump.
 *
 * Each request's fate (let in at once, let in after waiting, refused by
 * the short deadline, refused at its deadline, no room) and instant, and
 * the standing state at each tick, must agree ("at its deadline" is
 * mostly the short one: the target, for a request that joined while the
 * queue stood); another target must not
 * (the comparison can fail). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/codel.h"
#include "qctl/evq.h"

#define NREQ 900
#define SLOTS 4
#define ROOM 128
#define DEADLINE 1.0
#define TICK 0.1
#define NTICK 170
#define L0 0.01

enum { F_NONE, F_AT_ONCE, F_WAITED, F_SHED, F_TIMEOUT, F_NO_ROOM };

typedef struct run {
    int fate[NREQ];
    double when[NREQ];
    int standing[NTICK];
} run;

/* Arrival times: a light load (20/s) for 1 s, 3x overload (600/s against
 * SLOTS / 0.02 = 200/s) for 1 s, a light load again to 4 s; services
 * around 0.02 s. Gaps from a small LCG with an irrational offset, so that
 * no two events coincide (the order of simultaneous events would matter). */
static void make_trace(double *arr, double *svc)
{
    uint64_t s = 4242;
    double t = 0.0123;
    for (int i = 0; i < NREQ; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(s >> 11) / 9007199254740992.0;
        double rate = t >= 1 && t < 2 ? 600 : 20;
        t += -log(1 - u * 0.999) / rate + 1e-7 * sqrt(2.0);
        arr[i] = t;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        u = (double)(s >> 11) / 9007199254740992.0;
        svc[i] = 0.015 + 0.01 * u;
    }
}

static qc_codel make_codel(double target)
{
    qc_codel_params p;
    qc_codel_params_init(&p);
    p.target = target;
    p.interval = TICK;
    qc_codel c;
    assert_int_equal(qc_codel_init(&c, &p, NULL), 0);
    qc_codel_set_noload(&c, L0);
    return c;
}

/* ---- sim: events on qc_evq -------------------------------------------------- */

enum { EV_ARRIVE, EV_DEPART, EV_RENEGE, EV_TICK };

typedef struct simq {
    int w[NREQ]; /* waiting, in arrival order between head and tail */
    int head, tail;
    int64_t renege[NREQ];
} simq;

static double sim_head_wait(const simq *q, const double *arr, double now)
{
    return q->head < q->tail ? now - arr[q->w[q->head]] : NAN;
}

static void sim_remove(simq *q, int pos)
{
    memmove(&q->w[pos], &q->w[pos + 1], (size_t)(q->tail - pos - 1) * sizeof q->w[0]);
    q->tail--;
}

static void sim_shed(qc_codel *c, simq *q, qc_evq *ev, const double *arr, double now, run *r)
{
    while (q->head < q->tail && qc_codel_expired(c, now - arr[q->w[q->head]])) {
        int i = q->w[q->head++];
        qc_evq_cancel(ev, q->renege[i]);
        r->fate[i] = F_SHED;
        r->when[i] = now;
    }
}

static void sim_pump(qc_codel *c, simq *q, qc_evq *ev, const double *arr, const double *svc,
                     double now, int *busy, run *r)
{
    while (q->head < q->tail && *busy < SLOTS) {
        if (qc_codel_head(c, sim_head_wait(q, arr, now)))
            sim_shed(c, q, ev, arr, now, r);
        if (q->head == q->tail)
            break;
        int i;
        if (qc_codel_lifo(c, sim_head_wait(q, arr, now)))
            i = q->w[--q->tail];
        else
            i = q->w[q->head++];
        qc_evq_cancel(ev, q->renege[i]);
        double waited = now - arr[i];
        if (qc_codel_expired(c, waited)) {
            r->fate[i] = F_SHED;
            r->when[i] = now;
            continue;
        }
        ++*busy;
        qc_codel_admitted(c, waited);
        r->fate[i] = F_WAITED;
        r->when[i] = now;
        qc_evq_push(ev, now + svc[i], EV_DEPART, (uint64_t)i);
    }
}

static void run_sim(double target, const double *arr, const double *svc, run *r)
{
    qc_codel c = make_codel(target);
    qc_evq *ev = qc_evq_alloc(64, NULL);
    assert_non_null(ev);
    static simq q;
    q.head = q.tail = 0;
    memset(r, 0, sizeof *r);
    for (int i = 0; i < NREQ; i++)
        qc_evq_push(ev, arr[i], EV_ARRIVE, (uint64_t)i);
    for (int k = 1; k <= NTICK; k++)
        qc_evq_push(ev, k * TICK, EV_TICK, (uint64_t)k - 1);
    int busy = 0;
    qc_event e;
    while (qc_evq_pop(ev, &e) == 0) {
        int i = (int)e.data;
        switch (e.type) {
        case EV_ARRIVE:
            if (q.head == q.tail && busy < SLOTS) {
                busy++;
                qc_codel_admitted(&c, 0);
                r->fate[i] = F_AT_ONCE;
                r->when[i] = e.t;
                qc_evq_push(ev, e.t + svc[i], EV_DEPART, (uint64_t)i);
            } else if (q.tail - q.head >= ROOM) {
                r->fate[i] = F_NO_ROOM;
                r->when[i] = e.t;
            } else {
                if (q.head > 0 && q.head == q.tail)
                    q.head = q.tail = 0;
                q.w[q.tail++] = i;
                q.renege[i] = qc_evq_push(ev, e.t + qc_codel_deadline(&c, DEADLINE), EV_RENEGE,
                                          (uint64_t)i);
            }
            break;
        case EV_DEPART:
            busy--;
            sim_pump(&c, &q, ev, arr, svc, e.t, &busy, r);
            break;
        case EV_RENEGE:
            for (int p = q.head; p < q.tail; p++)
                if (q.w[p] == i) {
                    sim_remove(&q, p);
                    break;
                }
            r->fate[i] = F_TIMEOUT;
            r->when[i] = e.t;
            break;
        case EV_TICK:
            sim_pump(&c, &q, ev, arr, svc, e.t, &busy, r);
            if (qc_codel_tick(&c, sim_head_wait(&q, arr, e.t)))
                sim_shed(&c, &q, ev, arr, e.t, r);
            r->standing[i] = c.standing;
            break;
        }
    }
    qc_evq_free(ev);
}

/* ---- live: the proxy's call order ------------------------------------------ */

typedef struct liveq {
    int qnext[NREQ], qprev[NREQ]; /* -1: none */
    int qhead, qtail, qlen;
    double deadline[NREQ]; /* the timer of a waiting request */
    int queued[NREQ];
} liveq;

static void live_unqueue(liveq *q, int c)
{
    if (q->qprev[c] >= 0)
        q->qnext[q->qprev[c]] = q->qnext[c];
    else
        q->qhead = q->qnext[c];
    if (q->qnext[c] >= 0)
        q->qprev[q->qnext[c]] = q->qprev[c];
    else
        q->qtail = q->qprev[c];
    q->qnext[c] = q->qprev[c] = -1;
    q->queued[c] = 0;
    q->qlen--;
}

static double live_head_wait(const liveq *q, const double *arr, double now)
{
    return q->qhead >= 0 ? now - arr[q->qhead] : NAN;
}

static void live_shed(qc_codel *c, liveq *q, const double *arr, double now, run *r)
{
    while (q->qhead >= 0 && qc_codel_expired(c, now - arr[q->qhead])) {
        int i = q->qhead;
        live_unqueue(q, i);
        r->fate[i] = F_SHED;
        r->when[i] = now;
    }
}

static void live_pump(qc_codel *c, liveq *q, const double *arr, const double *svc, double now,
                      double *end, run *r)
{
    while (q->qlen) {
        int slot = -1;
        for (int k = 0; k < SLOTS; k++)
            if (end[k] == INFINITY)
                slot = k;
        if (slot < 0)
            return;
        if (qc_codel_head(c, live_head_wait(q, arr, now)))
            live_shed(c, q, arr, now, r);
        if (q->qhead < 0)
            continue;
        int lifo = qc_codel_lifo(c, live_head_wait(q, arr, now));
        int i = lifo ? q->qtail : q->qhead;
        live_unqueue(q, i);
        double waited = now - arr[i];
        if (qc_codel_expired(c, waited)) {
            r->fate[i] = F_SHED;
            r->when[i] = now;
            continue;
        }
        end[slot] = now + svc[i];
        qc_codel_admitted(c, waited);
        r->fate[i] = F_WAITED;
        r->when[i] = now;
    }
}

static void run_live(double target, const double *arr, const double *svc, run *r)
{
    qc_codel c = make_codel(target);
    static liveq q;
    q.qhead = q.qtail = -1;
    q.qlen = 0;
    for (int i = 0; i < NREQ; i++) {
        q.qnext[i] = q.qprev[i] = -1;
        q.queued[i] = 0;
    }
    memset(r, 0, sizeof *r);
    double end[SLOTS];
    for (int k = 0; k < SLOTS; k++)
        end[k] = INFINITY;
    int next = 0, tick = 0;
    for (;;) {
        /* the next callback: an arrival, a backend's answer, a deadline
         * timer or the control timer */
        double t = next < NREQ ? arr[next] : INFINITY;
        int kind = 0, who = next;
        for (int k = 0; k < SLOTS; k++)
            if (end[k] < t) {
                t = end[k];
                kind = 1;
                who = k;
            }
        for (int i = q.qhead; i >= 0; i = q.qnext[i])
            if (q.deadline[i] < t) {
                t = q.deadline[i];
                kind = 2;
                who = i;
            }
        if (tick < NTICK && (tick + 1) * TICK < t) {
            t = (tick + 1) * TICK;
            kind = 3;
        }
        if (t == INFINITY)
            break;
        if (kind == 0) { /* on_request: admitted at once only when none waits */
            next++;
            int free_slot = -1;
            for (int k = 0; k < SLOTS; k++)
                if (end[k] == INFINITY)
                    free_slot = k;
            if (q.qlen == 0 && free_slot >= 0) {
                end[free_slot] = t + svc[who];
                qc_codel_admitted(&c, 0);
                r->fate[who] = F_AT_ONCE;
                r->when[who] = t;
            } else if (q.qlen >= ROOM) {
                r->fate[who] = F_NO_ROOM;
                r->when[who] = t;
            } else { /* qlink at the tail, and its timer */
                q.qprev[who] = q.qtail;
                if (q.qtail >= 0)
                    q.qnext[q.qtail] = who;
                else
                    q.qhead = who;
                q.qtail = who;
                q.qlen++;
                q.queued[who] = 1;
                q.deadline[who] = t + qc_codel_deadline(&c, DEADLINE);
            }
        } else if (kind == 1) { /* the backend answered: a slot frees */
            end[who] = INFINITY;
            live_pump(&c, &q, arr, svc, t, end, r);
        } else if (kind == 2) { /* on_client_timer */
            live_unqueue(&q, who);
            r->fate[who] = F_TIMEOUT;
            r->when[who] = t;
        } else { /* on_control: pump, then codel_tick */
            live_pump(&c, &q, arr, svc, t, end, r);
            if (qc_codel_tick(&c, live_head_wait(&q, arr, t)))
                live_shed(&c, &q, arr, t, r);
            r->standing[tick++] = c.standing;
        }
    }
}

/* ---- the tests ------------------------------------------------------------- */

static void test_codel_rule(void **state)
{
    (void)state;
    qc_codel_params p;
    qc_codel_params_init(&p);
    qc_codel c;
    qc_err err = {0};
    p.floor = 0;
    assert_int_equal(qc_codel_init(&c, &p, &err), QC_ERANGE);
    assert_non_null(strstr(err.msg, "floor"));
    qc_codel_params_init(&p);
    assert_int_equal(qc_codel_init(&c, &p, NULL), 0);
    /* the target: fallback, then max(floor, k L0); the interval 0.1 s */
    assert_true(c.target == 0.05 && c.interval == 0.1);
    assert_true(qc_codel_set_noload(&c, 0.0002) == 0.005 && c.interval == 0.1);
    assert_true(qc_codel_set_noload(&c, 0.04) == 0.04 && c.interval == 0.1);
    assert_true(qc_codel_set_noload(&c, NAN) == 0.05);
    qc_codel_set_noload(&c, 0.01);
    /* standing only once the head waited past target + interval */
    assert_int_equal(qc_codel_head(&c, 0.109), 0);
    assert_int_equal(qc_codel_head(&c, NAN), 0);
    assert_true(qc_codel_deadline(&c, 1) == 1 && !qc_codel_expired(&c, 0.5));
    /* LIFO before the queue stands, once the oldest waited past the target */
    assert_true(!qc_codel_lifo(&c, NAN) && !qc_codel_lifo(&c, 0.009) && qc_codel_lifo(&c, 0.011));
    assert_int_equal(qc_codel_head(&c, 0.111), 1);
    assert_int_equal(qc_codel_head(&c, 0.2), 0); /* already standing */
    assert_true(qc_codel_deadline(&c, 1) == 0.01 && qc_codel_deadline(&c, 0.005) == 0.005);
    assert_true(qc_codel_lifo(&c, NAN) && qc_codel_expired(&c, 0.011) && !qc_codel_expired(&c, 0.009));
    /* it stands until a request gets in at once, whatever the least wait */
    qc_codel_admitted(&c, 0.002);
    assert_int_equal(qc_codel_tick(&c, 0.005), 1);
    qc_codel_admitted(&c, 0.004); /* the last waiting one: queue empty, slots busy */
    assert_int_equal(qc_codel_tick(&c, NAN), 1);
    qc_codel_admitted(&c, 0); /* one in at once */
    assert_int_equal(qc_codel_tick(&c, 0.03), 0);
    /* a fixed target ignores L0 */
    p.target = 0.03;
    assert_int_equal(qc_codel_init(&c, &p, NULL), 0);
    assert_true(qc_codel_set_noload(&c, 0.5) == 0.03);
}

static void test_codel_sim_and_live(void **state)
{
    (void)state;
    static double arr[NREQ], svc[NREQ];
    make_trace(arr, svc);
    assert_true(arr[NREQ - 1] < NTICK * TICK - 0.2); /* the last ticks see it drain */
    static run sim, live, other;
    run_sim(0, arr, svc, &sim);
    run_live(0, arr, svc, &live);
    int counts[6] = {0}, light_refused = 0, lifo = 0, stood = 0, long_wait = 0;
    double max_wait = 0;
    for (int i = 0; i < NREQ; i++) {
        assert_int_equal(sim.fate[i], live.fate[i]);
        assert_true(sim.when[i] == live.when[i]);
        assert_true(sim.fate[i] != F_NONE);
        counts[sim.fate[i]]++;
        int in = sim.fate[i] == F_AT_ONCE || sim.fate[i] == F_WAITED;
        light_refused += !in && (arr[i] < 1 || arr[i] > 2.5);
        if (in) { /* the target is L0 (adaptive, above the floor) */
            long_wait += sim.when[i] - arr[i] > 2 * L0;
            max_wait = fmax(max_wait, sim.when[i] - arr[i]);
        }
        for (int j = i + 1; j < NREQ && sim.fate[i] == F_WAITED; j++)
            lifo += sim.fate[j] == F_WAITED && sim.when[j] < sim.when[i]; /* a later one first */
    }
    for (int k = 0; k < NTICK; k++) {
        assert_int_equal(sim.standing[k], live.standing[k]);
        stood += sim.standing[k];
    }
    print_message("codel: %d at once, %d after waiting, %d shed, %d at deadline, %d no room; "
                  "standing %d of %d ticks, %d let in before an earlier one; "
                  "%d let in after waiting over two targets, the longest %.1f ms\n",
                  counts[F_AT_ONCE], counts[F_WAITED], counts[F_SHED], counts[F_TIMEOUT],
                  counts[F_NO_ROOM], stood, NTICK, lifo, long_wait, 1e3 * max_wait);
    /* every branch of the rule taken, and the light load let in whole */
    assert_true(counts[F_SHED] > 50 && counts[F_WAITED] > 50 && counts[F_AT_ONCE] > 20);
    assert_int_equal(light_refused, 0);
    assert_true(stood >= 3 && !sim.standing[0] && !sim.standing[NTICK - 1]);
    assert_true(lifo > 10);
    /* LIFO from the first wait past the target: none let in waited two
     * targets (52 did, up to 108 ms, with LIFO only once the queue stood) */
    assert_int_equal(long_wait, 0);
    /* the comparison can fail: a fixed target of 50 ms acts otherwise */
    run_live(0.05, arr, svc, &other);
    int differ = 0;
    for (int i = 0; i < NREQ; i++)
        differ += other.fate[i] != sim.fate[i] || other.when[i] != sim.when[i];
    assert_true(differ > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codel_rule),
        cmocka_unit_test(test_codel_sim_and_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
