# SPDX-License-Identifier: GPL-3.0-or-later
"""build_ffi.py: the C source of qctl._ffi, the cffi binding of libqctl.

cffi's API mode: the declarations below are checked by the C compiler
against qctl's own headers (a struct given with "...;" lists only the
fields Python reads or writes; the compiler supplies the layout), so a
change of a struct in include/qctl/ cannot silently shift a field.

    python3 build_ffi.py OUT.c

writes the C source of the extension module; CMake (python/CMakeLists.txt)
compiles it against the headers and links it to libqctl.so, so the module
needs no compiler at run time and nothing but cffi's small runtime
(_cffi_backend, Debian's python3-cffi-backend). The few helpers in
SOURCE are binding code (batch sampling through the inline samplers,
the inline accessors), not library API.
"""
import sys

import cffi

CDEF = r"""
/* ---- errors ---- */
#define QC_ERR_MSG_MAX 512
typedef struct qc_err { int code; char msg[512]; } qc_err;
const char *qc_strerror(int code);

/* ---- cancelling a run ---- */
typedef struct qc_cancel { ...; } qc_cancel;
void qc_cancel_request(qc_cancel *c);
void qc_cancel_clear(qc_cancel *c);
int qc_cancel_requested(const qc_cancel *c);

/* ---- rng ---- */
typedef struct qc_rng { ...; } qc_rng;
void qc_rng_init(qc_rng *r, uint64_t seed, uint64_t stream);

/* ---- stats ---- */
typedef struct qc_ci {
    double mean;
    double half;
    double lo, hi;
    double level;
    size_t n;
} qc_ci;
int qc_ci_t(const double *x, size_t n, double level, qc_ci *out, qc_err *err);
int qc_ci_t_finite(const double *x, size_t n, double level, qc_ci *out, qc_err *err);

/* ---- distributions ---- */
typedef struct qc_dist { ...; } qc_dist;
int qc_dist_parse(qc_dist *d, const char *spec, qc_err *err);
int qc_dist_empirical(qc_dist *d, const double *x, size_t n, qc_err *err);
void qc_dist_free(qc_dist *d);
int qc_dist_format(const qc_dist *d, char *buf, size_t size);
double qc_dist_mean(const qc_dist *d);
double qc_dist_var(const qc_dist *d);
double qc_dist_cdf(const qc_dist *d, double x);
double qc_dist_quantile(const qc_dist *d, double q);

/* ---- arrivals ---- */
typedef struct qc_arrivals { ...; } qc_arrivals;
int qc_arrivals_parse(qc_arrivals *a, const char *spec, qc_err *err);
void qc_arrivals_free(qc_arrivals *a);
int qc_arrivals_format(const qc_arrivals *a, char *buf, size_t size);
double qc_arrivals_mean_rate(const qc_arrivals *a);

/* ---- the G/G/c/K queue ---- */
#define QC_QUEUE_CHUNKS 128
typedef enum qc_discipline { QC_FCFS = 0, QC_PS = 1 } qc_discipline;
typedef enum qc_warmup_mode { QC_WARMUP_MSER5 = 0, QC_WARMUP_FIXED = 1 } qc_warmup_mode;
typedef void (*qc_progress_fn)(void *ctx, double fraction);
typedef struct qc_queue_params {
    const qc_dist *arrival;
    const qc_arrivals *arrivals;
    const qc_dist *service;
    unsigned servers;
    uint64_t capacity;
    qc_discipline discipline;
    uint64_t customers;
    double horizon;
    qc_warmup_mode warmup_mode;
    double warmup;
    unsigned reps;
    uint64_t seed;
    double level;
    double series_dt;
    double precision;
    uint64_t max_customers;
    unsigned max_reps;
    qc_progress_fn progress;
    void *progress_ctx;
    const qc_cancel *cancel;
    ...;
} qc_queue_params;
void qc_queue_params_init(qc_queue_params *p);
#define QC_QM_COUNT ...
const char *qc_queue_metric_name(int metric);
typedef struct qc_series_point { double t; double mean; uint32_t n; } qc_series_point;
typedef struct qc_queue_result {
    qc_ci metric[9];
    const char *ci_method;
    double load;
    double warmup_customers;
    double warmup_time;
    uint64_t measured;
    uint64_t events;
    double sim_time;
    qc_series_point *series;
    size_t series_len;
    unsigned reps;
    uint64_t customers;
    uint64_t total_customers;
    int precision_met;
    int warmup_chunks;
    size_t batches;
    int batches_independent;
    double von_neumann;
    int transient;
    char transient_reason[768];
    int trend_tested;
    int trend_detected;
    double trend_t;
    unsigned trend_df;
    double trend_p;
    double trend_change;
    char infinite_reason[256];
    uint64_t rare_blocked;
    uint64_t rare_waited;
    int rare[9];
    uint64_t rare_free;
    ...;
} qc_queue_result;
int qc_queue_run(const qc_queue_params *p, qc_queue_result *res, qc_err *err);
void qc_queue_result_free(qc_queue_result *res);
typedef struct qc_queue_exact {
    double value[9];
    char model[32];
} qc_queue_exact;
int qc_queue_exact_values(const qc_queue_params *p, qc_queue_exact *out);
double qc_erlang_c(unsigned c, double a);
double qc_mmc_response_quantile(double lambda, double mu, unsigned c, double q);

/* ---- networks of queues ---- */
typedef struct qc_net_station { char name[32]; ...; } qc_net_station;
typedef struct qc_net_class { char name[32]; int closed; ...; } qc_net_class;
typedef struct qc_network {
    unsigned nst, ncl;
    qc_net_station st[32];
    qc_net_class cl[8];
    int front;
    ...;
} qc_network;
int qc_network_load(qc_network *net, const char *path, qc_err *err);
int qc_network_parse(qc_network *net, const char *text, const char *name, qc_err *err);
void qc_network_free(qc_network *net);
#define QC_NM_COUNT ...
#define QC_NE_COUNT ...
#define QC_NET_CHUNKS ...
const char *qc_net_metric_name(int m);
const char *qc_net_e2e_name(int m);
const char *qc_net_disc_name(int d);
typedef struct qc_network_params {
    const qc_network *net;
    uint64_t customers;
    double horizon;
    qc_warmup_mode warmup_mode;
    double warmup;
    unsigned reps;
    uint64_t seed;
    double level;
    double precision;
    unsigned max_reps;
    unsigned jobs;
    const qc_cancel *cancel;
    ...;
} qc_network_params;
void qc_network_params_init(qc_network_params *p);
typedef struct qc_network_result {
    qc_ci *station;
    qc_ci *e2e;
    const char *ci_method;
    unsigned reps;
    int warmup_chunks;
    int precision_met;
    uint64_t events, measured;
    double sim_time;
    double ctl_limit_mean;
    double ctl_behind_mean;
    int transient;
    char transient_reason[512];
    ...;
} qc_network_result;
int qc_network_run(const qc_network_params *p, qc_network_result *res, qc_err *err);
void qc_network_result_free(qc_network_result *res);
typedef struct qc_network_exact {
    double *station;
    double *e2e;
    double *e2e_lo, *e2e_hi;
    char method[160];
    char why_not[256];
} qc_network_exact;
int qc_network_exact_solve(const qc_network *net, qc_network_exact *ex, qc_err *err);
void qc_network_exact_free(qc_network_exact *ex);

/* ---- the pool of removable servers ---- */
typedef struct qc_energy_cost {
    double holding;
    size_t nrates;
    double rate[16];
    double power[16];
    double idle_power;
    double setup_power;
    double off_power;
    double switch_cost;
    double setup_rate;
} qc_energy_cost;

#define QC_POOL_CHUNKS 128
#define QC_POOL_MAX_SERVERS 100000
typedef enum qc_pool_policy { QC_POOL_DJSQ = 0, QC_POOL_JSQ, QC_POOL_JSQ_OFF, QC_POOL_RANDOM,
                              QC_POOL_CENTRAL, QC_POOL_NPOLICIES } qc_pool_policy;
const char *qc_pool_policy_name(qc_pool_policy p);
int qc_pool_policy_parse(const char *s, qc_pool_policy *p, qc_err *err);
#define QC_PM_COUNT ...
const char *qc_pool_metric_name(int metric);
typedef struct qc_pool_params {
    unsigned servers;
    qc_pool_policy policy;
    unsigned threshold;
    const qc_arrivals *arrival;
    const qc_dist *service;
    const qc_dist *setup;
    double idle_timer;
    qc_energy_cost cost;
    uint64_t customers;
    double horizon;
    qc_warmup_mode warmup_mode;
    double warmup;
    unsigned reps;
    uint64_t seed;
    double level;
    double series_dt;
    const qc_cancel *cancel;
    ...;
} qc_pool_params;
void qc_pool_params_init(qc_pool_params *p);
typedef struct qc_pool_result {
    qc_ci metric[...];
    const char *ci_method;
    double load;
    double warmup_customers;
    double warmup_time;
    uint64_t measured;
    uint64_t events;
    double sim_time;
    ...;
} qc_pool_result;
int qc_pool_run(const qc_pool_params *p, qc_pool_result *res, qc_err *err);
void qc_pool_result_free(qc_pool_result *res);
typedef struct qc_pool_comparison {
    size_t n;
    qc_pool_policy policy[...];
    qc_pool_result result[...];
} qc_pool_comparison;
int qc_pool_compare(const qc_pool_params *p, qc_pool_comparison *c, qc_err *err);
void qc_pool_comparison_free(qc_pool_comparison *c);

/* ---- the MaxUsers plant ---- */
typedef struct qc_maxusers qc_maxusers;
typedef struct qc_maxusers_params {
    uint32_t population;
    unsigned threads;
    qc_discipline discipline;
    const qc_dist *think;
    const qc_dist *service;
    const qc_dist *session;
    const qc_dist *off;
    const qc_dist *retry;
    double interval;
    double maxusers_max;
    double maxusers_init;
    uint64_t seed;
    uint32_t rep;
} qc_maxusers_params;
void qc_maxusers_params_init(qc_maxusers_params *p);
typedef struct qc_maxusers_sample {
    double t;
    double maxusers;
    double ris;
    double ris_now;
    double ris_logged;
    double throughput;
    double response;
    double connected;
    double connected_peak;
    double waiting;
    uint64_t completed;
    uint64_t connects;
} qc_maxusers_sample;
qc_maxusers *qc_maxusers_alloc(const qc_maxusers_params *p, qc_err *err);
void qc_maxusers_free(qc_maxusers *m);
int qc_maxusers_step(qc_maxusers *m, double maxusers, qc_maxusers_sample *out);

/* ---- the whole MaxUsers run (closed or open loop, replications) ---- */
typedef struct qc_sched_point { double t, v; } qc_sched_point;
int qc_sched_parse(const char *s, qc_sched_point *pts, size_t max, size_t *n, qc_err *err);
double qc_sched_at(const qc_sched_point *pts, size_t n, double t);
typedef enum qc_mu_sensor { QC_SENSOR_TRUE = 0, QC_SENSOR_LOGGED = 1 } qc_mu_sensor;
typedef enum qc_excite_kind { QC_EXCITE_NONE = 0, QC_EXCITE_PRBS, QC_EXCITE_UNIFORM,
                              QC_EXCITE_STEPS } qc_excite_kind;
typedef enum qc_antiwindup { QC_AW_NONE = 0, QC_AW_CONDITIONAL = 1, QC_AW_BACKCALC = 2 } qc_antiwindup;
typedef struct qc_pi_params {
    double kp, ki;
    double u_min, u_max;
    double u_init;
    qc_antiwindup aw;
    double k_aw;
} qc_pi_params;
typedef struct qc_mu_run_params {
    qc_maxusers_params plant;
    int closed_loop;
    qc_pi_params pi;
    qc_mu_sensor sensor;
    double sensor_gain;
    double sensor_offset;
    const qc_sched_point *ref;
    size_t nref;
    const qc_sched_point *input;
    size_t ninput;
    qc_excite_kind excite;
    double excite_amp;
    unsigned excite_hold;
    double duration;
    double warmup;
    double band;
    const qc_cancel *cancel;
    ...;
} qc_mu_run_params;
typedef struct qc_mu_step_metrics {
    double t_start, t_end;
    double r, r_prev;
    double settling;
    double overshoot;
    double sse;
} qc_mu_step_metrics;
typedef struct qc_mu_run_result {
    qc_maxusers_sample *samples;
    double *reference;
    size_t n;
    qc_mu_step_metrics *steps;
    size_t nsteps;
    qc_maxusers_sample initial;
    double u_next;
    double frac_saturated;
    double frac_held;
    double logged_bound;
    double throughput;
    double response_mean;
    double response_p95;
} qc_mu_run_result;
void qc_mu_run_result_free(qc_mu_run_result *res);
double qc_mu_logged_bound(const qc_maxusers_params *p);
int qcpy_mu_run_reps(const qc_mu_run_params *p, unsigned reps, unsigned jobs,
                     qc_mu_run_result *out, unsigned *failed, qc_err *err);
int qc_mu_run_support(const qc_mu_run_params *p, const qc_mu_run_result *r0,
                      const double *settling, size_t nsteps, unsigned reps, char *why,
                      size_t n);

/* ---- PI control (qc_pi_params above) ---- */
typedef struct qc_pi { qc_pi_params p; double integ; } qc_pi;
typedef struct qc_pi_sense { double r; double y; } qc_pi_sense;
typedef struct qc_pi_act { double u; double v; int saturated; } qc_pi_act;
int qc_pi_init(qc_pi *c, const qc_pi_params *p, qc_err *err);
int qc_pi_step(qc_pi *c, const qc_pi_sense *in, qc_pi_act *out);
typedef struct qc_mu_ctl { double u; ...; } qc_mu_ctl;
typedef struct qc_mu_ctl_sense { double r, y; double peak; } qc_mu_ctl_sense;
typedef struct qc_mu_ctl_act { double u; int saturated; int held; } qc_mu_ctl_act;
int qc_mu_ctl_init(qc_mu_ctl *c, const qc_pi_params *p, qc_err *err);
int qc_mu_ctl_step(qc_mu_ctl *c, const qc_mu_ctl_sense *in, qc_mu_ctl_act *out);

/* ---- admission control ---- */
#define QC_ADM_PEERS_MAX 16
typedef enum qc_adm_state { QC_ADM_CANDIDATE = 0, QC_ADM_ADMITTED = 1, QC_ADM_REJECTED = 2 } qc_adm_state;
typedef enum qc_adm_event {
    QC_ADM_EV_NONE = 0, QC_ADM_EV_TRACK, QC_ADM_EV_GROW, QC_ADM_EV_HOLD,
    QC_ADM_EV_BACKOFF, QC_ADM_EV_ADMIT, QC_ADM_EV_REJECT, QC_ADM_EV_RETRY
} qc_adm_event;
typedef struct qc_adm_params {
    double bound;
    double epsilon;
    double alpha;
    double gain;
    unsigned ref_count;
    double x_sat;
    double p_min, p_max;
    double p_init;
    double backoff;
    double p_arm;
    double stall;
    double worsen;
    unsigned max_backoffs;
    double probe;
    unsigned settle;
    unsigned admit_window;
    unsigned window_max;
    unsigned batches;
    double carry_max;
    double confidence;
    double peer_rise;
    double rise_confidence;
    double peer_ceiling;
    double smoothing;
    int admitted;
} qc_adm_params;
void qc_adm_params_init(qc_adm_params *p, double bound, double epsilon, double alpha, int admitted);
typedef struct qc_adm {
    qc_adm_state state;
    double prio;
    double carry;
    unsigned backoffs;
    unsigned long samples;
    ...;
} qc_adm;
typedef struct qc_adm_sense {
    double delay;
    double count;
    const double *peer;
    unsigned npeer;
} qc_adm_sense;
typedef struct qc_adm_act {
    double priority;
    qc_adm_state state;
    qc_adm_event event;
    double target;
    double smoothed;
} qc_adm_act;
int qc_adm_init(qc_adm *c, const qc_adm_params *p, qc_err *err);
int qc_adm_step(qc_adm *c, const qc_adm_sense *in, qc_adm_act *out);
const char *qc_adm_state_name(qc_adm_state s);

/* ---- the embeddable limiter ---- */
#define QC_LIMITER_CLASSES_MAX 16
typedef enum qc_limiter_algo {
    QC_LIMITER_FIXED = 0, QC_LIMITER_MAXUSERS, QC_LIMITER_AIMD, QC_LIMITER_VEGAS,
    QC_LIMITER_GRADIENT2, QC_LIMITER_ENVOY, QC_LIMITER_ADMISSION
} qc_limiter_algo;
typedef struct qc_limiter_params {
    qc_limiter_algo algo;
    double initial_limit;
    double min_limit;
    double max_limit;
    unsigned classes;
    double reference;
    double ki, kp;
    double aimd_backoff;
    double aimd_timeout;
    double bound[16];
    uint32_t adm_candidates;
    double adm_epsilon;
    double adm_alpha;
    unsigned adm_min_completions;
    double be_floor;
    ...;
} qc_limiter_params;
void qc_limiter_params_init(qc_limiter_params *c, qc_limiter_algo algo);
const char *qc_limiter_algo_name(qc_limiter_algo a);
int qc_limiter_algo_parse(const char *s, qc_limiter_algo *a, qc_err *err);
typedef struct qc_limiter qc_limiter;
typedef struct qc_limiter_token { uint32_t inflight; uint16_t cls; uint16_t live; } qc_limiter_token;
qc_limiter *qc_limiter_alloc(const qc_limiter_params *c, double now, qc_err *err);
void qc_limiter_free(qc_limiter *l);
int qc_limiter_acquire(qc_limiter *l, unsigned cls, qc_limiter_token *tok);
void qc_limiter_release(qc_limiter *l, qc_limiter_token *tok, double latency, int outcome);
void qc_limiter_observe(qc_limiter *l, double y);
void qc_limiter_set_reference(qc_limiter *l, double r);
double qc_limiter_weight(const qc_limiter *l, unsigned cls);
int qc_limiter_set_bound(qc_limiter *l, unsigned cls, double bound, qc_err *err);
int qc_limiter_tick(qc_limiter *l, double now);
typedef struct qc_limiter_stats {
    double limit;
    uint32_t gate;
    uint32_t inflight;
    uint64_t admitted, refused, completed, dropped;
    uint64_t class_admitted[16];
    uint64_t class_refused[16];
    double last_y;
    double last_rtt;
    double class_weight[16];
    int class_state[16];
    double class_bound[16];
    double class_delay[16];
    uint64_t class_samples[16];
    uint64_t busy_cycles;
    double reference;
    double knee;
    double noload;
} qc_limiter_stats;
void qc_limiter_get_stats(qc_limiter *l, qc_limiter_stats *st);
uint32_t qc_limiter_limit(const qc_limiter *l);

/* ---- the removable server's MDP ---- */
#define QC_ENERGY_MAX_RATES 16
#define QC_REMOVABLE_IDLE -1
#define QC_REMOVABLE_OFF -2
typedef struct qc_energy_report {
    double mean_jobs;
    double mean_response;
    double mean_power;
    double frac_setup;
    ...;
} qc_energy_report;
typedef struct qc_removable_policy {
    size_t nmax;
    unsigned char *switch_on;
    int *on_action;
    double timer;
} qc_removable_policy;
typedef struct qc_removable_perf {
    qc_energy_report e;
    double switch_on_rate;
    double throughput;
    double blocking;
    double tail_mass;
    double holding_cost;
    double power_cost;
    double switching_cost;
    double frac_off, frac_idle, frac_serving;
} qc_removable_perf;
typedef enum qc_removable_method { QC_REMOVABLE_RVI = 1, QC_REMOVABLE_PI = 2, QC_REMOVABLE_BOTH = 3 } qc_removable_method;
typedef struct qc_removable_params {
    double lambda;
    qc_energy_cost cost;
    double tol;
    double tail_tol;
    size_t max_states;
    size_t levels;
    qc_removable_method method;
    size_t max_iter;
    int baselines;
    ...;
} qc_removable_params;
void qc_removable_params_init(qc_removable_params *p);
typedef struct qc_removable_baseline {
    const char *name;
    const char *param_name;
    double param;
    qc_removable_perf perf;
} qc_removable_baseline;
typedef struct qc_removable_result {
    size_t nmax;
    size_t states, pairs, transitions;
    int tail_ok;
    double gain;
    double gain_pi;
    double gain_lo, gain_hi;
    int rvi_converged;
    int policies_agree;
    qc_removable_policy policy;
    qc_removable_perf perf;
    qc_removable_baseline baseline[4];
    int have_baselines;
    ...;
} qc_removable_result;
int qc_removable_solve(const qc_removable_params *p, qc_removable_result *r, qc_err *err);
void qc_removable_result_free(qc_removable_result *r);

/* ---- ARX identification and design ---- */
#define QC_ARX_MAX_ORDER 5
#define QC_ARX_MAX_DELAY 5
#define QC_ARX_MAX_CANDIDATES ...
typedef struct qc_arx_model {
    unsigned na;
    unsigned nb;
    int delay;
    double a[5];
    double b[5];
    double u0, y0;
    double dt;
} qc_arx_model;
typedef enum qc_arx_criterion { QC_ARX_AIC = 0, QC_ARX_BIC = 1 } qc_arx_criterion;
typedef struct qc_arx_params {
    unsigned na_min, na_max;
    unsigned nb_min, nb_max;
    int tied;
    int d_min, d_max;
    qc_arx_criterion criterion;
    double holdout;
    int demean;
    double u0, y0;
    double dt;
} qc_arx_params;
typedef struct qc_arx_candidate {
    unsigned na, nb;
    int delay;
    unsigned params;
    int usable;
    double rss;
    double sigma2;
    double r2;
    double aic;
    double bic;
} qc_arx_candidate;
typedef struct qc_arx_result {
    qc_arx_model model;
    qc_arx_criterion criterion;
    size_t n;
    size_t n_est, n_val;
    size_t rows;
    double rss, sigma2, r2, aic, bic;
    double se_a[5];
    double se_b[5];
    double val_r2;
    double val_fit;
    size_t ncand, best;
    qc_arx_candidate cand[...];
    ...;
} qc_arx_result;
typedef struct qc_arx_ws qc_arx_ws;
void qc_arx_params_init(qc_arx_params *o);
qc_arx_ws *qc_arx_alloc(size_t n_max, qc_err *err);
void qc_arx_free(qc_arx_ws *w);
int qc_arx_fit(qc_arx_ws *w, const double *u, const double *y, size_t n,
               const qc_arx_params *o, qc_arx_result *res, qc_err *err);
void qc_arx_predict(const qc_arx_model *m, const double *u, const double *y, size_t n,
                    size_t from, double *yhat1, double *ysim);
double qc_arx_dc_gain(const qc_arx_model *m);
double qc_arx_dc_gain_se(const qc_arx_result *r);

#define QC_DESIGN_MAX_POLES ...
#define QC_DESIGN_MAX_INTERVALS 8
typedef struct qc_design_ws qc_design_ws;
typedef struct qc_design_poles {
    double kp, ki;
    size_t n;
    double re[...];
    double im[...];
    double max_modulus;
    double dom_re, dom_im;
    double settling;
    double overshoot;
    int stable;
} qc_design_poles;
typedef struct qc_design_range {
    double lo, hi;
    size_t n;
    double ilo[8], ihi[8];
    double scan_lo, scan_hi;
} qc_design_range;
typedef struct qc_design_spec { double settling; double overshoot; } qc_design_spec;
typedef struct qc_design_result {
    double kp, ki;
    double target_re, target_im;
    int exact;
    int dominant;
    qc_design_poles poles;
} qc_design_result;
qc_design_ws *qc_design_alloc(const qc_arx_model *plant, const qc_arx_model *sensor, qc_err *err);
void qc_design_free(qc_design_ws *w);
double qc_design_loop_gain(const qc_design_ws *w);
int qc_design_poles_at(qc_design_ws *w, double kp, double ki, qc_design_poles *out, qc_err *err);
int qc_design_stable_range(qc_design_ws *w, double kp, qc_design_range *out, qc_err *err);
int qc_design_integral(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out, qc_err *err);
int qc_design_pi(qc_design_ws *w, const qc_design_spec *spec, qc_design_result *out, qc_err *err);

/* ---- traffic models ---- */
typedef struct qc_traffic_model { char name[64]; double threshold; uint32_t segments; double segment_gap; ...; } qc_traffic_model;
typedef struct qc_traffic_report { size_t sessions; ...; } qc_traffic_report;
typedef struct qc_traffic_fit_params { double threshold; unsigned families; double segment_gap; ...; } qc_traffic_fit_params;
void qc_traffic_join_segments(const int64_t *ns, size_t n, double segment_gap, double *t,
                              size_t *segments);
void qc_traffic_model_free(qc_traffic_model *m);
void qc_traffic_report_free(qc_traffic_report *r);
void qc_traffic_fit_params_init(qc_traffic_fit_params *o);
int qc_traffic_fit(qc_traffic_model *m, const char *name, const double *t, const uint32_t *size,
                   const uint8_t *dir, size_t n, const qc_traffic_fit_params *o,
                   qc_traffic_report *rep, qc_err *err);
typedef enum qc_traffic_approach { QC_TRAFFIC_FITTED = 0, QC_TRAFFIC_COPULA, QC_TRAFFIC_COPULA_FITTED } qc_traffic_approach;
double qc_traffic_model_rate(const qc_traffic_model *m, qc_traffic_approach a);
double qc_traffic_model_mean_size(const qc_traffic_model *m, qc_traffic_approach a);
int qc_traffic_model_load(qc_traffic_model *m, const char *path, qc_err *err);
int qc_traffic_model_save(const qc_traffic_model *m, const qc_traffic_report *rep,
                          const char *path, qc_err *err);
typedef struct qc_traffic_gen_params {
    qc_traffic_approach approach;
    uint64_t seed;
    double duration;
    uint64_t packets;
    int no_phase;
} qc_traffic_gen_params;
void qc_traffic_gen_params_init(qc_traffic_gen_params *o);
typedef struct qc_traffic_gen qc_traffic_gen;
qc_traffic_gen *qc_traffic_gen_alloc(const qc_traffic_model *const *models, const uint32_t *users,
                                     size_t nmodels, const qc_traffic_gen_params *o, qc_err *err);
void qc_traffic_gen_free(qc_traffic_gen *g);
typedef struct qc_traffic_stats {
    size_t n;
    double duration, rate, mean_size;
    double tau_sg, tau_ss, tau_gg;
    double hurst;
    ...;
} qc_traffic_stats;
typedef struct qc_traffic_validation {
    qc_traffic_stats real, gen[2];
    double ks_size[2], ks_gap[2];
    double p_size[2], p_gap[2];
    ...;
} qc_traffic_validation;
int qc_traffic_validate(const qc_traffic_model *m, const double *t, const uint32_t *size,
                        size_t n, uint64_t seed, qc_traffic_validation *v, qc_err *err);
void qc_traffic_validation_free(qc_traffic_validation *v);
typedef struct qc_trace_pkt {
    double t;
    int64_t ns;
    uint32_t size;
    uint32_t flow;
    uint16_t act;
    uint8_t dir;
    uint8_t proto;
} qc_trace_pkt;
typedef struct qc_trace { qc_trace_pkt *pkt; size_t n; size_t nflows; double t0; ...; } qc_trace;
int qc_trace_read(qc_trace *tr, const char *path, qc_err *err);
void qc_trace_free(qc_trace *tr);
size_t qcpy_traffic_fill(qc_traffic_gen *g, double *t, uint32_t *size, uint32_t *user,
                         uint16_t *act, uint8_t *dir, size_t cap);

/* ---- the multiclass admission run ---- */
#define QC_MC_MAX_CLASSES 16
typedef enum qc_mc_discipline { QC_MC_DPS = 0, QC_MC_DPS_JOB = 1, QC_MC_WEIGHTED = 2 } qc_mc_discipline;
typedef enum qc_mc_admitter { QC_MC_AUTONOMIC = 0, QC_MC_STATIC, QC_MC_UTILIZATION } qc_mc_admitter;
typedef struct qc_mc_policy { qc_mc_admitter admitter; int limited; qc_limiter_algo limiter; } qc_mc_policy;
const qc_mc_policy *qc_mc_policies(unsigned *n);
const char *qc_mc_policy_name(qc_mc_policy p);
const char *qc_mc_discipline_name(qc_mc_discipline d);
int qc_mc_policy_parse(const char *s, qc_mc_policy *v, qc_err *err);
int qc_mc_discipline_parse(const char *s, qc_mc_discipline *v, qc_err *err);
typedef struct qc_mc_class {
    const char *name;
    const qc_dist *arrival;
    const qc_dist *service;
    double start;
    double priority;
    int best_effort;
} qc_mc_class;
typedef struct qc_mc_run_class { qc_mc_class c; double bound; int candidate; } qc_mc_run_class;
typedef struct qc_mc_scenario {
    unsigned n;
    qc_mc_run_class cls[16];
    const char *arr_spec[16];
    const char *svc_spec[16];
    double time, warmup, window, epsilon, alpha;
    const char *discipline;
    ...;
} qc_mc_scenario;
int qc_mc_scenario_load(qc_mc_scenario *s, const char *path, qc_err *err);
int qc_mc_scenario_parse(qc_mc_scenario *s, const char *text, const char *name, qc_err *err);
void qc_mc_scenario_free(qc_mc_scenario *s);
typedef struct qc_mc_run_params {
    unsigned nclass;
    const qc_mc_run_class *cls;
    qc_mc_discipline discipline;
    qc_mc_policy policy;
    qc_adm_params adm;
    double be_floor;
    unsigned min_completions;
    double horizon;
    double warmup;
    double window;
    unsigned reps;
    uint64_t seed;
    double level;
    double u_max;
    int series;
    unsigned jobs;
    const qc_cancel *cancel;
    ...;
} qc_mc_run_params;
void qc_mc_run_params_init(qc_mc_run_params *p);
void qc_mc_scenario_apply(const qc_mc_scenario *s, qc_mc_run_params *p);
typedef struct qc_mc_run_class_result {
    qc_ci delay;
    qc_ci throughput;
    qc_ci shed;
    qc_ci worst;
    qc_ci admitted_delay;
    qc_ci worst_mean;
    double worst_mean_t;
    qc_ci priority;
    qc_ci admit_time;
    qc_ci decide_time;
    unsigned admitted, rejected, undecided;
    double offered;
    double load;
    double min_delay;
} qc_mc_run_class_result;
typedef struct qc_mc_series_row {
    double t;
    double delay[16];
    double priority[16];
    double weight[16];
    unsigned char state[16];
    double limit;
} qc_mc_series_row;
typedef struct qc_mc_run_result {
    unsigned nclass;
    qc_mc_run_class_result cls[16];
    qc_ci worst;
    double worst_max;
    qc_ci worst_mean;
    unsigned worst_mean_class;
    double worst_mean_t;
    qc_ci be_throughput;
    double be_offered;
    int region_bounds;
    double region_margin;
    int region_targets;
    double cycle_max;
    uint64_t events;
    double sim_time;
    qc_mc_series_row *series;
    size_t series_len;
} qc_mc_run_result;
int qc_mc_run(const qc_mc_run_params *p, qc_mc_run_result *res, qc_err *err);
void qc_mc_run_result_free(qc_mc_run_result *res);
int qc_mc_run_support(const qc_mc_run_params *p, const qc_mc_run_result *r,
                      const qc_mc_policy *pols, unsigned npol, char *why, size_t n);

/* ---- the simulated proxy (qctl/proxysim.h) ---- */
#define QC_PSIM_CLASSES_MAX 8
#define QC_PSIM_BACKENDS_MAX 64
typedef enum qc_psim_route { QC_PSIM_JSQ = 0, QC_PSIM_DJSQ } qc_psim_route;
int qc_psim_route_parse(const char *s, qc_psim_route *v, qc_err *err);
typedef enum qc_psim_discipline { QC_PSIM_FIFO = 0, QC_PSIM_CODEL } qc_psim_discipline;
int qc_psim_discipline_parse(const char *s, qc_psim_discipline *v, qc_err *err);
typedef struct qc_psim_class {
    const char *name;
    const qc_arrivals *arrival;
    unsigned users;
    const qc_dist *think;
    const qc_dist *service;
    double bound;
    int candidate;
} qc_psim_class;
typedef struct qc_psim_params {
    unsigned backends;
    unsigned workers;
    const qc_dist *service;
    qc_psim_route route;
    unsigned threshold;
    const qc_dist *overhead;
    const qc_dist *transit;
    int control;
    qc_limiter_params limiter;
    double interval;
    unsigned queue;
    double queue_timeout;
    qc_psim_discipline discipline;
    double queue_target;
    unsigned sample_every;
    unsigned sample_least;
    qc_psim_class cls[8];
    unsigned nclasses;
    double horizon;
    double warmup;
    unsigned reps;
    uint64_t seed;
    double level;
    double series_dt;
    unsigned jobs;
    const qc_cancel *cancel;
    uint64_t service_seed;
    ...;
} qc_psim_params;
void qc_psim_params_init(qc_psim_params *p);
#define QC_PSIM_NMETRICS ...
const char *qc_psim_metric_name(int v);
typedef struct qc_psim_series_point { double t, limit, inflight, waiting; } qc_psim_series_point;
typedef struct qc_psim_result {
    qc_ci all[...];
    qc_ci cls[8][12];
    qc_ci limit;
    qc_ci utilization;
    double offered_load;
    int rejected[8];
    uint64_t requests;
    uint64_t events;
    qc_psim_series_point *series;
    size_t series_len;
    ...;
} qc_psim_result;
int qc_psim_run(const qc_psim_params *p, qc_psim_result *r, qc_err *err);
void qc_psim_result_free(qc_psim_result *r);

/* ---- results as JSON (qctl/results.h): the schema Python reads ---- */
typedef ... json_t;
typedef struct qc_queue_json_opts {
    const char *arrival, *service;
    const char *curve_unit;
    int whole_periods;
    int allow_short;
} qc_queue_json_opts;
json_t *qc_queue_result_json(const qc_queue_params *p, const qc_queue_result *r,
                             const qc_queue_exact *ex, const qc_queue_json_opts *o,
                             double elapsed);
typedef struct qc_pool_json_opts {
    const char *arrival, *service, *setup;
    int allow_short;
    double price;
    double watts[4];
} qc_pool_json_opts;
json_t *qc_pool_result_json(const qc_pool_params *p, const qc_pool_result *r,
                            const qc_pool_json_opts *o, double elapsed);
json_t *qc_removable_result_json(const qc_removable_params *p, const qc_removable_result *r,
                                 double price, double elapsed);
typedef struct qc_result_support {
    int short_run;
    const char *why;
    int allow_short;
    int precision_asked;
    int precision_met;
} qc_result_support;
json_t *qc_mc_result_json(const qc_mc_run_params *p, const qc_mc_scenario *m,
                          const char *path, const qc_mc_run_result *res,
                          const qc_mc_policy *pols, unsigned npol, const qc_result_support *sup,
                          double elapsed);
typedef struct qc_mu_rep_stats {
    unsigned reps;
    double level;
    size_t nsteps;
    double *settling, *overshoot, *sse;
    double *sat, *held;
    double bound;
    double ref_m[64];
    int unreachable[64];
} qc_mu_rep_stats;
int qc_mu_rep_stats_add(qc_mu_rep_stats *st, unsigned k, const qc_mu_run_result *rk);
json_t *qc_mu_result_json(const qc_mu_run_params *p, const qc_mu_run_result *r,
                          const qc_mu_rep_stats *st, const char *ctl,
                          const qc_result_support *sup);
char *qcpy_result_text(json_t *doc);
void qc_result_text_free(char *text);
/* ---- binding helpers (SOURCE below) ---- */
void qcpy_dist_sample(const qc_dist *d, qc_rng *r, double *out, size_t n);
void qcpy_init(void);
size_t qcpy_sizeof_dist(void);
"""

