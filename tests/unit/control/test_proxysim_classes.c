/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_proxysim_classes.c: the admission front's bounded classes in `qctl
 * sim proxy` (qc_psim_run, the proxy's own front): the seed's claim (i),
 * every admitted class's mean delay below its bound, and refusals on the
 * looser class first, with the limiter's default limit (20), which the
 * front sets from the backends' throughput by Little's law.
 *
 * The case: one backend of 4 workers at det:0.01 (400/s), gold (bound
 * 0.05 s) and silver (bound 0.3 s) offered Poisson 250/s + 350/s (1.5x),
 * the same at 3x, and silver a candidate at 300/s beside gold at 250/s
 * (inadmissible: 1.37x). Fixed seeds, 3 replications each.
 *
 * With the limit left at 20 the backend held a FIFO queue of 16 of its
 * own (40 ms) where no class weight acts: gold's wait target (its target
 * 45 ms less its time at the backend) fell to 0, gold was refused 80% at
 * 1.5x and silver none, and at 3x gold was refused 100% (its time at the
 * backend, measured only on its own requests, never came down). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "qctl/arrivals.h"
#include "qctl/dist.h"
#include "qctl/limiter.h"
#include "qctl/proxysim.h"

typedef struct scen {
    qc_psim_params p;
    qc_arrivals arr[2];
    qc_dist svc;
} scen;

static const double BOUND[2] = {0.05, 0.3};

static void scen_init(scen *s, const char *gold, const char *silver, int candidate)
{
    memset(s, 0, sizeof *s);
    qc_psim_params_init(&s->p);
    qc_err err = {0};
    assert_int_equal(qc_arrivals_parse(&s->arr[0], gold, &err), 0);
    assert_int_equal(qc_arrivals_parse(&s->arr[1], silver, &err), 0);
    assert_int_equal(qc_dist_parse(&s->svc, "det:0.01", &err), 0);
    s->p.backends = 1;
    s->p.workers = 4;
    s->p.service = &s->svc;
    qc_limiter_params_init(&s->p.limiter, QC_LIMITER_ADMISSION);
    s->p.nclasses = 2;
    s->p.cls[0] = (qc_psim_class){.name = "gold", .arrival = &s->arr[0], .bound = BOUND[0]};
    s->p.cls[1] = (qc_psim_class){
        .name = "silver", .arrival = &s->arr[1], .bound = BOUND[1], .candidate = candidate};
    s->p.horizon = 15;
    s->p.warmup = 5;
    s->p.reps = 3;
    s->p.seed = 7;
    s->p.jobs = 2;
}

static void scen_run(scen *s, qc_psim_result *r)
{
    qc_err err = {0};
    int rc = qc_psim_run(&s->p, r, &err);
    if (rc != 0)
        fprintf(stderr, "qc_psim_run: %s\n", err.msg);
    assert_int_equal(rc, 0);
    for (unsigned k = 0; k < 2; k++)
        printf("  %-6s admitted mean %.4g s (bound %g), refused %.3f\n", s->p.cls[k].name,
               r->cls[k][QC_PSIM_LATENCY].mean, BOUND[k], r->cls[k][QC_PSIM_REFUSED].mean);
    printf("  limit (mean over the ticks) %.3g\n", r->limit.mean);
}

static void scen_free(scen *s, qc_psim_result *r)
{
    qc_psim_result_free(r);
    qc_arrivals_free(&s->arr[0]);
    qc_arrivals_free(&s->arr[1]);
    qc_dist_free(&s->svc);
}

/* Claim (i) for class k: requests admitted, and their mean delay (the
 * upper end of its interval over the replications) below the bound. */
static void below_bound(const qc_psim_result *r, unsigned k)
{
    const qc_ci *c = &r->cls[k][QC_PSIM_LATENCY];
    assert_true(c->n >= 2);
    assert_true(c->mean > 0 && c->mean < BOUND[k]);
    assert_true(c->hi < BOUND[k]);
}

/* The looser class refused a larger fraction than the tighter one. */
static void looser_refused_more(const qc_psim_result *r)
{
    assert_true(r->cls[1][QC_PSIM_REFUSED].mean > r->cls[0][QC_PSIM_REFUSED].mean);
}

/* The backends kept their queue short: the limit the front set, between
 * their workers and what queues a share of gold's slack at 400/s. */
static void limit_from_littles_law(const qc_psim_result *r)
{
    assert_true(r->limit.mean >= 4 && r->limit.mean <= 4 + 400 * 0.25 * (0.045 - 0.01) + 1);
}

static void test_overload_1x(void **state)
{
    (void)state;
    scen s;
    qc_psim_result r;
    scen_init(&s, "exp:250", "exp:350", 0);
    scen_run(&s, &r);
    below_bound(&r, 0);
    below_bound(&r, 1);
    looser_refused_more(&r);
    /* 600/s offered to 400/s: a third refused, gold little of it */
    assert_true(r.cls[0][QC_PSIM_REFUSED].mean < 0.1);
    limit_from_littles_law(&r);
    scen_free(&s, &r);
}

static void test_overload_3x(void **state)
{
    (void)state;
    scen s;
    qc_psim_result r;
    scen_init(&s, "exp:750", "exp:1050", 0);
    scen_run(&s, &r);
    below_bound(&r, 0);
    below_bound(&r, 1);
    looser_refused_more(&r);
    /* gold alone is 1.9x: it is served, at most what it offers */
    assert_true(r.cls[0][QC_PSIM_REFUSED].mean < 0.8);
    limit_from_littles_law(&r);
    scen_free(&s, &r);
}

static void test_candidate(void **state)
{
    (void)state;
    scen s;
    qc_psim_result r;
    scen_init(&s, "exp:250", "exp:300", 1);
    scen_run(&s, &r);
    below_bound(&r, 0); /* the admitted class keeps its bound */
    looser_refused_more(&r);
    assert_true(r.cls[0][QC_PSIM_REFUSED].mean < 0.1);
    /* the candidate's admitted requests, when any, within its bound too */
    if (r.cls[1][QC_PSIM_LATENCY].n > 0)
        assert_true(r.cls[1][QC_PSIM_LATENCY].mean < BOUND[1]);
    scen_free(&s, &r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overload_1x),
        cmocka_unit_test(test_overload_3x),
        cmocka_unit_test(test_candidate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
