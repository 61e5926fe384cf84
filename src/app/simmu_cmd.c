/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simmu_cmd.c: what `qctl sim maxusers` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simmu_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simmu_cmd.h"

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


static int mu_plots(cli_plots *pl, const void *ctx)
{
    const qc_mu_run_params *p = ((const qc_app_mu_out *)ctx)->p;
    int rc = cli_plots_data(pl, "maxusers.csv", qc_app_mu_series_rows, ctx);
    if (rc == 0)
        rc = cli_plots_draw(pl, "ris",
                            "set datafile separator ','\nset key below horizontal\nset xlabel "
                            "'time (s)'\nset ylabel 'RPCs in server (RIS)'\n"
                            "plot '%s' every ::1 using 1:4 with lines lw 1.5 title 'RIS (true)', "
                            "'' every ::1 using 1:6 with lines lw 1 dt 2 title 'RIS (logged)'%s",
                            pl->path,
                            p->closed_loop ? ", '' every ::1 using 1:2 with steps lw 2 lc rgb "
                                             "'black' title 'reference'"
                                           : "");
    if (rc == 0)
        rc = cli_plots_draw(pl, "maxusers",
                            "set datafile separator ','\nset key below horizontal\nset xlabel "
                            "'time (s)'\nset ylabel 'users'\n"
                            "plot '%s' every ::1 using 1:3 with steps lw 1.5 title 'MaxUsers', "
                            "'' every ::1 using 1:9 with lines lw 1 title 'connected'",
                            pl->path);
    return rc;
}

/* The flags' destinations, what the validation makes of them (the
 * schedules and distributions, owned here), and which were given. */

static const char *const ctl_names[] = {"integral", "pi", "open"};

/* --sensor-model FILE: the sensor map from a sysid model. */
int sensor_model(qc_mu_run_params *p, const char *path)
{
    qc_arx_system sys;
    qc_err e = {0};
    if (qc_arx_system_read(path, &sys, &e) != 0) {
        cli_error("--sensor-model: %s", e.msg);
        return QC_EXIT_USAGE;
    }
    if (!sys.has_sensor) {
        cli_error("--sensor-model: %s has no sensor block", path);
        return QC_EXIT_USAGE;
    }
    if (sys.has_affine) {
        /* the affine map identified around the reference */
        p->sensor_gain = sys.affine.gain;
        p->sensor_offset = sys.affine.offset;
        return 0;
    }
    double g = qc_arx_dc_gain(&sys.sensor);
    if (!(g > 0) || !isfinite(g)) {
        cli_error("--sensor-model: sensor DC gain %g is not positive and finite", g);
        return QC_EXIT_USAGE;
    }
    /* tangent at the identification's operating point */
    p->sensor_gain = g;
    p->sensor_offset = sys.sensor.y0 - g * sys.sensor.u0;
    return 0;
}

