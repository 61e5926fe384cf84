/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_cmd.c: what `qctl proxy` makes of its flags (proxy_cmd.h): their
 * defaults, the check the run and --check share, and the event lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy_cmd.h"

static int positive(const char *flag, double v)
{
    if (!(v > 0) || !isfinite(v)) {
        cli_error("%s: %g must be > 0", flag, v);
        return QC_EXIT_USAGE;
    }
    return 0;
}

/* Resolves --class-prefix NAME=/PATH and --candidate NAME against the
 * classes: names must be classes (or best-effort for a prefix), prefixes
 * start with '/', class names are distinct. */
static int proxy_classes(qc_proxy_params *o, const char *const *prefix, unsigned nprefix,
                         const char *const *cand, unsigned ncand)
{
    for (unsigned i = 0; i < o->nclasses; i++) {
        if (strcmp(o->class_name[i], "best-effort") == 0) {
            cli_error("--class: 'best-effort' is the name of the unbounded class");
            return QC_EXIT_USAGE;
        }
        for (unsigned j = 0; j < i; j++)
            if (strcmp(o->class_name[i], o->class_name[j]) == 0) {
                cli_error("--class: '%s' given twice", o->class_name[i]);
                return QC_EXIT_USAGE;
            }
    }
    for (unsigned p = 0; p < nprefix; p++) {
        const char *eq = strchr(prefix[p], '=');
        if (!eq || eq == prefix[p] || eq[1] != '/') {
            cli_error("--class-prefix: '%s' is not NAME=/PATH", prefix[p]);
            return QC_EXIT_USAGE;
        }
        size_t n = (size_t)(eq - prefix[p]);
        unsigned k = 0;
        while (k < o->nclasses &&
               !(strlen(o->class_name[k]) == n && memcmp(o->class_name[k], prefix[p], n) == 0))
            k++;
        if (k == o->nclasses && !(n == 11 && memcmp(prefix[p], "best-effort", 11) == 0)) {
            cli_error("--class-prefix: '%.*s' is not a --class", (int)n, prefix[p]);
            return QC_EXIT_USAGE;
        }
        o->prefix[o->nprefixes] = eq + 1;
        o->prefix_class[o->nprefixes++] = k;
    }
    for (unsigned c = 0; c < ncand; c++) {
        unsigned k = 0;
        while (k < o->nclasses && strcmp(o->class_name[k], cand[c]) != 0)
            k++;
        if (k == o->nclasses) {
            cli_error("--candidate: '%s' is not a --class", cand[c]);
            return QC_EXIT_USAGE;
        }
        o->class_candidate |= 1u << k;
    }
    return 0;
}


/* --class NAME=BOUND (NAME:BOUND too) into the options' classes. */
static int proxy_class_specs(qc_proxy_params *o, const cli_strs *spec)
{
    for (unsigned i = 0; i < spec->n; i++) {
        const char *s = spec->v[i];
        const char *colon = strchr(s, '=');
        if (!colon)
            colon = strrchr(s, ':');
        if (!colon || colon == s) {
            cli_error("--class: '%s' is not NAME=BOUND", s);
            return QC_EXIT_USAGE;
        }
        int rc;
        if ((rc = cli_double("--class", colon + 1, &o->class_bound[o->nclasses])) != 0 ||
            (rc = positive("--class", o->class_bound[o->nclasses])) != 0)
            return rc;
        o->class_name[o->nclasses++] = strndup(s, (size_t)(colon - s));
    }
    return 0;
}

/* Every check the proxy makes before it starts, in the order a run makes
 * them, then the proxy's own (qc_proxy_check): the run and --check both
 * come here, so --check refuses what the run refuses with the same
 * message. The limiter's flags are then set to the values the proxy
 * takes, for --check to print. */
