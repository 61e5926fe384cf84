/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_gen.c: traffic models and generation: the on/off threshold, pcap
 * and CSV written by the generator read back identically, the rate of a
 * mix of users is the sum of their rates, users are independent streams,
 * model files round-trip, bad model files are refused with the field
 * named, validation, and traffic as an arrival source.
 *
 * The summed-rate check: users are independent, so the total count in
 * [0, D] has variance equal to the sum of the users' count variances,
 * estimated from the users of each activity; |total - D sum_a n_a r_a|
 * must be below 4 of those standard deviations plus the users' start-up
 * bias (each user starts at a random point of its first cycle, so its
 * count over D is unbiased up to O(one cycle), included as one packet per
 * user in the tolerance). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qctl/traffic.h"

#define SEED UINT64_C(99)

/* Synthetic on/off traffic: sessions of 1 + Geometric(mean 19) packets
 * with Exp(mean 5 ms) gaps and sizes that grow with the gap (dependence),
 * alternating direction; idle periods Exp(mean 2 s) + 0.5 s. */
static size_t synthetic(size_t n, uint64_t stream, double *t, uint32_t *size, uint8_t *dir,
                        int onoff)
{
    qc_rng r;
    qc_rng_init(&r, SEED, stream);
    double now = 0;
    for (size_t i = 0; i < n; i++) {
        double g = qc_rng_exp(&r, 200);
        if (onoff && i > 0 && qc_rng_u01(&r) < 0.05)
            g = 0.5 + qc_rng_exp(&r, 0.5);
        now += i ? g : 0;
        t[i] = now;
        size[i] = (uint32_t)(60 + 1000 * fmin(g, 0.02) / 0.02 + 40 * qc_rng_u01(&r));
        if (dir)
            dir[i] = (uint8_t)(i % 2);
    }
    return n;
}

static void make_model(qc_traffic_model *m, const char *name, uint64_t stream, int onoff,
                       qc_traffic_report *rep)
{
    const size_t n = 3000;
    double *t = malloc(n * sizeof *t);
    uint32_t *s = malloc(n * sizeof *s);
    uint8_t *d = malloc(n);
    synthetic(n, stream, t, s, d, onoff);
    qc_traffic_fit_params o;
    qc_traffic_fit_params_init(&o);
    qc_err err = {0};
    const int rc = qc_traffic_fit(m, name, t, s, d, n, &o, rep, &err);
    if (rc != 0)
        print_error("fit: %s\n", err.msg);
    assert_int_equal(rc, 0);
    free(t);
    free(s);
    free(d);
}

static void test_threshold(void **state)
{
    (void)state;
    qc_traffic_model m;
    qc_traffic_report rep;
    make_model(&m, "web", 1, 1, &rep);
    /* In-session gaps are Exp(5 ms): P(gap > 0.1 s) = e^-20; idle gaps
     * are at least 0.5 s. The threshold must fall between. */
    assert_true(m.threshold > 0.03 && m.threshold < 0.5);
    assert_string_equal(m.threshold_method, "auto");
    assert_true(rep.sessions > 100 && rep.sessions < 200); /* 3000 x 0.05 = 150 */
    assert_true(rep.tau_sg > 0.5); /* size grows with the gap */
    assert_true(fabs(m.fwd_fraction - 0.5) < 1e-3);
    /* Rate: E[N] / ((E[N] - 1) E[G] + E[off]) with E[N] = 20, E[G] =
     * 5 ms, E[off] = 2.5 s: 7.45 packets/s; the copula model uses the
     * empirical means (sampling error ~ 10% with 150 sessions). */
    const double r = qc_traffic_model_rate(&m, QC_TRAFFIC_COPULA);
    assert_true(r > 6 && r < 9.5);
    qc_traffic_model_free(&m);
    qc_traffic_report_free(&rep);
    /* Poisson traffic has no idle population. */
    make_model(&m, "poisson", 2, 0, NULL);
    assert_true(isinf(m.threshold));
    assert_string_equal(m.threshold_method, "none");
    qc_traffic_model_free(&m);
}

