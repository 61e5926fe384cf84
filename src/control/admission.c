/* SPDX-License-Identifier: GPL-3.0-or-later */
/* admission.c: the per-class admission controller (delay tracking for an
 * admitted class, Reno-like slow start and a test on evidence for a
 * candidate); the rules are in qctl/admission.h and docs/admission.md.
 *
 * Invariants between steps: p_min <= prio <= p_max; |carry| <= any one
 * sample's error plus x_sat, and carry + the errors applied so far equals
 * the sum of all errors (nothing is dropped unless p is held at a limit);
 * a rejected class has prio = p_min and never changes again; while a
 * candidate is frozen past its S settling samples, win_n, win_nd and
 * win_y (log of the admitted weights) hold its win_len test samples since
 * the window (re)started; q_sum / q_n is the mean relative variance of the
 * windows it has ended; epoch_on only once the candidate is armed, and
 * epoch_n counts its growth samples in the epoch. */
#include "qctl/admission.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include "core/gsl_quiet.h"

#include "qctl/stats.h"
#include "core/names.h"

void qc_adm_params_init(qc_adm_params *p, double bound, double epsilon, double alpha,
                        int admitted)
{
    memset(p, 0, sizeof *p);
    p->bound = bound;
    p->epsilon = epsilon;
    p->alpha = alpha;
    p->gain = 0.3;
    p->ref_count = 20;
    p->x_sat = 2;
    p->p_min = 1e-3;
    p->p_max = 1e6;
    p->p_init = admitted ? 0.1 : 0.01;
    p->backoff = 0.5;
    p->p_arm = 1;
    p->stall = 0.05;
    p->worsen = 0.5;
    p->max_backoffs = 3;
    p->probe = 0.05;
    p->settle = 20;
    p->admit_window = 80;
    p->window_max = 320;
    p->batches = 8;
    p->carry_max = INFINITY;
    p->confidence = 0.999;
    p->peer_rise = 0.25;
    p->rise_confidence = 0.9;
    p->peer_ceiling = 1e6;
    p->smoothing = 0.2;
    p->admitted = admitted;
}

