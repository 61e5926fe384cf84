/* SPDX-License-Identifier: GPL-3.0-or-later */
/* limiters.c: static priorities, the utilization test, and the Gradient2,
 * Vegas and Envoy adaptive concurrency limiters as step objects (update
 * rules in qctl/limiters.h, each taken from its project's documented
 * algorithm: Netflix concurrency-limits' Gradient2Limit and VegasLimit,
 * Envoy's adaptive concurrency filter, gradient controller).
 *
 * Where the originals keep integers (Netflix truncates the limit it
 * reports, Envoy stores it as uint32) the limit here stays a double and
 * the gate uses its floor, which lets the same value through. Clocks are
 * the caller's: Envoy's timers become deadlines checked at each step, and
 * the act says when the next one is due. */
#include "qctl/limiters.h"
#include "core/names.h"

#include <math.h>
#include <string.h>

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- static --------------------------------------------------------------- */

int qc_lim_static_init(qc_lim_static *c, double priority, qc_err *err)
{
    if (!(priority > 0) || !isfinite(priority))
        return qc_err_set(err, QC_EINVAL, "priority: %g must be > 0", priority);
    c->priority = priority;
    return 0;
}

int qc_lim_static_step(qc_lim_static *c, const qc_lim_static_sense *in, qc_lim_static_act *out)
{
    (void)in;
    out->priority = c->priority;
    return 0;
}

/* ---- utilization test ------------------------------------------------------- */

int qc_lim_util_init(qc_lim_util *c, double u_max, double u0, qc_err *err)
{
    if (!(u_max > 0) || !isfinite(u_max))
        return qc_err_set(err, QC_EINVAL, "u_max: %g must be > 0", u_max);
    if (!(u0 >= 0) || !isfinite(u0))
        return qc_err_set(err, QC_EINVAL, "initial load: %g must be >= 0", u0);
    c->u_max = u_max;
    c->admitted = u0;
    return 0;
}

int qc_lim_util_step(qc_lim_util *c, const qc_lim_util_sense *in, qc_lim_util_act *out)
{
    out->admit = 0;
    if (!(in->load >= 0) || !isfinite(in->load)) {
        out->admitted = c->admitted;
        return QC_EINVAL;
    }
    if (in->event == QC_LIM_JOIN) {
        if (c->admitted + in->load <= c->u_max) {
            c->admitted += in->load;
            out->admit = 1;
        }
    } else if (in->event == QC_LIM_LEAVE) {
        c->admitted = c->admitted > in->load ? c->admitted - in->load : 0;
        out->admit = 1;
    } else {
        out->admitted = c->admitted;
        return QC_EINVAL;
    }
    out->admitted = c->admitted;
    return 0;
}

/* ---- Gradient2 ------------------------------------------------------------------ */

void qc_lim_gradient2_params_init(qc_lim_gradient2_params *p)
{
    p->initial_limit = 20;
    p->min_limit = 20;
    p->max_limit = 200;
    p->smoothing = 0.2;
    p->queue_size = 4;
    p->tolerance = 1.5;
    p->long_window = 600;
}

int qc_lim_gradient2_init(qc_lim_gradient2 *c, const qc_lim_gradient2_params *p, qc_err *err)
{
    if (!(p->min_limit >= 0 && p->min_limit <= p->max_limit) || !isfinite(p->max_limit))
        return qc_err_set(err, QC_EINVAL, "gradient2: limits [%g, %g] are not an interval",
                          p->min_limit, p->max_limit);
    if (!(p->initial_limit >= 0) || !isfinite(p->initial_limit))
        return qc_err_set(err, QC_EINVAL, "gradient2: initial limit %g", p->initial_limit);
    if (!(p->smoothing > 0 && p->smoothing <= 1))
        return qc_err_set(err, QC_EINVAL, "gradient2: smoothing %g is not in (0, 1]",
                          p->smoothing);
    if (!(p->tolerance >= 1))
        return qc_err_set(err, QC_EINVAL, "gradient2: tolerance %g must be >= 1", p->tolerance);
    if (!(p->queue_size >= 0) || p->long_window < 1)
        return qc_err_set(err, QC_EINVAL, "gradient2: queue size and long window must be > 0");
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->limit = p->initial_limit;
    return 0;
}

