/* SPDX-License-Identifier: GPL-3.0-or-later */
/* proxy_admin.c: the proxy's admin listener.
 *
 * GET / (the live page), /metrics (Prometheus text) and /status (JSON)
 * read the proxy's counters; POST /bound and POST /reference change the
 * controller's bounds and reference, behind the optional bearer token and
 * the read-only mode. Anything that changes state needs POST: a GET gets
 * 405, since any web page can make a browser on the host send one. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/random.h>
#include <unistd.h>

#include "live/proxy_int.h"
#include "qctl/output.h"

const double qc__proxy_lat_le[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                     0.25,  0.5,    1,     2.5,  5,     10};
_Static_assert(sizeof qc__proxy_lat_le / sizeof *qc__proxy_lat_le == LAT_BUCKETS,
               "a bound per bucket");

/* ---- metrics ------------------------------------------------------------ */

/* One metric family of whole numbers, a sample per item labelled with the
 * item's name: its HELP and TYPE lines, then for each item i < n the line
 * `metric{label="name"} value`, name and value expressions of i. Written
 * with OUT, which each function that uses it defines; PER_BACKEND and
 * PER_CLASS are the proxy's two kinds of item. */
#define FAMILY(metric, kind, help, label, n, name, value)                                          \
    do {                                                                                           \
        OUT("# HELP " metric " " help "\n# TYPE " metric " " kind "\n");                        \
        for (unsigned i = 0; i < (n); i++)                                                         \
            OUT(metric "{" label "=\"%s\"} %llu\n", (name), (unsigned long long)(value));        \
    } while (0)
#define PER_BACKEND(metric, kind, help, value)                                                     \
    FAMILY(metric, kind, help, "backend", P->nb, P->backend[i].name, value)
#define PER_CLASS(metric, kind, help, value)                                                       \
    FAMILY(metric, kind, help, "class", P->ncls, P->cls[i].name, value)
/* A family's HELP and TYPE lines. */
#define HEAD(metric, kind, help) OUT("# HELP " metric " " help "\n# TYPE " metric " " kind "\n")

/* The fleet's lines of /metrics: states, per-backend counts, unparks,
 * setups and the time spent in each state (server-seconds). */
static size_t fleet_metrics(proxy *P, char *buf, size_t size)
{
    const qc__fleet *f = &P->fleet;
    double now = qc__now(), tot[QC_FLEET_NSTATES] = {0};
    uint64_t unparks = 0, parks = 0;
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    HEAD("qctl_backends", "gauge", "Backends by power state.");
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
        OUT("qctl_backends{state=\"%s\"} %u\n", qc__fleet_state_name(s),
            qc__fleet_count(f, (qc__fleet_state)s));
    PER_BACKEND("qctl_backend_inflight", "gauge", "Requests in flight at a backend.",
                f->b[i].inflight);
    PER_BACKEND("qctl_backend_waiting", "gauge", "Requests waiting for a backend's setup.",
                f->b[i].waiting);
    PER_BACKEND("qctl_backend_answered_total", "counter", "Requests a backend answered.",
                f->b[i].answered);
    PER_BACKEND("qctl_backend_failed_total", "counter", "Requests a backend failed.",
                f->b[i].failed);
    HEAD("qctl_backend_state", "gauge", "1 for a backend's power state, 0 for the others.");
    for (unsigned i = 0; i < P->nb; i++)
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
            OUT("qctl_backend_state{backend=\"%s\",state=\"%s\"} %d\n", P->backend[i].name,
                qc__fleet_state_name(s), f->b[i].state == s);
    HEAD("qctl_backend_seconds_total", "counter", "Seconds a backend spent in each power state.");
    for (unsigned i = 0; i < P->nb; i++) {
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(f, i, now, t);
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++) {
            OUT("qctl_backend_seconds_total{backend=\"%s\",state=\"%s\"} %.3f\n",
                P->backend[i].name, qc__fleet_state_name(s), t[s]);
            tot[s] += t[s];
        }
        unparks += f->b[i].unparks;
        parks += f->b[i].parks;
    }
    HEAD("qctl_fleet_seconds_total", "counter",
         "Server-seconds of the fleet in each power state.");
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
        OUT("qctl_fleet_seconds_total{state=\"%s\"} %.3f\n", qc__fleet_state_name(s), tot[s]);
    OUT("# HELP qctl_unparks_total Backends switched on.\n"
        "# TYPE qctl_unparks_total counter\nqctl_unparks_total %llu\n"
        "# HELP qctl_parks_total Backends switched off.\n"
        "# TYPE qctl_parks_total counter\nqctl_parks_total %llu\n",
        (unsigned long long)unparks, (unsigned long long)parks);
    OUT("# HELP qctl_fleet_failures_total Un/park commands that failed.\n"
        "# TYPE qctl_fleet_failures_total counter\nqctl_fleet_failures_total{kind=\"unpark\"} "
        "%llu\nqctl_fleet_failures_total{kind=\"park\"} %llu\n"
        "# HELP qctl_setup_refused_total Requests refused when a backend's setup took too long.\n"
        "# TYPE qctl_setup_refused_total counter\nqctl_setup_refused_total %llu\n",
        (unsigned long long)P->unpark_failures, (unsigned long long)P->park_failures,
        (unsigned long long)P->setup_timeouts);
    HEAD("qctl_setup_seconds", "histogram", "Time from an unpark to the backend's health.");
    for (unsigned k = 0; k < QC_FLEET_SETUP_BUCKETS; k++) {
        if (isinf(qc__fleet_setup_le[k]))
            OUT("qctl_setup_seconds_bucket{le=\"+Inf\"} %llu\n",
                (unsigned long long)f->setup_bucket[k]);
        else
            OUT("qctl_setup_seconds_bucket{le=\"%g\"} %llu\n", qc__fleet_setup_le[k],
                (unsigned long long)f->setup_bucket[k]);
    }
    OUT("qctl_setup_seconds_sum %g\nqctl_setup_seconds_count %llu\n", f->setup_sum,
        (unsigned long long)f->setups);