/* Session structure: two captures of the synthetic on/off traffic joined
 * 5.8 years apart (integer nanoseconds), with openers of a size of their
 * own (a 40-byte request; in-session packets are 60 to 1100 bytes). The
 * long gap splits segments instead of becoming an idle period or an
 * in-session gap; the rate is that of the segments; the model's mean size
 * counts openers at their size; the threshold's evidence is kept and lies
 * above the floor of 1000 x the clock's resolution (1 us here). */
static void test_segments_openers(void **state)
{
    (void)state;
    const size_t n = 3000;
    double *t = malloc(n * sizeof *t);
    uint32_t *s = malloc(n * sizeof *s);
    uint8_t *d = malloc(n);
    int64_t *ns = malloc(n * sizeof *ns);
    assert_true(t && s && d && ns);
    synthetic(n, 3, t, s, d, 1);
    const int64_t years = INT64_C(183000000) * 1000000000; /* 5.8 years */
    double span = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        ns[i] = (int64_t)llround(t[i] * 1e6) * 1000 + (i >= n / 2 ? years : 0); /* 1 us clock */
        const int opens = i == 0 || i == n / 2 || t[i] - t[i - 1] > 0.45;
        if (opens)
            s[i] = 40;
        bytes += s[i];
        if (i > 0 && i != n / 2)
            span += 1e-9 * (double)(ns[i] - ns[i - 1]);
    }
    qc_traffic_fit_params o;
    qc_traffic_fit_params_init(&o);
    qc_traffic_model m;
    qc_err err = {0};
    assert_int_equal(qc_traffic_fit_ns(&m, "joined", ns, s, d, n, &o, NULL, &err), 0);
    assert_int_equal(m.segments, 2);
    assert_true(fabs(m.src_duration - span) < 1e-6);
    assert_true(fabs(m.resolution - 1e-6) < 1e-15);
    assert_true(m.threshold > 0.03 && m.threshold < 0.5);
    assert_true(strcmp(m.idle.rule, "jump") == 0 || strcmp(m.idle.rule, "mixture") == 0);
    assert_true(m.threshold >= m.idle.floor && m.idle.floor >= 1e-3);
    assert_true(m.idle.idle_fraction > 0.02 && m.idle.idle_fraction < 0.1);
    /* openers: every one 40 bytes */
    assert_int_equal(m.opener.emp.m, 1);
    assert_true(m.opener.emp.v[0] == 40);
    /* rate and mean size of both approaches against the capture's: the
     * copula approach's are the empirical means (exact up to the session
     * table); the fitted one keeps its families' means within 2% */
    const double rate = (double)(n - 2) / span, mean = bytes / (double)n;
    for (int a = 0; a < 2; a++) {
        const qc_traffic_approach ap = a ? QC_TRAFFIC_COPULA : QC_TRAFFIC_FITTED;
        assert_true(fabs(qc_traffic_model_rate(&m, ap) / rate - 1) < 0.03);
        assert_true(fabs(qc_traffic_model_mean_size(&m, ap) / mean - 1) < 0.03);
    }
    /* joined times: the same span */
    size_t seg = 0;
    qc_traffic_join_segments(ns, n, o.segment_gap, t, &seg);
    assert_int_equal(seg, 2);
    assert_true(fabs(t[n - 1] - span) < 1e-6);
    /* the model file keeps it all */
    json_t *j = qc_traffic_model_json(&m, NULL);
    qc_traffic_model back;
    assert_int_equal(qc_traffic_model_from_json(&back, j, "mem", &err), 0);
    assert_int_equal(back.segments, 2);
    assert_int_equal(back.opener.emp.m, 1);
    assert_string_equal(back.idle.rule, m.idle.rule);
    assert_true(fabs(qc_traffic_model_mean_size(&back, QC_TRAFFIC_COPULA) -
                     qc_traffic_model_mean_size(&m, QC_TRAFFIC_COPULA)) < 1e-9);
    json_decref(j);
    qc_traffic_model_free(&back);
    qc_traffic_model_free(&m);
    free(t);
    free(s);
    free(d);
    free(ns);
}