int qc_lim_gradient2_step(qc_lim_gradient2 *c, const qc_lim_sample *in, qc_lim_act *out)
{
    out->next_tick = INFINITY;
    if (isnan(in->rtt)) { /* a tick: Gradient2 has no timers */
        out->limit = c->limit;
        return 0;
    }
    if (!(in->rtt > 0) || !isfinite(in->rtt)) {
        out->limit = c->limit;
        return QC_EINVAL;
    }
    const qc_lim_gradient2_params *p = &c->p;
    double rtt = in->rtt;
    /* ExpAvgMeasurement(long_window, 10): a plain mean of the first ten
     * samples, then an EMA with factor 2 / (window + 1). */
    if (c->warm < 10) {
        c->warm++;
        c->long_rtt += (rtt - c->long_rtt) / c->warm;
    } else {
        double f = 2.0 / (p->long_window + 1.0);
        c->long_rtt = c->long_rtt * (1 - f) + rtt * f;
    }
    double long_rtt = c->long_rtt;
    /* Latency back to normal after a long overload: pull the baseline
     * down faster than the EMA would. */
    if (long_rtt / rtt > 2)
        c->long_rtt *= 0.95;
    if ((double)in->inflight < c->limit / 2) {
        out->limit = c->limit;
        return 0;
    }
    double gradient = clampd(p->tolerance * long_rtt / rtt, 0.5, 1.0);
    double nl = c->limit * gradient + p->queue_size;
    nl = c->limit * (1 - p->smoothing) + nl * p->smoothing;
    c->limit = clampd(nl, p->min_limit, p->max_limit);
    out->limit = c->limit;
    return 0;
}

/* ---- Vegas ------------------------------------------------------------------------ */

void qc_lim_vegas_params_init(qc_lim_vegas_params *p)
{
    p->initial_limit = 20;
    p->max_limit = 1000;
    p->smoothing = 1.0;
    p->probe_multiplier = 30;
    p->seed = 1;
}

static void vegas_jitter(qc_lim_vegas *c)
{
    c->probe_jitter = 0.5 + 0.5 * qc_rng_u01(&c->rng);
}

int qc_lim_vegas_init(qc_lim_vegas *c, const qc_lim_vegas_params *p, qc_err *err)
{
    if (!(p->initial_limit >= 1 && p->initial_limit <= p->max_limit) || !isfinite(p->max_limit))
        return qc_err_set(err, QC_EINVAL, "vegas: initial limit %g is not in [1, %g]",
                          p->initial_limit, p->max_limit);
    if (!(p->smoothing > 0 && p->smoothing <= 1))
        return qc_err_set(err, QC_EINVAL, "vegas: smoothing %g is not in (0, 1]", p->smoothing);
    if (p->probe_multiplier < 1)
        return qc_err_set(err, QC_EINVAL, "vegas: probe multiplier must be >= 1");
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->limit = p->initial_limit;
    qc_rng_init(&c->rng, p->seed, qc_rng_stream(0, QC_STREAM_CONTROL, 0x7e9a));
    vegas_jitter(c);
    return 0;
}

/* Netflix's Log10RootFunction: max(1, (int) log10(L)) below 1000, and
 * (int) sqrt(L) from there (sic: that is how the table is extended). */
static double vegas_f(double limit)
{
    double L = floor(limit);
    if (L < 10)
        return 1;
    if (L < 1000)
        return floor(log10(L));
    return floor(sqrt(L));
}

int qc_lim_vegas_step(qc_lim_vegas *c, const qc_lim_sample *in, qc_lim_act *out)
{
    out->next_tick = INFINITY;
    out->limit = c->limit;
    if (isnan(in->rtt))
        return 0;
    if (!(in->rtt > 0) || !isfinite(in->rtt))
        return QC_EINVAL;
    const qc_lim_vegas_params *p = &c->p;
    double rtt = in->rtt;
    c->probe_count++;
    if (c->probe_jitter * p->probe_multiplier * c->limit <= (double)c->probe_count) {
        vegas_jitter(c);
        c->probe_count = 0;
        c->rtt_noload = rtt;
        return 0;
    }
    if (c->rtt_noload == 0 || rtt < c->rtt_noload) {
        c->rtt_noload = rtt;
        return 0;
    }
    double f = vegas_f(c->limit), nl;
    double queue = ceil(c->limit * (1 - c->rtt_noload / rtt));
    if (in->dropped)
        nl = c->limit - f;
    else if ((double)in->inflight * 2 < c->limit)
        return 0;
    else if (queue <= f)
        nl = c->limit + 6 * f;
    else if (queue < 3 * f)
        nl = c->limit + f;
    else if (queue > 6 * f)
        nl = c->limit - f;
    else
        return 0;
    nl = clampd(nl, 1, p->max_limit);
    c->limit = (1 - p->smoothing) * c->limit + p->smoothing * nl;
    out->limit = c->limit;
    return 0;
}