#undef OUT
    return n;
}

/* The fleet in /status: its rule, counts and time totals. */
static json_t *fleet_json(proxy *P)
{
    const qc__fleet *f = &P->fleet;
    double now = qc__now(), tot[QC_FLEET_NSTATES] = {0};
    uint64_t unparks = 0, parks = 0;
    for (unsigned i = 0; i < P->nb; i++) {
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(f, i, now, t);
        for (unsigned s = 0; s < QC_FLEET_NSTATES; s++)
            tot[s] += t[s];
        unparks += f->b[i].unparks;
        parks += f->b[i].parks;
    }
    json_t *o = json_object();
    json_object_set_new(o, "route", json_string(f->cfg.route == QC_FLEET_DJSQ ? "djsq" : "jsq"));
    json_object_set_new(o, "threshold", json_integer(f->cfg.threshold));
    json_object_set_new(o, "idle_off", qc_json_real_new(f->cfg.idle_off));
    json_object_set_new(o, "min_on", json_integer(f->cfg.min_on));
    json_object_set_new(o, "max_on", json_integer(f->cfg.max_on));
    json_t *cnt = json_object(), *sec = json_object();
    for (unsigned s = 0; s < QC_FLEET_NSTATES; s++) {
        json_object_set_new(cnt, qc__fleet_state_name(s),
                            json_integer(qc__fleet_count(f, (qc__fleet_state)s)));
        json_object_set_new(sec, qc__fleet_state_name(s), json_real(tot[s]));
    }
    json_object_set_new(o, "backends", cnt);
    json_object_set_new(o, "seconds", sec);
    double powered = tot[QC_FLEET_ON] + tot[QC_FLEET_SETUP] + tot[QC_FLEET_PARKING];
    json_object_set_new(o, "powered_seconds", json_real(powered));
    json_object_set_new(o, "unparks", json_integer((json_int_t)unparks));
    json_object_set_new(o, "parks", json_integer((json_int_t)parks));
    json_object_set_new(o, "unpark_failures", json_integer((json_int_t)P->unpark_failures));
    json_object_set_new(o, "park_failures", json_integer((json_int_t)P->park_failures));
    json_object_set_new(o, "setup_refused", json_integer((json_int_t)P->setup_timeouts));
    json_object_set_new(o, "setups", json_integer((json_int_t)f->setups));
    json_object_set_new(o, "setup_mean",
                        f->setups ? json_real(f->setup_sum / (double)f->setups) : json_null());
    json_object_set_new(o, "setup_max", f->setups ? json_real(f->setup_max) : json_null());
    return o;
}

static size_t metrics_text(proxy *P, char *buf, size_t size)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(P->lim, &st);
    size_t n = 0;
