/* SPDX-License-Identifier: GPL-3.0-or-later */
/* test_names.c: the words of every public enum (core/names.h and the
 * qc_X_name / qc_X_parse pair of each enum X in include/qctl/).
 *
 * For each enum and each of its values: the name is a word (not "?"),
 * distinct from the other values' words, and parses back to the value.
 * An unknown word, and NULL, fail with QC_EINVAL and leave the value
 * alone; the message is built here independently, "'WORD' is not a, b or
 * c" with the words in value order, so it names the word and every
 * accepted one. A value out of range is named "?". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "qctl/admission.h"
#include "qctl/arrivals.h"
#include "qctl/arx.h"
#include "qctl/controller.h"
#include "qctl/dist.h"
#include "qctl/energy.h"
#include "qctl/fit.h"
#include "qctl/fleet.h"
#include "qctl/limiter.h"
#include "qctl/limiters.h"
#include "qctl/maxusers.h"
#include "qctl/mdp.h"
#include "qctl/multiclass.h"
#include "qctl/pool.h"
#include "qctl/queue.h"
#include "qctl/removable.h"
#include "qctl/rng.h"
#include "qctl/trace.h"
#include "qctl/traffic.h"

#include "core/names.h"

/* "'w' is not a, b or c" for the words of vals. */
static void expected_message(char *buf, size_t size, const char *w, const char *const *words,
                             size_t n)
{
    size_t len = (size_t)snprintf(buf, size, "'%s' is not ", w);
    for (size_t i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " or " : ", ";
        len += (size_t)snprintf(buf + len, size - len, "%s%s", sep, words[i]);
    }
}

#define CHECK_ENUM(type, name_fn, parse_fn, ...)                                          \
    do {                                                                                 \
        const type vals[] = {__VA_ARGS__};                                               \
        const size_t n = sizeof vals / sizeof *vals;                                     \
        const char *words[64];                                                           \
        assert_true(n <= 64);                                                            \
        for (size_t i = 0; i < n; i++) {                                                 \
            words[i] = name_fn(vals[i]);                                                 \
            assert_non_null(words[i]);                                                   \
            assert_string_not_equal(words[i], "?");                                      \
            for (size_t j = 0; j < i; j++)                                               \
                assert_string_not_equal(words[j], words[i]);                             \
            type back = vals[i == 0 ? n - 1 : 0];                                        \
            qc_err err = {0};                                                            \
            assert_int_equal(parse_fn(words[i], &back, &err), 0);                        \
            assert_int_equal((int)back, (int)vals[i]);                                   \
        }                                                                                \
        type keep = vals[0];                                                             \
        qc_err err = {0};                                                                \
        char want[QC_ERR_MSG_MAX];                                                       \
        assert_int_equal(parse_fn("no-such-word", &keep, &err), QC_EINVAL);              \
        assert_int_equal(err.code, QC_EINVAL);                                           \
        assert_int_equal((int)keep, (int)vals[0]);                                       \
        expected_message(want, sizeof want, "no-such-word", words, n);                   \
        assert_string_equal(err.msg, want);                                              \
        assert_int_equal(parse_fn(NULL, &keep, NULL), QC_EINVAL);                        \
        assert_int_equal(parse_fn("", &keep, NULL), QC_EINVAL);                          \
        assert_int_equal((int)keep, (int)vals[0]);                                       \
        assert_string_equal(name_fn((type)999), "?");                                    \
        assert_string_equal(name_fn((type)-1), "?");                                     \
    } while (0)

/* The admission policies: an admitter and an optional limiter, each
 * named by its admitter's word or its limiter's (no table of their own). */