/* ---- Envoy adaptive concurrency --------------------------------------------------- */

void qc_lim_envoy_params_init(qc_lim_envoy_params *p)
{
    p->sample_interval = 0.1;
    p->quantile = 0.5;
    p->min_rtt_interval = 60;
    p->min_rtt_requests = 50;
    p->jitter = 0.15;
    p->min_concurrency = 3;
    p->buffer = 0.25;
    p->max_limit = 1000;
    p->seed = 1;
}

static void envoy_open_window(qc_lim_envoy *c, double t)
{
    c->in_window = 1;
    c->deferred = c->limit;
    c->limit = c->p.min_concurrency;
    c->at_min = 0;
    qc_hist_reset(c->h);
    c->epoch = t;
}

int qc_lim_envoy_init(qc_lim_envoy *c, const qc_lim_envoy_params *p, double t0, qc_err *err)
{
    memset(c, 0, sizeof *c);
    if (!(p->sample_interval > 0) || !isfinite(p->sample_interval))
        return qc_err_set(err, QC_EINVAL, "envoy: sample interval %g must be > 0",
                          p->sample_interval);
    if (!(p->min_rtt_interval > 0) || !isfinite(p->min_rtt_interval))
        return qc_err_set(err, QC_EINVAL, "envoy: minRTT interval %g must be > 0",
                          p->min_rtt_interval);
    if (!(p->quantile > 0 && p->quantile <= 1))
        return qc_err_set(err, QC_EINVAL, "envoy: quantile %g is not in (0, 1]", p->quantile);
    if (p->min_rtt_requests < 1)
        return qc_err_set(err, QC_EINVAL, "envoy: minRTT request count must be >= 1");
    if (!(p->jitter >= 0 && p->jitter <= 1))
        return qc_err_set(err, QC_EINVAL, "envoy: jitter %g is not in [0, 1]", p->jitter);
    if (!(p->min_concurrency >= 1 && p->min_concurrency <= p->max_limit) ||
        !isfinite(p->max_limit))
        return qc_err_set(err, QC_EINVAL, "envoy: limits [%g, %g] are not an interval",
                          p->min_concurrency, p->max_limit);
    if (!(p->buffer >= 0))
        return qc_err_set(err, QC_EINVAL, "envoy: buffer %g must be >= 0", p->buffer);
    if (!isfinite(t0))
        return qc_err_set(err, QC_EINVAL, "envoy: start time %g", t0);
    c->h = qc_hist_alloc(err);
    if (c->h == NULL)
        return QC_ENOMEM;
    c->p = *p;
    qc_rng_init(&c->rng, p->seed, qc_rng_stream(0, QC_STREAM_CONTROL, 0xe4f0));
    c->limit = p->min_concurrency;
    c->next_update = INFINITY;
    c->next_window = INFINITY;
    envoy_open_window(c, t0);
    return 0;
}

void qc_lim_envoy_free(qc_lim_envoy *c)
{
    qc_hist_free(c->h);
    c->h = NULL;
}

/* Sets the limit and keeps the count of consecutive updates at the
 * minimum; the fifth triggers a new minRTT measurement now. */
static void envoy_set(qc_lim_envoy *c, double nl, double t)
{
    double old = c->limit;
    c->limit = nl;
    if (!c->in_window && old == c->p.min_concurrency && nl == c->p.min_concurrency)
        c->at_min++;
    else
        c->at_min = 0;
    if (c->at_min >= 5)
        c->next_window = t;
}