#define OUT(...) n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__)
    HEAD("qctl_limit", "gauge", "Concurrency limit the controller set (+Inf: no limiter).");
    if (P->o->control && isfinite(st.limit))
        OUT("qctl_limit %g\n", st.limit);
    else
        OUT("qctl_limit +Inf\n");
    HEAD("qctl_inflight", "gauge", "Requests admitted and not yet answered.");
    OUT("qctl_inflight %u\n", P->inflight);
    HEAD("qctl_queue", "gauge", "Requests waiting for a slot.");
    OUT("qctl_queue %u\n", P->qlen);
    PER_CLASS("qctl_admitted_total", "counter", "Requests admitted, by class.", P->cls[i].admitted);
    PER_CLASS("qctl_refused_total", "counter", "Requests refused with 503, by class.",
              P->cls[i].refused);
    HEAD("qctl_refused_reason_total", "counter",
         "Requests refused with 503, by reason: the admission front's, or no-backend.");
    for (unsigned r = 1; r <= REFUSED_NO_BACKEND; r++)
        OUT("qctl_refused_reason_total{reason=\"%s\"} %llu\n",
            r < REFUSED_NO_BACKEND ? qc_front_reason_name((qc_front_reason)r) : "no-backend",
            (unsigned long long)P->refused_why[r]);
    PER_CLASS("qctl_answered_total", "counter", "Requests answered by a backend, by class.",
              P->cls[i].answered);
    OUT("# HELP qctl_latency_seconds Time from a request read to its answer's end.\n"
        "# TYPE qctl_latency_seconds histogram\n");
    for (unsigned i = 0; i < P->ncls; i++) {
        const pclass *k = &P->cls[i];
        uint64_t cum = 0;
        for (unsigned b = 0; b <= LAT_BUCKETS; b++) {
            cum += k->lat_bucket[b];
            if (b < LAT_BUCKETS)
                OUT("qctl_latency_seconds_bucket{class=\"%s\",le=\"%g\"} %llu\n", k->name,
                    qc__proxy_lat_le[b], (unsigned long long)cum);
            else
                OUT("qctl_latency_seconds_bucket{class=\"%s\",le=\"+Inf\"} %llu\n", k->name,
                    (unsigned long long)cum);
        }
        OUT("qctl_latency_seconds_sum{class=\"%s\"} %.9g\n", k->name, (double)k->lat_sum);
        OUT("qctl_latency_seconds_count{class=\"%s\"} %llu\n", k->name, (unsigned long long)cum);
    }
    if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
        OUT("# HELP qctl_class_weight Scheduling weight of a class (admission control).\n"
            "# TYPE qctl_class_weight gauge\n");
        for (unsigned i = 0; i < P->ncls; i++)
            OUT("qctl_class_weight{class=\"%s\"} %g\n", P->cls[i].name, st.class_weight[i]);
        HEAD("qctl_class_bound_seconds", "gauge", "Bound on a class's mean delay.");
        for (unsigned i = 0; i + 1 < P->ncls; i++)
            OUT("qctl_class_bound_seconds{class=\"%s\"} %g\n", P->cls[i].name,
                st.class_bound[i]);
        HEAD("qctl_class_delay_seconds", "gauge",
             "A class's mean delay measured (none before its first sample).");
        for (unsigned i = 0; i < P->ncls; i++)
            if (!isnan(st.class_delay[i]))
                OUT("qctl_class_delay_seconds{class=\"%s\"} %g\n", P->cls[i].name,
                    st.class_delay[i]);
        HEAD("qctl_class_state", "gauge", "1 for a class's admission state, 0 for the others.");
        for (unsigned i = 0; i + 1 < P->ncls; i++)
            for (int s = 0; s < 3; s++)
                OUT("qctl_class_state{class=\"%s\",state=\"%s\"} %d\n", P->cls[i].name,
                    qc_adm_state_name((qc_adm_state)s), st.class_state[i] == s);
        HEAD("qctl_busy_cycles_total", "counter", "Busy cycles the admission controller saw.");
        OUT("qctl_busy_cycles_total %llu\n",
            (unsigned long long)st.busy_cycles);
    }
    n += fleet_metrics(P, buf + (n < size ? n : size), n < size ? size - n : 0);
    OUT("# HELP qctl_retries_total Requests sent again after a backend failed.\n"
        "# TYPE qctl_retries_total counter\nqctl_retries_total %llu\n"
        "# HELP qctl_retries_denied_total Retries the retry budget denied.\n"
        "# TYPE qctl_retries_denied_total counter\nqctl_retries_denied_total %llu\n",
        (unsigned long long)P->retries, (unsigned long long)P->retries_denied);
    OUT("# HELP qctl_connections Client connections open.\n"
        "# TYPE qctl_connections gauge\nqctl_connections %u\n"
        "# HELP qctl_buffered_bytes Bytes of client requests buffered (--max-memory).\n"
        "# TYPE qctl_buffered_bytes gauge\nqctl_buffered_bytes %zu\n"
        "# HELP qctl_refused_connections_total Clients answered 503 and closed by a bound.\n"
        "# TYPE qctl_refused_connections_total counter\n"
        "qctl_refused_connections_total{why=\"max-connections\"} %llu\n"
        "qctl_refused_connections_total{why=\"max-memory\"} %llu\n"
        "# HELP qctl_too_large_total Requests answered 413 (--max-body).\n"
        "# TYPE qctl_too_large_total counter\nqctl_too_large_total %llu\n"
        "# HELP qctl_queue_standing 1 while the queue stands (CoDel).\n"
        "# TYPE qctl_queue_standing gauge\nqctl_queue_standing %d\n"
        "# HELP qctl_queue_shed_total Requests refused by the short deadline of a standing "
        "queue.\n# TYPE qctl_queue_shed_total counter\nqctl_queue_shed_total %llu\n",
        atomic_load(P->nclients), atomic_load(P->mem), (unsigned long long)P->refused_conns,
        (unsigned long long)P->refused_mem, (unsigned long long)P->too_large, qc__proxy_standing(P),
        (unsigned long long)P->q_shed);
    PER_BACKEND("qctl_backend_out", "gauge", "1 while a backend is out of rotation.",
                P->backend[i].out);
    OUT("# HELP qctl_errors_total Requests answered 400 by the proxy, 502 or 504.\n"
        "# TYPE qctl_errors_total counter\nqctl_errors_total{kind=\"400\"} %llu\n"
        "qctl_errors_total{kind=\"502\"} %llu\nqctl_errors_total{kind=\"504\"} "
        "%llu\n",
        (unsigned long long)P->bad_requests, (unsigned long long)P->errors502,
        (unsigned long long)P->errors504);
    HEAD("qctl_admin_refused_total", "counter",
         "Admin requests refused: from a browser (403) or without the token (401).");
    OUT("qctl_admin_refused_total{why=\"browser\"} %llu\n"
        "qctl_admin_refused_total{why=\"token\"} %llu\n",
        (unsigned long long)P->admin_browser, (unsigned long long)P->admin_token);
    HEAD("qctl_reloads_total", "counter",
         "Configuration reloads (SIGHUP, POST /reload), taken or refused.");
    OUT("qctl_reloads_total{result=\"taken\"} %llu\nqctl_reloads_total{result=\"refused\"} %llu\n",
        (unsigned long long)P->reloads, (unsigned long long)P->reload_failed);
    HEAD("qctl_access_log_lines_total", "counter",
         "Access log lines: written, or dropped while the file was too slow.");
    OUT("qctl_access_log_lines_total{result=\"written\"} %llu\n"
        "qctl_access_log_lines_total{result=\"dropped\"} %llu\n",
        (unsigned long long)P->alog.lines, (unsigned long long)P->alog.dropped);
    if (P->tls) { /* TLS on the listening side */
        HEAD("qctl_tls_handshakes_total", "counter",
             "TLS handshakes of clients: done, failed (no TLS this proxy accepts), or not "
             "done within --tls-handshake-timeout.");
        OUT("qctl_tls_handshakes_total{result=\"done\"} %llu\n"
            "qctl_tls_handshakes_total{result=\"failed\"} %llu\n"
            "qctl_tls_handshakes_total{result=\"timeout\"} %llu\n",
            (unsigned long long)P->tls_ok, (unsigned long long)P->tls_failed,
            (unsigned long long)P->tls_timeouts);
    }
    n += qc__process_metrics(buf + (n < size ? n : size), n < size ? size - n : 0);
