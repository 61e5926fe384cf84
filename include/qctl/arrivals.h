/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/arrivals.h: arrival processes named by a text spec.
 *
 *   SPEC                  a renewal process whose inter-arrival times follow
 *                         the distribution SPEC (see qctl/dist.h); exp:RATE
 *                         is the Poisson process of rate RATE
 *   sin:MEAN,AMP,PERIOD   Poisson with rate
 *                           lambda(t) = MEAN + AMP sin(2 pi t / PERIOD),
 *                         0 <= AMP <= MEAN, PERIOD > 0
 *   curve:FILE            Poisson with the rate read from a CSV of points
 *                         `time,rate` (a daily curve, say): lambda(t) is
 *                         linear between points, the first point is at
 *                         time 0 and the last one closes the period, after
 *                         which the curve repeats
 *   steps:T0:R0,T1:R1,... Poisson with a piecewise-constant rate: R_k
 *                         from time T_k on, until T_{k+1} (the last rate
 *                         holds for ever); T0 = 0, times increase
 *                         strictly, rates >= 0 and the last one > 0, so
 *                         the stream never ends (a rate schedule:
 *                         steps:0:50,10:150,20:50)
 *   trace:FILE            the arrival times in FILE, one per line (or the
 *                         first column of a CSV), non-decreasing, or the
 *                         packet times of a pcap/pcapng capture; they are
 *                         shifted so that the first arrival is at time 0,
 *                         and arrivals stop when the trace ends
 *
 * Time-varying rates are drawn by thinning (Lewis and Shedler, 1979):
 * candidates come from a Poisson process of the peak rate lambda*, and a
 * candidate at time t is kept with probability lambda(t) / lambda*. The
 * kept points form a Poisson process of rate lambda(t) exactly, with no
 * discretisation of time; the cost is lambda* / mean(lambda) candidates
 * per arrival. Evaluating a curve at increasing times walks a cursor along
 * its segments, so a draw costs O(1) amortized and allocates nothing.
 * Steps need no thinning: the integrated rate is piecewise linear, so an
 * Exp(1) draw is mapped through its inverse (time rescaling), walking the
 * steps forward.
 *
 * Ownership: qc_arrivals_parse fills a caller-owned qc_arrivals, released
 * by qc_arrivals_free (safe on a zeroed one and after a failed parse). A
 * generator keeps pointers to its qc_arrivals and qc_rng, which must
 * outlive it and not move. Errors: 0 or a negative QC_E* code; a file
 * error names FILE:LINE. */
#ifndef QCTL_ARRIVALS_H
#define QCTL_ARRIVALS_H

#include <stddef.h>

#include "qctl/api.h"
#include "qctl/dist.h"
#include "qctl/error.h"
#include "qctl/rng.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

typedef enum qc_arrivals_kind {
    QC_ARRIVALS_NONE = 0,
    QC_ARRIVALS_RENEWAL,
    QC_ARRIVALS_SIN,
    QC_ARRIVALS_CURVE,
    QC_ARRIVALS_TRACE,
    QC_ARRIVALS_STEPS
} qc_arrivals_kind;
const char *qc_arrivals_kind_name(qc_arrivals_kind v);
int qc_arrivals_kind_parse(const char *s, qc_arrivals_kind *v, qc_err *err);

typedef struct qc_arrivals {
    qc_arrivals_kind kind;
    qc_dist gap;        /* RENEWAL: the inter-arrival time */
    double mean, amp;   /* SIN */
    double period;      /* SIN, CURVE; STEPS: the last step's start (the
                           schedule's span, the time scale of its changes) */
    double *t, *rate;   /* CURVE, STEPS: n points; TRACE: n times in t (rate NULL) */
    size_t n;
    double peak;        /* largest rate (the thinning bound); trace: NAN */
    double avg;         /* long-run mean rate */
    double unit;        /* CURVE: the time unit its file states ("# unit: h"
                           before the data), in seconds, already applied
                           (times in seconds, rates per second); 0: none */
} qc_arrivals;

/* Parses spec into a. On error a is left zeroed and the message names the
 * field, or FILE:LINE and what is wrong there. */
int qc_arrivals_parse(qc_arrivals *a, const char *spec, qc_err *err);

/* Makes a a trace of the n >= 1 non-decreasing times t (malloc'd, shifted
 * here so that the first is 0), taking t over: a frees it, and so does a
 * failure (QC_EEMPTY for n = 0, QC_EPARSE for a decreasing time). */
int qc_arrivals_from_times(qc_arrivals *a, double *t, size_t n, qc_err *err);

/* Releases what a holds and zeroes it. */
void qc_arrivals_free(qc_arrivals *a);

/* A canonical description ("exp:0.5", "sin:5,4,1000",
 * "curve:<24 points, period 86400>", "steps:0:50,10:150",
 * "trace:<1000 arrivals>"). */
int qc_arrivals_format(const qc_arrivals *a, char *buf, size_t size);

/* The long-run mean rate: 1/E[gap]; MEAN; the curve's average over its
 * period; the last step's rate; for a trace, (n - 1) / (last - first) (NAN with fewer than 2
 * distinct times). */
double qc_arrivals_mean_rate(const qc_arrivals *a);

/* The rate lambda(t) of the model at time t: constant for a renewal
 * process (1/E[gap]); NAN for a trace, which has no model rate. */
double qc_arrivals_rate_at(const qc_arrivals *a, double t);

/* The times of a curve:, steps: or sin: process read in a unit of
 * `seconds` seconds (3600: a curve in hours, its rates per hour): scales
 * its times to seconds and its rates to per second. QC_EINVAL for any
 * other kind, or a unit that is not a positive duration. */
int qc_arrivals_set_time_unit(qc_arrivals *a, double seconds, qc_err *err);

/* The mean of the rate over [t0, t1]: the rate actually offered over a
 * window (a window of part of a period offers more or less than the
 * long-run mean). NAN for a trace or an empty window. */
double qc_arrivals_mean_rate_over(const qc_arrivals *a, double t0, double t1);

/* 1 when the rate changes with time (sin, curve, steps with more than
 * one step), else 0; then period > 0. */
int qc_arrivals_varies(const qc_arrivals *a);

/* A stream of arrival times. */
typedef struct qc_arrivals_gen {
    const qc_arrivals *a;
    qc_rng *r;
    qc_sampler s;  /* RENEWAL: buffered gaps */
    double t;      /* last candidate time */
    double base;   /* CURVE: start of the period the cursor is in */
    size_t i;      /* CURVE: segment [t[i], t[i+1]]; STEPS: step; TRACE: next index */
} qc_arrivals_gen;

/* Starts a stream at time 0 drawing from r. */
void qc_arrivals_gen_init(qc_arrivals_gen *g, const qc_arrivals *a, qc_rng *r);

/* Out-of-line part of qc_arrivals_next (every kind). */
double qc__arrivals_next_slow(qc_arrivals_gen *g);

/* The next arrival time (non-decreasing from call to call); INFINITY when
 * a trace is exhausted. The renewal case, the hot path of most
 * simulations, is inline. */
/* qc_arrivals_next of a RENEWAL stream, for a caller that checked the
 * kind once rather than at every arrival. */
static inline double qc__arrivals_next_renewal(qc_arrivals_gen *g)
{
    return g->t += qc_sampler_next(&g->s);
}

static inline double qc_arrivals_next(qc_arrivals_gen *g)
{
    if (g->a->kind == QC_ARRIVALS_RENEWAL)
        return qc__arrivals_next_renewal(g);
    return qc__arrivals_next_slow(g);
}

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