int qc_adm_init(qc_adm *c, const qc_adm_params *p, qc_err *err)
{
    if (!(p->bound > 0) || !isfinite(p->bound))
        return qc_err_set(err, QC_EINVAL, "bound: %g must be a positive time", p->bound);
    if (p->epsilon < 0)
        return qc_err_set(err, QC_EINVAL, "epsilon: %g is negative; it must be in [0, 1)",
                          p->epsilon);
    if (!(p->epsilon < 1))
        return qc_err_set(err, QC_EINVAL, "epsilon: %g must be < 1 (target (1 - eps) D > 0)",
                          p->epsilon);
    if (!(p->alpha > 0) || !isfinite(p->alpha))
        return qc_err_set(err, QC_EINVAL, "alpha: %g must be > 0", p->alpha);
    if (!(p->gain > 0 && p->gain <= 4))
        return qc_err_set(err, QC_EINVAL, "gain: %g is not in (0, 4]", p->gain);
    if (p->ref_count < 1)
        return qc_err_set(err, QC_EINVAL, "ref_count: must be >= 1");
    if (!(p->x_sat > 0))
        return qc_err_set(err, QC_EINVAL, "x_sat: %g must be > 0", p->x_sat);
    if (!(p->p_min > 0 && p->p_min < p->p_max) || !isfinite(p->p_max))
        return qc_err_set(err, QC_EINVAL, "priority limits [%g, %g] are not 0 < p_min < p_max",
                          p->p_min, p->p_max);
    if (!(p->p_init >= p->p_min && p->p_init <= p->p_max))
        return qc_err_set(err, QC_ERANGE, "p_init: %g is outside [%g, %g]", p->p_init,
                          p->p_min, p->p_max);
    if (!(p->backoff > 0 && p->backoff < 1))
        return qc_err_set(err, QC_EINVAL, "backoff: %g is not in (0, 1)", p->backoff);
    if (!(p->p_arm >= p->p_min) || !isfinite(p->p_arm))
        return qc_err_set(err, QC_EINVAL, "p_arm: %g is below p_min %g", p->p_arm, p->p_min);
    if (!(p->stall >= 0 && p->stall < 1))
        return qc_err_set(err, QC_EINVAL, "stall: %g is not in [0, 1)", p->stall);
    if (!(p->worsen > 0))
        return qc_err_set(err, QC_EINVAL, "worsen: %g must be > 0", p->worsen);
    if (p->settle > 100000)
        return qc_err_set(err, QC_EINVAL, "settle: %u is more than 100000 samples", p->settle);
    if (p->admit_window < 2 || p->admit_window > QC_ADM_WINDOW_MAX)
        return qc_err_set(err, QC_EINVAL, "admit_window: %u is not in [2, %d]", p->admit_window,
                          QC_ADM_WINDOW_MAX);
    if (p->window_max < p->admit_window || p->window_max > QC_ADM_WINDOW_MAX)
        return qc_err_set(err, QC_EINVAL, "window_max: %u is not in [admit_window %u, %d]",
                          p->window_max, p->admit_window, QC_ADM_WINDOW_MAX);
    if (p->batches < 3 || p->batches > QC_ADM_BATCHES_MAX || p->batches > p->admit_window)
        return qc_err_set(err, QC_EINVAL, "batches: %u is not in [3, min(%d, admit_window)]",
                          p->batches, QC_ADM_BATCHES_MAX);
    if (!(p->carry_max >= 0))
        return qc_err_set(err, QC_EINVAL, "carry_max: %g must be >= 0", p->carry_max);
    if (!(p->probe >= 0 && p->probe < 1))
        return qc_err_set(err, QC_EINVAL, "probe: %g is not in [0, 1)", p->probe);
    if (!(p->confidence > 0.5 && p->confidence < 1))
        return qc_err_set(err, QC_EINVAL, "confidence: %g is not in (0.5, 1)", p->confidence);
    if (!(p->peer_rise > 0) || !isfinite(p->peer_rise))
        return qc_err_set(err, QC_EINVAL, "peer_rise: %g must be > 0", p->peer_rise);
    if (!(p->rise_confidence > 0.5 && p->rise_confidence < 1))
        return qc_err_set(err, QC_EINVAL, "rise_confidence: %g is not in (0.5, 1)",
                          p->rise_confidence);
    if (!(p->peer_ceiling > 0))
        return qc_err_set(err, QC_EINVAL, "peer_ceiling: %g must be > 0", p->peer_ceiling);
    if (!(p->smoothing > 0 && p->smoothing <= 1))
        return qc_err_set(err, QC_EINVAL, "smoothing: %g is not in (0, 1]", p->smoothing);
    memset(c, 0, sizeof *c);
    c->p = *p;
    c->state = p->admitted ? QC_ADM_ADMITTED : QC_ADM_CANDIDATE;
    c->prio = p->p_init;
    c->ssthresh = INFINITY;
    c->s = NAN;
    c->test_mean = c->test_se = c->test_rise = c->test_rise_se = NAN;
    /* Looks at K, 2K, 4K, ..., and K_max: the confidence is split over
     * them (Bonferroni), so that one probation admits a candidate whose
     * mean delay is above D with probability at most 1 - confidence. */
    unsigned looks = 1;
    for (unsigned k = p->admit_window; k < p->window_max; k *= 2)
        looks++;
    gsl_error_handler_t *h = qc__gsl_quiet(); /* the host's handler is not ours to call */
    c->z = gsl_cdf_tdist_Qinv((1 - p->confidence) / looks, (double)(p->batches - 1));
    for (unsigned l = 0, nb = p->batches; l < 3; l++, nb *= 2)
        c->z_b[l] = gsl_cdf_tdist_Qinv((1 - p->confidence) / looks, (double)(nb - 1));
    c->z_rise = gsl_cdf_tdist_Qinv((1 - p->rise_confidence) / 2, (double)(p->batches - 2));
    qc__gsl_restore(h);
    if (!isfinite(c->z) || !isfinite(c->z_rise) || !isfinite(c->z_b[0]))
        return qc_err_set(err, QC_EINVAL, "batches: %u gives no t quantile", p->batches);
    return 0;
}