#undef OUT
    return n < size ? n : size - 1;
}

/* The whole group's view for /metrics and /status: a copy of P (the lead)
 * with the other workers' counters added (read while they run: counters
 * each written by its own thread, atomics read here as they stand: see
 * qc__ctr64 in proxy_int.h), or P itself
 * when it is alone. The limit, the front and the fleet are the lead's. */
static proxy *group_view(proxy *P)
{
    if (!P->g || P->g->n < 2)
        return P;
    proxy *S = malloc(sizeof *S);
    if (!S)
        return P;
    memcpy(S, P, sizeof *S);
    pthread_mutex_lock(&P->g->mu);
    for (unsigned w = 0; w < P->g->n; w++) {
        const proxy *W = P->g->w[w].P;
        if (!W || W == P)
            continue;
        S->inflight += W->inflight;
        S->qlen += W->qlen;
        for (unsigned i = 0; i < S->ncls; i++) {
            pclass *k = &S->cls[i];
            const pclass *wk = &W->cls[i];
            k->admitted += wk->admitted;
            k->refused += wk->refused;
            k->answered += wk->answered;
            k->qlen += wk->qlen;
            atomic_store_explicit(&k->lat_sum,
                                  atomic_load_explicit(&k->lat_sum, memory_order_relaxed) +
                                      atomic_load_explicit(&wk->lat_sum, memory_order_relaxed),
                                  memory_order_relaxed);
            for (unsigned b = 0; b <= LAT_BUCKETS; b++)
                k->lat_bucket[b] += wk->lat_bucket[b];
        }
        S->bad_requests += W->bad_requests;
        S->errors502 += W->errors502;
        S->errors504 += W->errors504;
        S->conns += W->conns;
        S->retries += W->retries;
        S->retries_denied += W->retries_denied;
        S->q_shed += W->q_shed;
        for (unsigned r = 0; r <= REFUSED_NO_BACKEND; r++)
            S->refused_why[r] += W->refused_why[r];
        S->refused_conns += W->refused_conns;
        S->refused_mem += W->refused_mem;
        S->too_large += W->too_large;
        S->admin_browser += W->admin_browser;
        S->admin_token += W->admin_token;
        /* each worker's access log (its own buffers), TLS handshakes */
        S->alog.lines += W->alog.lines;
        S->alog.dropped += W->alog.dropped;
        S->tls_ok += W->tls_ok;
        S->tls_failed += W->tls_failed;
        S->tls_timeouts += W->tls_timeouts;
    }
    pthread_mutex_unlock(&P->g->mu);
    return S;
}

static void group_view_free(proxy *P, proxy *S)
{
    if (S != P)
        free(S);
}

size_t qc_proxy_metrics(proxy *P, char *buf, size_t size)
{
    proxy *S = group_view(P);
    size_t n = metrics_text(S, buf, size);
    group_view_free(P, S);
    return n;
}