static void envoy_update(qc_lim_envoy *c, double t)
{
    const qc_lim_envoy_params *p = &c->p;
    if (c->h->total == 0)
        return;
    c->sample_rtt = qc_hist_quantile(c->h, p->quantile);
    qc_hist_reset(c->h);
    double g = clampd(c->min_rtt * (1 + p->buffer) / c->sample_rtt, 0.5, 2.0);
    double l = c->limit * g;
    double nl = clampd(floor(l + sqrt(l)), p->min_concurrency, p->max_limit);
    envoy_set(c, nl, t);
}

/* Runs the timers due by time t, earliest first. */
static void envoy_timers(qc_lim_envoy *c, double t)
{
    while (!c->in_window) {
        double due = c->next_update < c->next_window ? c->next_update : c->next_window;
        if (!(due <= t))
            break;
        if (c->next_window <= c->next_update) {
            envoy_open_window(c, c->next_window);
            c->next_window = INFINITY;
        } else {
            envoy_update(c, c->next_update);
            c->next_update += c->p.sample_interval;
        }
    }
}

int qc_lim_envoy_step(qc_lim_envoy *c, const qc_lim_sample *in, qc_lim_act *out)
{
    const qc_lim_envoy_params *p = &c->p;
    int rc = 0;
    if (!isfinite(in->t)) {
        rc = QC_EINVAL;
    } else {
        envoy_timers(c, in->t);
        if (!isnan(in->rtt)) {
            if (!(in->rtt > 0) || !isfinite(in->rtt)) {
                rc = QC_EINVAL;
            } else if (in->t_start >= c->epoch) {
                /* samples of requests let in before the window opened do
                 * not describe the ideal latency: disregarded */
                qc_hist_add(c->h, in->rtt);
                if (c->in_window && c->h->total >= p->min_rtt_requests) {
                    c->min_rtt = qc_hist_quantile(c->h, p->quantile);
                    qc_hist_reset(c->h);
                    c->in_window = 0;
                    envoy_set(c, c->deferred, in->t);
                    double j = p->jitter > 0 ? p->jitter * p->min_rtt_interval * qc_rng_u01(&c->rng)
                                             : 0;
                    c->next_window = in->t + p->min_rtt_interval + j;
                    c->next_update = in->t + p->sample_interval;
                }
            }
        }
    }
    out->limit = c->limit;
    out->next_tick = c->in_window ? INFINITY
                                  : (c->next_update < c->next_window ? c->next_update
                                                                     : c->next_window);
    return rc;
}

/* ---- any of the three ---------------------------------------------------------------- */

int qc_lim_conc_step(qc_lim_conc *c, const qc_lim_sample *in, qc_lim_act *out)
{
    switch (c->kind) {
    case QC_LIM_GRADIENT2:
        return qc_lim_gradient2_step(&c->u.g2, in, out);
    case QC_LIM_VEGAS:
        return qc_lim_vegas_step(&c->u.vegas, in, out);
    case QC_LIM_ENVOY:
        return qc_lim_envoy_step(&c->u.envoy, in, out);
    case QC_LIM_AIMD:
        return qc_lim_aimd_step(&c->u.aimd, in, out);
    default:
        break;
    }
    return QC_EINVAL;
}

double qc_lim_conc_limit(const qc_lim_conc *c)
{
    switch (c->kind) {
    case QC_LIM_GRADIENT2:
        return c->u.g2.limit;
    case QC_LIM_VEGAS:
        return c->u.vegas.limit;
    case QC_LIM_ENVOY:
        return c->u.envoy.limit;
    case QC_LIM_AIMD:
        return c->u.aimd.limit;
    default:
        break;
    }
    return NAN;
}

/* Indexed by qc_limiter_algo: the four kinds of qc_lim_conc, with the
 * words of qc_limiter_algo_name (limiter.c). */
static const char *const lim_kind_names[] = {
    [QC_LIMITER_AIMD] = "aimd", [QC_LIMITER_VEGAS] = "vegas",
    [QC_LIMITER_GRADIENT2] = "gradient2", [QC_LIMITER_ENVOY] = "envoy"};
QC__NAMES(qc_lim_kind, qc_lim_kind_name, qc_lim_kind_parse, lim_kind_names)