static double clampd(double v, double lo, double hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static double target(const qc_adm *c)
{
    return (1 - c->p.epsilon) * c->p.bound;
}

static double probe_target(const qc_adm *c)
{
    double e = c->p.epsilon > c->p.probe ? c->p.epsilon : c->p.probe;
    return (1 - e) * c->p.bound;
}

/* The tracking law: the completion-weighted error joins what is carried,
 * at most x_sat of it is applied, p <- p exp(g u), and the rest waits for
 * the next sample. Applying a bounded step keeps one long busy cycle from
 * moving p by orders of magnitude; carrying the rest, rather than clipping
 * it, keeps the law unbiased: the error of a long cycle of late jobs, the
 * skewed side of the delay distribution, is applied in full. At a priority
 * limit the step that cannot be taken is dropped (there is no use in
 * carrying a demand the limit will refuse). */
static void track(qc_adm *c, const qc_adm_sense *in)
{
    double T = target(c);
    double a = c->carry + (in->count / c->p.ref_count) * (in->delay - T) / T;
    double u = clampd(a, -c->p.x_sat, c->p.x_sat);
    c->carry = clampd(a - u, -c->p.carry_max, c->p.carry_max);
    double p = c->prio * exp(c->p.gain * u);
    if (p >= c->p.p_max || p <= c->p.p_min)
        c->carry = 0;
    c->prio = clampd(p, c->p.p_min, c->p.p_max);
}

/* Multiplicative back-off; rejection after max_backoffs of them. */
static qc_adm_event back_off(qc_adm *c)
{
    c->backoffs++;
    c->epoch_on = 0;
    if (c->backoffs > c->p.max_backoffs) {
        c->state = QC_ADM_REJECTED;
        c->prio = c->p.p_min;
        return QC_ADM_EV_REJECT;
    }
    c->prio = clampd(c->p.backoff * c->prio, c->p.p_min, c->p.p_max);
    c->ssthresh = c->prio;
    c->avoid = 1;
    /* The next epoch starts now, with s still showing the priority it had
     * before: to pass, the delay must improve on what it was at the old
     * priority once the candidate is back there. */
    if (c->prio >= c->p.p_arm) {
        c->epoch_on = 1;
        c->s_ref = c->s;
        c->epoch_n = 0;
    }
    return QC_ADM_EV_BACKOFF;
}

static qc_adm_event grow(qc_adm *c)
{
    const qc_adm_params *p = &c->p;
    /* The back-off tests read "growth no longer buys delay" only while
     * the delay is above the bound: between the probe target and the
     * bound a noisy delay improves little per epoch, and growing further
     * there costs nothing if the set is admissible (if it is not, the
     * admitted classes' answer soon lifts the delay above the bound). */
    if (c->prio >= p->p_arm && c->s > p->bound) {
        if (!c->epoch_on) {
            c->epoch_on = 1;
            c->s_ref = c->s;
            c->epoch_n = 0;
        } else {
            if (c->s > (1 + p->worsen) * c->s_ref)
                return back_off(c);
            if (++c->epoch_n >= (unsigned)ceil(p->alpha)) {
                if (c->s > (1 - p->stall) * c->s_ref)
                    return back_off(c);
                c->s_ref = c->s;
                c->epoch_n = 0;
            }
        }
    }
    if (c->avoid)
        c->prio += c->ssthresh / p->alpha;
    else
        c->prio *= 1 + 1 / p->alpha;
    c->prio = clampd(c->prio, p->p_min, p->p_max);
    return QC_ADM_EV_GROW;
}

static void window_reset(qc_adm *c)
{
    c->win_len = 0;
    c->npeer = 0;
    c->next_look = c->p.admit_window;
}

static int peer_at_ceiling(const qc_adm *c, const qc_adm_sense *in)
{
    unsigned np = in->peer ? (in->npeer < QC_ADM_PEERS_MAX ? in->npeer : QC_ADM_PEERS_MAX) : 0;
    for (unsigned j = 0; j < np; j++)
        if (in->peer[j] >= c->p.peer_ceiling)
            return 1;
    return 0;
}

/* Adds a test sample: its own (n, d) and the admitted weights. The set of
 * admitted classes can change within a window (another candidate got in):
 * the window starts over then, since a rise cannot be fitted on a series
 * that changes meaning. */
static void window_add(qc_adm *c, const qc_adm_sense *in)
{
    unsigned np = in->peer ? (in->npeer < QC_ADM_PEERS_MAX ? in->npeer : QC_ADM_PEERS_MAX) : 0;
    if (c->win_len > 0 && np != c->npeer)
        window_reset(c);
    c->npeer = np;
    c->win_n[c->win_len] = in->count;
    c->win_nd[c->win_len] = in->count * in->delay;
    for (unsigned j = 0; j < np; j++)
        c->win_y[j][c->win_len] = log(in->peer[j] > 0 ? in->peer[j] : c->p.p_min);
    c->win_len++;
}

/* Batch-means standard error of the window's ratio mean m over nb
 * batches, and von Neumann's statistic of the batch ratios (NAN when it
 * has none: a batch without completions, or all equal). */
static double batch_se(const qc_adm *c, unsigned nb, double m, double N, double *vn)
{
    unsigned kk = c->win_len;
    double ss = 0, mb[QC_ADM_BATCHES_MAX];
    int ok = 1;
    for (unsigned b = 0; b < nb; b++) {
        unsigned lo = b * kk / nb, hi = (b + 1) * kk / nb;
        double n = 0, sd = 0;
        for (unsigned i = lo; i < hi; i++) {
            n += c->win_n[i];
            sd += c->win_nd[i];
        }
        ss += (sd - m * n) * (sd - m * n);
        if (n > 0)
            mb[b] = sd / n;
        else
            ok = 0;
    }
    *vn = ok ? qc_von_neumann(mb, nb) : NAN;
    return sqrt(ss * nb / (nb - 1)) / N;
}

/* The test at a look. Own delay: mu = sum n d / sum n over the k
 * samples, and its standard error by batch means: the window is cut into
 * B batches of consecutive samples, mu_b their own ratios, N_b their
 * completions, N the total,
 *     se_w^2 = B/(B-1) sum_b (N_b (mu_b - mu))^2 / N^2.
 * Batches rather than samples, because the samples of a candidate are
 * correlated through the admitted weights, which wander slowly; the
 * interval then has B - 1 degrees of freedom (B' batches by the rule
 * below). The caller floors se_w (probation()). 
 * Admitted weights: the least-squares slope of the B batch means of log w
 * on their mean sample index, with its standard error from the B - 2
 * residual degrees of freedom; the rise over the window is the slope
 * times k - 1. A weight that only wanders about a level (the integral law
 * at rest) has residuals as large as its slope; one still answering the
 * candidate climbs steadily, a large slope with small residuals. */
static void window_eval(qc_adm *c, double *mu, double *se, double *z, double *n_tot,
                        double *rise, double *rise_se)
{
    unsigned kk = c->win_len, B = c->p.batches;
    double k = (double)kk;
    double N = 0, S = 0;
    for (unsigned i = 0; i < kk; i++) {
        N += c->win_n[i];
        S += c->win_nd[i];
    }
    double m = S / N;
    *mu = m;
    *n_tot = N;
    /* The batch count: the most of B, 2B, 4B, ... (at most
     * QC_ADM_BATCHES_MAX) whose batches are no shorter than at the first
     * look (K / B samples) and whose batch ratios von Neumann's test does
     * not find positively correlated (statistic below z_0.90 = 1.2816);
     * B itself when none is. More batches, more degrees of freedom and a
     * smaller quantile, where the window is long enough to cut finely
     * without correlated batches. */
    unsigned lvl = 0;
    for (unsigned nb = B; lvl < 3 && nb <= QC_ADM_BATCHES_MAX && kk / nb >= c->p.admit_window / B;
         nb *= 2, lvl++)
        ;
    while (lvl-- > 0) { /* lvl >= 1 here: k >= K, so B batches always qualify */
        double vn;
        *se = batch_se(c, B << lvl, m, N, &vn);
        *z = c->z_b[lvl];
        if (lvl == 0 || (isfinite(vn) && vn < 1.2816))
            break;
    }
    double tb[QC_ADM_BATCHES_MAX], yb[QC_ADM_BATCHES_MAX], tm = 0;
    for (unsigned b = 0; b < B; b++) {
        unsigned lo = b * kk / B, hi = (b + 1) * kk / B;
        tb[b] = (lo + hi - 1) / 2.0;
        tm += tb[b] / B;
    }
    double stt = 0;
    for (unsigned b = 0; b < B; b++)
        stt += (tb[b] - tm) * (tb[b] - tm);
    double worst = -INFINITY, r = 0, rse = 0;
    for (unsigned j = 0; j < c->npeer; j++) {
        double ym = 0;
        for (unsigned b = 0; b < B; b++) {
            unsigned lo = b * kk / B, hi = (b + 1) * kk / B;
            double sy = 0;
            for (unsigned i = lo; i < hi; i++)
                sy += c->win_y[j][i];
            yb[b] = sy / (hi - lo);
            ym += yb[b] / B;
        }
        double sty = 0;
        for (unsigned b = 0; b < B; b++)
            sty += (tb[b] - tm) * (yb[b] - ym);
        double slope = stt > 0 ? sty / stt : 0, res = 0;
        for (unsigned b = 0; b < B; b++) {
            double e = yb[b] - ym - slope * (tb[b] - tm);
            res += e * e;
        }
        double sse = stt > 0 ? sqrt(res / (B - 2) / stt) : 0;
        double rj = slope * (k - 1), rsej = sse * (k - 1);
        double excess = fabs(rj) - c->z_rise * rsej;
        if (excess > worst) {
            worst = excess;
            r = rj;
            rse = rsej;
        }
    }
    *rise = r;
    *rise_se = rse;
}

/* A window ends (failed, or restarted at its last look): its relative
 * variance per completion joins the class's record. */
static void window_record(qc_adm *c, double mu, double se, double N)
{
    if (mu > 0 && N > 0 && isfinite(se)) {
        c->q_sum += N * se * se / (mu * mu);
        c->q_n++;
    }
}

/* Probation: frozen priority, S settling samples, then looks at K, 2K,
 * ... K_max. Returns the event. */
static qc_adm_event probation(qc_adm *c, const qc_adm_sense *in)
{
    if (!c->frozen) {
        c->frozen = 1;
        c->held = 0;
        window_reset(c);
    }
    if (++c->held <= c->p.settle)
        return QC_ADM_EV_HOLD;
    window_add(c, in);
    if (c->win_len < c->next_look)
        return QC_ADM_EV_HOLD;
    double mu, se_w, z, N, rise, rise_se;
    window_eval(c, &mu, &se_w, &z, &N, &rise, &rise_se);
    /* The floor: the relative spread this class has shown in the windows
     * it ended before. With heavy-tailed delays a window that happens to
     * hold no long busy cycle shows a low mean and a small spread
     * together; what was seen before is the evidence against trusting
     * it. */
    double se = se_w;
    if (c->q_n > 0 && mu > 0) {
        double floor = mu * sqrt(c->q_sum / c->q_n / N);
        if (floor > se)
            se = floor;
    }
    c->test_mean = mu;
    c->test_se = se;
    c->test_rise = rise;
    c->test_rise_se = rise_se;
    int settled = fabs(rise) - c->z_rise * rise_se <= log(1 + c->p.peer_rise);
    if (settled && mu + z * se <= c->p.bound) {
        c->frozen = 0;
        c->tests++;
        c->state = QC_ADM_ADMITTED;
        c->carry = 0;
        return QC_ADM_EV_ADMIT;
    }
    if (mu - z * se > c->p.bound || c->next_look >= c->p.window_max) {
        if (!settled && !(mu - z * se > c->p.bound)) {
            /* Undecided because the admitted classes are still moving:
             * their answer to the priority taken is not in yet. Start
             * the window again, frozen. */
            window_record(c, mu, se_w, N);
            window_reset(c);
            return QC_ADM_EV_HOLD;
        }
        window_record(c, mu, se_w, N);
        /* Failed: its delay at this priority is not shown within D. It
         * grows for at least one epoch before it may freeze again, so
         * that the stall test sees whether growth still buys it delay. */
        c->frozen = 0;
        c->tests++;
        c->must_grow = (unsigned)ceil(c->p.alpha);
        qc_adm_event ev = grow(c);
        if (ev == QC_ADM_EV_GROW)
            c->must_grow--;
        else
            c->must_grow = 0;
        return ev == QC_ADM_EV_GROW ? QC_ADM_EV_RETRY : ev;
    }
    c->next_look = 2 * c->next_look < c->p.window_max ? 2 * c->next_look : c->p.window_max;
    return QC_ADM_EV_HOLD;
}

int qc_adm_step(qc_adm *c, const qc_adm_sense *in, qc_adm_act *out)
{
    int rc = 0;
    out->event = QC_ADM_EV_NONE;
    if (!(in->count > 0) || !isfinite(in->delay) || !isfinite(in->count) || in->delay < 0) {
        rc = QC_EINVAL;
    } else if (c->state != QC_ADM_REJECTED) {
        c->samples++;
        double lam = c->p.smoothing;
        c->s = isnan(c->s) ? in->delay : (1 - lam) * c->s + lam * in->delay;
        if (c->state == QC_ADM_ADMITTED) {
            track(c, in);
            out->event = QC_ADM_EV_TRACK;
        } else if (peer_at_ceiling(c, in)) {
            /* An admitted class had to take a near-absolute priority to
             * hold its bound against this candidate: the bounds cannot
             * all hold with it. */
            c->state = QC_ADM_REJECTED;
            c->prio = c->p.p_min;
            c->frozen = 0;
            out->event = QC_ADM_EV_REJECT;
        } else if (c->frozen || (c->must_grow == 0 && c->s <= probe_target(c))) {
            out->event = probation(c, in);
        } else {
            out->event = grow(c);
            if (out->event == QC_ADM_EV_GROW && c->must_grow > 0)
                c->must_grow--;
            else if (out->event == QC_ADM_EV_BACKOFF)
                c->must_grow = 0;
        }
    }
    out->priority = c->prio;
    out->state = c->state;
    out->target = target(c);
    out->smoothed = c->s;
    return rc;
}

static const char *const adm_state_names[] = {"candidate", "admitted", "rejected"};
QC__NAMES(qc_adm_state, qc_adm_state_name, qc_adm_state_parse, adm_state_names)

static const char *const adm_event_names[] = {"none", "track", "grow", "hold", "backoff", "admit",
    "reject", "retry"};
QC__NAMES(qc_adm_event, qc_adm_event_name, qc_adm_event_parse, adm_event_names)