static char *status_json(proxy *P)
{
    qc_limiter_stats st;
    qc_limiter_get_stats(P->lim, &st);
    json_t *root = json_object();
    json_object_set_new(
        root, "controller",
        json_string(P->o->control ? qc_limiter_algo_name(P->o->limiter.algo) : "none"));
    json_object_set_new(root, "limit", P->o->control ? qc_json_real_new(st.limit) : json_null());
    if (P->o->control && P->o->limiter.algo == QC_LIMITER_MAXUSERS)
        json_object_set_new(root, "reference", qc_json_real_new(st.reference));
    json_object_set_new(root, "knee", qc_json_real_new(st.knee));
    json_object_set_new(root, "noload", qc_json_real_new(st.noload));
    json_object_set_new(root, "queue_target", qc_json_real_new(qc__proxy_queue_target(P)));
    json_object_set_new(root, "queue_standing", json_boolean(qc__proxy_standing(P)));
    json_object_set_new(root, "inflight", json_integer(P->inflight));
    json_object_set_new(root, "queue", json_integer(P->qlen));
    json_object_set_new(root, "draining", json_boolean(P->draining));
    json_object_set_new(root, "uptime", json_real(qc__now() - P->t0));
    json_object_set_new(root, "retries", json_integer((json_int_t)P->retries));
    json_object_set_new(root, "retries_denied", json_integer((json_int_t)P->retries_denied));
    json_object_set_new(root, "errors502", json_integer((json_int_t)P->errors502));
    json_object_set_new(root, "errors504", json_integer((json_int_t)P->errors504));
    json_object_set_new(root, "reloads", json_integer((json_int_t)P->reloads));
    json_object_set_new(root, "reloads_refused", json_integer((json_int_t)P->reload_failed));
    if (P->reload_error[0])
        json_object_set_new(root, "reload_error", json_string(P->reload_error));
    json_t *cl = json_array();
    qc_front_stats fst;
    qc_front_get_stats(P->front, &fst);
    for (unsigned i = 0; i < P->ncls; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(P->cls[i].name));
        json_object_set_new(o, "bound", qc_json_real_new(P->cls[i].bound));
        json_object_set_new(o, "admitted", json_integer((json_int_t)P->cls[i].admitted));
        json_object_set_new(o, "refused", json_integer((json_int_t)P->cls[i].refused));
        json_object_set_new(o, "answered", json_integer((json_int_t)P->cls[i].answered));
        json_object_set_new(o, "p95", qc_json_real_new(qc_hist_quantile(P->cls[i].lat, 0.95)));
        json_object_set_new(o, "waiting", json_integer(P->cls[i].qlen));
        if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
            int s = st.class_state[i];
            json_object_set_new(o, "state",
                                json_string(s < 0 ? "best-effort"
                                                  : qc_adm_state_name((qc_adm_state)s)));
            json_object_set_new(o, "delay_bound", qc_json_real_new(s < 0 ? NAN : st.class_bound[i]));
            json_object_set_new(o, "weight", qc_json_real_new(st.class_weight[i]));
            json_object_set_new(o, "mean_delay", qc_json_real_new(st.class_delay[i]));
            json_object_set_new(o, "samples", json_integer((json_int_t)st.class_samples[i]));
            /* the front's waiting room for this class (qctl/front.h) */
            json_object_set_new(o, "wait_target", qc_json_real_new(fst.class_target[i]));
            json_object_set_new(o, "late", qc_json_real_new(fst.class_late[i]));
            json_object_set_new(o, "late_refused", qc_json_real_new(fst.class_late_refused[i]));
        }
        json_array_append_new(cl, o);
    }
    json_object_set_new(root, "classes", cl);
    json_t *bk = json_array();
    for (unsigned i = 0; i < P->nb; i++) {
        const qc__fleet_backend *fb = &P->fleet.b[i];
        json_t *o = json_object();
        json_object_set_new(o, "address", json_string(P->backend[i].name));
        json_object_set_new(o, "state", json_string(qc__fleet_state_name(fb->state)));
        json_object_set_new(o, "inflight", json_integer(fb->inflight));
        json_object_set_new(o, "waiting", json_integer(fb->waiting));
        json_object_set_new(o, "answered", json_integer((json_int_t)fb->answered));
        json_object_set_new(o, "failed", json_integer((json_int_t)fb->failed));
        json_object_set_new(o, "unparks", json_integer((json_int_t)fb->unparks));
        json_object_set_new(o, "out", json_boolean(P->backend[i].out));
        json_object_set_new(o, "ejections", json_integer((json_int_t)P->backend[i].ejections));
        double t[QC_FLEET_NSTATES];
        qc__fleet_times(&P->fleet, i, qc__now(), t);
        json_t *sec = json_object();
        for (unsigned k = 0; k < QC_FLEET_NSTATES; k++)
            json_object_set_new(sec, qc__fleet_state_name(k), json_real(t[k]));
        json_object_set_new(o, "seconds", sec);
        json_array_append_new(bk, o);
    }
    json_object_set_new(root, "backends", bk);
    json_object_set_new(root, "fleet", fleet_json(P));
    char *s = json_dumps(root, JSON_INDENT(2));
    json_decref(root);
    return s;
}

/* target[skip..tlen) (skip < tlen) as a string in q, cut to size - 1
 * bytes. */