int proxy_validate(void *ctx)
{
    proxy_cli *pc = ctx;
    qc_proxy_params *o = &pc->o;
    int rc = QC_EXIT_USAGE;
    o->nbackends = pc->backends.n;
    o->fleet.route = pc->route ? QC_FLEET_DJSQ : QC_FLEET_JSQ;
    o->max_memory = pc->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)pc->max_memory;
    o->access_log_buffer = (size_t)pc->alog_buffer;
    if (o->health && (o->health[0] != '/' || strlen(o->health) > 256 ||
                      strpbrk(o->health, " \r\n"))) {
        cli_error("--health: '%s' is not a path (/..., no spaces)", o->health);
        return rc;
    }
    if ((!isinf(o->fleet.idle_off) && positive("--idle-off", o->fleet.idle_off)) ||
        positive("--cmd-timeout", o->cmd_timeout) ||
        positive("--health-interval", o->health_interval) ||
        positive("--setup-timeout", o->setup_timeout))
        return rc;
    if (proxy_class_specs(o, &pc->classes) != 0)
        return rc;
    if (o->nbackends == 0) {
        cli_error("proxy: at least one --backend HOST:PORT is required");
        return rc;
    }
    qc_err err = {0};
    if (strcmp(pc->limiter, "none") == 0) {
        o->control = 0;
    } else {
        qc_limiter_algo a;
        if (qc_limiter_algo_parse(pc->limiter, &a, &err) != 0) {
            cli_error("--limiter: %s", err.msg);
            return rc;
        }
        qc_limiter_params_init(&o->limiter, a);
    }
    if (!isnan(pc->limit))
        o->limiter.initial_limit = pc->limit;
    if (!isnan(pc->minl))
        o->limiter.min_limit = pc->minl;
    if (!isnan(pc->maxl))
        o->limiter.max_limit = pc->maxl;
    if (!isnan(pc->ref))
        o->limiter.reference = pc->ref;
    if (!isnan(pc->gain))
        o->limiter.ki = pc->gain;
    if (positive("--interval", o->interval) || positive("--queue-timeout", o->queue_timeout) ||
        positive("--header-timeout", o->header_timeout) ||
        positive("--idle-timeout", o->idle_timeout) ||
        positive("--backend-timeout", o->backend_timeout))
        return rc;
    if (o->fleet.route == QC_FLEET_JSQ &&
        (isfinite(o->fleet.idle_off) || o->fleet.initially_on || o->fleet.max_on || o->unpark_cmd)) {
        cli_error("proxy: --idle-off, --initially-on, --max-on and --unpark-cmd need --route djsq");
        return rc;
    }
    if (qc__fleet_check(&o->fleet, o->nbackends, &err) != 0) {
        cli_error("proxy: %s", err.msg);
        return rc;
    }
    struct sockaddr_storage a;
    for (unsigned i = 0; i < o->nbackends; i++)
        if (qc__addr_parse(o->backend[i], &a, &err) != 0) {
            cli_error("--backend: %s", err.msg);
            return rc;
        }
    if (qc__addr_parse(o->listen, &a, &err) != 0) {
        cli_error("--listen: %s", err.msg);
        return rc;
    }
    if (o->admin && qc__addr_parse(o->admin, &a, &err) != 0) {
        cli_error("--admin: %s", err.msg);
        return rc;
    }
    if (proxy_classes(o, pc->prefixes.v, pc->prefixes.n, pc->candidates.v, pc->candidates.n) != 0)
        return rc;
    int admission = o->limiter.algo == QC_LIMITER_ADMISSION && o->control;
    if (admission) {
        if (!isnan(pc->eps))
            o->limiter.adm_epsilon = pc->eps;
        if (!isnan(pc->alpha))
            o->limiter.adm_alpha = pc->alpha;
        if (pc->minc)
            o->limiter.adm_min_completions = pc->minc;
        if (o->nclasses == 0) {
            cli_error("proxy: --limiter admission needs at least one --class NAME=BOUND");
            return rc;
        }
        /* the limiter's own checks (epsilon, alpha, bounds), named */
        qc_limiter_params lc = o->limiter;
        lc.classes = o->nclasses + 1;
        for (unsigned i = 0; i < o->nclasses; i++)
            lc.bound[i] = o->class_bound[i];
        lc.adm_candidates = o->class_candidate;
        qc_limiter *l = qc_limiter_alloc(&lc, 0, &err);
        if (l == NULL) {
            cli_error("proxy: admission: %s", err.msg);
            return rc;
        }
        qc_limiter_free(l);
    } else if (!isnan(pc->eps) || !isnan(pc->alpha) || pc->minc || pc->candidates.n) {
        cli_error("proxy: --epsilon, --alpha, --min-completions and --candidate need "
                  "--limiter admission");
        return rc;
    }
    int r = pc->reloading ? qc_proxy_check(o, &err) : qc_proxy_params_check(o, &err);
    if (r) {
        cli_error("proxy: %s", err.msg);
        return cli_exit_code(r) == QC_EXIT_USAGE ? QC_EXIT_USAGE : QC_EXIT_FAIL;
    }
    /* the values the proxy runs with, for --check: the limiter's flags
     * where they apply (elsewhere a given one would be refused) */
    pc->limit = pc->minl = pc->maxl = pc->ref = pc->gain = NAN;
    if (o->control) {
        pc->limit = o->limiter.initial_limit;
        pc->minl = o->limiter.min_limit;
        pc->maxl = o->limiter.max_limit;
    }
    if (o->control && o->limiter.algo == QC_LIMITER_MAXUSERS) {
        pc->ref = o->limiter.reference;
        pc->gain = o->limiter.ki;
    }
    if (admission) {
        pc->eps = o->limiter.adm_epsilon;
        pc->alpha = o->limiter.adm_alpha;
        pc->minc = o->limiter.adm_min_completions;
    }
    return 0;
}

/* The proxy's event lines, on stderr. */
int proxy_log_json; /* --log-format json: one process, one format */

int proxy_quiet;

void proxy_log(void *ctx, int level, const char *line)
{
    (void)ctx;
    cli_live_log("qctl proxy", proxy_log_json, proxy_quiet, level, line);
}

void proxy_defaults(proxy_cli *pc, int reload)
{
    memset(pc, 0, sizeof *pc);
    pc->limiter = "maxusers";
    pc->limit = pc->minl = pc->maxl = pc->ref = pc->gain = pc->eps = pc->alpha = NAN;
    qc_proxy_params *o = &pc->o;
    qc_proxy_params_init(o);
    o->log = proxy_log;
    pc->max_memory = o->max_memory;
    pc->alog_buffer = QC_ALOG_BUFFER;
    pc->backends.v = o->backend;
    pc->classes.v = pc->class_spec;
    pc->prefixes.v = pc->prefix_spec;
    pc->candidates.v = pc->cand_spec;
    pc->reloading = reload;
}

void proxy_cli_free(void *p)
{
    proxy_cli *pc = p;
    if (!pc)
        return;
    for (unsigned i = 0; i < pc->o.nclasses; i++)
        free((char *)pc->o.class_name[i]);
    cli_flags_config_release(pc->words);
    free(pc);
}
