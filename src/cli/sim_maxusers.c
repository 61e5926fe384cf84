/* SPDX-License-Identifier: GPL-3.0-or-later */
/* sim_maxusers.c: `qctl sim maxusers`, the MaxUsers server under integral
 * or PI control, or open loop with an excitation for identification. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"
#include "qctl/arx.h"
#include "qctl/arx_json.h"
#include "qctl/maxusers.h"
#include "qctl/output.h"
#include "qctl/stats.h"
#include "report_cli.h"

static const char usage[] =
    "usage: qctl sim maxusers [options]\n"
    "\n"
    "Simulates a closed population of users on a server whose MaxUsers (the\n"
    "most users connected at once) is set each control interval by an integral\n"
    "or PI controller tracking a reference RIS (RPCs in server), or follows a\n"
    "schedule plus an excitation (open loop, for identification).\n"
    "\n"
    "Plant:\n"
    "  --population M       users (default 1000)\n"
    "  --threads T          server worker threads (default 4)\n"
    "  --discipline D       ps (default) or fcfs\n"
    "  --think SPEC         think time between RPCs (default exp:0.2)\n"
    "  --service SPEC       RPC service time (default exp:2.5)\n"
    "  --session SPEC       connected time of a session (default exp:0.0008333)\n"
    "  --off SPEC           offline time between sessions (default exp:0.0016667)\n"
    "  --retry SPEC         wait before retrying a refused connection (default det:30)\n"
    "  --interval DT        control interval (default 60)\n"
    "  --maxusers-max U     upper limit of MaxUsers (default M)\n"
    "Control:\n"
    "  --controller C       integral (default), pi, or open\n"
    "  --ki K --kp K        gains (default K_I 0.1, K_P 0)\n"
    "  --antiwindup A       none, conditional (default) or backcalc\n"
    "  --kaw K              back-calculation gain (default 1)\n"
    "  --sensor S           true (default) or logged RIS for the controller\n"
    "  --sensor-gain G      map the reference into the sensor's units as\n"
    "  --sensor-offset C    r_m = C + G r (default 1 and 0: the sensor reads y)\n"
    "  --sensor-model FILE  take C and G from the sensor block of a model from\n"
    "                       'qctl sysid': its affine map (sysid --sensor-at R, the\n"
    "                       map around the reference), else the tangent at the\n"
    "                       identification's mean (ym0 + G (r - y0), G its DC gain).\n"
    "                       A reference that maps above what the logged sensor can\n"
    "                       read is flagged: the logged RIS of N in the server is\n"
    "                       N - (N^2/X D)(1 - exp(-X D/N)) (PS; X = threads / mean\n"
    "                       service, D the interval), at the largest N the plant\n"
    "                       holds (MaxUsers' limit or the users who want a session,\n"
    "                       less X x mean think)\n"
    "  --reference SCHED    RIS reference: V or V@T,V@T,... (default 325)\n"
    "  --maxusers SCHED     MaxUsers: the schedule (open) or the start (closed;\n"
    "                       default 375)\n"
    "  --excite E           open loop: prbs, uniform or steps around --maxusers\n"
    "  --amplitude A        excitation amplitude (default 50)\n"
    "  --hold H             intervals between excitation changes (default 3). Rule:\n"
    "                       at least the plant's time constant in intervals,\n"
    "                       -1 / ln a of a first fit (a = 0.66: 2.4 for the default\n"
    "                       plant), so each level shows the static gain\n"
    "Run and output:\n"
    "  --duration T         simulated time (default 14400)\n"
    "  --warmup T           first run open loop at --maxusers for T (not recorded),\n"
    "                       so that steps start from a steady state (default 0)\n"
    "  --band F             settling band, fraction of the reference (default 0.1)\n"
    "  --seed S             (default 1)\n"
    "  --reps R             independent replications (default 1); the summary gives\n"
    "                       means with t confidence intervals over them\n"
    "  -j, --jobs N         replications run at once, on N threads (default: the\n"
    "                       online cores); the results are the same for any N\n"
    "  --confidence L       confidence level of the intervals (default 0.95)\n"
    "  --json               print the summary as JSON\n"
    "  --series FILE        one row per sample instant k (time = k interval):\n"
    "                       time,reference,maxusers,ris,ris_now,ris_logged,\n"
    "                       throughput,response,connected,waiting; maxusers is\n"
    "                       u(k), set at time and in force until the next row,\n"
    "                       the rest y(k), measured at time (over the interval\n"
    "                       ending there); '#' comment lines state it and the\n"
    "                       logged sensor's bound (ris_logged_bound=V)\n"
    "  --plot DIR           RIS and reference, and MaxUsers, over time\n"
    "  --report DIR         write DIR/index.html: parameters, summary tables and the\n"
    "                       plots of --plot, in one self-contained page\n"
    "  --quiet              no progress line\n";

static int parse_sched(const char *flag, const char *s, qc_sched_point *pts, size_t *n)
{
    qc_err err = {0};
    if (qc_sched_parse(s, pts, 64, n, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

static int parse_dist(const char *flag, const char *s, qc_dist *d)
{
    qc_err err = {0};
    if (qc_dist_parse(d, s, &err) != 0) {
        cli_error("%s: %s", flag, err.msg);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* A number, or an empty field when there is none (never "nan"). */