static void copy_tail(char *q, size_t size, const char *target, size_t tlen, size_t skip)
{
    size_t n = tlen - skip < size - 1 ? tlen - skip : size - 1;
    memcpy(q, target + skip, n);
    q[n] = 0;
}

/* POST /bound?class=NAME&value=D: a class's bound from the next control
 * interval on (the admission limiter's delay bound, else the class's
 * wait deadline for requests queued from now on). */
static void admin_bound(cconn *c, const char *q)
{
    proxy *P = c->P;
    char name[128] = "", msg[256];
    double v = NAN;
    const char *cp = strstr(q, "class="), *vp = strstr(q, "value=");
    if (cp && (cp == q || cp[-1] == '&')) {
        size_t n = strcspn(cp + 6, "&");
        if (n < sizeof name) {
            memcpy(name, cp + 6, n);
            name[n] = 0;
        }
    }
    if (vp && (vp == q || vp[-1] == '&')) {
        char num[32], *end;
        size_t n = strcspn(vp + 6, "&");
        if (n > 0 && n < sizeof num) {
            memcpy(num, vp + 6, n);
            num[n] = 0;
            v = strtod(num, &end);
            if (*end)
                v = NAN;
        }
    }
    if (!name[0] || !(v > 0) || !isfinite(v)) {
        int k = snprintf(msg, sizeof msg, "bad request: want class=NAME&value=SECONDS (> 0)\n");
        qc__proxy_client_reply(c, 400, "Bad Request", NULL, "text/plain", msg, (size_t)k);
        return;
    }
    unsigned i = 0;
    while (i + 1 < P->ncls && strcmp(P->cls[i].name, name) != 0)
        i++;
    if (i + 1 >= P->ncls) {
        int k = snprintf(msg, sizeof msg, "no bounded class '%s'\n", name);
        qc__proxy_client_reply(c, 404, "Not Found", NULL, "text/plain", msg, (size_t)k);
        return;
    }
    if (P->o->control && P->o->limiter.algo == QC_LIMITER_ADMISSION) {
        qc_err err = {0};
        if (qc_limiter_set_bound(P->lim, i, v, &err) != 0) {
            int k = snprintf(msg, sizeof msg, "%s\n", err.msg);
            qc__proxy_client_reply(c, 400, "Bad Request", NULL, "text/plain", msg, (size_t)k);
            return;
        }
    }
    qc_front_set_deadline(P->front, i, v, NULL);
    P->cls[i].bound = v;
    int k = snprintf(msg, sizeof msg, "%s %g\n", name, v);
    qc__proxy_client_reply(c, 200, "OK", NULL, "text/plain", msg, (size_t)k);
}

/* GET /healthz: the process answers (alive). GET /readyz: it takes
 * requests: its listener is open (not draining) and at least one backend
 * is on and in rotation; 503 otherwise, saying which. */
static int health_request(cconn *c, const char *target, size_t tlen)
{
    proxy *P = c->P;
    if (tlen == 8 && memcmp(target, "/healthz", 8) == 0) {
        qc__proxy_client_reply(c, 200, "OK", "Cache-Control: no-store\r\n", "text/plain", "ok\n",
                               3);
        return 1;
    }
    if (!(tlen == 7 && memcmp(target, "/readyz", 7) == 0))
        return 0;
    unsigned in = 0;
    for (unsigned i = 0; i < P->nb; i++)
        in += qc__proxy_backend_is_on(&P->backend[i]) && !P->backend[i].out;
    char msg[128];
    int k;
    if (P->draining)
        k = snprintf(msg, sizeof msg, "not ready: draining\n");
    else if (in == 0)
        k = snprintf(msg, sizeof msg, "not ready: no backend in rotation (of %u)\n", P->nb);
    else
        k = snprintf(msg, sizeof msg, "ready: %u of %u backends in rotation\n", in, P->nb);
    int ok = !P->draining && in > 0;
    qc__proxy_client_reply(c, ok ? 200 : 503, ok ? "OK" : "Service Unavailable",
                           "Cache-Control: no-store\r\n", "text/plain", msg, (size_t)k);
    return 1;
}

/* Answers an admin request. Reads are GET (or HEAD); a change of state
 * (/bound, /reference) only by POST, else 405: a GET can be made by any
 * web page a browser on the host opens, or replayed by a cache. A change
 * is then refused under --admin-read-only (403), when the request comes
 * from a browser (403, see qc__proxy_admin_browser; browser is its
 * reason, or NULL) and without the token (401). authorized: the request
 * carried the token (or none is needed). */