/* Every check before the run (the table's, then these). */
int mu_validate(void *ctx)
{
    mu_cli *q = ctx;
    qc_mu_run_params *p = &q->p;
    int rc;
    if (!(q->ki > 0 && q->ki <= 1e6)) {
        cli_error("--ki: %g is not in (0, 1e6]: a gain <= 0 is no control or positive "
                  "feedback (--controller open runs without one), a larger one moves "
                  "MaxUsers across any population in one interval ('qctl design' gives "
                  "stable gains)", q->ki);
        return QC_EXIT_USAGE;
    }
    if (!(q->kp >= 0 && q->kp <= 1e6)) {
        cli_error("--kp: %g is not in [0, 1e6]", q->kp);
        return QC_EXIT_USAGE;
    }
    if (cli_flag_given(q->flags, q->given, "band") && !(p->band > 0 && p->band < 1)) {
        cli_error("--band: %g is not in (0, 1)", p->band);
        return QC_EXIT_USAGE;
    }
    if (q->reps < 1 || q->reps > 1000) {
        cli_error("--reps: %u is not in 1..1000", q->reps);
        return QC_EXIT_USAGE;
    }
    if (!(q->level > 0 && q->level < 1)) {
        cli_error("--confidence: %g is not in (0, 1)", q->level);
        return QC_EXIT_USAGE;
    }
    if (q->sensor_model && (rc = sensor_model(p, q->sensor_model)) != 0)
        return rc;
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    p->closed_loop = q->ctl != 2;
    if (q->ctl == 0)
        q->kp = 0;
    if (!(p->excite_amp >= 0)) {
        cli_error("--amplitude: must be >= 0");
        return QC_EXIT_USAGE;
    }
    if (!(p->sensor_gain > 0)) {
        cli_error("--sensor-gain: must be > 0");
        return QC_EXIT_USAGE;
    }
    if (p->excite != QC_EXCITE_NONE && p->closed_loop) {
        cli_error("--excite: only with --controller open");
        return QC_EXIT_USAGE;
    }
    if ((rc = parse_sched("--reference", q->ref, q->refs, &q->nref)) != 0 ||
        (rc = parse_sched("--maxusers", q->mu, q->mus, &q->nmu)) != 0)
        return rc;
    static const char *const flags[5] = {"--think", "--service", "--session", "--off", "--retry"};
    for (int i = 0; i < 5; i++)
        if ((rc = parse_dist(flags[i], q->spec[i], &q->d[i])) != 0)
            return rc;
    p->plant.think = &q->d[0];
    p->plant.service = &q->d[1];
    p->plant.session = &q->d[2];
    p->plant.off = &q->d[3];
    p->plant.retry = &q->d[4];
    p->plant.maxusers_max = isnan(q->umax) ? -1 : q->umax;
    double top = p->plant.maxusers_max >= 0 ? p->plant.maxusers_max : (double)p->plant.population;
    for (size_t i = 0; i < q->nref; i++)
        if (!(q->refs[i].v > 0) || q->refs[i].v > top) {
            cli_error("--reference: %g is not reachable: RIS cannot exceed MaxUsers' limit %g "
                      "(nor be <= 0)", q->refs[i].v, top);
            return QC_EXIT_USAGE;
        }
    p->ref = q->refs;
    p->nref = q->nref;
    p->input = q->mus;
    p->ninput = q->nmu;
    p->pi = (qc_pi_params){q->kp, q->ki, 0, top, q->mus[0].v < top ? q->mus[0].v : top,
                           (qc_antiwindup)q->aw, q->kaw};
    /* the run's own checks, so that --check answers what the start would */
    qc_err err = {0};
    if ((rc = qc_mu_run_params_check(p, &err)) != 0) {
        cli_error("sim maxusers: %s", err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}

int mu_run(void *ctx, int argc, char **argv)
{
    mu_cli *q = ctx;
    static const char *const names[] = {"ris", "maxusers"};
    const qc_mu_run_params *p = &q->p;
    const unsigned reps = q->reps;
    int rc = 0;
    qc_app_mu_stats st;
    memset(&st, 0, sizeof st);
    st.reps = reps;
    st.level = q->level;
    st.bound = qc_mu_logged_bound(&p->plant);
    double sg = p->sensor_gain > 0 ? p->sensor_gain : 1;
    for (size_t i = 0; i < q->nref && p->closed_loop; i++) {
        st.ref_m[i] = p->sensor_offset + sg * q->refs[i].v;
        if (p->sensor == QC_SENSOR_LOGGED && !(st.ref_m[i] < st.bound)) {
            st.unreachable[i] = 1;
            fprintf(stderr,
                    "qctl: warning: --reference %g is %g on the logged sensor, which cannot read "
                    "more than %g (its closed form at the largest RIS the plant holds): "
                    "unreachable; the "
                    "controller will raise MaxUsers until it no longer binds, and the true RIS "
                    "will be far above the reference\n",
                    q->refs[i].v, st.ref_m[i], st.bound);
        }
    }
    qc_mu_run_result res;
    memset(&res, 0, sizeof res);
    size_t nref = q->nref;
    st.settling = malloc((nref + 1) * reps * sizeof(double));
    st.overshoot = malloc((nref + 1) * reps * sizeof(double));
    st.sse = malloc((nref + 1) * reps * sizeof(double));
    st.sat = malloc(reps * sizeof(double));
    st.held = malloc(reps * sizeof(double));
    if (!st.settling || !st.overshoot || !st.sse || !st.sat || !st.held) {
        cli_error("out of memory");
        rc = QC_EXIT_FAIL;
    }
    /* the progress goes by replication: each is one run of the loop */
    qc_app_mu_each_ctx ec = {&st, &res};
    unsigned failed = 0;
    cli_run run;
    cli_run_begin(&run, "sim maxusers", NULL, q->quiet, NULL, NULL);
    cli_run_cancellable(&run, &q->p.cancel);
    if (rc == 0) {
        int lrc = qc_mu_run_reps(p, reps, q->jobs, qc_app_mu_each, &ec, cli_progress_update, &run.prog,
                                 &failed, &run.err);
        if (lrc != 0 && lrc != QC_ECANCELED)
            qc_err_prefix(&run.err, "replication %u", failed);
        rc = cli_run_end(&run, lrc);
    }
    if (rc == 0) {
        static char why[512];
        qc_app_support sup = {qc_mu_run_support(p, &res, st.settling, st.nsteps, st.reps, why,
                                                sizeof why), why,
                              q->allow_short, 0, 1};
        qc_app_mu_out out = {p, &res, &st, ctl_names[q->ctl], &sup};
        cli_result r = {qc_app_mu_json(p, &res, &st, out.ctl, &sup), &out, qc_app_mu_table,
                        NULL, qc_app_mu_series_rows, mu_plots, names, 2};
        rc = cli_result_write(&q->out, &r, argc, argv);
        const cli_support v = {sup.short_run, sup.why, sup.allow_short, sup.precision_asked,
                               sup.precision_met};
        if (rc == 0)
            rc = cli_support_verdict(&v, "sim maxusers");
    }
    qc_mu_run_result_free(&res);
    qc_app_mu_stats_free(&st);
    return rc;
}

