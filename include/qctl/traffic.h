/* SPDX-License-Identifier: GPL-3.0-or-later */
/* qctl/traffic.h: traffic models learnt from captures, per activity, and
 * the generation of many users' traffic from them.
 *
 * A model describes one user doing one activity (browsing, streaming,
 * gaming) as a sequence of packets, each with a size S (bytes of the IP
 * packet), a gap G (seconds since the previous packet) and a direction.
 *
 * Time base. Packet times are whole nanoseconds (qc_trace_pkt.ns), so a
 * gap is an exact integer even years into a capture. The capture's time
 * resolution r is the greatest common divisor of its gaps (1 us for a
 * microsecond pcap).
 *
 * Segments. A gap longer than segment_gap (default one hour: no user of
 * one activity idles that long inside one capture; a longer gap means
 * captures concatenated or a stopped capture) splits the capture into
 * segments. Such a gap is neither an in-session gap nor an idle period:
 * the next packet opens a new session, the model's duration is the sum of
 * the segments', and qc_traffic_model.segments counts them (the command
 * warns).
 *
 * On/off structure. Gaps longer than a threshold theta are idle periods
 * ("off"); the packets between two of them form a session ("on"). theta
 * is given, or chosen automatically. The automatic rule works on the gaps
 * of all segments, with a floor
 *   F = max(1000 r, 10 median gap)
 * (an idle period lasts many in-session gaps and is far longer than the
 * clock's tick; without it sub-millisecond "idle" gaps would cut real
 * captures into sessions of two or three packets), and tries, in order:
 *  1. an empty stretch: among the gaps above F in the upper half of the
 *     sorted gaps, the largest ratio g_(i+1) / g_(i) between consecutive
 *     distinct gaps with at least 3 gaps above; if it is at least 4,
 *     theta = sqrt(g_(i) g_(i+1));
 *  2. two overlapping populations: lognormal mixtures with 2 and 3
 *     components (multi-start EM) are fitted to the gaps and the best by
 *     BIC kept (it must beat one lognormal); its longest component is the
 *     idle population and theta is where a gap becomes as likely idle as
 *     not,  w_K f_K(y) = sum_{j<K} w_j f_j(y),  y = log theta,  between
 *     the medians of the two longest components, which must be at least a
 *     decade apart; the idle component may hold at most 1/5 of the gaps
 *     (sessions average at least 5 packets) and theta must be >= F.
 * Each rule also needs at least 2 gaps above theta, and at most 1/5 of
 * the gaps. Otherwise there is no on/off structure (one session per
 * segment). The evidence (rule, floor, ratio or the two populations'
 * medians and the idle weight, fraction of gaps idle) is kept in the model.
 *
 * A model holds the distribution of session lengths N (packets,
 * empirical), of off periods (fitted and empirical), of the size of a
 * session's first packet (the opener: a request or a handshake, often
 * smaller than what follows) and of in-session (S, G). One user's
 * long-run packet rate is
 *   lambda = E[N] / ((E[N] - 1) E[G] + E[off])      (1 / E[G] without
 * on/off), a mix of users has the sum of their rates, and the mean size is
 *   (E[S_open] + (E[N] - 1) E[S]) / E[N].
 *
 * The fitted distribution used for generation (size, gap, opener, off) is
 * the best by the criterion among the families whose mean is within
 * mean_tol (default 2%) of the sample mean; the exponential, gamma and
 * exponential-mixture fits always qualify (their maximum-likelihood fits
 * have the sample mean), so the fitted approach keeps the capture's rate
 * and mean size while a lognormal mixture whose tail overstates the mean
 * is passed over. Every candidate stays in the report.
 *
 * Two ways to draw in-session packets, compared by `qctl gen --validate`:
 *  - fitted: S and G independent, each i.i.d. from its best fitted family
 *    (ranked by BIC); the direction i.i.d. with the observed frequency.
 *  - copula: (S, G, direction) from the empirical Markov copula of the
 *    lag-1 pairs (see copula.h), mapped through the marginals: the
 *    empirical ones (fully data driven, the default) or the fitted ones.
 *    A state's pseudo-observation u falls in the block of ranks of one
 *    observed value, [F_n(x-), F_n(x)]; the empirical marginal returns x,
 *    a fitted one F^-1 of a uniform point of that block.
 * Every session opens with a packet from the user (direction 0), as the
 * reader defines a flow's initiator. Sizes are rounded to whole bytes and
 * kept at least the IP and transport header length and at most 65535.
 *
 * Generation. Each user is an independent stream: user j of activity A
 * draws from qc_rng_stream(hash(A), QC_STREAM_USER, j), so adding users
 * or activities never changes the traffic of the others, and the same
 * --seed gives the same packets. A user starts at a uniformly random
 * point of its first cycle (time -U C, C = (E[N] - 1) E[G] + E[off]), so
 * users are not synchronized at time 0. The users' packets are merged by
 * time through a heap.
 *
 * Model files are JSON (docs/traffic.md describes every field).
 *
 * Ownership: qc_traffic_model, qc_traffic_report and qc_traffic_stats
 * own their arrays (the _free functions are safe on zeroed values); a
 * generator keeps pointers to the models it was given, which must outlive
 * it. Errors: 0 or a negative QC_E* code with a message naming the file
 * and field. */