static void put_num(FILE *fp, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(fp, "%.10g%s", v, sep);
    else
        fputs(sep, fp);
}

/* One row per sample instant k = 0 .. n (qctl/maxusers.h): maxusers is
 * u(k), set at `time` and in force over (time, time + interval]; the
 * measurements are y(k), taken at `time` (RIS averaged over the interval
 * that ends there). So row k's RIS answers row k-1's MaxUsers, which is
 * the pairing y(k+1) = a y(k) + b u(k) that `qctl sysid` fits. */
static int write_series(const char *path, const qc_mu_run_params *p, const qc_mu_run_result *r)
{
    qc_err err = {0};
    qc_ofile f;
    if (qc_ofile_open(&f, path, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    fprintf(f.fp, "# qctl sim maxusers: one row per sample instant k (time = k x %g s). maxusers is "
                  "u(k), set at time and in force until time + %g; the other columns are "
                  "measured at time (RIS, throughput and response over the interval ending "
                  "there).\n",
            p->plant.interval, p->plant.interval);
    fprintf(f.fp, "# ris_logged_bound=%.10g (the most the logged RIS can read: its closed form "
                  "at the largest RIS the plant can hold)\n",
            r->logged_bound);
    fprintf(f.fp, "time,reference,maxusers,ris,ris_now,ris_logged,throughput,response,"
                  "connected,waiting\n");
    double dt = p->plant.interval;
    for (size_t k = 0; k <= r->n; k++) {
        const qc_maxusers_sample *y = k ? &r->samples[k - 1] : &r->initial;
        double u = k < r->n ? r->samples[k].maxusers : r->u_next;
        double ref = p->closed_loop ? qc_sched_at(p->ref, p->nref, (double)k * dt) : NAN;
        fprintf(f.fp, "%.10g,", (double)k * dt);
        put_num(f.fp, ref, ",");
        put_num(f.fp, u, ",");
        put_num(f.fp, y->ris, ",");
        put_num(f.fp, y->ris_now, ",");
        put_num(f.fp, y->ris_logged, ",");
        put_num(f.fp, y->throughput, ",");
        put_num(f.fp, y->completed ? y->response : NAN, ",");
        put_num(f.fp, y->connected, ",");
        put_num(f.fp, y->waiting, "\n");
    }
    if (qc_ofile_commit(&f, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    return 0;
}

static int write_plots(const char *dir, const qc_mu_run_params *p, const qc_mu_run_result *r)
{
    qc_err err = {0};
    if (!qc_plot_available()) {
        fprintf(stderr, "qctl: gnuplot not found; --plot skipped\n");
        return 0;
    }
    if (qc_mkdir_p(dir, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_FAIL;
    }
    size_t n = strlen(dir) + 64;
    char *path = malloc(n), *body = malloc(2 * n + 1024);
    int rc = path && body ? 0 : QC_EXIT_FAIL;
    if (rc == 0) {
        snprintf(path, n, "%s/maxusers.csv", dir);
        rc = write_series(path, p, r);
    }
    if (rc == 0) {
        snprintf(body, 2 * n + 1024,
                 "set datafile separator ','\nset key below horizontal\nset xlabel 'time (s)'\n"
                 "set ylabel 'RPCs in server (RIS)'\n"
                 "plot '%s' every ::1 using 1:4 with lines lw 1.5 title 'RIS (true)', "
                 "'' every ::1 using 1:6 with lines lw 1 dt 2 title 'RIS (logged)'%s",
                 path, p->closed_loop ? ", '' every ::1 using 1:2 with steps lw 2 lc rgb 'black' title 'reference'" : "");
        if (qc_plot(dir, "ris", body, &err) != 0) {
            cli_error("%s", err.msg);
            rc = QC_EXIT_FAIL;
        }
    }
    if (rc == 0) {
        snprintf(body, 2 * n + 1024,
                 "set datafile separator ','\nset key below horizontal\nset xlabel 'time (s)'\n"
                 "set ylabel 'users'\n"
                 "plot '%s' every ::1 using 1:3 with steps lw 1.5 title 'MaxUsers', "
                 "'' every ::1 using 1:9 with lines lw 1 title 'connected'",
                 path);
        if (qc_plot(dir, "maxusers", body, &err) != 0) {
            cli_error("%s", err.msg);
            rc = QC_EXIT_FAIL;
        }
    }
    free(path);
    free(body);
    return rc;
}

/* Step metrics and saturation over replications: the result of rep 0
 * (series, plots) plus, per step, the values of every replication. */
typedef struct reps_stats {
    unsigned reps;
    double level;
    size_t nsteps;
    double *settling, *overshoot, *sse; /* [step * reps + rep] */
    double *sat, *held;                 /* [rep] */
    double bound;                       /* logged sensor's reach */
    double ref_m[64];                   /* references mapped into the sensor */
    int unreachable[64];
} reps_stats;

/* Finite values of x[0..n) into buf; their count. */
static size_t finite_of(const double *x, size_t n, double *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            buf[k++] = x[i];
    return k;
}

/* {"mean","half_width","lo","hi","n"} of the finite values, or null. */
static json_t *ci_json(const double *x, size_t n, double level)
{
    double buf[4096];
    size_t k = finite_of(x, n < 4096 ? n : 4096, buf);
    if (k == 0)
        return json_null();
    qc_ci ci;
    if (qc_ci_t(buf, k, level, &ci, NULL) != 0)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "mean", json_real(ci.mean));
    json_object_set_new(o, "half_width", qc_json_real_new(ci.half));
    json_object_set_new(o, "lo", qc_json_real_new(ci.lo));
    json_object_set_new(o, "hi", qc_json_real_new(ci.hi));
    json_object_set_new(o, "n", json_integer((json_int_t)k));
    return o;
}

/* "m" or "m +- h" of the finite values into out (scaled by f); the count. */
static size_t ci_text(const double *x, size_t n, double level, double f, const char *fmt,
                      char *out, size_t len)
{
    double buf[4096];
    size_t k = finite_of(x, n < 4096 ? n : 4096, buf);
    qc_ci ci;
    if (k == 0 || qc_ci_t(buf, k, level, &ci, NULL) != 0) {
        snprintf(out, len, "-");
        return 0;
    }
    char m[64], h[64];
    snprintf(m, sizeof m, fmt, f * ci.mean);
    if (k >= 2 && isfinite(ci.half)) {
        char hf[16];
        snprintf(hf, sizeof hf, "%s", fmt);
        if (hf[1] == '+') /* a half-width has no sign */
            memmove(hf + 1, hf + 2, strlen(hf + 2) + 1);
        snprintf(h, sizeof h, hf, f * ci.half);
        snprintf(out, len, "%s +- %s", m, h);
    } else {
        snprintf(out, len, "%s", m);
    }
    return k;
}

static size_t count_finite(const double *x, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += isfinite(x[i]) != 0;
    return k;
}

/* One replication's result, in replication order: its step metrics into
 * st; replication 0's result kept whole in *res0 (series, plots). */
typedef struct mu_each_ctx {
    reps_stats *st;
    qc_mu_run_result *res0;
} mu_each_ctx;

static int mu_each(void *ctx, unsigned k, qc_mu_run_result *rk)
{
    mu_each_ctx *e = ctx;
    reps_stats *st = e->st;
    const unsigned reps = st->reps;
    st->nsteps = rk->nsteps;
    for (size_t i = 0; i < rk->nsteps; i++) {
        st->settling[i * reps + k] = rk->steps[i].settling;
        st->overshoot[i * reps + k] = rk->steps[i].overshoot;
        st->sse[i * reps + k] = rk->steps[i].sse;
    }
    st->sat[k] = rk->frac_saturated;
    st->held[k] = rk->frac_held;
    if (k == 0)
        *e->res0 = *rk;
    else
        qc_mu_run_result_free(rk);
    return 0;
}

static json_t *summary(const qc_mu_run_params *p, const qc_mu_run_result *r,
                       const reps_stats *st, const char *ctl)
{
    json_t *root = json_object();
    json_object_set_new(root, "command", json_string("sim maxusers"));
    json_t *run = json_object();
    json_object_set_new(run, "controller", json_string(ctl));
    if (p->closed_loop) {
        json_object_set_new(run, "ki", json_real(p->pi.ki));
        json_object_set_new(run, "kp", json_real(p->pi.kp));
        json_object_set_new(run, "sensor",
                            json_string(qc_mu_sensor_name(p->sensor)));
        json_object_set_new(run, "sensor_gain", json_real(p->sensor_gain > 0 ? p->sensor_gain : 1));
        json_object_set_new(run, "sensor_offset", json_real(p->sensor_offset));
    }
    json_object_set_new(run, "population", json_integer(p->plant.population));
    json_object_set_new(run, "interval", json_real(p->plant.interval));
    json_object_set_new(run, "intervals", json_integer((json_int_t)r->n));
    json_object_set_new(run, "seed", json_integer((json_int_t)p->plant.seed));
    json_object_set_new(run, "reps", json_integer((json_int_t)st->reps));
    json_object_set_new(run, "confidence", json_real(st->level));
    json_object_set_new(run, "band", json_real(p->band > 0 ? p->band : 0.1));
    json_object_set_new(run, "logged_ris_bound", qc_json_real_new(st->bound));
    json_object_set_new(root, "run", run);
    json_t *steps = json_array();
    const unsigned R = st->reps;
    for (size_t i = 0; i < st->nsteps; i++) {
        const qc_mu_step_metrics *m = &r->steps[i];
        const double *se = st->settling + i * R, *ov = st->overshoot + i * R,
                     *ss = st->sse + i * R;
        size_t settled = count_finite(se, R);
        json_t *o = json_object();
        json_object_set_new(o, "t_start", json_real(m->t_start));
        json_object_set_new(o, "reference", json_real(m->r));
        if (p->closed_loop) {
            json_object_set_new(o, "reference_measured", json_real(st->ref_m[i]));
            json_object_set_new(o, "reachable", json_boolean(!st->unreachable[i]));
        }
        json_object_set_new(o, "settled_reps", json_integer((json_int_t)settled));
        /* the mean settling time only when every replication settled */
        json_t *sci = ci_json(se, R, st->level);
        json_object_set_new(o, "settling_time",
                            settled == R && json_is_object(sci)
                                ? json_real(json_number_value(json_object_get(sci, "mean")))
                                : json_null());
        json_object_set_new(o, "settling_time_ci", settled == R ? sci : (json_decref(sci), json_null()));
        json_t *oci = ci_json(ov, R, st->level);
        json_object_set_new(o, "overshoot_percent",
                            json_is_object(oci) ? json_real(json_number_value(json_object_get(oci, "mean")))
                                                : json_null());
        json_object_set_new(o, "overshoot_percent_ci", oci);
        json_t *eci = ci_json(ss, R, st->level);
        json_object_set_new(o, "steady_state_error",
                            json_is_object(eci) ? json_real(json_number_value(json_object_get(eci, "mean")))
                                                : json_null());
        json_object_set_new(o, "steady_state_error_ci", eci);
        json_array_append_new(steps, o);
    }
    json_object_set_new(root, "steps", steps);
    json_t *s = json_object();
    json_t *sat = ci_json(st->sat, R, st->level);
    json_object_set_new(s, "fraction_saturated",
                        json_real(json_number_value(json_object_get(sat, "mean"))));
    json_object_set_new(s, "fraction_saturated_ci", sat);
    json_t *hl = ci_json(st->held, R, st->level);
    json_object_set_new(s, "fraction_held",
                        json_real(json_number_value(json_object_get(hl, "mean"))));
    json_object_set_new(s, "fraction_held_ci", hl);
    json_object_set_new(s, "throughput", qc_json_real_new(r->throughput));
    json_object_set_new(s, "response_mean", qc_json_real_new(r->response_mean));
    json_object_set_new(s, "response_p95", qc_json_real_new(r->response_p95));
    double ris = 0, mu = 0;
    size_t h = r->n / 2;
    for (size_t k = h; k < r->n; k++) {
        ris += r->samples[k].ris;
        mu += r->samples[k].maxusers;
    }
    json_object_set_new(s, "ris_mean_second_half", json_real(ris / (double)(r->n - h)));
    json_object_set_new(s, "maxusers_mean_second_half", json_real(mu / (double)(r->n - h)));
    json_object_set_new(root, "summary", s);
    return root;
}

int cmd_sim_maxusers(int argc, char **argv)
{
    enum { O_POP = 256, O_THR, O_DISC, O_THINK, O_SVC, O_SESS, O_OFF, O_RETRY, O_INT, O_UMAX,
           O_CTL, O_KI, O_KP, O_AW, O_KAW, O_SENS, O_SGAIN, O_SOFF, O_SMODEL, O_REF, O_MU, O_EXC, O_AMP, O_HOLD,
           O_DUR, O_WARM, O_BAND, O_SEED, O_REPS, O_CONF, O_JSON, O_SER, O_PLOT, O_REPORT, O_QUIET, O_HELP };
    static const struct option longopts[] = {
        {"population", required_argument, 0, O_POP}, {"threads", required_argument, 0, O_THR},
        {"discipline", required_argument, 0, O_DISC}, {"think", required_argument, 0, O_THINK},
        {"service", required_argument, 0, O_SVC},    {"session", required_argument, 0, O_SESS},
        {"off", required_argument, 0, O_OFF},        {"retry", required_argument, 0, O_RETRY},
        {"interval", required_argument, 0, O_INT},   {"maxusers-max", required_argument, 0, O_UMAX},
        {"controller", required_argument, 0, O_CTL}, {"ki", required_argument, 0, O_KI},
        {"kp", required_argument, 0, O_KP},          {"antiwindup", required_argument, 0, O_AW},
        {"kaw", required_argument, 0, O_KAW},        {"sensor", required_argument, 0, O_SENS},
        {"sensor-gain", required_argument, 0, O_SGAIN}, {"sensor-offset", required_argument, 0, O_SOFF}, {"sensor-model", required_argument, 0, O_SMODEL}, {"reference", required_argument, 0, O_REF},
        {"maxusers", required_argument, 0, O_MU},    {"excite", required_argument, 0, O_EXC},
        {"amplitude", required_argument, 0, O_AMP},  {"hold", required_argument, 0, O_HOLD},
        {"duration", required_argument, 0, O_DUR},  {"warmup", required_argument, 0, O_WARM},
        {"band", required_argument, 0, O_BAND},
        {"reps", required_argument, 0, O_REPS},  {"confidence", required_argument, 0, O_CONF},  {"seed", required_argument, 0, O_SEED},
        {"jobs", required_argument, 0, 'j'},
        {"json", no_argument, 0, O_JSON},            {"series", required_argument, 0, O_SER},
        {"plot", required_argument, 0, O_PLOT},      {"quiet", no_argument, 0, O_QUIET},
        {"report", required_argument, 0, O_REPORT},
        {"help", no_argument, 0, O_HELP},            {0, 0, 0, 0}};
    qc_mu_run_params p;
    memset(&p, 0, sizeof p);
    qc_maxusers_params_init(&p.plant);
    const char *spec[5] = {"exp:0.2", "exp:2.5", "exp:0.0008333", "exp:0.0016667", "det:30"};
    const char *ctl = "integral", *ref = "325", *mu = "375", *series = NULL, *plot = NULL,
               *report = NULL;
    double ki = 0.1, kp = 0, kaw = 1, umax = -1;
    int quiet = 0;
    qc_antiwindup aw = QC_AW_CONDITIONAL;
    int json = 0, rc = 0;
    unsigned reps = 1;
    unsigned jobs = cli_jobs_default();
    double level = 0.95;
    int have_affine = 0;
    p.duration = 14400;
    p.excite_amp = 50;
    p.excite_hold = 3;
    p.sensor_gain = 1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = cli_getopt(argc, argv, "j:", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': rc = cli_jobs(optarg, &jobs); break;
        case O_POP: rc = cli_uint("--population", optarg, &p.plant.population); break;
        case O_THR: rc = cli_uint("--threads", optarg, &p.plant.threads); break;
        case O_DISC: {
            qc_err we = {0};
            rc = cli_word("--discipline", qc_discipline_parse(optarg, &p.plant.discipline, &we),
                          &we);
            break;
        }
        case O_THINK: spec[0] = optarg; break;
        case O_SVC: spec[1] = optarg; break;
        case O_SESS: spec[2] = optarg; break;
        case O_OFF: spec[3] = optarg; break;
        case O_RETRY: spec[4] = optarg; break;
        case O_INT: rc = cli_double("--interval", optarg, &p.plant.interval); break;
        case O_UMAX: rc = cli_double("--maxusers-max", optarg, &umax); break;
        case O_CTL: ctl = optarg; break;
        case O_KI:
            if ((rc = cli_double("--ki", optarg, &ki)) == 0 && !(ki > 0 && ki <= 1e6)) {
                cli_error("--ki: %s is not in (0, 1e6]: a gain <= 0 is no control or positive "
                          "feedback (--controller open runs without one), a larger one moves "
                          "MaxUsers across any population in one interval ('qctl design' gives "
                          "stable gains)", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_KP:
            if ((rc = cli_double("--kp", optarg, &kp)) == 0 && !(kp >= 0 && kp <= 1e6)) {
                cli_error("--kp: %s is not in [0, 1e6]", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_AW: {
            qc_err we = {0};
            rc = cli_word("--antiwindup", qc_antiwindup_parse(optarg, &aw, &we), &we);
            break;
        }
        case O_KAW: rc = cli_double("--kaw", optarg, &kaw); break;
        case O_SENS: {
            qc_err we = {0};
            rc = cli_word("--sensor", qc_mu_sensor_parse(optarg, &p.sensor, &we), &we);
            break;
        }
        case O_SGAIN: rc = cli_double("--sensor-gain", optarg, &p.sensor_gain); break;
        case O_SOFF: rc = cli_double("--sensor-offset", optarg, &p.sensor_offset); break;
        case O_SMODEL: {
            qc_arx_system sys;
            qc_err e = {0};
            if (qc_arx_system_read(optarg, &sys, &e) != 0) {
                cli_error("--sensor-model: %s", e.msg);
                return QC_EXIT_USAGE;
            }
            if (!sys.has_sensor) {
                cli_error("--sensor-model: %s has no sensor block", optarg);
                return QC_EXIT_USAGE;
            }
            if (sys.has_affine) {
                /* the affine map identified around the reference */
                p.sensor_gain = sys.affine.gain;
                p.sensor_offset = sys.affine.offset;
                have_affine = 1;
                break;
            }
            double g = qc_arx_dc_gain(&sys.sensor);
            if (!(g > 0) || !isfinite(g)) {
                cli_error("--sensor-model: sensor DC gain %g is not positive and finite", g);
                return QC_EXIT_USAGE;
            }
            /* tangent at the identification's operating point */
            p.sensor_gain = g;
            p.sensor_offset = sys.sensor.y0 - g * sys.sensor.u0;
            break;
        }
        case O_REF: ref = optarg; break;
        case O_MU: mu = optarg; break;
        case O_EXC: {
            qc_err we = {0};
            rc = cli_word("--excite", qc_excite_kind_parse(optarg, &p.excite, &we), &we);
            break;
        }
        case O_AMP: rc = cli_double("--amplitude", optarg, &p.excite_amp); break;
        case O_HOLD: rc = cli_uint("--hold", optarg, &p.excite_hold); break;
        case O_DUR: rc = cli_double("--duration", optarg, &p.duration); break;
        case O_WARM: rc = cli_double("--warmup", optarg, &p.warmup); break;
        case O_BAND:
            rc = cli_double("--band", optarg, &p.band);
            if (rc == 0 && !(p.band > 0 && p.band < 1)) {
                cli_error("--band: %g is not in (0, 1)", p.band);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_SEED: rc = cli_u64("--seed", optarg, &p.plant.seed); break;
        case O_REPS:
            if ((rc = cli_uint("--reps", optarg, &reps)) == 0 && (reps < 1 || reps > 1000)) {
                cli_error("--reps: %s is not in 1..1000", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_CONF:
            if ((rc = cli_double("--confidence", optarg, &level)) == 0 && !(level > 0 && level < 1)) {
                cli_error("--confidence: %s is not in (0, 1)", optarg);
                rc = QC_EXIT_USAGE;
            }
            break;
        case O_JSON: json = 1; break;
        case O_SER: series = optarg; break;
        case O_PLOT: plot = optarg; break;
        case O_REPORT: report = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_HELP: fputs(usage, stdout); return 0;
        default: return cli_bad_option("sim maxusers", argv[optind - 1]);
        }
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return cli_extra_operand("sim maxusers", argv[optind]);
    if (report && (rc = cli_report_prepare(report)) != 0)
        return rc;
    if (strcmp(ctl, "integral") == 0) {
        p.closed_loop = 1;
        kp = 0;
    } else if (strcmp(ctl, "pi") == 0) {
        p.closed_loop = 1;
    } else if (strcmp(ctl, "open") == 0) {
        p.closed_loop = 0;
    } else {
        cli_error("--controller: '%s' is not integral, pi or open", ctl);
        return QC_EXIT_USAGE;
    }
    if (!(p.excite_amp >= 0)) {
        cli_error("--amplitude: must be >= 0");
        return QC_EXIT_USAGE;
    }
    if (!(p.sensor_gain > 0)) {
        cli_error("--sensor-gain: must be > 0");
        return QC_EXIT_USAGE;
    }
    if (p.excite != QC_EXCITE_NONE && p.closed_loop) {
        cli_error("--excite: only with --controller open");
        return QC_EXIT_USAGE;
    }
    qc_sched_point refs[64], mus[64];
    size_t nref = 0, nmu = 0;
    if ((rc = parse_sched("--reference", ref, refs, &nref)) != 0 ||
        (rc = parse_sched("--maxusers", mu, mus, &nmu)) != 0)
        return rc;
    qc_dist d[5];
    memset(d, 0, sizeof d);
    static const char *const flags[5] = {"--think", "--service", "--session", "--off", "--retry"};
    for (int i = 0; i < 5 && rc == 0; i++)
        rc = parse_dist(flags[i], spec[i], &d[i]);
    if (rc != 0) {
        for (int i = 0; i < 5; i++)
            qc_dist_free(&d[i]);
        return rc;
    }
    p.plant.think = &d[0];
    p.plant.service = &d[1];
    p.plant.session = &d[2];
    p.plant.off = &d[3];
    p.plant.retry = &d[4];
    p.plant.maxusers_max = umax;
    double top = umax >= 0 ? umax : (double)p.plant.population;
    for (size_t i = 0; i < nref; i++)
        if (!(refs[i].v > 0) || refs[i].v > top) {
            cli_error("--reference: %g is not reachable: RIS cannot exceed MaxUsers' limit %g "
                      "(nor be <= 0)", refs[i].v, top);
            rc = QC_EXIT_USAGE;
        }
    p.ref = refs;
    p.nref = nref;
    p.input = mus;
    p.ninput = nmu;
    p.pi = (qc_pi_params){kp, ki, 0, top, mus[0].v < top ? mus[0].v : top, aw, kaw};
    reps_stats st;
    memset(&st, 0, sizeof st);
    st.reps = reps;
    st.level = level;
    st.bound = qc_mu_logged_bound(&p.plant);
    double sg = p.sensor_gain > 0 ? p.sensor_gain : 1;
    for (size_t i = 0; i < nref && p.closed_loop && rc == 0; i++) {
        st.ref_m[i] = p.sensor_offset + sg * refs[i].v;
        if (p.sensor == QC_SENSOR_LOGGED && !(st.ref_m[i] < st.bound)) {
            st.unreachable[i] = 1;
            fprintf(stderr,
                    "qctl: warning: --reference %g is %g on the logged sensor, which cannot read "
                    "more than %g (its closed form at the largest RIS the plant holds): "
                    "unreachable; the "
                    "controller will raise MaxUsers until it no longer binds, and the true RIS "
                    "will be far above the reference\n",
                    refs[i].v, st.ref_m[i], st.bound);
        }
    }
    (void)have_affine;
    qc_mu_run_result res;
    memset(&res, 0, sizeof res);
    qc_err err = {0};
    st.settling = malloc((nref + 1) * reps * sizeof(double));
    st.overshoot = malloc((nref + 1) * reps * sizeof(double));
    st.sse = malloc((nref + 1) * reps * sizeof(double));
    st.sat = malloc(reps * sizeof(double));
    st.held = malloc(reps * sizeof(double));
    if (rc == 0 && (!st.settling || !st.overshoot || !st.sse || !st.sat || !st.held)) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    }
    cli_progress prog; /* by replication: each is one run of the loop */
    cli_progress_init(&prog, "sim maxusers", quiet);
    mu_each_ctx ec = {&st, &res};
    unsigned failed = 0;
    if (rc == 0 && (rc = qc_mu_run_reps(&p, reps, jobs, mu_each, &ec, cli_progress_update, &prog,
                                        &failed, &err)) != 0) {
        cli_progress_done(&prog);
        cli_error("sim maxusers: replication %u: %s", failed, err.msg);
        rc = cli_exit_code(rc);
    }
    cli_progress_done(&prog);
    for (int i = 0; i < 5; i++)
        qc_dist_free(&d[i]);
    if (rc != 0) {
        qc_mu_run_result_free(&res);
        free(st.settling);
        free(st.overshoot);
        free(st.sse);
        free(st.sat);
        free(st.held);
        return rc;
    }
    if (json) {
        json_t *js = summary(&p, &res, &st, ctl);
        if (qc_json_write(js, NULL, &err) != 0) {
            cli_error("%s", err.msg);
            rc = QC_EXIT_FAIL;
        }
        json_decref(js);
    } else {
        printf("MaxUsers server: %u users, %u threads, interval %g s, %s control", p.plant.population,
               p.plant.threads, p.plant.interval, ctl);
        if (reps > 1)
            printf(", %u replications (+- %g%% confidence half-widths)", reps, 100 * level);
        printf("\n");
        for (size_t i = 0; i < st.nsteps; i++) {
            const qc_mu_step_metrics *m = &res.steps[i];
            const double *se = st.settling + i * reps, *ov = st.overshoot + i * reps,
                         *ss = st.sse + i * reps;
            char a[128], b[128], e3[128];
            size_t settled = ci_text(se, reps, level, 1, "%.4g", a, sizeof a);
            ci_text(ov, reps, level, 1, "%.1f", b, sizeof b);
            ci_text(ss, reps, level, 100, "%+.2f", e3, sizeof e3);
            printf("  step to %-8g at t=%-8g ", m->r, m->t_start);
            if (settled == reps)
                printf("settling %s s", a);
            else if (settled == 0)
                printf("never settles (not within %g%% of the reference to the end)",
                       100 * (p.band > 0 ? p.band : 0.1));
            else
                printf("settles in %zu of %u replications (%s s when it does)", settled, reps, a);
            if (count_finite(ov, reps) > 0)
                printf("  overshoot %s%%", b);
            else
                printf("  overshoot: no step (starts at the reference)");
            printf("  steady-state error %s%%", e3);
            if (p.closed_loop && st.unreachable[i])
                printf("  UNREACHABLE on the logged sensor (%g > %g)", st.ref_m[i], st.bound);
            printf("\n");
        }
        char a[128], b[128];
        ci_text(st.sat, reps, level, 100, "%.1f", a, sizeof a);
        ci_text(st.held, reps, level, 100, "%.1f", b, sizeof b);
        printf("  MaxUsers saturated %s%% of intervals, held by the demand hold %s%%; "
               "throughput %.4g RPC/s; ",
               a, b, res.throughput);
        if (isfinite(res.response_mean) && isfinite(res.response_p95))
            printf("response mean %.4g s, p95 %.4g s", res.response_mean, res.response_p95);
        else
            printf("no RPC completed: no response time");
        printf("%s\n", reps > 1 ? " (throughput and response: first replication)" : "");
    }
    if (rc == 0 && series)
        rc = write_series(series, &p, &res);
    if (rc == 0 && plot)
        rc = write_plots(plot, &p, &res);
    if (rc == 0 && report) {
        static const char *const names[] = {"ris", "maxusers"};
        if (qc_plot_available())
            rc = write_plots(report, &p, &res);
        json_t *js = summary(&p, &res, &st, ctl);
        if (rc == 0)
            rc = cli_report_write(report, "sim maxusers", argc, argv, js, names, 2);
        json_decref(js);
    }
    qc_mu_run_result_free(&res);
    free(st.settling);
    free(st.overshoot);
    free(st.sse);
    free(st.sat);
    free(st.held);
    return rc;
}
