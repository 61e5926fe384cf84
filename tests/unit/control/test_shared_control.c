/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_shared_control.c: the controllers shared by simulation and the live
 * proxy (qctl/fleet.h, qctl/sfq.h, qctl/aimd.h), each driven through one
 * hand-written sequence from a simulation harness and from a live
 * harness, which must take the same actions.
 *
 *   delay-JSQ  the simulated pool (qc_pool_run, deterministic service and
 *              setup, a fixed trace of arrivals) against the proxy's
 *              fleet (qc__fleet) replaying the same arrivals: the mean
 *              response times agree to rounding, and the replay with
 *              another threshold does not (the comparison can fail);
 *   SFQ        the simulated weighted server (qc_mc, three exponential
 *              classes), which charges each job its service at its
 *              departure, against the proxy's call order (join on an
 *              empty class queue, start and charge at admission, and a
 *              request let in at once without joining): the same
 *              departures in the same order;
 *   AIMD       the step object as sim admission steps it (qc_lim_conc, one
 *              sample per completion) against the live limiter
 *              (qc_limiter: acquire, release, tick): the same limit after
 *              every step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "live/fleet.h"
#include "qctl/arrivals.h"
#include "qctl/limiter.h"
#include "qctl/limiters.h"
#include "qctl/multiclass.h"
#include "qctl/pool.h"
#include "qctl/sfq.h"

/* ---- delay-JSQ ------------------------------------------------------------- */

#define NARR 600
#define NSRV 4

/* Fixed arrival times: gaps from a small LCG, mean 0.35, with many
 * digits so that no arrival coincides with a departure or a setup end
 * (ties would make the order of simultaneous events matter). */
static void make_trace(double *t)
{
    uint64_t s = 12345;
    double now = 0;
    for (int i = 0; i < NARR; i++) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        double u = (double)(s >> 11) / 9007199254740992.0;
        now += 0.7 * u + 0.0001 * sqrt(2.0);
        t[i] = now;
    }
}

/* The proxy's fleet on the same arrivals: FIFO at each backend, service
 * S, setup W from the unpark; never parked. Returns the mean response
 * time and counts the unparks. */
static double fleet_replay(const double *arr, unsigned T, double S, double W, unsigned *unparks)
{
    qc__fleet_params cfg = {.route = QC_FLEET_DJSQ,
                            .threshold = T,
                            .idle_off = INFINITY,
                            .min_on = 1,
                            .initially_on = 1};
    qc__fleet f;
    qc__fleet_init(&f, &cfg, NSRV, 0);
    qc__fleet_park(&f, 0, 0); /* the pool starts with every server OFF */
    qc__fleet_off(&f, 0, 0);
    static double q[NSRV][NARR]; /* arrival times of the jobs at each backend */
    unsigned head[NSRV] = {0}, tail[NSRV] = {0};
    double end[NSRV], ready[NSRV];
    for (unsigned i = 0; i < NSRV; i++)
        end[i] = ready[i] = INFINITY;
    double sum = 0;
    unsigned done = 0, next = 0;
    *unparks = 0;
    while (done < NARR) {
        /* the next event: an arrival, a setup end or a departure */
        double t = next < NARR ? arr[next] : INFINITY;
        int kind = 0, who = -1;
        for (unsigned i = 0; i < NSRV; i++) {
            if (ready[i] < t) {
                t = ready[i];
                kind = 1;
                who = (int)i;
            }
            if (end[i] < t) {
                t = end[i];
                kind = 2;
                who = (int)i;
            }
        }
        if (kind == 0) {
            int unparked;
            int i = qc__fleet_route(&f, t, &unparked);
            assert_true(i >= 0);
            q[i][tail[i]++] = t;
            if (unparked) {
                ++*unparks;
                ready[i] = t + W;
            }
            if (f.b[i].state == QC_FLEET_SETUP) {
                qc__fleet_wait(&f, (unsigned)i);
            } else {
                qc__fleet_sent(&f, (unsigned)i);
                if (end[i] == INFINITY)
                    end[i] = t + S;
            }
            next++;
        } else if (kind == 1) {
            unsigned i = (unsigned)who;
            ready[i] = INFINITY;
            qc__fleet_ready(&f, i, t);
            while (f.b[i].waiting) {
                qc__fleet_unwait(&f, i, t);
                qc__fleet_sent(&f, i);
            }
            end[i] = t + S;
        } else {
            unsigned i = (unsigned)who;
            sum += t - q[i][head[i]++];
            done++;
            qc__fleet_done(&f, i, 1, t);
            end[i] = head[i] < tail[i] ? t + S : INFINITY;
        }
    }
    return sum / NARR;
}

