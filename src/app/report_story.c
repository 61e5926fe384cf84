/* SPDX-License-Identifier: GPL-3.0-or-later */
/* report_story.c: a run's report in sentences (see app/report_story.h).
 *
 * The builders only read the summary; each sentence is written through
 * the helpers below, which take a JSON value (or NULL) and say it with
 * its unit, its interval and the closed form beside it when there is one,
 * or say in words that it is missing. A helper never prints a
 * non-finite number: that is the one rule every page shares. */
#include "app/report_story.h"
#include "app/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/error.h"

/* ---- reading the summary ------------------------------------------------ */

/* The value at a dotted path ("run.warmup.time_cut"), or NULL. */
static const json_t *at(const json_t *o, const char *path)
{
    char key[64];
    while (o != NULL && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        o = json_is_object(o) ? json_object_get(o, key) : NULL;
        path += n + (path[n] == '.');
    }
    return o;
}

static double num(const json_t *o, const char *path)
{
    const json_t *v = at(o, path);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *path)
{
    const json_t *v = at(o, path);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* The string at path, or `missing` when there is none. */
static const char *str_or(const json_t *o, const char *path, const char *missing)
{
    const char *s = str(o, path);
    return s ? s : missing;
}

/* An estimate: the summaries' one shape {value, ci_low, ci_high,
 * half_width, level, n, exact} (qc_json_ci_new), or a model file's
 * {value, se, ci95: [lo, hi]} (an identified DC gain); a bare number is
 * a value without an interval. */
typedef struct {
    double value, lo, hi, level, exact;
} estimate;

static estimate est(const json_t *v)
{
    estimate e = {NAN, NAN, NAN, 0.95, NAN};
    if (json_is_number(v)) {
        e.value = json_number_value(v);
        return e;
    }
    e.value = num(v, "value");
    e.lo = num(v, "ci_low");
    e.hi = num(v, "ci_high");
    const json_t *ci = at(v, "ci95");
    if (json_is_array(ci) && json_array_size(ci) == 2) {
        e.lo = json_is_number(json_array_get(ci, 0)) ? json_number_value(json_array_get(ci, 0)) : NAN;
        e.hi = json_is_number(json_array_get(ci, 1)) ? json_number_value(json_array_get(ci, 1)) : NAN;
    }
    if (isfinite(num(v, "level")))
        e.level = num(v, "level");
    e.exact = num(v, "exact");
    return e;
}

/* ---- saying it ---------------------------------------------------------- */

/* A number with its unit ("0.98 s"), or `missing` when it does not exist. */
static void put_q(FILE *fp, double v, const char *unit, const char *missing)
{
    if (!isfinite(v)) {
        fputs(missing, fp);
        return;
    }
    if (fabs(v) >= 1000 && fabs(v) < 1e15)
        fprintf(fp, "%.0f", v); /* a count or a large figure in full, not 2e+04 */
    else
        fprintf(fp, "%.3g", v == 0 ? 0.0 : v); /* never "-0" */
    if (unit != NULL && *unit)
        fprintf(fp, "%s%s", strcmp(unit, "%") == 0 ? "" : " ", unit);
}

/* "name 0.98 s (95% CI 0.95 to 1.01 s) against 1 s for M/M/1": an
 * estimate, its interval or why it has none, and the closed form for
 * `exact_of` (a model's name) when the summary has one. */
static void put_est(FILE *fp, const char *name, const json_t *v, const char *unit,
                    const char *exact_of)
{
    const estimate e = est(v);
    if (*name)
        fprintf(fp, "%s ", name);
    if (!isfinite(e.value)) {
        fputs("not measured (no sample in the run)", fp);
        return;
    }
    put_q(fp, e.value, unit, "");
    if (isfinite(e.lo) && isfinite(e.hi)) {
        fprintf(fp, " (%.0f%% CI ", 100 * e.level);
        put_q(fp, e.lo, NULL, "");
        fputs(" to ", fp);
        put_q(fp, e.hi, unit, "");
        fputs(")", fp);
    } else if (json_is_object(v)) {
        fputs(" (no interval: too few independent samples)", fp);
    }
    if (exact_of != NULL && isfinite(e.exact)) {
        fputs(" against ", fp);
        put_q(fp, e.exact, unit, "");
        fprintf(fp, " for %s", exact_of);
    }
}

/* A sentence's list of estimates, "a 1 s (95% CI ...); b 2 s (...)":
 * each its name, the summary key under `x` and its unit. */
typedef struct {
    const char *name, *key, *unit;
} est_line;

static void put_ests(FILE *fp, const json_t *x, const est_line *l, size_t n, const char *exact_of)
{
    for (size_t i = 0; i < n; i++) {
        fputs(i ? "; " : "", fp);
        put_est(fp, l[i].name, at(x, l[i].key), l[i].unit, exact_of);
    }
}

/* "1 server" / "3 servers" */
static void put_count(FILE *fp, double n, const char *one, const char *many)
{
    if (!isfinite(n))
        fprintf(fp, "an unknown number of %s", many);
    else
        fprintf(fp, "%.0f %s", n, n == 1 ? one : many);
}

/* A list of the numbers of an array, "0.5, 1, 1.5", with a unit after. */
static void put_list(FILE *fp, const json_t *a, const char *unit)
{
    size_t i, n = json_array_size(a);
    for (i = 0; i < n && i < 8; i++) {
        fputs(i ? ", " : "", fp);
        put_q(fp, json_number_value(json_array_get(a, i)), NULL, "(none)");
    }
    if (n > 8)
        fprintf(fp, " and %zu more", n - 8);
    if (n == 0)
        fputs("none", fp);
    else if (unit != NULL)
        fprintf(fp, " %s", unit);
}

/* The replications, run length and seed of a simulation. */
static void put_run_length(FILE *fp, const json_t *run, const char *what, double length,
                           const char *unit)
{
    fputs(", ", fp);
    put_count(fp, num(run, "reps"), "replication", "replications");
    fputs(" of ", fp);
    if (isfinite(length))
        put_q(fp, length, unit, "");
    else
        fputs(what, fp);
    fputs(", seed ", fp);
    put_q(fp, num(run, "seed"), NULL, "not given");
}

/* ---- per command -------------------------------------------------------- */

/* The end of a simulation's run paragraph (replications of so many
 * customers, the seed) and the start of its findings (its estimates). */
static void story_customers(FILE *run, const json_t *r, FILE *fp, const json_t *x,
                            const est_line *lines, size_t n, const char *exact_of)
{
    put_run_length(run, r, "the given length", num(r, "customers"), "customers");
    fputs(".", run);
    put_ests(fp, x, lines, n, exact_of);
}

static void story_steady(FILE *fp, const json_t *run)
{
    const json_t *w = at(run, "warmup"), *tr = at(run, "trend"), *tn = at(run, "transient");
    if (json_is_object(w)) {
        fputs(" The warm-up cut (", fp);
        fputs(str_or(w, "method", "fixed"), fp);
        fputs(") removed ", fp);
        put_q(fp, num(w, "customers_cut"), "customers", "no customers");
        fputs(" (", fp);
        put_q(fp, num(w, "time_cut"), "s", "no time");
        fputs(" of simulated time) from the start of each replication.", fp);
    }
    if (json_is_object(tr)) {
        if (json_is_true(at(tr, "detected")))
            fputs(" Steady state was not reached: the response time was still rising over the "
                  "last half of the run, so the means below are not long-run figures.",
                  fp);
        else {
            fputs(" Steady state was reached: no rising trend in the response time over the "
                  "last half of the run (one-sided p = ",
                  fp);
            put_q(fp, num(tr, "p_value"), NULL, "not computed");
            fputs(").", fp);
        }
    }
    if (json_is_object(tn) || json_is_string(tn))
        fputs(" The run was flagged as transient: see the warnings below.", fp);
}

static int story_queue(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *m = at(s, "model"), *r = at(s, "run"), *x = at(s, "metrics");
    const char *exact = str(m, "exact_model");
    fprintf(run, "The queue simulated is %s: arrivals %s, service %s (times in seconds), ",
            exact ? exact : "a G/G/c queue", str_or(m, "arrival", "as given"),
            str_or(m, "service", "as given"));
    put_count(run, num(m, "servers"), "server", "servers");
    fprintf(run, ", discipline %s, ", str_or(m, "discipline", "fcfs"));
    if (isfinite(num(m, "capacity"))) {
        fputs("room for ", run);
        put_q(run, num(m, "capacity"), "jobs", "");
    } else {
        fputs("unlimited waiting room", run);
    }
    fputs(", offered load ", run);
    put_q(run, num(m, "load"), NULL, "not defined");
    static const est_line lines[] = {
        {"Mean response time", "response_time", "s"},
        {"mean waiting time", "waiting_time", "s"},
        {"95th percentile of the response time", "response_time_p95", "s"},
        {"utilization", "utilization", NULL},
        {"throughput", "throughput", "jobs/s"},
    };
    story_customers(run, r, fp, x, lines, sizeof lines / sizeof lines[0], exact);
    if (isfinite(est(at(x, "blocking_probability")).value) &&
        est(at(x, "blocking_probability")).value > 0) {
        fputs("; ", fp);
        put_est(fp, "blocking probability", at(x, "blocking_probability"), NULL, exact);
    }
    fputs(".", fp);
    story_steady(fp, r);
    return 0;
}

static int story_pool(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *m = at(s, "model"), *r = at(s, "run"), *x = at(s, "metrics"),
                 *c = at(s, "cost");
    fputs("A pool of ", run);
    put_count(run, num(m, "servers"), "server", "servers");
    fprintf(run, " was simulated with routing and on/off policy %s: arrivals %s (mean rate ",
            str_or(m, "policy", "as given"),
            str_or(m, "arrival", "as given"));
    put_q(run, num(m, "mean_arrival_rate"), "jobs/s", "not defined");
    fprintf(run, "), service %s, setup %s, idle timer ",
            str_or(m, "service", "as given"),
            str_or(m, "setup_time", "as given"));
    put_q(run, num(m, "idle_timer"), "s", "none");
    fputs(", load per server ", run);
    put_q(run, num(m, "load"), NULL, "not defined");
    fputs("; power busy ", run);
    put_q(run, num(c, "busy_power_w"), "W", "not given");
    fputs(", idle ", run);
    put_q(run, num(c, "idle_power_w"), "W", "not given");
    fputs(", setup ", run);
    put_q(run, num(c, "setup_power_w"), "W", "not given");
    fputs(", off ", run);
    put_q(run, num(c, "off_power_w"), "W", "not given");
    static const est_line lines[] = {
        {"Mean response time", "response_time", "s"}, {"95th percentile", "response_time_p95", "s"},
        {"mean power", "mean_power_watts", "W"},      {"servers on", "servers_on", NULL},
        {"switch-ons", "switch_ons_per_hour", "per hour"},
    };
    story_customers(run, r, fp, x, lines, sizeof lines / sizeof lines[0], NULL);
    fputs(".", fp);
    story_steady(fp, r);
    const json_t *cmp = at(s, "comparison");
    if (json_is_array(cmp) && json_array_size(cmp) > 0) {
        size_t i, best = 0;
        json_t *e;
        json_array_foreach(cmp, i, e)
        {
            if (est(at(e, "average_cost")).value < est(at(json_array_get(cmp, best),
                                                            "average_cost")).value)
                best = i;
        }
        const json_t *b = json_array_get(cmp, best);
        fprintf(fp, "\n\nOf the %zu policies compared, %s has the lowest average cost: ",
                json_array_size(cmp), str_or(b, "policy", "one"));
        put_est(fp, "", at(b, "average_cost"), "per s", NULL);
        fputs(", with a ", fp);
        put_est(fp, "mean response time", at(b, "response_time"), "s", NULL);
        fputs(".", fp);
    }
    return 0;
}

static int story_maxusers(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *r = at(s, "run"), *sm = at(s, "summary");
    fputs("A server of ", run);
    put_q(run, num(r, "population"), "users", "an unknown number of users");
    fprintf(run, " was simulated with its MaxUsers limit set by a%s %s controller (K_I = ",
            strcmp(str_or(r, "controller", ""), "integral") == 0 ? "n" : "",
            str_or(r, "controller", "feedback"));
    put_q(run, num(r, "ki"), NULL, "not set");
    fputs(", K_P = ", run);
    put_q(run, num(r, "kp"), NULL, "not set");
    fputs(") every ", run);
    put_q(run, num(r, "interval"), "s", "interval");
    fputs(" for ", run);
    put_count(run, num(r, "intervals"), "interval", "intervals");
    put_run_length(run, r, "the run", NAN, NULL);
    fputs(".", run);
    const json_t *steps = at(s, "steps");
    size_t i;
    json_t *e;
    json_array_foreach(steps, i, e)
    {
        fprintf(fp, "%sThe step at ", i ? " " : "");
        put_q(fp, num(e, "t_start"), "s", "the start");
        fputs(" to a RIS reference of ", fp);
        put_q(fp, num(e, "reference"), "RPCs", "none");
        if (json_is_false(at(e, "reachable"))) {
            fputs(" is out of reach of the server at this population.", fp);
            continue;
        }
        if (!isfinite(num(e, "settling_time"))) {
            fputs(" did not settle within the band in the run.", fp);
            continue;
        }
        fputs(" settled in ", fp);
        put_est(fp, "", at(e, "settling_time_ci"), "s", NULL);
        fputs(" with an overshoot of ", fp);
        put_est(fp, "", at(e, "overshoot_percent_ci"), "%", NULL);
        fputs(" and a steady-state error of ", fp);
        put_q(fp, num(e, "steady_state_error"), "RPCs", "none measured");
        fputs(".", fp);
    }
    fputs(json_array_size(steps) ? " " : "", fp);
    fputs("Over the run: throughput ", fp);
    put_q(fp, num(sm, "throughput"), "requests/s", "not measured");
    fputs(", mean response time ", fp);
    put_q(fp, num(sm, "response_mean"), "s", "not measured");
    fputs(", the actuator at a limit ", fp);
    put_q(fp, 100 * num(sm, "fraction_saturated"), "%", "for an unknown share");
    fputs(" of the time, RIS averaging ", fp);
    put_q(fp, num(sm, "ris_mean_second_half"), "RPCs", "no value");
    fputs(" over the second half.", fp);
    return 0;
}

/* The classes' results; s the whole summary (a class that asks to join
 * only after the run's end is said so, not "never admitted"). */
static void story_admission_classes(FILE *fp, const json_t *classes, const json_t *s)
{
    size_t i;
    json_t *c;
    const json_t *model = at(s, "model.classes");
    json_array_foreach(classes, i, c)
    {
        const char *name = str_or(c, "name", "a class");
        const char *role = str_or(c, "role", "");
        fprintf(fp, "%s%s (%s", i ? "; " : "", name, role);
        if (isfinite(num(c, "bound"))) {
            fputs(", bound ", fp);
            put_q(fp, num(c, "bound"), "s", "");
        }
        fputs("): ", fp);
        const double start = num(json_array_get(model, i), "start");
        if (!isfinite(est(at(c, "delay")).value)) {
            if (start >= num(s, "run.time")) {
                fputs("it asks to join at ", fp);
                put_q(fp, start, "s", "");
                fputs(", after the run's end, so no delay was measured", fp);
            } else {
                fputs("never admitted, so no delay was measured", fp);
            }
            continue;
        }
        put_est(fp, "mean delay", at(c, "delay"), "s", NULL);
        if (isfinite(num(c, "admitted"))) {
            fputs(", admitted in ", fp);
            put_q(fp, num(c, "admitted"), NULL, "");
            fputs(num(c, "admitted") == 1 ? " replication" : " replications", fp);
        }
    }
    fputs(".", fp);
}

static void story_admission_summary(FILE *fp, const json_t *sm)
{
    fputs(" ", fp);
    put_est(fp, "Worst excursion of a class's delay above its target, as a fraction of the "
                "target,",
            at(sm, "worst_excursion"), NULL, NULL);
    fputs("; ", fp);
    put_est(fp, "best-effort throughput", at(sm, "best_effort_throughput"), "jobs/s", NULL);
    fputs(" of ", fp);
    put_q(fp, num(sm, "best_effort_offered"), "jobs/s", "an unknown rate");
    fputs(" offered.", fp);
}

static int story_admission(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *m = at(s, "model"), *r = at(s, "run");
    fputs("One server shared by ", run);
    put_count(run, (double)json_array_size(at(m, "classes")), "class", "classes");
    fprintf(run, " was simulated under discipline %s at a total load of ",
            str_or(m, "discipline", "as given"));
    put_q(run, num(m, "load"), NULL, "unknown");
    fputs(" (", run);
    size_t i;
    json_t *c;
    json_array_foreach(at(m, "classes"), i, c)
    {
        fprintf(run, "%s%s, %s", i ? "; " : "", str_or(c, "name", "a class"),
                str_or(c, "role", ""));
        if (isfinite(num(c, "bound"))) {
            fputs(", delay bound ", run);
            put_q(run, num(c, "bound"), "s", "");
        }
    }
    fputs("), ε = ", run);
    put_q(run, num(r, "epsilon"), NULL, "not set");
    put_run_length(run, r, "the given length", num(r, "time"), "s");
    fputs(", the first ", run);
    put_q(run, num(r, "warmup"), "s", "part");
    fputs(" cut as warm-up.", run);
    const json_t *pol = at(s, "policies");
    if (json_is_array(pol)) {
        fprintf(fp, "%zu admission policies compared on the same arrivals.", json_array_size(pol));
        json_t *p;
        json_array_foreach(pol, i, p)
        {
            fprintf(fp, "\n\nPolicy %s: ", str_or(p, "policy", "unnamed"));
            story_admission_classes(fp, at(p, "classes"), s);
            story_admission_summary(fp, at(p, "summary"));
        }
        return 0;
    }
    fprintf(fp, "Under the %s policy: ", str_or(s, "policy", "given"));
    story_admission_classes(fp, at(s, "classes"), s);
    story_admission_summary(fp, at(s, "summary"));
    return 0;
}

static int story_mdp(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *m = at(s, "model"), *t = at(s, "truncation"), *st = at(s, "structure"),
                 *p = at(s, "performance");
    fputs("An M/M/1 queue with a removable server was solved: arrival rate λ = ", run);
    put_q(run, num(m, "lambda"), "jobs/s", "not given");
    fputs(", service rates ", run);
    put_list(run, at(m, "rates"), "jobs/s");
    fputs(" drawing ", run);
    put_list(run, at(m, "power"), "W");
    fputs(", idle ", run);
    put_q(run, num(m, "idle_power"), "W", "not given");
    fputs(", setup ", run);
    put_q(run, num(m, "setup_power"), "W", "not given");
    fputs(" at setup rate ", run);
    put_q(run, num(m, "setup_rate"), "per s", "not given");
    fputs(", switch cost ", run);
    put_q(run, num(m, "switch_cost"), "per switch-on", "none");
    fputs(", holding cost ", run);
    put_q(run, num(m, "holding"), "per job per s", "none");
    fputs(", price ", run);
    put_q(run, num(m, "price"), "per J", "none");
    fputs("; the chain was truncated at N = ", run);
    put_q(run, num(t, "N"), "jobs", "no bound");
    fputs(" (probability mass at N ", run);
    put_q(run, num(t, "mass_at_N"), NULL, "not computed");
    fputs(").", run);
    fputs("The optimal average cost is ", fp);
    put_q(fp, num(s, "gain"), "per s", "not found");
    fputs(" (exact for the truncated chain, not an estimate). ", fp);
    if (json_is_true(at(st, "switch_on_threshold")) && isfinite(num(st, "threshold_n"))) {
        fputs("The optimal policy switches the server on when the queue reaches ", fp);
        put_q(fp, num(st, "threshold_n"), "jobs", "");
        fputs(json_is_true(at(st, "off_when_idle")) ? " and off when it empties. "
                                                    : " and keeps it on when it empties. ",
              fp);
    } else {
        fputs("The optimal policy has no single switch-on threshold. ", fp);
    }
    fputs("Under it the mean response time is ", fp);
    put_q(fp, num(p, "mean_response"), "s", "not defined");
    fputs(", the power cost ", fp);
    put_q(fp, num(p, "mean_power"), "per s", "not defined");
    fputs(" and the server switches on ", fp);
    put_q(fp, num(p, "switch_ons_per_hour"), "times per hour", "never");
    fputs(".", fp);
    const json_t *cmp = at(s, "comparison");
    size_t i;
    json_t *e;
    int first = 1;
    json_array_foreach(cmp, i, e)
    {
        const double g = num(s, "gain"), c = num(e, "average_cost");
        if (i == 0 || !isfinite(c))
            continue;
        fputs(first ? " Against the other policies: " : "; ", fp);
        first = 0;
        fprintf(fp, "%s costs ", str_or(e, "policy", "a policy"));
        put_q(fp, c, "per s", "");
        if (isfinite(g) && g > 0) {
            fputs(" (", fp);
            put_q(fp, 100 * (c - g) / g, "%", "");
            fputs(" more)", fp);
        }
    }
    if (!first)
        fputs(".", fp);
    return 0;
}

/* " + 0.43 y(k) - 0.1 y(k-1)": the terms of one polynomial, lag 0 at
 * shift `from` (so a delay d starts u at k-d). */
static void put_terms(FILE *fp, const json_t *c, const char *var, int from, int first)
{
    for (size_t i = 0; i < json_array_size(c); i++) {
        const double v = json_number_value(json_array_get(c, i));
        fputs(first && i == 0 ? " " : v < 0 ? " - " : " + ", fp);
        put_q(fp, first && i == 0 ? v : fabs(v), NULL, "(none)");
        const int lag = from - (int)i;
        if (lag == 0)
            fprintf(fp, " %s(k)", var);
        else
            fprintf(fp, " %s(k%+d)", var, lag);
    }
}

static void story_arx(FILE *fp, const char *what, const json_t *m)
{
    const json_t *f = at(m, "fit");
    fprintf(fp, "The %s: y(k+1) =", what);
    put_terms(fp, at(m, "a"), "y", 0, 1);
    put_terms(fp, at(m, "b"), "u", -(int)num(m, "delay"), json_array_size(at(m, "a")) == 0);
    fputs(" (na = ", fp);
    put_q(fp, num(m, "na"), NULL, "?");
    fputs(", nb = ", fp);
    put_q(fp, num(m, "nb"), NULL, "?");
    if (num(m, "delay") < 0) { /* the input enters within the sample */
        fputs(", u(k+1) entering y(k+1)", fp);
    } else {
        fputs(", input delay ", fp);
        put_q(fp, num(m, "delay"), "samples", "none");
    }
    fputs(" chosen by ", fp);
    fputs(str_or(f, "criterion", "the criterion"), fp);
    fputs("), R² ", fp);
    put_q(fp, num(f, "r2"), NULL, "not computed");
    fputs(" on the estimation samples; on the validation samples one-step R² ", fp);
    put_q(fp, num(f, "validation.r2_one_step"), NULL, "not computed");
    fputs(" and simulation fit ", fp);
    put_q(fp, num(f, "validation.fit_percent"), "%", "not computed");
    fputs("; ", fp);
    put_est(fp, "DC gain", at(f, "dc_gain"), NULL, NULL);
    fputs(".", fp);
}

static int story_sysid(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *f = at(s, "fit");
    fputs("A first-order ARX model was identified by ", run);
    fputs(str_or(f, "method", "least squares"), run);
    fputs(" from ", run);
    put_count(run, num(f, "samples"), "sample", "samples");
    fputs(" (", run);
    put_q(run, num(f, "estimation_samples"), "for estimation", "");
    fputs(", ", run);
    put_q(run, num(f, "validation_samples"), "for validation", "");
    fputs("), one every ", run);
    put_q(run, num(s, "sample_interval"), "s", "sample");
    fputs(", in offsets from the operating point u = ", run);
    put_q(run, num(s, "operating_point.u"), NULL, "not given");
    fputs(", y = ", run);
    put_q(run, num(s, "operating_point.y"), NULL, "not given");
    fputs(" (in the units of the logged columns).", run);
    story_arx(fp, "plant model", s);
    if (json_is_object(at(s, "sensor"))) {
        fputs("\n\n", fp);
        story_arx(fp, "sensor model (measured output against the true output)", at(s, "sensor"));
    }
    return 0;
}

static int story_fit(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *c = at(s, "capture");
    fprintf(run, "A traffic model was fitted to the %s capture %s: ",
            str_or(c, "format", ""), str_or(c, "file", ""));
    put_count(run, num(c, "packets"), "packet", "packets");
    fputs(" in ", run);
    put_count(run, num(c, "flows"), "flow", "flows");
    fputs(" over ", run);
    put_q(run, num(c, "duration"), "s", "an unknown time");
    fputs(".", run);
    size_t i;
    json_t *g;
    json_array_foreach(at(s, "groups"), i, g)
    {
        const json_t *m = at(g, "model");
        fprintf(fp, "%s%s (", i ? "\n\n" : "", str_or(g, "name", "a group"));
        put_count(fp, num(g, "packets"), "packet", "packets");
        fputs(", ", fp);
        put_count(fp, num(g, "sessions"), "session", "sessions");
        fprintf(fp, "): packet sizes are best fitted by %s (mean ",
                str_or(m, "size.family", "no family"));
        /* the page names a fit's mean with its unit (fit.c) */
        put_q(fp, isfinite(num(m, "size.mean")) ? num(m, "size.mean") : num(m, "size.mean (bytes)"),
              "bytes", "not defined");
        fprintf(fp, "), gaps between packets by %s (mean ",
                str_or(m, "gap.family", "no family"));
        put_q(fp, isfinite(num(m, "gap.mean")) ? num(m, "gap.mean") : num(m, "gap.mean (s)"), "s",
              "not defined");
        fprintf(fp, "), chosen by %s", str_or(m, "size.criterion", "AIC"));
        const char *on = str(m, "onoff.method");
        if (on == NULL || strcmp(on, "none") == 0)
            fputs("; the capture shows no on/off periods.", fp);
        else {
            fprintf(fp, "; on/off periods found (%s), split at an idle gap of ", on);
            put_q(fp, num(m, "onoff.threshold"), "s", "no fixed length");
            fputs(".", fp);
        }
    }
    return 0;
}

static int story_gen(const json_t *s, FILE *run, FILE *fp)
{
    if (json_is_object(at(s, "capture"))) { /* gen --validate */
        const json_t *c = at(s, "capture"), *x = at(s, "metrics");
        fprintf(run, "Traffic was generated from models fitted to the capture %s (",
                str_or(c, "file", ""));
        put_count(run, num(c, "packets"), "packet", "packets");
        fputs(" over ", run);
        put_q(run, num(c, "duration"), "s", "an unknown time");
        fputs("), ", run);
        put_count(run, num(s, "realisations"), "realisation", "realisations");
        fputs(" per model, counted in bins of ", run);
        put_q(run, num(s, "bin_seconds"), "s", "no fixed width");
        fputs(".", run);
        fputs("Mean packet size: ", fp);
        put_q(fp, num(x, "mean_size.real"), "bytes", "not measured");
        fputs(" in the capture, ", fp);
        put_est(fp, "generated with the fitted marginals", at(x, "mean_size.fitted"), "bytes", NULL);
        fputs(", ", fp);
        put_est(fp, "with the copula", at(x, "mean_size.copula"), "bytes", NULL);
        fputs(". Packets per second: ", fp);
        put_q(fp, num(x, "packets_per_second.real"), "packets/s", "not measured");
        fputs(" in the capture, ", fp);
        put_est(fp, "generated with the copula", at(x, "packets_per_second.copula"), "packets/s",
                NULL);
        fputs(". Of the measures compared, the copula model is the closer on ", fp);
        put_q(fp, num(s, "closer_count.copula"), NULL, "none");
        fputs(" and the fitted marginals alone on ", fp);
        put_q(fp, num(s, "closer_count.fitted"), NULL, "none");
        fputs(" (the others overlap within their intervals).", fp);
        return 0;
    }
    fputs("Traffic was generated for ", run);
    size_t i;
    json_t *a;
    json_array_foreach(at(s, "activities"), i, a)
    {
        fputs(i ? ", " : "", run);
        put_count(run, num(a, "users"), "user", "users");
        fprintf(run, " of %s", str_or(a, "activity", "an activity"));
    }
    fputs(" over ", run);
    put_q(run, num(s, "duration"), "s", "an unknown time");
    fprintf(run, " (%s approach, seed ", str_or(s, "approach", "given"));
    put_q(run, num(s, "seed"), NULL, "not given");
    fputs(").", run);
    fputs("It holds ", fp);
    put_count(fp, num(s, "packets"), "packet", "packets");
    fputs(": ", fp);
    put_q(fp, num(s, "packets_per_second"), "packets/s", "no rate");
    fputs(" against ", fp);
    put_q(fp, num(s, "expected_packets_per_second"), "packets/s", "no rate");
    fputs(" expected from the models.", fp);
    return 0;
}

static int story_sweep(const json_t *s, FILE *run, FILE *fp)
{
    const json_t *sw = at(s, "sweep"), *pts = at(s, "points");
    fprintf(run, "A sweep ran %s at ", str_or(sw, "experiment", "a command"));
    put_count(run, num(sw, "points"), "point", "points");
    fputs(" of a grid over ", run);
    size_t i, j;
    json_t *p;
    json_array_foreach(at(sw, "params"), i, p)
    {
        fprintf(run, "%s%s", i ? " and " : "", json_string_value(p) ? json_string_value(p) : "?");
    }
    fputs(", ", run);
    put_count(run, num(sw, "reps"), "replication", "replications");
    fputs(" per point, seed ", run);
    put_q(run, num(sw, "seed"), NULL, "not given");
    fputs(".", run);
    size_t failed = 0;
    json_array_foreach(pts, i, p) failed += !json_is_null(at(p, "error")) && at(p, "error") != NULL;
    const char *mk;
    json_t *mv;
    int first = 1;
    json_object_foreach((json_t *)at(sw, "metrics"), mk, mv)
    {
        const char *path = json_is_string(mv) ? json_string_value(mv) : "";
        const char *leaf = strrchr(path, '.') ? strrchr(path, '.') + 1 : path;
        const char *unit = qc__report_unit(leaf);
        /* the page's points may name the metric with its unit (sweep.c) */
        char key[256];
        if (json_array_size(pts) > 0 && at(json_array_get(pts, 0), mk) == NULL && unit != NULL)
            snprintf(key, sizeof key, "%s (%s)", mk, unit);
        else
            snprintf(key, sizeof key, "%s", mk);
        const json_t *lo = NULL, *hi = NULL;
        json_array_foreach(pts, i, p)
        {
            const double v = est(json_object_get(p, key)).value;
            if (!isfinite(v))
                continue;
            if (lo == NULL || v < est(json_object_get(lo, key)).value)
                lo = p;
            if (hi == NULL || v > est(json_object_get(hi, key)).value)
                hi = p;
        }
        fprintf(fp, "%s%s (%s) ", first ? "" : " ", mk, path);
        first = 0;
        if (lo == NULL) {
            fputs("has no value at any point.", fp);
            continue;
        }
        fputs("ranges from ", fp);
        const json_t *ends[2] = {lo, hi};
        for (int k = 0; k < 2; k++) {
            put_est(fp, "", json_object_get(ends[k], key), unit, NULL);
            fputs(" at ", fp);
            json_array_foreach(at(sw, "params"), j, p)
            {
                const char *pn = json_string_value(p) ? json_string_value(p) : "";
                fprintf(fp, "%s%s = ", j ? ", " : "", pn);
                const json_t *pv = at(ends[k], pn);
                if (json_is_string(pv))
                    fputs(json_string_value(pv), fp);
                else
                    put_q(fp, json_number_value(pv), NULL, "?");
            }
            fputs(k ? "." : " to ", fp);
        }
    }
    if (failed > 0)
        fprintf(fp, "\n\n%zu point%s failed; see the error column.", failed, failed == 1 ? "" : "s");
    return 0;
}

/* ------------------------------------------------------------------------- */

static const struct {
    const char *cmd;
    int (*story)(const json_t *, FILE *, FILE *);
} stories[] = {
    {"sim queue", story_queue},     {"sim pool", story_pool}, {"sim maxusers", story_maxusers},
    {"sim admission", story_admission}, {"mdp removable", story_mdp}, {"sysid", story_sysid},
    {"fit", story_fit},             {"gen", story_gen},       {"sweep", story_sweep},
};

int qc_report_story(const char *cmd, const json_t *summary, char **run, char **shows)
{
    *run = *shows = NULL;
    size_t k;
    for (k = 0; k < sizeof stories / sizeof stories[0]; k++)
        if (strcmp(cmd, stories[k].cmd) == 0)
            break;
    if (k == sizeof stories / sizeof stories[0] || !json_is_object(summary))
        return 1;
    size_t nr = 0, ns = 0;
    FILE *r = open_memstream(run, &nr), *s = open_memstream(shows, &ns);
    int rc = r && s ? stories[k].story(summary, r, s) : QC_ENOMEM;
    if ((r && fclose(r) != 0) || (s && fclose(s) != 0) || r == NULL || s == NULL)
        rc = QC_ENOMEM;
    if (rc != 0) {
        free(*run);
        free(*shows);
        *run = *shows = NULL;
    }
    return rc;
}