void qc__proxy_admin_request(cconn *c, const char *target, size_t tlen, int post, int authorized,
                             const char *browser)
{
    proxy *P = c->P;
    int change = (tlen > 7 && memcmp(target, "/bound?", 7) == 0) ||
                 (tlen > 11 && memcmp(target, "/reference?", 11) == 0) ||
                 (tlen == 7 && memcmp(target, "/reload", 7) == 0);
    if (change && !post) {
        static const char body[] = "method not allowed: use POST to change state\n";
        qc__proxy_client_reply(c, 405, "Method Not Allowed", "Allow: POST\r\n", "text/plain", body,
                               sizeof body - 1);
        return;
    }
    if (change && P->o->admin_read_only) {
        static const char body[] = "forbidden: the admin port is read-only\n";
        qc__proxy_client_reply(c, 403, "Forbidden", NULL, "text/plain", body, sizeof body - 1);
        return;
    }
    if (change && browser) {
        char body[160];
        int k = snprintf(body, sizeof body, "forbidden: %s; state changes are not taken from "
                                            "browsers\n", browser);
        P->admin_browser++;
        qc__proxy_client_reply(c, 403, "Forbidden", NULL, "text/plain", body, (size_t)k);
        return;
    }
    if (change && !authorized) {
        static const char body[] = "unauthorized: Authorization: Bearer TOKEN required\n";
        P->admin_token++;
        qc__proxy_client_reply(c, 401, "Unauthorized", "WWW-Authenticate: Bearer\r\n", "text/plain", body,
                               sizeof body - 1);
        return;
    }
    if (!change && health_request(c, target, tlen))
        return;
    if (tlen > 7 && memcmp(target, "/bound?", 7) == 0) {
        char q[256];
        copy_tail(q, sizeof q, target, tlen, 7);
        admin_bound(c, q);
        return;
    }
    if (tlen == 7 && memcmp(target, "/reload", 7) == 0) { /* proxy_reload.c */
        qc_err err = {0};
        char msg[320];
        int k;
        if (qc__proxy_reload_request(P, "POST /reload", &err) == 0) {
            k = snprintf(msg, sizeof msg, "reloaded\n");
            qc__proxy_client_reply(c, 200, "OK", NULL, "text/plain", msg, (size_t)k);
        } else {
            k = snprintf(msg, sizeof msg, "refused, the running configuration stays: %s\n",
                         err.msg);
            qc__proxy_client_reply(c, 400, "Bad Request", NULL, "text/plain", msg,
                                   k < (int)sizeof msg ? (size_t)k : sizeof msg - 1);
        }
        return;
    }
    const char *page;
    size_t plen;
    if ((page = qc__admin_page(target, tlen, &plen)) != NULL) { /* GET /: page.c */
        qc__proxy_client_reply(c, 200, "OK", QC_ADMIN_PAGE_HEADERS, "text/html; charset=utf-8", page, plen);
        return;
    }
    if (tlen == 8 && memcmp(target, "/metrics", 8) == 0) {
        char *buf = malloc(1 << 18); /* 64 backends' and 9 classes' lines fit */
        if (!buf) {
            qc__proxy_client_close(c);
            return;
        }
        size_t n = qc_proxy_metrics(P, buf, 1 << 18);
        qc__proxy_client_reply(c, 200, "OK", NULL, "text/plain; version=0.0.4", buf, n);
        free(buf);
        return;
    }
    if (tlen == 7 && memcmp(target, "/status", 7) == 0) {
        proxy *S = group_view(P);
        char *s = status_json(S);
        group_view_free(P, S);
        qc__proxy_client_reply(c, 200, "OK", NULL, "application/json", s ? s : "{}", s ? strlen(s) : 2);
        free(s);
        return;
    }
    if (tlen > 17 && memcmp(target, "/reference?value=", 17) == 0) {
        char num[32];
        copy_tail(num, sizeof num, target, tlen, 17);
        char *end;
        double r = strtod(num, &end);
        if (*end == 0 && r > 0 && isfinite(r)) {
            qc_limiter_set_reference(P->lim, r);
            char msg[64];
            int k = snprintf(msg, sizeof msg, "reference %g\n", r);
            qc__proxy_client_reply(c, 200, "OK", NULL, "text/plain", msg, (size_t)k);
            return;
        }
        qc__proxy_client_reply(c, 400, "Bad Request", NULL, "text/plain",
                               "bad value: want /reference?value=R (> 0)\n", 41);
        return;
    }
    qc__proxy_client_reply(c, 404, "Not Found", NULL, "text/plain", "not found\n", 10);
}

/* Why a request to the admin port comes from a web browser, or NULL:
 * a page any site serves can make the browser on the host POST to a
 * loopback port. Browsers mark what they send: Sec-Fetch-Site other than
 * same-origin or none (a typed address), an Origin that is not the admin
 * port's own (the Host it was sent to), and a body of a type a page may
 * POST without asking first (a CORS "simple" type: text/plain, a form).
 * A client that is not a browser (curl, a script) sends none of these. */
