/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mdp_run.c: the parameters of `qctl mdp removable` and their one check
 * (app/mdp_run.h): the lists read strictly, element by element, and the
 * model's conditions said in its own terms (a queue stable under some
 * policy, costs that are costs), before any state is allocated. */
#include "app/mdp_run.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qctl/energy.h"

void qc_app_mdp_params_init(qc_app_mdp_params *a)
{
    memset(a, 0, sizeof *a);
    qc_removable_params_init(&a->p);
    a->p.method = QC_REMOVABLE_PI; /* value iteration only on request */
    a->p.cost.holding = 1;
    a->method = QC_REMOVABLE_PI;
    a->price = 1;
}

/* The comma-separated numbers of s into out[0..*n), for the field name. */
static int parse_list(const char *name, const char *s, double *out, size_t *n, qc_err *err)
{
    *n = 0;
    if (*s == '\0')
        return qc_err_set(err, QC_EINVAL, "%s: empty list", name);
    const char *p = s;
    for (size_t i = 1;; i++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return qc_err_set(err, QC_EINVAL, "%s: element %zu is empty in '%s'", name, i, s);
        if (i > QC_ENERGY_MAX_RATES)
            return qc_err_set(err, QC_EINVAL, "%s: more than %d values in '%s'", name,
                              QC_ENERGY_MAX_RATES, s);
        char buf[64];
        if (len >= sizeof buf)
            return qc_err_set(err, QC_EINVAL, "%s: element %zu is not a number", name, i);
        memcpy(buf, p, len);
        buf[len] = '\0';
        char *end;
        errno = 0;
        double x = strtod(buf, &end);
        if (*end != '\0' || end == buf || !isfinite(x) || errno == ERANGE)
            return qc_err_set(err, QC_EINVAL, "%s: element %zu ('%s') is not a finite number",
                              name, i, buf);
        out[(*n)++] = x;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

static int nonneg(const char *name, double x, qc_err *err)
{
    if (x < 0)
        return qc_err_set(err, QC_EINVAL, "%s: %g is negative; costs must be >= 0", name, x);
    return 0;
}

static int check_lists(qc_app_mdp_params *a, qc_err *err)
{
    qc_energy_cost *c = &a->solve.cost;
    size_t npower = 0;
    int rc;
    c->nrates = 0;
    if (a->rates == NULL)
        return qc_err_set(err, QC_EINVAL,
                          "rates: required (a comma-separated list of service rates)");
    if ((rc = parse_list("rates", a->rates, c->rate, &c->nrates, err)) != 0)
        return rc;
    for (size_t i = 0; i < c->nrates; i++) {
        if (!(c->rate[i] > 0))
            return qc_err_set(err, QC_EINVAL, "rates: element %zu (%g) must be > 0", i + 1,
                              c->rate[i]);
        if (i > 0 && !(c->rate[i] > c->rate[i - 1]))
            return qc_err_set(err, QC_EINVAL,
                              "rates: rates must increase strictly: element %zu (%g) is not "
                              "above element %zu (%g)",
                              i + 1, c->rate[i], i, c->rate[i - 1]);
    }
    if (a->power == NULL)
        return qc_err_set(err, QC_EINVAL, "power: required (one power figure per rate)");
    if ((rc = parse_list("power", a->power, c->power, &npower, err)) != 0)
        return rc;
    if (npower != c->nrates)
        return qc_err_set(err, QC_EINVAL, "power: %zu value%s for %zu rate%s; give one per rate",
                          npower, npower == 1 ? "" : "s", c->nrates, c->nrates == 1 ? "" : "s");
    for (size_t i = 0; i < npower; i++)
        if (c->power[i] < 0)
            return qc_err_set(err, QC_EINVAL,
                              "power: element %zu (%g) is negative; costs must be >= 0", i + 1,
                              c->power[i]);
    return 0;
}

int qc_app_mdp_params_check(qc_app_mdp_params *a, qc_err *err)
{
    a->solve = a->p;
    qc_removable_params *p = &a->solve;
    qc_energy_cost *c = &p->cost;
    int rc;
    if (!(a->price > 0 && isfinite(a->price)))
        return qc_err_set(err, QC_EINVAL, "price: must be > 0");
    p->method = (qc_removable_method)a->method;
    if (a->max_states)
        p->max_states = (size_t)a->max_states;
    if (a->levels)
        p->levels = (size_t)a->levels;
    if (a->max_sweeps)
        p->max_iter = (size_t)a->max_sweeps;
    else if (p->method == QC_REMOVABLE_BOTH)
        p->max_iter = QC_APP_MDP_QUICK_SWEEPS;
    if ((rc = check_lists(a, err)) != 0)
        return rc;
    if ((rc = nonneg("idle_power", c->idle_power, err)) || (rc = nonneg("setup_power", c->setup_power, err)) ||
        (rc = nonneg("off_power", c->off_power, err)) || (rc = nonneg("switch_cost", c->switch_cost, err)) ||
        (rc = nonneg("holding", c->holding, err)))
        return rc;
    if (!(c->holding > 0))
        return qc_err_set(err, QC_EINVAL,
                          "holding: must be > 0: with no cost on waiting, leaving the server off "
                          "forever is optimal and the queue has no steady state");
    if (!(c->setup_rate > 0))
        return qc_err_set(err, QC_EINVAL,
                          c->setup_rate == 0
                              ? "setup_rate: required and > 0 (setup times have mean 1/A)"
                              : "setup_rate: must be > 0");
    if (!(p->lambda > 0))
        return qc_err_set(err, QC_EINVAL, "lambda: required and > 0 (the arrival rate)");
    double mx = c->rate[c->nrates - 1];
    if (!(p->lambda < mx))
        return qc_err_set(err, QC_EINVAL,
                          "lambda: %g >= the fastest rate %g (--rates): the queue is unstable "
                          "under every policy",
                          p->lambda, mx);
    if (!(p->tol > 0 && p->tol < 1))
        return qc_err_set(err, QC_EINVAL, "tol: %g is not in (0, 1)", p->tol);
    if (!(p->tail_tol >= 0 && p->tail_tol < 1))
        return qc_err_set(err, QC_EINVAL, "tail_tol: %g is not in [0, 1)", p->tail_tol);
    qc_energy_scale_power(c, a->price); /* the figures in the cost's unit */
    return 0;
}

const char *qc_app_mdp_notices(const qc_removable_params *p, const qc_removable_result *r)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    if (!r->tail_ok)
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              "qctl: mdp removable: the tail target %g was not met within %zu "
                              "states (mass at N %.3g); raise --max-states\n",
                              p->tail_tol, r->states, r->perf.blocking);
    if (n >= sizeof buf)
        return buf;
    if (p->method == QC_REMOVABLE_BOTH && !r->rvi_converged)
        snprintf(buf + n, sizeof buf - n,
                 "qctl: mdp removable: cross-check skipped: value iteration did not "
                 "converge within %zu sweeps (span %.3g); the policy-iteration result stands "
                 "unchecked; raise --max-sweeps to make the check\n",
                 r->rvi_iterations, r->gain_hi - r->gain_lo);
    else if ((p->method & QC_REMOVABLE_RVI) && !r->rvi_converged)
        snprintf(buf + n, sizeof buf - n,
                 "qctl: mdp removable: value iteration did not reach the tolerance in "
                 "%zu sweeps (span %.3g); its bounds are still valid; raise --max-sweeps or use "
                 "--method pi\n",
                 r->rvi_iterations, r->gain_hi - r->gain_lo);
    else if (p->method == QC_REMOVABLE_BOTH && !r->policies_agree)
        snprintf(buf + n, sizeof buf - n,
                 "qctl: mdp removable: value iteration and policy iteration disagree "
                 "(see solver.agreement)\n");
    return buf;
}
