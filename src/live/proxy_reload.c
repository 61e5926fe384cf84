/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_reload.c: a running `qctl proxy` takes a new configuration
 * (SIGHUP, POST /reload) without closing anything.
 *
 * The idea is nginx's and haproxy's promise, kept on one loop: what a
 * reload can change is changed in place, and what it cannot is refused
 * before anything moved, so a reload either takes the whole new
 * configuration or leaves the old one running untouched, never half.
 * The listeners, the connections, the requests in flight and in the
 * waiting room are never touched: the limiter's parameters change inside
 * the same limiter (qc_limiter_reconfigure keeps its state where its
 * parameters did not change), the wait deadlines inside the same front,
 * and the rest (timeouts, retries, bounds, the class header and prefixes,
 * health probing, un/park commands, the token file's contents) is read
 * from the configuration at each use, so swapping the pointer changes it.
 * What would need a new listener, a new front or a new fleet (an
 * address, the backends, the classes, the limiter's algorithm, the
 * waiting room, the interval) is refused naming the field: restart for
 * those. */
#include "live/proxy_int.h"

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The limiter parameters the front builds its limiter from (front.c):
 * o's, with the classes, the ADMISSION bounds and the candidates. */
static qc_limiter_params limiter_of(const qc_proxy_params *o)
{
    qc_limiter_params lc = o->limiter;
    lc.classes = o->nclasses + 1;
    int adm = lc.algo == QC_LIMITER_ADMISSION;
    for (unsigned i = 0; i < QC_LIMITER_CLASSES_MAX; i++)
        lc.bound[i] = adm && i < o->nclasses ? o->class_bound[i] : 0;
    lc.adm_candidates = adm ? o->class_candidate : 0;
    return lc;
}

/* The first field that a running proxy cannot change and n changes, as a
 * message in err; 0 when there is none. */
static int fixed_fields(const qc_proxy_params *o, const qc_proxy_params *n, qc_err *err)
{
    const char *f = NULL;
    if (!same_str(o->listen, n->listen))
        f = "--listen";
    else if (!same_str(o->admin, n->admin))
        f = "--admin";
    else if (o->nbackends != n->nbackends)
        f = "--backend (their number)";
    else if (o->nclasses != n->nclasses)
        f = "--class (their number)";
    else if (o->control != n->control || (o->control && o->limiter.algo != n->limiter.algo))
        f = "--limiter";
    else if (o->queue != n->queue)
        f = "--queue";
    else if (o->queue_discipline != n->queue_discipline)
        f = "--queue-discipline";
    else if (o->queue_target != n->queue_target)
        f = "--queue-target";
    else if (o->interval != n->interval)
        f = "--interval";
    else if (o->sample_every != n->sample_every)
        f = "--sample-every";
    else if (o->sample_least != n->sample_least)
        f = "--sample-least";
    else if (memcmp(&o->fleet, &n->fleet, sizeof o->fleet) != 0)
        f = "the fleet (--route, --djsq-threshold, --idle-off, --min-on, --max-on, "
            "--initially-on)";
    else if (!same_str(o->series, n->series))
        f = "--series";
    else if (!same_str(o->access_log, n->access_log) ||
             o->access_log_format != n->access_log_format ||
             o->access_log_buffer != n->access_log_buffer)
        f = "--access-log, --access-log-format, --access-log-buffer";
    else if (!o->tls_cert != !n->tls_cert)
        f = "--tls-cert (TLS on or off; its files may change)";
    else if (!same_str(o->admin_token_file, n->admin_token_file) ||
             o->admin_no_token != n->admin_no_token)
        f = "--admin-token-file/--admin-no-token";
    else if (o->control && o->limiter.algo == QC_LIMITER_ADMISSION &&
             o->queue_timeout != n->queue_timeout)
        f = "--queue-timeout (under --limiter admission)";
    for (unsigned i = 0; !f && i < o->nbackends; i++)
        if (!same_str(o->backend[i], n->backend[i]))
            f = "--backend";
    for (unsigned i = 0; !f && i < o->nclasses; i++)
        if (!same_str(o->class_name[i], n->class_name[i]))
            f = "--class (a name)";
    if (f)
        return qc_err_set(err, QC_EINVAL,
                          "%s cannot change while the proxy runs (restart it for that)", f);
    return 0;
}

/* What each worker keeps of the configuration for itself: the classes'
 * and backends' names and bounds, and the configuration (copied: a
 * worker after the first has no admin port, series or port file). */
void qc__proxy_reload_local(proxy *P, const qc_proxy_params *n)
{
    for (unsigned i = 0; i < n->nclasses; i++) {
        P->cls[i].name = n->class_name[i];
        P->cls[i].bound = n->class_bound[i];
    }
    P->cls[n->nclasses].bound = n->queue_timeout;
    for (unsigned i = 0; i < n->nbackends; i++)
        P->backend[i].name = n->backend[i];
    P->o_copy = *n;
    if (P->index > 0) {
        P->o_copy.admin = NULL;
        P->o_copy.series = NULL;
        P->o_copy.port_file = NULL;
    }
    P->o = &P->o_copy;
}

int qc_proxy_reload(qc_proxy *P, const qc_proxy_params *n, qc_err *err)
{
    const qc_proxy_params *o = P->o;
    qc_proxy_group *g = P->g;
    if (g && g->n > 1) {
        /* the shared front is changed once, by the first worker, which
         * then hands the configuration to the others (their mailboxes);
         * a reload waits until the previous one reached every worker, so
         * that a configuration is no longer used once the next is taken */
        if (P->index != 0)
            return qc_err_set(err, QC_EINVAL, "a reload goes to the first worker");
        int busy = 0;
        pthread_mutex_lock(&g->mu);
        for (unsigned i = 1; i < g->n; i++)
            busy |= g->w[i].reload != NULL;
        pthread_mutex_unlock(&g->mu);
        if (busy)
            return qc_err_set(err, QC_EINVAL,
                              "the previous reload is still reaching the workers: try again");
    }
    int rc = qc_proxy_check(n, err);
    if (rc != 0)
        return rc;
    if ((rc = fixed_fields(o, n, err)) != 0)
        return rc;
    char token[sizeof P->token] = "";
    if (n->admin_token_file &&
        (rc = qc__proxy_read_token(n->admin_token_file, token, sizeof token, err)) != 0)
        return rc;
    /* the certificate read again (renewed in place, or new files) */
    qc__tls_ctx *tls = NULL;
    if (n->tls_cert && (rc = qc__tls_ctx_new(n->tls_cert, n->tls_key, &tls, err)) != 0)
        return rc;
    /* the one step that may still refuse: everything after it cannot */
    if (n->control) {
        qc_limiter_params lc = limiter_of(n);
        qc_front_lock(P->front); /* the other workers step the same limiter */
        rc = qc_limiter_reconfigure(P->lim, &lc, qc__now(), NULL, err);
        qc_front_unlock(P->front);
        if (rc != 0) {
            qc__tls_ctx_free(tls);
            qc_err_prefix(err, "--limiter");
            return rc;
        }
    }
    if (tls) /* for the connections that start from now on (the group's slot) */
        qc__tls_slot_set(P->tls, tls);
    int adm = n->control && n->limiter.algo == QC_LIMITER_ADMISSION;
    for (unsigned i = 0; i < n->nclasses; i++)
        if (!adm && n->class_bound[i] != o->class_bound[i])
            qc_front_set_deadline(P->front, i, n->class_bound[i], NULL);
    if (!adm && n->queue_timeout != o->queue_timeout)
        qc_front_set_deadline(P->front, n->nclasses, n->queue_timeout, NULL);
    if (n->admin_token_file)
        memcpy(P->token, token, sizeof token);
    qc__proxy_reload_local(P, n);
    if (g && g->n > 1) {
        pthread_mutex_lock(&g->mu);
        for (unsigned i = 1; i < g->n; i++)
            if (g->w[i].P && g->w[i].async) {
                g->w[i].reload = n;
                uv_async_send(g->w[i].async);
            }
        pthread_mutex_unlock(&g->mu);
    }
    return 0;
}

/* Asks the caller for its configuration anew and takes it or refuses it
 * (why: what asked, for the log line). 0, or the reason in err: the old
 * configuration then keeps running. */
int qc__proxy_reload_request(proxy *P, const char *why, qc_err *err)
{
    const qc_proxy_params *o = P->o, *n = NULL;
    int rc;
    if (!o->reload)
        rc = qc_err_set(err, QC_EINVAL, "no configuration to read again");
    else if ((rc = o->reload(o->reload_ctx, &n, err)) == 0 && n)
        rc = qc_proxy_reload(P, n, err);
    else if (rc == 0)
        rc = qc_err_set(err, QC_EINVAL, "the configuration read again is empty");
    if (o->reload && o->reload_done && n)
        o->reload_done(o->reload_ctx, n, rc == 0);
    if (rc != 0) {
        P->reload_failed++;
        snprintf(P->reload_error, sizeof P->reload_error, "%s", err ? err->msg : "refused");
        qc__proxy_plog(P, QC_LOG_ERROR, "%s: the new configuration was refused, the running one stays: %s", why,
                       P->reload_error);
        return rc;
    }
    P->reloads++;
    P->reload_error[0] = 0;
    qc_limiter_stats st;
    qc_limiter_get_stats(P->lim, &st);
    if (P->o->control)
        qc__proxy_plog(P, QC_LOG_INFO, "%s: configuration reloaded (%s limiter, limit %g)", why,
                       qc_limiter_algo_name(P->o->limiter.algo), st.limit);
    else
        qc__proxy_plog(P, QC_LOG_INFO, "%s: configuration reloaded (no limiter)", why);
    return 0;
}

int qc_proxy_reload_request(qc_proxy *P, const char *why, qc_err *err)
{
    if (P->draining)
        return qc_err_set(err, QC_EINVAL, "draining: no reload");
    return qc__proxy_reload_request(P, why, err);
}

const qc_proxy_params *qc_proxy_params_get(const qc_proxy *P)
{
    return P->o;
}