static char *tmpname(const char *suffix)
{
    static int k;
    char *p = malloc(96);
    snprintf(p, 96, "/tmp/qctl_test_gen_%ld_%d%s", (long)getpid(), k++, suffix);
    return p;
}

/* pcap and CSV from the generator read back as the packets generated. */
static void test_round_trip(void **state)
{
    (void)state;
    qc_traffic_model a, b;
    make_model(&a, "web", 1, 1, NULL);
    make_model(&b, "game", 3, 0, NULL);
    a.proto = 6;
    b.proto = 17;
    b.port = 27015;
    const qc_traffic_model *ms[2] = {&a, &b};
    const uint32_t users[2] = {7, 3};
    qc_traffic_gen_params o;
    qc_traffic_gen_params_init(&o);
    o.seed = 5;
    o.duration = 30;
    qc_err err = {0};
    char *pcap = tmpname(".pcap"), *csv = tmpname(".csv");
    for (int fmt = 0; fmt < 2; fmt++) {
        qc_traffic_gen *g;
        assert_non_null(g = qc_traffic_gen_alloc(ms, users, 2, &o, &err));
        uint64_t count = 0;
        assert_int_equal(qc_traffic_write(g, fmt ? csv : pcap, fmt ? QC_TRAFFIC_CSV : QC_TRAFFIC_PCAP,
                                          fmt ? 65535 : 96, &count, &err), 0);
        qc_traffic_gen_free(g);
        qc_trace tr;
        assert_int_equal(qc_trace_read(&tr, fmt ? csv : pcap, &err), 0);
        assert_int_equal(tr.n, count);
        assert_int_equal(tr.nwarn, 0);
        assert_true(count > 1000);
        /* The same packets again from the same seed. */
        assert_non_null(g = qc_traffic_gen_alloc(ms, users, 2, &o, &err));
        qc_traffic_pkt p;
        size_t i = 0;
        long long ns0 = 0;
        while (qc_traffic_gen_next(g, &p)) {
            const long long ns = llround(p.t * 1e9);
            if (i == 0)
                ns0 = ns;
            const qc_trace_pkt *q = &tr.pkt[i];
            assert_true(fabs(q->t - (double)(ns - ns0) * 1e-9) < 1e-12 * (1 + q->t));
            assert_int_equal(q->size, p.size);
            if (!fmt) {
                /* Who sent it: the reader's flow initiator is the sender
                 * of the flow's first packet in the file (a user caught
                 * mid-session at time 0 may start with the server's), so
                 * compare senders, not direction flags. */
                const qc_trace_flow *f = &tr.flows[q->flow];
                const uint8_t *sender = q->dir ? f->dst : f->src;
                const uint16_t sport = q->dir ? f->dport : f->sport;
                const uint16_t cport = (uint16_t)(1024 + p.session % 64000);
                assert_int_equal(f->proto, p.act ? 17 : 6);
                if (p.dir == 0) {
                    assert_int_equal(sender[0], 10);
                    assert_int_equal(sender[3], (uint8_t)(((uint32_t)p.act << 16) + p.user + 1));
                    assert_int_equal(sport, cport);
                } else {
                    assert_int_equal(sender[0], 192);
                    assert_int_equal(sender[3], p.act + 1);
                    assert_int_equal(sport, p.act ? 27015 : 80);
                }
            }
            i++;
        }
        assert_int_equal(i, count);
        qc_traffic_gen_free(g);
        qc_trace_free(&tr);
    }
    remove(pcap);
    remove(csv);
    free(pcap);
    free(csv);
    qc_traffic_model_free(&a);
    qc_traffic_model_free(&b);
}