SOURCE = r"""
#include <math.h>
#include <gsl/gsl_errno.h>
#include "qctl/qctl.h"

/* At import: GSL's default error handler aborts the process; the qctl
 * command turns it off (src/cli/main.c) so that libqctl returns its
 * QC_E* codes instead, and so does the module. */
static void qcpy_init(void)
{
    gsl_set_error_handler_off();
}

/* n draws of d from the stream r into out (a numpy array's buffer),
 * one by one (the sequence the batched qc_sampler gives, without its
 * read-ahead, so that a stream continues exactly across calls). */
static void qcpy_dist_sample(const qc_dist *d, qc_rng *r, double *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = qc_dist_sample(d, r);
}

/* Up to cap packets of g into the arrays (numpy buffers); fewer when the
 * generator reaches its limit. */
static size_t qcpy_traffic_fill(qc_traffic_gen *g, double *t, uint32_t *size, uint32_t *user,
                                uint16_t *act, uint8_t *dir, size_t cap)
{
    qc_traffic_pkt p;
    size_t i = 0;
    while (i < cap && qc_traffic_gen_next(g, &p) == 1) {
        t[i] = p.t;
        size[i] = p.size;
        user[i] = p.user;
        act[i] = p.act;
        dir[i] = p.dir;
        i++;
    }
    return i;
}

/* Replications of the MaxUsers run, each kept whole in out[rep] (the
 * caller frees them with qc_mu_run_result_free). */
static int qcpy_mu_keep(void *ctx, unsigned rep, qc_mu_run_result *r)
{
    ((qc_mu_run_result *)ctx)[rep] = *r;
    return 0;
}

static int qcpy_mu_run_reps(const qc_mu_run_params *p, unsigned reps, unsigned jobs,
                            qc_mu_run_result *out, unsigned *failed, qc_err *err)
{
    return qc_mu_run_reps(p, reps, jobs, qcpy_mu_keep, out, NULL, NULL, failed, err);
}

/* A result's JSON (qctl/results.h) as text, the document released: the
 * text is the caller's (qc_result_text_free); NULL when out of memory. */
static char *qcpy_result_text(json_t *doc)
{
    char *s = doc ? qc_result_text(doc) : NULL;
    json_decref(doc);
    return s;
}

static size_t qcpy_sizeof_dist(void)
{
    return sizeof(qc_dist);
}
"""


def builder(include_dir=None):
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    ffi.set_source("qctl._ffi", SOURCE,
                   include_dirs=[include_dir] if include_dir else [])
    return ffi


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: build_ffi.py OUT.c")
    builder().emit_c_code(sys.argv[1])
