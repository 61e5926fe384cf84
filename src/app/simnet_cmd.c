/* SPDX-License-Identifier: GPL-3.0-or-later */
/* simnet_cmd.c: what `qctl sim network` does once its flags are read:
 * their check, the run under the progress line, and its outputs through
 * result.h (see simnet_cmd.h). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simnet_cmd.h"


typedef qc_app_net_out net_out;

static int verdict(const void *ctx)
{
    const net_out *o = ctx;
    if (o->simulated && o->r.transient) {
        cli_error("sim network: no steady state: %s", o->r.transient_reason);
        return QC_EXIT_FAIL;
    }
    return 0;
}

/* The network as a diagram (gnuplot): the stations left to right as
 * boxes, each class's entries from the left, its routes as arrows above
 * (forward) or below (back) the boxes, labelled with the class and the
 * probability, and what leaves as a dashed arrow "out". */
static int diagram(cli_plots *pl, const void *ctx)
{
    const net_out *o = ctx;
    const qc_network *n = o->net;
    static const char *const colors[8] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                          "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    size_t cap = 65536, len = 0;
    char *b = malloc(cap);
    if (b == NULL) {
        cli_error("out of memory");
        return QC_EXIT_FAIL;
    }
#define OUT(...)                                                                                \
    do {                                                                                        \
        if (len < cap)                                                                          \
            len += (size_t)snprintf(b + len, cap - len, __VA_ARGS__);                           \
    } while (0)
    double xout = 3.0 * n->nst;
    int fwd = 0, back = 0;
    OUT("unset border\nunset tics\nunset key\nset size ratio -1\n");
    OUT("set xrange [-2.5:%g]\n", xout + 0.5);
    for (unsigned i = 0; i < n->nst; i++) {
        const qc_net_station *st = &n->st[i];
        double x = 3.0 * i + 1;
        OUT("set object %u rect from %g,-0.5 to %g,0.5 fc rgb '#eef3fa' fs solid border lc "
            "rgb '#444444'\n",
            i + 1, x - 0.8, x + 0.8);
        char what[48];
        if (st->disc == QC_NET_IS)
            snprintf(what, sizeof what, "is");
        else
            snprintf(what, sizeof what, "%s, c=%u", qc_net_disc_name(st->disc), st->servers);
        OUT("set label \"%s\\n%s\" at %g,0 center front\n", st->name, what, x);
    }
    for (unsigned k = 0; k < n->ncl; k++) {
        const char *col = colors[k % 8];
        const qc_net_class *c = &n->cl[k];
        OUT("set label \"%s (%s)\" at -2.4,%g left tc rgb '%s' font ',9'\n", c->name,
            c->closed ? "closed" : "open", 1.6 - 0.35 * k, col);
        for (unsigned i = 0; i < n->nst; i++)
            if (c->entry[i] > 0)
                OUT("set arrow from -1.2,%g to %g,%g head filled lc rgb '%s'\n",
                    0.3 - 0.15 * k, 3.0 * i + 0.2, 0.3 - 0.15 * k, col);
        for (unsigned i = 0; i < n->nst; i++) {
            size_t row = (size_t)i * n->ncl + k;
            double left = 1;
            /* (i, k) is reached by an entry or by some route */
            int reached = n->cl[k].entry[i] > 0;
            for (size_t r2 = 0; r2 < (size_t)n->nst * n->ncl && !reached; r2++)
                for (unsigned h = 0; h < n->nroute[r2]; h++)
                    reached |= n->route[r2][h].p > 0 && n->route[r2][h].station == (int)i &&
                               n->route[r2][h].cls == (int)k;
            for (unsigned h = 0; h < n->nroute[row]; h++) {
                const qc_net_hop *hp = &n->route[row][h];
                left -= hp->p;
                if (hp->p <= 0)
                    continue;
                reached = 1;
                double x0 = 3.0 * i + 1, x1 = 3.0 * hp->station + 1;
                int up = hp->station > (int)i;
                double y = up ? 0.8 + 0.3 * fwd++ : -0.8 - 0.3 * back++;
                const char *c2 = colors[hp->cls % 8];
                /* from the box's edge to the other's; to itself: a short
                 * arrow back over its top */
                double a = up ? x0 + 0.8 : x0 - 0.8, z = up ? x1 - 0.8 : x1 + 0.8;
                if (x1 == x0) {
                    a = x0 + 0.6;
                    z = x0 - 0.6;
                }
                OUT("set arrow from %g,%g to %g,%g head filled lc rgb '%s'\n", a, y, z, y, c2);
                OUT("set label \"%s%s%s %.3g\" at %g,%g center tc rgb '%s' font ',8'\n",
                    c->name, hp->cls != (int)k ? "->" : "",
                    hp->cls != (int)k ? n->cl[hp->cls].name : "", hp->p, (a + z) / 2, y + 0.13,
                    c2);
            }
            if (reached && left > 1e-9 && n->st[i].has_service[k]) {
                double y = 0.35 - 0.2 * k;
                OUT("set arrow from %g,%g to %g,%g head filled lc rgb '%s' dt 2\n",
                    3.0 * i + 1.8, y, 3.0 * i + 2.5, y, col);
                OUT("set label \"out %.3g\" at %g,%g left tc rgb '%s' font ',7'\n", left,
                    3.0 * i + 2.5, y, col);
            }
        }
    }
    OUT("set yrange [%g:%g]\nplot NaN notitle\n", -1.2 - 0.3 * back, 2.0 + 0.3 * fwd);
#undef OUT
    int rc = len < cap ? cli_plots_draw(pl, "network", "%s", b) : 0;
    free(b);
    return rc;
}