static void test_mc_policy(void **state)
{
    (void)state;
    unsigned n = 0;
    const qc_mc_policy *pols = qc_mc_policies(&n);
    static const char *const want[] = {"autonomic", "static",  "utilization", "gradient2",
                                       "vegas",     "envoy",   "aimd"};
    assert_int_equal(n, sizeof want / sizeof *want);
    for (unsigned i = 0; i < n; i++) {
        assert_string_equal(qc_mc_policy_name(pols[i]), want[i]);
        assert_string_equal(qc_mc_policy_name(pols[i]),
                            pols[i].limited ? qc_limiter_algo_name(pols[i].limiter)
                                            : qc_mc_admitter_name(pols[i].admitter));
        qc_mc_policy back = pols[i == 0 ? n - 1 : 0];
        qc_err err = {0};
        assert_int_equal(qc_mc_policy_parse(want[i], &back, &err), 0);
        assert_int_equal(back.admitter, pols[i].admitter);
        assert_int_equal(back.limited, pols[i].limited);
        if (back.limited)
            assert_int_equal(back.limiter, pols[i].limiter);
    }
    /* the four limited ones are the static admitter's */
    const qc_mc_policy aimd = {QC_MC_STATIC, 1, QC_LIMITER_AIMD};
    assert_string_equal(qc_mc_policy_name(aimd), "aimd");
    const qc_mc_policy plain = {QC_MC_STATIC, 0, QC_LIMITER_AIMD}; /* limiter unread */
    assert_string_equal(qc_mc_policy_name(plain), "static");
    const qc_mc_policy bad[] = {{QC_MC_AUTONOMIC, 1, QC_LIMITER_AIMD},
                                {QC_MC_STATIC, 1, QC_LIMITER_FIXED},
                                {QC_MC_STATIC, 1, QC_LIMITER_ADMISSION},
                                {(qc_mc_admitter)9, 0, QC_LIMITER_FIXED}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_string_equal(qc_mc_policy_name(bad[i]), "?");
    qc_mc_policy keep = pols[1];
    qc_err err = {0};
    char msg[QC_ERR_MSG_MAX];
    assert_int_equal(qc_mc_policy_parse("fixed", &keep, &err), QC_EINVAL);
    expected_message(msg, sizeof msg, "fixed", want, n);
    assert_string_equal(err.msg, msg);
    assert_int_equal(keep.admitter, QC_MC_STATIC);
    assert_int_equal(keep.limited, 0);
    assert_int_equal(qc_mc_policy_parse(NULL, &keep, NULL), QC_EINVAL);
}

static void test_helper(void **state)
{
    (void)state;
    static const char *const t[] = {NULL, "one", NULL, "three"};
    int v = 7;
    qc_err err = {0};
    assert_string_equal(qc__name_of(t, 4, 0), "?");
    assert_string_equal(qc__name_of(t, 4, 1), "one");
    assert_string_equal(qc__name_of(t, 4, 4), "?");
    assert_int_equal(qc__name_parse("three", t, 4, &v, &err), 0);
    assert_int_equal(v, 3);
    assert_int_equal(qc__name_parse("two", t, 4, &v, &err), QC_EINVAL);
    assert_int_equal(v, 3);
    assert_string_equal(err.msg, "'two' is not one or three");
    static const char *const one[] = {"only"};
    assert_int_equal(qc__name_parse("x", one, 1, &v, &err), QC_EINVAL);
    assert_string_equal(err.msg, "'x' is not only");
}

static void test_core(void **state)
{
    (void)state;
    CHECK_ENUM(qc_dist_kind, qc_dist_kind_name, qc_dist_kind_parse, QC_DIST_NONE, QC_DIST_EXP,
               QC_DIST_DET, QC_DIST_UNIFORM, QC_DIST_ERLANG, QC_DIST_HYPEREXP, QC_DIST_GAMMA,
               QC_DIST_LOGNORMAL, QC_DIST_WEIBULL, QC_DIST_PARETO, QC_DIST_BPARETO,
               QC_DIST_EMPIRICAL, QC_DIST_LNMIX, QC_DIST_EXPMIX, QC_DIST_GPD);
    CHECK_ENUM(qc_server_state, qc_server_state_name, qc_server_state_parse, QC_SERVER_OFF,
               QC_SERVER_SETUP, QC_SERVER_ON);
    CHECK_ENUM(qc_rng_role, qc_rng_role_name, qc_rng_role_parse, QC_STREAM_ARRIVAL,
               QC_STREAM_SERVICE, QC_STREAM_SERVER, QC_STREAM_ROUTING, QC_STREAM_CONTROL,
               QC_STREAM_USER, QC_STREAM_MISC);
}

static void test_control(void **state)
{
    (void)state;
    CHECK_ENUM(qc_adm_state, qc_adm_state_name, qc_adm_state_parse, QC_ADM_CANDIDATE,
               QC_ADM_ADMITTED, QC_ADM_REJECTED);
    CHECK_ENUM(qc_adm_event, qc_adm_event_name, qc_adm_event_parse, QC_ADM_EV_NONE,
               QC_ADM_EV_TRACK, QC_ADM_EV_GROW, QC_ADM_EV_HOLD, QC_ADM_EV_BACKOFF,
               QC_ADM_EV_ADMIT, QC_ADM_EV_REJECT, QC_ADM_EV_RETRY);
    CHECK_ENUM(qc_arx_criterion, qc_arx_criterion_name, qc_arx_criterion_parse, QC_ARX_AIC,
               QC_ARX_BIC);
    CHECK_ENUM(qc_antiwindup, qc_antiwindup_name, qc_antiwindup_parse, QC_AW_NONE,
               QC_AW_CONDITIONAL, QC_AW_BACKCALC);
    CHECK_ENUM(qc_djsq_state, qc_djsq_state_name, qc_djsq_state_parse, QC_DJSQ_OFF,
               QC_DJSQ_SETUP, QC_DJSQ_ON, QC_DJSQ_SKIP);
    CHECK_ENUM(qc_limiter_algo, qc_limiter_algo_name, qc_limiter_algo_parse, QC_LIMITER_FIXED,
               QC_LIMITER_MAXUSERS, QC_LIMITER_AIMD, QC_LIMITER_VEGAS, QC_LIMITER_GRADIENT2,
               QC_LIMITER_ENVOY, QC_LIMITER_ADMISSION);
    /* the four kinds of qc_lim_conc are values of qc_limiter_algo, with
     * its words; "static" is "fixed"; another algorithm has no kind word */
    CHECK_ENUM(qc_lim_kind, qc_lim_kind_name, qc_lim_kind_parse, QC_LIM_AIMD, QC_LIM_VEGAS,
               QC_LIM_GRADIENT2, QC_LIM_ENVOY);
    for (int a = QC_LIMITER_FIXED; a <= QC_LIMITER_ADMISSION; a++) {
        const char *k = qc_lim_kind_name((qc_lim_kind)a);
        if (strcmp(k, "?") != 0)
            assert_string_equal(k, qc_limiter_algo_name((qc_limiter_algo)a));
    }
    assert_string_equal(qc_lim_kind_name((qc_lim_kind)QC_LIMITER_FIXED), "?");
    qc_limiter_algo fx = QC_LIMITER_ENVOY;
    assert_int_equal(qc_limiter_algo_parse("static", &fx, NULL), 0);
    assert_int_equal(fx, QC_LIMITER_FIXED);
}

static void test_mdp(void **state)
{
    (void)state;
    CHECK_ENUM(qc_mdp_sweep, qc_mdp_sweep_name, qc_mdp_sweep_parse, QC_MDP_JACOBI,
               QC_MDP_GAUSS_SEIDEL);
    CHECK_ENUM(qc_mdp_eval, qc_mdp_eval_name, qc_mdp_eval_parse, QC_MDP_EVAL_AUTO,
               QC_MDP_EVAL_DIRECT, QC_MDP_EVAL_ITERATIVE);
    CHECK_ENUM(qc_removable_method, qc_removable_method_name, qc_removable_method_parse,
               QC_REMOVABLE_RVI, QC_REMOVABLE_PI, QC_REMOVABLE_BOTH);
    CHECK_ENUM(qc_removable_baseline_kind, qc_removable_baseline_kind_name,
               qc_removable_baseline_kind_parse, QC_RB_ALWAYS_ON, QC_RB_OFF_IDLE, QC_RB_NPOLICY,
               QC_RB_DELAYED_OFF);
}

static void test_traffic(void **state)
{
    (void)state;
    CHECK_ENUM(qc_arrivals_kind, qc_arrivals_kind_name, qc_arrivals_kind_parse,
               QC_ARRIVALS_NONE, QC_ARRIVALS_RENEWAL, QC_ARRIVALS_SIN, QC_ARRIVALS_CURVE,
               QC_ARRIVALS_TRACE, QC_ARRIVALS_STEPS);
    CHECK_ENUM(qc_fit_family, qc_fit_family_name, qc_fit_family_parse, QC_FIT_EXP, QC_FIT_GAMMA,
               QC_FIT_LOGNORMAL, QC_FIT_WEIBULL, QC_FIT_PARETO, QC_FIT_LNMIX2, QC_FIT_LNMIX3,
               QC_FIT_EXPMIX2, QC_FIT_EXPMIX3, QC_FIT_GPD, QC_FIT_EMPIRICAL);
    CHECK_ENUM(qc_fit_criterion, qc_fit_criterion_name, qc_fit_criterion_parse, QC_FIT_BIC,
               QC_FIT_AIC);
    CHECK_ENUM(qc_trace_format, qc_trace_format_name, qc_trace_format_parse, QC_TRACE_PCAP,
               QC_TRACE_PCAPNG, QC_TRACE_CSV);
    CHECK_ENUM(qc_trace_split, qc_trace_split_name, qc_trace_split_parse, QC_SPLIT_NONE,
               QC_SPLIT_FLOW, QC_SPLIT_HOST, QC_SPLIT_ACTIVITY);
    CHECK_ENUM(qc_traffic_approach, qc_traffic_approach_name, qc_traffic_approach_parse,
               QC_TRAFFIC_FITTED, QC_TRAFFIC_COPULA, QC_TRAFFIC_COPULA_FITTED);
    CHECK_ENUM(qc_traffic_format, qc_traffic_format_name, qc_traffic_format_parse,
               QC_TRAFFIC_PCAP, QC_TRAFFIC_CSV);
}

static void test_models(void **state)
{
    (void)state;
    CHECK_ENUM(qc_mu_sensor, qc_mu_sensor_name, qc_mu_sensor_parse, QC_SENSOR_TRUE,
               QC_SENSOR_LOGGED);
    CHECK_ENUM(qc_excite_kind, qc_excite_kind_name, qc_excite_kind_parse, QC_EXCITE_NONE,
               QC_EXCITE_PRBS, QC_EXCITE_UNIFORM, QC_EXCITE_STEPS);
    CHECK_ENUM(qc_mc_discipline, qc_mc_discipline_name, qc_mc_discipline_parse, QC_MC_DPS,
               QC_MC_DPS_JOB, QC_MC_WEIGHTED);
    CHECK_ENUM(qc_mc_admitter, qc_mc_admitter_name, qc_mc_admitter_parse, QC_MC_AUTONOMIC,
               QC_MC_STATIC, QC_MC_UTILIZATION);
    CHECK_ENUM(qc_pool_policy, qc_pool_policy_name, qc_pool_policy_parse, QC_POOL_DJSQ,
               QC_POOL_JSQ, QC_POOL_JSQ_OFF, QC_POOL_RANDOM, QC_POOL_CENTRAL);
    CHECK_ENUM(qc_pool_metric, qc_pool_metric_name, qc_pool_metric_parse, QC_PM_JOBS,
               QC_PM_RESPONSE, QC_PM_P50, QC_PM_P95, QC_PM_P99, QC_PM_THROUGHPUT, QC_PM_POWER,
               QC_PM_ENERGY_PER_JOB, QC_PM_SWITCH_ONS_PER_HOUR, QC_PM_FRAC_SETUP, QC_PM_COST,
               QC_PM_HOLDING_COST, QC_PM_SETUP_COST, QC_PM_SERVERS_ON, QC_PM_SERVERS_BUSY,
               QC_PM_SERVERS_SETUP, QC_PM_DEMAND_CORR);
    CHECK_ENUM(qc_discipline, qc_discipline_name, qc_discipline_parse, QC_FCFS, QC_PS);
    CHECK_ENUM(qc_warmup_mode, qc_warmup_mode_name, qc_warmup_mode_parse, QC_WARMUP_MSER5,
               QC_WARMUP_FIXED);
    /* the flags' spellings of the MSER cut (the pool's old "auto") */
    {
        qc_warmup_mode w = QC_WARMUP_FIXED;
        assert_int_equal(qc_warmup_mode_parse("auto", &w, NULL), 0);
        assert_int_equal(w, QC_WARMUP_MSER5);
        w = QC_WARMUP_FIXED;
        assert_int_equal(qc_warmup_mode_parse("mser5", &w, NULL), 0);
        assert_int_equal(w, QC_WARMUP_MSER5);
    }
    CHECK_ENUM(qc_queue_metric, qc_queue_metric_name, qc_queue_metric_parse, QC_QM_RESPONSE,
               QC_QM_WAIT, QC_QM_NUMBER, QC_QM_UTILIZATION, QC_QM_THROUGHPUT, QC_QM_BLOCKING,
               QC_QM_P50, QC_QM_P95, QC_QM_P99);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_helper),  cmocka_unit_test(test_core),
        cmocka_unit_test(test_control), cmocka_unit_test(test_mdp),
        cmocka_unit_test(test_traffic), cmocka_unit_test(test_models),
        cmocka_unit_test(test_mc_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