static void test_djsq_pool_and_fleet(void **state)
{
    (void)state;
    const double S = 1.0, W = 0.5;
    const unsigned T = 2;
    double *t = malloc(NARR * sizeof *t);
    assert_non_null(t);
    make_trace(t);
    double t0 = t[0];
    double shifted[NARR]; /* the trace is shifted to start at 0 */
    for (int i = 0; i < NARR; i++)
        shifted[i] = t[i] - t0;

    qc_arrivals arr;
    qc_err err = {0};
    assert_int_equal(qc_arrivals_from_times(&arr, t, NARR, &err), 0);
    qc_dist svc, setup;
    assert_int_equal(qc_dist_parse(&svc, "det:1", &err), 0);
    assert_int_equal(qc_dist_parse(&setup, "det:0.5", &err), 0);
    qc_pool_params p;
    qc_pool_params_init(&p);
    p.servers = NSRV;
    p.policy = QC_POOL_DJSQ;
    p.threshold = T;
    p.arrival = &arr;
    p.service = &svc;
    p.setup = &setup;
    p.idle_timer = INFINITY;
    p.customers = NARR; /* all of the trace */
    p.reps = 2; /* identical replications of the trace: their mean is the run */
    qc_pool_result res;
    int rc = qc_pool_run(&p, &res, &err);
    if (rc != 0)
        print_error("qc_pool_run: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(res.measured, 2 * NARR);
    double sim = res.metric[QC_PM_RESPONSE].mean;

    unsigned unparks;
    double live = fleet_replay(shifted, T, S, W, &unparks);
    print_message("djsq: pool %.12g, fleet %.12g, %u unparks\n", sim, live, unparks);
    assert_true(fabs(sim - live) <= 1e-9 * live);
    assert_true(unparks >= 2 && unparks <= NSRV); /* the rule turned servers on */
    assert_true(live > S + 0.01);                 /* and requests queued */
    /* the comparison can fail: another threshold routes otherwise */
    double other = fleet_replay(shifted, T + 2, S, W, &unparks);
    assert_true(fabs(sim - other) > 1e-6);
    qc_pool_result_free(&res);
    qc_arrivals_free(&arr);
}

/* ---- SFQ ------------------------------------------------------------------- */

#define SFQ_K 3
#define SFQ_MAXJOBS 4096

typedef struct job {
    unsigned cls;
    double arr, svc;
} job;

static void test_sfq_mc_and_proxy(void **state)
{
    (void)state;
    static const char *iat[SFQ_K] = {"exp:0.45", "exp:0.3", "exp:0.2"};
    static const char *svs[SFQ_K] = {"exp:1.1", "exp:1.5", "exp:2.5"};
    const double prio[SFQ_K] = {0.2, 0.3, 0.5};
    const double start[SFQ_K] = {0, 0.1234, 0.2345};
    qc_dist a[SFQ_K], s[SFQ_K];
    qc_mc_class cls[SFQ_K];
    qc_err err = {0};
    for (unsigned k = 0; k < SFQ_K; k++) {
        assert_int_equal(qc_dist_parse(&a[k], iat[k], &err), 0);
        assert_int_equal(qc_dist_parse(&s[k], svs[k], &err), 0);
        cls[k] = (qc_mc_class){.name = "c", .arrival = &a[k], .service = &s[k],
                               .start = start[k], .priority = prio[k]};
    }
    qc_mc_params mp;
    qc_mc_params_init(&mp);
    mp.nclass = SFQ_K;
    mp.cls = cls;
    mp.discipline = QC_MC_WEIGHTED;
    qc_mc *m = qc_mc_alloc(&mp, &err);
    assert_non_null(m);
    /* The simulation: arrivals until t = 1500, then everyone served. */
    static job sim[SFQ_MAXJOBS], arrivals[SFQ_MAXJOBS];
    size_t nsim = 0;
    qc_mc_report r;
    int stopped = 0;
    for (;;) {
        double stop = stopped ? INFINITY : 1500;
        assert_int_equal(qc_mc_advance(m, stop, QC_MC_EV_DEPART, &r), 0);
        if (r.what & QC_MC_EV_DEPART) {
            assert_true(nsim < SFQ_MAXJOBS);
            sim[nsim++] = (job){r.cls, r.arrival, r.service};
        } else if (!stopped) {
            for (unsigned k = 0; k < SFQ_K; k++)
                qc_mc_stop_class(m, k);
            stopped = 1;
        }
        if (stopped && qc_mc_present(m, QC_MC_MAX_CLASSES) == 0)
            break;
    }
    double w[SFQ_K];
    for (unsigned k = 0; k < SFQ_K; k++)
        w[k] = qc_mc_weight(m, k);
    qc_mc_free(m);
    assert_true(nsim > 500);

    /* The same arrivals, in time order. */
    memcpy(arrivals, sim, nsim * sizeof *sim);
    for (size_t i = 1; i < nsim; i++) /* insertion sort: nearly sorted */
        for (size_t j = i; j > 0 && arrivals[j].arr < arrivals[j - 1].arr; j--) {
            job x = arrivals[j];
            arrivals[j] = arrivals[j - 1];
            arrivals[j - 1] = x;
        }

    /* The proxy's order of calls, one request at a time at the backend,
     * each charged at its admission with its cost (known here, as if the
     * proxy's estimate were exact). */
    qc_sfq q;
    assert_int_equal(qc_sfq_init(&q, 0, &err), QC_EINVAL);
    assert_string_equal(err.msg, "fair queueing: 0 classes, not 1 to 32");
    assert_int_equal(qc_sfq_init(&q, SFQ_K, &err), 0);
    static job queue[SFQ_K][SFQ_MAXJOBS];
    size_t qh[SFQ_K] = {0}, qt[SFQ_K] = {0}, nlive = 0, next = 0;
    int busy = 0;
    job insvc = {0};
    double end = INFINITY;
    static job live[SFQ_MAXJOBS];
    size_t stale = 0; /* admitted at once with a pass behind vt */
    while (nlive < nsim) {
        if (next < nsim && arrivals[next].arr < end) {
            job j = arrivals[next++];
            if (!busy) { /* nothing waits: admitted at once */
                stale += q.pass[j.cls] < q.vt;
                qc_sfq_start(&q, j.cls);
                qc_sfq_charge(&q, j.cls, j.svc, w[j.cls]);
                busy = 1;
                insvc = j;
                end = j.arr + j.svc;
            } else {
                if (qh[j.cls] == qt[j.cls])
                    qc_sfq_join(&q, j.cls);
                queue[j.cls][qt[j.cls]++] = j;
            }
        } else {
            live[nlive++] = insvc;
            double now = end;
            busy = 0;
            end = INFINITY;
            uint32_t backlogged = 0;
            for (unsigned k = 0; k < SFQ_K; k++)
                backlogged |= (uint32_t)(qh[k] < qt[k]) << k;
            int k = qc_sfq_pick(&q, backlogged);
            if (k >= 0) {
                job j = queue[k][qh[k]++];
                qc_sfq_start(&q, (unsigned)k);
                qc_sfq_charge(&q, (unsigned)k, j.svc, w[k]);
                busy = 1;
                insvc = j;
                end = now + j.svc;
            }
        }
    }
    size_t out_of_fifo = 0; /* departures not in arrival order: SFQ at work */
    for (size_t i = 0; i < nsim; i++) {
        assert_int_equal(sim[i].cls, live[i].cls);
        assert_true(sim[i].arr == live[i].arr);
        out_of_fifo += i > 0 && sim[i].arr < sim[i - 1].arr;
    }
    print_message("sfq: %zu jobs, %zu out of arrival order, %zu started behind vt\n", nsim,
                  out_of_fifo, stale);
    assert_true(out_of_fifo > 20);
    assert_true(stale > 20); /* the proxy's admission at once, taken often */
}

/* SFQ under weights that climb by orders of magnitude (the admission
 * controller's priorities): a lead earned at the old weights is worth
 * one request at the new ones (qc_sfq_reweigh), so the classes share the
 * server by their new weights at once. Without it class 0, one request
 * ahead at weight 0.01, would wait 10^8 of class 1's requests. */
static void test_sfq_reweigh(void **state)
{
    (void)state;
    qc_sfq q;
    assert_int_equal(qc_sfq_init(&q, 2, NULL), 0);
    qc_sfq_start(&q, 0);
    qc_sfq_charge(&q, 0, 0.05, 0.01); /* pass 5, vt 0 */
    double w[2] = {6e6, 1e6};
    unsigned served[2] = {0, 0};
    for (int n = 0; n < 700; n++) {
        for (unsigned k = 0; k < 2; k++)
            qc_sfq_reweigh(&q, k, 0.05 / w[k]);
        int k = qc_sfq_pick(&q, 3u);
        assert_true(k >= 0);
        served[k]++;
        qc_sfq_start(&q, (unsigned)k);
        qc_sfq_charge(&q, (unsigned)k, 0.05, w[k]);
    }
    print_message("sfq reweigh: %u : %u\n", served[0], served[1]);
    assert_in_range(served[0], 598, 602); /* 6 : 1 of 700 */
    /* a lead within one quantum, a zero or infinite quantum: unchanged */
    double p0 = q.pass[0];
    qc_sfq_reweigh(&q, 0, 1e9);
    qc_sfq_reweigh(&q, 0, 0);
    qc_sfq_reweigh(&q, 0, INFINITY);
    assert_true(q.pass[0] == p0);
    assert_true(q.pass[0] >= q.vt && q.pass[1] >= q.vt);
}

/* ---- AIMD ------------------------------------------------------------------ */

static void test_aimd_sim_and_limiter(void **state)
{
    (void)state;
    /* Per control interval: requests in flight at once, their common
     * latency in seconds (exact in nanoseconds), and whether one of them
     * was dropped. */
    static const struct {
        unsigned inflight;
        double rtt;
        int dropped;
    } seq[] = {{12, 0.25, 0}, {11, 0.5, 0}, {4, 0.25, 0},  {22, 0.125, 0}, {23, 6.0, 0},
               {20, 0.5, 1},  {19, 0.5, 0}, {18, 7.5, 0},  {16, 0.25, 0},  {9, 0.25, 0},
               {2, 0.25, 0},  {8, 5.0, 0},  {9, 5.125, 0}, {1, 0.5, 1},    {8, 0.25, 0}};
    const size_t n = sizeof seq / sizeof *seq;

    qc_limiter_params c;
    qc_limiter_params_init(&c, QC_LIMITER_AIMD);
    c.initial_limit = 20;
    c.min_limit = 2;
    c.max_limit = 30;
    qc_limiter *l;
    qc_err err = {0};
    assert_non_null(l = qc_limiter_alloc(&c, 0, &err));

    qc_lim_conc sim = {.kind = QC_LIM_AIMD};
    qc_lim_aimd_params ap;
    qc_lim_aimd_params_init(&ap);
    ap.initial_limit = 20;
    ap.min_limit = 2;
    ap.max_limit = 30;
    ap.backoff = c.aimd_backoff;
    ap.timeout = c.aimd_timeout;
    assert_int_equal(qc_lim_aimd_init(&sim.u.aimd, &ap, &err), 0);

    int moved_up = 0, moved_down = 0, held = 0;
    double ref = 20; /* AIMDLimit's rule read literally (qctl/aimd.h) */
    for (size_t i = 0; i < n; i++) {
        qc_limiter_token tok[64];
        unsigned got = 0;
        while (got < seq[i].inflight &&
               qc_limiter_acquire(l, 0, &tok[got]) == QC_LIMITER_ADMIT)
            got++;
        for (unsigned k = 0; k < got; k++)
            qc_limiter_release(l, &tok[k], seq[i].rtt,
                               seq[i].dropped && k == 0 ? QC_LIMITER_DROPPED : QC_LIMITER_OK);
        assert_int_equal(qc_limiter_tick(l, (double)(i + 1)), 0);
        qc_limiter_stats st;
        qc_limiter_get_stats(l, &st);

        double before = qc_lim_conc_limit(&sim);
        qc_lim_sample s = {.t = (double)(i + 1), .rtt = seq[i].rtt,
                           .t_start = (double)(i + 1) - seq[i].rtt, .inflight = got,
                           .dropped = seq[i].dropped};
        qc_lim_act act;
        assert_int_equal(qc_lim_conc_step(&sim, &s, &act), 0);
        assert_true(act.limit == st.limit);
        if (seq[i].dropped || seq[i].rtt > 5)
            ref = ref * 0.9;
        else if (got * 2 >= ref)
            ref = ref + 1;
        ref = ref < 2 ? 2 : ref > 30 ? 30 : ref;
        assert_true(fabs(act.limit - ref) <= 1e-12 * ref);
        assert_int_equal((uint32_t)floor(act.limit), st.gate);
        moved_up += act.limit > before;
        moved_down += act.limit < before;
        held += act.limit == before;
    }
    assert_true(moved_up >= 3 && moved_down >= 3 && held >= 2); /* every branch taken */
    qc_limiter_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_djsq_pool_and_fleet),
        cmocka_unit_test(test_sfq_mc_and_proxy),
        cmocka_unit_test(test_sfq_reweigh),
        cmocka_unit_test(test_aimd_sim_and_limiter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