#ifndef QCTL_TRAFFIC_H
#define QCTL_TRAFFIC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "qctl/api.h"
#include "qctl/copula.h"
#include "qctl/error.h"
#include "qctl/fit.h"
#include "qctl/trace.h"

#ifdef __cplusplus
extern "C" {
#endif
QC_API_BEGIN

/* An empirical marginal: distinct values and cumulative fractions. */
typedef struct qc_traffic_table {
    double *v;   /* ascending */
    double *cum; /* cum[j] = P(X <= v[j]); cum[m-1] = 1 */
    size_t m;
} qc_traffic_table;

typedef struct qc_traffic_marginal {
    qc_fit_dist fitted;    /* the selected family */
    qc_traffic_table emp;
} qc_traffic_marginal;

/* The evidence behind an automatic idle threshold (see above). */
typedef struct qc_traffic_idle_evidence {
    char rule[12];        /* "jump", "mixture", "none" (auto), or "given" */
    double floor;         /* F (s) */
    double ratio;         /* jump: g_(i+1) / g_(i) at the threshold; else 0 */
    double busy_median;   /* mixture: median of the in-session population (s) */
    double idle_median;   /* mixture: median of the idle population (s) */
    double idle_weight;   /* mixture: weight of the idle population */
    double idle_fraction; /* fraction of gaps above the threshold */
} qc_traffic_idle_evidence;

typedef struct qc_traffic_model {
    char name[64];           /* the activity */
    uint8_t proto;           /* 6 or 17: the transport of generated packets */
    uint16_t port;           /* server port (0: unknown; 80 is written) */
    uint64_t src_packets;    /* packets of the source capture */
    double src_duration;     /* its duration (s) */
    double fwd_fraction;     /* P(direction = 0) */
    double threshold;        /* gap threshold; INFINITY: no on/off */
    char threshold_method[8];/* "auto", "given" or "none" */
    qc_traffic_idle_evidence idle; /* how an automatic threshold was found */
    double resolution;       /* time resolution of the source (s; 0: unknown) */
    uint32_t segments;       /* segments of the source (>= 1; 0: unknown) */
    double segment_gap;      /* the gap that split segments (s) */
    qc_traffic_marginal size, gap, off;
    qc_traffic_marginal opener; /* size of a session's first packet (emp.m == 0:
                                   none kept, openers draw from size) */
    qc_traffic_table session;/* packets per session (empirical) */
    qc_copula copula;
} qc_traffic_model;

void qc_traffic_model_free(qc_traffic_model *m);

/* Options for learning a model. */
typedef struct qc_traffic_fit_params {
    double threshold;       /* < 0: automatic; INFINITY: none; else given */
    qc_fit_params fit;
    unsigned families;      /* families tried for size and gap (0: all) */
    size_t copula_points;   /* transitions kept (default 10000) */
    size_t table_max;       /* distinct values kept per marginal (20000) */
    double segment_gap;     /* longer gaps split segments (default 3600 s) */
    double mean_tol;        /* relative tolerance on a fitted mean (0.02) */
} qc_traffic_fit_params;

void qc_traffic_fit_params_init(qc_traffic_fit_params *o);

/* What fitting found, beyond the model: every family's fit, the data. */
typedef struct qc_traffic_fits {
    qc_fit_result r[QC_FIT_NFAMILIES];
    qc_fit_family order[QC_FIT_NFAMILIES];
    size_t nranked;
    double *x; /* the values fitted */
    size_t n;
} qc_traffic_fits;

typedef struct qc_traffic_report {
    qc_traffic_fits size, gap, off, opener;
    /* Rank dependence in the source: (size, gap) of a packet, and lag 1
     * of sizes and of gaps (in-session packets). */
    double tau_sg, rho_sg, tau_ss, rho_ss, tau_gg, rho_gg;
    size_t sessions;
    double *u, *v; /* pseudo-observations of (size, gap), n of them */
    size_t n;
} qc_traffic_report;

void qc_traffic_report_free(qc_traffic_report *r);

/* Learns a model from packets t[i] (seconds, non-decreasing), size[i],
 * dir[i] (may be NULL), i = 0..n-1, n >= 10. rep may be NULL. The times
 * are taken to the nanosecond. */
int qc_traffic_fit(qc_traffic_model *m, const char *name, const double *t, const uint32_t *size,
                   const uint8_t *dir, size_t n, const qc_traffic_fit_params *o,
                   qc_traffic_report *rep, qc_err *err);
/* The same with times in whole nanoseconds (non-decreasing). */
int qc_traffic_fit_ns(qc_traffic_model *m, const char *name, const int64_t *ns,
                      const uint32_t *size, const uint8_t *dir, size_t n,
                      const qc_traffic_fit_params *o, qc_traffic_report *rep, qc_err *err);

/* The times ns[0..n-1] in seconds from the first, with every gap longer
 * than segment_gap removed (the segments joined end to end), into
 * t[0..n-1]; *segments receives their number. What the model's rate is
 * compared with. */
void qc_traffic_join_segments(const int64_t *ns, size_t n, double segment_gap, double *t,
                              size_t *segments);

/* The same for a group of a trace (its packets, with the transport and
 * server port taken from the group's most common flow protocol and
 * responder port). */
int qc_traffic_fit_group(qc_traffic_model *m, const qc_trace *tr, const qc_trace_group *g,
                         const qc_traffic_fit_params *o, qc_traffic_report *rep, qc_err *err);

typedef enum qc_traffic_approach {
    QC_TRAFFIC_FITTED = 0,
    QC_TRAFFIC_COPULA,
    QC_TRAFFIC_COPULA_FITTED /* copula over the fitted marginals */
} qc_traffic_approach;
const char *qc_traffic_approach_name(qc_traffic_approach v);
int qc_traffic_approach_parse(const char *s, qc_traffic_approach *v, qc_err *err);

/* Long-run packets per second of one user under an approach. */
double qc_traffic_model_rate(const qc_traffic_model *m, qc_traffic_approach a);
/* Mean size in bytes under an approach. */
double qc_traffic_model_mean_size(const qc_traffic_model *m, qc_traffic_approach a);

/* The model (and, when rep is not NULL, every candidate fit and the
 * source's dependence) as JSON; a new reference, NULL on no memory. */
json_t *qc_traffic_model_json(const qc_traffic_model *m, const qc_traffic_report *rep);
/* Reads a model; name is used in messages ("FILE: field size.params.mu: ..."). */
int qc_traffic_model_from_json(qc_traffic_model *m, const json_t *j, const char *name,
                               qc_err *err);
int qc_traffic_model_load(qc_traffic_model *m, const char *path, qc_err *err);
int qc_traffic_model_load_mem(qc_traffic_model *m, const char *buf, size_t len,
                              const char *name, qc_err *err);
/* Writes the model file atomically (top-level fields one per line). */
int qc_traffic_model_save(const qc_traffic_model *m, const qc_traffic_report *rep,
                          const char *path, qc_err *err);

/* ---- generation ------------------------------------------------------ */

typedef struct qc_traffic_pkt {
    double t;        /* seconds */
    uint32_t size;   /* bytes of the IP packet */
    uint32_t user;   /* index of the user within its activity */
    uint32_t session;/* the user's session number */
    uint16_t act;    /* index of its model */
    uint8_t dir;     /* 0 from the user, 1 towards it */
    uint8_t proto;
    uint32_t seq, ack; /* TCP: bytes sent before it by its sender and by
                          the other side in this session */
} qc_traffic_pkt;

typedef struct qc_traffic_gen_params {
    qc_traffic_approach approach;
    uint64_t seed;
    double duration;  /* stop at this time (0 or INFINITY: no limit) */
    uint64_t packets; /* stop after this many (0: no limit) */
    int no_phase;     /* 1: every user starts a session at time 0 */
} qc_traffic_gen_params;

void qc_traffic_gen_params_init(qc_traffic_gen_params *o);

typedef struct qc_traffic_gen qc_traffic_gen;

/* A generator of users[k] users of models[k], k < nmodels (below 2^24
 * users per model), or NULL with err set (QC_EINVAL, QC_ERANGE,
 * QC_ENOMEM). Without a duration or packet count it never ends. */
qc_traffic_gen *qc_traffic_gen_alloc(const qc_traffic_model *const *models, const uint32_t *users,
                                     size_t nmodels, const qc_traffic_gen_params *o, qc_err *err);
/* The next packet in time order: 1, or 0 when the limit is reached. */
int qc_traffic_gen_next(qc_traffic_gen *g, qc_traffic_pkt *p);
void qc_traffic_gen_free(qc_traffic_gen *g);

typedef enum qc_traffic_format { QC_TRAFFIC_PCAP = 0, QC_TRAFFIC_CSV } qc_traffic_format;
const char *qc_traffic_format_name(qc_traffic_format v);
int qc_traffic_format_parse(const char *s, qc_traffic_format *v, qc_err *err);

/* Writes every packet of g to path (atomically) as pcap (Ethernet, IPv4,
 * nanosecond timestamps, frames cut at snaplen bytes while the IP length
 * field keeps the true size) or CSV `time,size,flow,activity`. User j of
 * model k is 10.0.0.0/8 address k * 2^16 + j + 1 (mod 2^24), the server
 * of model k is 192.0.2.(k + 1); each session is a flow with its own
 * client port. *count receives the packets written. */
int qc_traffic_write(qc_traffic_gen *g, const char *path, qc_traffic_format fmt,
                     uint32_t snaplen, uint64_t *count, qc_err *err);

/* ---- validation ------------------------------------------------------ */

#define QC_TRAFFIC_ACF_LAGS 10
#define QC_TRAFFIC_VT_MAX 24

/* Statistics of one packet sequence. */
typedef struct qc_traffic_stats {
    size_t n;
    double duration, rate, mean_size;
    double tau_sg, tau_ss, tau_gg; /* Kendall: (size, gap), lag-1 size, lag-1 gap */
    double bin;                    /* width of a count bin (s) */
    double acf[QC_TRAFFIC_ACF_LAGS + 1]; /* autocorrelation of counts, lag 0..10 */
    int nvt;
    double vt_m[QC_TRAFFIC_VT_MAX], vt_var[QC_TRAFFIC_VT_MAX]; /* variance-time */
    double hurst;                  /* 1 - slope / 2 of log var vs log m */
} qc_traffic_stats;

/* Statistics of packets t[i], size[i] with count bins of width bin. */
int qc_traffic_stats_compute(const double *t, const double *size, size_t n, double bin,
                             qc_traffic_stats *s, qc_err *err);

typedef struct qc_traffic_validation {
    qc_traffic_stats real, gen[2];  /* gen[0]: fitted, gen[1]: copula */
    double ks_size[2], ks_gap[2];   /* two-sample KS D against the real */
    double p_size[2], p_gap[2];     /* and their asymptotic p-values */
    double *gen_t[2], *gen_size[2]; /* the generated sequences */
    size_t gen_n[2];
} qc_traffic_validation;

/* Generates as many packets as the real sequence has (one user, each
 * approach) and compares them with it. */
int qc_traffic_validate(const qc_traffic_model *m, const double *t, const uint32_t *size,
                        size_t n, uint64_t seed, qc_traffic_validation *v, qc_err *err);
void qc_traffic_validation_free(qc_traffic_validation *v);

/* qc_traffic_validate for seeds seed, seed + 1, ..., seed + count - 1
 * into v[0..count), on `threads` threads (0: one per online core). v[k]
 * is what qc_traffic_validate gives with seed + k, whatever the number of
 * threads, except that the generated sequences (gen_t, gen_size) are kept
 * only in v[0]. progress, when not NULL, is called one call at a time
 * (from any of the threads) with the fraction of realisations finished.
 * Returns 0, or the code and message of the first realisation (in order
 * k) that failed, with every v[k] freed. The caller frees each v[k]. */
int qc_traffic_validate_n(const qc_traffic_model *m, const double *t, const uint32_t *size,
                          size_t n, uint64_t seed, unsigned count, unsigned threads,
                          void (*progress)(void *ctx, double fraction), void *progress_ctx,
                          qc_traffic_validation *v, qc_err *err);

/* ---- an arrival process for the simulator ------------------------------
 * A source of arrival times: a capture or CSV (pcap, pcapng, text) is
 * replayed (its packet times, from 0; the source ends with the trace), a
 * model file (JSON) is generated from, endlessly (the copula approach,
 * `users` independent users merged, stream ids from `seed`). */
typedef struct qc_traffic_source qc_traffic_source;

/* NULL with err set when path cannot be read as either. */
qc_traffic_source *qc_traffic_source_alloc(const char *path, uint32_t users, uint64_t seed,
                                           qc_err *err);
/* The next arrival time (non-decreasing), and its size in bytes when
 * size is not NULL; INFINITY once a replayed trace is exhausted. */
double qc_traffic_source_next(qc_traffic_source *s, uint32_t *size);
/* The long-run arrival rate (per second). */
double qc_traffic_source_rate(const qc_traffic_source *s);
void qc_traffic_source_free(qc_traffic_source *s);

QC_API_END
#ifdef __cplusplus
}
#endif
#endif