const char *qc__proxy_admin_browser(const char *buf, const qc__http_head *h)
{
    size_t n, hn = 0;
    const char *v = qc__http_header(buf, h, "Sec-Fetch-Site", &n);
    if (v && !(n == 11 && strncasecmp(v, "same-origin", 11) == 0) &&
        !(n == 4 && strncasecmp(v, "none", 4) == 0))
        return "Sec-Fetch-Site is not same-origin";
    v = qc__http_header(buf, h, "Origin", &n);
    const char *host = qc__http_header(buf, h, "Host", &hn);
    if (v) {
        const char *sep = n > 3 ? memchr(v, ':', n) : NULL; /* scheme://authority */
        if (!sep || n - (size_t)(sep - v) < 3 || memcmp(sep, "://", 3) != 0 || !host ||
            n - (size_t)(sep + 3 - v) != hn || strncasecmp(sep + 3, host, hn) != 0)
            return "Origin is another site";
    }
    v = qc__http_header(buf, h, "Content-Type", &n);
    if (v) {
        size_t t = 0;
        while (t < n && v[t] != ';' && v[t] != ' ')
            t++;
        static const char *const simple[] = {"text/plain", "application/x-www-form-urlencoded",
                                             "multipart/form-data"};
        for (size_t i = 0; i < sizeof simple / sizeof *simple; i++)
            if (strlen(simple[i]) == t && strncasecmp(v, simple[i], t) == 0)
                return "a form or text/plain body, as a web page may send";
    }
    return NULL;
}

/* 1 when no admin token is set, or the request carries it as
 * "Authorization: Bearer TOKEN" (compared in constant time). */
int qc__proxy_admin_authorized(const proxy *P, const char *buf, const qc__http_head *h)
{
    if (!P->token[0])
        return 1;
    size_t n;
    const char *v = qc__http_header(buf, h, "Authorization", &n);
    size_t tn = strlen(P->token);
    if (!v || n != 7 + tn || strncasecmp(v, "Bearer ", 7) != 0)
        return 0;
    unsigned char d = 0;
    for (size_t i = 0; i < tn; i++)
        d |= (unsigned char)(v[7 + i] ^ P->token[i]);
    return d == 0;
}

void qc__proxy_on_admin_connection(uv_stream_t *server, int status)
{
    qc__proxy_accept_client(server, status, 1);
}

/* Reads --admin-token-file: its first line, the token (printable ASCII,
 * 16 to 255 characters). */
int qc__proxy_read_token(const char *path, char *out, size_t size, qc_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return qc_err_set(err, QC_EIO, "--admin-token-file: %s: cannot read", path);
    char line[512];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = ok ? strcspn(line, "\r\n") : 0;
    line[n] = 0;
    if (n < 16 || n >= size)
        return qc_err_set(err, QC_EINVAL,
                          "--admin-token-file: %s:1: the token must be 16 to %zu characters", path,
                          size - 1);
    for (size_t i = 0; i < n; i++)
        if (line[i] <= 0x20 || line[i] >= 0x7f)
            return qc_err_set(err, QC_EINVAL,
                              "--admin-token-file: %s:1: a space or control character in the token",
                              path);
    memcpy(out, line, n + 1);
    return 0;
}

/* The admin token when --admin-token-file gives none: 128 random bits
 * (getrandom) as 32 hex digits, written to a file only its owner reads
 * (O_EXCL on a temporary name, then renamed), so that the programs of
 * the user who started the proxy can read it and a web page cannot. */
int qc__proxy_admin_token_start(proxy *P, qc_err *err)
{
    const qc_proxy_params *o = P->o;
    if (!P->admin_on || o->admin_token_file || o->admin_no_token || o->admin_read_only)
        return 0;
    unsigned char r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t k = getrandom(r + got, sizeof r - got, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return qc_err_set(err, QC_EIO, "admin token: no random bytes: %s", strerror(errno));
        got += (size_t)k;
    }
    for (size_t i = 0; i < sizeof r; i++)
        snprintf(P->token + 2 * i, 3, "%02x", r[i]);
    const char *rt = getenv("RUNTIME_DIRECTORY"), *xdg = getenv("XDG_RUNTIME_DIR");
    char *path = P->token_out;
    size_t size = sizeof P->token_out;
    if (o->admin_token_out) {
        snprintf(path, size, "%s", o->admin_token_out);
    } else if (rt && *rt) {
        size_t n = strcspn(rt, ":"); /* systemd lists one directory per RuntimeDirectory= */
        snprintf(path, size, "%.*s/admin-token", (int)n, rt);
    } else {
        struct sockaddr_storage ss;
        int len = sizeof ss;
        uv_tcp_getsockname(&P->admin, (struct sockaddr *)&ss, &len);
        snprintf(path, size, "%s/qctl-admin-%d.token", xdg && *xdg ? xdg : "/tmp",
                 qc__addr_port(&ss));
    }
    char tmp[4096 + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        int e = errno;
        qc_err_set(err, QC_EIO, "--admin-token-out: %s: cannot write: %s", path, strerror(e));
        path[0] = 0;
        return QC_EIO;
    }
    char line[40];
    int n = snprintf(line, sizeof line, "%s\n", P->token);
    int bad = write(fd, line, (size_t)n) != n;
    bad |= close(fd) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        qc_err_set(err, QC_EIO, "--admin-token-out: %s: cannot write: %s", path, strerror(e));
        path[0] = 0;
        return QC_EIO;
    }
    qc__proxy_plog(P, QC_LOG_INFO, "admin token in %s (state changes need \"Authorization: Bearer TOKEN\")",
                   path);
    return 0;
}

/* Removes the token file written at start: the token dies with the proxy. */
void qc__proxy_admin_token_end(proxy *P)
{
    if (P->token_out[0])
        unlink(P->token_out);
    P->token_out[0] = 0;
}