static void test_summed_rate(void **state)
{
    (void)state;
    qc_traffic_model a, b;
    make_model(&a, "web", 1, 1, NULL);
    make_model(&b, "game", 3, 0, NULL);
    const qc_traffic_model *ms[2] = {&a, &b};
    const uint32_t users[2] = {40, 25};
    for (int ap = 0; ap < 2; ap++) {
        qc_traffic_gen_params o;
        qc_traffic_gen_params_init(&o);
        o.approach = ap ? QC_TRAFFIC_COPULA : QC_TRAFFIC_FITTED;
        o.duration = 200;
        qc_traffic_gen *g;
        qc_err err = {0};
        assert_non_null(g = qc_traffic_gen_alloc(ms, users, 2, &o, &err));
        double cnt[65] = {0};
        qc_traffic_pkt p;
        double last = 0;
        while (qc_traffic_gen_next(g, &p)) {
            assert_true(p.t >= last && p.t < o.duration);
            last = p.t;
            cnt[p.act * 40 + p.user] += 1;
        }
        qc_traffic_gen_free(g);
        double expect = 0, var = 0, total = 0;
        for (int k = 0; k < 2; k++) {
            const int base = k * 40, nu = (int)users[k];
            double m = 0, v = 0;
            for (int j = 0; j < nu; j++)
                m += cnt[base + j] / nu;
            for (int j = 0; j < nu; j++)
                v += (cnt[base + j] - m) * (cnt[base + j] - m) / (nu - 1);
            expect += nu * qc_traffic_model_rate(ms[k], o.approach) * o.duration;
            var += nu * v;
            total += m * nu;
        }
        const double tol = 4 * sqrt(var) + 65;
        if (!(fabs(total - expect) < tol)) {
            print_error("approach %d: %g packets, expected %g +- %g\n", ap, total, expect, tol);
            fail();
        }
    }
    qc_traffic_model_free(&a);
    qc_traffic_model_free(&b);
}

/* Users are independent streams: adding an activity or a user does not
 * change anyone else's packets; another seed changes them. */
static void test_streams(void **state)
{
    (void)state;
    qc_traffic_model a, b;
    make_model(&a, "web", 1, 1, NULL);
    make_model(&b, "game", 3, 0, NULL);
    qc_traffic_gen_params o;
    qc_traffic_gen_params_init(&o);
    o.duration = 20;
    qc_err err = {0};
    const qc_traffic_model *one[1] = {&a}, *two[2] = {&b, &a};
    const uint32_t u1[1] = {5}, u2[2] = {4, 6};
    qc_traffic_gen *g1, *g2;
    assert_non_null(g1 = qc_traffic_gen_alloc(one, u1, 1, &o, &err));
    assert_non_null(g2 = qc_traffic_gen_alloc(two, u2, 2, &o, &err));
    qc_traffic_pkt p, q;
    size_t n = 0;
    while (qc_traffic_gen_next(g1, &p)) {
        do
            assert_int_equal(qc_traffic_gen_next(g2, &q), 1);
        while (q.act != 1 || q.user >= 5); /* web users 0..4 in the bigger mix */
        assert_true(p.t == q.t && p.size == q.size && p.user == q.user && p.dir == q.dir);
        n++;
    }
    assert_true(n > 100);
    qc_traffic_gen_free(g1);
    qc_traffic_gen_free(g2);
    o.seed = 2;
    assert_non_null(g1 = qc_traffic_gen_alloc(one, u1, 1, &o, &err));
    o.seed = 1;
    assert_non_null(g2 = qc_traffic_gen_alloc(one, u1, 1, &o, &err));
    int differ = 0;
    for (int i = 0; i < 50 && qc_traffic_gen_next(g1, &p) && qc_traffic_gen_next(g2, &q); i++)
        differ |= p.t != q.t;
    assert_true(differ);
    qc_traffic_gen_free(g1);
    qc_traffic_gen_free(g2);
    qc_traffic_model_free(&a);
    qc_traffic_model_free(&b);
}