int net_validate(void *ctx)
{
    net_cli *q = ctx;
    qc_network_params *p = &q->p;
    int rc;
    if (q->file == NULL) {
        cli_error("sim network: the network FILE.json is required (see 'qctl sim network "
                  "--help')");
        return QC_EXIT_USAGE;
    }
    if (q->out.report && (rc = cli_report_prepare(q->out.report)) != 0)
        return rc;
    if (p->customers == 0 && p->horizon == 0)
        p->customers = 100000;
    if (p->customers && p->customers < 2 * QC_NET_CHUNKS) {
        cli_error("--customers: at least %d", 2 * QC_NET_CHUNKS);
        return QC_EXIT_USAGE;
    }
    if (p->precision != 0 && !(p->precision > 0 && p->precision < 1)) {
        cli_error("--precision: %g is not a relative half-width in (0, 1)", p->precision);
        return QC_EXIT_USAGE;
    }
    if (p->precision > 0 && p->reps < 2) {
        cli_error("--precision: needs --reps 2 or more (it doubles the replications)");
        return QC_EXIT_USAGE;
    }
    int fixed;
    if ((rc = cli_warmup_parse(q->warm, 1, p->customers != 0, &fixed, &p->warmup)) != 0)
        return rc;
    p->warmup_mode = fixed ? QC_WARMUP_FIXED : QC_WARMUP_MSER5;
    if (q->loaded)
        qc_network_free(&q->net);
    qc_err err = {0};
    if (qc_network_load(&q->net, q->file, &err) != 0) {
        cli_error("%s", err.msg);
        return QC_EXIT_USAGE;
    }
    q->loaded = 1;
    p->net = &q->net;
    if (p->ctl_reference != 0 && (q->net.front < 0 || !(p->ctl_reference > 0))) {
        cli_error("--maxusers-reference: %s", q->net.front < 0
                      ? "the network has no control.maxusers at its front"
                      : "must be > 0");
        return QC_EXIT_USAGE;
    }
    /* the run's own checks, so that --check answers what the start would */
    if (!q->analytic && (rc = qc_network_params_check(p, &err)) != 0) {
        cli_error("sim network: %s", err.msg);
        return cli_exit_code(rc);
    }
    return 0;
}

int net_run(void *ctx, int argc, char **argv)
{
    net_cli *q = ctx;
    net_out out = {.net = &q->net, .p = &q->p, .file = q->file};
    cli_run run;
    int rc;
    if (!q->analytic) {
        cli_run_begin(&run, "sim network", NULL, q->quiet, &q->p.progress, &q->p.progress_ctx);
        cli_run_cancellable(&run, &q->p.cancel);
        rc = cli_run_end(&run, qc_network_run(&q->p, &out.r, &run.err));
        if (rc != 0)
            return rc;
        out.simulated = 1;
    } else {
        run.elapsed = 0;
    }
    qc_err err = {0};
    if (qc_network_exact_solve(&q->net, &out.ex, &err) != 0) {
        cli_error("sim network: %s", err.msg);
        qc_network_result_free(&out.r);
        return QC_EXIT_FAIL;
    }
    static const char *const names[] = {"network"};
    cli_result r = {qc_app_net_json(&out, run.elapsed), &out, qc_app_net_table, verdict, NULL,
                    diagram, names, 1};
    rc = cli_result_write(&q->out, &r, argc, argv);
    qc_network_result_free(&out.r);
    qc_network_exact_free(&out.ex);
    return rc;
}