/* A saved model, loaded back, generates the same packets. */
static void test_model_file(void **state)
{
    (void)state;
    qc_traffic_model a, b;
    qc_traffic_report rep;
    make_model(&a, "web", 1, 1, &rep);
    char *path = tmpname(".json");
    qc_err err = {0};
    assert_int_equal(qc_traffic_model_save(&a, &rep, path, &err), 0);
    assert_int_equal(qc_traffic_model_load(&b, path, &err), 0);
    assert_string_equal(b.name, "web");
    assert_true(b.threshold == a.threshold);
    assert_int_equal(b.copula.n, a.copula.n);
    for (int ap = 0; ap < 3; ap++) {
        qc_traffic_gen_params o;
        qc_traffic_gen_params_init(&o);
        o.approach = (qc_traffic_approach)ap;
        o.packets = 2000;
        const qc_traffic_model *ma = &a, *mb = &b;
        const uint32_t u = 3;
        qc_traffic_gen *ga, *gb;
        assert_non_null(ga = qc_traffic_gen_alloc(&ma, &u, 1, &o, &err));
        assert_non_null(gb = qc_traffic_gen_alloc(&mb, &u, 1, &o, &err));
        qc_traffic_pkt p, q;
        size_t n = 0, same = 0;
        while (qc_traffic_gen_next(ga, &p) && qc_traffic_gen_next(gb, &q)) {
            n++;
            /* Copula points are stored to 1e-6: a state on the edge of a
             * grid cell may rarely move to the next; all else is exact. */
            same += p.t == q.t && p.size == q.size;
        }
        assert_int_equal(n, 2000);
        if (ap == QC_TRAFFIC_FITTED)
            assert_int_equal(same, n);
        else
            assert_true(same > n / 2);
        qc_traffic_gen_free(ga);
        qc_traffic_gen_free(gb);
    }
    remove(path);
    free(path);
    qc_traffic_model_free(&a);
    qc_traffic_model_free(&b);
    qc_traffic_report_free(&rep);
}

static void test_bad_model(void **state)
{
    (void)state;
    qc_traffic_model a, b;
    make_model(&a, "web", 1, 1, NULL);
    json_t *good = qc_traffic_model_json(&a, NULL);
    qc_traffic_model_free(&a);
    static const struct {
        const char *what, *field;
    } cases[] = {
        {"format", "'format'"},        {"size", "'size'"},
        {"family", "'gap.family'"},    {"param", "'gap.params."},
        {"cum", "'size.empirical.cum"}, {"copula", "'copula.prev.3'"},
        {"threshold", "'onoff.threshold'"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        json_t *j = json_deep_copy(good);
        const char *w = cases[k].what;
        if (strcmp(w, "format") == 0)
            json_object_set_new(j, "format", json_string("other"));
        else if (strcmp(w, "size") == 0)
            json_object_del(j, "size");
        else if (strcmp(w, "family") == 0)
            json_object_set_new(json_object_get(j, "gap"), "family", json_string("normal"));
        else if (strcmp(w, "param") == 0)
            json_object_clear(json_object_get(json_object_get(j, "gap"), "params"));
        else if (strcmp(w, "cum") == 0)
            json_array_set_new(json_object_get(json_object_get(json_object_get(j, "size"), "empirical"), "cum"), 0,
                               json_real(-1));
        else if (strcmp(w, "copula") == 0)
            json_array_set_new(json_object_get(json_object_get(j, "copula"), "prev"), 3, json_real(2));
        else
            json_object_set_new(json_object_get(j, "onoff"), "threshold", json_real(-1));
        char *s = json_dumps(j, 0);
        qc_err err = {0};
        assert_int_equal(qc_traffic_model_load_mem(&b, s, strlen(s), "m.json", &err), QC_EPARSE);
        if (strstr(err.msg, cases[k].field) == NULL) {
            print_error("case %s: message '%s' lacks %s\n", w, err.msg, cases[k].field);
            fail();
        }
        assert_non_null(strstr(err.msg, "m.json"));
        free(s);
        json_decref(j);
    }
    json_decref(good);
    qc_err err = {0};
    assert_int_equal(qc_traffic_model_load_mem(&b, "{\"format\":", 10, "t.json", &err), QC_EPARSE);
    assert_non_null(strstr(err.msg, "t.json:1:"));
    assert_int_equal(qc_traffic_model_load(&b, "/nonexistent/m.json", &err), QC_EIO);
}

/* On traffic whose sizes depend on gaps, the copula model reproduces
 * the dependence and the fitted (independent) one cannot. */
static void test_validation(void **state)
{
    (void)state;
    const size_t n = 3000;
    double *t = malloc(n * sizeof *t);
    uint32_t *s = malloc(n * sizeof *s);
    synthetic(n, 1, t, s, NULL, 1);
    qc_traffic_model m;
    make_model(&m, "web", 1, 1, NULL);
    qc_traffic_validation v;
    qc_err err = {0};
    assert_int_equal(qc_traffic_validate(&m, t, s, n, 7, &v, &err), 0);
    assert_int_equal(v.gen_n[0], n);
    assert_int_equal(v.gen_n[1], n);
    assert_true(v.real.tau_sg > 0.3);
    assert_true(fabs(v.gen[1].tau_sg - v.real.tau_sg) < 0.1);
    assert_true(fabs(v.gen[0].tau_sg) < 0.1);
    assert_true(v.ks_size[1] < 0.05 && v.ks_gap[1] < 0.05);
    /* Poisson-like counts: Hurst near 1/2 within the variance-time
     * estimator's spread on 1000 bins. */
    assert_true(v.real.hurst > 0.3 && v.real.hurst < 0.9);
    qc_traffic_validation_free(&v);
    qc_traffic_model_free(&m);
    free(t);
    free(s);
}

static void test_source(void **state)
{
    (void)state;
    qc_traffic_source *src;
    qc_err err = {0};
    assert_non_null(src = qc_traffic_source_alloc(QC_TEST_DATA "/captures/gaming.pcap", 1, 1, &err));
    double last = -1, t;
    size_t n = 0;
    uint32_t size;
    while ((t = qc_traffic_source_next(src, &size)) != INFINITY) {
        assert_true(t >= last && size >= 28);
        last = t;
        n++;
    }
    assert_int_equal(n, 891);
    assert_true(fabs(qc_traffic_source_rate(src) - 890 / last) < 1e-9);
    qc_traffic_source_free(src);
    /* From a model: endless, at the model's rate per user. */
    qc_traffic_model m;
    make_model(&m, "web", 1, 1, NULL);
    char *path = tmpname(".json");
    assert_int_equal(qc_traffic_model_save(&m, NULL, path, &err), 0);
    assert_non_null(src = qc_traffic_source_alloc(path, 10, 3, &err));
    assert_true(fabs(qc_traffic_source_rate(src) - 10 * qc_traffic_model_rate(&m, QC_TRAFFIC_COPULA)) < 1e-9);
    for (int i = 0; i < 10000; i++)
        assert_true(isfinite(qc_traffic_source_next(src, NULL)));
    qc_traffic_source_free(src);
    assert_null(src = qc_traffic_source_alloc(QC_TEST_DATA "/captures/bad_magic.pcap", 1, 1, &err));
    assert_int_equal(err.code, QC_EPARSE);
    remove(path);
    free(path);
    qc_traffic_model_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold),  cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_summed_rate), cmocka_unit_test(test_streams),
        cmocka_unit_test(test_model_file), cmocka_unit_test(test_bad_model),
        cmocka_unit_test(test_validation), cmocka_unit_test(test_source),
        cmocka_unit_test(test_segments_openers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
